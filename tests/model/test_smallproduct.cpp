// blas::multiplyFloat for one to four rows (a key's new positions), which
// runs smallproduct_avx2.cpp's loops where the processor has AVX2 and FMA:
// against the same product in double, for both layouts of the weights,
// sizes that leave remainders in every loop (k not a multiple of 4 or 16, n
// not a multiple of 8, fewer columns than threads' runs), and one row or
// four. A float32 sum of k products is off by about sqrt(k) * 2^-24 of the
// sum of their sizes; the bound below is 8 times that. And the same bits
// whatever the number of threads (b's rows are always summed in two halves).

#include "attn_test.h"
#include "blas.h"

#include <QObject>
#include <QTest>

#include <random>

#if defined(_OPENMP)
#include <omp.h>
#endif

using namespace attn;

class TestSmallProduct : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        qInfo("small products through the AVX2 loops: %s", blas::smallProducts() ? "yes" : "no (Eigen or the BLAS)");
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !qEnvironmentVariableIsSet("ATTN_NO_BLAS"))
            QVERIFY(blas::smallProducts());
    }

    void againstDouble_data()
    {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("n");
        QTest::addColumn<bool>("transposed");
        for (const bool t : {false, true}) {
            const char *tag = t ? "transposed" : "plain";
            QTest::newRow(qPrintable(QStringLiteral("1x768x2304 %1").arg(tag))) << 1 << 768 << 2304 << t;
            QTest::newRow(qPrintable(QStringLiteral("2x701x333 %1").arg(tag))) << 2 << 701 << 333 << t;
            QTest::newRow(qPrintable(QStringLiteral("3x3073x37 %1").arg(tag))) << 3 << 3073 << 37 << t;
            QTest::newRow(qPrintable(QStringLiteral("4x130x1001 %1").arg(tag))) << 4 << 130 << 1001 << t;
        }
    }

    void againstDouble()
    {
        QFETCH(int, m);
        QFETCH(int, k);
        QFETCH(int, n);
        QFETCH(bool, transposed);
        const unsigned seed = std::random_device{}();
        std::mt19937 rng(seed);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        const Eigen::MatrixXf a = Eigen::MatrixXf::NullaryExpr(m, k, [&] { return normal(rng); });
        const FloatMatrix b = FloatMatrix::NullaryExpr(transposed ? n : k, transposed ? k : n, [&] { return normal(rng); });
        const Eigen::MatrixXf c = blas::multiplyFloat(a, b, transposed);
        QCOMPARE(c.rows(), Eigen::Index(m));
        QCOMPARE(c.cols(), Eigen::Index(n));
        const Eigen::MatrixXd ad = a.cast<double>();
        const Eigen::MatrixXd bd = b.cast<double>();
        const Eigen::MatrixXd want = transposed ? Eigen::MatrixXd(ad * bd.transpose()) : Eigen::MatrixXd(ad * bd);
        const Eigen::MatrixXd size = transposed ? Eigen::MatrixXd(ad.cwiseAbs() * bd.cwiseAbs().transpose())
                                                : Eigen::MatrixXd(ad.cwiseAbs() * bd.cwiseAbs());
        const double eps = std::ldexp(1.0, -24);
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                const double bound = 8 * std::sqrt(double(k)) * eps * size(i, j) + 1e-30;
                if (std::abs(double(c(i, j)) - want(i, j)) > bound)
                    QFAIL(qPrintable(QStringLiteral("seed %1: (%2, %3) = %4, in double %5 (bound %6)")
                                         .arg(seed).arg(i).arg(j).arg(double(c(i, j)), 0, 'g', 9)
                                         .arg(want(i, j), 0, 'g', 9).arg(bound, 0, 'g', 3)));
            }
    }

    void sameBitsWithAnyThreads_data() { againstDouble_data(); }

    void sameBitsWithAnyThreads()
    {
#if !defined(_OPENMP)
        QSKIP("built without OpenMP: one thread only");
#else
        QFETCH(int, m);
        QFETCH(int, k);
        QFETCH(int, n);
        QFETCH(bool, transposed);
        std::mt19937 rng(7);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        const Eigen::MatrixXf a = Eigen::MatrixXf::NullaryExpr(m, k, [&] { return normal(rng); });
        const FloatMatrix b = FloatMatrix::NullaryExpr(transposed ? n : k, transposed ? k : n, [&] { return normal(rng); });
        const int before = omp_get_max_threads();
        omp_set_num_threads(1);
        const Eigen::MatrixXf one = blas::multiplyFloat(a, b, transposed);
        for (const int threads : {2, 3, 4}) {
            omp_set_num_threads(threads);
            const Eigen::MatrixXf c = blas::multiplyFloat(a, b, transposed);
            QCOMPARE(c.rows(), one.rows());
            QCOMPARE(c.cols(), one.cols());
            for (Eigen::Index i = 0; i < c.size(); ++i)
                if (c.data()[i] != one.data()[i]) {
                    omp_set_num_threads(before);
                    QFAIL(qPrintable(QStringLiteral("%1 threads: entry %2 is %3, with one thread %4")
                                         .arg(threads).arg(i).arg(double(c.data()[i]), 0, 'g', 9)
                                         .arg(double(one.data()[i]), 0, 'g', 9)));
                }
        }
        omp_set_num_threads(before);
#endif
    }
};

QTEST_GUILESS_MAIN(TestSmallProduct)
#include "test_smallproduct.moc"
