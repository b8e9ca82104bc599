#pragma once
// Pictures for slides and handouts: any plot (a heatmap, the vector plane)
// as PNG, SVG or PDF, written so that a failed write leaves nothing
// half-written in place. The window's Export menu and
// `attention-lab-cli export` both go through renderStageFigure(),
// renderPlaneFigure() and renderDashboard(), so the same scenario and
// settings give the same file.

#include "explain.h"
#include "gradients.h"
#include "heatmapplot.h"
#include "stagedata.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

class QCPPainter;
class QCustomPlot;

namespace attn {

enum class FigureFormat { Png, Svg, Pdf };

std::optional<FigureFormat> figureFormatFromName(const QString &name); // "png", "svg", "pdf"
QString figureSuffix(FigureFormat format);                              // "png", ...

struct FigureSize {
    int width = 1200;   // logical pixels: what the fonts and lines are laid out in
    int height = 900;
    double scale = 1.0; // PNG only: pixels per logical pixel (2 for a 2x image)
};

// What a figure is made for. Slide: a 16:9 slide (1600 by 900 logical
// pixels, a 2x PNG) in type large enough to read from the back of a room:
// a map's cell values are at least 3 % of the figure's height.
enum class FigurePreset { Default, Slide };

QList<FigurePreset> allFigurePresets();
QString displayName(FigurePreset preset);
QString settingsKey(FigurePreset preset); // "default", "slide"
std::optional<FigurePreset> figurePresetFromKey(const QString &key);
// The size a preset offers; Default leaves `fallback` as it is.
FigureSize presetSize(FigurePreset preset, const FigureSize &fallback = FigureSize{});

// How a figure looks: the View menu's choices. Exports use a fixed font,
// not the window's zoomed one, so a picture does not depend on the screen.
struct FigureStyle {
    SequentialGradient sequential = SequentialGradient::Viridis;
    DivergingGradient diverging = DivergingGradient::BlueRed;
    CellTextMode cellText = CellTextMode::Auto;
    StageOptions stage;
    FigurePreset preset = FigurePreset::Default; // the type size
    FigureTheme theme = FigureTheme::Default;    // background, text, borders
};

// The font every exported figure is drawn with: 10 pt, and for a slide
// 22 pt for one map or the plane (29 px, 3.3 % of 900) and 13 pt in the
// dashboard, where six plots share the slide.
QFont figureFont();
QFont figureFont(FigurePreset preset, bool dashboard = false);

// A plot of a figure set up in the style's font and theme and gradients.
void styleFigurePlot(HeatmapPlot *plot, const FigureStyle &style, bool dashboard = false);

// Any picture in the three formats: `paint` draws on a QCPPainter of
// size.width by size.height logical pixels; SVG text stays <text>.
// Every figure goes through here, so the formats look alike.
QByteArray paintFigure(FigureFormat format, const FigureSize &size, const std::function<void(QCPPainter *)> &paint,
                       const QColor &background = QColor(Qt::white));

// The bytes of the figure. SVG text stays text (<text> elements naming the
// font, Chinese as characters), so a slide tool can edit it; PDF embeds
// the fonts it uses.
QByteArray renderFigure(QCustomPlot *plot, FigureFormat format, const FigureSize &size);

// What the exported vector plane shows: the head, the selected query and
// the axes (two dimensions, or the PCA plane). The figure is fitted to the
// vectors, whatever the window's plane is panned or zoomed to.
struct PlaneView {
    int head = 0;
    int query = 0;
    int horizontal = 0; // 0-based dimensions when d > 2 and not PCA
    int vertical = 1;
    bool pca = false;
};

// The vector plane of `s` drawn off screen in the figure font, fitted;
// the style's preset and theme (its gradients are the maps' business).
QByteArray renderPlaneFigure(const Scenario &s, const PlaneView &view, FigureFormat format, const FigureSize &size);
QByteArray renderPlaneFigure(const Scenario &s, const PlaneView &view, const FigureStyle &style, FigureFormat format,
                             const FigureSize &size);

// The smallest dashboard that keeps six plots readable.
inline constexpr int kMinDashboardWidth = 600;
inline constexpr int kMinDashboardHeight = 400;

// The whole dashboard: the formula, the five stages and (when given) the
// vector plane, in a 3 by 2 grid. A size below the minimum is drawn at it.
QByteArray renderDashboard(const Scenario &s, const Trace &t, const FigureStyle &style, const PlaneView *plane,
                           FigureFormat format, const FigureSize &size);

// A heatmap of one stage, off screen, styled as the window would draw it.
std::unique_ptr<HeatmapPlot> makeStagePlot(const Scenario &s, const Trace &t, Stage stage, const FigureStyle &style);
QByteArray renderStageFigure(const Scenario &s, const Trace &t, Stage stage, const FigureStyle &style,
                             FigureFormat format, const FigureSize &size);

// "weights.png", "weights_head2.png" (heads > 1): names that say what they are.
QString figureFileName(const QString &what, int head, int heads, FigureFormat format);

} // namespace attn
