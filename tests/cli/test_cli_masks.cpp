// `trace` and `export` with the mask options (--window, --dilation,
// --block, --global, --causal) over a built-in lesson, called in-process
// through attn::runCli; a bad width is status 2 and one line.

#include "cli_run.h"

#include <QDir>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>

using namespace attn;

namespace {

using Run = test::CliRun;
Run cli(const QStringList &args) { return test::runCliInProcess(args); }

} // namespace

class TestCliMasks : public QObject {
    Q_OBJECT

private slots:
    void cliTraceAndExportTakeTheMask()
    {
        const Run r = cli({"trace", "--preset", "causal", "--window", "2", "--format", "json"});
        QCOMPARE(r.code, 0);
        const Run plain = cli({"trace", "--preset", "causal", "--window", "2"});
        QCOMPARE(plain.code, 0);
        QVERIFY2(plain.out.contains(QStringLiteral("causal, sliding window W = 2")), qPrintable(plain.out));
        for (const char *bad : {"0", "-1", "2.5", "x", "5000"}) {
            const Run b = cli({"trace", "--preset", "causal", "--window", bad});
            QCOMPARE(b.code, 2);
            QVERIFY(b.out.isEmpty());
            QCOMPARE(b.err.trimmed().count(QLatin1Char('\n')), 0);
            QVERIFY2(b.err.contains(QStringLiteral("--window: must be a whole number from 1 to 4096")), qPrintable(b.err));
        }
        const Run past = cli({"trace", "--preset", "causal", "--window", "1", "--global", "99"});
        QCOMPARE(past.code, 2);
        QVERIFY2(past.err.contains(QStringLiteral("mask.global[0]: token 99")), qPrintable(past.err));
        QTemporaryDir dir;
        const Run e = cli({"export", "--preset", "causal", "--block", "2", "--causal", "--out", dir.path(),
                           "--stages", "weights", "--numbers", "json"});
        QCOMPARE(e.code, 0);
        QVERIFY2(QDir(dir.path()).entryList(QDir::Files).size() == 2, qPrintable(e.out + e.err));
    }
};

QTEST_MAIN(TestCliMasks)
#include "test_cli_masks.moc"
