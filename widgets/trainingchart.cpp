#include "trainingchart.h"

#include <cmath>

namespace attn {

QColor seriesColor(int i)
{
    static const QColor palette[] = {QColor(0, 114, 178), QColor(213, 94, 0),  QColor(0, 158, 115),
                                     QColor(204, 121, 167), QColor(230, 159, 0), QColor(86, 180, 233),
                                     QColor(120, 120, 120), QColor(240, 228, 66)};
    const int n = int(sizeof(palette) / sizeof(palette[0]));
    return palette[((i % n) + n) % n];
}

TrainingChart::TrainingChart(QWidget *parent) : QCustomPlot(parent)
{
    setNoAntialiasingOnDrag(true);
    legend->setVisible(true);
    legend->setBrush(QBrush(QColor(255, 255, 255, 210)));
    // The legend right of the axes, never over a curve.
    axisRect()->insetLayout()->take(legend);
    auto *side = new QCPLayoutGrid;
    plotLayout()->addElement(0, 1, side);
    side->addElement(0, 0, legend);
    side->addElement(1, 0, new QCPLayoutElement(this)); // the room below the legend
    side->setRowStretchFactor(0, 0.001);
    side->setMargins(QMargins(0, 0, 12, 0));
    plotLayout()->setColumnStretchFactor(1, 0.001);
    legend->setBorderPen(Qt::NoPen);
    plotLayout()->insertRow(0);
    m_title = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, m_title);
    xAxis->ticker()->setTickCount(4); // room for "1000" at a projector's zoom
    yAxis->ticker()->setTickCount(5);
    m_marker = new QCPItemStraightLine(this);
    m_marker->setPen(QPen(QColor(200, 60, 40), 1.5, Qt::DashLine)); // the checkpoint looked at
    m_marker->setVisible(false);
    applyFonts();
}

void TrainingChart::applyFonts()
{
    const QFont f = font();
    for (QCPAxis *a : {xAxis, yAxis}) {
        a->setTickLabelFont(f);
        a->setLabelFont(f);
    }
    QFont small = f;
    small.setPointSizeF(std::max(6.0, f.pointSizeF() * 0.85));
    legend->setFont(small);
    for (int i = 0; i < legend->itemCount(); ++i)
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(legend->item(i)))
            item->setFont(small);
    QFont bold = f;
    bold.setBold(true);
    m_title->setFont(bold);
}

void TrainingChart::changeEvent(QEvent *event)
{
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        applyFonts();
        replot(QCustomPlot::rpQueuedReplot);
    }
}

void TrainingChart::setData(const ChartData &data)
{
    m_data = data;
    clearGraphs();
    m_title->setText(data.title);
    xAxis->setLabel(data.xLabel);
    yAxis->setLabel(data.yLabel);
    double lo = INFINITY, hi = -INFINITY, xHi = std::max(1.0, data.xMax);
    for (const ChartSeries &s : data.series) {
        QCPGraph *g = addGraph();
        g->setName(s.name);
        g->setPen(QPen(s.color, 2, s.style));
        QVector<double> xs, ys;
        for (int i = 0; i < std::min(s.steps.size(), s.values.size()); ++i)
            if (std::isfinite(s.values[i]) && std::isfinite(s.steps[i])) {
                xs << s.steps[i];
                ys << s.values[i];
                lo = std::min(lo, s.values[i]);
                hi = std::max(hi, s.values[i]);
                xHi = std::max(xHi, s.steps[i]);
            }
        g->setData(xs, ys, true);
    }
    for (const ChartLine &l : data.lines) {
        if (!std::isfinite(l.value))
            continue;
        QCPGraph *g = addGraph();
        g->setName(l.name);
        g->setPen(QPen(l.color, 1.5, Qt::DashLine));
        g->setData(QVector<double>{0, 1e12}, QVector<double>{l.value, l.value}, true);
        lo = std::min(lo, l.value);
        hi = std::max(hi, l.value);
    }
    if (data.yMin != 0 || data.yMax != 0) {
        yAxis->setRange(data.yMin, data.yMax);
    } else if (std::isfinite(lo) && std::isfinite(hi)) {
        const double pad = std::max(1e-3, 0.05 * (hi - lo));
        yAxis->setRange(lo - pad, hi + pad);
    } else {
        yAxis->setRange(0, 1);
    }
    xAxis->setRange(0, xHi);
    legend->setVisible(graphCount() > 0);
    applyFonts();
    m_marker->setVisible(data.marker >= 0);
    if (data.marker >= 0) {
        m_marker->point1->setCoords(data.marker, 0);
        m_marker->point2->setCoords(data.marker, 1);
    }
    replot(QCustomPlot::rpQueuedReplot);
}

QVector<double> TrainingChart::drawnValues(int series) const
{
    QVector<double> out;
    if (series < 0 || series >= graphCount())
        return out;
    for (auto it = graph(series)->data()->constBegin(); it != graph(series)->data()->constEnd(); ++it)
        out << it->value;
    return out;
}

QVector<double> TrainingChart::drawnSteps(int series) const
{
    QVector<double> out;
    if (series < 0 || series >= graphCount())
        return out;
    for (auto it = graph(series)->data()->constBegin(); it != graph(series)->data()->constEnd(); ++it)
        out << it->key;
    return out;
}

} // namespace attn
