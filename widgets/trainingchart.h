#pragma once
// TrainingChart: curves against the training step (the loss, a head's
// scores), drawn from the data it is given: named series, named horizontal
// lines (a baseline such as uniform weights), one legend, and a marker at
// the step being looked at. It knows nothing of training; the training lab
// gives it numbers, and draws the same chart again as they grow.

#include <QColor>
#include <QString>
#include <QVector>
#include <qcustomplot.h>

namespace attn {

struct ChartSeries {
    QString name;             // in the legend
    QColor color;
    Qt::PenStyle style = Qt::SolidLine;
    QVector<double> steps;    // x
    QVector<double> values;   // y, as many as steps; non-finite values are left out
};

struct ChartLine {
    QString name;             // in the legend, with its value
    double value = 0;
    QColor color = Qt::darkGray;
};

struct ChartData {
    QString title;
    QString xLabel, yLabel;
    QVector<ChartSeries> series;
    QVector<ChartLine> lines;
    double yMin = 0, yMax = 0; // both 0: the range of the data
    double xMax = 0;           // > 0: the axis reaches that step (a run's last)
    double marker = -1;        // >= 0: a vertical line at that step
};

class TrainingChart : public QCustomPlot {
    Q_OBJECT

public:
    explicit TrainingChart(QWidget *parent = nullptr);

    void setData(const ChartData &data);
    const ChartData &chartData() const { return m_data; }
    // The values drawn for series i (for tests: what the screen holds).
    QVector<double> drawnValues(int series) const;
    QVector<double> drawnSteps(int series) const;

    QSize sizeHint() const override { return {420, 220}; }
    QSize minimumSizeHint() const override { return {220, 140}; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyFonts(); // the widget's font (the window's zoom) to every text of the chart

    ChartData m_data;
    QCPTextElement *m_title = nullptr;
    QCPItemStraightLine *m_marker = nullptr;
};

// Distinct colours for the i-th of n curves (heads, runs), colour-blind safe
// for the first eight (Okabe and Ito's palette).
QColor seriesColor(int i);

} // namespace attn
