#pragma once
// What every head of a model does, scored on held-out sequences.
//
//   prefix matching (Olsson et al., 2022): on random sequences of S tokens
//     said twice, the mean weight from each token i of the repeat (S <= i < 2S)
//     to the token after its earlier occurrence (key i - S + 1). An induction
//     head puts its weight there (score near 1); a head that spreads its
//     weight evenly gives about 1/T of it to any key (T = 2S).
//   previous token: the mean weight on key i - 1 over the rows i >= 1
//     (summarizeHead's previousToken).

#include "gpt2_backward.h"

#include <vector>

namespace attn {

// weights: 2S by 2S, one head on one repeated sequence of span S.
double prefixMatchingScore(const Matrix &weights, int span);
double previousTokenScore(const Matrix &weights);

struct HeadScore {
    int layer = 0, head = 0;      // 0-based
    double prefixMatching = 0;
    double previousToken = 0;
};

// Every head's scores, averaged over the sequences of `repeated` (each of
// length 2 span, as repeatedSequences makes them), layer by layer, head by head.
Result<std::vector<HeadScore>> headScores(const Gpt2Model &model, const TrainForwardOptions &options,
                                          const TrainBatch &repeated);

} // namespace attn
