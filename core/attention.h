#pragma once
// Scaled dot-product attention, every stage kept so that it can be shown.
//
//   scores  = s(Q_h, K_h)              n_q by n_k, s = dot, cosine or -squared distance
//   scaled  = scores / (c * tau)       c = sqrt(d_k), 1 or d_k
//   weights = softmax over the open entries of each row (blocked entries: -inf);
//             softmax_1 adds 1 to each row's denominator (Settings::softmax)
//   out_h   = weights * V_h            n_q by d_v
//   output  = [out_1 ... out_h] * W_o  (or the concatenation alone)

#include "edit.h"
#include "result.h"
#include "scenario.h"
#include "validate.h"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace attn {

// Thrown by compute() for a scenario that validate() refuses.
class ScenarioError : public std::runtime_error {
public:
    explicit ScenarioError(Problem p) : std::runtime_error(p.toString()), m_problem(std::move(p)) {}
    const Problem &problem() const { return m_problem; }

private:
    Problem m_problem;
};

// What one query row's weights say at a glance.
struct RowStats {
    double sum = 0;          // 1 for an open row; below 1 after_softmax with a blocked entry, or with softmax_1
    double entropy = 0;      // -sum w log w, natural log; 0 for a fully masked row
    double maxWeight = 0;
    int argmax = -1;         // key column of the largest weight; -1 for a fully masked row
    bool fullyMasked = false;// no key was open: weights and output are all zero
};

// An open row whose weights sum to less than 1: the mark of masking after
// the softmax (a tolerance for rounding, far below what four decimals show).
inline bool shortOfOne(const RowStats &r)
{
    return !r.fullyMasked && r.sum < 1 - 1e-9;
}

struct HeadTrace {
    Matrix Q;       // n_q by d_k: the queries compared (after projection, split and encoding)
    Matrix K;       // n_k by d_k: the keys compared
    Matrix V;       // n_k by d_v: the values averaged
    Matrix scores;  // n_q by n_k: s(q_i, k_j)
    // n_q by n_k: scores / (c * tau), before the mask. Stored only when the
    // trace was computed with ComputeOptions::keepScaled (the default);
    // empty otherwise, saving n_q n_k doubles a head (64 MB at n = 1024,
    // h = 8). Read it through scaledAt() and the others below, never directly.
    Matrix scaled;
    Matrix weights; // n_q by n_k: softmax weights, blocked entries 0
    Matrix output;  // n_q by d_v: weights * V
    std::vector<RowStats> rows; // n_q entries
    double divisor = 1; // c * tau, as Trace::divisor

    // The scaled stage, stored or not: scores / (c * tau), the same bits as
    // a stored `scaled` (compute() divides, or multiplies by 1 / (c * tau)
    // only where that is exact).
    double scaledAt(Eigen::Index i, Eigen::Index j) const
    {
        return scaled.size() ? scaled(i, j) : scores(i, j) / divisor;
    }
    Eigen::RowVectorXd scaledRow(Eigen::Index i) const
    {
        return scaled.size() ? Eigen::RowVectorXd(scaled.row(i)) : Eigen::RowVectorXd(scores.row(i) / divisor);
    }
    Eigen::VectorXd scaledCol(Eigen::Index j) const
    {
        return scaled.size() ? Eigen::VectorXd(scaled.col(j)) : Eigen::VectorXd(scores.col(j) / divisor);
    }
    // Rows [first, first + count).
    Matrix scaledRows(Eigen::Index first, Eigen::Index count) const
    {
        return scaled.size() ? Matrix(scaled.middleRows(first, count)) : Matrix(scores.middleRows(first, count) / divisor);
    }
    Matrix scaledMatrix() const { return scaled.size() ? scaled : Matrix(scores / divisor); }
    // max |scaled| (0 for an empty head), without forming it: dividing by
    // c * tau > 0 is monotone and |x| / d rounds as x / d does.
    double scaledMaxAbs() const
    {
        if (scaled.size())
            return scaled.cwiseAbs().maxCoeff();
        return scores.size() ? scores.cwiseAbs().maxCoeff() / std::abs(divisor) : 0.0;
    }
};

struct Trace {
    int dk = 0, dv = 0;   // per head
    double divisor = 1;   // c * tau
    BoolMatrix blocked;   // n_q by n_k, the same for every head

    // The sequences fed to the projections (projected mode) or the vectors
    // themselves (direct mode), with any additive encoding already added.
    Matrix Q, K, V;       // n_q by h*d_k, n_k by h*d_k, n_k by h*d_v; before the split and RoPE
    Matrix encodedX;      // projected mode: X + P, n_q by d_model
    Matrix encodedSource; // projected mode: S + P, n_k by d_model

    // The encoding used: additive tables (sinusoidal, learned) or RoPE
    // angles. Empty when not used. In direct mode the value table has V's width.
    Matrix positionQuery; // n_q by w (additive) or n_q by d_k/2 (RoPE angles)
    Matrix positionKey;   // n_k by w or n_k by d_k/2
    Matrix positionValue; // n_k by h*d_v; direct mode with an additive encoding only

    std::vector<HeadTrace> heads;
    Matrix concat;        // n_q by h*d_v
    Matrix output;        // n_q by d_out (concat * Wo, or concat)
};

// c in scaled = scores / (c * tau).
double scaleConstant(Scale scale, int dk);

// Similarity of every query row with every key row.
// Inputs: Q, n_q by d; K, n_k by d. Output: n_q by n_k.
Matrix similarity(Similarity kind, const Eigen::Ref<const Matrix> &Q, const Eigen::Ref<const Matrix> &K);

// Row-wise softmax of `scaled` with `blocked` entries masked at `stage`.
// Inputs: scaled and blocked, n_q by n_k. Output: weights, n_q by n_k; and
// per-row statistics. Subtracts each row's maximum first, so inputs of any
// finite size give finite weights; a row with no open entry gives zeros.
// With SoftmaxKind::PlusOne each row's sum has a 1 added (softmax_1):
// w_j = e^(x_j - max) / (e^(-max) + sum e^(x_k - max)), safe for any max.
Matrix maskedSoftmax(const Eigen::Ref<const Matrix> &scaled, const BoolMatrix &blocked, MaskStage stage,
                     std::vector<RowStats> *rows = nullptr, SoftmaxKind kind = SoftmaxKind::Standard);

struct ComputeOptions {
    // Store HeadTrace::scaled. Without it nothing changes but the memory:
    // the softmax takes the same bits of scores / (c * tau) (divided into
    // the weights' place, or multiplied by an exact 1 / (c * tau)), so
    // weights, outputs and every export are identical; the forward keeps
    // one n_q by n_k matrix a head fewer.
    bool keepScaled = true;
    // computeInto() only: `t` already holds this scenario's scores and all
    // before them (the inputs, the encoding, the projections, each head's
    // Q, K and V), because the change that made the scenario is one that
    // scoresSurvive(); only the scaling, the mask, the softmax and the
    // outputs are computed again, to the same bits as a whole forward.
    // Ignored when `t`'s shapes are not those of the scenario.
    bool scoresKept = false;
};

// Whether a change of settings from `before` to `after` leaves the scores
// and everything before them as they were: only the scale, the
// temperature, the mask, its stage or the softmax changed (they all act
// on the scores). Keeping them spares the projections and the scores:
// about a tenth of a causal flip's forward at n = 1024, h = 8 (BM_Flip).
bool scoresSurvive(const Settings &before, const Settings &after);

// The whole forward pass. Throws ScenarioError if validate(s) finds a problem.
Trace compute(const Scenario &s, const ComputeOptions &options = {});
// The same for a scenario not known to be valid: validate(s)'s Problem
// instead of a throw.
Result<Trace> tryCompute(const Scenario &s, const ComputeOptions &options = {});
// The same into `t`, reusing its matrices' memory where the sizes allow (a
// settings change, a resync): the old trace and the new are never both
// alive. On a throw `t` is left empty, never half old and half new.
void computeInto(const Scenario &s, Trace &t, const ComputeOptions &options = {});

// What updateRow() changed in a trace, in every head alike. Rows and columns
// are query rows and key columns; a count of 0 is none.
struct TraceDelta {
    int scoreRow = -1;        // the query row whose scores and scaled changed, or -1
    int scoreColumn = -1;     // the key column whose scores and scaled changed, or -1
    int weightFirst = 0, weightCount = 0; // rows of weights and row statistics
    int outputFirst = 0, outputCount = 0; // rows of the heads' outputs, concat and output
};

// Brings `t`, the trace of a scenario that differs from `s` in row `row` of
// matrix `id` alone (values only: same shape and settings), up to date with
// `s`, recomputing only what the row reaches:
//   a query row (Q; X without a source)  its row of every stage, O(n_k d) a head;
//   a key row (K)                        its column of scores and scaled, then
//                                        the softmax and output of the rows
//                                        where that key takes part;
//   a value row (V)                      the outputs of the rows that weigh it;
//   X of self-attention                  all three; a source row: K and V;
//   a row of Wo                          the final output.
// Returns false, with `t` unchanged, when the row reaches everything (Wq,
// Wk, Wv: call compute()) or `t` is not a trace of `s`'s shape. Equals
// compute(s) to rounding: Q, K and V to the bit (a row is projected in the
// whole product's order), the rest not always (a changed key's weights are
// the old ones rescaled, and a few rows' outputs are multiplied alone).
bool updateRow(const Scenario &s, Trace &t, MatrixId id, int row, TraceDelta *delta = nullptr);

// Converts a projected scenario to direct mode with the Q, K and V that it
// computes (its positional table already added, so an additive encoding is
// turned off); a direct scenario comes back unchanged. The result computes
// the same attention weights and per-head outputs (not Wo, which direct mode lacks).
Scenario toDirect(const Scenario &s);

} // namespace attn
