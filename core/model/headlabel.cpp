#include "headlabel.h"

#include "numbers.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace attn {

namespace {

// Accumulates one score's mean and its uniform baseline over rows.
struct Mean {
    double sum = 0, uniform = 0;
    int rows = 0;
    void add(double w, double u)
    {
        sum += w;
        uniform += u;
        ++rows;
    }
    HeadScore score() const { return rows ? HeadScore{sum / rows, uniform / rows, rows} : HeadScore{}; }
};

double rowEntropy(const Matrix &w, Eigen::Index i)
{
    double h = 0;
    for (Eigen::Index j = 0; j <= i && j < w.cols(); ++j)
        if (w(i, j) > 0)
            h -= w(i, j) * std::log(w(i, j));
    return h;
}

// The keys p + 1 after each earlier occurrence p ≤ i − 2 of row i's token.
std::set<Eigen::Index> inductionTargets(const std::vector<int> &ids, Eigen::Index i)
{
    std::set<Eigen::Index> targets;
    for (Eigen::Index p = 0; p + 2 <= i; ++p)
        if (ids[std::size_t(p)] == ids[std::size_t(i)])
            targets.insert(p + 1);
    return targets;
}

} // namespace

const HeadScore *HeadScores::labelScore() const
{
    switch (kind) {
    case HeadKind::PreviousToken:
        return &previousToken;
    case HeadKind::FirstToken:
        return &firstToken;
    case HeadKind::Self:
        return &self;
    case HeadKind::Induction:
        return &induction;
    case HeadKind::DuplicateToken:
        return &duplicate;
    default:
        return nullptr;
    }
}

HeadScores scoreHead(const Matrix &w, const std::vector<int> &ids)
{
    HeadScores s;
    const Eigen::Index n = std::min(w.rows(), w.cols());
    const bool withIds = Eigen::Index(ids.size()) >= n;
    Mean previous, first, self, induction, duplicate;
    double spread = 0, maxWeight = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
        const double h = rowEntropy(w, i);
        s.meanEntropy += h / double(n);
        if (i == 0)
            continue;
        const double open = double(i + 1), u = 1.0 / open;
        previous.add(w(i, i - 1), u);
        first.add(w(i, 0), u);
        self.add(w(i, i), u);
        spread += h / std::log(open);
        maxWeight += w.row(i).head(i + 1).maxCoeff();
        if (withIds) {
            const auto targets = inductionTargets(ids, i);
            if (!targets.empty()) {
                double on = 0;
                for (Eigen::Index t : targets)
                    on += w(i, t);
                induction.add(on, double(targets.size()) * u);
            }
            double on = 0;
            int copies = 0;
            for (Eigen::Index p = 0; p < i; ++p)
                if (ids[std::size_t(p)] == ids[std::size_t(i)]) {
                    on += w(i, p);
                    ++copies;
                }
            if (copies)
                duplicate.add(on, copies * u);
        }
    }
    s.previousToken = previous.score();
    s.firstToken = first.score();
    s.self = self.score();
    s.induction = induction.score();
    s.duplicate = duplicate.score();
    if (n < 2)
        return s; // TooShort
    s.spread = spread / double(n - 1);
    s.maxWeight = maxWeight / double(n - 1);
    labelHead(s);
    return s;
}

void labelHead(HeadScores &s)
{
    // The clearest pattern wins; in this order on a tie.
    const std::pair<HeadKind, const HeadScore *> candidates[] = {{HeadKind::PreviousToken, &s.previousToken},
                                                                  {HeadKind::FirstToken, &s.firstToken},
                                                                  {HeadKind::Self, &s.self},
                                                                  {HeadKind::Induction, &s.induction},
                                                                  {HeadKind::DuplicateToken, &s.duplicate}};
    const HeadScore *best = nullptr;
    s.kind = s.spread >= kBroadSpread ? HeadKind::Broad : HeadKind::Focused;
    for (const auto &[kind, score] : candidates)
        if (score->clear() && (!best || score->score > best->score)) {
            best = score;
            s.kind = kind;
        }
}

HeadScores meanScores(const std::vector<HeadScores> &each)
{
    HeadScores m;
    if (each.empty())
        return m;
    // Each score: the mean over the probes where it is defined (rows added).
    auto mean = [&each](HeadScore HeadScores::*which) {
        HeadScore out;
        int probes = 0;
        for (const HeadScores &s : each)
            if ((s.*which).defined()) {
                out.score += (s.*which).score;
                out.uniform += (s.*which).uniform;
                out.rows += (s.*which).rows;
                ++probes;
            }
        if (probes) {
            out.score /= probes;
            out.uniform /= probes;
        }
        return out;
    };
    m.previousToken = mean(&HeadScores::previousToken);
    m.firstToken = mean(&HeadScores::firstToken);
    m.self = mean(&HeadScores::self);
    m.induction = mean(&HeadScores::induction);
    m.duplicate = mean(&HeadScores::duplicate);
    for (const HeadScores &s : each) {
        m.spread += s.spread / double(each.size());
        m.maxWeight += s.maxWeight / double(each.size());
        m.meanEntropy += s.meanEntropy / double(each.size());
    }
    if (std::any_of(each.begin(), each.end(), [](const HeadScores &s) { return s.kind == HeadKind::TooShort; }))
        return m; // TooShort
    labelHead(m);
    return m;
}

std::string headKindName(HeadKind kind)
{
    switch (kind) {
    case HeadKind::PreviousToken:
        return "previous token";
    case HeadKind::FirstToken:
        return "first token (sink)";
    case HeadKind::Self:
        return "self";
    case HeadKind::Induction:
        return "induction";
    case HeadKind::DuplicateToken:
        return "duplicate token";
    case HeadKind::Broad:
        return "broad";
    case HeadKind::Focused:
        return "focused";
    case HeadKind::TooShort:
        return "too short to tell";
    }
    return {};
}

std::string headScoresText(const HeadScores &s)
{
    const auto two = [](double v) { return formatFixed(v, 2); };
    const auto score = [&](HeadKind kind, const HeadScore &h) {
        return headKindName(kind) + " " + two(h.score) + " (uniform " + two(h.uniform) + ")";
    };
    std::string out = score(HeadKind::PreviousToken, s.previousToken) + ", " + score(HeadKind::FirstToken, s.firstToken)
        + ", " + score(HeadKind::Self, s.self) + ", ";
    out += s.induction.defined() ? score(HeadKind::Induction, s.induction) : "induction: no token repeats an earlier one";
    out += ", ";
    out += s.duplicate.defined() ? score(HeadKind::DuplicateToken, s.duplicate) : "duplicate token: no token repeats";
    return out + "; spread " + two(s.spread) + " (uniform 1.00), largest weight " + two(s.maxWeight) + ", mean entropy "
        + two(s.meanEntropy) + " nats";
}

} // namespace attn
