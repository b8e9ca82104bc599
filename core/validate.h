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

// Limits that keep every number finite and the work bounded.
inline constexpr int kMaxTokens = 4096;
inline constexpr int kMaxWidth = 4096;
inline constexpr int kMaxHeads = 64;
inline constexpr double kMaxCellsPerTrace = 16.0 * 1024 * 1024; // heads * n_q * n_k
inline constexpr double kMaxMagnitude = 1e12;   // |entry| of any input matrix
inline constexpr std::uint64_t kMaxSeed = 9223372036854775807ULL; // 2^63 - 1: what a JSON reader holds exactly
inline constexpr double kMinTemperature = 1e-6;
inline constexpr double kMaxTemperature = 1e6;

// First problem found, or none when compute() may run.
std::optional<Problem> validate(const Scenario &s);

// Checks one value typed into matrix `name` at (row, col), before it is
// stored: finite and within kMaxMagnitude. `name` is a file name such as "Q".
std::optional<Problem> checkEntry(const std::string &name, int row, int col, double value);

// "inputs.K[2][1]": the place of one entry, as in the file.
std::string entryPlace(const std::string &name, int row, int col);

} // namespace attn
