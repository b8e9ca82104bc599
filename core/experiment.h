#pragma once
// Seed 000's experiment: why divide by sqrt(d_k)?
// Draw q, k ~ N(0, I) in d_k dimensions. The dot product q.k is a sum of d_k
// independent products of variance 1, so its variance is d_k; divided by
// sqrt(d_k) it is 1. Put the score in softmax([score, 0, 0]) and watch the
// unscaled one saturate to one-hot as d_k grows.

#include <cstdint>

namespace attn {

struct ScoreSummary {
    double mean = 0;
    double variance = 0;          // sample variance (divides by trials - 1)
    double meanMaxWeight = 0;     // of softmax([score, 0, 0])
    double meanEntropy = 0;       // of the same, natural log; at most ln 3
    double saturatedFraction = 0; // share of trials whose max weight exceeds 0.99
};

struct ScalingExperiment {
    int dk = 0;
    std::uint64_t seed = 0;
    int trials = 0;
    ScoreSummary raw;    // q.k
    ScoreSummary scaled; // q.k / sqrt(d_k)
};

inline constexpr int kMaxExperimentDk = 1 << 16;
inline constexpr int kMaxExperimentTrials = 1000000;

// Inputs: 1 <= dk <= kMaxExperimentDk, 2 <= trials <= kMaxExperimentTrials.
// The same (dk, seed, trials) gives the same numbers on every platform.
ScalingExperiment runScalingExperiment(int dk, std::uint64_t seed, int trials);

} // namespace attn
