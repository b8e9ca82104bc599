// attention-lab-cli grad and experiment scaling --gradients: the numbers
// the command writes are the core's (core/backward.h, core/experiment.h)
// to the bit, under the names the scenario file gives its matrices; bad
// input ends with status 2 and one line.

#include "attention.h"
#include "attn_test.h"
#include "backward.h"
#include "cli_run.h"
#include "edit.h"
#include "experiment.h"
#include "json_test.h"
#include "lessons.h"
#include "matrixio.h"
#include "random_scenario.h"
#include "scenario_json.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace attn;
using attn::test::matrixFromJson;

namespace {

using Run = test::CliRun;
Run runInProcess(const QStringList &args) { return test::runCliInProcess(args); }

Run runBinary(const QStringList &args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("XDG_RUNTIME_DIR"));
    p.setProcessEnvironment(env);
    p.start(test::binaryDir() + QStringLiteral("/bin/attention-lab-cli"), args);
    Run r;
    if (!p.waitForStarted(10000) || !p.waitForFinished(120000))
        return r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// Status 2, nothing on stdout, one line on stderr that mentions `what`.
std::optional<QString> refusal(const Run &r, const QString &what)
{
    if (r.code != 2 || !r.out.isEmpty())
        return QStringLiteral("status %1, stdout \"%2\"").arg(r.code).arg(r.out.left(300));
    if (r.err.count(QLatin1Char('\n')) != 1 || !r.err.endsWith(QLatin1Char('\n')))
        return QStringLiteral("stderr is not one line: \"%1\"").arg(r.err);
    if (!r.err.contains(what))
        return QStringLiteral("\"%1\" is not in \"%2\"").arg(what, r.err);
    return std::nullopt;
}

Scenario lesson(const QString &name)
{
    ScenarioOrProblem loaded = loadLesson(name);
    if (const Problem *p = std::get_if<Problem>(&loaded))
        qFatal("%s", p->toString().c_str());
    return std::get<Scenario>(loaded);
}

// The JSON's every matrix against the core's, exactly (shortest round-trip numbers).
void compareWithCore(const QJsonObject &o, const Gradients &g)
{
    QCOMPARE(o.value(QLatin1String("loss")).toDouble(), g.loss);
    const QJsonObject grad = o.value(QLatin1String("grad")).toObject();
    QCOMPARE(grad.size(), int(g.inputs.size()));
    for (const NamedGradient &n : g.inputs) {
        const QString name = QString::fromLatin1(matrixName(n.id));
        QVERIFY2(grad.contains(name), qPrintable(name));
        QVERIFY2(matrixFromJson(grad.value(name)) == n.grad, qPrintable(name));
    }
    const QJsonArray heads = o.value(QLatin1String("heads")).toArray();
    QCOMPARE(heads.size(), int(g.heads.size()));
    for (int h = 0; h < heads.size(); ++h) {
        const QJsonObject head = heads[h].toObject();
        QCOMPARE(head.value(QLatin1String("head")).toInt(), h + 1);
        QVERIFY(matrixFromJson(head.value(QLatin1String("scores"))) == g.heads[std::size_t(h)].scores);
        QVERIFY(matrixFromJson(head.value(QLatin1String("weights"))) == g.heads[std::size_t(h)].weights);
    }
}

} // namespace

class TestGradCli : public QObject {
    Q_OBJECT

private slots:
    void seed000Json()
    {
        const QStringList args{"grad", "--preset", "seed000-basic", "--loss", "attend:1", "--format", "json"};
        const Run r = runBinary(args);
        QVERIFY2(r.code == 0 && r.err.isEmpty(), qPrintable(r.err));
        QCOMPARE(runInProcess(args).out, r.out);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const Result<Gradients> g = gradients(lesson(QStringLiteral("seed000-basic")), AttendLoss{0});
        QVERIFY(g.ok());
        compareWithCore(o, g.value());
        // Direct mode names Q, K and V; L = −ln 0.7679.
        QCOMPARE(o.value(QLatin1String("grad")).toObject().keys(), (QStringList{"K", "Q", "V"}));
        QVERIFY(std::abs(o.value(QLatin1String("loss")).toDouble() + std::log(0.7679)) < 1e-4);
    }

    // The text: the matrices and one cell by hand, whose result is the
    // table's own entry.
    void seed000Text()
    {
        const Run r = runInProcess({"grad", "--preset", "seed000-basic", "--loss", "attend:1"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        for (const char *expected : {"∂L/∂Q", "∂L/∂K", "∂L/∂V", "∂L/∂weights", "∂L/∂scores", "By hand",
                                     "-0.196201", "-1.302222",
                                     // g_1 = −1/w_1 = −1.3022; Σ = g_1·w_1 = −1; w_1 (g_1 − Σ) ÷ √2 = 0.7679·(−0.3022) ÷ 1.4142.
                                     "Σ_k g_k w_k over the open keys = (-1.3022)·0.7679 = -1.0000   (g = ∂L/∂w)",
                                     "∂L/∂s = w_j (g_j − Σ) ÷ (c·τ) = 0.7679·((-1.3022) − (-1)) ÷ 1.4142 = -0.1641",
                                     "(the table above: -0.1641)"})
            QVERIFY2(r.out.contains(QString::fromUtf8(expected)), qPrintable(QString::fromUtf8(expected) + "\n" + r.out));
    }

    // Projected mode with W_O and a target from .npy: X, Wq, Wk, Wv, Wo.
    void projectedWithTarget()
    {
        QTemporaryDir dir;
        Scenario s = lesson(QStringLiteral("multihead"));
        test::TestRng rng(3);
        s.Wo = test::randomMatrix(rng, int(s.Wv.cols()), 3, 1.0);
        s.maskStage = MaskStage::AfterSoftmax;
        s.mask.causal = true;
        s.encoding = Encoding::Learned;
        const QString file = dir.filePath(QStringLiteral("wo.json")), target = dir.filePath(QStringLiteral("t.npy"));
        QVERIFY(!saveScenarioFile(file, s));
        const Scenario saved = std::get<Scenario>(loadScenarioFile(file));
        const Matrix T = test::randomMatrix(rng, queryCount(s), 3, 1.0);
        QVERIFY(!saveMatrixFile(target, T));
        const Run r = runInProcess({"grad", file, "--loss", "target:" + target, "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const Result<Gradients> g = gradients(saved, TargetLoss{T});
        QVERIFY(g.ok());
        compareWithCore(o, g.value());
        QCOMPARE(o.value(QLatin1String("grad")).toObject().keys(), (QStringList{"Wk", "Wo", "Wq", "Wv", "X"}));
        QCOMPARE(o.value(QLatin1String("heads")).toArray().size(), 2);

        const Run text = runInProcess({"grad", file, "--loss", "target:" + target});
        QVERIFY2(text.code == 0 && text.out.contains(QLatin1String("mask after the softmax")), qPrintable(text.out));
        // Causal after the softmax: the cell worked is a blocked one, whose gradient is not 0.
        QVERIFY2(text.out.contains(QLatin1String("(blocked: the largest such")), qPrintable(text.out));
        QVERIFY(text.out.contains(QLatin1String("fixed by its seed")));
        QVERIFY(!text.out.contains(QLatin1String("nan"), Qt::CaseInsensitive));
    }

    void crossAttentionNamesTheSource()
    {
        const Run r = runInProcess({"grad", "--preset", "cross-attention", "--loss", "attend:2", "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(QJsonDocument::fromJson(r.out.toUtf8()).object().value(QLatin1String("grad")).toObject().contains(
            QLatin1String("source")));
    }

    void refusals_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("no loss") << QStringList{"grad", "--preset", "seed000-basic"} << "--loss is required";
        QTest::newRow("attend:0") << QStringList{"grad", "--preset", "seed000-basic", "--loss", "attend:0"} << "attend:J";
        QTest::newRow("attend:x") << QStringList{"grad", "--preset", "seed000-basic", "--loss", "attend:x"} << "attend:J";
        QTest::newRow("attend past the keys") << QStringList{"grad", "--preset", "seed000-basic", "--loss", "attend:4"}
                                              << "there are 3 keys";
        QTest::newRow("padded key") << QStringList{"grad", "--preset", "padding", "--loss", "attend:5"}
                                    << "blocked in every row";
        QTest::newRow("other loss") << QStringList{"grad", "--preset", "seed000-basic", "--loss", "mse"} << "neither";
        QTest::newRow("no target file") << QStringList{"grad", "--preset", "seed000-basic", "--loss", "target:/nonexistent/t.npy"}
                                        << "/nonexistent/t.npy";
        QTest::newRow("no scenario") << QStringList{"grad", "--loss", "attend:1"} << "--preset";
        QTest::newRow("unknown option") << QStringList{"grad", "--preset", "causal", "--loss", "attend:1", "--head", "2"}
                                        << "--head";
    }
    void refusals()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        if (auto bad = refusal(runInProcess(args), mentions))
            QFAIL(qPrintable(args.join(' ') + ": " + *bad));
    }

    void refusesWhatHasNoGradient()
    {
        QTemporaryDir dir;
        // A target of the wrong shape.
        const QString target = dir.filePath(QStringLiteral("t.csv"));
        QVERIFY(!saveMatrixFile(target, Matrix::Zero(2, 2)));
        if (auto bad = refusal(runInProcess({"grad", "--preset", "seed000-basic", "--loss", "target:" + target}),
                               QStringLiteral("target: is 2 by 2; the output is 1 by 3")))
            QFAIL(qPrintable(*bad));
        // The cosine of a zero key: said, not NaN.
        Scenario s = lesson(QStringLiteral("seed000-basic"));
        s.similarity = Similarity::Cosine;
        s.K.row(2).setZero();
        const QString file = dir.filePath(QStringLiteral("zero.json"));
        QVERIFY(!saveScenarioFile(file, s));
        for (const QString &format : {QStringLiteral("text"), QStringLiteral("json")})
            if (auto bad = refusal(runInProcess({"grad", file, "--loss", "attend:1", "--format", format}),
                                   QStringLiteral("key 3: the cosine of a zero vector has no gradient")))
                QFAIL(qPrintable(*bad));
    }

    // --gradients: the core's numbers, per d_k, and for the handout's draw.
    void experimentGradients()
    {
        const Run r = runInProcess({"experiment", "scaling", "--dk", "4,64", "--trials", "300", "--gradients",
                                    "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonArray experiments = QJsonDocument::fromJson(r.out.toUtf8()).object().value(QLatin1String("experiments")).toArray();
        QCOMPARE(experiments.size(), 2);
        for (const QJsonValue &v : experiments) {
            const QJsonObject e = v.toObject();
            ScalingLabParams p;
            p.dk = e.value(QLatin1String("dk")).toInt();
            p.trials = 300;
            const GradientPoint g = scalingGradients(p).value();
            const auto mine = handoutGradients(handoutDraw(7, p.dk).value());
            for (ScoreScaling sc : kAllScoreScalings) {
                const QString key = sc == ScoreScaling::Dk ? QStringLiteral("by_dk") : QString::fromLatin1(scalingKey(sc));
                const QJsonObject got = e.value(QLatin1String("gradients")).toObject().value(key).toObject();
                QCOMPARE(got.value(QLatin1String("jacobian_norm")).toDouble(), g.series[std::size_t(sc)].jacobianNorm);
                QCOMPARE(got.value(QLatin1String("query_gradient_norm")).toDouble(), g.series[std::size_t(sc)].queryGradientNorm);
                const QJsonObject draw = e.value(QLatin1String("python_draw_gradients")).toObject().value(key).toObject();
                QCOMPARE(draw.value(QLatin1String("query_gradient_norm")).toDouble(), mine[std::size_t(sc)].queryGradientNorm);
            }
        }
        const Run text = runInProcess({"experiment", "scaling", "--dk", "64", "--trials", "300", "--gradients"});
        QVERIFY2(text.code == 0 && text.out.contains(QStringLiteral("‖∂w_1/∂q‖"))
                     && text.out.contains(QLatin1String("Seed 000's own draw")),
                 qPrintable(text.out));
        // Without the flag, no gradient fields.
        const Run plain = runInProcess({"experiment", "scaling", "--dk", "4", "--trials", "300", "--format", "json"});
        QVERIFY(!plain.out.contains(QLatin1String("gradients")));
        if (auto bad = refusal(runInProcess({"experiment", "scaling", "--dk", "1024", "--trials", "100000", "--gradients"}),
                               QStringLiteral("use fewer --trials")))
            QFAIL(qPrintable(*bad));
    }
};

QTEST_MAIN(TestGradCli)
#include "test_gradcli.moc"
