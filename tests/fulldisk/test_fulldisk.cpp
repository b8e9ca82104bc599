// Nothing lost: a write that fails (a full disk, a file size
// limit, no permission) reports the reason in words, leaves the old file
// byte for byte as it was and leaves no temporary file behind; leftovers of
// a killed writer are removed by the next write of the same name.
//
// A full disk without root: a child process with setrlimit(RLIMIT_FSIZE)
// and SIGXFSZ ignored, where writes past the limit fail with EFBIG the way
// they fail with ENOSPC on a full file system.

#include "atomicwrite.h"
#include "attn_test.h"
#include "lessons.h"
#include "scenario_json.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <functional>
#include <optional>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace attn;

namespace {

bool writePlain(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size() && f.flush();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(cannot be read)");
}

QStringList entries(const QString &dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name);
}

// Runs `write` in a child process whose files may not grow past `limit`
// bytes and returns what it returned (an empty string: success), or nothing
// when the child did not exit normally.
std::optional<QString> inChildWithFileLimit(rlim_t limit, const std::function<QString()> &write)
{
    int fds[2];
    if (::pipe(fds) != 0)
        return std::nullopt;
    const pid_t pid = ::fork();
    if (pid < 0)
        return std::nullopt;
    if (pid == 0) {
        ::close(fds[0]);
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit r{limit, limit};
        if (::setrlimit(RLIMIT_FSIZE, &r) != 0)
            ::_exit(3);
        const QByteArray answer = "R:" + write().toUtf8(); // a pipe is no file: the limit does not apply
        const ssize_t n = ::write(fds[1], answer.constData(), std::size_t(answer.size()));
        ::_exit(n == answer.size() ? 0 : 4);
    }
    ::close(fds[1]);
    QByteArray got;
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            got.append(buffer, n);
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !got.startsWith("R:"))
        return std::nullopt;
    return QString::fromUtf8(got.mid(2));
}

// A pid no process has: a child that has exited and been waited for.
pid_t deadPid()
{
    const pid_t pid = ::fork();
    if (pid == 0)
        ::_exit(0);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return pid;
}

bool setAge(const QString &path, int seconds)
{
    timeval times[2];
    ::gettimeofday(&times[0], nullptr);
    times[0].tv_sec -= seconds;
    times[1] = times[0];
    return ::utimes(QFile::encodeName(path).constData(), times) == 0;
}

QByteArray pattern(qsizetype size, const char *seed)
{
    QByteArray out;
    out.reserve(size);
    while (out.size() < size)
        out += seed;
    out.truncate(size);
    return out;
}

} // namespace

class TestFullDisk : public QObject {
    Q_OBJECT

private slots:
    // The old file stays whole and the reason is given in words, for small
    // files (where QSaveFile's buffered write hid the failure until its
    // commit, which then reported success over a 0-byte file) and large ones.
    void fullDiskKeepsTheOldFile_data()
    {
        QTest::addColumn<int>("oldSize");
        QTest::addColumn<int>("newSize");
        QTest::addColumn<int>("limit");
        QTest::newRow("small file, nothing fits") << 5400 << 3000 << 0;
        QTest::newRow("small file, part fits") << 5400 << 5000 << 1000;
        QTest::newRow("new file larger than the old") << 200 << 20000 << 10000;
        QTest::newRow("large file") << 300000 << 200000 << 65536;
        QTest::newRow("one byte too many") << 100 << 4097 << 4096;
    }

    void fullDiskKeepsTheOldFile()
    {
        QFETCH(int, oldSize);
        QFETCH(int, newSize);
        QFETCH(int, limit);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("lesson.json"));
        const QByteArray old = pattern(oldSize, "good old contents\n");
        QVERIFY(writePlain(path, old));
        const std::optional<QString> why =
            inChildWithFileLimit(rlim_t(limit), [&] { return reasonOf(writeFileAtomically(path, pattern(newSize, "new\n"))); });
        QVERIFY2(why, "the child did not finish");
        ATTN_CHECK(*why == QStringLiteral("the file is too large"), QStringLiteral("the reason given: \"%1\"").arg(*why));
        QCOMPARE(readFile(path), old);
        QCOMPARE(entries(dir.path()), QStringList{QStringLiteral("lesson.json")});
    }

    // Under the limit the same write goes through: the child is no failure in itself.
    void writeUnderTheLimitSucceeds()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("x.csv"));
        QVERIFY(writePlain(path, "old"));
        const QByteArray bytes = pattern(5000, "new,row\n");
        const std::optional<QString> why = inChildWithFileLimit(6000, [&] { return reasonOf(writeFileAtomically(path, bytes)); });
        QVERIFY(why);
        QCOMPARE(*why, QString());
        QCOMPARE(readFile(path), bytes);
        QCOMPARE(entries(dir.path()), QStringList{QStringLiteral("x.csv")});
    }

    // The streamed form (a JSON trace written as it is made): the disk
    // fills in the middle of the chunks, the producer is told to stop, the
    // old file stays; a producer that fails or makes nothing leaves it too.
    void streamedWriteKeepsTheOldFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("trace.json"));
        const QByteArray old = pattern(3000, "old trace\n");
        QVERIFY(writePlain(path, old));
        const QByteArray chunk = pattern(4096, "chunk\n");
        const std::optional<QString> why = inChildWithFileLimit(20000, [&] {
            int offered = 0;
            const auto p = writeFileAtomically(path, [&](const ChunkWriter &write) {
                for (int i = 0; i < 100; ++i) {
                    ++offered;
                    if (!write(chunk))
                        return false;
                }
                return true;
            });
            // The fifth chunk crosses 20000 bytes; none is offered after it.
            return offered == 5 ? reasonOf(p) : QStringLiteral("offered %1 chunks").arg(offered);
        });
        QVERIFY(why);
        QCOMPARE(*why, QStringLiteral("the file is too large"));
        QCOMPARE(readFile(path), old);
        QCOMPARE(entries(dir.path()), QStringList{QStringLiteral("trace.json")});

        const auto failing = writeFileAtomically(path, [&](const ChunkWriter &write) { return write(chunk) && false; });
        QCOMPARE(reasonOf(failing), QStringLiteral("the data to write could not be made"));
        const auto empty = writeFileAtomically(path, [](const ChunkWriter &) { return true; });
        QCOMPARE(reasonOf(empty), QStringLiteral("there was nothing to write"));
        QCOMPARE(readFile(path), old);
        QCOMPARE(entries(dir.path()), QStringList{QStringLiteral("trace.json")});

        // And when it all fits, the chunks in order are the file.
        const auto ok = writeFileAtomically(path, [&](const ChunkWriter &write) { return write("ab") && write("") && write("cd"); });
        QVERIFY(!ok);
        QCOMPARE(readFile(path), QByteArray("abcd"));
    }

    // File ▸ Save on a full disk: refused, and the saved lesson still opens.
    void scenarioSaveOnFullDisk()
    {
        const ScenarioOrProblem r = loadLesson(QStringLiteral("causal"));
        QVERIFY(std::holds_alternative<Scenario>(r));
        Scenario s = std::get<Scenario>(r);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("causal.json"));
        QCOMPARE(reasonOf(saveScenarioFile(path, s)), QString());
        const QByteArray saved = readFile(path);
        QVERIFY(saved.size() > 1000);
        s.title = "edited";
        s.Q(0, 0) = 42;
        const std::optional<QString> why = inChildWithFileLimit(512, [&] { return reasonOf(saveScenarioFile(path, s)); });
        QVERIFY(why);
        ATTN_CHECK(why->contains(QStringLiteral("too large")), *why);
        QCOMPARE(readFile(path), saved);
        const ScenarioOrProblem again = loadScenarioFile(path);
        QVERIFY(std::holds_alternative<Scenario>(again));
        QCOMPARE(QString::fromStdString(std::get<Scenario>(again).title), QString::fromStdString(std::get<Scenario>(r).title));
        QCOMPARE(entries(dir.path()), QStringList{QStringLiteral("causal.json")});
    }

    void reasonsAreWords_data()
    {
        QTest::addColumn<int>("errnum");
        QTest::addColumn<QString>("words");
        QTest::newRow("ENOSPC") << ENOSPC << "no space left on the device";
        QTest::newRow("EFBIG") << EFBIG << "the file is too large";
        QTest::newRow("EACCES") << EACCES << "permission denied";
        QTest::newRow("EPERM") << EPERM << "permission denied";
        QTest::newRow("EROFS") << EROFS << "the file system is read-only";
        QTest::newRow("EDQUOT") << EDQUOT << "the disk quota is used up";
        QTest::newRow("EIO") << EIO << "an input/output error (the disk or the connection to it failed)";
        QTest::newRow("ETIMEDOUT (from the system's words)") << ETIMEDOUT << "connection timed out";
        QTest::newRow("a number no system uses") << 98765 << "error number 98765";
    }

    void reasonsAreWords()
    {
        QFETCH(int, errnum);
        QFETCH(QString, words);
        QCOMPARE(reasonFromErrno(errnum), words);
    }

    // A file in place keeps its permissions; a link stays a link.
    void keepsModeAndLinks()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("private.json"));
        QVERIFY(writePlain(path, "old"));
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0640) == 0);
        QCOMPARE(reasonOf(writeFileAtomically(path, "new")), QString());
        struct stat st;
        QVERIFY(::stat(QFile::encodeName(path).constData(), &st) == 0);
        QCOMPARE(int(st.st_mode & 07777), 0640);
        QCOMPARE(readFile(path), QByteArray("new"));

        // A new file: 0666 less the umask, as any program makes it.
        const mode_t mask = ::umask(022);
        const QString fresh = dir.filePath(QStringLiteral("fresh.csv"));
        QCOMPARE(reasonOf(writeFileAtomically(fresh, "a,b\n")), QString());
        ::umask(mask);
        QVERIFY(::stat(QFile::encodeName(fresh).constData(), &st) == 0);
        QCOMPARE(int(st.st_mode & 07777), 0644);

        const QString link = dir.filePath(QStringLiteral("link.json"));
        QVERIFY(QFile::link(path, link));
        QCOMPARE(reasonOf(writeFileAtomically(link, "through the link")), QString());
        QVERIFY(QFileInfo(link).isSymLink());
        QCOMPARE(readFile(path), QByteArray("through the link"));
    }

    // A folder, or a read-only file, is not replaced; the reason says so.
    void refusesFoldersAndReadOnlyFiles()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("sub.json")));
        const QString why = reasonOf(writeFileAtomically(dir.filePath(QStringLiteral("sub.json")), "x"));
        QCOMPARE(why, QStringLiteral("it is a folder"));
        QCOMPARE(entries(dir.path()), QStringList{QStringLiteral("sub.json")});
        if (::geteuid() != 0) { // root may write anything
            const QString path = dir.filePath(QStringLiteral("locked.json"));
            QVERIFY(writePlain(path, "old"));
            QVERIFY(::chmod(QFile::encodeName(path).constData(), 0444) == 0);
            QCOMPARE(reasonOf(writeFileAtomically(path, "new")), QStringLiteral("permission denied"));
            QCOMPARE(readFile(path), QByteArray("old"));
        }
    }

    // A writer killed before its rename leaves ".NAME.attnlab-PID-XXXXXX.tmp";
    // the next write into the folder removes it once its writer is gone,
    // whatever its name or age. Anything else, even a near miss of the
    // pattern, stays, and so does a running writer's file.
    void leftoversOfOursAreRemoved()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("lesson.json"));
        QVERIFY(writePlain(path, "old"));
        const pid_t dead = deadPid();
        QVERIFY(dead > 0 && ::kill(dead, 0) != 0);
        const QString stale = atomicTempName(QStringLiteral("lesson.json"), dead, QStringLiteral("aB3xYz"));
        const QString staleButFresh = atomicTempName(QStringLiteral("lesson.json"), dead, QStringLiteral("fresh1"));
        const QString live = atomicTempName(QStringLiteral("lesson.json"), ::getpid(), QStringLiteral("live12"));
        const QString ancient = atomicTempName(QStringLiteral("lesson.json"), ::getpid(), QStringLiteral("old123"));
        const QString otherName = atomicTempName(QStringLiteral("other.json"), dead, QStringLiteral("aB3xYz"));
        QCOMPARE(stale, QStringLiteral(".lesson.json.attnlab-%1-aB3xYz.tmp").arg(dead));
        const QStringList keep{QStringLiteral("lesson.json.aB3xYz"),                                      // QSaveFile's, maybe not ours
                               QStringLiteral(".lesson.json.attnlab-%1-aB3xY.tmp").arg(dead),            // five characters
                               QStringLiteral(".lesson.json.attnlab-%1-aB3xYz.tmp.bak").arg(dead),
                               QStringLiteral(".lesson.json.attnlab-x%1-aB3xYz.tmp").arg(dead),
                               live};
        for (const QString &name : keep + QStringList{stale, ancient, staleButFresh, otherName}) {
            QVERIFY(writePlain(dir.filePath(name), "leftover"));
            // This process's own file is as fresh as a running write's.
            if (name != live)
                QVERIFY(setAge(dir.filePath(name), name == staleButFresh ? 5 : 120));
        }
        QVERIFY(setAge(dir.filePath(ancient), 2 * 3600));
        // A folder of our pattern is never removed.
        const QString folder = atomicTempName(QStringLiteral("lesson.json"), dead, QStringLiteral("folder"));
        QVERIFY(QDir(dir.path()).mkdir(folder));
        QVERIFY(setAge(dir.filePath(folder), 120));

        QCOMPARE(reasonOf(writeFileAtomically(path, "new")), QString());
        QCOMPARE(readFile(path), QByteArray("new"));
        QStringList expected = keep + QStringList{folder, QStringLiteral("lesson.json")};
        expected.sort();
        QCOMPARE(entries(dir.path()), expected);
    }

    // A leftover under a long name (cut to fit the 255-byte limit) is found too.
    void longNamesWriteAndClean()
    {
        QTemporaryDir dir;
        const QString name = QString(240, QLatin1Char('n')) + QStringLiteral(".csv");
        const QString path = dir.filePath(name);
        const QString leftover = atomicTempName(name, deadPid(), QStringLiteral("abcdef"));
        QVERIFY(QFile::encodeName(leftover).size() <= 255);
        QVERIFY(writePlain(dir.filePath(leftover), "x"));
        QVERIFY(setAge(dir.filePath(leftover), 120));
        QCOMPARE(reasonOf(writeFileAtomically(path, "a,b\n")), QString());
        QCOMPARE(entries(dir.path()), QStringList{name});
    }
};

QTEST_GUILESS_MAIN(TestFullDisk)
#include "test_fulldisk.moc"
