#include "projection.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cassert>
#include <cmath>

namespace attn {

namespace {

// Makes the first entry of largest magnitude positive.
void fixSign(Eigen::Ref<Eigen::VectorXd> u)
{
    if (u.size() == 0)
        return;
    Eigen::Index at = 0;
    u.cwiseAbs().maxCoeff(&at);
    if (u(at) < 0)
        u = -u;
}

} // namespace

PlaneBasis axisPlane(int d, int first, int second)
{
    assert(d >= 1);
    PlaneBasis b;
    b.U = Matrix::Zero(d, 2);
    if (d == 1) {
        b.first = 0;
        b.second = -1;
        b.U(0, 0) = 1.0;
        return b;
    }
    first = std::clamp(first, 0, d - 1);
    second = std::clamp(second, 0, d - 1);
    if (first == second)
        second = first == 0 ? 1 : 0;
    b.first = first;
    b.second = second;
    b.U(first, 0) = 1.0;
    b.U(second, 1) = 1.0;
    return b;
}

PlaneBasis principalPlane(const Eigen::Ref<const Matrix> &points)
{
    const Eigen::Index d = points.cols();
    assert(d >= 2);
    PlaneBasis b;
    b.U = Matrix::Zero(d, 2);
    const Matrix moment = points.transpose() * points; // d by d, symmetric
    const double total = moment.trace();
    if (!(total > 0)) { // no points, or all at the origin: the first two axes
        b.U(0, 0) = 1.0;
        b.U(1, 1) = 1.0;
        return b;
    }
    const Eigen::SelfAdjointEigenSolver<Matrix> eig(moment);
    // Eigenvalues ascend: the last two columns are the principal directions.
    const Eigen::VectorXd lambda = eig.eigenvalues().cwiseMax(0.0);
    b.U.col(0) = eig.eigenvectors().col(d - 1);
    b.U.col(1) = eig.eigenvectors().col(d - 2);

    // A direction with (numerically) nothing along it is arbitrary: replace
    // it by the first coordinate axis that is independent of the others, so
    // the picture is the same on every machine.
    const double tiny = 1e-12 * lambda(d - 1);
    for (int c = 0; c < 2; ++c) {
        if (lambda(d - 1 - c) > tiny)
            continue;
        for (Eigen::Index axis = 0; axis < d; ++axis) {
            Eigen::VectorXd e = Eigen::VectorXd::Unit(d, axis);
            for (int k = 0; k < c; ++k)
                e -= b.U.col(k).dot(e) * b.U.col(k);
            if (e.norm() > 0.5) {
                b.U.col(c) = e.normalized();
                break;
            }
        }
    }
    fixSign(b.U.col(0));
    fixSign(b.U.col(1));
    // The share each direction captures, measured on the final directions.
    for (int c = 0; c < 2; ++c)
        b.explained(c) = (points * b.U.col(c)).squaredNorm() / total;
    return b;
}

Eigen::Vector2d projectToPlane(const PlaneBasis &b, const Eigen::Ref<const Eigen::VectorXd> &v)
{
    assert(v.size() == b.U.rows());
    if (b.axisAligned())
        return {v(b.first), b.second >= 0 ? v(b.second) : 0.0};
    return b.U.transpose() * v;
}

Matrix projectRows(const PlaneBasis &b, const Eigen::Ref<const Matrix> &rows)
{
    assert(rows.cols() == b.U.rows());
    if (b.axisAligned()) {
        Matrix out = Matrix::Zero(rows.rows(), 2);
        out.col(0) = rows.col(b.first);
        if (b.second >= 0)
            out.col(1) = rows.col(b.second);
        return out;
    }
    return rows * b.U;
}

Eigen::VectorXd placeInPlane(const PlaneBasis &b, const Eigen::Ref<const Eigen::VectorXd> &v,
                             const Eigen::Vector2d &target)
{
    assert(v.size() == b.U.rows());
    Eigen::VectorXd out = v;
    if (b.axisAligned()) {
        out(b.first) = target(0);
        if (b.second >= 0)
            out(b.second) = target(1);
        return out;
    }
    out.noalias() += b.U * (target - b.U.transpose() * v);
    return out;
}

double snapToGrid(double x, double step)
{
    if (!(step > 0) || !std::isfinite(x))
        return x;
    const double k = std::round(1.0 / step);
    double snapped;
    if (k >= 1 && std::abs(k * step - 1.0) < 1e-12)
        snapped = std::round(x * k) / k; // step = 1/k: exact quotients of integers
    else
        snapped = std::round(x / step) * step;
    return snapped == 0 ? 0.0 : snapped; // no -0
}

} // namespace attn
