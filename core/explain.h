#pragma once
// One cell of a trace, explained with its own numbers: the line a student
// would write next to it, e.g. "(2·2 + 0·0)/√2 = 2.8284". Used for the
// window's tooltips and the command line's trace.

#include "attention.h"
#include "scenario.h"

#include <string>

namespace attn {

enum class Stage { Scores, Scaled, Masked, Weights, Output };

// The score of query row i against key row j of one head, written out:
// "2·2 + 0·0" (dot), "−((2 − 1)² + (0 − 1)²)" (negative squared distance),
// "(2·1 + 0·1) / (2.0000·1.4142)" (cosine); empty when d_k is too large to
// write out (more than maxTerms terms).
std::string scoreTerms(Similarity kind, const Eigen::Ref<const Eigen::RowVectorXd> &q,
                       const Eigen::Ref<const Eigen::RowVectorXd> &k, int maxTerms = 4);

// "√2 = 1.4142", "√2·0.5 = 0.7071", "1 = 1.0000": c·τ as written by hand.
std::string divisorTerms(const Scenario &s, const Trace &t);

// Why (i, j) is blocked: "causal: key 3 comes after query 1", "padding",
// "blocked by hand"; empty when open.
std::string blockReason(const Scenario &s, int i, int j);

// The whole explanation of cell (i, j) of `stage` in head `head`: for the
// output stage j is the value dimension. Several lines, UTF-8.
std::string explainCell(const Scenario &s, const Trace &t, Stage stage, int head, int i, int j);

} // namespace attn
