#include "pyrandom.h"

#include <cmath>
#include <numbers>

namespace attn {

namespace {
constexpr int M = 397;
constexpr std::uint32_t kMatrixA = 0x9908b0dfU;
constexpr std::uint32_t kUpperMask = 0x80000000U;
constexpr std::uint32_t kLowerMask = 0x7fffffffU;
} // namespace

void PyRandom::initGenrand(std::uint32_t s)
{
    m_state[0] = s;
    for (int i = 1; i < N; ++i)
        m_state[i] = 1812433253U * (m_state[i - 1] ^ (m_state[i - 1] >> 30)) + std::uint32_t(i);
    m_index = N;
}

void PyRandom::initByArray(const std::uint32_t *key, int keyLength)
{
    initGenrand(19650218U);
    int i = 1, j = 0;
    for (int k = (N > keyLength ? N : keyLength); k; --k) {
        m_state[i] = (m_state[i] ^ ((m_state[i - 1] ^ (m_state[i - 1] >> 30)) * 1664525U)) + key[j] + std::uint32_t(j);
        ++i;
        ++j;
        if (i >= N) {
            m_state[0] = m_state[N - 1];
            i = 1;
        }
        if (j >= keyLength)
            j = 0;
    }
    for (int k = N - 1; k; --k) {
        m_state[i] = (m_state[i] ^ ((m_state[i - 1] ^ (m_state[i - 1] >> 30)) * 1566083941U)) - std::uint32_t(i);
        ++i;
        if (i >= N) {
            m_state[0] = m_state[N - 1];
            i = 1;
        }
    }
    m_state[0] = 0x80000000U; // the most significant bit is 1: a non-zero initial state
}

void PyRandom::seed(std::uint64_t seed)
{
    // _randommodule.c random_seed: the absolute value's 32-bit words, least
    // significant first, without leading zero words (but at least one word).
    std::uint32_t key[2] = {std::uint32_t(seed), std::uint32_t(seed >> 32)};
    initByArray(key, key[1] != 0 ? 2 : 1);
    m_gaussNext.reset(); // random.py's seed() clears gauss_next
}

std::uint32_t PyRandom::nextUInt32()
{
    static constexpr std::uint32_t mag01[2] = {0U, kMatrixA};
    if (m_index >= N) {
        int kk = 0;
        for (; kk < N - M; ++kk) {
            const std::uint32_t y = (m_state[kk] & kUpperMask) | (m_state[kk + 1] & kLowerMask);
            m_state[kk] = m_state[kk + M] ^ (y >> 1) ^ mag01[y & 1U];
        }
        for (; kk < N - 1; ++kk) {
            const std::uint32_t y = (m_state[kk] & kUpperMask) | (m_state[kk + 1] & kLowerMask);
            m_state[kk] = m_state[kk + (M - N)] ^ (y >> 1) ^ mag01[y & 1U];
        }
        const std::uint32_t y = (m_state[N - 1] & kUpperMask) | (m_state[0] & kLowerMask);
        m_state[N - 1] = m_state[M - 1] ^ (y >> 1) ^ mag01[y & 1U];
        m_index = 0;
    }
    std::uint32_t y = m_state[m_index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

double PyRandom::random()
{
    const std::uint32_t a = nextUInt32() >> 5, b = nextUInt32() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

double PyRandom::gauss(double mu, double sigma)
{
    // Lib/random.py, Random.gauss (3.11), line for line.
    std::optional<double> z = m_gaussNext;
    m_gaussNext.reset();
    if (!z) {
        const double x2pi = random() * (2.0 * std::numbers::pi);
        const double g2rad = std::sqrt(-2.0 * std::log(1.0 - random()));
        z = std::cos(x2pi) * g2rad;
        m_gaussNext = std::sin(x2pi) * g2rad;
    }
    return mu + *z * sigma;
}

} // namespace attn
