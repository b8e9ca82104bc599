// Head scores (core/model/headscores): each score on hand-made weight
// matrices against its formula, the label rule, and the built-in model's
// induction head on a repeated span against a second count of the span.

#include "attn_test.h"
#include "bpe.h"
#include "gpt2.h"
#include "grammar.h"
#include "headlabel.h"
#include "probe.h"
#include "random.h"

#include <QFile>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace attn;

namespace {

// docs/model.md: the built-in model's loss on tests/model/held-out.txt.
constexpr double kHeldOutLoss = 1.6407;

// Rows spread evenly over their open keys (row i: keys 0..i).
Matrix uniformCausal(int n)
{
    Matrix w = Matrix::Zero(n, n);
    for (int i = 0; i < n; ++i)
        w.row(i).head(i + 1).setConstant(1.0 / (i + 1));
    return w;
}

// The baseline of a position score over rows 1..n-1: the mean of 1/(i+1).
double uniformMean(int n)
{
    double sum = 0;
    for (int i = 1; i < n; ++i)
        sum += 1.0 / (i + 1);
    return sum / (n - 1);
}

// Row 0 on itself, every other row all on key `key(i)`.
template <typename F>
Matrix oneKey(int n, F key)
{
    Matrix w = Matrix::Zero(n, n);
    w(0, 0) = 1;
    for (int i = 1; i < n; ++i)
        w(i, key(i)) = 1;
    return w;
}

std::shared_ptr<const Gpt2Model> builtin()
{
    static std::shared_ptr<const Gpt2Model> m = std::get<std::shared_ptr<const Gpt2Model>>(loadBuiltinModel());
    return m;
}

// The sentences' seed: ATTN_TEST_SEED when set (to try others), else one
// fixed here; every message below names it so that a failure can be replayed.
std::uint64_t sentenceSeed()
{
    const char *env = std::getenv("ATTN_TEST_SEED");
    return env && *env ? std::strtoull(env, nullptr, 10) : 20261202;
}

std::vector<std::string> words(const std::string &sentence)
{
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < sentence.size()) {
        const std::size_t space = sentence.find(' ', at);
        const std::size_t end = space == std::string::npos ? sentence.size() : space;
        if (end > at)
            out.push_back(sentence.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

// A span of 3 to 7 words of a training-like sentence, said twice as the
// training's copy sentences say it: "say a b c . say a b c ." (Chinese: 说 … 。).
std::string repeatedSpan(Rng &rng)
{
    // Distinct words of one language (the training's spans are random words,
    // so a repeat inside the first copy is rare): only the second copy repeats.
    const bool chinese = rng.uniform() < 0.5;
    std::vector<std::string> pool;
    while (pool.size() < 7) {
        const std::string sentence = grammarSentence(rng);
        if ((static_cast<unsigned char>(sentence[0]) >= 0x80) != chinese)
            continue;
        for (const std::string &w : words(sentence))
            if (w != "." && w != "。" && w != "," && w != "，" && w != "say" && w != "说"
                && std::find(pool.begin(), pool.end(), w) == pool.end())
                pool.push_back(w);
    }
    const int length = 3 + int(rng.uniform() * 5);
    std::string span;
    for (int k = 0; k < length; ++k) {
        const std::size_t pick = std::size_t(rng.uniform() * double(pool.size()));
        span += (k ? " " : "") + pool[pick];
        pool.erase(pool.begin() + std::ptrdiff_t(pick));
    }
    return chinese ? "说 " + span + " 。 说 " + span + " 。" : "say " + span + " . say " + span + " .";
}

// The position scores again, by plain loops: the mean over rows 1..n−1 of
// w(i, key(i)) and of 1/(i+1).
template <typename Key>
std::pair<double, double> positionScore(const Matrix &w, Key key)
{
    const int n = int(w.rows());
    double score = 0, uniform = 0;
    for (int i = 1; i < n; ++i) {
        score += w(i, key(i));
        uniform += 1.0 / (i + 1);
    }
    return {score / (n - 1), uniform / (n - 1)};
}

QString scoreText(const char *name, const HeadScore &s)
{
    return QStringLiteral("%1 %2 (uniform %3, ratio %4)")
        .arg(QLatin1String(name))
        .arg(s.score, 0, 'f', 3)
        .arg(s.uniform, 0, 'f', 3)
        .arg(s.uniform > 0 ? s.score / s.uniform : 0.0, 0, 'f', 2);
}

QString allScores(const HeadScores &s)
{
    return scoreText("previous", s.previousToken) + QStringLiteral(", ") + scoreText("first", s.firstToken)
        + QStringLiteral(", ") + scoreText("self", s.self) + QStringLiteral(", ")
        + (s.induction.defined() ? scoreText("induction", s.induction) : QStringLiteral("induction undefined"))
        + QStringLiteral(", spread %1").arg(s.spread, 0, 'f', 3);
}

} // namespace

class TestHeadScores : public QObject {
    Q_OBJECT

private slots:
    void previousTokenMatrix()
    {
        const int n = 6;
        const HeadScores s = scoreHead(oneKey(n, [](int i) { return i - 1; }), {});
        ATTN_COMPARE_NEAR(s.previousToken.score, 1.0, 1e-15);
        ATTN_COMPARE_NEAR(s.previousToken.uniform, uniformMean(n), 1e-15);
        QCOMPARE(s.previousToken.rows, n - 1);
        ATTN_COMPARE_NEAR(s.firstToken.score, 1.0 / (n - 1), 1e-15); // only row 1's previous token is the first
        ATTN_COMPARE_NEAR(s.self.score, 0.0, 1e-15);
        ATTN_COMPARE_NEAR(s.spread, 0.0, 1e-15);
        ATTN_COMPARE_NEAR(s.maxWeight, 1.0, 1e-15);
        QVERIFY(!s.induction.defined()); // no ids: no repeat to speak of
        QCOMPARE(s.kind, HeadKind::PreviousToken);
        QCOMPARE(s.labelScore(), &s.previousToken);
    }

    void sinkAndSelfMatrices()
    {
        const int n = 5;
        const HeadScores sink = scoreHead(oneKey(n, [](int) { return 0; }), {});
        ATTN_COMPARE_NEAR(sink.firstToken.score, 1.0, 1e-15);
        QCOMPARE(sink.kind, HeadKind::FirstToken);
        const HeadScores self = scoreHead(Matrix::Identity(n, n), {});
        ATTN_COMPARE_NEAR(self.self.score, 1.0, 1e-15);
        ATTN_COMPARE_NEAR(self.previousToken.score, 0.0, 1e-15);
        QCOMPARE(self.kind, HeadKind::Self);
    }

    // Evenly spread rows: every score is its own baseline, the spread is 1.
    void uniformIsBroad()
    {
        for (int n : {2, 3, 8, 20}) {
            const HeadScores s = scoreHead(uniformCausal(n), {});
            for (const HeadScore *score : {&s.previousToken, &s.firstToken, &s.self})
                ATTN_COMPARE_NEAR(score->score, score->uniform, 1e-15);
            ATTN_COMPARE_NEAR(s.previousToken.uniform, uniformMean(n), 1e-15);
            ATTN_COMPARE_NEAR(s.spread, 1.0, 1e-12);
            ATTN_COMPARE_NEAR(s.maxWeight, uniformMean(n), 1e-15);
            double entropy = 0;
            for (int i = 0; i < n; ++i)
                entropy += std::log(double(i + 1)) / n;
            ATTN_COMPARE_NEAR(s.meanEntropy, entropy, 1e-12);
            QCOMPARE(s.kind, HeadKind::Broad);
            QCOMPARE(s.labelScore(), nullptr);
        }
    }

    // A mixture a·pattern + (1−a)·uniform scores a + (1−a)·baseline
    // (the scores are linear in the weights); a label only once that is
    // at least kMinScore and kMinRatio times the baseline.
    void mixtureAndThresholds()
    {
        const int n = 8;
        const double u = uniformMean(n);
        const Matrix prev = oneKey(n, [](int i) { return i - 1; });
        for (double a : {0.0, 0.05, 0.1, 0.2, 0.5, 0.9}) {
            const Matrix w = a * prev + (1 - a) * uniformCausal(n);
            const HeadScores s = scoreHead(w, {});
            const double expected = a + (1 - a) * u;
            ATTN_COMPARE_NEAR(s.previousToken.score, expected, 1e-14);
            const bool clear = expected >= kMinScore && expected >= kMinRatio * u;
            QCOMPARE(s.kind == HeadKind::PreviousToken, clear);
            if (!clear)
                QCOMPARE(s.kind, s.spread >= kBroadSpread ? HeadKind::Broad : HeadKind::Focused);
        }
    }

    // One earlier key that is no fixed position (a content head): focused.
    void contentHeadIsFocused()
    {
        const int n = 7;
        const HeadScores s = scoreHead(oneKey(n, [](int) { return 1; }), {});
        // Row 1 is on itself, row 2 on its previous token: 1/(n−1) each.
        ATTN_COMPARE_NEAR(s.self.score, 1.0 / (n - 1), 1e-15);
        ATTN_COMPARE_NEAR(s.previousToken.score, 1.0 / (n - 1), 1e-15);
        ATTN_COMPARE_NEAR(s.firstToken.score, 0.0, 1e-15);
        QCOMPARE(s.kind, HeadKind::Focused);
    }

    // "a b c x a b c": from the second a, b, c to the key after their first
    // occurrence (b, c, x); the other rows evenly spread.
    void inductionMatrix()
    {
        const std::vector<int> ids = {1, 2, 3, 9, 1, 2, 3};
        const int n = int(ids.size());
        Matrix w = uniformCausal(n);
        for (int i = 4; i < n; ++i) {
            w.row(i).setZero();
            w(i, i - 3) = 1; // the token after the first occurrence at i − 4
        }
        const HeadScores s = scoreHead(w, ids);
        QCOMPARE(s.induction.rows, 3);
        ATTN_COMPARE_NEAR(s.induction.score, 1.0, 1e-15);
        ATTN_COMPARE_NEAR(s.induction.uniform, (1.0 / 5 + 1.0 / 6 + 1.0 / 7) / 3, 1e-15);
        QCOMPARE(s.kind, HeadKind::Induction);
        // Without a repeat, or a repeat only of the token just before (no
        // key between the two), induction is not defined.
        QVERIFY(!scoreHead(w, {1, 2, 3, 4, 5, 6, 7}).induction.defined());
        QVERIFY(!scoreHead(uniformCausal(3), {4, 4, 5}).induction.defined());
        // Two earlier occurrences: the weight on both keys after them.
        const HeadScores twice = scoreHead(uniformCausal(5), {7, 1, 7, 2, 7});
        QCOMPARE(twice.induction.rows, 2); // rows 2 (after 0) and 4 (after 0 and 2)
        ATTN_COMPARE_NEAR(twice.induction.score, (1.0 / 3 + 2.0 / 5) / 2, 1e-15);
        ATTN_COMPARE_NEAR(twice.induction.uniform, twice.induction.score, 1e-15);
    }

    void tooShort()
    {
        QCOMPARE(scoreHead(Matrix::Ones(1, 1), {3}).kind, HeadKind::TooShort);
        QCOMPARE(scoreHead(Matrix(), {}).kind, HeadKind::TooShort);
    }

    // Means over texts: each score over the texts where it is defined,
    // rows added, then the same label rule.
    void meansOverTexts()
    {
        const int n = 6;
        const Matrix previous = oneKey(n, [](int i) { return i - 1; });
        const Matrix uniform = uniformCausal(n);
        const std::vector<int> noRepeat{1, 2, 3, 4, 5, 6}, repeat{1, 2, 3, 1, 2, 3};
        const HeadScores a = scoreHead(previous, noRepeat), b = scoreHead(uniform, repeat);
        QVERIFY(!a.induction.defined() && b.induction.defined());
        const HeadScores m = meanScores({a, b});
        ATTN_COMPARE_NEAR(m.previousToken.score, (1.0 + uniformMean(n)) / 2, 1e-15);
        ATTN_COMPARE_NEAR(m.previousToken.uniform, uniformMean(n), 1e-15);
        QCOMPARE(m.previousToken.rows, 2 * (n - 1));
        // Induction: only b counts.
        ATTN_COMPARE_NEAR(m.induction.score, b.induction.score, 1e-15);
        QCOMPARE(m.induction.rows, b.induction.rows);
        ATTN_COMPARE_NEAR(m.spread, (a.spread + b.spread) / 2, 1e-15);
        // (1 + 0.29) / 2 = 0.65 >= 0.3 and >= 2 x 0.29: previous token.
        QCOMPARE(m.kind, HeadKind::PreviousToken);
        QCOMPARE(meanScores({b, b}).kind, b.kind);
        QCOMPARE(meanScores({}).kind, HeadKind::TooShort);
    }

    // The built-in model on a repeated span: layer 3, head 1 is the
    // induction head (docs/model.md), its score the mean weight from each
    // repeated token to the one after its first occurrence, found here
    // again from the tokens' texts.
    void builtinInductionHead()
    {
        const ModelTrace t = std::get<ModelTrace>(runModel(*builtin(), QStringLiteral("say cat red box . say cat red")));
        const int n = int(t.texts.size());
        QVERIFY(n <= 8);
        const Matrix &w = t.layers[1].heads[0].weights; // layer 2, head 1
        double sum = 0;
        int rows = 0;
        for (int i = 0; i < n; ++i)
            for (int p = 0; p + 2 <= i; ++p)
                if (t.texts[std::size_t(p)] == t.texts[std::size_t(i)]) {
                    sum += w(i, p + 1);
                    ++rows;
                }
        QVERIFY(rows >= 2); // " cat" and " red" come again
        const HeadScores s = scoreHead(w, t.ids);
        QCOMPARE(s.induction.rows, rows);
        ATTN_COMPARE_NEAR(s.induction.score, sum / rows, 1e-12);
        QCOMPARE(s.kind, HeadKind::Induction);
        QVERIFY(s.induction.score >= kMinRatio * s.induction.uniform);
        // Every head's label is the rule's, from its own scores.
        for (const LayerActivations &layer : t.layers)
            for (const HeadActivations &h : layer.heads) {
                const HeadScores hs = scoreHead(h.weights, t.ids);
                if (const HeadScore *score = hs.labelScore()) {
                    QVERIFY(score->clear());
                    for (const HeadScore *other : {&hs.previousToken, &hs.firstToken, &hs.self, &hs.induction})
                        QVERIFY(!other->clear() || other->score <= score->score);
                } else {
                    for (const HeadScore *other : {&hs.previousToken, &hs.firstToken, &hs.self, &hs.induction})
                        QVERIFY(!other->clear());
                    QCOMPARE(hs.kind, hs.spread >= kBroadSpread ? HeadKind::Broad : HeadKind::Focused);
                }
            }
    }

    // The built-in model on sentences drawn at test time (the training's
    // grammar, seeded): every head's scores are the formulas' (counted again
    // here), its label is the rule's; on spans said twice layer 3, head 1
    // is the induction head, far above its baseline; layer 1, head 1 leads
    // the previous-token scores and layer 1, head 3 the first-token ones.
    // The loss on text the training never saw (tests/model/held-out.txt,
    // written and checked against the training text by scripts/held-out.py,
    // a ctest of its own), counted as train-model.py counts its evaluation:
    // windows of n_positions tokens, each predicting its next n_positions.
    // docs/model.md quotes the value; this holds it.
    void lossOnHeldOutText()
    {
        QFile f(test::sourceDir() + QStringLiteral("/tests/model/held-out.txt"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QCOMPARE(text.count(QLatin1Char('\n')), 400);
        const Gpt2Model &m = *builtin();
        const std::vector<int> ids = m.tokenizer.encode(text);
        const int T = m.config.nPositions;
        double sum = 0;
        int windows = 0;
        for (std::size_t i = 0; i + T + 1 <= ids.size(); i += std::size_t(T), ++windows) {
            const std::vector<int> x(ids.begin() + std::ptrdiff_t(i), ids.begin() + std::ptrdiff_t(i) + T);
            const auto r = runModelOnIds(m, x, 0);
            QVERIFY(r.ok());
            const Matrix logits = r.value().final * m.unembedding().transpose(); // T by vocab (lm_head: untied)
            double window = 0;
            for (int t = 0; t < T; ++t) {
                const double top = logits.row(t).maxCoeff();
                window += top + std::log((logits.row(t).array() - top).exp().sum()) - logits(t, ids[i + std::size_t(t) + 1]);
            }
            sum += window / T;
        }
        const double loss = sum / windows;
        qInfo("held-out loss %.4f nats over %d windows of %d tokens", loss, windows, T);
        QVERIFY(windows >= 50);
        ATTN_COMPARE_NEAR(loss, kHeldOutLoss, 5e-5);
    }

    void builtinHeadsOnSeededSentences()
    {
        const std::uint64_t seed = sentenceSeed();
        Rng rng(seed);
        const int sentences = 24;
        int inductionLabels = 0;
        double induction[3][4] = {}, inductionUniform = 0, previous[3][4] = {}, first[3][4] = {}, positionUniform = 0;
        for (int k = 0; k < sentences; ++k) {
            const std::string repeated = repeatedSpan(rng), plain = grammarSentence(rng);
            const QString where = QStringLiteral("seed %1, sentence %2").arg(seed).arg(k);
            const auto r = runModel(*builtin(), QString::fromStdString(repeated));
            const auto p = runModel(*builtin(), QString::fromStdString(plain));
            QVERIFY2(std::holds_alternative<ModelTrace>(r) && std::holds_alternative<ModelTrace>(p), qPrintable(where));
            const ModelTrace &tr = std::get<ModelTrace>(r), &tp = std::get<ModelTrace>(p);
            for (int l = 0; l < 3; ++l)
                for (int h = 0; h < 4; ++h) {
                    for (const ModelTrace *t : {&tr, &tp}) {
                        const Matrix &w = t->layers[std::size_t(l)].heads[std::size_t(h)].weights;
                        const HeadScores s = scoreHead(w, t->ids);
                        const QString head = QStringLiteral("%1, L%2 H%3 on \"%4\": %5")
                                                 .arg(where)
                                                 .arg(l + 1)
                                                 .arg(h + 1)
                                                 .arg(QString::fromStdString(t == &tr ? repeated : plain), allScores(s));
                        // The scores by the formulas, counted again.
                        const auto [prev, uPrev] = positionScore(w, [](int i) { return i - 1; });
                        const auto [sink, uSink] = positionScore(w, [](int) { return 0; });
                        const auto [self, uSelf] = positionScore(w, [](int i) { return i; });
                        QVERIFY2(std::abs(s.previousToken.score - prev) < 1e-12 && std::abs(s.previousToken.uniform - uPrev) < 1e-12,
                                 qPrintable(head));
                        QVERIFY2(std::abs(s.firstToken.score - sink) < 1e-12 && std::abs(s.firstToken.uniform - uSink) < 1e-12,
                                 qPrintable(head));
                        QVERIFY2(std::abs(s.self.score - self) < 1e-12 && std::abs(s.self.uniform - uSelf) < 1e-12, qPrintable(head));
                        // The label is the rule's, from these scores.
                        HeadKind expected = s.spread >= kBroadSpread ? HeadKind::Broad : HeadKind::Focused;
                        double best = -1;
                        const std::pair<HeadKind, const HeadScore *> kinds[] = {{HeadKind::PreviousToken, &s.previousToken},
                                                                                 {HeadKind::FirstToken, &s.firstToken},
                                                                                 {HeadKind::Self, &s.self},
                                                                                 {HeadKind::Induction, &s.induction},
                                                                                 {HeadKind::DuplicateToken, &s.duplicate}};
                        // The duplicate score by its formula: rows whose token came before, the weight on those copies.
                        double dupSum = 0, dupUniform = 0;
                        int dupRows = 0;
                        for (int i = 1; i < int(t->ids.size()); ++i) {
                            double on = 0;
                            int copies = 0;
                            for (int p = 0; p < i; ++p)
                                if (t->ids[std::size_t(p)] == t->ids[std::size_t(i)]) {
                                    on += w(i, p);
                                    ++copies;
                                }
                            if (copies) {
                                dupSum += on;
                                dupUniform += double(copies) / (i + 1);
                                ++dupRows;
                            }
                        }
                        QCOMPARE(s.duplicate.rows, dupRows);
                        if (dupRows)
                            QVERIFY2(std::abs(s.duplicate.score - dupSum / dupRows) < 1e-12
                                         && std::abs(s.duplicate.uniform - dupUniform / dupRows) < 1e-12,
                                     qPrintable(head));
                        for (const auto &[kind, score] : kinds)
                            if (score->defined() && score->score >= kMinScore && score->score >= kMinRatio * score->uniform
                                && score->score > best) {
                                best = score->score;
                                expected = kind;
                            }
                        QVERIFY2(s.kind == expected,
                                 qPrintable(head + QStringLiteral(": labelled %1, the rule says %2")
                                                       .arg(QString::fromStdString(headKindName(s.kind)),
                                                            QString::fromStdString(headKindName(expected)))));
                    }
                    const HeadScores s = scoreHead(tr.layers[std::size_t(l)].heads[std::size_t(h)].weights, tr.ids);
                    QVERIFY2(s.induction.defined(), qPrintable(where + QStringLiteral(": a span said twice has repeats")));
                    induction[l][h] += s.induction.score / sentences;
                    if (l == 1 && h == 0) {
                        inductionUniform += s.induction.uniform / sentences;
                        inductionLabels += s.kind == HeadKind::Induction;
                    }
                    const HeadScores sp = scoreHead(tp.layers[std::size_t(l)].heads[std::size_t(h)].weights, tp.ids);
                    previous[l][h] += sp.previousToken.score / sentences;
                    first[l][h] += sp.firstToken.score / sentences;
                    if (l == 0 && h == 0)
                        positionUniform += sp.previousToken.uniform / sentences;
                }
        }
        QString table;
        for (int l = 0; l < 3; ++l)
            for (int h = 0; h < 4; ++h)
                table += QStringLiteral("\n  L%1 H%2: induction %3, previous %4, first %5")
                             .arg(l + 1)
                             .arg(h + 1)
                             .arg(induction[l][h], 0, 'f', 3)
                             .arg(previous[l][h], 0, 'f', 3)
                             .arg(first[l][h], 0, 'f', 3);
        const QString means = QStringLiteral("seed %1, %2 sentences of each kind; uniform: induction %3, position scores %4; means:%5")
                                  .arg(seed)
                                  .arg(sentences)
                                  .arg(inductionUniform, 0, 'f', 3)
                                  .arg(positionUniform, 0, 'f', 3)
                                  .arg(table);
        // Layer 2, head 1 copies a span said twice far above its baseline and
        // above every layer-1 head; layer 1, head 1 is a previous-token head
        // (at least 0.7, and kMinRatio times its baseline).
        const double maxLayer1Induction = std::max({induction[0][0], induction[0][1], induction[0][2], induction[0][3]});
        QVERIFY2(induction[1][0] >= kMinRatio * inductionUniform && induction[1][0] >= 2 * maxLayer1Induction,
                 qPrintable(QStringLiteral("L2 H1 induction %1 against uniform %2 and layer 1's best %3; ")
                                .arg(induction[1][0], 0, 'f', 3)
                                .arg(inductionUniform, 0, 'f', 3)
                                .arg(maxLayer1Induction, 0, 'f', 3)
                            + means));
        QVERIFY2(inductionLabels >= sentences / 4,
                 qPrintable(QStringLiteral("L2 H1 labelled induction on %1 of %2; ").arg(inductionLabels).arg(sentences) + means));
        QVERIFY2(previous[0][0] >= 0.7 && previous[0][0] >= kMinRatio * positionUniform,
                 qPrintable(QStringLiteral("L1 H1 previous token %1 against uniform %2; ")
                                .arg(previous[0][0], 0, 'f', 3)
                                .arg(positionUniform, 0, 'f', 3)
                            + means));
    }

    // docs/model.md's named heads, on sentences drawn here with a seed the
    // training never used, with the variations that broke the old model's
    // names: layer 3, head 1 looks from the verb at its subject when an
    // adjective (and a place) stands before the verb, not at the second
    // position; some head copies random token ids said twice (the standard
    // probe over the whole vocabulary) at 0.5 or more; and layer 2, head 1
    // copies spans of words the grammar never had, with or without "say".
    void builtinNamedHeadsHold()
    {
        const std::uint64_t seed = sentenceSeed() + 7;
        Rng rng(seed);
        const std::vector<std::string> nouns = {"boy", "girl", "man", "woman", "king", "queen", "cat", "dog", "bird"};
        const std::vector<std::string> adjectives = {"big", "small", "old", "happy", "sad", "tired", "hungry"};
        const std::vector<std::string> verbs = {"sees", "likes", "helps", "finds", "chases", "loves"};
        auto pick = [&rng](const std::vector<std::string> &from) { return from[std::size_t(rng.uniform() * double(from.size()))]; };
        for (const bool place : {false, true}) {
            double onAdjective = 0, onSubject = 0, uniform = 0;
            int counted = 0;
            for (int k = 0; k < 20; ++k) {
                const std::string text = "the " + pick(adjectives) + " " + pick(nouns) + (place ? " near the tree " : " ") + pick(verbs)
                                         + " the " + pick(nouns) + " .";
                const ModelTrace t = std::get<ModelTrace>(runModel(*builtin(), QString::fromStdString(text)));
                const Eigen::Index verb = place ? 6 : 3;
                if (t.texts.size() != std::size_t(verb + 4))
                    continue; // a word of two tokens: positions would not line up
                const Matrix &w = t.layers[2].heads[0].weights;
                onAdjective += w(verb, 1);
                onSubject += w(verb, 2);
                uniform += 1.0 / double(verb + 1);
                ++counted;
            }
            QVERIFY2(counted >= 15, qPrintable(QStringLiteral("seed %1: %2 sentences of one token a word").arg(seed).arg(counted)));
            onAdjective /= counted;
            onSubject /= counted;
            uniform /= counted;
            qInfo("seed %llu%s: L3 H1 from the verb: subject %.3f, adjective %.3f (uniform %.3f)", (unsigned long long)seed,
                  place ? ", a place before the verb" : "", onSubject, onAdjective, uniform);
            QVERIFY2(onSubject >= kMinRatio * uniform && onSubject > 3 * onAdjective,
                     qPrintable(QStringLiteral("seed %1: L3 H1 from the verb: subject %2, adjective %3, uniform %4")
                                    .arg(seed)
                                    .arg(onSubject, 0, 'f', 3)
                                    .arg(onAdjective, 0, 'f', 3)
                                    .arg(uniform, 0, 'f', 3)));
        }

        // The standard probe: random ids of the whole vocabulary said twice.
        const auto scores = probeScores(*builtin(), repeatedProbe(builtin()->config.vocabSize, seed));
        QVERIFY(scores.ok());
        const HeadScores *best = nullptr;
        for (const HeadScores &h : scores.value())
            if (!best || h.induction.score > best->induction.score)
                best = &h;
        qInfo("seed %llu: best induction score on the probe %.3f (uniform %.3f)", (unsigned long long)seed, best->induction.score,
              best->induction.uniform);
        QVERIFY(best->induction.score >= 0.5 && best->induction.score >= kMinRatio * best->induction.uniform);

        // Spans of five distinct words, repeated with and without the frame:
        // words of the training's grammar, and words it never had.
        const std::vector<std::string> grammarWords = {"cat", "red", "box", "tree", "dog", "mat", "king", "girl", "car",
                                                       "book", "bird", "hat", "cup", "ball", "old", "big", "small", "happy"};
        const std::vector<std::string> newWords = {"sun", "moon", "star", "rain", "snow", "wind", "river", "hill", "road",
                                                   "door", "lamp", "milk", "gold", "ship", "sand", "leaf", "frog", "bell"};
        struct Kind {
            double score = 0, uniform = 0;
        };
        Kind kinds[2][2]; // [new words][framed]
        const int spans = 20;
        for (int k = 0; k < spans; ++k)
            for (const bool fresh : {false, true}) {
                std::vector<std::string> left = fresh ? newWords : grammarWords;
                std::string span;
                for (int j = 0; j < 5; ++j) {
                    const std::size_t at = std::size_t(rng.uniform() * double(left.size()));
                    span += (j ? " " : "") + left[at];
                    left.erase(left.begin() + std::ptrdiff_t(at));
                }
                for (const bool frame : {false, true}) {
                    const std::string text = frame ? "say " + span + " . say " + span + " ." : span + " . " + span + " .";
                    const ModelTrace t = std::get<ModelTrace>(runModel(*builtin(), QString::fromStdString(text)));
                    const HeadScores s = scoreHead(t.layers[1].heads[0].weights, t.ids);
                    QVERIFY(s.induction.defined());
                    kinds[fresh][frame].score += s.induction.score / spans;
                    kinds[fresh][frame].uniform += s.induction.uniform / spans;
                }
            }
        QString means = QStringLiteral("seed %1: L2 H1 induction:").arg(seed);
        for (const bool fresh : {false, true})
            for (const bool frame : {true, false})
                means += QStringLiteral(" %1 %2 %3 (uniform %4);")
                             .arg(fresh ? "new words" : "grammar words", frame ? "framed" : "bare")
                             .arg(kinds[fresh][frame].score, 0, 'f', 3)
                             .arg(kinds[fresh][frame].uniform, 0, 'f', 3);
        qInfo("%s", qPrintable(means));
        for (const bool fresh : {false, true})
            for (const bool frame : {false, true})
                QVERIFY2(kinds[fresh][frame].score >= kMinRatio * kinds[fresh][frame].uniform, qPrintable(means));
    }
};

QTEST_GUILESS_MAIN(TestHeadScores)
#include "test_headscores.moc"
