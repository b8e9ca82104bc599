#pragma once
// Attention sinks on our own model (StreamingLLM, Xiao et al. 2023): the
// next-token loss of a text with full causal attention, with a sliding
// window of w keys (the first tokens fall out of it), and with s "sink"
// tokens kept beside the window; and the weight each head puts on the
// first token. Positions stay the text's own (wpe is absolute).

#include "gpt2.h"
#include "result.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attn {

// n by n, true where key j is blocked for query i: j > i, or j outside the
// window (i − j ≥ w) and not a sink (j ≥ s). w = 0: no window (causal only).
BoolMatrix sinkWindowMask(int n, int window, int sinks);

// The mean over positions i = 0 .. n−2 of −ln p(ids[i+1] | ids[0..i]),
// under `blocked` (empty: causal only), in nats. Needs at least 2 tokens.
Result<double> nextTokenLoss(const Gpt2Model &model, const std::vector<int> &ids, const BoolMatrix &blocked = {});

struct SinkRow {
    std::string name;   // "full", "window 8", "4 sinks + window 8"
    int window = 0, sinks = 0;
    double loss = 0;    // nats a token
    double perplexity = 0;
};

struct SinkReport {
    std::vector<SinkRow> rows;
    // [layer][head]: the mean weight on key 0 over queries 1 .. n−1 (full attention)
    std::vector<std::vector<double>> firstTokenWeight;
    // (n_layer · n_head) by n: firstTokenWeights of the full forward (row l · n_head + h)
    Matrix byPosition;

    // What the window alone costs: (window − full) / full × 100, in % of
    // the full loss (negative when the window reads better).
    double windowCostPercent() const;
    // Of that cost, the share the sinks bring back: (window − sinks) /
    // (window − full) × 100; nothing when the window costs nothing.
    std::optional<double> sinksRecoverPercent() const;
};

// Full, a window of w, and s sinks + the window, on `ids`. Needs
// 2 ≤ w ≤ n − 1 and 1 ≤ s ≤ w − 1 (so at least 3 tokens); a Problem placed
// at "window" or "sinks" otherwise.
Result<SinkReport> sinkExperiment(const Gpt2Model &model, const std::vector<int> &ids, int window, int sinks);

// The weight each head puts on the first token at every position, w(i, 0)
// for queries i = 0 .. n−1 under full causal attention (column 0 is 1: the
// first query has only itself to read).
//   t: a trace of n tokens, n_layer layers of n_head heads
//   returns (n_layer · n_head) by n; row l · n_head + h is layer l, head h
Matrix firstTokenWeights(const ModelTrace &t);
// The same from the ids (the causal forward of runModelOnIds).
Result<Matrix> firstTokenWeights(const Gpt2Model &model, const std::vector<int> &ids);

// What evenly spread causal rows put on the first token, averaged as
// firstTokenWeight is: the mean over i = 1 .. n−1 of 1 / (i + 1); 0 for n < 2.
double uniformFirstTokenWeight(int n);

// The paper's figure beside ours (Xiao et al. 2023, StreamingLLM, Table 1:
// Llama-2-13B on 65K tokens of text, a cache of 1024 entries): perplexity
// with window attention alone against 4 sinks + the window.
inline constexpr double kPaperWindowPerplexity = 5158.07;
inline constexpr double kPaperSinksPerplexity = 5.40;

// The text the experiment reads unless told otherwise: the model's own,
// `tokens` long, written from the prompt "the cat" at temperature 1 (every
// token of the vocabulary, no cut) with `seed` (generate.h). At most what
// one forward reads (n_positions, maxTracedTokens); shorter if *cancel
// turns true; the prompt is cut to `tokens` if it is longer.
inline constexpr std::uint64_t kSinkTextSeed = 2026;
Result<std::vector<int>> sinkText(const Gpt2Model &model, int tokens, std::uint64_t seed = kSinkTextSeed,
                                  const std::atomic<bool> *cancel = nullptr);

} // namespace attn
