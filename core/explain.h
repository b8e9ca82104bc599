#pragma once
// The pieces of a hand calculation, with their own numbers: what a
// student writes next to a cell, e.g. "2·2 + 0·0" or "√2 = 1.4142". Pure
// mathematics; the words around them belong to the window (translated) and
// to the command line's trace.

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

// Why (i, j) is blocked; none set when it is open.
struct BlockReasons {
    bool causal = false;  // key j comes after query i
    bool padding = false; // key j is padding
    bool hand = false;    // blocked by a click
    // Outside the sparse pattern (and neither is a global token):
    bool window = false;   // |i - j| is W·D or more
    bool dilation = false; // i - j is not a multiple of D
    bool block = false;    // i and j are in different blocks of B
    bool any() const { return causal || padding || hand || window || dilation || block; }
};
BlockReasons blockReasons(const Scenario &s, int i, int j);

// Row i's softmax as written by hand: the maximum subtracted, the sum of
// the exponentials, and e^(x_j - max). Blocked entries drop out before the
// softmax and stay in after it, as compute() does. With softmax_1 the sink
// (a key of score 0) counts in the maximum, max(m, 0), so that e^(-max)
// <= 1, and its e^(0 - max) is in the sum.
struct SoftmaxTerms {
    double max = 0;
    double sum = 0;   // the denominator, the sink's term included
    double exp = 0;
    double sink = 0;  // e^(0 - max) with softmax_1, else 0
};
SoftmaxTerms softmaxTerms(const Scenario &s, const Trace &t, int head, int i, int j);

// "0.7679·1 + 0.0454·0 + 0.1867·0": output (i, d) as its weighted sum;
// empty when there are more than maxTerms keys.
std::string outputTerms(const HeadTrace &h, int i, int d, int maxTerms = 6);

} // namespace attn
