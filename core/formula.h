#pragma once
// The formula of a scenario's setting, written out with its options, as a
// student would write it on the board: "softmax(QKᵀ/√d_k + M)·V".

#include "numbers.h"
#include "scenario.h"

#include <string>

namespace attn {

// Mathematics only: the words around it ("not renormalised", "R rotates
// pairs of dimensions") are the caller's, in the caller's language.
struct Formula {
    std::string attention;       // "softmax(QKᵀ/√d_k + M)·V", per head when h > 1
    bool notRenormalised = false;// the mask acts after the softmax (⊙ M₀₁): rows sum to less than 1
    std::string inputs;          // where Q, K and V come from: "Q = (X+P)W_Q, ..."; may be empty
    bool rope = false;           // R(·) in the formula: RoPE rotates q and k by position
    std::string output;          // "output = [head₁ … head₄]·W_O" when h > 1 or W_O is present; may be empty
};

// UTF-8 text.
Formula formula(const Scenario &s);

// True when some entry is blocked by the causal mask, padding or by hand.
bool hasMask(const Scenario &s);

// "q·k", "cos(q, k)", "−‖q − k‖²": s(q, k) as written in formulas; with
// `rotated` (RoPE) of the rotated vectors, "R(q)·R(k)".
const char *similaritySymbol(Similarity kind, bool rotated = false);
// The scenario's own: rotated when its encoding is RoPE.
const char *similaritySymbol(const Scenario &s);

} // namespace attn
