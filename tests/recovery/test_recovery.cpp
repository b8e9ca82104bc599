// Autosave and recovery: a change is written to the recovery file
// within moments, a save or a clean exit removes it, and the work of a
// window killed with SIGKILL comes back, one undo step above what was on disk.

#include "attn_test.h"

#include "atomicwrite.h"
#include "document.h"
#include "edit.h"
#include "lessons.h"
#include "recovery.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace attn;

namespace {

// Counts the timeouts of this thread's QTimers (an event filter on the application sees them all).
class TimeoutCounter : public QObject {
public:
    int count = 0;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Timer && qobject_cast<QTimer *>(watched))
            ++count;
        return false;
    }
};

} // namespace

class TestRecovery : public QObject {
    Q_OBJECT

private slots:
    void changeIsWrittenAndSaveRemovesIt();
    void killedWindowIsRestored();
    void cleanExitLeavesNothing();
    void unreadableFilesAreLeftAlone();
    void failedAutosaveIsSaidOnceAndRetried();
    void recoveryFileIsTheOwnersAlone();
    void leftoversOfKilledWritesGoAtStart();

private:
    static Scenario causal() { return loadLesson(QStringLiteral("causal")).value(); }
    static QString childPath() { return QStringLiteral(ATTN_TEST_BINARY_DIR "/tests/recovery_child"); }
};

// The recovery file holds the document as it stands, however private: 0600,
// in a folder of 0700 when the program makes it, whatever the umask says.
void TestRecovery::recoveryFileIsTheOwnersAlone()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("data/recovery"));
    const mode_t before = ::umask(0022);
    const auto restoreUmask = qScopeGuard([before] { ::umask(before); });
    Document doc;
    QVERIFY(!doc.replace(causal(), QString(), QStringLiteral("causal")));
    Recovery recovery(&doc, folder);
    recovery.setDelay(10);
    QSignalSpy written(&recovery, &Recovery::written);
    Scenario s = doc.scenario();
    s.Q(1, 0) = 4.25;
    QVERIFY(!doc.edit(s, QStringLiteral("edit")));
    QVERIFY(written.wait(2000));
    const auto owner = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser;
    QCOMPARE(QFile::permissions(recovery.file()), owner);
    QCOMPARE(QFile::permissions(folder), owner | QFileDevice::ExeOwner | QFileDevice::ExeUser);
    // Written again over itself: still 0600.
    s.Q(1, 0) = 5.5;
    QVERIFY(!doc.edit(s, QStringLiteral("edit")));
    QVERIFY(written.wait(2000));
    QCOMPARE(QFile::permissions(recovery.file()), owner);
}

// A window killed in the middle of a save leaves a hidden full copy of the
// recovery file beside it; the next start takes it away, however fresh,
// once the process that wrote it is gone. A running writer's copy stays.
void TestRecovery::leftoversOfKilledWritesGoAtStart()
{
    QTemporaryDir dir;
    const pid_t gone = ::fork();
    if (gone == 0)
        ::_exit(0);
    QVERIFY(gone > 0);
    ::waitpid(gone, nullptr, 0);
    const QString dead = dir.filePath(atomicTempName(QStringLiteral("recovery-%1.json").arg(gone), gone, QStringLiteral("k1lled")));
    const QString live = dir.filePath(atomicTempName(QStringLiteral("recovery-%1.json").arg(::getpid()), ::getpid(), QStringLiteral("runn1n")));
    for (const QString &path : {dead, live}) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write("{\"format\": \"attention-lab/recovery\"}") > 0);
    }
    Document doc;
    QVERIFY(!doc.replace(causal(), QString(), QStringLiteral("causal")));
    Recovery recovery(&doc, dir.path());
    QVERIFY(!QFile::exists(dead));
    QVERIFY(QFile::exists(live));
}

// Review D5: an autosave that cannot be written was dropped in silence. It
// is said once, in words, and tried again (later each time) meanwhile.
void TestRecovery::failedAutosaveIsSaidOnceAndRetried()
{
    QTemporaryDir dir;
    // The recovery "folder" lies under a plain file: no write can succeed there (even as root).
    const QString blocker = dir.filePath(QStringLiteral("not-a-folder"));
    QFile f(blocker);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write("x") == 1);
    f.close();
    Document doc;
    QVERIFY(!doc.replace(causal(), QString(), QStringLiteral("causal")));
    Recovery recovery(&doc, blocker + QStringLiteral("/recovery"));
    recovery.setDelay(10);
    QSignalSpy failed(&recovery, &Recovery::failed);
    QSignalSpy written(&recovery, &Recovery::written);
    Scenario s = doc.scenario();
    s.Q(1, 0) = 4.25;
    QVERIFY(!doc.edit(s, QStringLiteral("edit")));
    QVERIFY(failed.wait(2000));
    const QString message = failed.first().first().toString();
    ATTN_CHECK(message.startsWith(QStringLiteral("Autosave failed: ")) && message.contains(QStringLiteral("not-a-folder")), message);
    ATTN_CHECK(!message.contains(QStringLiteral("Unknown error")), message);
    // Retried (10, 20, 40, 80 ms ...), not said again, nothing written.
    // The only timer here is the autosave's: each timeout is one attempt.
    TimeoutCounter attempts;
    QCoreApplication::instance()->installEventFilter(&attempts);
    QTRY_VERIFY_WITH_TIMEOUT(attempts.count >= 4, 30000);
    QCoreApplication::instance()->removeEventFilter(&attempts);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(written.count(), 0);
    QVERIFY(recovery.flush().has_value()); // still pending: the work is not taken as protected
}

void TestRecovery::changeIsWrittenAndSaveRemovesIt()
{
    QTemporaryDir dir;
    Document doc;
    QVERIFY(!doc.replace(causal(), QString(), QStringLiteral("causal")));
    Recovery recovery(&doc, dir.path());
    recovery.setDelay(10);
    QSignalSpy written(&recovery, &Recovery::written);
    Scenario s = doc.scenario();
    s.Q(1, 0) = 4.25;
    QVERIFY(!doc.edit(s, QStringLiteral("edit")));
    QVERIFY(written.wait(2000));
    QVERIFY(QFile::exists(recovery.file()));
    // Our own file is not a leftover: this process is running.
    QCOMPARE(Recovery::leftovers(dir.path()).size(), std::size_t(0));
    // Undo back to the start: nothing left to lose, the file goes.
    doc.undo();
    QVERIFY(!QFile::exists(recovery.file()));
    doc.redo();
    QVERIFY(written.wait(2000));
    QVERIFY(QFile::exists(recovery.file()));
    // A save removes it.
    doc.markSaved(dir.filePath(QStringLiteral("lesson.json")));
    QVERIFY(!QFile::exists(recovery.file()));
}

void TestRecovery::killedWindowIsRestored()
{
    QTemporaryDir dir;
    QProcess child;
    child.setProgram(childPath());
    child.setArguments({QStringLiteral("crash"), dir.path()});
    child.start();
    QVERIFY2(child.waitForStarted(10000), qPrintable(child.errorString()));
    QVERIFY(child.waitForReadyRead(30000));
    QCOMPARE(child.readAllStandardOutput().trimmed(), QByteArray("ready"));
    child.kill(); // SIGKILL: no destructor, no clean exit
    QVERIFY(child.waitForFinished(10000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);

    const std::vector<RecoveredWork> left = Recovery::leftovers(dir.path());
    QCOMPARE(left.size(), std::size_t(1));
    const RecoveredWork &work = left.front();
    QCOMPARE(work.lessonName, QStringLiteral("causal"));
    QVERIFY(work.changedAt.isValid());
    QVERIFY(work.changedAt.secsTo(QDateTime::currentDateTime()) < 120);
    QCOMPARE(work.current.Q(0, 0), 9.0);
    QCOMPARE(work.base.Q(0, 0), causal().Q(0, 0));
    QVERIFY(work.current.K == causal().K);

    Document doc;
    QVERIFY(!Recovery::restore(doc, work));
    QCOMPARE(doc.scenario().Q(0, 0), 9.0);
    QVERIFY(doc.isModified());
    QCOMPARE(doc.lessonName(), QStringLiteral("causal"));
    QCOMPARE(doc.undoStack()->count(), 1);
    doc.undo(); // back to what was on disk
    QCOMPARE(doc.scenario().Q(0, 0), causal().Q(0, 0));
    QVERIFY(!QFile::exists(work.recoveryFile));
    QCOMPARE(Recovery::leftovers(dir.path()).size(), std::size_t(0));
}

void TestRecovery::cleanExitLeavesNothing()
{
    QTemporaryDir dir;
    QProcess child;
    child.start(childPath(), {QStringLiteral("exit"), dir.path()});
    QVERIFY(child.waitForFinished(30000));
    QCOMPARE(child.exitStatus(), QProcess::NormalExit);
    QCOMPARE(child.exitCode(), 0);
    QCOMPARE(child.readAllStandardOutput().trimmed(), QByteArray("ready"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList());
}

void TestRecovery::unreadableFilesAreLeftAlone()
{
    QTemporaryDir dir;
    // A dead process's file that is not ours to read (garbage, another format).
    for (const auto &[name, bytes] : {std::pair{"recovery-999999.json", QByteArray("not json")},
                                      std::pair{"recovery-999998.json", QByteArray(R"({"format": "other"})")}}) {
        QFile f(dir.filePath(QLatin1String(name)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
    }
    QCOMPARE(Recovery::leftovers(dir.path()).size(), std::size_t(0));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2);
}

QTEST_GUILESS_MAIN(TestRecovery)
#include "test_recovery.moc"
