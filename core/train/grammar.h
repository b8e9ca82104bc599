#pragma once
// The built-in model's training text (scripts/train-model.py, ported): a
// small grammar of English and Chinese sentences (agreement across a
// phrase, pronouns that refer back, objects chosen by the subject, spans
// said twice, sentence pairs that translate each other), tokenized with the
// built-in model's tokenizer. The same kinds of sentence in the same
// proportions; the numbers drawn come from core/random.h, not Python's.

#include "gpt2_backward.h"
#include "random.h"

#include <string>

namespace attn {

// One sentence (UTF-8, words separated by spaces, no newline).
std::string grammarSentence(Rng &rng);
// The built-in model's vocabulary size, and its tokenizer (loaded once).
int grammarVocabularySize();
const BpeTokenizer &grammarTokenizer();
// `batch` windows of `length` tokens of sentences, one a line; every
// position predicts the next token.
TrainBatch grammarBatch(int batch, int length, Rng &rng);

} // namespace attn
