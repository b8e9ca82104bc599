// Knocking a head out and the standard probe (core/model/probe): the zero
// ablation against a second route (the head's rows of c_proj zeroed), the
// mean ablation against its bias form, the duplicate-token score by hand,
// the loss on the second copies against a plain loop over prefixes, and the
// CLI's `model trace --ablate` and `model scores`.

#include "attn_test.h"
#include "cli_run.h"
#include "gpt2.h"
#include "headlabel.h"
#include "probe.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace attn;

namespace {

std::shared_ptr<const Gpt2Model> builtin()
{
    static std::shared_ptr<const Gpt2Model> m = std::get<std::shared_ptr<const Gpt2Model>>(loadBuiltinModel());
    return m;
}

ModelTrace run(const Result<ModelTrace> &r)
{
    if (const Problem *p = r.problem())
        qFatal("%s", p->toString().c_str());
    return r.value();
}

std::vector<int> sentence(const Gpt2Model &m)
{
    return run(runModel(m, QStringLiteral("the girl sees the king . she says the king is happy ."), 0)).ids;
}

// A copy of the model whose c_proj ignores `head` of `layer`: its d_h rows
// of c_proj.W set to zero, and with `mean`, mean · those rows added to the bias.
Gpt2Model withoutHead(const Gpt2Model &m, int layer, int head, const Eigen::RowVectorXd &mean = {})
{
    Gpt2Model out = m;
    const int dh = m.config.headDim();
    Gpt2Layer &L = out.layers[std::size_t(layer)];
    if (mean.size())
        L.projBias += mean * L.projWeight.middleRows(head * dh, dh);
    L.projWeight.middleRows(head * dh, dh).setZero();
    return out;
}

test::CliRun cli(const QStringList &args)
{
    return test::runCliInProcess(args);
}

} // namespace

class TestAblation : public QObject {
    Q_OBJECT
private slots:
    // ids 5 7 5 5 9 7: rows 2 (copy at 0), 3 (copies at 0, 2) and 5 (copy at 1).
    void duplicateByHand()
    {
        Matrix w = Matrix::Zero(6, 6);
        w(0, 0) = 1;
        w.row(1).head(2) << 0.5, 0.5;
        w.row(2).head(3) << 0.6, 0.1, 0.3;
        w.row(3).head(4) << 0.2, 0.1, 0.3, 0.4;
        w.row(4).head(5) << 0.2, 0.2, 0.2, 0.2, 0.2;
        w.row(5).head(6) << 0.1, 0.7, 0.05, 0.05, 0.05, 0.05;
        const HeadScores s = scoreHead(w, {5, 7, 5, 5, 9, 7});
        QCOMPARE(s.duplicate.rows, 3);
        ATTN_COMPARE_NEAR(s.duplicate.score, (0.6 + (0.2 + 0.3) + 0.7) / 3, 1e-15);
        ATTN_COMPARE_NEAR(s.duplicate.uniform, (1.0 / 3 + 2.0 / 4 + 1.0 / 6) / 3, 1e-15);
        // No repeat: undefined, and said so.
        QVERIFY(!scoreHead(w, {1, 2, 3, 4, 5, 6}).duplicate.defined());
        QVERIFY(headScoresText(scoreHead(w, {1, 2, 3, 4, 5, 6})).find("duplicate token: no token repeats") != std::string::npos);
    }

    // A head whose rows all sit on the earlier copy is labelled so.
    void duplicateHeadIsLabelled()
    {
        const std::vector<int> ids{1, 2, 3, 4, 1, 2, 3, 4};
        Matrix w = Matrix::Zero(8, 8);
        for (int i = 0; i < 8; ++i)
            w(i, i < 4 ? i : i - 4) = 1; // the first copy on itself, the second on the first
        const HeadScores s = scoreHead(w, ids);
        ATTN_COMPARE_NEAR(s.duplicate.score, 1.0, 1e-15);
        QCOMPARE(int(s.kind), int(HeadKind::DuplicateToken));
        QCOMPARE(QString::fromStdString(headKindName(s.kind)), QStringLiteral("duplicate token"));
    }

    void nothingKnockedOutIsTheForward()
    {
        const Gpt2Model &m = *builtin();
        const auto ids = sentence(m);
        const ModelTrace a = run(runModelOnIds(m, ids, 5)), b = run(runModelOnIdsAblated(m, ids, 5, {}));
        ATTN_COMPARE_MATRIX(b.final, a.final, 0.0);
        QVERIFY(!b.ablated);
    }

    // Zeroing a head's output is zeroing its d_h rows of c_proj.W.
    void zeroAblationIsItsProjectionRowsZeroed()
    {
        const Gpt2Model &m = *builtin();
        const auto ids = sentence(m);
        for (const auto &[l, h] : {std::pair{0, 0}, std::pair{2, 0}, std::pair{1, 3}}) {
            const ModelTrace knocked = run(runModelOnIdsAblated(m, ids, 5, {{l, h, {}}}));
            const ModelTrace plain = run(runModelOnIds(withoutHead(m, l, h), ids, 5));
            ATTN_COMPARE_MATRIX(knocked.final, plain.final, 1e-12);
            QVERIFY(knocked.ablated);
            QVERIFY(knocked.layers[std::size_t(l)].heads[std::size_t(h)].output.isZero(0));
            // The head still reads: its weights are the intact model's.
            const ModelTrace intact = run(runModelOnIds(m, ids, 5));
            ATTN_COMPARE_MATRIX(knocked.layers[std::size_t(l)].heads[std::size_t(h)].weights,
                                intact.layers[std::size_t(l)].heads[std::size_t(h)].weights, 0.0);
            // Layers before it are untouched; the output changes.
            if (l + 1 < m.config.nLayer)
                QVERIFY((knocked.layers[std::size_t(l + 1)].input - intact.layers[std::size_t(l + 1)].input).norm() > 1e-6);
        }
    }

    // The mean: every position writes the same row, the head's mean over the probe.
    void meanAblationIsABias()
    {
        const Gpt2Model &m = *builtin();
        const auto probe = repeatedProbe(m.config.vocabSize, 7, 3, 6);
        const auto means = meanHeadOutputs(m, probe);
        QVERIFY(means.ok());
        // The mean by a second count.
        Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(m.config.headDim());
        double rows = 0;
        for (const auto &ids : probe) {
            const ModelTrace t = run(runModelOnIds(m, ids, 0));
            for (Eigen::Index i = 0; i < t.layers[2].heads[1].output.rows(); ++i, ++rows)
                sum += t.layers[2].heads[1].output.row(i);
        }
        ATTN_COMPARE_MATRIX(means.value()[2][1], sum / rows, 1e-13);
        const auto ids = sentence(m);
        const Eigen::RowVectorXd mean = means.value()[1][2];
        const ModelTrace knocked = run(runModelOnIdsAblated(m, ids, 5, {{1, 2, mean}}));
        const ModelTrace plain = run(runModelOnIds(withoutHead(m, 1, 2, mean), ids, 5));
        ATTN_COMPARE_MATRIX(knocked.final, plain.final, 1e-12);
    }

    void refusals()
    {
        const Gpt2Model &m = *builtin();
        const auto ids = sentence(m);
        const auto outside = runModelOnIdsAblated(m, ids, 5, {{3, 0, {}}});
        QVERIFY(outside.problem());
        QCOMPARE(QString::fromStdString(outside.problem()->message),
                 QStringLiteral("layer 4, head 1 is not in the model (3 layers × 4 heads)"));
        const auto width = runModelOnIdsAblated(m, ids, 5, {{0, 0, Eigen::RowVectorXd::Zero(3)}});
        QVERIFY(width.problem());
        QVERIFY(width.problem()->message.find("d_h = " + std::to_string(m.config.headDim())) != std::string::npos);
    }

    // The loss on the second copies against a plain loop: the last position's
    // softmax of each prefix.
    void repeatLossByPrefixes()
    {
        const Gpt2Model &m = *builtin();
        const auto probe = repeatedProbe(m.config.vocabSize, 3, 2, 5);
        QCOMPARE(probe.size(), std::size_t(2));
        QCOMPARE(probe[0].size(), std::size_t(10));
        for (std::size_t i = 0; i < 5; ++i)
            QCOMPARE(probe[0][i + 5], probe[0][i]);
        for (const std::vector<HeadAblation> &a : {std::vector<HeadAblation>{}, std::vector<HeadAblation>{{2, 0, {}}}}) {
            double sum = 0;
            int rows = 0;
            for (const auto &ids : probe)
                for (int i = 5; i + 1 < 10; ++i) {
                    const std::vector<int> prefix(ids.begin(), ids.begin() + i + 1);
                    const ModelTrace t = run(runModelOnIdsAblated(m, prefix, 0, a));
                    const double top = t.logits.maxCoeff();
                    sum += top + std::log((t.logits.array() - top).exp().sum()) - t.logits(ids[std::size_t(i + 1)]);
                    ++rows;
                }
            const auto loss = repeatLoss(m, probe, a);
            QVERIFY(loss.ok());
            ATTN_COMPARE_NEAR(loss.value(), sum / rows, 1e-10);
        }
    }

    // The report: before equals the intact model, after the knocked-out one.
    void reportBeforeAndAfter()
    {
        const Gpt2Model &m = *builtin();
        const auto ids = sentence(m);
        const auto probe = repeatedProbe(m.config.vocabSize, 1, 2, 8);
        const std::vector<HeadAblation> a{{2, 0, {}}};
        const auto r = ablationReport(m, ids, probe, a);
        QVERIFY(r.ok());
        const ModelTrace intact = run(runModelOnIds(m, ids, 5)), knocked = run(runModelOnIdsAblated(m, ids, 5, a));
        QCOMPARE(r.value().nextBefore.size(), std::size_t(5));
        for (std::size_t i = 0; i < 5; ++i) {
            QCOMPARE(r.value().nextBefore[i].id, intact.next[i].id);
            QCOMPARE(r.value().nextAfter[i].id, knocked.next[i].id);
            ATTN_COMPARE_NEAR(r.value().nextAfter[i].p, knocked.next[i].p, 1e-15);
        }
        ATTN_COMPARE_NEAR(r.value().lossBefore, repeatLoss(m, probe).value(), 1e-15);
        QCOMPARE(r.value().scoresBefore.size(), std::size_t(12));
        // Heads of layers 1 and 2 read nothing of layer 3: their scores stay.
        for (int i = 0; i < 8; ++i)
            ATTN_COMPARE_NEAR(r.value().scoresAfter[std::size_t(i)].previousToken.score,
                              r.value().scoresBefore[std::size_t(i)].previousToken.score, 1e-15);
    }

    void cliTraceAblate()
    {
        const test::CliRun r = cli({"model", "trace", "--model", "builtin", "--text", "the girl sees the king .", "--layer", "1",
                              "--head", "1", "--ablate", "3.1,2.2", "--ablate-with", "mean"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("== knocking out layer 3, head 1; layer 2, head 2 (its output replaced by its mean over the probe) ==")));
        QVERIFY(r.out.contains(QStringLiteral("layer 3, head 1 (knocked out): ")));
        QVERIFY(r.out.contains(QStringLiteral("loss on the second copies")));
        const test::CliRun j = cli({"model", "trace", "--model", "builtin", "--text", "the girl sees the king .", "--layer", "1",
                              "--head", "1", "--ablate", "3.1", "--format", "json"});
        QVERIFY2(j.code == 0, qPrintable(j.err));
        QJsonParseError e;
        const QJsonObject o = QJsonDocument::fromJson(j.out.toUtf8(), &e).object();
        QVERIFY2(e.error == QJsonParseError::NoError, qPrintable(e.errorString()));
        const QJsonObject ab = o.value(QLatin1String("ablation")).toObject();
        QCOMPARE(ab.value(QLatin1String("with")).toString(), QStringLiteral("zero"));
        QCOMPARE(ab.value(QLatin1String("head_scores")).toArray().size(), 12);
        QCOMPARE(ab.value(QLatin1String("next")).toObject().value(QLatin1String("after")).toArray().size(), 5);
        // The JSON's numbers are the core's.
        const Gpt2Model &m = *builtin();
        const auto ids = run(runModel(m, QStringLiteral("the girl sees the king ."), 0)).ids;
        const auto rep = ablationReport(m, ids, repeatedProbe(m.config.vocabSize, 1), {{2, 0, {}}});
        QVERIFY(rep.ok());
        QCOMPARE(ab.value(QLatin1String("repeat_loss")).toObject().value(QLatin1String("after")).toDouble(), rep.value().lossAfter);
        // The layer's head_scores carry the duplicate score.
        const QJsonObject head = o.value(QLatin1String("layers")).toArray()[0].toObject().value(QLatin1String("heads")).toArray()[0].toObject();
        QVERIFY(head.value(QLatin1String("head_scores")).toObject().contains(QLatin1String("duplicate")));
    }

    void cliRefusesBadAblations_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("message");
        QTest::newRow("shape") << QStringList{"--ablate", "3"} << "--ablate: \"3\" is not LAYER.HEAD, such as 3.1";
        QTest::newRow("outside") << QStringList{"--ablate", "4.1"}
                                 << "--ablate: 4.1 is not a head of the model (layers 1 to 3, heads 1 to 4)";
        QTest::newRow("with") << QStringList{"--ablate", "1.1", "--ablate-with", "half"} << "--ablate-with: \"half\" is neither zero nor mean";
        QTest::newRow("alone") << QStringList{"--ablate-with", "mean"} << "--ablate-with needs --ablate L.H";
    }
    void cliRefusesBadAblations()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, message);
        const test::CliRun r = cli(QStringList{"model", "trace", "--model", "builtin", "--text", "a b"} + extra);
        QCOMPARE(r.code, 2);
        QCOMPARE(r.out, QString());
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
    }

    // `model scores` prints the duplicate column from the same probe.
    void cliScoresHaveDuplicate()
    {
        const test::CliRun r = cli({"model", "scores", "--model", "builtin", "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonArray heads = QJsonDocument::fromJson(r.out.toUtf8()).object().value(QLatin1String("heads")).toArray();
        QCOMPARE(heads.size(), 12);
        const auto scores = probeScores(*builtin(), repeatedProbe(builtin()->config.vocabSize, 1));
        QVERIFY(scores.ok());
        for (int i = 0; i < 12; ++i)
            QCOMPARE(heads[i].toObject().value(QLatin1String("duplicate")).toObject().value(QLatin1String("score")).toDouble(),
                     scores.value()[std::size_t(i)].duplicate.score);
    }
};

QTEST_GUILESS_MAIN(TestAblation)
#include "test_ablation.moc"
