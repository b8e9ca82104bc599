#pragma once
// Exact gradients (double precision) of a scalar loss through the whole
// attention chain of compute(): the reverse of attention.h, stage by stage.
//
//   Y = concat * W_o (or concat)          dconcat = dY W_o^T,  dW_o = concat^T dY
//   out_h = w V_h                          dw = dout V_h^T,      dV_h = w^T dout
//   w = softmax(x) (mask before)           dx_k = w_k (g_k - sum_j g_j w_j), blocked: 0
//   w = [open] softmax over all (after)    dx_k = p_k ([k open] g_k - sum_open g_j p_j)
//   x = s / (c tau)                        ds = dx / (c tau),    dtau = -sum dx s / (c tau^2)
//   s = q.k | cos(q, k) | -|q - k|^2       dq, dk per similarity (backward.cpp)
//   RoPE: y = R(theta) x                   dx = R(theta)^T dy
//   Q = (X + P) W_q, ...                   dW_q = (X + P)^T dQ,  dX = dQ W_q^T (+ dK W_k^T + dV W_v^T)
// The positional tables are fixed (the learned one by its seed): they pass
// the gradient through and receive none.
//
// With the mask after the softmax, p is the softmax over the whole row and a
// blocked entry's weight is forced to 0 afterwards: its score still moves the
// row's other weights through the denominator, so its gradient is not 0.

#include "attention.h"
#include "edit.h"
#include "result.h"
#include "scenario.h"

#include <variant>
#include <vector>

namespace attn {

// L = -(1 / (h n_q)) sum over heads h and rows i where key `key` is open of
// log w(h, i, key). `key` is 0-based.
struct AttendLoss {
    int key = 0;
};
// L = 1/2 sum (Y - T)^2, Y the final output (n_q by d_out).
struct TargetLoss {
    Matrix target;
};
using Loss = std::variant<AttendLoss, TargetLoss>;

struct HeadGradient {
    Matrix scores;  // n_q by n_k: dL/d scores, the raw similarities (before / (c tau))
    Matrix weights; // n_q by n_k: dL/d weights
};

struct NamedGradient {
    MatrixId id;    // the scenario matrix, named as its file names it (matrixName)
    Matrix grad;    // its shape
};

struct Gradients {
    double loss = 0;
    // Direct mode: Q, K, V. Projected: X, source (cross-attention), Wq, Wk,
    // Wv, Wo (when present). The file's order.
    std::vector<NamedGradient> inputs;
    std::vector<HeadGradient> heads;
    double temperature = 0; // dL/d tau

    const Matrix *of(MatrixId id) const;
};

// Checks the loss against the trace's shapes: the key in range and open in
// some row; the target the output's shape. A Problem ("loss", "target")
// otherwise.
std::optional<Problem> checkLoss(const Trace &t, const Loss &loss);

// The loss of trace t (no gradient). Assumes checkLoss passed.
double lossValue(const Scenario &s, const Trace &t, const Loss &loss);

// The gradients for scenario s, its trace t (compute(s)), and a loss. A
// Problem where the gradient is undefined: the cosine of a zero vector that
// the loss reaches, or log of a weight that is 0 to double precision.
Result<Gradients> backward(const Scenario &s, const Trace &t, const Loss &loss);

// validate, compute and backward in one.
Result<Gradients> gradients(const Scenario &s, const Loss &loss);

// The softmax's probabilities p of row `row` of head `head` (n_k), in
// double with std::exp: over the open entries before the softmax (the
// weights), over the whole row after it (the weights are p with the blocked
// entries set to 0). All 0 for a row with no entry taking part. With
// softmax_1 the denominator has 1 more (p sums below 1); the Jacobian keeps
// the form diag(p) - p p^T, since d(1)/dx = 0.
Eigen::VectorXd softmaxRowProbabilities(const Trace &t, int head, int row, MaskStage stage,
                                        SoftmaxKind kind = SoftmaxKind::Standard);

// The softmax's Jacobian dw/dx at weights w (n): diag(w) - w w^T, n by n.
Matrix softmaxJacobian(const Eigen::Ref<const Eigen::VectorXd> &w);

} // namespace attn
