// What attention costs: the counts of core/cost.h worked by hand
// from the shapes, the n^2 growth, the path lengths, and the panel that shows
// them following the document.

#include "attn_test.h"
#include "cost.h"
#include "costpanel.h"
#include "document.h"
#include "gpt2.h"
#include "lesson_test.h"
#include "pathdiagram.h"

#include <QFile>
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
        QCOMPARE(g->graphCount(), 4); // cells, a recurrent network, today, the parameters
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

    void parametersByHand()
    {
        // W_Q 6×6, W_K 6×6, W_V 6×4, W_O 4×7: 36 + 36 + 24 + 28.
        const AttentionParameters p = attentionParameters(projected());
        QVERIFY(p.projected);
        QCOMPARE(p.wq, 36.0);
        QCOMPARE(p.wv, 24.0);
        QCOMPARE(p.wo, 28.0);
        QCOMPARE(p.total(), 124.0);
        // Direct mode learns nothing.
        const AttentionParameters d = attentionParameters(test::lesson(QStringLiteral("causal")));
        QVERIFY(!d.projected);
        QCOMPARE(d.total(), 0.0);
    }

    void parametersStayFlatWhileCellsGrow()
    {
        Scenario s = projected();
        s.mask.window = 2;
        const std::vector<CostPoint> curve = costCurve(s, 30);
        QCOMPARE(int(curve.size()), 30);
        for (const CostPoint &p : curve) {
            QCOMPARE(p.parameters, 124.0);
            QCOMPARE(p.scoreCells, 2.0 * p.n * p.n);
            // |i - j| < 2: 3 keys a row, 2 at either end: 3n - 2 (n >= 2), a head.
            QCOMPARE(p.openCells, 2.0 * (p.n == 1 ? 1 : 3 * p.n - 2));
        }
    }

    void gpt2SmallByTheFormula()
    {
        const TransformerShape gpt2{.layers = 12, .heads = 12, .dModel = 768, .dInner = 3072, .positions = 1024,
                                    .vocab = 50257};
        const ModelParameters p = modelParameterCount(gpt2);
        QCOMPARE(p.tokenEmbedding, 50257.0 * 768);
        QCOMPARE(p.positionEmbedding, 1024.0 * 768);
        // c_attn 768·2304 + 2304 and c_proj 768·768 + 768, twelve times.
        QCOMPARE(p.attention, 12.0 * (768 * 2304 + 2304 + 768 * 768 + 768));
        QCOMPARE(p.mlp, 12.0 * (768 * 3072 + 3072 + 3072 * 768 + 768));
        QCOMPARE(p.layerNorms, 12.0 * 4 * 768 + 2 * 768);
        QCOMPARE(p.outputHead, 0.0);
        QCOMPARE(p.total(), 124439808.0);
        TransformerShape untied = gpt2;
        untied.tiedEmbeddings = false;
        QCOMPARE(modelParameterCount(untied).total(), 124439808.0 + 50257.0 * 768);
        // 144 n² against 124,439,808: 929² · 144 is less, 930² · 144 is not.
        QCOMPARE(modelCrossover(gpt2), 930);
        QVERIFY(modelScoreCells(gpt2, 929) < p.total() && modelScoreCells(gpt2, 930) >= p.total());
    }

    void builtinModelAsItsFileHasIt()
    {
        QFile f(test::sourceDir() + QStringLiteral("/resources/models/tiny-bilingual/config.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const Result<Gpt2Config> config = gpt2ConfigFromJson(f.readAll(), QStringLiteral("config.json"));
        QVERIFY(!config.problem());
        const Gpt2Config &c = config.value();
        const TransformerShape shape{c.nLayer, c.nHead, c.nEmbd, c.nInner, c.nPositions, c.vocabSize, c.tiedEmbedding};
        const auto file = SafeTensors::open(test::sourceDir() + QStringLiteral("/resources/models/tiny-bilingual/model.safetensors"));
        QVERIFY(std::holds_alternative<SafeTensors>(file));
        double inFile = 0;
        for (const TensorInfo &t : std::get<SafeTensors>(file).tensors())
            inFile += double(t.count());
        QCOMPARE(modelParameterCount(shape).total(), inFile);
        QCOMPARE(modelParameterCount(shape).total(), modelParameters(c)); // the loader's own count
    }

    void panelCountsTheOpenCellsAndTheParameters()
    {
        Document doc;
        Scenario s = projected();
        s.mask.window = 2;
        s.mask.causal = true;
        QVERIFY(!doc.replace(s, QString()).has_value());
        CostPanel panel(&doc);
        panel.resize(500, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        // j in {i - 1, i}: 1 + 2·4 = 9 cells a head, 2 heads; the pattern's own count.
        QCOMPARE(panel.cost().openCells, 18.0);
        QCOMPARE(panel.cost().openCells, 2 * double((!blockedMatrix(doc.scenario())).count()));
        QVERIFY2(panel.summary().contains(CostPanel::count(18)), qPrintable(panel.summary()));
        QVERIFY2(panel.parametersText().contains(CostPanel::count(124)), qPrintable(panel.parametersText()));
        QVERIFY(panel.modelText().contains(CostPanel::count(124439808)));
        QCustomPlot *g = panel.growthPlot();
        QCOMPARE(g->graphCount(), 5);
        const auto *flat = g->graph(3)->data().data();
        const auto *open = g->graph(4)->data().data();
        for (int i = 0; i < flat->size(); ++i) {
            QCOMPARE(flat->at(i)->value, 124.0);
            QCOMPARE(open->at(i)->value, 2 * openCellsAt(s.mask, i + 1));
        }
        // Direct mode: no parameters, and the panel says so.
        QVERIFY(!doc.replace(test::lesson(QStringLiteral("causal")), QString()).has_value());
        QVERIFY(panel.parametersText().contains(QStringLiteral("none")));
    }
};

QTEST_MAIN(TestCost)
#include "test_cost.moc"
