// Teaching in front of the class: step mode, hide mode (predict,
// then reveal), the guesses, the lessons' notes and the seeds' quiz, the
// sentence field, and the projector layout.

#include "attn_test.h"

#include "attention.h"
#include "guesspanel.h"
#include "lessons.h"
#include "mainwindow.h"
#include "matrixpanel.h"
#include "notespanel.h"
#include "numbers.h"
#include "onlinepanel.h"
#include "planeplot.h"
#include "quizpanel.h"
#include "scenario_json.h"
#include "sentence.h"
#include "sentencepanel.h"
#include "settingsbar.h"
#include "stagedata.h"
#include "stageviews.h"
#include "steppanel.h"
#include "steps.h"
#include "validate.h"
#include "edit.h"
#include "preferences.h"
#include "topkpanel.h"

#include <QAction>
#include <QAbstractScrollArea>
#include <QApplication>
#include <QDockWidget>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QDoubleSpinBox>
#include <QTableWidget>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QLocale>
#include <QToolButton>
#include <QTableView>
#include <QTextBrowser>
#include <QScreen>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QTranslator>
#include <QScopeGuard>
#include <QTest>

#include <set>

using namespace attn;

namespace {

Scenario lesson(const QString &name)
{
    const ScenarioOrProblem l = loadLesson(name);
    if (const auto *p = std::get_if<Problem>(&l))
        qFatal("%s: %s", qPrintable(name), p->toString().c_str());
    return std::get<Scenario>(l);
}

QString allStepText(const Scenario &s, int row = 0)
{
    const Trace t = compute(s);
    QString out;
    for (StepKind k : stepsFor(s))
        for (const std::string &line : stepLines(s, t, k, 0, row))
            out += QString::fromStdString(line) + QLatin1Char('\n');
    return out;
}

} // namespace

class TestClassroom : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void stepsOfEachScenario();
    void seedArithmetic();
    void stepArithmeticFollowsEveryStep();
    void stepModeRevealsInOrder();
    void stepPanelFollowsEdits();
    void onlineSoftmaxStepsTheTiles();
    void softmaxOneFromTheMenu();
    void qkvSourceSaysWhereTheyComeFrom();
    void hideModeHidesEveryChannel();
    void hideModeSurvivesLessonsAndIsOffAtStart();
    void guessIsScored();
    void guessHidesTheAnswerUntilTheReveal();
    void guessOffersOnlyOpenKeys();
    void guessBarLabelsDoNotOverlap_data();
    void guessBarLabelsDoNotOverlap();
    void quizAnswersAreScored();
    void notesAndQuizInBothLanguages();
    void notesAndQuizKeysInFiles();
    void sentenceMakesTokens();
    void sentenceFieldInTheWindow();
    void projectorLayout_data();
    void projectorLayout();
    void projectorWithPanels_data();
    void projectorWithPanels();
    void deskLayout_data();
    void deskLayout();
    void topKMapsReadable_data();
    void topKMapsReadable();
    void misprintSaidUnderTheMaps();
    void fewerDecimalsAreSaid();
    void inputsAfterAWideHead();
    void temperatureBoxShowsTheDocumentsTau();
    void toolBarRowFits();
    void stepModeGivesNothingAway();
    void customMaskHintNamesTheGesture();
    void aPanelThatCostsNumbersIsSaid();

private:
    QTemporaryDir m_settings;
};

void TestClassroom::initTestCase()
{
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
}

void TestClassroom::stepsOfEachScenario()
{
    const std::vector<StepKind> six{StepKind::Scores, StepKind::Scaled, StepKind::Mask, StepKind::Exp,
                                    StepKind::Normalise, StepKind::WeightedSum};
    QVERIFY(stepsFor(lesson("seed000-basic")) == six);
    std::vector<StepKind> seven = six;
    seven.push_back(StepKind::Concat);
    QVERIFY(stepsFor(lesson("multihead")) == seven);
    QCOMPARE(stageOfStep(StepKind::Exp), Stage::Weights);
    QCOMPARE(stageOfStep(StepKind::Mask), Stage::Masked);
}

void TestClassroom::seedArithmetic()
{
    const Scenario s = lesson("seed000-basic");
    const Trace t = compute(s);
    const auto exp = stepLines(s, t, StepKind::Exp, 0, 0);
    QString e;
    for (const auto &l : exp)
        e += QString::fromStdString(l) + QLatin1Char('\n');
    // e^2.8284 = 16.92 as a student writes it, before and after subtracting the maximum.
    QVERIFY2(e.contains(QStringLiteral("e^{2.8284} = 16.92")), qPrintable(e));
    QVERIFY2(e.contains(QStringLiteral("e^{2.8284 − 2.8284} = e^{0.0000} = 1.0000")), qPrintable(e));
    QVERIFY2(e.contains(QStringLiteral("= 22.03")), qPrintable(e));
    QVERIFY2(e.contains(QStringLiteral("4.1133")), qPrintable(e));
    const QString all = allStepText(s);
    for (const char *want : {"16.92", "22.03", "0.7679", "0.0454", "0.1867", "2·2 + 0·0 = 4.0000", "4.0000 / 1.4142 = 2.8284",
                             "√2 = 1.4142"})
        QVERIFY2(all.contains(QString::fromUtf8(want)), qPrintable(QStringLiteral("%1 missing in\n%2").arg(QString::fromUtf8(want), all)));
    const auto w = stepLines(s, t, StepKind::Normalise, 0, 0);
    QCOMPARE(QString::fromStdString(w[0]), QStringLiteral("w_{k1} = 1.0000 / 1.3022 = 0.7679"));
    QCOMPARE(QString::fromStdString(handNumber(-0.5)), QStringLiteral("−0.5000"));
    QCOMPARE(QString::fromStdString(handNumber(1234.5678)), QStringLiteral("1234.6"));
}

void TestClassroom::stepArithmeticFollowsEveryStep()
{
    // Masks, after the softmax, heads, encodings, similarity and τ: lines for every step, finite numbers.
    Scenario causal = lesson("causal");
    QString text = allStepText(causal, 1);
    QVERIFY2(text.contains(QStringLiteral("(−∞) = −∞")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("e^{−∞} = 0")), qPrintable(text));
    const Scenario after = lesson("mask-after-softmax");
    text = allStepText(after, 0);
    QVERIFY2(text.contains(QStringLiteral("→ 0")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Σ w = 0.2")), qPrintable(text));
    Scenario s = lesson("seed000-basic");
    s.temperature = 0.5;
    s.similarity = Similarity::Cosine;
    text = allStepText(s);
    QVERIFY2(text.contains(QStringLiteral("√2·0.5 = 0.7071")), qPrintable(text));
    const Scenario multi = lesson("multihead");
    const Trace mt = compute(multi);
    const auto concat = stepLines(multi, mt, StepKind::Concat, 0, 0);
    QCOMPARE(int(concat.size()), 2);
    QVERIFY(QString::fromStdString(concat[0]).contains(QStringLiteral("‖")));
    Scenario rope = lesson("permutation");
    rope.encoding = Encoding::Rope;
    QVERIFY(!allStepText(rope, 2).isEmpty());
    QVERIFY(!allStepText(rope, 2).contains(QStringLiteral("nan")));
}

void TestClassroom::stepModeRevealsInOrder()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    w.resize(1600, 1000);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QVERIFY(!w.classroom()->stepMode());
    for (Stage st : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output})
        QVERIFY(!w.stageView(st)->isDimmed());
    w.setStepMode(true);
    QCOMPARE(w.sideTabs()->currentWidget(), static_cast<QWidget *>(w.stepPanel()));
    QCOMPARE(w.classroom()->stepCount(), 6);
    const std::vector<StepKind> order{StepKind::Scores, StepKind::Scaled, StepKind::Mask, StepKind::Exp,
                                      StepKind::Normalise, StepKind::WeightedSum};
    const Stage stages[] = {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output};
    w.classroom()->first();
    for (int i = 0; i < int(order.size()); ++i) {
        QCOMPARE(w.classroom()->step(), i);
        QCOMPARE(w.classroom()->currentStep(), order[std::size_t(i)]);
        const Stage reached = stageOfStep(order[std::size_t(i)]);
        for (Stage st : stages)
            QCOMPARE(w.stageView(st)->isDimmed(), int(st) > int(reached));
        QVERIFY2(w.stepPanel()->heading().contains(QStringLiteral("Step %1 of 6").arg(i + 1)), qPrintable(w.stepPanel()->heading()));
        QVERIFY(!w.stepPanel()->arithmeticText().isEmpty());
        if (order[std::size_t(i)] == StepKind::Exp) {
            QVERIFY(w.stepPanel()->arithmeticText().contains(QStringLiteral("e^2.8284 = 16.92")));
            QVERIFY(w.stepPanel()->arithmeticHtml().contains(QStringLiteral("e<sup>2.8284</sup>")));
        }
        // The keys: Right (and Page Down) step on.
        QTest::keyClick(&w, i % 2 ? Qt::Key_PageDown : Qt::Key_Right);
    }
    QCOMPARE(w.classroom()->step(), 5); // stays at the last
    QTest::keyClick(&w, Qt::Key_Home);
    QCOMPARE(w.classroom()->step(), 0);
    QTest::keyClick(&w, Qt::Key_End);
    QCOMPARE(w.classroom()->step(), 5);
    QTest::keyClick(&w, Qt::Key_Left);
    QCOMPARE(w.classroom()->step(), 4);
    // Multi-head: the concatenation is the seventh step.
    QVERIFY(!w.openLesson(QStringLiteral("multihead")));
    QCOMPARE(w.classroom()->stepCount(), 7);
    w.classroom()->last();
    QCOMPARE(w.classroom()->currentStep(), StepKind::Concat);
    QVERIFY(w.showView(QStringLiteral("steps")) == &w);
    w.setStepMode(false);
    QVERIFY(!w.stageView(Stage::Scores)->isDimmed() && !w.stageView(Stage::Output)->isDimmed());
}

// The causal lesson's last query (机制), whose scaled row is
// (−0.7071, 0, 0.7071, −0.3536, −0.4950), in tiles of 2:
//   tile 1: m = 0, ℓ = e^−0.7071 + e^0 = 1.4931
//   tile 2: m = 0.7071, e^(0 − 0.7071) = 0.4931, ℓ = 1.4931 · 0.4931 + (1 + e^−1.0607) = 2.0824
// The tile being read is framed on the score and weight maps while the tab
// is shown; after the last tile the row equals the softmax to rounding.
void TestClassroom::onlineSoftmaxStepsTheTiles()
{
    QCOMPARE(StepPanel::typeset("e^{m_{old} − m}"), QStringLiteral("e<sup>m<sub>old</sub> − m</sup>"));
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto *panel = w.findChild<OnlineSoftmaxPanel *>();
    QVERIFY(panel);
    QVERIFY(w.showView(QStringLiteral("online")) == &w);
    QCOMPARE(w.sideTabs()->currentWidget(), static_cast<QWidget *>(panel));
    QCOMPARE(w.document()->currentQuery(), 4);
    QCOMPARE(panel->tileSize(), 2);
    QCOMPARE(panel->tileCount(), 3);
    QCOMPARE(panel->tileIndex(), 1);
    QVERIFY2(panel->arithmeticText().contains(QStringLiteral("= 1.4931 · 0.4931 + 1.3462 = 2.0824")),
             qPrintable(panel->arithmeticText()));
    QVERIFY(panel->arithmeticText().contains(QStringLiteral("max(0.0000, 0.7071) = 0.7071")));
    for (Stage st : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights})
        QCOMPARE(w.stageView(st)->tile(), (HeatmapPlot::Tile{4, 2, 3}));
    QCOMPARE(w.stageView(Stage::Output)->tile(), HeatmapPlot::Tile{});
    QVERIFY(panel->resultText().contains(QStringLiteral("keys 1–4 of 5")));

    panel->last();
    QCOMPARE(panel->tileIndex(), 2);
    QCOMPARE(w.stageView(Stage::Weights)->tile(), (HeatmapPlot::Tile{4, 4, 4}));
    QVERIFY2(panel->resultText().contains(QStringLiteral("Largest difference")), qPrintable(panel->resultText()));
    QVERIFY(panel->rowResult().largestWeightDifference < 1e-12);
    QVERIFY(panel->trafficText().contains(QStringLiteral("25 scores")) && panel->trafficText().contains(QStringLiteral("100"))
            && panel->trafficText().contains(QStringLiteral("75")));

    // One tile of every key: the whole row at once, then the first query (one open key).
    panel->setTileSize(5);
    QCOMPARE(panel->tileCount(), 1);
    QVERIFY(panel->arithmeticText().startsWith(QStringLiteral("s1…5 = [")));
    w.document()->setCurrentQuery(0);
    QCOMPARE(w.stageView(Stage::Scaled)->tile(), (HeatmapPlot::Tile{0, 0, 4}));
    QVERIFY(panel->arithmeticText().contains(QStringLiteral("[0.3536, −∞, −∞, −∞, −∞]")));

    // The overflow table: the row shifted to a top of 800 overflows as written, not shifted;
    // its weights are the lesson's.
    w.document()->setCurrentQuery(4);
    QTableWidget *table = panel->overflowTable();
    QCOMPARE(table->rowCount(), 6);
    QCOMPARE(table->columnCount(), 5);
    QCOMPARE(table->item(0, 2)->text(), QStringLiteral("800.0000"));
    for (int j = 0; j < 5; ++j) {
        QCOMPARE(table->item(1, j)->text(), QStringLiteral("∞"));
        QCOMPARE(table->item(2, j)->text(), QStringLiteral("NaN"));
        QCOMPARE(table->item(5, j)->text(),
                 QString::fromStdString(fixed4(w.document()->trace().heads[0].weights(4, j), Minus::Typographic)));
    }
    panel->setOverflowTop(5);
    QCOMPARE(table->item(2, 2)->text(), table->item(5, 2)->text());

    // Another tab: the maps lose the frame. An edit: the panel follows.
    w.sideTabs()->setCurrentIndex(0);
    QCOMPARE(w.stageView(Stage::Weights)->tile(), HeatmapPlot::Tile{});
    w.showSideTab(panel);
    QCOMPARE(w.stageView(Stage::Weights)->tile().row, 4);
    w.document()->setRow(MatrixId::Q, 4, Eigen::RowVectorXd(Eigen::RowVector2d(0, 0)), QStringLiteral("Edit q"));
    panel->first();
    QVERIFY2(panel->arithmeticText().startsWith(QStringLiteral("s1…5 = [0.0000, 0.0000, 0.0000, 0.0000, 0.0000]")),
             qPrintable(panel->arithmeticText()));
}

// Attention ▸ softmax₁ on seed 000: e^(2√2), e^0, e^(√2) = 16.9188, 1, 4.1133
// over 1 + 22.0321 = 23.0321: weights 0.7346, 0.0434, 0.1786, sum 0.9566.
// One undo step; the weights map says what it is and writes each row's sum.
void TestClassroom::softmaxOneFromTheMenu()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto *action = w.findChild<QAction *>(QStringLiteral("plusOneAction"));
    QVERIFY(action && action->isCheckable() && !action->isChecked());
    const int steps = w.document()->undoStack()->count();
    action->trigger();
    QCOMPARE(w.document()->scenario().softmax, SoftmaxKind::PlusOne);
    QCOMPARE(w.document()->undoStack()->count(), steps + 1);
    const double e1 = std::exp(2 * std::sqrt(2.0)), e3 = std::exp(std::sqrt(2.0)), z = 1 + e1 + 1 + e3;
    const HeadTrace &h = w.document()->trace().heads[0];
    QVERIFY(std::abs(h.weights(0, 0) - e1 / z) < 1e-12 && std::abs(h.weights(0, 1) - 1 / z) < 1e-12);
    const HeatmapData &d = w.stageView(Stage::Weights)->data();
    QVERIFY2(d.title.contains(QStringLiteral("Softmax₁")), qPrintable(d.title));
    QCOMPARE(d.rowNotes.size(), 1);
    QVERIFY2(d.rowNotes[0].endsWith(QStringLiteral("Σ 0.9566")), qPrintable(d.rowNotes[0])); // (z − 1) / z
    QVERIFY(d.rowNotesLegend.contains(QStringLiteral("attends to nothing")));
    QVERIFY(!d.rowFlagged.value(0)); // below 1 by design, not the after-softmax mistake
    w.document()->undo();
    QCOMPARE(w.document()->scenario().softmax, SoftmaxKind::Standard);
    QVERIFY(!action->isChecked());
    QVERIFY(!w.stageView(Stage::Weights)->data().title.contains(QStringLiteral("Softmax₁")));
}

// Quiz 2: where Q, K and V come from, with each lesson's shapes.
void TestClassroom::qkvSourceSaysWhereTheyComeFrom()
{
    const auto textOf = [](const char *name) {
        ScenarioOrProblem loaded = loadLesson(QLatin1String(name));
        return MatrixPanel::sourceText(std::get<Scenario>(loaded));
    };
    // multihead: projected, one sequence of 4 tokens, d_model 4, two heads of 2.
    QCOMPARE(textOf("multihead"), QStringLiteral("Self-attention: Q = X·W_Q, K = X·W_K and V = X·W_V all come from the "
                                                 "same X (4 × 4): Q and K are 4 × 4, V is 4 × 4."));
    // cross-attention: 3 queries (我 爱 你) against 4 source tokens, d_model 2.
    QVERIFY2(textOf("cross-attention").startsWith(QStringLiteral("Cross-attention: Q = X·W_Q comes from the queries' "
                                                                 "sequence X (3 × ")),
             qPrintable(textOf("cross-attention")));
    QVERIFY(textOf("cross-attention").contains(QStringLiteral("from the source S (4 × ")));
    // seed 000: one query against three keys, written directly: not called cross-attention.
    QCOMPARE(textOf("seed000-basic"), QStringLiteral("Q holds the queries (1 × 2); K and V hold the keys and their values "
                                                     "(3 × 2 and 3 × 3), each with tokens of its own."));
    QCOMPARE(textOf("causal"), QStringLiteral("Self-attention: Q, K and V belong to the same tokens: Q and K are "
                                              "5 × 2, V is 5 × 2."));
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    auto *label = w.findChild<QLabel *>(QStringLiteral("qkvSource"));
    QVERIFY(label);
    QCOMPARE(label->text(), textOf("causal"));
    QVERIFY(!w.openLesson(QStringLiteral("cross-attention")));
    QCOMPARE(label->text(), textOf("cross-attention"));
}

void TestClassroom::stepPanelFollowsEdits()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    w.show();
    w.setStepMode(true);
    w.classroom()->setStep(0);
    QVERIFY(w.stepPanel()->arithmeticText().contains(QStringLiteral("2·2 + 0·0 = 4.0000")));
    // A drag is a run of row edits: the panel follows each.
    w.document()->setRow(MatrixId::Q, 0, Eigen::RowVectorXd(Eigen::RowVector2d(0, 2)), QStringLiteral("Drag q"));
    QVERIFY2(w.stepPanel()->arithmeticText().contains(QStringLiteral("0·0 + 2·2 = 4.0000")), qPrintable(w.stepPanel()->arithmeticText()));
    w.classroom()->setStep(4);
    QVERIFY2(w.stepPanel()->arithmeticText().contains(QStringLiteral("wk2 = 1.0000 / 1.3022 = 0.7679")),
             qPrintable(w.stepPanel()->arithmeticText()));
}

void TestClassroom::hideModeHidesEveryChannel()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setAnswersHidden(true);
    QApplication::processEvents();
    const QStringList secrets{QStringLiteral("0.7679"), QStringLiteral("0.768"), QStringLiteral("0.77"),
                              QStringLiteral("0.0454"), QStringLiteral("0.1867"), QStringLiteral("0.19")};
    auto leaks = [&secrets](const QString &text) {
        for (const QString &s : secrets)
            if (text.contains(s))
                return true;
        return false;
    };
    for (Stage st : {Stage::Weights, Stage::Output}) {
        StageView *v = w.stageView(st);
        QVERIFY(v->valuesHidden());
        QVERIFY(!v->cellTextVisible());
        // No number left in the data the plot holds, no notes.
        QVERIFY(v->data().values.isZero());
        QVERIFY(v->data().rowNotes.isEmpty());
        QVERIFY(!v->colorScale()->visible());
        QVERIFY(!leaks(v->titleElement()->text()));
        for (int i = 0; i < v->rowCount(); ++i)
            for (int j = 0; j < v->columnCount(); ++j)
                QVERIFY(v->toolTipAt(i, j).isEmpty());
        // The picture: every cell one neutral fill, so no colour and no digit can show.
        v->replot(QCustomPlot::rpImmediateRefresh);
        const QImage img = v->grab().toImage();
        const qreal dpr = img.devicePixelRatio();
        std::set<QRgb> colours;
        for (int i = 0; i < v->rowCount(); ++i)
            for (int j = 0; j < v->columnCount(); ++j) {
                const QRect cell = v->cellRect(i, j).toAlignedRect().adjusted(3, 3, -3, -3);
                QVERIFY(cell.width() > 4 && cell.height() > 4);
                for (int y = cell.top(); y <= cell.bottom(); ++y)
                    for (int x = cell.left(); x <= cell.right(); ++x)
                        colours.insert(img.pixel(int(x * dpr), int(y * dpr)) & 0xFFFFFF);
            }
        QCOMPARE(int(colours.size()), 1);
        QCOMPARE(QColor(*colours.begin()), QColor(HeatmapPlot::hiddenFillColor().rgb() & 0xFFFFFF));
    }
    // The scores stay: they are what the students predict from.
    QVERIFY(!w.stageView(Stage::Scores)->valuesHidden());
    QVERIFY(w.stageView(Stage::Scores)->cellTextVisible());
    // The plane: no weight in the labels or tooltips, equal discs, no output.
    PlanePlot *plane = w.vectorPlane();
    QVERIFY(plane->weightsHidden());
    QVERIFY(plane->scene().hideWeights);
    QVERIFY(plane->scene().weights.isZero());
    QVERIFY(!plane->scene().output.has_value());
    w.sideTabs()->setCurrentIndex(0);
    QApplication::processEvents();
    plane->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(!plane->placedLabels().empty());
    for (const PlaneLabel &l : plane->placedLabels())
        QVERIFY2(!leaks(l.text) && !l.text.contains(QRegularExpression(QStringLiteral("\\d\\.\\d"))), qPrintable(l.text));
    QVERIFY(!leaks(plane->toolTip()));
    QVERIFY(!leaks(plane->scene().caption()));
    // The status bar, the lessons' descriptions and the notes.
    QVERIFY(!leaks(w.statusBar()->currentMessage()));
    for (QMenu *m : w.menuBar()->findChildren<QMenu *>())
        for (QAction *a : m->actions()) {
            QVERIFY2(!leaks(a->toolTip()) && !leaks(a->statusTip()), qPrintable(a->toolTip()));
        }
    QVERIFY(!leaks(w.notesPanel()->text()));
    // The step panel keeps the hidden steps to itself, and shows the rest.
    w.setStepMode(true);
    w.classroom()->setStep(4);
    QVERIFY(!leaks(w.stepPanel()->arithmeticText()));
    QVERIFY(w.stepPanel()->arithmeticText().isEmpty());
    w.classroom()->setStep(0);
    QVERIFY(w.stepPanel()->arithmeticText().contains(QStringLiteral("4.0000")));
    // Off again: everything comes back.
    w.setAnswersHidden(false);
    QVERIFY(!w.stageView(Stage::Weights)->valuesHidden());
    QCOMPARE(w.stageView(Stage::Weights)->data().values(0, 0), compute(lesson("seed000-basic")).heads[0].weights(0, 0));
    QVERIFY(!w.vectorPlane()->scene().hideWeights);
    QVERIFY(w.notesPanel()->text().contains(QStringLiteral("0.7679")));
}

void TestClassroom::hideModeSurvivesLessonsAndIsOffAtStart()
{
    {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
        w.setAnswersHidden(true);
        QVERIFY(!w.openLesson(QStringLiteral("causal")));
        QVERIFY(w.classroom()->hidden());
        QVERIFY(w.stageView(Stage::Weights)->valuesHidden());
        QVERIFY(w.stageView(Stage::Weights)->data().values.isZero());
        w.close();
    }
    MainWindow next;
    QVERIFY(!next.classroom()->hidden());
    QVERIFY(!next.stageView(Stage::Weights)->valuesHidden());
}

void TestClassroom::guessIsScored()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    w.show();
    GuessPanel *g = w.guessPanel();
    w.document()->setCurrentQuery(1);
    const Trace &t = w.document()->trace();
    g->guessWinner(0);
    QCOMPARE(g->guess()[0], 1.0);
    const double score = g->reveal();
    double expected = 0;
    for (Eigen::Index j = 0; j < t.heads[0].weights.cols(); ++j)
        expected += std::abs((j == 0 ? 1.0 : 0.0) - t.heads[0].weights(1, j));
    QVERIFY(attn::test::close(score, expected, 1e-12, 1e-12));
    QVERIFY(g->revealed());
    QVERIFY(g->scoreText().contains(QString::number(expected, 'f', 2)));
    g->nextRow();
    QCOMPARE(w.document()->currentQuery(), 2);
    QVERIFY(!g->revealed());
    // A perfect guess scores 0; a guess that does not sum to 1 is scaled first.
    std::vector<double> truth(t.heads[0].weights.cols());
    for (std::size_t j = 0; j < truth.size(); ++j)
        truth[j] = t.heads[0].weights(2, Eigen::Index(j));
    std::vector<double> doubled = truth;
    for (double &d : doubled)
        d *= 0.5;
    QVERIFY(GuessPanel::guessScore(doubled, truth) < 1e-12);
    QVERIFY(attn::test::close(GuessPanel::guessScore({1, 0}, {0, 1}), 2.0, 0, 1e-12));
}

// Guessing hides the maps' answers as F7 does; the reveal brings them back,
// and F7 pressed before the guess stays as the teacher set it.
void TestClassroom::guessHidesTheAnswerUntilTheReveal()
{
    {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.openLesson(QStringLiteral("causal")));
        w.show();
        GuessPanel *g = w.guessPanel();
        StageView *weights = w.stageView(Stage::Weights);
        QVERIFY(!w.classroom()->hidden());
        QVERIFY(!weights->valuesHidden());
        w.showView(QStringLiteral("guess"));
        QTRY_VERIFY(g->isVisible());
        QVERIFY(g->guessing());
        QVERIFY(w.classroom()->hidden());
        QVERIFY(weights->valuesHidden());
        QVERIFY(weights->data().values.isZero());
        QVERIFY(w.stageView(Stage::Output)->valuesHidden());
        g->reveal();
        QVERIFY(!g->guessing());
        QVERIFY(!w.classroom()->hidden());
        QVERIFY(!weights->valuesHidden());
        QVERIFY(weights->data().values == w.document()->trace().heads[0].weights);
        // The next row is a new guess: hidden again.
        g->nextRow();
        QVERIFY(g->guessing());
        QVERIFY(weights->valuesHidden());
    }
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    w.show();
    w.classroom()->setHidden(true); // F7 before the guess
    w.showView(QStringLiteral("guess"));
    QTRY_VERIFY(w.guessPanel()->guessing());
    w.guessPanel()->reveal();
    QVERIFY(w.classroom()->hidden());
    QVERIFY(w.stageView(Stage::Weights)->valuesHidden());
}

// A blocked key gets no weight whatever one guesses: it is not offered.
void TestClassroom::guessOffersOnlyOpenKeys()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    GuessPanel *g = w.guessPanel();
    const Trace &t = w.document()->trace();
    const int keys = int(t.blocked.cols());
    for (int row = 0; row < int(t.blocked.rows()); ++row) {
        w.document()->setCurrentQuery(row);
        std::vector<int> open;
        for (int j = 0; j < keys; ++j)
            if (!t.blocked(row, j))
                open.push_back(j);
        QCOMPARE(g->openKeys(), open);
        for (int j = 0; j < keys; ++j)
            QCOMPARE(g->findChild<QPushButton *>(QStringLiteral("winner-%1").arg(j)) != nullptr, !t.blocked(row, j));
        // A click on a blocked key changes nothing; the guess gives blocked keys 0.
        g->guessWinner(open.front());
        const std::vector<double> before = g->guess();
        QCOMPARE(int(before.size()), keys);
        if (open.size() < std::size_t(keys)) {
            g->guessWinner(keys - 1);
            QCOMPARE(g->guess(), before);
        }
        for (int j = 0; j < keys; ++j)
            if (t.blocked(row, j))
                QCOMPARE(g->guess()[std::size_t(j)], 0.0);
        // The first row has one open key: the only guess there is right, 0.
        const double score = g->reveal();
        double expected = 0;
        for (int j = 0; j < keys; ++j)
            expected += std::abs(before[std::size_t(j)] - t.heads[0].weights(row, j));
        QVERIFY(attn::test::close(score, expected, 1e-12, 1e-12));
        if (row == 0)
            QVERIFY(attn::test::close(score, 0.0, 0, 1e-12));
    }
}

void TestClassroom::guessBarLabelsDoNotOverlap_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("points");
    for (int width : {120, 200, 320, 480, 900})
        for (int points : {9, 16, 26}) // a desk, then a projector's zoom
            QTest::newRow(qPrintable(QStringLiteral("%1 px, %2 pt").arg(width).arg(points))) << width << points;
}

void TestClassroom::guessBarLabelsDoNotOverlap()
{
    QFETCH(int, width);
    QFETCH(int, points);
    GuessBars bars;
    QFont f = bars.font();
    f.setPointSize(points);
    bars.setFont(f);
    const QStringList keys{QStringLiteral("我"), QStringLiteral("打"), QStringLiteral("你"), QStringLiteral("the"),
                           QStringLiteral("cat"), QStringLiteral("sat"), QStringLiteral("on"), QStringLiteral("mat")};
    bars.setKeys(keys);
    bars.setGuess({0.0, 0.05, 1.0, 0.5, 0.0, 0.25, 0.1, 0.1});
    bars.resize(width, 14 * QFontMetrics(f).height());
    for (bool revealed : {false, true}) {
        if (revealed)
            bars.setTruth({0.02, 0.03, 0.9, 0.01, 0.01, 0.01, 0.01, 0.01});
        const QList<GuessBars::Label> values = bars.valueLabels();
        const QList<GuessBars::Label> all = values + bars.keyLabels();
        for (int a = 0; a < all.size(); ++a) {
            QVERIFY2(QRectF(bars.rect()).contains(all[a].box), qPrintable(all[a].text));
            for (int b = a + 1; b < all.size(); ++b)
                QVERIFY2(!all[a].box.intersects(all[b].box),
                         qPrintable(QStringLiteral("“%1” and “%2” overlap").arg(all[a].text, all[b].text)));
        }
        // Where two values fit across a key's slot, every value is written, in order.
        const double slot = (width - 8.0) / keys.size();
        const double wide = QFontMetricsF(f).horizontalAdvance(QStringLiteral("0.00")) + 4;
        if (wide <= (revealed ? slot / 2 : slot)) {
            QCOMPARE(values.size(), revealed ? 16 : 8);
            QCOMPARE(values[revealed ? 4 : 2].text, QStringLiteral("1.00"));
        }
    }
}

void TestClassroom::quizAnswersAreScored()
{
    QuizPanel quiz;
    // Seed 000's four 关卡 and seed 001's three questions come first (other lessons may add theirs).
    QVERIFY(quiz.questionCount() >= 7);
    QCOMPARE(quiz.entry(6).question.id, std::string("seed001-q3"));
    QCOMPARE(quiz.entry(0).question.id, std::string("seed000-q1"));
    QCOMPARE(quiz.entry(0).lesson, QStringLiteral("seed000-basic"));
    QCOMPARE(quiz.score(), 0);
    quiz.showQuestion(0);
    QVERIFY(quiz.answer({1})); // B
    QCOMPARE(quiz.score(), 1);
    QCOMPARE(quiz.answeredCount(), 1);
    QVERIFY(!quiz.feedbackText().isEmpty());
    quiz.showQuestion(2);
    QVERIFY(!quiz.answer({0})); // 关卡三 is B
    QCOMPARE(quiz.score(), 1);
    QCOMPARE(quiz.answeredCount(), 2);
    QVERIFY(quiz.feedbackText().contains(QStringLiteral("B")));
    // An answered question counts once.
    QVERIFY(quiz.answer({1}));
    QCOMPARE(quiz.score(), 1);
    quiz.showQuestion(3);
    QVERIFY(!quiz.answer({0, 1}));
    quiz.showQuestion(3);
    quiz.showQuestion(4);
    QVERIFY(quiz.answer({0}));
    QCOMPARE(quiz.score(), 2);
    QCOMPARE(quiz.answeredCount(), 4);
    // The multiple choice answer of 关卡四 is A, B, D.
    QVERIFY((quiz.entry(3).question.answer == std::vector<int>{0, 1, 3}));
    // Show it live: the lesson and its setting.
    MainWindow w;
    w.setInteractive(false);
    QuizPanel *inWindow = w.showQuiz();
    inWindow->showQuestion(0);
    QMetaObject::invokeMethod(inWindow, [inWindow] {
        const QuizQuestion &q = inWindow->entry(0).question;
        emit inWindow->openRequested(QString::fromStdString(q.lesson), QString::fromStdString(q.view), q.settings);
    });
    QCOMPARE(w.document()->lessonName(), QStringLiteral("seed000-basic"));
    QCOMPARE(w.document()->scenario().scale, Scale::None);
    QVERIFY(attn::test::close(w.document()->trace().heads[0].weights(0, 0), 0.8668, 0, 5e-5));
    QVERIFY(w.showView(QStringLiteral("quiz")) == inWindow->window());
    // Every question's "view" is one the window shows (关卡四: what attention costs).
    for (const QString &name : lessonIndex())
        for (const QuizQuestion &q : lesson(name).quiz)
            if (!q.view.empty())
                QVERIFY2(w.viewNames().contains(QString::fromStdString(q.view)), q.id.c_str());
    QVERIFY(w.viewNames().contains(QStringLiteral("cost")));
}

void TestClassroom::notesAndQuizInBothLanguages()
{
    int withNotes = 0, questions = 0;
    auto both = [](const LocalText &t, const QString &where) {
        for (const char *lang : {"en", "zh_CN"}) {
            const auto it = t.find(lang);
            if (it == t.end() || it->second.empty())
                QTest::qFail(qPrintable(QStringLiteral("%1: no %2 text").arg(where, QLatin1String(lang))), __FILE__, __LINE__);
        }
        const auto zh = t.find("zh_CN");
        return zh != t.end() && QString::fromStdString(zh->second).contains(QRegularExpression(QStringLiteral("[\\x{4e00}-\\x{9fff}]")));
    };
    for (const QString &name : lessonIndex()) {
        const Scenario s = lesson(name);
        if (!s.notes.empty()) {
            ++withNotes;
            QVERIFY2(both(s.notes, name + QStringLiteral(": notes")), qPrintable(name));
        }
        for (const QuizQuestion &q : s.quiz) {
            ++questions;
            const QString where = name + QStringLiteral(": ") + QString::fromStdString(q.id);
            QVERIFY2(both(q.question, where + QStringLiteral(" question")), qPrintable(where));
            QVERIFY2(both(q.explanation, where + QStringLiteral(" explanation")), qPrintable(where));
            for (const LocalText &c : q.choices) {
                both(c, where + QStringLiteral(" choice"));
            }
            if (!q.lesson.empty())
                QVERIFY2(lessonIndex().contains(QString::fromStdString(q.lesson)), qPrintable(where));
        }
    }
    QVERIFY(withNotes >= 11);
    QVERIFY(questions >= 7);
    QCOMPARE(int(lesson("seed000-basic").quiz.size()), 4);
    QCOMPARE(int(lesson("seed001-selftest").quiz.size()), 3);
    // The seed lessons say where the handout is wrong, with the right numbers.
    const Scenario basic = lesson("seed000-basic");
    QVERIFY(QString::fromStdString(basic.notes.at("en")).contains(QStringLiteral("0.8756")));
    QVERIFY(QString::fromStdString(basic.notes.at("en")).contains(QStringLiteral("[0.7679, 0.0454, 0.1867]")));
    QVERIFY(QString::fromStdString(basic.notes.at("zh_CN")).contains(QStringLiteral("[0.7679, 0.0454, 0.1867]")));
    // The seeds' own Chinese.
    QVERIFY(QString::fromStdString(basic.quiz[0].question.at("zh_CN")).startsWith(QStringLiteral("关卡一（单选）")));
    // Framed as the seeds do: self-attention with one query, not cross-attention.
    QVERIFY(QString::fromStdString(basic.title).contains(QStringLiteral("self-attention")));
    QVERIFY(lessonInfo(QStringLiteral("seed000-basic"), QStringLiteral("zh_CN")).title.contains(QStringLiteral("自注意力")));
    // The notes pane shows the window's language.
    QCOMPARE(NotesPanel::localText(basic.notes, QStringLiteral("zh_CN")), QString::fromStdString(basic.notes.at("zh_CN")));
    QCOMPARE(NotesPanel::localText(basic.notes, QStringLiteral("fr")), QString::fromStdString(basic.notes.at("en")));
}

void TestClassroom::notesAndQuizKeysInFiles()
{
    // Older files (no notes, no quiz) still load.
    const QByteArray old = R"({"inputs": {"Q": [[1, 0]], "K": [[1, 0]], "V": [[1]]}})";
    const auto plain = scenarioFromJson(old);
    QVERIFY(std::holds_alternative<Scenario>(plain));
    QVERIFY(std::get<Scenario>(plain).notes.empty() && std::get<Scenario>(plain).quiz.empty());
    // A teacher's own question, kept through a save.
    const QByteArray mine = R"({"inputs": {"Q": [[1, 0]], "K": [[1, 0]], "V": [[1]]},
        "notes": {"en": "Try it.", "zh_CN": "试试。"},
        "quiz": [{"id": "a", "question": {"en": "Which?"}, "choices": [{"en": "x"}, {"en": "y"}], "answer": [1],
                  "open": {"lesson": "causal", "scale": "none"}}]})";
    const auto read = scenarioFromJson(mine);
    QVERIFY(std::holds_alternative<Scenario>(read));
    const Scenario s = std::get<Scenario>(read);
    QCOMPARE(s.notes.at("zh_CN"), std::string("试试。"));
    QCOMPARE(int(s.quiz.size()), 1);
    QCOMPARE(s.quiz[0].answer, std::vector<int>{1});
    QCOMPARE(std::string(toString(s.quiz[0].settings.scale.value_or(Scale::SqrtDk))), std::string("none"));
    const auto again = scenarioFromJson(scenarioToJson(s));
    QVERIFY(std::holds_alternative<Scenario>(again));
    QCOMPARE(std::get<Scenario>(again).quiz[0].choices[1].at("en"), std::string("y"));
    QCOMPARE(scenarioToJson(std::get<Scenario>(again)), scenarioToJson(s));
    // Mistakes are named by their place.
    auto placeOf = [](const QByteArray &json) {
        const auto r = scenarioFromJson(json);
        return std::holds_alternative<Problem>(r) ? QString::fromStdString(std::get<Problem>(r).place) : QString();
    };
    const QByteArray base = R"({"inputs": {"Q": [[1, 0]], "K": [[1, 0]], "V": [[1]]}, )";
    QCOMPARE(placeOf(base + R"("notes": "hello"})"), QStringLiteral("notes"));
    QCOMPARE(placeOf(base + R"("notes": {"en": 3}})"), QStringLiteral("notes.en"));
    QCOMPARE(placeOf(base + R"("quiz": [{"question": {"en": "q"}, "choices": [{"en": "a"}, {"en": "b"}], "answer": [2]}]})"),
             QStringLiteral("quiz[0].answer[0]"));
    QCOMPARE(placeOf(base + R"("quiz": [{"question": {"en": "q"}, "choices": [{"en": "a"}], "answer": [0]}]})"),
             QStringLiteral("quiz[0].choices"));
    QCOMPARE(placeOf(base + R"("quiz": [{"choices": [{"en": "a"}, {"en": "b"}], "answer": [0]}]})"),
             QStringLiteral("quiz[0].question"));
    QCOMPARE(placeOf(base + R"("quiz": [{"question": {"en": "q"}, "choices": [{"en": "a"}, {"en": "b"}], "answer": [0], "open": {"scale": "big"}}]})"),
             QStringLiteral("quiz[0].open.scale"));
}

void TestClassroom::sentenceMakesTokens()
{
    QCOMPARE(splitSentence("我 打 你", SplitMode::Auto), (std::vector<std::string>{"我", "打", "你"}));
    QCOMPARE(splitSentence("我打你", SplitMode::Auto), (std::vector<std::string>{"我", "打", "你"}));
    QCOMPARE(splitSentence("  the cat  sat ", SplitMode::Auto), (std::vector<std::string>{"the", "cat", "sat"}));
    QCOMPARE(splitSentence("the cat", SplitMode::Characters).size(), std::size_t(6));
    QCOMPARE(splitSentence("我打你", SplitMode::Words), (std::vector<std::string>{"我打你"}));
    const Eigen::RowVectorXd a = wordVector("我", 7, 4), b = wordVector("我", 7, 4), c = wordVector("你", 7, 4);
    QVERIFY(a == b);
    QVERIFY(a != c);
    QVERIFY(wordVector("我", 8, 4) != a);
    for (Eigen::Index i = 0; i < a.size(); ++i)
        QVERIFY(std::abs(a(i)) <= 1.0 && std::abs(a(i) * 100 - std::round(a(i) * 100)) < 1e-9);
    // 我打你 and 你打我 share their embeddings: the same rows, reordered.
    const Scenario base = lesson("seed000-basic");
    const Scenario one = scenarioFromSentence(base, splitSentence("我打你", SplitMode::Auto), 7);
    const Scenario two = scenarioFromSentence(base, splitSentence("你 打 我", SplitMode::Auto), 7);
    QCOMPARE(one.tokens, (std::vector<std::string>{"我", "打", "你"}));
    QVERIFY(!validate(one).has_value());
    QCOMPARE(one.Q.rows(), 3);
    QCOMPARE(one.Q.cols(), base.Q.cols());
    QCOMPARE(one.V.cols(), base.V.cols());
    QVERIFY(one.Q.row(0) == two.Q.row(2) && one.K.row(0) == two.K.row(2) && one.V.row(1) == two.V.row(1));
    // Projected: X from the words, the W's from the seed; the widths stay.
    const Scenario proj = scenarioFromSentence(lesson("multihead"), {"the", "cat", "sat", "the"}, 3);
    QVERIFY(!validate(proj).has_value());
    QCOMPARE(proj.X.rows(), 4);
    QVERIFY(proj.X.row(0) == proj.X.row(3));
    QVERIFY(proj.Wq == randomMatrix(int(proj.Wq.rows()), int(proj.Wq.cols()), 3, "Wq"));
    QVERIFY(proj.Wq != proj.Wk);
}

void TestClassroom::sentenceFieldInTheWindow()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    auto *panel = w.findChild<SentencePanel *>();
    QVERIFY(panel);
    panel->sentenceField()->setText(QStringLiteral("我 打 你"));
    QVERIFY(panel->fillFromSentence());
    QCOMPARE(w.document()->scenario().tokens, (std::vector<std::string>{"我", "打", "你"}));
    const Eigen::RowVectorXd me = w.document()->scenario().Q.row(0);
    panel->sentenceField()->setText(QStringLiteral("你打我"));
    QVERIFY(panel->fillFromSentence());
    QVERIFY(w.document()->scenario().Q.row(2) == me);
    QVERIFY(w.document()->undoStack()->canUndo());
    const Matrix before = w.document()->scenario().Q;
    QVERIFY(panel->randomiseMatrix());
    QVERIFY(w.document()->scenario().Q != before);
}

void TestClassroom::projectorLayout_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<double>("zoom");
    QTest::addColumn<QString>("language");
    for (const char *language : {"en", "zh_CN"})
        for (QSize size : {QSize(1600, 1000), QSize(1920, 1080)})
            for (double zoom : {1.5, 2.0})
                QTest::addRow("%dx%d zoom %.1f %s", size.width(), size.height(), zoom, language) << size << zoom << QString::fromLatin1(language);
}

namespace {

// The interface in `language` while it lives (the app's own .qm, built
// beside the app: tests/.. /app/gui), then back to English.
class Language {
public:
    explicit Language(const QString &language)
    {
        if (language == QLatin1String("en"))
            return;
        QLocale::setDefault(QLocale(language));
        const QString dir = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/gui");
        loaded = m_translator.load(QLocale(language), QStringLiteral("attention-lab"), QStringLiteral("_"), dir)
            && QCoreApplication::installTranslator(&m_translator);
    }
    ~Language()
    {
        QCoreApplication::removeTranslator(&m_translator);
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    }
    bool loaded = true;

private:
    QTranslator m_translator;
};

// Every action and widget of the settings bar in the bar's row, visible, not
// in the "»" overflow; and no other toolbar on that row.
QStringList settingsBarProblems(MainWindow &w)
{
    QStringList out;
    SettingsBar *bar = w.settingsBar();
    if (!bar->isVisible())
        return out;
    const QRect inBar = bar->rect();
    for (QAction *a : bar->actions()) {
        if (a->isSeparator() || !a->isVisible())
            continue;
        QWidget *item = bar->widgetForAction(a);
        const QString name = a->text().isEmpty() && item ? item->objectName() : a->text();
        if (!item || !item->isVisible() || !inBar.contains(item->geometry()))
            out << QStringLiteral("settings bar: %1 is not in view (in the overflow)").arg(name);
    }
    const QRect row = bar->geometry();
    for (QToolBar *other : w.findChildren<QToolBar *>())
        if (other != bar && other->isVisible() && other->parentWidget() == &w && other->geometry().intersects(row))
            out << QStringLiteral("settings bar: shares its row with ") + other->objectName();
    return out;
}

// Lets the window finish what a show, a resize or a zoom set off: the
// projector fit and the toolbar texts run from zero-delay timers, one turn of
// the event loop after another. Turns the loop until the window's zero-delay
// timers have stayed idle for a few turns (turns, not a time: a loaded
// machine only takes longer).
bool settled(QWidget &w)
{
    int idle = 0;
    return QTest::qWaitFor([&] {
        bool busy = false;
        for (const QTimer *t : w.findChildren<QTimer *>())
            busy = busy || (t->isActive() && t->interval() == 0);
        idle = busy ? 0 : idle + 1;
        return idle >= 3;
    }, 30000);
}

} // namespace

void TestClassroom::projectorLayout()
{
    QFETCH(QSize, size);
    QFETCH(double, zoom);
    QFETCH(QString, language);
    const QFont before = QApplication::font();
    QStringList failures;
    {
        const Language lang(language);
        QVERIFY2(lang.loaded, "the zh_CN translation (app/gui/attention-lab_zh_CN.qm) is built");
        MainWindow w;
        w.setInteractive(false);
        for (const QString &name : {QStringLiteral("seed000-basic"), QStringLiteral("causal"), QStringLiteral("mask-after-softmax")}) {
            QVERIFY(!w.openLesson(name));
            w.setZoom(zoom, false);
            w.resize(size);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(settled(w));
            QApplication::processEvents();
            // Panels folded away or not, the settings stay one click away.
            const bool panels = w.findChild<QDockWidget *>(QStringLiteral("settingsDock"))->isVisible();
            if (panels == w.settingsBar()->isVisible())
                failures << name + QStringLiteral(": the settings bar is shown exactly when the settings panel is not");
            failures << settingsBarProblems(w);
            if (w.size() != size)
                failures << QStringLiteral("%1: the window is %2x%3").arg(name).arg(w.width()).arg(w.height());
            if (!w.mapsReadable())
                failures << name + QStringLiteral(": the window finds its maps unreadable");
            // Each map on screen (one click away where score maps share a
            // strip: it is brought forward first).
            const int inStrip = w.strippedMaps();
            for (Stage st : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output}) {
                StageView *v = w.stageView(st);
                w.showStage(st);
                QApplication::processEvents();
                v->replot(QCustomPlot::rpImmediateRefresh);
                const QString where = QStringLiteral("%1 %2: %3 (%4x%5)").arg(name, stageKey(st)).arg(v->data().title).arg(v->width()).arg(v->height());
                // On screen: a map in a tab behind another keeps its numbers for nobody.
                if (!v->isVisible())
                    failures << where + QStringLiteral(": not in view");
                if (!v->cellTextVisible())
                    failures << where + QStringLiteral(": cell values not drawn");
                if (v->titleElement()->text() != v->data().title)
                    failures << where + QStringLiteral(": title cut to ") + v->titleElement()->text();
                if (st == Stage::Weights && !v->yAxis2->visible())
                    failures << where + QStringLiteral(": row notes hidden");
            }
            // The weights and the output are never in the strip; at most one score map is out of view.
            if (inStrip != 0 && inStrip != 2 && inStrip != 3)
                failures << name + QStringLiteral(": %1 maps in the strip").arg(inStrip);
            for (Stage st : {Stage::Weights, Stage::Output})
                if (w.stageStrip()->indexOf(w.stageView(st)) >= 0)
                    failures << name + QStringLiteral(": %1 in the strip").arg(stageKey(st));
        }
        // The other views stay one click away, in the tab bar beside the maps.
        for (QWidget *page : {static_cast<QWidget *>(w.vectorPlane()), static_cast<QWidget *>(w.stepPanel())})
            if (!w.sideTabs()->isAncestorOf(page) || !w.sideTabs()->isVisible())
                failures << QStringLiteral("%1 is not in the side tabs").arg(page->metaObject()->className());
        // Back to the desk: the plain layout and the panels the zoom folded.
        const bool folded = w.panelsFoldedByZoom();
        w.setZoom(1.0, false);
        QVERIFY(settled(w));
        QApplication::processEvents();
        if (w.mapsTabbed())
            failures << QStringLiteral("zoom 1: the maps are still in a tab");
        if (folded && !w.findChild<QDockWidget *>(QStringLiteral("settingsDock"))->isVisible())
            failures << QStringLiteral("zoom 1: the panels the zoom folded did not come back");
        if (!w.stageView(Stage::Weights)->isVisible() || !w.sideTabs()->isVisible())
            failures << QStringLiteral("zoom 1: the maps or the side tabs are not in view");
    }
    QApplication::setFont(before);
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
}

void TestClassroom::projectorWithPanels_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<double>("zoom");
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("panels"); // folded (by the zoom), shown (F9), notes (F9 and the lesson notes open)
    for (const char *language : {"en", "zh_CN"})
        for (QSize size : {QSize(1600, 1000), QSize(1920, 1080)})
            for (double zoom : {1.5, 2.0})
                for (const char *panels : {"folded", "shown", "notes"})
                    QTest::addRow("%dx%d zoom %.1f %s %s", size.width(), size.height(), zoom, language, panels)
                        << size << zoom << QString::fromLatin1(language) << QString::fromLatin1(panels);
}

namespace {

// What the panels in view hide or cut: the inputs table squeezed out of
// view, a settings text cut, the notes a column that breaks words.
QStringList panelProblems(MainWindow &w)
{
    QStringList out;
    auto *inputs = w.findChild<QDockWidget *>(QStringLiteral("inputsDock"));
    if (inputs->isVisible()) {
        const auto *scroll = qobject_cast<QAbstractScrollArea *>(inputs->widget());
        const QRect viewport = scroll->viewport()->rect();
        auto *table = qobject_cast<QTableView *>(w.matrixPanel()->findChild<QTabWidget *>()->currentWidget());
        if (!table || !table->isVisible())
            out << QStringLiteral("inputs: no table in view");
        else if (const int least = table->horizontalHeader()->height() + table->rowHeight(0); table->viewport()->height() < table->rowHeight(0)
                 || table->height() < least)
            out << QStringLiteral("inputs: the table is %1 px high, its header and a row need %2").arg(table->height()).arg(least);
        // The token buttons are whole in the panel's width (the panel scrolls down, not sideways).
        for (QToolButton *b : w.matrixPanel()->findChildren<QToolButton *>())
            if (b->isVisible() && b->text().contains(QLatin1Char('+'))) {
                const QRect r(b->mapTo(scroll->viewport(), QPoint(0, 0)), b->size());
                if (r.right() > viewport.right() || b->width() < b->sizeHint().width())
                    out << QStringLiteral("inputs: the button %1 is cut (%2 of %3 px in view)")
                               .arg(b->text()).arg(viewport.right() - r.left()).arg(b->sizeHint().width());
            }
    }
    auto *settings = w.findChild<QDockWidget *>(QStringLiteral("settingsDock"));
    if (settings->isVisible()) {
        const auto *scroll = qobject_cast<QAbstractScrollArea *>(settings->widget());
        const int right = scroll->viewport()->width();
        for (QLabel *l : settings->findChildren<QLabel *>()) {
            if (!l->isVisible() || l->text().isEmpty())
                continue;
            const int x = l->mapTo(scroll->viewport(), QPoint(0, 0)).x();
            const bool cut = l->wordWrap() ? l->height() < l->heightForWidth(l->width()) || x + l->width() > right
                                           : x + l->width() > right || l->width() < l->minimumSizeHint().width();
            if (cut)
                out << QStringLiteral("settings: \"%1\" is cut (%2x%3 at x %4, the panel %5 wide)")
                           .arg(l->text().left(24)).arg(l->width()).arg(l->height()).arg(x).arg(right);
        }
    }
    if (w.notesDock()->isVisible()) {
        auto *text = w.notesPanel()->findChild<QTextBrowser *>();
        const QFontMetrics fm(text->font());
        int widest = 0;
        for (const QString &word : w.notesPanel()->text().split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts))
            widest = std::max(widest, fm.horizontalAdvance(word.left(12))); // a run of Chinese breaks anywhere
        if (text->viewport()->width() < widest)
            out << QStringLiteral("notes: %1 px wide, narrower than a word (%2 px)").arg(text->viewport()->width()).arg(widest);
    }
    return out;
}

} // namespace

// At a projector's zoom, whatever the teacher shows (the panels folded by
// the zoom, brought back with F9, the lesson notes open): every map in view
// keeps its numbers, whole title and row notes, or the window says in one
// line that the panels cost them and offers to fold them; and the panels
// in view show what they hold.
void TestClassroom::projectorWithPanels()
{
    QFETCH(QSize, size);
    QFETCH(double, zoom);
    QFETCH(QString, language);
    QFETCH(QString, panels);
    const QFont before = QApplication::font();
    QStringList failures;
    int noticed = 0;
    {
        const Language lang(language);
        QVERIFY2(lang.loaded, "the zh_CN translation (app/gui/attention-lab_zh_CN.qm) is built");
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
        w.setZoom(zoom, false);
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(settled(w));
        if (panels != QLatin1String("folded")) {
            // F9, as the teacher presses it: once to fold panels the zoom
            // left in view, and again to bring them back as the teacher's choice.
            QAction *f9 = nullptr;
            for (QAction *a : w.findChildren<QAction *>())
                if (a->shortcut() == QKeySequence(Qt::Key_F9))
                    f9 = a;
            QVERIFY(f9);
            if (w.findChild<QDockWidget *>(QStringLiteral("settingsDock"))->isVisible()) {
                f9->trigger();
                QVERIFY(settled(w));
            }
            f9->trigger();
            QVERIFY(!w.notesDock()->isVisible()); // F9 brings back the panels, not notes that were never open
            if (panels == QLatin1String("notes"))
                w.findChild<QAction *>(QStringLiteral("notesAction"))->trigger(); // F8
            QVERIFY(settled(w));
        }
        for (const QString &name : lessonIndex()) {
            QVERIFY(!w.openLesson(name));
            QVERIFY(settled(w));
            QApplication::processEvents();
            // Shown, or a tab behind the notes: one click away. Folded by
            // the zoom only where the maps need the room; shown once F9 chose it.
            auto *settingsDock = w.findChild<QDockWidget *>(QStringLiteral("settingsDock"));
            const bool settingsShown = settingsDock->isVisible()
                                       || (w.notesDock()->isVisible() && w.tabifiedDockWidgets(settingsDock).contains(w.notesDock()));
            if (panels != QLatin1String("folded") && !settingsShown)
                failures << name + QStringLiteral(": the settings panel is folded");
            if (panels == QLatin1String("notes") && !w.notesDock()->isVisible())
                failures << name + QStringLiteral(": the lesson notes closed");
            if (w.size() != size)
                failures << QStringLiteral("%1: the window is %2x%3").arg(name).arg(w.width()).arg(w.height());
            for (const QString &p : panelProblems(w))
                failures << name + QStringLiteral(": ") + p;
            QWidget *notice = w.panelsNotice();
            if (notice && notice->isVisible()) {
                ++noticed;
                // One line, whole in the status bar, with its offer.
                const QRect bar = w.statusBar()->rect();
                const QRect at(notice->mapTo(w.statusBar(), QPoint(0, 0)), notice->size());
                if (panels == QLatin1String("folded") || !bar.contains(at) || notice->width() < notice->sizeHint().width()
                    || !notice->findChild<QToolButton *>(QStringLiteral("foldPanels")))
                    failures << name + QStringLiteral(": the panels' notice is cut or out of place");
                continue;
            }
            for (Stage st : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output}) {
                StageView *v = w.stageView(st);
                w.showStage(st);
                QApplication::processEvents();
                v->replot(QCustomPlot::rpImmediateRefresh);
                const QString where = QStringLiteral("%1 %2 (%3x%4)").arg(name, stageKey(st)).arg(v->width()).arg(v->height());
                if (!v->isVisible())
                    failures << where + QStringLiteral(": not in view");
                else if (!v->cellTextVisible())
                    failures << where + QStringLiteral(": cell values not drawn, and no word about it");
                if (v->isVisible() && v->titleElement()->text() != v->data().title)
                    failures << where + QStringLiteral(": title cut to ") + v->titleElement()->text();
                if (v->isVisible() && st == Stage::Weights && !v->yAxis2->visible())
                    failures << where + QStringLiteral(": row notes hidden");
            }
        }
        // Folded, or with panels that leave room, no word is needed.
        if (panels == QLatin1String("folded") && noticed > 0)
            failures << QStringLiteral("the panels' notice shows with the panels folded");
    }
    QApplication::setFont(before);
    if (noticed > 0)
        qInfo("%d of %d lessons: the panels cost numbers, said in the status bar", noticed, int(lessonIndex().size()));
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
}

void TestClassroom::deskLayout_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("language");
    for (const char *language : {"en", "zh_CN"})
        for (QSize size : {QSize(1280, 800), QSize(1600, 1000), QSize(1920, 1080)})
            QTest::addRow("%dx%d %s", size.width(), size.height(), language) << size << QString::fromLatin1(language);
}

// At zoom 1 with the panels shown: the window takes the size asked for
// (1280x800 too), and every side tab's name is whole and in view, not
// scrolled out of a tab bar ("All heads" as "ads").
void TestClassroom::deskLayout()
{
    QFETCH(QSize, size);
    QFETCH(QString, language);
    const QFont before = QApplication::font();
    QStringList failures;
    {
        const Language lang(language);
        QVERIFY2(lang.loaded, "the zh_CN translation (app/gui/attention-lab_zh_CN.qm) is built");
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.openLesson(QStringLiteral("causal")));
        w.setZoom(1.0, false);
        w.setPanelsShown(true);
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(settled(w));
        QApplication::processEvents();
        if (w.size() != size) {
            failures << QStringLiteral("the window is %1x%2 (its minimum %3x%4)")
                            .arg(w.width()).arg(w.height()).arg(w.minimumSizeHint().width()).arg(w.minimumSizeHint().height());
            // Who asks for the width: the panels, the maps, each side page.
            QList<QWidget *> parts;
            for (QDockWidget *d : w.findChildren<QDockWidget *>())
                if (d->isVisible())
                    parts << d << d->widget();
            for (int i = 0; i < w.sideTabs()->count(); ++i)
                parts << w.sideTabs()->widget(i);
            for (Stage st : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output})
                parts << w.stageView(st);
            parts << w.centralWidget();
            for (QWidget *p : parts)
                failures << QStringLiteral("  %1 %2: minimum width %3").arg(QString::fromLatin1(p->metaObject()->className()), p->objectName())
                                .arg(std::max(p->minimumWidth(), p->minimumSizeHint().width()));
        }
        if (!w.findChild<QDockWidget *>(QStringLiteral("settingsDock"))->isVisible()
            || !w.findChild<QDockWidget *>(QStringLiteral("inputsDock"))->isVisible())
            failures << QStringLiteral("the panels are not shown");
        QVERIFY(w.sideTabs()->count() >= 9);
        failures << w.sideTabNamesCut();
        // A name clicked shows its page.
        const QList<QToolButton *> names = w.findChild<QWidget *>(QStringLiteral("sideTabNames"))->findChildren<QToolButton *>();
        QCOMPARE(names.size(), w.sideTabs()->count());
        names.at(1)->click();
        QCOMPARE(w.sideTabs()->currentIndex(), 1);
        QVERIFY(names.at(1)->isChecked() && !names.at(0)->isChecked());
        w.sideTabs()->setCurrentIndex(0);
        QVERIFY(names.at(0)->isChecked() && !names.at(1)->isChecked());
    }
    QApplication::setFont(before);
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
}

void TestClassroom::topKMapsReadable_data()
{
    QTest::addColumn<double>("zoom");
    QTest::addColumn<QString>("language");
    for (const char *language : {"en", "zh_CN"})
        for (double zoom : {1.0, 2.0})
            QTest::addRow("1600x1000 zoom %.1f %s", zoom, language) << zoom << QString::fromLatin1(language);
}

// Hard against soft k-NN (seed001-soft-knn, six tokens) at 1600x1000: the
// Top-k maps show their numbers, their whole titles and every label.
void TestClassroom::topKMapsReadable()
{
    QFETCH(double, zoom);
    QFETCH(QString, language);
    const QFont before = QApplication::font();
    QStringList failures;
    {
        const Language lang(language);
        QVERIFY(lang.loaded);
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.openLesson(QStringLiteral("seed001-soft-knn")));
        w.setZoom(zoom, false);
        w.setPanelsShown(true);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(settled(w));
        TopKPanel *panel = w.topKPanel();
        w.sideTabs()->setCurrentWidget(panel);
        QVERIFY(settled(w));
        QApplication::processEvents();
        for (HeatmapPlot *p : {panel->weightsPlot(), panel->outputPlot()}) {
            p->replot(QCustomPlot::rpImmediateRefresh);
            const QString where = QStringLiteral("%1 (%2x%3)").arg(p->objectName()).arg(p->width()).arg(p->height());
            if (!p->isVisible())
                failures << where + QStringLiteral(": not in view");
            if (!p->cellTextVisible())
                failures << where + QStringLiteral(": cell values not drawn");
            if (p->titleElement()->text() != p->data().title)
                failures << where + QStringLiteral(": title cut to ") + p->titleElement()->text().replace(QLatin1Char('\n'), QLatin1Char('/'));
            const auto rows = p->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
            const auto cols = p->xAxis2->ticker().dynamicCast<QCPAxisTickerText>();
            if (!rows || rows->ticks().size() != p->rowCount())
                failures << where + QStringLiteral(": %1 of %2 row labels").arg(rows ? rows->ticks().size() : 0).arg(p->rowCount());
            if (!cols || cols->ticks().size() != p->columnCount())
                failures << where + QStringLiteral(": %1 of %2 column labels").arg(cols ? cols->ticks().size() : 0).arg(p->columnCount());
        }
    }
    QApplication::setFont(before);
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
}

// Seed 000 prints its weights (and so its output) wrongly: the window says
// so under the maps, with what the formula gives, in both languages; not in
// hide mode (it gives the answer away) and not once the lesson is edited.
void TestClassroom::misprintSaidUnderTheMaps()
{
    const Scenario s = lesson(QStringLiteral("seed000-basic"));
    // By hand: e^(4/√2), e^0, e^(2/√2) over their sum.
    const double e1 = std::exp(4 / std::sqrt(2.0)), e2 = 1, e3 = std::exp(2 / std::sqrt(2.0));
    const double sum = e1 + e2 + e3;
    const QString formula = QStringList{HeatmapPlot::formatValue(e1 / sum, 4), HeatmapPlot::formatValue(e2 / sum, 4),
                                        HeatmapPlot::formatValue(e3 / sum, 4)}.join(QStringLiteral(", "));
    QCOMPARE(formula, QStringLiteral("0.7679, 0.0454, 0.1867"));
    for (const QString &language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
        const Language lang(language);
        QVERIFY(lang.loaded);
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto *note = w.findChild<MisprintNote *>();
        QVERIFY(note);
        QTRY_VERIFY(note->isVisible());
        const QStringList lines = note->text().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 2); // the weights, then the output (V = I: the same numbers)
        const QString weights = MisprintNote::tr("%1: the handout prints %2; the formula gives %3")
                                    .arg(stageName(Stage::Weights), QStringLiteral("0.8756, 0.0266, 0.0978"), formula);
        QCOMPARE(lines[0], weights);
        QVERIFY2(lines[1].startsWith(stageName(Stage::Output)) && lines[1].endsWith(formula), qPrintable(lines[1]));
        if (language == QLatin1String("zh_CN"))
            QVERIFY2(!weights.contains(QLatin1String("handout")), qPrintable(weights));
        // Under the weights map, in view.
        QVERIFY(note->mapTo(&w, QPoint(0, 0)).y() >= w.stageView(Stage::Weights)->mapTo(&w, QPoint(0, 0)).y()
                                                           + w.stageView(Stage::Weights)->height());
        w.setAnswersHidden(true);
        QTRY_VERIFY(!note->isVisible());
        w.setAnswersHidden(false);
        QTRY_VERIFY(note->isVisible());
        w.setStepMode(true); // step 1: the weights not reached
        QTRY_VERIFY(!note->isVisible());
        w.setStepMode(false);
        QTRY_VERIFY(note->isVisible());
        Scenario edited = w.document()->scenario();
        edited.Q(0, 1) = 1;
        QVERIFY(!w.document()->edit(edited, QStringLiteral("edit")));
        QTRY_VERIFY(!note->isVisible());
        w.document()->undoStack()->undo();
        QTRY_VERIFY(note->isVisible());
        // A lesson without misprints says nothing.
        QVERIFY(!w.openLesson(QStringLiteral("causal")));
        QTRY_VERIFY(!note->isVisible());
    }
}

// At 1600x1000, n <= 8, in the layouts a teacher reaches (panels shown,
// folded, the notes open; zoom 1 and a projector's 2): every map in view
// writes the same number of decimals; fewer than 4 only with the status bar
// saying how many and why.
void TestClassroom::fewerDecimalsAreSaid()
{
    // The zoom sets the application's font: the next tests get it back.
    const QFont before = QApplication::font();
    const auto restore = qScopeGuard([&before] { QApplication::setFont(before); });
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    w.setZoom(1.0, false);
    w.setPanelsShown(true);
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QStringList failures;
    int fewer = 0;
    const auto check = [&](const QString &where) {
        std::set<int> drawn;
        for (Stage st : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output})
            if (w.stageView(st)->isVisible() && w.stageView(st)->cellTextVisible())
                drawn.insert(w.stageView(st)->drawnDecimals());
        if (drawn.size() > 1) {
            QStringList each;
            for (int d : drawn)
                each << QString::number(d);
            failures << where + QStringLiteral(": the maps write %1 decimals").arg(each.join(QStringLiteral(", ")));
        } else if (!drawn.empty() && *drawn.begin() < 4) {
            ++fewer;
            if (!w.decimalsNote()->isVisible() || !w.decimalsNote()->text().contains(QString::number(*drawn.begin())))
                failures << where + QStringLiteral(": %1 decimals, and the status bar does not say so").arg(*drawn.begin());
        } else if (w.decimalsNote()->isVisible()) {
            failures << where + QStringLiteral(": 4 decimals, yet the status bar speaks of fewer");
        }
    };
    for (double zoom : {1.0, 2.0}) {
        w.setZoom(zoom, false);
        for (int layout = 0; layout < 3; ++layout) {
            w.setPanelsShownByUser(layout != 1);
            w.notesDock()->setVisible(layout == 2);
            for (const QString &name : lessonIndex()) {
                const Scenario s = lesson(name);
                if (queryCount(s) > 8 || keyCount(s) > 8 || (zoom > 1 && name != QLatin1String("seed001-soft-knn")
                                                              && name != QLatin1String("causal")))
                    continue;
                QVERIFY(!w.openLesson(name));
                QVERIFY(settled(w));
                QApplication::processEvents();
                check(QStringLiteral("%1 zoom %2 layout %3").arg(name).arg(zoom).arg(layout));
            }
        }
    }
    qInfo("%d layouts with fewer than 4 decimals", fewer);
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
}

// A wide head (d_k = 32) in the lab, then a lesson again: the Inputs panel
// is as wide as before and its token buttons are whole.
void TestClassroom::inputsAfterAWideHead()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    w.setZoom(1.0, false);
    w.setPanelsShown(true);
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(settled(w));
    auto *inputs = w.findChild<QDockWidget *>(QStringLiteral("inputsDock"));
    const int width = inputs->width();
    QCOMPARE(panelProblems(w), QStringList());
    // From the model mode, a head of 32 dimensions a key, as it hands one over.
    QVERIFY(!w.openBuiltinModel());
    w.setModelMode(true);
    QVERIFY(settled(w));
    const Scenario wide = setHeadDim(lesson(QStringLiteral("causal")), 32);
    QCOMPARE(headDim(wide), 32);
    QVERIFY(!w.takeHeadIntoLab(wide, QStringLiteral("a wide head")));
    QVERIFY(!w.modelMode());
    QVERIFY(settled(w));
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    QVERIFY(settled(w));
    QApplication::processEvents();
    QVERIFY2(inputs->width() <= width + 2, qPrintable(QStringLiteral("%1 px, %2 before").arg(inputs->width()).arg(width)));
    QCOMPARE(panelProblems(w), QStringList());
}

// The settings bar's τ as the document has it (0.005 from a lesson file,
// not 0.01), over core's range; a τ typed out of it is refused with one
// message and nothing changes.
void TestClassroom::temperatureBoxShowsTheDocumentsTau()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    w.setPanelsShown(false); // the bar shows while the settings panel does not
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QDoubleSpinBox *box = w.settingsBar()->temperatureBox();
    QCOMPARE(box->minimum(), kMinTemperature);
    QCOMPARE(box->maximum(), kMaxTemperature);
    for (double tau : {0.005, 1e-6, 0.0123, 2500.0}) {
        Scenario s = w.document()->scenario();
        s.temperature = tau;
        QVERIFY(!w.document()->edit(s, QStringLiteral("τ")));
        QCOMPARE(box->value(), tau);
        // Its text reads back as the same τ (0.005, not 0.01 or 0).
        QCOMPARE(box->valueFromText(box->text()), tau);
    }
    // Typed: 0.005 is taken as it is (not rounded to 0.01).
    QStringList messages;
    connect(w.document(), &Document::problemReported, &w, [&messages](const QString &m) { messages << m; });
    box->setFocus();
    box->selectAll();
    QTest::keyClicks(box, QStringLiteral("0.005"));
    QTest::keyClick(box, Qt::Key_Return);
    QCOMPARE(w.document()->scenario().temperature, 0.005);
    QVERIFY2(messages.isEmpty(), qPrintable(messages.join(QLatin1Char('\n'))));
    // Out of range (0, 2e6): one message naming τ, its range and the τ kept; τ stays.
    for (const QString &typed : {QStringLiteral("0"), QStringLiteral("2e6")}) {
        messages.clear();
        box->selectAll();
        QTest::keyClicks(box, typed);
        QTest::keyClick(box, Qt::Key_Return);
        box->clearFocus();
        QApplication::processEvents();
        QCOMPARE(w.document()->scenario().temperature, 0.005);
        QCOMPARE(box->text(), QStringLiteral("0.005"));
        QCOMPARE(messages.size(), 1);
        QVERIFY2(messages[0].startsWith(QStringLiteral("τ: ") + typed) && messages[0].contains(box->textFromValue(kMinTemperature))
                     && messages[0].contains(QStringLiteral("τ stays 0.005")),
                 qPrintable(messages[0]));
        box->setFocus();
    }
}

// At a projector's zoom the first toolbar row (Animate, A/B, Classroom)
// shows every action on a button, none in the "»" overflow: short texts
// where the full ones are too wide, the full ones in the tooltips.
void TestClassroom::toolBarRowFits()
{
    const QFont before = QApplication::font();
    QStringList failures;
    {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.openLesson(QStringLiteral("causal")));
        for (double zoom : {1.0, 1.5, 2.0}) {
            w.setZoom(zoom, false);
            w.resize(1600, 1000);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(settled(w));
            QApplication::processEvents();
            for (const char *name : {"animateToolBar", "classroomToolBar"}) {
                QToolBar *bar = w.findChild<QToolBar *>(QString::fromLatin1(name));
                QVERIFY(bar && bar->isVisible());
                for (QAction *a : bar->actions()) {
                    if (a->isSeparator() || !a->isVisible())
                        continue;
                    QWidget *button = bar->widgetForAction(a);
                    if (!button || !button->isVisible() || !bar->rect().contains(button->geometry()))
                        failures << QStringLiteral("zoom %1: %2 in the overflow").arg(zoom).arg(a->text());
                    // Shortened: its tooltip still says what it does.
                    if (a->iconText() == a->property("shortText").toString()
                        && (a->toolTip().isEmpty() || a->toolTip() == a->iconText()))
                        failures << QStringLiteral("zoom %1: %2 shows a short text and no tooltip naming it").arg(zoom).arg(a->text());
                }
            }
            // At zoom 1 on 1600 px the full texts fit.
            if (zoom == 1.0)
                for (QToolBar *bar : w.findChildren<QToolBar *>())
                    for (QAction *a : bar->actions())
                        if (a->property("shortText").isValid() && a->iconText() == a->property("shortText").toString())
                            failures << QStringLiteral("zoom 1: %1 shortened").arg(a->text());
        }
    }
    QApplication::setFont(before);
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
}

// A stage not reached shows neither numbers nor colours nor tooltips; the
// step of the exponentials shows e^{s′ − max} and each row's Σ′ in the
// weights' map, and only the next step the weights (Σ′ · w = e′).
void TestClassroom::stepModeGivesNothingAway()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setStepMode(true);
    w.classroom()->first();
    const Trace t = compute(w.document()->scenario());
    const Matrix &weights = t.heads[0].weights;
    QVERIFY(w.stageView(Stage::Scores)->valuesDrawn());
    for (Stage st : {Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output}) {
        StageView *v = w.stageView(st);
        QVERIFY2(!v->valuesDrawn(), qPrintable(stageKey(st)));
        QVERIFY2(!v->cellTextVisible(), qPrintable(stageKey(st)));
        QVERIFY2(v->toolTipAt(0, 0).isEmpty(), qPrintable(v->toolTipAt(0, 0)));
        QVERIFY(!v->colorMap()->visible() && !v->colorScale()->visible());
        // Not one pixel of the map's colours: every cell in the neutral fill.
        v->replot(QCustomPlot::rpImmediateRefresh);
        const QImage img = v->renderImage(0, 0);
        const QPoint c = v->cellCenter(0, 0).toPoint();
        QCOMPARE(img.pixelColor(c).name(), v->theme().hiddenFill.name());
    }

    w.classroom()->setStep(3);
    QCOMPARE(w.classroom()->currentStep(), StepKind::Exp);
    StageView *wv = w.stageView(Stage::Weights);
    QVERIFY(wv->valuesDrawn() && wv->cellTextVisible());
    QCOMPARE(wv->shows(), Classroom::Shows::Exponentials);
    QVERIFY(!w.stageView(Stage::Output)->valuesDrawn());
    const HeatmapData &e = wv->data();
    QCOMPARE(e.values.rows(), weights.rows());
    QCOMPARE(e.values.cols(), weights.cols());
    // Row 0 as on paper: e′ of its largest score is e^0 = 1, Σ′ = 1.3022.
    QCOMPARE(e.values(0, 0), 1.0);
    QCOMPARE(e.rowNotes.value(0), QStringLiteral("1.3022"));
    QVERIFY2(std::abs(e.values(0, 0) - weights(0, 0)) > 0.2, "the exponentials are not the weights");
    for (Eigen::Index i = 0; i < weights.rows(); ++i) {
        const double sum = e.values.row(i).sum();
        QCOMPARE(e.rowNotes.value(int(i)), QString::fromStdString(handNumber(sum)));
        for (Eigen::Index j = 0; j < weights.cols(); ++j)
            QVERIFY2(std::abs(e.values(i, j) - weights(i, j) * sum) < 1e-12,
                     qPrintable(QStringLiteral("e′(%1, %2) = %3, w · Σ′ = %4").arg(i).arg(j).arg(e.values(i, j)).arg(weights(i, j) * sum)));
    }
    const QString tip = wv->toolTipAt(0, 0);
    QVERIFY2(tip.contains(QStringLiteral("1.0000")) && tip.contains(QStringLiteral("1.3022")) && !tip.contains(QStringLiteral("0.7679")),
             qPrintable(tip));

    w.classroom()->setStep(4);
    QCOMPARE(wv->shows(), Classroom::Shows::Values);
    QCOMPARE(wv->data().values(0, 0), weights(0, 0));
    QVERIFY(wv->toolTipAt(0, 0).contains(QStringLiteral("0.7679")));
    QVERIFY(!w.stageView(Stage::Output)->valuesDrawn());
    w.classroom()->setStep(5);
    QVERIFY(w.stageView(Stage::Output)->valuesDrawn());
    QCOMPARE(w.stageView(Stage::Output)->data().values(0, 0), t.heads[0].output(0, 0));
    // Out of step mode every map shows its values again, and hide mode still hides.
    w.classroom()->first();
    w.setStepMode(false);
    for (Stage st : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output})
        QVERIFY2(w.stageView(st)->valuesDrawn(), qPrintable(stageKey(st)));
    w.setAnswersHidden(true);
    QVERIFY(!w.stageView(Stage::Weights)->valuesDrawn());
    w.setAnswersHidden(false);
    QVERIFY(w.stageView(Stage::Weights)->valuesDrawn());
}

// The panel and a map cell's tooltip name the gesture that blocks a cell
// (Ctrl+click; a plain click selects the query), in both languages.
void TestClassroom::customMaskHintNamesTheGesture()
{
    for (const char *language : {"en", "zh_CN"}) {
        const Language lang(QString::fromLatin1(language));
        QVERIFY2(lang.loaded, "the zh_CN translation (app/gui/attention-lab_zh_CN.qm) is built");
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
        auto *hint = w.findChild<QLabel *>(QStringLiteral("customMaskHint"));
        QVERIFY(hint);
        QVERIFY2(hint->text().contains(QStringLiteral("Ctrl")), qPrintable(hint->text()));
        for (Stage st : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights}) {
            const QString tip = w.stageView(st)->toolTipAt(0, 1);
            QVERIFY2(tip.contains(QStringLiteral("Ctrl")), qPrintable(tip));
            // No line of it says that a plain click blocks.
            static const QRegularExpression click(QStringLiteral("click|单击|点击"), QRegularExpression::CaseInsensitiveOption);
            static const QRegularExpression blocks(QStringLiteral("block|屏蔽"), QRegularExpression::CaseInsensitiveOption);
            for (const QString &line : tip.split(QLatin1Char('\n')))
                if (line.contains(click) && line.contains(blocks))
                    QVERIFY2(line.contains(QStringLiteral("Ctrl")), qPrintable(QStringLiteral("%1: %2").arg(QString::fromLatin1(language), line)));
        }
    }
}

// At the desk's zoom too: a panel opened beside the maps (the gradient
// lens) that leaves a map no room for its numbers is said in one line, with
// the offer to fold the panels; folding them gives the numbers back.
void TestClassroom::aPanelThatCostsNumbersIsSaid()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    w.setZoom(1.0, false);
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(settled(w));
    QVERIFY(w.mapsReadable());
    QVERIFY(!w.panelsNotice() || !w.panelsNotice()->isVisible());
    QVERIFY(w.showView(QStringLiteral("gradients")));
    QVERIFY(settled(w));
    // The lens's column leaves the output map too narrow for "0.77".
    QTRY_VERIFY(!w.mapsReadable());
    QTRY_VERIFY(w.panelsNotice() && w.panelsNotice()->isVisible());
    auto *fold = w.panelsNotice()->findChild<QToolButton *>(QStringLiteral("foldPanels"));
    QVERIFY(fold);
    fold->click();
    QVERIFY(settled(w));
    QTRY_VERIFY(w.mapsReadable());
    QTRY_VERIFY(!w.panelsNotice()->isVisible());
}

QTEST_MAIN(TestClassroom)
#include "test_classroom.moc"

