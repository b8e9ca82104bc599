// The attention core (attn_core): positional encodings, similarity, scaling,
// the masked softmax and its row statistics worked by hand; properties of
// compute() over many random scenarios; and the scaling experiment.

#include "attention.h"
#include "attn_test.h"
#include "experiment.h"
#include "formula.h"
#include "positional.h"
#include "random.h"
#include "random_scenario.h"
#include "trace_text.h"

#include <QObject>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace attn;
using attn::test::num;

namespace {

const double kPi = std::acos(-1.0);

// maskedSoftmax of one row.
Eigen::RowVectorXd softmaxRow(std::initializer_list<double> row, std::initializer_list<bool> blocked,
                              MaskStage stage, RowStats *stats = nullptr)
{
    Matrix m(1, Eigen::Index(row.size()));
    BoolMatrix b(1, Eigen::Index(blocked.size()));
    Eigen::Index j = 0;
    for (double v : row)
        m(0, j++) = v;
    j = 0;
    for (bool v : blocked)
        b(0, j++) = v;
    std::vector<RowStats> rows;
    const Matrix w = maskedSoftmax(m, b, stage, &rows);
    if (stats)
        *stats = rows.at(0);
    return w.row(0);
}

// Every matrix of a trace, by name, for the finiteness walk.
std::vector<std::pair<QString, const Matrix *>> allMatrices(const Trace &t)
{
    std::vector<std::pair<QString, const Matrix *>> out{
        {"Q", &t.Q},           {"K", &t.K},
        {"V", &t.V},           {"encodedX", &t.encodedX},
        {"encodedSource", &t.encodedSource}, {"positionQuery", &t.positionQuery},
        {"positionKey", &t.positionKey},     {"positionValue", &t.positionValue},
        {"concat", &t.concat}, {"output", &t.output}};
    for (std::size_t h = 0; h < t.heads.size(); ++h) {
        const HeadTrace &head = t.heads[h];
        const QString p = QStringLiteral("head %1 ").arg(h);
        for (const auto &[name, m] : {std::pair{"Q", &head.Q}, {"K", &head.K}, {"V", &head.V},
                                      {"scores", &head.scores}, {"scaled", &head.scaled},
                                      {"weights", &head.weights}, {"output", &head.output}})
            out.emplace_back(p + QLatin1String(name), m);
    }
    return out;
}

std::optional<QString> firstNonFinite(const Trace &t)
{
    for (const auto &[name, m] : allMatrices(t))
        if (auto bad = test::nonFinite(*m))
            return name + QStringLiteral(" ") + *bad;
    for (std::size_t h = 0; h < t.heads.size(); ++h)
        for (std::size_t i = 0; i < t.heads[h].rows.size(); ++i) {
            const RowStats &r = t.heads[h].rows[i];
            if (!std::isfinite(r.sum) || !std::isfinite(r.entropy) || !std::isfinite(r.maxWeight))
                return QStringLiteral("head %1 row %2 stats: sum %3, entropy %4, max %5")
                    .arg(h).arg(i).arg(num(r.sum), num(r.entropy), num(r.maxWeight));
        }
    if (!std::isfinite(t.divisor))
        return QStringLiteral("divisor %1").arg(num(t.divisor));
    return std::nullopt;
}

// Self-attention with its tokens reordered: new token i is old token perm[i].
// The mask moves with them (as explicit blocked entries, since a causal mask
// is not itself permutation-invariant).
Scenario permuted(const Scenario &s, const std::vector<int> &perm)
{
    const auto rowsOf = [&perm](const Matrix &m) {
        Matrix out(m.rows(), m.cols());
        for (std::size_t i = 0; i < perm.size(); ++i)
            out.row(Eigen::Index(i)) = m.row(perm[i]);
        return out;
    };
    Scenario p = s;
    if (s.mode == InputMode::Direct) {
        p.Q = rowsOf(s.Q);
        p.K = rowsOf(s.K);
        p.V = rowsOf(s.V);
    } else {
        p.X = rowsOf(s.X);
    }
    const BoolMatrix b = blockedMatrix(s);
    p.mask = Mask{};
    p.mask.blocked.resize(b.rows(), b.cols());
    for (Eigen::Index i = 0; i < b.rows(); ++i)
        for (Eigen::Index j = 0; j < b.cols(); ++j)
            p.mask.blocked(i, j) = b(perm[std::size_t(i)], perm[std::size_t(j)]);
    return p;
}

std::vector<int> randomPermutation(test::TestRng &rng, int n)
{
    std::vector<int> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    for (int i = n - 1; i > 0; --i)
        std::swap(perm[std::size_t(i)], perm[std::size_t(rng.integer(0, i))]);
    return perm;
}

// Largest |a(i, j) - b(perm[i], perm[j])| (columns permuted too when `cols`).
double permutedDifference(const Matrix &a, const Matrix &b, const std::vector<int> &perm, bool cols)
{
    double worst = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j) {
            const double other = b(perm[std::size_t(i)], cols ? perm[std::size_t(j)] : j);
            worst = std::max(worst, std::abs(a(i, j) - other));
        }
    return worst;
}

// The permutation lesson (我 打 你) built here, so that this test needs only the core.
Scenario wordOrderLesson()
{
    Scenario s;
    s.mode = InputMode::Projected;
    s.tokens = {"我", "打", "你"};
    s.X = Matrix{{1, 0.2, 0, 0.5}, {0.1, 1, 0.6, 0}, {0.9, 0, 0.3, -0.5}};
    s.Wq = Matrix{{1, 0}, {0, 1}, {0.5, 0}, {0, 0.5}};
    s.Wk = Matrix{{0.8, 0.2}, {0.1, 1}, {0, 0.5}, {0.5, 0}};
    s.Wv = Matrix{{1, 0}, {0, 1}, {1, 1}, {0, -1}};
    return s;
}

} // namespace

Q_DECLARE_METATYPE(attn::Similarity)
Q_DECLARE_METATYPE(attn::Scale)
Q_DECLARE_METATYPE(attn::MaskStage)
Q_DECLARE_METATYPE(attn::Encoding)

class TestCore : public QObject {
    Q_OBJECT

private slots:
    // ---- compute() options and storage ----

    // Without a stored scaled stage the trace still answers it, with the
    // bits of scores / (c tau), and the softmax takes those same bits (c tau
    // of every kind: 1, powers of two, others), so weights, outputs and row
    // statistics are the same to the bit: exports cannot tell the two apart.
    void derivedScaledMatchesStored()
    {
        for (std::uint64_t seed = 1; seed <= 600; ++seed) {
            attn::test::RandomOptions o;
            o.magnitude = seed % 3 == 0 ? 3.0 : 1.0;
            const Scenario s = attn::test::randomScenario(seed, o);
            const Trace a = compute(s), b = compute(s, ComputeOptions{.keepScaled = false});
            const QString at = QStringLiteral("seed %1").arg(seed);
            QCOMPARE(b.heads.size(), a.heads.size());
            for (std::size_t h = 0; h < a.heads.size(); ++h) {
                const HeadTrace &x = a.heads[h], &y = b.heads[h];
                QVERIFY2(y.scaled.size() == 0, qPrintable(at));
                QVERIFY2(x.scores == y.scores, qPrintable(at + QStringLiteral(": scores")));
                // Derived or stored, the same bits, and those of the division.
                QVERIFY2(y.scaledMatrix() == x.scaled, qPrintable(at + QStringLiteral(": scaled")));
                QVERIFY2(x.scaledMatrix() == x.scaled, qPrintable(at));
                QVERIFY2(Matrix(x.scores / a.divisor) == x.scaled, qPrintable(at + QStringLiteral(": scores / divisor")));
                const Eigen::Index i = x.scores.rows() - 1, j = x.scores.cols() / 2;
                QCOMPARE(y.scaledAt(i, j), x.scaled(i, j));
                QVERIFY2(y.scaledRow(i) == Eigen::RowVectorXd(x.scaled.row(i)), qPrintable(at));
                ATTN_VERIFY_NO_MISMATCH(attn::test::matrixMismatch(y.weights, x.weights, 0, 0), at + " weights");
                ATTN_VERIFY_NO_MISMATCH(attn::test::matrixMismatch(y.output, x.output, 0, 0), at + " output");
                QCOMPARE(y.scaledMaxAbs(), x.scaled.cwiseAbs().maxCoeff());
                for (std::size_t r = 0; r < x.rows.size(); ++r) {
                    QCOMPARE(y.rows[r].fullyMasked, x.rows[r].fullyMasked);
                    QCOMPARE(y.rows[r].entropy, x.rows[r].entropy);
                    QCOMPARE(y.rows[r].sum, x.rows[r].sum);
                    QCOMPARE(y.rows[r].maxWeight, x.rows[r].maxWeight);
                    QCOMPARE(y.rows[r].argmax, x.rows[r].argmax);
                }
                if (x.scores.size()) {
                    const Eigen::Index c = x.scores.cols() - 1;
                    QVERIFY2(y.scaledCol(c) == Eigen::VectorXd(x.scaled.col(c)), qPrintable(at));
                    QVERIFY2(y.scaledRows(0, i + 1) == x.scaled, qPrintable(at));
                }
            }
            ATTN_VERIFY_NO_MISMATCH(attn::test::matrixMismatch(b.output, a.output, 0, 0), at + " final output");
        }
    }

    // computeInto() over a trace of another scenario (other sizes, the other
    // mode, more or fewer heads, an encoding or none) gives exactly what a
    // fresh compute() gives, and keeps the memory of matrices whose size
    // did not change.
    void computeIntoEqualsFresh()
    {
        auto same = [](const Trace &a, const Trace &b) {
            auto eq = [](const Matrix &x, const Matrix &y) {
                return x.rows() == y.rows() && x.cols() == y.cols() && x == y;
            };
            if (!(eq(a.Q, b.Q) && eq(a.K, b.K) && eq(a.V, b.V) && eq(a.encodedX, b.encodedX)
                  && eq(a.encodedSource, b.encodedSource) && eq(a.positionQuery, b.positionQuery)
                  && eq(a.positionKey, b.positionKey) && eq(a.positionValue, b.positionValue)
                  && eq(a.concat, b.concat) && eq(a.output, b.output) && a.heads.size() == b.heads.size()
                  && a.dk == b.dk && a.dv == b.dv && a.divisor == b.divisor && a.blocked.rows() == b.blocked.rows()
                  && a.blocked.cols() == b.blocked.cols() && (a.blocked == b.blocked).all()))
                return false;
            for (std::size_t h = 0; h < a.heads.size(); ++h) {
                const HeadTrace &x = a.heads[h], &y = b.heads[h];
                if (!(eq(x.Q, y.Q) && eq(x.K, y.K) && eq(x.V, y.V) && eq(x.scores, y.scores) && eq(x.scaled, y.scaled)
                      && eq(x.weights, y.weights) && eq(x.output, y.output) && x.divisor == y.divisor
                      && x.rows.size() == y.rows.size()))
                    return false;
                for (std::size_t r = 0; r < x.rows.size(); ++r)
                    if (x.rows[r].sum != y.rows[r].sum || x.rows[r].entropy != y.rows[r].entropy
                        || x.rows[r].argmax != y.rows[r].argmax || x.rows[r].maxWeight != y.rows[r].maxWeight)
                        return false;
            }
            return true;
        };
        Trace t;
        for (std::uint64_t seed = 1; seed <= 300; ++seed) {
            const Scenario s = attn::test::randomScenario(seed + 500);
            const ComputeOptions o{.keepScaled = seed % 2 == 0};
            computeInto(s, t, o);
            QVERIFY2(same(t, compute(s, o)), qPrintable(QStringLiteral("seed %1").arg(seed)));
        }
        // The same shape again (a settings change): the same memory.
        Scenario s = attn::test::randomScenario(42);
        computeInto(s, t);
        const double *weights = t.heads[0].weights.data(), *scores = t.heads[0].scores.data();
        s.temperature = 0.5;
        computeInto(s, t);
        QCOMPARE(t.heads[0].weights.data(), weights);
        QCOMPARE(t.heads[0].scores.data(), scores);
        QVERIFY(same(t, compute(s)));
        // A refused scenario throws and leaves the trace as it was.
        Scenario bad = s;
        bad.temperature = 0;
        QVERIFY_THROWS_EXCEPTION(ScenarioError, computeInto(bad, t));
        QVERIFY(same(t, compute(s)));

        // A change that scoresSurvive(): the scale, temperature, mask, mask
        // stage and softmax of another random scenario. With the scores
        // kept, the same bits as a whole forward, and the scores' memory.
        int keptChanges = 0;
        for (std::uint64_t seed = 1; seed <= 400; ++seed) {
            attn::test::RandomOptions ro;
            ro.magnitude = seed % 3 == 0 ? 3.0 : 1.0;
            const Scenario before = attn::test::randomScenario(seed + 900, ro);
            const Scenario other = attn::test::randomScenario(seed + 5000, ro);
            Scenario after = before;
            after.scale = other.scale;
            after.temperature = other.temperature;
            after.maskStage = other.maskStage;
            after.softmax = seed % 4 == 0 ? SoftmaxKind::PlusOne : SoftmaxKind::Standard;
            after.mask.causal = queryCount(before) == keyCount(before) && !before.mask.causal;
            QVERIFY(scoresSurvive(before, after));
            const ComputeOptions o{.keepScaled = seed % 2 == 0};
            Trace kept = compute(before, o);
            const double *scores = kept.heads[0].scores.data();
            computeInto(after, kept, ComputeOptions{.keepScaled = o.keepScaled, .scoresKept = true});
            QVERIFY2(same(kept, compute(after, o)), qPrintable(QStringLiteral("kept scores, seed %1").arg(seed)));
            QCOMPARE(kept.heads[0].scores.data(), scores);
            ++keptChanges;
        }
        QCOMPARE(keptChanges, 400);
        // At n = 300, d_k = 8 (the fused scores, several row blocks, threads).
        Scenario big;
        {
            attn::test::TestRng rng(77);
            big.mode = InputMode::Projected;
            big.heads = 2;
            big.X = attn::test::randomMatrix(rng, 300, 16, 1.0);
            big.Wq = attn::test::randomMatrix(rng, 16, 16, 0.5);
            big.Wk = attn::test::randomMatrix(rng, 16, 16, 0.5);
            big.Wv = attn::test::randomMatrix(rng, 16, 16, 0.5);
            big.encoding = Encoding::Rope;
            QVERIFY(!validate(big));
            Trace kept = compute(big);
            Scenario flipped = big;
            flipped.mask.causal = true;
            flipped.temperature = 0.7;
            computeInto(flipped, kept, ComputeOptions{.scoresKept = true});
            QVERIFY(same(kept, compute(flipped)));
        }
        // Other settings do not keep the scores; a trace of another shape
        // is computed whole whatever the option says.
        Scenario a = attn::test::randomScenario(3), b = a;
        b.similarity = a.similarity == Similarity::Dot ? Similarity::Cosine : Similarity::Dot;
        QVERIFY(!scoresSurvive(a, b));
        b = a;
        b.encoding = a.encoding == Encoding::None ? Encoding::Sinusoidal : Encoding::None;
        QVERIFY(!scoresSurvive(a, b));
        b = a;
        b.seed = a.seed + 1;
        QVERIFY(!scoresSurvive(a, b));
        Trace bigTrace = compute(big); // 300 tokens; a has at most 8
        computeInto(a, bigTrace, ComputeOptions{.scoresKept = true});
        QVERIFY(same(bigTrace, compute(a)));
    }

    // The output is formed inside the softmax's last pass for d_v up to 8,
    // 12 and 16, by Eigen otherwise: either way weights * V, for every
    // width, and the same bits whatever the number of threads (the row
    // blocks depend on the sizes alone).
    void outputIsWeightsTimesValues()
    {
        for (int dv : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 32}) {
            for (int n : {1, 2, 3, 7, 50, 130}) {
                attn::test::TestRng rng(std::uint64_t(dv * 1000 + n));
                Scenario s;
                s.mode = InputMode::Direct;
                s.Q = attn::test::randomMatrix(rng, n, 3, 2.0);
                const bool causal = n % 2 == 1; // (square) or one key more than queries
                s.K = attn::test::randomMatrix(rng, causal ? n : n + 1, 3, 2.0);
                s.V = attn::test::randomMatrix(rng, causal ? n : n + 1, dv, 5.0);
                s.mask.causal = causal;
                const auto problem = validate(s);
                QVERIFY2(!problem, problem ? problem->toString().c_str() : "");
                const Trace t = compute(s);
                const HeadTrace &h = t.heads[0];
                const Matrix expected = h.weights * h.V;
                const QString at = QStringLiteral("d_v %1, n %2").arg(dv).arg(n);
                ATTN_VERIFY_NO_MISMATCH(attn::test::matrixMismatch(h.output, expected, 1e-13, 1e-13), at);
                QVERIFY2(t.concat == h.output, qPrintable(at));
            }
        }
    }

    // ---- positional encodings ----

    void sinusoidalEntries_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("position");
        QTest::addColumn<int>("column");
        QTest::addColumn<double>("expected");
        // PE[p, 2i] = sin(p / 10000^(2i/w)), PE[p, 2i+1] = cos(p / 10000^(2i/w)).
        QTest::newRow("PE(0,0) = sin 0") << 4 << 0 << 0 << 0.0;
        QTest::newRow("PE(0,1) = cos 0") << 4 << 0 << 1 << 1.0;
        QTest::newRow("PE(0,3) = cos 0") << 4 << 0 << 3 << 1.0;
        QTest::newRow("PE(1,0) = sin 1") << 4 << 1 << 0 << std::sin(1.0);
        QTest::newRow("PE(1,1) = cos 1") << 4 << 1 << 1 << std::cos(1.0);
        QTest::newRow("PE(2,2), w=4: sin(2/100)") << 4 << 2 << 2 << std::sin(2 / 100.0);
        QTest::newRow("PE(2,3), w=4: cos(2/100)") << 4 << 2 << 3 << std::cos(2 / 100.0);
        QTest::newRow("PE(2,2), w=8: sin(2/10)") << 8 << 2 << 2 << std::sin(2 / 10.0);
        QTest::newRow("PE(5,6), w=8: sin(5/1000)") << 8 << 5 << 6 << std::sin(5 / 1000.0);
        QTest::newRow("PE(5,7), w=8: cos(5/1000)") << 8 << 5 << 7 << std::cos(5 / 1000.0);
        QTest::newRow("PE(3,2), w=6") << 6 << 3 << 2 << std::sin(3 / std::pow(10000.0, 2.0 / 6));
        // An odd width: the last column is a sine of its own pair.
        QTest::newRow("PE(3,4), w=5") << 5 << 3 << 4 << std::sin(3 / std::pow(10000.0, 4.0 / 5));
        QTest::newRow("PE(7,1), w=2: cos 7") << 2 << 7 << 1 << std::cos(7.0);
    }

    void sinusoidalEntries()
    {
        QFETCH(int, width);
        QFETCH(int, position);
        QFETCH(int, column);
        QFETCH(double, expected);
        const Matrix pe = sinusoidalTable(position + 3, width);
        QCOMPARE(pe.rows(), Eigen::Index(position + 3));
        QCOMPARE(pe.cols(), Eigen::Index(width));
        ATTN_COMPARE_NEAR(pe(position, column), expected, 1e-15);
    }

    void ropeAnglesByHand()
    {
        const Matrix theta = ropeAngles(4, 4); // theta(p, i) = p * 10000^(-2i/4) = p / 100^i
        QCOMPARE(theta.rows(), Eigen::Index(4));
        QCOMPARE(theta.cols(), Eigen::Index(2));
        ATTN_COMPARE_NEAR(theta(0, 0), 0.0, 0);
        ATTN_COMPARE_NEAR(theta(0, 1), 0.0, 0);
        ATTN_COMPARE_NEAR(theta(1, 0), 1.0, 1e-15);
        ATTN_COMPARE_NEAR(theta(3, 0), 3.0, 1e-15);
        ATTN_COMPARE_NEAR(theta(2, 1), 0.02, 1e-15);
        ATTN_COMPARE_NEAR(ropeAngles(3, 6)(2, 2), 2 / std::pow(10000.0, 4.0 / 6), 1e-15);
    }

    void ropeRotatesKnownVector_data()
    {
        QTest::addColumn<double>("a");
        QTest::addColumn<double>("b");
        QTest::addColumn<double>("angle");
        QTest::addColumn<double>("expectedA");
        QTest::addColumn<double>("expectedB");
        // (a, b) -> (a cos t - b sin t, a sin t + b cos t)
        QTest::newRow("(3,4) by pi/2 -> (-4,3)") << 3.0 << 4.0 << kPi / 2 << -4.0 << 3.0;
        QTest::newRow("(3,4) by pi -> (-3,-4)") << 3.0 << 4.0 << kPi << -3.0 << -4.0;
        QTest::newRow("(1,0) by pi/3") << 1.0 << 0.0 << kPi / 3 << 0.5 << std::sqrt(3.0) / 2;
        QTest::newRow("(1,1) by -pi/4 -> (sqrt2,0)") << 1.0 << 1.0 << -kPi / 4 << std::sqrt(2.0) << 0.0;
        QTest::newRow("(2,-1) by 0") << 2.0 << -1.0 << 0.0 << 2.0 << -1.0;
        QTest::newRow("(2,-1) by 1 rad") << 2.0 << -1.0 << 1.0 << 2 * std::cos(1.0) + std::sin(1.0)
                                         << 2 * std::sin(1.0) - std::cos(1.0);
    }

    void ropeRotatesKnownVector()
    {
        QFETCH(double, a);
        QFETCH(double, b);
        QFETCH(double, angle);
        QFETCH(double, expectedA);
        QFETCH(double, expectedB);
        const Matrix x{{a, b}};
        const Matrix t{{angle}};
        const Matrix r = applyRope(x, t);
        ATTN_COMPARE_NEAR(r(0, 0), expectedA, 1e-14);
        ATTN_COMPARE_NEAR(r(0, 1), expectedB, 1e-14);
    }

    // Rows rotated by their own positions: position 0 stays, lengths stay,
    // and the second pair of row 1 turns by 1/100 rad (d = 4).
    void ropeOverPositions()
    {
        const Matrix x{{1, 2, 3, 4}, {1, 2, 3, 4}, {-0.5, 0.25, 2, -1}};
        const Matrix r = applyRope(x, ropeAngles(3, 4));
        for (int c = 0; c < 4; ++c)
            QCOMPARE(r(0, c), x(0, c)); // exactly: cos 0 = 1, sin 0 = 0
        ATTN_COMPARE_NEAR(r(1, 0), std::cos(1.0) - 2 * std::sin(1.0), 1e-15);
        ATTN_COMPARE_NEAR(r(1, 1), std::sin(1.0) + 2 * std::cos(1.0), 1e-15);
        ATTN_COMPARE_NEAR(r(1, 2), 3 * std::cos(0.01) - 4 * std::sin(0.01), 1e-15);
        ATTN_COMPARE_NEAR(r(1, 3), 3 * std::sin(0.01) + 4 * std::cos(0.01), 1e-15);
        for (int p = 0; p < 3; ++p) {
            ATTN_COMPARE_NEAR(r.row(p).head(2).norm(), x.row(p).head(2).norm(), 1e-14);
            ATTN_COMPARE_NEAR(r.row(p).tail(2).norm(), x.row(p).tail(2).norm(), 1e-14);
        }
    }

    // RoPE's point: the dot product of a rotated query and key depends only
    // on the distance between their positions.
    void ropeDependsOnRelativePosition()
    {
        const Matrix q = Matrix{{0.3, -1.2, 0.7, 0.4}}.replicate(8, 1);
        const Matrix k = Matrix{{1.1, 0.5, -0.2, 0.9}}.replicate(8, 1);
        const Matrix rq = applyRope(q, ropeAngles(8, 4)), rk = applyRope(k, ropeAngles(8, 4));
        const double distance3 = rq.row(3).dot(rk.row(0));
        for (int p = 4; p < 8; ++p)
            ATTN_COMPARE_NEAR(rq.row(p).dot(rk.row(p - 3)), distance3, 1e-13);
        // And it does change with the distance.
        QVERIFY2(std::abs(rq.row(3).dot(rk.row(0)) - rq.row(1).dot(rk.row(0))) > 1e-3,
                 qPrintable(num(rq.row(3).dot(rk.row(0)) - rq.row(1).dot(rk.row(0)))));
    }

    void learnedTableDeterministic()
    {
        const Matrix a = learnedTable(6, 5, 7), b = learnedTable(6, 5, 7);
        QCOMPARE(a.rows(), Eigen::Index(6));
        QCOMPARE(a.cols(), Eigen::Index(5));
        QVERIFY(a == b);
        const Matrix other = learnedTable(6, 5, 8);
        QVERIFY2((a - other).cwiseAbs().maxCoeff() > 0.1, "seeds 7 and 8 give nearly the same table");
    }

    void learnedTableRange()
    {
        for (std::uint64_t seed : {0ULL, 1ULL, 7ULL, 123456789ULL, 9007199254740992ULL}) {
            const Matrix t = learnedTable(64, 64, seed);
            ATTN_CHECK(t.minCoeff() >= -1.0 && t.maxCoeff() < 1.0,
                       QStringLiteral("seed %1: range [%2, %3]").arg(seed).arg(num(t.minCoeff()), num(t.maxCoeff())));
            // 4096 draws uniform in [-1, 1): the mean is near 0, both ends are reached.
            ATTN_COMPARE_NEAR(t.mean(), 0.0, 0.05);
            ATTN_CHECK(t.minCoeff() < -0.99 && t.maxCoeff() > 0.99,
                       QStringLiteral("seed %1: range [%2, %3]").arg(seed).arg(num(t.minCoeff()), num(t.maxCoeff())));
        }
    }

    // Entry (p, c) depends on (seed, p, c) only: adding tokens or columns keeps the others.
    void learnedTableRowIndependentOfSize()
    {
        const Matrix small = learnedTable(3, 4, 42), big = learnedTable(10, 9, 42);
        ATTN_COMPARE_MATRIX(big.topLeftCorner(3, 4), small, 0.0);
    }

    void additiveTables()
    {
        QCOMPARE(additiveTable(Encoding::None, 3, 4, 7).size(), Eigen::Index(0));
        QCOMPARE(additiveTable(Encoding::Rope, 3, 4, 7).size(), Eigen::Index(0));
        ATTN_COMPARE_MATRIX(additiveTable(Encoding::Sinusoidal, 3, 4, 7), sinusoidalTable(3, 4), 0.0);
        ATTN_COMPARE_MATRIX(additiveTable(Encoding::Learned, 3, 4, 7), learnedTable(3, 4, 7), 0.0);
    }

    // ---- similarity, scale, softmax ----

    void similarityByHand_data()
    {
        QTest::addColumn<Similarity>("kind");
        QTest::addColumn<double>("expected01"); // q0 = (1, 2) against k1 = (3, -1)
        QTest::addColumn<double>("expected10"); // q1 = (0, 0) against k0 = (1, 2)
        QTest::addColumn<double>("expected00"); // q0 against k0 = q0
        QTest::newRow("dot") << Similarity::Dot << 1.0 << 0.0 << 5.0;
        QTest::newRow("cosine") << Similarity::Cosine << 1 / (std::sqrt(5.0) * std::sqrt(10.0)) << 0.0 << 1.0;
        QTest::newRow("neg_sq_distance") << Similarity::NegSqDistance << -(4.0 + 9.0) << -5.0 << 0.0;
    }

    void similarityByHand()
    {
        QFETCH(Similarity, kind);
        QFETCH(double, expected01);
        QFETCH(double, expected10);
        QFETCH(double, expected00);
        const Matrix Q{{1, 2}, {0, 0}}, K{{1, 2}, {3, -1}};
        const Matrix s = similarity(kind, Q, K);
        QCOMPARE(s.rows(), Eigen::Index(2));
        QCOMPARE(s.cols(), Eigen::Index(2));
        ATTN_COMPARE_NEAR(s(0, 1), expected01, 1e-15);
        ATTN_COMPARE_NEAR(s(1, 0), expected10, 1e-15); // cosine: 0 where a norm is 0
        ATTN_COMPARE_NEAR(s(0, 0), expected00, 1e-15);
        if (kind == Similarity::NegSqDistance)
            QCOMPARE(s(0, 0), 0.0); // a query on its key: exactly 0
    }

    // cos(c q, k) = cos(q, k) for every c > 0, and always within [-1, 1]: a
    // valid input of small magnitude must not change the angle.
    void cosineIgnoresMagnitude_data()
    {
        QTest::addColumn<double>("factor");
        for (double f : {1e12, 1e6, 1.0, 1e-6, 1e-100, 1e-150, 1e-160, 1e-170, 1e-200, 1e-300})
            QTest::addRow("factor %g", f) << f;
    }

    void cosineIgnoresMagnitude()
    {
        QFETCH(double, factor);
        const Matrix K{{1, 0}, {-1, 0}, {0, 1}, {3, 4}};
        const Matrix Q = Matrix{{1, 0}, {0.6, 0.8}} * factor;
        const Matrix s = similarity(Similarity::Cosine, Q, K);
        const Matrix expected{{1, -1, 0, 0.6}, {0.6, -0.6, 0.8, 1}};
        ATTN_COMPARE_MATRIX(s, expected, 1e-12);
    }

    void scaleConstants_data()
    {
        QTest::addColumn<Scale>("scale");
        QTest::addColumn<int>("dk");
        QTest::addColumn<double>("expected");
        QTest::newRow("sqrt_dk, 4") << Scale::SqrtDk << 4 << 2.0;
        QTest::newRow("sqrt_dk, 2") << Scale::SqrtDk << 2 << std::sqrt(2.0);
        QTest::newRow("sqrt_dk, 64") << Scale::SqrtDk << 64 << 8.0;
        QTest::newRow("dk, 64") << Scale::Dk << 64 << 64.0;
        QTest::newRow("none, 64") << Scale::None << 64 << 1.0;
    }

    void scaleConstants()
    {
        QFETCH(Scale, scale);
        QFETCH(int, dk);
        QFETCH(double, expected);
        ATTN_COMPARE_NEAR(scaleConstant(scale, dk), expected, 1e-15);
    }

    // Seed 000's experiment prints max weight 0.9682 and entropy 0.0848 for
    // the score 3.79; the formula gives e^3.79 / (e^3.79 + 2) = 0.9568 and 0.2081.
    void seedExperimentSoftmax_data()
    {
        QTest::addColumn<double>("score");
        QTest::addColumn<double>("maxWeight");
        QTest::addColumn<double>("entropy");
        for (double x : {3.79, 30.31}) {
            // With p1 = e^x / (e^x + 2) and p2 = 1 / (e^x + 2):
            // H = -p1 ln p1 - 2 p2 ln p2 = p1 ln(1 + 2e^-x) + 2 p2 ln(e^x + 2).
            const double p1 = std::exp(x) / (std::exp(x) + 2), p2 = 1 / (std::exp(x) + 2);
            const double h = p1 * std::log1p(2 * std::exp(-x)) + 2 * p2 * (x + std::log1p(2 * std::exp(-x)));
            QTest::addRow("softmax([%g, 0, 0])", x) << x << p1 << h;
        }
    }

    void seedExperimentSoftmax()
    {
        QFETCH(double, score);
        QFETCH(double, maxWeight);
        QFETCH(double, entropy);
        RowStats stats;
        const Eigen::RowVectorXd w = softmaxRow({score, 0, 0}, {false, false, false}, MaskStage::BeforeSoftmax, &stats);
        ATTN_COMPARE_NEAR(w(0), maxWeight, 1e-15);
        ATTN_COMPARE_NEAR(w(1), (1 - maxWeight) / 2, 1e-15);
        ATTN_COMPARE_NEAR(stats.maxWeight, maxWeight, 1e-15);
        ATTN_COMPARE_NEAR(stats.entropy, entropy, 1e-14);
        QCOMPARE(stats.argmax, 0);
        if (score < 10) {
            // The hand values to ten digits, and the seed's printout is not them.
            ATTN_COMPARE_NEAR(stats.maxWeight, 0.9567627401, 1e-10);
            ATTN_COMPARE_NEAR(stats.entropy, 0.2080690537, 1e-10);
            QVERIFY(std::abs(stats.maxWeight - 0.9682) > 0.01);
            QVERIFY(std::abs(stats.entropy - 0.0848) > 0.1);
        } else {
            ATTN_COMPARE_NEAR(w(1), 6.863320084e-14, 1e-22);
            ATTN_COMPARE_NEAR(stats.entropy, 4.297768201e-12, 1e-20);
        }
    }

    // Softmax subtracts the row maximum: scores of any finite size give finite weights.
    void softmaxOfLargeScores()
    {
        const Eigen::RowVectorXd small = softmaxRow({0, 1, 2}, {false, false, false}, MaskStage::BeforeSoftmax);
        const double z = 1 + std::exp(1.0) + std::exp(2.0);
        ATTN_COMPARE_NEAR(small(0), 1 / z, 1e-15);
        ATTN_COMPARE_NEAR(small(2), std::exp(2.0) / z, 1e-15);
        for (double shift : {1000.0, -1000.0, 1e300, -1e300}) {
            const double step = std::abs(shift) > 1e10 ? 0.0 : 1.0; // 1e300 + 1 == 1e300
            const Eigen::RowVectorXd w =
                softmaxRow({shift, shift + step, shift + 2 * step}, {false, false, false}, MaskStage::BeforeSoftmax);
            ATTN_CHECK(w.allFinite(), QStringLiteral("shift %1: weights %2 %3 %4").arg(num(shift), num(w(0)), num(w(1)), num(w(2))));
            if (step == 1.0)
                ATTN_COMPARE_NEAR(w(2), std::exp(2.0) / z, 1e-15);
            else
                ATTN_COMPARE_NEAR(w(0), 1.0 / 3, 1e-15);
        }
        // Scores far apart: one-hot, still finite.
        const Eigen::RowVectorXd hot = softmaxRow({-1e300, 1e300, 0}, {false, false, false}, MaskStage::BeforeSoftmax);
        QCOMPARE(hot(1), 1.0);
        QCOMPARE(hot(0), 0.0);
    }

    // Blocked entries: -inf before the softmax (renormalised over the open
    // ones); zeroed after it (not renormalised).
    void maskStagesByHand()
    {
        const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0);
        RowStats before, after;
        const Eigen::RowVectorXd b = softmaxRow({1, 2, 3}, {false, true, false}, MaskStage::BeforeSoftmax, &before);
        ATTN_COMPARE_NEAR(b(0), e1 / (e1 + e3), 1e-15);
        QCOMPARE(b(1), 0.0);
        ATTN_COMPARE_NEAR(b(2), e3 / (e1 + e3), 1e-15);
        ATTN_COMPARE_NEAR(before.sum, 1.0, 1e-15);
        const double pb0 = e1 / (e1 + e3), pb2 = e3 / (e1 + e3);
        ATTN_COMPARE_NEAR(before.entropy, -(pb0 * std::log(pb0) + pb2 * std::log(pb2)), 1e-15);

        const Eigen::RowVectorXd a = softmaxRow({1, 2, 3}, {false, true, false}, MaskStage::AfterSoftmax, &after);
        const double z = e1 + e2 + e3;
        ATTN_COMPARE_NEAR(a(0), e1 / z, 1e-15);
        QCOMPARE(a(1), 0.0);
        ATTN_COMPARE_NEAR(a(2), e3 / z, 1e-15);
        ATTN_COMPARE_NEAR(after.sum, (e1 + e3) / z, 1e-15);
        QVERIFY2(after.sum < 1, qPrintable(num(after.sum)));
        ATTN_COMPARE_NEAR(after.entropy, -(e1 / z * std::log(e1 / z) + e3 / z * std::log(e3 / z)), 1e-15);
        ATTN_COMPARE_NEAR(after.maxWeight, e3 / z, 1e-15);
        QCOMPARE(after.argmax, 2);
    }

    // A row with no open key: zeros, the flag, never NaN; at both stages.
    void fullyMaskedRow_data()
    {
        QTest::addColumn<MaskStage>("stage");
        QTest::newRow("before_softmax") << MaskStage::BeforeSoftmax;
        QTest::newRow("after_softmax") << MaskStage::AfterSoftmax;
    }

    void fullyMaskedRow()
    {
        QFETCH(MaskStage, stage);
        const Matrix scaled{{1, 2, 3}, {0.5, -1, 4}};
        BoolMatrix blocked(2, 3);
        blocked << true, true, true, false, true, false;
        std::vector<RowStats> rows;
        const Matrix w = maskedSoftmax(scaled, blocked, stage, &rows);
        for (int j = 0; j < 3; ++j)
            QCOMPARE(w(0, j), 0.0);
        QVERIFY(rows[0].fullyMasked);
        QCOMPARE(rows[0].sum, 0.0);
        QCOMPARE(rows[0].entropy, 0.0);
        QCOMPARE(rows[0].maxWeight, 0.0);
        QCOMPARE(rows[0].argmax, -1);
        QVERIFY(!rows[1].fullyMasked);
        QCOMPARE(rows[1].argmax, 2);

        // Through compute(): the output row is zero too.
        Scenario s;
        s.Q = Matrix{{1, 0}, {0, 1}};
        s.K = Matrix{{1, 0}, {0, 1}, {1, 1}};
        s.V = Matrix{{1, 2}, {3, 4}, {5, 6}};
        s.mask.blocked = blocked;
        s.maskStage = stage;
        const Trace t = compute(s);
        ATTN_COMPARE_NEAR(t.output.row(0).cwiseAbs().maxCoeff(), 0.0, 0);
        QVERIFY(t.heads[0].rows[0].fullyMasked);
        ATTN_VERIFY_NO_MISMATCH(firstNonFinite(t), QStringLiteral("trace"));

        // Padding every key blocks every row.
        s.mask.blocked = BoolMatrix();
        s.mask.keyPadding = BoolVector::Constant(3, true);
        const Trace all = compute(s);
        QCOMPARE(all.heads[0].weights.cwiseAbs().maxCoeff(), 0.0);
        QCOMPARE(all.output.cwiseAbs().maxCoeff(), 0.0);
        QVERIFY(all.heads[0].rows[0].fullyMasked && all.heads[0].rows[1].fullyMasked);
    }

    // blocked(i, j) = (causal and j > i) or key_padding[j] or blocked[i][j].
    void blockedIsTheUnion()
    {
        Scenario s;
        s.Q = s.K = s.V = Matrix::Identity(4, 4);
        s.mask.causal = true;
        s.mask.keyPadding = BoolVector::Constant(4, false);
        s.mask.keyPadding(1) = true;
        s.mask.blocked = BoolMatrix::Constant(4, 4, false);
        s.mask.blocked(3, 0) = true;
        const BoolMatrix b = blockedMatrix(s);
        const bool expected[4][4] = {{false, true, true, true},
                                     {false, true, true, true},
                                     {false, true, false, true},
                                     {true, true, false, false}};
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j)
                ATTN_CHECK(b(i, j) == expected[i][j],
                           QStringLiteral("blocked(%1, %2) is %3").arg(i).arg(j).arg(bool(b(i, j))));
    }

    // ---- compute(): stages by hand ----

    void computeRefusesInvalid_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("place");
        QTest::newRow("heads do not divide") << 0 << "heads";
        QTest::newRow("temperature 0") << 1 << "temperature";
        QTest::newRow("causal, n_q != n_k") << 2 << "mask.causal";
        QTest::newRow("RoPE, odd d_k") << 3 << "positional_encoding";
        QTest::newRow("NaN entry") << 4 << "inputs.K[1][0]";
        QTest::newRow("K narrower than Q") << 5 << "inputs.K";
    }

    void computeRefusesInvalid()
    {
        QFETCH(int, kind);
        QFETCH(QString, place);
        Scenario s;
        s.Q = Matrix{{1, 0, 1}};
        s.K = Matrix{{1, 0, 0}, {0, 1, 0}};
        s.V = Matrix{{1, 2}, {3, 4}};
        switch (kind) {
        case 0: s.heads = 2; break;
        case 1: s.temperature = 0; break;
        case 2: s.mask.causal = true; break;
        case 3: s.encoding = Encoding::Rope; break;
        case 4: s.K(1, 0) = std::nan(""); break;
        case 5: s.K = Matrix{{1, 0}, {0, 1}}; break;
        }
        QVERIFY(validate(s).has_value());
        QCOMPARE(QString::fromStdString(validate(s)->place), place);
        try {
            compute(s);
            QFAIL("compute() did not throw");
        } catch (const ScenarioError &e) {
            QCOMPARE(QString::fromStdString(e.problem().place), place);
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(place + QStringLiteral(": ")), e.what());
        }
    }

    // c * tau and the per-head sizes.
    void computeDivisorAndSizes()
    {
        Scenario s;
        s.Q = Matrix{{1, 2, 3, 4, 5, 6, 7, 8}};
        s.K = Matrix{{1, 0, 0, 0, 1, 0, 0, 0}, {0, 1, 0, 0, 0, 1, 0, 0}};
        s.V = Matrix{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}};
        s.heads = 2;
        s.temperature = 0.5;
        const Trace t = compute(s);
        QCOMPARE(t.dk, 4);
        QCOMPARE(t.dv, 3);
        ATTN_COMPARE_NEAR(t.divisor, 2 * 0.5, 1e-15);
        QCOMPARE(t.heads.size(), std::size_t(2));
        // Head 2 takes columns 4..7 of Q and K and 3..5 of V.
        ATTN_COMPARE_NEAR(t.heads[1].scores(0, 0), 5.0, 0);
        ATTN_COMPARE_NEAR(t.heads[1].scores(0, 1), 6.0, 0);
        ATTN_COMPARE_NEAR(t.heads[1].scaled(0, 1), 6.0 / (2 * 0.5), 1e-15);
        ATTN_COMPARE_NEAR(t.heads[1].V(1, 0), 10.0, 0);
        const double w = std::exp(6.0) / (std::exp(5.0) + std::exp(6.0));
        ATTN_COMPARE_NEAR(t.heads[1].weights(0, 1), w, 1e-15);
        ATTN_COMPARE_NEAR(t.concat(0, 3), (1 - w) * 4 + w * 10, 1e-13);
        ATTN_COMPARE_MATRIX(t.output, t.concat, 0.0); // no Wo in direct mode

        s.scale = Scale::Dk;
        ATTN_COMPARE_NEAR(compute(s).divisor, 4 * 0.5, 1e-15);
        s.scale = Scale::None;
        ATTN_COMPARE_NEAR(compute(s).divisor, 0.5, 1e-15);
    }

    // Direct mode adds the table to Q, K and V, each by its own width.
    void directModeAddsEncodingToQKV_data()
    {
        QTest::addColumn<Encoding>("encoding");
        QTest::newRow("sinusoidal") << Encoding::Sinusoidal;
        QTest::newRow("learned") << Encoding::Learned;
    }

    void directModeAddsEncodingToQKV()
    {
        QFETCH(Encoding, encoding);
        Scenario s;
        s.Q = Matrix{{1, 2, 3, 4}, {5, 6, 7, 8}};
        s.K = Matrix{{0, 1, 0, 1}, {1, 0, 1, 0}, {2, 2, 2, 2}};
        s.V = Matrix{{1, 1, 1}, {2, 2, 2}, {3, 3, 3}};
        s.encoding = encoding;
        s.seed = 99;
        const Trace t = compute(s);
        const Matrix pq = encoding == Encoding::Sinusoidal ? sinusoidalTable(2, 4) : learnedTable(2, 4, 99);
        const Matrix pk = encoding == Encoding::Sinusoidal ? sinusoidalTable(3, 4) : learnedTable(3, 4, 99);
        const Matrix pv = encoding == Encoding::Sinusoidal ? sinusoidalTable(3, 3) : learnedTable(3, 3, 99);
        ATTN_COMPARE_MATRIX(t.heads[0].Q, Matrix(s.Q + pq), 1e-15);
        ATTN_COMPARE_MATRIX(t.heads[0].K, Matrix(s.K + pk), 1e-15);
        ATTN_COMPARE_MATRIX(t.heads[0].V, Matrix(s.V + pv), 1e-15);
        ATTN_COMPARE_MATRIX(t.positionValue, pv, 0.0);
        if (encoding == Encoding::Sinusoidal) {
            // Position 0 adds (0, 1, 0, 1); position 1 adds (sin 1, cos 1, sin 0.01, cos 0.01).
            ATTN_COMPARE_NEAR(t.heads[0].Q(0, 1), 2 + 1.0, 1e-15);
            ATTN_COMPARE_NEAR(t.heads[0].Q(1, 2), 7 + std::sin(0.01), 1e-15);
        }
    }

    // Projected mode adds the table to X and to the source, then projects.
    void projectedModeAddsEncodingToEmbeddings()
    {
        Scenario s;
        s.mode = InputMode::Projected;
        s.X = Matrix{{1, 0, 0}, {0, 1, 0}};
        s.source = Matrix{{0.5, 0.5, 0}, {0, 0, 1}, {1, 1, 1}};
        s.Wq = Matrix{{1, 0}, {0, 1}, {1, 1}};
        s.Wk = Matrix{{2, 0}, {0, 2}, {0, 0}};
        s.Wv = Matrix{{1}, {2}, {3}};
        s.Wo = Matrix{{2, -1}};
        s.encoding = Encoding::Sinusoidal;
        const Trace t = compute(s);
        const Matrix ex = s.X + sinusoidalTable(2, 3), es = *s.source + sinusoidalTable(3, 3);
        ATTN_COMPARE_MATRIX(t.encodedX, ex, 1e-15);
        ATTN_COMPARE_MATRIX(t.encodedSource, es, 1e-15);
        ATTN_COMPARE_MATRIX(t.heads[0].Q, Matrix(ex * s.Wq), 1e-14);
        ATTN_COMPARE_MATRIX(t.heads[0].K, Matrix(es * s.Wk), 1e-14);
        ATTN_COMPARE_MATRIX(t.heads[0].V, Matrix(es * s.Wv), 1e-14);
        ATTN_COMPARE_MATRIX(t.output, Matrix(t.concat * *s.Wo), 1e-14);
        QCOMPARE(t.output.cols(), Eigen::Index(2));
        // Row 1 of X becomes (sin 1, 1 + cos 1, sin(1/10000^(2/3))).
        ATTN_COMPARE_NEAR(t.encodedX(1, 1), 1 + std::cos(1.0), 1e-15);
        ATTN_COMPARE_NEAR(t.encodedX(1, 2), std::sin(1 / std::pow(10000.0, 2.0 / 3)), 1e-15);
    }

    // RoPE rotates each head's q and k after the split, by the head's d_k.
    void ropeInCompute()
    {
        Scenario s;
        s.Q = Matrix{{1, 2, 3, 4}, {1, 2, 3, 4}, {0.5, -1, 2, 0}};
        s.K = Matrix{{1, 0, 0, 1}, {0, 1, 1, 0}, {1, 1, 1, 1}};
        s.V = Matrix{{1, 2}, {3, 4}, {5, 6}};
        s.heads = 2;
        s.encoding = Encoding::Rope;
        const Trace t = compute(s);
        ATTN_COMPARE_MATRIX(t.positionQuery, ropeAngles(3, 2), 0.0);
        ATTN_COMPARE_MATRIX(t.heads[0].Q, applyRope(s.Q.leftCols(2), ropeAngles(3, 2)), 1e-15);
        ATTN_COMPARE_MATRIX(t.heads[1].K, applyRope(s.K.rightCols(2), ropeAngles(3, 2)), 1e-15);
        // d_k = 2: row 1 of head 1 turns (1, 2) by 1 rad; row 0 stays.
        ATTN_COMPARE_NEAR(t.heads[0].Q(1, 0), std::cos(1.0) - 2 * std::sin(1.0), 1e-15);
        QCOMPARE(t.heads[0].Q(0, 1), 2.0);
        ATTN_COMPARE_MATRIX(t.heads[0].V, s.V.leftCols(1), 0.0); // values are not rotated
    }

    // toDirect keeps the weights and the per-head outputs.
    void toDirectKeepsTheAttention()
    {
        for (std::uint64_t seed = 1; seed <= 100; ++seed) {
            Scenario s = test::randomScenario(seed);
            if (s.mode != InputMode::Projected)
                continue;
            const Scenario d = toDirect(s);
            QVERIFY(d.mode == InputMode::Direct);
            const Trace a = compute(s), b = compute(d);
            for (std::size_t h = 0; h < a.heads.size(); ++h) {
                ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(b.heads[h].weights, a.heads[h].weights, 1e-12, 1e-12),
                                        QStringLiteral("seed %1 head %2 weights").arg(seed).arg(h));
                ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(b.heads[h].output, a.heads[h].output, 1e-12, 1e-12),
                                        QStringLiteral("seed %1 head %2 output").arg(seed).arg(h));
            }
        }
    }

    // ---- properties over random scenarios ----

    // The invariants of every trace: weights in [0, 1], blocked entries exactly
    // 0, open rows summing to 1, row stats that agree with the weights, and
    // nothing but finite numbers.
    void weightInvariants()
    {
        int fullyMaskedRows = 0, openRows = 0;
        for (std::uint64_t seed = 1; seed <= 400; ++seed) {
            const Scenario s = test::randomScenario(seed);
            const Trace t = compute(s);
            const QString at = QStringLiteral("seed %1").arg(seed);
            ATTN_VERIFY_NO_MISMATCH(firstNonFinite(t), at);
            const bool before = s.maskStage == MaskStage::BeforeSoftmax;
            for (std::size_t h = 0; h < t.heads.size(); ++h) {
                const Matrix &w = t.heads[h].weights;
                QCOMPARE(w.rows(), Eigen::Index(queryCount(s)));
                QCOMPARE(w.cols(), Eigen::Index(keyCount(s)));
                ATTN_CHECK(w.minCoeff() >= 0 && w.maxCoeff() <= 1,
                           at + QStringLiteral(": weights in [%1, %2]").arg(num(w.minCoeff()), num(w.maxCoeff())));
                for (Eigen::Index i = 0; i < w.rows(); ++i) {
                    const RowStats &r = t.heads[h].rows[std::size_t(i)];
                    const QString row = at + QStringLiteral(" head %1 row %2").arg(h).arg(i);
                    for (Eigen::Index j = 0; j < w.cols(); ++j)
                        if (t.blocked(i, j))
                            ATTN_CHECK(w(i, j) == 0.0, row + QStringLiteral(": blocked weight %1 is %2").arg(j).arg(num(w(i, j))));
                    const bool anyBlocked = t.blocked.row(i).any();
                    const bool allBlocked = t.blocked.row(i).all();
                    ATTN_CHECK(r.fullyMasked == allBlocked, row + QStringLiteral(": fully_masked flag"));
                    if (allBlocked) {
                        ++fullyMaskedRows;
                        ATTN_CHECK(w.row(i).cwiseAbs().maxCoeff() == 0.0, row + QStringLiteral(": fully masked, weights not 0"));
                        ATTN_CHECK(t.heads[h].output.row(i).cwiseAbs().maxCoeff() == 0.0,
                                   row + QStringLiteral(": fully masked, output not 0"));
                        ATTN_CHECK(r.argmax == -1 && r.sum == 0 && r.entropy == 0, row + QStringLiteral(": fully masked stats"));
                        continue;
                    }
                    if (before || !anyBlocked) {
                        ++openRows;
                        ATTN_CHECK(std::abs(w.row(i).sum() - 1) <= 1e-12, row + QStringLiteral(": sums to %1").arg(num(w.row(i).sum())));
                    }
                    ATTN_CHECK(std::abs(r.sum - w.row(i).sum()) <= 1e-12,
                               row + QStringLiteral(": stats sum %1, weights sum %2").arg(num(r.sum), num(w.row(i).sum())));
                    ATTN_CHECK(r.argmax >= 0 && r.argmax < w.cols() && w(i, r.argmax) == w.row(i).maxCoeff()
                                   && r.maxWeight == w.row(i).maxCoeff(),
                               row + QStringLiteral(": argmax %1, max %2").arg(r.argmax).arg(num(r.maxWeight)));
                    ATTN_CHECK(r.entropy >= 0 && r.entropy <= std::log(double(w.cols())) + 1e-12,
                               row + QStringLiteral(": entropy %1").arg(num(r.entropy)));
                }
            }
        }
        QVERIFY2(fullyMaskedRows > 20 && openRows > 1000,
                 qPrintable(QStringLiteral("%1 fully masked, %2 open rows").arg(fullyMaskedRows).arg(openRows)));
    }

    // after_softmax: the row keeps the full softmax's open weights, so it
    // sums to 1 minus what the blocked keys had, below 1 when they had any.
    void afterSoftmaxRowsSumBelowOne()
    {
        int below = 0;
        for (std::uint64_t seed = 1; seed <= 400; ++seed) {
            Scenario s = test::randomScenario(seed);
            s.maskStage = MaskStage::AfterSoftmax;
            // Every scenario gets at least one blocked key.
            if (!s.mask.keyPadding.size())
                s.mask.keyPadding = BoolVector::Constant(keyCount(s), false);
            s.mask.keyPadding(keyCount(s) - 1) = true;
            const Trace t = compute(s);
            for (std::size_t h = 0; h < t.heads.size(); ++h) {
                const HeadTrace &head = t.heads[h];
                for (Eigen::Index i = 0; i < head.weights.rows(); ++i) {
                    if (!t.blocked.row(i).any())
                        continue;
                    const Eigen::RowVectorXd x = head.scaled.row(i);
                    const Eigen::RowVectorXd p = (x.array() - x.maxCoeff()).exp().matrix() / (x.array() - x.maxCoeff()).exp().sum();
                    double blockedMass = 0;
                    for (Eigen::Index j = 0; j < p.size(); ++j)
                        blockedMass += t.blocked(i, j) ? p(j) : 0.0;
                    const double sum = head.weights.row(i).sum();
                    const QString row = QStringLiteral("seed %1 head %2 row %3").arg(seed).arg(h).arg(i);
                    ATTN_CHECK(std::abs(sum - (1 - blockedMass)) <= 1e-12,
                               row + QStringLiteral(": sum %1, 1 - blocked mass %2").arg(num(sum), num(1 - blockedMass)));
                    if (blockedMass > 1e-9) {
                        ATTN_CHECK(sum < 1, row + QStringLiteral(": sum %1 with blocked mass %2").arg(num(sum), num(blockedMass)));
                        ++below;
                    }
                }
            }
        }
        QVERIFY2(below > 500, qPrintable(QString::number(below)));
    }

    // Without a positional encoding attention cannot see order: reordering
    // the tokens only reorders the weight rows and columns and the outputs.
    void permutationEquivariance()
    {
        test::RandomOptions o;
        o.crossAttention = false;
        o.encodings = false;
        int nontrivial = 0;
        for (std::uint64_t seed = 1; seed <= 300; ++seed) {
            const Scenario s = test::randomScenario(seed, o);
            test::TestRng rng(seed ^ 0xabcdefULL);
            const std::vector<int> perm = randomPermutation(rng, queryCount(s));
            const Trace a = compute(s), b = compute(permuted(s, perm));
            const QString at = QStringLiteral("seed %1").arg(seed);
            for (std::size_t h = 0; h < a.heads.size(); ++h) {
                const double dw = permutedDifference(b.heads[h].weights, a.heads[h].weights, perm, true);
                const double dout = permutedDifference(b.heads[h].output, a.heads[h].output, perm, false);
                ATTN_CHECK(dw <= 1e-12, at + QStringLiteral(" head %1: weights differ by %2").arg(h).arg(num(dw)));
                ATTN_CHECK(dout <= 1e-12, at + QStringLiteral(" head %1: output differs by %2").arg(h).arg(num(dout)));
                for (std::size_t i = 0; i < perm.size(); ++i)
                    ATTN_CHECK(b.heads[h].rows[i].fullyMasked == a.heads[h].rows[std::size_t(perm[i])].fullyMasked,
                               at + QStringLiteral(": fully_masked of row %1").arg(i));
            }
            const double dout = permutedDifference(b.output, a.output, perm, false);
            ATTN_CHECK(dout <= 1e-12, at + QStringLiteral(": output differs by %1").arg(num(dout)));
            nontrivial += perm.size() > 2 ? 1 : 0;
        }
        QVERIFY(nontrivial > 150);
    }

    // The permutation lesson: 我 打 你 reversed is 你 打 我. Without an encoding
    // the weights only move; with one, 我 gets different weights in the two orders.
    void positionalEncodingBreaksEquivariance_data()
    {
        QTest::addColumn<Encoding>("encoding");
        QTest::addColumn<bool>("equivariant");
        QTest::newRow("none") << Encoding::None << true;
        QTest::newRow("sinusoidal") << Encoding::Sinusoidal << false;
        QTest::newRow("learned") << Encoding::Learned << false;
        QTest::newRow("rope") << Encoding::Rope << false;
    }

    void positionalEncodingBreaksEquivariance()
    {
        QFETCH(Encoding, encoding);
        QFETCH(bool, equivariant);
        const std::vector<int> reversed{2, 1, 0};
        Scenario s = wordOrderLesson();
        s.encoding = encoding;
        const Trace a = compute(s), b = compute(permuted(s, reversed));
        const double dw = permutedDifference(b.heads[0].weights, a.heads[0].weights, reversed, true);
        const double dout = permutedDifference(b.output, a.output, reversed, false);
        if (equivariant) {
            ATTN_COMPARE_NEAR(dw, 0.0, 1e-15);
            ATTN_COMPARE_NEAR(dout, 0.0, 1e-15);
        } else {
            QVERIFY2(dw > 0.1, qPrintable(QStringLiteral("weights differ by only %1").arg(num(dw))));
            QVERIFY2(dout > 0.1, qPrintable(QStringLiteral("outputs differ by only %1").arg(num(dout))));
        }

        // A larger direct example: six tokens, two heads of d_k = 4.
        test::TestRng rng(2024);
        Scenario d;
        d.heads = 2;
        d.Q = test::randomMatrix(rng, 6, 8, 1.0);
        d.K = test::randomMatrix(rng, 6, 8, 1.0);
        d.V = test::randomMatrix(rng, 6, 4, 1.0);
        d.encoding = encoding;
        const std::vector<int> perm{3, 0, 5, 1, 4, 2};
        const Trace c = compute(d), e = compute(permuted(d, perm));
        const double diff = permutedDifference(e.output, c.output, perm, false);
        if (equivariant)
            ATTN_COMPARE_NEAR(diff, 0.0, 1e-14);
        else
            QVERIFY2(diff > 0.1, qPrintable(QStringLiteral("outputs differ by only %1").arg(num(diff))));
    }

    // With one head, compute() is softmax(Q Kᵀ / √d_k) V (then W_o), written here with Eigen directly.
    void singleHeadFormula()
    {
        test::RandomOptions o;
        o.masks = false;
        o.encodings = false;
        for (std::uint64_t seed = 1; seed <= 300; ++seed) {
            Scenario s = test::randomScenario(seed, o);
            s.heads = 1;
            s.similarity = Similarity::Dot;
            s.scale = Scale::SqrtDk;
            s.temperature = 1;
            const bool projected = s.mode == InputMode::Projected;
            const Matrix &S = projected && s.source ? *s.source : s.X;
            const Matrix Q = projected ? Matrix(s.X * s.Wq) : s.Q;
            const Matrix K = projected ? Matrix(S * s.Wk) : s.K;
            const Matrix V = projected ? Matrix(S * s.Wv) : s.V;
            const Matrix scores = Q * K.transpose() / std::sqrt(double(Q.cols()));
            Matrix W(scores.rows(), scores.cols());
            for (Eigen::Index i = 0; i < scores.rows(); ++i) {
                const Eigen::RowVectorXd e = (scores.row(i).array() - scores.row(i).maxCoeff()).exp().matrix();
                W.row(i) = e / e.sum();
            }
            Matrix out = W * V;
            if (projected && s.Wo)
                out = out * *s.Wo;
            const Trace t = compute(s);
            ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(t.heads[0].weights, W, 1e-12, 1e-12),
                                    QStringLiteral("seed %1 weights").arg(seed));
            ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(t.output, out, 1e-12, 1e-12),
                                    QStringLiteral("seed %1 output").arg(seed));
        }
    }

    // Each head is the single-head computation on its own columns.
    void headsAreIndependentSingleHeads()
    {
        for (std::uint64_t seed = 1; seed <= 200; ++seed) {
            const Scenario s = test::randomScenario(seed);
            if (s.heads == 1)
                continue;
            const Trace t = compute(s);
            const Scenario direct = toDirect(s);
            for (int h = 0; h < s.heads; ++h) {
                Scenario one = direct;
                one.heads = 1;
                one.Q = t.heads[std::size_t(h)].Q;
                one.K = t.heads[std::size_t(h)].K;
                one.V = t.heads[std::size_t(h)].V;
                one.encoding = Encoding::None; // Q and K are already encoded
                one.scale = Scale::None;
                one.temperature = t.divisor;
                const Trace single = compute(one);
                ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(single.heads[0].weights, t.heads[std::size_t(h)].weights, 1e-12, 1e-12),
                                        QStringLiteral("seed %1 head %2").arg(seed).arg(h));
                ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(single.output, t.concat.middleCols(h * t.dv, t.dv), 1e-12, 1e-12),
                                        QStringLiteral("seed %1 head %2 output").arg(seed).arg(h));
            }
        }
    }

    void causalZerosAboveDiagonal()
    {
        for (std::uint64_t seed = 1; seed <= 300; ++seed) {
            test::RandomOptions o;
            o.crossAttention = false;
            Scenario s = test::randomScenario(seed, o);
            s.mask.causal = true;
            const Trace t = compute(s);
            for (std::size_t h = 0; h < t.heads.size(); ++h) {
                const Matrix &w = t.heads[h].weights;
                for (Eigen::Index i = 0; i < w.rows(); ++i)
                    for (Eigen::Index j = i + 1; j < w.cols(); ++j)
                        ATTN_CHECK(w(i, j) == 0.0, QStringLiteral("seed %1 head %2: weight (%3, %4) is %5")
                                                       .arg(seed).arg(h).arg(i).arg(j).arg(num(w(i, j))));
                // Before the softmax, the first token sees only itself (unless its own key is blocked too).
                if (s.maskStage == MaskStage::BeforeSoftmax && !t.blocked(0, 0))
                    ATTN_CHECK(w(0, 0) == 1.0, QStringLiteral("seed %1: w(0,0) = %2").arg(seed).arg(num(w(0, 0))));
            }
        }
    }

    // Inputs of magnitude 1e6 (and up to the 1e12 limit): everything finite, rows still sum to 1.
    void hugeInputsStayFinite_data()
    {
        QTest::addColumn<double>("magnitude");
        QTest::newRow("1e6") << 1e6;
        QTest::newRow("1e12") << 1e12;
    }

    void hugeInputsStayFinite()
    {
        QFETCH(double, magnitude);
        test::RandomOptions o;
        o.magnitude = magnitude;
        for (std::uint64_t seed = 1; seed <= 300; ++seed) {
            const Scenario s = test::randomScenario(seed, o);
            const Trace t = compute(s);
            ATTN_VERIFY_NO_MISMATCH(firstNonFinite(t), QStringLiteral("seed %1").arg(seed));
            for (std::size_t h = 0; h < t.heads.size(); ++h)
                for (Eigen::Index i = 0; i < t.heads[h].weights.rows(); ++i) {
                    const double sum = t.heads[h].weights.row(i).sum();
                    if (!t.blocked.row(i).all() && (s.maskStage == MaskStage::BeforeSoftmax || !t.blocked.row(i).any()))
                        ATTN_CHECK(std::abs(sum - 1) <= 1e-12,
                                   QStringLiteral("seed %1 head %2 row %3 sums to %4").arg(seed).arg(h).arg(i).arg(num(sum)));
                }
        }
    }

    // The hand-calculation text: a block per head and query row, and no nan or inf even for huge inputs.
    void traceTextIsFinite()
    {
        const QRegularExpression nonFinite(QStringLiteral("(^|[^a-z])-?(nan|inf)([^a-z]|$)"),
                                           QRegularExpression::CaseInsensitiveOption);
        for (double magnitude : {1.0, 1e12})
            for (std::uint64_t seed = 1; seed <= 150; ++seed) {
                test::RandomOptions o;
                o.magnitude = magnitude;
                const Scenario s = test::randomScenario(seed, o);
                const QString text = QString::fromStdString(traceText(s, compute(s)));
                const QRegularExpressionMatch m = nonFinite.match(text);
                ATTN_CHECK(!m.hasMatch(), QStringLiteral("seed %1, magnitude %2: \"%3\" in\n%4")
                                              .arg(seed).arg(magnitude).arg(m.captured(0), text.left(3000)));
                QCOMPARE(text.count(QStringLiteral("\n  query ")), s.heads * queryCount(s));
                QCOMPARE(text.count(QStringLiteral("\nHead ")), s.heads);
            }
    }

    // Numbers as the screen writes them: four decimals for results; inputs keep
    // their significant digits, so a tiny τ never reads as 0 and a huge one is
    // not a wall of digits.
    void numberText_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("fixed");
        QTest::addColumn<QString>("compactText");
        QTest::newRow("sqrt 8") << std::sqrt(8.0) << "2.8284" << "2.8284";
        QTest::newRow("integer") << 2.0 << "2.0000" << "2";
        QTest::newRow("half") << -0.5 << "-0.5000" << "-0.5";
        QTest::newRow("negative zero") << -0.0 << "0.0000" << "0";
        QTest::newRow("rounding noise") << -1e-17 << "0.0000" << "-1e-17";
        QTest::newRow("tiny tau") << 1e-6 << "0.0000" << "1e-06";
        QTest::newRow("just above 5e-5") << 0.0001 << "0.0001" << "0.0001";
        QTest::newRow("huge") << 8e33 << "8.0000e+33" << "8e+33";
        QTest::newRow("a million") << 1e6 << "1000000.0000" << "1000000";
    }
    void numberText()
    {
        QFETCH(double, value);
        QFETCH(QString, fixed);
        QFETCH(QString, compactText);
        QCOMPARE(QString::fromStdString(fixed4(value)), fixed);
        QCOMPARE(QString::fromStdString(compact(value)), compactText);
    }

    // ---- the scaling experiment ----

    void experimentDeterministic()
    {
        const ScalingExperiment a = runScalingExperiment(64, 7, 5000).value(), b = runScalingExperiment(64, 7, 5000).value();
        QCOMPARE(a.raw.mean, b.raw.mean);
        QCOMPARE(a.raw.variance, b.raw.variance);
        QCOMPARE(a.raw.meanMaxWeight, b.raw.meanMaxWeight);
        QCOMPARE(a.scaled.meanEntropy, b.scaled.meanEntropy);
        QCOMPARE(a.scaled.saturatedFraction, b.scaled.saturatedFraction);
        QCOMPARE(a.dk, 64);
        QCOMPARE(a.seed, std::uint64_t(7));
        QCOMPARE(a.trials, 5000);
        const ScalingExperiment c = runScalingExperiment(64, 8, 5000).value();
        QVERIFY(c.raw.mean != a.raw.mean && c.raw.variance != a.raw.variance);
    }

    // The summary is exactly that of the documented draws: q then k from attn::Rng(seed).
    void experimentSummarisesItsDraws()
    {
        const int dk = 16, trials = 2000;
        Rng rng(11);
        std::vector<double> raw;
        for (int t = 0; t < trials; ++t) {
            std::vector<double> q(dk), k(dk);
            for (double &v : q)
                v = rng.normal();
            for (double &v : k)
                v = rng.normal();
            raw.push_back(std::inner_product(q.begin(), q.end(), k.begin(), 0.0));
        }
        const ScalingExperiment e = runScalingExperiment(dk, 11, trials).value();
        for (bool scaled : {false, true}) {
            const ScoreSummary &got = scaled ? e.scaled : e.raw;
            double mean = 0, maxW = 0, entropy = 0, saturated = 0;
            for (double r : raw)
                mean += (scaled ? r / 4 : r) / trials;
            double var = 0;
            for (double r : raw) {
                const double x = scaled ? r / 4 : r;
                var += (x - mean) * (x - mean) / (trials - 1);
                const double z = std::exp(x) + 2, p1 = std::exp(x) / z, p2 = 1 / z;
                const double top = std::max(p1, p2);
                maxW += top / trials;
                entropy += -(p1 * std::log(p1) + 2 * p2 * std::log(p2)) / trials;
                saturated += (top > 0.99 ? 1.0 : 0.0) / trials;
            }
            ATTN_COMPARE_NEAR(got.mean, mean, 1e-12);
            ATTN_COMPARE_NEAR(got.variance, var, 1e-10 * var);
            ATTN_COMPARE_NEAR(got.meanMaxWeight, maxW, 1e-12);
            ATTN_COMPARE_NEAR(got.meanEntropy, entropy, 1e-10);
            ATTN_COMPARE_NEAR(got.saturatedFraction, saturated, 1e-12);
        }
    }

    // Var(q·k) = d_k and Var(q·k/√d_k) = 1. With T trials the sample
    // variance's relative error has standard deviation √((2 + 6/d_k)/T),
    // under 1% here; 5% is more than five of those.
    void experimentVariance_data()
    {
        QTest::addColumn<int>("dk");
        QTest::newRow("d_k 4") << 4;
        QTest::newRow("d_k 64") << 64;
        QTest::newRow("d_k 512") << 512;
    }

    void experimentVariance()
    {
        QFETCH(int, dk);
        const int trials = 40000;
        const ScalingExperiment e = runScalingExperiment(dk, 7, trials).value();
        ATTN_COMPARE_NEAR(e.raw.variance / dk, 1.0, 0.05);
        ATTN_COMPARE_NEAR(e.scaled.variance, 1.0, 0.05);
        ATTN_COMPARE_NEAR(e.raw.mean, 0.0, 6 * std::sqrt(double(dk) / trials));
        ATTN_COMPARE_NEAR(e.scaled.mean, e.raw.mean / std::sqrt(double(dk)), 1e-12);
        ATTN_COMPARE_NEAR(e.scaled.variance, e.raw.variance / dk, 1e-12 * e.raw.variance);
        for (const ScoreSummary *s : {&e.raw, &e.scaled}) {
            QVERIFY2(s->meanMaxWeight >= 1.0 / 3 && s->meanMaxWeight <= 1, qPrintable(num(s->meanMaxWeight)));
            QVERIFY2(s->meanEntropy >= 0 && s->meanEntropy <= std::log(3.0), qPrintable(num(s->meanEntropy)));
        }
    }

    // Unscaled scores saturate the softmax; scaled ones keep it soft.
    void experimentRawSaturates()
    {
        const ScalingExperiment e = runScalingExperiment(64, 7, 20000).value();
        QVERIFY2(e.raw.meanMaxWeight >= e.scaled.meanMaxWeight,
                 qPrintable(QStringLiteral("raw %1, scaled %2").arg(num(e.raw.meanMaxWeight), num(e.scaled.meanMaxWeight))));
        QVERIFY2(e.raw.meanEntropy < e.scaled.meanEntropy,
                 qPrintable(QStringLiteral("raw %1, scaled %2").arg(num(e.raw.meanEntropy), num(e.scaled.meanEntropy))));
        // max weight > 0.99 needs score > ln(2·0.99/0.01) ≈ 5.3; raw (sd 8) often, scaled (sd 1) almost never.
        QVERIFY2(e.raw.saturatedFraction > 0.2, qPrintable(num(e.raw.saturatedFraction)));
        QVERIFY2(e.scaled.saturatedFraction < 0.01, qPrintable(num(e.scaled.saturatedFraction)));
    }
};

QTEST_GUILESS_MAIN(TestCore)
#include "test_core.moc"
