#pragma once
// Colour gradients for the heatmaps: perceptually uniform and colour-blind
// safe. QCustomPlot 2.1 has no viridis preset, so every gradient is built
// from published stop colours (matplotlib's viridis, cividis and magma
// tables; ColorBrewer's RdBu and PuOr). Sequential gradients are for
// weights in 0..1; diverging ones for signed scores centred on 0, with the
// light colour at the centre and negative values on the cool side.

#include <QList>
#include <QString>
#include <qcustomplot.h>

#include <optional>

namespace attn {

enum class SequentialGradient { Viridis, Cividis, Magma };
// BlueBlackOrange is dark in the middle and light at both ends: a
// diverging map for dark figures (the contrast-dark theme), where a white
// centre would glare; blue against orange stays apart for every colour vision.
enum class DivergingGradient { BlueRed, PurpleOrange, BlueBlackOrange };

// The gradients themselves. Their level count is odd so that the centre of
// a range (0 on a diverging scale) maps exactly onto the middle stop. NaN
// is drawn in nanColor() (never expected: the heatmap hands none).
QCPColorGradient sequentialGradient(SequentialGradient g);
QCPColorGradient divergingGradient(DivergingGradient g);
QColor gradientNanColor();

// For a View menu: every choice in menu order, a translated name, and a
// stable key for QSettings ("viridis", "cividis", "magma", "blue-red",
// "purple-orange"; "blue-black-orange", the dark theme's own, is not
// among the choices).
QList<SequentialGradient> allSequentialGradients();
QList<DivergingGradient> allDivergingGradients();
QString displayName(SequentialGradient g);
QString displayName(DivergingGradient g);
QString settingsKey(SequentialGradient g);
QString settingsKey(DivergingGradient g);
// Parse a settings key (case-insensitive, surrounding space ignored);
// nothing for an unknown key.
std::optional<SequentialGradient> sequentialGradientFromKey(const QString &key);
std::optional<DivergingGradient> divergingGradientFromKey(const QString &key);

// How a plot looks around its colours: the figure's background, text, grid,
// cell borders and blocked cells. Default is the window's usual look;
// the two contrast themes are for projectors (text at least 7:1 against
// the background, WCAG AAA).
enum class FigureTheme { Default, ContrastLight, ContrastDark };

struct PlotTheme {
    FigureTheme id = FigureTheme::Default;
    bool dark = false;
    QColor background;   // the figure
    QColor ink;          // titles, token labels, colour bar numbers
    QColor noteInk;      // row notes, axis titles, captions
    QColor frame;        // around the map
    QColor separator;    // between cells
    double separatorWidth = 1.0;
    QColor blockedFill;  // blocked cells, hatched
    QColor blockedHatch;
    QColor blockedText;  // "−∞" or "0" in a blocked cell, on blockedFill
    QColor hiddenFill;   // predict, then reveal: no colour of any scale
    QColor grid;         // the vector plane's grid
    QColor axis;         // the plane's axes and zero lines
};

PlotTheme plotTheme(FigureTheme theme);
// The diverging gradient a theme draws with when `chosen` is asked for: a
// dark theme swaps a light-centred one for BlueBlackOrange.
DivergingGradient themedDiverging(FigureTheme theme, DivergingGradient chosen);
QList<FigureTheme> allFigureThemes();
QString displayName(FigureTheme theme);
// "default", "contrast-light", "contrast-dark".
QString settingsKey(FigureTheme theme);
std::optional<FigureTheme> figureThemeFromKey(const QString &key);
// WCAG 2 contrast ratio of two opaque colours, 1 to 21.
double contrastRatio(const QColor &a, const QColor &b);
double relativeLuminance(const QColor &c);

} // namespace attn
