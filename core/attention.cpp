#include "attention.h"

#include "positional.h"

#include <cmath>
#include <limits>

namespace attn {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The row softmax below walks the n_q by n_k matrices column by column.
// Eigen stores a column contiguously, so each step updates every row at once
// (vectorised) and keeps one running value per row: its maximum, its sum.

// exp(x) below this is under the smallest normal double, 2.2e-308. Eigen's
// vectorised exp stops at about 5e-309 there instead of going on down to 0,
// so such entries are set to 0 by hand (std::exp gives 0 or a subnormal).
const double kExpFloor = std::log(std::numeric_limits<double>::min());

// maskedSoftmax, with `anyBlocked` (does `blocked` block anything?) given so
// that compute() checks the mask once rather than once per head.
Matrix softmaxRows(const Eigen::Ref<const Matrix> &scaled, const BoolMatrix &blocked, bool anyBlocked,
                   MaskStage stage, std::vector<RowStats> *rows)
{
    const Eigen::Index n = scaled.rows(), m = scaled.cols();
    // Before the softmax, blocked entries are -inf and drop out of the row;
    // after it (the misconception), they take part and are zeroed later.
    const bool excludeBlocked = anyBlocked && stage == MaskStage::BeforeSoftmax;
    const bool zeroAfter = anyBlocked && stage == MaskStage::AfterSoftmax;

    // Pass 1: each row's maximum over the entries that take part, and
    // whether the row has an open entry at all.
    Eigen::ArrayXd rowMax = Eigen::ArrayXd::Constant(n, -kInf);
    BoolVector open = BoolVector::Constant(n, !anyBlocked);
    for (Eigen::Index j = 0; j < m; ++j) {
        if (excludeBlocked)
            rowMax = rowMax.max(blocked.col(j).select(-kInf, scaled.col(j).array()));
        else
            rowMax = rowMax.max(scaled.col(j).array());
        if (anyBlocked)
            open = open || !blocked.col(j);
    }
    if (excludeBlocked)
        rowMax = open.select(rowMax, 0.0); // any finite shift: the row is zeroed below

    // Pass 2: e = exp(x - max), blocked entries zeroed, and the row sums z.
    // For the entropy it also sums e (x - max), to which a blocked entry
    // (e = 0) adds nothing: with w = e / z,
    //   -sum w log w = log z * sum w - sum e (x - max) / z,
    // one multiply-add per entry instead of one logarithm.
    const bool mayUnderflow = scaled.size() != 0 && scaled.minCoeff() - rowMax.maxCoeff() < kExpFloor;
    Matrix weights(n, m);
    Eigen::ArrayXd z = Eigen::ArrayXd::Zero(n), eShift = Eigen::ArrayXd::Zero(n);
    for (Eigen::Index j = 0; j < m; ++j) {
        const auto x = scaled.col(j).array() - rowMax; // an expression, evaluated where used
        auto e = weights.col(j).array();
        e = x.exp();
        if (mayUnderflow)
            e = (x < kExpFloor).select(0.0, e);
        if (excludeBlocked)
            e = blocked.col(j).select(0.0, e);
        z += e;
        if (zeroAfter)
            e = blocked.col(j).select(0.0, e);
        if (rows)
            eShift += e * x;
    }

    // Pass 3: w = e / z, and the row statistics. A fully masked row has
    // every entry blocked, so it is all zero already.
    z = (open && z > 0).select(z, 1.0);
    const Eigen::ArrayXd zInverse = z.inverse();
    Eigen::ArrayXd sums = Eigen::ArrayXd::Zero(n), maxWeight = Eigen::ArrayXd::Constant(n, -kInf);
    Eigen::ArrayXi argmax = Eigen::ArrayXi::Zero(n);
    for (Eigen::Index j = 0; j < m; ++j) {
        auto w = weights.col(j).array();
        w *= zInverse;
        if (rows) {
            sums += w;
            for (Eigen::Index i = 0; i < n; ++i)
                if (w(i) > maxWeight(i)) { // strictly: the first column wins a tie, as in maxCoeff
                    maxWeight(i) = w(i);
                    argmax(i) = int(j);
                }
        }
    }

    if (rows) {
        rows->assign(std::size_t(n), RowStats{});
        for (Eigen::Index i = 0; i < n; ++i) {
            RowStats &r = (*rows)[std::size_t(i)];
            if (!open(i)) {
                r.fullyMasked = true;
                continue;
            }
            r.sum = sums(i);
            r.entropy = std::max(0.0, std::log(z(i)) * sums(i) - eShift(i) * zInverse(i));
            r.maxWeight = maxWeight(i);
            r.argmax = argmax(i);
        }
    }
    return weights;
}

} // namespace

// Each row divided by its norm (a zero row stays zero). Divides by the
// largest entry first so that tiny or huge rows neither underflow nor overflow.
static Matrix unitRows(const Eigen::Ref<const Matrix> &m)
{
    Matrix u(m.rows(), m.cols());
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        const double largest = m.row(i).cwiseAbs().maxCoeff();
        if (largest == 0) {
            u.row(i).setZero();
            continue;
        }
        u.row(i) = m.row(i) / largest;
        u.row(i) /= u.row(i).norm();
    }
    return u;
}

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
        // q.k / (|q| |k|), and 0 where either norm is 0: the dot product of
        // unit rows, clamped against rounding past +-1.
        s.noalias() = unitRows(Q) * unitRows(K).transpose();
        s = s.cwiseMax(-1.0).cwiseMin(1.0);
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
    return softmaxRows(scaled, blocked, blocked.size() != 0 && blocked.any(), stage, rows);
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
    const bool anyBlocked = t.blocked.any();

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
        head.weights = softmaxRows(head.scaled, t.blocked, anyBlocked, s.maskStage, &head.rows);
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
