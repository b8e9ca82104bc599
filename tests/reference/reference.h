#pragma once
// A second implementation of the attention semantics, written to be obviously
// right rather than fast: plain loops over vectors of rows, its own softmax,
// masks, encodings and projections. The only thing it takes from the core is
// the learned table, which is data (a seeded draw), not math.

#include "scenario.h"

#include <vector>

namespace ref {

using Mat = std::vector<std::vector<double>>; // rows of equal length
using BoolMat = std::vector<std::vector<bool>>;

struct Row {
    double sum = 0;
    double entropy = 0;
    double maxWeight = 0;
    int argmax = -1;
    bool fullyMasked = false;
};

struct Head {
    Mat Q, K, V;    // after projection, split and encoding
    Mat scores;     // n_q by n_k
    Mat scaled;     // before the mask
    Mat weights;    // after the mask
    Mat output;     // n_q by d_v
    std::vector<Row> rows;
};

struct Result {
    BoolMat blocked;
    std::vector<Head> heads;
    Mat concat;
    Mat output;
};

// Assumes a scenario that attn::validate accepts.
Result attention(const attn::Scenario &s);

// Pieces, exposed so that the reference itself can be checked by hand.
Mat sinusoidal(int n, int w);
Mat rotate(const Mat &x, int dk); // RoPE, row p rotated by p * 10000^(-2i/dk)
std::vector<double> softmax(const std::vector<double> &row);

} // namespace ref
