// What attention costs: the counts of core/cost.h worked by hand
// from the shapes, the n^2 growth, the path lengths, and the panel that shows
// them following the document.

#include "attn_test.h"
#include "cost.h"
#include "costpanel.h"
#include "document.h"
#include "lesson_test.h"
#include "pathdiagram.h"

#include <QTableWidget>
#include <QTest>
#include <qcustomplot.h>

using namespace attn;

namespace {

// Projected self-attention: n = 5 tokens, d_model = 6, h = 2 heads of d_k = 3,
// d_v = 2, W_O 4 by 7.
Scenario projected()
{
    Scenario s;
    s.mode = InputMode::Projected;
    s.heads = 2;
    s.X = Matrix::Random(5, 6);
    s.Wq = Matrix::Random(6, 6);
    s.Wk = Matrix::Random(6, 6);
    s.Wv = Matrix::Random(6, 4);
    s.Wo = Matrix::Random(4, 7);
    s.tokens = {"a", "b", "c", "d", "e"};
    return s;
}

const StageCost &stage(const AttentionCost &c, const std::string &name)
{
    for (const StageCost &s : c.stages)
        if (s.stage == name)
            return s;
    qFatal("no stage %s", name.c_str());
}

} // namespace

class TestCost : public QObject {
    Q_OBJECT

private slots:
    void projectedCountsByHand()
    {
        const AttentionCost c = attentionCost(projected());
        QCOMPARE(c.nq, 5);
        QCOMPARE(c.nk, 5);
        QCOMPARE(c.heads, 2);
        QCOMPARE(c.dk, 3);
        QCOMPARE(c.dv, 2);
        QCOMPARE(c.dModel, 6);
        QCOMPARE(c.dOut, 7);
        // 2 heads * 5 queries * 5 keys.
        QCOMPARE(c.scoreCells, 50.0);
        // X W_Q: 5*6*6 = 180, S W_K: 180, S W_V: 5*6*4 = 120.
        QCOMPARE(stage(c, "projections").operations, 480.0);
        QCOMPARE(stage(c, "projections").stored, 30.0 + 30.0 + 20.0);
        // 50 cells, a dot product of d_k = 3 each.
        QCOMPARE(stage(c, "scores").operations, 150.0);
        QCOMPARE(stage(c, "scaled").operations, 50.0);
        QCOMPARE(stage(c, "mask").stored, 25.0); // one pattern for every head
        QCOMPARE(stage(c, "softmax").operations, 150.0);
        // weights (5 by 5) times V (5 by 2), per head: 2*5*5*2 = 100.
        QCOMPARE(stage(c, "output").operations, 100.0);
        QCOMPARE(stage(c, "output").stored, 20.0);
        // concat (5 by 4) times W_O (4 by 7) = 140.
        QCOMPARE(stage(c, "concat_wo").operations, 140.0);
        QCOMPARE(c.totalOperations, 480.0 + 150 + 50 + 50 + 150 + 100 + 140);
        QCOMPARE(c.bytes(), c.totalStored * 8);
    }

    void cosineAddsNorms()
    {
        Scenario s = projected();
        s.similarity = Similarity::Cosine;
        // the norms of 5 queries and 5 keys, 3 wide, in 2 heads: 2*(5+5)*3 = 60.
        QCOMPARE(stage(attentionCost(s), "scores").operations, 150.0 + 60.0);
    }

    void distanceIsTwoOperationsAComponent()
    {
        Scenario s = projected();
        s.similarity = Similarity::NegSqDistance;
        // -|q - k|^2 directly: 50 cells (2 heads, 5 by 5), 3 components, a
        // subtraction and a multiply-add each: 2*50*3 = 300, and no norms.
        QCOMPARE(stage(attentionCost(s), "scores").operations, 300.0);
    }

    void directLessonHasNoProjections()
    {
        const Scenario s = test::lesson(QStringLiteral("causal"));
        const AttentionCost c = attentionCost(s);
        for (const StageCost &st : c.stages)
            QVERIFY(st.stage != "projections" && st.stage != "concat_wo");
        QCOMPARE(c.scoreCells, double(queryCount(s)) * keyCount(s) * std::max(1, s.heads));
    }

    void scoresGrowAsNSquared()
    {
        const Scenario s = projected();
        for (int n : {1, 3, 10, 64}) {
            const AttentionCost a = attentionCostAt(s, n), b = attentionCostAt(s, 2 * n);
            QCOMPARE(b.scoreCells, 4 * a.scoreCells);
            QCOMPARE(a.scoreCells, 2.0 * n * n);
            // The projections grow only as n.
            QCOMPARE(stage(b, "projections").operations, 2 * stage(a, "projections").operations);
        }
    }

    void pathLengths()
    {
        QCOMPARE(recurrentPath(0, 9), 9);
        QCOMPARE(recurrentPath(9, 0), 9);
        QCOMPARE(recurrentPath(3, 4), 1);
        QCOMPARE(attentionPath(0, 9), 1);
    }

    // Review D3: one query and three keys (seed 000). Doubling means twice
    // the queries and twice the keys: 2·6 = 12 cells, ×4; today's dot sits
    // on h·n² at n = √(1·3); the path is along the keys' sequence.
    void crossAttentionDoublesBothSides()
    {
        const AttentionCost c = attentionCostAt(test::lesson(QStringLiteral("seed000-basic")), 2, 6);
        QCOMPARE(c.scoreCells, 12.0);
        Document doc;
        QVERIFY(!doc.replace(test::lesson(QStringLiteral("seed000-basic")), QString()).has_value());
        CostPanel panel(&doc);
        panel.resize(500, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCOMPARE(panel.cost().scoreCells, 3.0);
        QVERIFY2(panel.summary().contains(QStringLiteral("Double the queries to 2 and the keys to 6 and there are 12 (×4)")),
                 qPrintable(panel.summary()));
        QCustomPlot *g = panel.growthPlot();
        ATTN_COMPARE_NEAR(g->graph(2)->data()->at(0)->key, std::sqrt(3.0), 1e-15);
        QCOMPARE(g->graph(2)->data()->at(0)->value, 3.0); // h n² at n = √3
        QCOMPARE(panel.pathDiagram()->tokens(), QStringList({"k1", "k2", "k3"}));
    }

    void panelFollowsTheDocument()
    {
        Document doc;
        QVERIFY(!doc.replace(projected(), QString()).has_value());
        CostPanel panel(&doc);
        panel.resize(500, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));

        QTableWidget *t = panel.table();
        QCOMPARE(t->rowCount(), int(panel.cost().stages.size()) + 1);
        QCOMPARE(t->item(1, 1)->text(), CostPanel::count(150)); // scores
        QVERIFY(t->item(1, 0)->text().contains(QStringLiteral("2·5·5·3")));
        QCOMPARE(t->item(1, 2)->text(), CostPanel::count(50));
        QCOMPARE(t->item(t->rowCount() - 1, 1)->text(), CostPanel::count(1120));
        QVERIFY(panel.summary().contains(CostPanel::count(50)));
        QVERIFY(panel.summary().contains(CostPanel::count(200))); // doubled: 2*10*10

        // The growth curve is h n^2, and today's point sits on it.
        QCustomPlot *g = panel.growthPlot();
        QCOMPARE(g->graphCount(), 3);
        const auto *curve = g->graph(0)->data().data();
        QCOMPARE(curve->size(), 20); // up to max(16, 4n)
        QCOMPARE(curve->at(9)->value, 2.0 * 10 * 10);
        QCOMPARE(g->graph(2)->data()->at(0)->key, 5.0);
        QCOMPARE(g->graph(2)->data()->at(0)->value, 50.0);

        QCOMPARE(panel.pathDiagram()->tokens(), QStringList({"a", "b", "c", "d", "e"}));

        // Adding a token (a shape edit) follows: 6 tokens, 72 cells.
        Scenario s = doc.scenario();
        s.X.conservativeResize(6, Eigen::NoChange);
        s.X.row(5).setOnes();
        s.tokens.push_back("f");
        doc.edit(s, QStringLiteral("add"));
        QCOMPARE(panel.cost().scoreCells, 72.0);
        QCOMPARE(panel.pathDiagram()->tokens().size(), 6);

        // Something is drawn: the diagram is not one flat colour.
        const QImage img = panel.pathDiagram()->grab().toImage();
        QSet<QRgb> colours;
        for (int y = 0; y < img.height(); y += 2)
            for (int x = 0; x < img.width(); x += 2)
                colours.insert(img.pixel(x, y));
        QVERIFY2(colours.size() > 10, qPrintable(QString::number(colours.size())));
    }
};

QTEST_MAIN(TestCost)
#include "test_cost.moc"
