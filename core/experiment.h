#pragma once
// Seed 000's experiment: why divide by sqrt(d_k)?
// Draw q, k ~ N(0, I) in d_k dimensions. The dot product q.k is a sum of d_k
// independent products of variance 1, so its variance is d_k; divided by
// sqrt(d_k) it is 1; divided by d_k (the classic mistake) it is 1/d_k. Put
// the score in softmax([score, 0, 0]), or score a row of n random keys, and
// watch the unscaled one saturate to one-hot as d_k grows while the one
// divided by d_k flattens to uniform.
//
// Three entry points:
//   runScalingExperiment(dk, seed, trials)  raw and ÷√d_k, softmax([s, 0, 0]) only
//   runScalingLab(params)                   everything the √d_k lab shows
//   varianceSweep(seed, trials, dks)        measured variances against d_k
// and handoutDraw(seed, dk): the single draw of seed 000's own Python code.
//
// Draws (the same on every platform for the same arguments): trial t takes
// q (d_k normals) then k (d_k normals) from attn::Rng(seed); that k is the
// lab's first key k_1. The scores of its other keys k_2..k_n are drawn as
// |q| z_j, z_j ~ N(0, 1) from a second stream attn::Rng(splitmix64(seed ^
// tag)), n - 1 a trial in trial order: given q, the scores q.k_j of keys
// k_j ~ N(0, I) are independent N(0, |q|^2) (rotate q onto the first axis),
// so this is exactly their joint distribution, for one draw a key instead of
// d_k. So the pair scores do not depend on n, and a run with fewer trials is
// a prefix of a longer one. Sums are plain left-to-right loops (the same
// rounding everywhere, unlike SIMD sums), exponentials std::exp.

#include "result.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

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
    ScoreSummary byDk;   // q.k / d_k
};

inline constexpr int kMaxExperimentDk = 1 << 16;
inline constexpr int kMaxExperimentTrials = 1000000;

// Inputs: 1 <= dk <= kMaxExperimentDk, 2 <= trials <= kMaxExperimentTrials;
// outside them a Problem (place "dk" or "trials") and no work.
// The same (dk, seed, trials) gives the same numbers on every platform, and
// the same raw and scaled numbers as runScalingLab with those arguments.
Result<ScalingExperiment> runScalingExperiment(int dk, std::uint64_t seed, int trials);

// ---- the √d_k lab ----

// The bound on the work of one call: normal draws (q, k and the extra keys'
// scores). A few seconds on one core; a request over it is refused.
inline constexpr double kMaxScalingDraws = 2.5e8;
inline constexpr int kMinLabKeys = 2, kMaxLabKeys = 256;
inline constexpr int kMinLabBins = 4, kMaxLabBins = 400;
inline constexpr double kSaturatedAbove = 0.99; // max weight above this: saturated

enum class ScoreScaling { Raw, SqrtDk, Dk };
inline constexpr std::array<ScoreScaling, 3> kAllScoreScalings = {ScoreScaling::Raw, ScoreScaling::SqrtDk,
                                                                   ScoreScaling::Dk};

double scalingDivisor(ScoreScaling s, int dk);       // 1, sqrt(d_k), d_k
double theoreticalVariance(ScoreScaling s, int dk);  // d_k, 1, 1/d_k
const char *scalingKey(ScoreScaling s);              // "raw", "sqrt_dk", "dk" (JSON keys)

struct SoftmaxSummary {
    double meanMaxWeight = 0;     // mean over the trials of the row's largest weight
    double meanEntropy = 0;       // mean of -sum w ln w (nats); at most ln(row length)
    double saturatedFraction = 0; // share of rows whose max weight exceeds kSaturatedAbove
};

// Equal-width bins over [lo, hi); scores outside are counted in below/above,
// so below + sum(counts) + above == trials.
struct ScoreHistogram {
    double lo = 0, hi = 0;
    std::vector<int> counts;         // bins
    int below = 0, above = 0;
    std::vector<double> theoryCount; // per bin: trials * (Phi(b) - Phi(a)) of N(0, theoretical variance)

    int bins() const { return int(counts.size()); }
    double binWidth() const { return counts.empty() ? 0.0 : (hi - lo) / double(counts.size()); }
    double binCentre(int i) const { return lo + (i + 0.5) * binWidth(); }
    // N(0, variance) density at x: the theoretical curve (times trials * binWidth() for counts).
    static double normalDensity(double x, double variance);
};

// One of the three scalings of the same draws.
struct ScalingSeries {
    ScoreScaling scaling = ScoreScaling::Raw;
    double divisor = 1;          // scalingDivisor
    double theoryVariance = 1;   // theoreticalVariance
    double mean = 0;
    double variance = 0;         // sample variance of q.k / divisor (divides by trials - 1)
    ScoreHistogram histogram;    // of q.k / divisor; range +-kHistogramSigmas theoretical standard deviations
    SoftmaxSummary threeWay;     // softmax([s, 0, 0]), as the handout does
    SoftmaxSummary keys;         // softmax over the row q.k_1 .. q.k_n, each / divisor
    std::vector<double> exampleScores;  // trial 1's row of n scores (/ divisor)
    std::vector<double> exampleWeights; // and its softmax
};

inline constexpr double kHistogramSigmas = 4.5;

struct ScalingLabParams {
    int dk = 64;          // 1 .. kMaxExperimentDk
    std::uint64_t seed = 7;
    int trials = 20000;   // 2 .. kMaxExperimentTrials
    int keys = 8;         // n, kMinLabKeys .. kMaxLabKeys
    int bins = 45;        // kMinLabBins .. kMaxLabBins
    bool operator==(const ScalingLabParams &) const = default;
};

struct ScalingLab {
    ScalingLabParams params;
    std::array<ScalingSeries, 3> series; // in kAllScoreScalings' order: raw, ÷√d_k, ÷d_k
    const ScalingSeries &of(ScoreScaling s) const { return series[std::size_t(s)]; }
};

// Normal draws runScalingLab(p) makes: trials * (2 d_k + n - 1).
double scalingLabDraws(const ScalingLabParams &p);
// None when p is acceptable; otherwise a Problem whose place is the
// parameter ("dk", "trials", "keys", "bins") and whose message is one
// English sentence saying what is out of range (e.g. the work over
// kMaxScalingDraws and how to stay within it).
std::optional<Problem> checkScalingLab(const ScalingLabParams &p);

// Called now and then (every few hundred trials); returning true abandons
// the run. Lets a background worker drop a run the user no longer wants.
using StopRequested = std::function<bool()>;

// Runs the lab: checkScalingLab's Problem when p is refused (before any
// work), no lab (std::nullopt) when stop said so.
Result<std::optional<ScalingLab>> runScalingLab(const ScalingLabParams &p, const StopRequested &stop);
Result<ScalingLab> runScalingLab(const ScalingLabParams &p);

// Measured variance of the raw score at each d_k of dks (q and k only, the
// same draws as runScalingLab(dk, seed, trials)); the scaled series' variances
// are raw / d_k and raw / d_k^2 of the same draws.
struct VariancePoint {
    int dk = 0;
    std::array<double, 3> variance{}; // raw, ÷√d_k, ÷d_k
};
// Normal draws varianceSweep makes: trials * 2 * sum(dks).
double varianceSweepDraws(int trials, const std::vector<int> &dks);
std::vector<int> powersOfTwoDk(int maxDk = 1024); // 1, 2, 4, ..., maxDk
// A Problem over the budget or out of range (before any work); no points
// (std::nullopt) when stop said so.
Result<std::optional<std::vector<VariancePoint>>> varianceSweep(std::uint64_t seed, int trials, const std::vector<int> &dks,
                                                                const StopRequested &stop);
Result<std::vector<VariancePoint>> varianceSweep(std::uint64_t seed, int trials, const std::vector<int> &dks);

// ---- the gradient: does it vanish? ----
// For q and n keys k_1..k_n ~ N(0, I) in d_k dimensions (full vectors: the
// gradient needs them), x_j = q.k_j / c and w = softmax(x):
//   the softmax's Jacobian  J = dw/dx = diag(w) - w w^T, its Frobenius norm
//   ||J||_F^2 = sum w_i^2 - 2 sum w_i^3 + (sum w_i^2)^2;
//   the query's gradient of L = w_1 (the weight on the first key: how far a
//   step on q can move one attention weight)
//   dL/dq = (1/c) sum_j J_1j k_j = (w_1 / c) sum_j (delta_1j - w_j) k_j.
// A saturated row (one weight near 1) has J near 0: the gradient vanishes.
// The means and the medians: where most rows are saturated, the mean of
// ||dL/dq|| is carried by the rare rows near a tie (whose gradient grows with
// |k| / c), while the median, the typical row, has vanished. Exact for one
// draw (handoutGradients): mean = median.
struct GradientSummary {
    double jacobianNorm = 0;       // mean ||dw/dx||_F
    double queryGradientNorm = 0;  // mean ||dL/dq||
    double medianJacobianNorm = 0;
    double medianQueryGradientNorm = 0;
};
struct GradientPoint {
    int dk = 0;
    int trials = 0, keys = 0;
    std::array<GradientSummary, 3> series{}; // raw, ÷√d_k, ÷d_k
};
// Normal draws scalingGradients(p) makes: trials * (n + 1) * d_k.
double scalingGradientDraws(const ScalingLabParams &p);
// p's dk, seed, trials and keys (bins unused); a Problem as checkScalingLab
// or over kMaxScalingDraws (before any work); none when stop said so. Its
// own stream (attn::Rng of the seed and d_k), so each d_k's numbers do not
// depend on the others asked for.
Result<std::optional<GradientPoint>> scalingGradients(const ScalingLabParams &p, const StopRequested &stop);
Result<GradientPoint> scalingGradients(const ScalingLabParams &p);

// ---- the handout's draw ----
// Seed 000's own code, exactly:
//   random.seed(seed); q = [random.gauss(0, 1) for _ in range(dk)]; k = [... same ...]
//   raw = sum(a * b for a, b in zip(q, k)); scaled = raw / math.sqrt(dk)
//   w = softmax([x, 0.0, 0.0]); top = max(w); ent = -sum(p * math.log(p + 1e-12) for p in w)
// with CPython's generator (pyrandom.h). For seed 7, d_k 64 (the handout):
// raw -7.0193, scaled -0.8774, max weights 0.4998 and 0.4139, entropies
// 0.6967 and 1.0331 (Python 3.11); the handout prints 30.31 and 3.79.
struct HandoutDraw {
    std::uint64_t seed = 7;
    int dk = 64;
    std::vector<double> q, k;    // dk each
    double raw = 0, scaled = 0;
    double rawMaxWeight = 0, rawEntropy = 0;       // of softmax([raw, 0, 0])
    double scaledMaxWeight = 0, scaledEntropy = 0; // of softmax([scaled, 0, 0])
};
inline constexpr double kHandoutPrintedRaw = 30.31;
inline constexpr double kHandoutPrintedScaled = 3.79;
inline constexpr double kHandoutPrintedScaledMaxWeight = 0.9682;
inline constexpr double kHandoutPrintedScaledEntropy = 0.0848;

// 1 <= dk <= kMaxExperimentDk, else a Problem (place "dk"); any seed
// (Python's seed(-n) equals seed(n)).
Result<HandoutDraw> handoutDraw(std::uint64_t seed = 7, int dk = 64);

// softmax([score, 0, 0]) exactly as the handout's code computes it: the
// largest weight, and -sum p ln(p + 1e-12). For the printed 3.79: 0.9568, 0.2081.
struct TripleSoftmax {
    double maxWeight = 0;
    double entropy = 0;
};
TripleSoftmax handoutSoftmax(double score);

// The same gradients for the handout's own draw: q and k of handoutDraw,
// w = softmax([q.k / c, 0, 0]) (the two 0 are constants), J its 3 by 3
// Jacobian, L = w_1: dL/dq = w_1 (1 - w_1) k / c. Exact, one draw.
std::array<GradientSummary, 3> handoutGradients(const HandoutDraw &d);

} // namespace attn
