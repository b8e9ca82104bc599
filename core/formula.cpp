#include "formula.h"

#include <cmath>
#include <cstdio>

namespace attn {

namespace {

// "₁₂": the digits of n as subscripts, as in head₁₂.
std::string subscript(int n)
{
    static const char *const digits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
    std::string out;
    for (char c : std::to_string(n))
        out += digits[c - '0'];
    return out;
}

} // namespace

bool hasMask(const Scenario &s)
{
    return (s.mask.causal && queryCount(s) > 1) || (s.mask.keyPadding.size() && s.mask.keyPadding.any())
        || s.mask.sparse()
        || (s.mask.blocked.size() && s.mask.blocked.any());
}

const char *similaritySymbol(Similarity kind, bool rotated)
{
    switch (kind) {
    case Similarity::Dot:
        return rotated ? "R(q)·R(k)" : "q·k";
    case Similarity::Cosine:
        return rotated ? "cos(R(q), R(k))" : "cos(q, k)";
    case Similarity::NegSqDistance:
        return rotated ? "−‖R(q) − R(k)‖²" : "−‖q − k‖²";
    }
    return "";
}

const char *similaritySymbol(const Scenario &s)
{
    return similaritySymbol(s.similarity, s.encoding == Encoding::Rope);
}

Formula formula(const Scenario &s)
{
    Formula f;
    const bool multi = s.heads > 1;
    const std::string q = multi ? "Qᵢ" : "Q", k = multi ? "Kᵢ" : "K", v = multi ? "Vᵢ" : "V";
    const bool rope = s.encoding == Encoding::Rope;
    const std::string qq = rope ? "R(" + q + ")" : q, kk = rope ? "R(" + k + ")" : k;

    std::string score;
    switch (s.similarity) {
    case Similarity::Dot:
        score = qq + kk + "ᵀ";
        break;
    case Similarity::Cosine:
        score = "cos(" + qq + ", " + kk + ")";
        break;
    case Similarity::NegSqDistance:
        score = "−‖" + qq + " − " + kk + "‖²";
        break;
    }

    std::string divisor;
    switch (s.scale) {
    case Scale::SqrtDk:
        divisor = "√d_k";
        break;
    case Scale::Dk:
        divisor = "d_k";
        break;
    case Scale::None:
        break;
    }
    if (s.temperature != 1.0)
        divisor = divisor.empty() ? "τ" : "(" + divisor + "·τ)";
    const std::string scaled = divisor.empty() ? score : score + "/" + divisor;

    const std::string lhs = multi ? "headᵢ = " : "";
    if (!hasMask(s))
        f.attention = lhs + "softmax(" + scaled + ")·" + v;
    else if (s.maskStage == MaskStage::BeforeSoftmax)
        f.attention = lhs + "softmax(" + scaled + " + M)·" + v;
    else
    {
        f.attention = lhs + "(softmax(" + scaled + ") ⊙ M₀₁)·" + v;
        f.notRenormalised = true;
    }

    const bool additive = s.encoding == Encoding::Sinusoidal || s.encoding == Encoding::Learned;
    if (s.mode == InputMode::Projected) {
        const std::string x = additive ? "(X+P)" : "X";
        const std::string src = s.source ? (additive ? "(S+P)" : "S") : x;
        f.inputs = "Q = " + x + "W_Q, K = " + src + "W_K, V = " + src + "W_V";
    } else if (additive) {
        f.inputs = "Q ← Q+P, K ← K+P, V ← V+P";
    }
    f.rope = rope;

    const bool wo = s.mode == InputMode::Projected && s.Wo.has_value();
    if (multi)
        f.output = "output = [head₁ … head" + subscript(s.heads) + "]" + (wo ? "·W_O" : "");
    else if (wo)
        f.output = "output = head·W_O";
    return f;
}

} // namespace attn
