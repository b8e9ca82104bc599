#include "heatmapplot.h"
#include "heatmapaccessible.h"

#include "numbers.h"

#include "gradients.h"

#include <QFontMetricsF>
#include <QGraphicsOpacityEffect>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace attn {

namespace {

// The theme a plot made now starts with (setWindowPlotTheme).
FigureTheme g_windowTheme = FigureTheme::Default;

constexpr int kDecimals[3] = {4, 3, 2};
// Big values only (the largest |value| ≥ 10): one decimal, then none
// (17.3, 17, −104), rather than no numbers in a cell that holds three or
// four characters. A model's scores reach ±100 where a lesson's stay under 10.
constexpr int kBigDecimals[2] = {1, 0};
bool bigEnoughFor(double maxAbs, int)
{
    return maxAbs >= 10.0;
}
constexpr double kMaxAspect = 1.5; // cells at most this much taller than wide, or wider than tall
constexpr double kMaxWideAspectFewColumns = 3.0; // ... but up to 3x wider than tall in maps of <= 3 columns
constexpr double kMaxTextAspect = 2.2; // ... or as wide as the numbers need, up to this
constexpr int kMaxLabelChars = 16;
// A tick label's line, and the gap between flat neighbours, in the labels' font heights.
constexpr double kTickLine = 1.1, kTickGap = 0.4;

QFont scaledFont(QFont f, double factor)
{
    if (f.pointSizeF() > 0)
        f.setPointSizeF(f.pointSizeF() * factor);
    else if (f.pixelSize() > 0)
        f.setPixelSize(std::max(1, int(std::lround(f.pixelSize() * factor))));
    return f;
}

// Cell centres sit on integer coordinates. QCPColorMap spans its key range
// with cell centres and adds half a cell on each side, so n cells need the
// range [0, n-1]; one cell has no extent to add, so it is stored as two
// half-cells around 0.
QCPRange storedSpan(int n)
{
    return n >= 2 ? QCPRange(0.0, n - 1.0) : QCPRange(-0.25, 0.25);
}

double luminance(QRgb c)
{
    auto lin = [](int v) {
        const double s = v / 255.0;
        return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(qRed(c)) + 0.7152 * lin(qGreen(c)) + 0.0722 * lin(qBlue(c));
}

// Black or white, whichever contrasts more (WCAG crossover).
QColor textColorOn(QRgb background)
{
    return luminance(background) > 0.179 ? QColor(Qt::black) : QColor(Qt::white);
}

QString elideLabel(const QString &s)
{
    return s.size() > kMaxLabelChars ? s.left(kMaxLabelChars - 1) + QChar(0x2026) : s;
}

// Segments of the 45° hatch lines x + y = k*spacing inside rect, anchored to
// the widget so that neighbouring runs continue each other's pattern.
void addHatch(const QRectF &r, double spacing, QVector<QLineF> &out)
{
    const double cMin = r.left() + r.top();
    const double cMax = r.right() + r.bottom();
    for (double c = std::ceil(cMin / spacing) * spacing; c <= cMax; c += spacing) {
        const double x1 = std::max(r.left(), c - r.bottom());
        const double x2 = std::min(r.right(), c - r.top());
        if (x2 > x1)
            out.append(QLineF(x1, c - x1, x2, c - x2));
    }
}

// Widths of label and note texts by font, for every plot of the process
// (GUI thread only). A map at n = 1024 measures its 1024 key labels and
// 1024 row notes on every layout, and shaping a string costs microseconds;
// the labels stay and the notes repeat ("0.01 · 6.86").
class TextWidths {
public:
    explicit TextWidths(const QFont &font) : m_font(font), m_widths(cache()[font.key()])
    {
        if (m_widths.size() > 100000)
            m_widths.clear();
    }
    double operator()(const QString &text)
    {
        const auto it = m_widths.constFind(text);
        if (it != m_widths.constEnd())
            return *it;
        if (!m_metrics)
            m_metrics.emplace(m_font);
        const double w = m_metrics->horizontalAdvance(text);
        m_widths.insert(text, w);
        return w;
    }

private:
    static QHash<QString, QHash<QString, double>> &cache()
    {
        static QHash<QString, QHash<QString, double>> widths;
        if (widths.size() > 16)
            widths.clear(); // many zoom levels seen: start again
        return widths;
    }
    QFont m_font;
    QHash<QString, double> &m_widths; // valid while no other TextWidths is made
    std::optional<QFontMetricsF> m_metrics;
};

// Pixel edges of the cells of the current layout: xs has n_cols + 1
// entries left to right, ys has n_rows + 1 entries top to bottom.
struct CellGrid {
    QVector<double> xs, ys;
    bool valid() const { return xs.size() > 1 && ys.size() > 1; }
    double width() const { return (xs.last() - xs.first()) / (xs.size() - 1); }
    double height() const { return (ys.last() - ys.first()) / (ys.size() - 1); }
    QRectF cell(int r, int c) const { return QRectF(QPointF(xs[c], ys[r]), QPointF(xs[c + 1], ys[r + 1])); }
    QRectF all() const { return QRectF(QPointF(xs.first(), ys.first()), QPointF(xs.last(), ys.last())); }
};

CellGrid cellGrid(const QCustomPlot *plot, int rows, int cols)
{
    CellGrid g;
    const QRect ar = plot->axisRect()->rect();
    if (rows <= 0 || cols <= 0 || ar.width() < 1 || ar.height() < 1)
        return g;
    g.xs.resize(cols + 1);
    g.ys.resize(rows + 1);
    for (int j = 0; j <= cols; ++j)
        g.xs[j] = plot->xAxis2->coordToPixel(j - 0.5);
    for (int i = 0; i <= rows; ++i)
        g.ys[i] = plot->yAxis->coordToPixel(i - 0.5);
    return g;
}

// Draws a rectangle outline twice, dark then light, so that it stands out
// on every colour of every gradient.
void haloRect(QCPPainter *p, const QRectF &r, double width, Qt::PenStyle style = Qt::SolidLine)
{
    QPen dark(QColor(0, 0, 0), width * 2.0);
    dark.setJoinStyle(Qt::MiterJoin);
    p->setPen(dark);
    p->setBrush(Qt::NoBrush);
    p->drawRect(r);
    QPen light(QColor(255, 255, 255), width, style);
    light.setJoinStyle(Qt::MiterJoin);
    p->setPen(light);
    p->drawRect(r);
}

} // namespace

// QCPColorMapData keeps its numbers and its "modified" flag to itself and
// its QCPColorMap; pointers to those members, formed in a derived class,
// reach them for HeatmapColorMap.
struct ColorMapDataPeek : QCPColorMapData {
    static const double *values(const QCPColorMapData *d) { return d->*(&ColorMapDataPeek::mData); }
    static const unsigned char *alpha(const QCPColorMapData *d) { return d->*(&ColorMapDataPeek::mAlpha); }
    static double *mutableValues(QCPColorMapData *d) { return d->*(&ColorMapDataPeek::mData); }
    static unsigned char *mutableAlpha(QCPColorMapData *d) { return d->*(&ColorMapDataPeek::mAlpha); }
    static void setUnmodified(QCPColorMapData *d) { d->*(&ColorMapDataPeek::mDataModified) = false; }
};

// QCPColorMap colours an image of one pixel per cell (a million at
// n = 1024), after any setCell colours all of it again, and on every replot
// copies it mirrored (the query axis runs downwards) before scaling it to a
// few hundred pixels. This one keeps an image of the device pixels the map
// covers instead: each pixel has the colour of the cell under its centre,
// the same cells the grid of HeatmapCellLayer outlines. After markCells only
// the pixels of the marked rows and columns are coloured again; the image
// is blitted 1:1. Vector exports (PDF, SVG) take QCPColorMap's own drawing.
class HeatmapColorMap : public QCPColorMap {
public:
    using QCPColorMap::QCPColorMap;

    // The cells written since the last image: rows [first, first + count)
    // and column `col` (-1: none), added to what was marked before.
    void markCells(int first, int count, int col)
    {
        if (m_all)
            return;
        for (int i = first; i < first + count; ++i)
            m_rows.push_back(i);
        if (col >= 0)
            m_cols.push_back(col);
        // A map not drawn for a while (hidden) collects no more than a whole image's worth.
        if (m_rows.size() + m_cols.size() > std::size_t(data()->keySize() + data()->valueSize()))
            markAll();
    }
    // Anything may have changed: the next image is coloured whole.
    void markAll()
    {
        m_all = true;
        m_rows.clear();
        m_cols.clear();
    }
    // The image drawn last (device pixels) and where it went; for tests.
    const QImage &pixelImage() const { return m_image; }

protected:
    void draw(QCPPainter *painter) override
    {
        QCPColorMapData *d = data();
        // Device pixels: on a high-DPI screen QCustomPlot paints into a pixmap
        // whose device pixel ratio is not in painter->transform().
        const qreal dpr = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
        const QTransform t = painter->transform() * QTransform::fromScale(dpr, dpr);
        if (d->isEmpty() || !keyAxis() || !valueAxis() || keyAxis()->orientation() != Qt::Horizontal
            || painter->modes().testFlag(QCPPainter::pmVectorized) || t.type() > QTransform::TxScale) {
            // QCPColorMap's image is not kept up to date here: colour it whole.
            mMapImageInvalidated = true;
            m_image = QImage();
            QCPColorMap::draw(painter);
            return;
        }
        // The cells' outer edges in device pixels, rounded to whole pixels.
        const int keys = d->keySize(), lines = d->valueSize();
        const QCPRange kr = d->keyRange(), vr = d->valueRange();
        const double kHalf = 0.5 * kr.size() / (keys - 1), vHalf = 0.5 * vr.size() / (lines - 1);
        const QRectF widget = QRectF(QPointF(keyAxis()->coordToPixel(kr.lower - kHalf), valueAxis()->coordToPixel(vr.lower - vHalf)),
                                     QPointF(keyAxis()->coordToPixel(kr.upper + kHalf), valueAxis()->coordToPixel(vr.upper + vHalf)))
                                  .normalized();
        const QRectF device = t.mapRect(widget);
        const QRect target(QPoint(int(std::lround(device.left())), int(std::lround(device.top()))),
                           QPoint(int(std::lround(device.right())) - 1, int(std::lround(device.bottom())) - 1));
        if (target.width() < 1 || target.height() < 1)
            return;
        const bool whole = m_all || mMapImageInvalidated || target != m_target || m_image.isNull() || t != m_transform;
        if (whole)
            placePixels(target, t, kr.lower - kHalf, 2 * kHalf, vr.lower - vHalf, 2 * vHalf, keys, lines);
        colour(whole);
        m_all = false;
        m_rows.clear();
        m_cols.clear();
        mMapImageInvalidated = false;
        ColorMapDataPeek::setUnmodified(d);
        painter->save();
        painter->resetTransform();
        m_image.setDevicePixelRatio(dpr); // 1:1 onto the device's pixels
        painter->drawImage(QPointF(target.topLeft()) / dpr, m_image);
        painter->restore();
    }

private:
    // Which cell each device column and line shows: the one under the pixel's centre.
    void placePixels(const QRect &target, const QTransform &t, double k0, double kStep, double v0, double vStep, int keys,
                     int lines)
    {
        m_target = target;
        m_transform = t;
        const QTransform back = t.inverted();
        m_pixelKey.resize(std::size_t(target.width()));
        for (int x = 0; x < target.width(); ++x) {
            const double wx = back.map(QPointF(target.left() + x + 0.5, 0.0)).x();
            const double k = std::floor((keyAxis()->pixelToCoord(wx) - k0) / kStep);
            m_pixelKey[std::size_t(x)] = int(std::clamp(k, 0.0, keys - 1.0));
        }
        m_pixelLine.resize(std::size_t(target.height()));
        for (int y = 0; y < target.height(); ++y) {
            const double wy = back.map(QPointF(0.0, target.top() + y + 0.5)).y();
            const double v = std::floor((valueAxis()->pixelToCoord(wy) - v0) / vStep);
            m_pixelLine[std::size_t(y)] = int(std::clamp(v, 0.0, lines - 1.0));
        }
        if (m_image.size() != target.size())
            m_image = QImage(target.size(), QImage::Format_ARGB32_Premultiplied);
    }

    // Colours every pixel line (whole) or the pixels of the marked cells.
    void colour(bool whole)
    {
        QCPColorMapData *d = data();
        const int keys = d->keySize();
        const int width = m_image.width(), height = m_image.height();
        const double *values = ColorMapDataPeek::values(d);
        const unsigned char *alpha = ColorMapDataPeek::alpha(d);
        const bool log = mDataScaleType == QCPAxis::stLogarithmic;
        // A cell line's colours: every cell when the pixels are more than
        // the cells, else only the cells under a pixel.
        const bool byCell = keys <= width;
        auto colourLine = [&](int y) {
            const int v = m_pixelLine[std::size_t(y)];
            QRgb *pixels = reinterpret_cast<QRgb *>(m_image.scanLine(y));
            const double *row = values + std::size_t(v) * std::size_t(keys);
            const unsigned char *rowAlpha = alpha ? alpha + std::size_t(v) * std::size_t(keys) : nullptr;
            const int n = byCell ? keys : width;
            m_colours.resize(std::size_t(n));
            if (byCell) {
                if (rowAlpha)
                    mGradient.colorize(row, rowAlpha, mDataRange, m_colours.data(), n, 1, log);
                else
                    mGradient.colorize(row, mDataRange, m_colours.data(), n, 1, log);
                for (int x = 0; x < width; ++x)
                    pixels[x] = m_colours[std::size_t(m_pixelKey[std::size_t(x)])];
                return;
            }
            m_values.resize(std::size_t(width));
            m_alphas.resize(std::size_t(width));
            for (int x = 0; x < width; ++x) {
                const int k = m_pixelKey[std::size_t(x)];
                m_values[std::size_t(x)] = row[k];
                if (rowAlpha)
                    m_alphas[std::size_t(x)] = rowAlpha[k];
            }
            if (rowAlpha)
                mGradient.colorize(m_values.data(), m_alphas.data(), mDataRange, pixels, width, 1, log);
            else
                mGradient.colorize(m_values.data(), mDataRange, pixels, width, 1, log);
        };
        auto copyLine = [&](int from, int to) {
            std::memcpy(m_image.scanLine(to), m_image.scanLine(from), std::size_t(width) * sizeof(QRgb));
        };
        if (whole) {
            for (int y = 0; y < height; ++y) {
                if (y > 0 && m_pixelLine[std::size_t(y)] == m_pixelLine[std::size_t(y - 1)])
                    copyLine(y - 1, y);
                else
                    colourLine(y);
            }
            return;
        }
        std::sort(m_rows.begin(), m_rows.end());
        m_rows.erase(std::unique(m_rows.begin(), m_rows.end()), m_rows.end());
        std::sort(m_cols.begin(), m_cols.end());
        m_cols.erase(std::unique(m_cols.begin(), m_cols.end()), m_cols.end());
        if (!m_rows.empty()) {
            int last = -1; // the last line coloured, and its cell line
            for (int y = 0; y < height; ++y) {
                const int v = m_pixelLine[std::size_t(y)];
                if (!std::binary_search(m_rows.begin(), m_rows.end(), v))
                    continue;
                if (last >= 0 && m_pixelLine[std::size_t(last)] == v && last == y - 1)
                    copyLine(last, y);
                else
                    colourLine(y);
                last = y;
            }
        }
        if (!m_cols.empty()) {
            for (int x = 0; x < width; ++x) {
                const int k = m_pixelKey[std::size_t(x)];
                if (!std::binary_search(m_cols.begin(), m_cols.end(), k))
                    continue;
                for (int y = 0; y < height; ++y) {
                    const std::size_t at = std::size_t(m_pixelLine[std::size_t(y)]) * std::size_t(keys) + std::size_t(k);
                    QRgb *pixel = reinterpret_cast<QRgb *>(m_image.scanLine(y)) + x;
                    if (alpha)
                        mGradient.colorize(values + at, alpha + at, mDataRange, pixel, 1, 1, log);
                    else
                        mGradient.colorize(values + at, mDataRange, pixel, 1, 1, log);
                }
            }
        }
    }

    bool m_all = true;
    std::vector<int> m_rows, m_cols;
    QImage m_image;             // the map's device pixels
    QRect m_target;             // where m_image goes, device pixels
    QTransform m_transform;     // the painter's transform m_image was made for
    std::vector<int> m_pixelKey, m_pixelLine; // the cell column of each pixel column, the cell line of each pixel line
    std::vector<QRgb> m_colours;
    std::vector<double> m_values;
    std::vector<unsigned char> m_alphas;
};

// Everything that belongs to the cells: blocked cells, separators, dashed
// outlines, head boundaries, the frame and the cell values. One draw() for
// all cells, so a 256x256 map replots in milliseconds.
class HeatmapCellLayer : public QCPLayerable {
public:
    HeatmapCellLayer(HeatmapPlot *plot, const QString &layer) : QCPLayerable(plot, layer), m_plot(plot) {}

protected:
    void applyDefaultAntialiasingHint(QCPPainter *painter) const override { painter->setAntialiasing(false); }
    void draw(QCPPainter *painter) override;

private:
    HeatmapPlot *m_plot;
};

// Colour bar numbers with a true minus sign, like the cells. A bar too
// short for two of the nice ticks (a range of -4 to 4 on a bar two labels
// long gets only "0") is labelled at its ends instead, with 0 between them
// where it lies inside and there is room: a bar must say what its colours
// run between.
class ColourBarTicker : public QCPAxisTicker {
public:
    // How many labels the bar has room for (at least 2).
    void setRoom(int labels) { m_room = labels; }

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange &range) override
    {
        QVector<double> ticks = QCPAxisTicker::createTickVector(tickStep, range);
        const auto inside = std::count_if(ticks.cbegin(), ticks.cend(),
                                          [&](double t) { return t >= range.lower && t <= range.upper; });
        m_ends = inside < 2 && range.size() > 0;
        if (!m_ends)
            return ticks;
        ticks = {range.lower};
        if (m_room >= 3 && range.lower < 0 && range.upper > 0)
            ticks.append(0.0);
        ticks.append(range.upper);
        return ticks;
    }
    QVector<double> createSubTickVector(int subTickCount, const QVector<double> &ticks) override
    {
        return m_ends ? QVector<double>() : QCPAxisTicker::createSubTickVector(subTickCount, ticks);
    }
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override
    {
        if (m_ends && tick != 0.0 && std::abs(tick - std::round(tick)) > 1e-9) // "4.5": two decimals at most, as the cells
            return QString::fromStdString(compact(std::round(tick * 100) / 100, Minus::Typographic));
        return QCPAxisTicker::getTickLabel(tick, locale, formatChar, precision).replace(QLatin1Char('-'), QChar(0x2212));
    }

private:
    int m_room = 5;
    bool m_ends = false;
};

// QCPLayoutElement::calculateAutoMargin answers the element's current
// margin, so inside a margin group the colour scale would keep the largest
// margin it was ever given (a map with tall rotated labels, then one
// without, would keep the tall margin). Answering only the minimum lets the
// group follow the map's axes up and down.
class HeatmapColorScale : public QCPColorScale {
public:
    using QCPColorScale::QCPColorScale;

protected:
    int calculateAutoMargin(QCP::MarginSide side) override
    {
        return QCP::getMarginValue(minimumMargins(), side);
    }
};

// The title asks for no width in the layout grid: it sits above the map's
// column only, and a long title ("head 1 of 8 · causal · cosine ·
// sinusoidal PE") would otherwise squeeze the colour bar's column to a
// sliver. plan() gives it the whole width and updateLayout() elides it.
class HeatmapTitle : public QCPTextElement {
public:
    using QCPTextElement::QCPTextElement;

    QSize minimumOuterSizeHint() const override { return QSize(0, QCPTextElement::minimumOuterSizeHint().height()); }
};

// The linked highlight, on a buffered layer of its own so that hovering
// repaints only this layer.
class HeatmapHighlightLayer : public QCPLayerable {
public:
    HeatmapHighlightLayer(HeatmapPlot *plot, const QString &layer) : QCPLayerable(plot, layer), m_plot(plot) {}

protected:
    void applyDefaultAntialiasingHint(QCPPainter *painter) const override { painter->setAntialiasing(false); }
    void draw(QCPPainter *painter) override;

private:
    HeatmapPlot *m_plot;
};

void HeatmapCellLayer::draw(QCPPainter *painter)
{
    const HeatmapPlot &hp = *m_plot;
    const int rows = hp.rowCount(), cols = hp.columnCount();
    const CellGrid g = cellGrid(m_plot, rows, cols);
    if (!g.valid())
        return;
    const double cw = g.width(), ch = g.height();
    const QFontMetricsF fm(hp.font());
    const PlotTheme &theme = hp.m_theme;
    if (hp.blanked()) {
        painter->fillRect(g.all(), theme.hiddenFill);
        painter->setPen(QPen(theme.frame, 1.0));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(g.all().adjusted(-0.5, -0.5, -0.5, -0.5));
        return;
    }

    // Blocked and non-finite cells: grey and hatched, one rectangle per run
    // of neighbours in a row.
    QVector<QRectF> runs;
    for (int i = 0; i < rows && hp.m_anyHidden; ++i) {
        for (int j = 0; j < cols;) {
            if (!hp.m_hidden(i, j)) {
                ++j;
                continue;
            }
            const int start = j;
            while (j < cols && hp.m_hidden(i, j))
                ++j;
            runs.append(QRectF(QPointF(g.xs[start], g.ys[i]), QPointF(g.xs[j], g.ys[i + 1])));
        }
    }
    if (!runs.isEmpty()) {
        painter->setPen(Qt::NoPen);
        for (const QRectF &r : runs)
            painter->fillRect(r, theme.blockedFill);
        if (ch >= 3) {
            const double spacing = std::max(5.0, fm.height() * 0.4);
            QVector<QLineF> lines;
            for (const QRectF &r : runs)
                addHatch(r, spacing, lines);
            painter->setAntialiasing(true);
            painter->setPen(QPen(theme.blockedHatch, std::max(1.0, fm.height() / 16.0)));
            painter->drawLines(lines);
            painter->setAntialiasing(false);
        }
    }

    // Thin white separators once cells are big enough to read one by one.
    if (cw >= 18 && ch >= 18) {
        QVector<QLineF> lines;
        for (int j = 1; j < cols; ++j)
            lines.append(QLineF(g.xs[j], g.ys.first(), g.xs[j], g.ys.last()));
        for (int i = 1; i < rows; ++i)
            lines.append(QLineF(g.xs.first(), g.ys[i], g.xs.last(), g.ys[i]));
        painter->setPen(QPen(theme.separator, theme.separatorWidth));
        painter->drawLines(lines);
    }

    // "Blocked, but this stage does not apply the mask": dashed outline.
    const BoolMatrix &outlined = hp.m_data.outlined;
    if (hp.m_anyOutlined) {
        const double inset = std::min(cw, ch) >= 10 ? 2.5 : 0.5;
        const double w = std::min(cw, ch) >= 10 ? 1.5 : 1.0;
        painter->setAntialiasing(true);
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j)
                if (outlined(i, j) && !hp.m_hidden(i, j))
                    haloRect(painter, g.cell(i, j).adjusted(inset, inset, -inset, -inset), w, Qt::DashLine);
        painter->setAntialiasing(false);
    }

    // Head boundaries in a concatenation.
    const int group = hp.m_data.columnGroup;
    if (group > 0 && group < cols) {
        QVector<QLineF> lines;
        for (int j = group; j < cols; j += group)
            lines.append(QLineF(g.xs[j], g.ys.first(), g.xs[j], g.ys.last()));
        painter->setPen(QPen(theme.separator, 4.0));
        painter->drawLines(lines);
        painter->setPen(QPen(theme.dark ? QColor(Qt::white) : QColor(Qt::black), 2.0));
        painter->drawLines(lines);
    }

    painter->setPen(QPen(theme.frame, theme.separatorWidth));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(g.all().adjusted(-0.5, -0.5, -0.5, -0.5));

    // What the row notes are: a header above them, a legend under the map.
    if (hp.yAxis2->visible() && !hp.m_compact && !hp.blanked()) {
        painter->setPen(theme.noteInk);
        QFont header = hp.yAxis2->tickLabelFont();
        header.setBold(true);
        painter->setFont(header);
        painter->drawText(hp.rowNotesHeaderRect(), Qt::AlignLeft | Qt::AlignBottom, hp.m_data.rowNotesLabel);
        if (!hp.m_legendText.isEmpty()) {
            painter->setFont(hp.yAxis2->tickLabelFont());
            painter->drawText(hp.rowNotesLegendRect(), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, hp.m_legendText);
        }
    }

    // Cell values and the blocked text.
    const auto fit = hp.textFit(cw, ch);
    if (fit.decimals < 0 && !fit.blockedText)
        return;
    const QFont textFont = hp.cellTextFont(fit.font);
    const QFontMetricsF tfm(textFont);
    painter->setFont(textFont);
    QCPColorGradient gradient = hp.activeGradient();
    const QCPRange range = hp.m_range;
    const double boxPad = tfm.horizontalAdvance(QLatin1Char(' ')) * 0.5;
    const double blockedW = tfm.horizontalAdvance(hp.m_data.blockedText) + 2 * boxPad;
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            const QString text = hp.cellLabelFor(i, j, fit);
            if (text.isEmpty())
                continue;
            const QRectF cell = g.cell(i, j);
            if (hp.m_hidden(i, j)) {
                // A plain box behind the text keeps the hatching off the glyphs.
                const QRectF box(cell.center().x() - blockedW / 2, cell.center().y() - tfm.height() / 2,
                                 blockedW, tfm.height());
                painter->fillRect(box, theme.blockedFill);
                painter->setPen(theme.blockedText);
                painter->drawText(cell, Qt::AlignCenter, text);
                continue;
            }
            painter->setPen(textColorOn(gradient.color(hp.m_data.values(i, j), range)));
            painter->drawText(cell, Qt::AlignCenter, text);
        }
    }
}

void HeatmapHighlightLayer::draw(QCPPainter *painter)
{
    const HeatmapPlot &hp = *m_plot;
    const int rows = hp.rowCount(), cols = hp.columnCount();
    const int r = hp.m_highlightRow < rows ? hp.m_highlightRow : -1;
    const int c = hp.m_highlightCol < cols ? hp.m_highlightCol : -1;
    const bool current = hp.hasFocus() && hp.m_currentRow >= 0 && hp.m_currentRow < rows && hp.m_currentCol >= 0
        && hp.m_currentCol < cols;
    const HeatmapPlot::Tile &tile = hp.m_tile;
    const bool tiled = tile.row >= 0 && tile.row < rows && tile.firstCol >= 0 && tile.firstCol <= tile.lastCol
        && tile.lastCol < cols;
    if (r < 0 && c < 0 && !current && !tiled)
        return;
    const CellGrid g = cellGrid(m_plot, rows, cols);
    if (!g.valid())
        return;
    // Line widths follow the font, so they grow with the projector zoom.
    const double unit = std::max(1.5, QFontMetricsF(hp.font()).height() / 9.0);
    if (tiled) {
        const double y0 = g.ys[tile.row], y1 = g.ys[tile.row + 1];
        if (tile.firstCol > 0) { // read already: a thin dashed frame
            QPen read(hp.m_theme.ink, std::max(1.0, unit * 0.75), Qt::DashLine);
            painter->setPen(read);
            painter->setBrush(Qt::NoBrush);
            painter->drawRect(QRectF(QPointF(g.xs.first(), y0), QPointF(g.xs[tile.firstCol], y1)));
        }
        const QRectF box(QPointF(g.xs[tile.firstCol], y0), QPointF(g.xs[tile.lastCol + 1], y1));
        QPen dark(QColor(0, 0, 0), unit * 3.0);
        dark.setJoinStyle(Qt::MiterJoin);
        painter->setPen(dark);
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(box);
        QPen orange(QColor(255, 140, 0), unit * 1.8);
        orange.setJoinStyle(Qt::MiterJoin);
        painter->setPen(orange);
        painter->drawRect(box);
    }
    // The keyboard's cell: a dotted frame inside it, apart from the hover's halo.
    if (current)
        haloRect(painter, g.cell(hp.m_currentRow, hp.m_currentCol).adjusted(unit, unit, -unit, -unit), unit, Qt::DotLine);
    if (r >= 0)
        haloRect(painter, QRectF(QPointF(g.xs.first(), g.ys[r]), QPointF(g.xs.last(), g.ys[r + 1])), unit);
    if (c >= 0)
        haloRect(painter, QRectF(QPointF(g.xs[c], g.ys.first()), QPointF(g.xs[c + 1], g.ys.last())), unit);
    if (r >= 0 && c >= 0)
        haloRect(painter, g.cell(r, c), 2.0 * unit);
}

// ---------------------------------------------------------------------------

HeatmapPlot::HeatmapPlot(QWidget *parent)
    : QCustomPlot(parent),
      m_sequential(attn::sequentialGradient(SequentialGradient::Viridis)),
      m_diverging(attn::divergingGradient(DivergingGradient::BlueRed))
{
    setMouseTracking(true);
    setInteractions(QCP::Interactions());
    // The keyboard reaches every cell, and a screen reader reads them.
    setFocusPolicy(Qt::StrongFocus);
    installHeatmapAccessibility();
    // Cached label pixmaps keep their size after a rotation change until the
    // next draw, which would size the margins wrongly for one layout.
    setPlottingHint(QCP::phCacheLabels, false);

    // Keys along the top (xAxis2), queries down the left (yAxis), row notes
    // on the right (yAxis2). No grid: the grid would sit on cell centres.
    xAxis->setVisible(false);
    xAxis->grid()->setVisible(false);
    yAxis->grid()->setVisible(false);
    xAxis2->setVisible(true);
    yAxis2->setVisible(false);
    yAxis->setRangeReversed(true);
    yAxis2->setRangeReversed(true);
    m_rowTicker.reset(new QCPAxisTickerText);
    m_colTicker.reset(new QCPAxisTickerText);
    m_noteTicker.reset(new QCPAxisTickerText);
    yAxis->setTicker(m_rowTicker);
    xAxis2->setTicker(m_colTicker);
    yAxis2->setTicker(m_noteTicker);
    for (QCPAxis *axis : {xAxis2, yAxis, yAxis2}) {
        axis->setBasePen(Qt::NoPen);
        axis->setTickPen(Qt::NoPen);
        axis->setSubTickPen(Qt::NoPen);
        axis->setTickLength(0, 0);
        axis->setSubTickLength(0, 0);
        axis->setSubTicks(false);
    }

    m_map = new HeatmapColorMap(xAxis2, yAxis);
    m_map->setInterpolate(false);
    // Not a tight boundary: the data's key/value range holds the outer cell
    // *centres*, and a tight boundary would clip the outer cells to halves.
    m_map->setTightBoundary(false);
    m_map->setAntialiased(false);

    m_title = new HeatmapTitle(this, QString());
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, m_title);

    m_scale = new HeatmapColorScale(this);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setRangeDrag(false);
    m_scale->setRangeZoom(false);
    m_scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new ColourBarTicker));
    plotLayout()->addElement(1, 1, m_scale);
    m_map->setColorScale(m_scale);

    // Colour bar and map share top and bottom margins, so the bar spans
    // exactly the map's height.
    m_marginGroup = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, m_marginGroup);
    m_scale->setMarginGroup(QCP::msTop | QCP::msBottom, m_marginGroup);

    addLayer(QStringLiteral("cells"), layer(QStringLiteral("main")), limAbove);
    addLayer(QStringLiteral("highlight"), layer(QStringLiteral("cells")), limAbove);
    m_highlightLayer = layer(QStringLiteral("highlight"));
    m_highlightLayer->setMode(QCPLayer::lmBuffered);
    m_cells = new HeatmapCellLayer(this, QStringLiteral("cells"));
    m_highlight = new HeatmapHighlightLayer(this, QStringLiteral("highlight"));
    setCurrentLayer(QStringLiteral("main"));

    m_baseMargins = axisRect()->minimumMargins();
    applyFonts();
    applyTheme(plotTheme(g_windowTheme));
    rebuildMap();
}

HeatmapPlot::~HeatmapPlot() = default;

void HeatmapPlot::setTheme(const PlotTheme &theme)
{
    applyTheme(theme);
    requestReplot();
}

void HeatmapPlot::applyTheme(const PlotTheme &theme)
{
    m_theme = theme;
    setBackground(QBrush(theme.background));
    for (QCPAxis *axis : {xAxis2, yAxis, yAxis2}) {
        axis->setTickLabelColor(theme.ink);
        axis->setLabelColor(theme.noteInk);
    }
    yAxis2->setTickLabelColor(theme.noteInk);
    m_title->setTextColor(theme.ink);
    m_scale->axis()->setTickLabelColor(theme.ink);
    m_scale->axis()->setLabelColor(theme.ink);
    const QColor scaleLine = theme.dark ? QColor(Qt::white) : QColor(Qt::black); // QCustomPlot's own on light
    m_scale->axis()->setBasePen(QPen(scaleLine, 0));
    m_scale->axis()->setTickPen(QPen(scaleLine, 0));
    m_scale->axis()->setSubTickPen(QPen(scaleLine, 0));
    applyGradient();
}

void HeatmapPlot::setWindowTheme(FigureTheme theme)
{
    g_windowTheme = theme;
}

FigureTheme HeatmapPlot::windowTheme()
{
    return g_windowTheme;
}

int HeatmapPlot::rowCount() const
{
    return int(m_data.values.rows());
}

int HeatmapPlot::columnCount() const
{
    return int(m_data.values.cols());
}

void HeatmapPlot::dropMisshapenMasks()
{
    const int rows = rowCount(), cols = columnCount();
    auto sameShape = [&](const BoolMatrix &m) { return m.rows() == rows && m.cols() == cols; };
    if (m_data.blocked.size() > 0 && !sameShape(m_data.blocked)) {
        qWarning("HeatmapPlot: blocked mask is %dx%d, data %dx%d; ignored", int(m_data.blocked.rows()),
                 int(m_data.blocked.cols()), rows, cols);
        m_data.blocked.resize(0, 0);
    }
    if (m_data.outlined.size() > 0 && !sameShape(m_data.outlined)) {
        qWarning("HeatmapPlot: outline mask is %dx%d, data %dx%d; ignored", int(m_data.outlined.rows()),
                 int(m_data.outlined.cols()), rows, cols);
        m_data.outlined.resize(0, 0);
    }
}

void HeatmapPlot::setData(HeatmapData data)
{
    m_data = std::move(data);
    const int rows = rowCount(), cols = columnCount();
    dropMisshapenMasks();
    rebuildMap();
    if (m_hoverRow >= rows || m_hoverCol >= cols)
        setHovered(-1, -1); // the cell under the pointer is gone
    if (m_currentRow >= rows || m_currentCol >= cols)
        m_currentRow = m_currentCol = -1;
    notifyHeatmapDataChanged(this);
    requestReplot();
}

void HeatmapPlot::setData(HeatmapData data, const std::function<void(Matrix &values)> &fill)
{
    data.values = std::move(m_data.values);
    fill(data.values);
    setData(std::move(data));
}

void HeatmapPlot::setDataKeepingValues(HeatmapData data)
{
    data.values = std::move(m_data.values);
    // The cells are coloured from the values, the hidden cells and the
    // scale; the frame (title, labels, notes, outlines) may change alone.
    const bool sameCells = data.scale == m_data.scale && data.range == m_data.range
                           && data.blocked.rows() == m_data.blocked.rows() && data.blocked.cols() == m_data.blocked.cols()
                           && (data.blocked.size() == 0 || (data.blocked == m_data.blocked).all());
    if (!sameCells) {
        setData(std::move(data));
        return;
    }
    m_data = std::move(data);
    dropMisshapenMasks();
    m_anyOutlined = m_data.outlined.size() > 0 && m_data.outlined.any();
    rebuildFrame();
    notifyHeatmapDataChanged(this);
    requestReplot();
}

void HeatmapPlot::updateCells(int firstRow, int rowCount, int column, const std::function<void(HeatmapData &)> &edit)
{
    const int rows = this->rowCount(), cols = columnCount();
    const QStringList notes = m_data.rowNotes;
    const QVector<bool> flags = m_data.rowFlagged;
    const HeatmapScale scale = m_data.scale;
    edit(m_data);
    firstRow = std::clamp(firstRow, 0, rows);
    rowCount = std::clamp(rowCount, 0, rows - firstRow);
    if (column >= cols)
        column = -1;
    // What the cells' rebuild alone cannot follow: another shape, the
    // doubled storage of a single row or column (storedSpan), a scale that
    // depends on every cell, a flag in a row label, a cell turning hidden
    // or shown. Those take the whole rebuild.
    bool whole = m_data.values.rows() != rows || m_data.values.cols() != cols || rows < 2 || cols < 2
                 || scale != m_data.scale || m_data.scale == HeatmapScale::SequentialAuto
                 || (m_data.scale == HeatmapScale::Diverging && !(std::isfinite(m_data.range) && m_data.range > 0))
                 || m_data.rowFlagged != flags || m_data.rowNotes.size() != notes.size();
    if (!whole) {
        // One pass writes the changed cells into the colour map, row by
        // row as it stores them; a cell turning hidden or shown stops it,
        // and the whole rebuild below writes everything anyway.
        double *cells = ColorMapDataPeek::mutableValues(m_map->data());
        const bool blocked = m_data.blocked.size() > 0;
        auto write = [&](int i, int j) {
            const double v = m_data.values(i, j);
            const bool hidden = !std::isfinite(v) || (blocked && m_data.blocked(i, j));
            if (hidden != m_hidden(i, j))
                return false;
            if (!hidden) // hidden cells keep their transparent placeholder
                cells[std::size_t(i) * std::size_t(cols) + std::size_t(j)] = v;
            return true;
        };
        // The values are stored by column, the colour map's cells by row:
        // a block of rows at a time keeps both sides in the cache.
        const int end = firstRow + rowCount;
        for (int i0 = firstRow; i0 < end && !whole; i0 += 16) {
            const int i1 = std::min(i0 + 16, end);
            for (int j = 0; j < cols && !whole; ++j)
                for (int i = i0; i < i1 && !whole; ++i)
                    whole = !write(i, j);
        }
        for (int i = 0; i < rows && column >= 0 && !whole; ++i)
            whole = !write(i, column);
    }
    if (whole) {
        setData(std::move(m_data));
        return;
    }

    if (m_data.scale == HeatmapScale::Diverging) {
        const QCPRange range(-m_data.range, m_data.range);
        if (range != m_range) {
            m_range = range;
            m_map->setDataRange(m_range);
        }
    }
    static_cast<HeatmapColorMap *>(m_map)->markCells(firstRow, rowCount, column);

    // The notes of the changed rows that are written beside the map.
    if (m_data.rowNotes != notes && m_rowStep > 0) {
        QMap<double, QString> &ticks = m_noteTicker->ticks();
        for (int i = firstRow; i < firstRow + rowCount; ++i)
            if (i % m_rowStep == 0 && i < m_data.rowNotes.size())
                ticks[i] = m_data.rowNotes[i];
    }
    invalidateTextWidths();
    requestReplot();
}

void HeatmapPlot::rebuildMap()
{
    rebuildCells();
    rebuildFrame();
}

void HeatmapPlot::rebuildCells()
{
    const int rows = rowCount(), cols = columnCount();

    // Column by column, as Eigen stores the values: a 1024 x 1024 map read
    // row by row misses the cache at every cell. One pass finds the hidden
    // cells and, where the scale needs them, the visible values' extremes
    // (a column at a time, while it is in the cache).
    m_hidden.resize(rows, cols);
    const bool anyBlocked = m_data.blocked.size() > 0;
    const bool needExtremes = m_data.scale == HeatmapScale::SequentialAuto
                              || (m_data.scale == HeatmapScale::Diverging
                                  && !(std::isfinite(m_data.range) && m_data.range > 0));
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, maxAbs = 0;
    bool anyHidden = false;
    for (int j = 0; j < cols; ++j) {
        const double *v = m_data.values.col(j).data();
        const bool *b = anyBlocked ? m_data.blocked.col(j).data() : nullptr;
        bool *h = m_hidden.col(j).data();
        bool columnHidden = false;
        for (int i = 0; i < rows; ++i) {
            const bool hidden = !std::isfinite(v[i]) || (b && b[i]);
            h[i] = hidden;
            columnHidden |= hidden;
        }
        anyHidden |= columnHidden;
        if (!needExtremes)
            continue;
        for (int i = 0; i < rows; ++i) {
            if (h[i])
                continue;
            lo = std::min(lo, v[i]);
            hi = std::max(hi, v[i]);
            maxAbs = std::max(maxAbs, std::abs(v[i]));
        }
    }
    const bool any = lo <= hi; // a visible cell (only looked for when needExtremes)

    // Partial updates never change these (updateCells rebuilds when a cell turns hidden or shown).
    m_anyHidden = anyHidden;
    m_anyOutlined = m_data.outlined.rows() == rows && m_data.outlined.cols() == cols && m_data.outlined.any();

    // The scale.
    switch (m_data.scale) {
    case HeatmapScale::Probability:
        m_range = QCPRange(0.0, 1.0);
        break;
    case HeatmapScale::Diverging: {
        const double r = (std::isfinite(m_data.range) && m_data.range > 0) ? m_data.range : std::max(maxAbs, 1e-9);
        m_range = QCPRange(-r, r);
        break;
    }
    case HeatmapScale::SequentialAuto:
        if (!any)
            m_range = QCPRange(0.0, 1.0);
        else if (hi - lo < 1e-12 * std::max(1.0, std::abs(hi)))
            m_range = QCPRange(lo - 0.5, lo + 0.5); // a constant map: its colour is the middle one
        else
            m_range = QCPRange(lo, hi);
        break;
    }

    // The colour map. Hidden cells are transparent: the cell layer paints
    // them grey, and no colour of the scale can show at their edges.
    static_cast<HeatmapColorMap *>(m_map)->markAll();
    QCPColorMapData *d = m_map->data();
    if (rows == 0 || cols == 0) {
        d->clear();
        m_map->setVisible(false);
    } else {
        const int keySize = std::max(cols, 2), valueSize = std::max(rows, 2);
        d->setSize(keySize, valueSize);
        d->setRange(storedSpan(cols), storedSpan(rows));
        if (m_anyHidden)
            d->fillAlpha(255);
        else
            d->clearAlpha();
        if (rows >= 2 && cols >= 2) {
            // Straight into QCPColorMapData's row-major cells, in tiles so
            // that neither the column-major values nor the cells are walked
            // across; hidden cells get the lowest value (never NaN) and no
            // alpha. A tile is 8 columns wide: at 1,024 rows the columns are
            // 8 KB apart, so every column's line falls in the same set of
            // the L1 cache (12 ways): 8 stay there, 32 would evict each other
            // at every cell.
            double *cells = ColorMapDataPeek::mutableValues(d);
            unsigned char *alpha = m_anyHidden ? ColorMapDataPeek::mutableAlpha(d) : nullptr;
            constexpr int kTileCols = 8, kTileRows = 64;
            const double *values = m_data.values.data();
            const std::size_t ld = std::size_t(rows);
            for (int j0 = 0; j0 < cols; j0 += kTileCols) {
                const int j1 = std::min(cols, j0 + kTileCols);
                for (int i0 = 0; i0 < rows; i0 += kTileRows) {
                    const int i1 = std::min(rows, i0 + kTileRows);
                    for (int i = i0; i < i1; ++i) {
                        const std::size_t row = std::size_t(i) * std::size_t(keySize);
                        if (!alpha) { // nothing hidden: a plain transposition
                            for (int j = j0; j < j1; ++j)
                                cells[row + std::size_t(j)] = values[std::size_t(j) * ld + std::size_t(i)];
                            continue;
                        }
                        for (int j = j0; j < j1; ++j) {
                            const bool hidden = m_hidden(i, j);
                            cells[row + std::size_t(j)] = hidden ? m_range.lower : values[std::size_t(j) * ld + std::size_t(i)];
                            if (hidden)
                                alpha[row + std::size_t(j)] = 0;
                        }
                    }
                }
            }
        } else {
            for (int k = 0; k < keySize; ++k) {
                const int j = cols == 1 ? 0 : k;
                for (int v = 0; v < valueSize; ++v) {
                    const int i = rows == 1 ? 0 : v;
                    if (m_hidden(i, j)) {
                        d->setCell(k, v, m_range.lower); // never NaN
                        d->setAlpha(k, v, 0);
                    } else {
                        d->setCell(k, v, m_data.values(i, j));
                    }
                }
            }
        }
        m_map->setVisible(!blanked());
    }
    m_map->setDataRange(m_range);
    applyGradient();
}

void HeatmapPlot::rebuildFrame()
{
    const int rows = rowCount(), cols = columnCount();
    const double colSpan = std::max(cols, 1) - 0.5, rowSpan = std::max(rows, 1) - 0.5;
    xAxis2->setRange(-0.5, colSpan);
    xAxis->setRange(-0.5, colSpan);
    yAxis->setRange(-0.5, rowSpan);
    yAxis2->setRange(-0.5, rowSpan);

    m_scale->axis()->setLabel(m_data.colorBarLabel);
    m_title->setText(m_data.title);

    // Labels are re-chosen by the next layout; none of the old ones may stay
    // (a layout with no room for cells chooses none).
    m_rowStep = m_colStep = 0;
    m_colRotated = false;
    m_rowTicker->clear();
    m_colTicker->clear();
    m_noteTicker->clear();
    xAxis2->setTickLabelRotation(0);
    applyCompact();
    invalidateTextWidths();
}

QCPColorGradient HeatmapPlot::activeGradient() const
{
    if (m_data.scale != HeatmapScale::Diverging)
        return m_sequential;
    // A light centre would glare on a dark figure: the dark theme's own map.
    static const QCPColorGradient dark = attn::divergingGradient(DivergingGradient::BlueBlackOrange);
    return m_theme.dark ? dark : m_diverging;
}

void HeatmapPlot::applyGradient()
{
    m_map->setGradient(activeGradient()); // the colour scale follows the map
}

void HeatmapPlot::setSequentialGradient(const QCPColorGradient &gradient)
{
    m_sequential = gradient;
    applyGradient();
    requestReplot();
}

void HeatmapPlot::setDivergingGradient(const QCPColorGradient &gradient)
{
    m_diverging = gradient;
    applyGradient();
    requestReplot();
}

void HeatmapPlot::setCellText(CellTextMode mode)
{
    if (m_cellText == mode)
        return;
    m_cellText = mode;
    requestReplot();
}

void HeatmapPlot::setCompact(bool compact)
{
    if (m_compact == compact)
        return;
    m_compact = compact;
    applyCompact();
    applyFonts();
    requestReplot();
}

void HeatmapPlot::applyCompact()
{
    const bool inLayout = plotLayout()->hasElement(1, 1) && plotLayout()->element(1, 1) == m_scale;
    if (m_compact && inLayout)
        plotLayout()->take(m_scale);
    else if (!m_compact && !inLayout)
        plotLayout()->addElement(1, 1, m_scale);
    m_scale->setVisible(!m_compact && !blanked());
    const bool notes = !m_compact && !blanked() && !m_data.rowNotes.isEmpty();
    yAxis2->setVisible(notes);
    yAxis2->setLabel(QString()); // the header above the notes says what they are (rowNotesHeaderRect)
    // Small multiples keep their room for the cells.
    xAxis2->setLabel(m_compact ? QString() : m_data.colAxisLabel);
    yAxis->setLabel(m_compact ? QString() : m_data.rowAxisLabel);
}

void HeatmapPlot::setHighlight(int row, int col)
{
    row = row < 0 ? -1 : row;
    col = col < 0 ? -1 : col;
    if (row == m_highlightRow && col == m_highlightCol)
        return;
    m_highlightRow = row;
    m_highlightCol = col;
    // Only the highlight layer is redrawn; the cells stay in their buffer.
    if (!size().isEmpty())
        m_highlightLayer->replot();
}

void HeatmapPlot::setTile(Tile tile)
{
    if (tile.row < 0)
        tile = Tile{};
    if (tile == m_tile)
        return;
    m_tile = tile;
    if (!size().isEmpty())
        m_highlightLayer->replot();
}

void HeatmapPlot::setToolTipProvider(std::function<QString(int, int)> provider)
{
    m_toolTip = std::move(provider);
}

QString HeatmapPlot::formatValue(double value, int decimals)
{
    // A true minus sign, as wide as a digit's neighbours expect (numbers.h).
    return QString::fromStdString(formatFixed(value, decimals, Minus::Typographic));
}

QColor HeatmapPlot::blockedFillColor()
{
    return plotTheme(FigureTheme::Default).blockedFill;
}

QColor HeatmapPlot::blockedHatchColor()
{
    return plotTheme(FigureTheme::Default).blockedHatch;
}

QString HeatmapPlot::rowLabel(int row) const
{
    QString s = row < m_data.rowLabels.size() ? elideLabel(m_data.rowLabels[row]) : QString::number(row + 1);
    if (row < m_data.rowFlagged.size() && m_data.rowFlagged[row])
        s = QStringLiteral("⚠ ") + s;
    return s;
}

QString HeatmapPlot::colLabel(int col) const
{
    return col < m_data.colLabels.size() ? elideLabel(m_data.colLabels[col]) : QString::number(col + 1);
}

// --- cell text --------------------------------------------------------------

void HeatmapPlot::invalidateTextWidths()
{
    m_widthsValid = false;
}

void HeatmapPlot::ensureTextWidths() const
{
    if (m_widthsValid)
        return;
    // Digits are equally wide in the fonts we use, so the widest text is
    // the one with the most digits and a sign: measure a template of it
    // instead of every cell.
    double maxAbs = 0, minV = 0;
    // Column by column, as both are stored (by row, a 1024 x 1024 map
    // misses the cache at every cell).
    for (int j = 0; j < columnCount(); ++j)
        for (int i = 0; i < rowCount(); ++i)
            if (!m_hidden(i, j)) {
                const double v = m_data.values(i, j);
                maxAbs = std::max(maxAbs, std::abs(v));
                minV = std::min(minV, v);
            }
    m_maxAbs = maxAbs;
    for (int f = 0; f < 2; ++f) {
        const QFontMetricsF fm(cellTextFont(f));
        for (int k = 0; k < 5; ++k) {
            const int d = k < 3 ? kDecimals[k] : kBigDecimals[k - 3];
            QString t = formatValue(minV < -0.5 * std::pow(10.0, -d) ? -maxAbs : maxAbs, d);
            for (QChar &c : t)
                if (c.isDigit())
                    c = QLatin1Char('0');
            m_valueWidth[f][k] = fm.horizontalAdvance(t);
        }
        m_blockedWidth[f] = fm.horizontalAdvance(m_data.blockedText);
        m_textHeight[f] = fm.height();
    }
    m_widthsValid = true;
}

QFont HeatmapPlot::cellTextFont(int index) const
{
    return index == 0 ? font() : scaledFont(font(), kSmallTextScale);
}

HeatmapPlot::TextFit HeatmapPlot::textFit(double cellWidth, double cellHeight) const
{
    return textFit(cellWidth, cellHeight, m_decimalsCap);
}

HeatmapPlot::TextFit HeatmapPlot::textFit(double cellWidth, double cellHeight, int cap) const
{
    TextFit fit;
    if (m_compact || blanked() || m_cellText == CellTextMode::Never || rowCount() == 0 || columnCount() == 0)
        return fit;
    // Cells lower than the smaller font's line hold no text: no need to
    // measure the widest value (a pass over every cell).
    if (m_cellText == CellTextMode::Auto && cellHeight < QFontMetricsF(cellTextFont(1)).height() + 2)
        return fit;
    ensureTextWidths();
    // The figure's own size first; a little smaller rather than no numbers.
    for (int f = 0; f < 2; ++f) {
        TextFit at;
        at.font = f;
        const double pad = std::max(4.0, m_textHeight[f] * 0.3);
        const bool tall = cellHeight >= m_textHeight[f] + 2;
        for (int k = 0; k < 3 && at.decimals < 0; ++k)
            if (kDecimals[k] <= cap && tall && m_valueWidth[f][k] + pad <= cellWidth)
                at.decimals = kDecimals[k];
        for (int k = 0; k < 2 && at.decimals < 0; ++k)
            if (bigEnoughFor(m_maxAbs, kBigDecimals[k]) && tall && m_valueWidth[f][3 + k] + pad <= cellWidth)
                at.decimals = kBigDecimals[k];
        at.blockedText = tall && m_blockedWidth[f] + pad <= cellWidth;
        if (f == 0 || at.decimals >= 0)
            fit = at;
        if (fit.decimals >= 0)
            break;
    }
    // Always, but not in cells too small to hold a glyph: there the text
    // would be a smear, and a 256x256 map would draw 65536 of them.
    if (m_cellText == CellTextMode::Always && cellWidth >= 4 && cellHeight >= 4) {
        if (fit.decimals < 0)
            fit.decimals = 2;
        fit.blockedText = true;
    }
    return fit;
}

QString HeatmapPlot::cellLabelFor(int row, int col, const TextFit &fit) const
{
    if (m_hidden(row, col))
        return fit.blockedText ? m_data.blockedText : QString();
    return fit.decimals >= 0 ? formatValue(m_data.values(row, col), fit.decimals) : QString();
}

QString HeatmapPlot::cellLabel(int row, int col) const
{
    if (row < 0 || col < 0 || row >= rowCount() || col >= columnCount())
        return {};
    return cellLabelFor(row, col, currentFit(m_decimalsCap));
}

bool HeatmapPlot::cellHatched(int row, int col) const
{
    // As the cell layer: hatched when blocked or not finite, values drawn,
    // and the cells at least 3 pixels high.
    if (row < 0 || col < 0 || row >= rowCount() || col >= columnCount() || blanked() || size().isEmpty())
        return false;
    const CellGrid g = cellGrid(this, rowCount(), columnCount());
    return g.valid() && m_hidden(row, col) && g.height() >= 3;
}

bool HeatmapPlot::cellTextVisible() const
{
    return drawnDecimals() >= 0;
}

HeatmapPlot::TextFit HeatmapPlot::currentFit(int cap) const
{
    if (size().isEmpty())
        return TextFit{};
    const CellGrid g = cellGrid(this, rowCount(), columnCount());
    return g.valid() ? textFit(g.width(), g.height(), cap) : TextFit{};
}

int HeatmapPlot::drawnDecimals() const
{
    return currentFit(m_decimalsCap).decimals;
}

int HeatmapPlot::decimalsThatFit() const
{
    // A big value's fewer decimals have no say in the window's agreement:
    // they would pull every other map below 2.
    const int d = currentFit(kDecimals[0]).decimals;
    return d >= kDecimals[2] ? d : -1;
}

QFont HeatmapPlot::drawnCellFont() const
{
    const TextFit fit = currentFit(m_decimalsCap);
    return cellTextFont(fit.decimals >= 0 ? fit.font : 0);
}

void HeatmapPlot::setDecimalsCap(int cap)
{
    cap = std::clamp(cap, kDecimals[2], kDecimals[0]);
    if (cap == m_decimalsCap)
        return;
    const int before = drawnDecimals();
    m_decimalsCap = cap;
    // Drawn now, not on the next turn of the event loop: a map that agrees
    // with its neighbours repaints in the same frame as they do. A plot in
    // its own replot draws with the cap it has just been given.
    if (drawnDecimals() != before && !size().isEmpty() && isVisible())
        replot(rpRefreshHint);
}

void HeatmapPlot::noteDecimalsFit()
{
    const int fit = isVisible() ? decimalsThatFit() : -1;
    if (fit == m_reportedFit)
        return;
    m_reportedFit = fit;
    emit decimalsFitChanged(fit);
}

void HeatmapPlot::showEvent(QShowEvent *event)
{
    QCustomPlot::showEvent(event);
    noteDecimalsFit();
}

void HeatmapPlot::hideEvent(QHideEvent *event)
{
    QCustomPlot::hideEvent(event);
    noteDecimalsFit();
}

// --- layout -------------------------------------------------------------------

// Where the title, the map and the colour bar go inside the viewport with
// the current margins: cells at most kMaxAspect from square (but the map
// keeps at least half the room in each direction), whole pixels per cell
// when that costs little, and the whole block centred.
// The widest the row notes may be, as a share of the figure's width.
constexpr double kMaxNotesShare = 0.3;

HeatmapPlot::Plan HeatmapPlot::plan() const
{
    Plan p;
    const int rows = rowCount(), cols = columnCount();
    const QRect vp = viewport();
    const QMargins m = axisRect()->margins();
    const int titleH = m_title->outerRect().height();
    const int vgap = plotLayout()->rowSpacing();
    const int scaleW = m_compact ? 0 : m_scale->outerRect().width();
    const int gap = m_compact ? 0 : std::max(plotLayout()->columnSpacing(), int(QFontMetricsF(font()).height() * 0.6));
    double w = vp.width() - m.left() - m.right() - scaleW - gap;
    double h = vp.height() - titleH - vgap - m.top() - m.bottom();
    if (rows <= 0 || cols <= 0 || w < 1 || h < 1)
        return p;
    const double cw = w / cols, ch = h / rows;
    // A map of few columns (an output of d_v = 2) may have wide cells: its
    // numbers need the width, and squarer cells would leave the room empty.
    double wideAspect = cols <= 3 ? kMaxWideAspectFewColumns : kMaxAspect;
    // Wider cells, up to kMaxTextAspect, where the numbers need them rather
    // than no numbers: a model's "−120" in a map of eight rows, or the
    // weights' "0.00" in a map whose height is short (a Chinese window's
    // taller lines leave the maps less height).
    if (!m_compact && m_cellText != CellTextMode::Never && cw > wideAspect * ch) {
        ensureTextWidths();
        const bool big = bigEnoughFor(m_maxAbs, 0);
        if (big || m_data.scale == HeatmapScale::Probability) {
            const double text = big ? m_valueWidth[1][4] : m_valueWidth[1][2];
            const double needed = text + std::max(4.0, m_textHeight[1] * 0.3) + 1;
            wideAspect = std::clamp(needed / ch, wideAspect, std::max(wideAspect, kMaxTextAspect));
        }
    }
    if (ch > kMaxAspect * cw)
        h = std::max(rows * kMaxAspect * cw, 0.5 * h);
    else if (cw > wideAspect * ch)
        w = std::max(cols * wideAspect * ch, 0.5 * w);
    auto snap = [](double length, int n) {
        const double whole = std::floor(length / n) * n;
        return (whole >= 2.0 * n && length - whole <= 0.12 * length) ? whole : std::floor(length);
    };
    w = snap(w, cols);
    h = snap(h, rows);
    const int outerW = int(m.left() + w + m.right());
    const int outerH = int(m.top() + h + m.bottom());
    const int blockW = outerW + gap + scaleW;
    const int x0 = vp.left() + (vp.width() - blockW) / 2;
    const int top = vp.top() + (vp.height() - (titleH + vgap + outerH)) / 2;
    p.title = QRect(vp.left(), top, vp.width(), titleH);
    p.axis = QRect(x0, top + titleH + vgap, outerW, outerH);
    p.scale = QRect(p.axis.right() + 1 + gap, p.axis.top(), scaleW, outerH);
    p.cell = QSizeF(w / cols, h / rows);
    return p;
}

// How many rows or columns apart the written token labels must be at a cell
// size so that none overlap: rows, key columns lying flat, key columns upright.
HeatmapPlot::TickSteps HeatmapPlot::tickSteps(const QSizeF &cell) const
{
    TickSteps t;
    const int cols = columnCount();
    const QFontMetricsF fm(xAxis2->tickLabelFont());
    const double lineH = fm.height() * kTickLine;
    t.rows = std::max(1, int(std::ceil(lineH / cell.height() - 1e-9)));
    // Flat labels need room between neighbouring centres for half of each
    // and a gap; with thinning, neighbours are step columns apart.
    QVector<double> widths(cols);
    TextWidths labelWidth(xAxis2->tickLabelFont());
    for (int j = 0; j < cols; ++j)
        widths[j] = labelWidth(colLabel(j));
    const double gap = fm.height() * kTickGap;
    auto flatFits = [&](int step) {
        for (int j = 0; j + step < cols; j += step)
            if ((widths[j] + widths[j + step]) / 2 + gap > step * cell.width())
                return false;
        return cols > 1 || widths.value(0) <= cell.width() + 2 * gap;
    };
    t.flat = 1;
    while (t.flat < cols && !flatFits(t.flat))
        ++t.flat;
    t.upright = std::max(1, int(std::ceil(lineH / cell.width() - 1e-9)));
    return t;
}

// Writes every step-th token label, the key labels upright or flat. True
// when anything changed.
bool HeatmapPlot::setTicks(int rowStep, int colStep, bool rotated)
{
    if (rowStep == m_rowStep && colStep == m_colStep && rotated == m_colRotated)
        return false;
    m_rowStep = rowStep;
    m_colStep = colStep;
    m_colRotated = rotated;

    QMap<double, QString> rowTicks, colTicks, noteTicks;
    for (int i = 0; i < rowCount(); i += rowStep) {
        rowTicks.insert(i, rowLabel(i));
        if (i < m_data.rowNotes.size())
            noteTicks.insert(i, m_data.rowNotes[i]);
    }
    for (int j = 0; j < columnCount(); j += colStep)
        colTicks.insert(j, colLabel(j));
    m_rowTicker->setTicks(rowTicks);
    m_colTicker->setTicks(colTicks);
    m_noteTicker->setTicks(noteTicks);
    xAxis2->setTickLabelRotation(rotated ? -90 : 0);
    return true;
}

// Label density depends on the cell size and the cell size on the labels'
// margins (upright labels take more height). Decided in a fixed order, so
// that maps of the same size and labels always come out alike: in the
// plot's font, every key label flat if they fit at the cell size that flat
// labels leave, else every label upright if that fits; then the same in a
// smaller font; else, of the four, the one that drops the fewest labels
// (the plot's font, and flat, on a tie). A class needs every token's name
// more than it needs them large.
void HeatmapPlot::chooseTicks()
{
    if (rowCount() == 0 || columnCount() == 0)
        return;
    auto layoutWith = [this](int rowStep, int colStep, bool rotated) {
        if (setTicks(rowStep, colStep, rotated))
            QCustomPlot::updateLayout();
        return plan().cell;
    };
    auto apply = [&](const TickDecision &d) {
        setTickFont(d.smallFont);
        setTicks(d.rowStep, d.colStep, d.rotated);
        QCustomPlot::updateLayout();
    };
    // The smallest steps any layout could give: a cell is at most the
    // viewport over the count. Probing with them rather than with every
    // label spares QCustomPlot measuring 1,024 labels a pass on a long
    // sequence, which would only be thinned again; a small map probes with
    // every label, as before.
    auto leastSteps = [this] {
        const QFontMetricsF fm(xAxis2->tickLabelFont());
        const double lineH = fm.height() * kTickLine, gap = fm.height() * kTickGap;
        const double h = std::max(1, viewport().height()), w = std::max(1, viewport().width());
        TickSteps t;
        t.rows = std::max(1, int(std::ceil(lineH * rowCount() / h - 1e-9)));
        t.flat = std::max(1, int(std::ceil(gap * columnCount() / w - 1e-9)));
        t.upright = std::max(1, int(std::ceil(lineH * columnCount() / w - 1e-9)));
        return t;
    };
    std::optional<TickDecision> best;
    for (bool small : {false, true}) {
        setTickFont(small);
        QCustomPlot::updateLayout(); // the margins follow the labels' font
        const TickSteps least = leastSteps();
        const QSizeF flatCell = layoutWith(least.rows, least.flat, false);
        if (flatCell.isEmpty())
            break;
        const TickSteps flat = tickSteps(flatCell);
        TickDecision choice{flat.rows, flat.flat, false, small};
        if (flat.flat > 1) {
            const QSizeF upCell = layoutWith(flat.rows, least.upright, true);
            const TickSteps up = upCell.isEmpty() ? TickSteps{} : tickSteps(upCell);
            if (!upCell.isEmpty() && up.upright < flat.flat)
                choice = {up.rows, up.upright, true, small};
        }
        if (choice.rowStep == 1 && choice.colStep == 1) {
            apply(choice);
            return;
        }
        if (!best || choice.rowStep + choice.colStep < best->rowStep + best->colStep)
            best = choice;
    }
    apply(best.value_or(TickDecision{1, 1, false, false}));
}

void HeatmapPlot::setTickFont(bool small)
{
    const QFont f = small ? scaledFont(font(), kSmallTextScale) : font();
    if (xAxis2->tickLabelFont() == f)
        return;
    xAxis2->setTickLabelFont(f);
    yAxis->setTickLabelFont(f);
}

QString HeatmapPlot::tickKey() const
{
    const QChar sep(0x1f);
    return QStringList{QString::number(viewport().width()), QString::number(viewport().height()), font().key(),
                       QString::number(rowCount()), QString::number(columnCount()), m_data.rowLabels.join(sep),
                       m_data.colLabels.join(sep), QString::number(m_data.rowFlagged.count(true)),
                       // The title's room, not its words: a causal flip adds " · causal" to a line
                       // and keeps the labels (the kept layout is checked against the room below).
                       QString::number(m_title->text().count(QLatin1Char('\n'))),
                       QString::number(yAxis2->visible()),
                       QString::number(m_compact)}
        .join(QChar(0x1e));
}

void HeatmapPlot::updateLayout()
{
    // The title never runs off the figure.
    const QFontMetricsF tfm(m_title->font());
    QStringList lines = m_data.title.split(QLatin1Char('\n'));
    for (QString &line : lines)
        line = tfm.elidedText(line, Qt::ElideRight, std::max(0, viewport().width() - 16));
    m_title->setText(lines.join(QLatin1Char('\n')));

    // Row notes are extra: they never take the room the cells need.
    const bool notes = !m_compact && !blanked() && !m_data.rowNotes.isEmpty();
    if (notes) {
        TextWidths noteWidth(yAxis2->tickLabelFont());
        double widest = 0;
        for (const QString &n : m_data.rowNotes)
            widest = std::max(widest, noteWidth(n));
        const double room = widest + QFontMetricsF(yAxis2->labelFont()).height() * 2.5;
        yAxis2->setVisible(room <= kMaxNotesShare * viewport().width());
    }
    // The legend takes lines under the map, wrapped to the figure's width.
    m_legendText.clear();
    int legendH = 0;
    if (notes && yAxis2->visible() && !m_data.rowNotesLegend.isEmpty()) {
        const QFontMetricsF lfm(yAxis2->tickLabelFont());
        const int width = std::max(1, viewport().width() - 16);
        // Wrapping the sentence shapes it again each time: kept for its width and font.
        const QString boxKey = QString::number(width) + QChar(0x1e) + yAxis2->tickLabelFont().key() + QChar(0x1e)
                               + m_data.rowNotesLegend;
        if (boxKey != m_legendBoxKey) {
            m_legendBox = lfm.boundingRect(QRectF(0, 0, width, 1e6), Qt::TextWordWrap, m_data.rowNotesLegend);
            m_legendBoxKey = boxKey;
        }
        const QRectF box = m_legendBox;
        // Two lines at most; a map too small for that shows none rather than half.
        if (box.height() <= 2.2 * lfm.height() && box.height() + 4 * lfm.height() < 0.35 * viewport().height()) {
            m_legendText = m_data.rowNotesLegend;
            legendH = int(std::ceil(box.height() + 0.6 * lfm.height()));
        }
    }
    QMargins margins = m_baseMargins; // QCPAxisRect's own minimum, and room for the legend
    margins.setBottom(std::max(margins.bottom(), legendH));
    axisRect()->setMinimumMargins(margins);

    QCustomPlot::updateLayout();
    // The colour bar: its title elided to the bar's length (a rotated title
    // longer than the bar runs off the figure), and ticks no closer than two
    // lines apart (a short bar would print 0.75 over 0.5 over 0.25).
    if (m_scale->visible() && m_scale->axis()->axisRect()) {
        const double length = m_scale->axis()->axisRect()->height();
        const QFontMetricsF sfm(m_scale->axis()->labelFont());
        m_scale->axis()->setLabel(sfm.elidedText(m_data.colorBarLabel, Qt::ElideRight, std::max(0.0, length - 4)));
        const double tickLine = QFontMetricsF(m_scale->axis()->tickLabelFont()).height();
        const int room = std::max(2, int(length / (2.2 * tickLine)));
        m_scale->axis()->ticker()->setTickCount(std::min(room, 5));
        static_cast<ColourBarTicker *>(m_scale->axis()->ticker().data())->setRoom(room);
    }
    // The label layout is decided once for a given room and set of labels and
    // kept while only the numbers change (a drag): the probing costs layout
    // passes, and labels that turned upright mid-drag would make the map jump.
    const QString key = tickKey();
    bool keep = key == m_tickKey && m_tickDecision.colStep > 0;
    if (keep) {
        setTickFont(m_tickDecision.smallFont);
        if (setTicks(m_tickDecision.rowStep, m_tickDecision.colStep, m_tickDecision.rotated))
            QCustomPlot::updateLayout();
        // The cells can still shrink under it (a wider colour bar when the
        // range grows): kept only while its labels still fit.
        const QSizeF cell = plan().cell;
        if (!cell.isEmpty()) {
            const TickSteps now = tickSteps(cell);
            keep = now.rows <= m_tickDecision.rowStep
                && (m_tickDecision.rotated ? now.upright : now.flat) <= m_tickDecision.colStep;
        }
    }
    if (!keep) {
        chooseTicks();
        m_tickKey = key;
        m_tickDecision = {m_rowStep, m_colStep, m_colRotated, xAxis2->tickLabelFont() != font()};
    }
    const Plan p = plan();
    if (!p.axis.isEmpty()) {
        m_title->setOuterRect(p.title);
        axisRect()->setOuterRect(p.axis);
        axisRect()->update(QCPLayoutElement::upLayout);
        if (!m_compact) {
            m_scale->setOuterRect(p.scale);
            m_scale->update(QCPLayoutElement::upLayout);
        }
    }
    m_layoutViewport = viewport();
    // Only the widget's own layout tells the window what fits, not an export's.
    if (viewport() == rect())
        noteDecimalsFit();
}

void HeatmapPlot::applyFonts()
{
    const QFont f = font();
    for (QCPAxis *axis : {xAxis2, yAxis, yAxis2}) {
        axis->setTickLabelFont(f);
        axis->setLabelFont(f);
        axis->setTickLabelPadding(std::max(3, int(QFontMetricsF(f).height() * 0.3)));
    }
    yAxis2->setTickLabelFont(scaledFont(f, 0.85));
    yAxis2->setLabelFont(scaledFont(f, 0.85));
    m_scale->axis()->setTickLabelFont(f);
    m_scale->axis()->setLabelFont(f);
    m_scale->setBarWidth(std::max(8, int(QFontMetricsF(f).height())));
    QFont title = scaledFont(f, m_compact ? 1.0 : 1.25);
    title.setBold(true);
    m_title->setFont(title);
    m_rowStep = m_colStep = 0; // label density depends on the font
    invalidateTextWidths();
}

// --- geometry and events ----------------------------------------------------

QRectF HeatmapPlot::rowNotesHeaderRect() const
{
    if (!yAxis2->visible() || m_data.rowNotesLabel.isEmpty() || rowCount() == 0)
        return QRectF();
    const QRect ar = axisRect()->rect();
    QFont header = yAxis2->tickLabelFont();
    header.setBold(true);
    const QFontMetricsF fm(header);
    const double x = ar.right() + 1 + yAxis2->tickLabelPadding();
    const double w = std::min(fm.horizontalAdvance(m_data.rowNotesLabel) + 2, viewport().right() - x);
    const double h = fm.height();
    return QRectF(x, ar.top() - h - 0.3 * fm.height(), std::max(0.0, w), h);
}

QRectF HeatmapPlot::rowNotesLegendRect() const
{
    if (m_legendText.isEmpty() || !yAxis2->visible())
        return QRectF();
    const QRect ar = axisRect()->rect();
    const QFontMetricsF fm(yAxis2->tickLabelFont());
    // From the map's left edge (or the figure's, if the lines need it).
    const double width = viewport().width() - 16;
    const QRectF box = fm.boundingRect(QRectF(0, 0, width, 1e6), Qt::TextWordWrap, m_legendText);
    const double x = std::max(double(viewport().left() + 8), std::min(double(ar.left()), viewport().right() - 8 - box.width()));
    return QRectF(x, ar.bottom() + 1 + 0.3 * fm.height(), box.width() + 1, box.height());
}

QRectF HeatmapPlot::cellRect(int row, int col) const
{
    if (size().isEmpty())
        return QRectF();
    const CellGrid g = cellGrid(this, rowCount(), columnCount());
    if (!g.valid() || row < 0 || col < 0 || row >= rowCount() || col >= columnCount())
        return QRectF();
    return g.cell(row, col);
}

QPointF HeatmapPlot::cellCenter(int row, int col) const
{
    return cellRect(row, col).center();
}

std::pair<int, int> HeatmapPlot::cellAt(const QPointF &pos) const
{
    const QRect ar = axisRect()->rect();
    if (size().isEmpty() || rowCount() == 0 || columnCount() == 0 || ar.width() < 1 || ar.height() < 1)
        return {-1, -1};
    const double x = xAxis2->pixelToCoord(pos.x());
    const double y = yAxis->pixelToCoord(pos.y());
    if (!std::isfinite(x) || !std::isfinite(y))
        return {-1, -1};
    const double col = std::floor(x + 0.5), row = std::floor(y + 0.5);
    if (col < 0 || row < 0 || col >= columnCount() || row >= rowCount())
        return {-1, -1};
    return {int(row), int(col)};
}

int HeatmapPlot::rowLabelAt(const QPointF &pos) const
{
    const QRect ar = axisRect()->rect();
    if (size().isEmpty() || rowCount() == 0 || ar.width() < 1 || ar.height() < 1)
        return -1;
    // The labels sit in the axis rect's left margin, level with their rows.
    if (pos.x() < 0 || pos.x() >= ar.left() || pos.y() < ar.top() || pos.y() > ar.bottom())
        return -1;
    const double y = yAxis->pixelToCoord(pos.y());
    if (!std::isfinite(y))
        return -1;
    const double row = std::floor(y + 0.5);
    return row >= 0 && row < rowCount() ? int(row) : -1;
}

QImage HeatmapPlot::renderImage(int width, int height, double scale)
{
    QImage image = toPixmap(width, height, scale).toImage();
    updateLayout(); // back to the widget's own geometry for the mouse
    return image;
}

void HeatmapPlot::setHovered(int row, int col)
{
    if (row == m_hoverRow && col == m_hoverCol)
        return;
    m_hoverRow = row;
    m_hoverCol = col;
    emit cellHovered(row, col);
}

void HeatmapPlot::mouseMoveEvent(QMouseEvent *event)
{
    if (m_layoutViewport != viewport())
        updateLayout(); // an export left another size's layout behind
    const auto [row, col] = cellAt(event->position());
    setHovered(row, col);
    QCustomPlot::mouseMoveEvent(event);
}

void HeatmapPlot::mousePressEvent(QMouseEvent *event)
{
    if (m_layoutViewport != viewport())
        updateLayout();
    std::tie(m_pressRow, m_pressCol) = cellAt(event->position());
    m_pressLabelRow = rowLabelAt(event->position());
    QCustomPlot::mousePressEvent(event);
}

void HeatmapPlot::mouseReleaseEvent(QMouseEvent *event)
{
    const auto [row, col] = cellAt(event->position());
    const bool click = row >= 0 && row == m_pressRow && col == m_pressCol;
    const int labelRow = rowLabelAt(event->position());
    const bool labelClick = labelRow >= 0 && labelRow == m_pressLabelRow;
    m_pressRow = m_pressCol = m_pressLabelRow = -1;
    QCustomPlot::mouseReleaseEvent(event);
    if (click)
        emit cellClicked(row, col, event->button());
    else if (labelClick)
        emit rowLabelClicked(labelRow, event->button());
}

void HeatmapPlot::setCurrentCell(int row, int col)
{
    if (row < 0 || col < 0 || row >= rowCount() || col >= columnCount())
        row = col = -1;
    if (row == m_currentRow && col == m_currentCol)
        return;
    m_currentRow = row;
    m_currentCol = col;
    if (!size().isEmpty())
        m_highlightLayer->replot();
    emit currentCellChanged(row, col);
    notifyHeatmapCurrentCell(this);
}

void HeatmapPlot::keyPressEvent(QKeyEvent *event)
{
    const int rows = rowCount(), cols = columnCount();
    if (rows == 0 || cols == 0 || event->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) {
        QCustomPlot::keyPressEvent(event);
        return;
    }
    int r = std::max(m_currentRow, 0), c = std::max(m_currentCol, 0);
    const bool first = m_currentRow < 0; // the first key lands on the first cell
    switch (event->key()) {
    case Qt::Key_Left: c = first ? 0 : c - 1; break;
    case Qt::Key_Right: c = first ? 0 : c + 1; break;
    case Qt::Key_Up: r = first ? 0 : r - 1; break;
    case Qt::Key_Down: r = first ? 0 : r + 1; break;
    case Qt::Key_Home: c = 0; break;
    case Qt::Key_End: c = cols - 1; break;
    case Qt::Key_PageUp: r = 0; break;
    case Qt::Key_PageDown: r = rows - 1; break;
    default:
        QCustomPlot::keyPressEvent(event);
        return;
    }
    setCurrentCell(std::clamp(r, 0, rows - 1), std::clamp(c, 0, cols - 1));
    event->accept();
}

void HeatmapPlot::focusInEvent(QFocusEvent *event)
{
    QCustomPlot::focusInEvent(event);
    // Tabbed into: the keyboard starts on the first cell, framed and read.
    const bool tabbed = event->reason() == Qt::TabFocusReason || event->reason() == Qt::BacktabFocusReason;
    if (tabbed && m_currentRow < 0 && rowCount() > 0 && columnCount() > 0) {
        setCurrentCell(0, 0);
        return;
    }
    if (!size().isEmpty())
        m_highlightLayer->replot();
    notifyHeatmapCurrentCell(this);
}

void HeatmapPlot::focusOutEvent(QFocusEvent *event)
{
    QCustomPlot::focusOutEvent(event);
    if (!size().isEmpty())
        m_highlightLayer->replot();
}

void HeatmapPlot::requestReplot()
{
    // One replot for a burst of changes. A widget of no size has nothing to
    // show (QCustomPlot would paint into empty buffers and warn); its next
    // resize replots.
    if (!size().isEmpty())
        replot(rpQueuedReplot);
}

void HeatmapPlot::resizeEvent(QResizeEvent *event)
{
    if (event->size().isEmpty()) {
        QWidget::resizeEvent(event);
        return;
    }
    QCustomPlot::resizeEvent(event);
}

void HeatmapPlot::leaveEvent(QEvent *event)
{
    setHovered(-1, -1);
    QCustomPlot::leaveEvent(event);
}

bool HeatmapPlot::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const auto [row, col] = cellAt(help->pos());
        const QString text = toolTipAt(row, col);
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this, cellRect(row, col).toAlignedRect());
        }
        return true;
    }
    return QCustomPlot::event(event);
}

void HeatmapPlot::setDimmed(bool dimmed)
{
    if (dimmed == m_dimmed)
        return;
    m_dimmed = dimmed;
    if (m_blankWhenDimmed) {
        rebuildMap();
        requestReplot();
    }
    if (dimmed) {
        auto *effect = new QGraphicsOpacityEffect(this);
        effect->setOpacity(0.22);
        setGraphicsEffect(effect);
    } else {
        setGraphicsEffect(nullptr);
    }
}

void HeatmapPlot::setBlankWhenDimmed(bool blank)
{
    if (blank == m_blankWhenDimmed)
        return;
    m_blankWhenDimmed = blank;
    if (m_dimmed) {
        rebuildMap();
        requestReplot();
    }
}

void HeatmapPlot::setValuesHidden(bool hidden)
{
    if (hidden == m_valuesHidden)
        return;
    m_valuesHidden = hidden;
    rebuildMap();
    requestReplot();
}

QColor HeatmapPlot::hiddenFillColor()
{
    return plotTheme(FigureTheme::Default).hiddenFill;
}

QString HeatmapPlot::toolTipAt(int row, int col) const
{
    if (blanked() || row < 0 || !m_toolTip)
        return QString();
    return m_toolTip(row, col);
}

void HeatmapPlot::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange) {
        applyFonts();
        requestReplot();
    }
    QCustomPlot::changeEvent(event);
}

} // namespace attn
