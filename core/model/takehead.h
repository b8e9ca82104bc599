#pragma once
// "Take this head into the lab": one head of a model, for one text, as an
// ordinary scenario that every part of the lab edits, computes and exports.
//
// Direct mode: Q, K, V are the head's q, k, v (n by d_h), one head, dot
// product scaled by sqrt(d_k) (GPT-2's 1/sqrt(d_h)), the causal mask on, the
// tokens labelled with their BPE pieces. compute() of it gives the head's
// scores, scaled scores, weights and output again (the weights to 1e-12:
// tests/model).
//
// Projected mode: X is the layer's normed input LN_1(x) with a column of
// ones appended (n by d+1), and W_Q, W_K, W_V are the head's slices of
// c_attn with their bias as the last row ((d+1) by d_h), so X W_Q = q
// exactly as the model adds its bias. No W_O: the output is the head's.

#include "bart.h"
#include "bert.h"
#include "gpt2.h"
#include "scenario.h"
#include "result.h"
#include "validate.h"

#include <variant>

namespace attn {

enum class HeadInput { Direct, Projected };

// `layer` and `head` count from 0. A Problem for a layer or head the trace
// does not have.
Result<Scenario> headScenario(const Gpt2Model &model, const ModelTrace &trace, int layer, int head,
                                             HeadInput input = HeadInput::Direct);

// An encoder's head (bert.h), direct mode: its q, k, v as Q, K, V, scaled
// by sqrt(d_k) and without the causal mask (each token reads the later
// ones too), labelled with the WordPiece pieces.
Result<Scenario> encoderHeadScenario(const BertModel &model, const EncoderTrace &trace, int layer, int head);

// The three kinds of attention of an encoder-decoder (bart.h).
enum class Seq2SeqKind { EncoderSelf, DecoderSelf, Cross };

// An encoder-decoder's head, direct mode: its q, k, v as Q, K, V, scaled by
// sqrt(d_k). The encoder's self-attention without a mask (source tokens
// both ways); the decoder's with the causal mask (its input tokens); the
// cross-attention as the lab's separate key sequence: Q the decoder's
// queries (m by d_h, rows labelled with the decoder's inputs), K and V the
// encoder's (n by d_h, the source tokens), no mask.
Result<Scenario> seq2seqHeadScenario(const BartModel &model, const Seq2SeqTrace &trace, Seq2SeqKind kind, int layer,
                                     int head);

// The label of each token of the trace, as the maps show them (tokenLabel).
std::vector<std::string> tokenLabels(const ModelTrace &trace);

} // namespace attn
