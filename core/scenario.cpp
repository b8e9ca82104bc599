#include "scenario.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>

namespace attn {

namespace {

template <typename E, std::size_t N>
using NameTable = std::array<std::pair<E, const char *>, N>;

constexpr NameTable<InputMode, 2> kModes{{{InputMode::Direct, "direct"}, {InputMode::Projected, "projected"}}};
constexpr NameTable<Similarity, 3> kSimilarities{{{Similarity::Dot, "dot"},
                                                  {Similarity::Cosine, "cosine"},
                                                  {Similarity::NegSqDistance, "neg_sq_distance"}}};
constexpr NameTable<Scale, 3> kScales{{{Scale::SqrtDk, "sqrt_dk"}, {Scale::None, "none"}, {Scale::Dk, "dk"}}};
constexpr NameTable<MaskStage, 2> kStages{
    {{MaskStage::BeforeSoftmax, "before_softmax"}, {MaskStage::AfterSoftmax, "after_softmax"}}};
constexpr NameTable<Encoding, 4> kEncodings{{{Encoding::None, "none"},
                                             {Encoding::Sinusoidal, "sinusoidal"},
                                             {Encoding::Learned, "learned"},
                                             {Encoding::Rope, "rope"}}};

constexpr NameTable<SoftmaxKind, 2> kSoftmaxes{{{SoftmaxKind::Standard, "standard"}, {SoftmaxKind::PlusOne, "plus_one"}}};

template <typename E, std::size_t N>
const char *nameOf(const NameTable<E, N> &table, E v)
{
    for (const auto &[value, name] : table)
        if (value == v)
            return name;
    return "?";
}

template <typename E, std::size_t N>
std::optional<E> valueOf(const NameTable<E, N> &table, const std::string &s)
{
    for (const auto &[value, name] : table)
        if (s == name)
            return value;
    return std::nullopt;
}

template <typename E, std::size_t N>
std::string namesOf(const NameTable<E, N> &table)
{
    std::string out;
    for (const auto &[value, name] : table) {
        if (!out.empty())
            out += ", ";
        out += name;
    }
    return out;
}

bool sameMatrix(const Matrix &a, const Matrix &b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && a == b;
}

bool sameOptional(const std::optional<Matrix> &a, const std::optional<Matrix> &b)
{
    return a.has_value() == b.has_value() && (!a || sameMatrix(*a, *b));
}

template <typename A>
bool sameArray(const A &a, const A &b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && (a == b).all();
}

std::vector<std::string> numbered(const char *prefix, int n)
{
    std::vector<std::string> out;
    out.reserve(std::size_t(n));
    for (int i = 1; i <= n; ++i)
        out.push_back(prefix + std::to_string(i));
    return out;
}

} // namespace

bool Mask::operator==(const Mask &o) const
{
    // Unpacked by name: a member added to Mask stops this compiling until it
    // is compared here too.
    const auto &[aCausal, aWindow, aDilation, aBlock, aGlobal, aPadding, aBlocked] = *this;
    const auto &[bCausal, bWindow, bDilation, bBlock, bGlobal, bPadding, bBlocked] = o;
    return aCausal == bCausal && aWindow == bWindow && aDilation == bDilation && aBlock == bBlock
        && aGlobal == bGlobal && sameArray(aPadding, bPadding) && sameArray(aBlocked, bBlocked);
}

bool SettingsPatch::empty() const
{
    return *this == SettingsPatch();
}

void SettingsPatch::applyTo(Settings &s) const
{
    s.similarity = similarity.value_or(s.similarity);
    s.scale = scale.value_or(s.scale);
    s.mask.causal = causal.value_or(s.mask.causal);
    s.maskStage = maskStage.value_or(s.maskStage);
    s.encoding = encoding.value_or(s.encoding);
}

bool Scenario::operator==(const Scenario &o) const
{
    return settingsOf(*this) == settingsOf(o) && title == o.title && description == o.description
        && tokens == o.tokens && sourceTokens == o.sourceTokens && mode == o.mode && sameMatrix(Q, o.Q)
        && sameMatrix(K, o.K) && sameMatrix(V, o.V) && sameMatrix(X, o.X) && sameOptional(source, o.source)
        && sameMatrix(Wq, o.Wq) && sameMatrix(Wk, o.Wk) && sameMatrix(Wv, o.Wv) && sameOptional(Wo, o.Wo)
        && heads == o.heads; // not `extra`: the unread keys of a file change nothing the lesson computes or shows
}

int queryCount(const Scenario &s)
{
    return int(s.mode == InputMode::Direct ? s.Q.rows() : s.X.rows());
}

int keyCount(const Scenario &s)
{
    if (s.mode == InputMode::Direct)
        return int(s.K.rows());
    return int(s.source ? s.source->rows() : s.X.rows());
}

int keyWidth(const Scenario &s)
{
    return int(s.mode == InputMode::Direct ? s.Q.cols() : s.Wq.cols());
}

int valueWidth(const Scenario &s)
{
    return int(s.mode == InputMode::Direct ? s.V.cols() : s.Wv.cols());
}

int modelWidth(const Scenario &s)
{
    return s.mode == InputMode::Direct ? 0 : int(s.X.cols());
}

int headDim(const Scenario &s)
{
    return s.heads > 0 ? keyWidth(s) / s.heads : 0;
}

int headValueDim(const Scenario &s)
{
    return s.heads > 0 ? valueWidth(s) / s.heads : 0;
}

std::vector<std::string> queryLabels(const Scenario &s)
{
    const int n = queryCount(s);
    if (int(s.tokens.size()) == n)
        return s.tokens;
    return numbered("q", n);
}

std::vector<std::string> keyLabels(const Scenario &s)
{
    const int n = keyCount(s);
    if (int(s.sourceTokens.size()) == n)
        return s.sourceTokens;
    const bool selfAttention = s.mode == InputMode::Projected ? !s.source.has_value() : true;
    if (selfAttention && int(s.tokens.size()) == n)
        return s.tokens;
    return numbered("k", n);
}

bool sparseOpen(const Mask &m, int i, int j)
{
    if (!m.sparse())
        return true;
    for (int g : m.global)
        if (g == i || g == j)
            return true;
    const long long d = std::llabs((long long)i - j), D = std::max(1, m.dilation);
    if (d % D != 0)
        return false;
    if (m.window > 0 && d >= (long long)m.window * D)
        return false;
    return m.block <= 0 || i / m.block == j / m.block;
}

SparsePreset sparsePresetOf(const Mask &m)
{
    const bool g = !m.global.empty(), w = m.window > 0, d = m.dilation > 1, b = m.block > 0;
    if (!w && !d && !b)
        return g ? SparsePreset::Custom : SparsePreset::Full;
    if (w && !d && !b)
        return !g ? SparsePreset::Window : m.global == std::vector<int>{0} ? SparsePreset::GlobalWindow : SparsePreset::Custom;
    if (w && m.dilation == 2 && !b && !g)
        return SparsePreset::Dilated;
    if (b && !w && !d && !g)
        return SparsePreset::Block;
    return SparsePreset::Custom;
}

Mask withSparsePreset(const Mask &m, SparsePreset p, int w)
{
    if (p == SparsePreset::Custom)
        return m;
    Mask out = m;
    out.window = p == SparsePreset::Window || p == SparsePreset::Dilated || p == SparsePreset::GlobalWindow ? w : 0;
    out.dilation = p == SparsePreset::Dilated ? 2 : 1;
    out.block = p == SparsePreset::Block ? w : 0;
    out.global = p == SparsePreset::GlobalWindow ? std::vector<int>{0} : std::vector<int>{};
    return out;
}

std::string sparseMaskText(const Mask &m)
{
    if (!m.sparse())
        return {};
    std::string out;
    auto add = [&out](const std::string &p) { out += (out.empty() ? "" : ", ") + p; };
    if (m.window > 0)
        add("sliding window W = " + std::to_string(m.window)
            + (m.dilation > 1 ? " (dilation " + std::to_string(m.dilation) + ")" : ""));
    else if (m.dilation > 1)
        add("strided, i - j a multiple of " + std::to_string(m.dilation));
    if (m.block > 0)
        add("blocks of " + std::to_string(m.block));
    if (!m.global.empty()) {
        std::string g = m.global.size() == 1 ? "global token " : "global tokens ";
        for (std::size_t k = 0; k < m.global.size(); ++k)
            g += (k ? ", " : "") + std::to_string(m.global[k] + 1);
        add(g);
    }
    return out;
}

BoolMatrix blockedMatrix(const Scenario &s)
{
    const Eigen::Index nq = queryCount(s), nk = keyCount(s);
    BoolMatrix b = BoolMatrix::Constant(nq, nk, false);
    if (s.mask.sparse())
        for (Eigen::Index i = 0; i < nq; ++i)
            for (Eigen::Index j = 0; j < nk; ++j)
                b(i, j) = !sparseOpen(s.mask, int(i), int(j));
    if (s.mask.causal)
        for (Eigen::Index i = 0; i < nq; ++i)
            for (Eigen::Index j = i + 1; j < nk; ++j)
                b(i, j) = true;
    if (s.mask.keyPadding.size() == nk)
        for (Eigen::Index j = 0; j < nk; ++j)
            if (s.mask.keyPadding(j))
                b.col(j).setConstant(true);
    if (s.mask.blocked.rows() == nq && s.mask.blocked.cols() == nk)
        b = b || s.mask.blocked;
    return b;
}

const char *toString(InputMode v) { return nameOf(kModes, v); }
const char *toString(Similarity v) { return nameOf(kSimilarities, v); }
const char *toString(Scale v) { return nameOf(kScales, v); }
const char *toString(MaskStage v) { return nameOf(kStages, v); }
const char *toString(Encoding v) { return nameOf(kEncodings, v); }
const char *toString(SoftmaxKind v) { return nameOf(kSoftmaxes, v); }

std::optional<InputMode> inputModeFromString(const std::string &s) { return valueOf(kModes, s); }
std::optional<Similarity> similarityFromString(const std::string &s) { return valueOf(kSimilarities, s); }
std::optional<Scale> scaleFromString(const std::string &s) { return valueOf(kScales, s); }
std::optional<MaskStage> maskStageFromString(const std::string &s) { return valueOf(kStages, s); }
std::optional<Encoding> encodingFromString(const std::string &s) { return valueOf(kEncodings, s); }
std::optional<SoftmaxKind> softmaxFromString(const std::string &s) { return valueOf(kSoftmaxes, s); }

std::string allNames(InputMode) { return namesOf(kModes); }
std::string allNames(Similarity) { return namesOf(kSimilarities); }
std::string allNames(Scale) { return namesOf(kScales); }
std::string allNames(MaskStage) { return namesOf(kStages); }
std::string allNames(Encoding) { return namesOf(kEncodings); }
std::string allNames(SoftmaxKind) { return namesOf(kSoftmaxes); }

} // namespace attn
