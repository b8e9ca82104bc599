#pragma once
// Deterministic random numbers that are the same on every platform:
// std::normal_distribution is not specified bit-for-bit, so lessons and
// experiments that promise a seed draw their numbers here.

#include <cmath>
#include <cstdint>
#include <random>

namespace attn {

// SplitMix64's finaliser: a well-mixed 64-bit hash of x.
constexpr std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// Uniform in [0, 1) from the top 53 bits.
constexpr double unitFromBits(std::uint64_t bits)
{
    return double(bits >> 11) * 0x1.0p-53;
}

class Rng {
public:
    explicit Rng(std::uint64_t seed) : m_engine(seed) {}

    double uniform() { return unitFromBits(m_engine()); }

    // Standard normal by the Marsaglia polar method.
    double normal()
    {
        if (m_hasSpare) {
            m_hasSpare = false;
            return m_spare;
        }
        double u, v, s;
        do {
            u = 2.0 * uniform() - 1.0;
            v = 2.0 * uniform() - 1.0;
            s = u * u + v * v;
        } while (s >= 1.0 || s == 0.0);
        const double f = std::sqrt(-2.0 * std::log(s) / s);
        m_spare = v * f;
        m_hasSpare = true;
        return u * f;
    }

private:
    std::mt19937_64 m_engine; // its output sequence is fixed by the C++ standard
    double m_spare = 0.0;
    bool m_hasSpare = false;
};

} // namespace attn
