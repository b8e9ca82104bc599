#include "cost.h"

#include <algorithm>
#include <cmath>

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
    if (nq == queryCount(s) && nk == keyCount(s))
        c.openCells = h * double((!blockedMatrix(s)).count());
    else
        c.openCells = nq == nk ? h * openCellsAt(s.mask, nq) : cells;

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

double openCellsAt(const Mask &m, int n)
{
    std::vector<bool> global(std::size_t(std::max(0, n)), false);
    for (int g : m.global)
        if (g >= 0 && g < n)
            global[std::size_t(g)] = true;
    if (!m.sparse())
        return m.causal ? 0.5 * n * (n + 1.0) : double(n) * n;
    const int D = std::max(1, m.dilation);
    double open = 0;
    for (int i = 0; i < n; ++i) {
        const int last = m.causal ? i : n - 1; // the last key query i may see
        if (global[std::size_t(i)]) {
            open += last + 1;
            continue;
        }
        // The keys the window or the block allow, on i's stride of D.
        int lo = 0, hi = last;
        if (m.window > 0) {
            lo = std::max(lo, i - (m.window - 1) * D);
            hi = std::min(hi, i + (m.window - 1) * D);
        }
        if (m.block > 0) {
            lo = std::max(lo, i / m.block * m.block);
            hi = std::min(hi, i / m.block * m.block + m.block - 1);
        }
        lo += ((i - lo) % D + D) % D; // up to the first j with i - j a multiple of D
        for (int j = lo; j <= hi; j += D)
            open += !global[std::size_t(j)];
        for (int j : m.global)
            open += j >= 0 && j <= last; // every global key, once
    }
    return open;
}

AttentionParameters attentionParameters(const Scenario &s)
{
    AttentionParameters p;
    if (s.mode != InputMode::Projected)
        return p;
    p.projected = true;
    p.wq = double(s.Wq.size());
    p.wk = double(s.Wk.size());
    p.wv = double(s.Wv.size());
    p.wo = s.Wo ? double(s.Wo->size()) : 0.0;
    return p;
}

std::vector<CostPoint> costCurve(const Scenario &s, int last)
{
    std::vector<CostPoint> out;
    const double h = std::max(1, s.heads), params = attentionParameters(s).total();
    for (int n = 1; n <= last; ++n)
        out.push_back({n, h * n * double(n), h * openCellsAt(s.mask, n), params});
    return out;
}

ModelParameters modelParameterCount(const TransformerShape &m)
{
    const double d = m.dModel, inner = m.dInner, L = m.layers;
    ModelParameters p;
    p.tokenEmbedding = double(m.vocab) * d;
    p.positionEmbedding = double(m.positions) * d;
    p.attention = L * ((d * 3 * d + 3 * d) + (d * d + d));
    p.mlp = L * ((d * inner + inner) + (inner * d + d));
    p.layerNorms = L * 4 * d + 2 * d;
    p.outputHead = m.tiedEmbeddings ? 0.0 : double(m.vocab) * d;
    return p;
}

double modelScoreCells(const TransformerShape &m, int n)
{
    return double(m.layers) * m.heads * double(n) * n;
}

int modelCrossover(const TransformerShape &m)
{
    const double params = modelParameterCount(m).total(), perN2 = double(m.layers) * m.heads;
    if (perN2 <= 0)
        return 0;
    int n = std::max(1, int(std::floor(std::sqrt(params / perN2))));
    while (modelScoreCells(m, n) < params)
        ++n;
    while (n > 1 && modelScoreCells(m, n - 1) >= params)
        --n;
    return n;
}

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
