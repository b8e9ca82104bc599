// Autosave and recovery (issue 12): a change is written to the recovery file
// within moments, a save or a clean exit removes it, and the work of a
// window killed with SIGKILL comes back, one undo step above what was on disk.

#include "attn_test.h"

#include "document.h"
#include "edit.h"
#include "lessons.h"
#include "recovery.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;

class TestRecovery : public QObject {
    Q_OBJECT

private slots:
    void changeIsWrittenAndSaveRemovesIt();
    void killedWindowIsRestored();
    void cleanExitLeavesNothing();
    void unreadableFilesAreLeftAlone();

private:
    static Scenario causal() { return loadLesson(QStringLiteral("causal")).value(); }
    static QString childPath() { return QStringLiteral(ATTN_TEST_BINARY_DIR "/tests/recovery_child"); }
};

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
