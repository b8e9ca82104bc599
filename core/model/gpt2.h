#pragma once
// A GPT-2 model read from a folder in the Hugging Face layout, and its
// forward pass with every head's stages kept for the lab.
//
//   DIR/config.json        n_layer, n_head, n_embd, n_positions, vocab_size, layer_norm_epsilon
//   DIR/model.safetensors  wte, wpe, h.N.{ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj}, ln_f
//                          (with or without the "transformer." prefix; F32, F16, BF16 or F64)
//   DIR/vocab.json, DIR/merges.txt   the byte-level BPE tokenizer (bpe.h)
//
// The forward (d = n_embd, h = n_head, d_h = d / h, n tokens):
//   x_0 = wte[ids] + wpe[0..n)                              n by d
//   per layer l:  a = LN_1(x_l)                              n by d
//                 [q k v] = a c_attn.W + c_attn.b            n by 3d (Conv1D: W is d by 3d)
//                 per head: q_h, k_h, v_h                    n by d_h (columns h d_h .. (h+1) d_h)
//                           scores = q_h k_h^T               n by n
//                           scaled = scores / sqrt(d_h)      n by n
//                           weights = softmax, causal        n by n (key j > query i blocked)
//                           out_h = weights v_h              n by d_h
//                 x' = x_l + [out_1 .. out_h] c_proj.W + b   n by d
//                 x_{l+1} = x' + GELU_tanh(LN_2(x') c_fc.W + b) mlp.c_proj.W + b
//   logits = LN_f(x_L) wte^T                                 n by vocab (tied embedding;
//                                                            lm_head^T when tie_word_embeddings is false)
//
// Every failure is a Problem naming the file (its place) and the tensor or
// key (its message). Nothing here throws.

#include "bpe.h"
#include "safetensors.h"
#include "scenario.h"
#include "result.h"
#include "validate.h"

#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace attn {

// Limits that keep a model's work bounded.
inline constexpr int kMaxModelLayers = 128;
inline constexpr int kMaxModelWidth = 16384;     // n_embd
inline constexpr int kMaxModelPositions = 65536;
// The numbers one forward keeps (modelTraceCells), refused before anything
// is allocated: the same 32 Mi (256 MB of doubles) as a lab trace. GPT-2
// small (12 layers × 12 heads) traces at most 221 tokens under it.
inline constexpr double kMaxModelTraceCells = kMaxTraceCells;

struct Gpt2Config {
    int nLayer = 0;
    int nHead = 0;
    int nEmbd = 0;
    int nPositions = 0;
    int vocabSize = 0;
    int nInner = 0;          // the MLP's width; 4 n_embd unless the config says
    double epsilon = 1e-5;   // layer_norm_epsilon
    bool geluTanh = true;    // activation_function gelu_new (GPT-2's) rather than the exact gelu
    bool tiedEmbedding = true; // tie_word_embeddings: the logits read wte; false: lm_head.weight of their own

    int headDim() const { return nHead ? nEmbd / nHead : 0; }
};

// The memory a model may hold: its parameters as the forward holds them,
// 8 bytes each (doubles: the forward is computed in double, so that its
// numbers are the lab's and PyTorch's to 1e-12; a float file is widened once
// when it is read, not at every product). 1 GiB holds GPT-2 small (124 M
// parameters, 0.99 GB) and the built-in model many times over, and leaves
// a classroom laptop room for the trace (kMaxModelTraceCells, 256 MB), the
// window and the memory-mapped file. Checked from config.json before a
// tensor is read, so GPT-2 medium (355 M, 2.8 GB) is refused in a moment.
inline constexpr double kModelBudgetBytes = 1024.0 * 1024.0 * 1024.0;
inline constexpr int kBytesPerParameter = int(sizeof(double));
// The parameters the forward holds for `config`: wte, wpe, each layer's
// twelve tensors and ln_f (the tied lm_head once).
double modelParameters(const Gpt2Config &config);
// A Problem at `place` when modelParameters × kBytesPerParameter exceeds
// kModelBudgetBytes; the message names both numbers.
std::optional<Problem> checkModelBudget(const Gpt2Config &config, const std::string &place);
// The same check for any model's parameter count (BERT's, BART's).
std::optional<Problem> checkParameterBudget(double parameters, const std::string &place);

// Progress and cancellation of a load, for a window that loads off its GUI
// thread. `progress` is called from the loading thread with a fraction that
// grows from 0 to 1; once *cancel is true the load stops at the next tensor
// and returns a Problem whose message is kLoadCancelled.
// How a model's weights are held and multiplied. Double: every weight a
// double (the lab's precision; the built-in model's numbers equal PyTorch's
// to 1e-12). Single: the big matrices (wte, lm_head, c_attn, c_proj, c_fc,
// the MLP's c_proj) kept in float32 and their products computed in float32,
// as PyTorch runs a float32 model; the rest (biases, layer norms, positions,
// attention's scores and softmax) stays double. Auto: single for a float
// file (F32, F16, BF16) of kSinglePrecisionParameters or more.
enum class Precision { Auto, Double, Single };
inline constexpr double kSinglePrecisionParameters = 20e6;

struct LoadControl {
    std::function<void(double)> progress;
    const std::atomic<bool> *cancel = nullptr;
    Precision precision = Precision::Auto;

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
    void report(double fraction) const
    {
        if (progress)
            progress(fraction);
    }
};
inline constexpr const char *kLoadCancelled = "the loading was cancelled";

// Reads config.json's text; `fileName` names it in messages.
Result<Gpt2Config> gpt2ConfigFromJson(const QByteArray &json, const QString &fileName);

struct Gpt2Layer {
    Eigen::RowVectorXd ln1Weight, ln1Bias;   // d
    Matrix attnWeight;                       // d by 3d (q, k, v side by side)
    Eigen::RowVectorXd attnBias;             // 3d
    Matrix projWeight;                       // d by d
    Eigen::RowVectorXd projBias;             // d
    Eigen::RowVectorXd ln2Weight, ln2Bias;   // d
    Matrix fcWeight;                         // d by n_inner
    Eigen::RowVectorXd fcBias;               // n_inner
    Matrix mlpProjWeight;                    // n_inner by d
    Eigen::RowVectorXd mlpProjBias;          // d
};

// The big matrices of a layer in single precision (Precision::Single).
struct Gpt2FloatLayer {
    FloatMatrix attnWeight;    // d by 3d
    FloatMatrix projWeight;    // d by d
    FloatMatrix fcWeight;      // d by n_inner
    FloatMatrix mlpProjWeight; // n_inner by d
};

struct Gpt2Model {
    QString name;            // "tiny-bilingual": the folder's name
    QString folder;          // where it was read from (":/models/tiny-bilingual" for the built-in one)
    Gpt2Config config;
    std::string dtype;       // of the weights in the file: "F32", "F16", "BF16", "F64" (or "mixed")
    std::int64_t parameters = 0;
    Matrix wte;              // vocab by d
    Matrix lmHead;           // vocab by d: the logits' own matrix when the config unties it; else empty
    Matrix wpe;              // n_positions by d
    std::vector<Gpt2Layer> layers;
    Eigen::RowVectorXd lnfWeight, lnfBias;   // d
    BpeTokenizer tokenizer;

    // Single precision: wte, lm_head and each layer's big matrices are the
    // float ones below, and the double ones above are empty.
    bool single = false;
    FloatMatrix wteF, lmHeadF;               // vocab by d
    std::vector<Gpt2FloatLayer> floatLayers; // n_layer

    // What the logits are read against: wte (tied, GPT-2's) or lm_head.   vocab by d
    // (double precision only; logitsOf serves both).
    const Matrix &unembedding() const { return config.tiedEmbedding ? wte : lmHead; }
    // The logits of each row of `h` (rows by d, after LN_f): rows by vocab.
    Matrix logitsOf(const Matrix &h) const;
    // Token `id`'s embedding (wte's row), in double.   1 by d
    Eigen::RowVectorXd embedding(int id) const;
    // c_attn's weights of `layer` (d by 3d), in double whatever the precision.
    Matrix attnWeight(int layer) const;
};

using ModelOrProblem = Result<std::shared_ptr<const Gpt2Model>>;

// Reads the four files of a model folder. Each must be a regular file (after
// links are followed) within its limit (kMaxConfigBytes,
// kMaxSafetensorsFileBytes, kMaxTokenizerFileBytes), checked from the file
// system before it is read; the model must fit kModelBudgetBytes.
ModelOrProblem loadModel(const QString &folder, const LoadControl &control = {});
// The model shipped in the resources (resources/models/tiny-bilingual).
ModelOrProblem loadBuiltinModel(const LoadControl &control = {});
inline constexpr qint64 kMaxConfigBytes = 1024 * 1024;
inline constexpr const char *kBuiltinModelFolder = ":/models/tiny-bilingual";

// The weights alone, from an open safetensors file and a config: every
// tensor found (with or without "transformer."), its shape checked against
// the config. The tokenizer is left empty.
// Refuses a model over kModelBudgetBytes before any tensor is read.
Result<Gpt2Model> gpt2WeightsFromSafeTensors(const SafeTensors &file, const Gpt2Config &config,
                                             const LoadControl &control = {});

// One head of one layer, for one text: what the lab's stages show.
struct HeadActivations {
    Matrix q, k, v;     // n by d_h
    Matrix scores;      // n by n: q k^T
    Matrix scaled;      // n by n: scores / sqrt(d_h)
    Matrix weights;     // n by n: causal softmax of scaled (blocked entries 0)
    Matrix output;      // n by d_h: weights v
};

struct LayerActivations {
    Matrix input;       // n by d: the residual stream entering the layer
    Matrix normed;      // n by d: LN_1(input), what c_attn projects
    std::vector<HeadActivations> heads; // n_head
};

struct Prediction {
    int id = 0;
    std::string text;   // the token's bytes (tokenLabel / displayText for the eye)
    double p = 0;       // softmax probability
};

// The k most likely of `logits` (vocab) under softmax, most likely first,
// the lower id on a tie; `text` names each id (the tokenizer's bytes or piece).
std::vector<Prediction> topPredictions(const Eigen::VectorXd &logits, int k,
                                       const std::function<std::string(int id)> &text);

struct ModelTrace {
    std::vector<int> ids;                      // n token ids
    int reused = 0;                            // leading positions taken unchanged from a previous trace
    bool masked = false;                       // under a mask of its own besides the causal one (runModelOnIdsMasked)
    bool ablated = false;                      // with heads knocked out (runModelOnIdsAblated)
    std::vector<std::string> texts;            // n: each token's bytes
    std::vector<LayerActivations> layers;      // n_layer
    Matrix final;                              // n by d: LN_f of the last residual stream
    Eigen::VectorXd logits;                    // vocab: the last position's logits
    std::vector<Prediction> next;              // the top k of the last position, most likely first
};

// What a forward of `tokens` tokens keeps (ModelTrace): per layer the input
// and LN_1 (2 n d) and per head q, k, v, output (4 n d_h) and scores, scaled,
// weights (3 n²); then LN_f (n d).
double modelTraceCells(const Gpt2Config &config, int tokens);
// The most tokens whose trace stays within kMaxModelTraceCells (at most n_positions).
int maxTracedTokens(const Gpt2Config &config);

// Tokenizes `text` and runs the forward. Refuses an empty text and one of
// more than n_positions tokens (the message gives the limit), and one whose
// trace would hold more than kMaxModelTraceCells numbers (the message gives
// the number, the limit and the longest text that fits). Refuses, too, a
// forward that leaves the finite numbers (finite weights can overflow):
// every stage is checked as it is made, and the Problem (placed at the
// model's name) says where, "layer 1, head 2: the scores overflow (q and k
// reach 9.5e+199)", so no NaN or infinity reaches a trace, a file or the screen.
Result<ModelTrace> runModel(const Gpt2Model &model, const QString &text, int topK = 5);
// The forward of given ids (each below the vocabulary size).
Result<ModelTrace> runModelOnIds(const Gpt2Model &model, const std::vector<int> &ids, int topK = 5);

// Incremental: the same forward, reusing `previous` (a trace of the same
// model, or null). The model is causal: position i reads only positions
// 0..i, so the positions before the first id where `ids` and previous->ids
// differ are the same, and are copied; only the rest is computed (typing a
// token at the end: one position instead of n). The scores of the kept
// queries against the new keys are computed too (the maps show the whole
// n by n scores); their weights are 0, as blocked. Sets `reused`. Equal to
// the full forward up to the rounding of products of other sizes (the tests
// hold it to 1e-12).
Result<ModelTrace> runModelOnIds(const Gpt2Model &model, const std::vector<int> &ids, int topK,
                                                const ModelTrace *previous);
Result<ModelTrace> runModel(const Gpt2Model &model, const QString &text, int topK, const ModelTrace *previous);
// The same forward under a mask of its own: `blocked` (n by n, true where key
// j is blocked for query i) is added to the causal mask (a sliding window,
// sinks + a window). Nothing is reused from a previous trace. Refuses a mask
// of another size, and one that blocks every key of a row.
Result<ModelTrace> runModelOnIdsMasked(const Gpt2Model &model, const std::vector<int> &ids, int topK,
                                       const BoolMatrix &blocked);
// A head knocked out: what it writes into the residual stream (its output,
// n by d_h, the rows c_proj reads) replaced by zeros, or by one row at every
// position (its mean output over a probe set: meanHeadOutputs in probe.h).
// Its scores and weights are still computed and kept, so its maps show what
// it would have read; its `output` holds what it wrote instead.
struct HeadAblation {
    int layer = 0, head = 0;  // 0-based
    Eigen::RowVectorXd mean;  // d_h; empty: zero ablation
};
// The forward with `ablations` applied (none: as runModelOnIds). Refuses a
// layer or head outside the model and a mean of another width.
Result<ModelTrace> runModelOnIdsAblated(const Gpt2Model &model, const std::vector<int> &ids, int topK,
                                        const std::vector<HeadAblation> &ablations);
// How many leading positions of `previous` a forward of `ids` can keep.
int reusablePositions(const Gpt2Model &model, const std::vector<int> &ids, const ModelTrace *previous);

// What a head's weights look at and its label: scoreHead (headlabel.h).

} // namespace attn
