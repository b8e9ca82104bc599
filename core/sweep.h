#pragma once
// Sweeps and hard attention, as pure functions the window draws:
// what each row's weights do as the temperature runs over a grid (entropy
// and largest weight against tau: "low tau nearly one-hot, high tau
// uniform" as a curve), the query turned about the origin within a plane,
// and top-k attention beside the softmax (soft nearest neighbours against
// hard k-NN).

#include "attention.h"
#include "projection.h"

#include <vector>

namespace attn {

// The temperature sweep runs over [kSweepMinTemperature, kSweepMaxTemperature].
inline constexpr double kSweepMinTemperature = 0.05;
inline constexpr double kSweepMaxTemperature = 20.0;

// n values from lo to hi, equally spaced on a log scale: the first is lo and
// the last hi exactly. lo, hi > 0; n >= 2 (n = 1 gives {lo}; n <= 0 nothing).
std::vector<double> logGrid(double lo, double hi, int n);

// Each row's entropy and largest weight at each temperature of a grid.
struct TemperatureCurves {
    std::vector<double> taus;       // n_tau, as given
    Matrix entropy;                 // n_tau by n_q: -sum w ln w (nats) of row i at taus[t]
    Matrix maxWeight;               // n_tau by n_q
    Eigen::VectorXd uniformEntropy; // n_q: ln(open keys of the row), what a high tau approaches; 0 when fully masked
};

// The weights at temperature tau are maskedSoftmax(scores / (c tau), blocked, stage, kind).
// Inputs: scores, n_q by n_k (before scaling); blocked, n_q by n_k or empty
// (nothing blocked); c > 0, the scale constant (scaleConstant); taus, each > 0.
// Output: the curves, n_tau by n_q.
TemperatureCurves temperatureCurves(const Eigen::Ref<const Matrix> &scores, const BoolMatrix &blocked, MaskStage stage,
                                    double c, const std::vector<double> &taus,
                                    SoftmaxKind kind = SoftmaxKind::Standard);
// The same for head `head` (0-based, clamped) of a valid scenario: its scores,
// mask and scale; the scenario's own temperature is ignored.
TemperatureCurves temperatureCurves(const Scenario &s, int head, const std::vector<double> &taus);

// v turned by `angle` radians (counter-clockwise in the picture) about the
// origin within plane b, every coordinate the plane does not show kept.
// Inputs: v, d entries (b.dimension()). Output: d entries. A v whose plane
// coordinates are (0, 0) comes back unchanged.
Eigen::VectorXd rotateInPlane(const PlaneBasis &b, const Eigen::Ref<const Eigen::VectorXd> &v, double angle);

// Hard attention beside the soft one. For each row, the k largest weights
// among its open entries (not blocked; ties: the lower column first; all of
// them when fewer than k are open):
//   weights: those weights renormalised to sum 1, every other entry 0
//            (top-k softmax);
//   knn:     1/k' on each of them (k' = how many were kept), every other 0:
//            the plain average of the k nearest neighbours' values;
//   output, knnOutput: weights * V and knn * V.
// A fully masked row stays 0.
struct TopK {
    int k = 0;
    Matrix weights;   // n_q by n_k
    Matrix knn;       // n_q by n_k
    Matrix output;    // n_q by d_v
    Matrix knnOutput; // n_q by d_v
};
// Inputs: weights, n_q by n_k (softmax weights); blocked, n_q by n_k or empty;
// V, n_k by d_v; k >= 1 (clamped).
TopK topK(const Eigen::Ref<const Matrix> &weights, const BoolMatrix &blocked, const Eigen::Ref<const Matrix> &V, int k);

} // namespace attn
