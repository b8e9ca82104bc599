#include "online_softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

// One query row of one head: the tiles, then the weights from the final m and l.
// `weights` is n_q by n_k; its row i is written.
OnlineRow onlineRow(const HeadTrace &head, const BoolMatrix &blocked, bool maskAfter, Eigen::Index i, int tile,
                    Matrix &weights)
{
    const Eigen::Index nk = head.scores.cols();
    const Eigen::Index dv = head.V.cols();
    OnlineRow row;
    double m = kMinusInfinity, l = 0;
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
    for (Eigen::Index j = 0; j < nk; ++j)
        weights(i, j) = (blocked(i, j) || l == 0) ? 0.0 : std::exp(head.scaledAt(i, j) - m) / l;
    return row;
}

} // namespace

Result<std::vector<OnlineHead>> onlineSoftmax(const Scenario &s, const Trace &t, int tile)
{
    if (tile < 1)
        return Problem{"tile", "a tile holds at least 1 key (got " + std::to_string(tile) + ")"};
    const bool maskAfter = s.maskStage == MaskStage::AfterSoftmax;
    std::vector<OnlineHead> heads;
    heads.reserve(t.heads.size());
    for (const HeadTrace &head : t.heads) {
        const Eigen::Index nq = head.scores.rows(), nk = head.scores.cols();
        const int b = int(std::min<Eigen::Index>(std::max<Eigen::Index>(nk, 1), tile));
        OnlineHead out;
        out.weights = Matrix::Zero(nq, nk);
        out.output = Matrix::Zero(nq, head.V.cols());
        out.rows.reserve(std::size_t(nq));
        for (Eigen::Index i = 0; i < nq; ++i) {
            out.rows.push_back(onlineRow(head, t.blocked, maskAfter, i, b, out.weights));
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
