#include "vectorplane.h"

#include "edit.h"
#include "heatmapplot.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QStaticText>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn {

namespace {

// Okabe-Ito colours: blue and vermillion stay apart for every colour
// vision; black and grey for the output and the values.
const QColor kKey(0x00, 0x72, 0xb2);
const QColor kKeyText(0x00, 0x50, 0x80);
const QColor kQuery(0xd5, 0x5e, 0x00);
const QColor kQueryText(0xa8, 0x42, 0x00);
const QColor kOutput(0x11, 0x11, 0x11);
const QColor kValue(0x6e, 0x6e, 0x6e);
const QColor kBlocked(0x8c, 0x8c, 0x8c);
const QColor kNote(0x3a, 0x3a, 0x3a);
const QColor kGrid(0xe2, 0xe2, 0xe2);
const QColor kZeroLine(0x5a, 0x5a, 0x5a);

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
void drawArrow(QCPPainter *p, const QPointF &from, const QPointF &to, double width, const QColor &color,
               double u, Qt::PenStyle style = Qt::SolidLine)
{
    const QPointF d = to - from;
    const double len = std::hypot(d.x(), d.y());
    if (len < 1.0)
        return;
    const QPointF dir = d / len, normal(-dir.y(), dir.x());
    double headLen = 6.0 * u + 2.0 * width, headHalf = 3.2 * u + 1.2 * width;
    if (headLen > 0.6 * len) {
        const double k = 0.6 * len / headLen;
        headLen *= k;
        headHalf *= k;
    }
    const QPointF base = to - dir * headLen;
    // A stroked shaft and a filled head: cheaper for the raster engine than
    // one antialiased outline of both (measured with callgrind).
    QPen pen(color, width, style, Qt::FlatCap, Qt::MiterJoin);
    p->setPen(pen);
    p->setBrush(Qt::NoBrush);
    p->drawLine(from, base + dir * std::min(1.0, 0.5 * headLen));
    p->setPen(Qt::NoPen);
    p->setBrush(color);
    const QPointF head[3] = {to, base + normal * headHalf, base - normal * headHalf};
    p->drawPolygon(head, 3);
}

void drawDisc(QCPPainter *p, const QPointF &c, double r, const QBrush &fill, const QPen &outline)
{
    p->setPen(outline);
    p->setBrush(fill);
    p->drawEllipse(c, r, r);
}

// Greedy placement of labels around their anchors: each label takes the
// first free place among eight directions (starting outwards, away from the
// origin) at two distances, or the least crowded one.
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

    std::optional<QRectF> place(const QPointF &anchor, QPointF outward, double clearance, const QSizeF &size,
                                bool optional)
    {
        const double norm = std::hypot(outward.x(), outward.y());
        outward = norm > 1e-9 ? outward / norm : QPointF(0.7071, -0.7071);
        const double a0 = std::atan2(outward.y(), outward.x());
        static const double offsets[] = {0, 1, -1, 2, -2, 3, -3, 4};
        double bestCost = std::numeric_limits<double>::infinity();
        QRectF best;
        int index = 0;
        for (double ring : {1.0, 2.2}) {
            for (double off : offsets) {
                const double a = a0 + off * M_PI / 4.0;
                const QPointF dir(std::cos(a), std::sin(a));
                const double square = std::max(std::abs(dir.x()), std::abs(dir.y()));
                const QPointF at = anchor + dir * (clearance * ring);
                const QPointF centre = at + QPointF(dir.x() / square * size.width() / 2, dir.y() / square * size.height() / 2);
                const QRectF r(centre.x() - size.width() / 2, centre.y() - size.height() / 2, size.width(), size.height());
                const double crowd = overlap(r), outside = r.width() * r.height() - area(r.intersected(m_area));
                if (crowd < 0.5 && outside < 0.5) {
                    block(r);
                    return r;
                }
                const double cost = crowd + 3 * outside + index++;
                if (cost < bestCost) {
                    bestCost = cost;
                    best = r;
                }
            }
        }
        if (optional)
            return std::nullopt;
        block(best);
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
    explicit PlaneVectorLayer(VectorPlane *plane) : QCPLayerable(plane, QStringLiteral("vectors")), m_plane(plane) {}

protected:
    void applyDefaultAntialiasingHint(QCPPainter *painter) const override { painter->setAntialiasing(true); }
    QRect clipRect() const override { return m_plane->axisRect()->rect(); }
    void draw(QCPPainter *painter) override { m_plane->drawScene(painter); }

private:
    VectorPlane *m_plane;
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
    explicit PlaneLegend(VectorPlane *plane) : QCPLayoutElement(plane), m_plane(plane)
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

    VectorPlane *m_plane;
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
    out.push_back({Glyph::Key, brief ? VectorPlane::tr("key (width: weight)") : VectorPlane::tr("key: width and disc grow with its weight")});
    out.push_back({Glyph::Query, brief || m_plane->m_forFigure ? VectorPlane::tr("query") : VectorPlane::tr("query: drag it")});
    if (sc.dv == 2) {
        out.push_back({Glyph::Value, sc.projected ? VectorPlane::tr("value v = x·W_V") : VectorPlane::tr("value")});
        out.push_back({Glyph::Output, brief ? VectorPlane::tr("output Σ w·v") : VectorPlane::tr("output = Σ weight · value")});
    } else {
        out.push_back({Glyph::None, brief ? VectorPlane::tr("(d_v = %1: output in the Output map)").arg(sc.dv)
                                          : VectorPlane::tr("(values have d_v = %1: the output is in the Output map)").arg(sc.dv)});
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
                drawDisc(painter, b - QPointF(5 * u, 0), 5.5 * u, withAlpha(kKey, 0.3), QPen(withAlpha(kKey, 0.7), u));
                drawArrow(painter, a, b - QPointF(5 * u, 0), 3.5 * u, kKey, u);
                break;
            case Glyph::Query:
                drawArrow(painter, a, b - QPointF(6 * u, 0), 2.2 * u, kQuery, u);
                drawDisc(painter, b - QPointF(6 * u, 0), 5.5 * u, kQuery, QPen(Qt::white, 1.5 * u));
                break;
            case Glyph::Value:
                drawDisc(painter, QPointF(a.x() + gw / 2, cy), 4 * u, QColor(255, 255, 255), QPen(kValue, 1.6 * u));
                break;
            case Glyph::Output:
                drawArrow(painter, a, b, 2.6 * u, kOutput, u);
                break;
            case Glyph::None:
                break;
            }
            textX += gw + gap;
        }
        painter->setPen(kNote);
        const QRectF textRect(textX, topLeft.y(), topLeft.x() + placed[i].width - textX, line);
        painter->drawText(textRect.adjusted(0, 0, 2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                          fm.elidedText(e.text, Qt::ElideRight, textRect.width() + 1.0)); // + rounding
    }
}

// ---------------------------------------------------------------------------

VectorPlane::VectorPlane(Document *doc, QWidget *parent) : QCustomPlot(parent), m_doc(doc), m_docGuard(doc)
{
    setObjectName(QStringLiteral("vectorPlane"));
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setInteractions(QCP::Interactions()); // left-drag belongs to the handles; panning and zooming are ours
    setBackground(Qt::white);
    setMinimumSize(160, 160);
    setAccessibleName(tr("Vector plane"));
    setWhatsThis(tr("Drag a query (orange) and watch the keys' weights change. Arrow keys nudge the selected "
                    "vector; Page Up/Down selects the previous or next query; with Drag keys on, Shift+Page "
                    "Up/Down selects a key. Right-drag pans, the wheel or +/− zooms, F fits, Escape cancels a drag."));

    m_ticker.reset(new PlaneTicker);
    m_ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
    for (QCPAxis *axis : {xAxis, yAxis}) {
        axis->setTicker(m_ticker);
        axis->grid()->setPen(QPen(kGrid, 1));
        axis->grid()->setZeroLinePen(QPen(kZeroLine, 1.3));
        axis->grid()->setSubGridVisible(false);
        axis->setBasePen(QPen(QColor(0x90, 0x90, 0x90)));
        axis->setTickPen(QPen(QColor(0x90, 0x90, 0x90)));
        axis->setSubTicks(false);
        axis->setTickLabelColor(kNote);
        axis->setLabelColor(kNote);
    }
    xAxis2->setVisible(false);
    yAxis2->setVisible(false);

    // Layout: title, note, the plot, the legend.
    plotLayout()->insertRow(0);
    plotLayout()->insertRow(0);
    m_title = new PlaneCaption(this);
    m_title->setTextColor(QColor(0x1a, 0x1a, 0x1a));
    m_note = new PlaneCaption(this);
    m_note->setTextColor(kNote);
    plotLayout()->addElement(0, 0, m_title);
    plotLayout()->addElement(1, 0, m_note);
    m_legend = new PlaneLegend(this);
    plotLayout()->addElement(3, 0, m_legend);
    plotLayout()->setRowSpacing(0);
    plotLayout()->setRowStretchFactors({0.001, 0.001, 1.0, 0.001});

    // The vectors on a buffered layer of their own: a drag redraws only it
    // while the axes, grid, caption and legend stay as they are.
    addLayer(QStringLiteral("vectors"), layer(QStringLiteral("main")), QCustomPlot::limAbove);
    layer(QStringLiteral("vectors"))->setMode(QCPLayer::lmBuffered);
    m_layer = new PlaneVectorLayer(this);

    connect(doc, &Document::changed, this, &VectorPlane::onDocumentChanged);
    connect(doc, &Document::currentChanged, this, [this] {
        // Another head mid-drag (a shortcut): the gesture ends where it is.
        if (m_drag && m_doc->currentHead() != m_scene.head) {
            endDrag();
            m_ignoreUntilRelease = true;
        }
        refresh();
    });
    connect(doc, &Document::hoverChanged, this, [this] { requestReplot(); });
    applyFonts();
    refresh();
}

VectorPlane::~VectorPlane()
{
    // A drag in flight when the plane goes: leave the document as it was.
    if (m_drag && m_drag->moved && m_docGuard && m_doc->isLive())
        m_doc->cancelLive();
}

void VectorPlane::onDocumentChanged(Document::Changes what)
{
    if (!m_selfEdit) {
        m_basisStale = true; // the vectors moved under a PCA plane: fit it again
        if (m_drag) {
            // Something else changed the scenario mid-gesture (undo, a lesson):
            // the gesture is over; the document has closed or will close it.
            m_drag.reset();
            m_ignoreUntilRelease = true;
        }
    }
    if (what & Document::Change::Shape) {
        m_selectedKey = -1;
        m_hover = {};
        m_autoFit = true;
        m_fitPending = true;
    }
    refresh();
}

void VectorPlane::refresh()
{
    const int oldD = m_scene.d;
    rebuildScene();
    updateCaption();
    if (oldD != m_scene.d)
        emit viewChanged();
    requestReplot();
}

int VectorPlane::columnOffset() const
{
    return m_scene.projected ? 0 : m_scene.head * m_scene.d;
}

MatrixId VectorPlane::matrixOf(Role role) const
{
    const Scenario &s = m_doc->scenario();
    if (s.mode == InputMode::Projected)
        return role == Role::Query || !s.source ? MatrixId::X : MatrixId::Source;
    return role == Role::Query ? MatrixId::Q : MatrixId::K;
}

void VectorPlane::rebuildScene()
{
    const Scenario &s = m_doc->scenario();
    const Trace &t = m_doc->trace();
    Scene sc;
    sc.projected = s.mode == InputMode::Projected;
    sc.selfAttention = sc.projected && !s.source;
    sc.head = std::clamp(m_doc->currentHead(), 0, std::max(0, int(t.heads.size()) - 1));
    sc.query = std::clamp(m_doc->currentQuery(), 0, std::max(0, queryCount(s) - 1));
    sc.d = sc.projected ? modelWidth(s) : headDim(s);
    sc.dv = t.dv;
    const bool headChanged = sc.head != m_scene.head;
    m_scene.projected = sc.projected;
    m_scene.head = sc.head;
    m_scene.d = sc.d;

    if (sc.d > 0 && !t.heads.empty()) {
        const int offset = columnOffset();
        const Matrix &qm = matrix(s, matrixOf(Role::Query)), &km = matrix(s, matrixOf(Role::Key));
        const auto q = qm.middleCols(offset, sc.d), k = km.middleCols(offset, sc.d);
        // The plane.
        if (sc.d <= 2) {
            m_basis = axisPlane(sc.d, 0, 1);
        } else if (!m_pca) {
            if (m_dimX >= sc.d || m_dimY >= sc.d || m_dimX == m_dimY) {
                m_dimX = 0;
                m_dimY = 1;
                emit viewChanged();
            }
            m_basis = axisPlane(sc.d, m_dimX, m_dimY);
        } else if (m_basisStale || headChanged || m_basis.axisAligned() || m_basis.dimension() != sc.d) {
            Matrix all(q.rows() + k.rows(), sc.d);
            all << k, q;
            m_basis = principalPlane(all);
        }
        m_basisStale = false;
        sc.queries = projectRows(m_basis, q);
        sc.keys = projectRows(m_basis, k);

        const HeadTrace &ht = t.heads[std::size_t(sc.head)];
        sc.weights = ht.weights.row(sc.query).transpose();
        sc.blocked.assign(std::size_t(k.rows()), false);
        if (t.blocked.rows() > sc.query)
            for (Eigen::Index j = 0; j < k.rows() && j < t.blocked.cols(); ++j)
                sc.blocked[std::size_t(j)] = t.blocked(sc.query, j);
        sc.fullyMasked = std::size_t(sc.query) < ht.rows.size() && ht.rows[std::size_t(sc.query)].fullyMasked;
        if (sc.dv == 2) {
            sc.values = ht.V;
            sc.output = ht.output.row(sc.query).transpose();
        }
    }
    for (const std::string &l : queryLabels(s))
        sc.queryLabels << QString::fromStdString(l);
    for (const std::string &l : keyLabels(s))
        sc.keyLabels << QString::fromStdString(l);
    if (m_selectedKey >= int(sc.keys.rows()) || !m_keysDraggable)
        m_selectedKey = -1;
    m_scene = std::move(sc);
}

void VectorPlane::updateCaption()
{
    const Scenario &s = m_doc->scenario();
    const Scene &sc = m_scene;
    const QString query = sc.queryLabels.value(sc.query);
    m_title->setText(s.heads > 1 ? tr("Weights of query %1 · head %2 of %3").arg(query).arg(sc.head + 1).arg(s.heads)
                                 : tr("Weights of query %1").arg(query));
    QStringList note;
    if (sc.projected) {
        note << (sc.selfAttention ? tr("Embeddings X; Q = X·W_Q, K = X·W_K: each row of X is a query and a key.")
                                  : tr("Embeddings X (queries) and source S (keys); Q = X·W_Q, K = S·W_K."));
    }
    const QString width = sc.projected ? tr("d_model") : tr("d_k");
    if (sc.d == 1) {
        note << (m_forFigure ? tr("%1 = 1: the vectors lie on a line (two dimensions are needed for a plane).")
                             : tr("%1 = 1: the vectors lie on a line (two dimensions are needed for a plane); drag along it."))
                    .arg(width);
    } else if (sc.d == 2) {
        if (!sc.projected)
            note << (s.heads > 1 ? tr("Head %1's columns of Q and K, drawn exactly.").arg(sc.head + 1)
                                 : tr("Q and K, drawn exactly."));
    } else if (isProjection()) {
        note << (m_forFigure ? tr("PCA projection of keys and queries (%1 = %2; the plane holds %3% of their length²).")
                             : tr("PCA projection of keys and queries (%1 = %2; the plane holds %3% of their length²); "
                                  "dragging keeps the hidden part."))
                    .arg(width)
                    .arg(sc.d)
                    .arg(std::lround(100.0 * (m_basis.explained(0) + m_basis.explained(1))));
    } else {
        note << (m_forFigure ? tr("Dimensions %1 and %2 of %3 = %4.") : tr("Dimensions %1 and %2 of %3 = %4; dragging keeps the others."))
                    .arg(m_dimX + 1)
                    .arg(m_dimY + 1)
                    .arg(width)
                    .arg(sc.d);
    }
    if (s.encoding == Encoding::Rope)
        note << (m_forFigure ? tr("RoPE rotates q and k after this: the raw vectors are shown.")
                             : tr("RoPE rotates q and k after this: the raw vectors are shown and dragged."));
    else if (s.encoding != Encoding::None)
        note << (m_forFigure ? tr("The positional encoding is added after: the raw inputs are shown.")
                             : tr("The positional encoding is added after: the raw inputs are shown and dragged."));
    if (sc.fullyMasked)
        note << tr("Every key is blocked for this query: its weights and output are 0.");
    m_noteSentences = note;
    m_note->setText(note.join(QLatin1Char(' ')));
    xAxis->setLabel(horizontalTitle());
    yAxis->setLabel(verticalTitle());
}

QString VectorPlane::caption() const
{
    return m_title->text() + QLatin1Char('\n') + m_noteSentences.join(QLatin1Char(' '));
}

void VectorPlane::fitChrome()
{
    // The title, the note and the legend take at most about a third of the
    // height; on a small plot (a projector's zoom in a side tab) the note
    // keeps its first sentence or goes (it stays in the tooltip), then the
    // legend goes.
    const int budget = int(0.34 * viewport().height());
    m_note->setText(m_noteSentences.join(QLatin1Char(' ')));
    m_legend->setShown(true);
    auto used = [&] { return m_title->heightNeeded() + m_note->heightNeeded() + m_legend->heightNeeded(); };
    if (used() > budget && m_noteSentences.size() > 1)
        m_note->setText(m_noteSentences.first());
    if (used() > budget)
        m_note->setText(QString());
    if (used() > budget)
        m_legend->setShown(false);
}

QString VectorPlane::horizontalTitle() const
{
    if (m_scene.d == 0)
        return QString();
    if (isProjection())
        return tr("principal direction 1 (projection)");
    const int dim = m_basis.axisAligned() ? m_basis.first + 1 : 1;
    return m_scene.projected ? tr("x: dimension %1").arg(dim) : tr("q, k: dimension %1").arg(dim);
}

QString VectorPlane::verticalTitle() const
{
    if (m_scene.d == 0)
        return QString();
    if (isProjection())
        return tr("principal direction 2 (projection)");
    if (m_scene.d == 1)
        return tr("(none: one dimension)");
    const int dim = m_basis.axisAligned() ? m_basis.second + 1 : 2;
    return m_scene.projected ? tr("x: dimension %1").arg(dim) : tr("q, k: dimension %1").arg(dim);
}

void VectorPlane::setDimensions(int horizontal, int vertical)
{
    const int d = std::max(m_scene.d, 2);
    horizontal = std::clamp(horizontal, 0, d - 1);
    vertical = std::clamp(vertical, 0, d - 1);
    if (horizontal == vertical)
        vertical = horizontal == 0 ? 1 : 0;
    if (horizontal == m_dimX && vertical == m_dimY)
        return;
    m_dimX = horizontal;
    m_dimY = vertical;
    m_fitPending = true;
    refresh();
    emit viewChanged();
}

void VectorPlane::setPrincipalProjection(bool on)
{
    if (on == m_pca)
        return;
    m_pca = on;
    m_basisStale = true;
    m_fitPending = true;
    refresh();
    emit viewChanged();
}

void VectorPlane::setSnapStep(double step)
{
    step = step > 0 && std::isfinite(step) ? step : 0.0;
    if (step == m_snap)
        return;
    m_snap = step;
    emit viewChanged();
}

void VectorPlane::setKeysDraggable(bool on)
{
    if (on == m_keysDraggable)
        return;
    m_keysDraggable = on;
    if (!on)
        m_selectedKey = -1;
    requestReplot();
    emit viewChanged();
}

void VectorPlane::setForFigure(bool on)
{
    m_forFigure = on;
    refresh();
}

void VectorPlane::fit()
{
    m_basisStale = true; // a PCA plane is fitted again to the vectors as they are now
    m_autoFit = true;
    m_fitPending = true;
    refresh();
}

void VectorPlane::zoomBy(double factor)
{
    if (!(factor > 0) || !std::isfinite(factor))
        return;
    m_unitsPerPixel = std::clamp(m_unitsPerPixel * factor, kMinUnitsPerPixel, kMaxUnitsPerPixel);
    m_autoFit = false;
    requestReplot();
}

double VectorPlane::unit() const
{
    return std::max(0.8, QFontMetricsF(font()).height() / 17.0);
}

QString VectorPlane::chromeKey() const
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
        .arg(m_title->text(), m_noteSentences.join(QLatin1Char(' ')), xAxis->label(), yAxis->label(), font().key())
        .arg(m_scene.dv)
        .arg(m_scene.projected)
        .arg(m_scene.d == 0)
        .arg(m_fitPending);
}

void VectorPlane::requestReplot()
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
        QMetaObject::invokeMethod(this, &VectorPlane::replotVectors, Qt::QueuedConnection);
    }
}

void VectorPlane::replotVectors()
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

double VectorPlane::lastReplotTime() const
{
    return m_lastWasVectors ? m_lastReplotTime : replotTime();
}

void VectorPlane::applyFonts()
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
    const double u = unit();
    // Room for tick labels like "−0.25", so that panning does not change the
    // margins (and with them the scale) as the labels change.
    const QFontMetrics fm(f);
    axisRect()->setMinimumMargins(QMargins(fm.horizontalAdvance(QStringLiteral("−0.25")) + fm.height() + int(12 * u), 4,
                                           int(8 * u), 2 * fm.height() + int(10 * u)));
    for (QCPAxis *axis : {xAxis, yAxis}) {
        axis->grid()->setZeroLinePen(QPen(kZeroLine, 1.3 * u));
        axis->setTickLengthIn(int(std::lround(4 * u)));
        axis->setLabelPadding(int(std::lround(4 * u)));
    }
    requestReplot();
}

void VectorPlane::updateLayout()
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

void VectorPlane::applyView()
{
    const QRect r = axisRect()->rect();
    const double w = r.width(), h = r.height();
    if (w < 2 || h < 2)
        return;
    // Until the view is panned or zoomed by hand, a new size (the window's
    // or an export's) frames the vectors again; never in the middle of a drag.
    if (m_autoFit && !m_drag && r.size() != m_fittedSize)
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

QPointF VectorPlane::pixelAt(const Eigen::Vector2d &p) const
{
    return QPointF(xAxis->coordToPixel(p(0)), yAxis->coordToPixel(p(1)));
}

QPointF VectorPlane::queryPixel(int i) const
{
    return pixelAt(m_scene.queries.row(i).transpose());
}

QPointF VectorPlane::keyPixel(int j) const
{
    return pixelAt(m_scene.keys.row(j).transpose());
}

double VectorPlane::pixelsPerUnit(Qt::Orientation orientation) const
{
    const QCPAxis *axis = orientation == Qt::Horizontal ? xAxis : yAxis;
    return std::abs(axis->coordToPixel(1.0) - axis->coordToPixel(0.0));
}

VectorPlane::Target VectorPlane::selectedVector() const
{
    if (m_keysDraggable && m_selectedKey >= 0 && m_selectedKey < m_scene.keys.rows())
        return {Role::Key, m_selectedKey};
    if (m_scene.queries.rows() == 0)
        return {};
    return {Role::Query, m_scene.query};
}

Eigen::Vector2d VectorPlane::pointOf(const Target &t) const
{
    const Matrix &m = t.role == Role::Query ? m_scene.queries : m_scene.keys;
    return m.row(t.index).transpose();
}

QString VectorPlane::nameOf(const Target &t) const
{
    if (t.role == Role::Query)
        return (m_scene.projected ? tr("embedding %1") : tr("query %1")).arg(m_scene.queryLabels.value(t.index));
    return (m_scene.projected ? (m_scene.selfAttention ? tr("embedding %1") : tr("source %1")) : tr("key %1"))
        .arg(m_scene.keyLabels.value(t.index));
}

VectorPlane::Target VectorPlane::handleAt(const QPointF &pixel, bool preferKeys) const
{
    return vectorAt(pixel, preferKeys, m_keysDraggable);
}

VectorPlane::Target VectorPlane::vectorAt(const QPointF &pixel, bool preferKeys, bool withKeys) const
{
    if (m_scene.d == 0 || !axisRect()->rect().contains(pixel.toPoint()))
        return {};
    const double u = unit();
    auto distance = [&](const QPointF &c) { return std::hypot(c.x() - pixel.x(), c.y() - pixel.y()); };
    Target best;
    double bestDistance = std::numeric_limits<double>::infinity();
    auto consider = [&](Target t, double d, double reach) {
        if (d <= reach && d < bestDistance) {
            best = t;
            bestDistance = d;
        }
    };
    // Keys first when asked (Shift), then the selected query, then the others.
    const int nq = int(m_scene.queries.rows()), nk = int(m_scene.keys.rows());
    if (withKeys && preferKeys)
        for (int j = 0; j < nk; ++j)
            consider({Role::Key, j}, distance(keyPixel(j)), 10 * u + 4);
    if (best.isValid())
        return best;
    if (m_scene.query < nq)
        consider({Role::Query, m_scene.query}, distance(queryPixel(m_scene.query)), 11 * u + 4);
    if (best.isValid())
        return best;
    for (int i = 0; i < nq; ++i)
        consider({Role::Query, i}, distance(queryPixel(i)), 8 * u + 4);
    if (withKeys)
        for (int j = 0; j < nk; ++j)
            consider({Role::Key, j}, distance(keyPixel(j)) + 0.5, 10 * u + 4); // a query on the same spot wins
    return best;
}

Eigen::Vector2d VectorPlane::snapped(Eigen::Vector2d p) const
{
    if (m_snap > 0) {
        p(0) = snapToGrid(p(0), m_snap);
        p(1) = snapToGrid(p(1), m_snap);
    }
    if (m_scene.d == 1)
        p(1) = 0.0;
    return p;
}

Scenario VectorPlane::moved(const Target &t, Eigen::Vector2d p, const PlaneBasis &b) const
{
    Scenario s = m_doc->scenario();
    Matrix &m = matrix(s, matrixOf(t.role));
    const int offset = columnOffset(), width = m_scene.d;
    const Eigen::VectorXd row = m.row(t.index).segment(offset, width).transpose();
    m.row(t.index).segment(offset, width) = placeInPlane(b, row, snapped(p)).transpose();
    return s;
}

void VectorPlane::beginDrag(const Target &t, const QPointF &pixel)
{
    if (t.role == Role::Query) {
        m_selectedKey = -1;
        m_doc->setCurrentQuery(t.index); // redraws with this query's weights
    } else {
        m_selectedKey = t.index;
    }
    Drag d;
    d.target = t;
    d.start = pointOf(t);
    d.press = Eigen::Vector2d(xAxis->pixelToCoord(pixel.x()), yAxis->pixelToCoord(pixel.y()));
    d.basis = m_basis;
    m_drag = d;
    setCursor(Qt::ClosedHandCursor);
    requestReplot();
}

void VectorPlane::continueDrag(const QPointF &pixel)
{
    Drag &d = *m_drag;
    const Eigen::Vector2d now(xAxis->pixelToCoord(pixel.x()), yAxis->pixelToCoord(pixel.y()));
    if (!now.allFinite())
        return;
    const Scenario next = moved(d.target, d.start + (now - d.press), d.basis);
    if (next == m_doc->scenario())
        return;
    m_selfEdit = true;
    const std::optional<Problem> refused = m_doc->editLive(next, tr("Drag %1").arg(nameOf(d.target))); // refused: nothing changed
    m_selfEdit = false;
    if (!refused)
        d.moved = true;
}

void VectorPlane::endDrag()
{
    const Drag d = *m_drag;
    m_drag.reset();
    if (d.moved) {
        m_selfEdit = true;
        m_doc->commitLive(); // named at editLive: "Drag q1"
        m_selfEdit = false;
    }
    unsetCursor();
    requestReplot();
}

void VectorPlane::cancelDrag()
{
    const Drag d = *m_drag;
    m_drag.reset();
    m_ignoreUntilRelease = true;
    if (d.moved) {
        m_selfEdit = true;
        m_doc->cancelLive();
        m_selfEdit = false;
    }
    unsetCursor();
    requestReplot();
}

void VectorPlane::nudge(int dx, int dy)
{
    const Target t = selectedVector();
    if (!t.isValid() || m_drag || (m_scene.d == 1 && dy != 0))
        return;
    Eigen::Vector2d p = pointOf(t);
    const double step = nudgeStep();
    const int dir[2] = {dx, dy};
    for (int c = 0; c < 2; ++c) {
        if (dir[c] == 0)
            continue;
        if (m_snap > 0) {
            // The next grid line in that direction (from a point off the grid,
            // the nearest one beyond it).
            const double k = p(c) / step, nearest = std::round(k);
            const double onGrid = std::abs(k - nearest) < 1e-9;
            const double next = onGrid ? nearest + dir[c] : (dir[c] > 0 ? std::ceil(k) : std::floor(k));
            p(c) = snapToGrid(next * step, step);
        } else {
            p(c) += dir[c] * step;
        }
    }
    const Scenario next = moved(t, p, m_basis);
    m_selfEdit = true;
    m_doc->edit(next, tr("Nudge %1").arg(nameOf(t)));
    m_selfEdit = false;
}

void VectorPlane::selectQuery(int delta)
{
    const int n = int(m_scene.queries.rows());
    if (n == 0)
        return;
    m_selectedKey = -1;
    m_doc->setCurrentQuery(((m_scene.query + delta) % n + n) % n);
    requestReplot();
}

void VectorPlane::selectKey(int delta)
{
    const int n = int(m_scene.keys.rows());
    if (n == 0 || !m_keysDraggable)
        return;
    m_selectedKey = m_selectedKey < 0 ? (delta > 0 ? 0 : n - 1) : ((m_selectedKey + delta) % n + n) % n;
    requestReplot();
}

void VectorPlane::setHoverTarget(const Target &t)
{
    if (t == m_hover)
        return;
    m_hover = t;
    if (t.isValid()) {
        m_setHover = true;
        if (t.role == Role::Key)
            m_doc->setHovered(m_scene.query, t.index); // the maps light this key's column
        else
            m_doc->setHovered(t.index, -1);
    } else if (m_setHover) {
        m_setHover = false;
        m_doc->setHovered(-1, -1);
    }
    requestReplot();
}

// --- events ----------------------------------------------------------------

void VectorPlane::mousePressEvent(QMouseEvent *event)
{
    event->accept();
    const QPointF pos = event->position();
    if (event->button() == Qt::LeftButton) {
        if (m_drag || m_pan)
            return;
        m_ignoreUntilRelease = false;
        const Target t = handleAt(pos, event->modifiers() & Qt::ShiftModifier);
        if (t.isValid())
            beginDrag(t, pos);
        return;
    }
    if ((event->button() == Qt::RightButton || event->button() == Qt::MiddleButton) && !m_drag) {
        m_pan = Pan{pos, m_center};
        m_autoFit = false;
        setCursor(Qt::SizeAllCursor);
    }
}

void VectorPlane::mouseDoubleClickEvent(QMouseEvent *event)
{
    // The second press of a double click starts a drag like any press.
    mousePressEvent(event);
}

void VectorPlane::mouseMoveEvent(QMouseEvent *event)
{
    event->accept();
    const QPointF pos = event->position();
    if (m_pan) {
        const QPointF d = pos - m_pan->press;
        m_center = m_pan->center + Eigen::Vector2d(-d.x(), d.y()) * m_unitsPerPixel;
        requestReplot();
        return;
    }
    if (m_ignoreUntilRelease)
        return;
    if (m_drag) {
        continueDrag(pos);
        return;
    }
    // Hovering any vector lights it in the maps; the hand only where a drag can start.
    const bool shift = event->modifiers() & Qt::ShiftModifier;
    setHoverTarget(vectorAt(pos, shift, true));
    if (handleAt(pos, shift).isValid())
        setCursor(Qt::OpenHandCursor);
    else
        unsetCursor();
}

void VectorPlane::mouseReleaseEvent(QMouseEvent *event)
{
    event->accept();
    if (event->button() == Qt::LeftButton) {
        if (m_ignoreUntilRelease) {
            m_ignoreUntilRelease = false;
            return;
        }
        if (m_drag)
            endDrag();
        return;
    }
    if ((event->button() == Qt::RightButton || event->button() == Qt::MiddleButton) && m_pan) {
        m_pan.reset();
        unsetCursor();
    }
}

void VectorPlane::wheelEvent(QWheelEvent *event)
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

void VectorPlane::keyPressEvent(QKeyEvent *event)
{
    const Qt::KeyboardModifiers mods = event->modifiers() & ~Qt::KeypadModifier;
    const bool plain = mods == Qt::NoModifier;
    switch (event->key()) {
    case Qt::Key_Escape:
        if (m_drag) {
            cancelDrag();
            return;
        }
        if (m_selectedKey >= 0) {
            m_selectedKey = -1;
            requestReplot();
            return;
        }
        break;
    case Qt::Key_Left:
    case Qt::Key_Right:
    case Qt::Key_Up:
    case Qt::Key_Down:
        if (plain) {
            const int dx = event->key() == Qt::Key_Left ? -1 : event->key() == Qt::Key_Right ? 1 : 0;
            const int dy = event->key() == Qt::Key_Down ? -1 : event->key() == Qt::Key_Up ? 1 : 0;
            nudge(dx, dy);
            return;
        }
        break;
    case Qt::Key_PageUp:
    case Qt::Key_PageDown: {
        const int delta = event->key() == Qt::Key_PageDown ? 1 : -1;
        if (mods == Qt::ShiftModifier && m_keysDraggable) {
            selectKey(delta);
            return;
        }
        if (plain) {
            selectQuery(delta);
            return;
        }
        break;
    }
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

void VectorPlane::showEvent(QShowEvent *event)
{
    QCustomPlot::showEvent(event);
    if (m_replotWhenShown) {
        m_replotWhenShown = false;
        replot(QCustomPlot::rpQueuedReplot);
    }
}

void VectorPlane::leaveEvent(QEvent *event)
{
    if (!m_drag)
        setHoverTarget({});
    QCustomPlot::leaveEvent(event);
}

void VectorPlane::focusInEvent(QFocusEvent *event)
{
    QCustomPlot::focusInEvent(event);
    update();
}

void VectorPlane::focusOutEvent(QFocusEvent *event)
{
    QCustomPlot::focusOutEvent(event);
    update();
}

void VectorPlane::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange)
        applyFonts();
    QCustomPlot::changeEvent(event);
}

bool VectorPlane::event(QEvent *event)
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

void VectorPlane::paintEvent(QPaintEvent *event)
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

QString VectorPlane::toolTipAt(const QPointF &pixel) const
{
    const Target t = vectorAt(pixel, true, true);
    if (!t.isValid()) {
        if (!axisRect()->rect().contains(pixel.toPoint()))
            return QString();
        QString text = tr("Drag a query; right-drag to pan, the wheel to zoom, F to fit.");
        if (m_note->text() != m_noteSentences.join(QLatin1Char(' ')))
            text.prepend(m_noteSentences.join(QLatin1Char(' ')) + QStringLiteral("\n\n"));
        return text;
    }
    const Eigen::Vector2d p = pointOf(t);
    if (t.role == Role::Query)
        return (isProjection() ? tr("%1 at %2 (projected)\nDrag it to move it; the arrow keys nudge it.")
                               : tr("%1 at %2\nDrag it to move it; the arrow keys nudge it."))
            .arg(nameOf(t), pointText(p));
    const double w = m_scene.weights.size() > t.index ? m_scene.weights(t.index) : 0.0;
    QString text = (isProjection() ? tr("%1 at %2 (projected)") : tr("%1 at %2")).arg(nameOf(t), pointText(p));
    text += QLatin1Char('\n');
    text += m_scene.blocked[std::size_t(t.index)]
                ? tr("blocked for query %1").arg(m_scene.queryLabels.value(m_scene.query))
                : tr("weight for query %1: %2").arg(m_scene.queryLabels.value(m_scene.query), HeatmapPlot::formatValue(w, 4));
    if (m_keysDraggable)
        text += QLatin1Char('\n') + tr("Drag it to move it (Shift picks the key over a query on the same spot).");
    return text;
}

// --- drawing ---------------------------------------------------------------

void VectorPlane::drawScene(QCPPainter *p)
{
    const Scene &sc = m_scene;
    if (sc.d == 0)
        return;
    const double u = unit();
    const QRectF area = axisRect()->rect();
    const QPointF origin = pixelAt(Eigen::Vector2d::Zero());
    const int nq = int(sc.queries.rows()), nk = int(sc.keys.rows());
    const QFont font = this->font();
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF fm(font), fmBold(bold);
    LabelPlacer labels(area);

    std::vector<QPointF> keyAt = std::vector<QPointF>(std::size_t(nk)), queryAt = std::vector<QPointF>(std::size_t(nq));
    for (int j = 0; j < nk; ++j)
        keyAt[std::size_t(j)] = keyPixel(j);
    for (int i = 0; i < nq; ++i)
        queryAt[std::size_t(i)] = queryPixel(i);
    auto weight = [&](int j) { return j < sc.weights.size() ? clampWeight(sc.weights(j)) : 0.0; };
    auto discRadius = [&](int j) { return u * (3.0 + 16.0 * std::sqrt(weight(j))); };

    // Values, and a line from each to the output that is as strong as its weight.
    const bool values = sc.values.rows() == nk && nk > 0;
    std::vector<QPointF> valueAt;
    QPointF outputAt;
    if (values) {
        for (int j = 0; j < nk; ++j)
            valueAt.push_back(pixelAt(sc.values.row(j).transpose()));
        if (sc.output)
            outputAt = pixelAt(*sc.output);
        if (sc.output && !sc.fullyMasked) {
            for (int j = 0; j < nk; ++j) {
                const double w = weight(j);
                if (w < 0.005 || sc.blocked[std::size_t(j)])
                    continue;
                p->setPen(QPen(withAlpha(kValue, 0.25 + 0.6 * w), u * (0.7 + 2.0 * w), Qt::DashLine, Qt::FlatCap));
                p->drawLine(valueAt[std::size_t(j)], outputAt);
            }
        }
        for (int j = 0; j < nk; ++j)
            drawDisc(p, valueAt[std::size_t(j)], 4.0 * u, QColor(255, 255, 255, 200), QPen(kValue, 1.6 * u));
    }

    // The other queries, faint and under the keys (in self-attention a
    // token's query often sits on its key).
    // With many queries only their handles: a fan of faint arrows would hide
    // the keys (and cost a millisecond per replot).
    const bool queryArrows = nq <= kAllQueryLabels;
    std::vector<QPointF> manyQueries;
    for (int i = 0; i < nq; ++i) {
        if (i == sc.query)
            continue;
        if (queryArrows) {
            drawArrow(p, origin, queryAt[std::size_t(i)], 1.1 * u, withAlpha(kQuery, 0.35), u);
            drawDisc(p, queryAt[std::size_t(i)], 4.5 * u, withAlpha(kQuery, 0.3), QPen(withAlpha(kQuery, 0.8), 1.2 * u));
        } else {
            manyQueries.push_back(queryAt[std::size_t(i)]);
        }
    }
    if (!manyQueries.empty()) { // round dots in one call
        p->setPen(QPen(withAlpha(kQuery, 0.45), 6.0 * u, Qt::SolidLine, Qt::RoundCap));
        p->drawPoints(manyQueries.data(), int(manyQueries.size()));
    }

    // Keys, the heaviest drawn last (on top). Width and opacity grow with
    // the square root of the weight, so small weights still differ; the
    // disc's area grows with the weight itself.
    std::vector<int> order = std::vector<int>(std::size_t(nk));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return weight(a) < weight(b); });
    for (int j : order) {
        const QPointF tip = keyAt[std::size_t(j)];
        if (sc.blocked[std::size_t(j)]) {
            drawArrow(p, origin, tip, 1.4 * u, kBlocked, u, Qt::DashLine);
            const double c = 3.5 * u;
            p->setPen(QPen(kBlocked, 1.6 * u));
            p->drawLine(tip + QPointF(-c, -c), tip + QPointF(c, c));
            p->drawLine(tip + QPointF(-c, c), tip + QPointF(c, -c));
            continue;
        }
        const double w = weight(j), root = std::sqrt(w);
        if (w >= 0.005) // a smaller disc would hide under the arrowhead anyway
            drawDisc(p, tip, discRadius(j), withAlpha(kKey, 0.15 + 0.2 * w), QPen(withAlpha(kKey, 0.5 + 0.5 * root), u));
        drawArrow(p, origin, tip, u * (1.0 + 6.5 * root), withAlpha(kKey, 0.45 + 0.55 * root), u);
    }

    // The output, then the selected query on top.
    if (sc.output)
        drawArrow(p, origin, outputAt, 2.8 * u, kOutput, u);
    if (sc.query < nq) {
        const QPointF q = queryAt[std::size_t(sc.query)];
        drawArrow(p, origin, q, 2.6 * u, kQuery, u);
        drawDisc(p, q, 7.0 * u, kQuery, QPen(Qt::white, 2.0 * u));
        p->setPen(QPen(withAlpha(kQueryText, 0.9), u));
        p->setBrush(Qt::NoBrush);
        p->drawEllipse(q, 8.0 * u, 8.0 * u);
    }

    // Rings: the key the arrow keys move, and the hovered vector.
    const Target selected = selectedVector();
    if (selected.isValid() && selected.role == Role::Key) {
        p->setPen(QPen(kOutput, 1.5 * u, Qt::DashLine));
        p->setBrush(Qt::NoBrush);
        p->drawEllipse(keyAt[std::size_t(selected.index)], discRadius(selected.index) + 4 * u, discRadius(selected.index) + 4 * u);
    }
    const int hoverKey = m_hover.isValid() && m_hover.role == Role::Key ? m_hover.index
                       : m_doc->hoveredRow() == sc.query ? m_doc->hoveredColumn()
                                                         : -1;
    if (hoverKey >= 0 && hoverKey < nk) {
        p->setPen(QPen(kKeyText, 2.0 * u));
        p->setBrush(Qt::NoBrush);
        const double r = discRadius(hoverKey) + 2 * u;
        p->drawEllipse(keyAt[std::size_t(hoverKey)], r, r);
    }
    if (m_hover.isValid() && m_hover.role == Role::Query && m_hover.index < nq) {
        p->setPen(QPen(kQueryText, 2.0 * u));
        p->setBrush(Qt::NoBrush);
        p->drawEllipse(queryAt[std::size_t(m_hover.index)], 10 * u, 10 * u);
    }

    // Labels: the obstacles first (handles, the output's tip, shafts that
    // matter), then the labels in order of importance.
    if (sc.query < nq) {
        labels.blockDisc(queryAt[std::size_t(sc.query)], 8 * u);
        if (nk <= kAllKeyLabels)
            labels.blockSegment(origin, queryAt[std::size_t(sc.query)], 2 * u);
    }
    if (sc.output) {
        labels.blockDisc(outputAt, 4 * u);
        labels.blockSegment(origin, outputAt, 2 * u);
    }
    for (int j = 0; j < nk && nk <= kAllKeyLabels; ++j) {
        labels.blockDisc(keyAt[std::size_t(j)], 3 * u);
        // The shaft, short of the tip (the key's own label sits beside its tip).
        const QPointF tip = keyAt[std::size_t(j)];
        labels.blockSegment(origin, origin + (tip - origin) * 0.8, 1.5 * u);
    }

    struct Label {
        QString text;
        QRectF rect;
        QColor color;
        bool bold;
    };
    std::vector<Label> placed;
    const double pad = 2.0 * u;
    auto put = [&](const QString &text, const QPointF &anchor, double clearance, const QColor &color, bool isBold,
                   bool optional) {
        const QFontMetricsF &m = isBold ? fmBold : fm;
        const QSizeF size(m.horizontalAdvance(text) + 2 * pad, m.height() + pad);
        QPointF outward = anchor - origin;
        if (std::hypot(outward.x(), outward.y()) < 2)
            outward = QPointF(1, -1);
        if (const auto r = labels.place(anchor, outward, clearance, size, optional))
            placed.push_back({text, *r, color, isBold});
    };
    auto near = [&](const QPointF &a, const QPointF &b) { return std::hypot(a.x() - b.x(), a.y() - b.y()) < 3.0; };

    if (sc.query < nq)
        put(tr("query %1").arg(sc.queryLabels.value(sc.query)), queryAt[std::size_t(sc.query)], 9 * u, kQueryText, true, false);
    if (sc.output)
        put(tr("output"), outputAt, 5 * u, kOutput, true, false);
    // Keys, heaviest first; with many keys only the heaviest are named.
    std::vector<int> byWeight(order.rbegin(), order.rend());
    int heaviest = -1;
    for (int j : byWeight)
        if (!sc.blocked[std::size_t(j)]) {
            heaviest = j;
            break;
        }
    // Keys drawn on the same spot (equal in the two dimensions shown) share
    // one label, "小 0.00, 老鼠 0.05", instead of two printed over each other.
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
            if (!sc.blocked[std::size_t(k)] && !labelled[std::size_t(k)] && near(keyAt[std::size_t(k)], keyAt[std::size_t(j)])) {
                labelled[std::size_t(k)] = true;
                parts << QStringLiteral("%1 %2").arg(sc.keyLabels.value(k), number(weight(k)));
            }
        put(parts.join(QStringLiteral(", ")), keyAt[std::size_t(j)], discRadius(j) + 1.5 * u, kKeyText, j == heaviest,
            nk > kAllKeyLabels);
    }
    // Blocked keys are named where there is room; the ✗ and the dashed arrow
    // say "blocked" anyway, and the tooltip names them.
    for (int j = 0; j < nk; ++j) {
        if (!sc.blocked[std::size_t(j)] || labelled[std::size_t(j)] || nk > kAllKeyLabels)
            continue;
        QStringList names;
        for (int k = j; k < nk; ++k)
            if (sc.blocked[std::size_t(k)] && !labelled[std::size_t(k)] && near(keyAt[std::size_t(k)], keyAt[std::size_t(j)])) {
                labelled[std::size_t(k)] = true;
                names << sc.keyLabels.value(k);
            }
        put(tr("%1 blocked").arg(names.join(QStringLiteral(", "))), keyAt[std::size_t(j)], 5 * u, QColor(0x60, 0x60, 0x60),
            false, true);
    }
    // The other queries and the values, where there is room and they add a name.
    if (nq <= kAllQueryLabels) {
        for (int i = 0; i < nq; ++i) {
            if (i == sc.query)
                continue;
            bool named = false;
            for (int j = 0; j < nk && !named; ++j)
                named = near(queryAt[std::size_t(i)], keyAt[std::size_t(j)]) && sc.keyLabels.value(j) == sc.queryLabels.value(i);
            if (!named)
                put(sc.queryLabels.value(i), queryAt[std::size_t(i)], 6 * u, withAlpha(kQueryText, 0.75), false, true);
        }
    }
    if (values && nk <= kAllValueLabels) {
        for (int j = 0; j < nk; ++j)
            if (!near(valueAt[std::size_t(j)], keyAt[std::size_t(j)]))
                put(tr("v %1").arg(sc.keyLabels.value(j)), valueAt[std::size_t(j)], 5 * u, kValue, false, true);
    }

    // Each label with a white halo (the text drawn white around itself), so
    // that it reads over arrows and grid lines without hiding them behind a
    // box. Plain drawText keeps to the glyph cache: outlines would cost
    // milliseconds per replot.
    const double halo = 1.4 * u;
    static const QPointF around[6] = {{1, 0}, {-1, 0}, {0.6, 0.8}, {-0.6, 0.8}, {0.6, -0.8}, {-0.6, -0.8}};
    const QColor white(255, 255, 255, 235);
    for (const Label &l : placed) {
        p->setFont(l.bold ? bold : font);
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

// ---------------------------------------------------------------------------

VectorPlanePanel::VectorPlanePanel(Document *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("vectorPlanePanel"));
    m_plane = new VectorPlane(doc, this);

    m_dimsLabel = new QLabel(tr("Axes:"), this);
    m_dimsLabel->setToolTip(tr("The vectors have more than two dimensions: choose two to show, or PCA"));
    m_dimX = new QComboBox(this);
    m_dimX->setObjectName(QStringLiteral("planeHorizontal"));
    m_dimX->setToolTip(tr("The dimension on the horizontal axis"));
    m_dimY = new QComboBox(this);
    m_dimY->setObjectName(QStringLiteral("planeVertical"));
    m_dimY->setToolTip(tr("The dimension on the vertical axis"));
    m_pca = new QToolButton(this);
    m_pca->setObjectName(QStringLiteral("planePca"));
    m_pca->setText(tr("PCA"));
    m_pca->setCheckable(true);
    m_pca->setToolTip(tr("Project every key and query onto their two principal directions "
                         "(for more than two dimensions); dragging moves within that plane"));

    auto *snapLabel = new QLabel(tr("Snap:"), this);
    m_snap = new QComboBox(this);
    m_snap->setObjectName(QStringLiteral("planeSnap"));
    m_snap->setToolTip(tr("Dragged and nudged vectors land on this grid, for numbers you can check by hand"));
    for (double step : snapSteps())
        //: Snapping to a grid is off.
        m_snap->addItem(step == 0 ? tr("off") : QString::number(step), step);
    snapLabel->setBuddy(m_snap);
    m_dragKeys = new QToolButton(this);
    m_dragKeys->setObjectName(QStringLiteral("planeDragKeys"));
    m_dragKeys->setText(tr("Drag keys"));
    m_dragKeys->setCheckable(true);
    m_dragKeys->setToolTip(tr("Let the keys be dragged too (Shift picks a key over a query on the same spot)"));
    m_fit = new QToolButton(this);
    m_fit->setObjectName(QStringLiteral("planeFit"));
    //: A button: zoom the plane so that every vector is in view.
    m_fit->setText(tr("Fit"));
    m_fit->setToolTip(tr("Frame every vector (F)"));

    m_window = new QToolButton(this);
    m_window->setObjectName(QStringLiteral("planeWindow"));
    //: A button: open the plane in a window of its own.
    m_window->setText(tr("Window"));
    m_window->setToolTip(tr("Open the plane in a window of its own, to make it large on the projector"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto *row1 = new QHBoxLayout;
    row1->addWidget(snapLabel);
    row1->addWidget(m_snap);
    row1->addWidget(m_dragKeys);
    row1->addStretch(1);
    row1->addWidget(m_fit);
    row1->addWidget(m_window);
    // The dimension choice, shown only when there is one to make (d > 2).
    m_dimsRow = new QWidget(this);
    auto *row2 = new QHBoxLayout(m_dimsRow);
    row2->setContentsMargins(0, 0, 0, 0);
    row2->addWidget(m_dimsLabel);
    row2->addWidget(m_dimX);
    row2->addWidget(m_dimY);
    row2->addWidget(m_pca);
    row2->addStretch(1);
    layout->addLayout(row1);
    layout->addWidget(m_dimsRow);
    layout->addWidget(m_plane, 1);
    setFocusProxy(m_plane);

    connect(m_dimX, &QComboBox::activated, this, [this](int i) {
        const int oldX = m_plane->horizontalDimension(), oldY = m_plane->verticalDimension();
        m_plane->setDimensions(i, i == oldY ? oldX : oldY); // picking the other axis swaps them
    });
    connect(m_dimY, &QComboBox::activated, this, [this](int i) {
        const int oldX = m_plane->horizontalDimension(), oldY = m_plane->verticalDimension();
        m_plane->setDimensions(i == oldX ? oldY : oldX, i);
    });
    connect(m_pca, &QToolButton::toggled, this, [this](bool on) {
        if (!m_syncing)
            m_plane->setPrincipalProjection(on);
    });
    connect(m_snap, &QComboBox::activated, this, [this](int i) { m_plane->setSnapStep(m_snap->itemData(i).toDouble()); });
    connect(m_dragKeys, &QToolButton::toggled, this, [this](bool on) {
        if (!m_syncing)
            m_plane->setKeysDraggable(on);
    });
    connect(m_fit, &QToolButton::clicked, m_plane, &VectorPlane::fit);
    connect(m_window, &QToolButton::clicked, this, &VectorPlanePanel::openWindow);
    connect(m_plane, &VectorPlane::viewChanged, this, &VectorPlanePanel::sync);
    sync();
}

QAbstractButton *VectorPlanePanel::pcaButton() const
{
    return m_pca;
}

QAbstractButton *VectorPlanePanel::dragKeysButton() const
{
    return m_dragKeys;
}

QAbstractButton *VectorPlanePanel::fitButton() const
{
    return m_fit;
}

std::vector<double> VectorPlanePanel::snapSteps()
{
    return {0.0, 0.1, 0.5, 1.0};
}

QAbstractButton *VectorPlanePanel::windowButton() const
{
    return m_window;
}

VectorPlanePanel *VectorPlanePanel::openWindow()
{
    // A second panel on the same document, with the same view settings; it
    // belongs to this panel (and so to the main window) and goes when closed.
    auto *panel = new VectorPlanePanel(m_doc, this);
    panel->setWindowFlag(Qt::Window);
    panel->setAttribute(Qt::WA_DeleteOnClose);
    panel->setWindowTitle(tr("Vector plane — Attention Lab"));
    panel->m_window->hide();
    VectorPlane *p = panel->plane();
    p->setDimensions(m_plane->horizontalDimension(), m_plane->verticalDimension());
    p->setPrincipalProjection(m_plane->principalProjection());
    p->setSnapStep(m_plane->snapStep());
    p->setKeysDraggable(m_plane->keysDraggable());
    panel->resize(900, 800);
    panel->show();
    return panel;
}

void VectorPlanePanel::sync()
{
    m_syncing = true;
    const int d = m_plane->spaceDimension();
    if (m_dimX->count() != d) {
        m_dimX->clear();
        m_dimY->clear();
        for (int i = 0; i < d; ++i) {
            m_dimX->addItem(tr("d%1").arg(i + 1));
            m_dimY->addItem(tr("d%1").arg(i + 1));
        }
    }
    const bool choose = d > 2;
    m_dimX->setCurrentIndex(std::min(m_plane->horizontalDimension(), d - 1));
    m_dimY->setCurrentIndex(d >= 2 ? std::min(m_plane->verticalDimension(), d - 1) : -1);
    m_dimX->setEnabled(choose && !m_plane->principalProjection());
    m_dimY->setEnabled(choose && !m_plane->principalProjection());
    m_pca->setEnabled(choose);
    m_dimsRow->setVisible(choose);
    m_pca->setChecked(m_plane->principalProjection());
    const std::vector<double> steps = snapSteps();
    for (int i = 0; i < int(steps.size()); ++i)
        if (steps[std::size_t(i)] == m_plane->snapStep())
            m_snap->setCurrentIndex(i);
    m_dragKeys->setChecked(m_plane->keysDraggable());
    m_syncing = false;
}

} // namespace attn
