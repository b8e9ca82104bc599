// Sweeps and hard attention: the τ grid's entropy and largest
// weight against values worked by hand, top-k and hard k-NN, the query's
// turn in a plane; and the sweep panel's preview: started and stopped, the
// document is exactly as it was (the scenario, the undo stack); kept, it is
// one undo step; the curves and the τ marker are drawn.

#include "attn_test.h"
#include "lesson_test.h"

#include "document.h"
#include "heatmapplot.h"
#include "stagedata.h"
#include "sweep.h"
#include "sweepclock.h"
#include "sweeppanel.h"
#include "sweeppreview.h"
#include "stageviews.h"
#include "topkpanel.h"

#include <QApplication>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>

using namespace attn;
using attn::test::lesson;

namespace {

// One query, three keys: scores [4, 0, 2] (the handout's row), c = 1.
Matrix handScores()
{
    return Matrix{{4, 0, 2}};
}

// Pixels of `color` (within a small tolerance) in column x of the image, between y0 and y1.
int pixelsOfColor(const QImage &image, int x, int y0, int y1, const QColor &color)
{
    int n = 0;
    for (int y = std::max(0, y0); y < std::min(image.height(), y1); ++y) {
        const QColor c = image.pixelColor(x, y);
        if (std::abs(c.red() - color.red()) < 40 && std::abs(c.green() - color.green()) < 40
            && std::abs(c.blue() - color.blue()) < 40)
            ++n;
    }
    return n;
}

} // namespace

class TestSweep : public QObject {
    Q_OBJECT

private slots:
    void logGridEndsExactly();
    void entropyAndMaxWeightByHand();
    void lowTauOneHotHighTauUniform();
    void blockedKeysLowerTheCeiling();
    void scenarioCurvesMatchTheForwardPass();
    void topKByHand();
    void topKTiesMasksAndFullyMaskedRows();
    void rotateInPlaneKeepsTheHiddenPart();

    void clockBouncesAndLoops();
    void stoppedSweepLeavesTheDocumentAsItWas();
    void keptSweepIsOneUndoStep();
    void turnOfTheQueryAndStop();
    void editFromElsewhereKeepsThePreview();
    void undoMidSweepCancelsIt();
    void curvesAndMarkerAreDrawn();
    void longSequenceDrawsASample();
    void topKPanelShowsHardAttention();
    void panelsStayNarrowAtProjectorZoom();

    // Choosing the query by clicking the maps.
    void rowLabelClickSelectsTheQuery();
    void plainClickSelectsCtrlClickBlocks();
};

void TestSweep::logGridEndsExactly()
{
    const std::vector<double> g = logGrid(0.05, 20, 61);
    QCOMPARE(int(g.size()), 61);
    QCOMPARE(g.front(), 0.05);
    QCOMPARE(g.back(), 20.0);
    const double ratio = std::pow(20 / 0.05, 1.0 / 60);
    for (std::size_t i = 1; i < g.size(); ++i)
        ATTN_COMPARE_NEAR(g[i] / g[i - 1], ratio, 1e-12);
    QCOMPARE(int(logGrid(1, 2, 1).size()), 1);
    QVERIFY(logGrid(1, 2, 0).empty());
}

void TestSweep::entropyAndMaxWeightByHand()
{
    // softmax([4, 0, 2] / τ), worked with Python's math module:
    //   τ = 1:   w = (0.86681, 0.01588, 0.11731), H = 0.441057, max = 0.866813
    //   τ = 0.5: H = 0.093035, max = 0.981690
    //   τ = 2:   H = 0.832396, max = 0.665241
    const TemperatureCurves c = temperatureCurves(handScores(), BoolMatrix(), MaskStage::BeforeSoftmax, 1.0, {1.0, 0.5, 2.0});
    QCOMPARE(c.entropy.rows(), Eigen::Index(3));
    QCOMPARE(c.entropy.cols(), Eigen::Index(1));
    ATTN_COMPARE_NEAR(c.entropy(0, 0), 0.44105744405816344, 1e-12);
    ATTN_COMPARE_NEAR(c.maxWeight(0, 0), 0.8668133321973347, 1e-12);
    ATTN_COMPARE_NEAR(c.entropy(1, 0), 0.09303501304849474, 1e-12);
    ATTN_COMPARE_NEAR(c.maxWeight(1, 0), 0.9816903928255046, 1e-12);
    ATTN_COMPARE_NEAR(c.entropy(2, 0), 0.8323955818399389, 1e-12);
    ATTN_COMPARE_NEAR(c.maxWeight(2, 0), 0.6652409557748218, 1e-12);
    ATTN_COMPARE_NEAR(c.uniformEntropy(0), std::log(3.0), 1e-15);
    // The scale constant divides like τ: c = 2 at τ = 0.5 is τ = 1.
    const TemperatureCurves c2 = temperatureCurves(handScores(), BoolMatrix(), MaskStage::BeforeSoftmax, 2.0, {0.5});
    ATTN_COMPARE_NEAR(c2.entropy(0, 0), 0.44105744405816344, 1e-12);
}

void TestSweep::lowTauOneHotHighTauUniform()
{
    const TemperatureCurves c = temperatureCurves(handScores(), BoolMatrix(), MaskStage::BeforeSoftmax, 1.0, {0.01, 1e6});
    // τ → 0 with a unique largest score: one-hot, entropy 0.
    QVERIFY2(c.entropy(0, 0) < 1e-12, qPrintable(attn::test::num(c.entropy(0, 0))));
    ATTN_COMPARE_NEAR(c.maxWeight(0, 0), 1.0, 1e-12);
    // τ large: uniform, entropy ln n, largest weight 1/n.
    ATTN_COMPARE_NEAR(c.entropy(1, 0), std::log(3.0), 1e-9);
    ATTN_COMPARE_NEAR(c.maxWeight(1, 0), 1.0 / 3.0, 1e-6);
    // Along the sweep's own grid the entropy only grows with τ.
    const TemperatureCurves g = temperatureCurves(handScores(), BoolMatrix(), MaskStage::BeforeSoftmax, 1.0,
                                                  logGrid(kSweepMinTemperature, kSweepMaxTemperature, 61));
    for (Eigen::Index t = 1; t < g.entropy.rows(); ++t) {
        QVERIFY(g.entropy(t, 0) >= g.entropy(t - 1, 0));
        QVERIFY(g.maxWeight(t, 0) <= g.maxWeight(t - 1, 0));
    }
}

void TestSweep::blockedKeysLowerTheCeiling()
{
    BoolMatrix blocked(2, 3);
    blocked << false, true, false, true, true, true;
    const Matrix scores{{4, 0, 2}, {1, 2, 3}};
    const TemperatureCurves c = temperatureCurves(scores, blocked, MaskStage::BeforeSoftmax, 1.0, {1.0, 1e6});
    ATTN_COMPARE_NEAR(c.uniformEntropy(0), std::log(2.0), 1e-15);
    QCOMPARE(c.uniformEntropy(1), 0.0); // fully masked
    // Two open keys [4, 2]: w = 1 / (1 + e^-2) = 0.880797.
    ATTN_COMPARE_NEAR(c.maxWeight(0, 0), 1.0 / (1.0 + std::exp(-2.0)), 1e-12);
    ATTN_COMPARE_NEAR(c.entropy(1, 0), std::log(2.0), 1e-9);
    QCOMPARE(c.entropy(0, 1), 0.0);
    QCOMPARE(c.maxWeight(0, 1), 0.0);
}

void TestSweep::scenarioCurvesMatchTheForwardPass()
{
    Scenario s = lesson(QStringLiteral("seed001-soft-knn"));
    const std::vector<double> taus{0.05, 0.3, 1.0, 7.0};
    const TemperatureCurves c = temperatureCurves(s, 0, taus);
    for (std::size_t t = 0; t < taus.size(); ++t) {
        s.temperature = taus[t];
        const Trace tr = compute(s);
        for (int i = 0; i < queryCount(s); ++i) {
            ATTN_COMPARE_NEAR(c.entropy(Eigen::Index(t), i), tr.heads[0].rows[std::size_t(i)].entropy, 1e-12);
            ATTN_COMPARE_NEAR(c.maxWeight(Eigen::Index(t), i), tr.heads[0].rows[std::size_t(i)].maxWeight, 1e-12);
        }
    }
}

void TestSweep::topKByHand()
{
    const Matrix w{{0.5, 0.3, 0.2}, {0.1, 0.2, 0.7}};
    const Matrix V{{1, 0}, {0, 1}, {2, 2}};
    const TopK t = topK(w, BoolMatrix(), V, 2);
    QCOMPARE(t.k, 2);
    // Row 0 keeps 0.5 and 0.3: 0.5/0.8 and 0.3/0.8.
    ATTN_COMPARE_MATRIX(t.weights, (attn::test::Rows{{0.625, 0.375, 0}, {0, 2.0 / 9, 7.0 / 9}}), 1e-15);
    ATTN_COMPARE_MATRIX(t.knn, (attn::test::Rows{{0.5, 0.5, 0}, {0, 0.5, 0.5}}), 0);
    // Outputs: weights · V and the plain average of the two nearest values.
    ATTN_COMPARE_MATRIX(t.output, (attn::test::Rows{{0.625, 0.375}, {14.0 / 9, 2.0 / 9 + 14.0 / 9}}), 1e-15);
    ATTN_COMPARE_MATRIX(t.knnOutput, (attn::test::Rows{{0.5, 0.5}, {1.0, 1.5}}), 1e-15);
    // k = n: the softmax itself; k = 1: one-hot.
    ATTN_COMPARE_MATRIX(topK(w, BoolMatrix(), V, 3).weights, w, 1e-15);
    ATTN_COMPARE_MATRIX(topK(w, BoolMatrix(), V, 1).weights, (attn::test::Rows{{1, 0, 0}, {0, 0, 1}}), 0);
    ATTN_COMPARE_MATRIX(topK(w, BoolMatrix(), V, 99).knn, (attn::test::Rows{{1.0 / 3, 1.0 / 3, 1.0 / 3}, {1.0 / 3, 1.0 / 3, 1.0 / 3}}),
                        1e-15);
}

void TestSweep::topKTiesMasksAndFullyMaskedRows()
{
    const Matrix w{{0.4, 0.4, 0.2}, {0.6, 0.0, 0.4}, {0, 0, 0}};
    BoolMatrix blocked(3, 3);
    blocked << false, false, false, false, true, false, true, true, true;
    const TopK t = topK(w, blocked, Matrix::Identity(3, 3), 1);
    ATTN_COMPARE_MATRIX(t.weights, (attn::test::Rows{{1, 0, 0}, {1, 0, 0}, {0, 0, 0}}), 0); // a tie: the lower column
    const TopK t2 = topK(w, blocked, Matrix::Identity(3, 3), 2);
    // Row 1: the blocked key is never kept, though its weight (0) could tie.
    ATTN_COMPARE_MATRIX(t2.weights, (attn::test::Rows{{0.5, 0.5, 0}, {0.6, 0, 0.4}, {0, 0, 0}}), 1e-15);
    ATTN_COMPARE_MATRIX(t2.knn, (attn::test::Rows{{0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0, 0}}), 0);
}

void TestSweep::rotateInPlaneKeepsTheHiddenPart()
{
    const PlaneBasis flat = axisPlane(2, 0, 1);
    ATTN_COMPARE_MATRIX(rotateInPlane(flat, Eigen::Vector2d(1, 0), M_PI / 2), (Eigen::Vector2d(0, 1)), 1e-15);
    ATTN_COMPARE_MATRIX(rotateInPlane(flat, Eigen::Vector2d(1, 0.2), 2 * M_PI), (Eigen::Vector2d(1, 0.2)), 1e-15);
    // Dimensions 1 and 3 of three: the second coordinate stays.
    const PlaneBasis side = axisPlane(3, 0, 2);
    ATTN_COMPARE_MATRIX(rotateInPlane(side, Eigen::Vector3d(2, 5, 0), M_PI), (Eigen::Vector3d(-2, 5, 0)), 1e-15);
    // At the origin of the plane: nothing to turn.
    ATTN_COMPARE_MATRIX(rotateInPlane(side, Eigen::Vector3d(0, 5, 0), 1.0), (Eigen::Vector3d(0, 5, 0)), 0);
}

void TestSweep::clockBouncesAndLoops()
{
    SweepClock c;
    c.setFrames(4, SweepClock::Path::Bounce);
    QCOMPARE(c.period(), 6);
    QList<int> frames;
    for (int s = 0; s < 8; ++s)
        frames << c.frameAt(s);
    QCOMPARE(frames, (QList<int>{0, 1, 2, 3, 2, 1, 0, 1}));
    c.setFrames(4, SweepClock::Path::Loop);
    QCOMPARE(c.frameAt(5), 1);
    QSignalSpy spy(&c, &SweepClock::frameChanged);
    c.stepForward();
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.first().first().toInt(), 1);
    QVERIFY(!c.isRunning());
    c.setBaseRate(200);
    c.play();
    QVERIFY(c.isRunning());
    QTRY_VERIFY(spy.count() >= 4);
    c.pause();
    QVERIFY(!c.isRunning());
}

void TestSweep::stoppedSweepLeavesTheDocumentAsItWas()
{
    Document doc;
    QVERIFY(!doc.replace(lesson(QStringLiteral("seed001-soft-knn")), QString()));
    // One step already on the stack, so that "unchanged" means something.
    Settings s = settingsOf(doc.scenario());
    s.temperature = 0.8;
    QVERIFY(!doc.setSettings(s, QStringLiteral("Temperature 0.8")));
    const Scenario before = doc.scenario();
    const int count = doc.undoStack()->count(), index = doc.undoStack()->index();
    doc.undoStack()->setClean();

    SweepPanel panel(&doc);
    panel.resize(600, 500);
    panel.playTemperature();
    QVERIFY(panel.isPreviewing());
    QVERIFY(panel.isPlaying());
    panel.pause();
    for (int i = 0; i < 5; ++i)
        panel.step();
    QVERIFY(doc.scenario().temperature != 0.8);
    QVERIFY(doc.inGesture());
    // Frames run τ up the grid: from the grid's point nearest 0.8, five on.
    const std::vector<double> &g = SweepPanel::temperatureGrid();
    const auto nearest = std::min_element(g.begin(), g.end(), [](double a, double b) {
        return std::abs(std::log(a / 0.8)) < std::abs(std::log(b / 0.8));
    });
    QCOMPARE(doc.scenario().temperature, *(nearest + 5));
    QVERIFY(doc.trace().heads[0].rows[0].entropy != compute(before).heads[0].rows[0].entropy);

    panel.stop();
    QVERIFY(!panel.isPreviewing());
    QVERIFY(!doc.inGesture());
    QVERIFY(doc.scenario() == before);
    QCOMPARE(doc.undoStack()->count(), count);
    QCOMPARE(doc.undoStack()->index(), index);
    QVERIFY(!doc.isModified());
    // The trace too: the maps show what they showed.
    ATTN_COMPARE_MATRIX(doc.trace().heads[0].weights, compute(before).heads[0].weights, 0);
}

void TestSweep::keptSweepIsOneUndoStep()
{
    Document doc;
    QVERIFY(!doc.replace(lesson(QStringLiteral("seed001-soft-knn")), QString()));
    const Scenario before = doc.scenario();
    SweepPanel panel(&doc);
    panel.showTemperatureFrame(3); // τ = the grid's fourth point, paused
    const double tau = SweepPanel::temperatureGrid()[3];
    QCOMPARE(doc.scenario().temperature, tau);
    panel.step();
    panel.step();
    QCOMPARE(doc.scenario().temperature, SweepPanel::temperatureGrid()[5]);
    QSignalSpy messages(&panel, &SweepPanel::message);
    panel.keep();
    QVERIFY(!panel.isPreviewing());
    QVERIFY(!doc.inGesture());
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.scenario().temperature, SweepPanel::temperatureGrid()[5]);
    QCOMPARE(messages.count(), 1);
    QVERIFY(messages.first().first().toString().contains(QStringLiteral("one undo step")));
    doc.undo();
    QVERIFY(doc.scenario() == before);
    doc.redo();
    QCOMPARE(doc.scenario().temperature, SweepPanel::temperatureGrid()[5]);
}

void TestSweep::turnOfTheQueryAndStop()
{
    Document doc;
    QVERIFY(!doc.replace(lesson(QStringLiteral("seed001-soft-knn")), QString()));
    doc.setCurrentQuery(1); // q2 = (0.8, 0.6)
    const Scenario before = doc.scenario();
    SweepPanel panel(&doc);
    panel.playTurn();
    panel.pause();
    QCOMPARE(panel.mode(), SweepPanel::Mode::Rotation);
    // A quarter turn is 18 of 72 frames: (0.8, 0.6) becomes (−0.6, 0.8).
    for (int i = 0; i < SweepPanel::kTurnFrames / 4; ++i)
        panel.step();
    ATTN_COMPARE_MATRIX(doc.scenario().Q.row(1), (Eigen::RowVector2d(-0.6, 0.8)), 1e-12);
    ATTN_COMPARE_MATRIX(doc.scenario().Q.row(0), before.Q.row(0), 0); // the others stay
    QCOMPARE(doc.undoStack()->count(), 1); // the preview's one (merged) step, until stopped
    panel.stop();
    QVERIFY(doc.scenario() == before);
    QCOMPARE(doc.undoStack()->count(), 0);
    // Kept: one step, the query where the turn was.
    panel.playTurn();
    panel.pause();
    for (int i = 0; i < SweepPanel::kTurnFrames / 2; ++i)
        panel.step();
    panel.keep();
    QCOMPARE(doc.undoStack()->count(), 1);
    ATTN_COMPARE_MATRIX(doc.scenario().Q.row(1), (Eigen::RowVector2d(-0.8, -0.6)), 1e-12);
}

void TestSweep::editFromElsewhereKeepsThePreview()
{
    Document doc;
    QVERIFY(!doc.replace(lesson(QStringLiteral("seed001-soft-knn")), QString()));
    SweepPanel panel(&doc);
    panel.showTemperatureFrame(10);
    // A typed cell in the middle: the preview stays as a step of its own, under it.
    Eigen::RowVectorXd row = doc.scenario().K.row(0);
    row(0) = 0.5;
    QVERIFY(!doc.setRow(MatrixId::K, 0, row, QStringLiteral("Edit K")));
    QVERIFY(!panel.isPreviewing());
    QVERIFY(!doc.inGesture());
    QCOMPARE(doc.undoStack()->count(), 2);
    QCOMPARE(doc.scenario().temperature, SweepPanel::temperatureGrid()[10]);
    // Stop afterwards changes nothing more.
    panel.stop();
    QCOMPARE(doc.undoStack()->count(), 2);
}

void TestSweep::undoMidSweepCancelsIt()
{
    Document doc;
    QVERIFY(!doc.replace(lesson(QStringLiteral("seed001-soft-knn")), QString()));
    const Scenario before = doc.scenario();
    SweepPanel panel(&doc);
    panel.playTemperature();
    panel.step();
    panel.step();
    doc.undo(); // Ctrl+Z
    QVERIFY(!panel.isPreviewing());
    QVERIFY(!panel.isPlaying());
    QVERIFY(doc.scenario() == before);
    QCOMPARE(doc.undoStack()->count(), 0);
}

void TestSweep::curvesAndMarkerAreDrawn()
{
    Document doc;
    QVERIFY(!doc.replace(lesson(QStringLiteral("seed001-soft-knn")), QString()));
    doc.setCurrentQuery(2);
    SweepPanel panel(&doc);
    panel.resize(700, 520);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    SweepCurvePlot *plot = panel.curvePlot();
    QCOMPARE(plot->selectedRow(), 2);
    // The selected row's graphs hold the core's curves.
    const TemperatureCurves expected = temperatureCurves(doc.scenario(), 0, SweepPanel::temperatureGrid());
    QVERIFY(plot->entropyGraph());
    QCOMPARE(plot->entropyGraph()->dataCount(), int(SweepPanel::temperatureGrid().size()));
    ATTN_COMPARE_NEAR(plot->entropyGraph()->data()->at(0)->value, expected.entropy(0, 2), 1e-15);
    ATTN_COMPARE_NEAR(plot->maxWeightGraph()->data()->at(60)->value, expected.maxWeight(60, 2), 1e-15);

    panel.showTemperatureFrame(20);
    const double tau = SweepPanel::temperatureGrid()[20];
    QCOMPARE(plot->currentTemperature(), tau);
    QCOMPARE(plot->marker()->point1->coords().x(), tau);
    plot->replot();
    const QImage image = plot->grab().toImage();
    const double dpr = image.devicePixelRatio();
    const int x = int(std::lround(plot->xAxis->coordToPixel(tau) * dpr));
    const QRect ar = plot->axisRect()->rect();
    // The marker: a dark vertical line through the plot at τ.
    QVERIFY2(pixelsOfColor(image, x, int(ar.top() * dpr), int(ar.bottom() * dpr), SweepCurvePlot::markerColor())
                 > int(0.6 * ar.height() * dpr),
             "no marker line at the current τ");
    // The entropy curve (blue) crosses the column halfway between the marker and the right.
    const int x2 = int(std::lround(plot->xAxis->coordToPixel(10.0) * dpr));
    QVERIFY2(pixelsOfColor(image, x2, int(ar.top() * dpr), int(ar.bottom() * dpr), SweepCurvePlot::entropyColor()) > 0,
             "no entropy curve");
    QVERIFY(panel.statusText().contains(QStringLiteral("Preview")));
    panel.stop();
    QCOMPARE(plot->currentTemperature(), 1.0);
}

void TestSweep::topKPanelShowsHardAttention()
{
    Document doc;
    QVERIFY(!doc.replace(lesson(QStringLiteral("seed001-soft-knn")), QString()));
    TopKPanel panel(&doc);
    panel.resize(800, 400);
    panel.setK(2);
    const HeadTrace &ht = doc.trace().heads[0];
    const TopK expected = topK(ht.weights, doc.trace().blocked, ht.V, 2);
    ATTN_COMPARE_MATRIX(panel.weightsPlot()->data().values, expected.weights, 0);
    ATTN_COMPARE_MATRIX(panel.outputPlot()->data().values, expected.knnOutput, 0);
    // Two keys per row, summing to 1.
    for (Eigen::Index i = 0; i < expected.weights.rows(); ++i) {
        QCOMPARE(int((expected.weights.row(i).array() > 0).count()), 2);
        ATTN_COMPARE_NEAR(expected.weights.row(i).sum(), 1.0, 1e-12);
    }
    QVERIFY(panel.weightsPlot()->data().title.startsWith(QStringLiteral("Top-2 weights")));
    // The panel follows the document.
    Settings s = settingsOf(doc.scenario());
    s.temperature = 0.1;
    QVERIFY(!doc.setSettings(s, QStringLiteral("τ")));
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const TopK sharp = topK(doc.trace().heads[0].weights, doc.trace().blocked, doc.trace().heads[0].V, 2);
    QTRY_VERIFY(!attn::test::matrixMismatch(panel.weightsPlot()->data().values, sharp.weights, 0, 0));
}

void TestSweep::rowLabelClickSelectsTheQuery()
{
    Document doc;
    QVERIFY(!doc.replace(lesson(QStringLiteral("seed001-soft-knn")), QString()));
    StageView scores(&doc, Stage::Scores);
    scores.resize(600, 450);
    scores.show();
    QVERIFY(QTest::qWaitForWindowExposed(&scores));
    scores.replot();
    QSignalSpy labelClicks(&scores, &HeatmapPlot::rowLabelClicked);
    QSignalSpy messages(&scores, &StageView::message);
    // Left of row 4's first cell: its label "t4".
    const QRectF cell = scores.cellRect(3, 0);
    const QPoint onLabel(int(scores.axisRect()->rect().left() / 2), int(cell.center().y()));
    QCOMPARE(scores.rowLabelAt(onLabel), 3);
    QCOMPARE(scores.cellAt(onLabel).first, -1);
    QTest::mouseClick(&scores, Qt::LeftButton, {}, onLabel);
    QCOMPARE(labelClicks.count(), 1);
    QCOMPARE(doc.currentQuery(), 3);
    QCOMPARE(doc.undoStack()->count(), 0);
    QCOMPARE(messages.count(), 1);
    QVERIFY2(messages.first().first().toString().contains(QStringLiteral("Query t4 selected")),
             qPrintable(messages.first().first().toString()));
    // Above the map (the column labels) is no row label.
    QCOMPARE(scores.rowLabelAt(QPointF(onLabel.x(), scores.axisRect()->rect().top() - 3)), -1);
}

void TestSweep::plainClickSelectsCtrlClickBlocks()
{
    Document doc;
    QVERIFY(!doc.replace(lesson(QStringLiteral("seed001-soft-knn")), QString()));
    StageView weights(&doc, Stage::Weights);
    weights.resize(600, 450);
    weights.show();
    QVERIFY(QTest::qWaitForWindowExposed(&weights));
    weights.replot();
    QSignalSpy messages(&weights, &StageView::message);
    const QPoint cell = weights.cellCenter(2, 4).toPoint() + QPoint(2, 2);
    // A plain click selects the row's query and blocks nothing.
    QTest::mouseClick(&weights, Qt::LeftButton, {}, cell);
    QCOMPARE(doc.currentQuery(), 2);
    QCOMPARE(doc.undoStack()->count(), 0);
    QVERIFY(!doc.scenario().mask.blocked.size() || !doc.scenario().mask.blocked.any());
    QCOMPARE(messages.count(), 1);
    QVERIFY(messages.first().first().toString().contains(QStringLiteral("Ctrl+click")));
    // Ctrl+click blocks it (one step) and selects too.
    doc.setCurrentQuery(0);
    QTest::mouseClick(&weights, Qt::LeftButton, Qt::ControlModifier, cell);
    QCOMPARE(doc.currentQuery(), 2);
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(doc.scenario().mask.blocked(2, 4));
    QCOMPARE(weights.data().values(2, 4), 0.0);
    // The tooltip says which does what.
    const QString tip = weights.toolTipAt(2, 4);
    QVERIFY2(tip.contains(QStringLiteral("Click: select query t3 · Ctrl+click: block or open this cell")), qPrintable(tip));
}

void TestSweep::panelsStayNarrowAtProjectorZoom()
{
    // In a side tab beside two maps on a 1600-pixel window at zoom 1.5.
    Document doc;
    QVERIFY(!doc.replace(lesson(QStringLiteral("seed001-soft-knn")), QString()));
    SweepPanel sweep(&doc);
    TopKPanel topk(&doc);
    QFont big = QApplication::font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    for (QWidget *w : {static_cast<QWidget *>(&sweep), static_cast<QWidget *>(&topk)}) {
        w->setFont(big);
        w->ensurePolished();
        const int width = w->minimumSizeHint().width();
        QVERIFY2(width <= 440, qPrintable(w->objectName() + QStringLiteral(": %1 pixels").arg(width)));
    }
}

// Review D6: at n = 1024 every edit ran a forward and 61 softmaxes of all
// rows. The panel reads the document's scores and draws at most
// kMaxCurveRows rows, the selected one among them, with the core's numbers.
void TestSweep::longSequenceDrawsASample()
{
    const auto rows = SweepPanel::curveRows(1024, 700);
    QVERIFY(int(rows.size()) <= SweepPanel::kMaxCurveRows);
    QVERIFY(std::is_sorted(rows.begin(), rows.end()) && std::adjacent_find(rows.begin(), rows.end()) == rows.end());
    QVERIFY(rows.front() == 0 && rows.back() == 1023);
    QVERIFY(std::find(rows.begin(), rows.end(), 700) != rows.end());
    QCOMPARE(SweepPanel::curveRows(5, 3), (std::vector<Eigen::Index>{0, 1, 2, 3, 4}));

    Scenario s = lesson(QStringLiteral("causal"));
    const int n = 200;
    s.tokens.clear();
    for (int i = 0; i < n; ++i)
        s.tokens.push_back("w" + std::to_string(i));
    std::srand(7);
    s.Q = Matrix::Random(n, s.Q.cols());
    s.K = Matrix::Random(n, s.K.cols());
    s.V = Matrix::Random(n, s.V.cols());
    Document doc;
    QVERIFY(!doc.replace(s, QString()));
    doc.setCurrentQuery(150);
    SweepPanel panel(&doc);
    panel.resize(700, 520);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    SweepCurvePlot *plot = panel.curvePlot();
    const auto drawn = SweepPanel::curveRows(n, 150);
    QCOMPARE(plot->curves().entropy.cols(), Eigen::Index(drawn.size()));
    const int at = int(std::find(drawn.begin(), drawn.end(), 150) - drawn.begin());
    QCOMPARE(plot->selectedRow(), at);
    const TemperatureCurves expected = temperatureCurves(doc.scenario(), 0, SweepPanel::temperatureGrid());
    for (int t : {0, 30, 60}) {
        ATTN_COMPARE_NEAR(plot->entropyGraph()->data()->at(t)->value, expected.entropy(t, 150), 1e-15);
        ATTN_COMPARE_NEAR(plot->maxWeightGraph()->data()->at(t)->value, expected.maxWeight(t, 150), 1e-15);
    }
    // An edit of a drawn row shows in its curve; of the same rows, the sample stays.
    Eigen::RowVectorXd q = doc.scenario().Q.row(150) * 3.0;
    QVERIFY(!doc.setRow(MatrixId::Q, 150, q, QStringLiteral("edit")));
    const TemperatureCurves after = temperatureCurves(doc.scenario(), 0, SweepPanel::temperatureGrid());
    ATTN_COMPARE_NEAR(plot->entropyGraph()->data()->at(30)->value, after.entropy(30, 150), 1e-15);
    QCOMPARE(plot->curves().entropy.cols(), Eigen::Index(drawn.size()));
}

QTEST_MAIN(TestSweep)
#include "test_sweep.moc"
