// The softmax passes' memory traffic alone, at n = 1024, h = 8: the same
// column-major loads and stores as core/softmax_passes.h's three passes
// in the derived forward (pass 1 writes the scores and x, pass 2 and pass 3
// read and rewrite the weights in place), with one multiply for all the
// arithmetic; beside it, the same work in blocks of R rows whose x and e
// stay in an L2-sized scratch, the final stages written with streaming
// stores (and with plain ones). How much of the forward's time the memory
// traffic could explain (docs/performance.md).
//
// Build and run (AVX-512):  gcc -O2 -march=native bench/skeleton_passes.c -o /tmp/skeleton && /tmp/skeleton 64
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N = 1024, H = 8 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const int R = argc > 1 ? atoi(argv[1]) : 64;
    if (R < 8 || R % 8 || N % R)
        return fprintf(stderr, "skeleton: R a multiple of 8 that divides %d\n", N), 2;
    double *S[H], *W[H];
    for (int h = 0; h < H; h++) {
        S[h] = aligned_alloc(64, (size_t)N * N * 8);
        W[h] = aligned_alloc(64, (size_t)N * N * 8);
        memset(S[h], 0, (size_t)N * N * 8);
        memset(W[h], 0, (size_t)N * N * 8);
    }
    double *scratch = aligned_alloc(64, (size_t)R * N * 8);
    memset(scratch, 0, (size_t)R * N * 8);
    const __m512d k = _mm512_set1_pd(1.0001);
    __m512d acc = _mm512_setzero_pd();
    for (int rep = 0; rep < 6; rep++) {
        double t = now();
        for (int h = 0; h < H; h++) {
            for (int j = 0; j < N; j++)
                for (int i = 0; i < N; i += 8) {
                    const __m512d v = _mm512_set1_pd(i + j);
                    _mm512_store_pd(S[h] + j * N + i, v);
                    _mm512_store_pd(W[h] + j * N + i, _mm512_mul_pd(v, k));
                }
            for (int pass = 0; pass < 2; pass++)
                for (int j = 0; j < N; j++)
                    for (int i = 0; i < N; i += 8) {
                        const __m512d v = _mm512_load_pd(W[h] + j * N + i);
                        acc = _mm512_add_pd(acc, v);
                        _mm512_store_pd(W[h] + j * N + i, _mm512_mul_pd(v, k));
                    }
        }
        const double whole = now() - t;
        double tiles[2];
        for (int streaming = 1; streaming >= 0; streaming--) {
            t = now();
            for (int h = 0; h < H; h++)
                for (int r0 = 0; r0 < N; r0 += R) {
                    for (int j = 0; j < N; j++)
                        for (int i = 0; i < R; i += 8) {
                            const __m512d v = _mm512_set1_pd(i + j);
                            if (streaming)
                                _mm512_stream_pd(S[h] + j * N + r0 + i, v);
                            else
                                _mm512_store_pd(S[h] + j * N + r0 + i, v);
                            _mm512_store_pd(scratch + j * R + i, _mm512_mul_pd(v, k));
                        }
                    for (int j = 0; j < N; j++)
                        for (int i = 0; i < R; i += 8) {
                            const __m512d v = _mm512_load_pd(scratch + j * R + i);
                            acc = _mm512_add_pd(acc, v);
                            _mm512_store_pd(scratch + j * R + i, _mm512_mul_pd(v, k));
                        }
                    for (int j = 0; j < N; j++)
                        for (int i = 0; i < R; i += 8) {
                            const __m512d v = _mm512_mul_pd(_mm512_load_pd(scratch + j * R + i), k);
                            acc = _mm512_add_pd(acc, v);
                            if (streaming)
                                _mm512_stream_pd(W[h] + j * N + r0 + i, v);
                            else
                                _mm512_store_pd(W[h] + j * N + r0 + i, v);
                        }
                }
            _mm_sfence();
            tiles[streaming] = now() - t;
        }
        double sink[8];
        _mm512_storeu_pd(sink, acc);
        printf("whole columns %.1f ms   blocks of %d rows, streaming stores %.1f ms, plain stores %.1f ms   (%g)\n",
               whole * 1e3, R, tiles[1] * 1e3, tiles[0] * 1e3, sink[0]);
    }
    return 0;
}
