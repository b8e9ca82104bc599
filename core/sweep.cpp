#include "sweep.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn {

std::vector<double> logGrid(double lo, double hi, int n)
{
    std::vector<double> out;
    if (n <= 0)
        return out;
    if (n == 1)
        return {lo};
    const double a = std::log(lo), b = std::log(hi);
    out.reserve(std::size_t(n));
    for (int i = 0; i < n; ++i)
        out.push_back(std::exp(a + (b - a) * double(i) / double(n - 1)));
    out.front() = lo;
    out.back() = hi;
    return out;
}

TemperatureCurves temperatureCurves(const Eigen::Ref<const Matrix> &scores, const BoolMatrix &blocked, MaskStage stage,
                                    double c, const std::vector<double> &taus, SoftmaxKind kind)
{
    const Eigen::Index nq = scores.rows(), nk = scores.cols();
    const bool anyBlocked = blocked.rows() == nq && blocked.cols() == nk;
    TemperatureCurves out;
    out.taus = taus;
    out.entropy = Matrix::Zero(Eigen::Index(taus.size()), nq);
    out.maxWeight = Matrix::Zero(Eigen::Index(taus.size()), nq);
    out.uniformEntropy = Eigen::VectorXd::Zero(nq);
    for (Eigen::Index i = 0; i < nq; ++i) {
        const Eigen::Index open = anyBlocked ? nk - blocked.row(i).count() : nk;
        out.uniformEntropy(i) = open > 0 ? std::log(double(open)) : 0.0;
    }
    const BoolMatrix none;
    std::vector<RowStats> rows;
    for (std::size_t t = 0; t < taus.size(); ++t) {
        const Matrix scaled = scores / (c * taus[t]);
        maskedSoftmax(scaled, anyBlocked ? blocked : none, stage, &rows, kind);
        for (Eigen::Index i = 0; i < nq; ++i) {
            out.entropy(Eigen::Index(t), i) = rows[std::size_t(i)].entropy;
            out.maxWeight(Eigen::Index(t), i) = rows[std::size_t(i)].maxWeight;
        }
    }
    return out;
}

TemperatureCurves temperatureCurves(const Scenario &s, int head, const std::vector<double> &taus)
{
    const Trace t = compute(s);
    const int h = std::clamp(head, 0, std::max(0, int(t.heads.size()) - 1));
    return temperatureCurves(t.heads[std::size_t(h)].scores, t.blocked, s.maskStage, scaleConstant(s.scale, t.dk), taus,
                             s.softmax);
}

Eigen::VectorXd rotateInPlane(const PlaneBasis &b, const Eigen::Ref<const Eigen::VectorXd> &v, double angle)
{
    const Eigen::Vector2d p = projectToPlane(b, v);
    if (p.isZero(0.0))
        return v;
    const double c = std::cos(angle), s = std::sin(angle);
    const Eigen::Vector2d turned(c * p(0) - s * p(1), s * p(0) + c * p(1));
    return placeInPlane(b, v, turned);
}

TopK topK(const Eigen::Ref<const Matrix> &weights, const BoolMatrix &blocked, const Eigen::Ref<const Matrix> &V, int k)
{
    const Eigen::Index nq = weights.rows(), nk = weights.cols();
    const bool hasBlocked = blocked.rows() == nq && blocked.cols() == nk;
    TopK out;
    out.k = std::max(1, k);
    out.weights = Matrix::Zero(nq, nk);
    out.knn = Matrix::Zero(nq, nk);
    std::vector<Eigen::Index> order;
    for (Eigen::Index i = 0; i < nq; ++i) {
        order.clear();
        for (Eigen::Index j = 0; j < nk; ++j)
            if (!(hasBlocked && blocked(i, j)))
                order.push_back(j);
        // Largest first; equal weights keep the lower column first.
        std::stable_sort(order.begin(), order.end(),
                         [&](Eigen::Index a, Eigen::Index b) { return weights(i, a) > weights(i, b); });
        const std::size_t kept = std::min(order.size(), std::size_t(out.k));
        if (kept == 0)
            continue;
        double sum = 0;
        for (std::size_t r = 0; r < kept; ++r)
            sum += weights(i, order[r]);
        for (std::size_t r = 0; r < kept; ++r) {
            const Eigen::Index j = order[r];
            out.weights(i, j) = sum > 0 ? weights(i, j) / sum : 1.0 / double(kept);
            out.knn(i, j) = 1.0 / double(kept);
        }
    }
    if (V.rows() == nk) {
        out.output.noalias() = out.weights * V;
        out.knnOutput.noalias() = out.knn * V;
    }
    return out;
}

} // namespace attn
