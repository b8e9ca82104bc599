#pragma once
// Positional encodings. Attention alone is permutation-equivariant: it cannot
// tell "我打你" from "你打我". These tables and rotations put the position
// back. Positions count from 0.

#include "scenario.h"

#include <cstdint>

namespace attn {

// The sinusoidal table of "Attention Is All You Need".
// Output: n by w, PE(p, 2i) = sin(p / 10000^(2i/w)), PE(p, 2i+1) = cos(p / 10000^(2i/w)).
Matrix sinusoidalTable(int n, int w);

// A stand-in for a learned table: fixed numbers, uniform in [-1, 1), drawn
// from `seed`. Entry (p, c) depends only on (seed, p, c), so adding a token
// leaves the rows of the others as they were.
// Output: n by w.
Matrix learnedTable(int n, int w, std::uint64_t seed);

// The additive table of an encoding (sinusoidal or learned), n by w; an
// empty matrix for none and for RoPE, which is not added.
Matrix additiveTable(Encoding e, int n, int w, std::uint64_t seed);

// RoPE angles: theta(p, i) = p * 10000^(-2i/d).
// Output: n by d/2. Input d must be even.
Matrix ropeAngles(int n, int d);

// Rotates each row p of x pair by pair: (a, b) at columns (2i, 2i+1) becomes
// (a cos t - b sin t, a sin t + b cos t) with t = angles(p, i).
// Inputs: x, n by d (d even); angles, n by d/2. Output: n by d.
Matrix applyRope(const Eigen::Ref<const Matrix> &x, const Eigen::Ref<const Matrix> &angles);

} // namespace attn
