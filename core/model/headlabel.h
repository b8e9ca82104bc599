#pragma once
// What a causal head's weights look at, as scores a teacher can name and a
// test can check: the label a model's head grid writes under each map.
//
// Input: `weights`, n by n, row i a query's softmax weights over keys
// 0..i (causal: row i has i + 1 open keys); `ids`, the n token ids (only
// the induction score reads them; may be empty). Rows and keys count
// from 0 here; "key i−1" in words is key i - 1.
//
// Every score is a mean over the rows R = {1, ..., n−1} (the first row has
// one open key, where every pattern gives 1), beside its uniform baseline:
// the same mean for weights spread evenly over the open keys.
//   previous token  mean of w(i, i−1)           uniform: mean of 1/(i+1)
//   first token     mean of w(i, 0) (the sink)  uniform: mean of 1/(i+1)
//   self            mean of w(i, i)             uniform: mean of 1/(i+1)
//   induction       over the rows i whose token occurred before at some
//                   p ≤ i−2: the weight on the keys p+1 that followed
//                   those occurrences (Olsson et al. 2022's prefix
//                   matching), summed over them, then averaged over those
//                   rows; uniform: mean of |{p+1}|/(i+1). Defined only
//                   when the text repeats a token that way.
//   duplicate       over the rows i whose token occurred before at some
//                   p < i: the weight on those earlier copies p, summed,
//                   then averaged over those rows; uniform: mean of
//                   |{p}|/(i+1). Defined only when a token repeats.
//   spread          mean of H(row i) / ln(i+1): 1 for uniform rows, 0 for
//                   a row on one key; beside it the mean largest weight.
//
// The label: among previous token, first token, self, induction and
// duplicate token, the
// kinds that are clearly above their baseline, score ≥ kMinScore and
// score ≥ kMinRatio × uniform; of those, the one with the highest score
// (ties: in that order). None: "broad" when the spread is at least
// kBroadSpread (the head reads many keys), else "focused" (it reads few
// keys, but none of the fixed positions: a content head, such as the
// built-in model's verb→subject head; the map shows which).

#include "scenario.h"

#include <string>
#include <vector>

namespace attn {

enum class HeadKind { PreviousToken, FirstToken, Self, Induction, DuplicateToken, Broad, Focused, TooShort };

inline constexpr double kMinScore = 0.3;
inline constexpr double kMinRatio = 2.0;
inline constexpr double kBroadSpread = 0.6;

struct HeadScore {
    double score = 0;    // the mean weight on the pattern's keys
    double uniform = 0;  // the same mean for evenly spread rows
    int rows = 0;        // rows the means are over (0: not defined)
    bool defined() const { return rows > 0; }
    bool clear() const { return defined() && score >= kMinScore && score >= kMinRatio * uniform; }
};

struct HeadScores {
    HeadScore previousToken, firstToken, self, induction, duplicate;
    double spread = 0;      // mean normalised row entropy, 0..1
    double maxWeight = 0;   // mean of each row's largest weight
    double meanEntropy = 0; // nats, over every row
    HeadKind kind = HeadKind::TooShort;
    // The score behind the label (null for Broad, Focused, TooShort).
    const HeadScore *labelScore() const;
};

HeadScores scoreHead(const Matrix &weights, const std::vector<int> &ids);
// The label rule (above) on scores already counted: sets `kind`.
void labelHead(HeadScores &s);
// Each score's mean over several texts (the probes of `model scores`):
// over the texts where it is defined, rows added; spread, largest weight
// and entropy averaged; then labelled by the same rule.
HeadScores meanScores(const std::vector<HeadScores> &each);

// "previous token", "first token (sink)", ...: English, for the CLI and files.
std::string headKindName(HeadKind kind);

// Every score beside its baseline, in English with two decimals, for the
// command line (the window writes the same numbers in its own words):
// "previous token 0.93 (uniform 0.41), first token (sink) 0.10 (uniform
// 0.41), self 0.02 (uniform 0.41), induction: no token repeats an earlier
// one; spread 0.12 (uniform 1.00), largest weight 0.95, mean entropy 0.20 nats".
std::string headScoresText(const HeadScores &s);

} // namespace attn
