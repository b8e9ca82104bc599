// The plane's drag tool and plot without a main window: a
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

#include <functional>
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
    // A plane that tells the truth.
    void crowdedLabelsDoNotOverlap();
    void guidesAreDrawnForEachSimilarity();
    void warningAndShareOverThePlot();

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

namespace {

// Pixels along a piece of a curve in plane coordinates that are drawn on
// (not white), at 16 points between t0 and t1.
int drawnAlong(PlanePlot *plot, const QImage &image, const std::function<Eigen::Vector2d(double)> &curve, double t0,
               double t1)
{
    int hits = 0;
    const double dpr = image.devicePixelRatio();
    for (int i = 0; i < 16; ++i) {
        const QPointF p = plot->pixelAt(curve(t0 + (t1 - t0) * i / 15.0)) * dpr;
        bool drawn = false;
        for (int dx = -1; dx <= 1 && !drawn; ++dx)
            for (int dy = -1; dy <= 1 && !drawn; ++dy) {
                const QColor c = image.pixelColor(int(p.x()) + dx, int(p.y()) + dy);
                drawn = c.red() < 225 || c.green() < 225 || c.blue() < 225;
            }
        hits += drawn ? 1 : 0;
    }
    return hits;
}

} // namespace

void TestPlaneTool::crowdedLabelsDoNotOverlap()
{
    // One query among ten keys packed into a small patch: each key's label
    // finds a place of its own, clear of the others and of every weight disc.
    Scenario s;
    s.tokens = {"q"};
    s.sourceTokens.clear();
    Matrix K(10, 2);
    for (int j = 0; j < 10; ++j) {
        s.sourceTokens.push_back("key" + std::to_string(j + 1));
        K.row(j) << 1.0 + 0.06 * (j % 5), 1.0 + 0.07 * (j / 5) + 0.01 * j;
    }
    s.Q = Matrix{{1.1, 0.95}};
    s.K = K;
    s.V = Matrix::Identity(10, 3);
    load(s);
    const std::vector<PlaneLabel> &labels = plot()->placedLabels();
    QVERIFY2(labels.size() >= 11, qPrintable(QString::number(labels.size()))); // the query and ten keys
    const QRectF area = plot()->axisRect()->rect();
    for (std::size_t a = 0; a < labels.size(); ++a) {
        const QRectF &r = labels[a].rect;
        QVERIFY2(area.adjusted(-1, -1, 1, 1).contains(r), qPrintable(labels[a].text));
        for (std::size_t b = a + 1; b < labels.size(); ++b) {
            const QRectF both = r.intersected(labels[b].rect);
            QVERIFY2(both.isEmpty() || both.width() * both.height() < 1.0,
                     qPrintable(labels[a].text + QStringLiteral(" over ") + labels[b].text));
        }
        for (int j = 0; j < 10; ++j) {
            if (plot()->keyWeights()(j) < 0.005)
                continue;
            const QPointF c = plot()->keyPixel(j);
            const QPointF nearest(std::clamp(c.x(), r.left(), r.right()), std::clamp(c.y(), r.top(), r.bottom()));
            const double gap = std::hypot(nearest.x() - c.x(), nearest.y() - c.y());
            QVERIFY2(gap >= plot()->keyDiscRadius(j) - 1.0,
                     qPrintable(labels[a].text + QStringLiteral(" over the disc of key %1 (gap %2, radius %3)")
                                    .arg(j + 1)
                                    .arg(gap)
                                    .arg(plot()->keyDiscRadius(j))));
        }
    }
    // Crowded: some labels had to move away and got a leader line.
    QVERIFY(std::any_of(labels.begin(), labels.end(), [](const PlaneLabel &l) { return l.leader; }));
}

void TestPlaneTool::guidesAreDrawnForEachSimilarity()
{
    Scenario s = lesson(QStringLiteral("seed001-soft-knn"));
    auto image = [&](Similarity sim, int query) {
        s.similarity = sim;
        load(s);
        m_doc->setCurrentQuery(query);
        settle();
        return plot()->grab().toImage();
    };
    // Cosine: the unit circle, between k5 and k6 (angles −135° … −125°).
    auto unit = [](double t) { return Eigen::Vector2d(std::cos(t), std::sin(t)); };
    const double a0 = -135 * M_PI / 180, a1 = -125 * M_PI / 180;
    QImage cosine = image(Similarity::Cosine, 0);
    QVERIFY(!m_panel->scene().circles.empty());
    const int onCircle = drawnAlong(plot(), cosine, unit, a0, a1);
    QImage dot = image(Similarity::Dot, 0);
    QVERIFY2(onCircle >= 12 && drawnAlong(plot(), dot, unit, a0, a1) <= 2,
             qPrintable(QStringLiteral("unit circle: %1 of 16 drawn").arg(onCircle)));

    // −‖q − k‖², query t1 = (1, 0.2): the circle through k2 (radius √0.2) below q.
    const Eigen::Vector2d q1(1, 0.2);
    const double r = std::sqrt(0.2);
    auto around = [&](double t) { return Eigen::Vector2d(q1 + r * Eigen::Vector2d(std::cos(t), std::sin(t))); };
    QImage distance = image(Similarity::NegSqDistance, 0);
    const int onDistance = drawnAlong(plot(), distance, around, -1.9, -1.2);
    QVERIFY2(onDistance >= 8, qPrintable(QStringLiteral("distance circle: %1 of 16 drawn").arg(onDistance)));
    QVERIFY(drawnAlong(plot(), dot, around, -1.9, -1.2) <= 2);

    // Dot, query t3 = (0.1, 1): its line, continued behind the origin.
    const Eigen::Vector2d dir = Eigen::Vector2d(0.1, 1).normalized();
    auto line = [&](double t) { return Eigen::Vector2d(dir * t); };
    dot = image(Similarity::Dot, 2);
    const int onLine = drawnAlong(plot(), dot, line, -0.7, -0.35);
    QVERIFY2(onLine >= 8, qPrintable(QStringLiteral("query line: %1 of 16 drawn").arg(onLine)));
    QVERIFY(drawnAlong(plot(), image(Similarity::Cosine, 2), line, -0.7, -0.35) <= 2);
}

void TestPlaneTool::warningAndShareOverThePlot()
{
    // The misleading case of the scene test: a (the top key) points away on dimensions 1 and 2.
    Scenario s;
    s.tokens = {"q"};
    s.sourceTokens = {"a", "b"};
    s.Q = Matrix{{1, 0, 3}};
    s.K = Matrix{{-0.5, 0, 3}, {1, 0, 0}};
    s.V = Matrix{{1, 0}, {0, 1}};
    load(s);
    QVERIFY2(plot()->warningText().contains(QStringLiteral("points away")), qPrintable(plot()->warningText()));
    QVERIFY(!plot()->shownBadge().isEmpty());
    // The badge is clear of every label.
    for (const PlaneLabel &l : plot()->placedLabels())
        QVERIFY2(!l.rect.intersects(plot()->shownBadge()), qPrintable(l.text));
    // In red over the plot: some red pixels between the note and the axes.
    const QImage image = plot()->grab().toImage();
    const double dpr = image.devicePixelRatio();
    int red = 0;
    for (int y = 0; y < int(plot()->axisRect()->rect().top() * dpr); ++y)
        for (int x = 0; x < image.width(); x += 2) {
            const QColor c = image.pixelColor(x, y);
            red += c.red() > 140 && c.green() < 90 && c.blue() < 110 ? 1 : 0;
        }
    QVERIFY2(red > 20, qPrintable(QString::number(red)));
    m_panel->setDimensions(0, 2);
    settle();
    QVERIFY(plot()->warningText().isEmpty());
}

QTEST_MAIN(TestPlaneTool)
#include "test_planetool.moc"
