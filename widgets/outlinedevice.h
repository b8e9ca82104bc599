#pragma once
// A paint device that passes every drawing on to another painter, but
// turns text into filled outlines on the way. SVG viewers without a Chinese
// font then still show 我 打 你: the exported file needs no font at all.

#include <QPaintDevice>
#include <QPaintEngine>
#include <QPainter>

#include <memory>

namespace attn {

class OutlineDevice : public QPaintDevice {
public:
    // `target` must be active for as long as this device is painted on;
    // `size` is the logical size the drawing uses, `dpi` the resolution that
    // turns font points into its units (96 matches the screen).
    OutlineDevice(QPainter *target, QSize size, int dpi = 96);
    ~OutlineDevice() override;

    QPaintEngine *paintEngine() const override;

protected:
    int metric(PaintDeviceMetric metric) const override;

private:
    QPainter *m_target;
    QSize m_size;
    int m_dpi;
    std::unique_ptr<QPaintEngine> m_engine;
};

} // namespace attn
