#include "atomicwrite.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSaveFile>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <optional>

#ifdef Q_OS_UNIX
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace attn {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("attn::Files", text);
}

// A temporary file's name: ".NAME.attnlab-PID-XXXXXX.tmp". A long NAME is
// cut so that the whole stays within the 255 bytes a file name may have.
constexpr qsizetype kMaxNamePart = 200;
const QByteArray kTempTag = ".attnlab-";
const QByteArray kTempSuffix = ".tmp";
constexpr int kUniqueLength = 6;

QByteArray tempPrefix(const QByteArray &fileName)
{
    return "." + fileName.left(kMaxNamePart) + kTempTag;
}

QByteArray tempName(const QByteArray &fileName, qint64 pid, const QByteArray &unique)
{
    return tempPrefix(fileName) + QByteArray::number(pid) + "-" + unique + kTempSuffix;
}

#ifdef Q_OS_UNIX

// Any of ours untouched for this long is removed even when a process of its
// PID runs (a writer on another machine sharing the folder cannot be asked
// whether it is alive, but no write takes an hour).
constexpr std::time_t kAbandoned = 3600;
// A process that started this much after a file was last written cannot have
// written it: the clocks compared are read to a second or so.
constexpr double kStartSlack = 2.0;

bool isAlnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// The writer's pid when `entry` is exactly one of our temporary names
// (".NAME.attnlab-PID-XXXXXX.tmp", NAME not empty); otherwise 0.
pid_t leftoverPid(const QByteArray &entry)
{
    if (!entry.startsWith('.') || !entry.endsWith(kTempSuffix))
        return 0;
    const qsizetype tag = entry.lastIndexOf(kTempTag);
    if (tag <= 1)
        return 0;
    const qsizetype from = tag + kTempTag.size();
    const QByteArray middle = entry.mid(from, entry.size() - from - kTempSuffix.size());
    const qsizetype dash = middle.indexOf('-');
    if (dash <= 0 || middle.size() - dash - 1 != kUniqueLength || dash > 10)
        return 0;
    for (qsizetype i = 0; i < middle.size(); ++i)
        if (i < dash ? !(middle[i] >= '0' && middle[i] <= '9') : i > dash && !isAlnum(middle[i]))
            return 0;
    bool ok = false;
    const qlonglong pid = middle.left(dash).toLongLong(&ok);
    return ok && pid > 0 && pid <= 0x7fffffff ? pid_t(pid) : 0;
}

// When process `pid` started, in seconds of the real-time clock (as file
// times are); nothing when it cannot be told (no /proc, another namespace).
std::optional<double> processStart(pid_t pid)
{
    const QByteArray path = "/proc/" + QByteArray::number(pid) + "/stat";
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    char buf[1024];
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0)
        return std::nullopt;
    const QByteArray stat(buf, n);
    // "PID (COMM) S ...": COMM may hold anything, so count from its last ')';
    // the start time is field 22, the 20th after it, in clock ticks since boot.
    const qsizetype close = stat.lastIndexOf(')');
    if (close < 0)
        return std::nullopt;
    const QList<QByteArray> fields = stat.mid(close + 1).simplified().split(' ');
    if (fields.size() < 20)
        return std::nullopt;
    bool ok = false;
    const qulonglong ticks = fields[19].toULongLong(&ok);
    const long hz = ::sysconf(_SC_CLK_TCK);
    timespec real {}, boot {};
    if (!ok || hz <= 0 || ::clock_gettime(CLOCK_REALTIME, &real) != 0 || ::clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
        return std::nullopt;
    const double bootedAt = (double(real.tv_sec) - double(boot.tv_sec)) + (double(real.tv_nsec) - double(boot.tv_nsec)) * 1e-9;
    return bootedAt + double(ticks) / double(hz);
}

// Whether the process that wrote a file of ours named with `pid`, last
// written at `mtime`, may still be running: a process of that PID runs and
// started before the file was written. A PID reused by a process that
// started within kStartSlack of the write counts as the writer (the small
// risk: such a leftover waits for the hour of kAbandoned).
bool writerMayRun(pid_t pid, const timespec &mtime)
{
    if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH)
        return false;
    const std::optional<double> start = processStart(pid);
    const double written = double(mtime.tv_sec) + double(mtime.tv_nsec) * 1e-9;
    return !start || *start <= written + kStartSlack;
}

// Removes our own temporary files in `dir` that no running writer owns.
void removeLeftovers(const QByteArray &dir)
{
    DIR *d = ::opendir(dir.constData());
    if (!d)
        return;
    const std::time_t now = std::time(nullptr);
    const int dfd = ::dirfd(d);
    while (const dirent *e = ::readdir(d)) {
        const pid_t pid = leftoverPid(QByteArray(e->d_name));
        if (pid == 0)
            continue;
        struct stat st;
        if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid())
            continue;
        if (now - st.st_mtime >= kAbandoned || !writerMayRun(pid, st.st_mtim))
            ::unlinkat(dfd, e->d_name, 0);
    }
    ::closedir(d);
}

QByteArray randomUnique()
{
    static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    QByteArray out(kUniqueLength, 'x');
    for (char &c : out)
        c = kChars[QRandomGenerator::global()->bounded(int(sizeof kChars - 1))];
    return out;
}

// The file a write of `target` replaces: a symbolic link is followed, so
// that the link stays and the file it names gets the new bytes.
QByteArray resolveLinks(const QByteArray &target)
{
    struct stat st;
    if (::lstat(target.constData(), &st) != 0 || !S_ISLNK(st.st_mode))
        return target;
    if (char *real = ::realpath(target.constData(), nullptr)) {
        const QByteArray out(real);
        std::free(real);
        return out;
    }
    // A dangling link: write the file it names, as far as one step goes.
    QByteArray link(4096, '\0');
    const ssize_t n = ::readlink(target.constData(), link.data(), std::size_t(link.size()));
    if (n <= 0 || n >= link.size())
        return target;
    link.truncate(n);
    if (link.startsWith('/'))
        return link;
    const qsizetype slash = target.lastIndexOf('/');
    return target.left(slash + 1) + link;
}

// What readlink says `path` names, or nothing when it is no link.
std::optional<QByteArray> linkText(const QByteArray &path)
{
    QByteArray link(4096, '\0');
    const ssize_t n = ::readlink(path.constData(), link.data(), std::size_t(link.size()));
    if (n < 0 || n >= link.size())
        return std::nullopt;
    link.truncate(n);
    return link;
}

QString writePosix(const QString &path, const ChunkProducer &produce, const WriteOptions &options)
{
    const QByteArray given = QFile::encodeName(QFileInfo(path).absoluteFilePath());
    const QByteArray target = options.replaceLink ? given : resolveLinks(given);
    const qsizetype slash = target.lastIndexOf('/');
    const QByteArray dir = slash <= 0 ? QByteArray("/") : target.left(slash);
    const QByteArray name = target.mid(slash + 1);
    if (name.isEmpty())
        return tr("no file name was given");
    if (options.replacedLink)
        options.replacedLink->clear();

    // A link to be replaced is not looked through: the new file takes its
    // name, with fresh permissions, and what it named stays as it was.
    struct stat old;
    bool exists = (options.replaceLink ? ::lstat(target.constData(), &old) : ::stat(target.constData(), &old)) == 0;
    std::optional<QByteArray> replacing;
    if (exists && S_ISLNK(old.st_mode)) {
        replacing = linkText(target).value_or(QByteArray());
        exists = false;
    } else if (exists) {
        if (S_ISDIR(old.st_mode))
            return tr("it is a folder");
        if (!S_ISREG(old.st_mode))
            return tr("it is not a regular file");
        // As QSaveFile did: a file its owner made read-only is not replaced.
        if (::access(target.constData(), W_OK) != 0)
            return reasonFromErrno(errno);
    } else if (errno != ENOENT) {
        return reasonFromErrno(errno);
    }

    removeLeftovers(dir);

    QByteArray temp;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        temp = dir + "/" + tempName(name, ::getpid(), randomUnique());
        fd = ::open(temp.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, options.ownerOnly ? 0600 : 0666);
        if (fd < 0 && errno != EEXIST && errno != EINTR)
            return reasonFromErrno(errno);
    }
    if (fd < 0)
        return reasonFromErrno(EEXIST);

    auto fail = [&](int errnum) {
        if (fd >= 0)
            ::close(fd);
        ::unlink(temp.constData());
        return reasonFromErrno(errnum);
    };

    if (options.ownerOnly) {
        if (::fchmod(fd, 0600) != 0)
            return fail(errno);
    } else if (exists) {
        // Keep the old file's permissions (and, where allowed, its owner).
        if ((old.st_uid != ::geteuid() || old.st_gid != ::getegid()) && ::fchown(fd, old.st_uid, old.st_gid) != 0) {
            // not allowed to give it away: it stays ours, which is no failure
        }
        if (::fchmod(fd, old.st_mode & 07777) != 0 && errno != EPERM)
            return fail(errno);
    }
    // The producer hands its bytes over a chunk at a time; the first chunk
    // that cannot be written whole stops it, with errno kept for the reason.
    int failedErrno = 0;
    qint64 total = 0;
    const ChunkWriter write = [&](const QByteArray &chunk) {
        if (failedErrno != 0)
            return false;
        const char *p = chunk.constData();
        std::size_t left = std::size_t(chunk.size());
        while (left > 0) {
            const ssize_t n = ::write(fd, p, std::min<std::size_t>(left, std::size_t(1) << 30));
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                failedErrno = errno;
                return false;
            }
            if (n == 0) { // a write that takes nothing and says nothing: treat as a full disk
                failedErrno = ENOSPC;
                return false;
            }
            p += n;
            left -= std::size_t(n);
        }
        total += chunk.size();
        return true;
    };
    const bool produced = produce(write);
    if (failedErrno != 0)
        return fail(failedErrno);
    if (!produced) {
        ::close(fd);
        fd = -1;
        ::unlink(temp.constData());
        return tr("the data to write could not be made");
    }
    if (total == 0) {
        ::close(fd);
        fd = -1;
        ::unlink(temp.constData());
        return tr("there was nothing to write");
    }
    // Every byte on the disk before the name points at them; file systems
    // without sync say EINVAL, which leaves nothing to wait for.
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        return fail(errno);
    const int closed = ::close(fd);
    fd = -1;
    if (closed != 0 && errno != EINTR)
        return fail(errno);
    if (::rename(temp.constData(), target.constData()) != 0)
        return fail(errno);
    if (replacing && options.replacedLink)
        *options.replacedLink = QFile::decodeName(*replacing);
    // The rename itself on the disk; a folder that cannot be synced is no failure.
    const int dirFd = ::open(dir.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return QString();
}

#endif

} // namespace

QString reasonFromErrno(int errnum)
{
    switch (errnum) {
    case 0:
        return tr("the system gave no reason");
#ifdef ENOSPC
    case ENOSPC:
        return tr("no space left on the device");
#endif
#ifdef EFBIG
    case EFBIG:
        return tr("the file is too large");
#endif
#ifdef EDQUOT
    case EDQUOT:
        return tr("the disk quota is used up");
#endif
    case EACCES:
    case EPERM:
        return tr("permission denied");
#ifdef EROFS
    case EROFS:
        return tr("the file system is read-only");
#endif
    case EIO:
        return tr("an input/output error (the disk or the connection to it failed)");
    case ENOENT:
        return tr("the file or folder does not exist");
#ifdef ENOTDIR
    case ENOTDIR:
        return tr("a part of the path is not a folder");
#endif
    case EISDIR:
        return tr("it is a folder");
    case ENAMETOOLONG:
        return tr("the name is too long");
    case EMFILE:
    case ENFILE:
        return tr("too many files are open");
    case EBADF:
        return tr("it is closed");
    case EPIPE:
        return tr("the reader went away (broken pipe)");
    case EEXIST:
        return tr("a file of that name already exists");
#ifdef ELOOP
    case ELOOP:
        return tr("too many symbolic links");
#endif
#ifdef ETXTBSY
    case ETXTBSY:
        return tr("the file is in use");
#endif
    case ENOMEM:
        return tr("out of memory");
    default:
        break;
    }
    QString text = qt_error_string(errnum);
    if (text.isEmpty() || text.startsWith(QLatin1String("Unknown error")))
        return tr("error number %1").arg(errnum);
    text[0] = text[0].toLower();
    return text;
}

QString atomicTempName(const QString &fileName, qint64 pid, const QString &unique)
{
    return QFile::decodeName(tempName(QFile::encodeName(fileName), pid, unique.toLatin1()));
}

namespace {

QString reasonWritingFile(const QString &path, const ChunkProducer &produce, const WriteOptions &options)
{
    const QFileInfo info(path);
    if (!info.absoluteDir().exists())
        return tr("the folder %1 does not exist").arg(QDir::toNativeSeparators(info.absolutePath()));
#ifdef Q_OS_UNIX
    return writePosix(path, produce, options);
#else
    Q_UNUSED(options);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return file.errorString();
    qint64 total = 0;
    QString why;
    const ChunkWriter write = [&](const QByteArray &chunk) {
        if (!why.isEmpty())
            return false;
        if (file.write(chunk) != chunk.size()) {
            why = file.errorString();
            return false;
        }
        total += chunk.size();
        return true;
    };
    const bool produced = produce(write);
    if (why.isEmpty() && !produced)
        why = tr("the data to write could not be made");
    if (why.isEmpty() && total == 0)
        why = tr("there was nothing to write");
    if (why.isEmpty() && !file.flush())
        why = file.errorString();
    if (!why.isEmpty()) {
        file.cancelWriting();
        return why;
    }
    if (!file.commit())
        return file.errorString();
    return QString();
#endif
}

} // namespace

std::optional<Problem> writeFileAtomically(const QString &path, const ChunkProducer &produce, const WriteOptions &options)
{
    const QString why = reasonWritingFile(path, produce, options);
    if (why.isEmpty())
        return std::nullopt;
    return Problem{QDir::toNativeSeparators(path).toStdString(), why.toStdString()};
}

std::optional<Problem> writeFileAtomically(const QString &path, const QByteArray &bytes, const WriteOptions &options)
{
    if (bytes.isEmpty())
        return Problem{QDir::toNativeSeparators(path).toStdString(), tr("there was nothing to write").toStdString()};
    return writeFileAtomically(path, [&bytes](const ChunkWriter &write) { return write(bytes); }, options);
}

QString replacedLinkNote(const QString &path, const QString &linkTarget)
{
    return tr("%1: replaced a symbolic link to %2 (%2 itself was not touched)")
        .arg(QDir::toNativeSeparators(path), QDir::toNativeSeparators(linkTarget));
}

void removeAtomicLeftovers(const QString &folder)
{
#ifdef Q_OS_UNIX
    removeLeftovers(QFile::encodeName(QFileInfo(folder).absoluteFilePath()));
#else
    Q_UNUSED(folder);
#endif
}

QString problemLine(const std::optional<Problem> &p)
{
    return p ? QString::fromStdString(p->toString()) : QString();
}

QString reasonOf(const std::optional<Problem> &p)
{
    return p ? QString::fromStdString(p->message) : QString();
}

} // namespace attn
