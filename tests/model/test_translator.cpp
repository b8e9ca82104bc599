// The encoder-decoder route (core/model/bart.h): a random BART made here
// held to a plain second forward, the shipped tiny-translator held to
// PyTorch's numbers (tests/model/translator-reference.json, scripts/
// train-translator.py), its translations and alignment, hostile folders, and
// `model translate` on the command line.

#include "attn_test.h"
#include "bart.h"
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

std::uint32_t testSeed()
{
    const char *env = std::getenv("ATTN_TEST_SEED");
    return env ? std::uint32_t(std::strtoul(env, nullptr, 10)) : 20261205u;
}

QString translatorDir()
{
    return test::sourceDir() + QStringLiteral("/resources/models/tiny-translator");
}

using Vec = std::vector<long double>;
using Mat = std::vector<Vec>;

// A BART of random weights in BartForConditionalGeneration's names, and its
// forward written out plainly in long double: the second implementation.
struct RandomBart {
    int d = 16, heads = 4, ffnDim = 24, layers = 2, positions = 12, vocab;
    std::vector<TensorToWrite> tensors;
    std::map<std::string, std::vector<double>> values;

    explicit RandomBart(std::uint32_t seed, int vocabSize) : vocab(vocabSize)
    {
        std::mt19937 rng(seed);
        std::normal_distribution<double> n01(0, 1);
        auto add = [&](const std::string &name, std::vector<std::int64_t> shape, double scale, double mean = 0) {
            std::int64_t count = 1;
            for (auto s : shape)
                count *= s;
            std::vector<double> v(static_cast<std::size_t>(count));
            for (double &x : v)
                x = double(float(mean + scale * n01(rng)));
            values[name] = v;
            tensors.push_back({name, DType::F32, shape, v});
        };
        add("model.shared.weight", {vocab, d}, 0.5);
        for (const char *side : {"encoder", "decoder"}) {
            const std::string s = std::string("model.") + side + ".";
            add(s + "embed_positions.weight", {positions + 2, d}, 0.5);
            add(s + "layernorm_embedding.weight", {d}, 0.1, 1);
            add(s + "layernorm_embedding.bias", {d}, 0.1);
            for (int l = 0; l < layers; ++l) {
                const std::string p = s + "layers." + std::to_string(l) + ".";
                std::vector<std::string> attns{"self_attn"};
                if (std::string(side) == "decoder")
                    attns.push_back("encoder_attn");
                for (const std::string &a : attns) {
                    for (const char *proj : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
                        add(p + a + "." + proj + ".weight", {d, d}, 0.3);
                        add(p + a + "." + proj + ".bias", {d}, 0.1);
                    }
                    add(p + a + "_layer_norm.weight", {d}, 0.1, 1);
                    add(p + a + "_layer_norm.bias", {d}, 0.1);
                }
                add(p + "fc1.weight", {ffnDim, d}, 0.3);
                add(p + "fc1.bias", {ffnDim}, 0.1);
                add(p + "fc2.weight", {d, ffnDim}, 0.3);
                add(p + "fc2.bias", {d}, 0.1);
                add(p + "final_layer_norm.weight", {d}, 0.1, 1);
                add(p + "final_layer_norm.bias", {d}, 0.1);
            }
        }
        add("final_logits_bias", {1, vocab}, 0.1);
    }

    QByteArray config() const
    {
        return QJsonDocument(QJsonObject{{"model_type", "bart"}, {"vocab_size", vocab}, {"d_model", d},
                                         {"encoder_layers", layers}, {"decoder_layers", layers},
                                         {"encoder_attention_heads", heads}, {"decoder_attention_heads", heads},
                                         {"encoder_ffn_dim", ffnDim}, {"decoder_ffn_dim", ffnDim},
                                         {"max_position_embeddings", positions}, {"activation_function", "gelu"}})
            .toJson();
    }

    // The shipped translator's tokenizer: its vocabulary size is ours.
    bool writeFolder(const QString &dir) const
    {
        return writeFile(dir + QStringLiteral("/config.json"), config())
            && QFile::copy(translatorDir() + QStringLiteral("/vocab.json"), dir + QStringLiteral("/vocab.json"))
            && QFile::copy(translatorDir() + QStringLiteral("/merges.txt"), dir + QStringLiteral("/merges.txt"))
            && writeFile(dir + QStringLiteral("/model.safetensors"), safetensorsBytes(tensors, {{"format", "pt"}}));
    }

    const std::vector<double> &v(const std::string &n) const { return values.at(n); }

    Mat linear(const Mat &x, const std::string &name, int out, int in) const
    {
        Mat y(x.size(), Vec(static_cast<std::size_t>(out)));
        for (std::size_t r = 0; r < x.size(); ++r)
            for (int o = 0; o < out; ++o) {
                long double s = v(name + ".bias")[std::size_t(o)];
                for (int i = 0; i < in; ++i)
                    s += x[r][std::size_t(i)] * v(name + ".weight")[std::size_t(o * in + i)];
                y[r][std::size_t(o)] = s;
            }
        return y;
    }
    Mat norm(Mat x, const std::string &name) const
    {
        for (Vec &row : x) {
            long double mean = 0, var = 0;
            for (long double a : row)
                mean += a;
            mean /= row.size();
            for (long double a : row)
                var += (a - mean) * (a - mean);
            var /= row.size();
            for (std::size_t c = 0; c < row.size(); ++c)
                row[c] = (row[c] - mean) / std::sqrt(var + 1e-5L) * v(name + ".weight")[c] + v(name + ".bias")[c];
        }
        return x;
    }
    static Mat add(Mat a, const Mat &b)
    {
        for (std::size_t i = 0; i < a.size(); ++i)
            for (std::size_t j = 0; j < a[i].size(); ++j)
                a[i][j] += b[i][j];
        return a;
    }
    Mat ffn(const Mat &x, const std::string &p) const
    {
        Mat h = linear(x, p + "fc1", ffnDim, d);
        for (Vec &r : h)
            for (long double &a : r)
                a = 0.5L * a * (1 + std::erf(a / std::sqrt(2.0L)));
        return linear(h, p + "fc2", d, ffnDim);
    }
    // Attention with its weights per head into `weights`.
    Mat attend(const std::string &p, const Mat &x, const Mat &kv, bool causal, std::vector<Mat> &weights) const
    {
        const Mat q = linear(x, p + ".q_proj", d, d), k = linear(kv, p + ".k_proj", d, d), val = linear(kv, p + ".v_proj", d, d);
        const int dh = d / heads;
        Mat ctx(x.size(), Vec(static_cast<std::size_t>(d), 0));
        for (int h = 0; h < heads; ++h) {
            Mat w(x.size(), Vec(kv.size(), 0));
            for (std::size_t i = 0; i < x.size(); ++i) {
                long double top = -1e300L, sum = 0;
                const std::size_t open = causal ? i + 1 : kv.size();
                for (std::size_t j = 0; j < open; ++j) {
                    long double s = 0;
                    for (int c = h * dh; c < (h + 1) * dh; ++c)
                        s += q[i][c] * k[j][c];
                    w[i][j] = s / std::sqrt((long double)dh);
                    top = std::max(top, w[i][j]);
                }
                for (std::size_t j = 0; j < open; ++j)
                    sum += (w[i][j] = std::exp(w[i][j] - top));
                for (std::size_t j = 0; j < open; ++j) {
                    w[i][j] /= sum;
                    for (int c = h * dh; c < (h + 1) * dh; ++c)
                        ctx[i][c] += w[i][j] * val[j][c];
                }
            }
            weights.push_back(w);
        }
        return linear(ctx, p + ".out_proj", d, d);
    }
    Mat embed(const std::string &side, const std::vector<int> &ids) const
    {
        Mat x(ids.size(), Vec(static_cast<std::size_t>(d)));
        for (std::size_t i = 0; i < ids.size(); ++i)
            for (int c = 0; c < d; ++c)
                x[i][c] = v("model.shared.weight")[std::size_t(ids[i] * d + c)]
                          + v("model." + side + ".embed_positions.weight")[std::size_t((i + 2) * d + c)];
        return norm(x, "model." + side + ".layernorm_embedding");
    }

    struct Out {
        std::vector<std::vector<Mat>> encoder, decoder, cross; // layer, head
        Vec logits;                                            // the last position's
    };
    Out run(const std::vector<int> &src, const std::vector<int> &tgt) const
    {
        Out o;
        Mat x = embed("encoder", src);
        for (int l = 0; l < layers; ++l) {
            const std::string p = "model.encoder.layers." + std::to_string(l) + ".";
            o.encoder.emplace_back();
            const Mat a = norm(add(x, attend(p + "self_attn", x, x, false, o.encoder.back())), p + "self_attn_layer_norm");
            x = norm(add(a, ffn(a, p)), p + "final_layer_norm");
        }
        Mat y = embed("decoder", tgt);
        for (int l = 0; l < layers; ++l) {
            const std::string p = "model.decoder.layers." + std::to_string(l) + ".";
            o.decoder.emplace_back();
            o.cross.emplace_back();
            const Mat a = norm(add(y, attend(p + "self_attn", y, y, true, o.decoder.back())), p + "self_attn_layer_norm");
            const Mat b = norm(add(a, attend(p + "encoder_attn", a, x, false, o.cross.back())), p + "encoder_attn_layer_norm");
            y = norm(add(b, ffn(b, p)), p + "final_layer_norm");
        }
        o.logits.assign(static_cast<std::size_t>(vocab), 0);
        for (int t = 0; t < vocab; ++t) {
            long double s = v("final_logits_bias")[std::size_t(t)];
            for (int c = 0; c < d; ++c)
                s += y.back()[c] * v("model.shared.weight")[std::size_t(t * d + c)];
            o.logits[std::size_t(t)] = s;
        }
        return o;
    }
};

double worstOf(const std::vector<LayerActivations> &layers, const std::vector<std::vector<Mat>> &plain)
{
    double worst = 0;
    for (std::size_t l = 0; l < layers.size(); ++l)
        for (std::size_t h = 0; h < layers[l].heads.size(); ++h) {
            const Matrix &w = layers[l].heads[h].weights;
            for (Eigen::Index i = 0; i < w.rows(); ++i)
                for (Eigen::Index j = 0; j < w.cols(); ++j)
                    worst = std::max(worst, double(std::fabs(w(i, j) - plain[l][h][std::size_t(i)][std::size_t(j)])));
        }
    return worst;
}

// The largest difference between two traces' every stage of every head
// (shapes must agree: a mismatch is infinite).
double worstBetween(const std::vector<LayerActivations> &a, const std::vector<LayerActivations> &b)
{
    if (a.size() != b.size())
        return INFINITY;
    double worst = 0;
    auto diff = [&worst](const Matrix &x, const Matrix &y) {
        if (x.rows() != y.rows() || x.cols() != y.cols())
            worst = INFINITY;
        else if (x.size())
            worst = std::max(worst, (x - y).cwiseAbs().maxCoeff());
    };
    for (std::size_t l = 0; l < a.size(); ++l) {
        if (a[l].heads.size() != b[l].heads.size())
            return INFINITY;
        diff(a[l].input, b[l].input);
        diff(a[l].normed, b[l].normed);
        for (std::size_t h = 0; h < a[l].heads.size(); ++h) {
            const HeadActivations &x = a[l].heads[h], &y = b[l].heads[h];
            diff(x.q, y.q);
            diff(x.k, y.k);
            diff(x.v, y.v);
            diff(x.scores, y.scores);
            diff(x.scaled, y.scaled);
            diff(x.weights, y.weights);
            diff(x.output, y.output);
        }
    }
    return worst;
}

double worstOfJson(const std::vector<LayerActivations> &layers, const QJsonArray &ref)
{
    double worst = 0;
    for (int l = 0; l < ref.size(); ++l)
        for (int h = 0; h < ref[l].toArray().size(); ++h) {
            const QJsonArray rows = ref[l].toArray()[h].toArray();
            for (int i = 0; i < rows.size(); ++i)
                for (int j = 0; j < rows[i].toArray().size(); ++j)
                    worst = std::max(worst, std::fabs(layers[std::size_t(l)].heads[std::size_t(h)].weights(i, j)
                                                      - rows[i].toArray()[j].toDouble()));
        }
    return worst;
}

std::vector<int> ints(const QJsonValue &v)
{
    std::vector<int> out;
    for (const QJsonValue &x : v.toArray())
        out.push_back(x.toInt());
    return out;
}

} // namespace

class TestTranslator : public QObject {
    Q_OBJECT

private slots:
    void randomModelEqualsPlainForward()
    {
        const auto shipped = loadBuiltinSeq2Seq();
        QVERIFY(shipped.ok());
        const RandomBart m(testSeed(), shipped.value()->config.vocabSize);
        QTemporaryDir dir;
        QVERIFY(m.writeFolder(dir.path()));
        const auto loaded = loadSeq2Seq(dir.path());
        QVERIFY2(loaded.ok(), loaded.problem() ? loaded.problem()->toString().c_str() : "");
        const BartModel &model = *loaded.value();
        QCOMPARE(model.parameters, std::int64_t(bartParameters(model.config)));
        const std::vector<int> src{0, 7, 9, 11, 2}, tgt{2, 0, 5, 8};
        const auto t = runSeq2Seq(model, src, tgt);
        QVERIFY(t.ok());
        const RandomBart::Out plain = m.run(src, tgt);
        const double enc = worstOf(t.value().encoder, plain.encoder), dec = worstOf(t.value().decoderSelf, plain.decoder),
                     cross = worstOf(t.value().cross, plain.cross);
        QVERIFY2(enc < 1e-12 && dec < 1e-12 && cross < 1e-12,
                 qPrintable(QStringLiteral("%1 %2 %3").arg(enc).arg(dec).arg(cross)));
        // The shapes of the three kinds: n by n, m by m (causal), m by n.
        const Matrix &c = t.value().cross[0].heads[0].weights;
        QCOMPARE(c.rows(), Eigen::Index(tgt.size()));
        QCOMPARE(c.cols(), Eigen::Index(src.size()));
        QCOMPARE(t.value().decoderSelf[1].heads[2].weights(0, 1), 0.0);
        QVERIFY(t.value().encoder[1].heads[2].weights(0, 4) > 0);
        double worstLogit = 0;
        for (int i = 0; i < m.vocab; ++i)
            worstLogit = std::max(worstLogit, double(std::fabs(t.value().logits(i) - plain.logits[std::size_t(i)])));
        QVERIFY2(worstLogit < 1e-10, qPrintable(QString::number(worstLogit)));
    }

    void builtinEqualsPyTorch()
    {
        const auto loaded = loadBuiltinSeq2Seq();
        QVERIFY(loaded.ok());
        const BartModel &m = *loaded.value();
        const QJsonObject ref = QJsonDocument::fromJson(readFile(test::sourceDir() + QStringLiteral("/tests/model/translator-reference.json"))).object();
        const QJsonArray examples = ref.value(QLatin1String("examples")).toArray();
        QVERIFY(examples.size() >= 4);
        for (const QJsonValue &ev : examples) {
            const QJsonObject e = ev.toObject();
            const std::vector<int> src = ints(e.value(QLatin1String("source_ids")));
            QVERIFY(sourceIds(m, e.value(QLatin1String("source")).toString()) == src); // the C++ BPE gives Python's ids
            const auto t = runSeq2Seq(m, src, ints(e.value(QLatin1String("decoder_ids"))));
            QVERIFY(t.ok());
            QVERIFY(worstOfJson(t.value().encoder, e.value(QLatin1String("encoder")).toArray()) < 1e-9);
            QVERIFY(worstOfJson(t.value().decoderSelf, e.value(QLatin1String("decoder")).toArray()) < 1e-9);
            QVERIFY(worstOfJson(t.value().cross, e.value(QLatin1String("cross")).toArray()) < 1e-9);
            const QJsonArray logits = e.value(QLatin1String("last_logits")).toArray();
            double worst = 0;
            for (int i = 0; i < logits.size(); ++i)
                worst = std::max(worst, std::fabs(t.value().logits(i) - logits[i].toDouble()));
            QVERIFY2(worst < 1e-8, qPrintable(QString::number(worst)));
            // Greedy decoding gives PyTorch's tokens.
            const auto tr = translate(m, e.value(QLatin1String("source")).toString());
            QVERIFY(tr.ok());
            QVERIFY(tr.value().ids == ints(e.value(QLatin1String("generated_ids"))));
        }
    }

    // 我 打 你 。 -> I hit you .; and the alignment: each English word's row of
    // the last layer's cross-attention (averaged over heads) reads most the
    // Chinese word it translates, the place read out of order (a crossing).
    void translatesAndAligns_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");
        QTest::newRow("我 打 你") << QStringLiteral("我 打 你 。") << QStringLiteral("I hit you .");
        QTest::newRow("back") << QStringLiteral("I hit you .") << QStringLiteral("我 打 你 。");
        QTest::newRow("a place moves") << QStringLiteral("小明 在 家 帮助 她 。") << QStringLiteral("the boy helps her at home .");
    }

    void translatesAndAligns()
    {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        const auto loaded = loadBuiltinSeq2Seq();
        QVERIFY(loaded.ok());
        const auto tr = translate(*loaded.value(), source);
        QVERIFY(tr.ok());
        QVERIFY(tr.value().finished);
        QCOMPARE(QString::fromStdString(seq2seqText(*loaded.value(), tr.value().ids)).trimmed(), expected);
    }

    // The alignment: the last decoder layer's cross-attention, the heads
    // averaged; the row that writes an English word reads most the Chinese
    // word it translates. In the second sentence the place (在 家, before the
    // verb in Chinese) is written last in English: the alignment crosses.
    void crossAttentionAligns()
    {
        const auto loaded = loadBuiltinSeq2Seq();
        QVERIFY(loaded.ok());
        const BartModel &m = *loaded.value();
        auto check = [&](const QString &source, const std::vector<std::pair<const char *, const char *>> &pairs) {
            const auto tr = translate(m, source);
            QVERIFY(tr.ok());
            const Seq2SeqTrace &t = tr.value().trace;
            const LayerActivations &last = t.cross.back();
            Matrix mean = Matrix::Zero(last.heads[0].weights.rows(), last.heads[0].weights.cols());
            for (const HeadActivations &h : last.heads)
                mean += h.weights / double(last.heads.size());
            for (const auto &[written, read] : pairs) {
                int row = -1, col = -1;
                for (std::size_t i = 1; i < t.targetIds.size(); ++i)
                    if (QString::fromStdString(m.tokenizer.bytes(t.targetIds[i])).trimmed() == QString::fromUtf8(written))
                        row = int(i) - 1; // the row that writes token i
                for (std::size_t j = 0; j < t.sourceIds.size(); ++j)
                    if (QString::fromStdString(m.tokenizer.bytes(t.sourceIds[j])).trimmed() == QString::fromUtf8(read))
                        col = int(j);
                QVERIFY2(row >= 0 && col >= 0, written);
                Eigen::Index best = 0;
                mean.row(row).maxCoeff(&best);
                QVERIFY2(best == col, qPrintable(QStringLiteral("%1 reads %2 most, not %3").arg(QString::fromUtf8(written)).arg(best).arg(QString::fromUtf8(read))));
                QVERIFY(mean(row, col) > 0.5);
            }
        };
        check(QStringLiteral("我 打 你 。"), {{"hit", "打"}, {"you", "你"}});
        check(QStringLiteral("小明 在 家 帮助 她 。"), {{"boy", "小明"}, {"helps", "帮助"}, {"her", "她"}, {"at", "家"}});
    }

    void hostileFolders_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("says");
        for (const char *f : {"config.json", "model.safetensors", "vocab.json", "merges.txt"}) {
            QTest::newRow(qPrintable(QStringLiteral("%1 -> /dev/zero").arg(QLatin1String(f)))) << QString::fromLatin1(f) << "zero" << "not a regular file (a character device)";
            QTest::newRow(qPrintable(QStringLiteral("%1 a FIFO").arg(QLatin1String(f)))) << QString::fromLatin1(f) << "fifo" << "not a regular file (a FIFO)";
        }
        QTest::newRow("a BERT config") << "config.json" << "bert" << "model_type is \"bert\", not \"bart\"";
        QTest::newRow("a tensor missing") << "model.safetensors" << "missing" << "tensor \"model.decoder.layers.1.encoder_attn.k_proj.weight\" is missing";
    }

    void hostileFolders()
    {
        QFETCH(QString, file);
        QFETCH(QString, kind);
        QFETCH(QString, says);
        const auto shipped = loadBuiltinSeq2Seq();
        RandomBart m(testSeed(), shipped.value()->config.vocabSize);
        if (kind == QLatin1String("missing"))
            m.tensors.erase(std::remove_if(m.tensors.begin(), m.tensors.end(), [](const TensorToWrite &t) {
                                return t.name == "model.decoder.layers.1.encoder_attn.k_proj.weight";
                            }),
                            m.tensors.end());
        QTemporaryDir dir;
        QVERIFY(m.writeFolder(dir.path()));
        const QString path = dir.filePath(file);
        if (kind == QLatin1String("zero") || kind == QLatin1String("fifo")) {
            QVERIFY(QFile::remove(path));
            if (kind == QLatin1String("zero"))
                QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
            else
                QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (kind == QLatin1String("bert")) {
            QVERIFY(writeFile(path, "{\"model_type\": \"bert\"}"));
        }
        const auto r = loadSeq2Seq(dir.path());
        QVERIFY(r.problem());
        QCOMPARE(QString::fromStdString(r.problem()->place), dir.path() + QLatin1Char('/') + file);
        QVERIFY2(QString::fromStdString(r.problem()->message).startsWith(says), r.problem()->toString().c_str());
        const test::CliRun cli = test::runCliInProcess({"model", "translate", "--model", dir.path(), "--text", "x"});
        QCOMPARE(cli.code, 2);
        QVERIFY2(cli.err.contains(says), qPrintable(cli.err));
        QCOMPARE(cli.err.count(QLatin1Char('\n')), 1);
    }

    // The KV cache: each step computes only the new decoder row against the
    // cached keys and values, and every stage equals the whole forward over
    // the longer target (the kept rows' scores against the new key included).
    void cacheEqualsWholeForward()
    {
        const auto loaded = loadBuiltinSeq2Seq();
        QVERIFY(loaded.ok());
        const BartModel &m = *loaded.value();
        const std::vector<int> source = sourceIds(m, QStringLiteral("小明 在 家 帮助 她 。"));
        std::vector<int> target{m.config.decoderStart};
        auto t = runSeq2Seq(m, source, target);
        QVERIFY(t.ok());
        Seq2SeqTrace cached = t.value();
        QCOMPARE(cached.reused, 0);
        Rng rng(testSeed());
        for (int step = 0; step < 8; ++step) {
            const int next = int(rng.uniform() * m.config.vocabSize);
            auto grown = extendSeq2Seq(m, cached, next);
            QVERIFY2(grown.ok(), grown.problem() ? grown.problem()->toString().c_str() : "");
            target.push_back(next);
            const auto whole = runSeq2Seq(m, source, target);
            QVERIFY(whole.ok());
            const Seq2SeqTrace &a = grown.value(), &b = whole.value();
            QCOMPARE(a.reused, int(target.size()) - 1);
            QVERIFY(a.targetIds == target);
            const double enc = worstBetween(a.encoder, b.encoder), self = worstBetween(a.decoderSelf, b.decoderSelf),
                         cross = worstBetween(a.cross, b.cross),
                         logits = (a.logits - b.logits).cwiseAbs().maxCoeff();
            QVERIFY2(enc == 0 && self < 1e-12 && cross < 1e-12 && logits < 1e-10,
                     qPrintable(QStringLiteral("step %1: %2 %3 %4 %5").arg(step).arg(enc).arg(self).arg(cross).arg(logits)));
            // The maps grow by one row: m + 1 by m + 1 (causal), m + 1 by n.
            QCOMPARE(a.decoderSelf[1].heads[3].weights.rows(), Eigen::Index(target.size()));
            QCOMPARE(a.decoderSelf[1].heads[3].weights.cols(), Eigen::Index(target.size()));
            QCOMPARE(a.cross[0].heads[0].weights.cols(), Eigen::Index(source.size()));
            QCOMPARE(a.next.front().id, b.next.front().id);
            cached = a;
        }
    }

    void cacheRefusesWhatItCannotRead()
    {
        const auto loaded = loadBuiltinSeq2Seq();
        QVERIFY(loaded.ok());
        const BartModel &m = *loaded.value();
        auto t = runSeq2Seq(m, sourceIds(m, QStringLiteral("我 打 你 。")), {m.config.decoderStart});
        QVERIFY(t.ok());
        const auto outside = extendSeq2Seq(m, t.value(), m.config.vocabSize);
        QVERIFY(outside.problem());
        QVERIFY2(outside.problem()->message.find("outside the vocabulary of 462") != std::string::npos,
                 outside.problem()->toString().c_str());
        Seq2SeqTrace other = t.value();
        other.cross.pop_back();
        const auto foreign = extendSeq2Seq(m, other, 5);
        QVERIFY(foreign.problem());
        QCOMPARE(foreign.problem()->message, std::string("the trace is not of this model"));
        // Full: max_position_embeddings = 32 target rows, then a refusal.
        Seq2SeqTrace full = t.value();
        while (int(full.targetIds.size()) < m.config.maxPositions) {
            auto g = extendSeq2Seq(m, full, 5);
            QVERIFY(g.ok());
            full = std::move(g.value());
        }
        const auto past = extendSeq2Seq(m, full, 5);
        QVERIFY(past.problem());
        QVERIFY2(past.problem()->message.find("at most max_position_embeddings = 32") != std::string::npos,
                 past.problem()->toString().c_str());
    }

    // The work a head does, worked by hand: 4 target rows over 6 source
    // tokens, 3 of them cached: self-attention 4 entries (one row) against
    // the triangle 1 + 2 + 3 + 4 = 10; cross-attention 6 against 4 · 6 = 24.
    void cacheWorkByHand()
    {
        const CacheWork w = seq2seqCacheWork(3, 4, 6);
        QCOMPARE(w.withCache, std::int64_t(4 + 6));
        QCOMPARE(w.withoutCache, std::int64_t(10 + 24));
        const CacheWork none = seq2seqCacheWork(0, 4, 6);
        QCOMPARE(none.withCache, none.withoutCache);
    }

    // Greedy generation through the cache writes translate()'s ids; a
    // sampled one repeats for its seed, and each step's p is the
    // distribution of the whole forward's last row.
    void generationMatchesTranslate_data()
    {
        QTest::addColumn<QString>("source");
        QTest::newRow("zh") << QStringLiteral("我 打 你 。");
        QTest::newRow("a place moves") << QStringLiteral("小明 在 家 帮助 她 。");
        QTest::newRow("en") << QStringLiteral("I hit you .");
    }
    void generationMatchesTranslate()
    {
        QFETCH(QString, source);
        const auto loaded = loadBuiltinSeq2Seq();
        QVERIFY(loaded.ok());
        const BartModel &m = *loaded.value();
        SamplingSettings greedy;
        greedy.steps = 30;
        greedy.temperature = 0;
        const auto g = generateSeq2Seq(m, source, greedy);
        QVERIFY(g.ok());
        const auto tr = translate(m, source, 30);
        QVERIFY(tr.ok());
        std::vector<int> ids;
        for (const GenerationStep &st : g.value().steps)
            ids.push_back(st.id);
        QVERIFY(ids == tr.value().ids);
        QCOMPARE(g.value().finished, tr.value().finished);
        QCOMPARE(g.value().steps.front().id, m.config.forcedBos); // <s>, forced, p = 1
        QCOMPARE(g.value().steps.front().p, 1.0);

        SamplingSettings warm;
        warm.steps = 30;
        warm.temperature = 1.5;
        warm.topK = 5;
        warm.seed = testSeed();
        const auto a = generateSeq2Seq(m, source, warm), b = generateSeq2Seq(m, source, warm);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE(a.value().steps.size(), b.value().steps.size());
        std::vector<int> target{m.config.decoderStart};
        const std::vector<int> src = sourceIds(m, source);
        for (std::size_t i = 0; i < a.value().steps.size(); ++i) {
            const GenerationStep &st = a.value().steps[i];
            QCOMPARE(st.id, b.value().steps[i].id);
            QCOMPARE(st.u, b.value().steps[i].u);
            if (i > 0) {
                const auto whole = runSeq2Seq(m, src, target);
                QVERIFY(whole.ok());
                double p = 0;
                for (const Candidate &c : nextTokenDistribution(whole.value().logits, warm))
                    if (c.id == st.id)
                        p = c.p;
                QVERIFY2(std::fabs(p - st.p) < 1e-12, qPrintable(QStringLiteral("step %1: %2 %3").arg(i).arg(p).arg(st.p)));
                QVERIFY(st.u >= 0 && st.u < 1);
                // One new row a step: the cached rows are all but the last.
                QCOMPARE(st.reused, int(target.size()) - 1);
                QCOMPARE(st.cachedCells, seq2seqCacheWork(int(target.size()) - 1, int(target.size()), int(src.size())).withCache);
            }
            target.push_back(st.id);
        }
        SamplingSettings bad = warm;
        bad.temperature = -1;
        QVERIFY(generateSeq2Seq(m, source, bad).problem());
    }

    void translateOnTheCommandLine()
    {
        const test::CliRun r = test::runCliInProcess({"model", "translate", "--text", "我 打 你 。"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("translation: I hit you .")), qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("cross-attention of decoder layer 2")));
        const test::CliRun j = test::runCliInProcess({"model", "translate", "--text", "我 打 你 。", "--format", "json"});
        QCOMPARE(j.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(j.out.toUtf8()).object();
        QCOMPARE(o.value(QLatin1String("kind")).toString(), QStringLiteral("encoder-decoder"));
        QCOMPARE(o.value(QLatin1String("translation")).toString().trimmed(), QStringLiteral("I hit you ."));
        const QJsonArray source = o.value(QLatin1String("source")).toArray();
        const QJsonArray input = o.value(QLatin1String("decoder_input")).toArray();
        const QJsonArray cross = o.value(QLatin1String("cross")).toArray();
        QCOMPARE(cross.size(), 2 * 4); // layers × heads
        const QJsonArray w = cross.first().toObject().value(QLatin1String("weights")).toArray();
        QCOMPARE(w.size(), input.size());           // rows: the decoder's tokens
        QCOMPARE(w.first().toArray().size(), source.size()); // columns: the source's
        const test::CliRun bad = test::runCliInProcess({"model", "translate", "--text", "x", "--steps", "0"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("--steps: must be a whole number from 1 to 1024")), qPrintable(bad.err));
        // Drawn with a temperature and a seed: generateSeq2Seq's tokens, each step's work with and without the cache.
        const test::CliRun warm = test::runCliInProcess({"model", "translate", "--text", "我 打 你 。", "--temperature", "1.5",
                                                         "--seed", "3", "--format", "json"});
        QCOMPARE(warm.code, 0);
        const QJsonArray steps = QJsonDocument::fromJson(warm.out.toUtf8()).object().value(QLatin1String("steps")).toArray();
        SamplingSettings s;
        s.steps = 30;
        s.temperature = 1.5;
        s.seed = 3;
        const auto g = generateSeq2Seq(*loadBuiltinSeq2Seq().value(), QStringLiteral("我 打 你 。"), s);
        QVERIFY(g.ok());
        QCOMPARE(steps.size(), qsizetype(g.value().steps.size()));
        for (int i = 0; i < steps.size(); ++i) {
            const QJsonObject st = steps[i].toObject();
            QCOMPARE(st.value(QLatin1String("id")).toInt(), g.value().steps[std::size_t(i)].id);
            QCOMPARE(st.value(QLatin1String("u")).toDouble(), g.value().steps[std::size_t(i)].u);
            QCOMPARE(st.value(QLatin1String("cells_with_cache")).toDouble(), double(g.value().steps[std::size_t(i)].cachedCells));
        }
        QVERIFY(test::runCliInProcess({"model", "translate", "--text", "x", "--temperature", "-1"}).code == 2);
    }
};

QTEST_GUILESS_MAIN(TestTranslator)
#include "test_translator.moc"
