// Attention sinks on the built-in model (core/model/sinks): the window mask
// by hand, the masked forward, the next-token loss against a plain loop
// over prefixes, the experiment's report on a generated text, the weight
// on the first token at every position, and `model sinks` on the CLI.

#include "attn_test.h"
#include "cli_run.h"
#include "generate.h"
#include "gpt2.h"
#include "numbers.h"
#include "sinks.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace attn;

namespace {

std::shared_ptr<const Gpt2Model> builtin()
{
    static std::shared_ptr<const Gpt2Model> m = [] {
        const ModelOrProblem r = loadBuiltinModel();
        if (const auto *p = std::get_if<Problem>(&r))
            qFatal("the built-in model does not load: %s", p->toString().c_str());
        return std::get<std::shared_ptr<const Gpt2Model>>(r);
    }();
    return m;
}

// A text the model wrote itself from a seed (never a fixed sentence).
std::vector<int> generatedText(int tokens, std::uint64_t seed)
{
    SamplingSettings s;
    s.temperature = 1.0;
    s.seed = seed;
    s.steps = tokens - 2;
    const auto m = builtin();
    const Generation g = std::get<Generation>(generate(*m, m->tokenizer.encode(QStringLiteral("the cat")), s));
    std::vector<int> ids = g.prompt;
    for (const GenerationStep &st : g.steps)
        ids.push_back(st.id);
    return ids;
}

} // namespace

class TestSinks : public QObject {
    Q_OBJECT
private slots:
    void maskByHand();
    void maskedForward();
    void lossAgainstPrefixes();
    void experiment();
    void refusals();
    void firstTokenByPosition();
    void uniformBaseline();
    void costAndRecovery();
    void defaultText();
    void cliText();
    void cliJson();
    void cliGivenText();
    void cliRefusals_data();
    void cliRefusals();
};

// n = 5, w = 2, s = 1 (1 = blocked):
//   query 0: 0 1 1 1 1
//   query 1: 0 0 1 1 1
//   query 2: 0 0 0 1 1     key 0 a sink, keys 1, 2 the window
//   query 3: 0 1 0 0 1     key 1 left the window (3 − 1 = 2 ≥ w)
//   query 4: 0 1 1 0 0
void TestSinks::maskByHand()
{
    const BoolMatrix b = sinkWindowMask(5, 2, 1);
    const int expected[5][5] = {{0, 1, 1, 1, 1}, {0, 0, 1, 1, 1}, {0, 0, 0, 1, 1}, {0, 1, 0, 0, 1}, {0, 1, 1, 0, 0}};
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
            QCOMPARE(int(b(i, j)), expected[i][j]);
    // No sinks: query 4 reads keys 3 and 4 only.
    const BoolMatrix w = sinkWindowMask(5, 2, 0);
    QVERIFY(w(4, 0) && w(4, 2) && !w(4, 3) && !w(4, 4));
    // w = 0: causal only.
    const BoolMatrix c = sinkWindowMask(4, 0, 0);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            QCOMPARE(bool(c(i, j)), j > i);
}

void TestSinks::maskedForward()
{
    const std::vector<int> ids = generatedText(20, 5);
    const BoolMatrix mask = sinkWindowMask(20, 4, 2);
    auto r = runModelOnIdsMasked(*builtin(), ids, 5, mask);
    QVERIFY(std::holds_alternative<ModelTrace>(r));
    const ModelTrace &t = std::get<ModelTrace>(r);
    QVERIFY(t.masked);
    for (const LayerActivations &la : t.layers)
        for (const HeadActivations &h : la.heads)
            for (int i = 0; i < 20; ++i) {
                QVERIFY(std::abs(h.weights.row(i).sum() - 1) < 1e-12);
                for (int j = 0; j < 20; ++j)
                    if (mask(i, j))
                        QCOMPARE(h.weights(i, j), 0.0);
            }
    // Rows before the window bites (i < w) are the causal forward's.
    const ModelTrace full = std::get<ModelTrace>(runModelOnIds(*builtin(), ids, 5));
    QVERIFY((t.layers[0].heads[0].weights.topRows(4) - full.layers[0].heads[0].weights.topRows(4)).cwiseAbs().maxCoeff() < 1e-12);
    QVERIFY((t.layers[0].heads[0].weights.row(10) - full.layers[0].heads[0].weights.row(10)).cwiseAbs().maxCoeff() > 1e-6);
    // A masked trace is never reused by the causal forward.
    auto again = runModelOnIds(*builtin(), ids, 5, &t);
    QCOMPARE(std::get<ModelTrace>(again).reused, 0);
}

// The loss, plainly: for each prefix ids[0..i], the whole forward's last
// logits, −ln softmax at ids[i+1]; the mean. With a window no shorter than
// the text the mask blocks nothing more than causal: the same loss.
void TestSinks::lossAgainstPrefixes()
{
    const std::vector<int> ids = generatedText(24, 9);
    double plain = 0;
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
        const ModelTrace t = std::get<ModelTrace>(runModelOnIds(*builtin(), std::vector<int>(ids.begin(), ids.begin() + long(i) + 1), 0));
        long double z = 0;
        const double top = t.logits.maxCoeff();
        for (Eigen::Index v = 0; v < t.logits.size(); ++v)
            z += std::exp((long double)(t.logits(v) - top));
        plain += double(std::log(z)) + top - t.logits(ids[i + 1]);
    }
    plain /= double(ids.size() - 1);
    const double loss = std::get<double>(nextTokenLoss(*builtin(), ids));
    QVERIFY2(std::abs(loss - plain) < 1e-10, qPrintable(QStringLiteral("%1 against %2").arg(loss, 0, 'g', 15).arg(plain, 0, 'g', 15)));
    const double wide = std::get<double>(nextTokenLoss(*builtin(), ids, sinkWindowMask(24, 24, 0)));
    QVERIFY(std::abs(wide - loss) < 1e-12);
}

void TestSinks::experiment()
{
    const std::vector<int> ids = generatedText(64, 2026);
    auto r = sinkExperiment(*builtin(), ids, 8, 4);
    QVERIFY(std::holds_alternative<SinkReport>(r));
    const SinkReport &rep = std::get<SinkReport>(r);
    QCOMPARE(rep.rows.size(), std::size_t(3));
    QCOMPARE(rep.rows[0].name, std::string("full"));
    QCOMPARE(rep.rows[2].name, std::string("4 sinks + window 8"));
    for (const SinkRow &row : rep.rows) {
        QVERIFY(std::isfinite(row.loss) && row.loss > 0);
        QVERIFY(std::abs(row.perplexity - std::exp(row.loss)) < 1e-12);
        qInfo("%s: loss %.4f nats, perplexity %.3f", row.name.c_str(), row.loss, row.perplexity);
    }
    QCOMPARE(rep.firstTokenWeight.size(), std::size_t(builtin()->config.nLayer));
    for (const auto &layer : rep.firstTokenWeight)
        for (double w : layer)
            QVERIFY(w >= 0 && w <= 1);
    qInfo("first-token weight, layer 1 head 1: %.3f (uniform over a causal row of 64: %.3f)", rep.firstTokenWeight[0][0],
          [] { double s = 0; for (int i = 1; i < 64; ++i) s += 1.0 / (i + 1); return s / 63; }());
}

void TestSinks::refusals()
{
    const std::vector<int> ids = generatedText(10, 1);
    QCOMPARE(std::get<Problem>(sinkExperiment(*builtin(), ids, 10, 2)).message, std::string("10 is outside 2 to 9 (the text has 10 tokens)"));
    QCOMPARE(std::get<Problem>(sinkExperiment(*builtin(), ids, 4, 4)).message, std::string("4 is outside 1 to 3"));
    QCOMPARE(std::get<Problem>(nextTokenLoss(*builtin(), {ids[0]})).message, std::string("the loss needs at least 2 tokens"));
    BoolMatrix all = BoolMatrix::Constant(10, 10, true);
    QCOMPARE(std::get<Problem>(runModelOnIdsMasked(*builtin(), ids, 5, all)).message, std::string("query 1 has every key blocked"));
    QCOMPARE(std::get<Problem>(runModelOnIdsMasked(*builtin(), ids, 5, BoolMatrix(3, 3))).message,
             std::string("the mask is 3 by 3; the text has 10 tokens"));
}

// w(i, 0) for every head and query: the trace's own weights, exactly; 1 at
// position 0 (the first query reads only itself); the report's means are
// its rows' means over positions 1 .. n−1.
void TestSinks::firstTokenByPosition()
{
    const Gpt2Model &m = *builtin();
    const std::vector<int> ids = generatedText(40, 7);
    const ModelTrace t = std::get<ModelTrace>(runModelOnIds(m, ids, 0));
    const auto r = firstTokenWeights(m, ids);
    QVERIFY(r.ok());
    const Matrix &w = r.value();
    const int heads = m.config.nHead;
    QCOMPARE(w.rows(), Eigen::Index(m.config.nLayer * heads));
    QCOMPARE(w.cols(), Eigen::Index(40));
    for (int l = 0; l < m.config.nLayer; ++l)
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < 40; ++i)
                QCOMPARE(w(l * heads + h, i), t.layers[std::size_t(l)].heads[std::size_t(h)].weights(i, 0));
    for (Eigen::Index row = 0; row < w.rows(); ++row) {
        QCOMPARE(w(row, 0), 1.0);
        for (Eigen::Index i = 1; i < w.cols(); ++i)
            QVERIFY(w(row, i) > 0 && w(row, i) < 1);
    }
    // One token: a column of ones.
    const Matrix one = firstTokenWeights(m, {ids[0]}).value();
    QCOMPARE(one.cols(), Eigen::Index(1));
    QVERIFY((one.array() == 1.0).all());
    const SinkReport rep = std::get<SinkReport>(sinkExperiment(m, ids, 8, 4));
    QVERIFY(rep.byPosition == w);
    for (int l = 0; l < m.config.nLayer; ++l)
        for (int h = 0; h < heads; ++h)
            ATTN_COMPARE_NEAR(rep.firstTokenWeight[std::size_t(l)][std::size_t(h)], w.row(l * heads + h).tail(39).mean(), 1e-15);
}

// Mean over i = 1 .. n−1 of 1 / (i + 1).
void TestSinks::uniformBaseline()
{
    QCOMPARE(uniformFirstTokenWeight(1), 0.0);
    QCOMPARE(uniformFirstTokenWeight(2), 0.5);
    ATTN_COMPARE_NEAR(uniformFirstTokenWeight(3), (1.0 / 2 + 1.0 / 3) / 2, 1e-15);
    ATTN_COMPARE_NEAR(uniformFirstTokenWeight(64), 0.0594, 5e-5); // docs/model.md's 0.059
}

void TestSinks::costAndRecovery()
{
    SinkReport r;
    r.rows = {{"full", 0, 0, 2.0, 0}, {"window 8", 8, 0, 3.0, 0}, {"4 sinks + window 8", 8, 4, 2.25, 0}};
    ATTN_COMPARE_NEAR(r.windowCostPercent(), 50.0, 1e-12);
    QVERIFY(r.sinksRecoverPercent().has_value());
    ATTN_COMPARE_NEAR(*r.sinksRecoverPercent(), 75.0, 1e-12);
    r.rows[1].loss = 1.9; // the window reads better: nothing to bring back
    ATTN_COMPARE_NEAR(r.windowCostPercent(), -5.0, 1e-12);
    QVERIFY(!r.sinksRecoverPercent().has_value());
}

// The default text is the one docs/model.md's table was made from.
void TestSinks::defaultText()
{
    const auto r = sinkText(*builtin(), 64);
    QVERIFY(r.ok());
    QVERIFY(r.value() == generatedText(64, kSinkTextSeed));
    QVERIFY(sinkText(*builtin(), 64, 1).value() != r.value());
    QCOMPARE(sinkText(*builtin(), 1).value().size(), std::size_t(1));
    // Longer than the context: as much as the model reads (generation
    // could draw one token more, from the last position's logits).
    QCOMPARE(int(sinkText(*builtin(), 500).value().size()), builtin()->config.nPositions);
    QCOMPARE(int(sinkText(*builtin(), 65).value().size()), builtin()->config.nPositions);
}

namespace {

test::CliRun cli(const QStringList &args)
{
    return test::runCliInProcess(args);
}

SinkReport expected(const std::vector<int> &ids, int window, int sinks)
{
    auto r = sinkExperiment(*builtin(), ids, window, sinks);
    if (const Problem *p = r.problem())
        qFatal("%s", p->toString().c_str());
    return r.value();
}

} // namespace

// The text: the table's figures as sinkExperiment gives them, the paper's
// beside them, and every head against the uniform baseline.
void TestSinks::cliText()
{
    const test::CliRun r = cli({"model", "sinks", "--model", "builtin"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.err, QString());
    const SinkReport rep = expected(generatedText(64, kSinkTextSeed), 8, 4);
    QVERIFY2(r.out.contains(QLatin1String("64 tokens")), qPrintable(r.out));
    for (const SinkRow &row : rep.rows) {
        const QString line = QString::fromStdString(row.name).leftJustified(20) + QString::fromStdString(formatFixed(row.loss, 4));
        QVERIFY2(r.out.contains(line), qPrintable(line + QLatin1String("\n") + r.out));
        QVERIFY(r.out.contains(QString::fromStdString(formatFixed(row.perplexity, 3))));
    }
    QVERIFY(r.out.contains(QLatin1String("window attention perplexity 5158, 4 sinks + window 5.40")));
    QVERIFY(r.out.contains(QLatin1String("uniform causal rows: 0.059")));
    QVERIFY2(r.out.contains(QStringLiteral("1      1     %1").arg(QString::fromStdString(formatFixed(rep.firstTokenWeight[0][0], 3)))),
             qPrintable(r.out));
    qInfo("%s", qPrintable(r.out));
}

void TestSinks::cliJson()
{
    const test::CliRun r = cli({"model", "sinks", "--model", "builtin", "--generate", "40", "--seed", "7", "--window", "6",
                                "--sinks", "2", "--format", "json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const std::vector<int> ids = generatedText(40, 7);
    const SinkReport rep = expected(ids, 6, 2);
    QCOMPARE(j.value(QLatin1String("tokens")).toInt(), 40);
    QCOMPARE(j.value(QLatin1String("window")).toInt(), 6);
    QCOMPARE(j.value(QLatin1String("sinks")).toInt(), 2);
    QCOMPARE(j.value(QLatin1String("uniform")).toDouble(), uniformFirstTokenWeight(40));
    const QJsonArray rows = j.value(QLatin1String("rows")).toArray();
    QCOMPARE(rows.size(), 3);
    for (int i = 0; i < 3; ++i) {
        const QJsonObject row = rows[i].toObject();
        QCOMPARE(row.value(QLatin1String("name")).toString(), QString::fromStdString(rep.rows[std::size_t(i)].name));
        QCOMPARE(row.value(QLatin1String("window")).toInt(), rep.rows[std::size_t(i)].window);
        QCOMPARE(row.value(QLatin1String("sinks")).toInt(), rep.rows[std::size_t(i)].sinks);
        QCOMPARE(row.value(QLatin1String("loss")).toDouble(), rep.rows[std::size_t(i)].loss);
        QCOMPARE(row.value(QLatin1String("perplexity")).toDouble(), rep.rows[std::size_t(i)].perplexity);
    }
    const QJsonArray heads = j.value(QLatin1String("heads")).toArray();
    const int perLayer = builtin()->config.nHead;
    QCOMPARE(heads.size(), builtin()->config.nLayer * perLayer);
    for (int k = 0; k < heads.size(); ++k) {
        const QJsonObject h = heads[k].toObject();
        QCOMPARE(h.value(QLatin1String("layer")).toInt(), k / perLayer + 1);
        QCOMPARE(h.value(QLatin1String("head")).toInt(), k % perLayer + 1);
        QCOMPARE(h.value(QLatin1String("first_token_weight")).toDouble(),
                 rep.firstTokenWeight[std::size_t(k / perLayer)][std::size_t(k % perLayer)]);
        const QJsonArray by = h.value(QLatin1String("by_position")).toArray();
        QCOMPARE(by.size(), 40);
        QCOMPARE(by[0].toDouble(), 1.0);
        for (int i = 0; i < 40; ++i)
            QCOMPARE(by[i].toDouble(), rep.byPosition(k, i));
    }
}

void TestSinks::cliGivenText()
{
    const QString text = QStringLiteral("the cat sat on the mat . the dog sat on the log .");
    const test::CliRun r = cli({"model", "sinks", "--text", text, "--window", "4", "--sinks", "1", "--format", "json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const std::vector<int> ids = builtin()->tokenizer.encode(text);
    const SinkReport rep = expected(ids, 4, 1);
    const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(j.value(QLatin1String("tokens")).toInt(), int(ids.size()));
    QCOMPARE(j.value(QLatin1String("rows")).toArray()[2].toObject().value(QLatin1String("loss")).toDouble(), rep.rows[2].loss);
}

void TestSinks::cliRefusals_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("window 1: no room for a sink") << QStringList{"--window", "1"} << QStringLiteral("--window: 1 is outside 2 to 63");
    QTest::newRow("window 0") << QStringList{"--window", "0"} << QStringLiteral("--window: 0 is outside 2 to 63 (the text has 64 tokens)");
    QTest::newRow("window past the text") << QStringList{"--window", "64"} << QStringLiteral("--window: 64 is outside 2 to 63");
    QTest::newRow("window not a number") << QStringList{"--window", "eight"} << QStringLiteral("--window: \"eight\" is not a whole number");
    QTest::newRow("sinks negative") << QStringList{"--sinks", "-1"} << QStringLiteral("--sinks: -1 is outside 1 to 7");
    QTest::newRow("sinks fill the window") << QStringList{"--window", "4", "--sinks", "4"} << QStringLiteral("--sinks: 4 is outside 1 to 3");
    QTest::newRow("window past a short text") << QStringList{"--generate", "10", "--window", "10", "--sinks", "2"}
                                              << QStringLiteral("--window: 10 is outside 2 to 9 (the text has 10 tokens)");
    QTest::newRow("too few tokens") << QStringList{"--generate", "2"} << QStringLiteral("--generate: the text has 2 tokens; the experiment needs at least 3");
    QTest::newRow("too few tokens given") << QStringList{"--text", "the cat"} << QStringLiteral("--text: the text has 2 tokens; the experiment needs at least 3");
    QTest::newRow("generate past the context") << QStringList{"--generate", "65"} << QStringLiteral("--generate: must be a whole number from 1 to 64");
    QTest::newRow("text and generate") << QStringList{"--text", "a b c", "--generate", "9"} << QStringLiteral("give --text or --generate, not both");
    QTest::newRow("seed with text") << QStringList{"--text", "a b c", "--seed", "3"} << QStringLiteral("--seed: only for the model's own text");
    QTest::newRow("bad seed") << QStringList{"--seed", "-3"} << QStringLiteral("--seed: \"-3\" is not a whole number");
    QTest::newRow("unknown option") << QStringList{"--layer", "1"} << QStringLiteral("--layer");
    QTest::newRow("bad format") << QStringList{"--format", "xml"} << QStringLiteral("--format");
}

void TestSinks::cliRefusals()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const test::CliRun r = cli(QStringList{"model", "sinks", "--model", "builtin"} + args);
    QCOMPARE(r.code, 2);
    QCOMPARE(r.out, QString());
    QVERIFY2(r.err.startsWith(QLatin1String("attention-lab-cli: model sinks: ")) && r.err.contains(message), qPrintable(r.err));
    QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
}

QTEST_GUILESS_MAIN(TestSinks)
#include "test_sinks.moc"
