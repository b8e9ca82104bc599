#pragma once
// The masked softmax's kernel, as plain data: a block of rows (pointers and
// leading dimensions) and the passes that turn it into weights, row
// statistics and outputs (softmax_passes.h). The passes are built three
// times, for the x86-64 baseline (SSE2: two doubles an instruction,
// attention.cpp), for AVX2 (four, softmax_avx2.cpp) and for AVX-512 (eight,
// softmax_avx512.cpp), and runSoftmaxBlock() picks one when the program
// starts. All do the same IEEE operations on every row in the same order (no
// FMA), so they give the same bits: only the speed differs.

#include "attention.h"

namespace attn::detail {

// The most rows in one block: a bound on the running values' memory for
// maskedSoftmax of a very tall matrix (the experiment's). compute() has
// at most kMaxTokens rows, and cuts them only to make tasks for threads.
constexpr Eigen::Index kMaxBlockRows = 4096;

// A block of more entries than this (the derived forward: scaled not kept,
// the output fused) is worked through in bands of rows whose x and e fit in
// a scratch of this many doubles, 512 KB, half of this VM's 1 MB L2 (Zen 5):
// no n x n stage is then read back from memory, and the weights are written
// to it once, past the caches. (Bands of 32K to 128K doubles measured alike
// here; 16K lost a fifth.)
constexpr Eigen::Index kBandDoubles = 64 * 1024;

// How pass 1 turns scores into scaled (see SoftmaxBlock::scaled).
enum class Scaling {
    None,     // the input is scaled already: nothing is written
    Copy,     // scaled = scores (c * tau = 1)
    Divide,   // scaled = scores / (c * tau)
    Multiply, // scaled = scores * (1 / (c * tau)), c * tau a power of two: the same bits as dividing
};

// A block of m rows by n_k columns. Column j of a matrix starts at p + j * ld
// (p pointing at the block's first row).
struct SoftmaxBlock {
    Eigen::Index m = 0, cols = 0;
    const double *in = nullptr;   // scores, or scaled with Scaling::None
    Eigen::Index ldIn = 0;
    double *scaled = nullptr;     // where scaled goes (null: not kept); unused with Scaling::None
    Eigen::Index ldScaled = 0;
    Scaling scaling = Scaling::None;
    double divisor = 1, inverse = 1;
    const bool *blocked = nullptr; // null when nothing is blocked anywhere
    Eigen::Index ldBlocked = 0;
    MaskStage stage = MaskStage::BeforeSoftmax;
    bool plusOne = false;          // softmax_1: the sink's e^(0 - max) joins each row's sum
    double *weights = nullptr;
    Eigen::Index ldWeights = 0;
    // Where pass 3 writes the final weights; null: over `weights` in place.
    // (A block worked through a scratch in the cache reads its e there.)
    double *weightsOut = nullptr;
    Eigen::Index ldWeightsOut = 0;
    // The scores and the final weights are written past the caches (where
    // aligned): a band's, which nothing reads again in the forward.
    bool stream = false;
    RowStats *rows = nullptr;      // the block's first row; null: no statistics
    // With a value matrix (n_k by d_v, column-major, d_v <= kFusedValueWidth)
    // pass 3 also forms output = weights * V into `output` (the block's first
    // row, column c at output + c * ldOutput): the weights are then in
    // registers, so the product costs no pass over them of its own.
    const double *values = nullptr;
    Eigen::Index ldValues = 0, valueWidth = 0;
    double *output = nullptr;
    Eigen::Index ldOutput = 0;
    // With queries and keys (dot similarity, d_k in kFusedKeyWidths) pass 1
    // also forms the scores, s(i, j) = sum over c, in order, of Q(i, c)
    // K(j, c), and writes them where `in` points (`scoresOut`): no product
    // of Eigen's, which clears its n_q by n_k destination before it adds to
    // it, and no pass of its own to read them back.
    const double *queries = nullptr; // the block's first row; column c at queries + c * ldQueries
    Eigen::Index ldQueries = 0;
    const double *keys = nullptr;    // n_k by d_k, column-major
    Eigen::Index ldKeys = 0, keyWidth = 0;
    double *scoresOut = nullptr;
};

// The widest d_v whose product with the weights pass 3 forms itself; wider
// ones are left to Eigen, whose kernel is as fast once d_v fills its panels.
constexpr Eigen::Index kFusedValueWidth = 16;

// The passes on `b`: with the widest build the processor has (AVX-512, then
// AVX2; ATTN_NO_AVX512=1 stops at AVX2, ATTN_NO_AVX2=1 at the baseline).
void runSoftmaxBlock(const SoftmaxBlock &b);
// Each build on its own, for the test that they agree bit for bit.
void runSoftmaxBlockBaseline(const SoftmaxBlock &b);
void runSoftmaxBlockAvx2(const SoftmaxBlock &b);   // only where hasAvx2Build()
void runSoftmaxBlockAvx512(const SoftmaxBlock &b); // only where hasAvx512Build()
// The AVX2 (AVX-512) build is in this program and this processor can run it.
bool hasAvx2Build();
bool hasAvx512Build();
// Which build runSoftmaxBlock uses: "AVX-512", "AVX2" or "SSE2" (or "scalar").
const char *softmaxBuild();

// A product out = A B of column-major matrices: A m by inner, B inner by
// cols, out m by cols (column j of each at p + j * ld). For the lab's
// projections and Wo, whose kernel is built three times like the passes.
struct ProductBlock {
    const double *a = nullptr;
    Eigen::Index ldA = 0;
    const double *b = nullptr;
    Eigen::Index ldB = 0;
    double *out = nullptr;
    Eigen::Index ldOut = 0;
    Eigen::Index m = 0, inner = 0, cols = 0;
};

// out(i, j) = 0 + A(i, 0) B(0, j) + A(i, 1) B(1, j) + ..., in that order:
// the same bits in every build, and for a row alone as inside the whole
// product. (Eigen's SSE2 kernel sums in this order too for the lab's
// n = 1024, d_model 64; not for row counts of 4k + 2 or 4k + 3, whose last
// rows it sums in two halves.) With the widest build, as runSoftmaxBlock.
void multiplyBlock(const ProductBlock &p);
void multiplyBlockBaseline(const ProductBlock &p);
void multiplyBlockAvx2(const ProductBlock &p);   // only where hasAvx2Build()
void multiplyBlockAvx512(const ProductBlock &p); // only where hasAvx512Build()

// output = weights * V for a d_v wider than kFusedValueWidth, by Eigen's
// product (attention.cpp): one copy of Eigen's kernels in the program,
// built for the baseline.
void multiplyWeightsValues(const SoftmaxBlock &b);

} // namespace attn::detail
