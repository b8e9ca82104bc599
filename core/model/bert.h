#pragma once
// An encoder (BERT) read from a folder in the Hugging Face layout, and its
// forward with every head's stages kept: the model that reads both ways.
//
//   DIR/config.json             model_type "bert": vocab_size, hidden_size, num_hidden_layers,
//                               num_attention_heads, intermediate_size, max_position_embeddings,
//                               type_vocab_size, layer_norm_eps, hidden_act
//   DIR/model.safetensors       BertForMaskedLM's names ("bert.embeddings.word_embeddings.weight",
//                               "bert.encoder.layer.N.attention.self.query.weight", ...,
//                               "cls.predictions.*"), or BertModel's (no "bert." prefix, no cls:
//                               then no masked-word prediction); F32, F16, BF16 or F64
//   DIR/vocab.txt               WordPiece (wordpiece.h)
//   DIR/tokenizer_config.json   optional: do_lower_case (default true)
//
// The forward (d = hidden_size, h heads, d_h = d / h, n tokens; nn.Linear's
// weights are out by in, so x W^T):
//   x_0 = LN_emb(word[ids] + position[0..n) + token_type[0])        n by d
//   per layer:  q, k, v = x W_Q^T + b_Q, ...                         n by d
//               per head: scores = q_h k_h^T, scaled = / sqrt(d_h),
//                         weights = softmax over every key (no causal mask: each
//                         token reads the tokens after it too), out_h = weights v_h
//               a = LN_attn(x + [out_1 .. out_h] W_O^T + b_O)        n by d   (post-LN)
//               x' = LN_out(a + GELU(a W_I^T + b_I) W_2^T + b_2)     n by d
//   masked-word head: t = LN_t(GELU(x_L W_t^T + b_t))                n by d
//                     logits = t word^T + bias                       n by vocab
//
// Nothing here throws; every failure is a Problem naming the file and the key
// or tensor, as for GPT-2 (gpt2.h).

#include "gpt2.h"
#include "wordpiece.h"

#include <memory>

namespace attn {

struct BertConfig {
    int nLayer = 0;
    int nHead = 0;
    int hidden = 0;
    int intermediate = 0;
    int maxPositions = 0;
    int vocabSize = 0;
    int typeVocabSize = 2;
    double epsilon = 1e-12;
    bool geluTanh = false;   // hidden_act "gelu" (exact, BERT's) unless gelu_new

    int headDim() const { return nHead ? hidden / nHead : 0; }
};

// config.json's text. Refuses a model_type other than "bert" and a
// position_embedding_type other than "absolute".
Result<BertConfig> bertConfigFromJson(const QByteArray &json, const QString &fileName);
// The parameters the forward holds, 8 bytes each against kModelBudgetBytes.
double bertParameters(const BertConfig &config);

struct BertLayer {
    Matrix query, key, value;                    // d by d (x · these: nn.Linear's weight transposed)
    Eigen::RowVectorXd queryBias, keyBias, valueBias; // d
    Matrix attnOut;                              // d by d
    Eigen::RowVectorXd attnOutBias, attnLnWeight, attnLnBias; // d
    Matrix inter;                                // d by intermediate
    Eigen::RowVectorXd interBias;                // intermediate
    Matrix out;                                  // intermediate by d
    Eigen::RowVectorXd outBias, outLnWeight, outLnBias; // d
};

struct BertModel {
    QString name, folder;
    BertConfig config;
    std::string dtype;
    std::int64_t parameters = 0;
    Matrix word;                                 // vocab by d
    Matrix position;                             // max_positions by d
    Matrix tokenType;                            // type_vocab by d
    Eigen::RowVectorXd embLnWeight, embLnBias;   // d
    std::vector<BertLayer> layers;
    bool hasMaskedLm = false;                    // cls.predictions.* present
    Matrix transform;                            // d by d
    Eigen::RowVectorXd transformBias, transformLnWeight, transformLnBias; // d
    Matrix decoder;                              // vocab by d: empty when tied to `word`
    Eigen::RowVectorXd decoderBias;              // vocab
    WordPieceTokenizer tokenizer;

    const Matrix &unembedding() const { return decoder.size() ? decoder : word; }
};

using EncoderOrProblem = Result<std::shared_ptr<const BertModel>>;

// The weights from an open safetensors file. Refuses a model over the
// budget before any tensor is read.
Result<BertModel> bertWeightsFromSafeTensors(const SafeTensors &file, const BertConfig &config,
                                             const LoadControl &control = {});
// Reads a BERT folder: config.json, model.safetensors, vocab.txt and, if
// there, tokenizer_config.json; each a regular file within its limit.
EncoderOrProblem loadEncoder(const QString &folder, const LoadControl &control = {});
// The encoder shipped in the resources (resources/models/tiny-encoder).
EncoderOrProblem loadBuiltinEncoder(const LoadControl &control = {});
inline constexpr const char *kBuiltinEncoderFolder = ":/models/tiny-encoder";

// config.json's model_type ("gpt2", "bert", "bart"; empty when the file has
// none), read as the loaders read the file: the route a folder takes.
Result<QString> modelTypeOf(const QString &folder);

struct MaskFill {
    int position = 0;                 // 0-based, in the ids ([CLS] is 0)
    std::vector<Prediction> top;      // most likely first
};

struct EncoderTrace {
    std::vector<int> ids;             // n, [CLS] ... [SEP]
    std::vector<std::string> pieces;  // n: "[CLS]", "the", "##s", "我"
    std::vector<LayerActivations> layers; // per head q, k, v, scores, scaled, weights (no mask), output;
                                      // input = normed = the layer's input (post-LN: q, k, v read it as is)
    Matrix final;                     // n by d: the last layer's output
    std::vector<MaskFill> fills;      // one per [MASK] in the ids, when the model has its masked-word head
};

// Tokenizes (with [CLS] and [SEP]) and runs the forward. Refuses an empty
// text, one over max_position_embeddings tokens, one whose trace would pass
// kMaxModelTraceCells, and a forward that leaves the finite numbers.
Result<EncoderTrace> runEncoder(const BertModel &model, const QString &text, int topK = 5);
Result<EncoderTrace> runEncoderOnIds(const BertModel &model, const std::vector<int> &ids, int topK = 5);

} // namespace attn
