#include "atomicwrite.h"
#include "cli.h"
#include "runtimedir.h"

#include <QApplication>
#include <QIODevice>

#include <cerrno>
#include <cstdio>
#include <memory>

#ifdef Q_OS_UNIX
#include <csignal>
#include <fcntl.h>
#include <unistd.h>
#endif

namespace {

#ifdef Q_OS_UNIX
// stdout or stderr, written with write(2) and every result checked, so that
// a full disk, /dev/full, a closed descriptor or a file size limit shows as a
// failed QTextStream whose device says why in words.
class DescriptorOutput : public QIODevice {
public:
    DescriptorOutput(int fd, bool closed) : m_fd(fd), m_closed(closed) { open(QIODevice::WriteOnly | QIODevice::Unbuffered); }
    bool isSequential() const override { return true; }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override
    {
        if (m_closed)
            return failed(EBADF);
        qint64 done = 0;
        while (done < size) {
            const ssize_t n = ::write(m_fd, data + done, std::size_t(size - done));
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                return failed(errno);
            }
            if (n == 0)
                return failed(ENOSPC);
            done += n;
        }
        return done;
    }

private:
    qint64 failed(int errnum)
    {
        setErrorString(errnum == EBADF ? QStringLiteral("it is closed") : attn::reasonFromErrno(errnum));
        return -1;
    }

    int m_fd;
    bool m_closed;
};

// A descriptor among 0, 1, 2 that the caller closed (`cli >&-`) is given
// /dev/null, so that no file this program opens lands on it and receives
// its output; a closed stdout is still reported as closed.
bool reserveIfClosed(int fd)
{
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF)
        return false;
    const int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (got >= 0 && got != fd)
        ::close(got);
    return true;
}
#endif

} // namespace

int main(int argc, char *argv[])
{
#ifdef Q_OS_UNIX
    reserveIfClosed(0);
    const bool stdoutClosed = reserveIfClosed(1);
    const bool stderrClosed = reserveIfClosed(2);
    // A file size limit (ulimit -f) then fails a write with EFBIG, reported
    // like a full disk, instead of killing the program mid-file.
    std::signal(SIGXFSZ, SIG_IGN);
    // Likewise a reader that went away (`| head`): the write fails with
    // EPIPE and is said in one line, exit 2, not a silent death.
    std::signal(SIGPIPE, SIG_IGN);
#endif
    attn::prepareRuntimeDir();
    // Only export, model export and quiz (its PDF) draw; off screen, so they need no display.
    const bool draws = argc > 1
                       && (qstrcmp(argv[1], "export") == 0 || qstrcmp(argv[1], "quiz") == 0
                           || (qstrcmp(argv[1], "model") == 0 && argc > 2 && qstrcmp(argv[2], "export") == 0));
    if (draws && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    std::unique_ptr<QCoreApplication> app(draws ? new QApplication(argc, argv) : new QCoreApplication(argc, argv));
    QCoreApplication::setApplicationName(QStringLiteral("attention-lab-cli"));
#ifdef Q_OS_UNIX
    DescriptorOutput outDevice(STDOUT_FILENO, stdoutClosed), errDevice(STDERR_FILENO, stderrClosed);
    QTextStream out(&outDevice), err(&errDevice);
#else
    QTextStream out(stdout), err(stderr);
#endif
    QStringList args = QCoreApplication::arguments();
    args.removeFirst();
    int status = attn::runCli(args, out, err); // flushes both, and fails when out did
    if (out.status() != QTextStream::Ok && status == 0)
        status = 2;
    return status;
}
