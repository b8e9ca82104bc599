#pragma once
// The formula of a scenario's setting, written out with its options, as a
// student would write it on the board: "softmax(QKᵀ/√d_k + M)·V".

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

// "2.8284": four decimals, never "-0.0000"; a result as a hand calculation
// writes it (rounding noise of 1e-17 shows as 0.0000). From 1e9 on,
// "8.0000e+33".
std::string fixed4(double v);

// "q·k", "cos(q, k)", "−‖q − k‖²": s(q, k) as written in formulas; with
// `rotated` (RoPE) of the rotated vectors, "R(q)·R(k)".
const char *similaritySymbol(Similarity kind, bool rotated = false);
// The scenario's own: rotated when its encoding is RoPE.
const char *similaritySymbol(const Scenario &s);

// "0.1", "2.8284271247461903": the shortest text that reads back as the
// same double (what files and "exact value" show); never "-0".
std::string shortest(double v);

// "2", "0.5", "-1.25": up to four decimals, trailing zeros dropped; for the
// inputs of a hand calculation. An input below 5e-5 or from 1e9 on keeps four
// significant digits ("1e-06"), so a tiny τ or q never reads as 0.
std::string compact(double v);

} // namespace attn
