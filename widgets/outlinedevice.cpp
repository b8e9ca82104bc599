#include "outlinedevice.h"

#include <QPainterPath>
#include <QTextItem>

#include <climits>

namespace attn {

namespace {

// Forwards state and drawing to the target painter; the default transform
// and clip handling of QPainter stay with the target.
class OutlineEngine : public QPaintEngine {
public:
    explicit OutlineEngine(QPainter *target) : QPaintEngine(AllFeatures), m_target(target) {}

    bool begin(QPaintDevice *) override
    {
        m_target->save();
        return true;
    }
    bool end() override
    {
        m_target->restore();
        return true;
    }
    Type type() const override { return User; }

    void updateState(const QPaintEngineState &state) override
    {
        const DirtyFlags f = state.state();
        if (f & DirtyTransform)
            m_target->setTransform(state.transform());
        if (f & DirtyPen)
            m_target->setPen(state.pen());
        if (f & DirtyBrush)
            m_target->setBrush(state.brush());
        if (f & DirtyBrushOrigin)
            m_target->setBrushOrigin(state.brushOrigin());
        if (f & DirtyBackground)
            m_target->setBackground(state.backgroundBrush());
        if (f & DirtyBackgroundMode)
            m_target->setBackgroundMode(state.backgroundMode());
        if (f & DirtyFont)
            m_target->setFont(state.font());
        if (f & DirtyHints)
            m_target->setRenderHints(state.renderHints(), true);
        if (f & DirtyCompositionMode)
            m_target->setCompositionMode(state.compositionMode());
        if (f & DirtyOpacity)
            m_target->setOpacity(state.opacity());
        if (f & DirtyClipPath)
            m_target->setClipPath(state.clipPath(), state.clipOperation());
        if (f & DirtyClipRegion)
            m_target->setClipRegion(state.clipRegion(), state.clipOperation());
        if (f & DirtyClipEnabled)
            m_target->setClipping(state.isClipEnabled());
    }

    void drawTextItem(const QPointF &p, const QTextItem &item) override
    {
        QPainterPath path;
        path.addText(p, item.font(), item.text());
        m_target->fillPath(path, m_target->pen().brush());
    }
    void drawPath(const QPainterPath &path) override { m_target->drawPath(path); }
    void drawPolygon(const QPointF *points, int count, PolygonDrawMode mode) override
    {
        if (mode == PolylineMode)
            m_target->drawPolyline(points, count);
        else
            m_target->drawPolygon(points, count, mode == WindingMode ? Qt::WindingFill : Qt::OddEvenFill);
    }
    void drawPolygon(const QPoint *points, int count, PolygonDrawMode mode) override
    {
        if (mode == PolylineMode)
            m_target->drawPolyline(points, count);
        else
            m_target->drawPolygon(points, count, mode == WindingMode ? Qt::WindingFill : Qt::OddEvenFill);
    }
    void drawLines(const QLineF *lines, int count) override { m_target->drawLines(lines, count); }
    void drawLines(const QLine *lines, int count) override { m_target->drawLines(lines, count); }
    void drawRects(const QRectF *rects, int count) override { m_target->drawRects(rects, count); }
    void drawRects(const QRect *rects, int count) override { m_target->drawRects(rects, count); }
    void drawEllipse(const QRectF &r) override { m_target->drawEllipse(r); }
    void drawEllipse(const QRect &r) override { m_target->drawEllipse(r); }
    void drawPoints(const QPointF *points, int count) override { m_target->drawPoints(points, count); }
    void drawPoints(const QPoint *points, int count) override { m_target->drawPoints(points, count); }
    void drawPixmap(const QRectF &r, const QPixmap &pm, const QRectF &sr) override { m_target->drawPixmap(r, pm, sr); }
    void drawTiledPixmap(const QRectF &r, const QPixmap &pm, const QPointF &s) override
    {
        m_target->drawTiledPixmap(r, pm, s);
    }
    void drawImage(const QRectF &r, const QImage &image, const QRectF &sr, Qt::ImageConversionFlags flags) override
    {
        m_target->drawImage(r, image, sr, flags);
    }

private:
    QPainter *m_target;
};

} // namespace

OutlineDevice::OutlineDevice(QPainter *target, QSize size, int dpi)
    : m_target(target), m_size(size), m_dpi(dpi), m_engine(std::make_unique<OutlineEngine>(target))
{
}

OutlineDevice::~OutlineDevice() = default;

QPaintEngine *OutlineDevice::paintEngine() const
{
    return m_engine.get();
}

int OutlineDevice::metric(PaintDeviceMetric metric) const
{
    switch (metric) {
    case PdmWidth:
        return m_size.width();
    case PdmHeight:
        return m_size.height();
    case PdmWidthMM:
        return int(m_size.width() * 25.4 / m_dpi);
    case PdmHeightMM:
        return int(m_size.height() * 25.4 / m_dpi);
    case PdmNumColors:
        return INT_MAX;
    case PdmDepth:
        return 32;
    case PdmDpiX:
    case PdmDpiY:
    case PdmPhysicalDpiX:
    case PdmPhysicalDpiY:
        return m_dpi;
    case PdmDevicePixelRatio:
        return 1;
    case PdmDevicePixelRatioScaled:
        return int(devicePixelRatioFScale());
    }
    return 0;
}

} // namespace attn
