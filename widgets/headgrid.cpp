#include "headgrid.h"

#include "heatmapplot.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QRegion>
#include <QStaticText>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <functional>

namespace attn {

namespace {

const QColor kSelected(0xe8, 0x59, 0x0c); // orange: apart from viridis' and magma's colours
const QColor kHover(0x55, 0x55, 0x55);

QString labelOr(const QStringList &labels, int i, const QString &prefix)
{
    return i < labels.size() && !labels[i].isEmpty() ? labels[i] : prefix + QString::number(i + 1);
}

} // namespace

HeadGridData headGridData(int layers, int heads, const std::function<const Matrix &(int layer, int head)> &weights,
                          const HeadGridWords &words)
{
    HeadGridData d;
    d.rows = std::max(0, layers);
    d.cols = d.rows ? std::max(0, heads) : 0;
    for (int l = 0; l < d.rows; ++l)
        d.rowLabels << words.rowLabel.arg(l + 1);
    for (int h = 0; h < d.cols; ++h)
        d.colLabels << words.colLabel.arg(h + 1);
    d.cells.reserve(std::size_t(d.rows) * std::size_t(d.cols));
    for (int l = 0; l < d.rows; ++l)
        for (int h = 0; h < d.cols; ++h) {
            HeadGridCell cell;
            cell.weights = weights(l, h);
            cell.causal = true; // no n × n mask copied into every cell
            if (words.describe)
                words.describe(l, h, cell.weights, cell);
            d.cells.push_back(std::move(cell));
        }
    d.title = words.title;
    return d;
}

HeadGrid::HeadGrid(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_gradient = QCPColorGradient(QCPColorGradient::gpGrayscale);
}

namespace {

int captionLines(const HeadGridData &d)
{
    int lines = 0;
    for (const HeadGridCell &c : d.cells)
        lines = std::max(lines, int(c.caption.size()));
    return lines;
}

bool sameCell(const HeadGridCell &a, const HeadGridCell &b)
{
    return a.causal == b.causal && a.weights.rows() == b.weights.rows() && a.weights.cols() == b.weights.cols() && a.blocked.rows() == b.blocked.rows()
        && a.blocked.cols() == b.blocked.cols() && a.caption == b.caption && a.weights == b.weights && (a.blocked == b.blocked).all();
}

} // namespace

void HeadGrid::setData(HeadGridData data)
{
    data.rows = std::max(0, data.rows);
    data.cols = std::max(0, data.cols);
    data.cells.resize(std::size_t(data.rows) * std::size_t(data.cols));
    // The same frame (shape, labels, title, caption lines): only the cells
    // whose numbers or captions changed are drawn again, and keep their image.
    const bool sameFrame = !m_cacheWhole && data.rows == m_data.rows && data.cols == m_data.cols
        && data.rowLabels == m_data.rowLabels && data.colLabels == m_data.colLabels && data.title == m_data.title
        && captionLines(data) == captionLines(m_data);
    std::vector<QImage> images(data.cells.size());
    std::vector<bool> changed(data.cells.size(), true);
    if (sameFrame)
        for (std::size_t i = 0; i < data.cells.size(); ++i)
            if (sameCell(m_data.cells[i], data.cells[i])) {
                images[i] = std::move(m_images[i]);
                changed[i] = false;
            }
    m_data = std::move(data);
    m_images = std::move(images);
    m_dirty.assign(m_data.cells.size(), false);
    if (!sameFrame) {
        m_hoverRow = m_hoverCol = -1;
        markAll();
        updateGeometry();
    } else {
        markCell(m_hoverRow, m_hoverCol); // the pointer's cell may be another now
        m_hoverRow = m_hoverCol = -1;
        if (std::all_of(changed.begin(), changed.end(), [](bool c) { return c; })) {
            // A key in the model mode changes every head: one update, not one rectangle per cell.
            m_dirty.assign(m_data.cells.size(), true);
            update();
        } else {
            const Layout l = layout(QRectF(rect()), font()); // once, not once per cell
            for (std::size_t i = 0; i < changed.size(); ++i)
                if (changed[i])
                    markCellIn(l, int(i) / m_data.cols, int(i) % m_data.cols);
        }
    }
    if (m_selRow >= 0) {
        m_selRow = std::clamp(m_selRow, 0, std::max(0, m_data.rows - 1));
        m_selCol = std::clamp(m_selCol, 0, std::max(0, m_data.cols - 1));
    }
}

void HeadGrid::setSelected(int row, int col)
{
    if (row == -1 && col == -1) { // none: a figure of the model, not of one head
        markCell(m_selRow, m_selCol);
        m_selRow = m_selCol = -1;
        return;
    }
    if (row < 0 || col < 0 || row >= m_data.rows || col >= m_data.cols || (row == m_selRow && col == m_selCol))
        return;
    markCell(m_selRow, m_selCol);
    m_selRow = row;
    m_selCol = col;
    markCell(row, col);
}

void HeadGrid::setGradient(const QCPColorGradient &gradient)
{
    m_gradient = gradient;
    m_images.assign(m_data.cells.size(), QImage());
    markAll();
}

QRectF HeadGrid::cellArea(const Layout &l, int row, int col) const
{
    // The selection frame reaches past the map by 2 px and half its 3 px pen.
    return QRectF(l.origin.x() + col * l.cellW, l.origin.y() + row * l.cellH, l.cellW, l.cellH).adjusted(-4, -4, 4, 4);
}

void HeadGrid::markCell(int row, int col)
{
    if (row < 0 || col < 0 || row >= m_data.rows || col >= m_data.cols)
        return;
    markCellIn(layout(QRectF(rect()), font()), row, col);
}

void HeadGrid::markCellIn(const Layout &l, int row, int col)
{
    if (row < 0 || col < 0 || row >= m_data.rows || col >= m_data.cols)
        return;
    m_dirty.resize(m_data.cells.size(), false);
    m_dirty[std::size_t(row * m_data.cols + col)] = true;
    update(cellArea(l, row, col).toAlignedRect());
}

void HeadGrid::markAll()
{
    m_cacheWhole = true;
    update();
}

int HeadGrid::takeCellsRepainted()
{
    const int n = m_cellsRepainted;
    m_cellsRepainted = 0;
    return n;
}

void HeadGrid::changeEvent(QEvent *event)
{
    switch (event->type()) {
    case QEvent::FontChange:
    case QEvent::PaletteChange:
    case QEvent::StyleChange:
    case QEvent::EnabledChange:
        markAll();
        break;
    default:
        break;
    }
    QWidget::changeEvent(event);
}

const QImage &HeadGrid::cellImage(int index) const
{
    QImage &image = m_images[std::size_t(index)];
    if (!image.isNull())
        return image;
    const HeadGridCell &c = m_data.cells[std::size_t(index)];
    const int n = int(c.weights.rows()), m = int(c.weights.cols());
    image = QImage(std::max(1, m), std::max(1, n), QImage::Format_RGB32);
    image.fill(HeatmapPlot::blockedFillColor());
    const bool hasBlocked = c.blocked.rows() == n && c.blocked.cols() == m;
    const QCPRange range(0.0, 1.0);
    for (int i = 0; i < n; ++i) {
        auto *line = reinterpret_cast<QRgb *>(image.scanLine(i));
        for (int j = 0; j < m; ++j) {
            const double v = c.weights(i, j);
            if ((hasBlocked && c.blocked(i, j)) || (c.causal && j > i) || !std::isfinite(v))
                continue;
            line[j] = m_gradient.color(v, range);
        }
    }
    return image;
}

HeadGrid::Layout HeadGrid::layout(const QRectF &rect, const QFont &font) const
{
    Layout l;
    const QFontMetricsF fm(font);
    const double line = fm.height();
    double top = rect.top();
    if (!m_data.title.isEmpty()) {
        l.title = QRectF(rect.left(), top, rect.width(), line * 1.6);
        top += l.title.height();
    }
    QStringList labels;
    for (int r = 0; r < m_data.rows; ++r)
        labels << labelOr(m_data.rowLabels, r, QStringLiteral("L"));
    const QString key = font.key() + QChar(0x1e) + labels.join(QChar(0x1f));
    if (key != m_labelWidthKey) {
        double widest = 0;
        for (const QString &label : labels)
            widest = std::max(widest, fm.horizontalAdvance(label));
        m_labelWidthKey = key;
        m_labelWidth = widest;
    }
    l.labelW = m_labelWidth + line * 0.8;
    l.headerH = line * 1.3;
    int lines = 0;
    for (const HeadGridCell &c : m_data.cells)
        lines = std::max(lines, int(c.caption.size()));
    l.captionH = lines * line + (lines ? line * 0.5 : 0);
    const int rows = std::max(1, m_data.rows), cols = std::max(1, m_data.cols);
    l.cellW = std::max(1.0, (rect.width() - l.labelW) / cols);
    l.cellH = std::max(1.0, (rect.bottom() - top - l.headerH) / rows);
    const double pad = std::max(3.0, line * 0.3);
    l.map = std::max(4.0, std::min(l.cellW - 2 * pad, l.cellH - l.captionH - 2 * pad));
    l.origin = QPointF(rect.left() + l.labelW, top + l.headerH);
    return l;
}

QRectF HeadGrid::mapRectIn(const Layout &l, int row, int col) const
{
    const double x = l.origin.x() + col * l.cellW + (l.cellW - l.map) / 2;
    const double pad = std::max(3.0, (l.cellH - l.captionH - l.map) / 2);
    const double y = l.origin.y() + row * l.cellH + std::min(pad, l.cellH * 0.1);
    return QRectF(x, y, l.map, l.map);
}

QRectF HeadGrid::mapRect(int row, int col) const
{
    return mapRectIn(layout(QRectF(rect()), font()), row, col);
}

std::pair<int, int> HeadGrid::cellAt(const QPointF &pos) const
{
    const Layout l = layout(QRectF(rect()), font());
    const double x = pos.x() - l.origin.x(), y = pos.y() - l.origin.y();
    if (x < 0 || y < 0)
        return {-1, -1};
    const int col = int(x / l.cellW), row = int(y / l.cellH);
    if (row >= m_data.rows || col >= m_data.cols)
        return {-1, -1};
    return {row, col};
}

const QStaticText &HeadGrid::captionText(const QString &line, const QFont &font, bool bold, double width) const
{
    // Laid out for one font and width: anything else starts the cache over.
    if (m_captionFont != font || m_captionWidth != width || m_captions[0].size() + m_captions[1].size() > 4096) {
        m_captions[0].clear();
        m_captions[1].clear();
        m_captionFont = font;
        m_captionWidth = width;
    }
    QHash<QString, QStaticText> &cache = m_captions[bold ? 1 : 0];
    auto it = cache.find(line);
    if (it == cache.end()) {
        QFont f = font;
        f.setBold(bold);
        QStaticText t(QFontMetricsF(f).elidedText(line, Qt::ElideRight, width));
        t.setTextFormat(Qt::PlainText);
        t.prepare(QTransform(), f);
        it = cache.insert(line, t);
    }
    return it.value();
}

void HeadGrid::paint(QPainter &p, const QRectF &rect, const QFont &font, bool forFigure) const
{
    p.save();
    p.fillRect(rect, forFigure ? QColor(Qt::white) : palette().color(QPalette::Base));
    const QColor text = forFigure ? QColor(Qt::black) : palette().color(QPalette::Text);
    const Layout l = layout(rect, font);
    // Clipped (the widget drawing a few cells into its cache): skip what is outside.
    const QRectF clip = p.hasClipping() ? p.clipBoundingRect() : QRectF();
    auto shown = [&](const QRectF &r) { return clip.isNull() || clip.intersects(r); };
    QFont bold = font;
    bold.setBold(true);
    p.setPen(text);
    if (!m_data.title.isEmpty() && shown(l.title)) {
        p.setFont(bold);
        p.drawText(l.title, Qt::AlignCenter, QFontMetricsF(bold).elidedText(m_data.title, Qt::ElideRight, l.title.width()));
    }
    p.setFont(font);
    const QFontMetricsF fm(font), boldMetrics(bold);
    for (int c = 0; c < m_data.cols; ++c)
        p.drawText(QRectF(l.origin.x() + c * l.cellW, l.origin.y() - l.headerH, l.cellW, l.headerH), Qt::AlignCenter,
                   labelOr(m_data.colLabels, c, QStringLiteral("H")));
    for (int r = 0; r < m_data.rows; ++r) {
        const QRectF map = mapRectIn(l, r, 0);
        p.drawText(QRectF(rect.left(), map.top(), l.labelW, map.height()), Qt::AlignCenter,
                   labelOr(m_data.rowLabels, r, QStringLiteral("L")));
    }
    double weights = 0;
    for (const HeadGridCell &cell : m_data.cells)
        weights += double(cell.weights.size());
    const bool vector = weights <= kMaxHeadGridVectorCells;
    for (int r = 0; r < m_data.rows; ++r)
        for (int c = 0; c < m_data.cols; ++c) {
            if (!shown(cellArea(l, r, c)))
                continue;
            const int index = r * m_data.cols + c;
            const HeadGridCell &cell = m_data.cells[std::size_t(index)];
            const QRectF map = mapRectIn(l, r, c);
            const int n = int(cell.weights.rows()), m = int(cell.weights.cols());
            if (n > 0 && m > 0) {
                if (forFigure && vector) {
                    // Vector cells: crisp at any zoom of the SVG or PDF.
                    const bool hasBlocked = cell.blocked.rows() == n && cell.blocked.cols() == m;
                    const double cw = map.width() / m, ch = map.height() / n;
                    p.setPen(Qt::NoPen);
                    for (int i = 0; i < n; ++i)
                        for (int j = 0; j < m; ++j) {
                            const double v = cell.weights(i, j);
                            const bool blocked = (hasBlocked && cell.blocked(i, j)) || (cell.causal && j > i) || !std::isfinite(v);
                            p.setBrush(blocked ? HeatmapPlot::blockedFillColor() : QColor(m_gradient.color(v, QCPRange(0, 1))));
                            // A hair wider than the cell: no seams between neighbours.
                            p.drawRect(QRectF(map.left() + j * cw, map.top() + i * ch, cw + 0.3, ch + 0.3));
                        }
                } else {
                    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
                    p.drawImage(map, cellImage(index));
                }
            }
            p.setBrush(Qt::NoBrush);
            const bool selected = r == m_selRow && c == m_selCol;
            if (selected) {
                p.setPen(QPen(kSelected, 3));
                p.drawRect(map.adjusted(-2, -2, 2, 2));
            } else if (r == m_hoverRow && c == m_hoverCol && !forFigure) {
                p.setPen(QPen(kHover, 1, Qt::DashLine));
                p.drawRect(map.adjusted(-2, -2, 2, 2));
            } else {
                p.setPen(QPen(QColor(0xb0, 0xb0, 0xb0), 1));
                p.drawRect(map);
            }
            p.setPen(selected ? kSelected.darker(130) : text);
            p.setFont(selected ? bold : font);
            const QFontMetricsF &cfm = selected ? boldMetrics : fm;
            const double left = l.origin.x() + c * l.cellW + 2;
            double y = map.bottom() + fm.height() * 0.35;
            for (const QString &line : cell.caption) {
                if (forFigure) {
                    p.drawText(QRectF(left, y, l.cellW - 4, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                               cfm.elidedText(line, Qt::ElideRight, l.cellW - 4));
                } else {
                    // The screen: each caption line laid out once (a key
                    // redraws all 144 heads of GPT-2 small, whose captions
                    // mostly repeat).
                    const QStaticText &t = captionText(line, font, selected, l.cellW - 4);
                    p.drawStaticText(QPointF(left + (l.cellW - 4 - t.size().width()) / 2, y), t);
                }
                y += fm.height();
            }
        }
    p.restore();
}

void HeadGrid::paintEvent(QPaintEvent *event)
{
    const qreal dpr = devicePixelRatioF();
    const QSize pixels = (QSizeF(size()) * dpr).toSize();
    if (m_cache.size() != pixels || m_cache.devicePixelRatioF() != dpr) {
        m_cache = QImage(pixels.expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
        m_cache.setDevicePixelRatio(dpr);
        m_cacheWhole = true;
    }
    const bool anyDirty = std::find(m_dirty.begin(), m_dirty.end(), true) != m_dirty.end();
    // Every cell changed (a key typed into the model): drawn whole, without
    // a clip region of a rectangle per cell for every stroke to be tested against.
    if (anyDirty && std::find(m_dirty.begin(), m_dirty.end(), false) == m_dirty.end())
        m_cacheWhole = true;
    if (m_cacheWhole || anyDirty) {
        QPainter p(&m_cache);
        if (!m_cacheWhole) {
            const Layout l = layout(QRectF(rect()), font());
            QRegion region;
            for (std::size_t i = 0; i < m_dirty.size(); ++i)
                if (m_dirty[i])
                    region += cellArea(l, int(i) / m_data.cols, int(i) % m_data.cols).toAlignedRect();
            p.setClipRegion(region);
            for (int r = 0; r < m_data.rows; ++r)
                for (int c = 0; c < m_data.cols; ++c)
                    m_cellsRepainted += region.intersects(cellArea(l, r, c).toAlignedRect()) ? 1 : 0;
        } else {
            m_cellsRepainted += int(m_data.cells.size());
        }
        paint(p, QRectF(rect()), font(), false);
        m_cacheWhole = false;
        m_dirty.assign(m_data.cells.size(), false);
    }
    QPainter w(this);
    const QRect r = event->rect();
    w.drawImage(QRectF(r), m_cache, QRectF(QPointF(r.topLeft()) * dpr, QSizeF(r.size()) * dpr));
}

void HeadGrid::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    const auto [row, col] = cellAt(event->position());
    if (row < 0)
        return;
    setSelected(row, col);
    emit cellClicked(row, col);
}

void HeadGrid::mouseMoveEvent(QMouseEvent *event)
{
    const auto [row, col] = cellAt(event->position());
    if (row != m_hoverRow || col != m_hoverCol) {
        markCell(m_hoverRow, m_hoverCol);
        m_hoverRow = row;
        m_hoverCol = col;
        markCell(row, col);
        setCursor(row >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
    }
}

void HeadGrid::leaveEvent(QEvent *event)
{
    markCell(m_hoverRow, m_hoverCol);
    m_hoverRow = m_hoverCol = -1;
    QWidget::leaveEvent(event);
}

bool HeadGrid::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const auto [row, col] = cellAt(help->pos());
        if (row >= 0 && !m_data.cells[std::size_t(row * m_data.cols + col)].toolTip.isEmpty())
            QToolTip::showText(help->globalPos(), m_data.cells[std::size_t(row * m_data.cols + col)].toolTip, this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

QSize HeadGrid::sizeHint() const
{
    const int line = fontMetrics().height();
    return QSize(std::max(1, m_data.cols) * 8 * line + 3 * line, std::max(1, m_data.rows) * 10 * line + 3 * line);
}

QSize HeadGrid::minimumSizeHint() const
{
    const int line = fontMetrics().height();
    return QSize(std::max(1, m_data.cols) * 4 * line + 3 * line, std::max(1, m_data.rows) * 6 * line + 2 * line);
}

namespace {

QFont headGridFigureFont()
{
    QFont font = figureFont();
    font.setPointSizeF(11);
    return font;
}

} // namespace

HeadGridFigureSizes headGridFigureSizes(const HeadGridData &data)
{
    // As renderHeadGrid lays it out: 12 pixels of margin, the title's line.
    HeadGrid grid;
    grid.setAttribute(Qt::WA_DontShowOnScreen);
    grid.setFont(headGridFigureFont());
    HeadGridData shape;
    shape.rows = data.rows;
    shape.cols = data.cols;
    grid.setData(shape); // the sizes depend on the shape only
    const QFontMetricsF fm(headGridFigureFont());
    const QSize extra(24, 24 + (data.title.isEmpty() ? 0 : int(std::ceil(fm.height() * 1.6))));
    return {grid.minimumSizeHint() + extra, grid.sizeHint() + extra};
}

QByteArray renderHeadGrid(const HeadGridData &data, const QCPColorGradient &gradient, int selectedRow, int selectedCol,
                          FigureFormat format, const FigureSize &size)
{
    HeadGrid grid;
    grid.setAttribute(Qt::WA_DontShowOnScreen);
    grid.setData(data);
    grid.setGradient(gradient);
    grid.setSelected(selectedRow, selectedCol);
    const QFont font = headGridFigureFont();
    const QRectF rect(0, 0, std::max(1, size.width), std::max(1, size.height));
    QByteArray bytes = paintFigure(format, size, [&](QCPPainter *painter) {
        const double m = 12;
        painter->fillRect(rect, Qt::white);
        grid.paint(*painter, rect.adjusted(m, m, -m, -m), font, true);
    });
    if (format == FigureFormat::Svg) {
        // The SVG's text is drawn as outlines; its title and description
        // say in words what the grid shows, for search and screen readers.
        QString desc;
        for (int r = 0; r < data.rows; ++r)
            for (int c = 0; c < data.cols; ++c) {
                const HeadGridCell &cell = data.cells[std::size_t(r * data.cols + c)];
                desc += labelOr(data.rowLabels, r, QStringLiteral("L")) + QLatin1Char(' ') + labelOr(data.colLabels, c, QStringLiteral("H"))
                    + QStringLiteral(": ") + cell.caption.join(QStringLiteral(", ")) + QStringLiteral("\n");
            }
        const QByteArray descXml = "<desc>" + desc.trimmed().toHtmlEscaped().toUtf8() + "</desc>";
        const qsizetype at = bytes.indexOf("<desc>"), end = at < 0 ? -1 : bytes.indexOf("</desc>", at);
        if (end >= 0)
            bytes.replace(at, end + 7 - at, descXml);
        if (!data.title.isEmpty()) {
            const qsizetype t = bytes.indexOf("<title>"), tEnd = t < 0 ? -1 : bytes.indexOf("</title>", t);
            if (tEnd >= 0)
                bytes.replace(t, tEnd + 8 - t, "<title>" + data.title.toHtmlEscaped().toUtf8() + "</title>");
        }
    }
    return bytes;
}

} // namespace attn
