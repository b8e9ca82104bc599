#include "gradlens.h"

#include "numbers.h"

#include <cmath>

namespace attn {

namespace {

// An input of a hand calculation: compact, in brackets when negative.
std::string paren(double v, Minus minus = Minus::Typographic)
{
    const std::string s = compact(v, minus);
    return v < 0 ? "(" + s + ")" : s;
}

std::string num(double v, Minus minus = Minus::Typographic)
{
    return fixed4(v, minus);
}

// "a·b + c·d + …" of the pairs, or empty past maxTerms.
template <class F>
std::string sumOfProducts(Eigen::Index n, int maxTerms, F pair)
{
    if (n > maxTerms)
        return {};
    std::string s;
    for (Eigen::Index k = 0; k < n; ++k) {
        const auto [a, b] = pair(k);
        s += (k ? " + " : "") + paren(a) + "·" + paren(b);
    }
    return s;
}

} // namespace

TargetLoss targetTowardsToken(const Scenario &s, const Trace &t, int query, int token)
{
    Matrix target = t.output;
    Eigen::RowVectorXd row = t.V.row(token);
    if (s.mode == InputMode::Projected && s.Wo)
        row = row * *s.Wo;
    target.row(query) = row;
    return TargetLoss{target};
}

Result<TargetLoss> targetTowardsVector(const Trace &t, int query, const Eigen::RowVectorXd &target)
{
    if (target.size() != t.output.cols())
        return Problem{"target", "has " + std::to_string(target.size()) + " numbers; the output is " +
                                     std::to_string(t.output.cols()) + " wide"};
    if (!target.allFinite())
        return Problem{"target", "holds a value that is not a finite number"};
    Matrix m = t.output;
    m.row(query) = target;
    return TargetLoss{m};
}

Matrix headOutputGradient(const Scenario &s, const Trace &t, const Loss &loss, int head)
{
    const Eigen::Index nq = t.output.rows();
    const auto *target = std::get_if<TargetLoss>(&loss);
    if (!target)
        return Matrix::Zero(nq, t.dv);
    Matrix dY = t.output - target->target;
    if (s.mode == InputMode::Projected && s.Wo)
        dY = dY * s.Wo->transpose();
    return dY.middleCols(Eigen::Index(head) * t.dv, t.dv);
}

std::string jacobianTerms(const Eigen::Ref<const Eigen::VectorXd> &w, int i, int j)
{
    const double v = w(i) * ((i == j ? 1.0 : 0.0) - w(j));
    if (i == j)
        return compact(w(i), Minus::Typographic) + "·(1 − " + compact(w(j), Minus::Typographic) + ") = " + num(v);
    return "−" + compact(w(i), Minus::Typographic) + "·" + compact(w(j), Minus::Typographic) + " = " + num(v);
}

std::string weightGradientTerms(const Scenario &s, const Trace &t, const Loss &loss, int head, int i, int j,
                                int maxTerms)
{
    const HeadTrace &h = t.heads[std::size_t(head)];
    std::string terms;
    double value = 0;
    if (const auto *a = std::get_if<AttendLoss>(&loss)) {
        if (a->key == j && !t.blocked(i, j)) {
            const Eigen::VectorXd p = softmaxRowProbabilities(t, head, i, s.maskStage, s.softmax);
            const double n = double(t.heads.size()) * double(h.scores.rows());
            value = -1.0 / (n * p(j));
            terms = "−1/(" + std::to_string(t.heads.size()) + "·" + std::to_string(h.scores.rows()) + "·" + num(p(j)) +
                    ")";
        }
    } else {
        const Matrix dOut = headOutputGradient(s, t, loss, head);
        terms = sumOfProducts(dOut.cols(), maxTerms, [&](Eigen::Index d) { return std::pair{dOut(i, d), h.V(j, d)}; });
        value = dOut.row(i).dot(h.V.row(j));
        if (terms.empty() && dOut.cols() > 0)
            return {};
    }
    if (terms.empty())
        return {};
    return terms + " = " + num(value);
}

ScoreGradientTerms scoreGradientTerms(const Scenario &s, const Trace &t, const Gradients &g, int head, int i, int j,
                                      int maxTerms, Minus minus)
{
    const auto paren = [minus](double v) { return ::attn::paren(v, minus); };
    const auto num = [minus](double v) { return ::attn::num(v, minus); };
    ScoreGradientTerms r;
    const bool after = s.maskStage == MaskStage::AfterSoftmax;
    if (!after && t.blocked(i, j)) {
        r.passesNothing = true;
        return r;
    }
    r.blockedAfter = after && t.blocked(i, j);
    const Eigen::VectorXd p = softmaxRowProbabilities(t, head, i, s.maskStage, s.softmax);
    const Eigen::RowVectorXd gw = g.heads[std::size_t(head)].weights.row(i);
    double sum = 0;
    std::string terms;
    int shown = 0;
    for (Eigen::Index k = 0; k < gw.size(); ++k) {
        if (t.blocked(i, k))
            continue;
        sum += gw(k) * p(k);
        if (gw(k) == 0)
            continue;
        if (shown < maxTerms)
            terms += (shown ? " + " : "") + paren(gw(k)) + "·" + num(p(k));
        else if (shown == maxTerms)
            terms += " + …";
        ++shown;
    }
    r.sum = (terms.empty() ? std::string("0") : terms) + " = " + num(sum);
    const double gj = t.blocked(i, j) ? 0.0 : gw(j);
    const double dx = p(j) * (gj - sum);
    r.cell = num(p(j)) + "·(" + paren(gj) + " − " + paren(sum) + ") ÷ " + num(t.divisor) + " = " + num(dx / t.divisor);
    return r;
}

namespace {

// ∂L/∂q_i,d (forQuery) or ∂L/∂k_j,d: the sum over the other side's rows r
// of ∂s·k_r,d (q_r,d) for the dot, of ∓2 ∂s (q_d − k_d) for the distance.
std::string similarityTerms(const Scenario &s, const Trace &t, const Gradients &g, int head, int row, int d,
                            int maxTerms, bool forQuery)
{
    if (s.similarity == Similarity::Cosine || s.encoding == Encoding::Rope)
        return {};
    const HeadTrace &h = t.heads[std::size_t(head)];
    const Matrix &dS = g.heads[std::size_t(head)].scores;
    const Eigen::Index n = forQuery ? h.K.rows() : h.Q.rows();
    auto ds = [&](Eigen::Index r) { return forQuery ? dS(row, r) : dS(r, row); };
    if (n > maxTerms)
        return {};
    std::string terms;
    double sum = 0;
    for (Eigen::Index r = 0; r < n; ++r) {
        const double q = forQuery ? h.Q(row, d) : h.Q(r, d), k = forQuery ? h.K(r, d) : h.K(row, d);
        const double other = forQuery ? k : q;
        const std::string sep = r ? " + " : "";
        if (s.similarity == Similarity::Dot) {
            sum += ds(r) * other;
            terms += sep + paren(ds(r)) + "·" + paren(other);
        } else {
            sum += ds(r) * (q - k);
            terms += sep + paren(ds(r)) + "·(" + compact(q, Minus::Typographic) + " − " + paren(k) + ")";
        }
    }
    if (s.similarity == Similarity::Dot)
        return terms + " = " + num(sum);
    return (forQuery ? "−2·(" : "2·(") + terms + ") = " + num((forQuery ? -2.0 : 2.0) * sum);
}

} // namespace

std::string queryGradientTerms(const Scenario &s, const Trace &t, const Gradients &g, int head, int i, int d,
                               int maxTerms)
{
    return similarityTerms(s, t, g, head, i, d, maxTerms, true);
}

std::string keyGradientTerms(const Scenario &s, const Trace &t, const Gradients &g, int head, int j, int d,
                             int maxTerms)
{
    return similarityTerms(s, t, g, head, j, d, maxTerms, false);
}

std::string valueGradientTerms(const Scenario &s, const Trace &t, const Loss &loss, int head, int j, int d,
                               int maxTerms)
{
    const HeadTrace &h = t.heads[std::size_t(head)];
    const Matrix dOut = headOutputGradient(s, t, loss, head);
    const std::string terms =
        sumOfProducts(h.weights.rows(), maxTerms, [&](Eigen::Index i) { return std::pair{h.weights(i, j), dOut(i, d)}; });
    return terms.empty() ? terms : terms + " = " + num(h.weights.col(j).dot(dOut.col(d)));
}

Eigen::RowVectorXd descentRow(const Matrix &values, const Matrix &grad, int row, int offset, int width, double eta)
{
    Eigen::RowVectorXd r = values.row(row);
    r.segment(offset, width) -= eta * grad.row(row).segment(offset, width);
    return r;
}

bool descentSettled(double previous, double current, double tolerance)
{
    if (!(current < previous))
        return true;
    const double size = std::abs(previous);
    if (size < 1e-12)
        return true;
    return (previous - current) <= tolerance * size;
}

} // namespace attn
