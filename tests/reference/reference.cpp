#include "reference.h"

#include "positional.h" // attn::learnedTable: the table's numbers only

#include <cmath>

namespace ref {

namespace {

Mat fromEigen(const attn::Matrix &m)
{
    Mat out(static_cast<std::size_t>(m.rows()), std::vector<double>(static_cast<std::size_t>(m.cols())));
    for (std::size_t i = 0; i < out.size(); ++i)
        for (std::size_t j = 0; j < out[i].size(); ++j)
            out[i][j] = m(Eigen::Index(i), Eigen::Index(j));
    return out;
}

int rows(const Mat &m) { return int(m.size()); }
int cols(const Mat &m) { return m.empty() ? 0 : int(m[0].size()); }

Mat multiply(const Mat &a, const Mat &b)
{
    Mat out(a.size(), std::vector<double>(std::size_t(cols(b)), 0.0));
    for (int i = 0; i < rows(a); ++i)
        for (int j = 0; j < cols(b); ++j) {
            double sum = 0;
            for (int k = 0; k < cols(a); ++k)
                sum += a[i][k] * b[k][j];
            out[i][j] = sum;
        }
    return out;
}

Mat add(const Mat &a, const Mat &b)
{
    Mat out = a;
    for (int i = 0; i < rows(a); ++i)
        for (int j = 0; j < cols(a); ++j)
            out[i][j] += b[i][j];
    return out;
}

Mat columns(const Mat &m, int first, int count)
{
    Mat out;
    for (const auto &row : m)
        out.emplace_back(row.begin() + first, row.begin() + first + count);
    return out;
}

Mat positionTable(attn::Encoding e, int n, int w, std::uint64_t seed)
{
    if (e == attn::Encoding::Sinusoidal)
        return sinusoidal(n, w);
    return fromEigen(attn::learnedTable(n, w, seed));
}

double dot(const std::vector<double> &a, const std::vector<double> &b)
{
    double sum = 0;
    for (std::size_t d = 0; d < a.size(); ++d)
        sum += a[d] * b[d];
    return sum;
}

double similarity(attn::Similarity kind, const std::vector<double> &q, const std::vector<double> &k)
{
    switch (kind) {
    case attn::Similarity::Dot:
        return dot(q, k);
    case attn::Similarity::Cosine: {
        const double nq = std::sqrt(dot(q, q)), nk = std::sqrt(dot(k, k));
        return nq == 0 || nk == 0 ? 0.0 : dot(q, k) / (nq * nk);
    }
    case attn::Similarity::NegSqDistance: {
        double sum = 0;
        for (std::size_t d = 0; d < q.size(); ++d)
            sum += (q[d] - k[d]) * (q[d] - k[d]);
        return -sum;
    }
    }
    return 0;
}

double scaleConstant(attn::Scale scale, int dk)
{
    if (scale == attn::Scale::SqrtDk)
        return std::sqrt(double(dk));
    if (scale == attn::Scale::Dk)
        return dk;
    return 1;
}

BoolMat blockedEntries(const attn::Scenario &s, int nq, int nk)
{
    BoolMat b(std::size_t(nq), std::vector<bool>(std::size_t(nk), false));
    for (int i = 0; i < nq; ++i)
        for (int j = 0; j < nk; ++j) {
            const bool causal = s.mask.causal && j > i;
            const bool padding = s.mask.keyPadding.size() != 0 && s.mask.keyPadding(j);
            const bool byHand = s.mask.blocked.size() != 0 && s.mask.blocked(i, j);
            b[i][j] = causal || padding || byHand;
        }
    return b;
}

// One row of weights: the softmax over the open entries (before_softmax) or
// over all entries with the blocked ones zeroed afterwards (after_softmax).
std::vector<double> maskedRow(const std::vector<double> &scaled, const std::vector<bool> &blocked,
                              attn::MaskStage stage, bool *fullyMasked)
{
    const std::size_t n = scaled.size();
    std::vector<double> w(n, 0.0);
    std::size_t open = 0;
    for (std::size_t j = 0; j < n; ++j)
        open += blocked[j] ? 0 : 1;
    *fullyMasked = open == 0;
    if (*fullyMasked)
        return w;
    if (stage == attn::MaskStage::BeforeSoftmax) {
        std::vector<double> openScores;
        for (std::size_t j = 0; j < n; ++j)
            if (!blocked[j])
                openScores.push_back(scaled[j]);
        const std::vector<double> p = softmax(openScores);
        std::size_t next = 0;
        for (std::size_t j = 0; j < n; ++j)
            if (!blocked[j])
                w[j] = p[next++];
        return w;
    }
    w = softmax(scaled);
    for (std::size_t j = 0; j < n; ++j)
        if (blocked[j])
            w[j] = 0;
    return w;
}

Row statistics(const std::vector<double> &w, bool fullyMasked)
{
    Row r;
    r.fullyMasked = fullyMasked;
    if (fullyMasked)
        return r;
    for (std::size_t j = 0; j < w.size(); ++j) {
        r.sum += w[j];
        if (w[j] > 0)
            r.entropy -= w[j] * std::log(w[j]);
        if (r.argmax < 0 || w[j] > r.maxWeight) {
            r.maxWeight = w[j];
            r.argmax = int(j);
        }
    }
    return r;
}

} // namespace

std::vector<double> softmax(const std::vector<double> &row)
{
    double m = row[0];
    for (double x : row)
        m = std::max(m, x);
    std::vector<double> e;
    double z = 0;
    for (double x : row) {
        e.push_back(std::exp(x - m));
        z += e.back();
    }
    for (double &v : e)
        v /= z;
    return e;
}

Mat sinusoidal(int n, int w)
{
    Mat pe(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(w)));
    for (int p = 0; p < n; ++p)
        for (int i = 0; 2 * i < w; ++i) {
            const double angle = p / std::pow(10000.0, 2.0 * i / w);
            pe[p][2 * i] = std::sin(angle);
            if (2 * i + 1 < w)
                pe[p][2 * i + 1] = std::cos(angle);
        }
    return pe;
}

Mat rotate(const Mat &x, int dk)
{
    Mat out = x;
    for (int p = 0; p < rows(x); ++p)
        for (int i = 0; i < dk / 2; ++i) {
            const double t = p / std::pow(10000.0, 2.0 * i / dk);
            const double a = x[p][2 * i], b = x[p][2 * i + 1];
            out[p][2 * i] = a * std::cos(t) - b * std::sin(t);
            out[p][2 * i + 1] = a * std::sin(t) + b * std::cos(t);
        }
    return out;
}

Result attention(const attn::Scenario &s)
{
    const bool additive = s.encoding == attn::Encoding::Sinusoidal || s.encoding == attn::Encoding::Learned;
    Mat Q, K, V;
    if (s.mode == attn::InputMode::Projected) {
        Mat X = fromEigen(s.X);
        Mat S = s.source ? fromEigen(*s.source) : X;
        if (additive) {
            X = add(X, positionTable(s.encoding, rows(X), cols(X), s.seed));
            S = add(S, positionTable(s.encoding, rows(S), cols(S), s.seed));
        }
        Q = multiply(X, fromEigen(s.Wq));
        K = multiply(S, fromEigen(s.Wk));
        V = multiply(S, fromEigen(s.Wv));
    } else {
        Q = fromEigen(s.Q);
        K = fromEigen(s.K);
        V = fromEigen(s.V);
        if (additive) {
            Q = add(Q, positionTable(s.encoding, rows(Q), cols(Q), s.seed));
            K = add(K, positionTable(s.encoding, rows(K), cols(K), s.seed));
            V = add(V, positionTable(s.encoding, rows(V), cols(V), s.seed));
        }
    }

    const int h = s.heads, nq = rows(Q), nk = rows(K);
    const int dk = cols(Q) / h, dv = cols(V) / h;
    const double divisor = scaleConstant(s.scale, dk) * s.temperature;

    Result r;
    r.blocked = blockedEntries(s, nq, nk);
    r.concat.assign(std::size_t(nq), {});
    for (int hi = 0; hi < h; ++hi) {
        Head head;
        head.Q = columns(Q, hi * dk, dk);
        head.K = columns(K, hi * dk, dk);
        head.V = columns(V, hi * dv, dv);
        if (s.encoding == attn::Encoding::Rope) {
            head.Q = rotate(head.Q, dk);
            head.K = rotate(head.K, dk);
        }
        for (int i = 0; i < nq; ++i) {
            std::vector<double> scores, scaled;
            for (int j = 0; j < nk; ++j) {
                scores.push_back(similarity(s.similarity, head.Q[i], head.K[j]));
                scaled.push_back(scores.back() / divisor);
            }
            bool fullyMasked = false;
            const std::vector<double> w = maskedRow(scaled, r.blocked[i], s.maskStage, &fullyMasked);
            std::vector<double> out(std::size_t(dv), 0.0);
            for (int j = 0; j < nk; ++j)
                for (int c = 0; c < dv; ++c)
                    out[c] += w[j] * head.V[j][c];
            head.scores.push_back(scores);
            head.scaled.push_back(scaled);
            head.weights.push_back(w);
            head.output.push_back(out);
            head.rows.push_back(statistics(w, fullyMasked));
            r.concat[i].insert(r.concat[i].end(), out.begin(), out.end());
        }
        r.heads.push_back(head);
    }
    r.output = (s.mode == attn::InputMode::Projected && s.Wo) ? multiply(r.concat, fromEigen(*s.Wo)) : r.concat;
    return r;
}

} // namespace ref
