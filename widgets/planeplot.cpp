#include "planeplot.h"

#include "heatmapplot.h"
#include "numbers.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QStaticText>
#include <QToolTip>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace attn {

namespace {

// Okabe-Ito colours: blue and vermillion stay apart for every colour
// vision; black and grey for the output and the values. Each theme has its
// own set: on black, the light sky blue and orange of the same palette.
struct PlanePalette {
    QColor key, keyText, query, queryText, output, value, blocked, note, title, grid, zeroLine, axisPen, warning,
        guide, paper, faint;
};

PlanePalette planePalette(const PlotTheme &t)
{
    PlanePalette p;
    switch (t.id) {
    case FigureTheme::Default:
        p = {QColor(0x00, 0x72, 0xb2), QColor(0x00, 0x50, 0x80), QColor(0xd5, 0x5e, 0x00), QColor(0xa8, 0x42, 0x00),
             QColor(0x11, 0x11, 0x11), QColor(0x6e, 0x6e, 0x6e), QColor(0x8c, 0x8c, 0x8c), QColor(0x3a, 0x3a, 0x3a),
             QColor(0x1a, 0x1a, 0x1a), QColor(0xe2, 0xe2, 0xe2), QColor(0x5a, 0x5a, 0x5a), QColor(0x90, 0x90, 0x90),
             QColor(0xb0, 0x00, 0x20), QColor(0x55, 0x55, 0x55), QColor(Qt::white), QColor(0x60, 0x60, 0x60)};
        break;
    case FigureTheme::ContrastLight:
        p = {QColor(0x00, 0x72, 0xb2), QColor(0x00, 0x46, 0x70), QColor(0xd5, 0x5e, 0x00), QColor(0x8a, 0x36, 0x00),
             QColor(Qt::black), QColor(0x50, 0x50, 0x50), QColor(0x6e, 0x6e, 0x6e), QColor(Qt::black),
             QColor(Qt::black), t.grid, t.axis, t.axis, QColor(0xa0, 0x00, 0x1c), QColor(0x33, 0x33, 0x33),
             QColor(Qt::white), QColor(0x40, 0x40, 0x40)};
        break;
    case FigureTheme::ContrastDark:
        p = {QColor(0x56, 0xb4, 0xe9), QColor(0x8f, 0xd0, 0xf5), QColor(0xe6, 0x9f, 0x00), QColor(0xff, 0xc4, 0x4d),
             QColor(Qt::white), QColor(0xb4, 0xb4, 0xb4), QColor(0x9a, 0x9a, 0x9a), QColor(Qt::white),
             QColor(Qt::white), t.grid, t.axis, t.axis, QColor(0xff, 0x70, 0x80), QColor(0xcc, 0xcc, 0xcc),
             QColor(Qt::black), QColor(0xc0, 0xc0, 0xc0)};
        break;
    }
    return p;
}

// The palette of the plot being drawn (drawing is on the GUI thread, one
// plot at a time); set where a draw starts.
PlanePalette g_palette = planePalette(plotTheme(FigureTheme::Default));

const PlanePalette &P()
{
    return g_palette;
}

constexpr double kZoomStep = 0.85;    // per wheel notch
constexpr double kMinUnitsPerPixel = 1e-9;
constexpr double kMaxUnitsPerPixel = 1e9;
constexpr int kAllKeyLabels = 16;     // more keys: only the heaviest are labelled
constexpr int kHeavyKeyLabels = 10;
constexpr int kAllQueryLabels = 12;   // more queries: only the selected one
constexpr int kAllValueLabels = 8;

QColor withAlpha(QColor c, double alpha)
{
    c.setAlphaF(std::clamp(alpha, 0.0, 1.0));
    return c;
}

double clampWeight(double w)
{
    return std::isfinite(w) ? std::clamp(w, 0.0, 1.0) : 0.0;
}

// 1, 2 or 5 times a power of ten, at least x.
double niceStep(double x)
{
    if (!(x > 0) || !std::isfinite(x))
        return 1.0;
    const double p = std::pow(10.0, std::floor(std::log10(x)));
    const double m = x / p;
    return (m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0) * p;
}

QString number(double v)
{
    return HeatmapPlot::formatValue(v, 2);
}

// Up to four decimals, no trailing zeros, a true minus sign.
QString coordinate(double v)
{
    QString s = QString::number(std::abs(v) < 5e-5 ? 0.0 : v, 'f', 4);
    while (s.contains(QLatin1Char('.')) && (s.endsWith(QLatin1Char('0')) || s.endsWith(QLatin1Char('.'))))
        s.chop(1);
    return s.replace(QLatin1Char('-'), QChar(0x2212));
}

QString pointText(const Eigen::Vector2d &p)
{
    return QStringLiteral("(%1, %2)").arg(coordinate(p(0)), coordinate(p(1)));
}

// An arrow from `from` to `to` (pixels): a shaft of `width` and a filled head
// that grows with the width and shrinks on short arrows.
// An arrow's shaft and head (a triangle, tip first) for a shaft of `width`;
// false for an arrow shorter than a pixel, which is not drawn.
struct ArrowShape {
    QLineF shaft;
    std::array<QPointF, 3> head;
};
bool arrowShape(const QPointF &from, const QPointF &to, double width, double u, ArrowShape &a)
{
    const QPointF d = to - from;
    const double len = std::hypot(d.x(), d.y());
    if (len < 1.0)
        return false;
    const QPointF dir = d / len, normal(-dir.y(), dir.x());
    double headLen = 6.0 * u + 2.0 * width, headHalf = 3.2 * u + 1.2 * width;
    if (headLen > 0.6 * len) {
        const double k = 0.6 * len / headLen;
        headLen *= k;
        headHalf *= k;
    }
    const QPointF base = to - dir * headLen;
    a.shaft = QLineF(from, base + dir * std::min(1.0, 0.5 * headLen));
    a.head = {to, base + normal * headHalf, base - normal * headHalf};
    return true;
}

void drawArrow(QCPPainter *p, const QPointF &from, const QPointF &to, double width, const QColor &color,
               double u, Qt::PenStyle style = Qt::SolidLine)
{
    ArrowShape a;
    if (!arrowShape(from, to, width, u, a))
        return;
    // A stroked shaft and a filled head: cheaper for the raster engine than
    // one antialiased outline of both (measured with callgrind).
    QPen pen(color, width, style, Qt::FlatCap, Qt::MiterJoin);
    p->setPen(pen);
    p->setBrush(Qt::NoBrush);
    p->drawLine(a.shaft);
    p->setPen(Qt::NoPen);
    p->setBrush(color);
    p->drawPolygon(a.head.data(), 3);
}

void drawDisc(QCPPainter *p, const QPointF &c, double r, const QBrush &fill, const QPen &outline)
{
    p->setPen(outline);
    p->setBrush(fill);
    p->drawEllipse(c, r, r);
}

// Greedy placement of labels around their anchors: each label takes the
// first free place among sixteen directions (starting outwards, away from
// the origin) at growing distances; a label set off from its anchor gets a
// leader line. Only a label that must be shown and finds no free place
// takes the least crowded one.
class LabelPlacer {
public:
    explicit LabelPlacer(const QRectF &area) : m_area(area) {}

    void block(const QRectF &r) { m_taken.push_back(r); }
    void blockDisc(const QPointF &c, double r) { block(QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r)); }
    // Small boxes along a segment, so labels avoid the arrows that matter.
    void blockSegment(const QPointF &a, const QPointF &b, double halfWidth)
    {
        const double len = std::hypot(b.x() - a.x(), b.y() - a.y());
        const int steps = std::clamp(int(len / (3 * halfWidth + 4)), 1, 40);
        for (int i = 0; i <= steps; ++i)
            blockDisc(a + (b - a) * (double(i) / steps), halfWidth);
    }

    struct Spot {
        QRectF rect;
        bool leader = false; // set off from its anchor: draw a line to it
    };

    std::optional<Spot> place(const QPointF &anchor, QPointF outward, double clearance, const QSizeF &size,
                              bool optional)
    {
        const double norm = std::hypot(outward.x(), outward.y());
        outward = norm > 1e-9 ? outward / norm : QPointF(0.7071, -0.7071);
        const double a0 = std::atan2(outward.y(), outward.x());
        static const double offsets[] = {0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7, 8};
        const double step = std::max(size.height(), clearance);
        double bestCost = std::numeric_limits<double>::infinity();
        Spot best;
        int index = 0;
        for (double extra : {0.0, 0.8, 1.8, 3.0, 4.5, 6.5}) {
            const double distance = clearance + extra * step;
            for (double off : offsets) {
                if (extra == 0.0 && std::abs(off) > 4) // close by: the eight main directions
                    continue;
                const double a = a0 + off * M_PI / 8.0;
                const QPointF dir(std::cos(a), std::sin(a));
                const double square = std::max(std::abs(dir.x()), std::abs(dir.y()));
                const QPointF at = anchor + dir * distance;
                const QPointF centre = at + QPointF(dir.x() / square * size.width() / 2, dir.y() / square * size.height() / 2);
                const QRectF r(centre.x() - size.width() / 2, centre.y() - size.height() / 2, size.width(), size.height());
                const double crowd = overlap(r), outside = r.width() * r.height() - area(r.intersected(m_area));
                const Spot spot{r, extra > 0.0};
                if (crowd < 0.5 && outside < 0.5) {
                    block(r);
                    return spot;
                }
                const double cost = crowd + 3 * outside + index++;
                if (cost < bestCost) {
                    bestCost = cost;
                    best = spot;
                }
            }
        }
        if (optional)
            return std::nullopt;
        block(best.rect);
        return best;
    }

private:
    static double area(const QRectF &r) { return r.isValid() ? r.width() * r.height() : 0.0; }
    double overlap(const QRectF &r) const
    {
        double sum = 0;
        for (const QRectF &t : m_taken)
            sum += area(r.intersected(t));
        return sum;
    }

    QRectF m_area;
    std::vector<QRectF> m_taken;
};

// The point of `r` nearest to `p`: where a leader line meets its label.
QPointF nearestOnRect(const QRectF &r, const QPointF &p)
{
    return QPointF(std::clamp(p.x(), r.left(), r.right()), std::clamp(p.y(), r.top(), r.bottom()));
}

// Tick labels with a true minus sign, on a fixed step shared by both axes so
// that the grid cells are squares.
class PlaneTicker : public QCPAxisTickerFixed {
protected:
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override
    {
        if (std::abs(tick) < 1e-12 * std::max(1.0, tickStep()))
            tick = 0.0;
        return QCPAxisTickerFixed::getTickLabel(tick, locale, formatChar, precision).replace(QLatin1Char('-'), QChar(0x2212));
    }
};

} // namespace

// The vectors, labels and rings: one draw() for the whole scene, inside the
// axis rect.
class PlaneVectorLayer : public QCPLayerable {
public:
    explicit PlaneVectorLayer(PlanePlot *plane) : QCPLayerable(plane, QStringLiteral("vectors")), m_plane(plane) {}

protected:
    void applyDefaultAntialiasingHint(QCPPainter *painter) const override { painter->setAntialiasing(true); }
    QRect clipRect() const override { return m_plane->axisRect()->rect(); }
    void draw(QCPPainter *painter) override { m_plane->drawScene(painter); }

private:
    PlanePlot *m_plane;
};

// A text element whose height follows its wrapped text at the plot's width
// (QCPTextElement asks for its widest line, which would widen the plot).
class PlaneCaption : public QCPTextElement {
public:
    explicit PlaneCaption(QCustomPlot *plot) : QCPTextElement(plot)
    {
        setTextFlags(Qt::AlignCenter | Qt::TextWordWrap);
        setMargins(QMargins(6, 2, 6, 2));
    }
    QSize minimumOuterSizeHint() const override { return QSize(20, wrappedHeight()); }
    QSize maximumOuterSizeHint() const override { return QSize(QWIDGETSIZE_MAX, wrappedHeight()); }
    int heightNeeded() const { return wrappedHeight(); }

private:
    // Laying out wrapped text is slow, and the layout asks several times per
    // replot: remember the answer for the last text, font and width.
    int wrappedHeight() const
    {
        if (mText.isEmpty())
            return 0;
        const int width = std::max(20, mParentPlot->viewport().width() - mMargins.left() - mMargins.right() - 4);
        if (mText != m_cachedText || mFont != m_cachedFont || width != m_cachedWidth) {
            const QFontMetrics fm(mFont);
            m_cachedHeight = fm.boundingRect(QRect(0, 0, width, 100000), Qt::AlignCenter | Qt::TextWordWrap, mText).height();
            m_cachedText = mText;
            m_cachedFont = mFont;
            m_cachedWidth = width;
        }
        return m_cachedHeight + mMargins.top() + mMargins.bottom();
    }

    mutable QString m_cachedText;
    mutable QFont m_cachedFont;
    mutable int m_cachedWidth = -1;
    mutable int m_cachedHeight = 0;
};

// What each mark means, under the plot; entries wrap to the plot's width,
// in a short form when the long one would take more than one line.
class PlaneLegend : public QCPLayoutElement {
public:
    explicit PlaneLegend(PlanePlot *plane) : QCPLayoutElement(plane), m_plane(plane)
    {
        setMargins(QMargins(8, 2, 8, 4));
    }
    QSize minimumOuterSizeHint() const override { return QSize(20, m_shown ? outerHeight() : 0); }
    QSize maximumOuterSizeHint() const override { return QSize(QWIDGETSIZE_MAX, m_shown ? outerHeight() : 0); }
    int heightNeeded() const { return outerHeight(); }
    // Left out (no height, nothing drawn) when the plot is too small for it.
    void setShown(bool shown) { m_shown = shown; }

protected:
    void draw(QCPPainter *painter) override;

private:
    enum class Glyph { Key, Query, Value, Output, None };
    struct Entry {
        Glyph glyph;
        QString text;
    };
    struct Placed {
        int entry;
        QPointF at; // top left
        double width;
    };

    std::vector<Entry> entries(bool brief) const;
    int availableWidth() const { return std::max(20, mParentPlot->viewport().width() - mMargins.left() - mMargins.right()); }
    double glyphWidth() const { return 24.0 * m_plane->unit(); }
    double lineHeight() const { return QFontMetricsF(m_plane->font()).height() + 2 * m_plane->unit(); }
    std::vector<Placed> arrange(const std::vector<Entry> &all, double width, double *height) const;
    // The entries at this width, placed: the long forms if they fit on one
    // line. Cached: the layout asks for the height several times per replot.
    struct Layout {
        std::vector<Entry> entries;
        std::vector<Placed> placed;
        double height = 0;
    };
    const Layout &layoutFor(double width) const
    {
        const QFont font = m_plane->font();
        const std::vector<Entry> full = entries(false);
        QString key = QString::number(width) + QLatin1Char('|') + font.key();
        for (const Entry &e : full)
            key += QLatin1Char('|') + e.text;
        if (key != m_cacheKey) {
            m_cache.entries = full;
            m_cache.placed = arrange(full, width, &m_cache.height);
            if (m_cache.height > 1.5 * lineHeight()) {
                m_cache.entries = entries(true);
                m_cache.placed = arrange(m_cache.entries, width, &m_cache.height);
            }
            m_cacheKey = key;
        }
        return m_cache;
    }
    int outerHeight() const
    {
        return int(std::ceil(layoutFor(availableWidth()).height)) + mMargins.top() + mMargins.bottom();
    }

    PlanePlot *m_plane;
    bool m_shown = true;
    mutable QString m_cacheKey;
    mutable Layout m_cache;
};

std::vector<PlaneLegend::Entry> PlaneLegend::entries(bool brief) const
{
    const auto &sc = m_plane->m_scene;
    std::vector<Entry> out;
    if (sc.d == 0)
        return out;
    out.push_back({Glyph::Key, brief ? PlanePlot::tr("key (width: weight)") : PlanePlot::tr("key: width and disc grow with its weight")});
    out.push_back({Glyph::Query, brief || m_plane->m_scene.forFigure ? PlanePlot::tr("query") : PlanePlot::tr("query: drag it")});
    if (!sc.circles.empty() || !sc.projections.empty()) {
        switch (sc.similarity) {
        case Similarity::NegSqDistance:
            out.push_back({Glyph::None, brief ? PlanePlot::tr("circles: distance to q")
                                              : PlanePlot::tr("dashed circles: each key's distance to the query")});
            break;
        case Similarity::Cosine:
            out.push_back({Glyph::None, brief ? PlanePlot::tr("unit circle, angles")
                                              : PlanePlot::tr("unit circle: cosine compares directions (the angles)")});
            break;
        case Similarity::Dot:
            out.push_back({Glyph::None, brief ? PlanePlot::tr("dashed: projection on q")
                                              : PlanePlot::tr("dashed: each key's projection onto the query's line")});
            break;
        }
    }
    if (sc.dv == 2) {
        out.push_back({Glyph::Value, sc.projected ? PlanePlot::tr("value v = x·W_V") : PlanePlot::tr("value")});
        out.push_back({Glyph::Output, brief ? PlanePlot::tr("output Σ w·v") : PlanePlot::tr("output = Σ weight · value")});
    } else {
        out.push_back({Glyph::None, brief ? PlanePlot::tr("(d_v = %1: output in the Output map)").arg(sc.dv)
                                          : PlanePlot::tr("(values have d_v = %1: the output is in the Output map)").arg(sc.dv)});
    }
    return out;
}

std::vector<PlaneLegend::Placed> PlaneLegend::arrange(const std::vector<Entry> &all, double width, double *height) const
{
    const QFontMetricsF fm(m_plane->font());
    const double u = m_plane->unit(), gap = 5 * u, spacing = 14 * u, line = lineHeight();
    std::vector<Placed> out;
    double x = 0, y = 0;
    for (int i = 0; i < int(all.size()); ++i) {
        const double glyph = all[std::size_t(i)].glyph == Glyph::None ? 0 : glyphWidth() + gap;
        const double w = std::min(width, glyph + fm.horizontalAdvance(all[std::size_t(i)].text));
        if (x > 0 && x + w > width) {
            x = 0;
            y += line;
        }
        out.push_back({i, QPointF(x, y), w});
        x += w + spacing;
    }
    if (height)
        *height = all.empty() ? 0 : y + line;
    return out;
}

void PlaneLegend::draw(QCPPainter *painter)
{
    if (!m_shown)
        return;
    g_palette = planePalette(m_plane->theme());
    const QRect r = mRect;
    const Layout &layout = layoutFor(r.width());
    const std::vector<Entry> &all = layout.entries;
    const std::vector<Placed> &placed = layout.placed;
    if (all.empty())
        return;
    // Centre each line.
    std::vector<double> shift(placed.size(), 0.0);
    for (std::size_t i = 0; i < placed.size();) {
        std::size_t j = i;
        double right = 0;
        while (j < placed.size() && placed[j].at.y() == placed[i].at.y()) {
            right = placed[j].at.x() + placed[j].width;
            ++j;
        }
        for (std::size_t k = i; k < j; ++k)
            shift[k] = (r.width() - right) / 2;
        i = j;
    }
    const QFont font = m_plane->font();
    const QFontMetricsF fm(font);
    const double u = m_plane->unit(), gap = 5 * u, line = lineHeight(), gw = glyphWidth();
    painter->setAntialiasing(true);
    painter->setFont(font);
    for (std::size_t i = 0; i < placed.size(); ++i) {
        const Entry &e = all[std::size_t(placed[i].entry)];
        const QPointF topLeft = QPointF(r.left() + placed[i].at.x() + shift[i], r.top() + placed[i].at.y());
        const double cy = topLeft.y() + line / 2;
        double textX = topLeft.x();
        if (e.glyph != Glyph::None) {
            const QPointF a(topLeft.x(), cy), b(topLeft.x() + gw, cy);
            switch (e.glyph) {
            case Glyph::Key:
                drawDisc(painter, b - QPointF(5 * u, 0), 5.5 * u, withAlpha(P().key, 0.3), QPen(withAlpha(P().key, 0.7), u));
                drawArrow(painter, a, b - QPointF(5 * u, 0), 3.5 * u, P().key, u);
                break;
            case Glyph::Query:
                drawArrow(painter, a, b - QPointF(6 * u, 0), 2.2 * u, P().query, u);
                drawDisc(painter, b - QPointF(6 * u, 0), 5.5 * u, P().query, QPen(P().paper, 1.5 * u));
                break;
            case Glyph::Value:
                drawDisc(painter, QPointF(a.x() + gw / 2, cy), 4 * u, P().paper, QPen(P().value, 1.6 * u));
                break;
            case Glyph::Output:
                drawArrow(painter, a, b, 2.6 * u, P().output, u);
                break;
            case Glyph::None:
                break;
            }
            textX += gw + gap;
        }
        painter->setPen(P().note);
        const QRectF textRect(textX, topLeft.y(), topLeft.x() + placed[i].width - textX, line);
        painter->drawText(textRect.adjusted(0, 0, 2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                          fm.elidedText(e.text, Qt::ElideRight, textRect.width() + 1.0)); // + rounding
    }
}

// ---------------------------------------------------------------------------
PlanePlot::PlanePlot(QWidget *parent) : QCustomPlot(parent)
{
    setObjectName(QStringLiteral("vectorPlane"));
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setInteractions(QCP::Interactions()); // left-drag belongs to the handles; panning and zooming are ours
    setMinimumSize(160, 160);
    setAccessibleName(tr("Vector plane"));
    setWhatsThis(tr("Drag a query (orange) and watch the keys' weights change. Arrow keys nudge the selected "
                    "vector; Page Up/Down selects the previous or next query; with Drag keys on, Shift+Page "
                    "Up/Down selects a key. Right-drag pans, the wheel or +/− zooms, F fits, Escape cancels a drag."));

    m_ticker.reset(new PlaneTicker);
    m_ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
    for (QCPAxis *axis : {xAxis, yAxis}) {
        axis->setTicker(m_ticker);
        axis->grid()->setSubGridVisible(false);
        axis->setSubTicks(false);
    }
    xAxis2->setVisible(false);
    yAxis2->setVisible(false);

    // Layout: title, note, the plot, the legend.
    plotLayout()->insertRow(0);
    plotLayout()->insertRow(0);
    m_title = new PlaneCaption(this);
    m_note = new PlaneCaption(this);
    plotLayout()->addElement(0, 0, m_title);
    plotLayout()->addElement(1, 0, m_note);
    // A warning when the picture can mislead, over the plot, never left out.
    plotLayout()->insertRow(2);
    m_warning = new PlaneCaption(this);
    plotLayout()->addElement(2, 0, m_warning);
    m_legend = new PlaneLegend(this);
    plotLayout()->addElement(4, 0, m_legend);
    plotLayout()->setRowSpacing(0);
    plotLayout()->setRowStretchFactors({0.001, 0.001, 0.001, 1.0, 0.001});

    // The vectors on a buffered layer of their own: a drag redraws only it
    // while the axes, grid, caption and legend stay as they are.
    addLayer(QStringLiteral("vectors"), layer(QStringLiteral("main")), QCustomPlot::limAbove);
    layer(QStringLiteral("vectors"))->setMode(QCPLayer::lmBuffered);
    m_layer = new PlaneVectorLayer(this);

    applyTheme(plotTheme(HeatmapPlot::windowTheme()));
    applyFonts();
}

void PlanePlot::setTheme(const PlotTheme &theme)
{
    applyTheme(theme);
    applyFonts(); // the zero line's width; replots every layer
}

void PlanePlot::applyTheme(const PlotTheme &theme)
{
    m_theme = theme;
    const PlanePalette pal = planePalette(theme);
    setBackground(theme.background);
    for (QCPAxis *axis : {xAxis, yAxis}) {
        axis->grid()->setPen(QPen(pal.grid, 1));
        axis->grid()->setZeroLinePen(QPen(pal.zeroLine, 1.3));
        axis->setBasePen(QPen(pal.axisPen));
        axis->setTickPen(QPen(pal.axisPen));
        axis->setTickLabelColor(pal.note);
        axis->setLabelColor(pal.note);
    }
    m_title->setTextColor(pal.title);
    m_note->setTextColor(pal.note);
    m_warning->setTextColor(pal.warning);
}

void setWindowPlotTheme(FigureTheme theme)
{
    HeatmapPlot::setWindowTheme(theme);
    const PlotTheme t = plotTheme(theme);
    for (QWidget *w : QApplication::allWidgets()) {
        if (w->testAttribute(Qt::WA_DontShowOnScreen))
            continue; // a figure being drawn has its own theme
        if (auto *h = qobject_cast<HeatmapPlot *>(w))
            h->setTheme(t);
        else if (auto *plane = qobject_cast<PlanePlot *>(w))
            plane->setTheme(t);
    }
}

PlanePlot::~PlanePlot() = default;

void PlanePlot::setScene(const PlaneScene &scene)
{
    m_scene = scene;
    if (m_weightsHidden && !m_scene.hideWeights)
        hideSceneWeights(m_scene);
    updateCaption();
    requestReplot();
}

void PlanePlot::updateCaption()
{
    m_title->setText(m_scene.title);
    m_note->setText(m_scene.note.join(QLatin1Char(' ')));
    m_warning->setText(warningText());
    xAxis->setLabel(m_scene.horizontalTitle);
    yAxis->setLabel(m_scene.verticalTitle);
}

void PlanePlot::fitChrome()
{
    // The title, the note and the legend take at most about a third of the
    // height; on a small plot (a projector's zoom in a side tab) the note
    // keeps its first sentence or goes (it stays in the tooltip), then the
    // legend goes.
    const int budget = int(0.34 * viewport().height());
    m_note->setText(m_scene.note.join(QLatin1Char(' ')));
    m_legend->setShown(true);
    auto used = [&] {
        return m_title->heightNeeded() + m_note->heightNeeded() + m_warning->heightNeeded() + m_legend->heightNeeded();
    };
    if (used() > budget && m_scene.note.size() > 1)
        m_note->setText(m_scene.note.first());
    if (used() > budget)
        m_note->setText(QString());
    if (used() > budget)
        m_legend->setShown(false);
}

void PlanePlot::fit()
{
    m_autoFit = true;
    m_fitPending = true;
    emit fitRequested(); // a PCA plane may be fitted again to the vectors as they are now
    requestReplot();
}

void PlanePlot::fitOnce()
{
    m_fitPending = true;
    requestReplot();
}

void PlanePlot::zoomBy(double factor)
{
    if (!(factor > 0) || !std::isfinite(factor))
        return;
    m_unitsPerPixel = std::clamp(m_unitsPerPixel * factor, kMinUnitsPerPixel, kMaxUnitsPerPixel);
    m_autoFit = false;
    requestReplot();
}

double PlanePlot::unit() const
{
    return std::max(0.8, QFontMetricsF(font()).height() / 17.0);
}

QString PlanePlot::chromeKey() const
{
    // Everything drawn outside the vector layer depends on these.
    const QRect v = viewport();
    return QStringLiteral("%1 %2 %3 %4|%5 %6 %7|%8|%9|%10|%11|%12|%13 %14 %15 %16")
        .arg(v.width())
        .arg(v.height())
        .arg(v.x())
        .arg(v.y())
        .arg(m_center(0), 0, 'g', 17)
        .arg(m_center(1), 0, 'g', 17)
        .arg(m_unitsPerPixel, 0, 'g', 17)
        .arg(m_title->text() + m_warning->text(), m_scene.note.join(QLatin1Char(' ')), xAxis->label(), yAxis->label(), font().key())
        .arg(m_scene.dv)
        .arg(m_scene.projected)
        .arg(m_scene.d == 0)
        .arg(m_fitPending);
}

void PlanePlot::requestReplot()
{
    // Hidden (another tab in front): nothing to draw until it is shown.
    if (!isVisible()) {
        m_replotWhenShown = true;
        return;
    }
    // Only the vectors changed (a drag, a hover, another query): redraw their
    // layer alone; anything else takes a full replot. Both are queued, so a
    // burst of changes in one turn of the event loop draws once.
    if (m_chromeKey.isEmpty() || chromeKey() != m_chromeKey) {
        replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    if (!m_vectorReplotQueued) {
        m_vectorReplotQueued = true;
        QMetaObject::invokeMethod(this, &PlanePlot::replotVectors, Qt::QueuedConnection);
    }
}

void PlanePlot::replotVectors()
{
    m_vectorReplotQueued = false;
    if (mReplotQueued) // a full replot is on its way and draws the vectors too
        return;
    if (chromeKey() != m_chromeKey) {
        replot();
        return;
    }
    QElapsedTimer clock;
    clock.start();
    emit beforeReplot();
    layer(QStringLiteral("vectors"))->replot(); // a full replot if the buffers were invalidated
    m_lastReplotTime = double(clock.nsecsElapsed()) * 1e-6;
    m_lastWasVectors = true;
    emit afterReplot();
}

double PlanePlot::lastReplotTime() const
{
    return m_lastWasVectors ? m_lastReplotTime : replotTime();
}

void PlanePlot::applyFonts()
{
    const QFont f = font();
    for (QCPAxis *axis : {xAxis, yAxis}) {
        axis->setTickLabelFont(f);
        axis->setLabelFont(f);
    }
    QFont title = f;
    if (title.pointSizeF() > 0)
        title.setPointSizeF(title.pointSizeF() * 1.1);
    title.setBold(true);
    m_title->setFont(title);
    m_note->setFont(f);
    m_warning->setFont(f);
    const double u = unit();
    // Room for tick labels like "−0.25", so that panning does not change the
    // margins (and with them the scale) as the labels change.
    const QFontMetrics fm(f);
    axisRect()->setMinimumMargins(QMargins(fm.horizontalAdvance(QStringLiteral("−0.25")) + fm.height() + int(12 * u), 4,
                                           int(8 * u), 2 * fm.height() + int(10 * u)));
    for (QCPAxis *axis : {xAxis, yAxis}) {
        axis->grid()->setZeroLinePen(QPen(planePalette(m_theme).zeroLine, 1.3 * u));
        axis->setTickLengthIn(int(std::lround(4 * u)));
        axis->setLabelPadding(int(std::lround(4 * u)));
    }
    requestReplot();
}

void PlanePlot::updateLayout()
{
    fitChrome();
    QCustomPlot::updateLayout();
    applyView();
    // Tick labels of the new ranges may need other margins: lay out again.
    QCustomPlot::updateLayout();
    applyView();
    m_chromeKey = chromeKey(); // what this full replot draws around the vectors
    m_lastWasVectors = false;
}

void PlanePlot::applyView()
{
    const QRect r = axisRect()->rect();
    const double w = r.width(), h = r.height();
    if (w < 2 || h < 2)
        return;
    // Until the view is panned or zoomed by hand, a new size (the window's
    // or an export's) frames the vectors again; never in the middle of a drag.
    if (m_autoFit && !toolBusy() && r.size() != m_fittedSize)
        m_fitPending = true;
    if (m_fitPending && m_scene.d > 0 && w >= 40 && h >= 40) {
        m_fitPending = false;
        m_fittedSize = r.size();
        // The box around the origin and every vector drawn.
        double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
        auto grow = [&](double x, double y) {
            if (!std::isfinite(x) || !std::isfinite(y))
                return;
            x0 = std::min(x0, x);
            x1 = std::max(x1, x);
            y0 = std::min(y0, y);
            y1 = std::max(y1, y);
        };
        for (const Matrix *m : {&m_scene.queries, &m_scene.keys, &m_scene.values})
            for (Eigen::Index i = 0; i < m->rows(); ++i)
                grow((*m)(i, 0), (*m)(i, 1));
        if (m_scene.output)
            grow((*m_scene.output)(0), (*m_scene.output)(1));
        for (const PlaneCircle &c : m_scene.circles)
            if (c.key < 0) { // the unit circle: whole
                grow(c.centre(0) - c.radius, c.centre(1) - c.radius);
                grow(c.centre(0) + c.radius, c.centre(1) + c.radius);
            }
        for (const PlaneProjection &pr : m_scene.projections)
            grow(pr.foot(0), pr.foot(1));
        for (const PlaneArrow &a : m_scene.arrows) { // the gradient's tips
            const Eigen::Vector2d tip = m_scene.pointOf(a.target) + m_scene.arrowScale * a.step;
            grow(tip(0), tip(1));
        }
        double spanX = std::max(x1 - x0, 1e-3), spanY = std::max(y1 - y0, 1e-3);
        if (spanX < 0.25 && spanY < 0.25) // all at (or near) the origin: show a unit around it
            spanX = spanY = 1.0;
        // Room for the labels around the box.
        const double u = unit();
        const double marginX = std::min(60.0 * u, 0.22 * w), marginY = std::min(30.0 * u, 0.22 * h);
        const double upp = std::max(spanX / std::max(w - 2 * marginX, 0.4 * w), spanY / std::max(h - 2 * marginY, 0.4 * h));
        m_unitsPerPixel = std::clamp(upp, kMinUnitsPerPixel, kMaxUnitsPerPixel);
        m_center = Eigen::Vector2d((x0 + x1) / 2, (y0 + y1) / 2);
    }
    if (!std::isfinite(m_center(0)) || !std::isfinite(m_center(1)))
        m_center.setZero();
    const double upp = m_unitsPerPixel;
    xAxis->setRange(m_center(0) - w / 2 * upp, m_center(0) + w / 2 * upp);
    yAxis->setRange(m_center(1) - h / 2 * upp, m_center(1) + h / 2 * upp);
    // Ticks about every 60 pixels (more apart than a label is wide), but at
    // least three along the shorter axis of a small plot.
    const double labelWidth = QFontMetricsF(font()).horizontalAdvance(QStringLiteral("−0.00")) * 1.5;
    double step = niceStep(upp * std::max(60.0 * unit(), labelWidth));
    const double shortSpan = upp * std::min(w, h);
    if (shortSpan / step < 3)
        step = niceStep(shortSpan / 4);
    m_ticker->setTickStep(step);
}

QPointF PlanePlot::pixelAt(const Eigen::Vector2d &p) const
{
    return QPointF(xAxis->coordToPixel(p(0)), yAxis->coordToPixel(p(1)));
}

QPointF PlanePlot::queryPixel(int i) const
{
    return pixelAt(m_scene.queries.row(i).transpose());
}

QPointF PlanePlot::keyPixel(int j) const
{
    return pixelAt(m_scene.keys.row(j).transpose());
}

double PlanePlot::pixelsPerUnit(Qt::Orientation orientation) const
{
    const QCPAxis *axis = orientation == Qt::Horizontal ? xAxis : yAxis;
    return std::abs(axis->coordToPixel(1.0) - axis->coordToPixel(0.0));
}
Eigen::Vector2d PlanePlot::coordAt(const QPointF &pixel) const
{
    return Eigen::Vector2d(xAxis->pixelToCoord(pixel.x()), yAxis->pixelToCoord(pixel.y()));
}

PlaneTarget PlanePlot::handleAt(const QPointF &pixel, bool preferKeys, bool withKeys) const
{
    if (m_scene.d == 0 || !axisRect()->rect().contains(pixel.toPoint()))
        return {};
    const double u = unit();
    auto distance = [&](const QPointF &c) { return std::hypot(c.x() - pixel.x(), c.y() - pixel.y()); };
    PlaneTarget best;
    double bestDistance = std::numeric_limits<double>::infinity();
    auto consider = [&](PlaneTarget t, double d, double reach) {
        if (d <= reach && d < bestDistance) {
            best = t;
            bestDistance = d;
        }
    };
    // Keys first when asked (Shift), then the selected query, then the others.
    const int nq = int(m_scene.queries.rows()), nk = int(m_scene.keys.rows());
    if (withKeys && preferKeys)
        for (int j = 0; j < nk; ++j)
            consider({PlaneRole::Key, j}, distance(keyPixel(j)), 10 * u + 4);
    if (best.isValid())
        return best;
    if (m_scene.query < nq)
        consider({PlaneRole::Query, m_scene.query}, distance(queryPixel(m_scene.query)), 11 * u + 4);
    if (best.isValid())
        return best;
    for (int i = 0; i < nq; ++i)
        consider({PlaneRole::Query, i}, distance(queryPixel(i)), 8 * u + 4);
    if (withKeys)
        for (int j = 0; j < nk; ++j)
            consider({PlaneRole::Key, j}, distance(keyPixel(j)) + 0.5, 10 * u + 4); // a query on the same spot wins
    return best;
}
// --- events ----------------------------------------------------------------
// The left button and the keys go to the tool first; panning and zooming
// are the plot's own.

void PlanePlot::mousePressEvent(QMouseEvent *event)
{
    event->accept();
    if (event->button() == Qt::LeftButton) {
        if (!m_pan && m_tool)
            m_tool->mousePressed(event);
        return;
    }
    if ((event->button() == Qt::RightButton || event->button() == Qt::MiddleButton) && !toolBusy()) {
        m_pan = Pan{event->position(), m_center};
        m_autoFit = false;
        setCursor(Qt::SizeAllCursor);
    }
}

void PlanePlot::mouseDoubleClickEvent(QMouseEvent *event)
{
    // The second press of a double click starts a drag like any press.
    mousePressEvent(event);
}

void PlanePlot::mouseMoveEvent(QMouseEvent *event)
{
    event->accept();
    if (m_pan) {
        const QPointF d = event->position() - m_pan->press;
        m_center = m_pan->center + Eigen::Vector2d(-d.x(), d.y()) * m_unitsPerPixel;
        requestReplot();
        return;
    }
    if (m_tool)
        m_tool->mouseMoved(event);
}

void PlanePlot::mouseReleaseEvent(QMouseEvent *event)
{
    event->accept();
    if (event->button() == Qt::LeftButton) {
        if (m_tool)
            m_tool->mouseReleased(event);
        return;
    }
    if ((event->button() == Qt::RightButton || event->button() == Qt::MiddleButton) && m_pan) {
        m_pan.reset();
        unsetCursor();
    }
}

void PlanePlot::wheelEvent(QWheelEvent *event)
{
    const double notches = event->angleDelta().y() / 120.0;
    if (notches == 0 || m_scene.d == 0) {
        event->ignore();
        return;
    }
    event->accept();
    const QPointF pos = event->position();
    const Eigen::Vector2d at(xAxis->pixelToCoord(pos.x()), yAxis->pixelToCoord(pos.y()));
    const double before = m_unitsPerPixel;
    m_unitsPerPixel = std::clamp(before * std::pow(kZoomStep, notches), kMinUnitsPerPixel, kMaxUnitsPerPixel);
    // The point under the pointer stays under it.
    if (at.allFinite())
        m_center = at + (m_center - at) * (m_unitsPerPixel / before);
    m_autoFit = false;
    requestReplot();
}

void PlanePlot::keyPressEvent(QKeyEvent *event)
{
    const Qt::KeyboardModifiers mods = event->modifiers() & ~Qt::KeypadModifier;
    const bool plain = mods == Qt::NoModifier;
    if (m_tool && m_tool->keyPressed(event))
        return;
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        if (plain || mods == Qt::ShiftModifier) {
            zoomBy(1.0 / 1.25);
            return;
        }
        break;
    case Qt::Key_Minus:
        if (plain) {
            zoomBy(1.25);
            return;
        }
        break;
    case Qt::Key_F:
    case Qt::Key_Home:
        if (plain) {
            fit();
            return;
        }
        break;
    default:
        break;
    }
    QCustomPlot::keyPressEvent(event);
}

void PlanePlot::showEvent(QShowEvent *event)
{
    QCustomPlot::showEvent(event);
    if (m_replotWhenShown) {
        m_replotWhenShown = false;
        replot(QCustomPlot::rpQueuedReplot);
    }
}

void PlanePlot::leaveEvent(QEvent *event)
{
    if (m_tool)
        m_tool->pointerLeft();
    QCustomPlot::leaveEvent(event);
}

void PlanePlot::focusInEvent(QFocusEvent *event)
{
    QCustomPlot::focusInEvent(event);
    update();
}

void PlanePlot::focusOutEvent(QFocusEvent *event)
{
    QCustomPlot::focusOutEvent(event);
    update();
}

void PlanePlot::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange)
        applyFonts();
    QCustomPlot::changeEvent(event);
}

bool PlanePlot::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QCustomPlot::event(event);
}

void PlanePlot::paintEvent(QPaintEvent *event)
{
    QCustomPlot::paintEvent(event);
    if (!hasFocus())
        return;
    // The keyboard focus: a frame in the highlight colour (not exported).
    QPainter p(this);
    const double w = std::max(2.0, 2.0 * unit());
    p.setPen(QPen(palette().color(QPalette::Highlight), w));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(rect()).adjusted(w / 2, w / 2, -w / 2, -w / 2));
}

QString PlanePlot::toolTipAt(const QPointF &pixel) const
{
    const PlaneTarget t = handleAt(pixel, true, true);
    if (!t.isValid()) {
        if (!axisRect()->rect().contains(pixel.toPoint()))
            return QString();
        QString text = tr("Drag a query; right-drag to pan, the wheel to zoom, F to fit.");
        if (m_note->text() != m_scene.note.join(QLatin1Char(' ')))
            text.prepend(m_scene.note.join(QLatin1Char(' ')) + QStringLiteral("\n\n"));
        return text;
    }
    const Eigen::Vector2d p = m_scene.pointOf(t);
    if (t.role == PlaneRole::Query)
        return (isProjection() ? tr("%1 at %2 (projected)\nDrag it to move it; the arrow keys nudge it.")
                               : tr("%1 at %2\nDrag it to move it; the arrow keys nudge it."))
            .arg(m_scene.nameOf(t), pointText(p));
    const double w = m_scene.weights.size() > t.index ? m_scene.weights(t.index) : 0.0;
    QString text = (isProjection() ? tr("%1 at %2 (projected)") : tr("%1 at %2")).arg(m_scene.nameOf(t), pointText(p));
    text += QLatin1Char('\n');
    text += m_scene.blocked[std::size_t(t.index)]
                ? tr("blocked for query %1").arg(m_scene.queryLabels.value(m_scene.query))
                : m_scene.hideWeights ? tr("weight for query %1: hidden (predict it)").arg(m_scene.queryLabels.value(m_scene.query))
                : tr("weight for query %1: %2").arg(m_scene.queryLabels.value(m_scene.query), HeatmapPlot::formatValue(w, 4));
    // What the similarity compares, as the picture shows it.
    for (const PlaneCircle &c : m_scene.circles)
        if (c.key == t.index)
            text += QLatin1Char('\n') + tr("distance to the query in the picture: %1").arg(HeatmapPlot::formatValue(c.radius, 2));
    for (const PlaneAngle &a : m_scene.angles)
        if (a.key == t.index)
            text += QLatin1Char('\n')
                + tr("angle to the query: %1° (cos %2)")
                      .arg(std::lround(a.degrees))
                      .arg(HeatmapPlot::formatValue(std::cos(a.degrees * M_PI / 180.0), 2));
    for (const PlaneProjection &pr : m_scene.projections)
        if (pr.key == t.index)
            text += QLatin1Char('\n') + tr("projection onto the query's direction: %1").arg(HeatmapPlot::formatValue(pr.length, 2));
    if (m_scene.d > 2 && t.index < m_scene.keyShown.size())
        text += QLatin1Char('\n')
            + tr("in this plane: %1% of its ‖k‖²").arg(std::lround(100.0 * m_scene.keyShown(t.index)));
    if (m_scene.keysDraggable)
        text += QLatin1Char('\n') + tr("Drag it to move it (Shift picks the key over a query on the same spot).");
    return text;
}

QString PlanePlot::warningText() const
{
    // Hidden weights (predict, then reveal): the warning would name the answer.
    return m_scene.hideWeights ? QString() : m_scene.warning;
}

double PlanePlot::keyDiscRadius(int j) const
{
    const double w = j >= 0 && j < m_scene.weights.size() ? clampWeight(m_scene.weights(j)) : 0.0;
    return unit() * (3.0 + 16.0 * std::sqrt(w));
}

void PlanePlot::drawGuides(QCPPainter *p)
{
    const PlaneScene &sc = m_scene;
    const double u = unit();
    const QRectF area = axisRect()->rect();
    const QPointF origin = pixelAt(Eigen::Vector2d::Zero());
    const double ppu = 1.0 / m_unitsPerPixel;
    auto weightOf = [&](int j) { return j >= 0 && j < sc.weights.size() ? clampWeight(sc.weights(j)) : 0.0; };

    for (const PlaneCircle &c : sc.circles) {
        const QPointF centre = pixelAt(c.centre);
        const double r = c.radius * ppu;
        p->setBrush(Qt::NoBrush);
        if (c.key < 0) {
            p->setPen(QPen(withAlpha(P().guide, 0.8), 1.4 * u));
        } else {
            const double w = sc.hideWeights ? 0.3 : weightOf(c.key);
            p->setPen(QPen(withAlpha(P().key, 0.3 + 0.5 * std::sqrt(w)), (0.9 + 1.2 * std::sqrt(w)) * u, Qt::DashLine));
        }
        p->drawEllipse(centre, r, r);
    }
    // Cosine: where each key's direction meets the unit circle, and the
    // angle from the query's direction to it (nearer arcs for heavier keys).
    for (std::size_t i = 0; i < sc.angles.size(); ++i) {
        const PlaneAngle &a = sc.angles[i];
        const QPointF onCircle = pixelAt(Eigen::Vector2d(std::cos(a.to), std::sin(a.to)));
        drawDisc(p, onCircle, 2.6 * u, P().key, QPen(P().paper, 0.8 * u));
        double span = a.to - a.from;
        while (span > M_PI)
            span -= 2 * M_PI;
        while (span < -M_PI)
            span += 2 * M_PI;
        const double r = (22.0 + 8.0 * double(i)) * u;
        p->setPen(QPen(withAlpha(P().key, i == 0 ? 0.9 : 0.45), (i == 0 ? 1.8 : 1.1) * u));
        p->setBrush(Qt::NoBrush);
        p->drawArc(QRectF(origin.x() - r, origin.y() - r, 2 * r, 2 * r), int(std::lround(a.from * 180.0 / M_PI * 16)),
                   int(std::lround(span * 180.0 / M_PI * 16)));
    }
    // Dot: the query's line and each key's foot on it.
    if (sc.queryDirection) {
        const Eigen::Vector2d dir = *sc.queryDirection;
        const double reach = std::hypot(area.width(), area.height()) * m_unitsPerPixel * 2;
        p->setPen(QPen(withAlpha(P().query, 0.45), 1.1 * u, Qt::DashDotLine));
        p->drawLine(pixelAt(-dir * reach), pixelAt(dir * reach));
        for (const PlaneProjection &pr : sc.projections) {
            const QPointF tip = keyPixel(pr.key), foot = pixelAt(pr.foot);
            const double w = sc.hideWeights ? 0.3 : weightOf(pr.key);
            p->setPen(QPen(withAlpha(P().key, 0.35 + 0.5 * std::sqrt(w)), 1.1 * u, Qt::DashLine));
            p->drawLine(tip, foot);
            drawDisc(p, foot, 2.8 * u, withAlpha(P().key, 0.5 + 0.5 * std::sqrt(w)), QPen(P().paper, 0.8 * u));
        }
    }
}

// --- drawing ---------------------------------------------------------------

// Where one drawing of the scene puts things, worked out once: every
// vector's pixel, each key's weight (clamped) and disc, the keys from the
// lightest to the heaviest, and the fonts.
struct PlanePlot::Frame {
    explicit Frame(const QFont &f) : font(f), bold(boldOf(f)), fm(font), fmBold(bold) {}
    static QFont boldOf(QFont f)
    {
        f.setBold(true);
        return f;
    }

    double u = 1;
    QRectF area;
    QPointF origin;
    int nq = 0, nk = 0;
    QFont font, bold;
    QFontMetricsF fm, fmBold;
    std::vector<QPointF> keyAt, queryAt;
    bool values = false;           // the values are drawn (d_v = 2)
    std::vector<QPointF> valueAt;  // with values only
    QPointF outputAt;              // with values only
    std::vector<double> weight;    // clamped to [0, 1]
    std::vector<double> disc;      // keyDiscRadius
    std::vector<int> order;        // lightest key first
};

// The labels of one drawing: where each went, and the places taken.
class PlanePlot::Labels {
public:
    explicit Labels(const Frame &f) : m_frame(f), m_placer(f.area) {}

    LabelPlacer &placer() { return m_placer; }
    std::vector<PlaneLabel> &placed() { return m_placed; }
    static double pad(const Frame &f) { return 2.0 * f.u; }

    // Places a label near its anchor, away from the origin; an optional one
    // is left out when there is no free place.
    void put(const QString &text, const QPointF &anchor, double clearance, const QColor &color, bool isBold, bool optional)
    {
        const QFontMetricsF &m = isBold ? m_frame.fmBold : m_frame.fm;
        const double pad = Labels::pad(m_frame);
        const QSizeF size(m.horizontalAdvance(text) + 2 * pad, m.height() + pad);
        QPointF outward = anchor - m_frame.origin;
        if (std::hypot(outward.x(), outward.y()) < 2)
            outward = QPointF(1, -1);
        if (const auto spot = m_placer.place(anchor, outward, clearance, size, optional))
            m_placed.push_back({text, spot->rect, anchor, spot->leader, color, isBold});
    }

private:
    const Frame &m_frame;
    LabelPlacer m_placer;
    std::vector<PlaneLabel> m_placed;
};

namespace {

// Two pixels closer than this are one spot: their labels are shared.
bool samePlace(const QPointF &a, const QPointF &b)
{
    return std::hypot(a.x() - b.x(), a.y() - b.y()) < 3.0;
}

} // namespace

PlanePlot::Frame PlanePlot::frame() const
{
    const PlaneScene &sc = m_scene;
    Frame f(font());
    f.u = unit();
    f.area = axisRect()->rect();
    f.origin = pixelAt(Eigen::Vector2d::Zero());
    f.nq = int(sc.queries.rows());
    f.nk = int(sc.keys.rows());
    f.keyAt.resize(std::size_t(f.nk));
    f.queryAt.resize(std::size_t(f.nq));
    for (int j = 0; j < f.nk; ++j)
        f.keyAt[std::size_t(j)] = keyPixel(j);
    for (int i = 0; i < f.nq; ++i)
        f.queryAt[std::size_t(i)] = queryPixel(i);
    f.values = sc.values.rows() == f.nk && f.nk > 0;
    if (f.values) {
        for (int j = 0; j < f.nk; ++j)
            f.valueAt.push_back(pixelAt(sc.values.row(j).transpose()));
        if (sc.output)
            f.outputAt = pixelAt(*sc.output);
    }
    for (int j = 0; j < f.nk; ++j) {
        f.weight.push_back(j < sc.weights.size() ? clampWeight(sc.weights(j)) : 0.0);
        f.disc.push_back(keyDiscRadius(j));
    }
    f.order.resize(std::size_t(f.nk));
    std::iota(f.order.begin(), f.order.end(), 0);
    std::stable_sort(f.order.begin(), f.order.end(),
                     [&f](int a, int b) { return f.weight[std::size_t(a)] < f.weight[std::size_t(b)]; });
    return f;
}

// Back to front: what the similarity compares, the values, the other
// queries, the keys, the output and the selected query, the rings; then the
// labels, placed around everything drawn.
void PlanePlot::drawScene(QCPPainter *p)
{
    g_palette = planePalette(m_theme);
    if (m_scene.d == 0)
        return;
    const Frame f = frame();
    drawGuides(p);
    drawValues(p, f);
    drawOtherQueries(p, f);
    drawKeys(p, f);
    drawOutputAndQuery(p, f);
    drawRings(p, f);

    Labels labels(f);
    blockLabelObstacles(labels, f);
    drawShownBadge(p, f, labels);
    drawGradientArrows(p, f, labels);
    placeQueryAndOutputLabels(labels, f);
    placeKeyLabels(labels, f);
    placeAngleLabel(labels, f);
    placeOtherLabels(labels, f);
    drawLabels(p, f, labels.placed());
}

// The gradient lens's arrows, −∂L/∂v from each vector it names, in a green
// of their own (no vector has it), each labelled with its length; drawn
// before the labels so that the vectors' names keep their places.
void PlanePlot::drawGradientArrows(QCPPainter *p, const Frame &f, Labels &labels)
{
    const PlaneScene &sc = m_scene;
    if (sc.arrows.empty())
        return;
    const double u = f.u;
    const QColor green = m_theme.id == FigureTheme::ContrastDark ? QColor(0x3d, 0xd6, 0xa8) : QColor(0x00, 0x7a, 0x5a);
    for (const PlaneArrow &a : sc.arrows) {
        const Eigen::Vector2d from = sc.pointOf(a.target);
        const QPointF tail = pixelAt(from), tip = pixelAt(from + sc.arrowScale * a.step);
        drawArrow(p, tail, tip, (a.target.role == PlaneRole::Query ? 2.4 : 1.6) * u, green, u);
        if (a.target.role != PlaneRole::Query && sc.arrows.size() > 6)
            continue; // many keys: only the query's arrow is named
        const QString length = QString::fromStdString(fixed4(a.length, Minus::Typographic));
        const QString text = sc.arrowScale == 1.0 ? tr("−∇ %1").arg(length)
                                                  : tr("−∇ %1 (drawn ×%2)").arg(length, QString::number(sc.arrowScale));
        labels.put(text, tip, 4 * u, green, a.target.role == PlaneRole::Query, a.target.role != PlaneRole::Query);
    }
}

// Values, and a line from each to the output that is as strong as its weight.
void PlanePlot::drawValues(QCPPainter *p, const Frame &f)
{
    const PlaneScene &sc = m_scene;
    if (!f.values)
        return;
    const double u = f.u;
    if (sc.output && !sc.fullyMasked) {
        for (int j = 0; j < f.nk; ++j) {
            const double w = f.weight[std::size_t(j)];
            if (w < 0.005 || sc.blocked[std::size_t(j)])
                continue;
            p->setPen(QPen(withAlpha(P().value, 0.25 + 0.6 * w), u * (0.7 + 2.0 * w), Qt::DashLine, Qt::FlatCap));
            p->drawLine(f.valueAt[std::size_t(j)], f.outputAt);
        }
    }
    for (int j = 0; j < f.nk; ++j)
        drawDisc(p, f.valueAt[std::size_t(j)], 4.0 * u, withAlpha(P().paper, 0.78), QPen(P().value, 1.6 * u));
}

// The other queries, faint and under the keys (in self-attention a token's
// query often sits on its key). With many queries only their handles: a fan
// of faint arrows would hide the keys (and cost a millisecond per replot).
void PlanePlot::drawOtherQueries(QCPPainter *p, const Frame &f)
{
    const PlaneScene &sc = m_scene;
    const double u = f.u;
    const bool queryArrows = f.nq <= kAllQueryLabels;
    std::vector<QPointF> manyQueries;
    for (int i = 0; i < f.nq; ++i) {
        if (i == sc.query)
            continue;
        if (queryArrows) {
            drawArrow(p, f.origin, f.queryAt[std::size_t(i)], 1.1 * u, withAlpha(P().query, 0.35), u);
            drawDisc(p, f.queryAt[std::size_t(i)], 4.5 * u, withAlpha(P().query, 0.3), QPen(withAlpha(P().query, 0.8), 1.2 * u));
        } else {
            manyQueries.push_back(f.queryAt[std::size_t(i)]);
        }
    }
    if (!manyQueries.empty()) { // round dots in one call
        p->setPen(QPen(withAlpha(P().query, 0.45), 6.0 * u, Qt::SolidLine, Qt::RoundCap));
        p->drawPoints(manyQueries.data(), int(manyQueries.size()));
    }
}

// Keys, the heaviest drawn last (on top). Width and opacity grow with the
// square root of the weight, so small weights still differ; the disc's area
// grows with the weight itself. A blocked key is a dashed grey arrow and a ✗.
void PlanePlot::drawKeys(QCPPainter *p, const Frame &f)
{
    const PlaneScene &sc = m_scene;
    const double u = f.u;
    // Device pixels per unit of width (a 2x export scales the painter).
    const double dpr = (p->device() ? p->device()->devicePixelRatioF() : 1.0) * std::sqrt(std::abs(p->transform().determinant()));
    const bool vector = p->modes().testFlag(QCPPainter::pmVectorized);
    // Many keys: the light ones (nearly all of them on a long sequence)
    // drawn a few at a time, their width and alpha rounded to one of
    // kBatches steps of sqrt(w) below kBatchRoot: one stroke for the shafts
    // and one fill for the heads of a step instead of two painter calls and
    // a pen a key. Fewer keys are drawn one by one, exactly.
    constexpr int kBatchKeys = 64, kBatches = 8;
    constexpr double kBatchRoot = 0.2;
    // A blocked key: a thin dashed arrow crossed out at its tip.
    auto drawBlocked = [&](int j) {
        const QPointF tip = f.keyAt[std::size_t(j)];
        drawArrow(p, f.origin, tip, 1.4 * u, P().blocked, u, Qt::DashLine);
        const double c = 3.5 * u;
        p->setPen(QPen(P().blocked, 1.6 * u));
        p->drawLine(tip + QPointF(-c, -c), tip + QPointF(c, c));
        p->drawLine(tip + QPointF(-c, c), tip + QPointF(c, -c));
    };
    std::size_t first = 0;
    if (f.nk > kBatchKeys) {
        struct Batch {
            QVector<QLineF> shafts;
            std::vector<std::array<QPointF, 3>> heads;
            std::vector<std::pair<QPointF, double>> discs;
        };
        std::array<Batch, kBatches> batches;
        for (; first < f.order.size(); ++first) {
            const int j = f.order[first];
            const double w = f.weight[std::size_t(j)], root = std::sqrt(w);
            if (root >= kBatchRoot)
                break; // the order is by weight: the rest are heavier
            if (sc.blocked[std::size_t(j)])
                continue; // drawn below, one by one
            const int b = std::min(kBatches - 1, int(root / kBatchRoot * kBatches));
            const double width = u * (1.0 + 6.5 * (b + 0.5) * kBatchRoot / kBatches);
            Batch &batch = batches[std::size_t(b)];
            const QPointF tip = f.keyAt[std::size_t(j)];
            if (w >= 0.005)
                batch.discs.emplace_back(tip, f.disc[std::size_t(j)]);
            ArrowShape a;
            if (!arrowShape(f.origin, tip, width, u, a))
                continue;
            batch.shafts.append(a.shaft);
            batch.heads.push_back(a.head);
        }
        // The blocked keys among them first (weight 0: at the back), drawn
        // as drawBlocked() draws one, in three calls for all (a causal mask
        // blocks all but one key of the first query: 1,023 dashed arrows).
        {
            QVector<QLineF> shafts, crosses;
            std::vector<std::array<QPointF, 3>> heads;
            const double c = 3.5 * u;
            for (std::size_t k = 0; k < first; ++k) {
                const int j = f.order[k];
                if (!sc.blocked[std::size_t(j)])
                    continue;
                const QPointF tip = f.keyAt[std::size_t(j)];
                if (ArrowShape a; arrowShape(f.origin, tip, 1.4 * u, u, a)) {
                    shafts.append(a.shaft);
                    heads.push_back(a.head);
                }
                crosses.append(QLineF(tip + QPointF(-c, -c), tip + QPointF(c, c)));
                crosses.append(QLineF(tip + QPointF(-c, c), tip + QPointF(c, -c)));
            }
            if (!shafts.isEmpty()) {
                // One device pixel wide on screen: the raster engine dashes
                // such lines itself; a wider dashed pen goes through the path
                // stroker, about 5 ms for a thousand keys.
                p->setPen(QPen(P().blocked, vector ? 1.4 * u : 0.0, Qt::DashLine, Qt::FlatCap, Qt::MiterJoin));
                p->setBrush(Qt::NoBrush);
                p->drawLines(shafts);
                p->setPen(Qt::NoPen);
                p->setBrush(P().blocked);
                for (const auto &head : heads)
                    p->drawConvexPolygon(head.data(), 3);
            }
            if (!crosses.isEmpty()) {
                p->setPen(QPen(P().blocked, 1.6 * u));
                p->setBrush(Qt::NoBrush);
                p->drawLines(crosses);
            }
        }
        for (int b = 0; b < kBatches; ++b) {
            const Batch &batch = batches[std::size_t(b)];
            const double root = (b + 0.5) * kBatchRoot / kBatches, w = root * root;
            if (!batch.discs.empty()) {
                p->setPen(QPen(withAlpha(P().key, 0.5 + 0.5 * root), u));
                p->setBrush(withAlpha(P().key, 0.15 + 0.2 * w));
                for (const auto &[centre, r] : batch.discs)
                    p->drawEllipse(centre, r, r);
            }
            const QColor colour = withAlpha(P().key, 0.45 + 0.55 * root);
            if (!batch.shafts.isEmpty()) {
                // Up to a pixel and a half wide, drawn one pixel wide: the
                // raster engine's own line drawing instead of its path
                // stroker, a few ms less for a thousand keys (vector exports
                // keep the width).
                const double width = u * (1.0 + 6.5 * root);
                const bool thin = width * dpr <= 1.5 && !vector;
                p->setPen(QPen(colour, thin ? 0.0 : width, Qt::SolidLine, Qt::FlatCap, Qt::MiterJoin));
                p->setBrush(Qt::NoBrush);
                p->drawLines(batch.shafts);
            }
            if (!batch.heads.empty()) {
                p->setPen(Qt::NoPen);
                p->setBrush(colour);
                for (const auto &head : batch.heads)
                    p->drawConvexPolygon(head.data(), 3);
            }
        }
    }
    for (std::size_t k = first; k < f.order.size(); ++k) {
        const int j = f.order[k];
        const QPointF tip = f.keyAt[std::size_t(j)];
        if (sc.blocked[std::size_t(j)]) {
            drawBlocked(j);
            continue;
        }
        const double w = f.weight[std::size_t(j)], root = std::sqrt(w);
        if (w >= 0.005) // a smaller disc would hide under the arrowhead anyway
            drawDisc(p, tip, f.disc[std::size_t(j)], withAlpha(P().key, 0.15 + 0.2 * w), QPen(withAlpha(P().key, 0.5 + 0.5 * root), u));
        drawArrow(p, f.origin, tip, u * (1.0 + 6.5 * root), withAlpha(P().key, 0.45 + 0.55 * root), u);
    }
}

// The output, then the selected query on top.
void PlanePlot::drawOutputAndQuery(QCPPainter *p, const Frame &f)
{
    const PlaneScene &sc = m_scene;
    const double u = f.u;
    if (sc.output)
        drawArrow(p, f.origin, f.outputAt, 2.8 * u, P().output, u);
    if (sc.query < f.nq) {
        const QPointF q = f.queryAt[std::size_t(sc.query)];
        drawArrow(p, f.origin, q, 2.6 * u, P().query, u);
        drawDisc(p, q, 7.0 * u, P().query, QPen(P().paper, 2.0 * u));
        p->setPen(QPen(withAlpha(P().queryText, 0.9), u));
        p->setBrush(Qt::NoBrush);
        p->drawEllipse(q, 8.0 * u, 8.0 * u);
    }
}

// Rings: the key the arrow keys move, the hovered vector, and the key the
// picture misrepresents (see the warning) in red.
void PlanePlot::drawRings(QCPPainter *p, const Frame &f)
{
    const PlaneScene &sc = m_scene;
    const double u = f.u;
    const int nk = f.nk;
    if (sc.selectedKey >= 0 && sc.selectedKey < nk) {
        const double disc = f.disc[std::size_t(sc.selectedKey)];
        p->setPen(QPen(P().output, 1.5 * u, Qt::DashLine));
        p->setBrush(Qt::NoBrush);
        p->drawEllipse(f.keyAt[std::size_t(sc.selectedKey)], disc + 4 * u, disc + 4 * u);
    }
    const int hoverKey = sc.hoveredKey;
    if (hoverKey >= 0 && hoverKey < nk) {
        p->setPen(QPen(P().keyText, 2.0 * u));
        p->setBrush(Qt::NoBrush);
        const double r = f.disc[std::size_t(hoverKey)] + 2 * u;
        p->drawEllipse(f.keyAt[std::size_t(hoverKey)], r, r);
    }
    if (sc.hovered.isValid() && sc.hovered.role == PlaneRole::Query && sc.hovered.index < f.nq) {
        p->setPen(QPen(P().queryText, 2.0 * u));
        p->setBrush(Qt::NoBrush);
        p->drawEllipse(f.queryAt[std::size_t(sc.hovered.index)], 10 * u, 10 * u);
    }
    const int misleading = warningText().isEmpty() ? -1 : sc.misleadingKey;
    if (misleading >= 0 && misleading < nk) {
        p->setPen(QPen(P().warning, 1.8 * u, Qt::DashLine));
        p->setBrush(Qt::NoBrush);
        const double r = f.disc[std::size_t(misleading)] + 5 * u;
        p->drawEllipse(f.keyAt[std::size_t(misleading)], r, r);
    }
}

// What no label may cover: the selected query's handle and shaft, the
// output's tip and shaft, each key's weight disc and most of its shaft.
void PlanePlot::blockLabelObstacles(Labels &labels, const Frame &f) const
{
    const PlaneScene &sc = m_scene;
    const double u = f.u;
    LabelPlacer &placer = labels.placer();
    if (sc.query < f.nq) {
        placer.blockDisc(f.queryAt[std::size_t(sc.query)], 8 * u);
        if (f.nk <= kAllKeyLabels)
            placer.blockSegment(f.origin, f.queryAt[std::size_t(sc.query)], 2 * u);
    }
    if (sc.output) {
        placer.blockDisc(f.outputAt, 4 * u);
        placer.blockSegment(f.origin, f.outputAt, 2 * u);
    }
    for (int j = 0; j < f.nk && f.nk <= kAllKeyLabels; ++j) {
        // The whole weight disc: a label never covers one.
        const bool disc = !sc.blocked[std::size_t(j)] && f.weight[std::size_t(j)] >= 0.005;
        placer.blockDisc(f.keyAt[std::size_t(j)], disc ? f.disc[std::size_t(j)] : 3 * u);
        // The shaft, short of the tip (the key's own label sits beside its tip).
        const QPointF tip = f.keyAt[std::size_t(j)];
        placer.blockSegment(f.origin, f.origin + (tip - f.origin) * 0.8, 1.5 * u);
    }
}

// How much of the vectors the plane shows (d > 2), in the top left corner.
void PlanePlot::drawShownBadge(QCPPainter *p, const Frame &f, Labels &labels)
{
    const PlaneScene &sc = m_scene;
    if (sc.shownText.isEmpty()) {
        m_badge = QRectF();
        return;
    }
    const double u = f.u;
    const double bpad = 3.0 * u;
    const QString text = f.fm.elidedText(sc.shownText, Qt::ElideRight, std::max(40.0, f.area.width() - 4 * bpad));
    const QRectF badge(f.area.left() + bpad, f.area.top() + bpad, f.fm.horizontalAdvance(text) + 2 * bpad, f.fm.height() + bpad);
    p->setPen(QPen(withAlpha(P().note, 0.5), 1.0));
    p->setBrush(withAlpha(P().paper, 0.9));
    p->drawRoundedRect(badge, 3 * u, 3 * u);
    p->setPen(P().note);
    p->setFont(f.font);
    p->drawText(badge, Qt::AlignCenter, text);
    labels.placer().block(badge.adjusted(-bpad, -bpad, bpad, bpad));
    m_badge = badge;
}

// The two labels that are always shown: the selected query and the output.
void PlanePlot::placeQueryAndOutputLabels(Labels &labels, const Frame &f) const
{
    const PlaneScene &sc = m_scene;
    if (sc.query < f.nq)
        labels.put(tr("query %1").arg(sc.queryLabels.value(sc.query)), f.queryAt[std::size_t(sc.query)], 9 * f.u, P().queryText,
                   true, false);
    if (sc.output)
        labels.put(tr("output"), f.outputAt, 5 * f.u, P().output, true, false);
}

// Keys with their weights, heaviest first (the heaviest in bold); with many
// keys only the heaviest are named. Keys drawn on the same spot (equal in
// the two dimensions shown) share one label, "小 0.00, 老鼠 0.05", instead of
// two printed over each other. Then the blocked keys, where there is room:
// the ✗ and the dashed arrow say "blocked" anyway, and the tooltip names them.
void PlanePlot::placeKeyLabels(Labels &labels, const Frame &f) const
{
    const PlaneScene &sc = m_scene;
    const int nk = f.nk;
    const std::vector<int> byWeight(f.order.rbegin(), f.order.rend());
    int heaviest = -1;
    for (int j : byWeight)
        if (!sc.blocked[std::size_t(j)]) {
            heaviest = j;
            break;
        }
    std::vector<bool> labelled(std::size_t(nk), false);
    int named = 0;
    for (int j : byWeight) {
        if (sc.blocked[std::size_t(j)] || labelled[std::size_t(j)])
            continue;
        if (nk > kAllKeyLabels && named >= kHeavyKeyLabels)
            break;
        ++named;
        QStringList parts;
        for (int k : byWeight)
            if (!sc.blocked[std::size_t(k)] && !labelled[std::size_t(k)] && samePlace(f.keyAt[std::size_t(k)], f.keyAt[std::size_t(j)])) {
                labelled[std::size_t(k)] = true;
                parts << (sc.hideWeights ? sc.keyLabels.value(k)
                                         : QStringLiteral("%1 %2").arg(sc.keyLabels.value(k), number(f.weight[std::size_t(k)])));
            }
        labels.put(parts.join(QStringLiteral(", ")), f.keyAt[std::size_t(j)], f.disc[std::size_t(j)] + 1.5 * f.u, P().keyText,
                   j == heaviest && !sc.hideWeights, nk > kAllKeyLabels);
    }
    for (int j = 0; j < nk; ++j) {
        if (!sc.blocked[std::size_t(j)] || labelled[std::size_t(j)] || nk > kAllKeyLabels)
            continue;
        QStringList names;
        for (int k = j; k < nk; ++k)
            if (sc.blocked[std::size_t(k)] && !labelled[std::size_t(k)] && samePlace(f.keyAt[std::size_t(k)], f.keyAt[std::size_t(j)])) {
                labelled[std::size_t(k)] = true;
                names << sc.keyLabels.value(k);
            }
        labels.put(tr("%1 blocked").arg(names.join(QStringLiteral(", "))), f.keyAt[std::size_t(j)], 5 * f.u,
                   P().faint, false, true);
    }
}

// Cosine: the angle to the heaviest key, beside its arc (the heaviest that
// is not along the query: 0° says little).
void PlanePlot::placeAngleLabel(Labels &labels, const Frame &f) const
{
    const PlaneScene &sc = m_scene;
    if (sc.angles.empty())
        return;
    const auto turned = std::find_if(sc.angles.begin(), sc.angles.end(), [](const PlaneAngle &a) { return a.degrees >= 1.0; });
    const PlaneAngle &a = turned != sc.angles.end() ? *turned : sc.angles.front();
    const double r = (22.0 + 8.0 * double(&a - sc.angles.data())) * f.u;
    double span = a.to - a.from;
    while (span > M_PI)
        span -= 2 * M_PI;
    while (span < -M_PI)
        span += 2 * M_PI;
    const double mid = a.from + span / 2;
    const QPointF at = f.origin + QPointF(std::cos(mid), -std::sin(mid)) * r;
    labels.put(tr("θ = %1°").arg(std::lround(a.degrees)), at, 3 * f.u, P().keyText, false, true);
}

// The other queries and the values, where there is room and they add a name.
void PlanePlot::placeOtherLabels(Labels &labels, const Frame &f) const
{
    const PlaneScene &sc = m_scene;
    const double u = f.u;
    if (f.nq <= kAllQueryLabels) {
        for (int i = 0; i < f.nq; ++i) {
            if (i == sc.query)
                continue;
            bool named = false;
            for (int j = 0; j < f.nk && !named; ++j)
                named = samePlace(f.queryAt[std::size_t(i)], f.keyAt[std::size_t(j)]) && sc.keyLabels.value(j) == sc.queryLabels.value(i);
            if (!named)
                labels.put(sc.queryLabels.value(i), f.queryAt[std::size_t(i)], 6 * u, withAlpha(P().queryText, 0.75), false, true);
        }
    }
    if (f.values && f.nk <= kAllValueLabels) {
        for (int j = 0; j < f.nk; ++j)
            if (!samePlace(f.valueAt[std::size_t(j)], f.keyAt[std::size_t(j)]))
                labels.put(tr("v %1").arg(sc.keyLabels.value(j)), f.valueAt[std::size_t(j)], 5 * u, P().value, false, true);
    }
}

// Each label with a white halo (the text drawn white around itself), so
// that it reads over arrows and grid lines without hiding them behind a
// box; a label set off from its anchor has a leader line. Plain drawText
// keeps to the glyph cache: outlines would cost milliseconds per replot.
void PlanePlot::drawLabels(QCPPainter *p, const Frame &f, const std::vector<PlaneLabel> &placed)
{
    const double halo = 1.4 * f.u;
    const double pad = Labels::pad(f);
    static const QPointF around[6] = {{1, 0}, {-1, 0}, {0.6, 0.8}, {-0.6, 0.8}, {0.6, -0.8}, {-0.6, -0.8}};
    const QColor white = withAlpha(P().paper, 0.92); // the halo: the figure's paper
    for (const PlaneLabel &l : placed) {
        if (!l.leader)
            continue;
        p->setPen(QPen(withAlpha(l.color, 0.6), std::max(1.0, 0.9 * f.u)));
        p->drawLine(l.anchor, nearestOnRect(l.rect, l.anchor));
    }
    m_labels = placed;
    for (const PlaneLabel &l : placed) {
        p->setFont(l.bold ? f.bold : f.font);
        QStaticText text(l.text); // laid out once, drawn seven times
        text.setTextFormat(Qt::PlainText);
        text.prepare(p->transform(), p->font());
        const QPointF at(l.rect.left() + pad, l.rect.top() + pad / 2);
        p->setPen(white);
        for (const QPointF &d : around)
            p->drawStaticText(at + d * halo, text);
        p->setPen(l.color);
        p->drawStaticText(at, text);
    }
}

} // namespace attn
