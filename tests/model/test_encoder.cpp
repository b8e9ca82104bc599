// The encoder route (core/model/bert.h, wordpiece.h): BERT's tokenizer by
// hand, a random BERT-shaped model made here held to a plain second forward,
// the shipped tiny-encoder held to PyTorch's numbers (tests/model/
// encoder-reference.json, scripts/train-encoder.py), hostile folders, and
// `model fill` on the command line.

#include "attn_test.h"
#include "bert.h"
#include "cli_run.h"
#include "safetensors.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdlib>
#include <random>
#include <set>

#include <sys/stat.h>

using namespace attn;

namespace {

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

// The random models' seed: ATTN_TEST_SEED when set (to try others).
std::uint32_t testSeed()
{
    const char *env = std::getenv("ATTN_TEST_SEED");
    return env ? std::uint32_t(std::strtoul(env, nullptr, 10)) : 20261205u;
}

WordPieceTokenizer handVocab(bool lower = true)
{
    const QByteArray vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nplay\n##ing\n##s\nthe\ngame\n.\n,\n我\n你\nhello\ncafe\n!\n";
    auto t = WordPieceTokenizer::fromData(vocab, lower, QStringLiteral("vocab.txt"));
    if (!t.ok())
        qFatal("%s", t.problem()->toString().c_str());
    return t.value();
}

QStringList pieces(const WordPieceTokenizer &t, const QString &text)
{
    QStringList out;
    for (const auto &tok : t.tokenize(text))
        out << QString::fromStdString(tok.piece);
    return out;
}

// A BERT-shaped model of random weights, in BertForMaskedLM's names.
struct RandomBert {
    int layers = 2, hidden = 16, heads = 4, inter = 24, positions = 12, vocab = 20, types = 2;
    std::vector<TensorToWrite> tensors;
    std::map<std::string, std::vector<double>> values; // name → row-major

    explicit RandomBert(std::uint32_t seed, bool withHead = true, bool prefix = true)
    {
        std::mt19937 rng(seed);
        std::normal_distribution<double> n01(0, 1);
        const std::string p = prefix ? "bert." : "";
        auto add = [&](const std::string &name, std::vector<std::int64_t> shape, double scale, double mean = 0) {
            std::int64_t count = 1;
            for (auto s : shape)
                count *= s;
            std::vector<double> v(static_cast<std::size_t>(count));
            for (double &x : v)
                x = double(float(mean + scale * n01(rng)));  // values an F32 file holds exactly
            values[name] = v;
            tensors.push_back({name, DType::F32, shape, v});
        };
        add(p + "embeddings.word_embeddings.weight", {vocab, hidden}, 0.5);
        add(p + "embeddings.position_embeddings.weight", {positions, hidden}, 0.5);
        add(p + "embeddings.token_type_embeddings.weight", {types, hidden}, 0.5);
        add(p + "embeddings.LayerNorm.weight", {hidden}, 0.1, 1);
        add(p + "embeddings.LayerNorm.bias", {hidden}, 0.1);
        for (int l = 0; l < layers; ++l) {
            const std::string q = p + "encoder.layer." + std::to_string(l) + ".";
            for (const char *n : {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"}) {
                add(q + n + ".weight", {hidden, hidden}, 0.3);
                add(q + n + ".bias", {hidden}, 0.1);
            }
            add(q + "attention.output.LayerNorm.weight", {hidden}, 0.1, 1);
            add(q + "attention.output.LayerNorm.bias", {hidden}, 0.1);
            add(q + "intermediate.dense.weight", {inter, hidden}, 0.3);
            add(q + "intermediate.dense.bias", {inter}, 0.1);
            add(q + "output.dense.weight", {hidden, inter}, 0.3);
            add(q + "output.dense.bias", {hidden}, 0.1);
            add(q + "output.LayerNorm.weight", {hidden}, 0.1, 1);
            add(q + "output.LayerNorm.bias", {hidden}, 0.1);
        }
        if (withHead) {
            add("cls.predictions.transform.dense.weight", {hidden, hidden}, 0.3);
            add("cls.predictions.transform.dense.bias", {hidden}, 0.1);
            add("cls.predictions.transform.LayerNorm.weight", {hidden}, 0.1, 1);
            add("cls.predictions.transform.LayerNorm.bias", {hidden}, 0.1);
            add("cls.predictions.bias", {vocab}, 0.1);
        }
        // A checkpoint's surplus the forward does not read (bert-base-uncased has it).
        add(p + "pooler.dense.weight", {hidden, hidden}, 0.3);
    }

    QByteArray config() const
    {
        return QJsonDocument(QJsonObject{{"model_type", "bert"}, {"vocab_size", vocab}, {"hidden_size", hidden},
                                         {"num_hidden_layers", layers}, {"num_attention_heads", heads},
                                         {"intermediate_size", inter}, {"max_position_embeddings", positions},
                                         {"type_vocab_size", types}, {"layer_norm_eps", 1e-12}, {"hidden_act", "gelu"}})
            .toJson();
    }

    static QByteArray vocabText(int size)
    {
        QByteArray v = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
        for (int i = 5; i < size; ++i)
            v += "w" + QByteArray::number(i) + "\n";
        return v;
    }

    bool writeFolder(const QString &dir) const
    {
        return writeFile(dir + QStringLiteral("/config.json"), config())
            && writeFile(dir + QStringLiteral("/vocab.txt"), vocabText(vocab))
            && writeFile(dir + QStringLiteral("/model.safetensors"), safetensorsBytes(tensors, {{"format", "pt"}}));
    }
};

// The forward written out plainly, in long double, from the row-major
// values: the second implementation the C++ forward is held to.
struct PlainBert {
    const RandomBert &m;
    std::string p;
    using Vec = std::vector<long double>;
    using Mat = std::vector<Vec>;

    long double at(const std::string &name, std::size_t i, std::size_t j, std::size_t cols) const
    {
        return m.values.at(name)[i * cols + j];
    }
    Mat linear(const Mat &x, const std::string &name, int out, int in) const
    {
        Mat y(x.size(), Vec(static_cast<std::size_t>(out)));
        for (std::size_t r = 0; r < x.size(); ++r)
            for (int o = 0; o < out; ++o) {
                long double s = m.values.at(name + ".bias")[std::size_t(o)];
                for (int i = 0; i < in; ++i)
                    s += x[r][std::size_t(i)] * at(name + ".weight", std::size_t(o), std::size_t(i), std::size_t(in));
                y[r][std::size_t(o)] = s;
            }
        return y;
    }
    Mat norm(const Mat &x, const std::string &name) const
    {
        Mat y = x;
        for (std::size_t r = 0; r < x.size(); ++r) {
            long double mean = 0, var = 0;
            for (long double v : x[r])
                mean += v;
            mean /= x[r].size();
            for (long double v : x[r])
                var += (v - mean) * (v - mean);
            var /= x[r].size();
            for (std::size_t c = 0; c < x[r].size(); ++c)
                y[r][c] = (x[r][c] - mean) / std::sqrt(var + 1e-12L) * m.values.at(name + ".weight")[c]
                          + m.values.at(name + ".bias")[c];
        }
        return y;
    }
    static Mat gelu(Mat x)
    {
        for (Vec &r : x)
            for (long double &v : r)
                v = 0.5L * v * (1 + std::erf(v / std::sqrt(2.0L)));
        return x;
    }

    // Every head's weights (layer, head, query, key) and the logits of every position.
    std::pair<std::vector<std::vector<Mat>>, Mat> run(const std::vector<int> &ids) const
    {
        const int n = int(ids.size()), d = m.hidden, H = m.heads, dh = d / H;
        Mat x(static_cast<std::size_t>(n), Vec(static_cast<std::size_t>(d)));
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < d; ++c)
                x[i][c] = at(p + "embeddings.word_embeddings.weight", ids[i], c, d)
                          + at(p + "embeddings.position_embeddings.weight", i, c, d)
                          + at(p + "embeddings.token_type_embeddings.weight", 0, c, d);
        x = norm(x, p + "embeddings.LayerNorm");
        std::vector<std::vector<Mat>> weights;
        for (int l = 0; l < m.layers; ++l) {
            const std::string q = p + "encoder.layer." + std::to_string(l) + ".";
            const Mat Q = linear(x, q + "attention.self.query", d, d), K = linear(x, q + "attention.self.key", d, d),
                      V = linear(x, q + "attention.self.value", d, d);
            Mat ctx(static_cast<std::size_t>(n), Vec(static_cast<std::size_t>(d), 0));
            std::vector<Mat> layerWeights;
            for (int h = 0; h < H; ++h) {
                Mat w(static_cast<std::size_t>(n), Vec(static_cast<std::size_t>(n)));
                for (int i = 0; i < n; ++i) {
                    long double top = -1e300L, sum = 0;
                    for (int j = 0; j < n; ++j) {
                        long double s = 0;
                        for (int c = h * dh; c < (h + 1) * dh; ++c)
                            s += Q[i][c] * K[j][c];
                        w[i][j] = s / std::sqrt((long double)dh);
                        top = std::max(top, w[i][j]);
                    }
                    for (int j = 0; j < n; ++j)
                        sum += (w[i][j] = std::exp(w[i][j] - top));
                    for (int j = 0; j < n; ++j) {
                        w[i][j] /= sum;
                        for (int c = h * dh; c < (h + 1) * dh; ++c)
                            ctx[i][c] += w[i][j] * V[j][c];
                    }
                }
                layerWeights.push_back(w);
            }
            weights.push_back(layerWeights);
            Mat a = linear(ctx, q + "attention.output.dense", d, d);
            for (int i = 0; i < n; ++i)
                for (int c = 0; c < d; ++c)
                    a[i][c] += x[i][c];
            a = norm(a, q + "attention.output.LayerNorm");
            Mat o = linear(gelu(linear(a, q + "intermediate.dense", m.inter, d)), q + "output.dense", d, m.inter);
            for (int i = 0; i < n; ++i)
                for (int c = 0; c < d; ++c)
                    o[i][c] += a[i][c];
            x = norm(o, q + "output.LayerNorm");
        }
        Mat t = norm(gelu(linear(x, "cls.predictions.transform.dense", d, d)), "cls.predictions.transform.LayerNorm");
        Mat logits(static_cast<std::size_t>(n), Vec(static_cast<std::size_t>(m.vocab)));
        for (int i = 0; i < n; ++i)
            for (int v = 0; v < m.vocab; ++v) {
                long double s = m.values.at("cls.predictions.bias")[std::size_t(v)];
                for (int c = 0; c < d; ++c)
                    s += t[i][c] * at(p + "embeddings.word_embeddings.weight", v, c, d);
                logits[i][v] = s;
            }
        return {weights, logits};
    }
};

Problem problemOf(const EncoderOrProblem &r)
{
    return r.problem() ? *r.problem() : Problem{"", "(loaded)"};
}

} // namespace

class TestEncoder : public QObject {
    Q_OBJECT

private slots:
    // --- the tokenizer, by hand ------------------------------------------

    void wordPieceByHand_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        auto row = [](const char *name, const char *text, const char *pieces) {
            QTest::newRow(name) << QString::fromUtf8(text) << QString::fromUtf8(pieces).split(QLatin1Char(' '));
        };
        row("longest match first", "Playing the games.", "[CLS] play ##ing the game ##s . [SEP]");
        row("a word with no match is one [UNK]", "the gamez", "[CLS] the [UNK] [SEP]");
        row("accents stripped after lower case", "CAFÉ Héllo", "[CLS] cafe hello [SEP]");
        row("CJK read a character at a time", "我你", "[CLS] 我 你 [SEP]");
        row("an unknown CJK character", "我爱你", "[CLS] 我 [UNK] 你 [SEP]");
        row("punctuation split off", "hello,play!", "[CLS] hello , play ! [SEP]");
        row("[MASK] kept whole", "the [MASK] .", "[CLS] the [MASK] . [SEP]");
        row("[MASK] glued to words", "我[MASK]你", "[CLS] 我 [MASK] 你 [SEP]");
        row("U+FEFF and controls dropped", "\xEF\xBB\xBFplay\x07ing", "[CLS] play ##ing [SEP]");
        row("white space of every kind", "the\tgame\u3000the", "[CLS] the game the [SEP]");
        row("empty", "", "[CLS] [SEP]");
    }

    void wordPieceByHand()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        QCOMPARE(pieces(handVocab(), text), expected);
    }

    void wordPieceKeepsCaseWhenAsked()
    {
        // do_lower_case false (bert-base-cased): "Play" is not "play".
        QCOMPARE(pieces(handVocab(false), QStringLiteral("Play play")), (QStringList{"[CLS]", "[UNK]", "play", "[SEP]"}));
        // 101 characters: one [UNK] without a search (BERT's max_input_chars_per_word).
        const QString longWord = QString(QLatin1Char('a')).repeated(kMaxWordPieceChars + 1);
        QCOMPARE(pieces(handVocab(), longWord), (QStringList{"[CLS]", "[UNK]", "[SEP]"}));
    }

    void vocabularyRefusals_data()
    {
        QTest::addColumn<QByteArray>("vocab");
        QTest::addColumn<QString>("says");
        QTest::newRow("repeated") << QByteArray("[UNK]\n[CLS]\n[SEP]\nthe\nthe\n") << "line 5: the token \"the\" is given twice (first on line 4)";
        QTest::newRow("empty line") << QByteArray("[UNK]\n\n[CLS]\n[SEP]\n") << "line 2 is empty";
        QTest::newRow("no [CLS]") << QByteArray("[UNK]\n[SEP]\n") << "has no [CLS] token";
        QTest::newRow("not UTF-8") << QByteArray("[UNK]\n[CLS]\n[SEP]\n\xff\xfe\n") << "not UTF-8 text";
    }

    void vocabularyRefusals()
    {
        QFETCH(QByteArray, vocab);
        QFETCH(QString, says);
        const auto t = WordPieceTokenizer::fromData(vocab, true, QStringLiteral("DIR/vocab.txt"));
        QVERIFY(t.problem());
        QCOMPARE(QString::fromStdString(t.problem()->place), QStringLiteral("DIR/vocab.txt"));
        QVERIFY2(QString::fromStdString(t.problem()->message).startsWith(says), t.problem()->toString().c_str());
    }

    // --- a random BERT against a plain forward ---------------------------

    void randomModelEqualsPlainForward_data()
    {
        QTest::addColumn<bool>("prefix");
        QTest::newRow("BertForMaskedLM names (bert.)") << true;
        QTest::newRow("without the prefix") << false;
    }

    void randomModelEqualsPlainForward()
    {
        QFETCH(bool, prefix);
        const RandomBert m(testSeed() + (prefix ? 0 : 1), true, prefix);
        QTemporaryDir dir;
        QVERIFY(m.writeFolder(dir.path()));
        const auto loaded = loadEncoder(dir.path());
        QVERIFY2(loaded.ok(), problemOf(loaded).toString().c_str());
        const BertModel &model = *loaded.value();
        QVERIFY(model.hasMaskedLm);
        QCOMPARE(model.dtype, std::string("F32"));
        // Every tensor but the pooler's, which the forward does not read.
        QCOMPARE(model.parameters, std::int64_t(bertParameters(model.config)));

        const std::vector<int> ids{2, 7, 4, 11, 19, 4, 3};  // [CLS] w7 [MASK] w11 w19 [MASK] [SEP]
        const auto traced = runEncoderOnIds(model, ids, 3);
        QVERIFY(traced.ok());
        const EncoderTrace &t = traced.value();
        const PlainBert plain{m, prefix ? "bert." : ""};
        const auto [weights, logits] = plain.run(ids);
        double worst = 0;
        for (int l = 0; l < m.layers; ++l)
            for (int h = 0; h < m.heads; ++h)
                for (int i = 0; i < int(ids.size()); ++i) {
                    long double rowSum = 0;
                    for (int j = 0; j < int(ids.size()); ++j) {
                        const double w = t.layers[l].heads[h].weights(i, j);
                        worst = std::max(worst, double(std::fabs(w - weights[l][h][i][j])));
                        QVERIFY(w > 0); // both ways: no key is blocked, not even the later ones
                        rowSum += w;
                    }
                    QVERIFY(std::fabs(double(rowSum) - 1) < 1e-12);
                }
        QVERIFY2(worst < 1e-12, qPrintable(QString::number(worst)));
        // The two [MASK]s filled, each with the plain forward's softmax.
        QCOMPARE(int(t.fills.size()), 2);
        QCOMPARE(t.fills[0].position, 2);
        QCOMPARE(t.fills[1].position, 5);
        for (const MaskFill &f : t.fills) {
            const auto &z = logits[std::size_t(f.position)];
            const long double top = *std::max_element(z.begin(), z.end());
            long double sum = 0;
            for (long double v : z)
                sum += std::exp(v - top);
            int best = 0;
            for (int v = 1; v < m.vocab; ++v)
                if (z[v] > z[best])
                    best = v;
            QCOMPARE(f.top[0].id, best);
            for (const Prediction &p : f.top)
                QVERIFY(std::fabs(p.p - double(std::exp(z[std::size_t(p.id)] - top) / sum)) < 1e-12);
        }
    }

    void withoutTheMaskedWordHead()
    {
        // BertModel's checkpoint: the encoder alone, no fill.
        const RandomBert m(testSeed(), false, false);
        QTemporaryDir dir;
        QVERIFY(m.writeFolder(dir.path()));
        const auto loaded = loadEncoder(dir.path());
        QVERIFY(loaded.ok());
        QVERIFY(!loaded.value()->hasMaskedLm);
        const auto t = runEncoderOnIds(*loaded.value(), {2, 4, 3});
        QVERIFY(t.ok());
        QVERIFY(t.value().fills.empty());
        QCOMPARE(int(t.value().layers.size()), 2);
    }

    // --- hostile and wrong folders ----------------------------------------

    void badFolders_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("says");
        for (const char *f : {"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json"}) {
            const QString file = QLatin1String(f);
            QTest::newRow(qPrintable(file + QStringLiteral(" -> /dev/zero"))) << file << "zero" << "not a regular file (a character device)";
            QTest::newRow(qPrintable(file + QStringLiteral(" a FIFO"))) << file << "fifo" << "not a regular file (a FIFO)";
        }
        QTest::newRow("a GPT-2 config") << "config.json" << "gpt2" << "model_type is \"gpt2\", not \"bert\"";
        QTest::newRow("relative positions") << "config.json" << "relative" << "position_embedding_type must be \"absolute\"";
        QTest::newRow("a tensor missing") << "model.safetensors" << "missing"
                                          << "tensor \"encoder.layer.1.output.dense.weight\" is missing";
        QTest::newRow("a layer too many") << "model.safetensors" << "extra"
                                          << "tensor \"bert.encoder.layer.2.output.dense.bias\" belongs to layer 2, but config.json's num_hidden_layers is 2";
        QTest::newRow("a vocabulary too large") << "vocab.txt" << "large" << "holds 21 tokens, but config.json says vocab_size 20";
    }

    void badFolders()
    {
        QFETCH(QString, file);
        QFETCH(QString, kind);
        QFETCH(QString, says);
        RandomBert m(testSeed());
        QTemporaryDir dir;
        if (kind == QLatin1String("missing")) {
            m.tensors.erase(std::remove_if(m.tensors.begin(), m.tensors.end(),
                                           [](const TensorToWrite &t) { return t.name == "bert.encoder.layer.1.output.dense.weight"; }),
                            m.tensors.end());
        } else if (kind == QLatin1String("extra")) {
            m.tensors.push_back({"bert.encoder.layer.2.output.dense.bias", DType::F32, {m.hidden}, std::vector<double>(std::size_t(m.hidden), 0.0)});
        }
        QVERIFY(m.writeFolder(dir.path()));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("tokenizer_config.json")), "{\"do_lower_case\": true}"));
        const QString path = dir.filePath(file);
        if (kind == QLatin1String("zero") || kind == QLatin1String("fifo")) {
            QVERIFY(QFile::remove(path));
            if (kind == QLatin1String("zero"))
                QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
            else
                QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (kind == QLatin1String("gpt2") || kind == QLatin1String("relative")) {
            QJsonObject c = QJsonDocument::fromJson(m.config()).object();
            if (kind == QLatin1String("gpt2"))
                c.insert(QStringLiteral("model_type"), QStringLiteral("gpt2"));
            else
                c.insert(QStringLiteral("position_embedding_type"), QStringLiteral("relative_key"));
            QVERIFY(writeFile(path, QJsonDocument(c).toJson()));
        } else if (kind == QLatin1String("large")) {
            QVERIFY(writeFile(path, RandomBert::vocabText(m.vocab + 1)));
        }
        const Problem p = problemOf(loadEncoder(dir.path()));
        QCOMPARE(QString::fromStdString(p.place), dir.path() + QLatin1Char('/') + file);
        QVERIFY2(QString::fromStdString(p.message).startsWith(says), p.toString().c_str());
        // The command line says the same in one line.
        const test::CliRun r = test::runCliInProcess({"model", "fill", "--model", dir.path(), "--text", "x"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(says), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
    }

    // --- the shipped encoder against PyTorch -------------------------------

    void builtinEqualsPyTorch()
    {
        const auto loaded = loadBuiltinEncoder();
        QVERIFY2(loaded.ok(), problemOf(loaded).toString().c_str());
        const BertModel &m = *loaded.value();
        const QJsonObject ref = QJsonDocument::fromJson(readFile(test::sourceDir() + QStringLiteral("/tests/model/encoder-reference.json"))).object();
        const QJsonArray sentences = ref.value(QLatin1String("sentences")).toArray();
        QVERIFY(sentences.size() >= 5);
        double worstWeight = 0, worstLogit = 0;
        for (const QJsonValue &sv : sentences) {
            const QJsonObject s = sv.toObject();
            const QString text = s.value(QLatin1String("text")).toString();
            // The C++ tokenizer gives Python's ids.
            std::vector<int> ids;
            for (const QJsonValue &v : s.value(QLatin1String("ids")).toArray())
                ids.push_back(v.toInt());
            QCOMPARE(m.tokenizer.encode(text), ids);
            const auto traced = runEncoder(m, text, 5);
            QVERIFY(traced.ok());
            const EncoderTrace &t = traced.value();
            const QJsonArray layers = s.value(QLatin1String("weights")).toArray();
            for (int l = 0; l < layers.size(); ++l) {
                const QJsonArray heads = layers[l].toArray();
                for (int h = 0; h < heads.size(); ++h) {
                    const QJsonArray rows = heads[h].toArray();
                    for (int i = 0; i < rows.size(); ++i)
                        for (int j = 0; j < rows[i].toArray().size(); ++j)
                            worstWeight = std::max(worstWeight, std::fabs(t.layers[l].heads[h].weights(i, j) - rows[i].toArray()[j].toDouble()));
                }
            }
            const QJsonArray fills = s.value(QLatin1String("fills")).toArray();
            QCOMPARE(int(t.fills.size()), int(fills.size()));
            for (int f = 0; f < fills.size(); ++f) {
                const QJsonObject fo = fills[f].toObject();
                QCOMPARE(t.fills[f].position, fo.value(QLatin1String("position")).toInt());
                const QJsonArray top = fo.value(QLatin1String("top5")).toArray();
                for (int k = 0; k < top.size(); ++k) {
                    QCOMPARE(t.fills[f].top[k].id, top[k].toObject().value(QLatin1String("id")).toInt());
                    worstLogit = std::max(worstLogit, std::fabs(t.fills[f].top[k].p - top[k].toObject().value(QLatin1String("p")).toDouble()));
                }
            }
        }
        // The reference prints 12 significant digits.
        QVERIFY2(worstWeight < 1e-9, qPrintable(QString::number(worstWeight)));
        QVERIFY2(worstLogit < 1e-9, qPrintable(QString::number(worstLogit)));
    }

    void builtinFillsTheLessonsSentences()
    {
        const auto loaded = loadBuiltinEncoder();
        QVERIFY(loaded.ok());
        const BertModel &m = *loaded.value();
        // 我 [MASK] 你 。: a verb of the grammar, one character; the top 5 are all verbs' characters.
        const auto zh = runEncoder(m, QStringLiteral("我 [MASK] 你 。"));
        QVERIFY(zh.ok());
        QCOMPARE(int(zh.value().fills.size()), 1);
        const std::set<std::string> verbs{"打", "爱", "追", "看", "喜", "帮", "找"};
        QVERIFY2(verbs.count(zh.value().fills[0].top[0].text), zh.value().fills[0].top[0].text.c_str());
        // the cat [MASK] on the mat .: "sat", as the grammar says.
        const auto en = runEncoder(m, QStringLiteral("the cat [MASK] on the mat ."));
        QVERIFY(en.ok());
        QCOMPARE(en.value().fills[0].top[0].text, std::string("sat"));
        QVERIFY(en.value().fills[0].top[0].p > 0.5);
    }

    // The heads docs/model.md names, on the 400 sentences held out by
    // construction (tests/model/encoder-held-out.txt: drawn with a seed the
    // training never used, none equal to a training sentence): a head that
    // looks at the previous token and one that looks at the NEXT token, which
    // only a model that reads both ways can have. Each mean weight beside the
    // uniform baseline over the row's keys.
    void namedHeadsOnHeldOutSentences()
    {
        const auto loaded = loadBuiltinEncoder();
        QVERIFY(loaded.ok());
        const BertModel &m = *loaded.value();
        const QStringList lines = QString::fromUtf8(readFile(test::sourceDir() + QStringLiteral("/tests/model/encoder-held-out.txt")))
                                      .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 400);
        double previous = 0, next = 0, uniform = 0;
        int rows = 0;
        for (const QString &line : lines) {
            const auto t = runEncoder(m, line);
            QVERIFY(t.ok());
            const Matrix &prevHead = t.value().layers[1].heads[3].weights; // layer 2, head 4
            const Matrix &nextHead = t.value().layers[1].heads[1].weights; // layer 2, head 2
            const Eigen::Index n = prevHead.rows();
            for (Eigen::Index i = 1; i + 1 < n; ++i) { // the words, not [CLS] and [SEP]
                previous += prevHead(i, i - 1);
                next += nextHead(i, i + 1);
                uniform += 1.0 / double(n);
                ++rows;
            }
        }
        previous /= rows;
        next /= rows;
        uniform /= rows;
        qInfo("layer 2, head 4 on the previous token %.3f, layer 2, head 2 on the next %.3f, uniform %.3f (%d rows)",
              previous, next, uniform, rows);
        QVERIFY(previous > 3 * uniform);
        QVERIFY(next > 3 * uniform);
    }

    // --- the command line ----------------------------------------------------

    void fillOnTheCommandLine()
    {
        const test::CliRun r = test::runCliInProcess({"model", "fill", "--text", "the cat [MASK] on the mat .", "--format", "json", "--layer", "1", "--head", "2"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(j.value(QLatin1String("kind")).toString(), QStringLiteral("encoder"));
        const QJsonArray tokens = j.value(QLatin1String("tokens")).toArray();
        QCOMPARE(tokens.first().toObject().value(QLatin1String("piece")).toString(), QStringLiteral("[CLS]"));
        QCOMPARE(tokens.last().toObject().value(QLatin1String("piece")).toString(), QStringLiteral("[SEP]"));
        const QJsonObject fill = j.value(QLatin1String("fills")).toArray().first().toObject();
        QCOMPARE(fill.value(QLatin1String("position")).toInt(), 4); // 1-based: [CLS] the cat [MASK]
        QCOMPARE(fill.value(QLatin1String("top")).toArray().size(), 5);
        const QJsonArray heads = j.value(QLatin1String("heads")).toArray();
        QCOMPARE(heads.size(), 1);
        const QJsonArray rows = heads.first().toObject().value(QLatin1String("weights")).toArray();
        QCOMPARE(rows.size(), tokens.size());
        // The first row reads the last token: no causal mask.
        QVERIFY(rows.first().toArray().last().toDouble() > 0);

        const test::CliRun text = test::runCliInProcess({"model", "fill", "--text", "我 [MASK] 你 。"});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains(QStringLiteral("[MASK] at position 3:")));
        QVERIFY(text.out.contains(QStringLiteral("tokens: [CLS] 我 [MASK] 你 。 [SEP]")));

        const test::CliRun none = test::runCliInProcess({"model", "fill", "--text", "the cat sat ."});
        QCOMPARE(none.code, 0);
        QVERIFY(none.out.contains(QStringLiteral("no [MASK] in the text")));

        const test::CliRun bad = test::runCliInProcess({"model", "fill", "--text", "x", "--top", "0"});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.contains(QStringLiteral("--top: must be a whole number from 1 to 100")));
    }
};

QTEST_GUILESS_MAIN(TestEncoder)
#include "test_encoder.moc"
