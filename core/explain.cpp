#include "explain.h"

#include "formula.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace attn {

namespace {

std::string paren(double v)
{
    const std::string s = compact(v);
    return v < 0 ? "(" + s + ")" : s;
}

} // namespace

std::string scoreTerms(Similarity kind, const Eigen::Ref<const Eigen::RowVectorXd> &q,
                       const Eigen::Ref<const Eigen::RowVectorXd> &k, int maxTerms)
{
    if (q.size() > maxTerms)
        return {};
    std::string terms;
    for (Eigen::Index d = 0; d < q.size(); ++d) {
        if (kind == Similarity::NegSqDistance)
            terms += (d ? " + " : "") + std::string("(") + compact(q(d)) + " − " + paren(k(d)) + ")²";
        else
            terms += (d ? " + " : "") + paren(q(d)) + "·" + paren(k(d));
    }
    switch (kind) {
    case Similarity::Dot:
        return terms;
    case Similarity::NegSqDistance:
        return "−(" + terms + ")";
    case Similarity::Cosine:
        return "(" + terms + ") / (" + fixed4(q.norm()) + "·" + fixed4(k.norm()) + ")";
    }
    return {};
}

std::string divisorTerms(const Scenario &s, const Trace &t)
{
    std::string c;
    switch (s.scale) {
    case Scale::SqrtDk:
        c = "√" + std::to_string(t.dk);
        break;
    case Scale::Dk:
        c = std::to_string(t.dk);
        break;
    case Scale::None:
        c = "1";
        break;
    }
    if (s.temperature != 1.0)
        c += "·" + compact(s.temperature);
    return c + " = " + compact(t.divisor);
}

BlockReasons blockReasons(const Scenario &s, int i, int j)
{
    BlockReasons r;
    r.causal = s.mask.causal && j > i;
    r.padding = s.mask.keyPadding.size() > j && s.mask.keyPadding(j);
    r.hand = s.mask.blocked.rows() > i && s.mask.blocked.cols() > j && s.mask.blocked(i, j);
    const Mask &m = s.mask;
    if (!sparseOpen(m, i, j)) {
        const int d = std::abs(i - j), D = std::max(1, m.dilation);
        r.dilation = d % D != 0;
        r.window = m.window > 0 && d >= m.window * D;
        r.block = m.block > 0 && i / m.block != j / m.block;
    }
    return r;
}

SoftmaxTerms softmaxTerms(const Scenario &s, const Trace &t, int head, int i, int j)
{
    const HeadTrace &h = t.heads[std::size_t(head)];
    const bool before = s.maskStage == MaskStage::BeforeSoftmax;
    SoftmaxTerms r{-INFINITY, 0, 0};
    for (Eigen::Index k = 0; k < h.scores.cols(); ++k)
        if (!(before && t.blocked(i, k)))
            r.max = std::max(r.max, h.scaledAt(i, k));
    if (!std::isfinite(r.max))
        return SoftmaxTerms{};
    if (s.softmax == SoftmaxKind::PlusOne) {
        r.max = std::max(r.max, 0.0);
        r.sink = std::exp(-r.max);
        r.sum = r.sink;
    }
    for (Eigen::Index k = 0; k < h.scores.cols(); ++k)
        if (!(before && t.blocked(i, k)))
            r.sum += std::exp(h.scaledAt(i, k) - r.max);
    r.exp = (before && t.blocked(i, j)) ? 0.0 : std::exp(h.scaledAt(i, j) - r.max);
    return r;
}

std::string outputTerms(const HeadTrace &h, int i, int d, int maxTerms)
{
    const Eigen::Index nk = h.weights.cols();
    if (nk > maxTerms)
        return {};
    std::string sum;
    for (Eigen::Index k = 0; k < nk; ++k)
        sum += (k ? " + " : "") + fixed4(h.weights(i, k)) + "·" + paren(h.V(k, d));
    return sum;
}

} // namespace attn
