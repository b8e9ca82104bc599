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
//   x = (k N + i) ln2 / N + r,   N = 128,  0 <= i < N,  |r| <= ln2 / (2N)
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
//   bits by an integer add.
// - exp(r) - 1 by its Taylor polynomial of degree 5: |r| <= 0.0028, so the
//   first term left out, r^6 / 720, is below 6e-19, 0.005 ulp.
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

inline constexpr int kTableBits = 7; // N = 2^7 = 128
inline constexpr double kInvLn2N = 0x1.71547652b82fep+7;  // N / ln2
inline constexpr double kShift = 0x1.8p52;                // 1.5 * 2^52
inline constexpr double kNegLn2HiN = -0x1.62e42fefa0000p-8; // -L_hi: 36 significant bits
inline constexpr double kNegLn2LoN = -0x1.cf79abc9e3b3ap-47;// -L_lo = -(ln2 / N - L_hi)
inline constexpr double kC2 = 1.0 / 2, kC3 = 1.0 / 6, kC4 = 1.0 / 24, kC5 = 1.0 / 120;
inline constexpr double kFastBound = 708.0;      // |x| up to this: the main path
inline constexpr double kUnderflow = -745.2;     // below: exp(x) < 2^-1075, rounds to 0
inline constexpr std::uint64_t kExponentMask = ~std::uint64_t(0) << 52; // k's bits of (kN + i) << 45

// {t_i, 2^(i/N)}: t_i = (2^(i/N) - T_i) / T_i with T_i the double nearest 2^(i/N).
alignas(16) inline constexpr double kTable[1 << kTableBits][2] = {
    {0x0.0p+0, 0x1.0000000000000p+0}, // 0
    {0x1.b3b4f1a88bf6ep-54, 0x1.0163da9fb3335p+0}, // 1
    {-0x1.160139cd8dc5dp-56, 0x1.02c9a3e778061p+0}, // 2
    {-0x1.05e7a108766d1p-54, 0x1.04315e86e7f85p+0}, // 3
    {0x1.cd2523567f613p-55, 0x1.059b0d3158574p+0}, // 4
    {-0x1.bce8023f98efap-55, 0x1.0706b29ddf6dep+0}, // 5
    {0x1.0f74e61e6c861p-57, 0x1.0874518759bc8p+0}, // 6
    {0x1.0a3e45b33d399p-54, 0x1.09e3ecac6f383p+0}, // 7
    {0x1.79aa65d837b6dp-54, 0x1.0b5586cf9890fp+0}, // 8
    {0x1.eb51a92fdeffcp-55, 0x1.0cc922b7247f7p+0}, // 9
    {0x1.ebe3d702f9cd1p-60, 0x1.0e3ec32d3d1a2p+0}, // 10
    {-0x1.a033489906e0bp-57, 0x1.0fb66affed31bp+0}, // 11
    {-0x1.556522a2fbd0ep-54, 0x1.11301d0125b51p+0}, // 12
    {-0x1.080ef8c4eea55p-58, 0x1.12abdc06c31ccp+0}, // 13
    {-0x1.1c923b9d5f416p-54, 0x1.1429aaea92de0p+0}, // 14
    {0x1.0d3e3e95c55afp-55, 0x1.15a98c8a58e51p+0}, // 15
    {-0x1.01b15eaa59348p-55, 0x1.172b83c7d517bp+0}, // 16
    {-0x1.f1ff055de323dp-55, 0x1.18af9388c8deap+0}, // 17
    {0x1.b898c3f1353bfp-55, 0x1.1a35beb6fcb75p+0}, // 18
    {-0x1.6d99c7611eb26p-54, 0x1.1bbe084045cd4p+0}, // 19
    {0x1.aecf73e3a2f60p-54, 0x1.1d4873168b9aap+0}, // 20
    {-0x1.fe782cb86389dp-55, 0x1.1ed5022fcd91dp+0}, // 21
    {0x1.a6f4144a6c38dp-55, 0x1.2063b88628cd6p+0}, // 22
    {0x1.07a05b0e4047dp-55, 0x1.21f49917ddc96p+0}, // 23
    {0x1.68efde3a8a894p-54, 0x1.2387a6e756238p+0}, // 24
    {0x1.75e18f274487dp-55, 0x1.251ce4fb2a63fp+0}, // 25
    {0x1.0472b981fe7f2p-55, 0x1.26b4565e27cddp+0}, // 26
    {-0x1.6b87b3f71085ep-54, 0x1.284dfe1f56381p+0}, // 27
    {0x1.2f7e16d09ab31p-55, 0x1.29e9df51fdee1p+0}, // 28
    {-0x1.d219b1a6fbffap-60, 0x1.2b87fd0dad990p+0}, // 29
    {0x1.b3782720c0ab4p-55, 0x1.2d285a6e4030bp+0}, // 30
    {0x1.e149289cecb8fp-57, 0x1.2ecafa93e2f56p+0}, // 31
    {0x1.34d754db0abb6p-55, 0x1.306fe0a31b715p+0}, // 32
    {0x1.64201e2ac744cp-55, 0x1.32170fc4cd831p+0}, // 33
    {0x1.fdd395dd3f84ap-55, 0x1.33c08b26416ffp+0}, // 34
    {-0x1.6a3803b8e5b04p-55, 0x1.356c55f929ff1p+0}, // 35
    {-0x1.24aedcc4b5068p-54, 0x1.371a7373aa9cbp+0}, // 36
    {-0x1.907f81b512d8ep-54, 0x1.38cae6d05d866p+0}, // 37
    {-0x1.1d1e83e9436d2p-56, 0x1.3a7db34e59ff7p+0}, // 38
    {-0x1.91919b3ce1b15p-54, 0x1.3c32dc313a8e5p+0}, // 39
    {0x1.59f48a72a4c6dp-55, 0x1.3dea64c123422p+0}, // 40
    {-0x1.312607a28698ap-54, 0x1.3fa4504ac801cp+0}, // 41
    {-0x1.8a78f4817895bp-58, 0x1.4160a21f72e2ap+0}, // 42
    {-0x1.c2c9b67499a1bp-56, 0x1.431f5d950a897p+0}, // 43
    {0x1.363ed60c2ac11p-59, 0x1.44e086061892dp+0}, // 44
    {0x1.666093b0664efp-54, 0x1.46a41ed1d0057p+0}, // 45
    {0x1.ecce1daa10379p-57, 0x1.486a2b5c13cd0p+0}, // 46
    {0x1.3ff8e3f0f1230p-54, 0x1.4a32af0d7d3dep+0}, // 47
    {0x1.690cebb7aafb0p-56, 0x1.4bfdad5362a27p+0}, // 48
    {0x1.31dbdeb54e077p-54, 0x1.4dcb299fddd0dp+0}, // 49
    {-0x1.f94340071a38ep-55, 0x1.4f9b2769d2ca7p+0}, // 50
    {-0x1.7deccdc93a349p-55, 0x1.516daa2cf6642p+0}, // 51
    {-0x1.8dec6bd0f385fp-56, 0x1.5342b569d4f82p+0}, // 52
    {-0x1.61246ec7b5cf6p-55, 0x1.551a4ca5d920fp+0}, // 53
    {0x1.3350518fdd78ep-54, 0x1.56f4736b527dap+0}, // 54
    {0x1.b98b72f8a9b05p-56, 0x1.58d12d497c7fdp+0}, // 55
    {0x1.063e1e21c5409p-54, 0x1.5ab07dd485429p+0}, // 56
    {0x1.4c7855019c6eap-60, 0x1.5c9268a5946b7p+0}, // 57
    {0x1.432e62b64c035p-54, 0x1.5e76f15ad2148p+0}, // 58
    {-0x1.ce44a6199769fp-55, 0x1.605e1b976dc09p+0}, // 59
    {-0x1.c33c53bef4da8p-55, 0x1.6247eb03a5585p+0}, // 60
    {-0x1.45378892be9aep-55, 0x1.6434634ccc320p+0}, // 61
    {-0x1.3cedd78565858p-54, 0x1.6623882552225p+0}, // 62
    {0x1.710aa807e1964p-58, 0x1.68155d44ca973p+0}, // 63
    {-0x1.3b3efbf5e2228p-54, 0x1.6a09e667f3bcdp+0}, // 64
    {-0x1.a12ad8734b982p-57, 0x1.6c012750bdabfp+0}, // 65
    {-0x1.367efb86da9eep-57, 0x1.6dfb23c651a2fp+0}, // 66
    {-0x1.0dc3d54e08851p-55, 0x1.6ff7df9519484p+0}, // 67
    {-0x1.81f647e5a3ecfp-56, 0x1.71f75e8ec5f74p+0}, // 68
    {-0x1.6ee4ac08b7db0p-55, 0x1.73f9a48a58174p+0}, // 69
    {-0x1.619321e55e68ap-55, 0x1.75feb564267c9p+0}, // 70
    {0x1.09ccb5e09d4d3p-54, 0x1.780694fde5d3fp+0}, // 71
    {-0x1.b32dcb94da51dp-56, 0x1.7a11473eb0187p+0}, // 72
    {0x1.4ecfd5467c06bp-54, 0x1.7c1ed0130c132p+0}, // 73
    {0x1.5ebe1abd66c55p-57, 0x1.7e2f336cf4e62p+0}, // 74
    {-0x1.8a1c52fb3cf42p-55, 0x1.80427543e1a12p+0}, // 75
    {-0x1.369b6f13b3734p-54, 0x1.82589994cce13p+0}, // 76
    {-0x1.05e843a19ff1ep-55, 0x1.8471a4623c7adp+0}, // 77
    {-0x1.4d450d872576ep-54, 0x1.868d99b4492edp+0}, // 78
    {0x1.0ad675b0e8a00p-54, 0x1.88ac7d98a6699p+0}, // 79
    {0x1.db72fc1f0eab4p-55, 0x1.8ace5422aa0dbp+0}, // 80
    {-0x1.5b6609cc5e7ffp-57, 0x1.8cf3216b5448cp+0}, // 81
    {0x1.bf68359f35f44p-56, 0x1.8f1ae99157736p+0}, // 82
    {-0x1.3091fa71e3d83p-54, 0x1.9145b0b91ffc6p+0}, // 83
    {-0x1.da9b88b6c1e29p-58, 0x1.93737b0cdc5e5p+0}, // 84
    {-0x1.c23f97c90b959p-57, 0x1.95a44cbc8520fp+0}, // 85
    {-0x1.2434322f4f9aap-54, 0x1.97d829fde4e50p+0}, // 86
    {-0x1.5ca6cd7668e4bp-55, 0x1.9a0f170ca07bap+0}, // 87
    {0x1.1affc2b91ce27p-56, 0x1.9c49182a3f090p+0}, // 88
    {0x1.dd235e10a73bbp-57, 0x1.9e86319e32323p+0}, // 89
    {-0x1.7c50422622263p-55, 0x1.a0c667b5de565p+0}, // 90
    {0x1.b1c86e3e231d5p-55, 0x1.a309bec4a2d33p+0}, // 91
    {-0x1.1bbd1d3bcbb15p-54, 0x1.a5503b23e255dp+0}, // 92
    {0x1.0cc319cee31d2p-54, 0x1.a799e1330b358p+0}, // 93
    {0x1.469846e735ab3p-55, 0x1.a9e6b5579fdbfp+0}, // 94
    {-0x1.2dfcd978e9db4p-55, 0x1.ac36bbfd3f37ap+0}, // 95
    {0x1.c1a7792cb3387p-55, 0x1.ae89f995ad3adp+0}, // 96
    {-0x1.07b8f4ad1d9fap-54, 0x1.b0e07298db666p+0}, // 97
    {-0x1.5c3d956dcaebap-58, 0x1.b33a2b84f15fbp+0}, // 98
    {-0x1.0a40e3da6f640p-54, 0x1.b59728de5593ap+0}, // 99
    {-0x1.8d6f438ad9334p-57, 0x1.b7f76f2fb5e47p+0}, // 100
    {-0x1.1eee26b588a35p-54, 0x1.ba5b030a1064ap+0}, // 101
    {0x1.4ffd70a5fddcdp-56, 0x1.bcc1e904bc1d2p+0}, // 102
    {-0x1.1bdfbfa9298acp-54, 0x1.bf2c25bd71e09p+0}, // 103
    {0x1.36eae30af0cb3p-56, 0x1.c199bdd85529cp+0}, // 104
    {0x1.ee3325c9ffd94p-55, 0x1.c40ab5fffd07ap+0}, // 105
    {0x1.4e08fd10959acp-55, 0x1.c67f12e57d14bp+0}, // 106
    {0x1.3cdaf384e1a67p-57, 0x1.c8f6d9406e7b5p+0}, // 107
    {0x1.76b2c6c921968p-57, 0x1.cb720dcef9069p+0}, // 108
    {-0x1.08a1883ccb5d2p-55, 0x1.cdf0b555dc3fap+0}, // 109
    {-0x1.fad5d3ffffa6fp-55, 0x1.d072d4a07897cp+0}, // 110
    {-0x1.00dae3875a949p-54, 0x1.d2f87080d89f2p+0}, // 111
    {0x1.4a385a63d07a7p-56, 0x1.d5818dcfba487p+0}, // 112
    {-0x1.2919e2040220fp-55, 0x1.d80e316c98398p+0}, // 113
    {0x1.e5a50d5c192acp-55, 0x1.da9e603db3285p+0}, // 114
    {0x1.43a59ac016b4bp-55, 0x1.dd321f301b460p+0}, // 115
    {-0x1.2d52107b43e1fp-55, 0x1.dfc97337b9b5fp+0}, // 116
    {-0x1.92ab93b470dc9p-55, 0x1.e264614f5a129p+0}, // 117
    {0x1.4b604603a88d3p-56, 0x1.e502ee78b3ff6p+0}, // 118
    {0x1.3c5ec519d7271p-55, 0x1.e7a51fbc74c83p+0}, // 119
    {-0x1.ff7128fd391f0p-55, 0x1.ea4afa2a490dap+0}, // 120
    {-0x1.dae98e223747dp-55, 0x1.ecf482d8e67f1p+0}, // 121
    {0x1.ec3bc41aa2008p-55, 0x1.efa1bee615a27p+0}, // 122
    {0x1.42b94c3a9eb32p-55, 0x1.f252b376bba97p+0}, // 123
    {0x1.a64a931d185eep-55, 0x1.f50765b6e4540p+0}, // 124
    {-0x1.e37bae43be3edp-55, 0x1.f7bfdad9cbe14p+0}, // 125
    {0x1.7893b4d91cd9dp-56, 0x1.fa7c1819e90d8p+0}, // 126
    {0x1.305c14160cc89p-58, 0x1.fd3c22b8f71f1p+0}, // 127
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
    const double tmp = entry[0] + r + r2 * (kC2 + r * kC3) + r2 * r2 * (kC4 + r * kC5);
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
    const __m128d tmp = _mm_add_pd(_mm_add_pd(_mm_add_pd(tail, r), _mm_mul_pd(r2, p23)),
                                   _mm_mul_pd(_mm_mul_pd(r2, r2), p45));
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
