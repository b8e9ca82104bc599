#pragma once
// A trained model as a GPT-2 folder that model mode and `model trace` read
// (gpt2.h's layout): config.json, model.safetensors (F64, the trained numbers
// exactly), vocab.json and merges.txt. Each file is written atomically.
//
// A GPT-2 reader divides the scores by sqrt(d_h); a model trained with
// another divisor c is saved with its query weights and biases times
// sqrt(d_h) / c, so the reader computes the same scaled scores. A model
// trained without the MLP keeps its MLP weights and biases zero, so the
// reader's MLP adds nothing.

#include "trainer.h"

#include <QString>

#include <optional>

namespace attn {

// The tensors of `model` as the file stores them (row-major, GPT-2 names),
// the queries rescaled from `divisor` to sqrt(d_h).
std::vector<TensorToWrite> gpt2Tensors(const Gpt2Model &model, double divisor);

// `model` with its query weights and biases times sqrt(d_h) / divisor: what a
// GPT-2 reader (runModelOnIds, takehead) needs to compute the scores the
// training computed (the saved folder holds these numbers).
Gpt2Model rescaledQueries(const Gpt2Model &model, double divisor);

// A trained model as model mode and takehead read it, without a file: the
// queries rescaled as saved, the task's tokenizer, `name` as its name.
Result<Gpt2Model> readableTrainedModel(const Gpt2Model &model, const TrainSettings &settings, const QString &name);

// config.json's text for `config`.
QByteArray gpt2ConfigJson(const Gpt2Config &config);

// The tokenizer's two files for a synthetic task's vocabulary (one symbol a
// token, no merges), or the built-in model's for grammar.
struct TokenizerFiles {
    QByteArray vocabJson, mergesText;
};
TokenizerFiles taskTokenizerFiles(TrainTask task, int vocabulary);

// Writes the folder (made when missing): the Problem names the file.
std::optional<Problem> saveTrainedModel(const Gpt2Model &model, const TrainSettings &settings, const QString &folder);

} // namespace attn
