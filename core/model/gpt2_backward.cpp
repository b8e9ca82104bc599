#include "gpt2_backward.h"

#include "attention.h"
#include "blas.h"
#include "gpt2_ops.h"

#include <cmath>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace attn {

using gpt2ops::gelu;
using gpt2ops::geluDerivative;
using gpt2ops::layerNorm;

namespace {

// A step allocates and frees the same large buffers every time (the tape,
// the logits, the gradient). glibc maps a block that large on its own and
// unmaps it when freed, and trims the heap's top, so every step faulted in
// and zeroed fresh pages: more than half of a step of the built-in model's
// shape (bench_train step: 635 ms, 287 ms with the memory kept). Freed
// memory now stays in the heap for the next step; set once, for the process.
void keepFreedMemory()
{
#ifdef __GLIBC__
    static const bool once = [] {
        mallopt(M_MMAP_THRESHOLD, 64 << 20);
        mallopt(M_TRIM_THRESHOLD, 256 << 20);
        return true;
    }();
    (void)once;
#endif
}

// The backward of y = hat * g + b with hat = (x - mean) * rstd, row by row.
// dy, hat: N by d; rstd: N. Adds to dg, db (d); returns dx (N by d).
Matrix layerNormBackward(const Matrix &dy, const Matrix &hat, const Eigen::VectorXd &rstd,
                         const Eigen::RowVectorXd &g, Eigen::RowVectorXd &dg, Eigen::RowVectorXd &db)
{
    dg += dy.cwiseProduct(hat).colwise().sum();
    db += dy.colwise().sum();
    Matrix dhat = dy.array().rowwise() * g.array();                         // N by d
    const double d = double(dy.cols());
    const Eigen::VectorXd meanDhat = dhat.rowwise().sum() / d;             // N
    const Eigen::VectorXd meanDhatHat = dhat.cwiseProduct(hat).rowwise().sum() / d;
    Matrix dx = dhat;
    dx.colwise() -= meanDhat;
    dx -= (hat.array().colwise() * meanDhatHat.array()).matrix();
    return (dx.array().colwise() * rstd.array()).matrix();
}

#ifdef _OPENMP
// Only the pragmas below ask, and they are not compiled without OpenMP.
int threadCount()
{
    return omp_get_max_threads();
}
#endif

// The attention of every (sequence, head) pair of one layer.
void attentionForward(const Matrix &qkv, int B, int T, int H, int dh, double divisor, const BoolMatrix &blocked,
                      LayerTape &lt)
{
    const int d = H * dh;
    lt.weights.assign(std::size_t(B * H), Matrix());
    lt.concat.resize(qkv.rows(), d);
#pragma omp parallel for schedule(static) num_threads(threadCount())
    for (int bh = 0; bh < B * H; ++bh) {
        const int b = bh / H, h = bh % H;
        const auto q = qkv.block(b * T, h * dh, T, dh);          // T by d_h
        const auto k = qkv.block(b * T, d + h * dh, T, dh);
        const auto v = qkv.block(b * T, 2 * d + h * dh, T, dh);
        const Matrix scaled = similarity(Similarity::Dot, q, k) / divisor;  // T by T
        Matrix &w = lt.weights[std::size_t(bh)];
        w = maskedSoftmax(scaled, blocked, MaskStage::BeforeSoftmax);
        lt.concat.block(b * T, h * dh, T, dh).noalias() = w * v;
    }
}

// d qkv (N by 3d) from d concat (N by d).
Matrix attentionBackward(const Matrix &dconcat, const LayerTape &lt, int B, int T, int H, int dh, double divisor)
{
    const int d = H * dh;
    Matrix dqkv(dconcat.rows(), 3 * d);
#pragma omp parallel for schedule(static) num_threads(threadCount())
    for (int bh = 0; bh < B * H; ++bh) {
        const int b = bh / H, h = bh % H;
        const Matrix &P = lt.weights[std::size_t(bh)];                       // T by T
        const auto q = lt.qkv.block(b * T, h * dh, T, dh);
        const auto k = lt.qkv.block(b * T, d + h * dh, T, dh);
        const auto v = lt.qkv.block(b * T, 2 * d + h * dh, T, dh);
        const auto dO = dconcat.block(b * T, h * dh, T, dh);                 // T by d_h
        const Matrix dP = dO * v.transpose();                                // T by T
        dqkv.block(b * T, 2 * d + h * dh, T, dh).noalias() = P.transpose() * dO;
        // Softmax backward, row by row: dS = P (dP - sum_j P dP), then ÷ divisor.
        const Eigen::VectorXd rowDot = P.cwiseProduct(dP).rowwise().sum();
        Matrix dS = P.cwiseProduct(dP);
        dS -= (P.array().colwise() * rowDot.array()).matrix();
        dS /= divisor;
        dqkv.block(b * T, h * dh, T, dh).noalias() = dS * k;
        dqkv.block(b * T, d + h * dh, T, dh).noalias() = dS.transpose() * q;
    }
    return dqkv;
}

std::optional<Problem> checkBatch(const Gpt2Config &c, const TrainBatch &batch)
{
    const std::size_t n = std::size_t(batch.batch) * std::size_t(std::max(0, batch.length));
    if (batch.batch < 1 || batch.length < 1)
        return Problem{"batch", "needs at least one sequence of at least one token"};
    if (batch.ids.size() != n || batch.targets.size() != n)
        return Problem{"batch", "holds " + std::to_string(batch.ids.size()) + " ids and " + std::to_string(batch.targets.size())
                                    + " targets for " + std::to_string(batch.batch) + " × " + std::to_string(batch.length) + " tokens"};
    if (batch.length > c.nPositions)
        return Problem{"batch", "sequences of " + std::to_string(batch.length) + " tokens; the model reads at most n_positions = "
                                    + std::to_string(c.nPositions)};
    for (std::size_t i = 0; i < n; ++i) {
        if (batch.ids[i] < 0 || batch.ids[i] >= c.vocabSize)
            return Problem{"batch", "token " + std::to_string(i) + " has id " + std::to_string(batch.ids[i])
                                        + ", outside the vocabulary of " + std::to_string(c.vocabSize)};
        if (batch.targets[i] < -1 || batch.targets[i] >= c.vocabSize)
            return Problem{"batch", "target " + std::to_string(i) + " is " + std::to_string(batch.targets[i])
                                        + ", outside the vocabulary of " + std::to_string(c.vocabSize)};
    }
    return std::nullopt;
}

} // namespace

double trainDivisor(const Gpt2Config &c, const TrainForwardOptions &o)
{
    return o.divisor > 0 ? o.divisor : std::sqrt(double(c.headDim()));
}

Result<Gpt2Tape> forwardForTraining(const Gpt2Model &m, const TrainBatch &batch, const TrainForwardOptions &o)
{
    keepFreedMemory();
    const Gpt2Config &c = m.config;
    if (auto p = checkBatch(c, batch))
        return *p;
    const int B = batch.batch, T = batch.length, N = B * T, H = c.nHead, dh = c.headDim();
    const double divisor = trainDivisor(c, o);
    Gpt2Tape tape;
    Matrix x(N, c.nEmbd);                                                    // N by d
    for (int r = 0; r < N; ++r)
        x.row(r) = m.wte.row(batch.ids[std::size_t(r)]) + m.wpe.row(r % T);
    BoolMatrix blocked(T, T);                                               // causal: key j > query i
    for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j)
            blocked(i, j) = j > i;
    for (const Gpt2Layer &L : m.layers) {
        LayerTape lt;
        lt.normed1 = layerNorm(x, L.ln1Weight, L.ln1Bias, c.epsilon, &lt.hat1, &lt.rstd1);
        lt.qkv = blas::multiply(lt.normed1, false, L.attnWeight, false);                         // N by 3d
        lt.qkv.rowwise() += L.attnBias;
        attentionForward(lt.qkv, B, T, H, dh, divisor, blocked, lt);
        Matrix attn = blas::multiply(lt.concat, false, L.projWeight, false);                      // N by d
        attn.rowwise() += L.projBias;
        x += attn;
        if (o.mlp) {
            lt.normed2 = layerNorm(x, L.ln2Weight, L.ln2Bias, c.epsilon, &lt.hat2, &lt.rstd2);
            lt.hidden = blas::multiply(lt.normed2, false, L.fcWeight, false);                     // N by I
            lt.hidden.rowwise() += L.fcBias;
            lt.activated = gelu(lt.hidden, c.geluTanh, &lt.inner);
            Matrix mlp = blas::multiply(lt.activated, false, L.mlpProjWeight, false);             // N by d
            mlp.rowwise() += L.mlpProjBias;
            x += mlp;
        }
        tape.layers.push_back(std::move(lt));
    }
    tape.final = layerNorm(x, m.lnfWeight, m.lnfBias, c.epsilon, &tape.hatF, &tape.rstdF);
    // The logits transposed, V by N: each row's logits one contiguous column
    // for the softmax (a row of an N by V column-major matrix is strided).
    const Matrix logitsT = blas::multiply(m.unembedding(), false, tape.final, true);
    if (!logitsT.allFinite())
        return Problem{"training", "the forward left the finite numbers (the logits overflow)"};
    // Softmax and the mean cross-entropy of the counted rows.
    Matrix probsT(c.vocabSize, N);
    double total = 0;
    for (int r = 0; r < N; ++r) {
        const double top = logitsT.col(r).maxCoeff();
        probsT.col(r) = (logitsT.col(r).array() - top).exp();
        const double sum = probsT.col(r).sum();
        probsT.col(r) /= sum;
        if (const int t = batch.targets[std::size_t(r)]; t >= 0) {
            total += -(logitsT(t, r) - top - std::log(sum));
            ++tape.counted;
        }
    }
    tape.probs = probsT.transpose();
    if (tape.counted == 0)
        return Problem{"batch", "no target is counted (every target is -1)"};
    tape.loss = total / tape.counted;
    if (!std::isfinite(tape.loss))
        return Problem{"training", "the loss is not a finite number"};
    return tape;
}

Gpt2Model backwardFromTape(const Gpt2Model &m, const TrainBatch &batch, const TrainForwardOptions &o, const Gpt2Tape &tape)
{
    const Gpt2Config &c = m.config;
    const int B = batch.batch, T = batch.length, N = B * T, H = c.nHead, dh = c.headDim();
    const double divisor = trainDivisor(c, o);
    Gpt2Model g = zeroWeights(c);
    Matrix dlogits = tape.probs;                                             // N by V
    for (int r = 0; r < N; ++r) {
        if (const int t = batch.targets[std::size_t(r)]; t >= 0)
            dlogits(r, t) -= 1;
        else
            dlogits.row(r).setZero();
    }
    dlogits /= double(tape.counted);
    // The unembedding's gradient: wte's own part when tied, lm_head's when not.   V by d
    (c.tiedEmbedding ? g.wte : g.lmHead) = blas::multiply(dlogits, true, tape.final, false);
    Matrix dx = blas::multiply(dlogits, false, m.unembedding(), false);                                   // N by d
    dx = layerNormBackward(dx, tape.hatF, tape.rstdF, m.lnfWeight, g.lnfWeight, g.lnfBias);
    for (int l = c.nLayer - 1; l >= 0; --l) {
        const Gpt2Layer &L = m.layers[std::size_t(l)];
        const LayerTape &lt = tape.layers[std::size_t(l)];
        Gpt2Layer &G = g.layers[std::size_t(l)];
        if (o.mlp) {
            G.mlpProjWeight = blas::multiply(lt.activated, true, dx, false);      // I by d
            G.mlpProjBias = dx.colwise().sum();
            Matrix dh1 = blas::multiply(dx, false, L.mlpProjWeight, true);                  // N by I
            dh1.array() *= geluDerivative(lt.hidden, c.geluTanh, c.geluTanh ? &lt.inner : nullptr).array();
            G.fcWeight = blas::multiply(lt.normed2, true, dh1, false);             // d by I
            G.fcBias = dh1.colwise().sum();
            const Matrix dn2 = blas::multiply(dh1, false, L.fcWeight, true);                 // N by d
            dx += layerNormBackward(dn2, lt.hat2, lt.rstd2, L.ln2Weight, G.ln2Weight, G.ln2Bias);
        }
        G.projWeight = blas::multiply(lt.concat, true, dx, false);                 // d by d
        G.projBias = dx.colwise().sum();
        const Matrix dconcat = blas::multiply(dx, false, L.projWeight, true);                // N by d
        const Matrix dqkv = attentionBackward(dconcat, lt, B, T, H, dh, divisor); // N by 3d
        G.attnWeight = blas::multiply(lt.normed1, true, dqkv, false);              // d by 3d
        G.attnBias = dqkv.colwise().sum();
        const Matrix dn1 = blas::multiply(dqkv, false, L.attnWeight, true);                  // N by d
        dx += layerNormBackward(dn1, lt.hat1, lt.rstd1, L.ln1Weight, G.ln1Weight, G.ln1Bias);
    }
    for (int r = 0; r < N; ++r) {
        g.wte.row(batch.ids[std::size_t(r)]) += dx.row(r);
        g.wpe.row(r % T) += dx.row(r);
    }
    return g;
}

Result<LossAndGradient> lossAndGradient(const Gpt2Model &model, const TrainBatch &batch, const TrainForwardOptions &options)
{
    auto tape = forwardForTraining(model, batch, options);
    if (!tape.ok())
        return *tape.problem();
    LossAndGradient out;
    out.loss = tape.value().loss;
    out.gradient = backwardFromTape(model, batch, options, tape.value());
    return out;
}

Gpt2Model zeroWeights(const Gpt2Config &c)
{
    const int d = c.nEmbd, I = c.nInner;
    Gpt2Model m;
    m.config = c;
    m.wte = Matrix::Zero(c.vocabSize, d);
    if (!c.tiedEmbedding)
        m.lmHead = Matrix::Zero(c.vocabSize, d);
    m.wpe = Matrix::Zero(c.nPositions, d);
    auto row = [](int n) { return Eigen::RowVectorXd::Zero(n); };
    for (int l = 0; l < c.nLayer; ++l) {
        Gpt2Layer L;
        L.ln1Weight = row(d);
        L.ln1Bias = row(d);
        L.attnWeight = Matrix::Zero(d, 3 * d);
        L.attnBias = row(3 * d);
        L.projWeight = Matrix::Zero(d, d);
        L.projBias = row(d);
        L.ln2Weight = row(d);
        L.ln2Bias = row(d);
        L.fcWeight = Matrix::Zero(d, I);
        L.fcBias = row(I);
        L.mlpProjWeight = Matrix::Zero(I, d);
        L.mlpProjBias = row(d);
        m.layers.push_back(std::move(L));
    }
    m.lnfWeight = row(d);
    m.lnfBias = row(d);
    m.parameters = std::int64_t(modelParameters(c));
    m.dtype = "F64";
    return m;
}

std::vector<ParameterRef> parameterRefs(Gpt2Model &m)
{
    std::vector<ParameterRef> out;
    auto mat = [&](const std::string &name, Matrix &x, bool mlp) {
        out.push_back({name, {x.rows(), x.cols()}, x.data(), x.size(), true, mlp});
    };
    auto vec = [&](const std::string &name, Eigen::RowVectorXd &x, bool mlp) {
        out.push_back({name, {x.size()}, x.data(), x.size(), false, mlp});
    };
    mat("wte.weight", m.wte, false);
    mat("wpe.weight", m.wpe, false);
    if (!m.config.tiedEmbedding)
        mat("lm_head.weight", m.lmHead, false);
    for (std::size_t l = 0; l < m.layers.size(); ++l) {
        Gpt2Layer &L = m.layers[l];
        const std::string p = "h." + std::to_string(l) + ".";
        vec(p + "ln_1.weight", L.ln1Weight, false);
        vec(p + "ln_1.bias", L.ln1Bias, false);
        mat(p + "attn.c_attn.weight", L.attnWeight, false);
        vec(p + "attn.c_attn.bias", L.attnBias, false);
        mat(p + "attn.c_proj.weight", L.projWeight, false);
        vec(p + "attn.c_proj.bias", L.projBias, false);
        vec(p + "ln_2.weight", L.ln2Weight, true);
        vec(p + "ln_2.bias", L.ln2Bias, true);
        mat(p + "mlp.c_fc.weight", L.fcWeight, true);
        vec(p + "mlp.c_fc.bias", L.fcBias, true);
        mat(p + "mlp.c_proj.weight", L.mlpProjWeight, true);
        vec(p + "mlp.c_proj.bias", L.mlpProjBias, true);
    }
    vec("ln_f.weight", m.lnfWeight, false);
    vec("ln_f.bias", m.lnfBias, false);
    return out;
}

double trainStepCells(const Gpt2Config &c, int batch, int length, bool mlp)
{
    const double N = double(batch) * length, d = c.nEmbd, I = mlp ? c.nInner : 0, V = c.vocabSize;
    // Per layer: hat1, normed1, concat (3 N d), qkv (3 N d), B H T²
    // weights; with the MLP hat2, normed2 (2 N d) and hidden, inner, activated (3 N I).
    const double layer = 6 * N * d + double(batch) * c.nHead * double(length) * length + (mlp ? 2 * N * d + 3 * N * I : 0);
    // The last stream (2 N d), the probabilities and the logits' gradient
    // (2 N V), the backward's temporaries (a few N by max(3d, I) at once).
    const double rest = 2 * N * d + 2 * N * V + 6 * N * std::max(3 * d, I);
    return double(c.nLayer) * layer + rest;
}

} // namespace attn
