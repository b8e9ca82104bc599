#include "compare.h"

#include "edit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace attn {

const char *compareStageKey(CompareStage s)
{
    switch (s) {
    case CompareStage::Scores: return "scores";
    case CompareStage::Scaled: return "scaled";
    case CompareStage::Masked: return "masked";
    case CompareStage::Weights: return "weights";
    case CompareStage::Output: return "output";
    case CompareStage::Concat: return "concat";
    case CompareStage::FinalOutput: return "final_output";
    }
    return "";
}

std::optional<CompareStage> compareStageFromKey(const std::string &key)
{
    for (CompareStage s : kAllCompareStages)
        if (key == compareStageKey(s))
            return s;
    return std::nullopt;
}

bool isPerHead(CompareStage s)
{
    return s != CompareStage::Concat && s != CompareStage::FinalOutput;
}

Matrix compareStageMatrix(const Trace &t, const Scenario &s, CompareStage stage, int head)
{
    if (isPerHead(stage) && (head < 0 || head >= int(t.heads.size())))
        return {};
    switch (stage) {
    case CompareStage::Scores: return t.heads[std::size_t(head)].scores;
    case CompareStage::Scaled: return t.heads[std::size_t(head)].scaledMatrix();
    case CompareStage::Masked: {
        Matrix m = t.heads[std::size_t(head)].scaledMatrix();
        if (s.maskStage == MaskStage::BeforeSoftmax && t.blocked.rows() == m.rows() && t.blocked.cols() == m.cols())
            for (Eigen::Index i = 0; i < m.rows(); ++i)
                for (Eigen::Index j = 0; j < m.cols(); ++j)
                    if (t.blocked(i, j))
                        m(i, j) = -std::numeric_limits<double>::infinity();
        return m;
    }
    case CompareStage::Weights: return t.heads[std::size_t(head)].weights;
    case CompareStage::Output: return t.heads[std::size_t(head)].output;
    case CompareStage::Concat: return t.concat;
    case CompareStage::FinalOutput: return t.output;
    }
    return {};
}

std::optional<std::vector<int>> tokenAlignment(const Scenario &a, const Scenario &b, std::string *why)
{
    auto fail = [why](const char *reason) -> std::optional<std::vector<int>> {
        if (why)
            *why = reason;
        return std::nullopt;
    };
    if (!sharesTokens(a) || !sharesTokens(b))
        return fail("align by token needs self-attention in both (the keys are the query tokens)");
    const auto la = queryLabels(a), lb = queryLabels(b);
    if (la.size() != lb.size())
        return fail("A and B have different numbers of tokens");
    if (a.heads != b.heads)
        return fail("A and B have different numbers of heads");
    std::map<std::string, std::vector<int>> rowsOf;
    for (int i = int(lb.size()) - 1; i >= 0; --i)
        rowsOf[lb[std::size_t(i)]].push_back(i); // back() is the first unused
    std::vector<int> order;
    order.reserve(la.size());
    for (const std::string &label : la) {
        auto it = rowsOf.find(label);
        if (it == rowsOf.end() || it->second.empty())
            return fail("A and B do not hold the same tokens");
        order.push_back(it->second.back());
        it->second.pop_back();
    }
    if (why)
        why->clear();
    return order;
}

namespace {

Matrix permuteRows(const Matrix &m, const std::vector<int> &order)
{
    if (m.rows() != Eigen::Index(order.size()))
        return m;
    Matrix r(m.rows(), m.cols());
    for (std::size_t i = 0; i < order.size(); ++i)
        r.row(Eigen::Index(i)) = m.row(order[i]);
    return r;
}

template <typename M>
M permuteBoth(const M &m, const std::vector<int> &order)
{
    const auto n = Eigen::Index(order.size());
    if (m.rows() != n || m.cols() != n)
        return m;
    M r(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j)
            r(i, j) = m(order[std::size_t(i)], order[std::size_t(j)]);
    return r;
}

} // namespace

Trace alignTrace(const Trace &b, const std::vector<int> &order)
{
    Trace t = b;
    t.blocked = permuteBoth(b.blocked, order);
    t.Q = permuteRows(b.Q, order);
    t.K = permuteRows(b.K, order);
    t.V = permuteRows(b.V, order);
    t.encodedX = permuteRows(b.encodedX, order);
    t.encodedSource = permuteRows(b.encodedSource, order);
    for (HeadTrace &h : t.heads) {
        h.Q = permuteRows(h.Q, order);
        h.K = permuteRows(h.K, order);
        h.V = permuteRows(h.V, order);
        h.scores = permuteBoth(h.scores, order);
        if (h.scaled.size()) // (not stored with ComputeOptions::keepScaled off)
            h.scaled = permuteBoth(h.scaled, order);
        h.weights = permuteBoth(h.weights, order);
        h.output = permuteRows(h.output, order);
        if (h.rows.size() == order.size()) {
            std::vector<RowStats> rows(order.size());
            for (std::size_t i = 0; i < order.size(); ++i) {
                rows[i] = h.rows[std::size_t(order[i])];
                if (rows[i].argmax >= 0) // a key column: its new place
                    rows[i].argmax = int(std::find(order.begin(), order.end(), rows[i].argmax) - order.begin());
            }
            h.rows = std::move(rows);
        }
    }
    t.concat = permuteRows(b.concat, order);
    t.output = permuteRows(b.output, order);
    return t;
}

StageDifference stageDifference(const Scenario &a, const Trace &ta, const Scenario &b, const Trace &tb,
                                CompareStage stage, int head)
{
    StageDifference d;
    d.stage = stage;
    d.head = isPerHead(stage) ? head : -1;
    if (isPerHead(stage)) {
        // A head one side lacks is said as such, not as a 0 by 0 matrix.
        const bool inA = head >= 0 && head < int(ta.heads.size());
        const bool inB = head >= 0 && head < int(tb.heads.size());
        if (!inA || !inB) {
            d.why = std::string(!inA && !inB ? "neither A nor B" : !inA ? "A" : "B") + " has no head "
                + std::to_string(head + 1) + " (A has " + std::to_string(ta.heads.size()) + ", B has "
                + std::to_string(tb.heads.size()) + ")";
            return d;
        }
    }
    const Matrix ma = compareStageMatrix(ta, a, stage, head);
    const Matrix mb = compareStageMatrix(tb, b, stage, head);
    if (ma.rows() != mb.rows() || ma.cols() != mb.cols()) {
        d.why = "A is " + std::to_string(ma.rows()) + " by " + std::to_string(ma.cols()) + ", B is "
            + std::to_string(mb.rows()) + " by " + std::to_string(mb.cols());
        return d;
    }
    d.comparable = true;
    d.difference.resize(ma.rows(), ma.cols());
    for (Eigen::Index i = 0; i < ma.rows(); ++i)
        for (Eigen::Index j = 0; j < ma.cols(); ++j) {
            const double x = ma(i, j), y = mb(i, j);
            if (!std::isfinite(x) || !std::isfinite(y)) {
                d.difference(i, j) = std::numeric_limits<double>::quiet_NaN();
                if (std::isfinite(x) != std::isfinite(y))
                    ++d.blockedInOne;
                continue;
            }
            const double diff = y - x;
            d.difference(i, j) = diff;
            if (std::abs(diff) > d.maxAbsDiff || (d.row < 0 && diff != 0)) {
                d.maxAbsDiff = std::abs(diff);
                d.row = int(i);
                d.col = int(j);
            }
        }
    return d;
}

bool Comparison::anyComparable() const
{
    for (const StageDifference &d : stages)
        if (d.comparable)
            return true;
    return false;
}

double Comparison::maxAbsDiff() const
{
    double m = 0;
    for (const StageDifference &d : stages)
        if (d.comparable)
            m = std::max(m, d.maxAbsDiff);
    return m;
}

const StageDifference *Comparison::find(CompareStage stage, int head) const
{
    for (const StageDifference &d : stages)
        if (d.stage == stage && (d.head == head || !isPerHead(stage)))
            return &d;
    return nullptr;
}

Comparison compareTraces(const Scenario &a, const Trace &ta, const Scenario &b, const Trace &tb, bool alignByToken,
                         std::optional<CompareStage> only)
{
    Comparison c;
    c.encodingUsed = a.encoding != Encoding::None || b.encoding != Encoding::None;
    const Trace *bt = &tb;
    Trace aligned;
    if (alignByToken) {
        if (auto order = tokenAlignment(a, b)) {
            aligned = alignTrace(tb, *order);
            bt = &aligned;
            c.aligned = true;
            c.order = std::move(*order);
        }
    }
    const int heads = int(std::max(ta.heads.size(), bt->heads.size()));
    for (CompareStage stage : kAllCompareStages) {
        if (only && *only != stage)
            continue;
        if (isPerHead(stage)) {
            for (int h = 0; h < heads; ++h)
                c.stages.push_back(stageDifference(a, ta, b, *bt, stage, h));
        } else {
            c.stages.push_back(stageDifference(a, ta, b, *bt, stage, -1));
        }
    }
    return c;
}

Comparison compareScenarios(const Scenario &a, const Scenario &b, bool alignByToken, std::optional<CompareStage> only)
{
    return compareTraces(a, compute(a), b, compute(b), alignByToken, only);
}

} // namespace attn
