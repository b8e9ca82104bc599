#pragma once
// The trace as a student writes it by hand: for each head and query row, the
// scores, the scaled scores, the mask, the exponentials and weights, and the
// output, to four decimals.

#include "attention.h"
#include "scenario.h"

#include <string>

namespace attn {

// UTF-8 text, one line per step.
std::string traceText(const Scenario &s, const Trace &t);

} // namespace attn
