// Attention sinks on the built-in model (core/model/sinks): the window mask
// by hand, the masked forward, the next-token loss against a plain loop
// over prefixes, and the experiment's report on a generated text.

#include "attn_test.h"
#include "generate.h"
#include "gpt2.h"
#include "sinks.h"

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
    QCOMPARE(std::get<Problem>(sinkExperiment(*builtin(), ids, 10, 2)).message, std::string("10 is outside 1 to 9 (the text has 10 tokens)"));
    QCOMPARE(std::get<Problem>(sinkExperiment(*builtin(), ids, 4, 4)).message, std::string("4 is outside 1 to 3"));
    QCOMPARE(std::get<Problem>(nextTokenLoss(*builtin(), {ids[0]})).message, std::string("the loss needs at least 2 tokens"));
    BoolMatrix all = BoolMatrix::Constant(10, 10, true);
    QCOMPARE(std::get<Problem>(runModelOnIdsMasked(*builtin(), ids, 5, all)).message, std::string("query 1 has every key blocked"));
    QCOMPARE(std::get<Problem>(runModelOnIdsMasked(*builtin(), ids, 5, BoolMatrix(3, 3))).message,
             std::string("the mask is 3 by 3; the text has 10 tokens"));
}

QTEST_GUILESS_MAIN(TestSinks)
#include "test_sinks.moc"
