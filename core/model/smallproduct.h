#pragma once
// A few rows times a big float32 weight matrix (a key's one or two new
// positions through a layer, or into the logits): the products of the
// incremental forward. smallproduct_avx2.cpp has the loops, built for AVX2
// and FMA; blas.cpp's multiplyFloat calls them on processors that have both
// and shares them out over threads (b's rows in two halves, the columns in
// parts). Plain pointers: row-major arrays.

#include <cstddef>

namespace attn::blas::detail {

// The most rows of x.
constexpr int kSmallProductRows = 4;

// y (m by n, row-major, row stride ldy) = x (m by k, row-major, row stride
// ldx) times b, where b is row-major k by n, or with transposeB row-major
// n by k, used transposed (y[i][j] = x[i] . b[j]).
struct SmallProduct {
    int m = 0, k = 0, n = 0;
    const float *x = nullptr;
    int ldx = 0;
    const float *b = nullptr;
    bool transposeB = false;
    float *y = nullptr;
    int ldy = 0;
};

// Columns [n0, n1) of y; n0 a multiple of 8 for the fastest loads.
void smallProductAvx2(const SmallProduct &p, int n0, int n1);

} // namespace attn::blas::detail
