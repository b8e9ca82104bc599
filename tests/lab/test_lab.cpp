// The √d_k lab: CPython's generator reproduced, the handout's
// draw, the experiment's statistics, the lab view (what it draws) and the
// panel's background work.
//
// Every "Python" number below was printed by Debian 12's python3 (3.11.2
// or later 3.11) at development time, e.g.
//   python3 -c 'import random; random.seed(0); print([random.getrandbits(32) for _ in range(3)])'
// and the handout's draw by seed 000's own code with repr() of each value.

#include "attn_test.h"
#include "experiment.h"
#include "pyrandom.h"
#include "random.h"
#include "scalinglab.h"
#include "scalinglabpanel.h"

#include <QApplication>
#include <QImage>
#include <QLabel>
#include <QSet>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QScrollBar>
#include <QTableWidget>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>
#include <numeric>

using namespace attn;
using attn::test::num;

namespace {

// Bars and graphs of a plot, by type.
template <typename T>
QList<T *> plottablesOf(QCustomPlot *plot)
{
    QList<T *> out;
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto *p = qobject_cast<T *>(plot->plottable(i)))
            out << p;
    return out;
}

QVector<double> valuesOf(QCPBars *bars)
{
    QVector<double> out;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
        out << it->value;
    return out;
}

QVector<double> valuesOf(QCPGraph *graph)
{
    QVector<double> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out << it->value;
    return out;
}

// Pixels of the image within a small distance of colour c.
int pixelsNear(const QImage &image, QColor c, int tolerance = 40)
{
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor p = image.pixelColor(x, y);
            if (std::abs(p.red() - c.red()) + std::abs(p.green() - c.green()) + std::abs(p.blue() - c.blue()) <= tolerance)
                ++n;
        }
    return n;
}

QString outPath(const QString &name)
{
    return QStringLiteral(ATTN_TEST_BINARY_DIR "/tests/") + name;
}

} // namespace

class TestLab : public QObject {
    Q_OBJECT

private slots:
    // ---- CPython's random, bit for bit ----

    void pythonWords_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<QList<quint32>>("words");        // random.getrandbits(32), three times
        QTest::addColumn<QList<double>>("randoms");       // then random.random(), twice
        QTest::addColumn<QList<double>>("gausses");       // then random.gauss(0, 1), three times
        QTest::newRow("seed 0") << quint64(0) << QList<quint32>{3626764237u, 1654615998u, 3255389356u}
                                << QList<double>{0.890243920837131, 0.04048437818077755}
                                << QList<double>{1.1265434960496987, -0.2483595418265132, 1.6391095109274887};
        QTest::newRow("seed 1") << quint64(1) << QList<quint32>{577090037u, 2444712010u, 3639700191u}
                                << QList<double>{0.8022650611681835, 0.06310682188770933}
                                << QList<double>{1.2483260073967875, 1.141906909311186, -0.9623337882514796};
        QTest::newRow("seed 12345") << quint64(12345) << QList<quint32>{1789368711u, 3146859322u, 43676229u}
                                    << QList<double>{0.8201747225612886, 0.802848393459915}
                                    << QList<double>{1.4219193797228873, -1.8298409242611646, -0.13581725325272012};
        // Two 32-bit words of key: the low word 0.
        QTest::newRow("seed 2^32") << quint64(4294967296ull) << QList<quint32>{485306839u, 1508871100u, 1794561286u}
                                   << QList<double>{0.9347212762883035, 0.022821848181795}
                                   << QList<double>{1.2069061990308363, -1.190440223237582, 1.6982038273246525};
        QTest::newRow("seed 2^64-1") << quint64(18446744073709551615ull)
                                     << QList<quint32>{93740670u, 1068495656u, 1452108352u}
                                     << QList<double>{0.6187512294349632, 0.45606388609950244}
                                     << QList<double>{1.7778929196070394, 1.208540938133846, 0.17398052283311186};
    }

    void pythonWords()
    {
        QFETCH(quint64, seed);
        QFETCH(QList<quint32>, words);
        QFETCH(QList<double>, randoms);
        QFETCH(QList<double>, gausses);
        PyRandom r(seed);
        for (quint32 w : words)
            QCOMPARE(r.nextUInt32(), w);
        for (double v : randoms)
            QCOMPARE(r.random(), v); // exact: integer arithmetic and one exact scaling
        for (double v : gausses)
            ATTN_COMPARE_NEAR(r.gauss(0, 1), v, 1e-15);
    }

    void pythonRandomFamousValue()
    {
        // random.seed(0); random.random() -> 0.8444218515250481, the value every Python user has seen.
        PyRandom r(0);
        QCOMPARE(r.random(), 0.8444218515250481);
        // random.seed(42); the 1000th random(): past the first regeneration of the 624-word state.
        PyRandom s(42);
        double last = 0;
        for (int i = 0; i < 1000; ++i)
            last = s.random();
        QCOMPARE(last, 0.8554501933059546);
    }

    void pythonGaussKeepsItsSecondValue()
    {
        // random.seed(7); [random.gauss(0, 1) for _ in range(3)]: the handout's q[0..2].
        PyRandom r(7);
        ATTN_COMPARE_NEAR(r.gauss(), -0.2558802884476004, 1e-15);
        ATTN_COMPARE_NEAR(r.gauss(), 0.511431512516514, 1e-15);
        ATTN_COMPARE_NEAR(r.gauss(), -0.2260961647831047, 1e-15);
        // random.seed(7); [random.gauss(2.5, 0.5) for _ in range(3)]
        PyRandom m(7);
        ATTN_COMPARE_NEAR(m.gauss(2.5, 0.5), 2.3720598557762, 1e-14);
        ATTN_COMPARE_NEAR(m.gauss(2.5, 0.5), 2.755715756258257, 1e-14);
        ATTN_COMPARE_NEAR(m.gauss(2.5, 0.5), 2.3869519176084477, 1e-14);
        // seed() forgets the kept value, as random.py's seed() does.
        PyRandom a(7);
        a.gauss();
        a.seed(7);
        ATTN_COMPARE_NEAR(a.gauss(), -0.2558802884476004, 1e-15);
    }

    // ---- the handout's draw ----

    void handoutDraw_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("dk");
        QTest::addColumn<double>("raw");
        QTest::addColumn<double>("rawMax");
        QTest::addColumn<double>("rawEntropy");
        QTest::addColumn<double>("scaled");
        QTest::addColumn<double>("scaledMax");
        QTest::addColumn<double>("scaledEntropy");
        QTest::addColumn<double>("q0");
        QTest::addColumn<double>("kLast");
        // Seed 000's code as printed in the handout (random.seed(7), d_k = 64).
        QTest::newRow("handout: seed 7, d_k 64")
            << quint64(7) << 64 << -7.0193321997806999 << 0.49977649430700599 << 0.69673201329764156
            << -0.87741652497258749 << 0.41393197704931178 << 1.0330886365151202 << -0.25588028844760041
            << 0.57528027083404154;
        QTest::newRow("seed 0, d_k 64") << quint64(0) << 64 << -1.9793942860853406 << 0.46769340173287383
                                        << 0.88783731427733181 << -0.24742428576066758 << 0.35960753824782066
                                        << 1.0922150228824625 << 0.94171540468066439 << -0.15504021516362218;
        QTest::newRow("seed 42, d_k 16") << quint64(42) << 16 << 3.199071032334607 << 0.92455606198792506
                                         << 0.31979210631711336 << 0.79976775808365175 << 0.52662992186308955
                                         << 1.0198433388100039 << -0.14409032957792836 << -1.5145203917251397;
        QTest::newRow("seed 2024, d_k 1024") << quint64(2024) << 1024 << 25.082959158123639 << 0.99999999997443556
                                             << 6.6387501420065485e-10 << 0.78384247369136373 << 0.52265829383822726
                                             << 1.0229880900612733 << -1.5858438430959185 << 0.18937698254763183;
        QTest::newRow("seed 2^40+5, d_k 8") << quint64(1099511627781ull) << 8 << 3.6787861049110067
                                            << 0.95192110835596766 << 0.22614507551519958 << 1.3006473006587091
                                            << 0.64737033499793351 << 0.89348358220568869 << -0.79065032167631921
                                            << -1.5115195685078857;
    }

    void handoutDraw()
    {
        QFETCH(quint64, seed);
        QFETCH(int, dk);
        QFETCH(double, raw);
        QFETCH(double, rawMax);
        QFETCH(double, rawEntropy);
        QFETCH(double, scaled);
        QFETCH(double, scaledMax);
        QFETCH(double, scaledEntropy);
        QFETCH(double, q0);
        QFETCH(double, kLast);
        const HandoutDraw d = attn::handoutDraw(seed, dk).value();
        QCOMPARE(int(d.q.size()), dk);
        QCOMPARE(int(d.k.size()), dk);
        // Bit for bit on the C library Python uses; a few ulps elsewhere.
        ATTN_COMPARE_NEAR(d.q.front(), q0, 1e-14);
        ATTN_COMPARE_NEAR(d.k.back(), kLast, 1e-14);
        ATTN_COMPARE_NEAR(d.raw, raw, 1e-12);
        ATTN_COMPARE_NEAR(d.scaled, scaled, 1e-12);
        ATTN_COMPARE_NEAR(d.rawMaxWeight, rawMax, 1e-12);
        ATTN_COMPARE_NEAR(d.rawEntropy, rawEntropy, 1e-12);
        ATTN_COMPARE_NEAR(d.scaledMaxWeight, scaledMax, 1e-12);
        ATTN_COMPARE_NEAR(d.scaledEntropy, scaledEntropy, 1e-12);
        // And as the lab writes them, to 4 decimals.
        const auto four = [](double v) { return QString::number(v, 'f', 4); };
        QCOMPARE(four(d.raw), four(raw));
        QCOMPARE(four(d.scaled), four(scaled));
        QCOMPARE(four(d.rawMaxWeight), four(rawMax));
        QCOMPARE(four(d.scaledEntropy), four(scaledEntropy));
    }

    // docs/lessons.md, "Where the seeds are wrong", 2 and 3.
    void handoutNumbersOfTheLessonsPage()
    {
        const HandoutDraw d = attn::handoutDraw(7, 64).value();
        const auto four = [](double v) { return QString::number(v, 'f', 4); };
        QCOMPARE(four(d.raw), QStringLiteral("-7.0193"));
        QCOMPARE(four(d.scaled), QStringLiteral("-0.8774"));
        QCOMPARE(four(d.rawMaxWeight), QStringLiteral("0.4998"));
        QCOMPARE(four(d.scaledMaxWeight), QStringLiteral("0.4139"));
        QCOMPARE(four(d.rawEntropy), QStringLiteral("0.6967"));
        QCOMPARE(four(d.scaledEntropy), QStringLiteral("1.0331"));
        // The printed score 3.79 taken as given (Python: 0.9567627401166705, 0.20806905368460865).
        const TripleSoftmax printed = handoutSoftmax(kHandoutPrintedScaled);
        ATTN_COMPARE_NEAR(printed.maxWeight, 0.9567627401166705, 1e-15);
        ATTN_COMPARE_NEAR(printed.entropy, 0.20806905368460865, 1e-14);
        // 30.31: Python prints 1.0000 and 0.0000 (0.9999999999998628, 2.9208337031343028e-12).
        const TripleSoftmax printedRaw = handoutSoftmax(kHandoutPrintedRaw);
        ATTN_COMPARE_NEAR(printedRaw.maxWeight, 0.9999999999998628, 1e-15);
        ATTN_COMPARE_NEAR(printedRaw.entropy, 2.9208337031343028e-12, 1e-18);
    }

    // ---- the experiment ----

    // Var(q·k) = d_k, Var(q·k/√d_k) = 1, Var(q·k/d_k) = 1/d_k. With 20,000
    // trials the relative standard error of a sample variance is
    // √((2 + 6/d_k)/T) ≤ 2 %, so 5 % is 2.5 of them at d_k = 1 and more above.
    void variances_data()
    {
        QTest::addColumn<int>("dk");
        QTest::newRow("d_k 1") << 1;
        QTest::newRow("d_k 16") << 16;
        QTest::newRow("d_k 256") << 256;
    }

    void variances()
    {
        QFETCH(int, dk);
        ScalingLabParams p;
        p.dk = dk;
        p.seed = 7;
        p.trials = 20000;
        const ScalingLab lab = runScalingLab(p).value();
        const double expected[3] = {double(dk), 1.0, 1.0 / dk};
        for (ScoreScaling s : kAllScoreScalings) {
            const ScalingSeries &series = lab.of(s);
            QCOMPARE(series.theoryVariance, expected[std::size_t(s)]);
            QVERIFY2(std::abs(series.variance / expected[std::size_t(s)] - 1) < 0.05,
                     qPrintable(QStringLiteral("%1: variance %2, theory %3")
                                    .arg(QLatin1String(scalingKey(s)), num(series.variance), num(expected[std::size_t(s)]))));
            ATTN_COMPARE_NEAR(series.mean, 0.0, 5 * std::sqrt(expected[std::size_t(s)] / p.trials));
        }
        // The three are the same draws, divided.
        ATTN_COMPARE_NEAR(lab.of(ScoreScaling::SqrtDk).variance, lab.of(ScoreScaling::Raw).variance / dk,
                          1e-12 * lab.of(ScoreScaling::Raw).variance);
        ATTN_COMPARE_NEAR(lab.of(ScoreScaling::Dk).variance, lab.of(ScoreScaling::Raw).variance / (double(dk) * dk),
                          1e-12 * lab.of(ScoreScaling::Raw).variance);
    }

    // Raw scores saturate the softmax more and more as d_k grows; ÷√d_k
    // keeps it soft at every d_k; ÷d_k flattens it towards uniform.
    void saturation()
    {
        std::vector<ScalingLab> labs;
        for (int dk : {1, 4, 16, 64, 256}) {
            ScalingLabParams p;
            p.dk = dk;
            p.trials = 20000;
            labs.push_back(runScalingLab(p).value());
        }
        for (std::size_t i = 1; i < labs.size(); ++i) {
            const ScalingSeries &before = labs[i - 1].of(ScoreScaling::Raw), &now = labs[i].of(ScoreScaling::Raw);
            QVERIFY2(now.threeWay.saturatedFraction > before.threeWay.saturatedFraction,
                     qPrintable(QStringLiteral("[s,0,0] at d_k %1: %2, before %3")
                                    .arg(labs[i].params.dk)
                                    .arg(now.threeWay.saturatedFraction)
                                    .arg(before.threeWay.saturatedFraction)));
            QVERIFY2(now.keys.saturatedFraction > before.keys.saturatedFraction,
                     qPrintable(QStringLiteral("n keys at d_k %1: %2, before %3")
                                    .arg(labs[i].params.dk)
                                    .arg(now.keys.saturatedFraction)
                                    .arg(before.keys.saturatedFraction)));
            QVERIFY(now.keys.meanMaxWeight > before.keys.meanMaxWeight);
            QVERIFY(now.keys.meanEntropy < before.keys.meanEntropy);
        }
        // Raw at d_k 256: most rows of 8 keys one-hot (measured 0.64), a third of [s,0,0] (0.36).
        QVERIFY2(labs.back().of(ScoreScaling::Raw).keys.saturatedFraction > 0.5,
                 qPrintable(num(labs.back().of(ScoreScaling::Raw).keys.saturatedFraction)));
        QVERIFY2(labs.back().of(ScoreScaling::Raw).threeWay.saturatedFraction > 0.3,
                 qPrintable(num(labs.back().of(ScoreScaling::Raw).threeWay.saturatedFraction)));
        for (const ScalingLab &lab : labs) {
            // ÷√d_k: a score above 5.3 (or 8 scores apart by that much) is a 4-sigma event.
            QVERIFY2(lab.of(ScoreScaling::SqrtDk).threeWay.saturatedFraction < 0.002,
                     qPrintable(num(lab.of(ScoreScaling::SqrtDk).threeWay.saturatedFraction)));
            QVERIFY2(lab.of(ScoreScaling::SqrtDk).keys.saturatedFraction < 0.002,
                     qPrintable(num(lab.of(ScoreScaling::SqrtDk).keys.saturatedFraction)));
            // Its entropies stay high at every d_k: measured 1.01 to 1.03 nats of ln 3 = 1.10 for
            // [s, 0, 0], and 1.72 to 1.80 of ln 8 = 2.08 for 8 keys (at d_k = 1 the row's scores
            // share one small |q| more often, so it is a little flatter there).
            const double three = lab.of(ScoreScaling::SqrtDk).threeWay.meanEntropy;
            const double eight = lab.of(ScoreScaling::SqrtDk).keys.meanEntropy;
            QVERIFY2(three > 0.98 && three < 1.05, qPrintable(num(three)));
            QVERIFY2(eight > 1.68 && eight < 1.84, qPrintable(num(eight)));
        }
        // ÷d_k at 256: nearly uniform, entropy near ln 8.
        ATTN_COMPARE_NEAR(labs.back().of(ScoreScaling::Dk).keys.meanEntropy, std::log(8.0), 0.01);
        ATTN_COMPARE_NEAR(labs.back().of(ScoreScaling::Dk).keys.meanMaxWeight, 1.0 / 8, 0.02);
    }

    void histogramsCountEveryTrial()
    {
        ScalingLabParams p;
        p.dk = 32;
        p.trials = 12345;
        p.bins = 30;
        const ScalingLab lab = runScalingLab(p).value();
        for (const ScalingSeries &s : lab.series) {
            const ScoreHistogram &h = s.histogram;
            QCOMPARE(h.bins(), 30);
            QCOMPARE(int(h.theoryCount.size()), 30);
            const int inside = std::accumulate(h.counts.begin(), h.counts.end(), 0);
            QCOMPARE(h.below + inside + h.above, p.trials);
            // ±4.5 σ: about 0.0007 % outside.
            QVERIFY2(h.below + h.above <= 3, qPrintable(QString::number(h.below + h.above)));
            ATTN_COMPARE_NEAR(h.hi, kHistogramSigmas * std::sqrt(s.theoryVariance), 1e-12);
            ATTN_COMPARE_NEAR(h.lo, -h.hi, 0);
            const double theory = std::accumulate(h.theoryCount.begin(), h.theoryCount.end(), 0.0);
            ATTN_COMPARE_NEAR(theory, p.trials * std::erf(kHistogramSigmas / std::sqrt(2.0)), 1e-6 * p.trials);
            // The middle bin holds what the normal says, within 5 standard errors.
            const int mid = h.bins() / 2;
            const double e = h.theoryCount[std::size_t(mid)];
            ATTN_COMPARE_NEAR(h.counts[std::size_t(mid)], e, 5 * std::sqrt(e));
        }
        // The bins scale with the divisor: the same draws fall in the same bins.
        QVERIFY(lab.of(ScoreScaling::Raw).histogram.counts == lab.of(ScoreScaling::Dk).histogram.counts
                || lab.of(ScoreScaling::Raw).histogram.counts == lab.of(ScoreScaling::SqrtDk).histogram.counts);
    }

    void exampleRowAndBounds()
    {
        ScalingLabParams p;
        p.dk = 64;
        p.keys = 5;
        p.trials = 3000;
        const ScalingLab lab = runScalingLab(p).value();
        for (const ScalingSeries &s : lab.series) {
            QCOMPARE(int(s.exampleWeights.size()), 5);
            QCOMPARE(int(s.exampleScores.size()), 5);
            ATTN_COMPARE_NEAR(std::accumulate(s.exampleWeights.begin(), s.exampleWeights.end(), 0.0), 1.0, 1e-12);
            // softmax of the scores it lists
            double z = 0;
            for (double x : s.exampleScores)
                z += std::exp(x - s.exampleScores[0]);
            ATTN_COMPARE_NEAR(s.exampleWeights[0], 1 / z, 1e-12);
            QVERIFY(s.keys.meanEntropy >= 0 && s.keys.meanEntropy <= std::log(5.0) + 1e-12);
            QVERIFY(s.threeWay.meanEntropy >= 0 && s.threeWay.meanEntropy <= std::log(3.0) + 1e-12);
            QVERIFY(s.keys.meanMaxWeight >= 0.2 - 1e-12 && s.keys.meanMaxWeight <= 1);
        }
        // The example row's first score is trial 1's pair score, q·k, scaled.
        const double first = lab.of(ScoreScaling::Raw).exampleScores[0];
        ATTN_COMPARE_NEAR(lab.of(ScoreScaling::SqrtDk).exampleScores[0], first / 8, 1e-12);
        ATTN_COMPARE_NEAR(lab.of(ScoreScaling::Dk).exampleScores[0], first / 64, 1e-12);
        Rng rng(p.seed);
        double dot = 0;
        std::vector<double> q(64);
        for (double &v : q)
            v = rng.normal();
        for (double v : q)
            dot += v * rng.normal();
        ATTN_COMPARE_NEAR(first, dot, 1e-12);
    }

    // The other keys' scores are drawn as |q| z (the exact distribution of
    // q·k_j given q). Held against keys drawn in full, d_k normals each.
    void keysMatchFullDraws()
    {
        const int dk = 16, n = 6, trials = 20000;
        Rng rng(99);
        double maxW = 0, entropy = 0;
        std::vector<double> q(dk), row(n);
        for (int t = 0; t < trials; ++t) {
            for (double &v : q)
                v = rng.normal();
            for (int j = 0; j < n; ++j) {
                double s = 0;
                for (double v : q)
                    s += v * rng.normal();
                row[std::size_t(j)] = s;
            }
            const double m = *std::max_element(row.begin(), row.end());
            double z = 0, ex = 0;
            for (double x : row)
                z += std::exp(x - m);
            for (double x : row)
                ex += std::exp(x - m) / z * (x - m);
            maxW += 1 / z / trials;
            entropy += (std::log(z) - ex) / trials;
        }
        ScalingLabParams p;
        p.dk = dk;
        p.keys = n;
        p.trials = trials;
        p.seed = 5;
        const ScalingLab lab = runScalingLab(p).value();
        // Two independent estimates of the same means: standard errors about 0.002 and 0.004.
        ATTN_COMPARE_NEAR(lab.of(ScoreScaling::Raw).keys.meanMaxWeight, maxW, 0.015);
        ATTN_COMPARE_NEAR(lab.of(ScoreScaling::Raw).keys.meanEntropy, entropy, 0.03);
    }

    void deterministicAndCompatible()
    {
        ScalingLabParams p;
        p.dk = 48;
        p.trials = 4000;
        p.seed = 11;
        const ScalingLab a = runScalingLab(p).value(), b = runScalingLab(p).value();
        for (ScoreScaling s : kAllScoreScalings) {
            QCOMPARE(a.of(s).variance, b.of(s).variance);
            QCOMPARE(a.of(s).keys.meanEntropy, b.of(s).keys.meanEntropy);
            QVERIFY(a.of(s).histogram.counts == b.of(s).histogram.counts);
            QVERIFY(a.of(s).exampleWeights == b.of(s).exampleWeights);
        }
        // The pair scores do not depend on n.
        ScalingLabParams more = p;
        more.keys = 20;
        const ScalingLab c = runScalingLab(more).value();
        QCOMPARE(c.of(ScoreScaling::Raw).variance, a.of(ScoreScaling::Raw).variance);
        QCOMPARE(c.of(ScoreScaling::Raw).threeWay.meanMaxWeight, a.of(ScoreScaling::Raw).threeWay.meanMaxWeight);
        // runScalingExperiment (the CLI's) gives the same numbers for the same draws.
        const ScalingExperiment e = runScalingExperiment(p.dk, p.seed, p.trials).value();
        const ScoreSummary *old[3] = {&e.raw, &e.scaled, &e.byDk};
        for (ScoreScaling s : kAllScoreScalings) {
            QCOMPARE(old[std::size_t(s)]->mean, a.of(s).mean);
            QCOMPARE(old[std::size_t(s)]->variance, a.of(s).variance);
            QCOMPARE(old[std::size_t(s)]->meanMaxWeight, a.of(s).threeWay.meanMaxWeight);
            QCOMPARE(old[std::size_t(s)]->meanEntropy, a.of(s).threeWay.meanEntropy);
            QCOMPARE(old[std::size_t(s)]->saturatedFraction, a.of(s).threeWay.saturatedFraction);
        }
        // The variance sweep measures the same draws.
        const auto swept = varianceSweep(p.seed, p.trials, {1, 48});
        QVERIFY(swept.ok());
        const std::vector<VariancePoint> &points = swept.value();
        QCOMPARE(int(points.size()), 2);
        QCOMPARE(points[1].dk, 48);
        for (ScoreScaling s : kAllScoreScalings)
            QCOMPARE(points[1].variance[std::size_t(s)], a.of(s).variance);
    }

    void refusesOverBudget()
    {
        ScalingLabParams p;
        p.dk = 1024;
        p.trials = 1000000;
        const std::string problem = checkScalingLab(p).value_or(Problem{}).message;
        QVERIFY2(problem.find("limit") != std::string::npos, problem.c_str());
        QVERIFY2(problem.find("at most 121") != std::string::npos, problem.c_str()); // 2.5e8 / 2055 trials
        QVERIFY(!runScalingLab(p).ok());
        QCOMPARE(runScalingLab(p).problem()->message, problem);
        p.trials = 20000;
        QVERIFY2(!checkScalingLab(p), checkScalingLab(p).value_or(Problem{}).message.c_str());
        p.keys = 1;
        QVERIFY(checkScalingLab(p));
        QCOMPARE(checkScalingLab(p)->place, std::string("keys"));
        p.keys = 8;
        p.dk = 0;
        QVERIFY(checkScalingLab(p));
        QCOMPARE(checkScalingLab(p)->place, std::string("dk"));
        const auto swept = varianceSweep(1, 1000000, powersOfTwoDk(1024));
        QVERIFY(!swept.ok());
        QVERIFY2(swept.problem()->message.find("limit") != std::string::npos, swept.problem()->message.c_str());
    }

    void stops()
    {
        ScalingLabParams p;
        p.dk = 512;
        p.trials = 100000;
        int calls = 0;
        const auto run = runScalingLab(p, [&calls] { return ++calls > 3; });
        QVERIFY(run.ok());
        QVERIFY(!run.value()); // no lab: stopped
        QCOMPARE(calls, 4);
    }

    // ---- the view: what it draws ----

    void viewDrawsTheData()
    {
        ScalingLabParams p;
        p.dk = 64;
        p.trials = 20000;
        ScalingLabData data;
        data.lab = runScalingLab(p).value();
        const auto swept = varianceSweep(p.seed, 2000, powersOfTwoDk(1024));
        QVERIFY(swept.ok());
        data.variance = swept.value();
        data.varianceTrials = 2000;
        data.handout = attn::handoutDraw(7, 64).value();

        ScalingLabView view;
        view.resize(1500, 1000);
        view.setData(data);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));

        for (ScoreScaling s : kAllScoreScalings) {
            QCustomPlot *plot = view.histogramPlot(s);
            const QList<QCPBars *> bars = plottablesOf<QCPBars>(plot);
            QCOMPARE(bars.size(), 1);
            const std::vector<int> &counts = data.lab->of(s).histogram.counts;
            const QVector<double> drawn = valuesOf(bars.first());
            QCOMPARE(drawn.size(), int(counts.size()));
            for (int i = 0; i < drawn.size(); ++i)
                QCOMPARE(drawn[i], double(counts[std::size_t(i)]));
            ATTN_COMPARE_NEAR(bars.first()->width(), data.lab->of(s).histogram.binWidth(), 1e-12);
            const QList<QCPGraph *> curves = plottablesOf<QCPGraph>(plot);
            QCOMPARE(curves.size(), 1);
            // The theoretical curve peaks at trials × bin width / √(2π σ²).
            const QVector<double> curve = valuesOf(curves.first());
            const double peak = *std::max_element(curve.begin(), curve.end());
            ATTN_COMPARE_NEAR(peak,
                              p.trials * data.lab->of(s).histogram.binWidth()
                                  / std::sqrt(2 * M_PI * data.lab->of(s).theoryVariance),
                              1e-6 * peak);
        }
        // One score axis for the three by default; each its own when asked.
        QCOMPARE(view.histogramPlot(ScoreScaling::Dk)->xAxis->range().upper,
                 view.histogramPlot(ScoreScaling::Raw)->xAxis->range().upper);
        ATTN_COMPARE_NEAR(view.histogramPlot(ScoreScaling::Raw)->xAxis->range().upper, 4.5 * 8, 1e-12);
        view.setCommonAxis(false);
        ATTN_COMPARE_NEAR(view.histogramPlot(ScoreScaling::SqrtDk)->xAxis->range().upper, 4.5, 1e-12);
        ATTN_COMPARE_NEAR(view.histogramPlot(ScoreScaling::Dk)->xAxis->range().upper, 4.5 / 8, 1e-12);
        view.setCommonAxis(true);

        // Variance plot: log-log, three measured series of 11 points over three theory lines, d_k marked.
        QCustomPlot *var = view.variancePlot();
        QCOMPARE(var->xAxis->scaleType(), QCPAxis::stLogarithmic);
        QCOMPARE(var->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(!var->xAxis->ticker().dynamicCast<QCPAxisTickerLog>().isNull());
        int measured = 0, theory = 0, current = 0;
        for (QCPGraph *g : plottablesOf<QCPGraph>(var)) {
            const QVector<double> v = valuesOf(g);
            if (g->objectName() == QLatin1String("measured")) {
                QCOMPARE(v.size(), 11);
                const int s = measured++;
                for (int i = 0; i < 11; ++i)
                    QCOMPARE(v[i], data.variance[std::size_t(i)].variance[std::size_t(s)]);
            } else if (g->objectName() == QLatin1String("theory")) {
                QCOMPARE(v.size(), 2);
                ++theory;
            } else if (g->objectName() == QLatin1String("current")) {
                QCOMPARE(v.size(), 1);
                QCOMPARE(g->data()->constBegin()->key, 64.0);
                QCOMPARE(v[0], data.lab->series[std::size_t(current++)].variance);
            }
        }
        QCOMPARE(measured, 3);
        QCOMPARE(theory, 3);
        QCOMPARE(current, 3);
        bool marked = false;
        for (int i = 0; i < var->itemCount(); ++i)
            if (auto *line = qobject_cast<QCPItemStraightLine *>(var->item(i)))
                marked = line->point1->coords().x() == 64 && line->point2->coords().x() == 64;
        QVERIFY(marked);

        // Gradient plot: per scaling the mean Jacobian norm (solid) and the
        // median |dw_1/dq| (dashed), 11 points each, from the core's numbers.
        ScalingLabParams gp;
        gp.trials = 200;
        for (int dk : powersOfTwoDk(1024)) {
            gp.dk = dk;
            data.gradients.push_back(scalingGradients(gp).value());
        }
        view.setData(data);
        int jacobians = 0, queries = 0;
        for (QCPGraph *g : plottablesOf<QCPGraph>(view.gradientPlot())) {
            const QVector<double> v = valuesOf(g);
            const bool jacobian = g->objectName() == QLatin1String("jacobian");
            if (!jacobian && g->objectName() != QLatin1String("queryGradient"))
                continue;
            QCOMPARE(v.size(), 11);
            const std::size_t sc = std::size_t(jacobian ? jacobians++ : queries++);
            for (int i = 0; i < 11; ++i) {
                const GradientSummary &want = data.gradients[std::size_t(i)].series[sc];
                QCOMPARE(v[i], std::max(1e-4, jacobian ? want.jacobianNorm : want.medianQueryGradientNorm));
            }
        }
        QCOMPARE(jacobians, 3);
        QCOMPARE(queries, 3);
        QCOMPARE(view.gradientPlot()->yAxis->scaleType(), QCPAxis::stLogarithmic);

        // Example row: three groups of n = 8 bars holding trial 1's weights.
        const QList<QCPBars *> rowBars = plottablesOf<QCPBars>(view.rowPlot());
        QCOMPARE(rowBars.size(), 3);
        for (ScoreScaling s : kAllScoreScalings) {
            const QVector<double> v = valuesOf(rowBars[int(s)]);
            QCOMPARE(v.size(), 8);
            for (int j = 0; j < 8; ++j)
                QCOMPARE(v[j], data.lab->of(s).exampleWeights[std::size_t(j)]);
        }

        // The softmax table: the numbers, to 4 decimals, and the shares in percent.
        QTableWidget *table = view.softmaxTable();
        QCOMPARE(table->rowCount(), 5);
        QCOMPARE(table->columnCount(), 6);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("softmax([s, 0, 0])"));
        QCOMPARE(table->columnSpan(0, 0), 3);
        QCOMPARE(table->item(0, 3)->text(), QStringLiteral("a row of 8 random keys"));
        QCOMPARE(table->item(1, 5)->text(), QStringLiteral("saturated\n(> 0.99)"));
        QCOMPARE(table->verticalHeaderItem(2)->text(), QStringLiteral("raw q·k"));
        const ScalingSeries &raw = data.lab->of(ScoreScaling::Raw);
        QCOMPARE(table->item(2, 0)->text(), QString::number(raw.threeWay.meanMaxWeight, 'f', 4));
        QCOMPARE(table->item(2, 4)->text(), QString::number(raw.keys.meanEntropy, 'f', 4));
        QCOMPARE(table->item(2, 5)->text(), QString::number(100 * raw.keys.saturatedFraction, 'f', 1) + QLatin1Char('%'));
        QCOMPARE(table->item(3, 2)->text(), QStringLiteral("0.0%"));
        QCOMPARE(table->item(4, 3)->text(),
                 QString::number(data.lab->of(ScoreScaling::Dk).keys.meanMaxWeight, 'f', 4));
        // No row hidden under a scroll bar or cut off.
        QCOMPARE(table->verticalScrollBar()->maximum(), 0);

        // The handout's draw beside what the handout printed.
        const QString handout = view.handoutLabel()->text();
        for (const char *needle : {"−7.0193", "−0.8774", "0.4998", "1.0331", "30.31", "3.79", "0.9682", "0.9568",
                                   "0.2081"})
            QVERIFY2(handout.contains(QString::fromUtf8(needle)), needle);

        // The picture: not blank, the three series' colours all present.
        const QImage image = view.grab().toImage().convertToFormat(QImage::Format_RGB32);
        QVERIFY(image.save(outPath(QStringLiteral("lab_view.png"))));
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 2)
            for (int x = 0; x < image.width(); x += 2)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 200, qPrintable(QString::number(colours.size())));
        for (ScoreScaling s : kAllScoreScalings)
            QVERIFY2(pixelsNear(image, scalingColour(s)) > 300,
                     qPrintable(QStringLiteral("%1: %2 pixels")
                                    .arg(QLatin1String(scalingKey(s)))
                                    .arg(pixelsNear(image, scalingColour(s)))));

        // At 1.5× the font (a projector's zoom) the plots keep their height
        // in lines, each line of a title fits its plot, and the two-line
        // header row shows both lines.
        QFont big = view.font();
        big.setPointSizeF(big.pointSizeF() * 1.5);
        view.setFont(big);
        QApplication::processEvents();
        QCoreApplication::sendPostedEvents();
        QApplication::processEvents();
        const QFontMetrics bigMetrics(big);
        for (const char *name : {"variancePlot", "gradientPlot"}) {
            auto *plot = view.findChild<QCustomPlot *>(QLatin1String(name));
            QVERIFY(plot);
            QVERIFY2(plot->minimumHeight() >= 16 * bigMetrics.height(), name);
            auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->element(0, 0));
            QVERIFY(title);
            for (const QString &line : title->text().split(QLatin1Char('\n')))
                QVERIFY2(QFontMetrics(title->font()).horizontalAdvance(line) <= plot->width(), qPrintable(line));
        }
        QVERIFY(table->rowHeight(1) >= 2 * bigMetrics.lineSpacing());
        QVERIFY(view.grab().save(outPath(QStringLiteral("lab_view_zoom150.png"))));
    }

    void viewWithoutData()
    {
        ScalingLabView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        for (ScoreScaling s : kAllScoreScalings)
            QCOMPARE(plottablesOf<QCPBars>(view.histogramPlot(s)).size(), 0);
        QCOMPARE(view.softmaxTable()->item(2, 0)->text(), QStringLiteral("–"));
        view.setMessage(QStringLiteral("Not computed: because."), true);
        QCOMPARE(view.message(), QStringLiteral("Not computed: because."));
    }

    // ---- the panel: background work, live and never stale ----

    void panelComputesInTheBackground()
    {
        ScalingLabPanel panel;
        panel.resize(1500, 1050);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCOMPARE(panel.dk(), 64);
        QCOMPARE(panel.params(), ScalingLabParams());
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 240000);
        QVERIFY(panel.view()->data().lab.has_value());
        QCOMPARE(panel.view()->data().lab->params, ScalingLabParams());
        QCOMPARE(int(panel.view()->data().variance.size()), 11);
        QCOMPARE(panel.view()->data().varianceTrials, 20000);
        // The gradient against d_k follows the variance sweep, in the same
        // job, and the panel counts as busy until it is on show (a
        // screenshot waits for that).
        QCOMPARE(int(panel.view()->data().gradients.size()), 11);
        QCOMPARE(panel.view()->data().gradients.back().dk, 1024);
        // The result on show is exactly the core's.
        const ScalingLab direct = runScalingLab(ScalingLabParams()).value();
        QCOMPARE(panel.view()->data().lab->of(ScoreScaling::Raw).variance, direct.of(ScoreScaling::Raw).variance);
        QVERIFY(panel.grab().save(outPath(QStringLiteral("lab_panel.png"))));

        // The slider's values: 1 to 1024 on a log scale with every power of two.
        const std::vector<int> &dks = ScalingLabPanel::sliderDks();
        QCOMPARE(dks.front(), 1);
        QCOMPARE(dks.back(), 1024);
        for (int d = 1; d <= 1024; d *= 2)
            QVERIFY2(std::find(dks.begin(), dks.end(), d) != dks.end(), qPrintable(QString::number(d)));
        QVERIFY(std::is_sorted(dks.begin(), dks.end()));
        QVERIFY(std::adjacent_find(dks.begin(), dks.end()) == dks.end());

        // A drag over the slider: the d_k on show at the end is the last one
        // asked for (how long a step takes is measured by hand, not asserted
        // here: docs/performance.md, "Responsiveness").
        QSignalSpy shown(&panel, &ScalingLabPanel::resultShown);
        for (int d : {1024, 900, 700, 512, 300, 128, 1024, 20}) {
            panel.setDk(d);
            QApplication::processEvents();
        }
        QCOMPARE(panel.dk(), 20);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 240000);
        QCOMPARE(panel.view()->data().lab->params.dk, 20);
        QCOMPARE(panel.shownGeneration(), panel.generation());
        QVERIFY(!panel.showsPreview());
        // Nothing older arrives afterwards. One worker runs the requests in
        // order, so an older run's result was queued before the one on show:
        // everything still queued is delivered here.
        for (int turn = 0; turn < 20; ++turn) {
            QCoreApplication::sendPostedEvents();
            QApplication::processEvents();
        }
        QCOMPARE(panel.view()->data().lab->params.dk, 20);

        // A slow run shows a preview first (a prefix of the same draws), then the whole.
        shown.clear();
        panel.setDk(1024);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 240000);
        QCOMPARE(panel.view()->data().lab->params.dk, 1024);
        QCOMPARE(panel.view()->data().lab->params.trials, 20000);
        QVERIFY(shown.size() >= 1);
        QCOMPARE(shown.last().first().toBool(), false);
        QVERIFY(panel.grab().save(outPath(QStringLiteral("lab_panel_1024.png"))));

        // Over the budget: refused with a message, nothing stale on show.
        panel.setTrials(1000000);
        QVERIFY(panel.view()->message().startsWith(QStringLiteral("Not computed")));
        QVERIFY(panel.view()->message().contains(QStringLiteral("limit")));
        QVERIFY(!panel.view()->data().lab.has_value());
        panel.setTrials(2000);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 240000);
        QCOMPARE(panel.view()->data().lab->params.trials, 2000);
        QCOMPARE(panel.view()->data().varianceTrials, 2000);

        // Seed and keys reach the run.
        panel.setSeed(3);
        panel.setKeys(4);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 240000);
        QCOMPARE(panel.view()->data().lab->params.seed, std::uint64_t(3));
        QCOMPARE(int(panel.view()->data().lab->of(ScoreScaling::Raw).exampleWeights.size()), 4);
    }

    // Closing the panel mid-run neither hangs nor crashes (a hang is caught
    // by the test's timeout, not by a clock here).
    void panelClosesMidRun()
    {
        {
            ScalingLabPanel panel;
            QSignalSpy shown(&panel, &ScalingLabPanel::resultShown);
            panel.setDk(1024);
            // The preview is on show: the worker is into the full run.
            QVERIFY(shown.wait(60000));
        }
    }
};

QTEST_MAIN(TestLab)
#include "test_lab.moc"
