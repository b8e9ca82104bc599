#pragma once
// A heatmap for a screen reader: each HeatmapPlot is a table (QAccessible::
// Table with QAccessibleTableInterface) whose column and row headers are
// the keys' and queries' tokens and whose cells (QAccessibleTableCell-
// Interface) say their value, or "blocked", and have the hand calculation
// (the map's tooltip) as their description. Everything comes from what the
// plot was given: data() and the tooltip provider; nothing of the document.
//
// The cells are created on demand, registered with QAccessible's cache
// (which owns them) and deleted with the table or when the map's shape
// changes.

#include <QString>

class QWidget;

namespace attn {

class HeatmapPlot;

// Installs the factory once (QAccessible::installFactory); HeatmapPlot's
// constructor calls it, so every map is covered.
void installHeatmapAccessibility();

// What a cell says: its value with four decimals (numbers.h), "blocked", or
// "hidden" while the map keeps its answers back.
QString accessibleCellValue(const HeatmapPlot *plot, int row, int col);

// The plot's current cell moved (the keyboard): a focus event for that cell.
void notifyHeatmapCurrentCell(HeatmapPlot *plot);
// The plot's data were replaced: the table's cells are made again.
void notifyHeatmapDataChanged(HeatmapPlot *plot);

} // namespace attn
