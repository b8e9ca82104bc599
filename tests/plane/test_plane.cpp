// The vector plane, driven with the mouse and the keyboard in the
// real window (offscreen): a drag moves the query and the weights follow, in
// the plane and in every map; the whole drag is one undo step; snapping lands
// on the grid; projections keep the hidden coordinates; the axes stay 1:1.
//
// ATTN_PLANE_SHOTS=DIR keeps the pictures of `everySceneIsDrawn` in DIR,
// to look at.

#include "attn_test.h"
#include "lesson_test.h"

#include "edit.h"
#include "lessons.h"
#include "mainwindow.h"
#include "projection.h"
#include "stageviews.h"
#include "planepanel.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QPointer>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>

using namespace attn;
using attn::test::lesson;

namespace {

// One query and three keys in d_k = 4; V in two dimensions.
Scenario fourDimensional()
{
    Scenario s;
    s.title = "d_k = 4";
    s.tokens = {"q"};
    s.sourceTokens = {"a", "b", "c"};
    s.Q = Matrix{{1, 0.5, 0.25, -0.75}};
    s.K = Matrix{{1, 0, 0, 0}, {0, 0, 1, 0}, {0.5, 1, 0.5, 1}};
    s.V = Matrix{{1, 0}, {0, 1}, {1, 1}};
    return s;
}

QPoint px(const QPointF &p)
{
    return QPoint(int(std::lround(p.x())), int(std::lround(p.y())));
}

// Press on `from`, move in `steps` steps to `to`, release there (unless not).
void drag(QWidget *w, const QPointF &from, const QPointF &to, int steps = 12, bool release = true)
{
    QTest::mousePress(w, Qt::LeftButton, {}, px(from));
    for (int i = 1; i <= steps; ++i)
        QTest::mouseMove(w, px(from + (to - from) * (double(i) / steps)));
    if (release)
        QTest::mouseRelease(w, Qt::LeftButton, {}, px(to));
}

bool finite(const Matrix &m)
{
    return m.allFinite();
}

} // namespace

class TestPlane : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void planeIsTheFirstSideTab();
    void dragTowardsAKeyShiftsTheWeights();
    void dragIsLiveInEveryMap();
    void dragRedrawsOnlyTheVectors();
    void hiddenPlaneCatchesUpWhenShown();
    void snapLandsOnTheGrid_data();
    void snapLandsOnTheGrid();
    void dimensionPairKeepsHiddenCoordinates();
    void pcaKeepsTheOrthogonalComponent();
    void keysDragOnlyWithTheToggle();
    void keyboardNudgesAndUndoes();
    void keyboardNudgeWithSnap();
    void projectedModeMovesX();
    void encodingShowsRawInputs();
    void followsTheSelectedHead();
    void escapeCancelsTheDrag();
    void refusedLiveEditChangesNothing();
    void clickSelectsAQuery();
    void outputIsTheWeightedAverage();
    void blockedKeysAreMarked();
    void nothingNaNForEveryLesson();
    void oneDimensionDrawsOnALine();
    void aspectStaysOneToOne();
    void panAndZoomKeepTheData();
    void fontsFollowTheZoom();
    void exportShowsThePlane();
    void hoverLinksTheMaps();
    void toolTipGivesTheWeight();
    void windowOfItsOwnEditsTheSameDocument();
    void everySceneIsDrawn();

private:
    PlanePlot *plane() const { return m_window->vectorPlane(); }
    PlanePanel *panel() const { return m_window->findChild<PlanePanel *>(); }
    Document *doc() const { return m_window->document(); }
    void open(const QString &name);
    void load(const Scenario &s);
    void settle(); // lays the plane out now, so pixels and coordinates agree

    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_settings;
};

void TestPlane::initTestCase()
{
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
}

void TestPlane::init()
{
    m_window = std::make_unique<MainWindow>();
    m_window->setInteractive(false);
    m_window->resize(1600, 1000);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    m_window->sideTabs()->setCurrentIndex(0);
}

void TestPlane::cleanup()
{
    m_window.reset();
}

void TestPlane::open(const QString &name)
{
    QVERIFY(!m_window->openLesson(name));
    settle();
}

void TestPlane::load(const Scenario &s)
{
    doc()->replace(s, QString());
    settle();
}

void TestPlane::settle()
{
    // Layout requests can post more layout requests: let them all run.
    for (int i = 0; i < 4; ++i)
        QCoreApplication::processEvents();
    plane()->replot();
}

void TestPlane::planeIsTheFirstSideTab()
{
    QCOMPARE(m_window->sideTabs()->widget(0), panel());
    QCOMPARE(m_window->sideTabs()->tabText(0), QStringLiteral("Vector &plane"));
    QCOMPARE(panel()->plane(), plane());
    QVERIFY(plane()->isVisible());
    QCOMPARE(plane()->focusPolicy(), Qt::StrongFocus);
}

void TestPlane::dragTowardsAKeyShiftsTheWeights()
{
    open(QStringLiteral("seed000-basic")); // q = k1 = (2, 0), k2 = (0, 2), k3 = (1, 1)
    const Scenario before = doc()->scenario();
    const Eigen::VectorXd w0 = plane()->keyWeights();
    ATTN_COMPARE_NEAR(w0(0), 0.7679179361387025, 1e-12);
    QCOMPARE(plane()->queryPoints(), Matrix(Matrix{{2, 0}}));
    const Matrix map0 = m_window->stageView(Stage::Weights)->data().values;

    // From the query's handle most of the way to k2.
    const QPointF from = plane()->queryPixel(0), k2 = plane()->keyPixel(1);
    drag(plane(), from, from + (k2 - from) * 0.8);

    const Matrix &Q = doc()->scenario().Q;
    ATTN_CHECK(Q(0, 0) < 1.0 && Q(0, 1) > 1.0, QStringLiteral("Q = (%1, %2)").arg(Q(0, 0)).arg(Q(0, 1)));
    // Where the pointer went, to a pixel.
    const double unitsPerPixel = 1.0 / plane()->pixelsPerUnit(Qt::Horizontal);
    ATTN_COMPARE_NEAR(Q(0, 0), 0.4, 1.5 * unitsPerPixel);
    ATTN_COMPARE_NEAR(Q(0, 1), 1.6, 1.5 * unitsPerPixel);
    QCOMPARE(doc()->scenario().K, before.K); // only the query moved
    const Eigen::VectorXd w1 = plane()->keyWeights();
    ATTN_CHECK(w1(1) > w0(1) + 0.3, QStringLiteral("k2: %1 -> %2").arg(w0(1)).arg(w1(1)));
    ATTN_CHECK(w1(0) < w0(0) - 0.3, QStringLiteral("k1: %1 -> %2").arg(w0(0)).arg(w1(0)));
    QVERIFY(w1(1) > w1(0)); // k2 wins now
    // The weights map shows the same numbers.
    const Matrix map1 = m_window->stageView(Stage::Weights)->data().values;
    QVERIFY(map1 != map0);
    ATTN_COMPARE_MATRIX(map1.row(0).transpose(), w1, 0.0);

    // One drag, one undo step; undo restores Q exactly.
    QCOMPARE(doc()->undoStack()->count(), 1);
    QCOMPARE(doc()->undoStack()->text(0), QStringLiteral("Drag query q"));
    doc()->undoStack()->undo();
    QVERIFY(doc()->scenario() == before);
    QCOMPARE(doc()->scenario().Q, before.Q);
    QCOMPARE(plane()->keyWeights(), w0);
    QCOMPARE(m_window->stageView(Stage::Weights)->data().values, map0);
}

void TestPlane::dragIsLiveInEveryMap()
{
    open(QStringLiteral("seed001-soft-knn"));
    const Matrix scores0 = m_window->stageView(Stage::Scores)->data().values;
    const QPointF from = plane()->queryPixel(0);
    drag(plane(), from, from + QPointF(-60, -40), 6, false); // not released yet
    QVERIFY(doc()->inGesture());
    // The six moves are one undo step already, merged as they come (no
    // side channel beside the stack: the step exists before the release).
    QCOMPARE(doc()->undoStack()->count(), 1);
    // Every move has already reached the maps and the plane.
    const Trace &t = doc()->trace();
    QCOMPARE(m_window->stageView(Stage::Scores)->data().values, t.heads[0].scores);
    QVERIFY(m_window->stageView(Stage::Scores)->data().values != scores0);
    QCOMPARE(m_window->stageView(Stage::Weights)->data().values, t.heads[0].weights);
    QCOMPARE(m_window->stageView(Stage::Output)->data().values, t.heads[0].output);
    ATTN_COMPARE_MATRIX(plane()->keyWeights(), t.heads[0].weights.row(0).transpose(), 0.0);
    QTest::mouseRelease(plane(), Qt::LeftButton, {}, px(from + QPointF(-60, -40)));
    QVERIFY(!doc()->inGesture());
    QCOMPARE(doc()->undoStack()->count(), 1);
}

void TestPlane::dragRedrawsOnlyTheVectors()
{
    open(QStringLiteral("seed001-soft-knn"));
    QSignalSpy replots(plane(), &QCustomPlot::afterReplot);
    const QPointF from = plane()->queryPixel(0);
    drag(plane(), from, from + QPointF(-50, 30), 5, false);
    QTRY_VERIFY(replots.count() > 0);
    for (int i = 0; i < 4; ++i)
        QCoreApplication::processEvents();
    QVERIFY(plane()->lastReplotWasVectorsOnly()); // the fast path was taken
    // What the drag left on screen (vector layer redrawn alone) is what a
    // full replot draws: nothing stale, nothing missing.
    const QImage during = plane()->grab().toImage();
    plane()->replot();
    QVERIFY(!plane()->lastReplotWasVectorsOnly());
    const QImage full = plane()->grab().toImage();
    QCOMPARE(during.size(), full.size());
    QVERIFY(during == full);
    // And the query really moved on screen.
    QTest::mouseRelease(plane(), Qt::LeftButton, {}, px(from + QPointF(-50, 30)));
    ATTN_COMPARE_NEAR(plane()->queryPixel(0).x(), from.x() - 50, 1.0);
}

void TestPlane::hiddenPlaneCatchesUpWhenShown()
{
    open(QStringLiteral("seed001-soft-knn"));
    m_window->sideTabs()->setCurrentIndex(1); // the plane's tab behind another
    QVERIFY(!plane()->isVisible());
    QSignalSpy replots(plane(), &QCustomPlot::afterReplot);
    Scenario s = doc()->scenario();
    s.Q(0, 0) = -1;
    doc()->edit(s, QStringLiteral("edit"));
    for (int i = 0; i < 4; ++i)
        QCoreApplication::processEvents();
    QCOMPARE(replots.count(), 0); // no drawing while hidden
    QCOMPARE(panel()->scene().queries(0, 0), -1.0); // but the scene is current
    m_window->sideTabs()->setCurrentIndex(0);
    QTRY_VERIFY(replots.count() > 0);
    const QImage shown = plane()->grab().toImage();
    plane()->replot();
    QVERIFY(shown == plane()->grab().toImage());
}

void TestPlane::snapLandsOnTheGrid_data()
{
    QTest::addColumn<int>("index");
    QTest::addColumn<double>("step");
    QTest::newRow("0.1") << 1 << 0.1;
    QTest::newRow("0.5") << 2 << 0.5;
    QTest::newRow("1") << 3 << 1.0;
}

void TestPlane::snapLandsOnTheGrid()
{
    QFETCH(int, index);
    QFETCH(double, step);
    open(QStringLiteral("seed001-soft-knn"));
    QComboBox *snap = panel()->snapBox();
    QCOMPARE(snap->itemData(index).toDouble(), step);
    snap->setCurrentIndex(index);
    emit snap->activated(index);
    QCOMPARE(panel()->snapStep(), step);

    const QPointF from = plane()->queryPixel(2); // t3 = (0.1, 1)
    drag(plane(), from, from + QPointF(-37, 23));
    const Matrix &Q = doc()->scenario().Q;
    const double k = std::round(1.0 / step);
    for (int c = 0; c < 2; ++c) {
        // Exactly a grid value: the double nearest to a multiple of the step.
        QCOMPARE(Q(2, c), std::round(Q(2, c) * k) / k);
    }
    QVERIFY(Q(2, 0) < 0.1); // it moved left
    QCOMPARE(doc()->undoStack()->count(), 1);
}

void TestPlane::dimensionPairKeepsHiddenCoordinates()
{
    load(fourDimensional());
    QCOMPARE(plane()->spaceDimension(), 4);
    QComboBox *vertical = panel()->verticalBox();
    QVERIFY(vertical->isEnabled());
    QCOMPARE(vertical->count(), 4);
    vertical->setCurrentIndex(2);
    emit vertical->activated(2); // dimensions 1 and 3
    QCOMPARE(panel()->horizontalDimension(), 0);
    QCOMPARE(panel()->verticalDimension(), 2);
    settle();
    QVERIFY(plane()->caption().contains(QStringLiteral("Dimensions 1 and 3")));
    QCOMPARE(plane()->queryPoints(), Matrix(Matrix{{1, 0.25}}));
    QCOMPARE(plane()->keyPoints(), Matrix(Matrix{{1, 0}, {0, 1}, {0.5, 0.5}}));

    const Matrix before = doc()->scenario().Q;
    const QPointF from = plane()->queryPixel(0);
    drag(plane(), from, from + QPointF(-50, -30)); // left and up
    const Matrix &Q = doc()->scenario().Q;
    QVERIFY(Q(0, 0) < before(0, 0));
    QVERIFY(Q(0, 2) > before(0, 2));
    QCOMPARE(Q(0, 1), before(0, 1)); // hidden: exactly as they were
    QCOMPARE(Q(0, 3), before(0, 3));
    QCOMPARE(plane()->queryPoints()(0, 0), Q(0, 0));
    QCOMPARE(plane()->queryPoints()(0, 1), Q(0, 2));

    // Choosing the vertical dimension on the horizontal box swaps the pair.
    QComboBox *horizontal = panel()->horizontalBox();
    emit horizontal->activated(2);
    QCOMPARE(panel()->horizontalDimension(), 2);
    QCOMPARE(panel()->verticalDimension(), 0);
}

void TestPlane::pcaKeepsTheOrthogonalComponent()
{
    load(fourDimensional());
    QAbstractButton *pca = panel()->pcaButton();
    QVERIFY(pca->isEnabled());
    pca->click();
    QVERIFY(plane()->isProjection());
    QVERIFY(!panel()->horizontalBox()->isEnabled());
    settle();
    QVERIFY(plane()->caption().contains(QStringLiteral("PCA projection")));
    QVERIFY(plane()->horizontalTitle().contains(QStringLiteral("projection")));
    const Matrix U = plane()->basis().U;
    QCOMPARE(U.rows(), Eigen::Index(4));
    ATTN_COMPARE_MATRIX(U.transpose() * U, Matrix(Matrix::Identity(2, 2)), 1e-12);
    // The points drawn are the projections of the vectors.
    ATTN_COMPARE_MATRIX(plane()->keyPoints(), doc()->scenario().K * U, 1e-15);

    const Eigen::VectorXd q0 = doc()->scenario().Q.row(0).transpose();
    const QPointF from = plane()->queryPixel(0);
    drag(plane(), from, from + QPointF(40, -35));
    const Eigen::VectorXd q1 = doc()->scenario().Q.row(0).transpose();
    QVERIFY((q1 - q0).norm() > 0.05);
    const Matrix P = Matrix::Identity(4, 4) - U * U.transpose(); // onto the hidden directions
    ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(P * q1, P * q0, 0.0, 1e-12), QStringLiteral("hidden component"));
    // In the plane it moved by what the pointer moved.
    const Eigen::Vector2d moved = U.transpose() * (q1 - q0);
    const double upp = 1.0 / plane()->pixelsPerUnit(Qt::Horizontal);
    ATTN_COMPARE_NEAR(moved(0), 40 * upp, 1.5 * upp);
    ATTN_COMPARE_NEAR(moved(1), 35 * upp, 1.5 * upp);
    QCOMPARE(doc()->undoStack()->count(), 1);
    doc()->undoStack()->undo();
    QCOMPARE(Eigen::VectorXd(doc()->scenario().Q.row(0).transpose()), q0);
}

void TestPlane::keysDragOnlyWithTheToggle()
{
    open(QStringLiteral("seed000-basic"));
    const Scenario before = doc()->scenario();
    QAbstractButton *toggle = panel()->dragKeysButton();
    QVERIFY(!toggle->isChecked());
    QVERIFY(!panel()->keysDraggable());
    const QPointF k2 = plane()->keyPixel(1);
    drag(plane(), k2, k2 + QPointF(30, 30));
    QVERIFY(doc()->scenario() == before);
    QCOMPARE(doc()->undoStack()->count(), 0);

    toggle->click();
    QVERIFY(panel()->keysDraggable());
    drag(plane(), k2, k2 + QPointF(30, 30));
    const Matrix &K = doc()->scenario().K;
    QVERIFY(K(1, 0) > 0.0);
    QVERIFY(K(1, 1) < 2.0);
    QCOMPARE(K.row(0), before.K.row(0));
    QCOMPARE(doc()->scenario().Q, before.Q);
    QCOMPARE(doc()->undoStack()->count(), 1);
    QCOMPARE(doc()->undoStack()->text(0), QStringLiteral("Drag key k2"));
    // The key is now the selected vector: the arrow keys move it.
    QCOMPARE(panel()->selectedVector().role, PlaneRole::Key);
    QCOMPARE(panel()->selectedVector().index, 1);
    doc()->undoStack()->undo();
    QVERIFY(doc()->scenario() == before);
}

void TestPlane::keyboardNudgesAndUndoes()
{
    open(QStringLiteral("seed000-basic"));
    const Matrix before = doc()->scenario().Q;
    plane()->setFocus();
    QTest::keyClick(plane(), Qt::Key_Right);
    QCOMPARE(doc()->scenario().Q(0, 0), before(0, 0) + 0.1);
    QCOMPARE(doc()->scenario().Q(0, 1), before(0, 1));
    QTest::keyClick(plane(), Qt::Key_Up);
    QTest::keyClick(plane(), Qt::Key_Up);
    QCOMPARE(doc()->scenario().Q(0, 1), before(0, 1) + 0.1 + 0.1);
    QCOMPARE(doc()->undoStack()->count(), 3); // one step per key press
    QCOMPARE(doc()->undoStack()->text(0), QStringLiteral("Nudge query q"));
    for (int i = 0; i < 3; ++i)
        doc()->undoStack()->undo();
    QCOMPARE(doc()->scenario().Q, before);

    // Page Down selects the next query (seed001 has six).
    open(QStringLiteral("seed001-soft-knn"));
    QTest::keyClick(plane(), Qt::Key_PageDown);
    QCOMPARE(doc()->currentQuery(), 1);
    QTest::keyClick(plane(), Qt::Key_Left);
    QCOMPARE(doc()->scenario().Q(1, 0), 0.8 - 0.1);
}

void TestPlane::keyboardNudgeWithSnap()
{
    open(QStringLiteral("seed001-soft-knn")); // q1 = (1, 0.2)
    panel()->setSnapStep(0.5);
    QCOMPARE(panel()->nudgeStep(), 0.5);
    plane()->setFocus();
    QTest::keyClick(plane(), Qt::Key_Up); // 0.2 is off the grid: to the next grid line above, 0.5
    QCOMPARE(doc()->scenario().Q(0, 1), 0.5);
    QCOMPARE(doc()->scenario().Q(0, 0), 1.0);
    QTest::keyClick(plane(), Qt::Key_Up);
    QCOMPARE(doc()->scenario().Q(0, 1), 1.0);
    QTest::keyClick(plane(), Qt::Key_Left);
    QCOMPARE(doc()->scenario().Q(0, 0), 0.5);
    QCOMPARE(doc()->undoStack()->count(), 3);
}

void TestPlane::projectedModeMovesX()
{
    open(QStringLiteral("cross-attention")); // X 3 by 3, source 4 by 3
    const Scenario before = doc()->scenario();
    QVERIFY(plane()->caption().contains(QStringLiteral("Embeddings X")));
    QVERIFY(plane()->caption().contains(QStringLiteral("Q = X·W_Q")));
    QCOMPARE(panel()->matrixOf(PlaneRole::Query), MatrixId::X);
    QCOMPARE(panel()->matrixOf(PlaneRole::Key), MatrixId::Source);
    QCOMPARE(plane()->spaceDimension(), 3);
    // The queries drawn are rows of X (dimensions 1 and 2), the keys rows of the source.
    ATTN_COMPARE_MATRIX(plane()->queryPoints(), before.X.leftCols(2), 0.0);
    ATTN_COMPARE_MATRIX(plane()->keyPoints(), before.source->leftCols(2), 0.0);

    const QPointF from = plane()->queryPixel(0);
    drag(plane(), from, from + QPointF(-20, -45)); // left and up
    const Scenario &after = doc()->scenario();
    QVERIFY(after.X(0, 1) > before.X(0, 1));
    QCOMPARE(after.X(0, 2), before.X(0, 2));
    QCOMPARE(after.X.row(1), before.X.row(1));
    QCOMPARE(after.Wq, before.Wq);
    QCOMPARE(*after.source, *before.source);
    QVERIFY(doc()->trace().heads[0].Q.row(0) != compute(before).heads[0].Q.row(0));
    QCOMPARE(doc()->undoStack()->text(0), QStringLiteral("Drag embedding 我"));

    // Self-attention: the keys are the rows of X too.
    open(QStringLiteral("multihead"));
    QCOMPARE(panel()->matrixOf(PlaneRole::Key), MatrixId::X);
    QVERIFY(plane()->caption().contains(QStringLiteral("each row of X is a query and a key")));
}

void TestPlane::encodingShowsRawInputs()
{
    Scenario s = lesson(QStringLiteral("seed001-soft-knn"));
    s.encoding = Encoding::Sinusoidal;
    load(s);
    QVERIFY(plane()->caption().contains(QStringLiteral("added after")));
    QCOMPARE(plane()->queryPoints(), s.Q); // raw, not Q + P
    QVERIFY(doc()->trace().Q != s.Q);
    const QPointF from = plane()->queryPixel(0);
    drag(plane(), from, from + QPointF(0, -40));
    QVERIFY(doc()->scenario().Q(0, 1) > 0.2);
    QCOMPARE(doc()->scenario().Q(0, 0), 1.0);

    s.encoding = Encoding::Rope;
    load(s);
    QVERIFY(plane()->caption().contains(QStringLiteral("RoPE")));
}

void TestPlane::followsTheSelectedHead()
{
    open(QStringLiteral("multihead"));
    QVERIFY(!doc()->edit(toDirect(doc()->scenario()), QStringLiteral("direct")));
    QCOMPARE(doc()->scenario().heads, 2);
    doc()->setCurrentHead(1);
    settle();
    const Scenario &s = doc()->scenario();
    QCOMPARE(plane()->spaceDimension(), 2);
    QCOMPARE(plane()->keyPoints(), Matrix(s.K.middleCols(2, 2)));
    QCOMPARE(plane()->queryPoints(), Matrix(s.Q.middleCols(2, 2)));
    QCOMPARE(plane()->keyWeights(), Eigen::VectorXd(doc()->trace().heads[1].weights.row(0).transpose()));
    QVERIFY(plane()->caption().contains(QStringLiteral("head 2 of 2")));

    // A drag in head 2 moves head 2's columns only.
    const Matrix before = s.Q;
    const QPointF from = plane()->queryPixel(0);
    drag(plane(), from, from + QPointF(25, 25));
    const Matrix &Q = doc()->scenario().Q;
    QCOMPARE(Q.leftCols(2), before.leftCols(2));
    QVERIFY(Q.middleCols(2, 2) != before.middleCols(2, 2));

    doc()->setCurrentHead(0);
    QCOMPARE(plane()->keyPoints(), Matrix(doc()->scenario().K.leftCols(2)));
}

void TestPlane::escapeCancelsTheDrag()
{
    open(QStringLiteral("seed001-soft-knn"));
    const Scenario before = doc()->scenario();
    const QPointF from = plane()->queryPixel(0);
    drag(plane(), from, from + QPointF(-80, 50), 8, false);
    QVERIFY(doc()->scenario().Q != before.Q);
    QTest::keyClick(plane(), Qt::Key_Escape);
    QVERIFY(!panel()->isDragging());
    QVERIFY(doc()->scenario() == before);
    // The rest of the gesture does nothing.
    QTest::mouseMove(plane(), px(from + QPointF(-20, 20)));
    QTest::mouseRelease(plane(), Qt::LeftButton, {}, px(from + QPointF(-20, 20)));
    QVERIFY(doc()->scenario() == before);
    QCOMPARE(doc()->undoStack()->count(), 0);
    QVERIFY(!doc()->inGesture());
    QCOMPARE(m_window->stageView(Stage::Weights)->data().values, compute(before).heads[0].weights);
}

void TestPlane::refusedLiveEditChangesNothing()
{
    open(QStringLiteral("seed000-basic"));
    const Scenario before = doc()->scenario();
    QSignalSpy problems(doc(), &Document::problemReported);
    plane()->zoomBy(1e15); // a pixel is now 1e9 units or more: a short drag leaves the allowed range
    settle();
    const QPointF from = plane()->queryPixel(0);
    ATTN_CHECK(plane()->handleAt(from).isValid(), QStringLiteral("no handle at the query"));
    drag(plane(), from, from + QPointF(3000, 0), 1); // one move, far beyond 1e12
    QVERIFY(problems.count() > 0);
    QVERIFY(doc()->scenario() == before);
    QCOMPARE(doc()->undoStack()->count(), 0);
    QVERIFY(!doc()->inGesture());

    // Mid-gesture: a refused move leaves the last accepted step on screen.
    drag(plane(), from, from + QPointF(100, 0), 1, false);
    QVERIFY(doc()->inGesture());
    const Scenario accepted = doc()->scenario();
    QVERIFY(accepted.Q(0, 0) > 1e10);
    const Matrix weights = m_window->stageView(Stage::Weights)->data().values;
    QTest::mouseMove(plane(), px(from + QPointF(3000, 0)));
    QVERIFY(doc()->scenario() == accepted);
    QCOMPARE(m_window->stageView(Stage::Weights)->data().values, weights);
    QTest::mouseRelease(plane(), Qt::LeftButton, {}, px(from + QPointF(3000, 0)));
    QCOMPARE(doc()->undoStack()->count(), 1);
    doc()->undoStack()->undo();
    QVERIFY(doc()->scenario() == before);
    ATTN_VERIFY_NO_MISMATCH(test::nonFinite(plane()->queryPoints()), QStringLiteral("queries"));
}

void TestPlane::clickSelectsAQuery()
{
    open(QStringLiteral("seed001-soft-knn"));
    QCOMPARE(doc()->currentQuery(), 0);
    QTest::mouseClick(plane(), Qt::LeftButton, {}, px(plane()->queryPixel(3)));
    QCOMPARE(doc()->currentQuery(), 3);
    QCOMPARE(doc()->undoStack()->count(), 0); // a click is not an edit
    QCOMPARE(plane()->keyWeights(), Eigen::VectorXd(doc()->trace().heads[0].weights.row(3).transpose()));
    QVERIFY(plane()->caption().contains(QStringLiteral("query t4")));
    QVERIFY(plane()->hasFocus());
}

void TestPlane::outputIsTheWeightedAverage()
{
    open(QStringLiteral("seed001-soft-knn"));
    const auto out = plane()->outputPoint();
    QVERIFY(out.has_value());
    QCOMPARE(plane()->valuePoints().rows(), Eigen::Index(6));
    const Eigen::Vector2d average = plane()->valuePoints().transpose() * plane()->keyWeights();
    ATTN_COMPARE_NEAR((*out)(0), average(0), 1e-12);
    ATTN_COMPARE_NEAR((*out)(1), average(1), 1e-12);
    ATTN_COMPARE_NEAR((*out)(0), 0.3628, 5e-5); // the output map's first row
    // d_v = 3 has no value points or output arrow, and the legend says so.
    open(QStringLiteral("seed000-basic"));
    QCOMPARE(plane()->valuePoints().rows(), Eigen::Index(0));
    QVERIFY(!plane()->outputPoint());
}

void TestPlane::blockedKeysAreMarked()
{
    Scenario s = lesson(QStringLiteral("seed001-soft-knn"));
    s.mask.causal = true;
    load(s);
    doc()->setCurrentQuery(1);
    const Eigen::VectorXd w = plane()->keyWeights();
    QCOMPARE(w(2), 0.0);
    QVERIFY(w(0) > 0 && w(1) > 0);
    // A fully masked row (after-softmax mistake aside) says so in the caption.
    s.mask.causal = false;
    s.mask.keyPadding = BoolVector::Constant(6, true);
    load(s);
    QVERIFY(plane()->caption().contains(QStringLiteral("Every key is blocked")));
    QVERIFY(plane()->outputPoint().has_value());
    QCOMPARE((*plane()->outputPoint())(0), 0.0);
}

void TestPlane::nothingNaNForEveryLesson()
{
    for (const QString &name : lessonIndex()) {
        for (bool pca : {false, true}) {
            open(name);
            panel()->setPrincipalProjection(pca);
            for (int q = 0; q < queryCount(doc()->scenario()); ++q) {
                doc()->setCurrentQuery(q);
                settle();
                const QString where = name + (pca ? QStringLiteral(" (PCA)") : QString()) + QStringLiteral(" query %1").arg(q);
                ATTN_CHECK(finite(plane()->queryPoints()) && finite(plane()->keyPoints()) && finite(plane()->valuePoints())
                               && plane()->keyWeights().allFinite(),
                           where);
                QCOMPARE(plane()->queryPoints().rows(), Eigen::Index(queryCount(doc()->scenario())));
                QCOMPARE(plane()->keyPoints().rows(), Eigen::Index(keyCount(doc()->scenario())));
                if (plane()->outputPoint())
                    ATTN_CHECK(plane()->outputPoint()->allFinite(), where);
                const QPointF p = plane()->queryPixel(q);
                ATTN_CHECK(std::isfinite(p.x()) && std::isfinite(p.y()), where);
                ATTN_CHECK(std::isfinite(plane()->xAxis->range().size()) && plane()->xAxis->range().size() > 0, where);
                ATTN_CHECK(!plane()->caption().contains(QStringLiteral("nan"), Qt::CaseInsensitive), where);
                ATTN_CHECK(plane()->rect().contains(px(p)) || !plane()->axisRect()->rect().contains(px(p)), where);
            }
            // After a fit every vector is inside the plot.
            plane()->fit();
            settle();
            for (int i = 0; i < plane()->queryPoints().rows(); ++i)
                ATTN_CHECK(plane()->axisRect()->rect().contains(px(plane()->queryPixel(i))), name);
            for (int j = 0; j < plane()->keyPoints().rows(); ++j)
                ATTN_CHECK(plane()->axisRect()->rect().contains(px(plane()->keyPixel(j))), name);
        }
    }
}

void TestPlane::oneDimensionDrawsOnALine()
{
    Scenario s;
    s.tokens = {"a", "b"};
    s.Q = Matrix{{1}, {-0.5}};
    s.K = Matrix{{1}, {-1}};
    s.V = Matrix{{1, 0}, {0, 1}};
    load(s);
    QCOMPARE(plane()->spaceDimension(), 1);
    QVERIFY(plane()->caption().contains(QStringLiteral("line")));
    QCOMPARE(plane()->keyPoints(), Matrix(Matrix{{1, 0}, {-1, 0}}));
    QVERIFY(!panel()->pcaButton()->isEnabled());
    const QPointF from = plane()->queryPixel(0);
    drag(plane(), from, from + QPointF(-30, -50));
    QVERIFY(doc()->scenario().Q(0, 0) < 1.0);
    QCOMPARE(plane()->queryPoints()(0, 1), 0.0);
    QCOMPARE(doc()->undoStack()->count(), 1);
}

void TestPlane::aspectStaysOneToOne()
{
    open(QStringLiteral("seed001-soft-knn"));
    auto check = [this](const QString &when) {
        settle();
        const double x = plane()->pixelsPerUnit(Qt::Horizontal), y = plane()->pixelsPerUnit(Qt::Vertical);
        ATTN_CHECK(x > 1 && std::abs(x - y) <= 1.0, QStringLiteral("%1: %2 vs %3 pixels per unit").arg(when).arg(x).arg(y));
    };
    check(QStringLiteral("start"));
    for (QSize size : {QSize(1200, 800), QSize(1600, 700), QSize(1000, 1000), QSize(1600, 1000)}) {
        m_window->resize(size);
        QCoreApplication::processEvents();
        check(QStringLiteral("%1x%2").arg(size.width()).arg(size.height()));
    }
    plane()->resize(500, 200); // a wide plot
    check(QStringLiteral("wide"));
    plane()->resize(200, 500); // a tall one
    check(QStringLiteral("tall"));
    plane()->zoomBy(0.37);
    check(QStringLiteral("zoom"));
    plane()->fit();
    check(QStringLiteral("fit"));
}

void TestPlane::panAndZoomKeepTheData()
{
    open(QStringLiteral("seed001-soft-knn"));
    const Scenario before = doc()->scenario();
    const QCPRange x0 = plane()->xAxis->range();
    const QPoint c = plane()->axisRect()->rect().center();
    // Right-drag pans.
    QTest::mousePress(plane(), Qt::RightButton, {}, c);
    QTest::mouseMove(plane(), c + QPoint(40, 0));
    QTest::mouseRelease(plane(), Qt::RightButton, {}, c + QPoint(40, 0));
    settle();
    const double upp = 1.0 / plane()->pixelsPerUnit(Qt::Horizontal);
    ATTN_COMPARE_NEAR(plane()->xAxis->range().center(), x0.center() - 40 * upp, 1e-9);
    // The wheel zooms in around the pointer.
    const double ppu0 = plane()->pixelsPerUnit(Qt::Horizontal);
    QWheelEvent wheel(QPointF(c), plane()->mapToGlobal(QPointF(c)), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(plane(), &wheel);
    settle();
    QVERIFY(plane()->pixelsPerUnit(Qt::Horizontal) > ppu0 * 1.3);
    ATTN_COMPARE_NEAR(plane()->pixelsPerUnit(Qt::Horizontal), plane()->pixelsPerUnit(Qt::Vertical), 1e-6);
    QVERIFY(doc()->scenario() == before);
    QCOMPARE(doc()->undoStack()->count(), 0);
    // Fit frames every vector again.
    panel()->fitButton()->click();
    settle();
    for (int j = 0; j < plane()->keyPoints().rows(); ++j)
        QVERIFY(plane()->axisRect()->rect().contains(px(plane()->keyPixel(j))));
}

void TestPlane::fontsFollowTheZoom()
{
    open(QStringLiteral("seed001-soft-knn"));
    const double before = plane()->xAxis->tickLabelFont().pointSizeF();
    QVERIFY(before > 0);
    m_window->setZoom(1.5);
    QCoreApplication::processEvents();
    ATTN_COMPARE_NEAR(plane()->xAxis->tickLabelFont().pointSizeF() / before, 1.5, 0.02);
    ATTN_COMPARE_NEAR(plane()->xAxis->labelFont().pointSizeF() / before, 1.5, 0.02);
    // A long caption in a small plot gives way to the drawing, not the reverse.
    open(QStringLiteral("multihead"));
    plane()->resize(330, 300);
    settle();
    const int drawing = plane()->axisRect()->rect().height();
    ATTN_CHECK(drawing >= int(0.45 * plane()->height()),
               QStringLiteral("the plot is %1 of %2 pixels high").arg(drawing).arg(plane()->height()));
    QVERIFY(plane()->caption().contains(QStringLiteral("Embeddings X"))); // the whole caption is still known
    m_window->setZoom(1.0);
}

void TestPlane::exportShowsThePlane()
{
    open(QStringLiteral("seed001-soft-knn"));
    const QImage image = plane()->toPixmap(600, 500).toImage();
    QCOMPARE(image.size(), QSize(600, 500));
    // The keys' blue and the query's vermillion are in the picture.
    int blue = 0, vermillion = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (c.blue() > 150 && c.red() < 60 && c.green() > 90 && c.green() < 140)
                ++blue;
            if (c.red() > 200 && c.green() > 70 && c.green() < 110 && c.blue() < 30)
                ++vermillion;
        }
    ATTN_CHECK(blue > 100 && vermillion > 50, QStringLiteral("blue %1, vermillion %2").arg(blue).arg(vermillion));
    // The export does not disturb the screen's 1:1 scale.
    settle();
    ATTN_COMPARE_NEAR(plane()->pixelsPerUnit(Qt::Horizontal), plane()->pixelsPerUnit(Qt::Vertical), 1e-6);
}

void TestPlane::hoverLinksTheMaps()
{
    open(QStringLiteral("seed000-basic"));
    const QPointF k3 = plane()->keyPixel(2);
    QMouseEvent move(QEvent::MouseMove, k3, plane()->mapToGlobal(k3), Qt::NoButton, {}, {});
    QApplication::sendEvent(plane(), &move);
    QCOMPARE(doc()->hoveredRow(), 0);
    QCOMPARE(doc()->hoveredColumn(), 2);
    QCOMPARE(m_window->stageView(Stage::Weights)->highlightColumn(), 2);
    QCOMPARE(plane()->cursor().shape(), Qt::ArrowCursor); // keys are not draggable: no hand
    const QPointF empty = plane()->pixelAt(Eigen::Vector2d(-0.5, 1.5));
    QMouseEvent away(QEvent::MouseMove, empty, plane()->mapToGlobal(empty), Qt::NoButton, {}, {});
    QApplication::sendEvent(plane(), &away);
    QCOMPARE(doc()->hoveredColumn(), -1);
    const QPointF q = plane()->queryPixel(0);
    QMouseEvent onQuery(QEvent::MouseMove, q, plane()->mapToGlobal(q), Qt::NoButton, {}, {});
    QApplication::sendEvent(plane(), &onQuery);
    QCOMPARE(plane()->cursor().shape(), Qt::OpenHandCursor);
}

void TestPlane::toolTipGivesTheWeight()
{
    open(QStringLiteral("seed000-basic"));
    panel()->setKeysDraggable(true);
    settle();
    const QPoint k2 = px(plane()->keyPixel(1));
    QHelpEvent help(QEvent::ToolTip, k2, plane()->mapToGlobal(k2));
    QApplication::sendEvent(plane(), &help);
    const QString text = QToolTip::text();
    ATTN_CHECK(text.contains(QStringLiteral("key k2 at (0, 2)")) && text.contains(QStringLiteral("weight for query q: 0.0454")),
               text);
    QToolTip::hideText();
}

void TestPlane::windowOfItsOwnEditsTheSameDocument()
{
    open(QStringLiteral("seed001-soft-knn"));
    panel()->setSnapStep(0.5);
    PlanePanel *own = panel()->openWindow();
    QVERIFY(own && own->isWindow() && own->isVisible());
    QVERIFY(QTest::qWaitForWindowExposed(own));
    QCOMPARE(own->snapStep(), 0.5);
    QVERIFY(!own->windowButton()->isVisible());
    own->plane()->replot();
    const QPointF from = own->plane()->queryPixel(0);
    drag(own->plane(), from, from + QPointF(-120, 90));
    QCOMPARE(doc()->undoStack()->count(), 1);
    const Matrix &Q = doc()->scenario().Q;
    QCOMPARE(Q(0, 0), std::round(Q(0, 0) * 2) / 2); // its snap setting
    QVERIFY(Q(0, 0) < 1.0);
    // The window's plane and the tab's show the same.
    QCOMPARE(plane()->queryPoints(), own->plane()->queryPoints());
    QCOMPARE(plane()->keyWeights(), own->plane()->keyWeights());
    QPointer<PlanePanel> guard(own);
    own->close();
    QTRY_VERIFY(guard.isNull()); // deleted on close
}

// Every kind of scene draws a picture: vectors in their colours, not an
// empty frame (and, with ATTN_PLANE_SHOTS, the pictures to look at).
void TestPlane::everySceneIsDrawn()
{
    QTemporaryDir temporary;
    const QString dir = qEnvironmentVariableIsSet("ATTN_PLANE_SHOTS") ? qEnvironmentVariable("ATTN_PLANE_SHOTS")
                                                                       : temporary.path();
    QVERIFY(QDir().mkpath(dir));
    // The query's orange and the keys' blue, each in a few pixels at least.
    auto drawn = [](const QImage &image, const QString &name) {
        QVERIFY2(!image.isNull(), qPrintable(name));
        int orange = 0, blue = 0;
        for (int y = 0; y < image.height(); y += 2)
            for (int x = 0; x < image.width(); x += 2) {
                const QColor c = image.pixelColor(x, y);
                orange += c.red() > 180 && c.green() > 60 && c.green() < 140 && c.blue() < 60;
                blue += c.blue() > 120 && c.red() < 80 && c.green() > 80 && c.green() < 170;
            }
        QVERIFY2(orange >= 5 && blue >= 5, qPrintable(QStringLiteral("%1: %2 orange and %3 blue pixels").arg(name).arg(orange).arg(blue)));
    };
    auto shoot = [&](const QString &name) {
        settle();
        const QImage image = panel()->grab().toImage();
        drawn(image, name);
        QVERIFY(image.save(QDir(dir).filePath(name + QStringLiteral("-panel.png"))));
    };
    // The plane alone, larger, and the window.
    open(QStringLiteral("seed001-soft-knn"));
    shoot(QStringLiteral("seed001"));
    QVERIFY(m_window->grab().save(QDir(dir).filePath(QStringLiteral("seed001-window.png"))));
    QVERIFY(plane()->savePng(QDir(dir).filePath(QStringLiteral("seed001-export.png")), 700, 600));
    open(QStringLiteral("seed000-basic"));
    shoot(QStringLiteral("seed000"));
    open(QStringLiteral("multihead"));
    shoot(QStringLiteral("multihead-projected"));
    doc()->edit(toDirect(doc()->scenario()), QStringLiteral("direct"));
    doc()->setCurrentHead(1);
    shoot(QStringLiteral("multihead-direct-head2"));
    load(fourDimensional());
    panel()->setPrincipalProjection(true);
    shoot(QStringLiteral("pca"));
    Scenario causal = lesson(QStringLiteral("seed001-soft-knn"));
    causal.mask.causal = true;
    load(causal);
    doc()->setCurrentQuery(2);
    shoot(QStringLiteral("seed001-causal"));
    open(QStringLiteral("cross-attention"));
    shoot(QStringLiteral("cross"));
    panel()->setPrincipalProjection(false);
    Scenario line;
    line.tokens = {"a", "b", "c"};
    line.Q = Matrix{{1}, {-0.5}, {0.25}};
    line.K = Matrix{{1}, {-1}, {0.5}};
    line.V = Matrix{{1, 0}, {0, 1}, {1, 1}};
    load(line);
    shoot(QStringLiteral("line"));
    // Forty tokens around a circle: only the heaviest keys are named.
    Scenario many;
    const int n = 40;
    many.Q = Matrix(n, 2);
    for (int i = 0; i < n; ++i) {
        const double a = 2 * 3.14159265358979 * i / n, r = 1 + 0.3 * std::sin(3 * a);
        many.Q.row(i) << r * std::cos(a), r * std::sin(a);
        many.tokens.push_back(QStringLiteral("w%1").arg(i + 1).toStdString());
    }
    many.K = many.Q;
    many.V = many.Q;
    many.temperature = 0.3;
    load(many);
    shoot(QStringLiteral("many"));
    m_window->setZoom(1.5);
    open(QStringLiteral("seed001-soft-knn"));
    shoot(QStringLiteral("seed001-zoom15"));
    PlanePanel *own = panel()->openWindow();
    QVERIFY(QTest::qWaitForWindowExposed(own));
    own->resize(1000, 800);
    for (int i = 0; i < 4; ++i)
        QCoreApplication::processEvents();
    own->plane()->replot();
    const QImage ownImage = own->grab().toImage();
    drawn(ownImage, QStringLiteral("own window"));
    QVERIFY(ownImage.save(QDir(dir).filePath(QStringLiteral("seed001-zoom15-own-window.png"))));
    own->close();
    QVERIFY(m_window->grab().save(QDir(dir).filePath(QStringLiteral("seed001-zoom15-window.png"))));
    m_window->setZoom(1.0);
}

QTEST_MAIN(TestPlane)
#include "test_plane.moc"
