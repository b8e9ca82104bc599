// The AVX2 build of the softmax's passes (softmax_block.h): four rows a
// lane. Compiled with -mavx2, no FMA and no contraction (CMakeLists.txt), so
// that every row goes through the same IEEE operations, in the same order,
// as in the baseline build: the two give the same bits
// (tests/core/test_softmax_builds.cpp).

#define ATTN_FASTEXP_BUILD avx2
#include "fastexp.h"
#include "softmax_block.h"

#include <cstdint>
#include <cstring>
#include <immintrin.h>

namespace attn::detail {

namespace {

// exp of the four lanes of x, all within kFastExpRange: fastexp.h's
// fastExpInRange(__m128d), operation for operation.
inline __m256d fastExpInRange4(__m256d x)
{
    using namespace fastexp_detail;
    const __m256d shift = _mm256_set1_pd(kShift);
    __m256d kd = _mm256_add_pd(_mm256_mul_pd(x, _mm256_set1_pd(kInvLn2N)), shift);
    const __m256i ki = _mm256_castpd_si256(kd);
    kd = _mm256_sub_pd(kd, shift);
    const __m256d r = _mm256_add_pd(_mm256_add_pd(x, _mm256_mul_pd(kd, _mm256_set1_pd(kNegLn2HiN))),
                                    _mm256_mul_pd(kd, _mm256_set1_pd(kNegLn2LoN)));

    // The table entries {t_i, T_i} of the four lanes, by four loads (a
    // gather is slower on processors with Intel's GDS mitigation).
    const __m256i index = _mm256_and_si256(ki, _mm256_set1_epi64x((1 << kTableBits) - 1));
    const __m128i index01 = _mm256_castsi256_si128(index), index23 = _mm256_extracti128_si256(index, 1);
    const __m128d e0 = _mm_load_pd(kTable[_mm_cvtsi128_si64(index01)]);
    const __m128d e1 = _mm_load_pd(kTable[_mm_extract_epi64(index01, 1)]);
    const __m128d e2 = _mm_load_pd(kTable[_mm_cvtsi128_si64(index23)]);
    const __m128d e3 = _mm_load_pd(kTable[_mm_extract_epi64(index23, 1)]);
    const __m256d e02 = _mm256_set_m128d(e2, e0), e13 = _mm256_set_m128d(e3, e1); // {t0 T0 t2 T2}, {t1 T1 t3 T3}
    const __m256d tail = _mm256_unpacklo_pd(e02, e13); // t0 t1 t2 t3
    const __m256d entry = _mm256_unpackhi_pd(e02, e13); // T0 T1 T2 T3
    const __m256i k = _mm256_and_si256(_mm256_slli_epi64(ki, 52 - kTableBits),
                                       _mm256_set1_epi64x(static_cast<long long>(kExponentMask)));
    const __m256d scale = _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(entry), k));

    const __m256d r2 = _mm256_mul_pd(r, r);
    const __m256d p23 = _mm256_add_pd(_mm256_set1_pd(kC2), _mm256_mul_pd(r, _mm256_set1_pd(kC3)));
    const __m256d p45 = _mm256_add_pd(_mm256_set1_pd(kC4), _mm256_mul_pd(r, _mm256_set1_pd(kC5)));
    const __m256d p67 = _mm256_add_pd(_mm256_set1_pd(kC6), _mm256_mul_pd(r, _mm256_set1_pd(kC7)));
    const __m256d tmp = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(tail, r), _mm256_mul_pd(r2, p23)),
                                      _mm256_mul_pd(_mm256_mul_pd(r2, r2), _mm256_add_pd(p45, _mm256_mul_pd(r2, p67))));
    return _mm256_add_pd(scale, _mm256_mul_pd(scale, tmp));
}

// exp of the four lanes of x, any doubles: lanes outside the main range (and
// NaN) as fastExp(double) takes them.
inline __m256d fastExp4(__m256d x)
{
    const __m256d y = fastExpInRange4(x);
    const __m256d absX = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
    if (_mm256_movemask_pd(_mm256_cmp_pd(absX, _mm256_set1_pd(kFastExpRange), _CMP_NLE_US)) == 0)
        return y;
    alignas(32) double xs[4], ys[4];
    _mm256_store_pd(xs, x);
    _mm256_store_pd(ys, y);
    for (int lane = 0; lane < 4; ++lane)
        if (!(xs[lane] <= kFastExpRange && xs[lane] >= -kFastExpRange))
            ys[lane] = fastExp(xs[lane]);
    return _mm256_load_pd(ys);
}

// Four rows in an AVX register: the operations of Lane2 (attention.cpp).
struct Lane4 {
    static constexpr int kSize = 4;
    using Mask = __m256d;
    __m256d v;

    static Lane4 load(const double *p) { return {_mm256_loadu_pd(p)}; }
    void store(double *p) const { _mm256_storeu_pd(p, v); }
    // Past the caches where p is aligned (a stage not read again soon).
    void stream(double *p) const
    {
        if ((reinterpret_cast<std::uintptr_t>(p) & 31) == 0)
            _mm256_stream_pd(p, v);
        else
            _mm256_storeu_pd(p, v);
    }
    static Lane4 all(double x) { return {_mm256_set1_pd(x)}; }
    static Mask blockedAt(const bool *b)
    {
        std::int32_t bytes;
        std::memcpy(&bytes, b, sizeof bytes);
        const __m256i flags = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(bytes));
        return _mm256_castsi256_pd(_mm256_cmpgt_epi64(flags, _mm256_setzero_si256()));
    }
    friend Lane4 operator+(Lane4 a, Lane4 b) { return {_mm256_add_pd(a.v, b.v)}; }
    friend Lane4 operator-(Lane4 a, Lane4 b) { return {_mm256_sub_pd(a.v, b.v)}; }
    friend Lane4 operator*(Lane4 a, Lane4 b) { return {_mm256_mul_pd(a.v, b.v)}; }
    friend Lane4 operator/(Lane4 a, Lane4 b) { return {_mm256_div_pd(a.v, b.v)}; }
    static Lane4 max(Lane4 a, Lane4 b) { return {_mm256_max_pd(a.v, b.v)}; }
    static Mask greater(Lane4 a, Lane4 b) { return _mm256_cmp_pd(a.v, b.v, _CMP_GT_OS); } // as SSE2's cmpgtpd
    static bool any(Mask m) { return _mm256_movemask_pd(m) != 0; }
    static Lane4 select(Mask m, Lane4 a, Lane4 b) { return {_mm256_blendv_pd(b.v, a.v, m)}; }
    static Lane4 min(Lane4 a, Lane4 b) { return {_mm256_min_pd(a.v, b.v)}; }
    static double lowest(Lane4 a)
    {
        alignas(32) double x[4];
        _mm256_store_pd(x, a.v);
        double low = x[0];
        for (int lane = 1; lane < 4; ++lane)
            low = x[lane] < low ? x[lane] : low;
        return low;
    }
    static Lane4 exp(Lane4 a) { return {fastExp4(a.v)}; }
    static Lane4 expInRange(Lane4 a) { return {fastExpInRange4(a.v)}; }
};

using WideLane = Lane4;

} // namespace

} // namespace attn::detail

#include "softmax_passes.h"

namespace attn::detail {

void runSoftmaxBlockAvx2(const SoftmaxBlock &b)
{
    runSoftmaxBlockWide(b);
}

void multiplyBlockAvx2(const ProductBlock &p)
{
    productBlock(p);
}

} // namespace attn::detail
