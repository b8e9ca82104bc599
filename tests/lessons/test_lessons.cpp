// The built-in lessons, worked by hand. Every expected number comes from the
// formulas: scores are the dot products written out, weights are
// e^(s_j/√2) / Σ e^(s_k/√2) over the open keys, and the ten-digit literals
// were worked from those. The seeds' own printouts are wrong in places (see
// docs/lessons.md) and are never used as expectations.

#include "attention.h"
#include "attn_test.h"
#include "lessons.h"
#include "scenario_json.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QTest>

#include <cmath>

using namespace attn;
using attn::test::num;
using attn::test::Rows;

namespace {

// The lessons' numbers as the window computes them: the scaled stage
// derived from the scores, not stored (app/document/document.cpp).
const ComputeOptions kAsTheWindow{.keepScaled = false};

const double kSqrt2 = std::sqrt(2.0);

// The lessons this file works by hand; a new lesson must be added here.
const QStringList kHandWorked{"seed000-basic", "seed000-variant", "seed001-selftest", "seed001-soft-knn",
                              "permutation",   "permutation-swapped", "causal",        "padding",
                              "mask-after-softmax", "sliding-window", "multihead", "cross-attention",
                              // A/B pairs: B of each, worked against its A in tests/compare.
                              "compare-scaling-none", "compare-scaling-dk", "compare-mask-stage",
                              "compare-word-order", "compare-encoding",
                              "induction-head"};

// softmax(scores / divisor) over the open entries, blocked ones 0: the
// formula applied to a row of hand-worked scores.
std::vector<double> softmaxByHand(const std::vector<double> &scores, double divisor,
                                  const std::vector<bool> &blocked = {})
{
    double z = 0;
    for (std::size_t j = 0; j < scores.size(); ++j)
        if (blocked.empty() || !blocked[j])
            z += std::exp(scores[j] / divisor);
    std::vector<double> w;
    for (std::size_t j = 0; j < scores.size(); ++j)
        w.push_back(blocked.empty() || !blocked[j] ? std::exp(scores[j] / divisor) / z : 0.0);
    return w;
}

Rows softmaxRowsByHand(const Rows &scores, double divisor, const std::vector<std::vector<bool>> &blocked = {})
{
    Rows out;
    for (std::size_t i = 0; i < scores.size(); ++i)
        out.push_back(softmaxByHand(scores[i], divisor, blocked.empty() ? std::vector<bool>{} : blocked[i]));
    return out;
}

Rows divided(Rows scores, double divisor)
{
    for (auto &row : scores)
        for (double &x : row)
            x /= divisor;
    return scores;
}

Rows times(const Rows &a, const Rows &b)
{
    Rows out(a.size(), std::vector<double>(b[0].size(), 0.0));
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < b[0].size(); ++j)
            for (std::size_t k = 0; k < b.size(); ++k)
                out[i][j] += a[i][k] * b[k][j];
    return out;
}

double entropyOf(const std::vector<double> &w)
{
    double h = 0;
    for (double x : w)
        if (x > 0)
            h -= x * std::log(x);
    return h;
}

std::vector<std::vector<bool>> causalBlocked(int n)
{
    std::vector<std::vector<bool>> b(static_cast<std::size_t>(n), std::vector<bool>(static_cast<std::size_t>(n)));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            b[std::size_t(i)][std::size_t(j)] = j > i;
    return b;
}

// The lesson, or a failure naming the problem.
#define LOAD_LESSON(var, name)                                                                              \
    const ScenarioOrProblem var##Loaded_ = loadLesson(QStringLiteral(name));                               \
    if (const auto *var##Problem_ = std::get_if<Problem>(&var##Loaded_))                                   \
        QFAIL(qPrintable(QStringLiteral(name ": ") + QString::fromStdString(var##Problem_->toString())));   \
    const Scenario &var = std::get<Scenario>(var##Loaded_)

// The causal lesson's q·k, worked by hand (mask-after-softmax shares its Q and K).
// Q rows (.5,.5), (1,0), (0,1), (1,1), (-1,.5); K rows (1,0), (.5,1), (-.5,1), (1,1), (.2,-1).
Rows causalLessonScores()
{
    return {{0.5, 0.75, 0.25, 1, -0.4},
            {1, 0.5, -0.5, 1, 0.2},
            {0, 1, 1, 1, -1},
            {1, 1.5, 0.5, 2, -0.8},
            {-1, 0, 1, -0.5, -0.7}};
}

} // namespace

Q_DECLARE_METATYPE(attn::Encoding)

class TestLessons : public QObject {
    Q_OBJECT

private slots:
    // Every lesson is listed, loads, and is worked by hand below.
    void indexListsEveryLesson()
    {
        const QStringList index = lessonIndex();
        QCOMPARE(QSet<QString>(index.begin(), index.end()), QSet<QString>(kHandWorked.begin(), kHandWorked.end()));
        QCOMPARE(index.size(), kHandWorked.size()); // no name twice
        const QList<LessonInfo> lessons = builtInLessons();
        QCOMPARE(lessons.size(), index.size()); // none failed to load
        for (qsizetype i = 0; i < lessons.size(); ++i) {
            QCOMPARE(lessons[i].name, index[i]);
            QVERIFY2(!lessons[i].title.isEmpty() && !lessons[i].description.isEmpty(), qPrintable(index[i]));
        }
        // Every lesson file in the source tree is in the index.
        const QDir dir(test::sourceDir() + QStringLiteral("/resources/lessons"));
        QVERIFY2(dir.exists(), qPrintable(dir.path()));
        for (const QString &file : dir.entryList({QStringLiteral("*.json")}, QDir::Files)) {
            if (file == QLatin1String("index.json"))
                continue;
            QVERIFY2(index.contains(QFileInfo(file).completeBaseName()), qPrintable(file + QStringLiteral(" is not in index.json")));
        }
    }

    // Seed 000 prints its weights (and output, V = I) as [0.8756, 0.0266,
    // 0.0978]; the lesson file lists those as misprints, and the formula's
    // numbers, worked by hand, differ from each.
    void seed000MisprintsAreListed()
    {
        LOAD_LESSON(s, "seed000-basic");
        const std::vector<Misprint> m = misprintsOf(s);
        QCOMPARE(int(m.size()), 6);
        const double printed[] = {0.8756, 0.0266, 0.0978};
        const double e[] = {std::exp(4 / std::sqrt(2.0)), 1, std::exp(2 / std::sqrt(2.0))};
        const double sum = e[0] + e[1] + e[2];
        const Trace t = compute(s);
        for (int i = 0; i < 6; ++i) {
            QCOMPARE(m[i].stage, std::string(i < 3 ? "weights" : "output"));
            QCOMPARE(m[i].row, 0);
            QCOMPARE(m[i].col, i % 3);
            QCOMPARE(m[i].printed, printed[i % 3]);
            const Matrix &shown = i < 3 ? t.heads[0].weights : t.heads[0].output;
            QVERIFY(std::abs(shown(0, i % 3) - e[i % 3] / sum) < 1e-12);
            QVERIFY(std::abs(m[i].printed - e[i % 3] / sum) > 0.01); // a misprint, not a rounding
        }
        // The other lessons print nothing wrong that we know of.
        for (const QString &name : lessonIndex())
            if (name != QLatin1String("seed000-basic"))
                QVERIFY2(misprintsOf(std::get<Scenario>(loadLesson(name))).empty(), qPrintable(name));
    }

    void unknownLessonNamesTheOthers()
    {
        const ScenarioOrProblem r = loadLesson(QStringLiteral("nosuch"));
        const auto *p = std::get_if<Problem>(&r);
        QVERIFY(p);
        const QString message = QString::fromStdString(p->toString());
        QVERIFY2(message.contains(QLatin1String("nosuch")) && message.contains(QLatin1String("seed000-basic"))
                     && message.contains(QLatin1String("cross-attention")),
                 qPrintable(message));
    }

    void everyLessonComputes_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &name : lessonIndex())
            QTest::newRow(qPrintable(name)) << name;
    }

    void everyLessonComputes()
    {
        QFETCH(QString, name);
        const ScenarioOrProblem r = loadLesson(name);
        const auto *s = std::get_if<Scenario>(&r);
        QVERIFY2(s, s ? "" : std::get<Problem>(r).toString().c_str());
        QVERIFY(!validate(*s).has_value());
        const Trace t = compute(*s, kAsTheWindow);
        for (const HeadTrace &h : t.heads) {
            ATTN_VERIFY_NO_MISMATCH(test::nonFinite(h.weights), name);
            ATTN_VERIFY_NO_MISMATCH(test::nonFinite(h.output), name);
        }
        ATTN_VERIFY_NO_MISMATCH(test::nonFinite(t.output), name);
        // Labels: one per query row and one per key row.
        QCOMPARE(int(queryLabels(*s).size()), queryCount(*s));
        QCOMPARE(int(keyLabels(*s).size()), keyCount(*s));
    }

    // Seed 000's worked example, its variant and seed 001's self-test: one
    // query against three keys, d_k = 2, V = I₃ so the output is the weights.
    void oneQueryLessons_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QList<double>>("scores");      // q·k_j by hand
        QTest::addColumn<QList<double>>("weights");     // e^(s_j/√2) / Σ e^(s_k/√2)
        QTest::addColumn<QList<double>>("tenDigits");   // the same, worked out
        QTest::addColumn<int>("argmax");
        QTest::addColumn<double>("entropy");

        // q = [2, 0]; keys [2, 0], [0, 2], [1, 1]: scores 4, 0, 2; scaled 2√2, 0, √2.
        const double zBasic = std::exp(2 * kSqrt2) + 1 + std::exp(kSqrt2);
        QTest::newRow("seed000-basic")
            << "seed000-basic" << QList<double>{4, 0, 2}
            << QList<double>{std::exp(2 * kSqrt2) / zBasic, 1 / zBasic, std::exp(kSqrt2) / zBasic}
            << QList<double>{0.7679179361, 0.04538836291, 0.1866937009} << 0 << 0.6564748462;
        QTest::newRow("seed000-variant")
            << "seed000-variant" << QList<double>{0, 4, 2}
            << QList<double>{1 / zBasic, std::exp(2 * kSqrt2) / zBasic, std::exp(kSqrt2) / zBasic}
            << QList<double>{0.04538836291, 0.7679179361, 0.1866937009} << 1 << 0.6564748462;
        // q = (1, 0); keys (1, 0), (0, 1), (-1, 0): scores 1, 0, -1; scaled 1/√2, 0, -1/√2.
        const double zSelf = std::exp(1 / kSqrt2) + 1 + std::exp(-1 / kSqrt2);
        QTest::newRow("seed001-selftest")
            << "seed001-selftest" << QList<double>{1, 0, -1}
            << QList<double>{std::exp(1 / kSqrt2) / zSelf, 1 / zSelf, std::exp(-1 / kSqrt2) / zSelf}
            << QList<double>{0.5759753452, 0.2839954097, 0.1400292450} << 0 << 0.9505367602;
    }

    void oneQueryLessons()
    {
        QFETCH(QString, name);
        QFETCH(QList<double>, scores);
        QFETCH(QList<double>, weights);
        QFETCH(QList<double>, tenDigits);
        QFETCH(int, argmax);
        QFETCH(double, entropy);
        const ScenarioOrProblem r = loadLesson(name);
        QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(name));
        const Trace t = compute(std::get<Scenario>(r), kAsTheWindow);
        QCOMPARE(t.heads.size(), std::size_t(1));
        const HeadTrace &h = t.heads[0];
        QCOMPARE(h.weights.rows(), Eigen::Index(1));
        QCOMPARE(h.weights.cols(), Eigen::Index(3));
        ATTN_COMPARE_NEAR(t.divisor, kSqrt2, 1e-15);
        for (int j = 0; j < 3; ++j) {
            ATTN_COMPARE_NEAR(h.scores(0, j), scores[j], 1e-15);
            ATTN_COMPARE_NEAR(h.scaledAt(0, j), scores[j] / kSqrt2, 1e-15);
            ATTN_COMPARE_NEAR(h.weights(0, j), weights[j], 1e-15);
            ATTN_COMPARE_NEAR(h.weights(0, j), tenDigits[j], 1e-10);
            ATTN_COMPARE_NEAR(t.output(0, j), weights[j], 1e-15); // V = I
        }
        QCOMPARE(h.rows[0].argmax, argmax);
        ATTN_COMPARE_NEAR(h.rows[0].maxWeight, weights[argmax], 1e-15);
        ATTN_COMPARE_NEAR(h.rows[0].sum, 1.0, 1e-15);
        ATTN_COMPARE_NEAR(h.rows[0].entropy, entropy, 1e-10);
        ATTN_COMPARE_NEAR(h.rows[0].entropy, entropyOf({weights[0], weights[1], weights[2]}), 1e-14);
        QVERIFY(!h.rows[0].fullyMasked);
        if (name.startsWith(QLatin1String("seed000"))) {
            // Seed 000 prints [0.8756, 0.0266, 0.0978]: not what the formula gives.
            QVERIFY(std::abs(h.rows[0].maxWeight - 0.8756) > 0.1);
        }
    }

    // Six 2-D tokens with Q = K = V; q1 = k1 = (1.0, 0.2). k1 and k2 win, k6 gets least.
    void softKnn()
    {
        LOAD_LESSON(s, "seed001-soft-knn");
        const Trace t = compute(s, kAsTheWindow);
        const HeadTrace &h = t.heads[0];
        // Scores q_i·k_j of t1 (1, .2), t2 (.8, .6), t3 (.1, 1), t4 (-.6, .7), t5 (-.4, -.9), t6 (-.9, -.3).
        const Rows scores{{1.04, 0.92, 0.30, -0.46, -0.58, -0.96},
                          {0.92, 1.00, 0.68, -0.06, -0.86, -0.90},
                          {0.30, 0.68, 1.01, 0.64, -0.94, -0.39},
                          {-0.46, -0.06, 0.64, 0.85, -0.39, 0.33},
                          {-0.58, -0.86, -0.94, -0.39, 0.97, 0.63},
                          {-0.96, -0.90, -0.39, 0.33, 0.63, 0.90}};
        ATTN_COMPARE_MATRIX(h.scores, scores, 1e-15);
        ATTN_COMPARE_MATRIX(h.scaledMatrix(), divided(scores, kSqrt2), 1e-15);
        const Rows weights = softmaxRowsByHand(scores, kSqrt2);
        ATTN_COMPARE_MATRIX(h.weights, weights, 1e-15);
        const Rows points{{1, 0.2}, {0.8, 0.6}, {0.1, 1}, {-0.6, 0.7}, {-0.4, -0.9}, {-0.9, -0.3}};
        ATTN_COMPARE_MATRIX(t.output, times(weights, points), 1e-15);

        const Rows row0{{0.2925141319, 0.2687173721, 0.1733398228, 0.1012763387, 0.09303725404, 0.07111508051}};
        ATTN_COMPARE_MATRIX(h.weights.topRows(1), row0, 1e-10);
        const Rows out0{{0.3628377345, 0.3588984567}};
        ATTN_COMPARE_MATRIX(t.output.topRows(1), out0, 1e-10);
        // The story of the lesson: k1 first, k2 second, k6 last.
        QCOMPARE(h.rows[0].argmax, 0);
        Eigen::Index least = 0;
        h.weights.row(0).minCoeff(&least);
        QCOMPARE(least, Eigen::Index(5));
        QVERIFY(h.weights(0, 1) > h.weights(0, 2));
        // Each token is its own nearest neighbour.
        for (int i = 0; i < 6; ++i) {
            QCOMPARE(h.rows[std::size_t(i)].argmax, i);
            ATTN_COMPARE_NEAR(h.rows[std::size_t(i)].entropy, entropyOf(weights[std::size_t(i)]), 1e-14);
        }
        ATTN_COMPARE_NEAR(h.rows[0].entropy, 1.657312423, 1e-9);
    }

    // 我 打 你: Q = X Wq, K = X Wk, V = X Wv worked out; then the reversed sentence.
    void permutation()
    {
        LOAD_LESSON(s, "permutation");
        const Trace t = compute(s, kAsTheWindow);
        const HeadTrace &h = t.heads[0];
        const Rows Q{{1, 0.45}, {0.4, 1}, {1.05, -0.25}};
        const Rows K{{1.07, 0.4}, {0.18, 1.32}, {0.47, 0.33}};
        const Rows V{{1, -0.3}, {0.7, 1.6}, {1.2, 0.8}};
        ATTN_COMPARE_MATRIX(h.Q, Q, 1e-15);
        ATTN_COMPARE_MATRIX(h.K, K, 1e-15);
        ATTN_COMPARE_MATRIX(h.V, V, 1e-15);
        const Rows scores{{1.25, 0.774, 0.6185}, {0.828, 1.392, 0.518}, {1.0235, -0.141, 0.411}};
        ATTN_COMPARE_MATRIX(h.scores, scores, 1e-15);
        ATTN_COMPARE_MATRIX(h.scaledMatrix(), divided(scores, kSqrt2), 1e-15);
        const Rows weights = softmaxRowsByHand(scores, kSqrt2);
        ATTN_COMPARE_MATRIX(h.weights, weights, 1e-15);
        ATTN_COMPARE_MATRIX(t.output, times(weights, V), 1e-14);
        const Rows row0{{0.4248004963, 0.3033953712, 0.2718041325}};
        ATTN_COMPARE_MATRIX(h.weights.topRows(1), row0, 1e-10);
        const Rows out0{{0.9633422151, 0.5754357510}};
        ATTN_COMPARE_MATRIX(t.output.topRows(1), out0, 1e-10);
    }

    // 你 打 我 is 我 打 你 reversed: without an encoding its weights are the
    // first lesson's with rows and columns reversed; with one, they are not.
    void permutationSwapped_data()
    {
        QTest::addColumn<Encoding>("encoding");
        QTest::addColumn<bool>("sameUpToOrder");
        QTest::newRow("none") << Encoding::None << true;
        QTest::newRow("sinusoidal") << Encoding::Sinusoidal << false;
        QTest::newRow("learned") << Encoding::Learned << false;
        QTest::newRow("rope") << Encoding::Rope << false;
    }

    void permutationSwapped()
    {
        QFETCH(Encoding, encoding);
        QFETCH(bool, sameUpToOrder);
        LOAD_LESSON(a, "permutation");
        LOAD_LESSON(b, "permutation-swapped");
        QVERIFY(b.tokens == (std::vector<std::string>{"你", "打", "我"}));
        Scenario sa = a, sb = b;
        sa.encoding = sb.encoding = encoding;
        const Trace ta = compute(sa, kAsTheWindow), tb = compute(sb, kAsTheWindow);
        double worst = 0;
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j)
                worst = std::max(worst, std::abs(tb.heads[0].weights(2 - i, 2 - j) - ta.heads[0].weights(i, j)));
            for (int c = 0; c < 2; ++c)
                worst = std::max(worst, std::abs(tb.output(2 - i, c) - ta.output(i, c)));
        }
        if (sameUpToOrder) {
            ATTN_COMPARE_NEAR(worst, 0.0, 1e-15);
            // 我 in 你 打 我 (row 2) weighs 你, 打, 我 as 我 in 我 打 你 weighs 我, 打, 你 reversed.
            const Rows row2{{0.2718041325, 0.3033953712, 0.4248004963}};
            ATTN_COMPARE_MATRIX(tb.heads[0].weights.bottomRows(1), row2, 1e-10);
        } else {
            QVERIFY2(worst > 0.1, qPrintable(QStringLiteral("the orders differ by only %1").arg(num(worst))));
        }
    }

    // Five tokens, causal: row i spreads its weight over keys 0..i.
    // A hand-written induction head on "a b c a b", unscaled, causal: the
    // second "a" looks at "b" (key 2), the second "b" at "c" (key 3);
    // the first three rows have q = 0 and spread evenly.
    void inductionHead()
    {
        LOAD_LESSON(s, "induction-head");
        const Trace t = compute(s, kAsTheWindow);
        const HeadTrace &h = t.heads[0];
        const Rows scores{{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 4, 0, 0, 0}, {0, 0, 4, 0, 0}};
        ATTN_COMPARE_MATRIX(h.scores, scores, 0.0);
        const double e4 = std::exp(4.0);
        const Rows weights{{1, 0, 0, 0, 0},
                           {0.5, 0.5, 0, 0, 0},
                           {1 / 3.0, 1 / 3.0, 1 / 3.0, 0, 0},
                           {1 / (e4 + 3), e4 / (e4 + 3), 1 / (e4 + 3), 1 / (e4 + 3), 0},
                           {1 / (e4 + 4), 1 / (e4 + 4), e4 / (e4 + 4), 1 / (e4 + 4), 1 / (e4 + 4)}};
        ATTN_COMPARE_MATRIX(h.weights, weights, 1e-15);
        // The notes' number: row 4's weight on key 2 is e⁴ / (e⁴ + 3) = 0.948.
        ATTN_COMPARE_NEAR(h.weights(3, 1), 0.9479, 5e-5);
        QCOMPARE(s.quiz.size(), std::size_t(1));
        QCOMPARE(s.quiz[0].view, std::string("training"));
    }

    void causal()
    {
        LOAD_LESSON(s, "causal");
        const Trace t = compute(s, kAsTheWindow);
        const HeadTrace &h = t.heads[0];
        const Rows scores = causalLessonScores();
        ATTN_COMPARE_MATRIX(h.scores, scores, 1e-15);
        ATTN_COMPARE_MATRIX(h.scaledMatrix(), divided(scores, kSqrt2), 1e-15);
        const Rows weights = softmaxRowsByHand(scores, kSqrt2, causalBlocked(5));
        ATTN_COMPARE_MATRIX(h.weights, weights, 1e-15);
        for (int i = 0; i < 5; ++i)
            for (int j = i + 1; j < 5; ++j) {
                QVERIFY(t.blocked(i, j));
                ATTN_CHECK(h.weights(i, j) == 0.0, QStringLiteral("weight (%1, %2) is %3").arg(i).arg(j).arg(num(h.weights(i, j))));
            }
        // Row 1 can only look at itself.
        QCOMPARE(h.weights(0, 0), 1.0);
        QCOMPARE(h.rows[0].entropy, 0.0);
        const Rows V{{1, 0}, {0, 1}, {1, 1}, {-1, 0}, {0, -1}};
        ATTN_COMPARE_MATRIX(t.output, times(weights, V), 1e-15);
        // Row 2: e^(1/√2) and e^(.5/√2) between two keys.
        const double z1 = std::exp(1 / kSqrt2) + std::exp(0.5 / kSqrt2);
        ATTN_COMPARE_NEAR(h.weights(1, 0), std::exp(1 / kSqrt2) / z1, 1e-15);
        const Rows row3{{0.1940081550, 0.2762907035, 0.1362302956, 0.3934708458, 0}};
        ATTN_COMPARE_MATRIX(h.weights.row(3), row3, 1e-10);
        const Rows out1{{0.5874790008, 0.4125209992}};
        ATTN_COMPARE_MATRIX(t.output.row(1), out1, 1e-10);
        for (int i = 0; i < 5; ++i) {
            ATTN_COMPARE_NEAR(h.rows[std::size_t(i)].sum, 1.0, 1e-15);
            ATTN_COMPARE_NEAR(h.rows[std::size_t(i)].entropy, entropyOf(weights[std::size_t(i)]), 1e-14);
        }
        QCOMPARE(h.rows[3].argmax, 3);
        QCOMPARE(h.rows[4].argmax, 2);
    }

    // Five tokens, Q = K = V, a window of W = 3: row i spreads its weight over
    // the keys with |i - j| < 3, and the two "the"s do not see each other.
    void slidingWindow()
    {
        LOAD_LESSON(s, "sliding-window");
        QCOMPARE(queryCount(s), 5);
        QCOMPARE(s.mask.window, 3);
        QVERIFY(!s.mask.causal);
        const Rows X{{0, 1}, {1, 0}, {-1, 0.5}, {0, 1}, {1, 0.5}}; // the dog saw the cat
        Rows scores(5, std::vector<double>(5, 0.0));
        std::vector<std::vector<bool>> blocked(5, std::vector<bool>(5));
        int open = 0;
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t j = 0; j < 5; ++j) {
                scores[i][j] = X[i][0] * X[j][0] + X[i][1] * X[j][1];
                blocked[i][j] = (i > j ? i - j : j - i) >= 3;
                open += !blocked[i][j];
            }
        QCOMPARE(open, 3 + 4 + 5 + 4 + 3); // a band of five, cut at the ends
        const Trace t = compute(s, kAsTheWindow);
        const HeadTrace &h = t.heads[0];
        ATTN_COMPARE_MATRIX(h.scores, scores, 1e-15);
        const Rows weights = softmaxRowsByHand(scores, kSqrt2, blocked);
        ATTN_COMPARE_MATRIX(h.weights, weights, 1e-15);
        ATTN_COMPARE_MATRIX(t.output, times(weights, X), 1e-14);
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t j = 0; j < 5; ++j)
                QCOMPARE(bool(t.blocked(int(i), int(j))), bool(blocked[i][j]));
        // Row 1 ("the"): keys the, dog, saw with scores 1, 0, 0.5; the "the" at 4 is blocked.
        const double z = std::exp(1 / kSqrt2) + 1 + std::exp(0.5 / kSqrt2);
        ATTN_COMPARE_NEAR(h.weights(0, 0), std::exp(1 / kSqrt2) / z, 1e-15);
        ATTN_COMPARE_NEAR(h.weights(0, 1), 1 / z, 1e-15);
        QCOMPARE(h.weights(0, 3), 0.0);
        for (int i = 0; i < 5; ++i)
            ATTN_COMPARE_NEAR(h.rows[std::size_t(i)].sum, 1.0, 1e-15);
    }

    // The [PAD] columns are zero in every row; the [PAD] queries (0, 0)
    // spread evenly over the three words.
    void padding()
    {
        LOAD_LESSON(s, "padding");
        const Trace t = compute(s, kAsTheWindow);
        const HeadTrace &h = t.heads[0];
        const Rows scores{{1.15, 0.6, -0.8, 1.35, 1.35},
                          {0.5, 1.02, 0.2, 1.08, 1.08},
                          {-0.62, 0.52, 1.04, -0.18, -0.18},
                          {0, 0, 0, 0, 0},
                          {0, 0, 0, 0, 0}};
        ATTN_COMPARE_MATRIX(h.scores, scores, 1e-15);
        ATTN_COMPARE_MATRIX(h.scaledMatrix(), divided(scores, kSqrt2), 1e-15);
        const std::vector<bool> padded{false, false, false, true, true};
        const Rows weights = softmaxRowsByHand(scores, kSqrt2, std::vector<std::vector<bool>>(5, padded));
        ATTN_COMPARE_MATRIX(h.weights, weights, 1e-15);
        for (int i = 0; i < 5; ++i) {
            QCOMPARE(h.weights(i, 3), 0.0);
            QCOMPARE(h.weights(i, 4), 0.0);
            ATTN_COMPARE_NEAR(h.rows[std::size_t(i)].sum, 1.0, 1e-15);
        }
        // Without padding the [PAD] keys would win row 1 (score 1.35 > 1.15).
        QCOMPARE(h.rows[0].argmax, 0);
        const Rows row0{{0.5182254465, 0.3512512020, 0.1305233515, 0, 0}};
        ATTN_COMPARE_MATRIX(h.weights.row(0), row0, 1e-10);
        for (int i = 3; i < 5; ++i) {
            for (int j = 0; j < 3; ++j)
                ATTN_COMPARE_NEAR(h.weights(i, j), 1.0 / 3, 1e-15);
            ATTN_COMPARE_NEAR(h.rows[std::size_t(i)].entropy, std::log(3.0), 1e-15);
            ATTN_COMPARE_NEAR(t.output(i, 0), 0.0, 1e-15); // (1 + 0 - 1) / 3
            ATTN_COMPARE_NEAR(t.output(i, 1), 1.0 / 3, 1e-15);
        }
        const Rows V{{1, 0}, {0, 1}, {-1, 0}, {0, 0}, {0, 0}};
        ATTN_COMPARE_MATRIX(t.output, times(weights, V), 1e-15);
    }

    // The causal lesson masked after the softmax: each row keeps the full
    // softmax's weights on keys 0..i, so rows 1-4 sum below 1.
    void maskAfterSoftmax()
    {
        LOAD_LESSON(s, "mask-after-softmax");
        QVERIFY(s.maskStage == MaskStage::AfterSoftmax);
        const Trace t = compute(s, kAsTheWindow);
        const HeadTrace &h = t.heads[0];
        const Rows scores = causalLessonScores();
        ATTN_COMPARE_MATRIX(h.scores, scores, 1e-15);
        ATTN_COMPARE_MATRIX(h.scaledMatrix(), divided(scores, kSqrt2), 1e-15);
        Rows weights = softmaxRowsByHand(scores, kSqrt2); // over the whole row
        for (int i = 0; i < 5; ++i)
            for (int j = i + 1; j < 5; ++j)
                weights[std::size_t(i)][std::size_t(j)] = 0; // then zeroed, not renormalised
        ATTN_COMPARE_MATRIX(h.weights, weights, 1e-15);
        // Row 1 sums to e^(.5/√2) / Σ_j e^(s_j/√2).
        double z0 = 0;
        for (double x : scores[0])
            z0 += std::exp(x / kSqrt2);
        ATTN_COMPARE_NEAR(h.rows[0].sum, std::exp(0.5 / kSqrt2) / z0, 1e-15);
        const double sums[5] = {0.2006160258, 0.4706876763, 0.6672764885, 0.9484681082, 1.0};
        for (int i = 0; i < 5; ++i) {
            double sum = 0;
            for (double w : weights[std::size_t(i)])
                sum += w;
            ATTN_COMPARE_NEAR(h.rows[std::size_t(i)].sum, sum, 1e-15);
            ATTN_COMPARE_NEAR(h.weights.row(i).sum(), sums[i], 1e-10);
            if (i < 4)
                QVERIFY2(h.rows[std::size_t(i)].sum < 1, qPrintable(num(h.rows[std::size_t(i)].sum)));
            ATTN_COMPARE_NEAR(h.rows[std::size_t(i)].entropy, entropyOf(weights[std::size_t(i)]), 1e-14);
            QVERIFY(!h.rows[std::size_t(i)].fullyMasked);
        }
        ATTN_COMPARE_NEAR(h.rows[0].entropy, 0.3222620642, 1e-10);
        const Rows V{{1, 0}, {0, 1}, {1, 1}, {-1, 0}, {0, -1}};
        ATTN_COMPARE_MATRIX(t.output, times(weights, V), 1e-15);
    }

    // Two heads over one-hot embeddings (so Q, K, V are the rows of the Ws):
    // head 1 looks at the previous token, head 2 at 猫 in every row.
    void multihead()
    {
        LOAD_LESSON(s, "multihead");
        QCOMPARE(s.heads, 2);
        QCOMPARE(modelWidth(s), 4);
        const Trace t = compute(s, kAsTheWindow);
        QCOMPARE(t.dk, 2);
        QCOMPARE(t.dv, 2);
        const HeadTrace &h1 = t.heads[0], &h2 = t.heads[1];
        const Rows scores1{{4, 0, -4, 0}, {4, 0, -4, 0}, {0, 4, 0, -4}, {-4, 0, 4, 0}};
        const Rows scores2{{4, 0, 0, -2}, {4, 0, 0, -2}, {4, 0, 0, -2}, {4, 0, 0, -2}};
        ATTN_COMPARE_MATRIX(h1.scores, scores1, 1e-15);
        ATTN_COMPARE_MATRIX(h2.scores, scores2, 1e-15);
        ATTN_COMPARE_MATRIX(h1.scaledMatrix(), divided(scores1, kSqrt2), 1e-15);
        ATTN_COMPARE_MATRIX(h2.scaledMatrix(), divided(scores2, kSqrt2), 1e-15);
        const Rows w1 = softmaxRowsByHand(scores1, kSqrt2), w2 = softmaxRowsByHand(scores2, kSqrt2);
        ATTN_COMPARE_MATRIX(h1.weights, w1, 1e-15);
        ATTN_COMPARE_MATRIX(h2.weights, w2, 1e-15);

        // Head 1: a shifted diagonal (the first token, with nobody before it, looks at itself).
        const int previous[4] = {0, 0, 1, 2};
        const double top1 = std::exp(2 * kSqrt2) / (std::exp(2 * kSqrt2) + 2 + std::exp(-2 * kSqrt2));
        const double top2 = std::exp(2 * kSqrt2) / (std::exp(2 * kSqrt2) + 2 + std::exp(-kSqrt2));
        ATTN_COMPARE_NEAR(top1, 0.8915000073, 1e-10);
        ATTN_COMPARE_NEAR(top2, 0.8829389873, 1e-10);
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(h1.rows[std::size_t(i)].argmax, previous[i]);
            ATTN_COMPARE_NEAR(h1.rows[std::size_t(i)].maxWeight, top1, 1e-15);
            // Head 2: everyone looks at 猫.
            QCOMPARE(h2.rows[std::size_t(i)].argmax, 0);
            ATTN_COMPARE_NEAR(h2.rows[std::size_t(i)].maxWeight, top2, 1e-15);
        }
        // The heads disagree where the previous token is not 猫.
        QVERIFY(h1.rows[2].argmax != h2.rows[2].argmax && h1.rows[3].argmax != h2.rows[3].argmax);

        // V per head is the rows of Wv's two column pairs; concat = [out1 out2]; no Wo.
        const Rows V1{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}, V2{{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        const Rows o1 = times(w1, V1), o2 = times(w2, V2);
        Rows concat;
        for (int i = 0; i < 4; ++i)
            concat.push_back({o1[std::size_t(i)][0], o1[std::size_t(i)][1], o2[std::size_t(i)][0], o2[std::size_t(i)][1]});
        ATTN_COMPARE_MATRIX(t.concat, concat, 1e-15);
        ATTN_COMPARE_MATRIX(t.output, t.concat, 0.0); // no Wo: output is the concatenation
        // Row 1 of head 1: e^(2√2) - e^(-2√2) over the same denominator.
        ATTN_COMPARE_NEAR(t.concat(0, 0), 0.8883855616, 1e-10);
    }

    // Queries from 我 爱 你, keys and values from "I love you .": 3 by 4.
    void crossAttention()
    {
        LOAD_LESSON(s, "cross-attention");
        QVERIFY(s.source.has_value());
        QCOMPARE(queryCount(s), 3);
        QCOMPARE(keyCount(s), 4);
        QVERIFY(keyLabels(s) == (std::vector<std::string>{"I", "love", "you", "."}));
        const Trace t = compute(s, kAsTheWindow);
        const HeadTrace &h = t.heads[0];
        QCOMPARE(h.scores.rows(), Eigen::Index(3));
        QCOMPARE(h.scores.cols(), Eigen::Index(4));
        QCOMPARE(h.weights.rows(), Eigen::Index(3));
        QCOMPARE(h.weights.cols(), Eigen::Index(4));
        QCOMPARE(t.blocked.rows(), Eigen::Index(3));
        QCOMPARE(t.blocked.cols(), Eigen::Index(4));
        QCOMPARE(t.output.rows(), Eigen::Index(3));
        QCOMPARE(t.output.cols(), Eigen::Index(2));
        // X = I, so Q = Wq; K = source·Wk and V = source·Wv worked out.
        const Rows Q{{2, 0}, {0, 2}, {-1.5, -1.5}};
        const Rows K{{1.8, 0.2}, {-0.15, 1.85}, {-1.15, -1.35}, {0.15, 0.15}};
        const Rows V{{0.9, 0.1}, {0.1, 1.1}, {1.0, 0.9}, {0.6, 0.6}};
        ATTN_COMPARE_MATRIX(h.Q, Q, 1e-15);
        ATTN_COMPARE_MATRIX(h.K, K, 1e-15);
        ATTN_COMPARE_MATRIX(h.V, V, 1e-15);
        const Rows scores{{3.6, -0.3, -2.3, 0.3}, {0.4, 3.7, -2.7, 0.3}, {-3.0, -2.55, 3.75, -0.45}};
        ATTN_COMPARE_MATRIX(h.scores, scores, 1e-14);
        ATTN_COMPARE_MATRIX(h.scaledMatrix(), divided(scores, kSqrt2), 1e-14);
        const Rows weights = softmaxRowsByHand(scores, kSqrt2);
        ATTN_COMPARE_MATRIX(h.weights, weights, 1e-14);
        ATTN_COMPARE_MATRIX(t.output, times(weights, V), 1e-14);
        const Rows row0{{0.8504707773, 0.05395085854, 0.01311635655, 0.08246200764}};
        ATTN_COMPARE_MATRIX(h.weights.row(0), row0, 1e-10);
        // Each word looks most at its counterpart: 我 → I, 爱 → love, 你 → you.
        for (int i = 0; i < 3; ++i)
            QCOMPARE(h.rows[std::size_t(i)].argmax, i);
        ATTN_COMPARE_NEAR(h.rows[2].maxWeight, 0.9333675706, 1e-10);
    }
};

QTEST_GUILESS_MAIN(TestLessons)
#include "test_lessons.moc"
