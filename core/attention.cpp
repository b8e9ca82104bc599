#include "attention.h"

#include "positional.h"

#include <cmath>
#include <limits>

namespace attn {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Fills the per-row statistics. Entropy uses the identity
//   -sum w log w = sum_j w_j (logZ - (x_j - m))
// with x the row, m its maximum and Z the normaliser: one multiply-add per
// entry instead of one logarithm.
void fillRowStats(const Eigen::Ref<const Matrix> &scaled, const Matrix &weights, const Eigen::VectorXd &rowMax,
                  const Eigen::VectorXd &logZ, const std::vector<bool> &fullyMasked, std::vector<RowStats> &rows)
{
    const Eigen::Index n = scaled.rows();
    rows.assign(std::size_t(n), RowStats{});
    const Eigen::VectorXd sums = weights.rowwise().sum();
    const Eigen::VectorXd shifted = (weights.array() * (scaled.array().colwise() - rowMax.array())).rowwise().sum();
    for (Eigen::Index i = 0; i < n; ++i) {
        RowStats &r = rows[std::size_t(i)];
        if (fullyMasked[std::size_t(i)]) {
            r.fullyMasked = true;
            continue;
        }
        r.sum = sums(i);
        r.entropy = std::max(0.0, logZ(i) * sums(i) - shifted(i));
        Eigen::Index j = 0;
        r.maxWeight = weights.row(i).maxCoeff(&j);
        r.argmax = int(j);
    }
}

} // namespace

double scaleConstant(Scale scale, int dk)
{
    switch (scale) {
    case Scale::SqrtDk:
        return std::sqrt(double(dk));
    case Scale::Dk:
        return double(dk);
    case Scale::None:
        break;
    }
    return 1.0;
}

Matrix similarity(Similarity kind, const Eigen::Ref<const Matrix> &Q, const Eigen::Ref<const Matrix> &K)
{
    Matrix s(Q.rows(), K.rows());
    switch (kind) {
    case Similarity::Dot:
        s.noalias() = Q * K.transpose();
        break;
    case Similarity::Cosine: {
        // q.k / (|q| |k|), and 0 where either norm is 0.
        const Eigen::ArrayXd qn = Q.rowwise().norm().array(), kn = K.rowwise().norm().array();
        const Eigen::ArrayXd qi = (qn > 0).select(qn.inverse(), 0.0), ki = (kn > 0).select(kn.inverse(), 0.0);
        s.noalias() = Q * K.transpose();
        s.array().colwise() *= qi;
        s.array().rowwise() *= ki.transpose();
        break;
    }
    case Similarity::NegSqDistance:
        // Directly, not as 2q.k - |q|^2 - |k|^2: a query on a key must give exactly 0.
        for (Eigen::Index i = 0; i < Q.rows(); ++i)
            s.row(i) = -(K.rowwise() - Q.row(i)).rowwise().squaredNorm().transpose();
        break;
    }
    return s;
}

Matrix maskedSoftmax(const Eigen::Ref<const Matrix> &scaled, const BoolMatrix &blocked, MaskStage stage,
                     std::vector<RowStats> *rows)
{
    const Eigen::Index n = scaled.rows();
    const bool anyBlocked = blocked.size() != 0 && blocked.any();
    // Before the softmax, blocked entries are -inf and drop out of the row;
    // after it (the misconception), they take part and are zeroed later.
    const bool excludeBlocked = anyBlocked && stage == MaskStage::BeforeSoftmax;

    Eigen::VectorXd rowMax =
        excludeBlocked ? Eigen::VectorXd(blocked.select(-kInf, scaled.array()).rowwise().maxCoeff())
                       : Eigen::VectorXd(scaled.rowwise().maxCoeff());
    std::vector<bool> fullyMasked(std::size_t(n), false);
    if (anyBlocked) {
        const auto openCount = (!blocked).rowwise().count();
        for (Eigen::Index i = 0; i < n; ++i)
            if (openCount(i) == 0) {
                fullyMasked[std::size_t(i)] = true;
                if (excludeBlocked)
                    rowMax(i) = 0; // any finite shift: the row is zeroed below
            }
    }

    Matrix weights = (scaled.array().colwise() - rowMax.array()).exp().matrix();
    if (excludeBlocked)
        weights = blocked.select(0.0, weights.array()).matrix();
    Eigen::VectorXd z = weights.rowwise().sum();
    for (Eigen::Index i = 0; i < n; ++i)
        if (fullyMasked[std::size_t(i)] || !(z(i) > 0))
            z(i) = 1; // a zeroed row stays zero
    weights.array().colwise() /= z.array();
    if (anyBlocked && stage == MaskStage::AfterSoftmax)
        weights = blocked.select(0.0, weights.array()).matrix();
    for (Eigen::Index i = 0; i < n; ++i)
        if (fullyMasked[std::size_t(i)])
            weights.row(i).setZero();

    if (rows) {
        // Blocked entries have weight exactly 0 and a finite score, so they
        // add nothing to the entropy sum.
        const Eigen::VectorXd logZ = z.array().log().matrix();
        fillRowStats(scaled, weights, rowMax, logZ, fullyMasked, *rows);
    }
    return weights;
}

Trace compute(const Scenario &s)
{
    if (auto p = validate(s))
        throw ScenarioError(*p);

    Trace t;
    const int nq = queryCount(s), nk = keyCount(s), h = s.heads;
    t.dk = headDim(s);
    t.dv = headValueDim(s);
    t.divisor = scaleConstant(s.scale, t.dk) * s.temperature;
    t.blocked = blockedMatrix(s);

    if (s.mode == InputMode::Projected) {
        const Matrix &source = s.source ? *s.source : s.X;
        t.positionQuery = additiveTable(s.encoding, nq, int(s.X.cols()), s.seed);
        t.positionKey = additiveTable(s.encoding, nk, int(s.X.cols()), s.seed);
        t.encodedX = t.positionQuery.size() ? Matrix(s.X + t.positionQuery) : s.X;
        t.encodedSource = t.positionKey.size() ? Matrix(source + t.positionKey) : source;
        t.Q.noalias() = t.encodedX * s.Wq;
        t.K.noalias() = t.encodedSource * s.Wk;
        t.V.noalias() = t.encodedSource * s.Wv;
    } else {
        // As if Q, K and V were embeddings under an identity projection.
        t.positionQuery = additiveTable(s.encoding, nq, int(s.Q.cols()), s.seed);
        t.positionKey = additiveTable(s.encoding, nk, int(s.K.cols()), s.seed);
        t.positionValue = additiveTable(s.encoding, nk, int(s.V.cols()), s.seed);
        t.Q = t.positionQuery.size() ? Matrix(s.Q + t.positionQuery) : s.Q;
        t.K = t.positionKey.size() ? Matrix(s.K + t.positionKey) : s.K;
        t.V = t.positionValue.size() ? Matrix(s.V + t.positionValue) : s.V;
    }
    if (s.encoding == Encoding::Rope) {
        t.positionQuery = ropeAngles(nq, t.dk);
        t.positionKey = ropeAngles(nk, t.dk);
    }

    t.heads.resize(std::size_t(h));
    t.concat.resize(nq, Eigen::Index(h) * t.dv);
    for (int i = 0; i < h; ++i) {
        HeadTrace &head = t.heads[std::size_t(i)];
        if (s.encoding == Encoding::Rope) {
            head.Q = applyRope(t.Q.middleCols(Eigen::Index(i) * t.dk, t.dk), t.positionQuery);
            head.K = applyRope(t.K.middleCols(Eigen::Index(i) * t.dk, t.dk), t.positionKey);
        } else {
            head.Q = t.Q.middleCols(Eigen::Index(i) * t.dk, t.dk);
            head.K = t.K.middleCols(Eigen::Index(i) * t.dk, t.dk);
        }
        head.V = t.V.middleCols(Eigen::Index(i) * t.dv, t.dv);
        head.scores = similarity(s.similarity, head.Q, head.K);
        head.scaled = t.divisor == 1.0 ? head.scores : Matrix(head.scores / t.divisor);
        head.weights = maskedSoftmax(head.scaled, t.blocked, s.maskStage, &head.rows);
        head.output.noalias() = head.weights * head.V;
        t.concat.middleCols(Eigen::Index(i) * t.dv, t.dv) = head.output;
    }
    if (s.mode == InputMode::Projected && s.Wo)
        t.output.noalias() = t.concat * *s.Wo;
    else
        t.output = t.concat;
    return t;
}

Scenario toDirect(const Scenario &s)
{
    if (s.mode == InputMode::Direct)
        return s;
    const Trace t = compute(s);
    Scenario d = s;
    d.mode = InputMode::Direct;
    d.Q = t.Q;
    d.K = t.K;
    d.V = t.V;
    if (s.source && d.sourceTokens.empty())
        d.sourceTokens = keyLabels(s);
    d.X = Matrix();
    d.source.reset();
    d.Wq = d.Wk = d.Wv = Matrix();
    d.Wo.reset();
    if (d.encoding == Encoding::Sinusoidal || d.encoding == Encoding::Learned)
        d.encoding = Encoding::None; // already inside Q, K and V
    return d;
}

} // namespace attn
