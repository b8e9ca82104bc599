// `trace` and `export` with the mask options (--window, --dilation,
// --block, --global, --causal) over a built-in lesson, called in-process
// through attn::runCli; a bad width is status 2 and one line.

#include "cli_run.h"
#include "lesson_test.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QDir>
#include <QFile>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>

using namespace attn;

namespace {

using Run = test::CliRun;
Run cli(const QStringList &args) { return test::runCliInProcess(args); }

// docs/scenario-format.md's rule, written again from the formula: the
// pattern (window W spanning W·D, dilation D, blocks of B, global tokens),
// then causal; the lessons used here have no padding or hand blocks.
bool blockedByRule(int i, int j, int W, int D, int B, const QList<int> &global, bool causal)
{
    const bool isGlobal = global.contains(i + 1) || global.contains(j + 1);
    const int gap = i > j ? i - j : j - i;
    const bool pattern = gap % D == 0 && (W == 0 || gap < W * D) && (B == 0 || i / B == j / B);
    return !(isGlobal || pattern) || (causal && j > i);
}

QJsonObject json(const Run &r)
{
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

// The settings block's pattern as "window dilation block [global]" ("null" for none).
QString pattern(const QJsonObject &settings)
{
    auto v = [&](const char *k) {
        const QJsonValue x = settings.value(QLatin1String(k));
        return x.isNull() ? QStringLiteral("null") : x.isDouble() ? QString::number(x.toInt()) : QStringLiteral("missing");
    };
    QStringList g;
    for (const QJsonValue &x : settings.value(QLatin1String("global")).toArray())
        g << QString::number(x.toInt());
    const QString global = settings.value(QLatin1String("global")).isArray() ? g.join(QLatin1Char(',')) : QStringLiteral("missing");
    return v("window") + QLatin1Char(' ') + v("dilation") + QLatin1Char(' ') + v("block") + QStringLiteral(" [") + global
        + QLatin1Char(']');
}

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

    // The settings bar's presets by name (--mask NAME[:W]) and the single
    // patterns: the JSON's settings block says the pattern, and its blocked
    // cells are the documented rule's, counted again here.
    void presetsReachTheTraceSettings_data()
    {
        QTest::addColumn<QString>("lesson");
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("settings"); // window dilation block [global]
        QTest::addColumn<int>("W");
        QTest::addColumn<int>("D");
        QTest::addColumn<int>("B");
        QTest::addColumn<QList<int>>("global");
        // The causal lesson (5 tokens, causal on).
        QTest::newRow("none") << "causal" << QStringList{} << "0 1 0 []" << 0 << 1 << 0 << QList<int>{};
        QTest::newRow("full") << "causal" << QStringList{"--mask", "full"} << "0 1 0 []" << 0 << 1 << 0 << QList<int>{};
        QTest::newRow("window") << "causal" << QStringList{"--mask", "window:2"} << "2 1 0 []" << 2 << 1 << 0 << QList<int>{};
        QTest::newRow("window, width left out") << "causal" << QStringList{"--mask", "window"} << "2 1 0 []" << 2 << 1 << 0
                                                << QList<int>{};
        QTest::newRow("dilated") << "causal" << QStringList{"--mask", "dilated:2"} << "2 2 0 []" << 2 << 2 << 0 << QList<int>{};
        QTest::newRow("block") << "causal" << QStringList{"--mask", "block:2"} << "0 1 2 []" << 0 << 1 << 2 << QList<int>{};
        QTest::newRow("global-window") << "causal" << QStringList{"--mask", "global-window:1"} << "1 1 0 [1]" << 1 << 1 << 0
                                       << QList<int>{1};
        QTest::newRow("preset, then a pattern over it") << "causal" << QStringList{"--mask", "block:3", "--global", "2,4"}
                                                        << "0 1 3 [2,4]" << 0 << 1 << 3 << QList<int>{2, 4};
        QTest::newRow("single patterns") << "causal" << QStringList{"--window", "2", "--dilation", "2", "--block", "4"}
                                         << "2 2 4 []" << 2 << 2 << 4 << QList<int>{};
        // The sliding-window lesson's own W = 3 (5 tokens, not causal): kept, widened, or cleared.
        QTest::newRow("the lesson's own") << "sliding-window" << QStringList{} << "3 1 0 []" << 3 << 1 << 0 << QList<int>{};
        QTest::newRow("its width kept") << "sliding-window" << QStringList{"--mask", "dilated"} << "3 2 0 []" << 3 << 2 << 0
                                        << QList<int>{};
        QTest::newRow("wider") << "sliding-window" << QStringList{"--mask", "window:5"} << "5 1 0 []" << 5 << 1 << 0 << QList<int>{};
        QTest::newRow("cleared") << "sliding-window" << QStringList{"--mask", "full"} << "0 1 0 []" << 0 << 1 << 0
                                 << QList<int>{};
    }

    void presetsReachTheTraceSettings()
    {
        QFETCH(QString, lesson);
        QFETCH(QStringList, options);
        QFETCH(QString, settings);
        QFETCH(int, W);
        QFETCH(int, D);
        QFETCH(int, B);
        QFETCH(QList<int>, global);
        const bool causal = test::lesson(lesson).mask.causal;
        const Run r = cli(QStringList{"trace", "--preset", lesson, "--format", "json"} + options);
        QVERIFY2(r.code == 0 && r.err.isEmpty(), qPrintable(r.err));
        const QJsonObject o = json(r);
        const QJsonObject set = o.value(QLatin1String("settings")).toObject();
        QCOMPARE(pattern(set), settings);
        QCOMPARE(set.value(QLatin1String("causal")).toBool(), causal);
        const QJsonArray blocked = o.value(QLatin1String("heads")).toArray().at(0).toObject().value(QLatin1String("blocked")).toArray();
        const int n = int(blocked.size());
        QCOMPARE(n, int(test::lesson(lesson).tokens.size()));
        int open = 0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const bool b = blocked.at(i).toArray().at(j).toBool();
                QVERIFY2(b == blockedByRule(i, j, W, D, B, global, causal),
                         qPrintable(QStringLiteral("cell (%1, %2): %3").arg(i + 1).arg(j + 1).arg(b ? "blocked" : "open")));
                open += !b;
            }
        // The counts docs/scenario-format.md gives for the plain presets.
        if (lesson == QLatin1String("sliding-window") && D == 1 && !causal)
            QCOMPARE(open, W == 0 ? n * n : n * (2 * W - 1) - W * (W - 1));
        if (lesson == QLatin1String("causal") && W > 0 && D == 1 && B == 0 && global.isEmpty())
            QCOMPARE(open, n * W - W * (W - 1) / 2);

        // export --numbers json writes the same settings block.
        QTemporaryDir dir;
        const Run e = cli(QStringList{"export", "--preset", lesson, "--out", dir.path(), "--stages", "weights", "--numbers", "json"}
                          + options);
        QVERIFY2(e.code == 0, qPrintable(e.err));
        const QStringList files = QDir(dir.path()).entryList({QStringLiteral("*.json")}, QDir::Files);
        QCOMPARE(files.size(), 1);
        QFile f(QDir(dir.path()).filePath(files.first()));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject exported = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(pattern(exported.value(QLatin1String("settings")).toObject()), settings);
    }

    // A bad preset or width: status 2, one line naming --mask and the reason, nothing on stdout.
    void badPresetsAreOneLine_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("says");
        for (const char *command : {"trace", "export"}) {
            const QString c = QString::fromLatin1(command);
            QTest::newRow(qPrintable(c + " width 0")) << c << "window:0" << "--mask: must be a whole number from 1 to 4096 (got \"0\")";
            QTest::newRow(qPrintable(c + " width 4097")) << c << "block:4097"
                                                         << "--mask: must be a whole number from 1 to 4096 (got \"4097\")";
            QTest::newRow(qPrintable(c + " width 1.5")) << c << "dilated:1.5" << "--mask: must be a whole number from 1 to 4096 (got \"1.5\")";
            QTest::newRow(qPrintable(c + " no width")) << c << "window:" << "--mask: must be a whole number from 1 to 4096 (got \"\")";
            QTest::newRow(qPrintable(c + " unknown")) << c << "banded:2"
                                                      << "--mask: \"banded\" is not a preset (full, window, dilated, block, global-window";
            QTest::newRow(qPrintable(c + " custom")) << c << "custom" << "--mask: \"custom\" is not a preset";
            QTest::newRow(qPrintable(c + " full with a width")) << c << "full:3" << "--mask: full has no width (got \"full:3\")";
        }
    }

    void badPresetsAreOneLine()
    {
        QFETCH(QString, command);
        QFETCH(QString, value);
        QFETCH(QString, says);
        QTemporaryDir dir;
        QStringList args{command, "--preset", "causal", "--mask", value};
        if (command == QLatin1String("export"))
            args << "--out" << dir.path() << "--stages" << "weights";
        const Run r = cli(args);
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
        QVERIFY2(r.err.contains(says), qPrintable(r.err));
        QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
    }

    // The text trace names the pattern the preset set.
    void textTraceNamesThePreset()
    {
        const Run r = cli({"trace", "--preset", "causal", "--mask", "dilated:2"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("causal, sliding window W = 2 (dilation 2)")), qPrintable(r.out));
        const Run strided = cli({"trace", "--preset", "causal", "--dilation", "3"});
        QVERIFY2(strided.out.contains(QStringLiteral("strided, i - j a multiple of 3")), qPrintable(strided.out));
    }
};

QTEST_MAIN(TestCliMasks)
#include "test_cli_masks.moc"
