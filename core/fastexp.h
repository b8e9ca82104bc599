#pragma once
// fastExp: exp(x) in double precision, two at a time with SSE2, for the
// softmax (attention.cpp), which needs one exponential per weight and spends
// most of its time there: about 3 times as fast as Eigen's vectorised exp on
// the x86-64 baseline. tests/core/test_fastexp.cpp holds it to within 2 ulps
// of std::exp on a dense sweep of [-750, 710] and at the edges; the worst
// it finds is 1 ulp. Exactly 1 at 0, never above 1 below 0, subnormal below
// -708.4, exactly 0 below -745.14, +inf above 709.8, NaN for NaN. It assumes
// the default rounding (to nearest) and no -ffast-math.
//
// The method (Tang's table-driven exponential, as in glibc's and Arm's
// optimized-routines exp, here without FMA, which the x86-64 baseline lacks):
//
//   x = (k N + i) ln2 / N + r,   N = 16,  0 <= i < N,  |r| <= ln2 / (2N)
//   exp(x) = 2^k * 2^(i/N) * exp(r)
//
// - k N + i = round(x N / ln2), by the shift trick: adding 1.5 * 2^52 rounds
//   to an integer, which then sits in the low bits of the sum.
// - r = x - (k N + i) * L_hi - (k N + i) * L_lo, with L_hi + L_lo = ln2 / N
//   and L_hi of 36 significant bits: the product with an integer of up to 17
//   bits (|x| <= 708) is exact, and so is the subtraction (Sterbenz), so r
//   carries no error but that of the tiny L_lo term.
// - 2^(i/N) from a table: each entry is the double nearest 2^(i/N) and its
//   relative rounding error t_i (computed to 60 digits with Python's decimal),
//   so that the table adds no error of its own. 2^k goes into the exponent
//   bits by an integer add. Sixteen entries fit in two AVX-512 registers,
//   where one permute reads them for eight lanes (softmax_avx512.cpp): a
//   table of 128 took eight loads and as many shuffles, which cost more
//   than the two terms of the polynomial that the smaller table needs.
// - exp(r) - 1 by its Taylor polynomial of degree 7: |r| <= 0.0217, so the
//   first term left out, r^8 / 40320, is below 1.3e-18, 0.006 ulp.
// - exp(x) = s + s * (t_i + p(r)), s = 2^k 2^(i/N): one rounding in the final
//   add, the rest far below it: about 0.51 ulp from the true value, and
//   glibc's exp is within 0.52 ulp of it, so about 1 ulp from std::exp.
//
// Lanes with |x| > 708 (where 2^k would leave the normal range), infinities
// and NaN take std::exp (below -745.2 simply 0): rare in a softmax, which
// feeds x - max(x) <= 0 and mostly far closer to 0. A caller that knows its
// x are within 708 calls fastExpInRange, without that check.

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Each build of the softmax (softmax_block.h) has its own copy of these
// inline functions, in a namespace of its own: a wide build's copy must
// never stand in for the baseline's (the linker keeps one copy of an inline
// function that is not inlined everywhere).
#if !defined(ATTN_FASTEXP_BUILD)
#define ATTN_FASTEXP_BUILD baseline
#endif

namespace attn {

inline namespace ATTN_FASTEXP_BUILD {

namespace fastexp_detail {

inline constexpr int kTableBits = 4; // N = 2^4 = 16
inline constexpr double kInvLn2N = 0x1.71547652b82fep+4;  // N / ln2
inline constexpr double kShift = 0x1.8p52;                // 1.5 * 2^52
inline constexpr double kNegLn2HiN = -0x1.62e42fefa0000p-5; // -L_hi: 36 significant bits
inline constexpr double kNegLn2LoN = -0x1.cf79abc9e3b3ap-44;// -L_lo = -(ln2 / N - L_hi)
inline constexpr double kC2 = 1.0 / 2, kC3 = 1.0 / 6, kC4 = 1.0 / 24, kC5 = 1.0 / 120, kC6 = 1.0 / 720,
                        kC7 = 1.0 / 5040;
inline constexpr double kFastBound = 708.0;      // |x| up to this: the main path
inline constexpr double kUnderflow = -745.2;     // below: exp(x) < 2^-1075, rounds to 0
inline constexpr std::uint64_t kExponentMask = ~std::uint64_t(0) << 52; // k's bits of (kN + i) << 45

// {t_i, 2^(i/N)}: t_i = (2^(i/N) - T_i) / T_i with T_i the double nearest 2^(i/N).
alignas(16) inline constexpr double kTable[1 << kTableBits][2] = {
    {0x0.0p+0, 0x1.0000000000000p+0}, // 0
    {0x1.79aa65d837b6dp-54, 0x1.0b5586cf9890fp+0}, // 1
    {-0x1.01b15eaa59348p-55, 0x1.172b83c7d517bp+0}, // 2
    {0x1.68efde3a8a894p-54, 0x1.2387a6e756238p+0}, // 3
    {0x1.34d754db0abb6p-55, 0x1.306fe0a31b715p+0}, // 4
    {0x1.59f48a72a4c6dp-55, 0x1.3dea64c123422p+0}, // 5
    {0x1.690cebb7aafb0p-56, 0x1.4bfdad5362a27p+0}, // 6
    {0x1.063e1e21c5409p-54, 0x1.5ab07dd485429p+0}, // 7
    {-0x1.3b3efbf5e2228p-54, 0x1.6a09e667f3bcdp+0}, // 8
    {-0x1.b32dcb94da51dp-56, 0x1.7a11473eb0187p+0}, // 9
    {0x1.db72fc1f0eab4p-55, 0x1.8ace5422aa0dbp+0}, // 10
    {0x1.1affc2b91ce27p-56, 0x1.9c49182a3f090p+0}, // 11
    {0x1.c1a7792cb3387p-55, 0x1.ae89f995ad3adp+0}, // 12
    {0x1.36eae30af0cb3p-56, 0x1.c199bdd85529cp+0}, // 13
    {0x1.4a385a63d07a7p-56, 0x1.d5818dcfba487p+0}, // 14
    {-0x1.ff7128fd391f0p-55, 0x1.ea4afa2a490dap+0}, // 15
};

// Outside the main path: exactly what std::exp gives, and 0 far below.
inline double slowExp(double x)
{
    return x < kUnderflow ? 0.0 : std::exp(x);
}

} // namespace fastexp_detail

// For |x| <= kFastExpRange, fastExpInRange(x) is fastExp(x) without the
// check for the other lanes: for callers that know their range.
inline constexpr double kFastExpRange = fastexp_detail::kFastBound;

// exp(x) for one double with |x| <= kFastExpRange. The same operations as
// the SSE2 version, in the same order, so the two agree bit for bit.
inline double fastExpInRange(double x)
{
    using namespace fastexp_detail;
    double kd = x * kInvLn2N + kShift;
    std::uint64_t ki;
    std::memcpy(&ki, &kd, sizeof ki);
    kd -= kShift;
    const double r = x + kd * kNegLn2HiN + kd * kNegLn2LoN;
    const double *entry = kTable[ki & ((1u << kTableBits) - 1)];
    std::uint64_t sbits;
    std::memcpy(&sbits, &entry[1], sizeof sbits);
    sbits += (ki << (52 - kTableBits)) & kExponentMask;
    double scale;
    std::memcpy(&scale, &sbits, sizeof scale);
    const double r2 = r * r;
    const double tmp = entry[0] + r + r2 * (kC2 + r * kC3) + r2 * r2 * ((kC4 + r * kC5) + r2 * (kC6 + r * kC7));
    return scale + scale * tmp;
}

// exp(x) for any double.
inline double fastExp(double x)
{
    return std::abs(x) <= kFastExpRange ? fastExpInRange(x) : fastexp_detail::slowExp(x);
}

#if defined(__SSE2__)
// exp of both lanes of x, both within kFastExpRange.
inline __m128d fastExpInRange(__m128d x)
{
    using namespace fastexp_detail;
    const __m128d shift = _mm_set1_pd(kShift);
    __m128d kd = _mm_add_pd(_mm_mul_pd(x, _mm_set1_pd(kInvLn2N)), shift);
    const __m128i ki = _mm_castpd_si128(kd);
    kd = _mm_sub_pd(kd, shift);
    const __m128d r = _mm_add_pd(_mm_add_pd(x, _mm_mul_pd(kd, _mm_set1_pd(kNegLn2HiN))),
                                 _mm_mul_pd(kd, _mm_set1_pd(kNegLn2LoN)));

    // The table entries of both lanes: {t_0, T_0} and {t_1, T_1}.
    const int mask = (1 << kTableBits) - 1;
    const __m128d e0 = _mm_load_pd(kTable[_mm_cvtsi128_si32(ki) & mask]);
    const __m128d e1 = _mm_load_pd(kTable[_mm_cvtsi128_si32(_mm_unpackhi_epi64(ki, ki)) & mask]);
    const __m128d tail = _mm_unpacklo_pd(e0, e1);
    const __m128i k = _mm_and_si128(_mm_slli_epi64(ki, 52 - kTableBits),
                                    _mm_set1_epi64x(static_cast<long long>(kExponentMask)));
    const __m128d scale = _mm_castsi128_pd(_mm_add_epi64(_mm_castpd_si128(_mm_unpackhi_pd(e0, e1)), k));

    const __m128d r2 = _mm_mul_pd(r, r);
    const __m128d p23 = _mm_add_pd(_mm_set1_pd(kC2), _mm_mul_pd(r, _mm_set1_pd(kC3)));
    const __m128d p45 = _mm_add_pd(_mm_set1_pd(kC4), _mm_mul_pd(r, _mm_set1_pd(kC5)));
    const __m128d p67 = _mm_add_pd(_mm_set1_pd(kC6), _mm_mul_pd(r, _mm_set1_pd(kC7)));
    const __m128d tmp = _mm_add_pd(_mm_add_pd(_mm_add_pd(tail, r), _mm_mul_pd(r2, p23)),
                                   _mm_mul_pd(_mm_mul_pd(r2, r2), _mm_add_pd(p45, _mm_mul_pd(r2, p67))));
    return _mm_add_pd(scale, _mm_mul_pd(scale, tmp));
}

// exp of both lanes of x, any doubles.
inline __m128d fastExp(__m128d x)
{
    using namespace fastexp_detail;
    const __m128d y = fastExpInRange(x); // whatever it gives outside the range is replaced below
    // !(|x| <= range) is also true for NaN.
    const __m128d absX = _mm_andnot_pd(_mm_set1_pd(-0.0), x);
    if (_mm_movemask_pd(_mm_cmpnle_pd(absX, _mm_set1_pd(kFastExpRange))) == 0)
        return y;
    alignas(16) double xs[2], ys[2];
    _mm_store_pd(xs, x);
    _mm_store_pd(ys, y);
    for (int lane = 0; lane < 2; ++lane)
        if (!(std::abs(xs[lane]) <= kFastExpRange))
            ys[lane] = slowExp(xs[lane]);
    return _mm_load_pd(ys);
}
#endif

} // namespace ATTN_FASTEXP_BUILD

} // namespace attn
