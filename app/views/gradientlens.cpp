#include "gradientlens.h"

#include "gradlens.h"

#include <algorithm>

namespace attn {

GradientLens::GradientLens(Document *doc, QObject *parent) : QObject(parent), m_doc(doc) {}

void GradientLens::setKind(Kind kind)
{
    if (kind == m_kind)
        return;
    m_kind = kind;
    emit changed();
}

void GradientLens::setToken(int token)
{
    if (token == m_token)
        return;
    m_token = token;
    emit changed();
}

void GradientLens::setTypedVector(const Eigen::RowVectorXd &v)
{
    if (v.size() == m_vector.size() && v == m_vector)
        return;
    m_vector = v;
    emit changed();
}

void GradientLens::setArrowsShown(bool on)
{
    if (on == m_arrows)
        return;
    m_arrows = on;
    emit changed();
}

Result<Loss> GradientLens::makeLoss(const Scenario &s, const Trace &t) const
{
    const Eigen::Index nk = t.heads.empty() ? 0 : t.heads.front().scores.cols();
    const int nq = int(t.output.rows());
    if (nk == 0 || nq == 0)
        return Problem{"loss", "there are no keys or no queries"};
    const int token = std::clamp(m_token, 0, int(nk) - 1);
    const int query = std::clamp(m_doc->currentQuery(), 0, nq - 1);
    switch (m_kind) {
    case Kind::Attend:
        return Loss{AttendLoss{token}};
    case Kind::TowardsValue:
        return Loss{targetTowardsToken(s, t, query, token)};
    case Kind::TowardsVector: {
        Result<TargetLoss> r = targetTowardsVector(t, query, m_vector);
        if (const Problem *p = r.problem())
            return *p;
        return Loss{std::move(r.value())};
    }
    }
    return Problem{"loss", "unknown"};
}

GradientLens::State GradientLens::compute() const
{
    State st;
    const Trace &t = m_doc->trace();
    Result<Loss> loss = makeLoss(m_doc->scenario(), t);
    if (const Problem *p = loss.problem()) {
        st.problem = *p;
        return st;
    }
    st.loss = loss.value();
    if (auto p = checkLoss(t, *st.loss)) {
        st.problem = *p;
        return st;
    }
    st.value = lossValue(m_doc->scenario(), t, *st.loss);
    Result<Gradients> g = backward(m_doc->scenario(), t, *st.loss);
    if (const Problem *p = g.problem())
        st.problem = *p;
    else
        st.grad = std::move(g.value());
    return st;
}

std::optional<double> GradientLens::lossNow() const
{
    const Trace &t = m_doc->trace();
    Result<Loss> loss = makeLoss(m_doc->scenario(), t);
    if (!loss.ok() || checkLoss(t, loss.value()))
        return std::nullopt;
    return lossValue(m_doc->scenario(), t, loss.value());
}

std::optional<double> GradientLens::lossOf(const Scenario &s) const
{
    Result<Trace> t = tryCompute(s);
    if (!t.ok())
        return std::nullopt;
    Result<Loss> loss = makeLoss(s, t.value());
    if (!loss.ok() || checkLoss(t.value(), loss.value()))
        return std::nullopt;
    return lossValue(s, t.value(), loss.value());
}

std::optional<PlaneSettings::Gradient> GradientLens::planeGradient(MatrixId queries, MatrixId keys) const
{
    if (!m_arrows)
        return std::nullopt;
    const State st = compute();
    if (!st.grad)
        return std::nullopt;
    const Matrix *q = st.grad->of(queries), *k = st.grad->of(keys);
    if (!q || !k)
        return std::nullopt;
    return PlaneSettings::Gradient{*q, *k};
}

} // namespace attn
