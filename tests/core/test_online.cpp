// The online softmax (FlashAttention's tiling) against the trace's softmax:
// seed 000 and a rescaling row worked by hand, random scenarios of every
// mask stage and tile size, a tile of blocked keys, the overflowing row,
// and the memory traffic of the three ways.

#include "attention.h"
#include "attn_test.h"
#include "lessons.h"
#include "online_softmax.h"
#include "random_scenario.h"

#include <QObject>
#include <QTest>

#include <cmath>

using namespace attn;

namespace {

Scenario lesson(const QString &name)
{
    ScenarioOrProblem loaded = loadLesson(name);
    if (const Problem *p = std::get_if<Problem>(&loaded))
        qFatal("%s", p->toString().c_str());
    return std::get<Scenario>(loaded);
}

std::vector<OnlineHead> online(const Scenario &s, const Trace &t, int tile)
{
    Result<std::vector<OnlineHead>> r = onlineSoftmax(s, t, tile);
    if (const Problem *p = r.problem())
        qFatal("%s", p->toString().c_str());
    return std::move(r.value());
}

bool near(double a, double b, double tol = 5e-7) { return std::abs(a - b) <= tol; }

} // namespace

class TestOnline : public QObject {
    Q_OBJECT

private slots:
    // Seed 000: s = (2√2, 0, √2), V = I. Tiles of 2:
    //   tile 1 (k1, k2): m = 2.828427, l = 1 + e^(−2.828427) = 1.059106,
    //                    o = (1, 0.059106, 0) / 1.059106 = (0.944193, 0.055807, 0)
    //   tile 2 (k3):     m stays, rescale e^0 = 1, l = 1.059106 + e^(−1.414214) = 1.3022225,
    //                    o = (1, 0.059106, 0.243117) / 1.3022225 = (0.7679179, 0.0453884, 0.1866937)
    void seed000ByHand()
    {
        const Scenario s = lesson(QStringLiteral("seed000-basic"));
        const Trace t = compute(s);
        const std::vector<OnlineHead> heads = online(s, t, 2);
        QCOMPARE(int(heads.size()), 1);
        const OnlineRow &row = heads[0].rows.at(0);
        QCOMPARE(int(row.tiles.size()), 2);
        const OnlineTile &a = row.tiles[0], &b = row.tiles[1];
        QCOMPARE(a.first, 0);
        QCOMPARE(a.last, 1);
        QVERIFY(std::isinf(a.mOld) && a.mOld < 0);
        QCOMPARE(a.rescale, 0.0);
        QVERIFY(near(a.m, 2.828427));
        QVERIFY(near(a.l, 1.059106));
        QVERIFY(near(a.o(0), 0.944193) && near(a.o(1), 0.055807) && a.o(2) == 0);
        QCOMPARE(b.first, 2);
        QCOMPARE(b.last, 2);
        QCOMPARE(b.rescale, 1.0);
        QVERIFY(near(b.l, 1.3022225));
        QVERIFY(near(b.o(0), 0.7679179) && near(b.o(1), 0.0453884) && near(b.o(2), 0.1866937));
        QVERIFY(heads[0].largestWeightDifference < 1e-15);
        QVERIFY(heads[0].largestOutputDifference < 1e-15);
    }

    // q = (1, 0), keys (0, 0) and (2, 0), no scaling: s = (0, 2). Tiles of 1:
    // the maximum rises at the second tile, so the first tile's sum and
    // output are rescaled by e^(0 − 2) = 0.135335:
    //   l = 1 · 0.135335 + 1 = 1.135335, o = (0.135335 v1 + v2) / 1.135335,
    //   weights (0.119203, 0.880797).
    void rescaleByHand()
    {
        Scenario s;
        s.Q = (Matrix(1, 2) << 1, 0).finished();
        s.K = (Matrix(2, 2) << 0, 0, 2, 0).finished();
        s.V = (Matrix(2, 2) << 1, 0, 0, 1).finished();
        s.scale = Scale::None;
        const Trace t = compute(s);
        const OnlineHead h = online(s, t, 1).at(0);
        const OnlineTile &second = h.rows[0].tiles.at(1);
        QCOMPARE(second.mOld, 0.0);
        QCOMPARE(second.m, 2.0);
        QVERIFY(near(second.rescale, 0.135335));
        QVERIFY(near(second.l, 1.135335));
        QVERIFY(near(second.o(0), 0.119203) && near(second.o(1), 0.880797));
        QVERIFY(near(h.weights(0, 0), 0.119203) && near(h.weights(0, 1), 0.880797));
    }

    // Random scenarios (masks, heads, encodings, cross-attention), both mask
    // stages, every tile size from 1 to n_k + 1: the same weights and
    // outputs as the trace, to rounding.
    void equalsTheSoftmaxEverywhere()
    {
        int checked = 0;
        double worst = 0;
        for (std::uint64_t seed = 1; seed <= 60; ++seed) {
            Scenario s = test::randomScenario(seed);
            for (MaskStage stage : {MaskStage::BeforeSoftmax, MaskStage::AfterSoftmax}) {
                s.maskStage = stage;
                if (validate(s))
                    continue;
                const Trace t = compute(s);
                const int nk = int(t.blocked.cols());
                for (int b = 1; b <= nk + 1; ++b) {
                    const std::vector<OnlineHead> heads = online(s, t, b);
                    QCOMPARE(heads.size(), t.heads.size());
                    for (std::size_t h = 0; h < heads.size(); ++h) {
                        worst = std::max({worst, heads[h].largestWeightDifference, heads[h].largestOutputDifference});
                        for (std::size_t i = 0; i < heads[h].rows.size(); ++i) {
                            const OnlineRow &row = heads[h].rows[i];
                            QCOMPARE(int(row.tiles.size()), (nk + std::min(b, nk) - 1) / std::min(b, nk));
                            QCOMPARE(row.tiles.back().last, nk - 1);
                            QCOMPARE(row.fullyMasked, t.heads[h].rows[i].fullyMasked);
                        }
                    }
                    ++checked;
                }
            }
        }
        qInfo("%d traces in tiles, the largest difference to the softmax %.3g", checked, worst);
        QVERIFY(checked > 200);
        QVERIFY2(worst < 1e-12, qPrintable(QString::number(worst)));
    }

    // The one-row form a view steps through is the same row, bit for bit,
    // as the whole-trace form, with its own differences to the trace.
    void oneRowEqualsTheWholeTrace()
    {
        int checked = 0;
        for (std::uint64_t seed = 1; seed <= 30; ++seed) {
            Scenario s = test::randomScenario(seed);
            if (validate(s))
                continue;
            const Trace t = compute(s);
            const int nk = int(t.blocked.cols());
            for (int b : {1, 2, nk}) {
                const std::vector<OnlineHead> heads = online(s, t, b);
                for (int h = 0; h < int(heads.size()); ++h) {
                    for (int i = 0; i < int(heads[std::size_t(h)].rows.size()); ++i) {
                        Result<OnlineRowResult> r = onlineSoftmaxRow(s, t, h, i, b);
                        QVERIFY(r.ok());
                        const OnlineRowResult &one = r.value();
                        const OnlineRow &whole = heads[std::size_t(h)].rows[std::size_t(i)];
                        QCOMPARE(one.row.tiles.size(), whole.tiles.size());
                        for (std::size_t k = 0; k < whole.tiles.size(); ++k) {
                            QCOMPARE(one.row.tiles[k].m, whole.tiles[k].m);
                            QCOMPARE(one.row.tiles[k].l, whole.tiles[k].l);
                            QCOMPARE(one.row.tiles[k].o, whole.tiles[k].o);
                        }
                        QCOMPARE(one.weights, Eigen::RowVectorXd(heads[std::size_t(h)].weights.row(i)));
                        QCOMPARE(one.output, Eigen::RowVectorXd(heads[std::size_t(h)].output.row(i)));
                        const double dw = (one.weights - t.heads[std::size_t(h)].weights.row(i)).cwiseAbs().maxCoeff();
                        QCOMPARE(one.largestWeightDifference, dw);
                        QVERIFY(one.largestWeightDifference < 1e-12 && one.largestOutputDifference < 1e-12);
                        ++checked;
                    }
                }
            }
        }
        QVERIFY(checked > 100);
        const Scenario s = lesson(QStringLiteral("seed000-basic"));
        const Trace t = compute(s);
        QCOMPARE(onlineSoftmaxRow(s, t, 1, 0, 2).problem()->place, std::string("head"));
        QCOMPARE(onlineSoftmaxRow(s, t, 0, 1, 2).problem()->place, std::string("query"));
        QCOMPARE(onlineSoftmaxRow(s, t, 0, 0, 0).problem()->place, std::string("tile"));
    }

    // The lines a student writes for seed 000 in tiles of 2 (the numbers of
    // seed000ByHand): tile 1 starts from nothing, tile 2 rescales by
    // e^(2.8284 − 2.8284) = 1 and adds e^(1.4142 − 2.8284) = 0.2431.
    void tileLinesByHand()
    {
        const Scenario s = lesson(QStringLiteral("seed000-basic"));
        const Trace t = compute(s);
        const OnlineRowResult r = onlineSoftmaxRow(s, t, 0, 0, 2).value();
        const std::vector<std::string> first = onlineTileLines(s, t, 0, 0, r, 0);
        const std::vector<std::string> expectFirst = {
            "s_{1…2} = [2.8284, 0.0000]",
            "m = max(m_{old}, max_{j} s_{j}) = max(−∞, 2.8284) = 2.8284",
            "ℓ = Σ_{j} e^{s_{j} − m} = 1.0591",
            "o = Σ_{j} e^{s_{j} − m} v_{j} / ℓ = [0.9442, 0.0558, 0.0000]"};
        QCOMPARE(first, expectFirst);
        const std::vector<std::string> second = onlineTileLines(s, t, 0, 0, r, 1);
        const std::vector<std::string> expectSecond = {
            "s_{3} = [1.4142]",
            "m = max(m_{old}, max_{j} s_{j}) = max(2.8284, 1.4142) = 2.8284",
            "e^{m_{old} − m} = e^{2.8284 − 2.8284} = 1.0000",
            "ℓ = ℓ_{old} · e^{m_{old} − m} + Σ_{j} e^{s_{j} − m} = 1.0591 · 1.0000 + 0.2431 = 1.3022",
            "o = (o_{old} · ℓ_{old} · e^{m_{old} − m} + Σ_{j} e^{s_{j} − m} v_{j}) / ℓ = [0.7679, 0.0454, 0.1867]"};
        QCOMPARE(second, expectSecond);
        QVERIFY(onlineTileLines(s, t, 0, 0, r, 2).empty());

        // A tile of blocked keys gives its scores alone (−∞ for each).
        Scenario blocked = s;
        blocked.mask.blocked = BoolMatrix::Zero(1, 3);
        blocked.mask.blocked(0, 2) = true;
        const Trace tb = compute(blocked);
        const OnlineRowResult rb = onlineSoftmaxRow(blocked, tb, 0, 0, 2).value();
        const std::vector<std::string> still = onlineTileLines(blocked, tb, 0, 0, rb, 1);
        QCOMPARE(still, std::vector<std::string>{"s_{3} = [−∞]"});
    }

    // A tile whose keys are all blocked (mask before the softmax) changes
    // nothing: m, l and o stay, and it says it held no open key.
    void aBlockedTileChangesNothing()
    {
        Scenario s = lesson(QStringLiteral("seed000-basic"));
        s.mask.blocked = BoolMatrix::Zero(1, 3);
        s.mask.blocked(0, 2) = true;
        const Trace t = compute(s);
        const OnlineRow row = online(s, t, 2).at(0).rows.at(0);
        QVERIFY(!row.tiles[1].open);
        QCOMPARE(row.tiles[1].m, row.tiles[0].m);
        QCOMPARE(row.tiles[1].l, row.tiles[0].l);
        QCOMPARE(row.tiles[1].o, row.tiles[0].o);
    }

    void refusesAnEmptyTile()
    {
        const Scenario s = lesson(QStringLiteral("seed000-basic"));
        const Result<std::vector<OnlineHead>> r = onlineSoftmax(s, compute(s), 0);
        QVERIFY(r.problem());
        QCOMPARE(r.problem()->place, std::string("tile"));
    }

    // s = (800, 799, 0): e^800 is inf in double, so e^s / Σ e^s is inf/inf
    // = NaN; shifted by 800 the weights are e^0, e^−1, e^−800 over their
    // sum: 0.731059, 0.268941, 0 (to double).
    void overflowNaiveAgainstShifted()
    {
        const OverflowRow r = overflowRow((Eigen::RowVectorXd(3) << 800, 799, 0).finished());
        QVERIFY(std::isinf(r.exponentials(0)) && std::isinf(r.exponentials(1)));
        QCOMPARE(r.exponentials(2), 1.0);
        QVERIFY(std::isnan(r.naive(0)) && std::isnan(r.naive(1)));
        QCOMPARE(r.naive(2), 0.0);
        QCOMPARE(r.maximum, 800.0);
        QVERIFY(near(r.safe(0), 0.731059) && near(r.safe(1), 0.268941) && r.safe(2) < 1e-300);
        QVERIFY(r.safe.allFinite() && r.shifted.allFinite());
    }

    // n_q = n_k = 8: the safe softmax 4 · 64 accesses, the online one 3 · 64,
    // fused none, and the 64 cells it never stores.
    void traffic()
    {
        const SoftmaxTraffic c = softmaxTraffic(8, 8);
        QCOMPARE(c.safe, 256LL);
        QCOMPARE(c.online, 192LL);
        QCOMPARE(c.fused, 0LL);
        QCOMPARE(c.storedCells, 64LL);
        QCOMPARE(softmaxTraffic(1024, 1024).safe, 4LL * 1024 * 1024);
    }
};

QTEST_APPLESS_MAIN(TestOnline)
#include "test_online.moc"
