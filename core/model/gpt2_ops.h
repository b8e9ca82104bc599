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
Matrix gelu(const Matrix &x, bool tanhApprox);
// Its derivative at each entry of x.
Matrix geluDerivative(const Matrix &x, bool tanhApprox);

} // namespace attn::gpt2ops
