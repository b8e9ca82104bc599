#pragma once
// Every number the app writes goes through these, so that one number reads
// the same in a map, a tooltip, a file and the command line. Text meant to
// be read back (files, the command line, a table cell being edited) has the
// ASCII '-'; text only for the eye (maps, tooltips, axes, labels) has the
// typographic minus U+2212, as wide as a digit. Never "-0".

#include <string>

namespace attn {

enum class Minus { Ascii, Typographic };

// "2.8284" with `decimals` decimals (0 to 12); "-0.0000" becomes "0.0000";
// from 1e9 on, "8.0000e+33"; "∞", "−∞" and "NaN" for what is not finite.
std::string formatFixed(double v, int decimals, Minus minus = Minus::Ascii);

// Four decimals: a result as a hand calculation writes it.
std::string fixed4(double v, Minus minus = Minus::Ascii);

// "0.1", "2.8284271247461903": the shortest text that reads back as the
// same double (what files and "exact value" show).
std::string shortest(double v, Minus minus = Minus::Ascii);

// "2", "0.5", "-1.25": up to four decimals, trailing zeros dropped; for the
// inputs of a hand calculation. An input below 5e-5 or from 1e9 on keeps four
// significant digits ("1e-06"), so a tiny τ or q never reads as 0.
std::string compact(double v, Minus minus = Minus::Ascii);

// The ASCII '-' of a number's text as U+2212.
std::string typographicMinus(std::string s);

} // namespace attn
