// The softmax's builds (softmax_block.h): the baseline (SSE2), AVX2 and,
// where the processor has it, AVX-512 must give the same bits on every
// block: scores, scaled, weights, outputs and row statistics, for every
// variant of the passes (fused scores of each d_k, scaled given or formed by
// a copy, a division or an exact multiplication, stored or not, no mask, a
// mask before or after the softmax, fully masked rows, softmax_1, fused
// outputs of each d_v and the wider product, with and without statistics)
// and row counts that leave every count of rows from 1 to 7 past the last
// lane of four or eight. Scores include entries far outside exp's range
// (|x| > 708), where every build takes the slow lane. And a block too big
// for the cache, worked through in bands of rows (kBandDoubles), gives the
// bits of the same rows computed in pieces too small to be banded, however
// its weights are aligned. The projections' product (multiplyBlock) gives
// the same bits in every build, as a plain loop in its order, for a row
// alone as in the whole, and, at the lab's n = 1024, as Eigen's product.

#include "attn_test.h"
#include "softmax_block.h"

#include <QObject>
#include <QTest>

#include <cstring>
#include <random>
#include <utility>
#include <vector>

using namespace attn;
using namespace attn::detail;

namespace {

struct Inputs {
    Eigen::Index m = 0, n = 0;
    Matrix queries, keys, scores, values; // m x dk, n x dk, m x n, n x dv
    BoolMatrix blocked;                   // m x n
};

struct Outputs {
    Matrix scores, scaled, weights, output;
    std::vector<RowStats> rows;
};

Outputs run(void (*kernel)(const SoftmaxBlock &), const Inputs &in, int dk, int dv, bool masked, MaskStage stage,
            bool plusOne, Scaling scaling, double divisor, bool storeScaled, bool stats)
{
    Outputs o;
    o.scores = dk > 0 ? Matrix::Constant(in.m, in.n, -7.0) : in.scores;
    o.scaled = Matrix::Constant(in.m, in.n, -7.0);
    o.weights = Matrix::Constant(in.m, in.n, -7.0);
    o.output = Matrix::Constant(in.m, std::max(dv, 1), -7.0);
    o.rows.assign(std::size_t(in.m), RowStats{});
    SoftmaxBlock b;
    b.m = in.m;
    b.cols = in.n;
    b.in = o.scores.data();
    b.ldIn = in.m;
    b.scaling = scaling;
    b.divisor = divisor;
    b.inverse = 1.0 / divisor;
    b.scaled = storeScaled && scaling != Scaling::None ? o.scaled.data() : nullptr;
    b.ldScaled = in.m;
    b.blocked = masked ? in.blocked.data() : nullptr;
    b.ldBlocked = in.m;
    b.stage = stage;
    b.plusOne = plusOne;
    b.weights = o.weights.data();
    b.ldWeights = in.m;
    b.rows = stats ? o.rows.data() : nullptr;
    if (dv > 0) {
        b.values = in.values.data();
        b.ldValues = in.n;
        b.valueWidth = dv;
        b.output = o.output.data();
        b.ldOutput = in.m;
    }
    if (dk > 0) {
        b.queries = in.queries.data();
        b.ldQueries = in.m;
        b.keys = in.keys.data();
        b.ldKeys = in.n;
        b.keyWidth = dk;
        b.scoresOut = o.scores.data();
    }
    kernel(b);
    return o;
}

// The block of `in` with scaled derived (divided, multiplied by an exact
// inverse or copied, not stored) and the output fused, as the window runs
// it, computed whole or in pieces of `piece` rows;
// the weights at `offset` doubles into their buffer, so that every alignment
// of their columns is met.
Outputs runDerived(void (*kernel)(const SoftmaxBlock &), const Inputs &in, int dk, int dv, bool masked,
                   MaskStage stage, bool plusOne, bool stats, Scaling scaling, Eigen::Index piece, int offset,
                   std::vector<double> &weightsBuffer)
{
    Outputs o;
    o.scores = dk > 0 ? Matrix::Constant(in.m, in.n, -7.0) : in.scores;
    o.output = Matrix::Constant(in.m, dv, -7.0);
    o.rows.assign(std::size_t(in.m), RowStats{});
    weightsBuffer.assign(std::size_t(in.m * in.n + 8), -7.0);
    double *weights = weightsBuffer.data() + offset;
    const double divisor = scaling == Scaling::Copy       ? 1.0
                           : scaling == Scaling::Multiply ? 4.0
                                                          : std::sqrt(double(dk > 0 ? dk : 8));
    for (Eigen::Index r0 = 0; r0 < in.m; r0 += piece) {
        SoftmaxBlock b;
        b.m = std::min(piece, in.m - r0);
        b.cols = in.n;
        b.in = o.scores.data() + r0;
        b.ldIn = in.m;
        b.scaling = scaling;
        b.divisor = divisor;
        b.inverse = 1.0 / divisor;
        b.blocked = masked ? in.blocked.data() + r0 : nullptr;
        b.ldBlocked = in.m;
        b.stage = stage;
        b.plusOne = plusOne;
        b.weights = weights + r0;
        b.ldWeights = in.m;
        b.rows = stats ? o.rows.data() + r0 : nullptr;
        b.values = in.values.data();
        b.ldValues = in.n;
        b.valueWidth = dv;
        b.output = o.output.data() + r0;
        b.ldOutput = in.m;
        if (dk > 0) {
            b.queries = in.queries.data() + r0;
            b.ldQueries = in.m;
            b.keys = in.keys.data();
            b.ldKeys = in.n;
            b.keyWidth = dk;
            b.scoresOut = o.scores.data() + r0;
        }
        kernel(b);
    }
    o.weights = Eigen::Map<const Matrix>(weights, in.m, in.n);
    return o;
}

using attn::test::sameBits;

bool sameRow(const RowStats &a, const RowStats &b)
{
    return std::memcmp(&a.sum, &b.sum, sizeof a.sum) == 0 && std::memcmp(&a.entropy, &b.entropy, sizeof a.entropy) == 0
           && std::memcmp(&a.maxWeight, &b.maxWeight, sizeof a.maxWeight) == 0 && a.argmax == b.argmax
           && a.fullyMasked == b.fullyMasked;
}

} // namespace

class TestSoftmaxBuilds : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (!hasAvx2Build())
            QSKIP("no AVX2 build here (not x86-64, or the processor lacks AVX2)");
        qInfo("runSoftmaxBlock uses the %s build", softmaxBuild());
        QCOMPARE(QString::fromLatin1(softmaxBuild()),
                 hasAvx512Build() ? QStringLiteral("AVX-512") : QStringLiteral("AVX2"));
        if (!hasAvx512Build())
            qInfo("no AVX-512 here: the AVX-512 build is not compared");
    }

    void sameBitsEverywhere()
    {
        const unsigned seed = std::random_device{}();
        qInfo("seed %u", seed);
        std::mt19937 rng(seed);
        std::normal_distribution<double> normal(0.0, 2.0);
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        int cases = 0, checked = 0, compared = 0;
        std::vector<std::pair<const char *, void (*)(const SoftmaxBlock &)>> wideBuilds{{"AVX2", runSoftmaxBlockAvx2}};
        if (hasAvx512Build())
            wideBuilds.emplace_back("AVX-512", runSoftmaxBlockAvx512);
        for (const Eigen::Index m : {1, 2, 3, 5, 6, 7, 9, 13, 15, 37, 64}) {
            const Eigen::Index n = 1 + Eigen::Index(rng() % 70);
            for (const int dk : {0, 1, 2, 3, 4, 8, 16}) {
                Inputs in;
                in.m = m;
                in.n = n;
                const int width = dk > 0 ? dk : 4;
                in.queries = Matrix::NullaryExpr(m, width, [&] { return normal(rng); });
                in.keys = Matrix::NullaryExpr(n, width, [&] { return normal(rng); });
                // Given scores: some rows far past exp's range, both ways.
                in.scores = Matrix::NullaryExpr(m, n, [&] {
                    const double u = unit(rng);
                    return u < 0.05 ? 800.0 * normal(rng) : 6.0 * normal(rng);
                });
                in.values = Matrix::NullaryExpr(n, 20, [&] { return normal(rng); });
                in.blocked = BoolMatrix::NullaryExpr(m, n, [&] { return unit(rng) < 0.3; });
                if (m > 2)
                    in.blocked.row(1).setConstant(true); // a fully masked row
                for (const int dv : {0, 1, 3, 8, 12, 20}) {
                    for (int variant = 0; variant < 6; ++variant) {
                        const bool masked = variant >= 2;
                        const MaskStage stage = variant % 2 ? MaskStage::AfterSoftmax : MaskStage::BeforeSoftmax;
                        const bool plusOne = variant == 1 || variant == 5;
                        const Scaling scalings[] = {Scaling::None, Scaling::Copy, Scaling::Divide, Scaling::Multiply};
                        const Scaling scaling = scalings[rng() % 4];
                        const double divisor = scaling == Scaling::Multiply ? 4.0
                                               : scaling == Scaling::Divide ? std::sqrt(double(width))
                                                                           : 1.0;
                        const bool store = rng() % 2;
                        const bool stats = rng() % 4 != 0;
                        const Outputs a = run(runSoftmaxBlockBaseline, in, dk, dv, masked, stage, plusOne, scaling,
                                              divisor, store, stats);
                        const QString where = QStringLiteral("seed %1, m %2, n %3, d_k %4, d_v %5, variant %6, scaling %7")
                                                  .arg(seed).arg(m).arg(n).arg(dk).arg(dv).arg(variant)
                                                  .arg(int(scaling));
                        for (const auto &[name, kernel] : wideBuilds) {
                            const Outputs b = run(kernel, in, dk, dv, masked, stage, plusOne, scaling, divisor,
                                                  store, stats);
                            const QString at = QString::fromLatin1(name) + ", " + where;
                            QVERIFY2(sameBits(a.scores, b.scores), qPrintable("scores: " + at));
                            QVERIFY2(sameBits(a.scaled, b.scaled), qPrintable("scaled: " + at));
                            QVERIFY2(sameBits(a.weights, b.weights), qPrintable("weights: " + at));
                            QVERIFY2(sameBits(a.output, b.output), qPrintable("output: " + at));
                            for (std::size_t i = 0; i < a.rows.size(); ++i)
                                QVERIFY2(sameRow(a.rows[i], b.rows[i]), qPrintable("row statistics: " + at));
                            ++compared;
                        }
                        // Not vacuous: the weights were written (no -7 left) and are finite.
                        QVERIFY2(a.weights.allFinite() && (a.weights.array() >= 0).all(), qPrintable(where));
                        ++cases;
                        checked += int(a.weights.size());
                    }
                }
            }
        }
        qInfo("%d blocks, %d weights, each against %d wide builds bit for bit", cases, checked, int(wideBuilds.size()));
        QVERIFY(cases > 1000);
        QCOMPARE(compared, cases * int(wideBuilds.size()));
    }
    void productsGiveTheSameBits()
    {
        const unsigned seed = std::random_device{}();
        qInfo("seed %u", seed);
        std::mt19937 rng(seed);
        std::normal_distribution<double> normal(0.0, 1.0);
        std::vector<std::pair<const char *, void (*)(const ProductBlock &)>> builds{
            {"baseline", multiplyBlockBaseline}, {"AVX2", multiplyBlockAvx2}};
        if (hasAvx512Build())
            builds.emplace_back("AVX-512", multiplyBlockAvx512);
        int cases = 0;
        for (const Eigen::Index m : {1, 2, 3, 7, 9, 15, 17, 64})
            for (const Eigen::Index inner : {0, 1, 3, 8, 64, 70})
                for (const Eigen::Index cols : {1, 3, 8, 9, 17}) {
                    // Column strides past the sizes: the product must keep to its rows.
                    const Matrix a = Matrix::NullaryExpr(m + 3, inner, [&] { return normal(rng); });
                    const Matrix b = Matrix::NullaryExpr(inner + 2, cols, [&] { return normal(rng); });
                    // The plain loop, in the documented order.
                    Matrix plain(m, cols);
                    for (Eigen::Index i = 0; i < m; ++i)
                        for (Eigen::Index j = 0; j < cols; ++j) {
                            double sum = 0.0;
                            for (Eigen::Index k = 0; k < inner; ++k)
                                sum = sum + a(i, k) * b(k, j);
                            plain(i, j) = sum;
                        }
                    const QString where = QStringLiteral("seed %1, m %2, inner %3, cols %4").arg(seed).arg(m).arg(inner).arg(cols);
                    for (const auto &[name, kernel] : builds) {
                        Matrix out = Matrix::Constant(m + 5, cols, -7.0);
                        ProductBlock p;
                        p.a = a.data();
                        p.ldA = a.rows();
                        p.b = b.data();
                        p.ldB = b.rows();
                        p.out = out.data();
                        p.ldOut = out.rows();
                        p.m = m;
                        p.inner = inner;
                        p.cols = cols;
                        kernel(p);
                        const QString at = QString::fromLatin1(name) + ", " + where;
                        QVERIFY2(sameBits(out.topRows(m), plain), qPrintable("product: " + at));
                        QVERIFY2((out.bottomRows(5).array() == -7.0).all(), qPrintable("past the rows: " + at));
                        // The last row alone, as updateRow multiplies it.
                        Matrix row = Matrix::Constant(1, cols, -7.0);
                        p.a = inner > 0 ? a.data() + (m - 1) : nullptr; // (no columns: never read)
                        p.out = row.data();
                        p.ldOut = 1;
                        p.m = 1;
                        kernel(p);
                        QVERIFY2(sameBits(row, plain.bottomRows(1)), qPrintable("a row alone: " + at));
                        ++cases;
                    }
                }
        QCOMPARE(cases, 8 * 6 * 5 * int(builds.size()));
        // The lab's projections at n = 1024, d_model 64: Eigen's kernel sums in
        // the same order there, so the numbers are those it gave. (Not at every
        // n: rows left over past its panels of 4 are summed in two halves.)
        const Matrix x = Matrix::NullaryExpr(1024, 64, [&] { return normal(rng); });
        const Matrix w = Matrix::NullaryExpr(64, 64, [&] { return normal(rng); });
        const Matrix eigen = x * w;
        Matrix ours(1024, 64);
        ProductBlock p;
        p.a = x.data();
        p.ldA = 1024;
        p.b = w.data();
        p.ldB = 64;
        p.out = ours.data();
        p.ldOut = 1024;
        p.m = 1024;
        p.inner = 64;
        p.cols = 64;
        multiplyBlock(p);
        QVERIFY(sameBits(ours, eigen));
    }

    void bandsGiveTheSameBits()
    {
        const unsigned seed = std::random_device{}();
        qInfo("seed %u", seed);
        std::mt19937 rng(seed);
        std::normal_distribution<double> normal(0.0, 2.0);
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        std::vector<std::pair<const char *, void (*)(const SoftmaxBlock &)>> builds{
            {"baseline", runSoftmaxBlockBaseline}, {"AVX2", runSoftmaxBlockAvx2}};
        if (hasAvx512Build())
            builds.emplace_back("AVX-512", runSoftmaxBlockAvx512);
        int cases = 0;
        // m x n past kBandDoubles, so the whole block is banded; pieces that are not.
        struct Shape {
            Eigen::Index m, n, piece;
        };
        for (const Shape shape : {Shape{203, 700, 64}, Shape{21, 9000, 7}, Shape{97, 1024, 56}}) {
            QVERIFY(shape.m * shape.n > kBandDoubles && shape.piece * shape.n <= kBandDoubles);
            Inputs in;
            in.m = shape.m;
            in.n = shape.n;
            in.queries = Matrix::NullaryExpr(in.m, 8, [&] { return normal(rng); });
            in.keys = Matrix::NullaryExpr(in.n, 8, [&] { return normal(rng); });
            in.scores = Matrix::NullaryExpr(in.m, in.n, [&] {
                const double u = unit(rng);
                return u < 0.02 ? 800.0 * normal(rng) : 6.0 * normal(rng);
            });
            in.values = Matrix::NullaryExpr(in.n, 16, [&] { return normal(rng); });
            // Causal-like: row i sees keys up to i (and a few random ones blocked).
            in.blocked = BoolMatrix::NullaryExpr(in.m, in.n, [&] { return unit(rng) < 0.1; });
            for (Eigen::Index i = 0; i < in.m; ++i)
                for (Eigen::Index j = i + 1; j < in.n; ++j)
                    in.blocked(i, j) = true;
            in.blocked.row(1).setConstant(true); // a fully masked row
            const Scaling scalings[] = {Scaling::Divide, Scaling::Multiply, Scaling::Copy};
            for (const int dk : {0, 8})
                for (const int dv : {1, 8, 16})
                    for (int variant = 0; variant < 4; ++variant) {
                        const bool masked = variant >= 1;
                        const MaskStage stage = variant == 2 ? MaskStage::AfterSoftmax : MaskStage::BeforeSoftmax;
                        const bool plusOne = variant == 3;
                        const bool stats = rng() % 4 != 0;
                        const int offset = int(rng() % 8);
                        for (const Scaling scaling : scalings) {
                            for (const auto &[name, kernel] : builds) {
                                std::vector<double> wholeBuffer, piecesBuffer;
                                const Outputs whole = runDerived(kernel, in, dk, dv, masked, stage, plusOne, stats,
                                                                 scaling, in.m, offset, wholeBuffer);
                                const Outputs pieces = runDerived(kernel, in, dk, dv, masked, stage, plusOne, stats,
                                                                  scaling, shape.piece, offset, piecesBuffer);
                                const QString at = QStringLiteral("%1, seed %2, m %3, n %4, d_k %5, d_v %6, variant %7, offset %8, scaling %9")
                                                       .arg(QString::fromLatin1(name)).arg(seed).arg(in.m).arg(in.n)
                                                       .arg(dk).arg(dv).arg(variant).arg(offset).arg(int(scaling));
                                QVERIFY2(sameBits(whole.scores, pieces.scores), qPrintable("scores: " + at));
                                QVERIFY2(sameBits(whole.weights, pieces.weights), qPrintable("weights: " + at));
                                QVERIFY2(sameBits(whole.output, pieces.output), qPrintable("output: " + at));
                                for (std::size_t i = 0; i < whole.rows.size(); ++i)
                                    QVERIFY2(sameRow(whole.rows[i], pieces.rows[i]), qPrintable("row statistics: " + at));
                                // Not vacuous: every weight written, a row's weights summing to 1
                                // (at most 1 for softmax_1 or a mask after it), blocked entries 0.
                                QVERIFY2(whole.weights.allFinite() && (whole.weights.array() >= 0).all(), qPrintable(at));
                                const double sum = whole.weights.row(in.m - 1).sum();
                                const bool dropped = plusOne || (masked && stage == MaskStage::AfterSoftmax);
                                QVERIFY2(dropped ? sum <= 1 + 1e-12 : std::abs(sum - 1) < 1e-12, qPrintable(at));
                                if (masked && stage == MaskStage::BeforeSoftmax)
                                    QVERIFY2(whole.weights(0, in.n - 1) == 0.0 && whole.weights.row(1).isZero(0),
                                             qPrintable(at));
                                ++cases;
                            }
                        }
                    }
        }
        qInfo("%d banded blocks against their pieces bit for bit", cases);
        QCOMPARE(cases, 3 * 2 * 3 * 4 * 3 * int(builds.size()));
    }
};

QTEST_GUILESS_MAIN(TestSoftmaxBuilds)
#include "test_softmax_builds.moc"
