#pragma once
// ScalingLabView: the √d_k lab drawn from plain data (no document, no
// computing of its own; app/views/scalinglabpanel runs the experiment).
//
//   left:  three histograms, raw q·k, q·k/√d_k and q·k/d_k, stacked with
//          aligned axes (one x range for all three, or each its own), the
//          theoretical normal N(0, d_k), N(0, 1), N(0, 1/d_k) over each, and
//          the region where softmax([s, 0, 0]) is saturated shaded.
//   right: measured variance against d_k on log-log axes over the theory
//          lines d_k, 1 and 1/d_k, the current d_k marked; beside it the
//          gradient against d_k (the softmax's mean Jacobian norm and the
//          median |dw_1/dq|, where "the gradient vanishes"); the softmax table
//          (mean max weight, mean entropy, saturated share for [s, 0, 0] and
//          for a row of n keys, raw against ÷√d_k against ÷d_k); one example
//          row of n weights as grouped bars.
//   under: the handout's draw (seed 000's own code) beside the numbers the
//          handout printed, with the note from docs/lessons.md.
//
// Colours (Okabe–Ito, colour-blind safe): raw vermillion, ÷√d_k blue,
// ÷d_k reddish purple; the variance plot also tells them apart by marker.

#include "experiment.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <array>
#include <optional>
#include <vector>

class QCheckBox;
class QCustomPlot;
class QLabel;
class QTableWidget;

namespace attn {

struct ScalingLabData {
    std::optional<ScalingLab> lab;       // the current d_k's run; empty: nothing to show yet
    std::vector<VariancePoint> variance; // measured points for the log-log plot; may be empty
    int varianceTrials = 0;              // trials behind each of those points
    std::optional<HandoutDraw> handout;  // seed 000's single draw
    std::vector<GradientPoint> gradients; // the gradient against d_k; may be empty
};

// The series' colours, in kAllScoreScalings' order.
QColor scalingColour(ScoreScaling s);

class ScalingLabView : public QWidget {
    Q_OBJECT

public:
    explicit ScalingLabView(QWidget *parent = nullptr);
    ~ScalingLabView() override;

    void setData(const ScalingLabData &data);
    const ScalingLabData &data() const { return m_data; }

    // A line over the plots: what is being computed, or why nothing is.
    void setMessage(const QString &text, bool problem = false);
    QString message() const;

    // All three histograms on one x range (the widest), or each on its own.
    void setCommonAxis(bool on);
    bool commonAxis() const { return m_commonAxis; }

    // The parts, for tests and for figure export.
    QCustomPlot *histogramPlot(ScoreScaling s) const { return m_hist[std::size_t(s)]; }
    QCustomPlot *variancePlot() const { return m_variance; }
    QCustomPlot *gradientPlot() const { return m_gradient; }
    QCustomPlot *rowPlot() const { return m_row; }
    QTableWidget *softmaxTable() const { return m_table; } // rows 0-1: the header; rows 2-4: raw, ÷√d_k, ÷d_k
    QLabel *handoutLabel() const { return m_handout; }

    // Names used in titles, table headers and legends.
    static QString seriesName(ScoreScaling s);

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void rebuild();
    void drawHistograms();
    void drawVariance();
    void drawGradient();
    void drawTable();
    void drawRow();
    void drawHandout();
    void applyFonts();
    void fitToSize();
    void fitTable();

    ScalingLabData m_data;
    bool m_commonAxis = true;
    std::array<QCustomPlot *, 3> m_hist{};
    QCustomPlot *m_variance = nullptr;
    QCustomPlot *m_gradient = nullptr;
    QCustomPlot *m_row = nullptr;
    QTableWidget *m_table = nullptr;
    QLabel *m_tableNote = nullptr;
    QLabel *m_handout = nullptr;
    QLabel *m_message = nullptr;
    QCheckBox *m_commonBox = nullptr;
};

} // namespace attn
