// Generation in the window (app/views/generationpanel): Step draws what the
// core's generate() draws, the model view reads the longer text through its
// cache (every map one row more, the same weights as the whole forward),
// Play runs to the end, Reset and an edit go back to a prompt, and the
// View menu's action opens the dock in the model mode.

#include "attn_test.h"
#include "distributionbars.h"
#include "generate.h"
#include "generationpanel.h"
#include "mainwindow.h"
#include "modelmode.h"
#include "modelview.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTest>

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

SamplingSettings settings(double temperature, int topK, std::uint64_t seed, int steps)
{
    SamplingSettings s;
    s.temperature = temperature;
    s.topK = topK;
    s.seed = seed;
    s.steps = steps;
    return s;
}

} // namespace

class TestGenerationPanel : public QObject {
    Q_OBJECT
private slots:
    void stepDrawsWhatTheCoreDraws();
    void mapsGrowThroughTheCache();
    void playRunsToTheEnd();
    void resetAndEditGoBackToAPrompt();
    void contextFullIsSaid();
    void menuOpensTheDock();
};

void TestGenerationPanel::stepDrawsWhatTheCoreDraws()
{
    ModelView view;
    view.setModel(builtin());
    view.setText(QStringLiteral("我 打"));
    GenerationPanel panel(&view);
    const SamplingSettings s = settings(0.8, 5, 3, 6);
    panel.setSettings(s);
    for (int i = 0; i < 6; ++i)
        QTest::mouseClick(panel.stepButton(), Qt::LeftButton);
    const Generation g = std::get<Generation>(generate(*builtin(), builtin()->tokenizer.encode(QStringLiteral("我 打")), s));
    QCOMPARE(panel.steps().size(), g.steps.size());
    for (std::size_t i = 0; i < g.steps.size(); ++i) {
        QCOMPARE(panel.steps()[i].id, g.steps[i].id);
        QCOMPARE(panel.steps()[i].u, g.steps[i].u);
        QCOMPARE(panel.steps()[i].p, g.steps[i].p);
        QCOMPARE(panel.steps()[i].cachedCells, g.steps[i].cachedCells);
    }
    // The bars are the last step's top 5, the chosen one marked, with its numbers.
    const GenerationStep &last = g.steps.back();
    const auto &bars = panel.bars()->bars();
    QVERIFY(bars.size() >= last.top.size());
    for (std::size_t i = 0; i < last.top.size(); ++i) {
        QCOMPARE(bars[i].raw, last.top[i].raw);
        QCOMPARE(bars[i].p, last.top[i].p);
        QCOMPARE(bars[i].chosen, last.top[i].id == last.id);
    }
    QVERIFY(std::any_of(bars.begin(), bars.end(), [](const DistributionBar &b) { return b.chosen; }));
    // The counter: the forward of step 6 read 7 tokens, 6 cached: 7 entries against 28; 3 + 3 + 4 + 5 + 6 + 7 = 28 against 3 + 6 + 10 + 15 + 21 + 28 = 83.
    QCOMPARE(last.position, 7);
    QVERIFY2(panel.cacheLabel()->text().contains(QStringLiteral("read 7 tokens, 6 from the cache, and computed 7 score entries a head; without the cache, 28"))
                 && panel.cacheLabel()->text().contains(QStringLiteral("So far: 28 against 83")),
             qPrintable(panel.cacheLabel()->text()));
    // A seventh step is refused, and says why.
    QTest::mouseClick(panel.stepButton(), Qt::LeftButton);
    QCOMPARE(panel.steps().size(), std::size_t(6));
    QCOMPARE(panel.statusLabel()->text(), QStringLiteral("All 6 steps are done: Reset to start again, or raise Steps."));
}

void TestGenerationPanel::mapsGrowThroughTheCache()
{
    ModelView view;
    view.setModel(builtin());
    view.setText(QStringLiteral("the cat"));
    GenerationPanel panel(&view);
    panel.setSettings(settings(1.0, 0, 11, 8));
    std::vector<int> ids = view.trace()->ids;
    for (int i = 0; i < 8; ++i) {
        QVERIFY(panel.step());
        ids.push_back(panel.steps().back().id);
        const ModelTrace *t = view.trace();
        QVERIFY(t);
        QCOMPARE(t->ids, ids);                          // exactly the drawn ids, not a re-tokenized text
        QCOMPARE(t->reused, int(ids.size()) - 1);       // one new row
        QCOMPARE(view.stagePlot(Stage::Weights)->data().values.rows(), Eigen::Index(ids.size()));
        const ModelTrace full = std::get<ModelTrace>(runModelOnIds(*builtin(), ids, 5));
        double largest = 0;
        for (std::size_t l = 0; l < full.layers.size(); ++l)
            for (std::size_t h = 0; h < full.layers[l].heads.size(); ++h)
                largest = std::max(largest, (t->layers[l].heads[h].weights - full.layers[l].heads[h].weights).cwiseAbs().maxCoeff());
        QVERIFY2(largest <= 1e-12, qPrintable(QString::number(largest)));
        // The cache on the scores map: the kept rows, then the new one.
        const QStringList notes = view.stagePlot(Stage::Scores)->data().rowNotes;
        QCOMPARE(notes.size(), int(ids.size()));
        QCOMPARE(notes.count(QStringLiteral("cached")), int(ids.size()) - 1);
        QCOMPARE(notes.last(), QStringLiteral("new"));
        // The training view: one pass over the same ids, without the cache,
        // gives every step's probability again and the same maps.
        const auto check = panel.trainingCheck();
        QVERIFY(check);
        QVERIFY2(check->worstWeight <= 1e-12, qPrintable(QString::number(check->worstWeight)));
        QCOMPARE(check->stepP.size(), std::size_t(i + 1));
        for (std::size_t k = 0; k < check->stepP.size(); ++k) {
            QVERIFY(check->stepP[k] > 0);
            QVERIFY2(std::fabs(check->stepP[k] - check->onePassP[k]) <= 1e-12,
                     qPrintable(QStringLiteral("step %1: %2 against %3").arg(k + 1).arg(check->stepP[k]).arg(check->onePassP[k])));
        }
        QVERIFY(panel.trainingLabel()->text().contains(QStringLiteral("Training reads it all at once")));
    }
    // The text line shows the prompt and every generated token, the last in bold.
    QVERIFY(panel.textLabel()->text().contains(QStringLiteral("<b ")));
}

void TestGenerationPanel::playRunsToTheEnd()
{
    ModelView view;
    view.setModel(builtin());
    view.setText(QStringLiteral("the boy"));
    GenerationPanel panel(&view);
    panel.setSettings(settings(0.0, 0, 0, 5));
    panel.findChild<QSlider *>()->setValue(100);
    QSignalSpy stepped(&panel, &GenerationPanel::stepped);
    QTest::mouseClick(panel.playButton(), Qt::LeftButton);
    QVERIFY(panel.playing());
    QTRY_COMPARE_WITH_TIMEOUT(panel.steps().size(), std::size_t(5), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.playing(), 20000);
    QCOMPARE(stepped.count(), 5);
    QVERIFY(!panel.playButton()->isChecked());
    // Greedy: every step the argmax.
    for (const GenerationStep &st : panel.steps())
        QCOMPARE(st.p, 1.0);
}

void TestGenerationPanel::resetAndEditGoBackToAPrompt()
{
    ModelView view;
    view.setModel(builtin());
    view.setText(QStringLiteral("the girl"));
    const std::vector<int> prompt = view.trace()->ids;
    GenerationPanel panel(&view);
    panel.setSettings(settings(0.9, 0, 5, 4));
    for (int i = 0; i < 3; ++i)
        QVERIFY(panel.step());
    const std::vector<int> first = {panel.steps()[0].id, panel.steps()[1].id, panel.steps()[2].id};
    QTest::mouseClick(panel.resetButton(), Qt::LeftButton);
    QVERIFY(panel.steps().empty());
    QCOMPARE(view.trace()->ids, prompt);
    QVERIFY(panel.bars()->bars().empty());
    // The seed starts again: the same three tokens.
    for (int i = 0; i < 3; ++i)
        QVERIFY(panel.step());
    for (int i = 0; i < 3; ++i)
        QCOMPARE(panel.steps()[std::size_t(i)].id, first[std::size_t(i)]);
    // Typing in the sentence makes that text the prompt.
    view.sentenceField()->setFocus();
    view.sentenceField()->end(false);
    QTest::keyClicks(view.sentenceField(), QStringLiteral(" ."));
    QVERIFY(panel.steps().empty());
    QVERIFY(panel.prompt().empty());
    const QString typed = view.sentenceField()->text();
    QVERIFY(typed.endsWith(QStringLiteral(" .")));
    QVERIFY(panel.step());
    QCOMPARE(panel.prompt(), builtin()->tokenizer.encode(typed));
}

void TestGenerationPanel::contextFullIsSaid()
{
    ModelView view;
    view.setModel(builtin());
    const std::vector<int> the = builtin()->tokenizer.encode(QStringLiteral("the"));
    view.setIds(std::vector<int>(63, the.front()));
    GenerationPanel panel(&view);
    panel.setSettings(settings(0.0, 0, 0, 10));
    QVERIFY(panel.step());          // the 64th token
    QCOMPARE(view.trace()->ids.size(), std::size_t(64));
    QVERIFY(!panel.step());         // a 65th the model could not read
    QCOMPARE(panel.statusLabel()->text(), QStringLiteral("The context is full: tiny-bilingual reads at most 64 tokens."));
}

void TestGenerationPanel::menuOpensTheDock()
{
    MainWindow w;
    w.setInteractive(false);
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto *action = w.findChild<QAction *>(QStringLiteral("generationAction"));
    QVERIFY(action);
    action->trigger();
    auto *dock = w.findChild<QDockWidget *>(QStringLiteral("generationDock"));
    QVERIFY(dock);
    QTRY_VERIFY(dock->isVisible());
    auto *mode = w.findChild<ModelMode *>();
    QVERIFY(mode && mode->modelView()->isVisible());
    QVERIFY(mode->generationPanel()->step());
    // Back to the lab: the dock goes with the model mode.
    w.findChild<QAction *>(QStringLiteral("modelMode"))->trigger();
    QTRY_VERIFY(!dock->isVisible());
}

QTEST_MAIN(TestGenerationPanel)
#include "test_generationpanel.moc"
