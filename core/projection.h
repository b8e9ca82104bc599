#pragma once
// A plane through the origin of a d-dimensional space, for drawing vectors
// of any width on a flat screen and moving them there: either two of the
// coordinate axes (dimensions a and b, drawn exactly) or the two principal
// directions of a set of vectors (a projection). Pure functions; the vector
// plane view builds on them.

#include "scenario.h"

namespace attn {

struct PlaneBasis {
    // d by 2, orthonormal columns (for d = 1: one column e_1 and one zero
    // column). The plane coordinates of v are U^T v.
    Matrix U;
    // Axis-aligned planes: the dimensions shown on the horizontal and
    // vertical axes (0-based). second is -1 when d = 1 (the vertical
    // coordinate is then 0). Both -1 for a principal plane.
    int first = -1;
    int second = -1;
    // Principal planes: the share of sum_i |v_i|^2 that each direction
    // captures (the plane shows explained(0) + explained(1) of it).
    Eigen::Vector2d explained = Eigen::Vector2d::Zero();

    bool axisAligned() const { return first >= 0; }
    int dimension() const { return int(U.rows()); }
};

// Dimensions `first` and `second` (0-based, distinct, both below d) of a
// d-dimensional space; d = 1 takes first = 0 and ignores second.
PlaneBasis axisPlane(int d, int first, int second);

// The plane through the origin that fits the rows of `points` best (least
// squares): the top two eigenvectors of points^T points, i.e. PCA without
// centring, so the origin stays at the origin and arrows stay arrows.
// Inputs: points, m by d with d >= 2 (m may be 0). Output: U is d by 2; each
// column's largest entry in magnitude (the first such) is positive, so that
// the same points give the same picture. Directions the points do not span
// are completed with coordinate axes.
PlaneBasis principalPlane(const Eigen::Ref<const Matrix> &points);

// Plane coordinates of one vector (d entries) and of each row of `rows`
// (m by d, giving m by 2).
Eigen::Vector2d projectToPlane(const PlaneBasis &b, const Eigen::Ref<const Eigen::VectorXd> &v);
Matrix projectRows(const PlaneBasis &b, const Eigen::Ref<const Matrix> &rows);

// v moved within the plane so that its plane coordinates become `target`,
// every coordinate the plane does not show kept:
//   axis-aligned: v[first] = target(0) and v[second] = target(1) exactly
//                 (only target(0) when d = 1); the other entries untouched;
//   principal:    v + U (target - U^T v); the component of v orthogonal to
//                 the plane is unchanged up to rounding.
Eigen::VectorXd placeInPlane(const PlaneBasis &b, const Eigen::Ref<const Eigen::VectorXd> &v,
                             const Eigen::Vector2d &target);

// x rounded to the nearest multiple of step (step > 0; step <= 0 returns x).
// For steps 1/k with a whole k (0.1, 0.25, 0.5, 1) it computes round(x k)/k,
// so 0.29 snaps to the double nearest 0.3 and 1.26 to exactly 1.25; never -0.
double snapToGrid(double x, double step);

} // namespace attn
