// The plane's geometry (core/projection.h): axis-aligned and principal
// planes, moving a vector within a plane, and snapping to a grid.

#include "attn_test.h"

#include "projection.h"

#include <QTest>

using namespace attn;

class TestProjection : public QObject {
    Q_OBJECT

private slots:
    void axisPlaneShowsTwoCoordinates();
    void axisPlaneCorrectsItsChoice();
    void placeInAxisPlaneKeepsTheRestExactly();
    void oneDimensionIsALine();
    void principalPlaneFindsTheSpread();
    void principalPlaneIsDeterministic();
    void principalPlaneOfDegeneratePoints_data();
    void principalPlaneOfDegeneratePoints();
    void placeInPrincipalPlaneKeepsTheOrthogonalPart();
    void snapToGrid_data();
    void snapToGrid();
};

void TestProjection::axisPlaneShowsTwoCoordinates()
{
    const PlaneBasis b = axisPlane(4, 0, 2);
    QVERIFY(b.axisAligned());
    QCOMPARE(b.dimension(), 4);
    const Eigen::Vector4d v(1, 2, 3, 4);
    QCOMPARE(projectToPlane(b, v), Eigen::Vector2d(1, 3));
    const Matrix rows{{1, 2, 3, 4}, {-1, -2, -3, -4}};
    QCOMPARE(projectRows(b, rows), Matrix(Matrix{{1, 3}, {-1, -3}}));
    QCOMPARE(Matrix(rows * b.U), projectRows(b, rows)); // U agrees with the shortcut
}

void TestProjection::axisPlaneCorrectsItsChoice()
{
    PlaneBasis b = axisPlane(3, 2, 2); // the same dimension twice
    QCOMPARE(b.first, 2);
    QCOMPARE(b.second, 0);
    b = axisPlane(3, 7, -1); // out of range: clamped
    QCOMPARE(b.first, 2);
    QCOMPARE(b.second, 0);
}

void TestProjection::placeInAxisPlaneKeepsTheRestExactly()
{
    const PlaneBasis b = axisPlane(4, 1, 3);
    const Eigen::Vector4d v(0.1, 0.2, 0.3, 0.7);
    const Eigen::VectorXd moved = placeInPlane(b, v, Eigen::Vector2d(0.3, -0.1));
    QCOMPARE(moved(0), 0.1);
    QCOMPARE(moved(2), 0.3);
    QCOMPARE(moved(1), 0.3); // the target itself, not 0.2 + (0.3 - 0.2)
    QCOMPARE(moved(3), -0.1);
}

void TestProjection::oneDimensionIsALine()
{
    const PlaneBasis b = axisPlane(1, 0, 1);
    QCOMPARE(b.first, 0);
    QCOMPARE(b.second, -1);
    Eigen::VectorXd v(1);
    v << 2.5;
    QCOMPARE(projectToPlane(b, v), Eigen::Vector2d(2.5, 0));
    QCOMPARE(projectRows(b, Matrix{{1}, {-2}}), Matrix(Matrix{{1, 0}, {-2, 0}}));
    QCOMPARE(placeInPlane(b, v, Eigen::Vector2d(-1, 9))(0), -1.0);
}

void TestProjection::principalPlaneFindsTheSpread()
{
    // Points in the plane spanned by a = (1, 1, 0, 0)/√2 and b = (0, 0, 1, 0),
    // more spread along a, plus a little along e4.
    const double r = 1.0 / std::sqrt(2.0);
    Matrix p(4, 4);
    p << 3 * r, 3 * r, 0, 0.01,
        -3 * r, -3 * r, 0, -0.01,
         0, 0, 1, 0.01,
         0, 0, -1, 0;
    const PlaneBasis b = principalPlane(p);
    QVERIFY(!b.axisAligned());
    ATTN_COMPARE_MATRIX(b.U.transpose() * b.U, Matrix(Matrix::Identity(2, 2)), 1e-12);
    ATTN_COMPARE_NEAR(std::abs(b.U(0, 0)), r, 1e-4);
    ATTN_COMPARE_NEAR(std::abs(b.U(1, 0)), r, 1e-4);
    ATTN_COMPARE_NEAR(std::abs(b.U(2, 1)), 1.0, 1e-4);
    QVERIFY(b.explained(0) > b.explained(1));
    // At least what the plane of a and b holds (20 of 20.0003), and not all.
    const double held = b.explained(0) + b.explained(1);
    ATTN_CHECK(held >= 20.0 / 20.0003 && held < 1.0, QStringLiteral("held %1").arg(test::num(held)));
    // Signs: each column's largest entry is positive.
    for (int c = 0; c < 2; ++c) {
        Eigen::Index at = 0;
        b.U.col(c).cwiseAbs().maxCoeff(&at);
        QVERIFY(b.U(at, c) > 0);
    }
}

void TestProjection::principalPlaneIsDeterministic()
{
    Matrix p(5, 3);
    p << 1, 2, 0.5, -1, 0.3, 2, 0.2, -1, 1, 3, 1, -0.5, 0, 0, 1;
    const PlaneBasis a = principalPlane(p), b = principalPlane(-p); // same plane, same picture
    ATTN_COMPARE_MATRIX(a.U, b.U, 1e-12);
}

void TestProjection::principalPlaneOfDegeneratePoints_data()
{
    QTest::addColumn<Matrix>("points");
    QTest::newRow("none") << Matrix(0, 3);
    QTest::newRow("all zero") << Matrix(Matrix::Zero(4, 3));
    QTest::newRow("on one line") << Matrix(Matrix{{1, 2, 0}, {-2, -4, 0}, {0.5, 1, 0}});
    QTest::newRow("one point") << Matrix(Matrix{{0, 0, 3}});
}

void TestProjection::principalPlaneOfDegeneratePoints()
{
    QFETCH(Matrix, points);
    const PlaneBasis b = principalPlane(points);
    QVERIFY(b.U.allFinite());
    ATTN_COMPARE_MATRIX(b.U.transpose() * b.U, Matrix(Matrix::Identity(2, 2)), 1e-12);
    QVERIFY(b.explained.allFinite());
    QVERIFY(b.explained.sum() <= 1.0 + 1e-12);
}

void TestProjection::placeInPrincipalPlaneKeepsTheOrthogonalPart()
{
    Matrix p(4, 4);
    p << 1, 0.2, 0.3, 0.1, 0.1, 1, -0.2, 0.4, -0.5, 0.3, 1, 0.2, 0.7, -0.1, 0.2, 1;
    const PlaneBasis b = principalPlane(p);
    const Eigen::Vector4d v(0.3, -1.7, 2.2, 0.9);
    const Eigen::Vector2d target(1.25, -0.5);
    const Eigen::VectorXd moved = placeInPlane(b, v, target);
    ATTN_COMPARE_MATRIX(projectToPlane(b, moved), target, 1e-12);
    const Matrix P = Matrix::Identity(4, 4) - b.U * b.U.transpose();
    ATTN_COMPARE_MATRIX(P * moved, P * v, 1e-12);
}

void TestProjection::snapToGrid_data()
{
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("step");
    QTest::addColumn<double>("expected");
    QTest::newRow("0.29 to 0.3") << 0.29 << 0.1 << 0.3;
    QTest::newRow("0.1+0.2 to 0.3") << 0.1 + 0.2 << 0.1 << 0.3;
    QTest::newRow("-0.04 to 0, not -0") << -0.04 << 0.1 << 0.0;
    QTest::newRow("0.74 to 0.5") << 0.74 << 0.5 << 0.5;
    QTest::newRow("0.76 to 1") << 0.76 << 0.5 << 1.0;
    QTest::newRow("-1.26 to -1.25") << -1.26 << 0.25 << -1.25;
    QTest::newRow("2.5 to 3 (half away from 0)") << 2.5 << 1.0 << 3.0;
    QTest::newRow("step 2") << 2.9 << 2.0 << 2.0;
    QTest::newRow("no step") << 0.123 << 0.0 << 0.123;
    QTest::newRow("large") << 12345.67 << 0.1 << 12345.7;
}

void TestProjection::snapToGrid()
{
    QFETCH(double, x);
    QFETCH(double, step);
    QFETCH(double, expected);
    const double snapped = attn::snapToGrid(x, step);
    QCOMPARE(snapped, expected); // exactly: the double nearest the grid value
    QVERIFY(!std::signbit(snapped) || snapped != 0);
}

QTEST_MAIN(TestProjection)
#include "test_projection.moc"
