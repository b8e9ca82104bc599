// Generation token by token (core/model/generate): the distribution of a
// step worked by hand, the draw, the KV cache against the whole forward, the
// same tokens from a plain second generator, and `model generate` on the CLI.

#include "attn_test.h"
#include "cli_run.h"
#include "generate.h"
#include "gpt2.h"
#include "random.h"

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

Eigen::VectorXd logits(std::initializer_list<double> v)
{
    Eigen::VectorXd z(Eigen::Index(v.size()));
    Eigen::Index i = 0;
    for (double x : v)
        z(i++) = x;
    return z;
}

SamplingSettings sampling(double temperature, int topK = 0, double topP = 1.0, std::uint64_t seed = 0, int steps = 16)
{
    SamplingSettings s;
    s.temperature = temperature;
    s.topK = topK;
    s.topP = topP;
    s.seed = seed;
    s.steps = steps;
    return s;
}

// The whole forward of ids, without a cache: the plain reference.
ModelTrace whole(const std::vector<int> &ids)
{
    auto r = runModelOnIds(*builtin(), ids, 5);
    if (const auto *p = std::get_if<Problem>(&r))
        qFatal("%s", p->toString().c_str());
    return std::get<ModelTrace>(r);
}

} // namespace

class TestGenerate : public QObject {
    Q_OBJECT
private slots:
    void distributionByHand();
    void tiesAndTinyTemperatures();
    void drawWalksTheRunningSum();
    void drawFrequenciesMatchTheDistribution();
    void greedyIsTheWholeForwardsArgmax();
    void cacheGivesTheWholeForwardsWeights();
    void sampledTokensFromAPlainGenerator();
    void workCounts();
    void stopsWhenTheContextIsFull();
    void badSettingsRefused();
    void cli();
};

// z = (2, 1, 0, −1) for ids 0..3.
//   T = 1: e^{z − 2} = 1, e^{−1}, e^{−2}, e^{−3} = 1, 0.367879, 0.135335, 0.049787;
//          sum 1.553001; p = 0.643914, 0.236883, 0.087144, 0.032059.
//   top-k 2: 1 / (1 + e^{−1}) = 0.731059 and 0.268941.
//   top-p 0.9: running sums 0.6439, 0.8808, 0.9679: three kept (the third
//          passes 0.9); divided by 0.967941: 0.665241, 0.244728, 0.090031.
//   T = 0.5: e^{2(z − 2)} = 1, e^{−2}, e^{−4}, e^{−6}; sum 1.156130;
//          p = 0.864955, 0.117059, 0.015842, 0.002144.
void TestGenerate::distributionByHand()
{
    const Eigen::VectorXd z = logits({2, 1, 0, -1});
    auto near = [](double a, double b) { return std::abs(a - b) < 5e-7; };

    auto all = nextTokenDistribution(z, sampling(1.0));
    QCOMPARE(all.size(), std::size_t(4));
    const double byHand[] = {0.643914, 0.236883, 0.087144, 0.032059};
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(all[std::size_t(i)].id, i);
        QVERIFY2(near(all[std::size_t(i)].p, byHand[i]), qPrintable(QString::number(all[std::size_t(i)].p, 'g', 10)));
        QCOMPARE(all[std::size_t(i)].raw, all[std::size_t(i)].p); // at T = 1 nothing is cut
    }
    // The closed form: p_0 = 1 / (1 + e^-1 + e^-2 + e^-3).
    QVERIFY(std::abs(all[0].p - 1.0 / (1 + std::exp(-1.0) + std::exp(-2.0) + std::exp(-3.0))) < 1e-15);

    auto k2 = nextTokenDistribution(z, sampling(1.0, 2));
    QCOMPARE(k2.size(), std::size_t(2));
    QVERIFY(std::abs(k2[0].p - 1.0 / (1 + std::exp(-1.0))) < 1e-15);
    QVERIFY(std::abs(k2[1].p - std::exp(-1.0) / (1 + std::exp(-1.0))) < 1e-15);
    QVERIFY(near(k2[0].raw, 0.643914)); // raw stays the T = 1 softmax

    auto p9 = nextTokenDistribution(z, sampling(1.0, 0, 0.9));
    QCOMPARE(p9.size(), std::size_t(3));
    const double cut[] = {0.665241, 0.244728, 0.090031};
    for (int i = 0; i < 3; ++i)
        QVERIFY2(near(p9[std::size_t(i)].p, cut[i]), qPrintable(QString::number(p9[std::size_t(i)].p, 'g', 10)));
    // top-k first, then top-p among the kept: k 2 and P 0.5 keep one.
    auto both = nextTokenDistribution(z, sampling(1.0, 2, 0.5));
    QCOMPARE(both.size(), std::size_t(1));
    QCOMPARE(both[0].p, 1.0);

    auto cold = nextTokenDistribution(z, sampling(0.5));
    const double colder[] = {0.864955, 0.117059, 0.015842, 0.002144};
    for (int i = 0; i < 4; ++i)
        QVERIFY2(near(cold[std::size_t(i)].p, colder[i]), qPrintable(QString::number(cold[std::size_t(i)].p, 'g', 10)));

    auto greedy = nextTokenDistribution(z, sampling(0.0));
    QCOMPARE(greedy.size(), std::size_t(1));
    QCOMPARE(greedy[0].id, 0);
    QCOMPARE(greedy[0].p, 1.0);
    QVERIFY(near(greedy[0].raw, 0.643914));
}

void TestGenerate::tiesAndTinyTemperatures()
{
    // A tie goes to the lower id, in the order and in the greedy pick.
    const Eigen::VectorXd z = logits({1, 3, 3});
    auto d = nextTokenDistribution(z, sampling(1.0));
    QCOMPARE(d[0].id, 1);
    QCOMPARE(d[1].id, 2);
    QCOMPARE(d[2].id, 0);
    QCOMPARE(nextTokenDistribution(z, sampling(0.0))[0].id, 1);
    // T = 1e-300 would overflow z / T; the shift keeps the maximum's term 1,
    // the others underflow to 0 and are left out: no NaN, no inf.
    const Eigen::VectorXd w = logits({0.5, 0.25, 1000});
    auto tiny = nextTokenDistribution(w, sampling(1e-300));
    QCOMPARE(tiny.size(), std::size_t(1));
    QCOMPARE(tiny[0].id, 2);
    QCOMPARE(tiny[0].p, 1.0);
    QVERIFY(std::isfinite(tiny[0].raw));
    // A hot temperature spreads it towards uniform: T = 1000 on (2, 1, 0, −1).
    auto hot = nextTokenDistribution(logits({2, 1, 0, -1}), sampling(1000));
    for (const Candidate &c : hot)
        QVERIFY(std::abs(c.p - 0.25) < 1e-3);
}

void TestGenerate::drawWalksTheRunningSum()
{
    const std::vector<Candidate> c = {{7, 0.5, 0}, {3, 0.3, 0}, {9, 0.2, 0}};
    QCOMPARE(pickCandidate(c, 0.0), 0);
    QCOMPARE(pickCandidate(c, 0.4999), 0);
    QCOMPARE(pickCandidate(c, 0.5), 1);
    QCOMPARE(pickCandidate(c, 0.7999), 1);
    QCOMPARE(pickCandidate(c, 0.8), 2);
    QCOMPARE(pickCandidate(c, 0.9999999), 2);
    // Rounding may leave the sum below 1: u above it still picks the last.
    const std::vector<Candidate> shortSum = {{1, 0.5, 0}, {2, 0.4999999999}};
    QCOMPARE(pickCandidate(shortSum, 0.99999999999), 1);
    QCOMPARE(pickCandidate({}, 0.5), -1);
}

// 40,000 seeded draws of (0.643914, 0.236883, 0.087144, 0.032059): each
// count within 4 standard deviations of 40,000 p (the seed fixes the
// draws, so this is not a flaky test; it checks that the draw is unbiased).
void TestGenerate::drawFrequenciesMatchTheDistribution()
{
    const auto d = nextTokenDistribution(logits({2, 1, 0, -1}), sampling(1.0));
    Rng rng(12345);
    const int N = 40000;
    int counts[4] = {};
    for (int i = 0; i < N; ++i)
        ++counts[d[std::size_t(pickCandidate(d, rng.uniform()))].id];
    for (int i = 0; i < 4; ++i) {
        const double p = d[std::size_t(i)].p, sd = std::sqrt(N * p * (1 - p));
        QVERIFY2(std::abs(counts[i] - N * p) < 4 * sd,
                 qPrintable(QStringLiteral("token %1: %2 draws, expected %3 ± %4").arg(i).arg(counts[i]).arg(N * p).arg(sd)));
    }
}

// Greedy: each token is the argmax of the whole forward (no cache) of
// everything before it.
void TestGenerate::greedyIsTheWholeForwardsArgmax()
{
    const auto m = builtin();
    for (const char *prompt : {"the cat", "我 打", "the boy says"}) {
        const std::vector<int> ids0 = m->tokenizer.encode(QString::fromUtf8(prompt));
        auto r = generate(*m, ids0, sampling(0.0, 0, 1.0, 0, 10));
        QVERIFY(std::holds_alternative<Generation>(r));
        const Generation &g = std::get<Generation>(r);
        QCOMPARE(g.steps.size(), std::size_t(10));
        std::vector<int> ids = ids0;
        for (const GenerationStep &st : g.steps) {
            const ModelTrace t = whole(ids);
            Eigen::Index best = 0;
            t.logits.maxCoeff(&best);
            QCOMPARE(st.id, int(best));
            QCOMPARE(st.position, int(ids.size()));
            QCOMPARE(st.p, 1.0);
            QCOMPARE(st.u, 0.0);
            // The shown top 5 is the whole forward's, in its order.
            QCOMPARE(st.top.size(), t.next.size());
            for (std::size_t i = 0; i < t.next.size(); ++i) {
                QCOMPARE(st.top[i].id, t.next[i].id);
                QVERIFY(std::abs(st.top[i].raw - t.next[i].p) < 1e-12);
            }
            ids.push_back(st.id);
        }
    }
}

// The KV cache computes one new row a step; the weights it ends with are
// the whole causal forward's, row by row (the training view, all positions
// at once under the mask, gives the same numbers as inference).
void TestGenerate::cacheGivesTheWholeForwardsWeights()
{
    const auto m = builtin();
    const std::vector<int> prompt = m->tokenizer.encode(QStringLiteral("the woman sees the"));
    auto r = generate(*m, prompt, sampling(0.9, 8, 0.95, 7, 12));
    QVERIFY(std::holds_alternative<Generation>(r));
    const Generation &g = std::get<Generation>(r);
    QCOMPARE(g.steps.size(), std::size_t(12));
    std::vector<int> ids = prompt;
    for (std::size_t i = 0; i + 1 < g.steps.size(); ++i)
        ids.push_back(g.steps[i].id);
    QCOMPARE(g.trace.ids, ids);
    QCOMPARE(g.trace.reused, int(ids.size()) - 1); // only the last row was computed
    const ModelTrace full = whole(ids);
    double largest = 0;
    for (std::size_t l = 0; l < full.layers.size(); ++l)
        for (std::size_t h = 0; h < full.layers[l].heads.size(); ++h) {
            const Matrix &a = g.trace.layers[l].heads[h].weights, &b = full.layers[l].heads[h].weights;
            QCOMPARE(a.rows(), b.rows());
            largest = std::max(largest, (a - b).cwiseAbs().maxCoeff());
        }
    QVERIFY2(largest <= 1e-12, qPrintable(QString::number(largest)));
    QVERIFY((g.trace.logits - full.logits).cwiseAbs().maxCoeff() <= 1e-10);
}

// A second generator written plainly: the whole forward each step, the same
// distribution, u from Rng(seed). The same tokens, for several settings.
void TestGenerate::sampledTokensFromAPlainGenerator()
{
    const auto m = builtin();
    const std::vector<int> prompt = m->tokenizer.encode(QStringLiteral("我 看见"));
    for (const SamplingSettings &s : {sampling(1.0, 0, 1.0, 1, 8), sampling(0.7, 5, 1.0, 2, 8), sampling(1.3, 0, 0.8, 3, 8)}) {
        auto r = generate(*m, prompt, s);
        QVERIFY(std::holds_alternative<Generation>(r));
        const Generation &g = std::get<Generation>(r);
        Rng rng(s.seed);
        std::vector<int> ids = prompt;
        for (const GenerationStep &st : g.steps) {
            const ModelTrace t = whole(ids);
            // The plain distribution: softmax of z / T over the sorted ids, cut.
            std::vector<int> order(static_cast<std::size_t>(t.logits.size()));
            for (std::size_t i = 0; i < order.size(); ++i)
                order[i] = int(i);
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return t.logits(a) > t.logits(b); });
            std::vector<double> p;
            long double sum = 0;
            for (int id : order) {
                p.push_back(std::exp(double((t.logits(id) - t.logits(order[0])) / s.temperature)));
                sum += p.back();
            }
            std::size_t kept = s.topK ? std::size_t(s.topK) : p.size();
            long double run = 0;
            for (std::size_t i = 0; i < kept; ++i) {
                run += p[i] / sum;
                if (s.topP < 1 && run >= s.topP) {
                    kept = i + 1;
                    break;
                }
            }
            long double keptSum = 0;
            for (std::size_t i = 0; i < kept; ++i)
                keptSum += p[i];
            const double u = rng.uniform();
            long double walk = 0;
            std::size_t pick = kept - 1;
            for (std::size_t i = 0; i < kept; ++i) {
                walk += p[i] / keptSum;
                if (u < walk) {
                    pick = i;
                    break;
                }
            }
            QCOMPARE(st.u, u);
            QCOMPARE(st.id, order[pick]);
            QVERIFY(std::abs(st.p - double(p[pick] / keptSum)) < 1e-12);
            ids.push_back(st.id);
        }
        // The same seed gives the same text again.
        auto again = generate(*m, prompt, s);
        const Generation &g2 = std::get<Generation>(again);
        for (std::size_t i = 0; i < g.steps.size(); ++i)
            QCOMPARE(g2.steps[i].id, g.steps[i].id);
    }
}

// Score entries per head: the prompt of p tokens costs p (p + 1) / 2 with or
// without the cache; after it, a step reading t tokens costs t against
// t (t + 1) / 2.
void TestGenerate::workCounts()
{
    const auto m = builtin();
    const std::vector<int> prompt = m->tokenizer.encode(QStringLiteral("the cat sat")); // 3 tokens
    QCOMPARE(prompt.size(), std::size_t(3));
    auto r = generate(*m, prompt, sampling(0.0, 0, 1.0, 0, 4));
    const Generation &g = std::get<Generation>(r);
    const std::int64_t with[] = {6, 4, 5, 6}, without[] = {6, 10, 15, 21};
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(g.steps[std::size_t(i)].cachedCells, with[i]);
        QCOMPARE(g.steps[std::size_t(i)].uncachedCells, without[i]);
        QCOMPARE(g.steps[std::size_t(i)].reused, i == 0 ? 0 : 3 + i - 1);
    }
}

void TestGenerate::stopsWhenTheContextIsFull()
{
    const auto m = builtin();
    const int P = m->config.nPositions; // 64
    std::vector<int> prompt(std::size_t(P - 2), m->tokenizer.encode(QStringLiteral("the")).front());
    auto r = generate(*m, prompt, sampling(0.0, 0, 1.0, 0, 10));
    QVERIFY(std::holds_alternative<Generation>(r));
    const Generation &g = std::get<Generation>(r);
    // Positions 62, 63 and 64 (0-based): the last is predicted from 64
    // tokens, the most the model reads, so nothing can follow it.
    QCOMPARE(g.steps.size(), std::size_t(3));
    QCOMPARE(g.steps.back().position, P);
    QCOMPARE(g.trace.ids.size(), std::size_t(P));
    QVERIFY2(g.stopped.find("64 positions is full") != std::string::npos, g.stopped.c_str());
    // A prompt longer than the context is refused, naming both numbers.
    std::vector<int> tooLong(std::size_t(P + 1), prompt.front());
    auto refused = generate(*m, tooLong, sampling(0.0));
    QVERIFY(std::holds_alternative<Problem>(refused));
    QCOMPARE(std::get<Problem>(refused).message, std::string("the prompt has 65 tokens; tiny-bilingual reads at most 64"));
    QVERIFY(std::holds_alternative<Problem>(generate(*m, {}, sampling(0.0))));
    std::atomic<bool> cancel{true};
    auto cancelled = generate(*m, prompt, sampling(0.0), &cancel);
    QCOMPARE(std::get<Generation>(cancelled).stopped, std::string("cancelled"));
    QVERIFY(std::get<Generation>(cancelled).steps.empty());
}

void TestGenerate::badSettingsRefused()
{
    QCOMPARE(validateSampling(sampling(-1))->message, std::string("-1 is not a number of 0 (greedy) or more"));
    QCOMPARE(validateSampling(sampling(std::nan("")))->place, std::string("temperature"));
    QCOMPARE(validateSampling(sampling(1, -2))->place, std::string("top-k"));
    QCOMPARE(validateSampling(sampling(1, 0, 0))->message, std::string("0 is outside (0, 1] (1 keeps every token)"));
    QCOMPARE(validateSampling(sampling(1, 0, 1.5))->place, std::string("top-p"));
    QCOMPARE(validateSampling(sampling(1, 0, 1, 0, 0))->place, std::string("steps"));
    QVERIFY(!validateSampling(sampling(0.0, 40, 0.5, 9, kMaxGenerationSteps)));
}

void TestGenerate::cli()
{
    const auto text = test::runCliInProcess({QStringLiteral("model"), QStringLiteral("generate"), QStringLiteral("--text"),
                                             QStringLiteral("the cat"), QStringLiteral("--steps"), QStringLiteral("3"),
                                             QStringLiteral("--temperature"), QStringLiteral("0")});
    QCOMPARE(text.code, 0);
    QVERIFY2(text.out.startsWith(QStringLiteral("model: tiny-bilingual; greedy (temperature 0)\nprompt: 2 tokens: [the] [ cat]\n")),
             qPrintable(text.out));
    QVERIFY(text.out.contains(QStringLiteral("score entries per head: 3 with the cache, 6 without")));
    QVERIFY(text.out.contains(QStringLiteral("\ntext: the cat")));

    const auto json = test::runCliInProcess({QStringLiteral("model"), QStringLiteral("generate"), QStringLiteral("--text"),
                                             QStringLiteral("我 打"), QStringLiteral("--steps"), QStringLiteral("4"),
                                             QStringLiteral("--temperature"), QStringLiteral("0.8"), QStringLiteral("--top-k"),
                                             QStringLiteral("5"), QStringLiteral("--seed"), QStringLiteral("3"),
                                             QStringLiteral("--format"), QStringLiteral("json")});
    QCOMPARE(json.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(json.out.toUtf8()).object();
    const QJsonArray steps = j.value(QStringLiteral("steps")).toArray();
    QCOMPARE(steps.size(), 4);
    // The same as the core's generation with those settings.
    const auto m = builtin();
    const Generation g = std::get<Generation>(generate(*m, m->tokenizer.encode(QStringLiteral("我 打")), sampling(0.8, 5, 1.0, 3, 4)));
    for (int i = 0; i < 4; ++i) {
        const QJsonObject st = steps[i].toObject();
        QCOMPARE(st.value(QStringLiteral("id")).toInt(), g.steps[std::size_t(i)].id);
        QCOMPARE(st.value(QStringLiteral("p")).toDouble(), g.steps[std::size_t(i)].p);
        QCOMPARE(st.value(QStringLiteral("position")).toInt(), g.steps[std::size_t(i)].position + 1);
        QCOMPARE(st.value(QStringLiteral("top")).toArray().size(), 5);
    }
    QCOMPARE(j.value(QStringLiteral("settings")).toObject().value(QStringLiteral("top_k")).toInt(), 5);

    struct Bad {
        QStringList args;
        QString message;
    };
    const QList<Bad> bad = {
        {{QStringLiteral("--temperature"), QStringLiteral("-1")},
         QStringLiteral("attention-lab-cli: model generate: --temperature: -1 is not a number of 0 (greedy) or more\n")},
        {{QStringLiteral("--top-p"), QStringLiteral("0")},
         QStringLiteral("attention-lab-cli: model generate: --top-p: 0 is outside (0, 1] (1 keeps every token)\n")},
        {{QStringLiteral("--temperature"), QStringLiteral("warm")},
         QStringLiteral("attention-lab-cli: model generate: --temperature: \"warm\" is not a number\n")},
        {{QStringLiteral("--seed"), QStringLiteral("-4")},
         QStringLiteral("attention-lab-cli: model generate: --seed: \"-4\" is not a whole number of 0 or more\n")},
    };
    for (const Bad &b : bad) {
        const auto r = test::runCliInProcess(QStringList{QStringLiteral("model"), QStringLiteral("generate"), QStringLiteral("--text"),
                                                         QStringLiteral("the")} + b.args);
        QCOMPARE(r.code, 2);
        QCOMPARE(r.err, b.message);
        QVERIFY(r.out.isEmpty());
    }
    const auto steps0 = test::runCliInProcess({QStringLiteral("model"), QStringLiteral("generate"), QStringLiteral("--text"),
                                               QStringLiteral("the"), QStringLiteral("--steps"), QStringLiteral("0")});
    QCOMPARE(steps0.code, 2);
    QVERIFY2(steps0.err.startsWith(QStringLiteral("attention-lab-cli: model generate: --steps")) && steps0.err.count(QLatin1Char('\n')) == 1,
             qPrintable(steps0.err));
}

QTEST_MAIN(TestGenerate)
#include "test_generate.moc"
