// The AVX-512 build of the softmax's passes (softmax_block.h): eight rows a
// lane. Compiled with -mavx512f, no FMA and no contraction (CMakeLists.txt),
// so that every row goes through the same IEEE operations, in the same
// order, as in the baseline and AVX2 builds: all three give the same bits
// (tests/core/test_softmax_builds.cpp).

#define ATTN_FASTEXP_BUILD avx512
#include "fastexp.h"
#include "softmax_block.h"

#include <cstdint>
#include <cstring>
// GCC 12's AVX-512 intrinsics start their results from _mm512_undefined_*,
// which -Wmaybe-uninitialized takes for a read of an uninitialised value
// wherever they are inlined (GCC bug 105593, fixed in GCC 13): off for this
// file, whose every vector is set before it is read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace attn::detail {

namespace {

// fastexp.h's table as two arrays, of t_i and of T_i, for the permutes.
struct SplitTable {
    alignas(64) double tail[1 << fastexp_detail::kTableBits];
    alignas(64) double entry[1 << fastexp_detail::kTableBits];
};
constexpr SplitTable splitTable()
{
    SplitTable s{};
    for (int i = 0; i < (1 << fastexp_detail::kTableBits); ++i) {
        s.tail[i] = fastexp_detail::kTable[i][0];
        s.entry[i] = fastexp_detail::kTable[i][1];
    }
    return s;
}
constexpr SplitTable kSplitTable = splitTable();

// exp of the eight lanes of x, all within kFastExpRange: fastexp.h's
// fastExpInRange(__m128d), operation for operation.
inline __m512d fastExpInRange8(__m512d x)
{
    using namespace fastexp_detail;
    const __m512d shift = _mm512_set1_pd(kShift);
    __m512d kd = _mm512_add_pd(_mm512_mul_pd(x, _mm512_set1_pd(kInvLn2N)), shift);
    const __m512i ki = _mm512_castpd_si512(kd);
    kd = _mm512_sub_pd(kd, shift);
    const __m512d r = _mm512_add_pd(_mm512_add_pd(x, _mm512_mul_pd(kd, _mm512_set1_pd(kNegLn2HiN))),
                                    _mm512_mul_pd(kd, _mm512_set1_pd(kNegLn2LoN)));

    // The table's sixteen t_i and sixteen T_i, two registers each: one
    // permute reads eight lanes' entries (it takes the index from the low
    // four bits of each lane of ki, which are i).
    static_assert(kTableBits == 4);
    const __m512d tail = _mm512_permutex2var_pd(_mm512_load_pd(kSplitTable.tail), ki,
                                                _mm512_load_pd(kSplitTable.tail + 8));
    const __m512d entry = _mm512_permutex2var_pd(_mm512_load_pd(kSplitTable.entry), ki,
                                                 _mm512_load_pd(kSplitTable.entry + 8));
    const __m512i k = _mm512_and_si512(_mm512_slli_epi64(ki, 52 - kTableBits),
                                       _mm512_set1_epi64(static_cast<long long>(kExponentMask)));
    const __m512d scale = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(entry), k));

    const __m512d r2 = _mm512_mul_pd(r, r);
    const __m512d p23 = _mm512_add_pd(_mm512_set1_pd(kC2), _mm512_mul_pd(r, _mm512_set1_pd(kC3)));
    const __m512d p45 = _mm512_add_pd(_mm512_set1_pd(kC4), _mm512_mul_pd(r, _mm512_set1_pd(kC5)));
    const __m512d p67 = _mm512_add_pd(_mm512_set1_pd(kC6), _mm512_mul_pd(r, _mm512_set1_pd(kC7)));
    const __m512d tmp = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(tail, r), _mm512_mul_pd(r2, p23)),
                                      _mm512_mul_pd(_mm512_mul_pd(r2, r2), _mm512_add_pd(p45, _mm512_mul_pd(r2, p67))));
    return _mm512_add_pd(scale, _mm512_mul_pd(scale, tmp));
}

// exp of the eight lanes of x, any doubles: lanes outside the main range
// (and NaN) as fastExp(double) takes them.
inline __m512d fastExp8(__m512d x)
{
    const __m512d y = fastExpInRange8(x);
    const __m512d absX = _mm512_castsi512_pd(
        _mm512_andnot_si512(_mm512_castpd_si512(_mm512_set1_pd(-0.0)), _mm512_castpd_si512(x)));
    if (_mm512_cmp_pd_mask(absX, _mm512_set1_pd(kFastExpRange), _CMP_NLE_US) == 0)
        return y;
    alignas(64) double xs[8], ys[8];
    _mm512_store_pd(xs, x);
    _mm512_store_pd(ys, y);
    for (int lane = 0; lane < 8; ++lane)
        if (!(xs[lane] <= kFastExpRange && xs[lane] >= -kFastExpRange))
            ys[lane] = fastExp(xs[lane]);
    return _mm512_load_pd(ys);
}

// Eight rows in an AVX-512 register: the operations of Lane2 (attention.cpp).
struct Lane8 {
    static constexpr int kSize = 8;
    using Mask = __mmask8;
    __m512d v;

    static Lane8 load(const double *p) { return {_mm512_loadu_pd(p)}; }
    void store(double *p) const { _mm512_storeu_pd(p, v); }
    // Past the caches where p is aligned (a stage not read again soon).
    void stream(double *p) const
    {
        if ((reinterpret_cast<std::uintptr_t>(p) & 63) == 0)
            _mm512_stream_pd(p, v);
        else
            _mm512_storeu_pd(p, v);
    }
    static Lane8 all(double x) { return {_mm512_set1_pd(x)}; }
    static Mask blockedAt(const bool *b)
    {
        std::int64_t bytes;
        std::memcpy(&bytes, b, sizeof bytes);
        const __m512i flags = _mm512_cvtepu8_epi64(_mm_cvtsi64_si128(bytes));
        return _mm512_test_epi64_mask(flags, flags);
    }
    friend Lane8 operator+(Lane8 a, Lane8 b) { return {_mm512_add_pd(a.v, b.v)}; }
    friend Lane8 operator-(Lane8 a, Lane8 b) { return {_mm512_sub_pd(a.v, b.v)}; }
    friend Lane8 operator*(Lane8 a, Lane8 b) { return {_mm512_mul_pd(a.v, b.v)}; }
    friend Lane8 operator/(Lane8 a, Lane8 b) { return {_mm512_div_pd(a.v, b.v)}; }
    static Lane8 max(Lane8 a, Lane8 b) { return {_mm512_max_pd(a.v, b.v)}; } // as SSE2's maxpd
    static Mask greater(Lane8 a, Lane8 b) { return _mm512_cmp_pd_mask(a.v, b.v, _CMP_GT_OS); } // as cmpgtpd
    static bool any(Mask m) { return m != 0; }
    static Lane8 select(Mask m, Lane8 a, Lane8 b) { return {_mm512_mask_blend_pd(m, b.v, a.v)}; }
    static Lane8 min(Lane8 a, Lane8 b) { return {_mm512_min_pd(a.v, b.v)}; }
    static double lowest(Lane8 a)
    {
        alignas(64) double x[8];
        _mm512_store_pd(x, a.v);
        double low = x[0];
        for (int lane = 1; lane < 8; ++lane)
            low = x[lane] < low ? x[lane] : low;
        return low;
    }
    static Lane8 exp(Lane8 a) { return {fastExp8(a.v)}; }
    static Lane8 expInRange(Lane8 a) { return {fastExpInRange8(a.v)}; }
};

using WideLane = Lane8;

} // namespace

} // namespace attn::detail

#include "softmax_passes.h"

namespace attn::detail {

void runSoftmaxBlockAvx512(const SoftmaxBlock &b)
{
    runSoftmaxBlockWide(b);
}

void multiplyBlockAvx512(const ProductBlock &p)
{
    productBlock(p);
}

} // namespace attn::detail
