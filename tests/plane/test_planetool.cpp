// The plane's drag tool and plot without a main window (issue 9): a
// Document, a PlanePanel (the plot and the tool), and the mouse and keys on
// the plot. One drag is one undo step, Escape leaves the document exactly
// as before, a nudge moves by the snap step, the plot pans and zooms by
// itself, and a hidden panel draws nothing.

#include "attn_test.h"
#include "lesson_test.h"

#include "document.h"
#include "planedragtool.h"
#include "planepanel.h"
#include "planeplot.h"

#include <QApplication>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include <memory>

using namespace attn;
using attn::test::lesson;

namespace {

QPoint px(const QPointF &p)
{
    return QPoint(int(std::lround(p.x())), int(std::lround(p.y())));
}

void drag(QWidget *w, const QPointF &from, const QPointF &to, int steps = 10, bool release = true)
{
    QTest::mousePress(w, Qt::LeftButton, {}, px(from));
    for (int i = 1; i <= steps; ++i)
        QTest::mouseMove(w, px(from + (to - from) * (double(i) / steps)));
    if (release)
        QTest::mouseRelease(w, Qt::LeftButton, {}, px(to));
}

} // namespace

class TestPlaneTool : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void oneDragIsOneUndoStep();
    void escapeLeavesTheDocumentAsBefore();
    void undoMidDragEndsTheDrag();
    void nudgeMovesByTheSnapStep();
    void keysNeedTheToggle();
    void plotPansAndZoomsByItself();
    void hiddenPanelDrawsNothing();
    void plotAloneHasNoTool();

private:
    void load(const Scenario &s);
    void settle();
    PlanePlot *plot() const { return m_panel->plane(); }

    std::unique_ptr<Document> m_doc;
    std::unique_ptr<PlanePanel> m_panel;
};

void TestPlaneTool::init()
{
    m_doc = std::make_unique<Document>();
    m_panel = std::make_unique<PlanePanel>(m_doc.get());
    m_panel->resize(700, 600);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
}

void TestPlaneTool::cleanup()
{
    m_panel.reset();
    m_doc.reset();
}

void TestPlaneTool::load(const Scenario &s)
{
    m_doc->replace(s, QString());
    settle();
}

void TestPlaneTool::settle()
{
    for (int i = 0; i < 4; ++i)
        QCoreApplication::processEvents();
    plot()->replot();
}

void TestPlaneTool::oneDragIsOneUndoStep()
{
    load(lesson(QStringLiteral("seed000-basic"))); // q = (2, 0), k2 = (0, 2)
    const Scenario before = m_doc->scenario();
    QSignalSpy gestures(m_doc.get(), &Document::gestureChanged);
    const QPointF from = plot()->queryPixel(0);
    drag(plot(), from, from + QPointF(-40, -30), 8, false);
    QVERIFY(m_panel->isDragging());
    QVERIFY(m_doc->inGesture());
    QCOMPARE(gestures.count(), 1);
    QTest::mouseRelease(plot(), Qt::LeftButton, {}, px(from + QPointF(-40, -30)));
    QVERIFY(!m_panel->isDragging());
    QVERIFY(!m_doc->inGesture());
    QCOMPARE(m_doc->undoStack()->count(), 1);
    QCOMPARE(m_doc->undoStack()->text(0), QStringLiteral("Drag query q"));
    // Where the pointer went (left 40, up 30 pixels), to a pixel.
    const double upp = 1.0 / plot()->pixelsPerUnit(Qt::Horizontal);
    const Matrix &Q = m_doc->scenario().Q;
    ATTN_COMPARE_NEAR(Q(0, 0), 2.0 - 40 * upp, 1.5 * upp);
    ATTN_COMPARE_NEAR(Q(0, 1), 30 * upp, 1.5 * upp);
    QCOMPARE(m_doc->scenario().K, before.K);
    // The plot shows the document's new numbers.
    QCOMPARE(plot()->queryPoints(), Matrix(Q.leftCols(2)));
    QCOMPARE(plot()->keyWeights(), Eigen::VectorXd(m_doc->trace().heads[0].weights.row(0).transpose()));
    m_doc->undo();
    QVERIFY(m_doc->scenario() == before);
    QCOMPARE(plot()->queryPoints(), Matrix(before.Q.leftCols(2)));

    // A click selects and edits nothing.
    load(lesson(QStringLiteral("seed001-soft-knn")));
    QTest::mouseClick(plot(), Qt::LeftButton, {}, px(plot()->queryPixel(2)));
    QCOMPARE(m_doc->currentQuery(), 2);
    QCOMPARE(m_doc->undoStack()->count(), 0);
    QVERIFY(!m_doc->inGesture());
}

void TestPlaneTool::escapeLeavesTheDocumentAsBefore()
{
    load(lesson(QStringLiteral("seed001-soft-knn")));
    const Scenario before = m_doc->scenario();
    const Trace traceBefore = m_doc->trace();
    QSignalSpy cancelled(m_doc.get(), &Document::gestureCancelled);
    const QPointF from = plot()->queryPixel(0);
    drag(plot(), from, from + QPointF(-80, 50), 8, false);
    QVERIFY(m_doc->scenario().Q != before.Q);
    QTest::keyClick(plot(), Qt::Key_Escape);
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!m_panel->isDragging());
    QVERIFY(!m_doc->inGesture());
    QVERIFY(m_doc->scenario() == before);
    QCOMPARE(m_doc->trace().heads[0].weights, traceBefore.heads[0].weights);
    QCOMPARE(m_doc->undoStack()->count(), 0);
    // The rest of the gesture does nothing.
    QTest::mouseMove(plot(), px(from + QPointF(-20, 20)));
    QTest::mouseRelease(plot(), Qt::LeftButton, {}, px(from + QPointF(-20, 20)));
    QVERIFY(m_doc->scenario() == before);
    QCOMPARE(m_doc->undoStack()->count(), 0);
    QCOMPARE(plot()->queryPoints(), Matrix(before.Q));
    // Nothing to redo either.
    m_doc->redo();
    QVERIFY(m_doc->scenario() == before);
}

void TestPlaneTool::undoMidDragEndsTheDrag()
{
    load(lesson(QStringLiteral("seed001-soft-knn")));
    const Scenario before = m_doc->scenario();
    const QPointF from = plot()->queryPixel(0);
    drag(plot(), from, from + QPointF(-60, 40), 6, false);
    m_doc->undo(); // Ctrl+Z in mid-drag cancels it
    QVERIFY(!m_panel->isDragging());
    QVERIFY(m_doc->scenario() == before);
    QTest::mouseMove(plot(), px(from + QPointF(-10, 10)));
    QTest::mouseRelease(plot(), Qt::LeftButton, {}, px(from + QPointF(-10, 10)));
    QVERIFY(m_doc->scenario() == before);
    QCOMPARE(m_doc->undoStack()->count(), 0);
}

void TestPlaneTool::nudgeMovesByTheSnapStep()
{
    load(lesson(QStringLiteral("seed001-soft-knn"))); // q1 = (1, 0.2)
    plot()->setFocus();
    QTest::keyClick(plot(), Qt::Key_Right); // no snapping: 0.1
    QCOMPARE(m_doc->scenario().Q(0, 0), 1.0 + 0.1);
    QCOMPARE(m_doc->scenario().Q(0, 1), 0.2);
    QCOMPARE(m_doc->undoStack()->count(), 1);
    QCOMPARE(m_doc->undoStack()->text(0), QStringLiteral("Nudge query t1"));
    QVERIFY(!m_doc->inGesture());

    m_panel->setSnapStep(0.5);
    QCOMPARE(m_panel->snapStep(), 0.5);
    QCOMPARE(m_panel->snapBox()->currentData().toDouble(), 0.5); // the control follows
    QTest::keyClick(plot(), Qt::Key_Up); // 0.2 is off the grid: the next line above, 0.5
    QCOMPARE(m_doc->scenario().Q(0, 1), 0.5);
    QCOMPARE(m_doc->scenario().Q(0, 0), 1.0); // the vector lands on the grid: 1.1 to 1
    QTest::keyClick(plot(), Qt::Key_Up);
    QCOMPARE(m_doc->scenario().Q(0, 1), 1.0);
    QTest::keyClick(plot(), Qt::Key_Left); // one step of 0.5
    QCOMPARE(m_doc->scenario().Q(0, 0), 0.5);
    QCOMPARE(m_doc->undoStack()->count(), 4); // one step per key press
    // Page Down selects the next query; the arrows then move it.
    QTest::keyClick(plot(), Qt::Key_PageDown);
    QCOMPARE(m_doc->currentQuery(), 1);
    QCOMPARE(m_panel->selectedVector(), (PlaneTarget{PlaneRole::Query, 1}));
}

void TestPlaneTool::keysNeedTheToggle()
{
    load(lesson(QStringLiteral("seed000-basic")));
    const Scenario before = m_doc->scenario();
    const QPointF k2 = plot()->keyPixel(1);
    QVERIFY(!plot()->handleAt(k2).isValid());
    QCOMPARE(plot()->handleAt(k2, false, true), (PlaneTarget{PlaneRole::Key, 1}));
    drag(plot(), k2, k2 + QPointF(30, 30));
    QVERIFY(m_doc->scenario() == before);

    m_panel->dragKeysButton()->click();
    QVERIFY(m_panel->tool()->keysDraggable());
    drag(plot(), k2, k2 + QPointF(30, 30));
    QVERIFY(m_doc->scenario().K(1, 0) > 0.0);
    QCOMPARE(m_doc->scenario().Q, before.Q);
    QCOMPARE(m_doc->undoStack()->count(), 1);
    QCOMPARE(m_doc->undoStack()->text(0), QStringLiteral("Drag key k2"));
    QCOMPARE(m_panel->selectedVector(), (PlaneTarget{PlaneRole::Key, 1}));
    QCOMPARE(plot()->scene().selectedKey, 1); // ringed
    QTest::keyClick(plot(), Qt::Key_Escape); // forgets the key
    QCOMPARE(m_panel->selectedVector(), (PlaneTarget{PlaneRole::Query, 0}));
    QCOMPARE(plot()->scene().selectedKey, -1);
}

void TestPlaneTool::plotPansAndZoomsByItself()
{
    load(lesson(QStringLiteral("seed001-soft-knn")));
    const QCPRange x0 = plot()->xAxis->range();
    const QPoint c = plot()->axisRect()->rect().center();
    QTest::mousePress(plot(), Qt::RightButton, {}, c);
    QTest::mouseMove(plot(), c + QPoint(40, 0));
    QTest::mouseRelease(plot(), Qt::RightButton, {}, c + QPoint(40, 0));
    settle();
    const double upp = 1.0 / plot()->pixelsPerUnit(Qt::Horizontal);
    ATTN_COMPARE_NEAR(plot()->xAxis->range().center(), x0.center() - 40 * upp, 1e-9);
    const double ppu0 = plot()->pixelsPerUnit(Qt::Horizontal);
    QWheelEvent wheel(QPointF(c), plot()->mapToGlobal(QPointF(c)), QPoint(), QPoint(0, 240), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot(), &wheel);
    settle();
    QVERIFY(plot()->pixelsPerUnit(Qt::Horizontal) > ppu0 * 1.3);
    ATTN_COMPARE_NEAR(plot()->pixelsPerUnit(Qt::Horizontal), plot()->pixelsPerUnit(Qt::Vertical), 1e-6);
    QCOMPARE(m_doc->undoStack()->count(), 0);
    // The plane point under a pixel and the pixel of a plane point agree.
    const Eigen::Vector2d p(0.3, -0.2);
    ATTN_COMPARE_NEAR((plot()->coordAt(plot()->pixelAt(p)) - p).norm(), 0.0, 1e-9);
}

void TestPlaneTool::hiddenPanelDrawsNothing()
{
    load(lesson(QStringLiteral("seed001-soft-knn")));
    m_panel->hide();
    QSignalSpy replots(plot(), &QCustomPlot::afterReplot);
    Eigen::RowVectorXd row = m_doc->scenario().Q.row(0);
    row(0) = -1;
    QVERIFY(!m_doc->setRow(MatrixId::Q, 0, row, QStringLiteral("edit")));
    for (int i = 0; i < 4; ++i)
        QCoreApplication::processEvents();
    QCOMPARE(replots.count(), 0);
    QCOMPARE(plot()->queryPoints()(0, 0), 1.0); // not even rebuilt
    QCOMPARE(m_panel->scene().queries(0, 0), -1.0); // until asked for
    m_panel->show();
    QTRY_VERIFY(replots.count() > 0);
    QCOMPARE(plot()->queryPoints()(0, 0), -1.0);
}

void TestPlaneTool::plotAloneHasNoTool()
{
    // A plot draws any scene it is given, and a left drag without a tool
    // does nothing.
    Scenario s = lesson(QStringLiteral("seed000-basic"));
    PlanePlot plot;
    plot.resize(500, 400);
    plot.setScene(makePlaneScene(s, compute(s), PlaneSettings{}));
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replot();
    QVERIFY(plot.tool() == nullptr);
    const QPointF q = plot.queryPixel(0);
    QCOMPARE(plot.handleAt(q), (PlaneTarget{PlaneRole::Query, 0}));
    drag(&plot, q, q + QPointF(50, 50));
    QCOMPARE(plot.queryPoints(), Matrix(Matrix{{2, 0}}));
}

QTEST_MAIN(TestPlaneTool)
#include "test_planetool.moc"
