#pragma once
// AdamW (Loshchilov and Hutter), as torch.optim.AdamW computes it, over the
// parameter tensors of a model (gpt2_backward.h's ParameterRef), step t
// counting from 1:
//   p ← p − lr λ p                       (decoupled weight decay; matrices only)
//   m ← β₁ m + (1 − β₁) g,   v ← β₂ v + (1 − β₂) g²
//   p ← p − lr (m / (1 − β₁ᵗ)) / (sqrt(v / (1 − β₂ᵗ)) + ε)

#include "gpt2_backward.h"

#include <vector>

namespace attn {

struct AdamWOptions {
    double beta1 = 0.9;
    double beta2 = 0.999;
    double epsilon = 1e-8;
    double weightDecay = 0.01;   // λ, applied to the weight matrices (not to biases and LayerNorm)
};

// The moments, one vector a parameter tensor (in parameterRefs order).
struct AdamWState {
    int step = 0;
    std::vector<Eigen::VectorXd> m, v;
};

// One step of every parameter in `params` by its gradient in `grads` (the
// same tensors of the gradient model, in the same order), at learning rate
// `lr`. A tensor whose `skip` flag is set is left alone (the MLP of an
// attention-only model).
void adamwStep(const std::vector<ParameterRef> &params, const std::vector<ParameterRef> &grads, AdamWState &state,
               const AdamWOptions &options, double lr, const std::vector<bool> &skip = {});

} // namespace attn
