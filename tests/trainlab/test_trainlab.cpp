// The training lab in the real window (offscreen), driven through its
// signals with QTRY_ timeouts and no fixed waits: a tiny run to its end
// whose curve holds exactly the losses a direct core run logs; pause holds
// the step count (one single step moves it by one); cancel leaves the lab
// usable; the scrubber shows checkpoint k's scores as the core's evaluate
// gives them; a head taken into the lab is one undo step holding the
// checkpoint head's q, k, v on the probe; the saved folder reads back with
// the trained forward; over-budget settings are refused in one line; the
// race draws both runs' losses on one axis.

#include "attn_test.h"

#include "document.h"
#include "gpt2.h"
#include "gpt2_backward.h"
#include "labmode.h"
#include "mainwindow.h"
#include "modelmode.h"
#include "modelview.h"
#include "savemodel.h"
#include "trainer.h"
#include "trainingchart.h"
#include "traininglab.h"
#include "trainingmode.h"
#include "trainingrunner.h"

#include <QAction>
#include <QFile>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace attn;

namespace {

constexpr int kTimeout = 120000; // ms: a tiny run takes well under a second, unloaded

// A run of 20 steps of a 1-layer, 2-head model of width 16 on 12 tokens:
// log entries and checkpoints every 5 steps (the lab's bounded schedule).
TrainSettings tiny(Scale scale = Scale::SqrtDk)
{
    TrainSettings s;
    s.task = TrainTask::Previous;
    s.layers = 1;
    s.heads = 2;
    s.dModel = 16;
    s.steps = 20;
    s.batch = 4;
    s.length = 12;
    s.seed = 3;
    s.scale = scale;
    return s;
}

double maxAbs(const Matrix &a, const Matrix &b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return INFINITY;
    return (a - b).cwiseAbs().maxCoeff();
}

} // namespace

class TestTrainLab : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
    }
    void init()
    {
        m_window = std::make_unique<MainWindow>();
        m_window->setInteractive(false);
        m_window->resize(1600, 1000);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(!m_window->openLesson(QStringLiteral("seed000-basic")));
        QAction *action = m_window->findChild<QAction *>(QStringLiteral("trainingLabAction"));
        QVERIFY(action);
        action->trigger();
        QCOMPARE(m_window->currentMode(), static_cast<Mode *>(m_window->trainingMode()));
    }
    void cleanup() { m_window.reset(); }

    // View ▸ Training lab has Ctrl+Shift+R, and no other action of the window has it.
    void shortcutIsOwn()
    {
        const QKeySequence key(Qt::CTRL | Qt::SHIFT | Qt::Key_R);
        QCOMPARE(m_window->trainingMode()->action()->shortcut(), key);
        int holders = 0;
        for (QAction *a : m_window->findChildren<QAction *>())
            for (const QKeySequence &k : a->shortcuts())
                holders += k == key ? 1 : 0;
        QCOMPARE(holders, 1);
    }

    // Start, to the end: the progress bar, the curve holding exactly the
    // losses of a direct core run with the same settings, the checkpoints.
    void trainsAndCurveIsTheCore()
    {
        view()->setSettings(tiny());
        QSignalSpy finished(view()->runner(), &TrainingRunner::finished);
        QTest::mouseClick(button("trainStart"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
        QCOMPARE(finished.first().at(0).toBool(), false);
        QCOMPARE(view()->runner()->step(), 20);
        QCOMPARE(view()->findChild<QProgressBar *>(QStringLiteral("trainProgress"))->value(), 20);

        auto direct = train(view()->settings());
        QVERIFY(direct.ok());
        const auto &log = direct.value().log;
        QCOMPARE(log.size(), std::size_t(5)); // steps 0, 5, 10, 15, 20
        const QVector<double> drawn = view()->lossChart()->drawnValues(0), steps = view()->lossChart()->drawnSteps(0);
        QCOMPARE(drawn.size(), qsizetype(log.size()));
        for (std::size_t i = 0; i < log.size(); ++i) {
            QCOMPARE(steps[qsizetype(i)], double(log[i].step));
            QVERIFY2(drawn[qsizetype(i)] == log[i].loss, qPrintable(QStringLiteral("%1 against %2").arg(drawn[qsizetype(i)], 0, 'g', 17).arg(log[i].loss, 0, 'g', 17)));
        }
        // Every head's scores over the steps, and the named uniform baseline.
        const ChartData &prev = view()->previousChart()->chartData();
        QCOMPARE(prev.series.size(), 2);
        QCOMPARE(prev.series[1].values.back(), log.back().heads[1].previousToken);
        QCOMPARE(prev.lines.size(), 1);
        double uniform = 0;
        for (int i = 1; i < 12; ++i)
            uniform += 1.0 / (i + 1) / 11;
        QCOMPARE(prev.lines[0].value, uniform);
        QVERIFY(prev.lines[0].name.startsWith(QStringLiteral("uniform")));
        QCOMPARE(view()->prefixChart()->chartData().lines[0].value, uniformPrefixScore(direct.value().repeated));
        QCOMPARE(view()->runner()->checkpoints().size(), std::size_t(5));
        QCOMPARE(view()->scrubber()->maximum(), 4);
        QCOMPARE(view()->scrubber()->value(), 4);
        QCOMPARE(view()->probeGrid()->data().rows, 1);
        QCOMPARE(view()->probeGrid()->data().cols, 2);
        QVERIFY(button("trainStart")->isEnabled());
    }

    // Pause holds the step count: the worker says where it waits, a single
    // step moves it by exactly one and it waits again; cancel then ends the
    // run, and the lab starts and finishes another.
    void pauseHoldsAndCancelLeavesUsable()
    {
        TrainSettings s = tiny();
        s.steps = 100000; // far more than the test waits for
        view()->setSettings(s);
        QSignalSpy stepped(view()->runner(), &TrainingRunner::stepped);
        QSignalSpy paused(view()->runner(), &TrainingRunner::paused);
        QSignalSpy finished(view()->runner(), &TrainingRunner::finished);
        QTest::mouseClick(button("trainStart"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(stepped.count() >= 3, kTimeout);
        QTest::mouseClick(button("trainPause"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(paused.count(), 1, kTimeout);
        const int at = paused.first().at(0).toInt();
        QCOMPARE(view()->runner()->step(), at);
        QVERIFY(button("trainStep")->isEnabled() && button("trainResume")->isEnabled());
        QVERIFY(!button("trainPause")->isEnabled());
        QTest::mouseClick(button("trainStep"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(paused.count(), 2, kTimeout);
        QCOMPARE(paused.last().at(0).toInt(), at + 1);
        QCOMPARE(view()->runner()->step(), at + 1);
        QTest::mouseClick(button("trainResume"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(view()->runner()->step() >= at + 3, kTimeout);
        QTest::mouseClick(button("trainCancel"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
        QCOMPARE(finished.first().at(0).toBool(), true);
        QVERIFY(!view()->runner()->isRunning());
        QVERIFY(view()->statusText().contains(QStringLiteral("Cancelled")));
        QVERIFY(button("trainStart")->isEnabled());
        QVERIFY(!view()->runner()->checkpoints().empty()); // step 0's at least

        view()->setSettings(tiny());
        QVERIFY(!view()->startTraining());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kTimeout);
        QCOMPARE(finished.last().at(0).toBool(), false);
        QCOMPARE(view()->runner()->step(), 20);
    }

    // The scrubber at checkpoint k shows the scores the core's evaluate
    // gives at step k (of a direct run), and moves the charts' marker there.
    void scrubberShowsCheckpointScores()
    {
        trainTiny(Scale::SqrtDk);
        auto direct = train(view()->settings());
        QVERIFY(direct.ok());
        const TrainState &st = direct.value();
        QCOMPARE(st.checkpoints.size(), view()->runner()->checkpoints().size());
        for (int k = 0; k < int(st.checkpoints.size()); ++k) {
            view()->scrubber()->setValue(k);
            QCOMPARE(view()->shownCheckpoint(), k);
            const TrainCheckpoint &c = st.checkpoints[std::size_t(k)];
            auto e = evaluate(stateAtCheckpoint(st, *c.model, c.step));
            QVERIFY(e.ok());
            const std::vector<TrainHeadScore> shown = view()->shownScores();
            QCOMPARE(shown.size(), e.value().heads.size());
            for (std::size_t h = 0; h < shown.size(); ++h) {
                QCOMPARE(shown[h].previousToken, e.value().heads[h].previousToken);
                QCOMPARE(shown[h].prefixMatching, e.value().heads[h].prefixMatching);
            }
            QCOMPARE(view()->lossChart()->chartData().marker, double(c.step));
            QCOMPARE(view()->runner()->checkpoints()[std::size_t(k)].step, c.step);
        }
    }

    // Take this checkpoint's head: one undo step; Q, K, V are the head's
    // q, k, v on the probe as the training's own forward makes them (÷1
    // here, so the lab's scale is none too); undo brings the lesson back.
    void takeHeadIsOneUndoStep()
    {
        trainTiny(Scale::None);
        Document *doc = m_window->document();
        const int before = doc->undoStack()->count();
        const std::string title = doc->scenario().title;
        view()->scrubber()->setValue(2);
        view()->probeGrid()->setSelected(0, 1);
        QTest::mouseClick(button("trainTakeHead"), Qt::LeftButton);
        QCOMPARE(doc->undoStack()->count(), before + 1);
        QCOMPARE(m_window->currentMode(), static_cast<Mode *>(m_window->lab()));
        const Scenario &s = doc->scenario();
        QCOMPARE(s.scale, Scale::None);
        QVERIFY(s.mask.causal);

        const TrainCheckpoint &c = view()->runner()->checkpoints()[2];
        QCOMPARE(c.step, 10);
        const std::vector<int> ids = view()->probeIds();
        QCOMPARE(int(ids.size()), 12);
        TrainBatch b{1, 12, ids, std::vector<int>(12, 0)};
        auto tape = forwardForTraining(*c.model, b, trainOptions(view()->runner()->settings()));
        QVERIFY(tape.ok());
        const Matrix &qkv = tape.value().layers[0].qkv; // 12 by 3d: q, k, v of every head side by side
        const int d = 16, dh = 8, head = 1;
        QVERIFY2(maxAbs(s.Q, qkv.middleCols(0 * d + head * dh, dh)) < 1e-12, "Q");
        QVERIFY2(maxAbs(s.K, qkv.middleCols(1 * d + head * dh, dh)) < 1e-12, "K");
        QVERIFY2(maxAbs(s.V, qkv.middleCols(2 * d + head * dh, dh)) < 1e-12, "V");
        // The lab computes the weights the training computed.
        QVERIFY(maxAbs(doc->trace().heads[0].weights, tape.value().layers[0].weights[head]) < 1e-12);

        doc->undoStack()->undo();
        QCOMPARE(doc->scenario().title, title);
    }

    // Save model: a GPT-2 folder that core/model loads, whose forward gives
    // the trained state's weights and next-token probabilities; a folder
    // that cannot be made is refused in one line.
    void saveWritesALoadableFolder()
    {
        trainTiny(Scale::Dk);
        auto direct = train(view()->settings());
        QVERIFY(direct.ok());
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("trained"));
        const int last = int(view()->runner()->checkpoints().size()) - 1;
        QVERIFY(!m_window->trainingMode()->saveModel(last, folder));
        auto loaded = loadModel(folder);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.problem()->toString().c_str());
        const std::vector<int> ids = view()->probeIds();
        auto trace = runModelOnIds(*loaded.value(), ids, 3);
        QVERIFY(trace.ok());
        TrainBatch b{1, int(ids.size()), ids, std::vector<int>(ids.size(), 0)};
        auto tape = forwardForTraining(direct.value().model, b, trainOptions(direct.value().settings));
        QVERIFY(tape.ok());
        for (int h = 0; h < 2; ++h)
            QVERIFY(maxAbs(trace.value().layers[0].heads[std::size_t(h)].weights, tape.value().layers[0].weights[std::size_t(h)]) < 1e-12);
        QVERIFY(std::fabs(trace.value().next[0].p - tape.value().probs.row(Eigen::Index(ids.size()) - 1).maxCoeff()) < 1e-12);

        QFile blocker(dir.filePath(QStringLiteral("a-file")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const auto p = m_window->trainingMode()->saveModel(last, dir.filePath(QStringLiteral("a-file/model")));
        QVERIFY(p);
        QVERIFY(!QString::fromStdString(p->toString()).contains(QLatin1Char('\n')));
    }

    // Open in model mode: the checkpoint in the model view, reading the probe.
    void opensInModelMode()
    {
        trainTiny(Scale::SqrtDk);
        QTest::mouseClick(button("trainOpenModel"), Qt::LeftButton);
        QCOMPARE(m_window->currentMode(), static_cast<Mode *>(m_window->modelModeObject()));
        QVERIFY(m_window->modelView()->model());
        QCOMPARE(m_window->modelView()->model()->config.nLayer, 1);
        QCOMPARE(m_window->modelView()->text(), view()->probeText());
        QCOMPARE(view()->probeText().size(), 12);
    }

    // Over the budget: nothing starts, and the core's message is the one line shown.
    void overBudgetRefused()
    {
        TrainSettings s = tiny();
        s.dModel = 128;
        s.batch = 1024;
        s.length = 256;
        view()->setSettings(s);
        const auto expected = checkTrainingBudget(view()->settings());
        QVERIFY(expected);
        QTest::mouseClick(button("trainStart"), Qt::LeftButton);
        QVERIFY(!view()->runner()->isRunning());
        const QString line = view()->statusText();
        QVERIFY2(line.contains(QString::fromStdString(expected->message)), qPrintable(line));
        QVERIFY(line.contains(QStringLiteral("1,073,741,824")));
        QVERIFY(!line.contains(QLatin1Char('\n')));
    }

    // The race: ÷√d_k and ÷1 from the same settings, both curves on one
    // axis with one legend, each exactly its own direct run's losses.
    void raceDrawsBothRuns()
    {
        view()->setSettings(tiny());
        QVERIFY(!view()->startRace(Scale::None));
        QTRY_VERIFY_WITH_TIMEOUT(!view()->raceRunner(0)->isRunning() && !view()->raceRunner(1)->isRunning(), kTimeout);
        const ChartData &d = view()->raceChart()->chartData();
        QCOMPARE(d.series.size(), 2);
        QCOMPARE(view()->raceChart()->legend->itemCount(), 2);
        int i = 0;
        for (Scale scale : {Scale::SqrtDk, Scale::None}) {
            TrainSettings s = view()->settings();
            s.scale = scale;
            auto direct = train(s);
            QVERIFY(direct.ok());
            const QVector<double> drawn = view()->raceChart()->drawnValues(i++);
            QCOMPARE(drawn.size(), qsizetype(direct.value().log.size()));
            for (std::size_t k = 0; k < direct.value().log.size(); ++k)
                QCOMPARE(drawn[qsizetype(k)], direct.value().log[k].loss);
        }
        QVERIFY(view()->raceChart()->drawnValues(0) != view()->raceChart()->drawnValues(1));
    }

private:
    TrainingLabView *view() const { return m_window->trainingMode()->view(); }
    QPushButton *button(const char *name) const
    {
        auto *b = view()->findChild<QPushButton *>(QLatin1String(name));
        if (!b)
            qFatal("no button %s", name);
        return b;
    }
    void trainTiny(Scale scale)
    {
        view()->setSettings(tiny(scale));
        QSignalSpy finished(view()->runner(), &TrainingRunner::finished);
        QVERIFY(!view()->startTraining());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
        QCOMPARE(view()->runner()->step(), 20);
    }

    QTemporaryDir m_settings;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestTrainLab)
#include "test_trainlab.moc"
