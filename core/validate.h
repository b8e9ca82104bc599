#pragma once
// What makes a scenario computable, checked in one place so that the file
// loader, the command line and the window all refuse the same things with
// the same words.

#include "scenario.h"

#include <cstdint>
#include <optional>
#include <string>

namespace attn {

// A reason a scenario cannot be computed. `place` uses the scenario file's
// own names ("inputs.K[2][1]", "heads", "mask.causal") so that a message
// points at what the user has to change.
struct Problem {
    std::string place;
    std::string message;

    std::string toString() const { return place.empty() ? message : place + ": " + message; }
};

// Limits that keep every number finite and the work bounded
// (docs/scenario-format.md, "Limits", gives each one's reason and cost).
inline constexpr int kMaxTokens = 4096;
inline constexpr int kMaxWidth = 4096;
inline constexpr int kMaxHeads = 64;
// The numbers one trace holds, every head and stage (traceCells): 256 MB
// of doubles, so that the trace and its largest export (the JSON file, about
// 40 bytes a number) stay under 2 GB together. n = 2048 tokens fit in two
// heads, n = 1024 in eight.
inline constexpr double kMaxTraceCells = 32.0 * 1024 * 1024;
// A token label and a title, in characters (code points): a word or a
// short phrase; each is drawn on every map and the plane.
inline constexpr int kMaxLabelCharacters = 64;
inline constexpr int kMaxTitleCharacters = 200;
// The text a model reads (`model trace --text`), in characters: checked
// before it is tokenized. A model refuses more tokens than its positions.
inline constexpr int kMaxModelTextCharacters = 16384;
inline constexpr double kMaxMagnitude = 1e12;   // |entry| of any input matrix
inline constexpr std::uint64_t kMaxSeed = 9223372036854775807ULL; // 2^63 - 1: what a JSON reader holds exactly
// A mask's window, dilation and block width: up to the most tokens a
// scenario holds (a wider one is the same as no pattern).
inline constexpr int kMaxMaskWidth = kMaxTokens;
inline constexpr double kMinTemperature = 1e-6;
inline constexpr double kMaxTemperature = 1e6;

// The numbers compute(s) stores, counted before it runs: per head the
// scores, scaled and weights (n_q by n_k each) and the head's Q, K, V and
// output; the mask once (n_q by n_k); the layer's Q, K, V, concat, output,
// positional tables and, projected, the encoded X and source. Needs only the
// shapes to be consistent (validate checks them first).
double traceCells(const Scenario &s);

// Characters (code points) of UTF-8 text.
std::size_t characterCount(const std::string &utf8);

// First problem found, or none when compute() may run.
std::optional<Problem> validate(const Scenario &s);

// Checks one value typed into matrix `name` at (row, col), before it is
// stored: finite and within kMaxMagnitude. `name` is a file name such as "Q".
std::optional<Problem> checkEntry(const std::string &name, int row, int col, double value);

// "inputs.K[2][1]": the place of one entry, as in the file.
std::string entryPlace(const std::string &name, int row, int col);

} // namespace attn
