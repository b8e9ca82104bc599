#include "savemodel.h"

#include "atomicwrite.h"
#include "grammar.h"
#include "modelfile.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace attn {

Gpt2Model rescaledQueries(const Gpt2Model &model, double divisor)
{
    Gpt2Model m = model;
    const int d = m.config.nEmbd;
    const double factor = std::sqrt(double(m.config.headDim())) / divisor;
    if (factor != 1.0)
        for (Gpt2Layer &L : m.layers) {
            L.attnWeight.leftCols(d) *= factor;
            L.attnBias.head(d) *= factor;
        }
    return m;
}

std::vector<TensorToWrite> gpt2Tensors(const Gpt2Model &model, double divisor)
{
    Gpt2Model m = rescaledQueries(model, divisor);
    std::vector<TensorToWrite> out;
    for (const ParameterRef &p : parameterRefs(m)) {
        TensorToWrite t;
        t.name = p.name;
        t.dtype = DType::F64;
        t.shape = p.shape;
        t.values.resize(std::size_t(p.size));
        if (p.shape.size() == 2) {
            // Column-major in memory, row-major in the file.
            const Eigen::Map<const Matrix> x(p.data, Eigen::Index(p.shape[0]), Eigen::Index(p.shape[1]));
            for (Eigen::Index i = 0; i < x.rows(); ++i)
                for (Eigen::Index j = 0; j < x.cols(); ++j)
                    t.values[std::size_t(i * x.cols() + j)] = x(i, j);
        } else {
            std::copy(p.data, p.data + p.size, t.values.begin());
        }
        out.push_back(std::move(t));
    }
    return out;
}

Result<Gpt2Model> readableTrainedModel(const Gpt2Model &model, const TrainSettings &settings, const QString &name)
{
    Gpt2Model m = rescaledQueries(model, trainDivisor(model.config, trainOptions(settings)));
    const TokenizerFiles files = taskTokenizerFiles(settings.task, settings.vocabulary);
    auto tokenizer = BpeTokenizer::fromData(files.vocabJson, files.mergesText, QStringLiteral("vocab.json"),
                                            QStringLiteral("merges.txt"));
    if (!tokenizer.ok())
        return *tokenizer.problem();
    m.tokenizer = std::move(tokenizer.value());
    m.name = name;
    m.dtype = "F64";
    m.parameters = std::int64_t(modelParameters(m.config));
    return m;
}

QByteArray gpt2ConfigJson(const Gpt2Config &c)
{
    QJsonObject o;
    o.insert(QStringLiteral("model_type"), QStringLiteral("gpt2"));
    o.insert(QStringLiteral("architectures"), QJsonArray{QStringLiteral("GPT2LMHeadModel")});
    o.insert(QStringLiteral("n_layer"), c.nLayer);
    o.insert(QStringLiteral("n_head"), c.nHead);
    o.insert(QStringLiteral("n_embd"), c.nEmbd);
    o.insert(QStringLiteral("n_positions"), c.nPositions);
    o.insert(QStringLiteral("n_ctx"), c.nPositions);
    o.insert(QStringLiteral("n_inner"), c.nInner);
    o.insert(QStringLiteral("vocab_size"), c.vocabSize);
    o.insert(QStringLiteral("layer_norm_epsilon"), c.epsilon);
    o.insert(QStringLiteral("activation_function"), c.geluTanh ? QStringLiteral("gelu_new") : QStringLiteral("gelu"));
    o.insert(QStringLiteral("tie_word_embeddings"), c.tiedEmbedding);
    return QJsonDocument(o).toJson();
}

TokenizerFiles taskTokenizerFiles(TrainTask task, int vocabulary)
{
    TokenizerFiles f;
    if (task == TrainTask::Grammar) {
        auto read = [](const char *name) {
            QFile file(QStringLiteral("%1/%2").arg(QLatin1String(kBuiltinModelFolder), QLatin1String(name)));
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        };
        f.vocabJson = read("vocab.json");
        f.mergesText = read("merges.txt");
        return f;
    }
    QJsonObject vocab;
    const std::vector<unsigned char> bytes = taskBytes(task, vocabulary);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const char32_t symbol = bytesToUnicode()[bytes[i]];
        vocab.insert(QString::fromUcs4(&symbol, 1), int(i));
    }
    f.vocabJson = QJsonDocument(vocab).toJson(QJsonDocument::Compact);
    f.mergesText = "#version: 0.2\n";
    return f;
}

std::optional<Problem> saveTrainedModel(const Gpt2Model &model, const TrainSettings &settings, const QString &folder)
{
    if (!QDir().mkpath(folder))
        return Problem{QDir::toNativeSeparators(folder).toStdString(), "the folder could not be made"};
    const QDir dir(folder);
    const TokenizerFiles tok = taskTokenizerFiles(settings.task, settings.vocabulary);
    if (tok.vocabJson.isEmpty())
        return Problem{"vocab.json", "the built-in model's tokenizer could not be read"};
    std::map<std::string, std::string> metadata{{"format", "pt"},
                                                {"trained_by", "attention-lab train"},
                                                {"task", toString(settings.task)}};
    const QByteArray weights = safetensorsBytes(gpt2Tensors(model, trainOptions(settings).divisor > 0
                                                                       ? trainOptions(settings).divisor
                                                                       : std::sqrt(double(model.config.headDim()))),
                                                metadata);
    const std::pair<const char *, QByteArray> files[] = {{"config.json", gpt2ConfigJson(model.config)},
                                                        {"model.safetensors", weights},
                                                        {"vocab.json", tok.vocabJson},
                                                        {"merges.txt", tok.mergesText}};
    for (const auto &[name, bytes] : files)
        if (auto p = writeFileAtomically(dir.filePath(QLatin1String(name)), bytes))
            return p;
    return std::nullopt;
}

} // namespace attn
