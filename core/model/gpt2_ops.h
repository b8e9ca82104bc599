#pragma once
// The GPT-2 forward's row-wise pieces, written once for the lab's forward
// (gpt2.cpp) and the training forward (core/train/gpt2_backward.cpp), so
// both compute the same numbers.

#include "scenario.h"

namespace attn::gpt2ops {

// Row-wise layer norm of x (n by d): (x - mean) / sqrt(var + eps) * g + b.
// When given, `normalized` gets (x - mean) / sqrt(var + eps) (n by d) and
// `rstd` 1 / sqrt(var + eps) (n), what the backward needs.
Matrix layerNorm(const Matrix &x, const Eigen::RowVectorXd &g, const Eigen::RowVectorXd &b, double eps,
                 Matrix *normalized = nullptr, Eigen::VectorXd *rstd = nullptr);

// a b, n by m times m by k (small products summed directly: see gpt2_ops.cpp).
Matrix product(const Matrix &a, const Matrix &b);

// GELU, elementwise: the tanh form (GPT-2's gelu_new) or the exact one.
// inner (the tanh form only, optional): tanh(sqrt(2/pi) (x + 0.044715 x³)),
// which geluDerivative can reuse instead of computing the tanh again; with
// it the tanh comes from fastExp (within a few 1e-16 of std::tanh: the
// training's path; the lab's forward, without it, keeps std::tanh).
Matrix gelu(const Matrix &x, bool tanhApprox, Matrix *inner = nullptr);
// Its derivative at each entry of x.
// inner: gelu's for the same x (tanh form), or null.
Matrix geluDerivative(const Matrix &x, bool tanhApprox, const Matrix *inner = nullptr);

} // namespace attn::gpt2ops
