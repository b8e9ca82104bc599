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
enum class DivergingGradient { BlueRed, PurpleOrange };

// The gradients themselves. Their level count is odd so that the centre of
// a range (0 on a diverging scale) maps exactly onto the middle stop. NaN
// is drawn in nanColor() (never expected: the heatmap hands none).
QCPColorGradient sequentialGradient(SequentialGradient g);
QCPColorGradient divergingGradient(DivergingGradient g);
QColor gradientNanColor();

// For a View menu: every choice in menu order, a translated name, and a
// stable key for QSettings ("viridis", "cividis", "magma", "blue-red",
// "purple-orange").
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

} // namespace attn
