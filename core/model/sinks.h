#pragma once
// Attention sinks on our own model (StreamingLLM, Xiao et al. 2023): the
// next-token loss of a text with full causal attention, with a sliding
// window of w keys (the first tokens fall out of it), and with s "sink"
// tokens kept beside the window; and the weight each head puts on the
// first token. Positions stay the text's own (wpe is absolute).

#include "gpt2.h"
#include "result.h"

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
};

// Full, a window of w, and s sinks + the window, on `ids`.
Result<SinkReport> sinkExperiment(const Gpt2Model &model, const std::vector<int> &ids, int window, int sinks);

} // namespace attn
