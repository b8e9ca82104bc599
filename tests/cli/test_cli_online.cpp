// `trace --online-softmax B`: the JSON's "online" member holds, for every
// head and query row, the tiles of the core's online softmax (1-based keys,
// m, l and o), its last tile's o is the output row, and the rest of the
// trace is unchanged; the text works the tiles out; a bad B or tiles too
// many for the limit end with status 2 and one line. `softmax --scores`:
// the row as written (inf, NaN) against the shifted one.

#include "attention.h"
#include "cli_run.h"
#include "json_test.h"
#include "lessons.h"
#include "online_softmax.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QTest>

#include <array>
#include <cmath>

using namespace attn;

class TestCliOnline : public QObject {
    Q_OBJECT

private slots:
    void jsonHoldsTheTiles()
    {
        for (const char *preset : {"seed000-basic", "causal", "multihead"}) {
            for (int tile : {1, 2, 3, 100}) {
                const test::CliRun r = test::runCliInProcess(
                    {"trace", "--preset", preset, "--online-softmax", QString::number(tile), "--format", "json"});
                QCOMPARE(r.code, 0);
                const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
                const QJsonArray online = j.value(QLatin1String("online")).toArray();
                const QJsonArray heads = j.value(QLatin1String("heads")).toArray();
                QCOMPARE(online.size(), heads.size());
                ScenarioOrProblem loaded = loadLesson(QString::fromLatin1(preset));
                const Scenario &s = std::get<Scenario>(loaded);
                const Trace t = compute(s);
                const std::vector<OnlineHead> core = onlineSoftmax(s, t, tile).value();
                for (int h = 0; h < online.size(); ++h) {
                    const QJsonObject head = online[h].toObject();
                    QCOMPARE(head.value(QLatin1String("head")).toInt(), h + 1);
                    const QJsonArray rows = head.value(QLatin1String("rows")).toArray();
                    QCOMPARE(rows.size(), qsizetype(t.heads[std::size_t(h)].output.rows()));
                    for (int i = 0; i < rows.size(); ++i) {
                        const QJsonArray tiles = rows[i].toObject().value(QLatin1String("tiles")).toArray();
                        const OnlineRow &mine = core[std::size_t(h)].rows[std::size_t(i)];
                        QCOMPARE(tiles.size(), qsizetype(mine.tiles.size()));
                        for (int k = 0; k < tiles.size(); ++k) {
                            const QJsonObject tj = tiles[k].toObject();
                            const QJsonArray keys = tj.value(QLatin1String("keys")).toArray();
                            QCOMPARE(keys[0].toInt(), mine.tiles[std::size_t(k)].first + 1);
                            QCOMPARE(keys[1].toInt(), mine.tiles[std::size_t(k)].last + 1);
                            QCOMPARE(tj.value(QLatin1String("l")).toDouble(), mine.tiles[std::size_t(k)].l);
                            const QJsonValue m = tj.value(QLatin1String("m"));
                            if (std::isinf(mine.tiles[std::size_t(k)].m))
                                QVERIFY(m.isNull());
                            else
                                QCOMPARE(m.toDouble(), mine.tiles[std::size_t(k)].m);
                        }
                        // The last tile's o is the trace's output row, to rounding.
                        const QJsonArray o = tiles.last().toObject().value(QLatin1String("o")).toArray();
                        const Matrix &out = t.heads[std::size_t(h)].output;
                        QCOMPARE(o.size(), qsizetype(out.cols()));
                        for (int c = 0; c < o.size(); ++c)
                            QVERIFY(std::abs(o[c].toDouble() - out(i, c)) < 1e-14);
                    }
                }
                // Without the option the trace is the same but for "online".
                const test::CliRun plain = test::runCliInProcess({"trace", "--preset", preset, "--format", "json"});
                QJsonObject without = j;
                without.remove(QLatin1String("online"));
                QCOMPARE(QJsonDocument::fromJson(plain.out.toUtf8()).object(), without);
            }
        }
    }

    // Seed 000 in tiles of 2: the second tile's sum written out by hand,
    // 1.0591 * 1.0000 + 0.2431 = 1.3022, and the output 0.7679.
    void textWorksTheTilesOut()
    {
        const test::CliRun r = test::runCliInProcess({"trace", "--preset", "seed000-basic", "--online-softmax", "2"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("keys 1-2: m = 2.8284 (was -inf), l = 1.0591, o = [0.9442, 0.0558, 0.0000]")),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("keys 3-3: m = 2.8284 (was 2.8284), e^(m_old - m) = 1.0000, "
                                               "l = 1.0591 * 1.0000 + 0.2431 = 1.3022, o = [0.7679, 0.0454, 0.1867]")),
                 qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("the safe softmax 12 reads and writes")));
        // Causal: a tile of future keys changes nothing, and says so.
        const test::CliRun causal = test::runCliInProcess({"trace", "--preset", "causal", "--online-softmax", "2"});
        QVERIFY2(causal.out.contains(QStringLiteral("keys 3-4: every key blocked: m, l and o stay")), qPrintable(causal.out));
    }

    void badTilesAreOneLine()
    {
        for (const char *bad : {"0", "-2", "x", "1.5"}) {
            const test::CliRun r = test::runCliInProcess({"trace", "--preset", "seed000-basic", "--online-softmax", bad});
            QCOMPARE(r.code, 2);
            QVERIFY(r.out.isEmpty());
            QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
            QVERIFY2(r.err.contains(QStringLiteral("--online-softmax: must be a whole number from 1 to")), qPrintable(r.err));
        }
    }

    // s = (800, 799, 795): every e^s is inf in double, so the row as written
    // is NaN; shifted, e^0, e^−1, e^−5 over 1.374617: 0.727475, 0.267623, 0.004902.
    void softmaxOverflowRow()
    {
        const test::CliRun r = test::runCliInProcess({"softmax", "--scores", "800,799,795"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("  1       800.0000          ∞          NaN     0.0000       1.0000     0.7275")),
                 qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("  3       795.0000          ∞          NaN    -5.0000       0.0067     0.0049")));
        QVERIFY(r.out.contains(QStringLiteral("the row is lost")));

        const test::CliRun j = test::runCliInProcess({"softmax", "--scores", "800,799,795", "--format", "json"});
        QCOMPARE(j.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(j.out.toUtf8()).object();
        QCOMPARE(o.value("max").toDouble(), 800.0);
        QCOMPARE(o.value("naive_finite").toBool(true), false);
        QCOMPARE(o.value("exponentials").toArray().at(0).toString(), QStringLiteral("inf"));
        QCOMPARE(o.value("naive").toArray().at(2).toString(), QStringLiteral("NaN"));
        const QJsonArray w = o.value("weights").toArray();
        const double z = 1 + std::exp(-1.0) + std::exp(-5.0);
        QCOMPARE(w.size(), 3);
        for (int k = 0; k < 3; ++k)
            QVERIFY(std::abs(w.at(k).toDouble() - std::exp(-std::array{0.0, 1.0, 5.0}[std::size_t(k)]) / z) < 1e-15);

        // Seed 000's scaled row: nothing overflows, both ways agree.
        const test::CliRun ok = test::runCliInProcess({"softmax", "--scores", "2.8284271247461903,0,1.4142135623730951",
                                                       "--format", "json"});
        const QJsonObject a = QJsonDocument::fromJson(ok.out.toUtf8()).object();
        QVERIFY(a.value("naive_finite").toBool());
        const double e1 = std::exp(2 * std::sqrt(2.0)), e3 = std::exp(std::sqrt(2.0));
        QVERIFY(std::abs(a.value("naive").toArray().at(0).toDouble() - e1 / (e1 + 1 + e3)) < 1e-15); // 0.7679179
        QVERIFY(std::abs(a.value("weights").toArray().at(0).toDouble() - a.value("naive").toArray().at(0).toDouble()) < 1e-15);
    }

    void softmaxRefusesInOneLine()
    {
        const QList<QStringList> bad = {{"softmax"},
                                        {"softmax", "--scores", "1,x"},
                                        {"softmax", "--scores", "1,inf"},
                                        {"softmax", "--scores", ","},
                                        {"softmax", "3", "--scores", "1"},
                                        {"softmax", "--scores", "1", "--format", "xml"}};
        for (const QStringList &args : bad) {
            const test::CliRun r = test::runCliInProcess(args);
            QCOMPARE(r.code, 2);
            QVERIFY(r.out.isEmpty());
            QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
            QVERIFY2(r.err.startsWith(QStringLiteral("attention-lab-cli: softmax: ")), qPrintable(r.err));
        }
    }
};

QTEST_MAIN(TestCliOnline)
#include "test_cli_online.moc"
