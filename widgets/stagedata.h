#pragma once
// What each heatmap shows, computed from a scenario and its trace: the one
// place that turns a trace into pictures, shared by the window's maps, the
// exports and the command line's export, so they cannot disagree.

#include "attention.h"
#include "explain.h"
#include "heatmapplot.h"
#include "scenario.h"

#include <QString>

namespace attn {

struct StageOptions {
    int head = 0;                   // the head shown
    bool sharedScoreRange = true;   // scores, scaled and masked on one colour range
    bool values = true;             // false: HeatmapData::values left empty (see setDataKeepingValues)
};

// The stage's matrix, masks, labels, title, colour bar label and row notes.
HeatmapData stageData(const Scenario &s, const Trace &t, Stage stage, const StageOptions &options);

// The stage's matrix alone, written into `into` (resized to it; a matrix
// of the same size keeps its memory): what stageData() puts in values.
void stageValues(const Trace &t, Stage stage, int head, Matrix &into);

// The cells of a stage's map that updateRow() changed: rows [firstRow,
// firstRow + rowCount) and one column (-1: none).
struct StageSpan {
    int firstRow = 0, rowCount = 0, column = -1;
};
StageSpan changedCells(Stage stage, const TraceDelta &delta);

// After updateRow(): `d`, the stage's data for the trace before it, becomes
// stageData(s, t, stage, options) for the trace now, by changing only the
// cells changedCells() names, those rows' notes and flags, and the colour
// range. Same shapes, settings and labels as before.
void updateStageData(HeatmapData &d, const Trace &t, Stage stage, const StageOptions &options, const TraceDelta &delta);

// "Softmax weights", "Scores s = q·k", ...: translated.
QString stageName(Stage stage);
// "scores", "scaled", "masked", "weights", "output": file names and the CLI.
QString stageKey(Stage stage);
std::optional<Stage> stageFromKey(const QString &key);

// " · head 2 of 4 · causal · τ = 0.5": the settings that shape the picture,
// for titles; empty when all are the defaults. head -1 leaves the head out.
QString settingsSummary(const Scenario &s, int head);

// The tooltip of a cell: its hand calculation with its own numbers.
QString cellToolTip(const Scenario &s, const Trace &t, Stage stage, int head, int row, int col);

// The weights of every head as small multiples, and the concatenation.
HeatmapData headWeightsData(const Scenario &s, const Trace &t, int head);
HeatmapData concatData(const Scenario &s, const Trace &t);
HeatmapData finalOutputData(const Scenario &s, const Trace &t);
// The positional table added to the queries (or RoPE's angles); empty
// values when the encoding is off.
HeatmapData positionalData(const Scenario &s, const Trace &t);

QStringList toQStringList(const std::vector<std::string> &v);

// Predict, then reveal: the same map with nothing to give the
// answer away: every value 0 (not NaN: hidden, not blocked), no row notes,
// no flags. The shape, labels and title stay. Drawn with
// HeatmapPlot::setValuesHidden(true).
void hideAnswers(HeatmapData &d);

// "0.47": two decimals, rounded, never "-0.00"; for notes beside a map.
QString fixed2(double v);

} // namespace attn
