#include "numbers.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace attn {

namespace {

std::string withMinus(std::string s, Minus minus)
{
    return minus == Minus::Typographic ? typographicMinus(std::move(s)) : s;
}

// "-0.000", "-0", "-0e+00": a negative sign on nothing but zeros.
bool negativeZero(const std::string &s)
{
    if (s.empty() || s[0] != '-')
        return false;
    for (std::size_t i = 1; i < s.size() && s[i] != 'e'; ++i)
        if (s[i] != '0' && s[i] != '.')
            return false;
    return true;
}

} // namespace

std::string typographicMinus(std::string s)
{
    std::string out;
    out.reserve(s.size() + 4);
    for (char c : s) {
        if (c == '-')
            out += "\u2212";
        else
            out += c;
    }
    return out;
}

std::string formatFixed(double v, int decimals, Minus minus)
{
    if (!std::isfinite(v))
        return v > 0 ? "∞" : v < 0 ? "\u2212∞" : "NaN";
    decimals = std::clamp(decimals, 0, 12);
    char buf[64];
    // Past a billion, fixed point would print dozens of digits.
    std::snprintf(buf, sizeof buf, std::abs(v) >= 1e9 ? "%.*e" : "%.*f", decimals, v);
    std::string s = buf;
    if (negativeZero(s))
        s.erase(0, 1);
    return withMinus(std::move(s), minus);
}

std::string fixed4(double v, Minus minus)
{
    return formatFixed(v, 4, minus);
}

std::string shortest(double v, Minus minus)
{
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v == 0 ? 0.0 : v);
    return ec == std::errc() ? withMinus(std::string(buf, end), minus) : fixed4(v, minus);
}

std::string compact(double v, Minus minus)
{
    if (v != 0 && std::isfinite(v) && (std::abs(v) < 5e-5 || std::abs(v) >= 1e9)) {
        // An input this small or large is not 0 and not a wall of digits.
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.4g", v);
        return withMinus(buf, minus);
    }
    std::string s = fixed4(v);
    if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
    }
    if (s == "-0")
        s = "0";
    return withMinus(std::move(s), minus);
}

} // namespace attn
