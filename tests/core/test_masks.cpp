// The sparse masks: sliding window (symmetric and causal), dilated, block
// and global tokens, each pattern worked by hand on n = 6 tokens; the open
// cells counted against a plain count of the pattern; the scenario file's
// round trip and its one-line refusals; and token edits carrying the
// global tokens. The command line's mask options: tests/cli/test_cli_masks.cpp.

#include "attention.h"
#include "attn_test.h"
#include "cost.h"
#include "edit.h"
#include "explain.h"
#include "scenario_json.h"
#include "trace_text.h"

#include <QObject>
#include <QTest>

#include <random>

using namespace attn;

namespace {

// Direct self-attention on n tokens, d_k = 2, with a mask.
Scenario scenarioOf(int n, const Mask &m)
{
    Scenario s;
    s.Q = Matrix(n, 2);
    s.K = Matrix(n, 2);
    s.V = Matrix(n, 2);
    for (int i = 0; i < n; ++i) {
        s.Q.row(i) << 1.0 + i, 0.5 * i;
        s.K.row(i) << 0.5 * i, 1.0 - 0.25 * i;
        s.V.row(i) << double(i), 1.0;
    }
    s.mask = m;
    return s;
}

Mask window(int w, bool causal = false, int dilation = 1)
{
    Mask m;
    m.window = w;
    m.causal = causal;
    m.dilation = dilation;
    return m;
}

// The open cells as text, a row a query: '1' open, '.' blocked.
QStringList openRows(const Scenario &s)
{
    const BoolMatrix b = blockedMatrix(s);
    QStringList rows;
    for (Eigen::Index i = 0; i < b.rows(); ++i) {
        QString r;
        for (Eigen::Index j = 0; j < b.cols(); ++j)
            r += b(i, j) ? QLatin1Char('.') : QLatin1Char('1');
        rows << r;
    }
    return rows;
}

// A second count of the open cells: every pair, by the definition.
double openByDefinition(const Mask &m, int n)
{
    double open = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            bool global = false;
            for (int g : m.global)
                global = global || g == i || g == j;
            const int d = std::abs(i - j), D = std::max(1, m.dilation);
            bool ok = global || !m.sparse()
                   || (d % D == 0 && (m.window == 0 || d < m.window * D) && (m.block == 0 || i / m.block == j / m.block));
            open += ok && !(m.causal && j > i);
        }
    return open;
}

} // namespace

class TestMasks : public QObject {
    Q_OBJECT

private slots:
    void patternsWorkedByHand_data()
    {
        QTest::addColumn<int>("window");
        QTest::addColumn<bool>("causal");
        QTest::addColumn<int>("dilation");
        QTest::addColumn<int>("block");
        QTest::addColumn<QList<int>>("global"); // 0-based
        QTest::addColumn<QStringList>("rows");
        QTest::addColumn<int>("open");
        // |i - j| < 2: the query, its left and its right neighbour.
        QTest::newRow("window 2, symmetric") << 2 << false << 1 << 0 << QList<int>{}
                                            << QStringList{"11....", "111...", ".111..", "..111.", "...111", "....11"} << 16;
        // and j <= i: the query and the one before.
        QTest::newRow("window 2, causal") << 2 << true << 1 << 0 << QList<int>{}
                                          << QStringList{"1.....", "11....", ".11...", "..11..", "...11.", "....11"} << 11;
        // |i - j| in {0, 2}: W = 2 keys a side, D = 2 apart.
        QTest::newRow("window 2, dilation 2") << 2 << false << 2 << 0 << QList<int>{}
                                              << QStringList{"1.1...", ".1.1..", "1.1.1.", ".1.1.1", "..1.1.", "...1.1"} << 14;
        // Dilation alone: i - j even (a strided pattern).
        QTest::newRow("strided 3") << 0 << false << 3 << 0 << QList<int>{}
                                   << QStringList{"1..1..", ".1..1.", "..1..1", "1..1..", ".1..1.", "..1..1"} << 12;
        // Two blocks of three.
        QTest::newRow("block 3") << 0 << false << 1 << 3 << QList<int>{}
                                 << QStringList{"111...", "111...", "111...", "...111", "...111", "...111"} << 18;
        QTest::newRow("block 3, causal") << 0 << true << 1 << 3 << QList<int>{}
                                         << QStringList{"1.....", "11....", "111...", "...1..", "...11.", "...111"} << 12;
        // Token 1 sees all and is seen by all, beside the window of 2.
        QTest::newRow("global 1 + window 2") << 2 << false << 1 << 0 << QList<int>{0}
                                             << QStringList{"111111", "111...", "1111..", "1.111.", "1..111", "1...11"} << 24;
        QTest::newRow("global 1, 6 + window 2, causal") << 2 << true << 1 << 0 << QList<int>{0, 5}
                                             << QStringList{"1.....", "11....", "111...", "1.11..", "1..11.", "111111"} << 18;
    }

    void patternsWorkedByHand()
    {
        QFETCH(int, window);
        QFETCH(bool, causal);
        QFETCH(int, dilation);
        QFETCH(int, block);
        QFETCH(QList<int>, global);
        QFETCH(QStringList, rows);
        QFETCH(int, open);
        Mask m;
        m.window = window;
        m.causal = causal;
        m.dilation = dilation;
        m.block = block;
        m.global.assign(global.begin(), global.end());
        const Scenario s = scenarioOf(6, m);
        QVERIFY2(!validate(s), validate(s) ? validate(s)->toString().c_str() : "");
        QCOMPARE(openRows(s), rows);
        QCOMPARE(openCellsAt(m, 6), double(open));
        QCOMPARE(attentionCost(s).openCells, double(open));
        QCOMPARE(attentionCost(s).scoreCells, 36.0);

        // The weights: zero where blocked, and each row softmax(q·k/√2) over its open keys.
        const Trace t = compute(s);
        const BoolMatrix b = blockedMatrix(s);
        for (int i = 0; i < 6; ++i) {
            double z = 0;
            for (int j = 0; j < 6; ++j)
                if (!b(i, j))
                    z += std::exp(s.Q.row(i).dot(s.K.row(j)) / std::sqrt(2.0));
            for (int j = 0; j < 6; ++j) {
                const double expected = b(i, j) ? 0.0 : std::exp(s.Q.row(i).dot(s.K.row(j)) / std::sqrt(2.0)) / z;
                ATTN_COMPARE_NEAR(t.heads[0].weights(i, j), expected, 1e-12);
            }
        }
    }

    void blockReasonsName_thePattern()
    {
        const Scenario s = scenarioOf(6, window(2, false, 2));
        QVERIFY(blockReasons(s, 0, 1).dilation);  // odd distance
        QVERIFY(!blockReasons(s, 0, 1).window);
        QVERIFY(blockReasons(s, 0, 4).window);    // 4 = W·D
        QVERIFY(!blockReasons(s, 0, 2).any());
        Mask b;
        b.block = 3;
        QVERIFY(blockReasons(scenarioOf(6, b), 2, 3).block);
        QVERIFY(!blockReasons(scenarioOf(6, b), 3, 5).any());
    }

    void openCellsAgreeWithTheDefinition()
    {
        // O(n·W) counting against every pair, over many patterns and lengths.
        std::mt19937 rng(3);
        for (int trial = 0; trial < 400; ++trial) {
            Mask m;
            const int n = 1 + int(rng() % 40);
            m.window = int(rng() % 4) == 0 ? 0 : 1 + int(rng() % 9);
            m.dilation = 1 + int(rng() % 3);
            m.block = int(rng() % 3) == 0 ? 1 + int(rng() % 7) : 0;
            m.causal = rng() % 2;
            for (int g = 0; g < n; ++g)
                if (rng() % 9 == 0)
                    m.global.push_back(g);
            QCOMPARE(openCellsAt(m, n), openByDefinition(m, n));
            if (m.sparse() || m.global.empty()) {
                const Scenario s = scenarioOf(n, m);
                QCOMPARE(double((!blockedMatrix(s)).count()), openByDefinition(m, n));
            }
        }
        // A window grows as n·(2W - 1) less its two ends: W(W - 1) cells.
        QCOMPARE(openCellsAt(window(3), 1000), 1000.0 * 5 - 3 * 2);
        QCOMPARE(openCellsAt(Mask(), 1000), 1e6);
    }

    void fileRoundTrip()
    {
        Mask m = window(2, true, 2);
        m.block = 4;
        m.global = {0, 4};
        const Scenario s = scenarioOf(8, m);
        const QByteArray text = scenarioToJson(s);
        QVERIFY(text.contains("\"window\": 2"));
        QVERIFY(text.contains("\"dilation\": 2"));
        QVERIFY(text.contains("\"block\": 4"));
        QVERIFY(text.contains("\"global\": [1, 5]")); // 1-based in the file
        const ScenarioOrProblem back = scenarioFromJson(text);
        QVERIFY(std::holds_alternative<Scenario>(back));
        QVERIFY(std::get<Scenario>(back) == s);
        QCOMPARE(std::get<Scenario>(back).mask.global, (std::vector<int>{0, 4}));
        // Off patterns are not written, and a file without them reads as off.
        const QByteArray plain = scenarioToJson(scenarioOf(3, Mask()));
        QVERIFY(!plain.contains("window") && !plain.contains("dilation") && !plain.contains("global"));
        QVERIFY(std::get<Scenario>(scenarioFromJson(plain)).mask == Mask());
    }

    void badValuesAreOneLine_data()
    {
        QTest::addColumn<QByteArray>("mask");
        QTest::addColumn<QString>("place");
        QTest::addColumn<QString>("words");
        QTest::newRow("window 0") << QByteArray("\"window\": 0") << "mask.window" << "between 1 and 4096 (got 0)";
        QTest::newRow("window -2") << QByteArray("\"window\": -2") << "mask.window" << "between 1 and 4096 (got -2)";
        QTest::newRow("window 2.5") << QByteArray("\"window\": 2.5") << "mask.window" << "whole number";
        QTest::newRow("window \"3\"") << QByteArray("\"window\": \"3\"") << "mask.window" << "expected a number";
        QTest::newRow("window 5000") << QByteArray("\"window\": 5000") << "mask.window" << "between 1 and 4096 (got 5000)";
        QTest::newRow("dilation 0") << QByteArray("\"window\": 2, \"dilation\": 0") << "mask.dilation" << "(got 0)";
        QTest::newRow("block -1") << QByteArray("\"block\": -1") << "mask.block" << "(got -1)";
        QTest::newRow("global 0") << QByteArray("\"window\": 1, \"global\": [0]") << "mask.global[0]" << "(got 0)";
        QTest::newRow("global past the end") << QByteArray("\"window\": 1, \"global\": [2, 4]") << "mask.global[1]"
                                             << "token 4 is not one of the 3 tokens";
        QTest::newRow("global twice") << QByteArray("\"window\": 1, \"global\": [2, 2]") << "mask.global[1]"
                                      << "ascending order";
        QTest::newRow("global alone") << QByteArray("\"global\": [1]") << "mask.global" << "without one";
    }

    void badValuesAreOneLine()
    {
        QFETCH(QByteArray, mask);
        QFETCH(QString, place);
        QFETCH(QString, words);
        QByteArray text = scenarioToJson(scenarioOf(3, Mask()));
        text.replace("{\"causal\": false", "{\"causal\": false, " + mask);
        const ScenarioOrProblem r = scenarioFromJson(text);
        QVERIFY2(std::holds_alternative<Problem>(r), text.constData());
        const Problem &p = std::get<Problem>(r);
        QCOMPARE(QString::fromStdString(p.place), place);
        QVERIFY2(QString::fromStdString(p.message).contains(words), p.toString().c_str());
        QVERIFY(!QString::fromStdString(p.toString()).contains(QLatin1Char('\n')));
    }

    void crossAttentionRefusesAWindow()
    {
        Scenario s = scenarioOf(3, window(2));
        s.K = Matrix::Ones(4, 2);
        s.V = Matrix::Ones(4, 2);
        const auto p = validate(s);
        QVERIFY(p);
        QCOMPARE(p->place, std::string("mask.window"));
        QVERIFY(p->message.find("as many queries as keys") != std::string::npos);
    }

    void tokenEditsCarryTheGlobalTokens()
    {
        Mask m = window(1);
        m.global = {1, 3};
        const Scenario s = scenarioOf(5, m);
        QCOMPARE(removeToken(s, Side::Query, 1).mask.global, (std::vector<int>{2}));
        QCOMPARE(removeToken(s, Side::Query, 0).mask.global, (std::vector<int>{0, 2}));
        QCOMPARE(insertToken(s, Side::Query, 2, "x").mask.global, (std::vector<int>{1, 4}));
        QCOMPARE(moveToken(s, Side::Query, 3, 0).mask.global, (std::vector<int>{0, 2}));
        QVERIFY(!validate(removeToken(s, Side::Query, 4)));
    }

    void traceTextSaysTheMask()
    {
        Mask m = window(2, true);
        m.global = {0};
        const std::string text = traceText(scenarioOf(4, m), compute(scenarioOf(4, m)));
        QVERIFY2(text.find("mask: causal, sliding window W = 2, global token 1") != std::string::npos, text.c_str());
    }
};

QTEST_GUILESS_MAIN(TestMasks)
#include "test_masks.moc"
