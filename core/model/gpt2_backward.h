#pragma once
// Training a GPT-2 model: the forward of a batch of sequences with every
// activation the backward needs kept (a tape), the cross-entropy over the
// chosen next tokens, and its exact gradient in double, by hand.
//
// The forward is gpt2.h's (embeddings, LN_1, causal attention, c_proj,
// LN_2, GELU MLP, LN_f, tied logits), computed with the same pieces
// (gpt2_ops.h, core/attention's similarity and masked softmax); two
// differences a training needs: the scores' divisor is a choice (GPT-2
// divides by sqrt(d_h); the race divides by 1 or d_h), and the MLP can be
// left out (an attention-only model, its MLP weights taken as zero).
//
// Shapes: B sequences of T tokens, N = B T rows (row b T + t is sequence b's
// token t), d = n_embd, H heads of d_h = d / H, I = n_inner, V = vocab.
//   loss = - (1 / C) sum over counted rows r of log softmax(logits_r)[target_r]
// where C is the number of rows whose target is not -1.

#include "gpt2.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

struct TrainBatch {
    int batch = 0;               // B
    int length = 0;              // T
    std::vector<int> ids;        // N: the tokens
    std::vector<int> targets;    // N: the id row r should predict next, or -1 (not counted)
};

struct TrainForwardOptions {
    double divisor = 0;   // scores / divisor; 0 means sqrt(d_h), GPT-2's
    bool mlp = true;      // false: no MLP (as if its weights and biases were zero)
};

// The divisor the options mean for `config`.
double trainDivisor(const Gpt2Config &config, const TrainForwardOptions &options);

struct LayerTape {
    Matrix hat1;                   // N by d: (input - mean) * rstd1
    Eigen::VectorXd rstd1;         // N
    Matrix normed1;                // N by d: LN_1(input)
    Matrix qkv;                    // N by 3d
    std::vector<Matrix> weights;   // B H, index b H + h: T by T causal attention weights
    Matrix concat;                 // N by d: the heads' outputs side by side
    Matrix hat2;                   // N by d (with the MLP only, as the rest below)
    Eigen::VectorXd rstd2;         // N
    Matrix normed2;                // N by d: LN_2 of the stream after attention
    Matrix hidden;                 // N by I: before GELU
    Matrix inner;                  // N by I: GELU's tanh (the tanh form), reused by the backward
    Matrix activated;              // N by I: after GELU
};

struct Gpt2Tape {
    std::vector<LayerTape> layers;  // n_layer
    Matrix hatF;                    // N by d
    Eigen::VectorXd rstdF;          // N
    Matrix final;                   // N by d: LN_f of the last stream
    Matrix probs;                   // N by V: softmax of the logits
    double loss = 0;                // the mean cross-entropy over the counted rows
    int counted = 0;                // C
};

// The forward of a batch. Refuses (a Problem, placed at "batch") a batch
// whose sizes disagree, a T over n_positions, an id outside the vocabulary,
// no counted target, and a forward that leaves the finite numbers.
Result<Gpt2Tape> forwardForTraining(const Gpt2Model &model, const TrainBatch &batch,
                                    const TrainForwardOptions &options);

// d loss / d every parameter, shaped as the model (a Gpt2Model with no
// tokenizer); with options.mlp false the MLP's gradients are zero.
Gpt2Model backwardFromTape(const Gpt2Model &model, const TrainBatch &batch, const TrainForwardOptions &options,
                           const Gpt2Tape &tape);

struct LossAndGradient {
    double loss = 0;
    Gpt2Model gradient;
};
Result<LossAndGradient> lossAndGradient(const Gpt2Model &model, const TrainBatch &batch,
                                        const TrainForwardOptions &options);

// A model's weights alone, every entry zero, shaped by `config`.
Gpt2Model zeroWeights(const Gpt2Config &config);

// One parameter tensor of a model, by its GPT-2 name ("h.0.attn.c_attn.weight"),
// its shape as the file stores it (rows, cols; or n), and where its doubles
// live (column-major for a matrix: data[i + rows j] is entry (i, j)).
struct ParameterRef {
    std::string name;
    std::vector<std::int64_t> shape;
    double *data = nullptr;
    Eigen::Index size = 0;
    bool matrix = false;        // a weight matrix (wte, wpe, c_attn, ...): AdamW decays it
    bool mlp = false;           // ln_2 or the MLP's: not trained without the MLP
};
// Every tensor the forward uses, in the file's order: wte, wpe, h.L.* per layer, ln_f.
std::vector<ParameterRef> parameterRefs(Gpt2Model &model);

// The cells a training step keeps at once (tape, gradient, probabilities),
// for the budget check before a training starts.
double trainStepCells(const Gpt2Config &config, int batch, int length, bool mlp);

} // namespace attn
