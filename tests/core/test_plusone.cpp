// softmax_1 ("attention is off by one"): w_i = e^(x_i) / (1 + sum_j e^(x_j)).
// A 3-key row worked by hand; the forward against a plain second
// implementation in long double on random scenarios (masks before and after
// the softmax, causal, heads, temperature); scores far above and below the
// sink's 0; a fully blocked row; the row statistics.

#include "attention.h"
#include "attn_test.h"
#include "random_scenario.h"

#include <QObject>
#include <QTest>

#include <cmath>

using namespace attn;

namespace {

// Row i of head h's weights by the formula, in long double, from the trace's
// scaled scores: the sink is a key of score 0 beside the open keys.
std::vector<long double> plainWeights(const Scenario &s, const Trace &t, const HeadTrace &h, Eigen::Index i)
{
    const Eigen::Index nk = h.scores.cols();
    const bool before = s.maskStage == MaskStage::BeforeSoftmax;
    std::vector<long double> w(std::size_t(nk), 0.0L);
    bool any = false;
    long double z = 1.0L; // the sink, e^0
    for (Eigen::Index j = 0; j < nk; ++j)
        if (!(before && t.blocked(i, j))) {
            w[std::size_t(j)] = std::exp((long double)h.scaledAt(i, j));
            z += w[std::size_t(j)];
            any = any || !t.blocked(i, j);
        }
    for (Eigen::Index j = 0; j < nk; ++j)
        w[std::size_t(j)] = (!any || t.blocked(i, j)) ? 0.0L : w[std::size_t(j)] / z;
    return w;
}

void compareClose(double got, long double want, double tol, const char *what, int seed, Eigen::Index i, Eigen::Index j)
{
    if (std::abs((long double)got - want) > tol * std::max(1.0L, std::abs(want)))
        QFAIL(qPrintable(QStringLiteral("%1, seed %2, (%3, %4): got %5, expected %6")
                             .arg(what).arg(seed).arg(i).arg(j).arg(got, 0, 'g', 17).arg(double(want), 0, 'g', 17)));
}

Eigen::RowVectorXd oneRow(std::initializer_list<double> x, RowStats *stats = nullptr,
                          std::initializer_list<bool> blocked = {})
{
    Matrix m(1, Eigen::Index(x.size()));
    Eigen::Index j = 0;
    for (double v : x)
        m(0, j++) = v;
    BoolMatrix b = BoolMatrix::Constant(1, m.cols(), false);
    j = 0;
    for (bool v : blocked)
        b(0, j++) = v;
    std::vector<RowStats> rows;
    const Matrix w = maskedSoftmax(m, b, MaskStage::BeforeSoftmax, &rows, SoftmaxKind::PlusOne);
    if (stats)
        *stats = rows.at(0);
    return w.row(0);
}

} // namespace

class TestPlusOne : public QObject {
    Q_OBJECT

private slots:
    // x = (1, 0, −1), by hand:
    //   e^1 = 2.718281828, e^0 = 1, e^−1 = 0.367879441; Σ = 4.086161270
    //   denominator 1 + Σ = 5.086161270
    //   w = 2.718281828 / 5.086161270 = 0.534446645
    //       1 / 5.086161270           = 0.196611933
    //       0.367879441 / 5.086161270 = 0.072329488
    //   Σw = 4.086161270 / 5.086161270 = 0.803388067 < 1; the sink keeps
    //   1 / 5.086161270 = 0.196611933 (as much as the key of score 0).
    //   H = −Σ w ln w = 0.844612313 nats (over the keys).
    // The max shift gives the same: m = 1, e^(x − 1) = (1, 0.367879, 0.135335),
    // denominator e^−1 + 1.503214724 = 1.871094165, and 1 / 1.871094165 = 0.534447.
    void threeKeysByHand()
    {
        RowStats r;
        const Eigen::RowVectorXd w = oneRow({1, 0, -1}, &r);
        QCOMPARE(w.size(), Eigen::Index(3));
        QVERIFY(std::abs(w(0) - 0.534446645388523) < 1e-15);
        QVERIFY(std::abs(w(1) - 0.19661193324148185) < 1e-15);
        QVERIFY(std::abs(w(2) - 0.07232948812851327) < 1e-15);
        QVERIFY(std::abs(r.sum - 0.8033880667585181) < 1e-15);
        QVERIFY(std::abs(r.entropy - 0.8446123125480605) < 1e-14);
        QVERIFY(std::abs(r.maxWeight - 0.534446645388523) < 1e-15);
        QCOMPARE(r.argmax, 0);
        QVERIFY(shortOfOne(r));
    }

    // The shift keeps it finite: scores of 800 (e^800 overflows) and of −800
    // (e^800 in the sink's term overflows when shifted by the row maximum).
    void extremeScores()
    {
        RowStats r;
        Eigen::RowVectorXd w = oneRow({800, 1, -5}, &r);
        QVERIFY(w.allFinite());
        QCOMPARE(w(0), 1.0); // e^−800 of the sink is below double's rounding of 1
        QVERIFY(std::abs(w(1) - std::exp(1.0 - 800)) <= 1e-300);
        QVERIFY(std::isfinite(r.entropy));

        w = oneRow({-800, -801, -900}, &r);
        QVERIFY(w.allFinite());
        // e^−800 is below double's smallest subnormal: the weights are 0, as
        // e^−800 / (1 + ...) is in double.
        QCOMPARE(w(0), 0.0);
        QVERIFY(std::isfinite(r.entropy) && std::isfinite(r.sum) && std::isfinite(r.maxWeight));
        QCOMPARE(r.sum, 0.0);

        w = oneRow({-700, -701}, &r); // e^700 still fits: no overflow in e^(−max)
        QVERIFY(std::abs(w(0) - std::exp(-700.0)) <= 1e-12 * std::exp(-700.0));
        QVERIFY(std::abs(w(1) - std::exp(-701.0)) <= 1e-12 * std::exp(-701.0));

        w = oneRow({-720, -721}, &r); // e^720 overflows: formed as e^max / (1 + z e^max)
        QVERIFY(std::abs(w(0) - std::exp(-720.0)) <= 1e-12 * std::exp(-720.0));
        QVERIFY(std::isfinite(r.entropy));

        // Every key blocked: zeros, not NaN.
        w = oneRow({3, 4}, &r, {true, true});
        QCOMPARE(w(0), 0.0);
        QCOMPARE(w(1), 0.0);
        QVERIFY(r.fullyMasked);
    }

    // compute() against the plain formula on random scenarios: masks before
    // and after, causal, 1 to 4 heads, temperatures, projected and direct.
    void forwardAgainstPlain()
    {
        int checked = 0, blockedRows = 0;
        for (int seed = 1; seed <= 300; ++seed) {
            Scenario s = test::randomScenario(std::uint64_t(seed));
            s.softmax = SoftmaxKind::PlusOne;
            s.maskStage = seed % 3 == 0 ? MaskStage::AfterSoftmax : MaskStage::BeforeSoftmax;
            s.temperature = 0.25 * double(1 + seed % 8);
            if (seed % 5 == 0 && queryCount(s) == keyCount(s))
                s.mask.causal = true;
            if (validate(s))
                continue;
            const Trace t = compute(s);
            for (const HeadTrace &h : t.heads) {
                for (Eigen::Index i = 0; i < h.weights.rows(); ++i) {
                    const std::vector<long double> w = plainWeights(s, t, h, i);
                    long double sum = 0;
                    for (Eigen::Index j = 0; j < h.weights.cols(); ++j) {
                        compareClose(h.weights(i, j), w[std::size_t(j)], 1e-13, "weight", seed, i, j);
                        sum += w[std::size_t(j)];
                    }
                    compareClose(h.rows[std::size_t(i)].sum, sum, 1e-13, "row sum", seed, i, -1);
                    QVERIFY(sum < 1.0L);
                    if (t.blocked.row(i).any())
                        ++blockedRows;
                    for (Eigen::Index d = 0; d < h.output.cols(); ++d) {
                        long double o = 0;
                        for (Eigen::Index j = 0; j < h.weights.cols(); ++j)
                            o += w[std::size_t(j)] * (long double)h.V(j, d);
                        compareClose(h.output(i, d), o, 1e-12, "output", seed, i, d);
                    }
                    if (QTest::currentTestFailed())
                        return;
                }
            }
            ++checked;
        }
        QVERIFY2(checked > 200, qPrintable(QString::number(checked)));
        QVERIFY(blockedRows > 100);
    }

    // Large scores through compute(): e^(x) overflows unshifted; the weights stay finite.
    void computeWithLargeScores()
    {
        for (int seed = 1; seed <= 40; ++seed) {
            test::RandomOptions o;
            o.magnitude = 30; // dot products of several hundred
            Scenario s = test::randomScenario(std::uint64_t(seed), o);
            s.softmax = SoftmaxKind::PlusOne;
            s.scale = Scale::None;
            if (validate(s))
                continue;
            const Trace t = compute(s);
            for (const HeadTrace &h : t.heads) {
                QVERIFY(h.weights.allFinite());
                QVERIFY(h.output.allFinite());
                for (const RowStats &r : h.rows)
                    QVERIFY(std::isfinite(r.entropy) && std::isfinite(r.sum) && r.sum <= 1.0 + 1e-14); // 1 to rounding when the sink is e^-500
            }
        }
    }

    // updateRow's shortcut (rescaling a row for a changed key) keeps the sink.
    void updateRowMatchesCompute()
    {
        for (int seed = 1; seed <= 60; ++seed) {
            Scenario s = test::randomScenario(std::uint64_t(seed));
            s.softmax = SoftmaxKind::PlusOne;
            if (validate(s) || s.mode != InputMode::Direct || s.K.rows() < 2)
                continue;
            Trace t = compute(s);
            s.K(1, 0) += 0.3;
            if (!updateRow(s, t, MatrixId::K, 1))
                continue;
            const Trace fresh = compute(s);
            for (std::size_t h = 0; h < t.heads.size(); ++h) {
                QVERIFY((t.heads[h].weights - fresh.heads[h].weights).cwiseAbs().maxCoeff() < 1e-13);
                QVERIFY((t.heads[h].output - fresh.heads[h].output).cwiseAbs().maxCoeff() < 1e-13);
                for (std::size_t r = 0; r < t.heads[h].rows.size(); ++r) {
                    QVERIFY(std::abs(t.heads[h].rows[r].sum - fresh.heads[h].rows[r].sum) < 1e-13);
                    QVERIFY(std::abs(t.heads[h].rows[r].entropy - fresh.heads[h].rows[r].entropy) < 1e-12);
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestPlusOne)
#include "test_plusone.moc"
