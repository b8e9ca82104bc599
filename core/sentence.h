#pragma once
// Typing a sentence: a sentence becomes one token per word with
// seeded random vectors, so that a new example takes seconds. The vector of
// a word depends only on the word, the seed and the matrix it is for (a
// hash), so the same word gets the same vector in every sentence and every
// lesson: "我 打 你" and "你 打 我" share their embeddings.

#include "scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

enum class SplitMode {
    Words,      // on whitespace: "the cat sat" → the, cat, sat
    Characters, // every character that is not a space: "我打你" → 我, 打, 你
    Auto,       // Words when the text has a space, else Characters
};

// The tokens of a UTF-8 sentence; empty pieces are dropped.
std::vector<std::string> splitSentence(const std::string &utf8, SplitMode mode);

// The vector of `word` for matrix `salt` ("X", "Q", "K", "V"): `width`
// entries uniform in [−1, 1], rounded to two decimals (readable, and
// checkable by hand). Pure: the same arguments give the same vector.
Eigen::RowVectorXd wordVector(const std::string &word, std::uint64_t seed, int width, const std::string &salt = "X");

// A rows by cols matrix uniform in [−1, 1], rounded to two decimals, drawn
// from `seed` and `salt` ("Wq", ...): "Randomise" for any matrix.
Matrix randomMatrix(int rows, int cols, std::uint64_t seed, const std::string &salt = std::string());

// `base` with one token per word, in self-attention: the settings, the
// widths and the heads stay. Direct mode: Q, K and V rows are the words'
// vectors (salts "Q", "K", "V"). Projected mode: X rows are the words'
// vectors (salt "X") and W_Q, W_K, W_V (and W_O when there is one) are
// drawn from the seed. Key padding and hand blocks are cleared (their
// shapes change); the causal mask stays. With no words, `base` unchanged.
Scenario scenarioFromSentence(const Scenario &base, const std::vector<std::string> &words, std::uint64_t seed);

} // namespace attn
