// A few rows (a key's new positions) times a big float32 weight matrix, with
// AVX2 and FMA: blas.cpp's multiplyFloat for m <= 4 rows, on processors that
// have them. Such a product reads every weight once and does little with
// each, so its speed is the memory's: these loops stream the weights' rows
// in their order and keep the few outputs in the cache, where a BLAS's
// general kernel would copy (pack) each block of weights first. Compiled
// with -mavx2 -mfma; nothing here but intrinsics and plain loops, so that no
// shared (weak) function is compiled for AVX2 (tests/core/check_avx2_symbols.cmake).

#include "smallproduct.h"

#include <immintrin.h>

namespace attn::blas::detail {

namespace {

// a * b + c, rounded once.
inline float fma1(float a, float b, float c)
{
    return _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(a), _mm_set_ss(b), _mm_set_ss(c)));
}

// How far ahead rowsTimesRows asks for the weights (floats, about 32 KB):
// far enough for the memory to answer before they are needed. Without it
// the processor's own prefetcher kept two cores at about half the memory's speed.
constexpr int kPrefetchFloats = 8192;

// y[i][j] for j in [n0, n1) += sum over l of x[i][l] * b[l][j], b row-major k by n.
// Row by row: over whole rows (n0 = 0, n1 = n) the weights are one
// contiguous stream. Each y[i][j] takes its terms in the order of l, one
// fused multiply-add each.
template <int M>
void rowsTimesRows(int k, int n, const float *x, int ldx, const float *b, float *y, int ldy, int n0, int n1)
{
    const int width = n1 - n0;
    const int ahead = width >= kPrefetchFloats ? 1 : kPrefetchFloats / (width > 0 ? width : 1); // rows
    const int vectorEnd = n0 + (width / 8) * 8;
    for (int l = 0; l < k; ++l) {
        const float *bl = b + std::size_t(l) * std::size_t(n);
        const float *next = l + ahead < k ? bl + std::size_t(ahead) * std::size_t(n) : nullptr;
        __m256 xs[M];
        for (int i = 0; i < M; ++i)
            xs[i] = _mm256_set1_ps(x[i * ldx + l]);
        int j = n0;
        for (; j < vectorEnd; j += 8) {
            if (next && ((j - n0) & 15) == 0) // one request per 64 bytes
                _mm_prefetch(reinterpret_cast<const char *>(next + j), _MM_HINT_T0);
            const __m256 w = _mm256_loadu_ps(bl + j);
            for (int i = 0; i < M; ++i) {
                float *out = y + i * ldy + j;
                _mm256_storeu_ps(out, _mm256_fmadd_ps(xs[i], w, _mm256_loadu_ps(out)));
            }
        }
        for (; j < n1; ++j) // rounded as the vectors' lanes are: once
            for (int i = 0; i < M; ++i)
                y[i * ldy + j] = fma1(x[i * ldx + l], bl[j], y[i * ldy + j]);
    }
}

float sum8(__m256 v)
{
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

// y[i][j] for j in [n0, n1) = x[i] . b[j], b row-major n by k.
template <int M>
void rowsTimesColumns(int k, const float *x, int ldx, const float *b, float *y, int ldy, int n0, int n1)
{
    for (int j = n0; j < n1; ++j) {
        const float *bj = b + std::size_t(j) * std::size_t(k);
        __m256 acc[M][2];
        for (int i = 0; i < M; ++i)
            acc[i][0] = acc[i][1] = _mm256_setzero_ps();
        int l = 0;
        for (; l + 16 <= k; l += 16) {
            const __m256 w0 = _mm256_loadu_ps(bj + l), w1 = _mm256_loadu_ps(bj + l + 8);
            for (int i = 0; i < M; ++i) {
                acc[i][0] = _mm256_fmadd_ps(_mm256_loadu_ps(x + i * ldx + l), w0, acc[i][0]);
                acc[i][1] = _mm256_fmadd_ps(_mm256_loadu_ps(x + i * ldx + l + 8), w1, acc[i][1]);
            }
        }
        for (int i = 0; i < M; ++i) {
            float s = sum8(_mm256_add_ps(acc[i][0], acc[i][1]));
            for (int r = l; r < k; ++r)
                s += x[i * ldx + r] * bj[r];
            y[i * ldy + j] = s;
        }
    }
}

// The rows of x (M) are a template parameter, so that the accumulators and
// the broadcast x values stay in registers: with a run-time count the
// compiler kept them in arrays on the stack, and the loops ran at half the
// memory's speed.
template <int M>
void product(const SmallProduct &p, int n0, int n1)
{
    if (p.transposeB) {
        rowsTimesColumns<M>(p.k, p.x, p.ldx, p.b, p.y, p.ldy, n0, n1);
        return;
    }
    for (int i = 0; i < M; ++i)
        for (int j = n0; j < n1; ++j)
            p.y[i * p.ldy + j] = 0.0f;
    rowsTimesRows<M>(p.k, p.n, p.x, p.ldx, p.b, p.y, p.ldy, n0, n1);
}

} // namespace

void smallProductAvx2(const SmallProduct &p, int n0, int n1)
{
    static_assert(kSmallProductRows == 4);
    switch (p.m) {
    case 1: product<1>(p, n0, n1); break;
    case 2: product<2>(p, n0, n1); break;
    case 3: product<3>(p, n0, n1); break;
    case 4: product<4>(p, n0, n1); break;
    default: break; // multiplyFloat sends 1 to kSmallProductRows rows only
    }
}

} // namespace attn::blas::detail
