// The gradient lens's core and the plane's arrows: the hand calculations of
// the gradient cells (core/gradlens.h) against core/backward.h and seed 000
// worked by hand; the losses a teacher picks; a descent step; and the
// arrows of makePlaneScene, −∂L/∂v projected onto the plane.

#include "attn_test.h"
#include "lesson_test.h"

#include "gradlens.h"
#include "numbers.h"
#include "planescene.h"

#include <QTest>

#include <cstring>

using namespace attn;
using attn::test::lesson;

namespace {

// The number after the last " = " of a hand calculation.
double lastNumber(const std::string &terms)
{
    const char *s = terms.c_str() + terms.rfind(" = ") + 3;
    const bool minus = std::strncmp(s, "\xe2\x88\x92", 3) == 0; // U+2212
    return minus ? -std::strtod(s + 3, nullptr) : std::strtod(s, nullptr);
}

Scenario fourDimensional()
{
    Scenario s;
    s.tokens = {"q"};
    s.sourceTokens = {"a", "b", "c"};
    s.Q = Matrix{{1, 0.5, 0.25, -0.75}};
    s.K = Matrix{{1, 0, 0, 0}, {0, 0, 1, 0}, {0.5, 1, 0.5, 1}};
    s.V = Matrix{{1, 0}, {0, 1}, {1, 1}};
    return s;
}

} // namespace

class TestGradLens : public QObject {
    Q_OBJECT

private slots:
    // Seed 000: w = (0.7679, 0.0454, 0.1867), the Jacobian w_i (δ_ij − w_j).
    void jacobianBySeed000Hand()
    {
        const Scenario s = lesson(QStringLiteral("seed000-basic"));
        const Trace t = compute(s);
        const Eigen::VectorXd w = softmaxRowProbabilities(t, 0, 0, s.maskStage);
        // 0.7679 × 0.2321 = 0.1782; −0.7679 × 0.0454 = −0.0349; 0.0454 × 0.9546 = 0.0433.
        QCOMPARE(jacobianTerms(w, 0, 0), std::string("0.7679·(1 − 0.7679) = 0.1782"));
        QCOMPARE(jacobianTerms(w, 0, 1), std::string("−0.7679·0.0454 = −0.0349"));
        QCOMPARE(jacobianTerms(w, 1, 1), std::string("0.0454·(1 − 0.0454) = 0.0433"));
        QCOMPARE(jacobianTerms(w, 2, 2), std::string("0.1867·(1 − 0.1867) = 0.1518"));
    }

    // attend:1 on seed 000, each cell as written by hand.
    void seed000CellsByHand()
    {
        const Scenario s = lesson(QStringLiteral("seed000-basic"));
        const Trace t = compute(s);
        const Loss loss = AttendLoss{0};
        const Result<Gradients> g = backward(s, t, loss);
        QVERIFY(g.ok());
        // ∂L/∂w1 = −1/(h·n_q·w1) = −1/(1·1·0.7679) = −1.3022.
        QCOMPARE(weightGradientTerms(s, t, loss, 0, 0, 0), std::string("−1/(1·1·0.7679) = −1.3022"));
        QCOMPARE(weightGradientTerms(s, t, loss, 0, 0, 1), std::string()); // not read by the loss
        // ∂L/∂s1 = w1 (g1 − Σ g w) ÷ √2 = 0.7679 (−1.3022 + 1) ÷ 1.4142 = −0.1641.
        const ScoreGradientTerms c = scoreGradientTerms(s, t, g.value(), 0, 0, 0);
        QCOMPARE(c.sum, std::string("(−1.3022)·0.7679 = −1.0000"));
        QCOMPARE(c.cell, std::string("0.7679·((−1.3022) − (−1)) ÷ 1.4142 = −0.1641"));
        // ∂L/∂q1 = Σ_j ∂s_j k_j1 = −0.1641·2 + 0.0321·0 + 0.1320·1 = −0.1962.
        QCOMPARE(queryGradientTerms(s, t, g.value(), 0, 0, 0),
                 std::string("(−0.1641)·2 + 0.0321·0 + 0.132·1 = −0.1962"));
        // ∂L/∂k1,1 = ∂s_1 q_1 = −0.1641·2 = −0.3282.
        QCOMPARE(keyGradientTerms(s, t, g.value(), 0, 0, 0), std::string("(−0.1641)·2 = −0.3282"));
    }

    // Every cell's hand calculation ends on the backward's own number, for
    // each similarity, both mask stages and both losses.
    void cellsEqualBackward_data()
    {
        QTest::addColumn<int>("similarity");
        QTest::addColumn<bool>("after");
        QTest::addColumn<bool>("target");
        for (int sim = 0; sim < 2; ++sim)
            for (bool after : {false, true})
                for (bool target : {false, true})
                    QTest::addRow("%s %s %s", sim ? "distance" : "dot", after ? "after" : "before",
                                  target ? "target" : "attend")
                        << sim << after << target;
    }
    void cellsEqualBackward()
    {
        QFETCH(int, similarity);
        QFETCH(bool, after);
        QFETCH(bool, target);
        Scenario s;
        s.tokens = {"a", "b", "c"};
        s.Q = Matrix{{0.5, -1}, {1.5, 0.25}, {-0.5, 0.75}};
        s.K = Matrix{{1, 0}, {0.25, 1}, {-1, 0.5}};
        s.V = Matrix{{1, 0}, {0, 1}, {0.5, -0.5}};
        s.similarity = similarity ? Similarity::NegSqDistance : Similarity::Dot;
        s.maskStage = after ? MaskStage::AfterSoftmax : MaskStage::BeforeSoftmax;
        s.mask.causal = true;
        const Trace t = compute(s);
        const Loss loss = target ? Loss{targetTowardsToken(s, t, 1, 2)} : Loss{AttendLoss{0}};
        const Result<Gradients> g = backward(s, t, loss);
        QVERIFY(g.ok());
        const Matrix &dw = g.value().heads[0].weights, &ds = g.value().heads[0].scores;
        const Matrix &dQ = *g.value().of(MatrixId::Q), &dK = *g.value().of(MatrixId::K), &dV = *g.value().of(MatrixId::V);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                const std::string w = weightGradientTerms(s, t, loss, 0, i, j);
                QVERIFY(w.empty() ? dw(i, j) == 0 : std::abs(lastNumber(w) - dw(i, j)) < 6e-5);
                const ScoreGradientTerms c = scoreGradientTerms(s, t, g.value(), 0, i, j);
                if (c.passesNothing)
                    QCOMPARE(ds(i, j), 0.0);
                else
                    QVERIFY2(std::abs(lastNumber(c.cell) - ds(i, j)) < 6e-5, c.cell.c_str());
            }
        for (int r = 0; r < 3; ++r)
            for (int d = 0; d < 2; ++d) {
                QVERIFY(std::abs(lastNumber(queryGradientTerms(s, t, g.value(), 0, r, d)) - dQ(r, d)) < 6e-5);
                QVERIFY(std::abs(lastNumber(keyGradientTerms(s, t, g.value(), 0, r, d)) - dK(r, d)) < 6e-5);
                QVERIFY(std::abs(lastNumber(valueGradientTerms(s, t, loss, 0, r, d)) - dV(r, d)) < 6e-5);
            }
    }

    // "Towards the value of 猫": row i's target is V's row, the rest their own output.
    void targetTowardsAToken()
    {
        const Scenario s = lesson(QStringLiteral("seed000-basic"));
        const Trace t = compute(s);
        const TargetLoss loss = targetTowardsToken(s, t, 0, 1);
        // V = I: the target is e2, the output is w;
    // L = ½ (0.7679² + (0.0454 − 1)² + 0.1867²) = ½ (0.5897 + 0.9113 + 0.0349) = 0.7679.
        QCOMPARE(loss.target, Matrix(Matrix{{0, 1, 0}}));
        QVERIFY(std::abs(lossValue(s, t, loss) - 0.7679) < 1e-4);
        // A typed vector of the wrong width is refused, naming the widths.
        const Result<TargetLoss> bad = targetTowardsVector(t, 0, Eigen::RowVectorXd::Zero(2));
        QVERIFY(!bad.ok());
        QCOMPARE(bad.problem()->place, std::string("target"));
        QVERIFY(bad.problem()->message.find("3 wide") != std::string::npos);
        QVERIFY(!targetTowardsVector(t, 0, Eigen::RowVectorXd::Constant(3, std::nan(""))).ok());
    }

    void descentStepAndRule()
    {
        const Matrix m{{1, 2, 3, 4}, {5, 6, 7, 8}};
        const Matrix g{{1, 1, 1, 1}, {0.5, -1, 2, 4}};
        // Columns 2 and 3 of row 1: 7 − 0.5·2 = 6, 8 − 0.5·4 = 6; the others kept.
        QCOMPARE(descentRow(m, g, 1, 2, 2, 0.5), Eigen::RowVectorXd(Eigen::RowVector4d(5, 6, 6, 6)));
        QVERIFY(descentSettled(1.0, 1.0, 1e-4));     // not falling
        QVERIFY(descentSettled(1.0, 1.1, 1e-4));     // rising
        QVERIFY(descentSettled(1.0, 0.99995, 1e-4)); // fell by 5e-5 of itself
        QVERIFY(!descentSettled(1.0, 0.9, 1e-4));
    }

    // The arrow at the query is −∂L/∂q in the plane's frame, its length ‖∂L/∂q‖.
    void arrowIsTheNegativeGradient()
    {
        const Scenario s = lesson(QStringLiteral("seed000-basic"));
        const Trace t = compute(s);
        const Gradients g = backward(s, t, AttendLoss{0}).value();
        PlaneSettings ps;
        ps.gradient = PlaneSettings::Gradient{*g.of(MatrixId::Q), *g.of(MatrixId::K)};
        const PlaneScene sc = makePlaneScene(s, t, ps);
        QCOMPARE(sc.arrows.size(), std::size_t(1));
        const PlaneArrow &a = sc.arrows.front();
        QCOMPARE(a.target, (PlaneTarget{PlaneRole::Query, 0}));
        // −∂L/∂q = (0.1962, −0.1962), length 0.2775.
        QVERIFY(std::abs(a.step(0) - 0.1962) < 1e-4 && std::abs(a.step(1) + 0.1962) < 1e-4);
        QVERIFY(std::abs(a.length - 0.2775) < 1e-4);
        // Beside vectors of length 2 it is drawn ×2 (0.55 long: readable, not past them).
        QCOMPARE(sc.arrowScale, 2.0);
        // With keys draggable, an arrow at each key: −∂L/∂k_j.
        ps.keysDraggable = true;
        const PlaneScene withKeys = makePlaneScene(s, t, ps);
        QCOMPARE(withKeys.arrows.size(), std::size_t(4));
        for (int j = 0; j < 3; ++j) {
            const PlaneArrow &k = withKeys.arrows[std::size_t(j + 1)];
            QCOMPARE(k.target, (PlaneTarget{PlaneRole::Key, j}));
            QVERIFY((k.step + g.of(MatrixId::K)->row(j).transpose()).norm() < 1e-15);
        }
        // No gradient handed in: no arrows.
        QVERIFY(makePlaneScene(s, t, PlaneSettings{}).arrows.empty());
    }

    // For d > 2 the arrow is the projection U^T (−∂L/∂q), and the label's
    // length is the whole vector's.
    void arrowIsProjected()
    {
        const Scenario s = fourDimensional();
        const Trace t = compute(s);
        const Gradients g = backward(s, t, AttendLoss{1}).value();
        for (bool pca : {false, true}) {
            PlaneSettings ps;
            ps.pca = pca;
            ps.horizontal = 2;
            ps.vertical = 0;
            ps.gradient = PlaneSettings::Gradient{*g.of(MatrixId::Q), *g.of(MatrixId::K)};
            const PlaneScene sc = makePlaneScene(s, t, ps);
            QCOMPARE(sc.arrows.size(), std::size_t(1));
            const Eigen::VectorXd minus = -g.of(MatrixId::Q)->row(0).transpose();
            const Eigen::Vector2d expected = sc.basis.U.transpose() * minus;
            QVERIFY((sc.arrows[0].step - expected).norm() < 1e-15);
            QVERIFY(std::abs(sc.arrows[0].length - minus.norm()) < 1e-15);
            if (!pca) // the axes d3 and d1
                QVERIFY((sc.arrows[0].step - Eigen::Vector2d(minus(2), minus(0))).norm() < 1e-15);
        }
    }
};

QTEST_GUILESS_MAIN(TestGradLens)
#include "test_gradlens.moc"
