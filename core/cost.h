#pragma once
// What attention costs (seed 000's 关卡四 and seed 001's opening):
// the multiply-adds of each stage, the values each stage stores, how the
// score matrix grows with the sentence, and the path between two tokens
// (one step for attention, |i - j| steps for a recurrent network).
//
// A textbook count of the forward attention.h computes: a dot product of
// length d is d multiply-adds; an element-wise stage (scale, mask, exp,
// divide) is one operation a cell. The code may do less than the count (it
// skips the mask when nothing is blocked, the division when c·tau = 1); the
// count is what the stages cost as written on the board.
// Shapes: n_q queries, n_k keys, h heads, d_k and d_v per head, d_model.

#include "scenario.h"

#include <string>
#include <vector>

namespace attn {

struct StageCost {
    std::string stage;        // "projections", "scores", "scaled", "mask", "softmax", "output", "concat_wo"
    double operations = 0;    // multiply-adds (products) or element operations (element-wise stages)
    double stored = 0;        // values the stage keeps for the views, all heads
};

struct AttentionCost {
    int nq = 0, nk = 0, heads = 1, dk = 0, dv = 0, dModel = 0, dOut = 0;
    std::vector<StageCost> stages; // in the order of the chain; projections and concat_wo only when present
    double scoreCells = 0;         // h * n_q * n_k: the matrix that grows as n^2
    double openCells = 0;          // h * the cells the mask leaves open: what a sparse kernel computes
    double totalOperations = 0;
    double totalStored = 0;
    double bytes() const { return totalStored * 8.0; } // doubles
};

// The cost of the scenario's forward pass. Assumes the shapes were validated.
AttentionCost attentionCost(const Scenario &s);

// The cost of the same scenario's self-attention with n tokens instead of
// its own count (queries and keys both n), everything else as it is: what
// adding tokens does. n >= 1.
AttentionCost attentionCostAt(const Scenario &s, int n);
// The same with n_q queries and n_k keys (cross-attention grows on both sides).
AttentionCost attentionCostAt(const Scenario &s, int nq, int nk);

// The cells of an n by n self-attention the mask's patterns leave open
// (its window, dilation, block, global tokens and causal; not the padding
// or the cells blocked by hand, which belong to the scenario's own tokens),
// one head: n^2 with no pattern, about n·(2W - 1) with a window of W. Counted
// a row at a time over the candidates, O(n·W) for a window. n >= 0.
double openCellsAt(const Mask &m, int n);

// The attention's learned parameters: none in direct mode (Q, K, V are
// given, nothing is learned); projected, W_Q and W_K (d_model by h·d_k),
// W_V (d_model by h·d_v) and W_O (h·d_v by d_out) when there is one. The
// same at every n: the score matrix grows, the weights do not.
struct AttentionParameters {
    bool projected = false;
    double wq = 0, wk = 0, wv = 0, wo = 0;
    double total() const { return wq + wk + wv + wo; }
};
AttentionParameters attentionParameters(const Scenario &s);

// Against n (self-attention of n tokens, everything else as it is): the
// score cells h·n², the open ones under the mask's patterns and the
// parameters, for n = 1 … last.
struct CostPoint {
    int n = 0;
    double scoreCells = 0, openCells = 0, parameters = 0;
};
std::vector<CostPoint> costCurve(const Scenario &s, int last);

// A GPT-2 style decoder: every parameter by kind. Per layer: LN_1 and LN_2
// (2 d each), c_attn (d by 3d and 3d), c_proj (d by d and d), c_fc (d by
// d_inner and d_inner), the MLP's c_proj (d_inner by d and d); then the
// token table (vocab by d), the positions (n_positions by d), LN_f (2d), and
// the output head, unless it is the token table again (tied).
struct TransformerShape {
    int layers = 0, heads = 0, dModel = 0, dInner = 0, positions = 0, vocab = 0;
    bool tiedEmbeddings = true;
};
struct ModelParameters {
    double tokenEmbedding = 0, positionEmbedding = 0;
    double attention = 0;  // every layer's c_attn and c_proj, weights and biases
    double mlp = 0;        // every layer's c_fc and c_proj
    double layerNorms = 0; // LN_1 and LN_2 of every layer, and LN_f
    double outputHead = 0; // 0 when tied
    double total() const { return tokenEmbedding + positionEmbedding + attention + mlp + layerNorms + outputHead; }
};
ModelParameters modelParameterCount(const TransformerShape &m);
// The score cells one forward of n tokens holds: layers·heads·n², and the
// smallest n at which they are as many as the parameters.
double modelScoreCells(const TransformerShape &m, int n);
int modelCrossover(const TransformerShape &m);

// Steps information takes from token i to token j (0-based, i != j): 1 for
// attention (every pair is one hop), |i - j| for a recurrent network.
inline int attentionPath(int, int) { return 1; }
inline int recurrentPath(int i, int j) { return i > j ? i - j : j - i; }

} // namespace attn
