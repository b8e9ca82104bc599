#pragma once
// The trace as a student writes it by hand: for each head and query row, the
// scores, the scaled scores, the mask, the exponentials and weights, and the
// output, to four decimals.

#include "attention.h"
#include "scenario.h"

#include <functional>
#include <string>

namespace attn {

// UTF-8 text, one line per step. The title and the labels come from the
// user's file: their control characters are written escaped (see below).
std::string traceText(const Scenario &s, const Trace &t);

// The same text handed to `sink` in pieces of about 1 MB (whole lines), so
// that a large trace is never held whole. Stops at the first piece `sink`
// refuses (returns false) and returns false then.
bool writeTraceText(const Scenario &s, const Trace &t, const std::function<bool(const std::string &)> &sink);

// Text safe for a terminal: every control character written as an escape,
// so that a label cannot move the cursor, clear the screen or break a line.
// Newline, tab and carriage return become \n, \t and \r; other C0 controls
// and DEL become \x1b and the like; C1 controls, the line and paragraph
// separators and the bidirectional overrides and isolates become \u009b and
// the like; bytes that are not UTF-8 become \xff and the like. Everything
// else, Chinese included, is unchanged.
std::string escapeControls(const std::string &utf8);

} // namespace attn
