#include "edit.h"

#include "attention.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace attn {

namespace {

// Row and column surgery on any Eigen array or matrix type.
template <typename M>
M insertRow(const M &m, Eigen::Index at)
{
    M out(m.rows() + 1, m.cols());
    out.topRows(at) = m.topRows(at);
    out.row(at).setZero();
    out.bottomRows(m.rows() - at) = m.bottomRows(m.rows() - at);
    return out;
}

template <typename M>
M removeRow(const M &m, Eigen::Index at)
{
    M out(m.rows() - 1, m.cols());
    out.topRows(at) = m.topRows(at);
    out.bottomRows(m.rows() - at - 1) = m.bottomRows(m.rows() - at - 1);
    return out;
}

template <typename M>
M permuteRows(const M &m, const std::vector<int> &order)
{
    M out(m.rows(), m.cols());
    for (std::size_t i = 0; i < order.size(); ++i)
        out.row(Eigen::Index(i)) = m.row(order[i]);
    return out;
}

template <typename M>
M transposed(const M &m)
{
    return m.transpose();
}

template <typename M>
M insertCol(const M &m, Eigen::Index at)
{
    return transposed(insertRow(transposed(m), at));
}

template <typename M>
M removeCol(const M &m, Eigen::Index at)
{
    return transposed(removeRow(transposed(m), at));
}

template <typename M>
M permuteCols(const M &m, const std::vector<int> &order)
{
    return transposed(permuteRows(transposed(m), order));
}

// A matrix made of h blocks of `oldWidth` columns, each cut or zero-padded to `newWidth`.
Matrix resizeBlocks(const Matrix &m, int h, int oldWidth, int newWidth)
{
    Matrix out = Matrix::Zero(m.rows(), Eigen::Index(h) * newWidth);
    const int keep = std::min(oldWidth, newWidth);
    for (int i = 0; i < h; ++i)
        out.middleCols(Eigen::Index(i) * newWidth, keep) = m.middleCols(Eigen::Index(i) * oldWidth, keep);
    return out;
}

Matrix resizeBlockRows(const Matrix &m, int h, int oldHeight, int newHeight)
{
    return resizeBlocks(m.transpose(), h, oldHeight, newHeight).transpose();
}

Matrix resizeCols(const Matrix &m, int cols)
{
    Matrix out = Matrix::Zero(m.rows(), cols);
    const Eigen::Index keep = std::min<Eigen::Index>(m.cols(), cols);
    out.leftCols(keep) = m.leftCols(keep);
    return out;
}

Matrix resizeRows(const Matrix &m, int rows)
{
    return resizeCols(m.transpose(), rows).transpose();
}

// Gives the scenario full label lists and full mask arrays so that the
// edits below can insert and remove entries in step with the matrices.
Scenario withExplicitShapes(const Scenario &s)
{
    Scenario out = s;
    out.tokens = queryLabels(s);
    if (!sharesTokens(s))
        out.sourceTokens = keyLabels(s);
    return out;
}

// Mask `m` of scenario `s` with its key padding (or blocked cells) as an
// array of the scenario's size, so that one entry can be set.
void ensureKeyPadding(Mask &m, const Scenario &s)
{
    if (m.keyPadding.size() != keyCount(s))
        m.keyPadding = BoolVector::Constant(keyCount(s), false);
}

void ensureBlocked(Mask &m, const Scenario &s)
{
    if (m.blocked.rows() != queryCount(s) || m.blocked.cols() != keyCount(s))
        m.blocked = BoolMatrix::Constant(queryCount(s), keyCount(s), false);
}

// The global tokens follow their tokens when tokens move: old position g
// goes to where(g), or away when that is negative.
template <typename Where>
void moveGlobal(Mask &m, Where where)
{
    std::vector<int> moved;
    for (int g : m.global)
        if (const int to = where(g); to >= 0)
            moved.push_back(to);
    std::sort(moved.begin(), moved.end());
    m.global = moved;
}

// Where each old position goes under `order` (new position p holds old order[p]).
void permuteGlobal(Mask &m, const std::vector<int> &order)
{
    std::vector<int> to(order.size(), -1);
    for (std::size_t p = 0; p < order.size(); ++p)
        to[std::size_t(order[p])] = int(p);
    moveGlobal(m, [&to](int g) { return g < int(to.size()) ? to[std::size_t(g)] : g; });
}

std::vector<MatrixId> tokenMatrices(const Scenario &s, Side side)
{
    std::vector<MatrixId> out;
    for (MatrixId id : matrixIds(s))
        if (rowsAreTokens(id) && tokenSide(id) == side)
            out.push_back(id);
    return out;
}

template <typename V>
void insertAt(V &v, int index, const typename V::value_type &value)
{
    v.insert(v.begin() + index, value);
}

} // namespace

const char *matrixName(MatrixId id)
{
    switch (id) {
    case MatrixId::Q: return "Q";
    case MatrixId::K: return "K";
    case MatrixId::V: return "V";
    case MatrixId::X: return "X";
    case MatrixId::Source: return "source";
    case MatrixId::Wq: return "Wq";
    case MatrixId::Wk: return "Wk";
    case MatrixId::Wv: return "Wv";
    case MatrixId::Wo: return "Wo";
    }
    return "?";
}

bool matrixPresent(const Scenario &s, MatrixId id)
{
    const bool direct = s.mode == InputMode::Direct;
    switch (id) {
    case MatrixId::Q:
    case MatrixId::K:
    case MatrixId::V:
        return direct;
    case MatrixId::Source:
        return !direct && s.source.has_value();
    case MatrixId::Wo:
        return !direct && s.Wo.has_value();
    case MatrixId::X:
    case MatrixId::Wq:
    case MatrixId::Wk:
    case MatrixId::Wv:
        return !direct;
    }
    return false;
}

const Matrix &matrix(const Scenario &s, MatrixId id)
{
    switch (id) {
    case MatrixId::Q: return s.Q;
    case MatrixId::K: return s.K;
    case MatrixId::V: return s.V;
    case MatrixId::X: return s.X;
    case MatrixId::Source: return *s.source;
    case MatrixId::Wq: return s.Wq;
    case MatrixId::Wk: return s.Wk;
    case MatrixId::Wv: return s.Wv;
    case MatrixId::Wo: return *s.Wo;
    }
    return s.Q;
}

Matrix &matrix(Scenario &s, MatrixId id)
{
    return const_cast<Matrix &>(matrix(std::as_const(s), id));
}

std::vector<MatrixId> matrixIds(const Scenario &s)
{
    std::vector<MatrixId> out;
    for (MatrixId id : {MatrixId::Q, MatrixId::K, MatrixId::V, MatrixId::X, MatrixId::Source, MatrixId::Wq,
                        MatrixId::Wk, MatrixId::Wv, MatrixId::Wo})
        if (matrixPresent(s, id))
            out.push_back(id);
    return out;
}

bool rowsAreTokens(MatrixId id)
{
    return id == MatrixId::Q || id == MatrixId::K || id == MatrixId::V || id == MatrixId::X || id == MatrixId::Source;
}

Side tokenSide(MatrixId id)
{
    return (id == MatrixId::Q || id == MatrixId::X) ? Side::Query : Side::Key;
}

bool sharesTokens(const Scenario &s)
{
    if (s.mode == InputMode::Projected)
        return !s.source.has_value();
    return s.sourceTokens.empty() && s.Q.rows() == s.K.rows();
}

Scenario insertToken(const Scenario &in, Side side, int index, const std::string &label)
{
    const bool shared = sharesTokens(in);
    Scenario s = withExplicitShapes(in);
    const bool query = shared || side == Side::Query, key = shared || side == Side::Key;
    const bool padding = s.mask.keyPadding.size() != 0, blocked = s.mask.blocked.size() != 0;
    if (query) {
        for (MatrixId id : tokenMatrices(s, Side::Query))
            matrix(s, id) = insertRow(matrix(s, id), index);
        insertAt(s.tokens, index, label);
        if (blocked)
            s.mask.blocked = insertRow(s.mask.blocked, index);
        moveGlobal(s.mask, [index](int g) { return g >= index ? g + 1 : g; });
    }
    if (key) {
        for (MatrixId id : tokenMatrices(s, Side::Key))
            matrix(s, id) = insertRow(matrix(s, id), index);
        if (!shared)
            insertAt(s.sourceTokens, index, label);
        if (padding)
            s.mask.keyPadding = insertRow(s.mask.keyPadding, index);
        if (blocked)
            s.mask.blocked = insertCol(s.mask.blocked, index);
    }
    return s;
}

Scenario removeToken(const Scenario &in, Side side, int index)
{
    const bool shared = sharesTokens(in);
    Scenario s = withExplicitShapes(in);
    const bool query = shared || side == Side::Query, key = shared || side == Side::Key;
    if (query) {
        for (MatrixId id : tokenMatrices(s, Side::Query))
            matrix(s, id) = removeRow(matrix(s, id), index);
        s.tokens.erase(s.tokens.begin() + index);
        if (s.mask.blocked.size())
            s.mask.blocked = removeRow(s.mask.blocked, index);
        moveGlobal(s.mask, [index](int g) { return g == index ? -1 : g > index ? g - 1 : g; });
    }
    if (key) {
        for (MatrixId id : tokenMatrices(s, Side::Key))
            matrix(s, id) = removeRow(matrix(s, id), index);
        if (!shared)
            s.sourceTokens.erase(s.sourceTokens.begin() + index);
        if (s.mask.keyPadding.size())
            s.mask.keyPadding = removeRow(s.mask.keyPadding, index);
        if (s.mask.blocked.size())
            s.mask.blocked = removeCol(s.mask.blocked, index);
    }
    if (s.mask.blocked.size() == 0)
        s.mask.blocked = BoolMatrix(); // a removed last row leaves 0 by n
    return s;
}

Scenario moveToken(const Scenario &in, Side side, int from, int to)
{
    const int n = (sharesTokens(in) || side == Side::Query) ? queryCount(in) : keyCount(in);
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    order.erase(order.begin() + from);
    order.insert(order.begin() + to, from);

    if (sharesTokens(in))
        return permuteTokens(in, order);
    Scenario s = withExplicitShapes(in);
    if (side == Side::Query) {
        for (MatrixId id : tokenMatrices(s, Side::Query))
            matrix(s, id) = permuteRows(matrix(s, id), order);
        std::vector<std::string> labels;
        for (int i : order)
            labels.push_back(s.tokens[std::size_t(i)]);
        s.tokens = labels;
        if (s.mask.blocked.size())
            s.mask.blocked = permuteRows(s.mask.blocked, order);
        permuteGlobal(s.mask, order);
    } else {
        for (MatrixId id : tokenMatrices(s, Side::Key))
            matrix(s, id) = permuteRows(matrix(s, id), order);
        std::vector<std::string> labels;
        for (int i : order)
            labels.push_back(s.sourceTokens[std::size_t(i)]);
        s.sourceTokens = labels;
        if (s.mask.keyPadding.size())
            s.mask.keyPadding = permuteRows(s.mask.keyPadding, order);
        if (s.mask.blocked.size())
            s.mask.blocked = permuteCols(s.mask.blocked, order);
    }
    return s;
}

Scenario renameToken(const Scenario &in, Side side, int index, const std::string &label)
{
    Scenario s = withExplicitShapes(in);
    if (sharesTokens(in) || side == Side::Query)
        s.tokens[std::size_t(index)] = label;
    else
        s.sourceTokens[std::size_t(index)] = label;
    return s;
}

Scenario setSeparateKeys(const Scenario &in, bool separate)
{
    if (separate == !sharesTokens(in))
        return in;
    Scenario s = withExplicitShapes(in);
    if (separate) {
        s.sourceTokens = keyLabels(in);
        if (s.mode == InputMode::Projected)
            s.source = s.X;
        return s;
    }
    s.sourceTokens.clear();
    if (s.mode == InputMode::Projected)
        s.source.reset();
    if (s.mask.keyPadding.size() != keyCount(s))
        s.mask.keyPadding = BoolVector();
    if (s.mask.blocked.size() && (s.mask.blocked.rows() != queryCount(s) || s.mask.blocked.cols() != keyCount(s)))
        s.mask.blocked = BoolMatrix();
    return s;
}

Scenario permuteTokens(const Scenario &in, const std::vector<int> &order)
{
    Scenario s = withExplicitShapes(in);
    for (MatrixId id : matrixIds(s))
        if (rowsAreTokens(id))
            matrix(s, id) = permuteRows(matrix(s, id), order);
    std::vector<std::string> labels;
    for (int i : order)
        labels.push_back(s.tokens[std::size_t(i)]);
    s.tokens = labels;
    if (s.mask.keyPadding.size())
        s.mask.keyPadding = permuteRows(s.mask.keyPadding, order);
    if (s.mask.blocked.size())
        s.mask.blocked = permuteCols(permuteRows(s.mask.blocked, order), order);
    permuteGlobal(s.mask, order);
    return s;
}

Scenario setHeadDim(const Scenario &in, int dk)
{
    Scenario s = in;
    const int old = headDim(in), h = in.heads;
    if (s.mode == InputMode::Direct) {
        s.Q = resizeBlocks(s.Q, h, old, dk);
        s.K = resizeBlocks(s.K, h, old, dk);
    } else {
        s.Wq = resizeBlocks(s.Wq, h, old, dk);
        s.Wk = resizeBlocks(s.Wk, h, old, dk);
    }
    return s;
}

Scenario setHeadValueDim(const Scenario &in, int dv)
{
    Scenario s = in;
    const int old = headValueDim(in), h = in.heads;
    if (s.mode == InputMode::Direct) {
        s.V = resizeBlocks(s.V, h, old, dv);
    } else {
        s.Wv = resizeBlocks(s.Wv, h, old, dv);
        if (s.Wo)
            s.Wo = resizeBlockRows(*s.Wo, h, old, dv);
    }
    return s;
}

Scenario setModelDim(const Scenario &in, int dModel)
{
    Scenario s = in;
    if (s.mode != InputMode::Projected)
        return s;
    s.X = resizeCols(s.X, dModel);
    if (s.source)
        s.source = resizeCols(*s.source, dModel);
    s.Wq = resizeRows(s.Wq, dModel);
    s.Wk = resizeRows(s.Wk, dModel);
    s.Wv = resizeRows(s.Wv, dModel);
    return s;
}

Scenario setOutputDim(const Scenario &in, int dOut)
{
    Scenario s = in;
    if (s.mode != InputMode::Projected)
        return s;
    if (!s.Wo)
        s.Wo = Matrix::Identity(s.Wv.cols(), dOut);
    else
        s.Wo = resizeCols(*s.Wo, dOut);
    return s;
}

Scenario removeOutputProjection(const Scenario &in)
{
    Scenario s = in;
    s.Wo.reset();
    return s;
}

Scenario setHeads(const Scenario &in, int heads)
{
    Scenario s = in;
    s.heads = heads;
    return s;
}

Settings setKeyPadding(const Scenario &in, int key, bool padded)
{
    Settings s = settingsOf(in);
    ensureKeyPadding(s.mask, in);
    s.mask.keyPadding(key) = padded;
    return s;
}

Settings toggleBlocked(const Scenario &in, int query, int key)
{
    Settings s = settingsOf(in);
    ensureBlocked(s.mask, in);
    s.mask.blocked(query, key) = !s.mask.blocked(query, key);
    return s;
}

Settings clearHandMask(const Scenario &in)
{
    Settings s = settingsOf(in);
    s.mask.blocked = BoolMatrix();
    return s;
}

Scenario toProjected(const Scenario &in)
{
    if (in.mode == InputMode::Projected)
        return in;
    Scenario s = withExplicitShapes(in);
    const Eigen::Index nq = in.Q.rows(), nk = in.K.rows();
    s.mode = InputMode::Projected;
    if (sharesTokens(in)) {
        // X = I: row i of each projection is token i's vector.
        s.X = Matrix::Identity(nq, nq);
        s.source.reset();
        s.Wq = in.Q;
        s.Wk = in.K;
        s.Wv = in.V;
    } else {
        // Two sequences in one embedding space: queries use the first n_q
        // dimensions, keys the last n_k.
        const Eigen::Index d = nq + nk;
        s.X = Matrix::Zero(nq, d);
        s.X.leftCols(nq).setIdentity();
        s.source = Matrix::Zero(nk, d);
        s.source->rightCols(nk).setIdentity();
        s.Wq = Matrix::Zero(d, in.Q.cols());
        s.Wq.topRows(nq) = in.Q;
        s.Wk = Matrix::Zero(d, in.K.cols());
        s.Wk.bottomRows(nk) = in.K;
        s.Wv = Matrix::Zero(d, in.V.cols());
        s.Wv.bottomRows(nk) = in.V;
    }
    s.Wo.reset();
    s.Q = s.K = s.V = Matrix();
    return s;
}

double roundTemperature(double tau)
{
    if (!(tau > 0))
        return kMinTemperature;
    const double scale = std::pow(10.0, 1 - std::floor(std::log10(tau)));
    return std::clamp(std::round(tau * scale) / scale, kMinTemperature, kMaxTemperature);
}

std::optional<Problem> whyNotCausal(const Scenario &s)
{
    Scenario t = s;
    t.mask.causal = true;
    return validate(t);
}

std::optional<Problem> whyNotHeads(const Scenario &s, int heads)
{
    return validate(setHeads(s, heads));
}

std::optional<Problem> whyNotEncoding(const Scenario &s, Encoding encoding)
{
    Scenario t = s;
    t.encoding = encoding;
    return validate(t);
}

} // namespace attn
