#include "backward.h"

#include <cmath>
#include <string>

namespace attn {

namespace {

std::string headPlace(std::size_t head, std::size_t heads)
{
    return heads > 1 ? "head " + std::to_string(head + 1) + ", " : std::string();
}

// The softmax's own probabilities of row i, recomputed in double with
// std::exp from the scaled scores (the forward's fastExp agrees to a few
// ulps): over the open entries (mask before), or over the whole row (mask
// after: the weights are these with the blocked ones set to 0). A row with
// no entry taking part is all 0. Output: n_k; logOut (if given) log p, -inf
// where p is 0 because the entry is left out.
// softmax_1 adds the sink's e^(0 - shift) to z, with the shift max(top, 0):
// then e^(-shift) <= 1 and every e^(x - shift) <= 1, so nothing overflows
// however large or negative the scores, and z >= 1.
Eigen::VectorXd rowProbabilities(const Trace &t, const HeadTrace &head, Eigen::Index i, MaskStage stage,
                                 SoftmaxKind kind, Eigen::VectorXd *logOut = nullptr)
{
    const Eigen::Index nk = head.scores.cols();
    const Eigen::RowVectorXd x = head.scaledRow(i);
    const bool before = stage == MaskStage::BeforeSoftmax;
    auto takesPart = [&](Eigen::Index j) { return !(before && t.blocked(i, j)); };
    double top = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < nk; ++j)
        if (takesPart(j))
            top = std::max(top, x(j));
    Eigen::VectorXd p = Eigen::VectorXd::Zero(nk);
    if (!std::isfinite(top)) {
        if (logOut)
            *logOut = Eigen::VectorXd::Constant(nk, -std::numeric_limits<double>::infinity());
        return p;
    }
    const bool plusOne = kind == SoftmaxKind::PlusOne;
    if (plusOne)
        top = std::max(top, 0.0);
    double z = plusOne ? std::exp(-top) : 0.0;
    for (Eigen::Index j = 0; j < nk; ++j)
        if (takesPart(j))
            z += (p(j) = std::exp(x(j) - top));
    p /= z;
    if (logOut) {
        logOut->resize(nk);
        const double logZ = std::log(z);
        for (Eigen::Index j = 0; j < nk; ++j)
            (*logOut)(j) = takesPart(j) ? x(j) - top - logZ : -std::numeric_limits<double>::infinity();
    }
    return p;
}

// dx of one row from g = dL/dw: with m the open entries and p as
// rowProbabilities, dx_k = p_k ([k open] g_k - sum_{j open} g_j p_j).
// Before the softmax p is 0 at a blocked entry, so it passes nothing; after
// it, a blocked entry's p_k > 0 still moves the denominator.
Eigen::RowVectorXd softmaxBackwardRow(const Eigen::RowVectorXd &g, const Eigen::VectorXd &p, const BoolMatrix &blocked,
                                      Eigen::Index i)
{
    const Eigen::Index nk = g.size();
    double r = 0;
    for (Eigen::Index j = 0; j < nk; ++j)
        if (!blocked(i, j))
            r += g(j) * p(j);
    Eigen::RowVectorXd dx(nk);
    for (Eigen::Index k = 0; k < nk; ++k)
        dx(k) = p(k) * ((blocked(i, k) ? 0.0 : g(k)) - r);
    return dx;
}

// Inverse of the RoPE rotation, row by row: dx = R(theta)^T dy.
// Inputs: dy, n by d; angles, n by d/2. Output: n by d.
Matrix ropeBackward(const Matrix &dy, const Matrix &angles)
{
    Matrix dx(dy.rows(), dy.cols());
    for (Eigen::Index p = 0; p < dy.rows(); ++p)
        for (Eigen::Index i = 0; i < angles.cols(); ++i) {
            const double c = std::cos(angles(p, i)), s = std::sin(angles(p, i));
            const double a = dy(p, 2 * i), b = dy(p, 2 * i + 1);
            dx(p, 2 * i) = a * c + b * s;
            dx(p, 2 * i + 1) = -a * s + b * c;
        }
    return dx;
}

// The gradient of unit rows u = x / |x|: dx = (du - (du . u) u) / |x|.
// A zero row with a nonzero du has none: its Problem names the row.
// Inputs: x and du, n by d. Output: n by d.
Result<Matrix> unitRowsBackward(const Matrix &x, const Matrix &du, const std::string &place)
{
    Matrix dx = Matrix::Zero(x.rows(), x.cols());
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const double norm = x.row(r).norm();
        if (norm == 0) {
            if (du.row(r).cwiseAbs().maxCoeff() != 0)
                return Problem{place + " " + std::to_string(r + 1),
                               "the cosine of a zero vector has no gradient (its direction is undefined); "
                               "move it off zero or choose dot similarity"};
            continue;
        }
        const Eigen::RowVectorXd u = x.row(r) / norm;
        dx.row(r) = (du.row(r) - du.row(r).dot(u) * u) / norm;
    }
    return dx;
}

Matrix unit(const Matrix &x)
{
    Matrix u = Matrix::Zero(x.rows(), x.cols());
    for (Eigen::Index r = 0; r < x.rows(); ++r)
        if (const double n = x.row(r).norm(); n != 0)
            u.row(r) = x.row(r) / n;
    return u;
}

struct QueryKeyGradient {
    Matrix dQ, dK; // n_q by d, n_k by d
};

// dQ, dK of the similarity from dS = dL/d scores (n_q by n_k), Q (n_q by
// d) and K (n_k by d) as compared.
//   dot:      dQ = dS K,                 dK = dS^T Q
//   -|q-k|^2: dQ = -2 (rowsum(dS) q - dS K), dK = 2 (dS^T Q - colsum(dS) k)
//   cosine:   the dot's of the unit rows, then through u = x / |x|
Result<QueryKeyGradient> similarityBackward(Similarity kind, const Matrix &dS, const Matrix &Q, const Matrix &K,
                                            const std::string &place)
{
    switch (kind) {
    case Similarity::Dot:
        return QueryKeyGradient{dS * K, dS.transpose() * Q};
    case Similarity::NegSqDistance: {
        const Eigen::VectorXd rows = dS.rowwise().sum(), cols = dS.colwise().sum().transpose();
        return QueryKeyGradient{-2.0 * (rows.asDiagonal() * Q - dS * K), 2.0 * (dS.transpose() * Q - cols.asDiagonal() * K)};
    }
    case Similarity::Cosine: {
        const Matrix uq = unit(Q), uk = unit(K);
        Result<Matrix> dQ = unitRowsBackward(Q, dS * uk, place + "query");
        if (!dQ.ok())
            return *dQ.problem();
        Result<Matrix> dK = unitRowsBackward(K, dS.transpose() * uq, place + "key");
        if (!dK.ok())
            return *dK.problem();
        return QueryKeyGradient{std::move(dQ.value()), std::move(dK.value())};
    }
    }
    return QueryKeyGradient{};
}

// One head's weights and softmax backwards, from dL/dout (n_q by d_v) and
// the attend loss (if that is the loss): weightsOut = dL/dw, and the
// result dL/dx for the scaled scores x (both n_q by n_k).
Result<Matrix> softmaxBackward(const Scenario &s, const Trace &t, int hi, const AttendLoss *attend, const Matrix &dOut,
                               Matrix &weightsOut)
{
    const HeadTrace &head = t.heads[std::size_t(hi)];
    const Eigen::Index nq = head.scores.rows(), nk = head.scores.cols();
    const double attendScale = 1.0 / (double(t.heads.size()) * double(nq));
    weightsOut = dOut * head.V.transpose();
    Matrix dScaled(nq, nk);
    for (Eigen::Index i = 0; i < nq; ++i) {
        const Eigen::VectorXd p = rowProbabilities(t, head, i, s.maskStage, s.softmax);
        if (attend && !t.blocked(i, attend->key)) {
            if (p(attend->key) == 0)
                return Problem{"loss", headPlace(std::size_t(hi), t.heads.size()) + "row " + std::to_string(i + 1) +
                                           ": the weight on key " + std::to_string(attend->key + 1) +
                                           " is 0 to double precision, so log w has no finite gradient there"};
            weightsOut(i, attend->key) -= attendScale / p(attend->key);
        }
        dScaled.row(i) = softmaxBackwardRow(weightsOut.row(i), p, t.blocked, i);
    }
    return dScaled;
}

bool keyOpenSomewhere(const Trace &t, int key)
{
    return t.blocked.rows() == 0 || !t.blocked.col(key).all();
}

} // namespace

const Matrix *Gradients::of(MatrixId id) const
{
    for (const NamedGradient &g : inputs)
        if (g.id == id)
            return &g.grad;
    return nullptr;
}

Eigen::VectorXd softmaxRowProbabilities(const Trace &t, int head, int row, MaskStage stage, SoftmaxKind kind)
{
    return rowProbabilities(t, t.heads[std::size_t(head)], row, stage, kind);
}

Matrix softmaxJacobian(const Eigen::Ref<const Eigen::VectorXd> &w)
{
    Matrix j = -w * w.transpose();
    j.diagonal() += w;
    return j;
}

std::optional<Problem> checkLoss(const Trace &t, const Loss &loss)
{
    const Eigen::Index nk = t.heads.empty() ? 0 : t.heads.front().scores.cols();
    if (const auto *a = std::get_if<AttendLoss>(&loss)) {
        if (a->key < 0 || a->key >= nk)
            return Problem{"loss", "attend:" + std::to_string(a->key + 1) + ": there are " + std::to_string(nk) +
                                       " keys (1 to " + std::to_string(nk) + ")"};
        if (!keyOpenSomewhere(t, a->key))
            return Problem{"loss", "attend:" + std::to_string(a->key + 1) + ": key " + std::to_string(a->key + 1) +
                                       " is blocked in every row, so no weight on it can be learned"};
        return std::nullopt;
    }
    const Matrix &target = std::get<TargetLoss>(loss).target;
    if (target.rows() != t.output.rows() || target.cols() != t.output.cols())
        return Problem{"target", "is " + std::to_string(target.rows()) + " by " + std::to_string(target.cols()) +
                                     "; the output is " + std::to_string(t.output.rows()) + " by " +
                                     std::to_string(t.output.cols())};
    if (!target.allFinite())
        return Problem{"target", "holds a value that is not a finite number"};
    return std::nullopt;
}

double lossValue(const Scenario &s, const Trace &t, const Loss &loss)
{
    if (const auto *a = std::get_if<TargetLoss>(&loss))
        return 0.5 * (t.output - a->target).squaredNorm();
    const int key = std::get<AttendLoss>(loss).key;
    double sum = 0;
    for (const HeadTrace &head : t.heads)
        for (Eigen::Index i = 0; i < head.scores.rows(); ++i) {
            if (t.blocked(i, key))
                continue;
            // log w from the log-softmax itself: finite where w underflows.
            Eigen::VectorXd logp;
            rowProbabilities(t, head, i, s.maskStage, s.softmax, &logp);
            sum += logp(key);
        }
    return -sum / (double(t.heads.size()) * double(t.output.rows()));
}

Result<Gradients> backward(const Scenario &s, const Trace &t, const Loss &loss)
{
    if (auto p = checkLoss(t, loss))
        return *p;
    const int nq = int(t.output.rows()), h = int(t.heads.size()), dk = t.dk, dv = t.dv;
    const bool projected = s.mode == InputMode::Projected;
    const bool withWo = projected && s.Wo.has_value();
    const auto *attend = std::get_if<AttendLoss>(&loss);
    Gradients g;
    g.loss = lossValue(s, t, loss);

    // dL/dY, and through W_o to dL/dconcat (n_q by h*d_v).
    Matrix dConcat = Matrix::Zero(nq, Eigen::Index(h) * dv);
    Matrix dWo;
    if (!attend) {
        const Matrix dY = t.output - std::get<TargetLoss>(loss).target;
        if (withWo) {
            dWo = t.concat.transpose() * dY;
            dConcat = dY * s.Wo->transpose();
        } else {
            dConcat = dY;
        }
    }

    Matrix dQ(nq, Eigen::Index(h) * dk), dK(t.K.rows(), Eigen::Index(h) * dk), dV(t.V.rows(), Eigen::Index(h) * dv);
    double dTau = 0;
    for (int hi = 0; hi < h; ++hi) {
        const HeadTrace &head = t.heads[std::size_t(hi)];
        const Matrix dOut = dConcat.middleCols(Eigen::Index(hi) * dv, dv);
        HeadGradient hg;
        dV.middleCols(Eigen::Index(hi) * dv, dv) = head.weights.transpose() * dOut;
        Result<Matrix> softmax = softmaxBackward(s, t, hi, attend, dOut, hg.weights);
        if (!softmax.ok())
            return *softmax.problem();
        const Matrix &dScaled = softmax.value();
        const Matrix scaled = head.scaledMatrix();
        dTau -= (dScaled.array() * scaled.array()).sum() / s.temperature;
        hg.scores = dScaled / t.divisor;

        Result<QueryKeyGradient> qk = similarityBackward(s.similarity, hg.scores, head.Q, head.K,
                                                         headPlace(std::size_t(hi), std::size_t(h)));
        if (!qk.ok())
            return *qk.problem();
        Matrix &hq = qk.value().dQ, &hk = qk.value().dK;
        if (s.encoding == Encoding::Rope) {
            hq = ropeBackward(hq, t.positionQuery);
            hk = ropeBackward(hk, t.positionKey);
        }
        dQ.middleCols(Eigen::Index(hi) * dk, dk) = hq;
        dK.middleCols(Eigen::Index(hi) * dk, dk) = hk;
        g.heads.push_back(std::move(hg));
    }
    g.temperature = dTau;

    if (!projected) {
        // An additive table is a constant: Q + P passes dQ to Q unchanged.
        g.inputs = {{MatrixId::Q, dQ}, {MatrixId::K, dK}, {MatrixId::V, dV}};
        return g;
    }
    const Matrix dFromKeys = dK * s.Wk.transpose() + dV * s.Wv.transpose(); // n_k by d_model
    Matrix dX = dQ * s.Wq.transpose();
    if (!s.source)
        dX += dFromKeys;
    g.inputs.push_back({MatrixId::X, dX});
    if (s.source)
        g.inputs.push_back({MatrixId::Source, dFromKeys});
    g.inputs.push_back({MatrixId::Wq, t.encodedX.transpose() * dQ});
    g.inputs.push_back({MatrixId::Wk, t.encodedSource.transpose() * dK});
    g.inputs.push_back({MatrixId::Wv, t.encodedSource.transpose() * dV});
    if (withWo)
        g.inputs.push_back({MatrixId::Wo, attend ? Matrix(Matrix::Zero(s.Wo->rows(), s.Wo->cols())) : dWo});
    return g;
}

Result<Gradients> gradients(const Scenario &s, const Loss &loss)
{
    Result<Trace> t = tryCompute(s);
    if (!t.ok())
        return *t.problem();
    return backward(s, t.value(), loss);
}

} // namespace attn
