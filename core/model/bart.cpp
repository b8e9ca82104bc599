#include "bart.h"

#include "attention.h"
#include "gpt2_ops.h"
#include "modelfile.h"
#include "tensorreader.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace attn {

using gpt2ops::gelu;
using gpt2ops::layerNorm;
using gpt2ops::product;

Result<BartConfig> bartConfigFromJson(const QByteArray &json, const QString &fileName)
{
    auto parsed = ConfigReader::parse(json, fileName);
    if (!parsed.ok())
        return *parsed.problem();
    ConfigReader &r = parsed.value();
    const QString type = r.object.value(QLatin1String("model_type")).toString();
    if (type != QLatin1String("bart"))
        return Problem{r.file, "model_type is " + quotedName(type.toStdString()) + ", not \"bart\""};
    BartConfig c;
    c.vocabSize = r.integer("vocab_size", 4, kMaxVocabulary);
    c.d = r.integer("d_model", 1, kMaxModelWidth);
    c.encoderLayers = r.integer("encoder_layers", 1, kMaxModelLayers);
    c.decoderLayers = r.integer("decoder_layers", 1, kMaxModelLayers);
    c.encoderHeads = r.integer("encoder_attention_heads", 1, kMaxHeads);
    c.decoderHeads = r.integer("decoder_attention_heads", 1, kMaxHeads);
    c.encoderFfn = r.integer("encoder_ffn_dim", 1, 4 * kMaxModelWidth);
    c.decoderFfn = r.integer("decoder_ffn_dim", 1, 4 * kMaxModelWidth);
    c.maxPositions = r.integer("max_position_embeddings", 1, kMaxModelPositions);
    const int last = r.problem ? 0 : c.vocabSize - 1;
    c.bos = r.integer("bos_token_id", 0, last, 0);
    c.pad = r.integer("pad_token_id", 0, last, 1);
    c.eos = r.integer("eos_token_id", 0, last, 2);
    c.decoderStart = r.integer("decoder_start_token_id", 0, last, c.eos);
    c.forcedBos = r.integer("forced_bos_token_id", -1, last, -1);
    c.geluTanh = r.geluTanh("activation_function", false);
    c.scaleEmbedding = r.boolean("scale_embedding", false);
    if (r.boolean("normalize_before", false) || r.boolean("add_final_layer_norm", false))
        r.problem = r.problem ? r.problem : Problem{r.file, "normalize_before and add_final_layer_norm (mBART's pre-LN) are "
                                                            "not read here; BART's post-LN only"};
    if (r.problem)
        return *r.problem;
    if (c.d % c.encoderHeads != 0 || c.d % c.decoderHeads != 0)
        return Problem{r.file, "d_model " + std::to_string(c.d) + " is not a multiple of the heads"};
    return c;
}

double bartParameters(const BartConfig &c)
{
    const double d = c.d;
    const double attention = 4 * (d * d + d);
    const double encoder = attention + 2 * d + d * c.encoderFfn + c.encoderFfn + c.encoderFfn * d + d + 2 * d;
    const double decoder = 2 * attention + 4 * d + d * c.decoderFfn + c.decoderFfn + c.decoderFfn * d + d + 2 * d;
    return double(c.vocabSize) * d + 2.0 * (c.maxPositions + 2) * d + 4 * d + c.encoderLayers * encoder
        + c.decoderLayers * decoder + c.vocabSize;
}

namespace {

std::optional<Problem> checkBudget(const BartConfig &c, const std::string &place)
{
    return checkParameterBudget(bartParameters(c), place);
}

} // namespace

Result<BartModel> bartWeightsFromSafeTensors(const SafeTensors &file, const BartConfig &c, const LoadControl &control)
{
    TensorReader r{file, file.displayName().toStdString()};
    r.prefixes = {""};
    if (auto p = checkBudget(c, r.fileName))
        return *p;
    r.control = &control;
    r.total = bartParameters(c);
    if (auto p = r.checkLayerIndices("model.encoder.layers.", c.encoderLayers, "encoder_layers"))
        return *p;
    if (auto p = r.checkLayerIndices("model.decoder.layers.", c.decoderLayers, "decoder_layers"))
        return *p;
    const std::int64_t d = c.d, V = c.vocabSize, P = c.maxPositions + 2;
    const std::string nd = "config.json's d_model " + std::to_string(d);
    BartModel m;
    m.config = c;
    auto mat = [&](const std::string &n, std::vector<std::int64_t> shape, const std::string &why, Matrix &into) {
        if (auto x = r.get(n, shape, why))
            into = std::move(*x);
    };
    auto vec = [&](const std::string &n, std::int64_t size, const std::string &why, Eigen::RowVectorXd &into) {
        if (auto x = r.vec(n, size, why))
            into = std::move(*x);
    };
    auto linear = [&](const std::string &n, std::int64_t out, std::int64_t in, const std::string &why, Matrix &w,
                      Eigen::RowVectorXd &b) {
        Matrix t;
        mat(n + ".weight", {out, in}, why, t);
        w = t.transpose();
        vec(n + ".bias", out, why, b);
    };
    // The embedding is tied four ways; a file keeps whichever name it kept.
    std::string sharedName = "model.shared.weight";
    for (const char *n : {"model.shared.weight", "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight",
                          "lm_head.weight"})
        if (file.find(n)) {
            sharedName = n;
            break;
        }
    mat(sharedName, {V, d}, "config.json's vocab_size " + std::to_string(V) + " and " + nd, m.shared);
    const std::string np = "config.json's max_position_embeddings " + std::to_string(c.maxPositions) + " (+ 2, BART's offset) and " + nd;
    mat("model.encoder.embed_positions.weight", {P, d}, np, m.encoderPositions);
    mat("model.decoder.embed_positions.weight", {P, d}, np, m.decoderPositions);
    vec("model.encoder.layernorm_embedding.weight", d, nd, m.encoderLnWeight);
    vec("model.encoder.layernorm_embedding.bias", d, nd, m.encoderLnBias);
    vec("model.decoder.layernorm_embedding.weight", d, nd, m.decoderLnWeight);
    vec("model.decoder.layernorm_embedding.bias", d, nd, m.decoderLnBias);
    auto attention = [&](const std::string &p, BartAttention &a) {
        linear(p + ".q_proj", d, d, nd, a.q, a.qBias);
        linear(p + ".k_proj", d, d, nd, a.k, a.kBias);
        linear(p + ".v_proj", d, d, nd, a.v, a.vBias);
        linear(p + ".out_proj", d, d, nd, a.out, a.outBias);
    };
    auto layers = [&](const char *side, int count, int ffn, bool decoder, std::vector<BartLayer> &into) {
        for (int l = 0; l < count && !r.problem; ++l) {
            const std::string p = std::string("model.") + side + ".layers." + std::to_string(l) + ".";
            const std::string nf = nd + " and " + side + "_ffn_dim " + std::to_string(ffn);
            BartLayer L;
            attention(p + "self_attn", L.self);
            vec(p + "self_attn_layer_norm.weight", d, nd, L.selfLnWeight);
            vec(p + "self_attn_layer_norm.bias", d, nd, L.selfLnBias);
            if (decoder) {
                attention(p + "encoder_attn", L.cross);
                vec(p + "encoder_attn_layer_norm.weight", d, nd, L.crossLnWeight);
                vec(p + "encoder_attn_layer_norm.bias", d, nd, L.crossLnBias);
            }
            linear(p + "fc1", ffn, d, nf, L.fc1, L.fc1Bias);
            linear(p + "fc2", d, ffn, nf, L.fc2, L.fc2Bias);
            vec(p + "final_layer_norm.weight", d, nd, L.finalLnWeight);
            vec(p + "final_layer_norm.bias", d, nd, L.finalLnBias);
            into.push_back(std::move(L));
        }
    };
    layers("encoder", c.encoderLayers, c.encoderFfn, false, m.encoder);
    layers("decoder", c.decoderLayers, c.decoderFfn, true, m.decoder);
    m.finalLogitsBias = Eigen::RowVectorXd::Zero(V);
    if (file.find("final_logits_bias")) {
        Matrix bias;
        mat("final_logits_bias", {1, V}, "config.json's vocab_size " + std::to_string(V), bias);
        if (bias.size())
            m.finalLogitsBias = bias.row(0);
    }
    if (sharedName != "lm_head.weight" && file.find("lm_head.weight")) {
        mat("lm_head.weight", {V, d}, "config.json's vocab_size and d_model", m.lmHead);
        if (!r.problem && m.lmHead == m.shared)
            m.lmHead.resize(0, 0); // a tied copy
    }
    if (r.problem)
        return *r.problem;
    m.parameters = r.parameters;
    m.dtype = r.dtypes.size() == 1 ? *r.dtypes.begin() : "mixed";
    return m;
}

namespace {

Seq2SeqOrProblem loadFrom(const QString &folder, const QString &shown, const LoadControl &control)
{
    if (!QFileInfo(folder).isDir())
        return Problem{shown.toStdString(), "not a folder (an encoder-decoder is a folder of config.json, "
                                            "model.safetensors, vocab.json and merges.txt)"};
    const QDir dir(folder);
    auto path = [&](const char *f) { return dir.filePath(QLatin1String(f)); };
    auto name = [&](const char *f) { return shown + QLatin1Char('/') + QLatin1String(f); };
    control.report(0);
    const auto configText = readRegularFile(path("config.json"), name("config.json").toStdString(), kMaxConfigBytes, "config.json");
    if (!configText.ok())
        return *configText.problem();
    const auto config = bartConfigFromJson(configText.value(), name("config.json"));
    if (!config.ok())
        return *config.problem();
    if (auto p = checkBudget(config.value(), name("config.json").toStdString()))
        return *p;
    auto tokenizer = BpeTokenizer::fromFiles(path("vocab.json"), path("merges.txt"), name("vocab.json"), name("merges.txt"));
    if (!tokenizer.ok())
        return *tokenizer.problem();
    if (tokenizer.value().size() > config.value().vocabSize)
        return Problem{name("vocab.json").toStdString(), "holds ids up to " + std::to_string(tokenizer.value().size() - 1)
                                                             + ", but config.json says vocab_size "
                                                             + std::to_string(config.value().vocabSize)};
    const auto file = SafeTensors::open(path("model.safetensors"), name("model.safetensors"));
    if (!file.ok())
        return *file.problem();
    LoadControl weights;
    weights.cancel = control.cancel;
    if (control.progress)
        weights.progress = [&control](double f) { control.report(0.05 + 0.9 * f); };
    auto w = bartWeightsFromSafeTensors(file.value(), config.value(), weights);
    if (!w.ok())
        return w.problem()->message == kLoadCancelled ? Problem{shown.toStdString(), kLoadCancelled} : *w.problem();
    auto model = std::make_shared<BartModel>(std::move(w.value()));
    model->tokenizer = std::move(tokenizer.value());
    model->name = QFileInfo(folder).fileName();
    model->folder = folder;
    control.report(1);
    return std::shared_ptr<const BartModel>(std::move(model));
}

} // namespace

Seq2SeqOrProblem loadSeq2Seq(const QString &folder, const LoadControl &control)
{
    return loadFrom(folder, folder, control);
}

Seq2SeqOrProblem loadBuiltinSeq2Seq(const LoadControl &control)
{
    return loadFrom(QString::fromLatin1(kBuiltinSeq2SeqFolder), QStringLiteral("tiny-translator"), control);
}

std::vector<int> sourceIds(const BartModel &model, const QString &text)
{
    std::vector<int> ids{model.config.bos};
    for (int id : model.tokenizer.encode(text))
        ids.push_back(id);
    ids.push_back(model.config.eos);
    return ids;
}

std::string seq2seqText(const BartModel &model, const std::vector<int> &ids)
{
    const BartConfig &c = model.config;
    std::vector<int> plain;
    for (int id : ids)
        if (id != c.bos && id != c.pad && id != c.eos && id != c.decoderStart)
            plain.push_back(id);
    return model.tokenizer.decode(plain);
}

namespace {

// One attention of `heads` heads: queries from `x` (rows by d), keys and
// values from `kv` (cols by d); every head's stages kept; the output after out_proj.
Matrix attend(const BartAttention &a, const Matrix &x, const Matrix &kv, int heads, bool causal, LayerActivations &la)
{
    const int d = int(x.cols()), dh = d / heads;
    Matrix q = product(x, a.q), k = product(kv, a.k), v = product(kv, a.v);
    q.rowwise() += a.qBias;
    k.rowwise() += a.kBias;
    v.rowwise() += a.vBias;
    BoolMatrix blocked = BoolMatrix::Constant(x.rows(), kv.rows(), false);
    if (causal)
        for (Eigen::Index i = 0; i < blocked.rows(); ++i)
            for (Eigen::Index j = i + 1; j < blocked.cols(); ++j)
                blocked(i, j) = true;
    const double divisor = scaleConstant(Scale::SqrtDk, dh) * 1.0;
    Matrix concat(x.rows(), d);
    for (int h = 0; h < heads; ++h) {
        HeadActivations ha;
        ha.q = q.middleCols(h * dh, dh);
        ha.k = k.middleCols(h * dh, dh);
        ha.v = v.middleCols(h * dh, dh);
        ha.scores = similarity(Similarity::Dot, ha.q, ha.k);
        ha.scaled = ha.scores / divisor;
        ha.weights = maskedSoftmax(ha.scaled, blocked, MaskStage::BeforeSoftmax);
        ha.output = ha.weights * ha.v;
        concat.middleCols(h * dh, dh) = ha.output;
        la.heads.push_back(std::move(ha));
    }
    Matrix out = product(concat, a.out);
    out.rowwise() += a.outBias;
    return out;
}

Matrix ffn(const BartLayer &L, const Matrix &x, bool tanh)
{
    Matrix h = product(x, L.fc1);
    h.rowwise() += L.fc1Bias;
    Matrix o = product(gelu(h, tanh), L.fc2);
    o.rowwise() += L.fc2Bias;
    return o;
}

} // namespace

Result<Seq2SeqTrace> runSeq2Seq(const BartModel &model, const std::vector<int> &source, const std::vector<int> &target, int topK)
{
    const BartConfig &c = model.config;
    for (const auto *ids : {&source, &target}) {
        const char *what = ids == &source ? "the source" : "the translation";
        if (ids->empty())
            return Problem{"text", std::string(what) + " has no tokens"};
        if (int(ids->size()) > c.maxPositions)
            return Problem{"text", std::string(what) + " is " + std::to_string(ids->size()) + " tokens long; "
                                       + model.name.toStdString() + " reads at most max_position_embeddings = "
                                       + std::to_string(c.maxPositions) + " tokens"};
        for (std::size_t i = 0; i < ids->size(); ++i)
            if ((*ids)[i] < 0 || (*ids)[i] >= c.vocabSize)
                return Problem{"text", std::string(what) + ": token " + std::to_string(i + 1) + " has id "
                                           + std::to_string((*ids)[i]) + ", outside the vocabulary of "
                                           + std::to_string(c.vocabSize)};
    }
    const std::string modelName = model.name.toStdString();
    auto notFinite = [&](const std::string &where) {
        return Problem{modelName, where + ": the numbers overflow (the weights are too large for double precision)"};
    };
    const double scale = c.scaleEmbedding ? std::sqrt(double(c.d)) : 1.0;
    const int n = int(source.size()), m = int(target.size());
    Seq2SeqTrace t;
    t.sourceIds = source;
    t.targetIds = target;
    Matrix x(n, c.d);
    for (int i = 0; i < n; ++i)
        x.row(i) = model.shared.row(source[std::size_t(i)]) * scale + model.encoderPositions.row(i + 2);
    x = layerNorm(x, model.encoderLnWeight, model.encoderLnBias, c.epsilon);
    for (std::size_t l = 0; l < model.encoder.size(); ++l) {
        const BartLayer &L = model.encoder[l];
        LayerActivations la;
        la.input = la.normed = x;
        const Matrix a = layerNorm(x + attend(L.self, x, x, c.encoderHeads, false, la), L.selfLnWeight, L.selfLnBias, c.epsilon);
        x = layerNorm(a + ffn(L, a, c.geluTanh), L.finalLnWeight, L.finalLnBias, c.epsilon);
        if (!x.allFinite())
            return notFinite("encoder layer " + std::to_string(l + 1));
        t.encoder.push_back(std::move(la));
    }
    Matrix y(m, c.d);
    for (int i = 0; i < m; ++i)
        y.row(i) = model.shared.row(target[std::size_t(i)]) * scale + model.decoderPositions.row(i + 2);
    y = layerNorm(y, model.decoderLnWeight, model.decoderLnBias, c.epsilon);
    for (std::size_t l = 0; l < model.decoder.size(); ++l) {
        const BartLayer &L = model.decoder[l];
        LayerActivations self, cross;
        self.input = self.normed = y;
        const Matrix a = layerNorm(y + attend(L.self, y, y, c.decoderHeads, true, self), L.selfLnWeight, L.selfLnBias, c.epsilon);
        cross.input = cross.normed = a;
        const Matrix b = layerNorm(a + attend(L.cross, a, x, c.decoderHeads, false, cross), L.crossLnWeight, L.crossLnBias, c.epsilon);
        y = layerNorm(b + ffn(L, b, c.geluTanh), L.finalLnWeight, L.finalLnBias, c.epsilon);
        if (!y.allFinite())
            return notFinite("decoder layer " + std::to_string(l + 1));
        t.decoderSelf.push_back(std::move(self));
        t.cross.push_back(std::move(cross));
    }
    t.logits = model.unembedding() * y.row(m - 1).transpose() + model.finalLogitsBias.transpose();
    if (!t.logits.allFinite())
        return notFinite("the logits");
    t.next = topPredictions(t.logits, topK, [&model](int id) { return model.tokenizer.bytes(id); });
    return t;
}

namespace {

void appendRow(Matrix &m, const Matrix &r)
{
    m.conservativeResize(m.rows() + 1, r.cols());
    m.row(m.rows() - 1) = r;
}

// One new row through an attention whose earlier rows are in `la`: its q
// (and, for self-attention, its k and v appended to the cache), its scores
// against every key, softmax, output. `row` 1 by d; the output after out_proj.
Matrix attendRow(const BartAttention &a, const Matrix &row, int heads, bool selfAttention, LayerActivations &la)
{
    const int d = int(row.cols()), dh = d / heads;
    Matrix q = product(row, a.q);
    q.rowwise() += a.qBias;
    Matrix k, v;
    if (selfAttention) {
        k = product(row, a.k);
        v = product(row, a.v);
        k.rowwise() += a.kBias;
        v.rowwise() += a.vBias;
    }
    const double divisor = scaleConstant(Scale::SqrtDk, dh) * 1.0;
    Matrix concat(1, d);
    for (int h = 0; h < heads; ++h) {
        HeadActivations &ha = la.heads[std::size_t(h)];
        const Matrix qh = q.middleCols(h * dh, dh);
        const Eigen::Index old = ha.q.rows();
        appendRow(ha.q, qh);
        if (selfAttention) {
            appendRow(ha.k, k.middleCols(h * dh, dh));
            appendRow(ha.v, v.middleCols(h * dh, dh));
        }
        const Eigen::Index keys = ha.k.rows();
        const Matrix scoreRow = similarity(Similarity::Dot, qh, ha.k); // 1 by keys
        const Matrix scaledRow = scoreRow / divisor;
        const Matrix weightRow = maskedSoftmax(scaledRow, BoolMatrix::Constant(1, keys, false), MaskStage::BeforeSoftmax);
        // The kept rows' scores against the new key (shown on the maps,
        // blocked for them: weight 0). The cross-attention's keys do not grow.
        ha.scores.conservativeResize(old + 1, keys);
        ha.scaled.conservativeResize(old + 1, keys);
        ha.weights.conservativeResize(old + 1, keys);
        if (selfAttention && old > 0) {
            const Matrix newColumn = similarity(Similarity::Dot, ha.q.topRows(old), ha.k.bottomRows(1)); // old by 1
            ha.scores.block(0, keys - 1, old, 1) = newColumn;
            ha.scaled.block(0, keys - 1, old, 1) = newColumn / divisor;
            ha.weights.block(0, keys - 1, old, 1).setZero();
        }
        ha.scores.row(old) = scoreRow;
        ha.scaled.row(old) = scaledRow;
        ha.weights.row(old) = weightRow;
        const Matrix out = weightRow * ha.v; // 1 by d_h
        appendRow(ha.output, out);
        concat.middleCols(h * dh, dh) = out;
    }
    Matrix o = product(concat, a.out);
    o.rowwise() += a.outBias;
    return o;
}

} // namespace

Result<Seq2SeqTrace> extendSeq2Seq(const BartModel &model, const Seq2SeqTrace &previous, int next, int topK)
{
    const BartConfig &c = model.config;
    const int m = int(previous.targetIds.size());
    auto heads = [](const std::vector<LayerActivations> &ls, int h) {
        for (const LayerActivations &l : ls)
            if (int(l.heads.size()) != h)
                return false;
        return true;
    };
    if (previous.encoder.size() != model.encoder.size() || previous.decoderSelf.size() != model.decoder.size()
        || previous.cross.size() != model.decoder.size() || m == 0 || !heads(previous.decoderSelf, c.decoderHeads)
        || !heads(previous.cross, c.decoderHeads))
        return Problem{"trace", "the trace is not of this model"};
    if (next < 0 || next >= c.vocabSize)
        return Problem{"text", "the translation: token " + std::to_string(m + 1) + " has id " + std::to_string(next)
                                   + ", outside the vocabulary of " + std::to_string(c.vocabSize)};
    if (m + 1 > c.maxPositions)
        return Problem{"text", "the translation is " + std::to_string(m + 1) + " tokens long; " + model.name.toStdString()
                                   + " reads at most max_position_embeddings = " + std::to_string(c.maxPositions) + " tokens"};
    const double scale = c.scaleEmbedding ? std::sqrt(double(c.d)) : 1.0;
    Seq2SeqTrace t = previous;
    t.targetIds.push_back(next);
    t.reused = m;
    Matrix y = model.shared.row(next) * scale + model.decoderPositions.row(m + 2); // 1 by d
    y = layerNorm(y, model.decoderLnWeight, model.decoderLnBias, c.epsilon);
    for (std::size_t l = 0; l < model.decoder.size(); ++l) {
        const BartLayer &L = model.decoder[l];
        LayerActivations &self = t.decoderSelf[l], &cross = t.cross[l];
        appendRow(self.input, y);
        appendRow(self.normed, y);
        const Matrix a = layerNorm(y + attendRow(L.self, y, c.decoderHeads, true, self), L.selfLnWeight, L.selfLnBias, c.epsilon);
        appendRow(cross.input, a);
        appendRow(cross.normed, a);
        const Matrix b = layerNorm(a + attendRow(L.cross, a, c.decoderHeads, false, cross), L.crossLnWeight, L.crossLnBias, c.epsilon);
        y = layerNorm(b + ffn(L, b, c.geluTanh), L.finalLnWeight, L.finalLnBias, c.epsilon);
        if (!y.allFinite())
            return Problem{model.name.toStdString(), "decoder layer " + std::to_string(l + 1)
                                                         + ": the numbers overflow (the weights are too large for double precision)"};
    }
    t.logits = model.unembedding() * y.transpose() + model.finalLogitsBias.transpose();
    if (!t.logits.allFinite())
        return Problem{model.name.toStdString(), "the logits: the numbers overflow (the weights are too large for double precision)"};
    t.next = topPredictions(t.logits, topK, [&model](int id) { return model.tokenizer.bytes(id); });
    return t;
}

CacheWork seq2seqCacheWork(int cached, int targetRows, int sourceTokens)
{
    const int rows = std::max(0, targetRows), c = std::clamp(cached, 0, rows);
    const std::int64_t n = std::max(0, sourceTokens);
    const CacheWork self = cacheWork(c, rows);
    return {self.withCache + std::int64_t(rows - c) * n, self.withoutCache + std::int64_t(rows) * n};
}

GenerationStep chooseNextSeq2Seq(const BartModel &model, const Seq2SeqTrace &t, const SamplingSettings &s, Rng &rng)
{
    const int written = int(t.targetIds.size()) - 1; // decoder_start is not written
    GenerationStep st;
    if (written == 0 && model.config.forcedBos >= 0) {
        st.id = model.config.forcedBos;
        st.p = 1.0;
        const Eigen::VectorXd shifted = (t.logits.array() - t.logits.maxCoeff()).exp().matrix();
        st.raw = shifted(st.id) / shifted.sum();
        for (const Prediction &p : t.next)
            st.top.push_back({p.id, p.id == st.id ? 1.0 : 0.0, p.p});
    } else {
        st = chooseFromLogits(t.logits, t.next, s, rng);
    }
    st.position = written;
    if (st.p <= 0)
        return st;
    st.text = model.tokenizer.bytes(st.id);
    st.reused = t.reused;
    const CacheWork work = seq2seqCacheWork(t.reused, int(t.targetIds.size()), int(t.sourceIds.size()));
    st.cachedCells = work.withCache;
    st.uncachedCells = work.withoutCache;
    return st;
}

Result<Seq2SeqGeneration> generateSeq2Seq(const BartModel &model, const QString &text, const SamplingSettings &s,
                                          const std::atomic<bool> *cancel)
{
    if (auto p = validateSampling(s))
        return *p;
    const BartConfig &c = model.config;
    auto first = runSeq2Seq(model, sourceIds(model, text), {c.decoderStart}, 5);
    if (!first.ok())
        return *first.problem();
    Seq2SeqGeneration g;
    g.trace = std::move(first.value());
    Rng rng(s.seed);
    for (int step = 0; step < s.steps; ++step) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            g.stopped = "cancelled";
            break;
        }
        if (step > 0) {
            auto t = extendSeq2Seq(model, g.trace, g.steps.back().id, 5);
            if (!t.ok())
                return *t.problem();
            g.trace = std::move(t.value());
        }
        GenerationStep st = chooseNextSeq2Seq(model, g.trace, s, rng);
        if (st.p <= 0)
            return Problem{"logits", "the model gave no token a probability"};
        g.steps.push_back(std::move(st));
        if (g.steps.back().id == c.eos) {
            g.finished = true;
            break;
        }
        if (int(g.trace.targetIds.size()) + 1 > c.maxPositions) {
            g.stopped = "the translation reached max_position_embeddings = " + std::to_string(c.maxPositions) + " tokens";
            break;
        }
    }
    return g;
}

Result<Translation> translate(const BartModel &model, const QString &text, int maxSteps)
{
    const BartConfig &c = model.config;
    const std::vector<int> source = sourceIds(model, text);
    std::vector<int> target{c.decoderStart};
    Translation out;
    const int steps = std::min(maxSteps, c.maxPositions - 1);
    for (int s = 0; s < steps; ++s) {
        auto t = runSeq2Seq(model, source, target, 5);
        if (!t.ok())
            return *t.problem();
        int next = t.value().next.front().id; // greedy: the largest logit, the lower id on a tie
        if (s == 0 && c.forcedBos >= 0)
            next = c.forcedBos;
        out.trace = std::move(t.value());
        target.push_back(next);
        out.ids.push_back(next);
        if (next == c.eos) {
            out.finished = true;
            break;
        }
    }
    // The trace over every token read, the last one generated included.
    auto last = runSeq2Seq(model, source, target, 5);
    if (!last.ok())
        return *last.problem();
    out.trace = std::move(last.value());
    return out;
}

} // namespace attn
