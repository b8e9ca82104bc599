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

// Steps information takes from token i to token j (0-based, i != j): 1 for
// attention (every pair is one hop), |i - j| for a recurrent network.
inline int attentionPath(int, int) { return 1; }
inline int recurrentPath(int i, int j) { return i > j ? i - j : j - i; }

} // namespace attn
