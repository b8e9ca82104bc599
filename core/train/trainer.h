#pragma once
// Training a small GPT-2-shaped model from random weights on a task
// (tasks.h): AdamW (adamw.h) on the core's own gradient (gpt2_backward.h).
//
// Plain data and functions, so a window can drive it from a worker thread:
// startTraining makes the state, trainStep advances it by one step, train
// runs them all with a progress callback and a cancel flag. The state holds
// every log entry (loss on a held-out batch and every head's scores) and
// checkpoints (copies of the weights) every K steps. Everything drawn is
// drawn from the seed, so the same settings and thread count give the same
// numbers; the model and the data do not depend on the scale, so two runs
// that differ only in --scale race on the same ground.

#include "adamw.h"
#include "headscores.h"
#include "tasks.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

namespace attn {

struct TrainSettings {
    TrainTask task = TrainTask::Induction;
    int layers = 2;              // 1 to 3
    int heads = 2;               // 1 to 4
    int dModel = 32;             // 16 to 128, a multiple of heads
    bool mlp = false;            // attention only by default
    int steps = 2000;            // the induction preset forms its head by about 1,100 to 1,400
    std::uint64_t seed = 0;
    Scale scale = Scale::SqrtDk; // the scores' divisor: sqrt(d_h), 1 or d_h
    int batch = 16;              // sequences a step
    int length = 32;             // T, tokens a sequence
    int vocabulary = 32;         // for the synthetic tasks (grammar: the built-in model's)
    double learningRate = 1e-2;
    int warmup = 20;             // steps of linear warm-up
    double clip = 1.0;           // the gradient's largest global norm (0: none)
    AdamWOptions adam;
    int logEvery = 25;           // a log entry every K steps (and at 0 and the end)
    int checkpointEvery = 0;     // a checkpoint every K steps; 0: at every log entry
    int threads = 1;
    int heldOut = 16;            // held-out repeated sequences scoring the heads
    double embeddingStd = 0.3;   // wte and wpe drawn N(0, embeddingStd²)
    // The logits read wte (GPT-2's tie) or an lm_head of their own. Untied by
    // default: tied, no induction head formed in 4,000 steps of the induction
    // preset (here or in PyTorch); untied, one forms within about 1,000
    // (docs/learning.md).
    bool tiedEmbedding = false;
};

// The limits of the settings; the first one broken as a Problem placed at
// the option's name ("layers", "d_model", ...).
std::optional<Problem> validateSettings(const TrainSettings &settings);

// The bytes a training holds: parameters with their gradient and AdamW's
// two moments (4 × 8 bytes each), a step's tape (trainStepCells), and the
// checkpoints' weights.
double trainingMemoryBytes(const TrainSettings &settings);
inline constexpr double kTrainBudgetBytes = 1024.0 * 1024.0 * 1024.0; // 1 GiB, as a model's
// A Problem when trainingMemoryBytes passes kTrainBudgetBytes, naming both.
std::optional<Problem> checkTrainingBudget(const TrainSettings &settings);

// The model's configuration for the settings (n_positions = length).
Gpt2Config trainConfig(const TrainSettings &settings);
TrainForwardOptions trainOptions(const TrainSettings &settings);

// Random weights: LayerNorm 1 and 0, biases 0, c_attn N(0, 1/d) so that q
// and k have components of about unit variance (LN's output has), the
// residual writers N(0, 1/width) / sqrt(2 layers), embeddings N(0, s²).
// Without the MLP its weights are zero, as the saved file keeps them.
// An untied lm_head (config.tiedEmbedding false) is drawn N(0, 1/d) after
// everything else, so the other weights are those of the tied model.
Gpt2Model initialWeights(const Gpt2Config &config, bool mlp, std::uint64_t seed, double embeddingStd = 1.0);

struct TrainLogEntry {
    int step = 0;
    double loss = 0;                 // on the held-out batch of the task
    std::vector<TrainHeadScore> heads;    // layer by layer, head by head
};

struct TrainCheckpoint {
    int step = 0;
    std::shared_ptr<const Gpt2Model> model;   // the weights (no tokenizer)
};

struct TrainState {
    TrainSettings settings;
    Gpt2Model model;
    AdamWState adam;
    Rng data{0};                 // the training batches
    TrainBatch evaluation;       // the held-out batch of the task
    RepeatedSequences repeated;  // held-out repeated sequences (head scores)
    RepeatedSequences distant;   // held-out: the repeat after a gap (RepeatKind::Distant)
    RepeatedSequences unrepeated;// held-out: no repeat (RepeatKind::None)
    int step = 0;                // steps done
    double lastLoss = 0;         // the last training batch's loss
    bool cancelled = false;
    std::vector<TrainLogEntry> log;
    std::vector<TrainCheckpoint> checkpoints;
};

// Checks the settings and the budget, then draws the weights and the held-out data.
Result<TrainState> startTraining(const TrainSettings &settings);
// One step: a batch, the loss and gradient, clipping, AdamW. The Problem
// when the loss leaves the finite numbers (the message names the step).
std::optional<Problem> trainStep(TrainState &state);
// The loss on the held-out batch and every head's scores, now.
Result<TrainLogEntry> evaluate(const TrainState &state);

// What train() does after each step (and once before the first): the log
// entry when the step is a log step (every logEvery and the last), the
// checkpoint when it is a checkpoint step (every checkpointEvery, or every
// log step when 0, and the last). A window's worker calls trainStep and
// then this, so its run is step for step the one train() makes.
struct TrainRecord {
    bool logged = false;        // state.log.back() is this step's entry
    bool checkpointed = false;  // state.checkpoints.back() is this step's weights
};
Result<TrainRecord> recordProgress(TrainState &state);

// A log and checkpoint schedule for `steps` steps that keeps at most `cap`
// checkpoints (cap >= 3; the first at step 0, the last at `steps`): a log
// entry about every steps / 100 steps (at least every 5), a checkpoint every
// few of them. A window keeps every checkpoint, so this bounds its memory.
struct TrainSchedule {
    int logEvery = 5;
    int checkpointEvery = 5;    // a multiple of logEvery
};
TrainSchedule boundedSchedule(int steps, int cap);
// The number of checkpoints a run of `steps` steps keeps with `checkpointEvery`.
int checkpointCount(int steps, int checkpointEvery);

// The state a checkpoint's weights would be at (the same held-out data), so
// evaluate() scores it: `state` with the model replaced.
TrainState stateAtCheckpoint(const TrainState &state, const Gpt2Model &weights, int step);

// Called on the training's thread after each log entry.
struct TrainControl {
    std::function<void(const TrainLogEntry &)> progress;
    const std::atomic<bool> *cancel = nullptr;
};
// All the steps; a cancelled training returns its state so far (cancelled set).
Result<TrainState> train(const TrainSettings &settings, const TrainControl &control = {});

} // namespace attn
