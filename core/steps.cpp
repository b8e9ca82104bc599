#include "steps.h"

#include "numbers.h"

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

std::string num(double v)
{
    return handNumber(v);
}

std::string input(double v)
{
    return compact(v, Minus::Typographic);
}

std::string paren(double v)
{
    const std::string s = input(v);
    return v < 0 ? "(" + s + ")" : s;
}

std::string sub(const std::string &label)
{
    return "_{" + label + "}";
}

template <typename Row>
std::string vec(const Row &r, bool exactInputs)
{
    std::string out = "[";
    for (Eigen::Index j = 0; j < r.size(); ++j)
        out += (j ? ", " : "") + (exactInputs ? input(r(j)) : num(r(j)));
    return out + "]";
}

} // namespace

std::string handNumber(double v)
{
    const double a = std::abs(v);
    const int decimals = !std::isfinite(v) ? 0 : a >= 999.95 ? 1 : a >= 9.99995 ? 2 : 4;
    return formatFixed(v, decimals, Minus::Typographic);
}

std::vector<StepKind> stepsFor(const Scenario &s)
{
    std::vector<StepKind> out{StepKind::Scores, StepKind::Scaled, StepKind::Mask, StepKind::Exp, StepKind::Normalise,
                              StepKind::WeightedSum};
    const bool wo = s.mode == InputMode::Projected && s.Wo.has_value();
    if (s.heads > 1 || wo)
        out.push_back(StepKind::Concat);
    return out;
}

const char *stepKey(StepKind step)
{
    switch (step) {
    case StepKind::Scores: return "scores";
    case StepKind::Scaled: return "scaled";
    case StepKind::Mask: return "mask";
    case StepKind::Exp: return "exp";
    case StepKind::Normalise: return "normalise";
    case StepKind::WeightedSum: return "weighted-sum";
    case StepKind::Concat: return "concat";
    }
    return "";
}

Stage stageOfStep(StepKind step)
{
    switch (step) {
    case StepKind::Scores: return Stage::Scores;
    case StepKind::Scaled: return Stage::Scaled;
    case StepKind::Mask: return Stage::Masked;
    case StepKind::Exp:
    case StepKind::Normalise: return Stage::Weights;
    case StepKind::WeightedSum:
    case StepKind::Concat: return Stage::Output;
    }
    return Stage::Scores;
}

Matrix stepExponentials(const Scenario &s, const Trace &t, int head, Eigen::VectorXd *sums)
{
    if (t.heads.empty()) {
        if (sums)
            sums->resize(0);
        return Matrix();
    }
    head = std::clamp(head, 0, int(t.heads.size()) - 1);
    const HeadTrace &h = t.heads[std::size_t(head)];
    const bool before = s.maskStage == MaskStage::BeforeSoftmax;
    const Eigen::Index nq = h.scores.rows(), nk = h.scores.cols();
    Matrix e = Matrix::Zero(nq, nk);
    if (sums)
        *sums = Eigen::VectorXd::Zero(nq);
    for (Eigen::Index i = 0; i < nq; ++i) {
        if (h.rows[std::size_t(i)].fullyMasked)
            continue;
        auto seen = [&](Eigen::Index j) { return !(before && t.blocked(i, j)); };
        double m = -INFINITY;
        for (Eigen::Index j = 0; j < nk; ++j)
            if (seen(j))
                m = std::max(m, h.scaledAt(i, j));
        if (!std::isfinite(m))
            continue;
        const bool plusOne = s.softmax == SoftmaxKind::PlusOne;
        if (plusOne)
            m = std::max(m, 0.0); // the sink's score 0 counts in the maximum
        for (Eigen::Index j = 0; j < nk; ++j)
            if (seen(j))
                e(i, j) = std::exp(h.scaledAt(i, j) - m);
        if (sums)
            (*sums)(i) = e.row(i).sum() + (plusOne ? std::exp(-m) : 0.0);
    }
    return e;
}

std::vector<std::string> stepLines(const Scenario &s, const Trace &t, StepKind step, int head, int row)
{
    std::vector<std::string> lines;
    if (t.heads.empty())
        return lines;
    head = std::clamp(head, 0, int(t.heads.size()) - 1);
    const HeadTrace &h = t.heads[std::size_t(head)];
    if (h.Q.rows() == 0)
        return lines;
    row = std::clamp(row, 0, int(h.Q.rows()) - 1);
    const Eigen::Index nk = h.scores.cols();
    const auto ql = queryLabels(s), kl = keyLabels(s);
    const std::string q = ql[std::size_t(row)];
    auto k = [&kl](Eigen::Index j) { return kl[std::size_t(j)]; };
    const bool before = s.maskStage == MaskStage::BeforeSoftmax;
    const bool plusOne = s.softmax == SoftmaxKind::PlusOne;
    const RowStats &stats = h.rows[std::size_t(row)];

    switch (step) {
    case StepKind::Scores: {
        lines.push_back("q" + sub(q) + " = " + vec(h.Q.row(row), true));
        for (Eigen::Index j = 0; j < nk; ++j) {
            std::string terms = scoreTerms(s.similarity, h.Q.row(row), h.K.row(j), 4);
            for (std::size_t p = 0; (p = terms.find('-', p)) != std::string::npos;)
                terms.replace(p, 1, "−");
            lines.push_back("s" + sub(k(j)) + " = " + (terms.empty() ? "" : terms + " = ") + num(h.scores(row, j)));
        }
        break;
    }
    case StepKind::Scaled: {
        std::string c = divisorTerms(s, t);
        const std::string divisor = num(t.divisor);
        lines.push_back("c·τ = " + c);
        for (Eigen::Index j = 0; j < nk; ++j)
            lines.push_back("s′" + sub(k(j)) + " = " + num(h.scores(row, j)) + " / " + divisor + " = "
                            + num(h.scaledAt(row, j)));
        break;
    }
    case StepKind::Mask: {
        for (Eigen::Index j = 0; j < nk; ++j) {
            const bool b = t.blocked(row, j);
            if (!before)
                lines.push_back("m" + sub(k(j)) + " = " + (b ? "−∞" : "0") + "   s′" + sub(k(j)) + " = "
                                + num(h.scaledAt(row, j)));
            else
                lines.push_back("s′" + sub(k(j)) + " + m" + sub(k(j)) + " = " + num(h.scaledAt(row, j)) + " + "
                                + (b ? "(−∞) = −∞" : "0 = " + num(h.scaledAt(row, j))));
        }
        break;
    }
    case StepKind::Exp: {
        if (stats.fullyMasked) {
            lines.push_back("e^{−∞} = 0");
            break;
        }
        double m = -INFINITY;
        for (Eigen::Index j = 0; j < nk; ++j)
            if (!(before && t.blocked(row, j)))
                m = std::max(m, h.scaledAt(row, j));
        std::string raw, shifted;
        double rawSum = 0, shiftedSum = 0;
        if (plusOne) {
            // The sink is a key of score 0: it counts in the maximum and the sums.
            const double keysMax = m;
            m = std::max(keysMax, 0.0);
            lines.push_back("max = max(" + num(keysMax) + ", 0) = " + num(m) + "   (the sink's score is 0)");
            lines.push_back("e_{sink} = e^{0} = 1");
            lines.push_back("e′_{sink} = e^{0 − " + num(m) + "} = " + num(std::exp(-m)));
            raw = "1";
            shifted = num(std::exp(-m));
            rawSum = 1;
            shiftedSum = std::exp(-m);
        } else {
            lines.push_back("max = " + num(m));
        }
        for (Eigen::Index j = 0; j < nk; ++j) {
            const double x = h.scaledAt(row, j);
            if (before && t.blocked(row, j)) {
                lines.push_back("e" + sub(k(j)) + " = e^{−∞} = 0");
                raw += std::string(raw.empty() ? "" : " + ") + "0";
                shifted += std::string(shifted.empty() ? "" : " + ") + "0";
                continue;
            }
            const double e = std::exp(x), es = std::exp(x - m);
            rawSum += e;
            shiftedSum += es;
            lines.push_back("e" + sub(k(j)) + " = e^{" + num(x) + "} = " + num(e));
            lines.push_back("e′" + sub(k(j)) + " = e^{" + num(x) + " − " + num(m) + "} = e^{" + num(x - m) + "} = " + num(es));
            raw += (raw.empty() ? "" : " + ") + num(e);
            shifted += (shifted.empty() ? "" : " + ") + num(es);
        }
        if (std::isfinite(rawSum))
            lines.push_back("Σ = " + raw + " = " + num(rawSum));
        lines.push_back("Σ′ = " + shifted + " = " + num(shiftedSum));
        break;
    }
    case StepKind::Normalise: {
        if (stats.fullyMasked) {
            for (Eigen::Index j = 0; j < nk; ++j)
                lines.push_back("w" + sub(k(j)) + " = 0");
            break;
        }
        double m = -INFINITY;
        for (Eigen::Index j = 0; j < nk; ++j)
            if (!(before && t.blocked(row, j)))
                m = std::max(m, h.scaledAt(row, j));
        if (plusOne)
            m = std::max(m, 0.0);
        double sum = plusOne ? std::exp(-m) : 0.0;
        for (Eigen::Index j = 0; j < nk; ++j)
            if (!(before && t.blocked(row, j)))
                sum += std::exp(h.scaledAt(row, j) - m);
        for (Eigen::Index j = 0; j < nk; ++j) {
            const bool b = t.blocked(row, j);
            const double es = (before && b) ? 0.0 : std::exp(h.scaledAt(row, j) - m);
            std::string line = "w" + sub(k(j)) + " = " + num(es) + " / " + num(sum) + " = " + num(es / sum);
            if (!before && b)
                line += " → 0";
            lines.push_back(line);
        }
        lines.push_back("Σ w = " + num(stats.sum));
        if (plusOne)
            lines.push_back("w_{sink} = 1 − Σ w = " + num(1 - stats.sum) + "   (attending to nothing: its value is 0)");
        break;
    }
    case StepKind::WeightedSum: {
        const Eigen::Index dv = h.output.cols();
        for (Eigen::Index d = 0; d < dv; ++d) {
            std::string terms;
            if (nk <= 6) {
                for (Eigen::Index j = 0; j < nk; ++j)
                    terms += (j ? " + " : "") + num(h.weights(row, j)) + "·" + paren(h.V(j, d));
                terms += " = ";
            }
            lines.push_back("o" + sub(q + "," + std::to_string(d + 1)) + " = " + terms + num(h.output(row, d)));
        }
        break;
    }
    case StepKind::Concat: {
        std::string parts;
        for (std::size_t hi = 0; hi < t.heads.size(); ++hi)
            parts += (hi ? " ‖ " : "") + vec(t.heads[hi].output.row(row), false);
        lines.push_back("concat" + sub(q) + " = " + parts);
        const bool wo = s.mode == InputMode::Projected && s.Wo.has_value();
        if (wo)
            lines.push_back("output" + sub(q) + " = concat" + sub(q) + " · W_{O} = " + vec(t.output.row(row), false));
        else
            lines.push_back("output" + sub(q) + " = " + vec(t.output.row(row), false));
        break;
    }
    }
    return lines;
}

} // namespace attn
