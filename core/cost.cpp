#include "cost.h"

namespace attn {

namespace {

AttentionCost costOf(const Scenario &s, int nq, int nk)
{
    AttentionCost c;
    c.nq = nq;
    c.nk = nk;
    c.heads = std::max(1, s.heads);
    c.dk = headDim(s);
    c.dv = headValueDim(s);
    c.dModel = modelWidth(s);
    const double h = c.heads, q = nq, k = nk, dk = c.dk, dv = c.dv;
    const double cells = h * q * k;
    c.scoreCells = cells;

    if (s.mode == InputMode::Projected) {
        // X W_Q (n_q by d_model times d_model by h d_k), S W_K, S W_V.
        const double dm = c.dModel;
        c.stages.push_back({"projections", q * dm * h * dk + k * dm * h * dk + k * dm * h * dv,
                            q * h * dk + k * h * dk + k * h * dv});
    }
    // A dot product of length d_k a cell; the cosine adds one norm a row
    // (h (n_q + n_k) d_k); the distance -|q - k|^2 is computed directly,
    // a subtraction and a multiply-add a component: 2 d_k a cell, no norms.
    double scoreOps = cells * dk;
    if (s.similarity == Similarity::Cosine)
        scoreOps += h * (q + k) * dk;
    else if (s.similarity == Similarity::NegSqDistance)
        scoreOps = 2 * cells * dk;
    c.stages.push_back({"scores", scoreOps, cells});
    c.stages.push_back({"scaled", cells, cells});            // one division a cell
    c.stages.push_back({"mask", cells, q * k});              // one test a cell; the blocked pattern is shared
    c.stages.push_back({"softmax", 3 * cells, cells});       // subtract the max, exp, divide by the sum
    c.stages.push_back({"output", cells * dv, h * q * dv});  // weights (n_q by n_k) times V (n_k by d_v), per head
    if (s.Wo) {
        c.dOut = int(s.Wo->cols());
        c.stages.push_back({"concat_wo", q * h * dv * c.dOut, q * c.dOut});
    }
    for (const StageCost &st : c.stages) {
        c.totalOperations += st.operations;
        c.totalStored += st.stored;
    }
    return c;
}

} // namespace

AttentionCost attentionCost(const Scenario &s)
{
    return costOf(s, queryCount(s), keyCount(s));
}

AttentionCost attentionCostAt(const Scenario &s, int n)
{
    return costOf(s, std::max(1, n), std::max(1, n));
}

AttentionCost attentionCostAt(const Scenario &s, int nq, int nk)
{
    return costOf(s, std::max(1, nq), std::max(1, nk));
}

} // namespace attn
