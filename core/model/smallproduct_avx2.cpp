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

constexpr int kMaxRows = kSmallProductRows;

// y[i][j] for j in [n0, n1) += sum over l of x[i][l] * b[l][j], b row-major k by n.
void rowsTimesRows(int m, int k, int n, const float *x, int ldx, const float *b, float *y, int ldy, int n0, int n1)
{
    int l = 0;
    // Four rows of b at a time: each output loaded and stored once for four.
    for (; l + 4 <= k; l += 4) {
        const float *b0 = b + std::size_t(l) * std::size_t(n), *b1 = b0 + n, *b2 = b1 + n, *b3 = b2 + n;
        __m256 xs[kMaxRows][4];
        for (int i = 0; i < m; ++i)
            for (int t = 0; t < 4; ++t)
                xs[i][t] = _mm256_set1_ps(x[i * ldx + l + t]);
        int j = n0;
        for (; j + 8 <= n1; j += 8) {
            const __m256 w0 = _mm256_loadu_ps(b0 + j), w1 = _mm256_loadu_ps(b1 + j);
            const __m256 w2 = _mm256_loadu_ps(b2 + j), w3 = _mm256_loadu_ps(b3 + j);
            for (int i = 0; i < m; ++i) {
                float *out = y + i * ldy + j;
                __m256 acc = _mm256_loadu_ps(out);
                acc = _mm256_fmadd_ps(xs[i][0], w0, acc);
                acc = _mm256_fmadd_ps(xs[i][1], w1, acc);
                acc = _mm256_fmadd_ps(xs[i][2], w2, acc);
                acc = _mm256_fmadd_ps(xs[i][3], w3, acc);
                _mm256_storeu_ps(out, acc);
            }
        }
        for (; j < n1; ++j)
            for (int i = 0; i < m; ++i) {
                const float *xi = x + i * ldx + l;
                y[i * ldy + j] += xi[0] * b0[j] + xi[1] * b1[j] + xi[2] * b2[j] + xi[3] * b3[j];
            }
    }
    for (; l < k; ++l) {
        const float *bl = b + std::size_t(l) * std::size_t(n);
        for (int i = 0; i < m; ++i) {
            const float xv = x[i * ldx + l];
            for (int j = n0; j < n1; ++j)
                y[i * ldy + j] += xv * bl[j];
        }
    }
}

float sum8(__m256 v)
{
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

// y[i][j] for j in [n0, n1) = x[i] . b[j], b row-major n by k.
void rowsTimesColumns(int m, int k, const float *x, int ldx, const float *b, float *y, int ldy, int n0, int n1)
{
    for (int j = n0; j < n1; ++j) {
        const float *bj = b + std::size_t(j) * std::size_t(k);
        __m256 acc[kMaxRows][2];
        for (int i = 0; i < m; ++i)
            acc[i][0] = acc[i][1] = _mm256_setzero_ps();
        int l = 0;
        for (; l + 16 <= k; l += 16) {
            const __m256 w0 = _mm256_loadu_ps(bj + l), w1 = _mm256_loadu_ps(bj + l + 8);
            for (int i = 0; i < m; ++i) {
                acc[i][0] = _mm256_fmadd_ps(_mm256_loadu_ps(x + i * ldx + l), w0, acc[i][0]);
                acc[i][1] = _mm256_fmadd_ps(_mm256_loadu_ps(x + i * ldx + l + 8), w1, acc[i][1]);
            }
        }
        for (int i = 0; i < m; ++i) {
            float s = sum8(_mm256_add_ps(acc[i][0], acc[i][1]));
            for (int r = l; r < k; ++r)
                s += x[i * ldx + r] * bj[r];
            y[i * ldy + j] = s;
        }
    }
}

} // namespace

void smallProductAvx2(const SmallProduct &p, int n0, int n1)
{
    if (p.transposeB) {
        rowsTimesColumns(p.m, p.k, p.x, p.ldx, p.b, p.y, p.ldy, n0, n1);
        return;
    }
    for (int i = 0; i < p.m; ++i)
        for (int j = n0; j < n1; ++j)
            p.y[i * p.ldy + j] = 0.0f;
    rowsTimesRows(p.m, p.k, p.n, p.x, p.ldx, p.b, p.y, p.ldy, n0, n1);
}

} // namespace attn::blas::detail
