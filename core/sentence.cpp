#include "sentence.h"

#include "random.h"

#include <cmath>

namespace attn {

namespace {

std::uint64_t fnv1a(const std::string &text, std::uint64_t h = 0xcbf29ce484222325ULL)
{
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

double draw(std::uint64_t &state)
{
    state += 0x9e3779b97f4a7c15ULL;
    const double u = unitFromBits(splitmix64(state)); // [0, 1)
    return std::round((2.0 * u - 1.0) * 100.0) / 100.0;
}

bool isSpace(char32_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x3000 || c == 0xA0;
}

// UTF-8 code points with their byte ranges.
struct Piece {
    char32_t cp;
    std::size_t begin, length;
};

std::vector<Piece> codePoints(const std::string &s)
{
    std::vector<Piece> out;
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
        if (i + len > s.size())
            len = 1;
        char32_t cp = len == 1 ? c : c & (0xFF >> (len + 1));
        for (std::size_t k = 1; k < len; ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        out.push_back({cp, i, len});
        i += len;
    }
    return out;
}

} // namespace

std::vector<std::string> splitSentence(const std::string &utf8, SplitMode mode)
{
    const std::vector<Piece> cps = codePoints(utf8);
    if (mode == SplitMode::Auto) {
        bool inner = false, seen = false, gap = false;
        for (const Piece &p : cps) {
            if (isSpace(p.cp))
                gap = seen;
            else {
                inner = inner || gap;
                seen = true;
            }
        }
        mode = inner ? SplitMode::Words : SplitMode::Characters;
    }
    std::vector<std::string> out;
    std::string word;
    for (const Piece &p : cps) {
        if (isSpace(p.cp)) {
            if (!word.empty())
                out.push_back(word);
            word.clear();
            continue;
        }
        if (mode == SplitMode::Characters)
            out.push_back(utf8.substr(p.begin, p.length));
        else
            word += utf8.substr(p.begin, p.length);
    }
    if (!word.empty())
        out.push_back(word);
    return out;
}

Eigen::RowVectorXd wordVector(const std::string &word, std::uint64_t seed, int width, const std::string &salt)
{
    std::uint64_t state = fnv1a(word, fnv1a(salt + '\x1f', splitmix64(seed)));
    Eigen::RowVectorXd v(std::max(width, 0));
    for (int c = 0; c < width; ++c)
        v(c) = draw(state);
    return v;
}

Matrix randomMatrix(int rows, int cols, std::uint64_t seed, const std::string &salt)
{
    std::uint64_t state = fnv1a(salt, splitmix64(seed ^ 0x5bd1e995ULL));
    Matrix m(std::max(rows, 0), std::max(cols, 0));
    for (int i = 0; i < m.rows(); ++i)
        for (int j = 0; j < m.cols(); ++j)
            m(i, j) = draw(state);
    return m;
}

Scenario scenarioFromSentence(const Scenario &base, const std::vector<std::string> &words, std::uint64_t seed)
{
    if (words.empty())
        return base;
    Scenario s = base;
    const int n = int(words.size());
    s.tokens = words;
    s.sourceTokens.clear();
    s.mask.keyPadding.resize(0);
    s.mask.blocked.resize(0, 0);
    // The window and the blocks count positions and stay; a global token past the new end goes.
    std::erase_if(s.mask.global, [n](int g) { return g >= n; });
    auto rows = [&](int width, const std::string &salt) {
        Matrix m(n, std::max(width, 1));
        for (int i = 0; i < n; ++i)
            m.row(i) = wordVector(words[std::size_t(i)], seed, int(m.cols()), salt);
        return m;
    };
    if (s.mode == InputMode::Projected) {
        const int dModel = std::max(1, int(base.X.cols()));
        s.X = rows(dModel, "X");
        s.source.reset();
        s.Wq = randomMatrix(dModel, int(base.Wq.cols()), seed, "Wq");
        s.Wk = randomMatrix(dModel, int(base.Wk.cols()), seed, "Wk");
        s.Wv = randomMatrix(dModel, int(base.Wv.cols()), seed, "Wv");
        if (base.Wo)
            s.Wo = randomMatrix(int(base.Wo->rows()), int(base.Wo->cols()), seed, "Wo");
    } else {
        s.Q = rows(int(base.Q.cols()), "Q");
        s.K = rows(int(base.K.cols()), "K");
        s.V = rows(int(base.V.cols()), "V");
    }
    return s;
}

} // namespace attn
