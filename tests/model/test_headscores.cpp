// Head scores (core/model/headscores): each score on hand-made weight
// matrices against its formula, the label rule, and the built-in model's
// induction head on a repeated span against a second count of the span.

#include "attn_test.h"
#include "bpe.h"
#include "gpt2.h"
#include "headscores.h"

#include <QTest>

#include <cmath>

using namespace attn;

namespace {

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

    // The built-in model on a repeated span: layer 3, head 1 is the
    // induction head (docs/model.md), its score the mean weight from each
    // repeated token to the one after its first occurrence, found here
    // again from the tokens' texts.
    void builtinInductionHead()
    {
        const ModelTrace t = std::get<ModelTrace>(runModel(*builtin(), QStringLiteral("say cat red box . say cat red")));
        const int n = int(t.texts.size());
        QVERIFY(n <= 8);
        const Matrix &w = t.layers[2].heads[0].weights;
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
};

QTEST_GUILESS_MAIN(TestHeadScores)
#include "test_headscores.moc"
