#pragma once
// What every head of a model does, scored on held-out sequences.
//
//   prefix matching (Olsson et al., 2022): on random sequences in which a
//     span of S tokens from position a is said again at a + S, the mean
//     weight from each token i of the repeat (a + S <= i < a + 2S) to the
//     token after its earlier occurrence (key i - S + 1). An induction head
//     puts its weight there (score near 1); a head that spreads its weight
//     evenly gives about 1/T of it to any key.
//   previous token: the mean weight on key i - 1 over the rows i >= 1
//     (summarizeHead's previousToken).

#include "gpt2_backward.h"
#include "tasks.h"

#include <vector>

namespace attn {

// weights: T by T, one head on one sequence whose span of S tokens from
// `start` is repeated at start + S.
double prefixMatchingScore(const Matrix &weights, int start, int span);
double previousTokenScore(const Matrix &weights);

struct HeadScore {
    int layer = 0, head = 0;      // 0-based
    double prefixMatching = 0;
    double previousToken = 0;
};

// Every head's scores, averaged over the sequences of `repeated`, layer by
// layer, head by head.
Result<std::vector<HeadScore>> headScores(const Gpt2Model &model, const TrainForwardOptions &options,
                                          const RepeatedSequences &repeated);

} // namespace attn
