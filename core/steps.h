#pragma once
// Step mode: the chain of one forward pass, one step at a time,
// and the arithmetic of one step for one query row as a student writes it
// on paper, with the row's own numbers. Pure mathematics: the words around
// the lines belong to the window (translated).
//
// The lines carry a tiny markup for typesetting: "_{...}" is a subscript,
// "^{...}" a superscript, everything else plain UTF-8 text ("√2", "·", "−").

#include "attention.h"
#include "explain.h"
#include "scenario.h"

#include <string>
#include <vector>

namespace attn {

enum class StepKind {
    Scores,      // s_j = q·k_j
    Scaled,      // s'_j = s_j / (c·τ)
    Mask,        // s'_j + m_j, m_j = 0 or −∞
    Exp,         // e^{s'_j} and e^{s'_j − max}, their sums
    Normalise,   // w_j = e_j / Σ
    WeightedSum, // o = Σ w_j v_j
    Concat,      // [o_1 … o_h] (· W_O): only with more than one head or a W_O
};

// The steps of this scenario, in order: the first six always, Concat when
// there is more than one head or an output projection.
std::vector<StepKind> stepsFor(const Scenario &s);

// "scores", "scaled", "mask", "exp", "normalise", "weighted-sum", "concat".
const char *stepKey(StepKind step);

// The map a step reveals (Concat: the output).
Stage stageOfStep(StepKind step);

// The lines of `step` for query `row` of head `head` (both clamped to what
// the trace has). Each line is one equation with its own numbers, e.g.
//   "s_{k1} = 2·2 + 0·0 = 4"
//   "e_{k1} = e^{2.8284} = 16.92", "e′_{k1} = e^{2.8284 − 2.8284} = e^{0.0000} = 1.0000"
//   "w_{k1} = 1.0000 / 1.3022 = 0.7679"
// Numbers of 10 or more are written with two decimals, smaller ones with four.
std::vector<std::string> stepLines(const Scenario &s, const Trace &t, StepKind step, int head, int row);

// The step of the exponentials as a map, for head `head` (clamped): entry
// (i, j) is e^{s′_ij − max_i}, the max over the keys the softmax sees
// (n_q by n_k). A key the mask removes before the softmax gives 0, and so
// does every key of a fully masked row. `sums` (if given) gets each row's
// Σ′, the denominator of the next step (n_q). With softmax_1 the max is
// max(max_i, 0) (the sink's score is 0) and Σ′ holds the sink's e^{−max}.
Matrix stepExponentials(const Scenario &s, const Trace &t, int head, Eigen::VectorXd *sums = nullptr);

// A number as the step lines write it: four decimals below 10, two from 10
// on, one from 1000 on; a true minus sign.
std::string handNumber(double v);

} // namespace attn
