#include "gpt2.h"

#include "attention.h"
#include "blas.h"
#include "gpt2_ops.h"
#include "modelfile.h"
#include "numbers.h"
#include "tensorreader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

// The built-in model's resources live in this static library; a program
// linking it registers them before main() through the object library that
// qt_add_resources makes.

namespace attn {

namespace {

using gpt2ops::gelu;
using gpt2ops::layerNorm;
using gpt2ops::product;

// The largest magnitude among the finite entries of m: what a message about
// an overflow can name.
template <typename Derived>
double largestFinite(const Eigen::DenseBase<Derived> &m)
{
    double best = 0;
    for (Eigen::Index j = 0; j < m.cols(); ++j)
        for (Eigen::Index i = 0; i < m.rows(); ++i)
            if (const double a = std::fabs(m(i, j)); std::isfinite(a) && a > best)
                best = a;
    return best;
}

ModelOrProblem loadFrom(const QString &folder, const QString &shown, const LoadControl &control)
{
    auto cancelled = [&] { return Problem{shown.toStdString(), kLoadCancelled}; };
    const QDir dir(folder);
    if (!QFileInfo(folder).isDir())
        return Problem{shown.toStdString(), "not a folder (a model is a folder of config.json, model.safetensors, "
                                            "vocab.json and merges.txt)"};
    auto path = [&](const char *f) { return dir.filePath(QLatin1String(f)); };
    auto name = [&](const char *f) { return shown + QLatin1Char('/') + QLatin1String(f); };

    control.report(0);
    const auto configText = readRegularFile(path("config.json"), name("config.json").toStdString(), kMaxConfigBytes, "config.json");
    if (!configText.ok())
        return *configText.problem();
    const auto config = gpt2ConfigFromJson(configText.value(), name("config.json"));
    if (!config.ok())
        return *config.problem();
    const Gpt2Config &c = config.value();
    // The budget from the config alone: no tensor is touched for a model
    // that could not be held.
    if (auto p = checkModelBudget(c, name("config.json").toStdString()))
        return *p;
    if (control.cancelled())
        return cancelled();

    const auto file = SafeTensors::open(path("model.safetensors"), name("model.safetensors"));
    if (!file.ok())
        return *file.problem();
    control.report(0.02);
    // The weights are most of the work: 0.02 to 0.9 of the progress.
    LoadControl weightsControl;
    weightsControl.cancel = control.cancel;
    weightsControl.precision = control.precision;
    if (control.progress)
        weightsControl.progress = [&control](double f) { control.report(0.02 + 0.88 * f); };
    auto weights = gpt2WeightsFromSafeTensors(file.value(), c, weightsControl);
    if (!weights.ok())
        return weights.problem()->message == kLoadCancelled ? cancelled() : *weights.problem();
    if (control.cancelled())
        return cancelled();

    auto tokenizer = BpeTokenizer::fromFiles(path("vocab.json"), path("merges.txt"), name("vocab.json"), name("merges.txt"));
    if (!tokenizer.ok())
        return *tokenizer.problem();
    if (control.cancelled())
        return cancelled();
    auto model = std::make_shared<Gpt2Model>(std::move(weights.value()));
    model->tokenizer = std::move(tokenizer.value());
    if (model->tokenizer.size() > c.vocabSize)
        return Problem{name("vocab.json").toStdString(),
                       "holds ids up to " + std::to_string(model->tokenizer.size() - 1) + ", but " + name("config.json").toStdString()
                           + " says vocab_size " + std::to_string(c.vocabSize)};
    model->name = QFileInfo(folder).fileName();
    model->folder = folder;
    control.report(1);
    return std::shared_ptr<const Gpt2Model>(std::move(model));
}

} // namespace

Result<Gpt2Config> gpt2ConfigFromJson(const QByteArray &json, const QString &fileName)
{
    auto parsed = ConfigReader::parse(json, fileName);
    if (!parsed.ok())
        return *parsed.problem();
    ConfigReader &r = parsed.value();
    const std::string &file = r.file;
    Gpt2Config c;
    c.nLayer = r.integer("n_layer", 1, kMaxModelLayers);
    c.nHead = r.integer("n_head", 1, kMaxHeads);
    c.nEmbd = r.integer("n_embd", 1, kMaxModelWidth);
    c.nPositions = r.integer("n_positions", 1, kMaxModelPositions, std::nullopt, "n_ctx");
    c.vocabSize = r.integer("vocab_size", 1, kMaxVocabulary);
    c.nInner = r.integer("n_inner", 1, 4 * kMaxModelWidth, r.problem ? 0 : 4 * c.nEmbd);
    c.epsilon = r.epsilon("layer_norm_epsilon", c.epsilon);
    c.geluTanh = r.geluTanh("activation_function", c.geluTanh);
    c.tiedEmbedding = r.boolean("tie_word_embeddings", c.tiedEmbedding);
    if (r.problem)
        return *r.problem;
    if (c.nEmbd % c.nHead != 0)
        return Problem{file, "n_embd " + std::to_string(c.nEmbd) + " is not a multiple of n_head " + std::to_string(c.nHead)};
    return c;
}

double modelParameters(const Gpt2Config &c)
{
    const double d = c.nEmbd, I = c.nInner;
    const double layer = 2 * d + 3 * d * d + 3 * d + d * d + d + 2 * d + d * I + I + I * d + d;
    const double head = c.tiedEmbedding ? 0 : double(c.vocabSize) * d; // an untied lm_head
    return double(c.vocabSize) * d + head + double(c.nPositions) * d + double(c.nLayer) * layer + 2 * d;
}

std::optional<Problem> checkModelBudget(const Gpt2Config &c, const std::string &place)
{
    return checkParameterBudget(modelParameters(c), place);
}

std::optional<Problem> checkParameterBudget(double parameters, const std::string &place)
{
    const double bytes = parameters * kBytesPerParameter;
    if (bytes <= kModelBudgetBytes)
        return std::nullopt;
    return Problem{place, "the model has " + groupedNumber(parameters) + " parameters, " + groupedNumber(bytes)
                              + " bytes as the forward holds them (" + std::to_string(kBytesPerParameter)
                              + " bytes each), more than the budget of " + groupedNumber(kModelBudgetBytes)
                              + " bytes (1 GiB) for a model"};
}

std::vector<Prediction> topPredictions(const Eigen::VectorXd &logits, int k, const std::function<std::string(int id)> &text)
{
    const double top = logits.maxCoeff();
    const Eigen::VectorXd e = (logits.array() - top).exp();
    const double sum = e.sum();
    std::vector<int> order(std::size_t(logits.size()));
    std::iota(order.begin(), order.end(), 0);
    const int n = std::clamp(k, 0, int(order.size()));
    std::partial_sort(order.begin(), order.begin() + n, order.end(),
                      [&](int a, int b) { return logits(a) != logits(b) ? logits(a) > logits(b) : a < b; });
    std::vector<Prediction> out;
    for (int i = 0; i < n; ++i) {
        const int id = order[std::size_t(i)];
        out.push_back({id, text(id), e(id) / sum});
    }
    return out;
}

Result<Gpt2Model> gpt2WeightsFromSafeTensors(const SafeTensors &file, const Gpt2Config &c, const LoadControl &control)
{
    TensorReader r{file, file.displayName().toStdString()};
    if (auto p = checkModelBudget(c, r.fileName))
        return *p;
    r.control = &control;
    r.total = modelParameters(c);
    const std::int64_t d = c.nEmbd, V = c.vocabSize, P = c.nPositions, I = c.nInner;
    const std::string nd = "config.json's n_embd " + std::to_string(d);
    Gpt2Model m;
    m.config = c;

    // A layer the config does not count is a disagreement, not a surplus to ignore.
    if (auto p = r.checkLayerIndices("h.", c.nLayer, "n_layer"))
        return *p;

    // Single precision for a big float file (or when asked): the file's own
    // float32 values kept, not widened to doubles.
    if (control.precision == Precision::Single)
        m.single = true;
    else if (control.precision == Precision::Auto && modelParameters(c) >= kSinglePrecisionParameters)
        if (const TensorInfo *t = r.find("wte.weight"); t && t->dtype != DType::F64)
            m.single = true;
    // A big matrix in the model's precision, into `into` or `intoF`.
    auto big = [&](const std::string &n, std::vector<std::int64_t> shape, const std::string &why, Matrix &into,
                   FloatMatrix &intoF) {
        if (m.single) {
            if (auto x = r.getFloat(n, shape, why))
                intoF = std::move(*x);
        } else if (auto x = r.get(n, shape, why)) {
            into = std::move(*x);
        }
    };
    big("wte.weight", {V, d}, "config.json's vocab_size " + std::to_string(V) + " and n_embd " + std::to_string(d), m.wte, m.wteF);
    auto wpe = r.get("wpe.weight", {P, d}, "config.json's n_positions " + std::to_string(P) + " and n_embd " + std::to_string(d));
    if (r.problem)
        return *r.problem;
    m.wpe = std::move(*wpe);
    if (!c.tiedEmbedding) { // Hugging Face's GPT2LMHeadModel names it without "transformer."
        big("lm_head.weight", {V, d}, "config.json's tie_word_embeddings false, vocab_size " + std::to_string(V)
                + " and n_embd " + std::to_string(d), m.lmHead, m.lmHeadF);
        if (r.problem)
            return *r.problem;
    }
    for (int l = 0; l < c.nLayer; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        Gpt2Layer L;
        auto v = [&](const std::string &n, std::int64_t size, const std::string &why, Eigen::RowVectorXd &into) {
            if (auto x = r.vec(p + n, size, why))
                into = std::move(*x);
        };
        Gpt2FloatLayer F;
        auto w = [&](const std::string &n, std::vector<std::int64_t> shape, const std::string &why, Matrix &into,
                     FloatMatrix &intoF) { big(p + n, std::move(shape), why, into, intoF); };
        const std::string ni = nd + " and n_inner " + std::to_string(I);
        v("ln_1.weight", d, nd, L.ln1Weight);
        v("ln_1.bias", d, nd, L.ln1Bias);
        w("attn.c_attn.weight", {d, 3 * d}, nd + " (q, k and v side by side)", L.attnWeight, F.attnWeight);
        v("attn.c_attn.bias", 3 * d, nd, L.attnBias);
        w("attn.c_proj.weight", {d, d}, nd, L.projWeight, F.projWeight);
        v("attn.c_proj.bias", d, nd, L.projBias);
        v("ln_2.weight", d, nd, L.ln2Weight);
        v("ln_2.bias", d, nd, L.ln2Bias);
        w("mlp.c_fc.weight", {d, I}, ni, L.fcWeight, F.fcWeight);
        v("mlp.c_fc.bias", I, ni, L.fcBias);
        w("mlp.c_proj.weight", {I, d}, ni, L.mlpProjWeight, F.mlpProjWeight);
        v("mlp.c_proj.bias", d, nd, L.mlpProjBias);
        if (r.problem)
            return *r.problem;
        m.layers.push_back(std::move(L));
        if (m.single)
            m.floatLayers.push_back(std::move(F));
    }
    if (auto x = r.vec("ln_f.weight", d, nd))
        m.lnfWeight = std::move(*x);
    if (auto x = r.vec("ln_f.bias", d, nd))
        m.lnfBias = std::move(*x);
    if (r.problem)
        return *r.problem;
    m.parameters = r.parameters;
    m.dtype = r.dtypes.size() == 1 ? *r.dtypes.begin() : "mixed";
    return m;
}

Matrix Gpt2Model::logitsOf(const Matrix &h) const
{
    if (!single)
        return h * unembedding().transpose();
    const FloatMatrix &u = config.tiedEmbedding ? wteF : lmHeadF;
    return blas::multiplyFloat(h.cast<float>(), u, true).cast<double>();
}

Eigen::RowVectorXd Gpt2Model::embedding(int id) const
{
    return single ? Eigen::RowVectorXd(wteF.row(id).cast<double>()) : Eigen::RowVectorXd(wte.row(id));
}

Matrix Gpt2Model::attnWeight(int layer) const
{
    return single ? Matrix(floatLayers[std::size_t(layer)].attnWeight.cast<double>()) : layers[std::size_t(layer)].attnWeight;
}

ModelOrProblem loadModel(const QString &folder, const LoadControl &control)
{
    return loadFrom(folder, QDir::cleanPath(folder), control);
}

ModelOrProblem loadBuiltinModel(const LoadControl &control)
{
    return loadFrom(QString::fromLatin1(kBuiltinModelFolder), QStringLiteral("builtin:tiny-bilingual"), control);
}

double modelTraceCells(const Gpt2Config &c, int tokens)
{
    const double n = tokens, d = c.nEmbd, dh = c.headDim();
    return double(c.nLayer) * (2 * n * d + double(c.nHead) * (4 * n * dh + 3 * n * n)) + n * d;
}

int maxTracedTokens(const Gpt2Config &c)
{
    // The cells grow with n: the largest n within the limit, by bisection.
    int lo = 0, hi = std::max(0, c.nPositions);
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (modelTraceCells(c, mid) <= kMaxModelTraceCells)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

Result<ModelTrace> runModel(const Gpt2Model &model, const QString &text, int topK)
{
    return runModel(model, text, topK, nullptr);
}

Result<ModelTrace> runModel(const Gpt2Model &model, const QString &text, int topK, const ModelTrace *previous)
{
    if (text.size() > kMaxTokenizerText)
        return Problem{"text", "the text is " + std::to_string(text.size()) + " characters long; the limit is "
                                   + std::to_string(kMaxTokenizerText)};
    return runModelOnIds(model, model.tokenizer.encode(text), topK, previous);
}

Result<ModelTrace> runModelOnIds(const Gpt2Model &model, const std::vector<int> &ids, int topK)
{
    return runModelOnIds(model, ids, topK, nullptr);
}

int reusablePositions(const Gpt2Model &model, const std::vector<int> &ids, const ModelTrace *previous)
{
    if (!previous || previous->masked || previous->ablated)
        return 0; // a trace under another mask or with heads knocked out has other rows
    // A trace of this model's shapes, whole (a moved-from or foreign one is not reused).
    const Gpt2Config &c = model.config;
    const Eigen::Index m = Eigen::Index(previous->ids.size());
    if (previous->layers.size() != std::size_t(c.nLayer) || previous->final.rows() != m || previous->final.cols() != c.nEmbd)
        return 0;
    for (const LayerActivations &la : previous->layers) {
        if (la.heads.size() != std::size_t(c.nHead) || la.input.rows() != m || la.normed.rows() != m)
            return 0;
        for (const HeadActivations &h : la.heads)
            if (h.q.rows() != m || h.q.cols() != c.headDim() || h.weights.rows() != m || h.weights.cols() != m
                || h.scores.rows() != m || h.scaled.rows() != m || h.output.rows() != m || h.k.rows() != m || h.v.rows() != m)
                return 0;
    }
    const std::size_t common = std::min(ids.size(), previous->ids.size());
    std::size_t p = 0;
    while (p < common && ids[p] == previous->ids[p])
        ++p;
    return int(p);
}

namespace {
Result<ModelTrace> forward(const Gpt2Model &model, const std::vector<int> &ids, int topK, const ModelTrace *previous,
                           const BoolMatrix *extraMask, const std::vector<HeadAblation> *ablations = nullptr);
}

Result<ModelTrace> runModelOnIds(const Gpt2Model &model, const std::vector<int> &ids, int topK,
                                                const ModelTrace *previous)
{
    return forward(model, ids, topK, previous, nullptr);
}

Result<ModelTrace> runModelOnIdsMasked(const Gpt2Model &model, const std::vector<int> &ids, int topK,
                                       const BoolMatrix &blocked)
{
    const Eigen::Index n = Eigen::Index(ids.size());
    if (blocked.rows() != n || blocked.cols() != n)
        return Problem{"mask", "the mask is " + std::to_string(blocked.rows()) + " by " + std::to_string(blocked.cols())
                                   + "; the text has " + std::to_string(n) + " tokens"};
    for (Eigen::Index i = 0; i < n; ++i) {
        bool open = false;
        for (Eigen::Index j = 0; j <= i && !open; ++j)
            open = !blocked(i, j);
        if (!open)
            return Problem{"mask", "query " + std::to_string(i + 1) + " has every key blocked"};
    }
    return forward(model, ids, topK, nullptr, &blocked);
}

Result<ModelTrace> runModelOnIdsAblated(const Gpt2Model &model, const std::vector<int> &ids, int topK,
                                        const std::vector<HeadAblation> &ablations)
{
    const Gpt2Config &c = model.config;
    for (const HeadAblation &a : ablations) {
        if (a.layer < 0 || a.layer >= c.nLayer || a.head < 0 || a.head >= c.nHead)
            return Problem{"ablation", "layer " + std::to_string(a.layer + 1) + ", head " + std::to_string(a.head + 1)
                                           + " is not in the model (" + std::to_string(c.nLayer) + " layers × "
                                           + std::to_string(c.nHead) + " heads)"};
        if (a.mean.size() && a.mean.size() != c.headDim())
            return Problem{"ablation", "the mean output of layer " + std::to_string(a.layer + 1) + ", head "
                                           + std::to_string(a.head + 1) + " has " + std::to_string(a.mean.size())
                                           + " numbers; the head has d_h = " + std::to_string(c.headDim())};
    }
    if (ablations.empty())
        return forward(model, ids, topK, nullptr, nullptr);
    return forward(model, ids, topK, nullptr, nullptr, &ablations);
}

namespace {

Result<ModelTrace> forward(const Gpt2Model &model, const std::vector<int> &ids, int topK, const ModelTrace *previous,
                           const BoolMatrix *extraMask, const std::vector<HeadAblation> *ablations)
{
    const Gpt2Config &c = model.config;
    const int n = int(ids.size());
    if (n == 0)
        return Problem{"text", "the text has no tokens"};
    if (n > c.nPositions)
        return Problem{"text", "the text is " + std::to_string(n) + " tokens long; " + model.name.toStdString()
                                   + " reads at most n_positions = " + std::to_string(c.nPositions) + " tokens"};
    // The work and the memory of the forward: bounded before anything is allocated.
    if (const double cells = modelTraceCells(c, n); cells > kMaxModelTraceCells)
        return Problem{"text", "the text is " + std::to_string(n) + " tokens long; its trace through "
                                   + std::to_string(c.nLayer) + " layers × " + std::to_string(c.nHead)
                                   + " heads would hold " + groupedNumber(cells)
                                   + " numbers, more than the limit of " + groupedNumber(kMaxModelTraceCells) + "; "
                                   + model.name.toStdString() + " traces at most " + std::to_string(maxTracedTokens(c))
                                   + " tokens"};
    for (int i = 0; i < n; ++i)
        if (ids[std::size_t(i)] < 0 || ids[std::size_t(i)] >= c.vocabSize)
            return Problem{"text", "token " + std::to_string(i + 1) + " has id " + std::to_string(ids[std::size_t(i)])
                                       + ", outside the vocabulary of " + std::to_string(c.vocabSize)};

    const int d = c.nEmbd, H = c.nHead, dh = c.headDim();
    // Positions [0, p) are copied from `previous`; [p, n) are computed ("fresh").
    const int p = reusablePositions(model, ids, previous);
    const int fresh = n - p;
    ModelTrace t;
    t.ids = ids;
    t.reused = p;
    t.masked = extraMask != nullptr;
    t.ablated = ablations != nullptr;
    for (int id : ids)
        t.texts.push_back(model.tokenizer.bytes(id));

    // n by cols: the first p rows of `old`, the rest from `bottom` (fresh by cols).
    auto stack = [&](const Matrix &old, const Matrix &bottom) {
        Matrix out(n, bottom.cols());
        out.topRows(p) = old.topRows(p);
        out.bottomRows(fresh) = bottom;
        return out;
    };

    // Finite weights can still overflow: each stage is checked as it is
    // made, and the first that is not finite is named.
    const std::string modelName = model.name.toStdString();
    auto overflow = [&](const std::string &where, const std::string &what, const std::string &reach, double v) {
        return Problem{modelName, where + ": " + what + " (" + reach + " " + compact(v) + ")"};
    };
    auto layerHead = [](std::size_t l, int h) {
        return "layer " + std::to_string(l + 1) + ", head " + std::to_string(h + 1);
    };

    // x · W in the model's precision (single: the float32 product, as PyTorch's).
    auto times = [&model](const Matrix &x, const Matrix &w, const FloatMatrix &wf) -> Matrix {
        if (!model.single)
            return product(x, w);
        return blas::multiplyFloat(x.cast<float>(), wf, false).cast<double>();
    };
    auto largestOf = [&model](const Matrix &w, const FloatMatrix &wf) {
        return model.single ? largestFinite(wf) : largestFinite(w);
    };
    static const Gpt2FloatLayer noFloats;

    Matrix x(fresh, d); // fresh by d: the residual stream of the computed positions
    for (int i = p; i < n; ++i)
        x.row(i - p) = model.embedding(ids[std::size_t(i)]) + model.wpe.row(i);
    if (!x.allFinite())
        return overflow("the embeddings", "wte + wpe overflows", "they reach",
                        std::max(largestOf(model.wte, model.wteF), largestFinite(model.wpe)));

    BoolMatrix blocked(fresh, n); // causal: key j > query i; and the caller's own mask
    for (int i = p; i < n; ++i)
        for (int j = 0; j < n; ++j)
            blocked(i - p, j) = j > i || (extraMask && (*extraMask)(i, j));
    // The divisor as compute() (attention.cpp) forms it: sqrt(d_k) times a temperature of 1.
    const double divisor = scaleConstant(Scale::SqrtDk, dh) * 1.0;

    for (std::size_t l = 0; l < model.layers.size(); ++l) {
        const Gpt2Layer &L = model.layers[l];
        const Gpt2FloatLayer &F = model.single ? model.floatLayers[l] : noFloats;
        const LayerActivations *old = p > 0 ? &previous->layers[l] : nullptr;
        LayerActivations la;
        const Matrix normed = layerNorm(x, L.ln1Weight, L.ln1Bias, c.epsilon);    // fresh by d
        la.input = old ? stack(old->input, x) : x;
        la.normed = old ? stack(old->normed, normed) : normed;
        const std::string where = "layer " + std::to_string(l + 1);
        if (!normed.allFinite())
            return overflow(where, "LN_1 overflows", "ln_1's weights reach",
                            std::max(largestFinite(L.ln1Weight), largestFinite(L.ln1Bias)));
        Matrix qkv = times(normed, L.attnWeight, F.attnWeight);                    // fresh by 3d
        qkv.rowwise() += L.attnBias;
        if (!qkv.allFinite()) {
            Eigen::Index col = 0;
            while (col + 1 < qkv.cols() && qkv.col(col).allFinite())
                ++col;
            static const char *const parts[] = {"q", "k", "v"};
            return overflow(layerHead(l, int((col % d) / dh)), std::string(parts[col / d]) + " overflows",
                            "c_attn's weights reach", largestOf(L.attnWeight, F.attnWeight));
        }
        Matrix concat(fresh, d);                                                    // fresh by d
        for (int h = 0; h < H; ++h) {
            const HeadActivations *ph = old ? &old->heads[std::size_t(h)] : nullptr;
            HeadActivations ha;
            const Matrix q = qkv.middleCols(h * dh, dh), k = qkv.middleCols(d + h * dh, dh), v = qkv.middleCols(2 * d + h * dh, dh);
            ha.q = ph ? stack(ph->q, q) : q;                                       // n by d_h
            ha.k = ph ? stack(ph->k, k) : k;
            ha.v = ph ? stack(ph->v, v) : v;
            // The fresh queries against every key; with kept queries, also
            // the kept queries against the fresh keys (blocked, but shown).
            const Matrix scoresFresh = similarity(Similarity::Dot, q, ha.k);      // fresh by n
            const Matrix scaledFresh = scoresFresh / divisor;
            const Matrix weightsFresh = maskedSoftmax(scaledFresh, blocked, MaskStage::BeforeSoftmax);
            const Matrix outputFresh = weightsFresh * ha.v;                        // fresh by d_h
            if (ph) {
                ha.scores.resize(n, n);
                ha.scores.topLeftCorner(p, p) = ph->scores.topLeftCorner(p, p);
                ha.scores.topRightCorner(p, fresh) = similarity(Similarity::Dot, ph->q.topRows(p), k);
                ha.scores.bottomRows(fresh) = scoresFresh;
                ha.scaled.resize(n, n);
                ha.scaled.topLeftCorner(p, p) = ph->scaled.topLeftCorner(p, p);
                ha.scaled.topRightCorner(p, fresh) = ha.scores.topRightCorner(p, fresh) / divisor;
                ha.scaled.bottomRows(fresh) = scaledFresh;
                ha.weights.resize(n, n);
                ha.weights.topLeftCorner(p, p) = ph->weights.topLeftCorner(p, p);
                ha.weights.topRightCorner(p, fresh).setZero(); // every kept query's fresh keys are blocked
                ha.weights.bottomRows(fresh) = weightsFresh;
                ha.output = stack(ph->output, outputFresh);
            } else {
                ha.scores = scoresFresh;
                ha.scaled = scaledFresh;
                ha.weights = weightsFresh;
                ha.output = outputFresh;
            }
            if (!ha.scores.allFinite())
                return overflow(layerHead(l, h), "the scores overflow", "q and k reach",
                                std::max(largestFinite(ha.q), largestFinite(ha.k)));
            // Finite scores give finite weights and outputs; checked all the same.
            if (!ha.scaled.allFinite() || !ha.weights.allFinite() || !ha.output.allFinite())
                return Problem{modelName, layerHead(l, h) + ": the weights or the output are not finite numbers"};
            if (ablations)
                for (const HeadAblation &a : *ablations)
                    if (a.layer == int(l) && a.head == h) {
                        if (a.mean.size())
                            ha.output = a.mean.replicate(n, 1);
                        else
                            ha.output.setZero();
                    }
            concat.middleCols(h * dh, dh) = ha.output.bottomRows(fresh);
            la.heads.push_back(std::move(ha));
        }
        Matrix attn = times(concat, L.projWeight, F.projWeight);                    // fresh by d
        attn.rowwise() += L.projBias;
        x += attn;
        if (!x.allFinite())
            return overflow(where, "the attention's output overflows the residual stream", "c_proj's weights reach",
                            largestOf(L.projWeight, F.projWeight));
        Matrix mlp;                                                                 // fresh by d
        if (model.single && c.geluTanh) {
            // In float32 from product to product, as PyTorch's float model:
            // nothing here is shown, and the tanh is Eigen's vectorised one
            // (std::tanh in double took about a fifth of the forward).
            Eigen::MatrixXf hidden = blas::multiplyFloat(layerNorm(x, L.ln2Weight, L.ln2Bias, c.epsilon).cast<float>(),
                                                         F.fcWeight, false); // fresh by n_inner
            hidden.rowwise() += L.fcBias.cast<float>();
            auto h = hidden.array(); // entry by entry, in place
            h = 0.5f * h * (1.0f + (float(std::sqrt(2.0 / M_PI)) * (h + 0.044715f * h.cube())).tanh());
            mlp = blas::multiplyFloat(hidden, F.mlpProjWeight, false).cast<double>();
        } else {
            Matrix hidden = times(layerNorm(x, L.ln2Weight, L.ln2Bias, c.epsilon), L.fcWeight, F.fcWeight); // fresh by n_inner
            hidden.rowwise() += L.fcBias;
            mlp = times(gelu(hidden, c.geluTanh), L.mlpProjWeight, F.mlpProjWeight);
        }
        mlp.rowwise() += L.mlpProjBias;
        x += mlp;
        if (!x.allFinite())
            return overflow(where, "the MLP overflows the residual stream", "c_fc's and c_proj's weights reach",
                            std::max(largestOf(L.fcWeight, F.fcWeight), largestOf(L.mlpProjWeight, F.mlpProjWeight)));
        t.layers.push_back(std::move(la));
    }
    const Matrix final = layerNorm(x, model.lnfWeight, model.lnfBias, c.epsilon); // fresh by d
    t.final = p > 0 ? stack(previous->final, final) : final;
    if (!final.allFinite())
        return overflow("ln_f", "LN_f overflows", "ln_f's weights reach",
                        std::max(largestFinite(model.lnfWeight), largestFinite(model.lnfBias)));
    if (model.single)
        t.logits = model.logitsOf(t.final.row(n - 1)).transpose();                    // vocab
    else
        t.logits = model.unembedding().lazyProduct(t.final.row(n - 1).transpose());
    if (!t.logits.allFinite())
        return overflow("the last position", "the logits overflow", c.tiedEmbedding ? "wte reaches" : "lm_head reaches",
                        c.tiedEmbedding ? largestOf(model.wte, model.wteF) : largestOf(model.lmHead, model.lmHeadF));

    t.next = topPredictions(t.logits, topK, [&model](int id) { return model.tokenizer.bytes(id); });
    return t;
}

} // namespace

} // namespace attn
