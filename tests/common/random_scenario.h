#pragma once
// Random valid scenarios for the property, reference and file tests. Each is
// a pure function of its seed (our own generator, not <random>'s
// distributions, which differ between standard libraries), so a failure
// message that names the seed names a scenario anyone can rebuild.

#include "scenario.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace attn::test {

class TestRng {
public:
    explicit TestRng(std::uint64_t seed) : m_state(seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL) {}

    std::uint64_t bits()
    {
        std::uint64_t x = (m_state += 0x9e3779b97f4a7c15ULL);
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
    }
    double uniform() { return double(bits() >> 11) * 0x1.0p-53; }                 // [0, 1)
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    int integer(int lo, int hi) { return lo + int(bits() % std::uint64_t(hi - lo + 1)); } // [lo, hi]
    bool chance(double p) { return uniform() < p; }
    template <typename T>
    const T &pick(const std::vector<T> &v) { return v[std::size_t(integer(0, int(v.size()) - 1))]; }

private:
    std::uint64_t m_state;
};

struct RandomOptions {
    bool projected = true;      // may pick projected mode (else always direct)
    bool crossAttention = true; // projected mode may have a source; direct mode may have n_q != n_k
    bool masks = true;          // causal, key padding, blocked entries
    bool encodings = true;      // else always none
    double magnitude = 1.0;     // entries uniform in [-magnitude, magnitude)
    bool labels = false;        // tokens, source tokens and a title, some of them Chinese
};

inline Matrix randomMatrix(TestRng &rng, int rows, int cols, double magnitude)
{
    Matrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            m(i, j) = rng.uniform(-magnitude, magnitude);
    return m;
}

inline std::vector<std::string> randomLabels(TestRng &rng, int n)
{
    static const std::vector<std::string> words{"我", "打", "你", "猫", "追", "老鼠", "注意力", "q",
                                                "[PAD]", "say \"hi\"", "back\\slash", "tab\there", "😀"};
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i)
        out.push_back(rng.pick(words));
    return out;
}

// n_q, n_k in 1..8, d_k and d_v in 1..6, 1..4 heads, temperature 0.05..10
// (log-uniform), every similarity, scale, stage and encoding.
inline Scenario randomScenario(std::uint64_t seed, const RandomOptions &o = {})
{
    TestRng rng(seed);
    Scenario s;
    s.heads = rng.integer(1, 4);
    s.encoding = o.encodings ? rng.pick(std::vector<Encoding>{Encoding::None, Encoding::Sinusoidal,
                                                              Encoding::Learned, Encoding::Rope})
                             : Encoding::None;
    int dk = rng.integer(1, 6);
    if (s.encoding == Encoding::Rope && dk % 2 != 0)
        ++dk;
    const int dv = rng.integer(1, 6);
    const int nq = rng.integer(1, 8);
    const bool cross = o.crossAttention && rng.chance(0.5);
    const int nk = cross ? rng.integer(1, 8) : nq;
    const double m = o.magnitude;

    if (o.projected && rng.chance(0.5)) {
        s.mode = InputMode::Projected;
        const int dModel = rng.integer(1, 6);
        s.X = randomMatrix(rng, nq, dModel, m);
        if (cross)
            s.source = randomMatrix(rng, nk, dModel, m);
        s.Wq = randomMatrix(rng, dModel, s.heads * dk, m);
        s.Wk = randomMatrix(rng, dModel, s.heads * dk, m);
        s.Wv = randomMatrix(rng, dModel, s.heads * dv, m);
        if (rng.chance(0.5))
            s.Wo = randomMatrix(rng, s.heads * dv, rng.integer(1, 5), m);
    } else {
        s.Q = randomMatrix(rng, nq, s.heads * dk, m);
        s.K = randomMatrix(rng, nk, s.heads * dk, m);
        s.V = randomMatrix(rng, nk, s.heads * dv, m);
    }

    s.similarity = rng.pick(std::vector<Similarity>{Similarity::Dot, Similarity::Cosine, Similarity::NegSqDistance});
    s.scale = rng.pick(std::vector<Scale>{Scale::SqrtDk, Scale::None, Scale::Dk});
    s.maskStage = rng.chance(0.5) ? MaskStage::BeforeSoftmax : MaskStage::AfterSoftmax;
    s.temperature = std::exp(rng.uniform(std::log(0.05), std::log(10.0)));
    s.seed = rng.bits() >> 11; // within the file's 0..2^53

    if (o.masks) {
        s.mask.causal = nq == nk && rng.chance(0.35);
        if (rng.chance(0.35)) {
            s.mask.keyPadding.resize(nk);
            for (int j = 0; j < nk; ++j)
                s.mask.keyPadding(j) = rng.chance(0.3);
        }
        if (rng.chance(0.35)) {
            s.mask.blocked.resize(nq, nk);
            for (int i = 0; i < nq; ++i)
                for (int j = 0; j < nk; ++j)
                    s.mask.blocked(i, j) = rng.chance(0.25);
        }
    }

    if (o.labels) {
        s.title = rng.chance(0.5) ? "随机场景 " + std::to_string(seed) : "random " + std::to_string(seed);
        if (rng.chance(0.5))
            s.description = "一行说明: \"quoted\" and more";
        if (rng.chance(0.7))
            s.tokens = randomLabels(rng, nq);
        if (rng.chance(0.5))
            s.sourceTokens = randomLabels(rng, nk);
    }
    return s;
}

} // namespace attn::test
