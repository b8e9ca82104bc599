#pragma once
// Generation token by token: the decoder's inference, which the causal mask
// makes training match. Each step runs the incremental forward (the KV
// cache: the earlier positions' keys and values are kept, only the new
// query row is computed against them), turns the last position's logits
// into a distribution, and draws the next token from it.
//
// The distribution of a step (V the vocabulary, z the logits):
//   temperature T > 0:   p_i = e^{z_i / T} / Σ_j e^{z_j / T}
//   T = 0 (greedy):      all of p on the largest logit (the lower id on a tie)
//   top-k (k ≥ 1):       only the k largest p_i are kept
//   top-p (0 < P < 1):   of those, the fewest largest whose sum reaches P
//   the kept p_i are divided by their sum; the rest are 0.
// The draw: u uniform in [0, 1) from Rng(seed), the first kept token (most
// likely first, lower id on a tie) whose running sum exceeds u.

#include "gpt2.h"
#include "random.h"
#include "result.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attn {

inline constexpr int kMaxGenerationSteps = 1024;

struct SamplingSettings {
    int steps = 16;            // tokens to generate, 1 .. kMaxGenerationSteps
    double temperature = 1.0;  // 0: greedy; else > 0
    int topK = 0;              // 0: every token
    double topP = 1.0;         // in (0, 1]; 1: every token
    std::uint64_t seed = 0;
};

// Settings out of range, named as a teacher would read them ("temperature:
// -1 is below 0"); nothing when they are fine.
std::optional<Problem> validateSampling(const SamplingSettings &s);

struct Candidate {
    int id = 0;
    double p = 0;   // after temperature, top-k and top-p (0 where cut)
    double raw = 0; // softmax of the logits at temperature 1, before any cut
};

// The candidates of one step, most likely first (lower id on a tie): every
// token with p > 0, in the order the draw walks them. `logits` has the
// vocabulary's size; temperature, top-k and top-p as in SamplingSettings.
std::vector<Candidate> nextTokenDistribution(const Eigen::VectorXd &logits, const SamplingSettings &s);

// The index into `candidates` that u in [0, 1) picks: the first whose
// running sum of p exceeds u (the last one if rounding leaves u above the sum).
int pickCandidate(const std::vector<Candidate> &candidates, double u);

struct GenerationStep {
    int position = 0;                 // 0-based position of the generated token
    int id = 0;                       // the token chosen
    std::string text;                 // its bytes
    double p = 0;                     // its probability in the step's distribution
    double raw = 0;                   // its probability at temperature 1, before any cut
    std::vector<Candidate> top;       // the 5 most likely tokens at temperature 1, with p after the cuts (0 if cut)
    double u = 0;                     // the uniform number drawn (0 when greedy)
    int reused = 0;                   // positions the forward took from the cache
    // The causal score entries of one head that the step needs, the forward
    // reading t = position tokens: with the cache, only the rows not cached
    // (Σ (i + 1) over them; one row of t entries once the prompt is in);
    // without it, the whole triangle again, t (t + 1) / 2.
    std::int64_t cachedCells = 0;
    std::int64_t uncachedCells = 0;
};

// The causal score entries one head needs for a forward of `tokens` tokens
// whose first `cached` positions come from the cache: Σ (i + 1) over the
// rows not cached, against t (t + 1) / 2 for all of them.
struct CacheWork {
    std::int64_t withCache = 0;
    std::int64_t withoutCache = 0;
};
CacheWork cacheWork(int cached, int tokens);

struct Generation {
    std::vector<int> prompt;          // the prompt's ids
    std::vector<GenerationStep> steps;
    ModelTrace trace;                 // the last forward: prompt and every generated token but the last
    std::string stopped;              // why it stopped early ("the model's context of 64 positions is full"), or empty
};

// The draw of one step from a forward's last-position logits (vocab) and
// their top predictions (most likely first): id, p, u and the top 5 with
// what the cuts left them. chooseNext and the encoder-decoder's step add
// the rest.
GenerationStep chooseFromLogits(const Eigen::VectorXd &logits, const std::vector<Prediction> &top, const SamplingSettings &s,
                                Rng &rng);

// One step from the forward `t` (of the tokens so far): the distribution of
// its last position under `s`, a u drawn from `rng` (none when greedy), the
// token chosen, the top 5, and the cache work of the forward `t` itself.
// The window's Step and generate() both take it.
GenerationStep chooseNext(const Gpt2Model &model, const ModelTrace &t, const SamplingSettings &s, Rng &rng);

// Generates from `prompt` (ids, at least one). Stops early, saying so in
// `stopped`, when the next position would pass the model's n_positions or
// the trace limit (maxTracedTokens), or when *cancel turns true.
Result<Generation> generate(const Gpt2Model &model, const std::vector<int> &prompt, const SamplingSettings &s,
                            const std::atomic<bool> *cancel = nullptr);

} // namespace attn
