// What one core of this machine does, to reason about the softmax passes'
// floor (docs/performance.md): the throughput of AVX-512 double multiplies,
// adds and divides (12 independent chains each), and pass 3 of
// core/softmax_passes.h written plainly with intrinsics (the weights times
// 1/z in place, their row sums, the output for d_v = 8; column-major n x n,
// h = 8 heads, one after the other), at n = 256 (in the cache) and 1024.
//
// Build and run (AVX-512):  gcc -O3 -march=native bench/kernel_floor.c -o /tmp/kernel_floor && /tmp/kernel_floor
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define R12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

static void arithmetic(void)
{
#define DECL(k) __m512d a##k = _mm512_set1_pd(1.0 + k * 1e-9);
    R12(DECL)
    const __m512d m = _mm512_set1_pd(0.9999999);
    const long n = 100000000;
    double t = now();
    for (long i = 0; i < n; i++) {
#define MUL(k) a##k = _mm512_mul_pd(a##k, m);
        R12(MUL)
    }
    printf("vmulpd zmm: %.2f a ns\n", 12.0 * n / (now() - t) / 1e9);
    t = now();
    for (long i = 0; i < n; i++) {
#define ADD(k) a##k = _mm512_add_pd(a##k, m);
        R12(ADD)
    }
    printf("vaddpd zmm: %.2f a ns\n", 12.0 * n / (now() - t) / 1e9);
    t = now();
    for (long i = 0; i < n / 8; i++) {
#define DIV(k) a##k = _mm512_div_pd(a##k, m);
        R12(DIV)
    }
    printf("vdivpd zmm: %.3f a ns\n", 12.0 * n / 8 / (now() - t) / 1e9);
    __m512d sum = _mm512_setzero_pd();
#define SUM(k) sum = _mm512_add_pd(sum, a##k);
    R12(SUM)
    double out[8];
    _mm512_storeu_pd(out, sum);
    printf("(%g)\n", out[0]);
}

__attribute__((noinline)) static void pass3(int n, double *restrict w, const double *restrict v,
                                            const double *restrict zInverse, double *restrict sums,
                                            double *restrict out)
{
    for (int j = 0; j < n; j += 4) {
        __m512d value[4][8];
        for (int k = 0; k < 4; k++)
            for (int c = 0; c < 8; c++)
                value[k][c] = _mm512_set1_pd(v[c * n + j + k]);
        for (int i = 0; i < n; i += 8) {
            const __m512d scale = _mm512_load_pd(zInverse + i);
            __m512d sum = _mm512_load_pd(sums + i), acc[8], x[4];
            for (int c = 0; c < 8; c++)
                acc[c] = _mm512_load_pd(out + c * n + i);
            for (int k = 0; k < 4; k++)
                x[k] = _mm512_mul_pd(_mm512_load_pd(w + (size_t)(j + k) * n + i), scale);
            for (int k = 0; k < 4; k++) {
                _mm512_store_pd(w + (size_t)(j + k) * n + i, x[k]);
                sum = _mm512_add_pd(sum, x[k]);
            }
            for (int k = 0; k < 4; k++)
                for (int c = 0; c < 8; c++)
                    acc[c] = _mm512_add_pd(acc[c], _mm512_mul_pd(x[k], value[k][c]));
            for (int c = 0; c < 8; c++)
                _mm512_store_pd(out + c * n + i, acc[c]);
            _mm512_store_pd(sums + i, sum);
        }
    }
}

static void passThree(int n)
{
    enum { H = 8 };
    double *w[H];
    double *v = aligned_alloc(64, (size_t)n * 64), *zInverse = aligned_alloc(64, (size_t)n * 8);
    double *sums = aligned_alloc(64, (size_t)n * 8), *out = aligned_alloc(64, (size_t)n * 64);
    for (int h = 0; h < H; h++) {
        w[h] = aligned_alloc(64, (size_t)n * n * 8);
        for (size_t q = 0; q < (size_t)n * n; q++)
            w[h][q] = 1.0 / (1 + q % 7);
    }
    for (int q = 0; q < n * 8; q++)
        v[q] = 0.01 * (q % 13);
    for (int q = 0; q < n; q++)
        zInverse[q] = 1.0;
    double best = 1e9;
    for (int rep = 0; rep < 30; rep++) {
        const double t = now();
        for (int h = 0; h < H; h++) {
            memset(sums, 0, (size_t)n * 8);
            memset(out, 0, (size_t)n * 64);
            pass3(n, w[h], v, zInverse, sums, out);
        }
        const double took = now() - t;
        best = took < best ? took : best;
    }
    printf("pass 3 alone, n = %d, h = %d: %.3f ms, %.2f ns an entry (best of 30)\n", n, H, best * 1e3,
           best * 1e9 / ((double)H * n * n));
    for (int h = 0; h < H; h++)
        free(w[h]);
    free(v), free(zInverse), free(sums), free(out);
}

// Pass 1 for d_k = 8: the scores (stored), scaled = scores / sqrt(8)
// (stored), each row's running maximum and the first column with it; two
// columns a visit, as core/softmax_passes.h.
__attribute__((noinline)) static void pass1(int n, const double *restrict q, const double *restrict k,
                                            double *restrict scores, double *restrict scaled,
                                            double *restrict rowMax, double *restrict argmax)
{
    const __m512d divisor = _mm512_set1_pd(2.8284271247461903);
    for (int j = 0; j < n; j += 2) {
        __m512d key[2][8];
        for (int c = 0; c < 2; c++)
            for (int d = 0; d < 8; d++)
                key[c][d] = _mm512_set1_pd(k[d * n + j + c]);
        for (int i = 0; i < n; i += 8) {
            __m512d query[8];
            for (int d = 0; d < 8; d++)
                query[d] = _mm512_load_pd(q + d * n + i);
            __m512d best = _mm512_load_pd(rowMax + i);
            for (int c = 0; c < 2; c++) {
                __m512d x = _mm512_mul_pd(query[0], key[c][0]);
                for (int d = 1; d < 8; d++)
                    x = _mm512_add_pd(x, _mm512_mul_pd(query[d], key[c][d]));
                _mm512_store_pd(scores + (size_t)(j + c) * n + i, x);
                x = _mm512_div_pd(x, divisor);
                _mm512_store_pd(scaled + (size_t)(j + c) * n + i, x);
                const __mmask8 better = _mm512_cmp_pd_mask(x, best, _CMP_GT_OS);
                if (better)
                    _mm512_store_pd(argmax + i, _mm512_mask_blend_pd(better, _mm512_load_pd(argmax + i),
                                                                     _mm512_set1_pd(j + c)));
                best = _mm512_max_pd(best, x);
            }
            _mm512_store_pd(rowMax + i, best);
        }
    }
}

static void passOne(int n)
{
    enum { H = 8 };
    double *scores[H], *scaled[H];
    double *q = aligned_alloc(64, (size_t)n * 64), *k = aligned_alloc(64, (size_t)n * 64);
    double *rowMax = aligned_alloc(64, (size_t)n * 8), *argmax = aligned_alloc(64, (size_t)n * 8);
    for (int h = 0; h < H; h++) {
        scores[h] = aligned_alloc(64, (size_t)n * n * 8);
        scaled[h] = aligned_alloc(64, (size_t)n * n * 8);
        memset(scores[h], 0, (size_t)n * n * 8);
        memset(scaled[h], 0, (size_t)n * n * 8);
    }
    srand(1);
    for (int i = 0; i < n * 8; i++) {
        q[i] = rand() / (double)RAND_MAX - 0.5;
        k[i] = rand() / (double)RAND_MAX - 0.5;
    }
    double best = 1e9;
    for (int rep = 0; rep < 30; rep++) {
        const double t = now();
        for (int h = 0; h < H; h++) {
            for (int i = 0; i < n; i++)
                rowMax[i] = -1e300, argmax[i] = 0;
            pass1(n, q, k, scores[h], scaled[h], rowMax, argmax);
        }
        const double took = now() - t;
        best = took < best ? took : best;
    }
    printf("pass 1 alone, n = %d, h = %d: %.3f ms, %.2f ns an entry (best of 30)\n", n, H, best * 1e3,
           best * 1e9 / ((double)H * n * n));
    for (int h = 0; h < H; h++)
        free(scores[h]), free(scaled[h]);
    free(q), free(k), free(rowMax), free(argmax);
}

int main(void)
{
    arithmetic();
    for (int n = 128; n <= 1024; n *= 2) {
        passOne(n);
        passThree(n);
    }
    return 0;
}
