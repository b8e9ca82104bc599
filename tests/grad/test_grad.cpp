// The attention backward (core/backward.h), checked three ways: central
// finite differences on random scenarios of every setting; PyTorch
// autograd's gradients (scripts/grad-reference.py, float64) to 1e-9; and
// seed 000's example worked by hand. Plus the two cases the formulas single
// out: a blocked score after the softmax, and the cosine of a zero vector.

#include "attention.h"
#include "attn_test.h"
#include "backward.h"
#include "edit.h"
#include "experiment.h"
#include "lessons.h"
#include "random_scenario.h"
#include "scenario_json.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QTest>

#include <cmath>

using namespace attn;
using attn::test::num;

namespace {

double lossOf(const Scenario &s, const Loss &loss)
{
    return lossValue(s, compute(s), loss);
}

// Fourth-order central difference, (8 (f(h) - f(-h)) - (f(2h) - f(-2h))) / 12h:
// truncation h^4 f''''' / 30, so a τ of 0.05 (curvature 1 / τ^3) stays far
// inside the tolerance at h = 1e-5.
template <class F>
double centralDifference(F &&f, double h)
{
    return (8 * (f(h) - f(-h)) - (f(2 * h) - f(-2 * h))) / (12 * h);
}

// |a - n| <= 1e-6 max(|a|, |n|, floor): relative, with a floor for the
// gradients that are 0 or nearly (there the difference's rounding, about
// 1e-16 |L| / h, is all there is).
std::optional<QString> fdMismatch(double analytic, double numeric, double floor)
{
    const double scale = std::max({std::abs(analytic), std::abs(numeric), floor});
    if (std::abs(analytic - numeric) <= 1e-6 * scale)
        return std::nullopt;
    return QStringLiteral("analytic %1, numeric %2").arg(num(analytic), num(numeric));
}

// Every entry of every input, and τ, against finite differences.
void checkAgainstDifferences(const Scenario &s, const Loss &loss, const QString &what)
{
    const Result<Gradients> g = gradients(s, loss);
    QVERIFY2(g.ok(), qPrintable(what + ": " + QString::fromStdString(g.ok() ? "" : g.problem()->toString())));
    const double floor = 1e-3 * std::max(1.0, std::abs(g.value().loss));
    const double h = 1e-5;
    for (const NamedGradient &n : g.value().inputs) {
        QVERIFY(matrixPresent(s, n.id));
        const Matrix &m = matrix(s, n.id);
        QCOMPARE(n.grad.rows(), m.rows());
        QCOMPARE(n.grad.cols(), m.cols());
        QVERIFY2(n.grad.allFinite(), qPrintable(what));
        for (Eigen::Index i = 0; i < m.rows(); ++i)
            for (Eigen::Index j = 0; j < m.cols(); ++j) {
                const double numeric = centralDifference(
                    [&](double d) {
                        Scenario p = s;
                        matrix(p, n.id)(i, j) += d;
                        return lossOf(p, loss);
                    },
                    h);
                if (auto bad = fdMismatch(n.grad(i, j), numeric, floor))
                    QFAIL(qPrintable(QStringLiteral("%1: d/d%2(%3, %4): %5")
                                         .arg(what, matrixName(n.id)).arg(i).arg(j).arg(*bad)));
            }
    }
    const double numericTau = centralDifference(
        [&](double d) {
            Scenario p = s;
            p.temperature *= 1 + d;
            return lossOf(p, loss);
        },
        h) / s.temperature;
    if (auto bad = fdMismatch(g.value().temperature, numericTau, floor))
        QFAIL(qPrintable(what + ": d/dtau: " + *bad));
}

Matrix matrixFromJson(const QJsonValue &v)
{
    const QJsonArray rows = v.toArray();
    Matrix m(rows.size(), rows.isEmpty() ? 0 : rows.first().toArray().size());
    for (int i = 0; i < rows.size(); ++i)
        for (int j = 0; j < rows[i].toArray().size(); ++j)
            m(i, j) = rows[i].toArray()[j].toDouble();
    return m;
}

std::optional<MatrixId> idNamed(const QString &name)
{
    for (MatrixId id : {MatrixId::Q, MatrixId::K, MatrixId::V, MatrixId::X, MatrixId::Source, MatrixId::Wq,
                        MatrixId::Wk, MatrixId::Wv, MatrixId::Wo})
        if (name == QLatin1String(matrixName(id)))
            return id;
    return std::nullopt;
}

Scenario lesson(const QString &name)
{
    ScenarioOrProblem loaded = loadLesson(name);
    if (const Problem *p = std::get_if<Problem>(&loaded))
        qFatal("%s", p->toString().c_str());
    return std::get<Scenario>(loaded);
}

} // namespace

class TestGrad : public QObject {
    Q_OBJECT

private slots:
    // Every similarity, scaling, mask stage, encoding, mode and W_O
    // (explicitly, not by chance), each on a random scenario with some
    // cells blocked, for both losses.
    void finiteDifferencesEverySetting()
    {
        int checked = 0;
        std::uint64_t seed = 1;
        for (Similarity sim : {Similarity::Dot, Similarity::Cosine, Similarity::NegSqDistance})
            for (Scale scale : {Scale::SqrtDk, Scale::None, Scale::Dk})
                for (MaskStage stage : {MaskStage::BeforeSoftmax, MaskStage::AfterSoftmax})
                    for (Encoding enc : {Encoding::None, Encoding::Sinusoidal, Encoding::Learned, Encoding::Rope})
                        for (int mode = 0; mode < 3; ++mode) { // direct, projected, projected with W_O
                            Scenario s;
                            for (;; ++seed) {
                                test::RandomOptions o;
                                o.projected = mode > 0;
                                s = test::randomScenario(seed, o);
                                if ((s.mode == InputMode::Projected) != (mode > 0) || (mode == 2) != s.Wo.has_value())
                                    continue;
                                s.similarity = sim;
                                s.scale = scale;
                                s.maskStage = stage;
                                s.encoding = enc;
                                if (!validate(s) && compute(s).blocked.count() > 0
                                    && !compute(s).blocked.col(0).all())
                                    break;
                            }
                            ++seed;
                            const QString what = QStringLiteral("seed %1, %2 %3 %4 %5 mode %6")
                                                     .arg(seed - 1)
                                                     .arg(toString(sim), toString(scale), toString(stage), toString(enc))
                                                     .arg(mode);
                            checkAgainstDifferences(s, AttendLoss{0}, what + " attend:1");
                            if (QTest::currentTestFailed())
                                return;
                            const Trace t = compute(s);
                            test::TestRng rng(seed);
                            checkAgainstDifferences(s, TargetLoss{test::randomMatrix(rng, int(t.output.rows()),
                                                                                     int(t.output.cols()), 1.0)},
                                                    what + " target");
                            if (QTest::currentTestFailed())
                                return;
                            ++checked;
                        }
        QCOMPARE(checked, 3 * 3 * 2 * 4 * 3);
    }

    // softmax_1: the Jacobian keeps the form w_k (δ_kj − w_j) with its own w
    // (the 1 in the denominator does not move), both mask stages, several
    // heads and temperatures: every entry against central differences to 1e-6.
    void finiteDifferencesPlusOne()
    {
        int checked = 0;
        for (std::uint64_t seed = 500; checked < 24; ++seed) {
            Scenario s = test::randomScenario(seed);
            s.softmax = SoftmaxKind::PlusOne;
            s.maskStage = seed % 2 ? MaskStage::AfterSoftmax : MaskStage::BeforeSoftmax;
            s.temperature = 0.5 + double(seed % 4) * 0.5;
            if (validate(s) || compute(s).blocked.col(0).all())
                continue;
            const QString what = QStringLiteral("plus_one seed %1").arg(seed);
            checkAgainstDifferences(s, AttendLoss{0}, what + " attend:1");
            if (QTest::currentTestFailed())
                return;
            const Trace t = compute(s);
            test::TestRng rng(seed);
            checkAgainstDifferences(s, TargetLoss{test::randomMatrix(rng, int(t.output.rows()), int(t.output.cols()), 1.0)},
                                    what + " target");
            if (QTest::currentTestFailed())
                return;
            ++checked;
        }
        QCOMPARE(checked, 24);
    }

    // PyTorch autograd (float64) on an independent forward: every gradient
    // to 1e-9.
    void pytorchReference_data()
    {
        QTest::addColumn<QString>("file");
        const QDir dir(QStringLiteral(ATTN_TEST_SOURCE_DIR "/tests/grad"));
        const QStringList files = dir.entryList({QStringLiteral("reference-*.json")}, QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 5);
        for (const QString &f : files)
            QTest::newRow(qPrintable(f)) << dir.filePath(f);
    }
    void pytorchReference()
    {
        QFETCH(QString, file);
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject ref = QJsonDocument::fromJson(f.readAll()).object();
        ScenarioOrProblem loaded = scenarioFromJson(QJsonDocument(ref[QStringLiteral("scenario")].toObject()).toJson());
        QVERIFY2(std::holds_alternative<Scenario>(loaded), qPrintable(file));
        const Scenario s = std::get<Scenario>(loaded);
        const QString lossText = ref[QStringLiteral("loss")].toString();
        const Loss loss = lossText.startsWith(QLatin1String("attend:"))
            ? Loss(AttendLoss{lossText.mid(7).toInt() - 1})
            : Loss(TargetLoss{matrixFromJson(ref[QStringLiteral("target")])});
        const Result<Gradients> g = gradients(s, loss);
        QVERIFY(g.ok());
        QVERIFY(test::close(g.value().loss, ref[QStringLiteral("loss_value")].toDouble(), 1e-9, 1e-9));
        const QJsonObject grad = ref[QStringLiteral("grad")].toObject();
        QCOMPARE(int(g.value().inputs.size()), grad.size());
        for (auto it = grad.begin(); it != grad.end(); ++it) {
            const std::optional<MatrixId> id = idNamed(it.key());
            QVERIFY(id);
            const Matrix *mine = g.value().of(*id);
            QVERIFY2(mine, qPrintable(it.key()));
            if (auto bad = test::matrixMismatch(*mine, matrixFromJson(it.value()), 1e-9, 1e-9))
                QFAIL(qPrintable(it.key() + ": " + *bad));
        }
        const QJsonArray heads = ref[QStringLiteral("heads")].toArray();
        QCOMPARE(int(g.value().heads.size()), heads.size());
        for (int h = 0; h < heads.size(); ++h) {
            const QJsonObject head = heads[h].toObject();
            if (auto bad = test::matrixMismatch(g.value().heads[std::size_t(h)].scores, matrixFromJson(head[QStringLiteral("scores")]), 1e-9, 1e-9))
                QFAIL(qPrintable(QStringLiteral("head %1 scores: ").arg(h + 1) + *bad));
            if (auto bad = test::matrixMismatch(g.value().heads[std::size_t(h)].weights, matrixFromJson(head[QStringLiteral("weights")]), 1e-9, 1e-9))
                QFAIL(qPrintable(QStringLiteral("head %1 weights: ").arg(h + 1) + *bad));
        }
    }

    // Seed 000: q = [2, 0], K = [[2, 0], [0, 2], [1, 1]], V = I, ÷√2.
    // Weights w = (0.7679, 0.0454, 0.1867) (the lesson's notes).
    void seed000ByHand()
    {
        const Scenario s = lesson(QStringLiteral("seed000-basic"));
        const Trace t = compute(s);
        const Eigen::VectorXd w = t.heads[0].weights.row(0).transpose();
        // The softmax Jacobian w_i (δ_ij − w_j), by hand from the four decimals:
        //   J11 = 0.7679 × 0.2321 = 0.17823    J12 = −0.7679 × 0.0454 = −0.03486
        //   J13 = −0.7679 × 0.1867 = −0.14337  J22 = 0.0454 × 0.9546 = 0.04334
        //   J23 = −0.0454 × 0.1867 = −0.00848  J33 = 0.1867 × 0.8133 = 0.15184
        const Matrix hand = (Matrix(3, 3) << 0.17823, -0.03486, -0.14337, //
                             -0.03486, 0.04334, -0.00848,                  //
                             -0.14337, -0.00848, 0.15184)
                                .finished();
        // Four-decimal weights: each product is off by at most about 1e-4.
        if (auto bad = test::matrixMismatch(softmaxJacobian(w), hand, 0, 2e-4))
            QFAIL(qPrintable(*bad));
        // Its rows sum to 0: moving every score alike moves no weight.
        QVERIFY(softmaxJacobian(w).rowwise().sum().cwiseAbs().maxCoeff() < 1e-15);

        // attend:1, L = −log w1 = −ln 0.7679 = 0.2641.
        const Result<Gradients> g = gradients(s, AttendLoss{0});
        QVERIFY(g.ok());
        QVERIFY(std::abs(g.value().loss - 0.2641) < 1e-4);
        // ∂L/∂w1 = −1 / 0.7679 = −1.3022; the others 0.
        QVERIFY(std::abs(g.value().heads[0].weights(0, 0) + 1.3022) < 1e-4);
        QCOMPARE(g.value().heads[0].weights(0, 1), 0.0);
        // ∂L/∂x = J (−1.3022, 0, 0) = w − e1 = (−0.2321, 0.0454, 0.1867); ÷√2 for the raw scores:
        // (−0.1641, 0.0321, 0.1320).
        const Matrix &ds = g.value().heads[0].scores;
        if (auto bad = test::matrixMismatch(ds, test::Rows{{-0.1641, 0.0321, 0.1320}}, 0, 1e-4))
            QFAIL(qPrintable(*bad));
        // ∂L/∂q = Σ_j ∂L/∂s_j k_j = −0.1641 (2, 0) + 0.0321 (0, 2) + 0.1320 (1, 1) = (−0.1962, 0.1962).
        if (auto bad = test::matrixMismatch(*g.value().of(MatrixId::Q), test::Rows{{-0.1962, 0.1962}}, 0, 1e-4))
            QFAIL(qPrintable(*bad));
        // ∂L/∂k_j = ∂L/∂s_j q = 2 ∂L/∂s_j on the first axis: (−0.3282, 0.0642, 0.2640).
        if (auto bad = test::matrixMismatch(*g.value().of(MatrixId::K),
                                            test::Rows{{-0.3282, 0}, {0.0642, 0}, {0.2640, 0}}, 0, 1e-4))
            QFAIL(qPrintable(*bad));
        // The values do not reach the weights: no gradient.
        QCOMPARE(g.value().of(MatrixId::V)->cwiseAbs().maxCoeff(), 0.0);

        // target T = 0: L = ½ Σ w² (V = I, so Y = w) and ∂L/∂w = w; ∂L/∂x = J w,
        //   x_k: w_k (w_k − Σ w²), Σ w² = 0.5897 + 0.0021 + 0.0349 = 0.6266:
        //   (0.7679 × 0.1413, 0.0454 × −0.5812, 0.1867 × −0.4399) = (0.1085, −0.0264, −0.0821).
        const Result<Gradients> t0 = gradients(s, TargetLoss{Matrix::Zero(1, 3)});
        QVERIFY(t0.ok());
        if (auto bad = test::matrixMismatch(Matrix(t0.value().heads[0].scores * std::sqrt(2.0)),
                                            test::Rows{{0.1085, -0.0264, -0.0821}}, 0, 2e-4))
            QFAIL(qPrintable(*bad));
    }

    // Mask after the softmax: a blocked score still moves its row's other
    // weights through the denominator. Before the softmax it passes nothing.
    void blockedScoreAfterSoftmax()
    {
        Scenario s = lesson(QStringLiteral("seed000-basic"));
        s.mask.keyPadding = BoolVector::Constant(3, false);
        s.mask.keyPadding(1) = true; // k2 blocked
        const Matrix target = (Matrix(1, 3) << 1, 0, 0).finished();
        s.maskStage = MaskStage::AfterSoftmax;
        const Result<Gradients> after = gradients(s, TargetLoss{target});
        QVERIFY(after.ok());
        // By hand: p = softmax(x) over all three; w = (p1, 0, p3); g = ∂L/∂w = w − T
        // (V = I). ∂L/∂x2 = p2 (0 − (g1 p1 + g3 p3)).
        const Trace t = compute(s);
        const Eigen::RowVectorXd x = t.heads[0].scaledRow(0);
        const Eigen::RowVectorXd p = x.array().exp() / x.array().exp().sum();
        const double g1 = p(0) - 1, g3 = p(2);
        const double expected = p(1) * (0 - (g1 * p(0) + g3 * p(2))) / std::sqrt(2.0);
        QVERIFY(std::abs(expected) > 1e-3);
        QVERIFY(test::close(after.value().heads[0].scores(0, 1), expected, 1e-12, 0));
        // And the same by a difference of the loss in that one score, through
        // the forward's own softmax (a second, plain route).
        auto lossAtScore = [&](double d) {
            Matrix scaled = t.heads[0].scaledMatrix();
            scaled(0, 1) += d / t.divisor;
            const Matrix wts = maskedSoftmax(scaled, t.blocked, MaskStage::AfterSoftmax);
            return 0.5 * (wts - target).squaredNorm();
        };
        QVERIFY(test::close(after.value().heads[0].scores(0, 1), centralDifference(lossAtScore, 1e-5), 1e-7, 1e-10));

        s.maskStage = MaskStage::BeforeSoftmax;
        const Result<Gradients> before = gradients(s, TargetLoss{target});
        QVERIFY(before.ok());
        QCOMPARE(before.value().heads[0].scores(0, 1), 0.0);
        // k2's key then gets nothing from row 1 either.
        QCOMPARE(before.value().of(MatrixId::K)->row(1).cwiseAbs().maxCoeff(), 0.0);
        QVERIFY(after.value().of(MatrixId::K)->row(1).cwiseAbs().maxCoeff() > 1e-4);
    }

    // The cosine of a zero vector has no gradient: a Problem naming it, never NaN.
    void cosineOfZeroVector()
    {
        Scenario s = lesson(QStringLiteral("seed000-basic"));
        s.similarity = Similarity::Cosine;
        s.K.row(1).setZero();
        const Result<Gradients> g = gradients(s, AttendLoss{0});
        QVERIFY(!g.ok());
        QCOMPARE(QString::fromStdString(g.problem()->place), QStringLiteral("key 2"));
        QVERIFY(QString::fromStdString(g.problem()->message).contains(QLatin1String("zero vector")));
        // A zero key the loss never reaches (blocked before the softmax) is no problem.
        s.mask.keyPadding = BoolVector::Constant(3, false);
        s.mask.keyPadding(1) = true;
        const Result<Gradients> blocked = gradients(s, AttendLoss{0});
        QVERIFY(blocked.ok());
        for (const NamedGradient &n : blocked.value().inputs)
            QVERIFY(n.grad.allFinite());
    }

    // The handout's draw (seed 7, d_k 64): its gradient numbers against the
    // attention backward itself. Q = q, K = [k; 0; 0] gives the scores
    // [q·k, 0, 0]; V = [1; 0; 0] makes Y = w_1, and T = w_1 − 1 makes
    // ∂L/∂Y = 1, so ∂L/∂Q is ∂w_1/∂q.
    void handoutDrawGradients()
    {
        const Result<HandoutDraw> d = handoutDraw(7, 64);
        QVERIFY(d.ok());
        const std::array<GradientSummary, 3> g = handoutGradients(d.value());
        for (Scale scale : {Scale::None, Scale::SqrtDk, Scale::Dk}) {
            Scenario s;
            s.scale = scale;
            s.Q = Eigen::Map<const Eigen::RowVectorXd>(d.value().q.data(), 64);
            s.K = Matrix::Zero(3, 64);
            s.K.row(0) = Eigen::Map<const Eigen::RowVectorXd>(d.value().k.data(), 64);
            s.V = (Matrix(3, 1) << 1, 0, 0).finished();
            s.sourceTokens = {"k", "0", "0"};
            const Trace t = compute(s);
            const double w1 = t.heads[0].weights(0, 0);
            const Result<Gradients> back = backward(s, t, TargetLoss{Matrix::Constant(1, 1, w1 - 1)});
            QVERIFY(back.ok());
            const ScoreScaling sc = scale == Scale::None ? ScoreScaling::Raw : scale == Scale::SqrtDk ? ScoreScaling::SqrtDk : ScoreScaling::Dk;
            const GradientSummary &mine = g[std::size_t(sc)];
            QVERIFY2(test::close(mine.queryGradientNorm, back.value().of(MatrixId::Q)->norm(), 1e-10, 1e-300),
                     qPrintable(num(mine.queryGradientNorm) + " " + num(back.value().of(MatrixId::Q)->norm())));
            const Eigen::VectorXd w = t.heads[0].weights.row(0).transpose();
            QVERIFY(test::close(mine.jacobianNorm, softmaxJacobian(w).norm(), 1e-10, 1e-300));
        }
        // raw q·k = −7.0193: w_1 = e^−7.0193 / (e^−7.0193 + 2) ≈ 0.00045, so ‖∂w_1/∂q‖ = w_1 (1 − w_1) |k|
        // is far below ÷√d_k's (x = −0.8774, w_1 = 0.1568, ÷8).
        QVERIFY(g[0].queryGradientNorm < 0.05 * g[1].queryGradientNorm);
        QCOMPARE(g[0].medianQueryGradientNorm, g[0].queryGradientNorm); // one draw
    }

    // Random rows: the limits the formulas give. Saturated raw scores at a
    // large d_k have a vanishing Jacobian; ÷d_k flattens w to 1/n, where
    // ‖J‖_F = √(n − 1) / n; ÷√d_k keeps the same law at every d_k.
    void scalingGradientLimits()
    {
        ScalingLabParams p;
        p.trials = 2000;
        p.keys = 8;
        auto at = [&](int dk) {
            p.dk = dk;
            const Result<GradientPoint> r = scalingGradients(p);
            if (!r.ok())
                qFatal("%s", r.problem()->toString().c_str());
            return r.value();
        };
        const GradientPoint small = at(4), mid = at(256), large = at(1024);
        const auto raw = std::size_t(ScoreScaling::Raw), root = std::size_t(ScoreScaling::SqrtDk), byDk = std::size_t(ScoreScaling::Dk);
        QVERIFY(large.series[raw].jacobianNorm < 0.15 * large.series[root].jacobianNorm);
        // The typical raw row has no gradient left; its mean is carried by
        // the rare near-ties (each ~|k| = 32), so only the median vanishes.
        QVERIFY(large.series[raw].medianQueryGradientNorm < 0.05 * large.series[root].medianQueryGradientNorm);
        QVERIFY(large.series[raw].medianJacobianNorm < 0.05 * large.series[root].medianJacobianNorm);
        QVERIFY(std::abs(large.series[byDk].jacobianNorm - std::sqrt(7.0) / 8) < 0.005);
        // ÷d_k: ∂w_1/∂q ≈ (1/(8 d_k)) |k_1 − mean k| shrinks as 1/√d_k: a quarter of d_k, twice the norm.
        QVERIFY(std::abs(mid.series[byDk].queryGradientNorm / large.series[byDk].queryGradientNorm - 2) < 0.1);
        QVERIFY(std::abs(mid.series[root].jacobianNorm / large.series[root].jacobianNorm - 1) < 0.05);
        // d_k = 4 ÷√d_k is the same law as d_k = 256's but for |q|² / d_k's spread: close, not equal.
        QVERIFY(std::abs(small.series[root].jacobianNorm / mid.series[root].jacobianNorm - 1) < 0.2);
        p.trials = kMaxExperimentTrials;
        p.dk = 1024;
        QVERIFY(!scalingGradients(p).ok());
    }

    void lossRefusals()
    {
        Scenario s = lesson(QStringLiteral("seed000-basic"));
        const Trace t = compute(s);
        QVERIFY(checkLoss(t, AttendLoss{3}));
        QVERIFY(checkLoss(t, TargetLoss{Matrix::Zero(2, 3)}));
        s.mask.keyPadding = BoolVector::Constant(3, false);
        s.mask.keyPadding(2) = true;
        const auto p = checkLoss(compute(s), AttendLoss{2});
        QVERIFY(p);
        QVERIFY(QString::fromStdString(p->message).contains(QLatin1String("blocked in every row")));
    }
};

QTEST_GUILESS_MAIN(TestGrad)
#include "test_grad.moc"
