#include "explain.h"

#include "formula.h"

#include <cmath>

namespace attn {

namespace {

std::string paren(double v)
{
    const std::string s = compact(v);
    return v < 0 ? "(" + s + ")" : s;
}

std::string label(const std::vector<std::string> &labels, int i)
{
    return "“" + labels[std::size_t(i)] + "”";
}

// The exponentials of row i as the softmax sees them; blocked entries drop
// out before the softmax and stay in after it.
struct RowExp {
    double max = 0;
    double sum = 0;
};

RowExp rowExp(const Scenario &s, const Trace &t, const HeadTrace &h, int i)
{
    const bool before = s.maskStage == MaskStage::BeforeSoftmax;
    RowExp r{-INFINITY, 0};
    for (Eigen::Index j = 0; j < h.scaled.cols(); ++j)
        if (!(before && t.blocked(i, j)))
            r.max = std::max(r.max, h.scaled(i, j));
    for (Eigen::Index j = 0; j < h.scaled.cols(); ++j)
        if (!(before && t.blocked(i, j)))
            r.sum += std::exp(h.scaled(i, j) - r.max);
    return r;
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
    return c + " = " + fixed4(t.divisor);
}

std::string blockReason(const Scenario &s, int i, int j)
{
    std::string why;
    auto add = [&why](const std::string &w) { why += (why.empty() ? "" : "; ") + w; };
    if (s.mask.causal && j > i)
        add("causal: key " + std::to_string(j + 1) + " comes after query " + std::to_string(i + 1));
    if (s.mask.keyPadding.size() > j && s.mask.keyPadding(j))
        add("key " + std::to_string(j + 1) + " is padding");
    if (s.mask.blocked.rows() > i && s.mask.blocked.cols() > j && s.mask.blocked(i, j))
        add("blocked by hand");
    return why;
}

std::string explainCell(const Scenario &s, const Trace &t, Stage stage, int head, int i, int j)
{
    const HeadTrace &h = t.heads[std::size_t(head)];
    const auto ql = queryLabels(s), kl = keyLabels(s);
    std::string who = label(ql, i);
    who += " → ";
    who += stage == Stage::Output ? std::string("d") + std::to_string(j + 1) : label(kl, j);
    const std::string sim = s.similarity == Similarity::Dot ? "q·k"
                          : s.similarity == Similarity::Cosine ? "cos(q, k)"
                                                               : "−‖q − k‖²";
    std::string terms = stage == Stage::Output ? std::string() : scoreTerms(s.similarity, h.Q.row(i), h.K.row(j));
    if (terms.empty() && stage != Stage::Output)
        terms = sim;
    const bool blocked = stage != Stage::Output && t.blocked(i, j);
    const std::string reason = stage != Stage::Output ? blockReason(s, i, j) : std::string();

    switch (stage) {
    case Stage::Scores:
        return who + "\nscore = " + sim + " = " + terms + " = " + fixed4(h.scores(i, j));
    case Stage::Scaled:
        return who + "\nscaled = score / (c·τ) = " + fixed4(h.scores(i, j)) + " / " + divisorTerms(s, t) + " = "
             + fixed4(h.scaled(i, j));
    case Stage::Masked:
        if (blocked && s.maskStage == MaskStage::BeforeSoftmax)
            return who + "\nblocked (" + reason + "): −∞, so its weight will be 0";
        if (blocked)
            return who + "\nblocked (" + reason + "), but the mask acts after the softmax: the score stays "
                 + fixed4(h.scaled(i, j));
        return who + "\nopen: " + fixed4(h.scaled(i, j));
    case Stage::Weights: {
        if (h.rows[std::size_t(i)].fullyMasked)
            return who + "\nevery key of this row is blocked: all weights are 0";
        const RowExp r = rowExp(s, t, h, i);
        if (blocked && s.maskStage == MaskStage::BeforeSoftmax)
            return who + "\nblocked (" + reason + "): e^(−∞) = 0";
        const double e = std::exp(h.scaled(i, j) - r.max);
        std::string line = who + "\nweight = e^(" + fixed4(h.scaled(i, j)) + " − " + fixed4(r.max) + ") / Σ = "
                         + fixed4(e) + " / " + fixed4(r.sum) + " = " + fixed4(e / r.sum);
        if (blocked)
            line += "\nthen blocked after the softmax (" + reason + "): set to 0, and the row is not renormalised";
        return line;
    }
    case Stage::Output: {
        std::string sum;
        const Eigen::Index nk = h.weights.cols();
        if (nk <= 6) {
            for (Eigen::Index k = 0; k < nk; ++k)
                sum += (k ? " + " : "") + fixed4(h.weights(i, k)) + "·" + paren(h.V(k, j));
            sum += " = ";
        }
        return who + "\noutput = Σ_j w_j·v_j = " + sum + fixed4(h.output(i, j));
    }
    }
    return who;
}

} // namespace attn
