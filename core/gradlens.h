#pragma once
// The gradient lens: the losses a teacher picks in a sentence, a gradient
// cell written out by hand (as explain.h writes the forward's), and one step
// of gradient descent on a row. Pure mathematics on backward.h; the words
// around the numbers belong to the window (translated).

#include "backward.h"
#include "numbers.h"

#include <string>

namespace attn {

// "Move the output of query `query` towards what it would be if it attended
// to token `token` alone": L = ½‖y_i − t‖², t = the concatenated V row of the
// token (times W_O when present); every other output row is its own target,
// so only row i pulls. `query` and `token` are 0-based and in range.
TargetLoss targetTowardsToken(const Scenario &s, const Trace &t, int query, int token);
// The same towards a typed vector (d_out wide). A Problem ("target") names a
// wrong width or a number that is not finite.
Result<TargetLoss> targetTowardsVector(const Trace &t, int query, const Eigen::RowVectorXd &target);

// dL/d out of one head (n_q by d_v): the target loss's (Y − T) W_Oᵀ, the
// head's columns; 0 for the attend loss, which does not read the outputs.
Matrix headOutputGradient(const Scenario &s, const Trace &t, const Loss &loss, int head);

// One cell of the softmax's Jacobian at weights w: w_i (δ_ij − w_j),
// "0.7679·(1 − 0.7679) = 0.1782", "−0.7679·0.0454 = −0.0349".
std::string jacobianTerms(const Eigen::Ref<const Eigen::VectorXd> &w, int i, int j);

// ∂L/∂w(i, j) by hand: the attend loss's −1/(h·n_q·w) on its key, plus
// the outputs' Σ_d ∂out_d·v_jd. Empty when the cell is 0 because the loss
// does not read it.
std::string weightGradientTerms(const Scenario &s, const Trace &t, const Loss &loss, int head, int i, int j,
                                int maxTerms = 6);

// ∂L/∂score(i, j) by hand: p_j (g_j − Σ_k g_k p_k) ÷ (c·τ), g = ∂L/∂w.
// The window's lens and the command line's `grad` both write it from here;
// `minus`: the typographic one for the eye, ASCII for the command line.
struct ScoreGradientTerms {
    bool passesNothing = false; // blocked before the softmax: the cell passes no gradient
    bool blockedAfter = false;  // blocked after the softmax: through the denominator alone
    std::string sum;            // "Σ_k g_k p_k = (−0.4341)·0.7679 + … = −0.3333"
    std::string cell;           // "0.7679·((−0.4341) − (−0.3333)) ÷ 1.4142 = −0.0547"
};
ScoreGradientTerms scoreGradientTerms(const Scenario &s, const Trace &t, const Gradients &g, int head, int i, int j,
                                      int maxTerms = 6, Minus minus = Minus::Typographic);

// ∂L/∂Q(i, d) and ∂L/∂K(j, d) of one head by hand (direct mode, d within
// the head): dot Σ_j ∂s_ij·k_jd; −distance −2 Σ_j ∂s_ij (q_d − k_jd). Empty
// for the cosine and with RoPE (the formula alone says it there) or when
// there are more than maxTerms terms.
std::string queryGradientTerms(const Scenario &s, const Trace &t, const Gradients &g, int head, int i, int d,
                               int maxTerms = 6);
std::string keyGradientTerms(const Scenario &s, const Trace &t, const Gradients &g, int head, int j, int d,
                             int maxTerms = 6);
// ∂L/∂V(j, d) of one head: Σ_i w_ij·∂out_id.
std::string valueGradientTerms(const Scenario &s, const Trace &t, const Loss &loss, int head, int j, int d,
                               int maxTerms = 6);

// A step of gradient descent on row `row` of `values`, columns [offset,
// offset + width): the row minus eta times the gradient's, the other
// columns kept. Inputs: values and grad of the same shape.
Eigen::RowVectorXd descentRow(const Matrix &values, const Matrix &grad, int row, int offset, int width, double eta);

// Whether a descent has stopped falling: the loss went up, or fell by less
// than `tolerance` of its size (relative; absolute below 1e-12).
bool descentSettled(double previous, double current, double tolerance);

} // namespace attn
