// The window, driven as a teacher drives it (offscreen): edits in the tables
// reach every map, toggles change the maps, undo restores exactly, bad input
// and bad files change nothing.

#include "attn_test.h"

#include "edit.h"
#include "lessons.h"
#include "atomicwrite.h"
#include "mainwindow.h"
#include "matrixmodel.h"
#include "matrixpanel.h"
#include "planepanel.h"
#include "scalinglab.h"
#include "scalinglabpanel.h"
#include "settingsactions.h"
#include "stageviews.h"
#include "stagedata.h"
#include "togglepanel.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QClipboard>
#include <QProcess>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStatusBar>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QMenu>
#include <QTest>
#include <QTranslator>

using namespace attn;

namespace {

QAction *findAction(QWidget *window, const QString &text)
{
    for (QAction *a : window->findChildren<QAction *>()) {
        QString t = a->text();
        t.remove(QLatin1Char('&'));
        if (t == text)
            return a;
    }
    return nullptr;
}

template <typename Check>
void forEveryMap(MainWindow &w, Check check)
{
    for (Stage s : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output})
        check(s, w.stageView(s));
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void themeMenuRepaintsTheMaps();
    void initTestCase();
    void init();
    void cleanup();
    void editingQChangesTheWeightsMap();
    void causalToggleZeroesAboveDiagonal();
    void undoRestoresExactMatrices();
    void typedAbcIsRefused();
    void malformedFileKeepsDocument();
    void headsKeepMapSizes();
    void everyLessonDrawsFiniteMaps();
    void hoverHighlightsEveryMap();
    void clickBlocksACell();
    void customMaskHintNamesTheGesture();
    void sparseMaskMenuAndShortcuts();
    void temperatureDragIsOneUndoStep();
    void undoInMidDragCancelsTheGesture();
    void refusedWidthPutsTheSpinBoxBack();
    void menuAndPanelNameStepsAlike();
    void statusBarShowsMessagesAndRefusals();
    void temperatureAndSeedTakeTheirWholeRange();
    void modeSwitchKeepsWeightsOnScreen();
    void saveAndOpenRoundTrip();
    void positionalEncodingIsShown();
    void mapsAreLive();
    void tooltipsWriteTheHandCalculation();
    void windowExportMatchesCommandLine();
    void exportFailureLeavesNothing();
    void copyFigurePutsAnImageOnTheClipboard();
    void appRefusesBadOptions_data();
    void appRefusesBadOptions();
    void labScreenshotWaitsForTheMeasurements();

private:
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_settings;
};

void TestMainWindow::initTestCase()
{
    // The tests must not read or write the user's settings.
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
}

void TestMainWindow::init()
{
    m_window = std::make_unique<MainWindow>();
    m_window->setInteractive(false);
    m_window->resize(1600, 1000);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestMainWindow::cleanup()
{
    m_window.reset();
}

void TestMainWindow::editingQChangesTheWeightsMap()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    StageView *weights = w.stageView(Stage::Weights);
    ATTN_COMPARE_NEAR(weights->data().values(0, 0), 0.7679179361387025, 1e-12);

    // q = [0, 2]: the variant's numbers, through the table's model.
    MatrixModel *q = w.matrixPanel()->model(MatrixId::Q);
    QVERIFY(q->setData(q->index(0, 0), QStringLiteral("0")));
    QVERIFY(q->setData(q->index(0, 1), QStringLiteral("2")));
    ATTN_COMPARE_NEAR(weights->data().values(0, 0), 0.04538836291379466, 1e-12);
    ATTN_COMPARE_NEAR(weights->data().values(0, 1), 0.7679179361387025, 1e-12);
    ATTN_COMPARE_NEAR(w.stageView(Stage::Scores)->data().values(0, 1), 4.0, 1e-15);
    ATTN_COMPARE_NEAR(w.stageView(Stage::Output)->data().values(0, 1), 0.7679179361387025, 1e-12);
}

void TestMainWindow::causalToggleZeroesAboveDiagonal()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed001-soft-knn")));
    const Matrix open = w.stageView(Stage::Weights)->data().values;
    QVERIFY(open(0, 5) > 0.05); // no mask yet
    QAction *causal = findAction(&w, QStringLiteral("Causal mask"));
    QVERIFY(causal);
    causal->trigger();
    QVERIFY(w.document()->scenario().mask.causal);
    const HeatmapData d = w.stageView(Stage::Weights)->data();
    for (Eigen::Index i = 0; i < d.values.rows(); ++i) {
        double sum = 0;
        for (Eigen::Index j = 0; j < d.values.cols(); ++j) {
            sum += d.values(i, j);
            if (j > i) {
                QCOMPARE(d.values(i, j), 0.0);
                QVERIFY(d.blocked(i, j));
            }
        }
        ATTN_COMPARE_NEAR(sum, 1.0, 1e-12);
    }
    ATTN_COMPARE_NEAR(d.values(0, 0), 1.0, 1e-15); // the first token sees only itself
    // The masked map draws the blocked cells as blocked, not as a colour.
    const HeatmapData masked = w.stageView(Stage::Masked)->data();
    QVERIFY(masked.blocked(0, 1));
    QCOMPARE(masked.blockedText, QStringLiteral("−∞"));
    // The panel's checkbox follows, and turning it off through the panel works too.
    auto *box = w.togglePanel()->findChild<QCheckBox *>();
    QVERIFY(box && box->isChecked());
    box->click();
    QVERIFY(!w.document()->scenario().mask.causal);
    QVERIFY(w.stageView(Stage::Weights)->data().values(0, 5) > 0.05);
}

void TestMainWindow::undoRestoresExactMatrices()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("multihead")));
    const Scenario before = w.document()->scenario();
    const Matrix weightsBefore = w.stageView(Stage::Weights)->data().values;
    MatrixModel *wq = w.matrixPanel()->model(MatrixId::Wq);
    QVERIFY(wq->setData(wq->index(1, 0), QStringLiteral("0.123456789")));
    QVERIFY(w.matrixPanel()->model(MatrixId::X));
    w.matrixPanel()->showMatrix(MatrixId::X);
    w.matrixPanel()->table(MatrixId::X)->setCurrentIndex(w.matrixPanel()->model(MatrixId::X)->index(2, 0));
    w.matrixPanel()->addToken();
    QCOMPARE(queryCount(w.document()->scenario()), 5);
    QCOMPARE(w.stageView(Stage::Weights)->data().values.rows(), 5);

    QAction *undo = findAction(&w, QStringLiteral("Undo Add token t5"));
    QVERIFY2(undo, "the undo action names the step");
    undo->trigger();
    QAction *undo2 = findAction(&w, QStringLiteral("Undo Set Wq row 2, column 1 to 0.123456789"));
    QVERIFY(undo2);
    undo2->trigger();
    QVERIFY(w.document()->scenario() == before);
    QCOMPARE(w.stageView(Stage::Weights)->data().values, weightsBefore);
    QVERIFY(!w.document()->isModified());
}

void TestMainWindow::typedAbcIsRefused()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    const Scenario before = w.document()->scenario();
    w.matrixPanel()->showMatrix(MatrixId::K);
    QTableView *k = w.matrixPanel()->table(MatrixId::K);
    QVERIFY(k && k->isVisible());
    const QModelIndex cell = k->model()->index(1, 1);
    k->setCurrentIndex(cell); // opens the editor (any edit trigger)
    if (!k->viewport()->findChild<QLineEdit *>())
        k->edit(cell);
    auto *editor = k->viewport()->findChild<QLineEdit *>();
    QVERIFY2(editor, "typing opens an editor in the cell");
    QSignalSpy refused(w.matrixPanel()->model(MatrixId::K), &MatrixModel::refused);
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("abc"));
    QTest::keyClick(editor, Qt::Key_Return);
    QTRY_COMPARE(refused.count(), 1); // the delegate commits on the next turn of the event loop
    QVERIFY(w.document()->scenario() == before);
    QCOMPARE(w.document()->undoStack()->count(), 0);
    QCOMPARE(k->model()->data(cell).toString(), QStringLiteral("2"));
    const QString message = w.matrixPanel()->message();
    ATTN_CHECK(message.contains(QStringLiteral("\"abc\" is not a number")) && message.contains(QStringLiteral("K row “k2”, column 2")),
               message);

    // A good number through the same editor goes in.
    QTRY_VERIFY(!k->viewport()->findChild<QLineEdit *>());
    k->edit(cell);
    editor = k->viewport()->findChild<QLineEdit *>();
    QVERIFY(editor);
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("3"));
    QTest::keyClick(editor, Qt::Key_Return);
    QTRY_COMPARE(w.document()->scenario().K(1, 1), 3.0);
}

void TestMainWindow::malformedFileKeepsDocument()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    MatrixModel *q = w.matrixPanel()->model(MatrixId::Q);
    QVERIFY(q->setData(q->index(0, 0), QStringLiteral("9"))); // unsaved work
    const Scenario before = w.document()->scenario();

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("broken.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"inputs": {"mode": "direct", "Q": [[1, 0]], "K": [[1, 0], [0, "abc"]], "V": [[1], [2]]}})");
    f.close();
    const QString message = problemText(w.openFile(path).value_or(Problem{}));
    ATTN_CHECK(message.contains(QStringLiteral("broken.json")) && message.contains(QStringLiteral("K row 2, column 2")),
               message);
    QVERIFY(w.document()->scenario() == before);
    QVERIFY(w.document()->isModified());
    QCOMPARE(w.document()->undoStack()->count(), 1);
    QCOMPARE(w.document()->lessonName(), QStringLiteral("causal"));

    QVERIFY(w.openFile(dir.filePath(QStringLiteral("missing.json"))));
    QVERIFY(w.document()->scenario() == before);
}

void TestMainWindow::headsKeepMapSizes()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("multihead"))); // 4 tokens, h*d_k = 4, h*d_v = 4
    auto *allHeads = w.sideTabs()->findChild<AllHeadsView *>();
    QVERIFY(allHeads);
    w.sideTabs()->setCurrentWidget(allHeads); // a tab in the background does no work
    for (int h : {1, 2, 4, 2, 1}) {
        QAction *a = findAction(&w, h == 1 ? QStringLiteral("1 head") : QStringLiteral("%1 heads").arg(h));
        QVERIFY2(a, qPrintable(QStringLiteral("the %1-head action").arg(h)));
        a->trigger();
        QCOMPARE(w.document()->scenario().heads, h);
        forEveryMap(w, [&](Stage s, StageView *v) {
            const Eigen::Index cols = s == Stage::Output ? 4 / h : 4;
            QCOMPARE(v->data().values.rows(), Eigen::Index(4));
            QCOMPARE(v->data().values.cols(), cols);
            QCOMPARE(v->rowCount(), 4);
            QCOMPARE(v->columnCount(), int(cols));
        });
        QCOMPARE(int(allHeads->plots().size()), h);
        w.document()->setCurrentHead(h - 1);
        QCOMPARE(w.stageView(Stage::Weights)->data().values, w.document()->trace().heads[std::size_t(h - 1)].weights);
    }
    // A tab in the background catches up when it is shown.
    w.sideTabs()->setCurrentIndex(0);
    findAction(&w, QStringLiteral("4 heads"))->trigger();
    QCOMPARE(int(allHeads->plots().size()), 1);
    w.sideTabs()->setCurrentWidget(allHeads);
    QCOMPARE(int(allHeads->plots().size()), 4);
    QCOMPARE(allHeads->plots()[3]->data().values, w.document()->trace().heads[3].weights);
    // 8 heads do not divide 4: the action is off and the document unchanged.
    QAction *eight = findAction(&w, QStringLiteral("8 heads"));
    QVERIFY(eight && !eight->isEnabled());
}

void TestMainWindow::everyLessonDrawsFiniteMaps()
{
    MainWindow &w = *m_window;
    for (const QString &name : lessonIndex()) {
        QVERIFY(!w.openLesson(name));
        forEveryMap(w, [&](Stage s, StageView *v) {
            ATTN_VERIFY_NO_MISMATCH(test::nonFinite(v->data().values), name + QLatin1Char(' ') + QString::number(int(s)));
            QVERIFY(v->data().values.size() > 0);
            QVERIFY(!v->data().title.isEmpty());
        });
    }
}

void TestMainWindow::hoverHighlightsEveryMap()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    StageView *scores = w.stageView(Stage::Scores);
    scores->replot();
    const QPoint at = scores->cellCenter(3, 1).toPoint() + QPoint(3, 3);
    QMouseEvent move(QEvent::MouseMove, at, scores->mapToGlobal(at), Qt::NoButton, {}, {});
    QApplication::sendEvent(scores, &move);
    QCOMPARE(w.document()->hoveredRow(), 3);
    QCOMPARE(w.document()->hoveredColumn(), 1);
    forEveryMap(w, [&](Stage s, StageView *v) {
        QCOMPARE(v->highlightRow(), 3);
        QCOMPARE(v->highlightColumn(), s == Stage::Output ? -1 : 1);
    });
    // The tables light the query row in Q and the key row in K.
    MatrixModel *q = w.matrixPanel()->model(MatrixId::Q), *k = w.matrixPanel()->model(MatrixId::K);
    QVERIFY(q->data(q->index(3, 0), Qt::BackgroundRole).isValid());
    QVERIFY(!q->data(q->index(1, 0), Qt::BackgroundRole).isValid());
    QVERIFY(k->data(k->index(1, 0), Qt::BackgroundRole).isValid());
    QVERIFY(!k->data(k->index(3, 0), Qt::BackgroundRole).isValid());
}

void TestMainWindow::clickBlocksACell()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed001-selftest")));
    StageView *weights = w.stageView(Stage::Weights);
    weights->replot();
    // Ctrl+click blocks a cell (a plain click only selects its query).
    QTest::mouseClick(weights, Qt::LeftButton, Qt::ControlModifier, weights->cellCenter(0, 0).toPoint() + QPoint(2, 2));
    const HeatmapData d = weights->data();
    QVERIFY(d.blocked(0, 0));
    QCOMPARE(d.values(0, 0), 0.0);
    // The two open keys renormalise: e^0 / (e^0 + e^-0.7071).
    ATTN_COMPARE_NEAR(d.values(0, 1), 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0))), 1e-12);
    QCOMPARE(w.document()->undoStack()->count(), 1);
    // Click again to open it.
    QTest::mouseClick(weights, Qt::LeftButton, Qt::ControlModifier, weights->cellCenter(0, 0).toPoint() + QPoint(2, 2));
    ATTN_COMPARE_NEAR(weights->data().values(0, 0), 0.575975345215362, 1e-12);

    // A cell the causal mask holds: the click says so and adds no step.
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    weights->replot();
    QSignalSpy problems(w.document(), &Document::problemReported);
    QTest::mouseClick(weights, Qt::LeftButton, Qt::ControlModifier, weights->cellCenter(0, 2).toPoint() + QPoint(2, 2));
    QCOMPARE(w.document()->undoStack()->count(), 0);
    QVERIFY(!w.document()->scenario().mask.blocked.size() || !w.document()->scenario().mask.blocked.any());
    QCOMPARE(problems.count(), 1);
    QVERIFY2(problems.first().first().toString().contains(QStringLiteral("causal mask")),
             qPrintable(problems.first().first().toString()));
}

// The custom-mask hint and a cell's tooltip say the gesture the maps take:
// a plain click selects the query, Ctrl+click blocks; in both languages.
void TestMainWindow::customMaskHintNamesTheGesture()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed001-selftest")));
    StageView *weights = w.stageView(Stage::Weights);
    weights->replot();
    const QPoint cell = weights->cellCenter(1, 0).toPoint() + QPoint(2, 2);
    QTest::mouseClick(weights, Qt::LeftButton, Qt::NoModifier, cell);
    QCOMPARE(w.document()->undoStack()->count(), 0); // a plain click blocks nothing
    QVERIFY(!weights->data().blocked(1, 0));
    // Ctrl+click blocking a cell: clickBlocksACell.

    auto *hint = w.togglePanel()->findChild<QLabel *>(QStringLiteral("customMaskHint"));
    QVERIFY(hint);
    QVERIFY2(hint->text().startsWith(QStringLiteral("Ctrl+click")), qPrintable(hint->text()));
    QVERIFY2(hint->text().contains(QStringLiteral("plain click selects")), qPrintable(hint->text()));

    // The same in Chinese: a window made with the translation installed.
    QTranslator zh;
    QVERIFY2(zh.load(QStringLiteral("attention-lab_zh_CN"), QCoreApplication::applicationDirPath() + QStringLiteral("/../app/gui")),
             "the zh_CN translation (build/app/gui/attention-lab_zh_CN.qm) is built");
    const QString text = zh.translate("attn::TogglePanel", hint->text().toUtf8().constData());
    QVERIFY2(text.contains(QStringLiteral("Ctrl")) && text.contains(QStringLiteral("单击")), qPrintable(text));
}

// Attention ▸ Sparse mask: every preset, exclusive and following the
// document; Wider and Narrower from the keyboard, one undo step each; no
// two of the window's actions share a shortcut.
void TestMainWindow::sparseMaskMenuAndShortcuts()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    auto *menu = w.menuBar()->findChild<QMenu *>(QStringLiteral("sparseMaskMenu"));
    QVERIFY(menu);
    SettingsActions *settings = w.settingsActions();
    const QList<QAction *> presets = settings->sparseMasks()->actions();
    QCOMPARE(presets.size(), 6);
    for (QAction *a : presets)
        QVERIFY2(menu->actions().contains(a), qPrintable(a->text()));
    QVERIFY(menu->actions().contains(settings->widerWindow()));
    QVERIFY(menu->actions().contains(settings->narrowerWindow()));
    auto *attention = w.menuBar()->findChild<QMenu *>(QStringLiteral("attentionMenu"));
    QVERIFY(attention && attention->actions().contains(menu->menuAction()));

    SettingsActions::actionFor(settings->sparseMasks(), int(SparsePreset::Window))->trigger();
    QCOMPARE(w.document()->scenario().mask.window, 2);
    QTest::keyClick(&w, Qt::Key_Right, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(w.document()->scenario().mask.window, 3);
    QCOMPARE(w.document()->undoStack()->count(), 2);
    // Row 5 (0-based 4) of the causal window W = 3 sees keys 2, 3, 4: a third each before the weights' own values.
    QVERIFY(w.stageView(Stage::Weights)->data().blocked(4, 1));
    QVERIFY(!w.stageView(Stage::Weights)->data().blocked(4, 2));
    QTest::keyClick(&w, Qt::Key_Left, Qt::ControlModifier | Qt::ShiftModifier);
    QTest::keyClick(&w, Qt::Key_Left, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(w.document()->scenario().mask.window, 1);
    QCOMPARE(w.document()->undoStack()->count(), 4);
    QVERIFY(!settings->narrowerWindow()->isEnabled());
    w.document()->undo();
    QCOMPARE(w.document()->scenario().mask.window, 2);
    QVERIFY(SettingsActions::actionFor(settings->sparseMasks(), int(SparsePreset::Window))->isChecked());

    // Every shortcut of the menus and the window's own actions is one action's.
    QList<QAction *> all = w.actions();
    QList<QMenu *> menus;
    for (QAction *a : w.menuBar()->actions())
        if (a->menu())
            menus << a->menu();
    while (!menus.isEmpty()) {
        QMenu *m = menus.takeFirst();
        for (QAction *a : m->actions()) {
            if (a->menu())
                menus << a->menu();
            else
                all << a;
        }
    }
    QHash<QString, QString> owner;
    for (QAction *a : std::as_const(all))
        for (const QKeySequence &k : a->shortcuts()) {
            const QString key = k.toString(QKeySequence::PortableText), text = a->text();
            if (owner.contains(key) && owner.value(key) != text)
                QFAIL(qPrintable(QStringLiteral("%1 is both \"%2\" and \"%3\"").arg(key, owner.value(key), text)));
            owner.insert(key, text);
        }
    QCOMPARE(owner.value(QStringLiteral("Ctrl+Shift+Right")), settings->widerWindow()->text());
    QCOMPARE(owner.value(QStringLiteral("Ctrl+Shift+Left")), settings->narrowerWindow()->text());
}

void TestMainWindow::temperatureDragIsOneUndoStep()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    QSlider *slider = w.togglePanel()->temperatureSlider();
    QCOMPARE(TogglePanel::temperatureAt(slider->value()), 1.0);
    slider->setSliderDown(true);
    for (int pos = slider->value(); pos >= 0; pos -= 25)
        slider->setValue(pos);
    slider->setValue(0);
    QCOMPARE(w.document()->scenario().temperature, 0.05);
    // Live: the weights already show τ = 0.05 (nearly one-hot) before release.
    QVERIFY(w.stageView(Stage::Weights)->data().values(0, 0) > 0.999);
    // The gesture's one step is on the stack while it grows (mergeable commands).
    QCOMPARE(w.document()->undoStack()->count(), 1);
    slider->setSliderDown(false); // release
    QCOMPARE(w.document()->undoStack()->count(), 1);
    w.document()->undoStack()->undo();
    QCOMPARE(w.document()->scenario().temperature, 1.0);
    QCOMPARE(slider->value(), TogglePanel::sliderPosition(1.0));
    // Both ends of the range are stable and finite.
    for (int pos : {0, TogglePanel::kSliderSteps}) {
        slider->setValue(pos);
        ATTN_VERIFY_NO_MISMATCH(test::nonFinite(w.stageView(Stage::Weights)->data().values), QStringLiteral("τ end"));
    }
    QCOMPARE(w.document()->scenario().temperature, 10.0);
}

// Ctrl+Z while the slider is held: the gesture is cancelled (τ back to where
// it began), the step before it stays done, and the release adds nothing.
void TestMainWindow::undoInMidDragCancelsTheGesture()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    Scenario causal = w.document()->scenario();
    causal.similarity = Similarity::Cosine;
    QVERIFY(!w.document()->edit(causal, QStringLiteral("cosine")));
    QCOMPARE(w.document()->undoStack()->count(), 1);

    QSlider *slider = w.togglePanel()->temperatureSlider();
    slider->setSliderDown(true);
    slider->setValue(0);
    QCOMPARE(w.document()->scenario().temperature, 0.05);
    QVERIFY(w.document()->inGesture());
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    QVERIFY(!w.document()->inGesture());
    QCOMPARE(w.document()->scenario().temperature, 1.0);
    QCOMPARE(w.document()->scenario().similarity, Similarity::Cosine);
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier); // redo: nothing to redo
    QCOMPARE(w.document()->scenario().temperature, 1.0);
    // The slider keeps moving under the hand; the cancelled gesture stays cancelled.
    slider->setValue(100);
    QCOMPARE(w.document()->scenario().temperature, 1.0);
    slider->setSliderDown(false);
    QCOMPARE(w.document()->undoStack()->count(), 1);
    QCOMPARE(slider->value(), TogglePanel::sliderPosition(1.0));
    // The next Ctrl+Z undoes the step before the drag, exactly.
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(w.document()->scenario().similarity, Similarity::Dot);
    QVERIFY(w.document()->scenario() == std::get<Scenario>(loadLesson(QStringLiteral("seed000-basic"))));

    // Another edit in mid-drag (a menu shortcut) ends the gesture under the
    // gesture's own name, and the slider goes on working.
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    slider->setSliderDown(true);
    slider->setValue(0);
    QCOMPARE(w.document()->scenario().temperature, 0.05);
    QAction *causalAction = findAction(&w, QStringLiteral("Causal mask"));
    QVERIFY(causalAction);
    causalAction->trigger();
    QCOMPARE(w.document()->undoStack()->count(), 2);
    QCOMPARE(w.document()->undoStack()->text(0), QStringLiteral("Temperature 0.05"));
    QVERIFY(!w.document()->scenario().mask.causal);
    slider->setValue(TogglePanel::sliderPosition(2.0));
    QCOMPARE(w.document()->scenario().temperature, 2.0);
    slider->setSliderDown(false);
    QCOMPARE(w.document()->undoStack()->count(), 3);
    QCOMPARE(w.document()->undoStack()->text(2), QStringLiteral("Temperature 2"));

    // The first gesture of a fresh lesson: nothing to undo yet, but Ctrl+Z
    // still cancels the drag.
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    QCOMPARE(w.document()->undoStack()->count(), 0);
    slider->setSliderDown(true);
    slider->setValue(0);
    QVERIFY(w.document()->inGesture());
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    QVERIFY(!w.document()->inGesture());
    QCOMPARE(w.document()->scenario().temperature, 1.0);
    slider->setSliderDown(false);
    QCOMPARE(w.document()->undoStack()->count(), 0);
}

// A setting changed from the Attention menu and from the panel is the same
// step in the undo history, under the same name.
void TestMainWindow::menuAndPanelNameStepsAlike()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    QAction *sinusoidal = findAction(&w, QStringLiteral("Sinusoidal"));
    QVERIFY(sinusoidal);
    sinusoidal->trigger();
    QCOMPARE(w.document()->scenario().encoding, Encoding::Sinusoidal);
    const QString fromMenu = w.document()->undoStack()->undoText();
    w.document()->undo();
    QAbstractButton *radio = nullptr;
    for (QAbstractButton *b : w.togglePanel()->findChildren<QAbstractButton *>())
        if (b->text().remove(QLatin1Char('&')) == QStringLiteral("Sinusoidal"))
            radio = b;
    QVERIFY(radio);
    radio->click();
    QCOMPARE(w.document()->scenario().encoding, Encoding::Sinusoidal);
    QCOMPARE(w.document()->undoStack()->undoText(), fromMenu);
    QCOMPARE(fromMenu, QStringLiteral("Positional encoding: sinusoidal"));
}

// A refusal stays in view on the right of the status bar without taking
// the room that passing messages ("Saved …", "Zoom 125%") are written in.
void TestMainWindow::statusBarShowsMessagesAndRefusals()
{
    MainWindow &w = *m_window;
    QLabel *problem = nullptr;
    for (QLabel *l : w.statusBar()->findChildren<QLabel *>())
        if (l->styleSheet().contains(QStringLiteral("#b00020")))
            problem = l;
    QVERIFY(problem);
    QVERIFY(!problem->isVisible());
    w.setZoom(1.25);
    QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Zoom 125%"));
    w.document()->report(QStringLiteral("K row 3, column 2: not a number"));
    QVERIFY(problem->isVisible());
    QCOMPARE(problem->text(), QStringLiteral("K row 3, column 2: not a number"));
    QCoreApplication::processEvents();
    // The temporary message is drawn left of the first permanent widget:
    // there must be room for it.
    QVERIFY2(problem->geometry().left() > w.statusBar()->width() / 3,
             qPrintable(QStringLiteral("the refusal starts at x = %1 of %2").arg(problem->geometry().left()).arg(w.statusBar()->width())));
    w.setZoom(1.0, false);
}

// RoPE needs an even d_k: typing 3 is refused with the reason, and the spin
// box shows the d_k the document still has.
void TestMainWindow::refusedWidthPutsTheSpinBoxBack()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    Scenario rope = w.document()->scenario();
    rope.encoding = Encoding::Rope;
    QVERIFY(!w.document()->edit(rope, QStringLiteral("rope")));
    QSpinBox *dk = nullptr;
    for (QSpinBox *b : w.matrixPanel()->findChildren<QSpinBox *>())
        if (b->toolTip().startsWith(QStringLiteral("d_k")))
            dk = b;
    QVERIFY(dk);
    QCOMPARE(dk->value(), 2);
    QCOMPARE(dk->maximum(), kMaxWidth);
    dk->setValue(3);
    QCOMPARE(headDim(w.document()->scenario()), 2);
    QCOMPARE(dk->value(), 2);
    QCOMPARE(w.document()->undoStack()->count(), 1);
    QVERIFY2(w.matrixPanel()->message().contains(QStringLiteral("RoPE")), qPrintable(w.matrixPanel()->message()));
    dk->setValue(4); // even: taken
    QCOMPARE(headDim(w.document()->scenario()), 4);
}

// The spin box beside the slider takes any τ the core does and shows it in
// significant digits; the menu steps round to two digits and say where the
// range ends; the seed field holds seeds past any int and refuses the rest.
void TestMainWindow::temperatureAndSeedTakeTheirWholeRange()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    QDoubleSpinBox *box = w.togglePanel()->temperatureBox();
    box->setValue(1e-6);
    QCOMPARE(w.document()->scenario().temperature, 1e-6);
    QCOMPARE(box->text(), QLocale().toString(1e-6, 'g', 6));
    ATTN_VERIFY_NO_MISMATCH(test::nonFinite(w.stageView(Stage::Weights)->data().values), QStringLiteral("τ = 1e-6"));
    // τ → 0 is argmax: key 1 (score 4) takes everything.
    ATTN_COMPARE_NEAR(w.stageView(Stage::Weights)->data().values(0, 0), 1.0, 1e-12);
    QSignalSpy problems(w.document(), &Document::problemReported);
    QTest::keyClick(&w, Qt::Key_Down, Qt::ControlModifier | Qt::ShiftModifier); // τ × 0.8: already at the end
    QCOMPARE(w.document()->scenario().temperature, 1e-6);
    QCOMPARE(problems.count(), 0); // the window's own message, not a refused edit
    box->setValue(1e6);
    QCOMPARE(w.document()->scenario().temperature, 1e6);
    box->setValue(1.0);
    QTest::keyClick(&w, Qt::Key_Down, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(w.document()->scenario().temperature, 0.8);
    QTest::keyClick(&w, Qt::Key_Down, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(w.document()->scenario().temperature, 0.64);
    QTest::keyClick(&w, Qt::Key_Up, Qt::ControlModifier | Qt::ShiftModifier); // 0.8 exactly, not 0.80000000001
    QCOMPARE(w.document()->scenario().temperature, 0.8);
    QCOMPARE(TogglePanel::roundTemperature(1e-9), kMinTemperature);
    QCOMPARE(TogglePanel::roundTemperature(1e9), kMaxTemperature);
    QCOMPARE(TogglePanel::roundTemperature(0.0123456), 0.012);

    // Typed as a teacher types: select all, the digits, Enter. The seed
    // field is open with the learned encoding, which it draws.
    Scenario learned = w.document()->scenario();
    learned.encoding = Encoding::Learned;
    QVERIFY(!w.document()->edit(learned, QStringLiteral("learned")));
    QLineEdit *seed = w.togglePanel()->seedEdit();
    QVERIFY(seed->isEnabled());
    auto type = [&](QWidget *field, const QString &text) {
        field->setFocus();
        QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
        if (text.isEmpty())
            QTest::keyClick(field, Qt::Key_Delete);
        else
            QTest::keyClicks(field, text);
        QTest::keyClick(field, Qt::Key_Return);
    };
    type(seed, QStringLiteral("9223372036854775807"));
    QCOMPARE(w.document()->scenario().seed, kMaxSeed);
    const int steps = w.document()->undoStack()->count();
    type(seed, QStringLiteral("9999999999999999999"));
    QCOMPARE(w.document()->scenario().seed, kMaxSeed);
    QCOMPARE(w.document()->undoStack()->count(), steps);
    QCOMPARE(problems.count(), 1);
    QVERIFY2(problems.first().first().toString().contains(QStringLiteral("9999999999999999999")),
             qPrintable(problems.first().first().toString()));
    QCOMPARE(seed->text(), QStringLiteral("9223372036854775807"));
    // An emptied field is put back, with a message, and changes nothing.
    type(seed, QString());
    QCOMPARE(w.document()->scenario().seed, kMaxSeed);
    QCOMPARE(w.document()->undoStack()->count(), steps);
    QCOMPARE(problems.count(), 2);
    QCOMPARE(seed->text(), QStringLiteral("9223372036854775807"));
    // Letters never get in.
    type(seed, QStringLiteral("12ab"));
    QCOMPARE(w.document()->scenario().seed, std::uint64_t(12));

    // The τ box, typed: any τ in range, read back exactly, and Enter on an
    // unchanged box is not an edit.
    QDoubleSpinBox *tau = w.togglePanel()->temperatureBox();
    type(tau, QStringLiteral("0.123456789"));
    QCOMPARE(w.document()->scenario().temperature, 0.123456789);
    const int tauSteps = w.document()->undoStack()->count();
    tau->setFocus();
    QTest::keyClick(tau, Qt::Key_Return);
    QCOMPARE(w.document()->scenario().temperature, 0.123456789);
    QCOMPARE(w.document()->undoStack()->count(), tauSteps);
    type(tau, QStringLiteral("123456.7"));
    QCOMPARE(w.document()->scenario().temperature, 123456.7);
    type(tau, QStringLiteral("2e-6"));
    QCOMPARE(w.document()->scenario().temperature, 2e-6);
    // The arrows: one step up and one down come back.
    type(tau, QStringLiteral("1"));
    tau->stepBy(1);
    QCOMPARE(w.document()->scenario().temperature, 1.1);
    tau->stepBy(-1);
    QCOMPARE(w.document()->scenario().temperature, 1.0);
}

void TestMainWindow::modeSwitchKeepsWeightsOnScreen()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed001-soft-knn")));
    const Matrix weights = w.stageView(Stage::Weights)->data().values;
    auto buttons = w.matrixPanel()->findChildren<QAbstractButton *>();
    QAbstractButton *projected = nullptr;
    for (QAbstractButton *b : buttons)
        if (b->text().remove(QLatin1Char('&')).startsWith(QStringLiteral("Projected")))
            projected = b;
    QVERIFY(projected);
    projected->click();
    QCOMPARE(w.document()->scenario().mode, InputMode::Projected);
    QVERIFY(w.matrixPanel()->table(MatrixId::Wq));
    QVERIFY(!w.matrixPanel()->table(MatrixId::Q));
    ATTN_COMPARE_MATRIX(w.stageView(Stage::Weights)->data().values, weights, 1e-12);
    w.document()->undoStack()->undo();
    QCOMPARE(w.document()->scenario().mode, InputMode::Direct);
    QVERIFY(w.matrixPanel()->table(MatrixId::Q));
}

void TestMainWindow::saveAndOpenRoundTrip()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("cross-attention")));
    MatrixModel *x = w.matrixPanel()->model(MatrixId::X);
    QVERIFY(x->setData(x->index(0, 2), QStringLiteral("0.25")));
    const Scenario edited = w.document()->scenario();
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("lesson.json"));
    QVERIFY(w.saveTo(path));
    QVERIFY(!w.document()->isModified());
    QVERIFY(w.windowTitle().contains(QStringLiteral("lesson.json")));
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    QVERIFY(!w.openFile(path));
    QVERIFY(w.document()->scenario() == edited);
    // A folder that does not exist: a message, nothing written, still modified.
    QVERIFY(x->setData(x->index(0, 2), QStringLiteral("0.5")));
    QVERIFY(!w.saveTo(dir.filePath(QStringLiteral("no/such/folder/x.json"))));
    QVERIFY(w.document()->isModified());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("no/such/folder/x.json"))));
}

void TestMainWindow::positionalEncodingIsShown()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("permutation")));
    auto *pe = w.sideTabs()->findChild<PositionalView *>();
    QVERIFY(pe);
    QVERIFY(pe->currentWidget() != pe->plot());
    QAction *sinusoidal = findAction(&w, QStringLiteral("Sinusoidal"));
    QVERIFY(sinusoidal);
    sinusoidal->trigger();
    QCOMPARE(pe->currentWidget(), pe->plot());
    QCOMPARE(w.sideTabs()->currentWidget(), pe);
    const HeatmapData d = pe->plot()->data();
    QCOMPARE(d.values.rows(), Eigen::Index(3));
    QCOMPARE(d.values.cols(), Eigen::Index(4)); // added to X: d_model columns
    ATTN_COMPARE_NEAR(d.values(1, 0), std::sin(1.0), 1e-15);
    ATTN_COMPARE_NEAR(d.values(1, 1), std::cos(1.0), 1e-15);
    ATTN_COMPARE_NEAR(d.values(2, 2), std::sin(2.0 / 100.0), 1e-15); // 10000^(2/4) = 100
}

void TestMainWindow::mapsAreLive()
{
    // Each change reaches every map before control returns to the event
    // loop: nothing waits for a timer, so no frame shows a stale map.
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    Scenario s = w.document()->scenario();
    s.scale = Scale::None;
    w.document()->edit(s, QStringLiteral("scale"));
    const Trace &t = w.document()->trace();
    QCOMPARE(w.stageView(Stage::Scaled)->data().values, t.heads[0].scaledMatrix());
    QCOMPARE(w.stageView(Stage::Weights)->data().values, t.heads[0].weights);
    QCOMPARE(w.stageView(Stage::Output)->data().values, t.heads[0].output);
    QVERIFY(w.stageView(Stage::Scaled)->data().title.contains(QStringLiteral("unscaled")));
}

void TestMainWindow::tooltipsWriteTheHandCalculation()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    const Scenario &s = w.document()->scenario();
    const Trace &t = w.document()->trace();
    auto tip = [&](Stage stage, int row, int col) { return cellToolTip(s, t, stage, 0, row, col); };
    const QString scores = tip(Stage::Scores, 0, 0);
    ATTN_CHECK(scores.contains(QStringLiteral("2·2 + 0·0 = 4.0000")), scores);
    const QString scaled = tip(Stage::Scaled, 0, 0);
    ATTN_CHECK(scaled.contains(QStringLiteral("(2·2 + 0·0) / √2 = 4.0000 / 1.4142 = 2.8284")), scaled);
    ATTN_CHECK(scaled.contains(QStringLiteral("exact value: 2.82842712474619")), scaled);
    // e^(2.8284 − 2.8284) / (1 + e^-2.8284 + e^-1.4142) = 1 / 1.3022 = 0.7679
    const QString weights = tip(Stage::Weights, 0, 0);
    ATTN_CHECK(weights.contains(QStringLiteral("= 1.0000 / 1.3022 = 0.7679")), weights);
    ATTN_CHECK(weights.contains(QStringLiteral("max 0.7679 at “k1”, entropy 0.6565")), weights);
    const QString output = tip(Stage::Output, 0, 2);
    ATTN_CHECK(output.contains(QStringLiteral("0.7679·0 + 0.0454·0 + 0.1867·1 = 0.1867")), output);
    QVERIFY(tip(Stage::Scores, 0, 3).isEmpty()); // off the map

    // A blocked cell says why.
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    const QString blocked = cellToolTip(w.document()->scenario(), w.document()->trace(), Stage::Masked, 0, 1, 3);
    ATTN_CHECK(blocked.contains(QStringLiteral("causal: key 4 comes after query 2")) && blocked.contains(QStringLiteral("−∞")), blocked);
}

void TestMainWindow::windowExportMatchesCommandLine()
{
    // The same lesson, settings and size give the same file from the window
    // and from attention-lab-cli export.
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("multihead")));
    w.document()->setCurrentHead(1);
    w.document()->setCurrentQuery(2);
    w.planePanel()->setDimensions(1, 2);
    w.planePanel()->plane()->zoomBy(0.5); // the screen's zoom does not reach the figure
    QTemporaryDir dir;
    for (const auto &[what, key] : {std::pair{ExportDialog::What::Weights, QStringLiteral("weights")},
                                    std::pair{ExportDialog::What::Masked, QStringLiteral("masked")},
                                    std::pair{ExportDialog::What::Plane, QStringLiteral("plane")},
                                    std::pair{ExportDialog::What::Dashboard, QStringLiteral("dashboard")}}) {
        for (FigureFormat format : {FigureFormat::Png, FigureFormat::Svg}) {
            const QString path = dir.filePath(QStringLiteral("window_%1.%2").arg(key, figureSuffix(format)));
            const QString why = reasonOf(w.exportFigure(what, format, FigureSize{1000, 800, 1.0}, path));
            QVERIFY2(why.isEmpty(), qPrintable(why));
        }
    }
    QProcess cli;
    cli.start(test::binaryDir() + QStringLiteral("/bin/attention-lab-cli"),
              {QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("multihead"), QStringLiteral("--out"),
               dir.path(), QStringLiteral("--format"), QStringLiteral("png,svg"), QStringLiteral("--size"),
               QStringLiteral("1000x800"), QStringLiteral("--stages"), QStringLiteral("weights,masked,plane,dashboard"),
               QStringLiteral("--head"), QStringLiteral("2"), QStringLiteral("--query"), QStringLiteral("3"),
               QStringLiteral("--plane-axes"), QStringLiteral("2,3")});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    const QStringList written = QString::fromUtf8(cli.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(written.size(), 8);
    for (const QString &key : {QStringLiteral("weights"), QStringLiteral("masked"), QStringLiteral("plane"),
                               QStringLiteral("dashboard")})
        for (const QString &suffix : {QStringLiteral("png"), QStringLiteral("svg")}) {
            QFile a(dir.filePath(QStringLiteral("window_%1.%2").arg(key, suffix)));
            QFile b(dir.filePath(QStringLiteral("multihead_%1_head2.%2").arg(key, suffix)));
            QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
            const QByteArray bytesA = a.readAll(), bytesB = b.readAll();
            QVERIFY(bytesA.size() > 1000);
            ATTN_CHECK(bytesA == bytesB, QStringLiteral("%1.%2 differs: %3 against %4 bytes").arg(key, suffix).arg(bytesA.size()).arg(bytesB.size()));
        }
}

void TestMainWindow::exportFailureLeavesNothing()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("no/such/folder/weights.pdf"));
    const QString why = reasonOf(w.exportFigure(ExportDialog::What::Weights, FigureFormat::Pdf, FigureSize{}, path));
    ATTN_CHECK(why.contains(QStringLiteral("does not exist")), why);
    QVERIFY(!QFile::exists(path));
    // The dashboard and the plane go through the same path.
    const QString dash = dir.filePath(QStringLiteral("dashboard.pdf"));
    QVERIFY(!w.exportFigure(ExportDialog::What::Dashboard, FigureFormat::Pdf, FigureSize{2400, 1500, 1.0}, dash));
    QFile f(dash);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.read(4) == "%PDF");
    const QString plane = dir.filePath(QStringLiteral("plane.png"));
    QVERIFY(!w.exportFigure(ExportDialog::What::Plane, FigureFormat::Png, FigureSize{800, 600, 2.0}, plane));
    QImage image(plane);
    QCOMPARE(image.size(), QSize(1600, 1200));
}

void TestMainWindow::copyFigurePutsAnImageOnTheClipboard()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    const QImage image = w.figureImage(ExportDialog::What::Weights);
    QCOMPARE(image.size(), QSize(1200, 900));
    QAction *copy = findAction(&w, QStringLiteral("Copy figure"));
    QVERIFY(copy);
    copy->trigger();
    const QImage clip = QApplication::clipboard()->image();
    QCOMPARE(clip.size(), QSize(1200, 900));
}

void TestMainWindow::appRefusesBadOptions_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("reason");
    QTest::newRow("size") << QStringList{"--size", "abc"} << "--size";
    QTest::newRow("tiny size") << QStringList{"--size", "10x10"} << "the window needs at least";
    QTest::newRow("size too small for the zoom") << QStringList{"--zoom", "1.5", "--size", "1030x600"} << "--size";
    QTest::newRow("tab") << QStringList{"--tab", "19"} << "--tab";
    QTest::newRow("language") << QStringList{"--language", "fr"} << "--language";
    QTest::newRow("zoom") << QStringList{"--zoom", "abc"} << "--zoom";
    QTest::newRow("lesson") << QStringList{"--lesson", "nosuch"} << "no built-in lesson";
    QTest::newRow("file and lesson") << QStringList{"--lesson", "causal", "x.json"} << "not both";
    QTest::newRow("missing file") << QStringList{"no-such-file.json"} << "no-such-file.json";
    QTest::newRow("port alone") << QStringList{"--port", "9000"} << "go with --class-session";
    QTest::newRow("code alone") << QStringList{"--join-code", "ABCD"} << "go with --class-session";
    QTest::newRow("bad port") << QStringList{"--class-session", "--port", "70000"} << "--port: a port from 1 to 65535";
    QTest::newRow("bad code") << QStringList{"--class-session", "--port", "0", "--join-code", "AB0"} << "join code";
}

// The window's own command line: a wrong option exits 2 with one line that
// names it, before any window opens (and no screenshot is written).
void TestMainWindow::appRefusesBadOptions()
{
    QFETCH(QStringList, args);
    QFETCH(QString, reason);
    QTemporaryDir dir;
    const QString shot = dir.filePath(QStringLiteral("shot.png"));
    QProcess app;
    app.setProcessEnvironment(test::offscreenEnvironment());
    app.setWorkingDirectory(dir.path());
    app.start(test::binaryDir() + QStringLiteral("/bin/attention-lab"), args + QStringList{QStringLiteral("--screenshot"), shot});
    QVERIFY(app.waitForFinished(60000));
    QCOMPARE(app.exitStatus(), QProcess::NormalExit);
    QCOMPARE(app.exitCode(), 2);
    QStringList ours;
    for (const QString &line : QString::fromUtf8(app.readAllStandardError()).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (line.startsWith(QLatin1String("attention-lab:")))
            ours << line;
    QCOMPARE(ours.size(), 1);
    QVERIFY2(ours.first().contains(reason), qPrintable(ours.first()));
    QVERIFY(!QFile::exists(shot));
}

// `--show lab --screenshot`: the √d_k lab measures its curves in the
// background; the picture is taken once they are drawn, so the gradient
// plot (top right) is never an empty "measuring" frame in a slide. In
// process: the window counts as working until the gradient is on show.
void TestMainWindow::labScreenshotWaitsForTheMeasurements()
{
    {
        MainWindow &w = *m_window;
        auto *lab = qobject_cast<ScalingLabPanel *>(w.showView(QStringLiteral("lab")));
        QVERIFY(lab);
        QVERIFY(w.isWorking());
        QTRY_VERIFY_WITH_TIMEOUT(!w.isWorking(), 240000);
        QCOMPARE(int(lab->view()->data().gradients.size()), 11);
        lab->close();
        QVERIFY(!w.isWorking());
    }
    QTemporaryDir dir;
    const QString shot = dir.filePath(QStringLiteral("lab.png"));
    QProcess app;
    app.setProcessEnvironment(test::offscreenEnvironment());
    app.start(test::binaryDir() + QStringLiteral("/bin/attention-lab"),
              {QStringLiteral("--show"), QStringLiteral("lab"), QStringLiteral("--size"), QStringLiteral("1600x1000"),
               QStringLiteral("--screenshot"), shot});
    QVERIFY(app.waitForFinished(240000));
    QCOMPARE(app.exitCode(), 0);
    const QImage image(shot);
    QCOMPARE(image.size(), QSize(1600, 1000));
    // The raw series' orange in the gradient plot's box: none while it is
    // still measuring (the legend there is drawn in grey).
    const QColor raw = scalingColour(ScoreScaling::Raw);
    int orange = 0;
    for (int y = 60; y < 420; ++y)
        for (int x = 1210; x < 1600; ++x) {
            const QColor c = image.pixelColor(x, y);
            orange += std::abs(c.red() - raw.red()) + std::abs(c.green() - raw.green()) + std::abs(c.blue() - raw.blue()) < 60;
        }
    QVERIFY2(orange > 100, qPrintable(QString::number(orange)));
}

// View ▸ Theme: the maps on screen take the theme at once (a dark
// background behind the weights map), and the default brings them back.
void TestMainWindow::themeMenuRepaintsTheMaps()
{
    MainWindow &w = *m_window;
    QVERIFY(!w.openLesson(QStringLiteral("causal")));
    QMenu *menu = nullptr;
    for (QMenu *m : w.findChildren<QMenu *>())
        if (m->title() == QStringLiteral("&Theme"))
            menu = m;
    QVERIFY(menu);
    QAction *dark = nullptr, *plain = nullptr;
    for (QAction *a : menu->actions()) {
        if (a->text() == QStringLiteral("High contrast, dark (projector)"))
            dark = a;
        if (a->text() == QStringLiteral("Default"))
            plain = a;
    }
    QVERIFY(dark && plain && dark->isCheckable());
    auto corner = [&w] {
        StageView *v = w.stageView(Stage::Weights);
        v->replot(QCustomPlot::rpImmediateRefresh);
        return v->grab().toImage().pixelColor(3, 3);
    };
    dark->trigger();
    QVERIFY(dark->isChecked());
    const QColor inDark = corner();
    plain->trigger();
    const QColor inDefault = corner();
    QVERIFY2(inDark.lightness() < 60, qPrintable(inDark.name()));
    QVERIFY2(inDefault.lightness() > 200, qPrintable(inDefault.name()));
}

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
