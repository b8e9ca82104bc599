#include "bert.h"

#include "attention.h"
#include "gpt2_ops.h"
#include "modelfile.h"
#include "numbers.h"
#include "tensorreader.h"

#include <QDir>
#include <QFileInfo>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace attn {

using gpt2ops::gelu;
using gpt2ops::layerNorm;
using gpt2ops::product;

Result<BertConfig> bertConfigFromJson(const QByteArray &json, const QString &fileName)
{
    auto parsed = ConfigReader::parse(json, fileName);
    if (!parsed.ok())
        return *parsed.problem();
    ConfigReader &r = parsed.value();
    const QString type = r.object.value(QLatin1String("model_type")).toString();
    if (type != QLatin1String("bert"))
        return Problem{r.file, "model_type is " + quotedName(type.toStdString()) + ", not \"bert\""};
    BertConfig c;
    c.vocabSize = r.integer("vocab_size", 1, kMaxVocabulary);
    c.hidden = r.integer("hidden_size", 1, kMaxModelWidth);
    c.nLayer = r.integer("num_hidden_layers", 1, kMaxModelLayers);
    c.nHead = r.integer("num_attention_heads", 1, kMaxHeads);
    c.intermediate = r.integer("intermediate_size", 1, 4 * kMaxModelWidth, r.problem ? 0 : 4 * c.hidden);
    c.maxPositions = r.integer("max_position_embeddings", 1, kMaxModelPositions);
    c.typeVocabSize = r.integer("type_vocab_size", 1, 1024, 2);
    c.epsilon = r.epsilon("layer_norm_eps", c.epsilon);
    c.geluTanh = r.geluTanh("hidden_act", c.geluTanh);
    r.oneOf("position_embedding_type", {QStringLiteral("absolute")}, QStringLiteral("absolute"));
    if (r.problem)
        return *r.problem;
    if (c.hidden % c.nHead != 0)
        return Problem{r.file, "hidden_size " + std::to_string(c.hidden) + " is not a multiple of num_attention_heads "
                                   + std::to_string(c.nHead)};
    return c;
}

double bertParameters(const BertConfig &c)
{
    const double d = c.hidden, I = c.intermediate, V = c.vocabSize;
    const double layer = 4 * (d * d + d) + 2 * d + d * I + I + I * d + d + 2 * d;
    const double embeddings = (V + c.maxPositions + c.typeVocabSize) * d + 2 * d;
    const double head = d * d + d + 2 * d + V;  // the masked-word head; the decoder tied to `word`
    return embeddings + c.nLayer * layer + head;
}

namespace {

Gpt2Config traceShape(const BertConfig &c)
{
    Gpt2Config g;
    g.nLayer = c.nLayer;
    g.nHead = c.nHead;
    g.nEmbd = c.hidden;
    g.nPositions = c.maxPositions;
    g.vocabSize = c.vocabSize;
    return g;
}

std::optional<Problem> checkBudget(const BertConfig &c, const std::string &place)
{
    return checkParameterBudget(bertParameters(c), place);
}

} // namespace

Result<BertModel> bertWeightsFromSafeTensors(const SafeTensors &file, const BertConfig &c, const LoadControl &control)
{
    TensorReader r{file, file.displayName().toStdString()};
    r.prefixes = {"bert.", ""};
    if (auto p = checkBudget(c, r.fileName))
        return *p;
    r.control = &control;
    r.total = bertParameters(c);
    if (auto p = r.checkLayerIndices("encoder.layer.", c.nLayer, "num_hidden_layers"))
        return *p;
    const std::int64_t d = c.hidden, V = c.vocabSize, I = c.intermediate;
    const std::string nd = "config.json's hidden_size " + std::to_string(d);
    BertModel m;
    m.config = c;
    auto mat = [&](const std::string &n, std::vector<std::int64_t> shape, const std::string &why, Matrix &into) {
        if (auto x = r.get(n, shape, why))
            into = std::move(*x);
    };
    auto vec = [&](const std::string &n, std::int64_t size, const std::string &why, Eigen::RowVectorXd &into) {
        if (auto x = r.vec(n, size, why))
            into = std::move(*x);
    };
    // nn.Linear keeps out by in; the forward multiplies x (n by in) by in by out.
    auto linear = [&](const std::string &n, std::int64_t out, std::int64_t in, const std::string &why, Matrix &w,
                      Eigen::RowVectorXd &b) {
        Matrix t;
        mat(n + ".weight", {out, in}, why, t);
        w = t.transpose();
        vec(n + ".bias", out, why, b);
    };
    mat("embeddings.word_embeddings.weight", {V, d}, "config.json's vocab_size " + std::to_string(V) + " and " + nd, m.word);
    mat("embeddings.position_embeddings.weight", {c.maxPositions, d},
        "config.json's max_position_embeddings " + std::to_string(c.maxPositions) + " and " + nd, m.position);
    mat("embeddings.token_type_embeddings.weight", {c.typeVocabSize, d},
        "config.json's type_vocab_size " + std::to_string(c.typeVocabSize) + " and " + nd, m.tokenType);
    vec("embeddings.LayerNorm.weight", d, nd, m.embLnWeight);
    vec("embeddings.LayerNorm.bias", d, nd, m.embLnBias);
    for (int l = 0; l < c.nLayer && !r.problem; ++l) {
        const std::string p = "encoder.layer." + std::to_string(l) + ".";
        const std::string ni = nd + " and intermediate_size " + std::to_string(I);
        BertLayer L;
        linear(p + "attention.self.query", d, d, nd, L.query, L.queryBias);
        linear(p + "attention.self.key", d, d, nd, L.key, L.keyBias);
        linear(p + "attention.self.value", d, d, nd, L.value, L.valueBias);
        linear(p + "attention.output.dense", d, d, nd, L.attnOut, L.attnOutBias);
        vec(p + "attention.output.LayerNorm.weight", d, nd, L.attnLnWeight);
        vec(p + "attention.output.LayerNorm.bias", d, nd, L.attnLnBias);
        linear(p + "intermediate.dense", I, d, ni, L.inter, L.interBias);
        linear(p + "output.dense", d, I, ni, L.out, L.outBias);
        vec(p + "output.LayerNorm.weight", d, nd, L.outLnWeight);
        vec(p + "output.LayerNorm.bias", d, nd, L.outLnBias);
        m.layers.push_back(std::move(L));
    }
    if (r.problem)
        return *r.problem;
    // The masked-word head, when the checkpoint has one (BertForMaskedLM;
    // bert-base-uncased's file has it beside the pooler, which is not read).
    TensorReader head{file, r.fileName};
    head.prefixes = {""};
    if (head.find("cls.predictions.transform.dense.weight")) {
        head.control = &control;
        head.total = r.total;
        head.parameters = r.parameters;
        auto hmat = [&](const std::string &n, std::vector<std::int64_t> shape, const std::string &why, Matrix &into) {
            if (auto x = head.get(n, shape, why))
                into = std::move(*x);
        };
        Matrix t;
        hmat("cls.predictions.transform.dense.weight", {d, d}, nd, t);
        m.transform = t.transpose();
        if (auto x = head.vec("cls.predictions.transform.dense.bias", d, nd))
            m.transformBias = std::move(*x);
        if (auto x = head.vec("cls.predictions.transform.LayerNorm.weight", d, nd))
            m.transformLnWeight = std::move(*x);
        if (auto x = head.vec("cls.predictions.transform.LayerNorm.bias", d, nd))
            m.transformLnBias = std::move(*x);
        // Tied to the word embeddings unless the file keeps its own copy.
        if (head.find("cls.predictions.decoder.weight"))
            hmat("cls.predictions.decoder.weight", {V, d}, "config.json's vocab_size and hidden_size", m.decoder);
        const char *bias = head.find("cls.predictions.bias") ? "cls.predictions.bias" : "cls.predictions.decoder.bias";
        if (auto x = head.vec(bias, V, "config.json's vocab_size " + std::to_string(V)))
            m.decoderBias = std::move(*x);
        if (head.problem)
            return *head.problem;
        if (m.decoder.size() && m.decoder == m.word)
            m.decoder.resize(0, 0); // a tied copy: one matrix is enough
        m.hasMaskedLm = true;
        r.parameters = head.parameters;
        r.dtypes.insert(head.dtypes.begin(), head.dtypes.end());
    }
    m.parameters = r.parameters;
    m.dtype = r.dtypes.size() == 1 ? *r.dtypes.begin() : "mixed";
    return m;
}

namespace {

EncoderOrProblem loadFrom(const QString &folder, const QString &shown, const LoadControl &control)
{
    auto cancelled = [&] { return Problem{shown.toStdString(), kLoadCancelled}; };
    if (!QFileInfo(folder).isDir())
        return Problem{shown.toStdString(), "not a folder (an encoder is a folder of config.json, model.safetensors "
                                            "and vocab.txt)"};
    const QDir dir(folder);
    auto path = [&](const char *f) { return dir.filePath(QLatin1String(f)); };
    auto name = [&](const char *f) { return shown + QLatin1Char('/') + QLatin1String(f); };
    control.report(0);
    const auto configText = readRegularFile(path("config.json"), name("config.json").toStdString(), kMaxConfigBytes, "config.json");
    if (!configText.ok())
        return *configText.problem();
    const auto config = bertConfigFromJson(configText.value(), name("config.json"));
    if (!config.ok())
        return *config.problem();
    if (auto p = checkBudget(config.value(), name("config.json").toStdString()))
        return *p;
    bool lower = true;
    const QString tokConfig = path("tokenizer_config.json");
    if (QFileInfo(tokConfig).exists() || QFileInfo(tokConfig).isSymLink()) {
        const auto text = readRegularFile(tokConfig, name("tokenizer_config.json").toStdString(), kMaxConfigBytes,
                                          "tokenizer_config.json");
        if (!text.ok())
            return *text.problem();
        auto parsed = ConfigReader::parse(text.value(), name("tokenizer_config.json"));
        if (!parsed.ok())
            return *parsed.problem();
        lower = parsed.value().boolean("do_lower_case", true);
        if (parsed.value().problem)
            return *parsed.value().problem;
    }
    const auto vocabText = readRegularFile(path("vocab.txt"), name("vocab.txt").toStdString(), kMaxTokenizerFileBytes,
                                           "vocab.txt");
    if (!vocabText.ok())
        return *vocabText.problem();
    auto tokenizer = WordPieceTokenizer::fromData(vocabText.value(), lower, name("vocab.txt"));
    if (!tokenizer.ok())
        return *tokenizer.problem();
    if (tokenizer.value().size() > config.value().vocabSize)
        return Problem{name("vocab.txt").toStdString(),
                       "holds " + std::to_string(tokenizer.value().size()) + " tokens, but config.json says vocab_size "
                           + std::to_string(config.value().vocabSize)};
    if (control.cancelled())
        return cancelled();
    const auto file = SafeTensors::open(path("model.safetensors"), name("model.safetensors"));
    if (!file.ok())
        return *file.problem();
    LoadControl weightsControl;
    weightsControl.cancel = control.cancel;
    if (control.progress)
        weightsControl.progress = [&control](double f) { control.report(0.05 + 0.9 * f); };
    auto weights = bertWeightsFromSafeTensors(file.value(), config.value(), weightsControl);
    if (!weights.ok())
        return weights.problem()->message == kLoadCancelled ? cancelled() : *weights.problem();
    auto model = std::make_shared<BertModel>(std::move(weights.value()));
    model->tokenizer = std::move(tokenizer.value());
    model->name = QFileInfo(folder).fileName();
    model->folder = folder;
    control.report(1);
    return std::shared_ptr<const BertModel>(std::move(model));
}

} // namespace

EncoderOrProblem loadEncoder(const QString &folder, const LoadControl &control)
{
    return loadFrom(folder, folder, control);
}

EncoderOrProblem loadBuiltinEncoder(const LoadControl &control)
{
    return loadFrom(QString::fromLatin1(kBuiltinEncoderFolder), QStringLiteral("tiny-encoder"), control);
}

Result<QString> modelTypeOf(const QString &folder)
{
    const QString path = QDir(folder).filePath(QStringLiteral("config.json"));
    const QString shown = folder + QStringLiteral("/config.json");
    const auto text = readRegularFile(path, shown.toStdString(), kMaxConfigBytes, "config.json");
    if (!text.ok())
        return *text.problem();
    auto parsed = ConfigReader::parse(text.value(), shown);
    if (!parsed.ok())
        return *parsed.problem();
    return parsed.value().object.value(QLatin1String("model_type")).toString();
}

Result<EncoderTrace> runEncoder(const BertModel &model, const QString &text, int topK)
{
    return runEncoderOnIds(model, model.tokenizer.encode(text), topK);
}

Result<EncoderTrace> runEncoderOnIds(const BertModel &model, const std::vector<int> &ids, int topK)
{
    const BertConfig &c = model.config;
    const int n = int(ids.size());
    if (n == 0)
        return Problem{"text", "the text has no tokens"};
    if (n > c.maxPositions)
        return Problem{"text", "the text is " + std::to_string(n) + " tokens long with [CLS] and [SEP]; "
                                   + model.name.toStdString() + " reads at most max_position_embeddings = "
                                   + std::to_string(c.maxPositions) + " tokens"};
    const Gpt2Config shape = traceShape(c);
    if (const double cells = modelTraceCells(shape, n); cells > kMaxModelTraceCells)
        return Problem{"text", "the text is " + std::to_string(n) + " tokens long; its trace would hold "
                                   + groupedNumber(cells) + " numbers, more than the limit of "
                                   + groupedNumber(kMaxModelTraceCells) + "; " + model.name.toStdString()
                                   + " traces at most " + std::to_string(maxTracedTokens(shape)) + " tokens"};
    for (int i = 0; i < n; ++i)
        if (ids[std::size_t(i)] < 0 || ids[std::size_t(i)] >= c.vocabSize)
            return Problem{"text", "token " + std::to_string(i + 1) + " has id " + std::to_string(ids[std::size_t(i)])
                                       + ", outside the vocabulary of " + std::to_string(c.vocabSize)};
    const int H = c.nHead, dh = c.headDim();
    const std::string modelName = model.name.toStdString();
    auto notFinite = [&](const std::string &where) {
        return Problem{modelName, where + ": the numbers overflow (the weights are too large for double precision)"};
    };
    EncoderTrace t;
    t.ids = ids;
    for (int id : ids)
        t.pieces.push_back(model.tokenizer.piece(id));

    Matrix x(n, c.hidden); // n by d
    for (int i = 0; i < n; ++i)
        x.row(i) = model.word.row(ids[std::size_t(i)]) + model.position.row(i) + model.tokenType.row(0);
    x = layerNorm(x, model.embLnWeight, model.embLnBias, c.epsilon);
    if (!x.allFinite())
        return notFinite("the embeddings");
    const BoolMatrix open = BoolMatrix::Constant(n, n, false); // no key blocked: both ways
    const double divisor = scaleConstant(Scale::SqrtDk, dh) * 1.0;
    for (std::size_t l = 0; l < model.layers.size(); ++l) {
        const BertLayer &L = model.layers[l];
        LayerActivations la;
        la.input = x;
        la.normed = x;
        Matrix q = product(x, L.query), k = product(x, L.key), v = product(x, L.value); // n by d
        q.rowwise() += L.queryBias;
        k.rowwise() += L.keyBias;
        v.rowwise() += L.valueBias;
        Matrix concat(n, c.hidden);
        for (int h = 0; h < H; ++h) {
            HeadActivations ha;
            ha.q = q.middleCols(h * dh, dh);
            ha.k = k.middleCols(h * dh, dh);
            ha.v = v.middleCols(h * dh, dh);
            ha.scores = similarity(Similarity::Dot, ha.q, ha.k);
            ha.scaled = ha.scores / divisor;
            ha.weights = maskedSoftmax(ha.scaled, open, MaskStage::BeforeSoftmax);
            ha.output = ha.weights * ha.v;
            if (!ha.scores.allFinite() || !ha.weights.allFinite() || !ha.output.allFinite())
                return notFinite("layer " + std::to_string(l + 1) + ", head " + std::to_string(h + 1));
            concat.middleCols(h * dh, dh) = ha.output;
            la.heads.push_back(std::move(ha));
        }
        Matrix attn = product(concat, L.attnOut);
        attn.rowwise() += L.attnOutBias;
        const Matrix a = layerNorm(x + attn, L.attnLnWeight, L.attnLnBias, c.epsilon);
        Matrix hidden = product(a, L.inter);
        hidden.rowwise() += L.interBias;
        Matrix out = product(gelu(hidden, c.geluTanh), L.out);
        out.rowwise() += L.outBias;
        x = layerNorm(a + out, L.outLnWeight, L.outLnBias, c.epsilon);
        if (!x.allFinite())
            return notFinite("layer " + std::to_string(l + 1));
        t.layers.push_back(std::move(la));
    }
    t.final = x;
    if (!model.hasMaskedLm || model.tokenizer.maskId() < 0)
        return t;
    for (int i = 0; i < n; ++i) {
        if (ids[std::size_t(i)] != model.tokenizer.maskId())
            continue;
        Matrix tr = product(x.row(i), model.transform);  // 1 by d
        tr.rowwise() += model.transformBias;
        tr = layerNorm(gelu(tr, c.geluTanh), model.transformLnWeight, model.transformLnBias, c.epsilon);
        const Eigen::VectorXd logits = model.unembedding() * tr.row(0).transpose() + model.decoderBias.transpose(); // vocab
        if (!logits.allFinite())
            return notFinite("the masked word at position " + std::to_string(i + 1));
        MaskFill f;
        f.position = i;
        f.top = topPredictions(logits, topK, [&model](int id) { return model.tokenizer.piece(id); });
        t.fills.push_back(std::move(f));
    }
    return t;
}

} // namespace attn
