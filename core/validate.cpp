#include "validate.h"

#include "numbers.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace attn {

namespace {

std::string number(double v)
{
    return shortest(v); // read back by the user: the ASCII minus
}

// 20000000 as "20 000 000": a count the eye can read.
std::string grouped(double v)
{
    std::string digits = std::to_string((long long)v);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ' ';
        out += digits[i];
    }
    return out;
}

Problem problem(std::string place, std::string message)
{
    return Problem{std::move(place), std::move(message)};
}

std::optional<Problem> checkShape(const std::string &name, const Matrix &m)
{
    if (m.rows() < 1 || m.cols() < 1)
        return problem("inputs." + name, "must have at least one row and one column");
    if (m.rows() > kMaxTokens)
        return problem("inputs." + name, std::to_string(m.rows()) + " rows is more than the limit of "
                                             + std::to_string(kMaxTokens));
    if (m.cols() > kMaxWidth)
        return problem("inputs." + name, std::to_string(m.cols()) + " columns is more than the limit of "
                                             + std::to_string(kMaxWidth));
    return std::nullopt;
}

std::optional<Problem> checkEntries(const std::string &name, const Matrix &m)
{
    // Fast path: all good? (NaN fails the comparison and ±Inf exceeds the limit.)
    if ((m.array().abs() <= kMaxMagnitude).all())
        return std::nullopt;
    // Otherwise name the first bad entry, in reading order.
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            if (auto p = checkEntry(name, int(i), int(j), m(i, j)))
                return p;
    return std::nullopt;
}

std::optional<Problem> mustEqual(const std::string &place, Eigen::Index got, Eigen::Index want,
                                 const std::string &what)
{
    if (got == want)
        return std::nullopt;
    return problem(place, "has " + std::to_string(got) + " " + what);
}

// Each check returns early on the first problem, in reading order of a file.
std::optional<Problem> checkInputs(const Scenario &s)
{
    if (s.mode == InputMode::Direct) {
        for (auto [name, m] : {std::pair{"Q", &s.Q}, {"K", &s.K}, {"V", &s.V}})
            if (auto p = checkShape(name, *m))
                return p;
        if (auto p = mustEqual("inputs.K", s.K.cols(), s.Q.cols(),
                               "columns, but Q has " + std::to_string(s.Q.cols())
                                   + "; queries and keys must have the same width h*d_k"))
            return p;
        if (auto p = mustEqual("inputs.V", s.V.rows(), s.K.rows(),
                               "rows, but K has " + std::to_string(s.K.rows())
                                   + "; every key needs one value"))
            return p;
        for (auto [name, m] : {std::pair{"Q", &s.Q}, {"K", &s.K}, {"V", &s.V}})
            if (auto p = checkEntries(name, *m))
                return p;
        return std::nullopt;
    }

    if (auto p = checkShape("X", s.X))
        return p;
    const Eigen::Index d = s.X.cols();
    const std::string dm = "; X has d_model = " + std::to_string(d) + " columns";
    if (s.source) {
        if (auto p = checkShape("source", *s.source))
            return p;
        if (auto p = mustEqual("inputs.source", s.source->cols(), d, "columns" + dm))
            return p;
    }
    for (auto [name, m] : {std::pair{"Wq", &s.Wq}, {"Wk", &s.Wk}, {"Wv", &s.Wv}}) {
        if (auto p = checkShape(name, *m))
            return p;
        if (auto p = mustEqual(std::string("inputs.") + name, m->rows(), d, "rows" + dm))
            return p;
    }
    if (auto p = mustEqual("inputs.Wk", s.Wk.cols(), s.Wq.cols(),
                           "columns, but Wq has " + std::to_string(s.Wq.cols())
                               + "; queries and keys must have the same width h*d_k"))
        return p;
    if (s.Wo) {
        if (auto p = checkShape("Wo", *s.Wo))
            return p;
        if (auto p = mustEqual("inputs.Wo", s.Wo->rows(), s.Wv.cols(),
                               "rows, but Wv has " + std::to_string(s.Wv.cols())
                                   + " columns; Wo maps the concatenated heads (h*d_v)"))
            return p;
    }
    for (auto [name, m] : {std::pair{"X", &s.X}, {"Wq", &s.Wq}, {"Wk", &s.Wk}, {"Wv", &s.Wv}})
        if (auto p = checkEntries(name, *m))
            return p;
    if (s.source)
        if (auto p = checkEntries("source", *s.source))
            return p;
    if (s.Wo)
        if (auto p = checkEntries("Wo", *s.Wo))
            return p;
    return std::nullopt;
}

// A label longer than a word or a short phrase: its place, the limit and
// its own length, as a teacher says it ("a token name can have at most 64
// characters (this one has 93)").
std::optional<Problem> checkLength(const std::string &place, const std::string &text, int limit, const char *what)
{
    if (text.size() <= std::size_t(limit)) // fewer bytes than the limit: fewer characters too
        return std::nullopt;
    const std::size_t n = characterCount(text);
    if (n <= std::size_t(limit))
        return std::nullopt;
    return problem(place, std::string(what) + " can have at most " + std::to_string(limit) + " characters (this one has "
                              + std::to_string(n) + ")");
}

std::optional<Problem> checkLabels(const Scenario &s)
{
    if (auto p = checkLength("title", s.title, kMaxTitleCharacters, "a title"))
        return p;
    for (std::size_t i = 0; i < s.tokens.size(); ++i)
        if (auto p = checkLength("tokens[" + std::to_string(i) + "]", s.tokens[i], kMaxLabelCharacters, "a token name"))
            return p;
    for (std::size_t i = 0; i < s.sourceTokens.size(); ++i)
        if (auto p = checkLength("source_tokens[" + std::to_string(i) + "]", s.sourceTokens[i], kMaxLabelCharacters,
                                 "a token name"))
            return p;
    const auto nq = std::size_t(queryCount(s)), nk = std::size_t(keyCount(s));
    if (!s.tokens.empty() && s.tokens.size() != nq)
        return problem("tokens", std::to_string(s.tokens.size()) + " labels for " + std::to_string(nq)
                                     + " query rows");
    if (!s.sourceTokens.empty() && s.sourceTokens.size() != nk)
        return problem("source_tokens", std::to_string(s.sourceTokens.size()) + " labels for "
                                            + std::to_string(nk) + " key rows");
    return std::nullopt;
}

std::optional<Problem> checkHeads(const Scenario &s)
{
    if (s.heads < 1 || s.heads > kMaxHeads)
        return problem("heads", "must be between 1 and " + std::to_string(kMaxHeads) + " (got "
                                    + std::to_string(s.heads) + ")");
    const int wk = keyWidth(s), wv = valueWidth(s);
    const std::string h = std::to_string(s.heads);
    if (wk % s.heads != 0)
        return problem("heads", h + " heads do not divide the query/key width " + std::to_string(wk)
                                    + " (h*d_k)");
    if (wv % s.heads != 0)
        return problem("heads", h + " heads do not divide the value width " + std::to_string(wv)
                                    + " (h*d_v)");
    // What the trace costs, refused before anything is allocated.
    const double total = traceCells(s);
    if (total > kMaxTraceCells)
        return problem("inputs", "the trace would hold " + grouped(total) + " numbers (" + std::to_string(s.heads)
                                     + (s.heads == 1 ? " head" : " heads") + " of n_q = " + std::to_string(queryCount(s))
                                     + " by n_k = " + std::to_string(keyCount(s))
                                     + ", every stage), more than the limit of " + grouped(kMaxTraceCells)
                                     + "; use fewer tokens or heads");
    return std::nullopt;
}

std::optional<Problem> checkSparseMask(const Mask &m, int nq, int nk)
{
    const std::pair<const char *, int> widths[] = {{"mask.window", m.window}, {"mask.block", m.block}};
    for (const auto &[place, w] : widths)
        if (w < 0 || w > kMaxMaskWidth)
            return problem(place, "must be a whole number from 1 to " + std::to_string(kMaxMaskWidth) + " (got "
                                      + std::to_string(w) + ")");
    if (m.dilation < 1 || m.dilation > kMaxMaskWidth)
        return problem("mask.dilation", "must be a whole number from 1 to " + std::to_string(kMaxMaskWidth)
                                            + " (got " + std::to_string(m.dilation) + ")");
    if (!m.global.empty() && !m.sparse())
        return problem("mask.global", "global tokens stand out only from a window, a dilation or blocks; "
                                      "without one every pair is open already");
    for (std::size_t g = 0; g < m.global.size(); ++g) {
        const std::string place = "mask.global[" + std::to_string(g) + "]";
        if (m.global[g] < 0 || m.global[g] >= nq)
            return problem(place, "token " + std::to_string(m.global[g] + 1) + " is not one of the " + std::to_string(nq)
                                      + " tokens (they count from 1)");
        if (g > 0 && m.global[g] <= m.global[g - 1])
            return problem(place, "the global tokens go in ascending order, each once (token "
                                      + std::to_string(m.global[g] + 1) + " after " + std::to_string(m.global[g - 1] + 1) + ")");
    }
    if (m.sparse() && nq != nk)
        return problem(m.window > 0 ? "mask.window" : m.block > 0 ? "mask.block" : "mask.dilation",
                       "a sparse mask counts positions in one sequence and needs as many queries as keys (n_q = "
                           + std::to_string(nq) + ", n_k = " + std::to_string(nk) + ")");
    return std::nullopt;
}

std::optional<Problem> checkSettings(const Scenario &s)
{
    if (s.seed > kMaxSeed)
        return problem("seed", "must be between 0 and " + std::to_string(kMaxSeed) + " (got " + std::to_string(s.seed) + ")");
    if (!std::isfinite(s.temperature) || s.temperature <= 0)
        return problem("temperature", "must be greater than 0 (got " + number(s.temperature) + ")");
    if (s.temperature < kMinTemperature || s.temperature > kMaxTemperature)
        return problem("temperature", "must be between " + number(kMinTemperature) + " and "
                                          + number(kMaxTemperature) + " (got " + number(s.temperature) + ")");
    const int nq = queryCount(s), nk = keyCount(s);
    if (s.mask.keyPadding.size() != 0 && s.mask.keyPadding.size() != nk)
        return problem("mask.key_padding", std::to_string(s.mask.keyPadding.size()) + " entries for "
                                               + std::to_string(nk) + " keys");
    if (s.mask.blocked.size() != 0 && s.mask.blocked.rows() != nq)
        return problem("mask.blocked", std::to_string(s.mask.blocked.rows()) + " rows for "
                                           + std::to_string(nq) + " queries");
    if (s.mask.blocked.size() != 0 && s.mask.blocked.cols() != nk)
        return problem("mask.blocked", std::to_string(s.mask.blocked.cols()) + " columns for "
                                           + std::to_string(nk) + " keys");
    if (s.mask.causal && nq != nk)
        return problem("mask.causal", "a causal mask needs as many queries as keys (n_q = "
                                          + std::to_string(nq) + ", n_k = " + std::to_string(nk) + ")");
    if (auto p = checkSparseMask(s.mask, nq, nk))
        return p;
    if (s.encoding == Encoding::Rope && headDim(s) % 2 != 0)
        return problem("positional_encoding", "RoPE rotates pairs of dimensions and needs an even d_k (d_k = "
                                                  + std::to_string(headDim(s)) + ")");
    return std::nullopt;
}

} // namespace

double traceCells(const Scenario &s)
{
    const double nq = queryCount(s), nk = keyCount(s), h = s.heads;
    const double wk = keyWidth(s), wv = valueWidth(s), dm = modelWidth(s);
    const double out = s.mode == InputMode::Projected && s.Wo ? double(s.Wo->cols()) : wv;
    double cells = h * 3 * nq * nk;     // scores, scaled, weights per head
    cells += nq * nk;                    // the mask
    cells += (nq + nk) * wk + nk * wv;   // the heads' Q, K, V together
    cells += nq * wv;                    // the heads' outputs together
    cells += (nq + nk) * wk + nk * wv;   // the layer's Q, K, V
    cells += nq * wv + nq * out;         // concat, output
    if (s.mode == InputMode::Projected)
        cells += (nq + nk) * dm;         // encoded X and source
    if (s.encoding != Encoding::None)
        cells += (nq + nk) * std::max({wk, wv, dm}) + nk * wv; // positional tables, at most
    return cells;
}

std::size_t characterCount(const std::string &utf8)
{
    std::size_t n = 0;
    for (std::size_t i = 0; i < utf8.size(); ++i)
        n += (static_cast<unsigned char>(utf8[i]) & 0xC0) != 0x80; // count all but continuation bytes
    return n;
}

std::string entryPlace(const std::string &name, int row, int col)
{
    return "inputs." + name + "[" + std::to_string(row) + "][" + std::to_string(col) + "]";
}

std::optional<Problem> checkEntry(const std::string &name, int row, int col, double value)
{
    if (!std::isfinite(value))
        return problem(entryPlace(name, row, col), "must be a finite number (got " + number(value) + ")");
    if (std::abs(value) > kMaxMagnitude)
        return problem(entryPlace(name, row, col), "magnitude " + number(value) + " is more than the limit of "
                                                       + number(kMaxMagnitude));
    return std::nullopt;
}

std::optional<Problem> validate(const Scenario &s)
{
    if (auto p = checkInputs(s))
        return p;
    if (auto p = checkLabels(s))
        return p;
    if (auto p = checkHeads(s))
        return p;
    return checkSettings(s);
}

} // namespace attn
