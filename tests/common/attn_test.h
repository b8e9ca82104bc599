#pragma once
// Shared helpers of the Qt Test suite: comparisons that print both numbers on
// failure, and where the tests find the source and build trees.

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QTest>

#include <Eigen/Dense>

#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

namespace attn::test {

using Rows = std::vector<std::vector<double>>;

// Seventeen digits: enough to tell any two doubles apart in a failure message.
inline QString num(double v)
{
    return QString::number(v, 'g', 17);
}

// The same shape and the same bits (-0 and 0 differ, NaN equals itself).
inline bool sameBits(const Eigen::MatrixXd &a, const Eigen::MatrixXd &b)
{
    return a.rows() == b.rows() && a.cols() == b.cols()
           && std::memcmp(a.data(), b.data(), sizeof(double) * std::size_t(a.size())) == 0;
}

// |a - b| <= abs + rel * max(|a|, |b|). NaN is never close to anything.
inline bool close(double a, double b, double rel, double abs)
{
    if (a == b)
        return true; // also equal infinities
    const double diff = std::abs(a - b);
    return diff <= abs + rel * std::max(std::abs(a), std::abs(b));
}

inline std::optional<QString> valueMismatch(double actual, double expected, double rel, double abs)
{
    if (close(actual, expected, rel, abs))
        return std::nullopt;
    return QStringLiteral("got %1, expected %2 (difference %3)")
        .arg(num(actual), num(expected), num(actual - expected));
}

// The first entry where two matrices differ, with both values; none when they agree.
template <typename A, typename B>
std::optional<QString> matrixMismatch(const A &actual, const B &expected, double rel, double abs)
{
    if (actual.rows() != expected.rows() || actual.cols() != expected.cols())
        return QStringLiteral("shape %1x%2, expected %3x%4")
            .arg(actual.rows()).arg(actual.cols()).arg(expected.rows()).arg(expected.cols());
    for (Eigen::Index i = 0; i < actual.rows(); ++i)
        for (Eigen::Index j = 0; j < actual.cols(); ++j)
            if (auto m = valueMismatch(double(actual(i, j)), double(expected(i, j)), rel, abs))
                return QStringLiteral("entry (%1, %2): %3").arg(i).arg(j).arg(*m);
    return std::nullopt;
}

// The same, against plain rows of numbers.
template <typename A>
std::optional<QString> matrixMismatch(const A &actual, const Rows &expected, double rel, double abs)
{
    const Eigen::Index cols = expected.empty() ? 0 : Eigen::Index(expected.front().size());
    Eigen::MatrixXd e(Eigen::Index(expected.size()), cols);
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (Eigen::Index(expected[i].size()) != cols)
            return QStringLiteral("expected rows of different lengths (a bug in the test)");
        for (std::size_t j = 0; j < expected[i].size(); ++j)
            e(Eigen::Index(i), Eigen::Index(j)) = expected[i][j];
    }
    return matrixMismatch(actual, e, rel, abs);
}

template <typename A>
std::optional<QString> nonFinite(const A &m)
{
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            if (!std::isfinite(double(m(i, j))))
                return QStringLiteral("entry (%1, %2) is %3").arg(i).arg(j).arg(num(double(m(i, j))));
    return std::nullopt;
}

// Where ctest says the trees are; the compile-time fallback lets a test binary run by hand.
inline QString sourceDir()
{
    const QString dir = qEnvironmentVariable("ATTN_SOURCE_DIR");
#ifdef ATTN_TEST_SOURCE_DIR
    if (dir.isEmpty())
        return QStringLiteral(ATTN_TEST_SOURCE_DIR);
#endif
    return dir;
}

// The environment for a child that opens windows: Qt's offscreen platform,
// so that it needs no display.
inline QProcessEnvironment offscreenEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    return env;
}

inline QString binaryDir()
{
    const QString dir = qEnvironmentVariable("ATTN_BINARY_DIR");
#ifdef ATTN_TEST_BINARY_DIR
    if (dir.isEmpty())
        return QStringLiteral(ATTN_TEST_BINARY_DIR);
#endif
    return dir;
}

} // namespace attn::test

// Fails the current test with both values when |actual - expected| > tol.
#define ATTN_COMPARE_NEAR(actual, expected, tol)                                                            \
    do {                                                                                                    \
        const double attnActual_ = double(actual);                                                          \
        const double attnExpected_ = double(expected);                                                      \
        if (!(std::abs(attnActual_ - attnExpected_) <= double(tol)))                                        \
            QFAIL(qPrintable(QStringLiteral("%1 is %2, expected %3 = %4 (difference %5, tolerance %6)")      \
                                 .arg(QStringLiteral(#actual), attn::test::num(attnActual_),                \
                                      QStringLiteral(#expected), attn::test::num(attnExpected_),            \
                                      attn::test::num(attnActual_ - attnExpected_),                         \
                                      attn::test::num(double(tol)))));                                      \
    } while (false)

// Fails with `context` and the description when an optional<QString> mismatch is set.
#define ATTN_VERIFY_NO_MISMATCH(mismatch, context)                                                          \
    do {                                                                                                    \
        if (const std::optional<QString> attnMismatch_ = (mismatch))                                        \
            QFAIL(qPrintable(QString(context) + QStringLiteral(": ") + *attnMismatch_));                     \
    } while (false)

// Fails with `message` (a QString expression, built only on failure) unless `condition` holds.
#define ATTN_CHECK(condition, message)                                                                      \
    do {                                                                                                    \
        if (!(condition))                                                                                   \
            QFAIL(qPrintable(QString(message)));                                                            \
    } while (false)

// Matrix against expected (Eigen or plain rows), entry by entry, within an absolute tolerance.
#define ATTN_COMPARE_MATRIX(actual, expected, tol)                                                          \
    ATTN_VERIFY_NO_MISMATCH(attn::test::matrixMismatch((actual), (expected), 0.0, double(tol)),             \
                            QStringLiteral(#actual))
