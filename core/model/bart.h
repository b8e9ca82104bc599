#pragma once
// An encoder-decoder (BART) read from a folder in the Hugging Face layout,
// and its forward with the three kinds of attention kept apart: the
// encoder's self-attention (both ways), the decoder's self-attention
// (causal) and the cross-attention (queries from the decoder, keys and
// values from the encoder's output).
//
//   DIR/config.json           model_type "bart": d_model, encoder_layers, decoder_layers,
//                             encoder_attention_heads, decoder_attention_heads, encoder_ffn_dim,
//                             decoder_ffn_dim, max_position_embeddings, vocab_size,
//                             activation_function, scale_embedding, the special ids
//   DIR/model.safetensors     BartForConditionalGeneration's names: model.shared (or one of the
//                             embed_tokens / lm_head it is tied to), model.{encoder,decoder}.
//                             {embed_positions, layernorm_embedding, layers.N.*}, final_logits_bias
//   DIR/vocab.json, merges.txt  GPT-2's byte-level BPE (bpe.h), <s> <pad> </s> <unk> among the ids
//
// The forward (d = d_model, h heads, d_h = d / h; nn.Linear's weights out by in):
//   source x_0 = LN_emb(E[src] · s + P_enc[2 .. n+2))       n by d   (BART's positions start at 2;
//                                                                       s = sqrt(d) when scale_embedding)
//   encoder layer:  a = LN(x + SelfAttn(x, x)),  x' = LN(a + FFN(a))    (post-LN, both ways)
//   target y_0 = LN_emb(E[tgt] · s + P_dec[2 .. m+2))       m by d
//   decoder layer:  a = LN(y + SelfAttn(y, y), causal)
//                   c = LN(a + CrossAttn(q from a; k, v from the encoder's last x))   m by d, weights m by n
//                   y' = LN(c + FFN(c))
//   logits = y_L E^T + final_logits_bias                    m by vocab
//
// Nothing here throws; every failure is a Problem naming the file and the key.

#include "generate.h"
#include "gpt2.h"

#include <memory>

namespace attn {

struct BartConfig {
    int d = 0;
    int encoderLayers = 0, decoderLayers = 0;
    int encoderHeads = 0, decoderHeads = 0;
    int encoderFfn = 0, decoderFfn = 0;
    int maxPositions = 0;
    int vocabSize = 0;
    bool geluTanh = false;
    bool scaleEmbedding = false;
    int bos = 0, pad = 1, eos = 2, decoderStart = 2;
    int forcedBos = -1;          // the first generated token when set (bart-base: 0)
    double epsilon = 1e-5;
};

Result<BartConfig> bartConfigFromJson(const QByteArray &json, const QString &fileName);
double bartParameters(const BartConfig &config);

struct BartAttention {
    Matrix q, k, v, out;                         // d by d (x · these)
    Eigen::RowVectorXd qBias, kBias, vBias, outBias; // d
};

struct BartLayer {
    BartAttention self;
    Eigen::RowVectorXd selfLnWeight, selfLnBias;
    BartAttention cross;                         // the decoder's only
    Eigen::RowVectorXd crossLnWeight, crossLnBias;
    Matrix fc1;                                  // d by ffn
    Eigen::RowVectorXd fc1Bias;
    Matrix fc2;                                  // ffn by d
    Eigen::RowVectorXd fc2Bias, finalLnWeight, finalLnBias;
};

struct BartModel {
    QString name, folder;
    BartConfig config;
    std::string dtype;
    std::int64_t parameters = 0;
    Matrix shared;                               // vocab by d
    Matrix encoderPositions, decoderPositions;   // (max_positions + 2) by d
    Eigen::RowVectorXd encoderLnWeight, encoderLnBias, decoderLnWeight, decoderLnBias;
    std::vector<BartLayer> encoder, decoder;
    Matrix lmHead;                               // vocab by d; empty: tied to `shared`
    Eigen::RowVectorXd finalLogitsBias;          // vocab
    BpeTokenizer tokenizer;

    const Matrix &unembedding() const { return lmHead.size() ? lmHead : shared; }
};

using Seq2SeqOrProblem = Result<std::shared_ptr<const BartModel>>;

Result<BartModel> bartWeightsFromSafeTensors(const SafeTensors &file, const BartConfig &config,
                                             const LoadControl &control = {});
Seq2SeqOrProblem loadSeq2Seq(const QString &folder, const LoadControl &control = {});
Seq2SeqOrProblem loadBuiltinSeq2Seq(const LoadControl &control = {});
inline constexpr const char *kBuiltinSeq2SeqFolder = ":/models/tiny-translator";

struct Seq2SeqTrace {
    std::vector<int> sourceIds;                  // n: <s> ... </s>
    std::vector<int> targetIds;                  // m: the decoder's inputs, </s> (decoder_start) first
    std::vector<LayerActivations> encoder;       // per layer, per head: n by n weights, no mask
    std::vector<LayerActivations> decoderSelf;   // m by m, causal
    std::vector<LayerActivations> cross;         // q: m by d_h from the decoder; k, v: n by d_h from
                                                 // the encoder's output; weights m by n
    Eigen::VectorXd logits;                      // vocab: the last target position's
    std::vector<Prediction> next;                // its top k
    int reused = 0;                              // leading target rows taken from a previous trace (the cache)
};

// The source's ids: <s> BPE(text) </s>.
std::vector<int> sourceIds(const BartModel &model, const QString &text);
// The forward of `source` and the decoder inputs `target`. Refuses empty
// sequences, ones over max_position_embeddings, ids outside the vocabulary
// and numbers that overflow.
Result<Seq2SeqTrace> runSeq2Seq(const BartModel &model, const std::vector<int> &source, const std::vector<int> &target,
                                int topK = 5);

// Incremental decoding (the KV cache): the forward of `previous`'s source
// and its target with `next` appended, computing only the new target row.
// The encoder's states and every decoder layer's keys and values of the
// earlier rows are read from `previous` (the cross-attention's k and v, n by
// d_h, are the encoder's and never change); per decoder layer the new row's
// q, k, v (1 by d_h a head), its scores against the m + 1 cached keys and
// the n encoder keys, its weights and outputs. The kept rows' scores against
// the new key are computed too, so the maps show the whole m + 1 by m + 1
// scores; their weights are 0, as blocked. Sets `reused` = m. Equal to
// runSeq2Seq over the longer target up to the rounding of products of other
// sizes (tests hold it to 1e-12). Refuses a trace of another model, an id
// outside the vocabulary and a target past max_position_embeddings.
Result<Seq2SeqTrace> extendSeq2Seq(const BartModel &model, const Seq2SeqTrace &previous, int next, int topK = 5);

// The score entries one head computes in a decoder layer of a forward of m
// target rows over n source tokens, the first `cached` rows from the cache:
// the causal self-attention's rows not cached (cacheWork) plus their n
// cross-attention entries each, against the whole triangle and m n again.
CacheWork seq2seqCacheWork(int cached, int targetRows, int sourceTokens);

// One step of generation from `t` (the forward of the decoder inputs so
// far): the distribution of its last row under `s` and the token drawn, as
// chooseNext does for a decoder. The first step of a model whose config has
// forced_bos_token_id writes that token (p = 1, no u drawn), as Hugging
// Face's generate() does. `position` counts the tokens written before it.
GenerationStep chooseNextSeq2Seq(const BartModel &model, const Seq2SeqTrace &t, const SamplingSettings &s, Rng &rng);

struct Seq2SeqGeneration {
    std::vector<GenerationStep> steps; // the tokens written, the last </s> when finished
    Seq2SeqTrace trace;                // the forward over decoder_start and every token written but the last
    bool finished = false;             // </s> was written within the steps
    std::string stopped;               // why it stopped early, or empty
};
// Writes the translation of `text` token by token under `s` (greedy at
// temperature 0: translate()'s ids), each step through extendSeq2Seq.
Result<Seq2SeqGeneration> generateSeq2Seq(const BartModel &model, const QString &text, const SamplingSettings &s,
                                          const std::atomic<bool> *cancel = nullptr);

struct Translation {
    std::vector<int> ids;        // generated, without decoder_start; ends with </s> unless cut
    Seq2SeqTrace trace;          // the forward over decoder_start + ids (the last step's)
    bool finished = false;       // </s> was generated within the steps
};
// Greedy decoding, token by token (forced_bos first when the config has it),
// at most `maxSteps` tokens and the positions the model has.
Result<Translation> translate(const BartModel &model, const QString &text, int maxSteps = 30);
// The text of ids: their bytes, special tokens left out.
std::string seq2seqText(const BartModel &model, const std::vector<int> &ids);

} // namespace attn
