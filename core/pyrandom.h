#pragma once
// CPython's `random` module, bit for bit, for what seed 000's code uses:
// random.seed(n) with an integer n, random.random() and random.gauss().
// The handout's experiment (random.seed(7); gauss(0, 1) 64 times for q, then
// 64 times for k) is reproduced with it, so the window can show the score
// that code really prints (experiment.h, handoutDraw).
//
//   MT19937 as in CPython's Modules/_randommodule.c: random.seed(n) calls
//   init_by_array with the 32-bit chunks of |n|, least significant first
//   (n = 0 gives the one-word key {0}).
//   random() = (a * 2^26 + b) / 2^53 with a = next() >> 5, b = next() >> 6.
//   gauss(mu, sigma) as in Lib/random.py (3.11): Box-Muller with the second
//   value kept in gauss_next for the next call (not normalvariate).
//
// The same integer operations everywhere; gauss() uses std::log, cos, sin
// and sqrt, as CPython uses the C library's, so it agrees with CPython on the
// same C library to the last bit and elsewhere to within an ulp or so.

#include <array>
#include <cstdint>
#include <optional>

namespace attn {

class PyRandom {
public:
    // random.seed(seed). A negative Python seed -n seeds exactly as n does.
    explicit PyRandom(std::uint64_t seed = 0) { this->seed(seed); }

    void seed(std::uint64_t seed);

    std::uint32_t nextUInt32();                   // genrand_uint32()
    double random();                              // random.random(), in [0, 1)
    double gauss(double mu = 0.0, double sigma = 1.0); // random.gauss(mu, sigma)

private:
    void initGenrand(std::uint32_t s);
    void initByArray(const std::uint32_t *key, int keyLength);

    static constexpr int N = 624;
    std::array<std::uint32_t, N> m_state{};
    int m_index = N + 1;
    std::optional<double> m_gaussNext;
};

} // namespace attn
