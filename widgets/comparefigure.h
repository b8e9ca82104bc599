#pragma once
// A/B: two versions of a lesson side by side for one stage, and the
// difference map B − A on a diverging scale with its largest absolute
// difference written out. Plain data in, pictures out (no document): the
// window's compare view and `attention-lab-cli export --compare` both go
// through compareMaps(), so they cannot disagree.

#include "compare.h"
#include "figureexport.h"
#include "heatmapplot.h"

#include <QLabel>
#include <QString>
#include <QWidget>

#include <array>

namespace attn {

struct CompareMaps {
    Stage stage = Stage::Weights;
    int head = 0;
    bool alignRequested = false;
    bool alignable = false;   // A and B hold the same tokens (tokenAlignment)
    bool aligned = false;     // B shown in A's token order
    QString alignWhy;         // why not alignable, in words
    HeatmapData a, b, diff;   // diff: B − A, NaN (drawn blocked) where either is −∞
    StageDifference difference;
    double overallMax = 0;    // the largest |B − A| over every stage and head
    bool sameNumbers = false; // aligned and overallMax below kSameNumbers
    QString maxText;          // "max |B − A| = 0.1234 at (我, 你)"
    QString verdict;          // the sentence under it
};

CompareStage toCompareStage(Stage stage);

// Everything the compare view shows. head is clamped to what A and B have.
CompareMaps compareMaps(const Scenario &a, const Trace &ta, const Scenario &b, const Trace &tb, Stage stage, int head,
                        bool alignByToken);

// "0.1234", "2.2e−16" (too small for four decimals but not zero), "0".
QString diffNumber(double v);

// Three maps in a row (A, B, B − A) with the max-difference line and the
// verdict above them: the window's compare view draws through this.
class CompareFigure : public QWidget {
    Q_OBJECT

public:
    explicit CompareFigure(QWidget *parent = nullptr);
    void setMaps(const CompareMaps &maps);
    const CompareMaps &maps() const { return m_maps; }
    HeatmapPlot *plotA() const { return m_plots[0]; }
    HeatmapPlot *plotB() const { return m_plots[1]; }
    HeatmapPlot *plotDiff() const { return m_plots[2]; }
    QString summaryText() const;
    QLabel *summaryLabel() const { return m_summary; }

private:
    CompareMaps m_maps;
    std::array<HeatmapPlot *, 3> m_plots{};
    QLabel *m_summary = nullptr;
};

// Off-screen plots for figures, styled as the window draws them.
std::unique_ptr<HeatmapPlot> makeComparePlot(const HeatmapData &data, const FigureStyle &style);
// A | B | B − A in one figure with the max-difference line and the verdict.
QByteArray renderCompareFigure(const CompareMaps &maps, const FigureStyle &style, FigureFormat format,
                               const FigureSize &size);
// The difference map alone, its title naming the largest difference.
QByteArray renderDifferenceFigure(const CompareMaps &maps, const FigureStyle &style, FigureFormat format,
                                  const FigureSize &size);

} // namespace attn
