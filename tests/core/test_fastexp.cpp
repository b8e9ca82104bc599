// attn::fastExp (core/fastexp.h), the softmax's exponential, held against
// std::exp: the distance in ulps on a dense sweep of the range the softmax
// feeds it and beyond, the edge cases, the SSE2 version against the scalar
// one, and the property the softmax's statistics rely on (never above 1 for
// x <= 0).

#include "attn_test.h"
#include "fastexp.h"

#include <QObject>
#include <QTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

using attn::fastExp;
using attn::test::num;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::uint64_t bits(double x)
{
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

// How many doubles lie between a and b, both >= 0 (an exponential's
// results): for non-negative doubles the bit patterns count up with the
// value. 0 for two NaNs; a huge number for NaN against a number.
std::uint64_t ulpDistance(double a, double b)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t x = bits(a), y = bits(b);
    return x > y ? x - y : y - x;
}

// Both lanes through the SSE2 version (or the scalar one where there is no SSE2).
void fastExp2(double a, double b, double &ea, double &eb)
{
#if defined(__SSE2__)
    alignas(16) double in[2] = {a, b}, out[2];
    _mm_store_pd(out, fastExp(_mm_load_pd(in)));
    ea = out[0];
    eb = out[1];
#else
    ea = fastExp(a);
    eb = fastExp(b);
#endif
}

// The worst distance to std::exp over the points, with where it was.
struct Worst {
    std::uint64_t ulps = 0;
    double x = 0;
    void add(double at)
    {
        const std::uint64_t d = ulpDistance(fastExp(at), std::exp(at));
        if (d > ulps) {
            ulps = d;
            x = at;
        }
    }
};

QString report(const Worst &w)
{
    return QStringLiteral("%1 ulps at x = %2: fastExp %3, std::exp %4")
        .arg(w.ulps).arg(num(w.x), num(fastExp(w.x)), num(std::exp(w.x)));
}

// Fails beyond 2 ulps; says the worst either way.
void verifyWithin2(const Worst &w)
{
    qInfo("worst: %s", qPrintable(report(w)));
    QVERIFY2(w.ulps <= 2, qPrintable(report(w)));
}

} // namespace

class TestFastExp : public QObject {
    Q_OBJECT

private slots:
    // Every 2^-12 from -750 to 0 (3 million points: the softmax's whole
    // range, down past the last subnormal), and on to 710.
    void denseSweep()
    {
        Worst w;
        for (std::int64_t k = -750 * 4096; k <= 710 * 4096; ++k)
            w.add(double(k) / 4096.0);
        verifyWithin2(w);
    }

    // Points that are not multiples of anything: a fixed pseudo-random
    // sequence over [-746, 710], and a finer one near 0 and in the
    // subnormal range.
    void scatteredPoints()
    {
        Worst w;
        std::uint64_t state = 0x9e3779b97f4a7c15ULL;
        auto uniform = [&state] { // [0, 1)
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return double(state >> 11) * 0x1.0p-53;
        };
        for (int i = 0; i < 2000000; ++i)
            w.add(-746.0 + 1456.0 * uniform());
        for (int i = 0; i < 500000; ++i) {
            w.add(-0x1.0p-10 * uniform());
            w.add(-708.0 - 37.2 * uniform());
        }
        verifyWithin2(w);
    }

    // Either side of each table step x = (j + 1/2) ln2 / N (where the
    // rounding of x N / ln2 switches entries), for j over the softmax's
    // range, down to the cut to 0 at -745.2.
    void tableBoundaries()
    {
        Worst w;
        const int n = 1 << attn::fastexp_detail::kTableBits;
        const double step = std::log(2.0) / n;
        for (int j = int(-745.3 / step); j <= 0; ++j) {
            const double x = (j + 0.5) * step;
            w.add(x);
            w.add(std::nextafter(x, -kInf));
            w.add(std::nextafter(x, kInf));
        }
        verifyWithin2(w);
    }

    void edgeCases_data()
    {
        QTest::addColumn<double>("x");
        QTest::addColumn<double>("expected");
        const double min = std::numeric_limits<double>::denorm_min();
        QTest::newRow("0") << 0.0 << 1.0;
        QTest::newRow("-0") << -0.0 << 1.0;
        QTest::newRow("-1e-300") << -1e-300 << 1.0;
        QTest::newRow("-2^-60") << -0x1.0p-60 << 1.0;
        QTest::newRow("1") << 1.0 << std::exp(1.0);
        QTest::newRow("-1") << -1.0 << std::exp(-1.0);
        QTest::newRow("-708 (main path's end)") << -708.0 << std::exp(-708.0);
        QTest::newRow("-708.3964 (smallest normal)") << -708.3964185322641 << std::exp(-708.3964185322641);
        QTest::newRow("-708.4 (subnormal)") << -708.4 << std::exp(-708.4);
        QTest::newRow("-740") << -740.0 << std::exp(-740.0);
        QTest::newRow("-745.13 (smallest subnormal)") << -745.13 << min;
        QTest::newRow("-745.1332191019411 (rounds up)") << -745.1332191019411 << min;
        QTest::newRow("-745.1332191019412 (rounds to 0)") << -745.1332191019412 << 0.0;
        QTest::newRow("-745.14") << -745.14 << 0.0;
        QTest::newRow("-745.2 (the cut to 0)") << -745.2 << 0.0;
        QTest::newRow("-1000") << -1000.0 << 0.0;
        QTest::newRow("-1e300") << -1e300 << 0.0;
        QTest::newRow("-inf") << -kInf << 0.0;
        QTest::newRow("708") << 708.0 << std::exp(708.0);
        QTest::newRow("709.78 (largest finite)") << 709.78 << std::exp(709.78);
        QTest::newRow("710 (overflow)") << 710.0 << kInf;
        QTest::newRow("inf") << kInf << kInf;
    }

    void edgeCases()
    {
        QFETCH(double, x);
        QFETCH(double, expected);
        const double got = fastExp(x);
        QVERIFY2(ulpDistance(got, expected) <= 1,
                 qPrintable(QStringLiteral("fastExp(%1) = %2, expected %3").arg(num(x), num(got), num(expected))));
        if (expected == 0.0 || expected == 1.0 || std::isinf(expected))
            QCOMPARE(got, expected); // exactly
    }

    void nan()
    {
        QVERIFY(std::isnan(fastExp(std::numeric_limits<double>::quiet_NaN())));
        double a, b;
        fastExp2(std::numeric_limits<double>::quiet_NaN(), -1.0, a, b);
        QVERIFY(std::isnan(a));
        QCOMPARE(b, fastExp(-1.0));
    }

    // The SSE2 version gives the scalar version's bits in both lanes,
    // whichever path each lane takes.
    void twoLanesMatchOne()
    {
        QString failure;
        auto agree = [&failure](double a, double b) {
            double ea, eb;
            fastExp2(a, b, ea, eb);
            if (bits(ea) == bits(fastExp(a)) && bits(eb) == bits(fastExp(b)))
                return true;
            failure = QStringLiteral("lanes (%1, %2): got (%3, %4), one at a time (%5, %6)")
                          .arg(num(a), num(b), num(ea), num(eb), num(fastExp(a)), num(fastExp(b)));
            return false;
        };
        const std::vector<double> xs{0.0, -0.0, -1e-300, -0.3, -1.0, -7.5, -88.7, -700.0, -708.0, -708.5,
                                     -720.0, -745.13, -745.2, -800.0, -kInf, 3.0, 709.0, 710.0, kInf};
        for (double a : xs)
            for (double b : xs)
                if (!agree(a, b))
                    QFAIL(qPrintable(failure));
        for (std::int64_t k = -746 * 64; k <= 0; k += 3)
            if (!agree(double(k) / 64.0, double(k) / 64.0 - 0.3))
                QFAIL(qPrintable(failure));
    }

    // The softmax takes the largest weight to be 1/z, at the row's largest
    // x, where x - max = 0 and the exponential is exactly 1: that needs
    // every other exponential at or below 1.
    void neverAboveOneForNonPositive()
    {
        auto fail = [](double x) { return QStringLiteral("fastExp(%1) = %2").arg(num(x), num(fastExp(x))); };
        for (std::int64_t k = -746 * 8192; k <= 0; ++k)
            if (const double x = double(k) / 8192.0; !(fastExp(x) <= 1.0))
                QFAIL(qPrintable(fail(x)));
        for (double x = -0.01; x < -1e-300; x *= 0.999) // down to the tiniest, where it rounds to 1
            if (!(fastExp(x) <= 1.0))
                QFAIL(qPrintable(fail(x)));
    }
};

QTEST_GUILESS_MAIN(TestFastExp)
#include "test_fastexp.moc"
