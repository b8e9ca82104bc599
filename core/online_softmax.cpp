#include "online_softmax.h"

#include "numbers.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

// One query row of one head: the tiles, then the weights from the final m
// and l into `weights` (1 by n_k).
// With softmax_1 the row starts with the sink read: a key of score 0 and
// value 0, so m = 0, l = e^0 = 1 and o = 0 before the first tile.
OnlineRow onlineRow(const HeadTrace &head, const BoolMatrix &blocked, bool maskAfter, bool plusOne, Eigen::Index i,
                    int tile, Eigen::RowVectorXd &weights)
{
    const Eigen::Index nk = head.scores.cols();
    const Eigen::Index dv = head.V.cols();
    OnlineRow row;
    double m = plusOne ? 0.0 : kMinusInfinity, l = plusOne ? 1.0 : 0.0;
    Eigen::RowVectorXd o = Eigen::RowVectorXd::Zero(dv);
    bool anyOpen = false;
    for (Eigen::Index first = 0; first < nk; first += tile) {
        const Eigen::Index last = std::min(nk, first + tile) - 1;
        OnlineTile t;
        t.first = int(first);
        t.last = int(last);
        t.mOld = m;
        // A key takes part in the sum when it is open, or, with the mask
        // after the softmax, always (its weight is removed afterwards).
        double tileMax = kMinusInfinity;
        for (Eigen::Index j = first; j <= last; ++j) {
            const bool open = !blocked(i, j);
            t.open = t.open || open;
            if (open || maskAfter)
                tileMax = std::max(tileMax, head.scaledAt(i, j));
        }
        const double mNew = std::max(m, tileMax);
        if (mNew == kMinusInfinity) { // nothing read yet that counts
            t.m = m;
            t.rescale = 0;
            t.l = l;
            t.o = o;
            row.tiles.push_back(std::move(t));
            continue;
        }
        const double rescale = m == kMinusInfinity ? 0.0 : std::exp(m - mNew);
        double sum = 0;
        Eigen::RowVectorXd weighted = Eigen::RowVectorXd::Zero(dv);
        for (Eigen::Index j = first; j <= last; ++j) {
            const bool open = !blocked(i, j);
            if (!open && !maskAfter)
                continue;
            const double e = std::exp(head.scaledAt(i, j) - mNew);
            sum += e;
            if (open)
                weighted += e * head.V.row(j);
        }
        const double lNew = l * rescale + sum;
        o = (o * (l * rescale) + weighted) / lNew;
        m = mNew;
        l = lNew;
        anyOpen = anyOpen || t.open;
        t.m = m;
        t.rescale = rescale;
        t.l = l;
        t.o = o;
        row.tiles.push_back(std::move(t));
    }
    row.fullyMasked = !anyOpen;
    weights.resize(nk);
    for (Eigen::Index j = 0; j < nk; ++j)
        weights(j) = (blocked(i, j) || l == 0) ? 0.0 : std::exp(head.scaledAt(i, j) - m) / l;
    return row;
}

} // namespace

Result<std::vector<OnlineHead>> onlineSoftmax(const Scenario &s, const Trace &t, int tile)
{
    if (tile < 1)
        return Problem{"tile", "a tile holds at least 1 key (got " + std::to_string(tile) + ")"};
    const bool maskAfter = s.maskStage == MaskStage::AfterSoftmax;
    const bool plusOne = s.softmax == SoftmaxKind::PlusOne;
    std::vector<OnlineHead> heads;
    heads.reserve(t.heads.size());
    for (const HeadTrace &head : t.heads) {
        const Eigen::Index nq = head.scores.rows(), nk = head.scores.cols();
        const int b = int(std::min<Eigen::Index>(std::max<Eigen::Index>(nk, 1), tile));
        OnlineHead out;
        out.weights = Matrix::Zero(nq, nk);
        out.output = Matrix::Zero(nq, head.V.cols());
        out.rows.reserve(std::size_t(nq));
        Eigen::RowVectorXd w;
        for (Eigen::Index i = 0; i < nq; ++i) {
            out.rows.push_back(onlineRow(head, t.blocked, maskAfter, plusOne, i, b, w));
            out.weights.row(i) = w;
            if (!out.rows.back().tiles.empty())
                out.output.row(i) = out.rows.back().tiles.back().o;
        }
        if (nq && nk) {
            out.largestWeightDifference = (out.weights - head.weights).cwiseAbs().maxCoeff();
            out.largestOutputDifference = (out.output - head.output).cwiseAbs().maxCoeff();
        }
        heads.push_back(std::move(out));
    }
    return heads;
}

Result<OnlineRowResult> onlineSoftmaxRow(const Scenario &s, const Trace &t, int head, int query, int tile)
{
    if (tile < 1)
        return Problem{"tile", "a tile holds at least 1 key (got " + std::to_string(tile) + ")"};
    if (head < 0 || head >= int(t.heads.size()))
        return Problem{"head", "no head " + std::to_string(head + 1) + " (the trace has " + std::to_string(t.heads.size()) + ")"};
    const HeadTrace &h = t.heads[std::size_t(head)];
    const Eigen::Index nq = h.scores.rows(), nk = h.scores.cols();
    if (query < 0 || query >= nq)
        return Problem{"query", "no query " + std::to_string(query + 1) + " (the trace has " + std::to_string(nq) + ")"};
    const int b = int(std::min<Eigen::Index>(std::max<Eigen::Index>(nk, 1), tile));
    OnlineRowResult r;
    r.row = onlineRow(h, t.blocked, s.maskStage == MaskStage::AfterSoftmax, s.softmax == SoftmaxKind::PlusOne, query, b,
                      r.weights);
    r.output = r.row.tiles.empty() ? Eigen::RowVectorXd::Zero(h.V.cols()) : r.row.tiles.back().o;
    if (nk) {
        r.largestWeightDifference = (r.weights - h.weights.row(query)).cwiseAbs().maxCoeff();
        r.largestOutputDifference = (r.output - h.output.row(query)).cwiseAbs().maxCoeff();
    }
    return r;
}

std::optional<Problem> onlineTooLarge(const Trace &t, int tile)
{
    if (tile < 1)
        return Problem{"tile", "a tile holds at least 1 key (got " + std::to_string(tile) + ")"};
    double numbers = 0;
    for (const HeadTrace &head : t.heads) {
        const double tiles = std::ceil(double(head.scores.cols()) / tile);
        numbers += double(head.scores.rows()) * tiles * double(head.V.cols() + 4);
    }
    if (numbers > kMaxOnlineNumbers)
        return Problem{"tile", "tiles of " + std::to_string(tile) + " keys would hold " + compact(numbers) +
                                   " numbers, more than the limit of " + compact(kMaxOnlineNumbers) + "; take larger tiles"};
    return std::nullopt;
}

namespace {

std::string vectorText(const Eigen::RowVectorXd &v)
{
    std::string out = "[";
    for (Eigen::Index j = 0; j < v.size(); ++j)
        out += (j ? ", " : "") + fixed4(v(j));
    return out + "]";
}

std::string maximumText(double m)
{
    return m == kMinusInfinity ? std::string("-inf") : fixed4(m);
}

} // namespace

std::string onlineText(const Scenario &s, const std::vector<OnlineHead> &heads, int tile)
{
    const std::vector<std::string> queries = queryLabels(s);
    std::string out = "\nOnline softmax, tiles of " + std::to_string(tile) +
                      " keys: for each query a running maximum m, sum l and output o (over l)\n"
                      "  m = max(m_old, the tile's scores); l = l_old * e^(m_old - m) + sum e^(s_j - m);\n"
                      "  o = (o_old * l_old * e^(m_old - m) + sum e^(s_j - m) v_j) / l\n";
    const bool plusOne = s.softmax == SoftmaxKind::PlusOne;
    if (plusOne)
        out += "  softmax_1: the row starts with the sink read, a key of score 0 and value 0: m = 0, l = 1, o = 0\n";
    for (std::size_t h = 0; h < heads.size(); ++h) {
        out += "\nHead " + std::to_string(h + 1) + " of " + std::to_string(heads.size()) + "\n";
        for (std::size_t i = 0; i < heads[h].rows.size(); ++i) {
            const OnlineRow &row = heads[h].rows[i];
            out += "  query " + std::to_string(i + 1) + " \"" + (i < queries.size() ? queries[i] : std::string()) + "\"" +
                   (row.fullyMasked ? " (every key blocked: no weights)" : "") + "\n";
            double lOld = plusOne ? 1.0 : 0.0;
            for (const OnlineTile &t : row.tiles) {
                out += "    keys " + std::to_string(t.first + 1) + "-" + std::to_string(t.last + 1) + ": ";
                if (t.m == kMinusInfinity) {
                    out += "nothing open yet\n";
                    continue;
                }
                if (!t.open && t.m == t.mOld && t.l == lOld) {
                    out += "every key blocked: m, l and o stay\n";
                    continue;
                }
                out += "m = " + maximumText(t.m) + " (was " + maximumText(t.mOld) + ")";
                if (t.mOld != kMinusInfinity)
                    out += ", e^(m_old - m) = " + fixed4(t.rescale);
                out += ", l = ";
                if (t.mOld != kMinusInfinity)
                    out += fixed4(lOld) + " * " + fixed4(t.rescale) + " + " + fixed4(t.l - lOld * t.rescale) + " = ";
                out += fixed4(t.l) + ", o = " + vectorText(t.o) + "\n";
                lOld = t.l;
            }
        }
        out += "  largest difference to the softmax: weights " + compact(heads[h].largestWeightDifference) + ", output " +
               compact(heads[h].largestOutputDifference) + "\n";
    }
    if (!heads.empty()) {
        const SoftmaxTraffic c = softmaxTraffic(int(heads[0].weights.rows()), int(heads[0].weights.cols()));
        out += "\nMemory traffic of the scores, a head: the safe softmax " + std::to_string(c.safe) +
               " reads and writes (4 a score), the online softmax " + std::to_string(c.online) +
               " (3 a score), fused with the weighted sum none: the " + std::to_string(c.storedCells) +
               " scores are never stored\n";
    }
    return out;
}

std::vector<std::string> onlineTileLines(const Scenario &s, const Trace &t, int head, int query,
                                         const OnlineRowResult &r, int index, int maxKeys)
{
    std::vector<std::string> lines;
    if (index < 0 || index >= int(r.row.tiles.size()) || head < 0 || head >= int(t.heads.size()))
        return lines;
    const HeadTrace &h = t.heads[std::size_t(head)];
    const OnlineTile &tile = r.row.tiles[std::size_t(index)];
    const bool plusOne = s.softmax == SoftmaxKind::PlusOne;
    const bool maskAfter = s.maskStage == MaskStage::AfterSoftmax;
    const OnlineTile *before = index > 0 ? &r.row.tiles[std::size_t(index - 1)] : nullptr;
    const double lOld = before ? before->l : (plusOne ? 1.0 : 0.0);
    const std::vector<std::string> keys = keyLabels(s);

    // The tile's scores: a key blocked before the softmax reads as -inf.
    std::string scores = "s_{" + std::to_string(tile.first + 1) +
                         (tile.last > tile.first ? "…" + std::to_string(tile.last + 1) : std::string()) + "} = [";
    const int shown = std::min(tile.last - tile.first + 1, std::max(1, maxKeys));
    double tileMax = kMinusInfinity;
    for (int j = tile.first; j <= tile.last; ++j) {
        const bool counts = !t.blocked(query, j) || maskAfter;
        if (counts)
            tileMax = std::max(tileMax, h.scaledAt(query, j));
        if (j - tile.first < shown)
            scores += std::string(j > tile.first ? ", " : "") + (counts ? fixed4(h.scaledAt(query, j), Minus::Typographic) : "−∞");
    }
    scores += shown < tile.last - tile.first + 1 ? ", …]" : "]";
    lines.push_back(scores);
    // Nothing counted yet, or a tile of blocked keys: m, l and o stay (the
    // caller says so in words).
    if (tile.m == kMinusInfinity || (!tile.open && tile.m == tile.mOld && tile.l == lOld && !maskAfter))
        return lines;
    const auto num = [](double v) { return v == kMinusInfinity ? std::string("−∞") : fixed4(v, Minus::Typographic); };
    lines.push_back("m = max(m_{old}, max_{j} s_{j}) = max(" + num(tile.mOld) + ", " + num(tileMax) + ") = " + num(tile.m));
    const double tileSum = tile.l - lOld * tile.rescale;
    if (tile.mOld == kMinusInfinity) {
        lines.push_back("ℓ = Σ_{j} e^{s_{j} − m} = " + num(tile.l));
        lines.push_back("o = Σ_{j} e^{s_{j} − m} v_{j} / ℓ = " + vectorText(tile.o));
    } else {
        lines.push_back("e^{m_{old} − m} = e^{" + num(tile.mOld) + " − " + num(tile.m) + "} = " + num(tile.rescale));
        lines.push_back("ℓ = ℓ_{old} · e^{m_{old} − m} + Σ_{j} e^{s_{j} − m} = " + num(lOld) + " · " + num(tile.rescale) +
                        " + " + num(tileSum) + " = " + num(tile.l));
        lines.push_back("o = (o_{old} · ℓ_{old} · e^{m_{old} − m} + Σ_{j} e^{s_{j} − m} v_{j}) / ℓ = " + vectorText(tile.o));
    }
    return lines;
}

SoftmaxTraffic softmaxTraffic(int queries, int keys)
{
    const long long cells = static_cast<long long>(queries) * keys;
    return SoftmaxTraffic{4 * cells, 3 * cells, 0, cells};
}

OverflowRow overflowRow(const Eigen::RowVectorXd &scores)
{
    OverflowRow r;
    r.maximum = scores.size() ? scores.maxCoeff() : 0.0;
    r.exponentials = scores.array().exp().matrix();
    r.naive = r.exponentials / r.exponentials.sum();
    r.shifted = (scores.array() - r.maximum).exp().matrix();
    r.safe = r.shifted / r.shifted.sum();
    return r;
}

} // namespace attn
