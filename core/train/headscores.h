#pragma once
// What every head of a model does, scored on held-out sequences.
//
//   prefix matching (Olsson et al., 2022): on random sequences in which a
//     span of S tokens from position a is said again at a + D (D = S: right
//     after it), the mean weight from each token i of the repeat
//     (a + D <= i < a + D + S) to the token after its earlier occurrence
//     (key i - D + 1). An induction head puts its weight there (score near
//     1); a head that spreads its weight evenly gives about 1/T of it to
//     any key (uniformPrefixScore).
//   previous token: the mean weight on key i - 1 over the rows i >= 1
//     (scoreHead's previous token, core/model/headlabel.h).
//
// An induction head needs two layers: a head of the first layer sees each
// key's own token and position only, never what came before it, so it
// cannot look for "the token after an earlier copy of mine". Its prefix
// score is reported, but only heads of layer 2 on count as induction heads
// (inductionScore).

#include "gpt2_backward.h"
#include "tasks.h"

#include <vector>

namespace attn {

// weights: T by T, one head on one sequence whose span of S tokens from
// `start` is said again at start + distance (distance <= 0: at start + S).
double prefixMatchingScore(const Matrix &weights, int start, int span, int distance = 0);
double previousTokenScore(const Matrix &weights);
// The prefix score of uniform causal weights (row i: 1/(i+1) on each key)
// on `sequences`: the baseline a head with no preference gets.
double uniformPrefixScore(const RepeatedSequences &sequences);

struct TrainHeadScore {
    int layer = 0, head = 0;      // 0-based
    double prefixMatching = 0;    // on the held-out sequences of the training's kind
    double previousToken = 0;
    double prefixDistant = 0;     // on sequences whose repeat comes after a gap (RepeatKind::Distant)
    double prefixNoRepeat = 0;    // on sequences with no repeat (RepeatKind::None)
};

// Every head's scores, averaged over the sequences of `repeated`, layer by
// layer, head by head (prefixDistant and prefixNoRepeat left 0).
Result<std::vector<TrainHeadScore>> headScores(const Gpt2Model &model, const TrainForwardOptions &options,
                                          const RepeatedSequences &repeated);
// Every head's mean prefix score on `sequences`, layer by layer, head by head.
Result<std::vector<double>> prefixScores(const Gpt2Model &model, const TrainForwardOptions &options,
                                         const RepeatedSequences &sequences);

// The layer (0-based) from which a head can be an induction head.
inline constexpr int kFirstInductionLayer = 1;
// The prefix score at which a head of layer >= 2 counts as an induction head.
inline constexpr double kInductionThreshold = 0.4;
// The largest prefix score among heads of layer >= 2 (0 for a 1-layer model).
double inductionScore(const std::vector<TrainHeadScore> &heads);
// The largest prefix score of any head, layer 1 included.
double largestPrefixScore(const std::vector<TrainHeadScore> &heads);

} // namespace attn
