// HeatmapPlot and the gradients: what the pixels say, not only what the
// objects say. Renders offscreen and samples the picture at cell positions
// taken from the axes' coordToPixel.

#include "gradients.h"
#include "heatmapplot.h"

#include <QApplication>
#include <QHelpEvent>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <optional>

using namespace attn;

// QCOMPARE prints ranges that differ.
char *toString(const QCPRange &r)
{
    return QTest::toString(QStringLiteral("[%1, %2]").arg(r.lower, 0, 'g', 17).arg(r.upper, 0, 'g', 17));
}

namespace {

QString colorText(QColor c)
{
    return QStringLiteral("rgb(%1, %2, %3)").arg(c.red()).arg(c.green()).arg(c.blue());
}

int colorDistance(QColor a, QColor b)
{
    return std::max({std::abs(a.red() - b.red()), std::abs(a.green() - b.green()), std::abs(a.blue() - b.blue())});
}

// Empty when the two colours agree within `tolerance` per channel;
// otherwise a message with both.
std::optional<QString> colorMismatch(QColor actual, QColor expected, int tolerance = 2)
{
    if (colorDistance(actual, expected) <= tolerance)
        return std::nullopt;
    return QStringLiteral("got %1, expected %2").arg(colorText(actual), colorText(expected));
}

#define COMPARE_COLOR(actual, expected)                                                  \
    do {                                                                                 \
        const auto mismatch_ = colorMismatch((actual), (expected));                     \
        QVERIFY2(!mismatch_, qPrintable(mismatch_.value_or(QString())));                  \
    } while (false)

// The smallest per-channel distance from c to any colour of the gradient.
int distanceToGradient(QCPColorGradient g, QColor c)
{
    int best = 255;
    for (int k = 0; k <= 1000; ++k)
        best = std::min(best, colorDistance(QColor(g.color(k / 1000.0, QCPRange(0, 1))), c));
    return best;
}

Matrix matrix(int rows, int cols, std::initializer_list<double> values)
{
    Matrix m(rows, cols);
    auto it = values.begin();
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            m(i, j) = *it++;
    return m;
}

HeatmapData weights3x3()
{
    HeatmapData d;
    d.values = matrix(3, 3, {0.10, 0.20, 0.70,   //
                             0.05, 0.90, 0.05,   //
                             0.30, 0.30, 0.40});
    d.rowLabels = {QStringLiteral("q1"), QStringLiteral("q2"), QStringLiteral("q3")};
    d.colLabels = {QStringLiteral("k1"), QStringLiteral("k2"), QStringLiteral("k3")};
    d.title = QStringLiteral("softmax weights");
    d.colorBarLabel = QStringLiteral("weight");
    d.scale = HeatmapScale::Probability;
    return d;
}

QImage render(HeatmapPlot &plot)
{
    plot.replot(QCustomPlot::rpImmediateRefresh);
    return plot.toPixmap().toImage();
}

QColor pixelAt(const QImage &image, QPointF p)
{
    return image.pixelColor(p.toPoint());
}

// A point a quarter of the way into the cell from its top-left corner:
// inside the cell, clear of the centred value text and the separators.
QPointF offCentre(const HeatmapPlot &plot, int row, int col)
{
    const QRectF r = plot.cellRect(row, col);
    return r.topLeft() + QPointF(r.width() * 0.25, r.height() * 0.25);
}

Matrix randomMatrix(int rows, int cols, unsigned seed)
{
    std::srand(seed);
    return (Matrix::Random(rows, cols).array() + 1.0).matrix() * 0.5; // 0..1
}

} // namespace

class TestHeatmap : public QObject {
    Q_OBJECT

private slots:
    void gradientsHaveEnoughStops();
    void gradientsKnownColours();
    void gradientKeysRoundTrip();
    void formatValueNeverNegativeZero();

    void maxWeightCellHasGradientColour();
    void exportedImageHasTheCells();
    void blockedCellIsHatchedGrey();
    void nonFiniteValueDrawnAsBlocked();
    void divergingRangeIsSymmetric();
    void shortColourBarShowsItsEnds();
    void zeroMapsToDivergingCentre();
    void hoverEmitsCell();
    void clickEmitsCell();
    void toolTipAsksProviderForCell();
    void shapeChangeResizesMap();
    void autoCellTextDependsOnSize();
    void longTitleKeepsTheColourBar();
    void shortRoomWidensWeightCells();
    void everyTokenLabelIsWritten();
    void keptLabelLayoutStillFits();
    void fontChangeGrowsFonts();
    void highlightDrawsOutline();
    void columnGroupSeparator();
    void gradientChangeRecolours();
    void compactHidesColourScale();
    void largeBlockedMapDrawsEveryCell();
    void zeroSizeWidget();
    void robustForDegenerateSizes();
    void cellUpdatesDrawAsFreshData_data();
    void cellUpdatesDrawAsFreshData();
    void highDpiDrawsDevicePixels();

private:
    void showPlot(HeatmapPlot &plot, int w = 600, int h = 500);
};

void TestHeatmap::showPlot(HeatmapPlot &plot, int w, int h)
{
    plot.resize(w, h);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
}

void TestHeatmap::gradientsHaveEnoughStops()
{
    for (SequentialGradient g : allSequentialGradients()) {
        const auto stops = sequentialGradient(g).colorStops();
        QVERIFY2(stops.size() >= 9, qPrintable(settingsKey(g)));
        QCOMPARE(stops.firstKey(), 0.0);
        QCOMPARE(stops.lastKey(), 1.0);
        QCOMPARE(sequentialGradient(g).nanHandling(), QCPColorGradient::nhNanColor);
    }
    for (DivergingGradient g : allDivergingGradients()) {
        const auto stops = divergingGradient(g).colorStops();
        QVERIFY2(stops.size() >= 9, qPrintable(settingsKey(g)));
        QVERIFY(stops.contains(0.5));
        QCOMPARE(divergingGradient(g).nanHandling(), QCPColorGradient::nhNanColor);
    }
}

void TestHeatmap::gradientsKnownColours()
{
    // Published end and middle colours: viridis #440154 / #21918c / #fde725,
    // cividis ends #00224e / #fee838, magma ends #000004 / #fcfdbf.
    auto at = [](QCPColorGradient g, double x) { return QColor(g.color(x, QCPRange(0, 1))); };
    COMPARE_COLOR(at(sequentialGradient(SequentialGradient::Viridis), 0.0), QColor(0x44, 0x01, 0x54));
    COMPARE_COLOR(at(sequentialGradient(SequentialGradient::Viridis), 0.5), QColor(0x21, 0x91, 0x8c));
    COMPARE_COLOR(at(sequentialGradient(SequentialGradient::Viridis), 1.0), QColor(0xfd, 0xe7, 0x25));
    COMPARE_COLOR(at(sequentialGradient(SequentialGradient::Cividis), 0.0), QColor(0x00, 0x22, 0x4e));
    COMPARE_COLOR(at(sequentialGradient(SequentialGradient::Cividis), 1.0), QColor(0xfe, 0xe8, 0x38));
    COMPARE_COLOR(at(sequentialGradient(SequentialGradient::Magma), 0.0), QColor(0x00, 0x00, 0x04));
    COMPARE_COLOR(at(sequentialGradient(SequentialGradient::Magma), 1.0), QColor(0xfc, 0xfd, 0xbf));

    // Diverging: negative is cool, positive warm, light in the middle.
    const QCPColorGradient rdbu = divergingGradient(DivergingGradient::BlueRed);
    COMPARE_COLOR(at(rdbu, 0.0), QColor(0x05, 0x30, 0x61));
    COMPARE_COLOR(at(rdbu, 0.5), QColor(0xf7, 0xf7, 0xf7));
    COMPARE_COLOR(at(rdbu, 1.0), QColor(0x67, 0x00, 0x1f));
    const QCPColorGradient puor = divergingGradient(DivergingGradient::PurpleOrange);
    COMPARE_COLOR(at(puor, 0.0), QColor(0x2d, 0x00, 0x4b));
    COMPARE_COLOR(at(puor, 0.5), QColor(0xf7, 0xf7, 0xf7));
    COMPARE_COLOR(at(puor, 1.0), QColor(0x7f, 0x3b, 0x08));

    // Sequential gradients get lighter all the way: relative luminance
    // rises monotonically (it would not for a rainbow like jet).
    auto luminance = [](QRgb c) {
        auto lin = [](int v) {
            const double s = v / 255.0;
            return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
        };
        return 0.2126 * lin(qRed(c)) + 0.7152 * lin(qGreen(c)) + 0.0722 * lin(qBlue(c));
    };
    for (SequentialGradient g : allSequentialGradients()) {
        QCPColorGradient grad = sequentialGradient(g);
        double last = -1;
        for (int k = 0; k <= 50; ++k) {
            const double l = luminance(grad.color(k / 50.0, QCPRange(0, 1)));
            QVERIFY2(l > last, qPrintable(QStringLiteral("%1 at %2: %3 after %4").arg(settingsKey(g)).arg(k / 50.0).arg(l).arg(last)));
            last = l;
        }
    }
}

void TestHeatmap::gradientKeysRoundTrip()
{
    QStringList keys;
    for (SequentialGradient g : allSequentialGradients()) {
        QCOMPARE(sequentialGradientFromKey(settingsKey(g)), std::optional<SequentialGradient>(g));
        QVERIFY(!displayName(g).isEmpty());
        keys << settingsKey(g);
    }
    for (DivergingGradient g : allDivergingGradients()) {
        QCOMPARE(divergingGradientFromKey(settingsKey(g)), std::optional<DivergingGradient>(g));
        QVERIFY(!displayName(g).isEmpty());
        keys << settingsKey(g);
    }
    QCOMPARE(keys, (QStringList{"viridis", "cividis", "magma", "blue-red", "purple-orange"}));
    QCOMPARE(sequentialGradientFromKey(QStringLiteral(" Magma ")), std::optional(SequentialGradient::Magma));
    QVERIFY(!sequentialGradientFromKey(QStringLiteral("jet")));
    QVERIFY(!sequentialGradientFromKey(QStringLiteral("blue-red")));
    QVERIFY(!divergingGradientFromKey(QString()));
}

void TestHeatmap::formatValueNeverNegativeZero()
{
    QCOMPARE(HeatmapPlot::formatValue(-0.00001, 4), QStringLiteral("0.0000"));
    QCOMPARE(HeatmapPlot::formatValue(-0.0, 2), QStringLiteral("0.00"));
    QCOMPARE(HeatmapPlot::formatValue(-0.5, 4), QStringLiteral("−0.5000"));
    QCOMPARE(HeatmapPlot::formatValue(1.23456, 4), QStringLiteral("1.2346"));
    QCOMPARE(HeatmapPlot::formatValue(-12.5, 2), QStringLiteral("−12.50"));
}

void TestHeatmap::maxWeightCellHasGradientColour()
{
    HeatmapPlot plot;
    showPlot(plot);
    plot.setSequentialGradient(sequentialGradient(SequentialGradient::Viridis));
    plot.setData(weights3x3());
    const QImage image = render(plot);

    QCOMPARE(plot.dataRange(), QCPRange(0, 1));
    QCPColorGradient viridis = sequentialGradient(SequentialGradient::Viridis);
    QCOMPARE(plot.colorMap()->gradient(), viridis);
    // The max weight 0.9 sits at (1, 1); sample beside the value text.
    COMPARE_COLOR(pixelAt(image, offCentre(plot, 1, 1)), QColor(viridis.color(0.9, QCPRange(0, 1))));
    // Rows run top to bottom and columns left to right: 0.70 is top right.
    QVERIFY(plot.cellCenter(0, 2).x() > plot.cellCenter(0, 0).x());
    QVERIFY(plot.cellCenter(2, 0).y() > plot.cellCenter(0, 0).y());
    COMPARE_COLOR(pixelAt(image, offCentre(plot, 0, 2)), QColor(viridis.color(0.7, QCPRange(0, 1))));
    COMPARE_COLOR(pixelAt(image, offCentre(plot, 1, 0)), QColor(viridis.color(0.05, QCPRange(0, 1))));

    // Without cell text the very centre has the colour too.
    plot.setCellText(CellTextMode::Never);
    const QImage bare = render(plot);
    COMPARE_COLOR(pixelAt(bare, plot.cellCenter(1, 1)), QColor(viridis.color(0.9, QCPRange(0, 1))));
    // With text, the centre pixel is not the cell colour (the value is drawn there).
    plot.setCellText(CellTextMode::Always);
    const QImage text = render(plot);
    int differing = 0;
    const QRectF cell = plot.cellRect(1, 1);
    for (int dx = -20; dx <= 20; ++dx)
        if (colorMismatch(pixelAt(text, cell.center() + QPointF(dx, 0)), QColor(viridis.color(0.9, QCPRange(0, 1)))))
            ++differing;
    QVERIFY2(differing > 0, "no value text drawn in the cell");
}

void TestHeatmap::exportedImageHasTheCells()
{
    HeatmapPlot plot;
    showPlot(plot);
    plot.setData(weights3x3());
    plot.replot(QCustomPlot::rpImmediateRefresh);
    const QPointF p = offCentre(plot, 1, 1);

    // Twice the pixels, same figure: the cell is at twice the position.
    const QImage big = plot.renderImage(plot.width(), plot.height(), 2.0);
    QCOMPARE(big.size(), QSize(2 * plot.width(), 2 * plot.height()));
    QCPColorGradient g = plot.activeGradient();
    COMPARE_COLOR(pixelAt(big, p * 2), QColor(g.color(0.9, QCPRange(0, 1))));

    // Another size, then the mouse mapping is the widget's again.
    const QRectF before = plot.cellRect(1, 1);
    const QImage other = plot.renderImage(300, 250, 1.0);
    QCOMPARE(other.size(), QSize(300, 250));
    QCOMPARE(plot.cellRect(1, 1), before);
    QCOMPARE(plot.cellAt(p), std::make_pair(1, 1));

    // The on-screen picture (the widget's own paint) agrees.
    const QImage screen = plot.grab().toImage();
    COMPARE_COLOR(pixelAt(screen, p), QColor(g.color(0.9, QCPRange(0, 1))));
}

void TestHeatmap::blockedCellIsHatchedGrey()
{
    HeatmapPlot plot;
    showPlot(plot);
    HeatmapData d = weights3x3();
    d.blocked = BoolMatrix::Constant(3, 3, false);
    d.blocked(0, 1) = true;
    d.blocked(0, 2) = true;
    d.blocked(1, 2) = true;
    d.blockedText = QStringLiteral("0");
    plot.setData(d);
    const QImage image = render(plot);

    // Transparent in the colour map itself: no scale colour under the grey.
    QCPColorMapData *data = plot.colorMap()->data();
    QCOMPARE(int(data->alpha(2, 0)), 0);
    QCOMPARE(int(data->alpha(1, 1)), 255);

    const QCPColorGradient viridis = plot.activeGradient();
    const QRectF cell = plot.cellRect(0, 2);
    int darkest = 255, fill = 0;
    // A band along the cell's left side, clear of the centred text.
    for (int y = int(cell.top()) + 3; y < int(cell.bottom()) - 3; ++y) {
        for (int x = int(cell.left()) + 3; x < int(cell.left()) + 20; ++x) {
            const QColor c = image.pixelColor(x, y);
            // Neutral grey between the fill and the hatch lines, never a scale colour.
            QVERIFY2(std::abs(c.red() - c.green()) <= 2 && std::abs(c.green() - c.blue()) <= 2, qPrintable(colorText(c)));
            QVERIFY2(c.red() >= HeatmapPlot::blockedHatchColor().red() - 3
                         && c.red() <= HeatmapPlot::blockedFillColor().red() + 3,
                     qPrintable(colorText(c)));
            QVERIFY2(distanceToGradient(viridis, c) > 20, qPrintable(colorText(c)));
            darkest = std::min(darkest, c.red());
            fill += !colorMismatch(c, HeatmapPlot::blockedFillColor(), 1);
        }
    }
    QVERIFY2(fill > 0, "no grey fill in the blocked cell");
    QVERIFY2(darkest < HeatmapPlot::blockedFillColor().red() - 30, "no hatch line crosses the blocked cell");
    // The open neighbour keeps its scale colour.
    COMPARE_COLOR(pixelAt(image, offCentre(plot, 0, 0)), QColor(QCPColorGradient(viridis).color(0.1, QCPRange(0, 1))));
}

void TestHeatmap::nonFiniteValueDrawnAsBlocked()
{
    HeatmapPlot plot;
    showPlot(plot);
    HeatmapData d;
    d.values = matrix(2, 2, {1.0, std::numeric_limits<double>::quiet_NaN(), -3.0,
                             std::numeric_limits<double>::infinity()});
    d.scale = HeatmapScale::Diverging;
    plot.setData(d);
    const QImage image = render(plot);
    // The range ignores the non-finite cells.
    QCOMPARE(plot.dataRange(), QCPRange(-3.0, 3.0));
    COMPARE_COLOR(pixelAt(image, offCentre(plot, 0, 1)), HeatmapPlot::blockedFillColor());
    COMPARE_COLOR(pixelAt(image, offCentre(plot, 1, 1)), HeatmapPlot::blockedFillColor());
    QCOMPARE(int(plot.colorMap()->data()->alpha(1, 0)), 0);
    QVERIFY(std::isfinite(plot.colorMap()->data()->cell(1, 0)));
}

void TestHeatmap::divergingRangeIsSymmetric()
{
    HeatmapPlot plot;
    HeatmapData d;
    d.values = matrix(2, 3, {0.5, -2.5, 1.0, 0.0, 2.0, -1.0});
    d.scale = HeatmapScale::Diverging;
    plot.setData(d);
    QCOMPARE(plot.dataRange(), QCPRange(-2.5, 2.5));
    QCOMPARE(plot.colorMap()->dataRange(), QCPRange(-2.5, 2.5));
    QCOMPARE(plot.colorScale()->dataRange(), QCPRange(-2.5, 2.5));
    QCOMPARE(plot.colorMap()->gradient(), plot.divergingGradient());

    d.range = 4.0; // a shared range given by the caller
    plot.setData(d);
    QCOMPARE(plot.dataRange(), QCPRange(-4.0, 4.0));

    // Blocked cells do not count; an all-zero map still has a valid range.
    d.range = 0;
    d.blocked = BoolMatrix::Constant(2, 3, false);
    d.blocked(0, 1) = true;
    plot.setData(d);
    QCOMPARE(plot.dataRange(), QCPRange(-2.0, 2.0));
    d.values.setZero();
    plot.setData(d);
    QVERIFY(plot.dataRange().upper > 0);
    QCOMPARE(plot.dataRange().lower, -plot.dataRange().upper);

    // Probability stays 0..1 whatever the data.
    d = weights3x3();
    d.values(0, 0) = 0.001;
    plot.setData(d);
    QCOMPARE(plot.dataRange(), QCPRange(0, 1));
    // Sequential-auto follows the data.
    d.scale = HeatmapScale::SequentialAuto;
    plot.setData(d);
    QCOMPARE(plot.dataRange(), QCPRange(0.001, 0.9));
}

// A bar with room for two labels or fewer once said only "0" (the nice
// ticks of -4..4 two labels apart are -5, 0, 5): it says its ends.
void TestHeatmap::shortColourBarShowsItsEnds()
{
    HeatmapPlot plot;
    HeatmapData d;
    d.values = matrix(4, 4, {4, 0, -4, 0, 4, 0, -4, 0, 0, 4, 0, -4, -4, 0, 4, 0});
    d.scale = HeatmapScale::Diverging;
    d.colorBarLabel = QStringLiteral("score");
    plot.setData(d);
    const QString minus4 = QChar(0x2212) + QStringLiteral("4");
    auto labels = [&] {
        render(plot);
        return plot.colorScale()->axis()->tickVectorLabels();
    };

    showPlot(plot, 420, 150);
    const QCPRange range = plot.colorScale()->dataRange();
    QCOMPARE(range, QCPRange(-4, 4));
    QStringList shown = labels();
    QVERIFY2(shown.contains(QStringLiteral("4")) && shown.contains(minus4), qPrintable(shown.join(u' ')));

    // Whatever the range, a short bar says at least two numbers, none of
    // them long.
    for (const double top : {4.5, 2.8284271247461903, 0.7, 0.013, 37.0, 4.0}) {
        d.values *= top / d.values.maxCoeff();
        plot.setData(d);
        shown = labels();
        QVERIFY2(shown.size() >= 2, qPrintable(QString::number(top) + QStringLiteral(": ") + shown.join(u' ')));
        for (const QString &label : shown)
            QVERIFY2(label.section(u'.', 1).size() <= 3, qPrintable(QString::number(top) + QStringLiteral(": ") + label));
    }

    // A tall bar keeps its ordinary nice ticks.
    plot.setData(d);
    plot.resize(420, 600);
    shown = labels();
    QVERIFY2(shown.size() >= 3 && shown.contains(QStringLiteral("0")) && shown.contains(QStringLiteral("2")),
             qPrintable(shown.join(u' ')));
}

void TestHeatmap::zeroMapsToDivergingCentre()
{
    HeatmapPlot plot;
    showPlot(plot);
    HeatmapData d;
    d.values = matrix(2, 2, {-1.5, 0.0, 0.75, 1.5});
    d.scale = HeatmapScale::Diverging;
    plot.setData(d);
    const QImage image = render(plot);
    COMPARE_COLOR(pixelAt(image, offCentre(plot, 0, 1)), QColor(0xf7, 0xf7, 0xf7)); // RdBu's centre
    COMPARE_COLOR(pixelAt(image, offCentre(plot, 0, 0)), QColor(0x05, 0x30, 0x61)); // its blue end
    COMPARE_COLOR(pixelAt(image, offCentre(plot, 1, 1)), QColor(0x67, 0x00, 0x1f)); // its red end
}

void TestHeatmap::hoverEmitsCell()
{
    HeatmapPlot plot;
    showPlot(plot);
    plot.setData(weights3x3());
    plot.replot(QCustomPlot::rpImmediateRefresh);
    QSignalSpy spy(&plot, &HeatmapPlot::cellHovered);

    QTest::mouseMove(&plot, plot.cellCenter(2, 1).toPoint());
    QTRY_VERIFY(!spy.isEmpty());
    QCOMPARE(spy.last().at(0).toInt(), 2);
    QCOMPARE(spy.last().at(1).toInt(), 1);

    QTest::mouseMove(&plot, offCentre(plot, 0, 2).toPoint());
    QTRY_COMPARE(spy.last().at(0).toInt(), 0);
    QCOMPARE(spy.last().at(1).toInt(), 2);

    // Outside the map (the title area): (-1, -1).
    QTest::mouseMove(&plot, QPoint(3, 3));
    QTRY_COMPARE(spy.last().at(0).toInt(), -1);
    QCOMPARE(spy.last().at(1).toInt(), -1);

    // Leaving the widget: (-1, -1) as well.
    QTest::mouseMove(&plot, plot.cellCenter(1, 1).toPoint());
    QTRY_COMPARE(spy.last().at(0).toInt(), 1);
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(&plot, &leave);
    QCOMPARE(spy.last().at(0).toInt(), -1);
    QCOMPARE(spy.last().at(1).toInt(), -1);
}

void TestHeatmap::clickEmitsCell()
{
    HeatmapPlot plot;
    showPlot(plot);
    plot.setData(weights3x3());
    plot.replot(QCustomPlot::rpImmediateRefresh);
    QSignalSpy spy(&plot, &HeatmapPlot::cellClicked);

    QTest::mouseClick(&plot, Qt::LeftButton, Qt::NoModifier, plot.cellCenter(0, 2).toPoint());
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.last().at(0).toInt(), 0);
    QCOMPARE(spy.last().at(1).toInt(), 2);
    QCOMPARE(spy.last().at(2).value<Qt::MouseButton>(), Qt::LeftButton);

    QTest::mouseClick(&plot, Qt::RightButton, Qt::NoModifier, plot.cellCenter(2, 0).toPoint());
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.last().at(0).toInt(), 2);
    QCOMPARE(spy.last().at(1).toInt(), 0);
    QCOMPARE(spy.last().at(2).value<Qt::MouseButton>(), Qt::RightButton);

    // Outside the map: nothing.
    QTest::mouseClick(&plot, Qt::LeftButton, Qt::NoModifier, QPoint(3, 3));
    QCOMPARE(spy.count(), 2);
}

void TestHeatmap::toolTipAsksProviderForCell()
{
    HeatmapPlot plot;
    showPlot(plot);
    plot.setData(weights3x3());
    plot.replot(QCustomPlot::rpImmediateRefresh);
    int calledRow = -2, calledCol = -2, calls = 0;
    plot.setToolTipProvider([&](int row, int col) {
        calledRow = row;
        calledCol = col;
        ++calls;
        return QStringLiteral("cell %1,%2").arg(row).arg(col);
    });
    const QPoint pos = offCentre(plot, 2, 1).toPoint();
    QHelpEvent help(QEvent::ToolTip, pos, plot.mapToGlobal(pos));
    QApplication::sendEvent(&plot, &help);
    QCOMPARE(calls, 1);
    QCOMPARE(calledRow, 2);
    QCOMPARE(calledCol, 1);

    // Not over a cell: the provider is not asked.
    QHelpEvent outside(QEvent::ToolTip, QPoint(2, 2), plot.mapToGlobal(QPoint(2, 2)));
    QApplication::sendEvent(&plot, &outside);
    QCOMPARE(calls, 1);
}

void TestHeatmap::shapeChangeResizesMap()
{
    HeatmapPlot plot;
    showPlot(plot);
    plot.setData(weights3x3());
    render(plot);
    QCOMPARE(plot.colorMap()->data()->keySize(), 3);
    QCOMPARE(plot.colorMap()->data()->valueSize(), 3);

    HeatmapData row;
    row.values = matrix(1, 5, {0.1, 0.2, 0.3, 0.15, 0.25});
    row.rowLabels = {QStringLiteral("q")};
    plot.setData(row);
    const QImage image = render(plot);
    QCOMPARE(plot.rowCount(), 1);
    QCOMPARE(plot.columnCount(), 5);
    QCOMPARE(plot.colorMap()->data()->keySize(), 5);
    // A single row is stored as two half rows (a one-cell map has no extent).
    QCOMPARE(plot.colorMap()->data()->valueSize(), 2);
    QCPColorGradient g = plot.activeGradient();
    COMPARE_COLOR(pixelAt(image, offCentre(plot, 0, 4)), QColor(g.color(0.25, QCPRange(0, 1))));
    // The one row fills its cells from top to bottom.
    const QRectF cell = plot.cellRect(0, 2);
    COMPARE_COLOR(pixelAt(image, cell.topLeft() + QPointF(cell.width() / 2, 3)), QColor(g.color(0.3, QCPRange(0, 1))));
    COMPARE_COLOR(pixelAt(image, cell.bottomLeft() + QPointF(cell.width() / 2, -3)), QColor(g.color(0.3, QCPRange(0, 1))));
    QCOMPARE(plot.cellAt(plot.cellCenter(0, 4)), std::make_pair(0, 4));
    QCOMPARE(plot.cellAt(plot.cellCenter(0, 4) + QPointF(0, cell.height())), std::make_pair(-1, -1));

    HeatmapData tall;
    tall.values = matrix(4, 2, {1, 2, 3, 4, 5, 6, 7, 8});
    tall.scale = HeatmapScale::SequentialAuto;
    plot.setData(tall);
    render(plot);
    QCOMPARE(plot.colorMap()->data()->keySize(), 2);
    QCOMPARE(plot.colorMap()->data()->valueSize(), 4);
    QCOMPARE(plot.cellAt(plot.cellCenter(3, 1)), std::make_pair(3, 1));

    HeatmapData one;
    one.values = matrix(1, 1, {0.5});
    plot.setData(one);
    const QImage single = render(plot);
    COMPARE_COLOR(pixelAt(single, offCentre(plot, 0, 0)), QColor(g.color(0.5, QCPRange(0, 1))));
}

// Weights in a room short for eight rows but wide, with their labels, row
// notes and legend (a Chinese window's taller lines leave the model mode's
// weights map such a room): the cells widen, up to 2.2 times their height,
// until "0.00" fits, rather than stay near square and drop every number.
void TestHeatmap::shortRoomWidensWeightCells()
{
    HeatmapPlot plot;
    HeatmapData d;
    Matrix w = Matrix::Zero(8, 8);
    for (int i = 0; i < 8; ++i)
        w.row(i).head(i + 1).setConstant(1.0 / (i + 1));
    d.values = w;
    d.scale = HeatmapScale::Probability;
    d.title = QStringLiteral("Softmax weights\ncausal");
    d.rowLabels = d.colLabels = QStringList{"say", "cat", "red", "box", ".", "say", "cat", "red"};
    d.colAxisLabel = QStringLiteral("keys");
    d.rowAxisLabel = QStringLiteral("queries");
    d.colorBarLabel = QStringLiteral("weight");
    d.rowNotesLabel = QStringLiteral("max · H");
    d.rowNotesLegend = QStringLiteral("max = the largest weight in the row · H = the row's entropy in nats (0: all on one key)");
    for (int i = 0; i < 8; ++i)
        d.rowNotes << QStringLiteral("%1 · %2").arg(1.0 / (i + 1), 0, 'f', 2).arg(std::log(i + 1.0), 0, 'f', 2);
    plot.setData(d);
    showPlot(plot, 480, 240); // 8 rows of about 16 px: 1.5 x 16 = 24 px is too narrow for "0.00" with its pad
    render(plot);
    const QRectF cell = plot.cellRect(0, 0);
    QVERIFY2(cell.width() > 1.5 * cell.height() + 0.5,
             qPrintable(QStringLiteral("%1 x %2").arg(cell.width()).arg(cell.height())));
    QVERIFY2(cell.width() <= 2.2 * cell.height() + 1, qPrintable(QStringLiteral("%1 x %2").arg(cell.width()).arg(cell.height())));
    QVERIFY2(plot.drawnDecimals() >= 2, qPrintable(QString::number(plot.drawnDecimals())));
    QCOMPARE(plot.cellLabel(2, 0), HeatmapPlot::formatValue(1.0 / 3, plot.drawnDecimals()));
    QVERIFY(plot.cellLabel(2, 0).startsWith(QStringLiteral("0.33")));
}

// A title wider than the map does not squeeze the colour bar: the bar keeps
// its width and shows the gradient (it once shrank to a sliver).
void TestHeatmap::longTitleKeepsTheColourBar()
{
    HeatmapPlot plot;
    showPlot(plot);
    HeatmapData d = weights3x3();
    plot.setData(d);
    render(plot);
    const int normal = plot.colorScale()->outerRect().width();
    QVERIFY(normal > 20);
    d.title = QStringLiteral("Scores  s = cos(q, k)\n") + QStringLiteral("head 1 of 8 · causal · cosine · sinusoidal PE · ").repeated(4);
    plot.setData(d);
    const QImage image = render(plot);
    QCOMPARE(plot.colorScale()->outerRect().width(), normal);
    // The middle of the bar has the gradient's colour at 0.5.
    const QRect bar = plot.colorScale()->axis()->axisRect()->rect();
    const QColor mid = pixelAt(image, QPointF(bar.center()));
    COMPARE_COLOR(mid, QColor(plot.activeGradient().color(0.5, QCPRange(0, 1))));
}

// Token labels are turned upright, then made smaller, before any is left
// out; at a comfortable size they stay flat in the plot's own font.
void TestHeatmap::everyTokenLabelIsWritten()
{
    auto written = [](QCPAxis *axis) {
        return qSharedPointerCast<QCPAxisTickerText>(axis->ticker())->ticks().size();
    };
    HeatmapPlot plot;
    HeatmapData d;
    d.values = randomMatrix(5, 5, 3);
    d.rowLabels = d.colLabels = QStringList{"我", "喜欢", "学习", "注意力", "机制"};
    plot.setData(d);
    showPlot(plot, 700, 600);
    render(plot);
    QCOMPARE(written(plot.xAxis2), 5);
    QCOMPARE(written(plot.yAxis), 5);
    QCOMPARE(plot.xAxis2->tickLabelRotation(), 0.0);
    QCOMPARE(plot.xAxis2->tickLabelFont(), plot.font());
    // Small, at a projector's font: still every label.
    QFont big = plot.font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    plot.setFont(big);
    plot.resize(300, 330);
    render(plot);
    QCOMPARE(written(plot.xAxis2), 5);
    QCOMPARE(written(plot.yAxis), 5);
    QVERIFY(plot.xAxis2->tickLabelRotation() != 0.0 || plot.xAxis2->tickLabelFont() != plot.font());
    // Back to room: back to the plot's font, flat.
    plot.resize(900, 700);
    render(plot);
    QCOMPARE(plot.xAxis2->tickLabelFont(), plot.font());
    QCOMPARE(plot.xAxis2->tickLabelRotation(), 0.0);
}

// The label layout is kept while only the numbers change (a drag), but not
// once it no longer fits: a range that grows widens the colour bar's labels
// and narrows the cells. At every width, after such a change, the key labels
// written do not overlap.
void TestHeatmap::keptLabelLayoutStillFits()
{
    HeatmapData narrowRange;
    narrowRange.values = Matrix(6, 6);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            narrowRange.values(i, j) = (i - j) * 0.3;
    narrowRange.scale = HeatmapScale::Diverging;
    narrowRange.colLabels = narrowRange.rowLabels = QStringList{"alpha", "beta", "gamma", "delta", "epsil", "zeta"};
    HeatmapData wideRange = narrowRange;
    wideRange.values *= 100000.0; // colour bar labels like "−100000"
    for (int width = 230; width <= 480; width += 6) {
        HeatmapPlot plot;
        plot.setData(narrowRange);
        showPlot(plot, width, 360);
        render(plot);
        plot.setData(wideRange);
        render(plot);
        const auto ticks = qSharedPointerCast<QCPAxisTickerText>(plot.xAxis2->ticker())->ticks();
        QVERIFY(!ticks.isEmpty());
        const QFontMetricsF fm(plot.xAxis2->tickLabelFont());
        const double cellWidth = plot.cellRect(0, 0).width();
        const QList<double> at = ticks.keys();
        for (int k = 0; k + 1 < at.size(); ++k) {
            const double apart = (at[k + 1] - at[k]) * cellWidth;
            const double needed = plot.xAxis2->tickLabelRotation() != 0.0
                                      ? fm.height()
                                      : (fm.horizontalAdvance(ticks[at[k]]) + fm.horizontalAdvance(ticks[at[k + 1]])) / 2
                                            + fm.height() * 0.4; // the gap the plot keeps between flat labels
            QVERIFY2(apart >= needed, qPrintable(QStringLiteral("width %1: labels %2 and %3 are %4 px apart, need %5")
                                                     .arg(width).arg(ticks[at[k]], ticks[at[k + 1]]).arg(apart).arg(needed)));
        }
    }
}

void TestHeatmap::autoCellTextDependsOnSize()
{
    HeatmapPlot plot;
    showPlot(plot);
    plot.setData(weights3x3());
    render(plot);
    QVERIFY(plot.cellTextVisible());

    HeatmapData big;
    big.values = randomMatrix(128, 128, 1);
    plot.setData(big);
    render(plot);
    QVERIFY(!plot.cellTextVisible());
    // Always overrides the fit, but not for cells too small for a glyph.
    plot.setCellText(CellTextMode::Always);
    render(plot);
    QVERIFY(!plot.cellTextVisible());
    HeatmapData medium;
    medium.values = randomMatrix(32, 32, 1);
    plot.setData(medium);
    render(plot);
    QVERIFY(plot.cellTextVisible());
    plot.setCellText(CellTextMode::Auto);
    render(plot);
    QVERIFY(!plot.cellTextVisible());

    plot.setData(weights3x3());
    plot.setCellText(CellTextMode::Never);
    render(plot);
    QVERIFY(!plot.cellTextVisible());
    plot.setCellText(CellTextMode::Auto);
    render(plot);
    QVERIFY(plot.cellTextVisible());
}

void TestHeatmap::fontChangeGrowsFonts()
{
    HeatmapPlot plot;
    showPlot(plot);
    plot.setData(weights3x3());
    render(plot);
    const double tick = plot.yAxis->tickLabelFont().pointSizeF();
    const double title = plot.titleElement()->font().pointSizeF();
    const double bar = plot.colorScale()->axis()->labelFont().pointSizeF();
    QVERIFY(tick > 0);

    QFont f = plot.font();
    f.setPointSizeF(f.pointSizeF() * 2);
    plot.setFont(f); // a FontChange event, as when the application font grows
    QCOMPARE(plot.yAxis->tickLabelFont().pointSizeF(), 2 * tick);
    QCOMPARE(plot.xAxis2->tickLabelFont().pointSizeF(), 2 * tick);
    QCOMPARE(plot.titleElement()->font().pointSizeF(), 2 * title);
    QCOMPARE(plot.colorScale()->axis()->labelFont().pointSizeF(), 2 * bar);

    // The key labels really are taller: the map starts lower.
    const double topBefore = plot.cellRect(0, 0).top();
    render(plot);
    QVERIFY2(plot.cellRect(0, 0).top() > topBefore,
             qPrintable(QStringLiteral("%1 -> %2").arg(topBefore).arg(plot.cellRect(0, 0).top())));
}

void TestHeatmap::highlightDrawsOutline()
{
    HeatmapPlot plot;
    showPlot(plot);
    plot.setData(weights3x3());
    plot.setCellText(CellTextMode::Never);
    const QImage before = render(plot);
    const QRectF cell = plot.cellRect(1, 1);
    const QPointF edge(cell.center().x(), cell.top() + 1);
    const QColor plain = pixelAt(before, edge);

    plot.setHighlight(1, 1);
    QCOMPARE(plot.highlightRow(), 1);
    QCOMPARE(plot.highlightColumn(), 1);
    // The highlight layer repaints at once, without a full replot.
    const QColor onScreen = pixelAt(plot.grab().toImage(), edge);
    QVERIFY2(colorMismatch(onScreen, plain, 40), qPrintable(colorText(onScreen)));
    const QImage after = render(plot);
    const QColor outlined = pixelAt(after, edge);
    QVERIFY2(colorMismatch(outlined, plain, 40), qPrintable(colorText(outlined)));
    // Black or white: visible on any colour of the scale.
    QVERIFY2(!colorMismatch(outlined, Qt::black, 40) || !colorMismatch(outlined, Qt::white, 40),
             qPrintable(colorText(outlined)));

    plot.setHighlight(-1, -1);
    const QImage cleared = render(plot);
    COMPARE_COLOR(pixelAt(cleared, edge), plain);
}

void TestHeatmap::columnGroupSeparator()
{
    HeatmapPlot plot;
    showPlot(plot);
    HeatmapData d;
    d.values = Matrix::Constant(2, 4, 0.5);
    d.columnGroup = 2;
    plot.setData(d);
    plot.setCellText(CellTextMode::Never);
    const QImage image = render(plot);
    // Pixels across a column boundary, at mid-height of row 0.
    auto blackAcross = [&](int col) {
        const QRectF r = plot.cellRect(0, col);
        int black = 0;
        for (int dx = -3; dx <= 3; ++dx)
            black += !colorMismatch(image.pixelColor(int(r.left()) + dx, int(r.center().y())), QColor(Qt::black), 30);
        return black;
    };
    QVERIFY2(blackAcross(2) > 0, "no head separator between columns 1 and 2");
    QCOMPARE(blackAcross(1), 0);
    QCOMPARE(blackAcross(3), 0);
}

void TestHeatmap::gradientChangeRecolours()
{
    HeatmapPlot plot;
    showPlot(plot);
    plot.setData(weights3x3());
    render(plot);
    QCPColorGradient magma = sequentialGradient(SequentialGradient::Magma);
    plot.setSequentialGradient(magma);
    QCOMPARE(plot.colorMap()->gradient(), magma);
    QCOMPARE(plot.colorScale()->gradient(), magma);
    const QImage image = render(plot);
    COMPARE_COLOR(pixelAt(image, offCentre(plot, 1, 1)), QColor(magma.color(0.9, QCPRange(0, 1))));

    // A diverging gradient does not touch a probability map.
    plot.setDivergingGradient(divergingGradient(DivergingGradient::PurpleOrange));
    QCOMPARE(plot.colorMap()->gradient(), magma);
}

void TestHeatmap::compactHidesColourScale()
{
    HeatmapPlot plot;
    showPlot(plot, 260, 220);
    HeatmapData d = weights3x3();
    d.rowNotes = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
    plot.setData(d);
    render(plot);
    QVERIFY(plot.colorScale()->visible());
    QVERIFY(plot.yAxis2->visible());
    const double widthBefore = plot.cellRect(0, 0).width();

    plot.setCompact(true);
    render(plot);
    QVERIFY(!plot.colorScale()->visible());
    QVERIFY(!plot.yAxis2->visible());
    QVERIFY(!plot.cellTextVisible());
    QVERIFY2(plot.cellRect(0, 0).width() > widthBefore, "the cells did not take the colour bar's room");

    plot.setCompact(false);
    render(plot);
    QVERIFY(plot.colorScale()->visible());
    QCOMPARE(plot.plotLayout()->element(1, 1), static_cast<QCPLayoutElement *>(plot.colorScale()));
}

void TestHeatmap::largeBlockedMapDrawsEveryCell()
{
    HeatmapPlot plot;
    showPlot(plot);
    HeatmapData d;
    d.values = randomMatrix(128, 128, 2);
    d.blocked = BoolMatrix::Constant(128, 128, false);
    for (int i = 0; i < 128; ++i)
        for (int j = i + 1; j < 128; ++j)
            d.blocked(i, j) = true;
    d.blockedText = QStringLiteral("0");
    for (int i = 0; i < 128; ++i) {
        d.rowLabels << QStringLiteral("token%1").arg(i);
        d.colLabels << QStringLiteral("token%1").arg(i);
    }
    // Its speed is measured in bench_drag, not asserted here.
    plot.setData(d);
    const QImage image = render(plot);
    QCPColorGradient g = plot.activeGradient();
    const QColor open = pixelAt(image, plot.cellCenter(100, 3));
    COMPARE_COLOR(open, QColor(g.color(d.values(100, 3), QCPRange(0, 1))));
    const QColor blocked = pixelAt(image, plot.cellCenter(3, 100));
    QVERIFY2(std::abs(blocked.red() - blocked.blue()) <= 2 && distanceToGradient(g, blocked) > 20,
             qPrintable(colorText(blocked)));
    // Rows 0..127 map to 0..127 under the pointer.
    QCOMPARE(plot.cellAt(plot.cellCenter(127, 0)), std::make_pair(127, 0));
    QCOMPARE(plot.cellAt(plot.cellCenter(64, 65)), std::make_pair(64, 65));
}

void TestHeatmap::zeroSizeWidget()
{
    // A collapsed splitter pane: nothing to draw, and nothing to complain about.
    QTest::failOnWarning(QRegularExpression(QStringLiteral(".*")));
    QWidget window;
    window.resize(300, 200);
    auto *collapsed = new HeatmapPlot(&window);
    collapsed->resize(0, 0);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    collapsed->setData(weights3x3());
    collapsed->setHighlight(1, 1);
    collapsed->setCellText(CellTextMode::Always);
    collapsed->replot(QCustomPlot::rpImmediateRefresh); // what the queued replot would do
    QCOMPARE(collapsed->cellAt(QPointF(0, 0)), std::make_pair(-1, -1));
    QVERIFY(!collapsed->cellTextVisible());
    QVERIFY(collapsed->cellRect(0, 0).isEmpty());
    // It still exports at a size asked for.
    const QImage image = collapsed->renderImage(300, 250, 1.0);
    QCOMPARE(image.size(), QSize(300, 250));
    QCPColorGradient g = collapsed->activeGradient();
    int hits = 0;
    const QColor expected(g.color(0.9, QCPRange(0, 1)));
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            hits += !colorMismatch(image.pixelColor(x, y), expected);
    QVERIFY2(hits > 50, "the exported picture has no cell of weight 0.9");

    // Growing again draws normally.
    collapsed->resize(280, 180);
    collapsed->replot(QCustomPlot::rpImmediateRefresh);
    QCOMPARE(collapsed->cellAt(collapsed->cellCenter(2, 2)), std::make_pair(2, 2));
}

void TestHeatmap::robustForDegenerateSizes()
{
    HeatmapPlot plot;
    plot.resize(400, 300);
    plot.setData(weights3x3());
    plot.replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(plot.yAxis->tickVectorLabels().contains(QStringLiteral("q1")));
    HeatmapData empty; // 0 x 0, no labels
    plot.setData(empty);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    QCOMPARE(plot.rowCount(), 0);
    QVERIFY2(plot.yAxis->tickVectorLabels().isEmpty(), "labels of the previous data stayed");
    QVERIFY(plot.xAxis2->tickVectorLabels().isEmpty());
    QVERIFY(!plot.colorMap()->visible());
    QVERIFY(!plot.renderImage(200, 100, 1.0).isNull());

    // Masks and label lists of the wrong size are ignored or padded.
    HeatmapData odd = weights3x3();
    odd.blocked = BoolMatrix::Constant(2, 2, true);
    odd.rowLabels = {QStringLiteral("only one")};
    odd.rowNotes = {QStringLiteral("n")};
    odd.rowFlagged = {true};
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression("blocked mask"));
    plot.setData(odd);
    const QImage image = render(plot);
    QCOMPARE(plot.data().blocked.size(), Eigen::Index(0));
    QCOMPARE(int(plot.colorMap()->data()->alpha(1, 1)), 255);
    QCOMPARE(plot.cellAt(plot.cellCenter(2, 2)), std::make_pair(2, 2));
    QVERIFY(!image.isNull());

    // 256 x 256 in a small widget.
    HeatmapData huge;
    huge.values = randomMatrix(256, 256, 3);
    plot.resize(300, 200);
    plot.setData(huge);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    QCOMPARE(plot.cellAt(plot.cellCenter(255, 255)), std::make_pair(255, 255));
}

void TestHeatmap::cellUpdatesDrawAsFreshData_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<bool>("diverging");
    // More cells than pixels (a drag at n = 1024 shrinks them), fewer, and a mix.
    QTest::newRow("700x650 diverging") << 700 << 650 << true;
    QTest::newRow("9x7 probability") << 9 << 7 << false;
    QTest::newRow("600x12 diverging") << 600 << 12 << true;
}

// updateCells colours only the pixels of the rows and columns it was told
// changed. After a run of such updates (rows, a column, the colour range,
// blocked cells in the changed rows) the plot draws pixel for pixel what a
// plot given the final data whole draws, its colour map holds the same
// cells, and a shape change afterwards draws as fresh too.
void TestHeatmap::cellUpdatesDrawAsFreshData()
{
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(bool, diverging);
    HeatmapData d;
    d.values = randomMatrix(rows, cols, 7u);
    if (diverging) {
        d.values = (d.values.array() * 4.0 - 2.0).matrix();
        d.scale = HeatmapScale::Diverging;
        d.range = 2.0;
    }
    d.blocked = BoolMatrix::Constant(rows, cols, false);
    d.blocked(rows / 2, cols / 3) = true; // a transparent cell that stays
    d.title = QStringLiteral("cells");
    HeatmapPlot plot;
    showPlot(plot, 520, 480);
    plot.setData(d);
    render(plot);

    std::srand(11u);
    auto noise = [&](int r, int c) {
        const Matrix m = randomMatrix(r, c, unsigned(std::rand()));
        return diverging ? Matrix((m.array() * 4.0 - 2.0).matrix()) : m;
    };
    struct Step {
        int first, count, column;
        double range;
    };
    const std::vector<Step> steps = {
        {3, 1, -1, 2.0},            // one row
        {0, 0, cols - 1, 2.0},      // one column
        {rows - 2, 2, 1, 2.0},      // the last two rows and a column
        {rows / 2, 1, cols / 2, 2.5}, // a new colour range: every pixel again
        {1, rows - 2, -1, 2.5},     // nearly every row (a key's drag rescales every weight)
        {5 % rows, 1, 0, 2.5},
    };
    for (const Step &step : steps) {
        plot.updateCells(step.first, step.count, step.column, [&](HeatmapData &data) {
            if (step.count > 0)
                data.values.middleRows(step.first, step.count) = noise(step.count, cols);
            if (step.column >= 0)
                data.values.col(step.column) = noise(rows, 1);
            // Keep the one blocked cell's value as it was: the cell stays hidden.
            if (diverging)
                data.range = step.range;
        });
        d = plot.data();
        // Drawn after every step, so the next step starts from a partly updated image.
        const QImage updated = render(plot);
        HeatmapPlot fresh;
        showPlot(fresh, 520, 480);
        fresh.setData(d);
        const QImage whole = render(fresh);
        QCOMPARE(updated.size(), whole.size());
        QVERIFY2(updated == whole, qPrintable(QStringLiteral("step at row %1: the images differ").arg(step.first)));
        QCOMPARE(plot.dataRange(), fresh.dataRange());
        QCPColorMapData *a = plot.colorMap()->data(), *b = fresh.colorMap()->data();
        for (int v = 0; v < b->valueSize(); ++v)
            for (int k = 0; k < b->keySize(); ++k)
                // A hidden cell (alpha 0) keeps a placeholder value that is never drawn.
                QVERIFY(a->alpha(k, v) == b->alpha(k, v) && (b->alpha(k, v) == 0 || a->cell(k, v) == b->cell(k, v)));
    }
    // The changed cells show their own colours (not only "as fresh").
    QCPColorGradient g = plot.activeGradient();
    const QImage image = render(plot);
    const int r = 5 % rows;
    const QPointF at = offCentre(plot, r, 0); // clear of the cell's number
    if (plot.cellRect(r, 0).width() >= 3 && plot.cellRect(r, 0).height() >= 3)
        COMPARE_COLOR(pixelAt(image, at), QColor(g.color(d.values(r, 0), plot.dataRange())));

    // Another shape after the updates: drawn as fresh.
    HeatmapData other = d;
    other.values = randomMatrix(rows + 1, cols - 1, 3u);
    other.blocked = BoolMatrix();
    other.scale = HeatmapScale::Probability;
    plot.setData(other);
    HeatmapPlot fresh;
    showPlot(fresh, 520, 480);
    fresh.setData(other);
    QVERIFY(render(plot) == render(fresh));
    // And a 2x export of the updated plot equals the fresh one's.
    QVERIFY(plot.renderImage(520, 480, 2.0) == fresh.renderImage(520, 480, 2.0));
}

// On a high-DPI screen QCustomPlot paints into a pixmap whose device pixel
// ratio is not in the painter's transform. The cells must still be coloured
// pixel by device pixel (not drawn at half resolution and scaled up): the
// map painted at a ratio of 2 is the map of a 2x export, pixel for pixel.
void TestHeatmap::highDpiDrawsDevicePixels()
{
    HeatmapData d;
    d.values = randomMatrix(300, 280, 11u); // cells smaller than a pixel: every device pixel samples its own cell
    d.title = QStringLiteral("cells");
    HeatmapPlot plot;
    showPlot(plot, 520, 480);
    plot.setData(d);
    render(plot);
    QPixmap pixmap(QSize(520, 480) * 2);
    pixmap.setDevicePixelRatio(2.0);
    pixmap.fill(Qt::white);
    {
        QCPPainter painter(&pixmap);
        plot.toPainter(&painter, 520, 480);
    }
    const QImage hiDpi = pixmap.toImage();
    const QImage exported = plot.renderImage(520, 480, 2.0);
    QCOMPARE(hiDpi.size(), exported.size());
    // The cells' area, in device pixels, a pixel inside its edges.
    const QRectF cells = plot.cellRect(0, 0).united(plot.cellRect(299, 279));
    const QRect area = QRectF(cells.topLeft() * 2, cells.bottomRight() * 2).toRect().adjusted(2, 2, -2, -2);
    QVERIFY(area.width() > 300 && area.height() > 300);
    int differ = 0;
    for (int y = area.top(); y <= area.bottom(); ++y)
        for (int x = area.left(); x <= area.right(); ++x)
            differ += hiDpi.pixel(x, y) != exported.pixel(x, y);
    QVERIFY2(differ == 0, qPrintable(QStringLiteral("%1 of %2 device pixels differ").arg(differ).arg(area.width() * area.height())));
}

QTEST_MAIN(TestHeatmap)
#include "test_heatmap.moc"
