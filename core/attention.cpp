#include "attention.h"

#include "fastexp.h"
#include "positional.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace attn {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------
// The masked softmax.
//
// The n_q by n_k matrices are column-major, so the passes walk them column by
// column: each step reads a contiguous run of a column (a block of rows) and
// updates one running value per row (its maximum, its sum, ...), kept in
// small arrays (8 KB each for 1024 rows) that stay in the cache. (Walking a row instead
// would stride through memory n_q doubles at a time, which at n_q = 1024 is
// 8 KB: every access a new cache line, all competing for the same few cache
// sets.) Blocks of rows are independent: compute() spreads them, and the
// heads, over threads.
//
// Three passes, the fewest the softmax allows (the shift needs the row's
// maximum before the first exponential, and the division needs the sum of
// every exponential):
//   1. (for dot similarity and a small d_k, the scores themselves, written;)
//      scaled = scores / (c tau), written if kept; each row's maximum over
//      the entries that take part, and the first column that has it.
//   2. e = exp(x - max), written into the weights; the row sums z, and the
//      sums of e (x - max) for the entropy.
//   3. w = e / z (as e * (1 / z)), and the row sums of w; for a small d_v
//      also the output, w V, while w is in registers.
// So each n_q by n_k matrix is written once and read back at most twice.
// The largest weight needs no search: it is where x is largest, where
// x - max = 0 and e = exp(0) = 1 exactly, while every other e = fastExp(x -
// max) <= 1, so the largest weight is 1 / z, at the first column of the
// largest x. (In after_softmax with a blocked entry the largest x may be a
// blocked one; those rows' largest weight is searched in pass 3.)
//
// A row's arithmetic is the same sequence of IEEE operations whether it is
// done two rows at a time (SSE2) or alone, and whichever block holds it.

// The most rows in one block: a bound on the running values' memory for
// maskedSoftmax of a very tall matrix (the experiment's). compute() has
// at most kMaxTokens rows, and cuts them only to make tasks for threads.
constexpr Eigen::Index kMaxBlockRows = 4096;

// One row (a plain double) or two (an SSE2 register), with the operations
// the passes need; `Mask` says in which lanes a condition holds.
struct Lane1 {
    static constexpr int kSize = 1;
    using Mask = bool;
    double v;

    static Lane1 load(const double *p) { return {*p}; }
    void store(double *p) const { *p = v; }
    static Lane1 all(double x) { return {x}; }
    static Mask blockedAt(const bool *b) { return *b; }
    friend Lane1 operator+(Lane1 a, Lane1 b) { return {a.v + b.v}; }
    friend Lane1 operator-(Lane1 a, Lane1 b) { return {a.v - b.v}; }
    friend Lane1 operator*(Lane1 a, Lane1 b) { return {a.v * b.v}; }
    friend Lane1 operator/(Lane1 a, Lane1 b) { return {a.v / b.v}; }
    static Lane1 max(Lane1 a, Lane1 b) { return {a.v > b.v ? a.v : b.v}; } // as SSE2's maxpd
    static Mask greater(Lane1 a, Lane1 b) { return a.v > b.v; }
    static bool any(Mask m) { return m; }
    static Lane1 select(Mask m, Lane1 a, Lane1 b) { return m ? a : b; }
    static Lane1 min(Lane1 a, Lane1 b) { return {a.v < b.v ? a.v : b.v}; } // as SSE2's minpd
    static double lowest(Lane1 a) { return a.v; }
    static Lane1 exp(Lane1 a) { return {fastExp(a.v)}; }
    static Lane1 expInRange(Lane1 a) { return {fastExpInRange(a.v)}; }
};

#if defined(__SSE2__)
struct Lane2 {
    static constexpr int kSize = 2;
    using Mask = __m128d;
    __m128d v;

    static Lane2 load(const double *p) { return {_mm_loadu_pd(p)}; }
    void store(double *p) const { _mm_storeu_pd(p, v); }
    static Lane2 all(double x) { return {_mm_set1_pd(x)}; }
    static Mask blockedAt(const bool *b)
    {
        return _mm_castsi128_pd(_mm_set_epi64x(-static_cast<long long>(b[1]), -static_cast<long long>(b[0])));
    }
    friend Lane2 operator+(Lane2 a, Lane2 b) { return {_mm_add_pd(a.v, b.v)}; }
    friend Lane2 operator-(Lane2 a, Lane2 b) { return {_mm_sub_pd(a.v, b.v)}; }
    friend Lane2 operator*(Lane2 a, Lane2 b) { return {_mm_mul_pd(a.v, b.v)}; }
    friend Lane2 operator/(Lane2 a, Lane2 b) { return {_mm_div_pd(a.v, b.v)}; }
    static Lane2 max(Lane2 a, Lane2 b) { return {_mm_max_pd(a.v, b.v)}; }
    static Mask greater(Lane2 a, Lane2 b) { return _mm_cmpgt_pd(a.v, b.v); }
    static bool any(Mask m) { return _mm_movemask_pd(m) != 0; }
    static Lane2 select(Mask m, Lane2 a, Lane2 b)
    {
        return {_mm_or_pd(_mm_and_pd(m, a.v), _mm_andnot_pd(m, b.v))};
    }
    static Lane2 min(Lane2 a, Lane2 b) { return {_mm_min_pd(a.v, b.v)}; }
    static double lowest(Lane2 a) { return std::min(_mm_cvtsd_f64(a.v), _mm_cvtsd_f64(_mm_unpackhi_pd(a.v, a.v))); }
    static Lane2 exp(Lane2 a) { return {fastExp(a.v)}; }
    static Lane2 expInRange(Lane2 a) { return {fastExpInRange(a.v)}; }
};
#endif

// f.operator()<C>(j) for groups of C columns from column j, then single
// columns for the rest: a pass may handle a few columns per visit to a row's
// running values.
template <int C, class F>
inline void forColumns(Eigen::Index cols, F &&f)
{
    Eigen::Index j = 0;
    for (; j + C <= cols; j += C)
        f.template operator()<C>(j);
    for (; j < cols; ++j)
        f.template operator()<1>(j);
}

// f.operator()<Lane>(i) for the rows i of [0, m): two at a time, then the
// last one alone.
template <class F>
inline void forRows(Eigen::Index m, F &&f)
{
    Eigen::Index i = 0;
#if defined(__SSE2__)
    for (; i + 2 <= m; i += 2)
        f.template operator()<Lane2>(i);
#endif
    for (; i < m; ++i)
        f.template operator()<Lane1>(i);
}

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
    double *scaled = nullptr;     // where scaled goes; unused with Scaling::None
    Eigen::Index ldScaled = 0;
    Scaling scaling = Scaling::None;
    double divisor = 1, inverse = 1;
    const bool *blocked = nullptr; // null when nothing is blocked anywhere
    Eigen::Index ldBlocked = 0;
    MaskStage stage = MaskStage::BeforeSoftmax;
    bool plusOne = false;          // softmax_1: the sink's e^(0 - max) joins each row's sum
    double *weights = nullptr;
    Eigen::Index ldWeights = 0;
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

// The d_k for which pass 1 forms the scores itself.
bool fusesScores(Eigen::Index dk)
{
    return dk == 1 || dk == 2 || dk == 3 || dk == 4 || dk == 8 || dk == 16;
}

// The widest d_v whose product with the weights pass 3 forms itself; wider
// ones are left to Eigen, whose kernel is as fast once d_v fills its panels.
constexpr Eigen::Index kFusedValueWidth = 16;

// The running values of a block's rows, m of each, in one allocation.
struct RowRun {
    explicit RowRun(Eigen::Index m) : values(7 * std::size_t(m)), open(std::size_t(m), 1)
    {
        const std::size_t n = std::size_t(m);
        double *p = values.data();
        for (double **array : {&max, &z, &eShift, &zInverse, &sums, &maxWeight, &argmax}) {
            *array = p;
            p += n;
        }
        std::fill_n(max, n, -kInf);
        std::fill_n(maxWeight, n, -kInf);
    }
    std::vector<double> values; // zeros, but for the two set to -inf
    double *max, *z, *eShift, *zInverse, *sums, *maxWeight, *argmax; // argmax: a column, as a double
    std::vector<char> open;
    double lowest = -kInf; // no entry that takes part is below this (pass 1; -inf: not known)
};

// Pass 1: scaled (unless the input is scaled already), each row's maximum
// over the entries that take part, and (kArgmax) the first column with it.
template <bool kExclude, Scaling kScaling, bool kArgmax, bool kStore, int DK>
void maxPass(const SoftmaxBlock &b, RowRun &run)
{
    const double *queries = b.queries, *keys = b.keys;
    const Eigen::Index ldQueries = b.ldQueries, ldKeys = b.ldKeys;
    double *scoresOut = b.scoresOut;
    // Locals, so that the compiler need not reload them after every store.
    const Eigen::Index m = b.m, ldIn = b.ldIn, ldScaled = b.ldScaled, ldBlocked = b.ldBlocked;
    const double *scores = b.in;
    double *scaledAll = b.scaled;
    const bool *blockedAll = b.blocked;
    const double divisor = b.divisor, inverse = b.inverse;
    double *rowMax = run.max, *argmax = run.argmax;
    // The lowest entry, where every entry takes part (see expPass).
    struct Lowest {
#if defined(__SSE2__)
        Lane2 two = Lane2::all(kInf);
#endif
        Lane1 one = Lane1::all(kInf);
    } lowest;
    for (Eigen::Index j = 0; j < b.cols; ++j) {
        const double *in = scores + j * ldIn;
        double *scaled = kStore ? scaledAll + j * ldScaled : nullptr;
        const bool *blocked = kExclude ? blockedAll + j * ldBlocked : nullptr;
        const double column = double(j);
        // Key j's entries, each as a pair for both lanes.
        [[maybe_unused]] Lane1 key1[DK > 0 ? DK : 1];
#if defined(__SSE2__)
        [[maybe_unused]] Lane2 key2[DK > 0 ? DK : 1];
#endif
        if constexpr (DK > 0) {
            for (int c = 0; c < DK; ++c) {
                key1[c] = Lane1::all(keys[c * ldKeys + j]);
#if defined(__SSE2__)
                key2[c] = Lane2::all(key1[c].v);
#endif
            }
        }
        double *out = DK > 0 ? scoresOut + j * ldIn : nullptr;
        forRows(m, [=, &lowest, &key1
#if defined(__SSE2__)
                    , &key2
#endif
        ]<class L>(Eigen::Index i) {
            L x;
            if constexpr (DK > 0) {
                const L *key;
#if defined(__SSE2__)
                if constexpr (L::kSize == 2)
                    key = key2;
                else
#endif
                    key = key1;
                x = L::load(queries + i) * key[0];
                for (int c = 1; c < DK; ++c)
                    x = x + L::load(queries + c * ldQueries + i) * key[c];
                x.store(out + i);
            } else {
                x = L::load(in + i);
            }
            if constexpr (kScaling == Scaling::Divide)
                x = x / L::all(divisor);
            else if constexpr (kScaling == Scaling::Multiply)
                x = x * L::all(inverse);
            if constexpr (kStore)
                x.store(scaled + i);
            if constexpr (kExclude) {
                x = L::select(L::blockedAt(blocked + i), L::all(-kInf), x);
            } else {
#if defined(__SSE2__)
                if constexpr (L::kSize == 2)
                    lowest.two = L::min(lowest.two, x);
                else
#endif
                    lowest.one = L::min(lowest.one, x);
            }
            const L best = L::load(rowMax + i);
            if constexpr (kArgmax) {
                // A row's maximum rises rarely (about ln n times in n random
                // entries), so this branch is seldom taken.
                const typename L::Mask better = L::greater(x, best);
                if (L::any(better))
                    L::select(better, L::all(column), L::load(argmax + i)).store(argmax + i);
            }
            L::max(best, x).store(rowMax + i);
        });
    }
    if constexpr (!kExclude) {
#if defined(__SSE2__)
        run.lowest = std::min(Lane2::lowest(lowest.two), lowest.one.v);
#else
        run.lowest = lowest.one.v;
#endif
    }
}

// Which rows have an entry open, when anything is blocked.
void findOpenRows(const SoftmaxBlock &b, RowRun &run)
{
    std::fill(run.open.begin(), run.open.end(), 0);
    for (Eigen::Index j = 0; j < b.cols; ++j) {
        const bool *blocked = b.blocked + j * b.ldBlocked;
        for (Eigen::Index i = 0; i < b.m; ++i)
            run.open[std::size_t(i)] |= char(!blocked[i]);
    }
}

// Pass 2: e = exp(x - max), blocked entries zeroed, and the row sums z.
// For the entropy it also sums e (x - max), to which a blocked entry
// (e = 0) adds nothing: with w = e / z,
//   -sum w log w = log z * sum w - sum e (x - max) / z,
// one multiply-add per entry instead of one logarithm.
template <bool kMasked, bool kExclude, bool kStats, bool kInRange, bool kMultiply>
void expPass(const SoftmaxBlock &b, const double *scaledAll, Eigen::Index ldScaled, RowRun &run)
{
    const double inverse = b.inverse;
    const Eigen::Index m = b.m, ldWeights = b.ldWeights, ldBlocked = b.ldBlocked;
    double *weights = b.weights;
    const bool *blockedAll = b.blocked;
    const double *rowMax = run.max;
    double *z = run.z, *eShift = run.eShift;
    forColumns<2>(b.cols, [=]<int C>(Eigen::Index j) {
        forRows(m, [=]<class L>(Eigen::Index i) {
            const L shift = L::load(rowMax + i);
            L sum = L::load(z + i), sumShifted = L::load(eShift + i);
            for (int c = 0; c < C; ++c) {
                L x = L::load(scaledAll + (j + c) * ldScaled + i);
                if constexpr (kMultiply)
                    x = x * L::all(inverse); // the same x as pass 1's
                const L d = x - shift;
                double *w = weights + (j + c) * ldWeights + i;
                L e;
                if constexpr (kExclude) {
                    // Blocked entries drop out of the row. Their x may lie far
                    // above the row's maximum, which leaves them out, so they
                    // are not even exponentiated.
                    const typename L::Mask blockedHere = L::blockedAt(blockedAll + (j + c) * ldBlocked + i);
                    e = L::select(blockedHere, L::all(0.0), L::exp(L::select(blockedHere, L::all(0.0), d)));
                    sum = sum + e;
                } else if constexpr (kMasked) {
                    // After the softmax (the misconception): blocked entries
                    // count in z, and only then become 0.
                    e = kInRange ? L::expInRange(d) : L::exp(d);
                    sum = sum + e;
                    e = L::select(L::blockedAt(blockedAll + (j + c) * ldBlocked + i), L::all(0.0), e);
                } else {
                    e = kInRange ? L::expInRange(d) : L::exp(d);
                    sum = sum + e;
                }
                if constexpr (kStats)
                    sumShifted = sumShifted + e * d;
                e.store(w);
            }
            sum.store(z + i);
            if constexpr (kStats)
                sumShifted.store(eShift + i);
        });
    });
}

// Pass 3: w = e / z (as e * (1 / z)); with kSums the row sums of w, and with
// kSearch also their maxima and first argmax (strictly greater: the first
// column wins a tie, as in maxCoeff).
template <bool kSums, bool kSearch>
void normalisePass(const SoftmaxBlock &b, RowRun &run)
{
    const Eigen::Index m = b.m, ldWeights = b.ldWeights;
    double *weights = b.weights;
    const double *zInverse = run.zInverse;
    double *sums = run.sums, *maxWeight = run.maxWeight, *argmax = run.argmax;
    forColumns<4>(b.cols, [=]<int C>(Eigen::Index j) {
        forRows(m, [=]<class L>(Eigen::Index i) {
            const L scale = L::load(zInverse + i);
            L sum = kSums ? L::load(sums + i) : L::all(0.0);
            L best = kSearch ? L::load(maxWeight + i) : L::all(0.0);
            L where = kSearch ? L::load(argmax + i) : L::all(0.0);
            for (int c = 0; c < C; ++c) {
                double *w = weights + (j + c) * ldWeights + i;
                const L v = L::load(w) * scale;
                v.store(w);
                if constexpr (kSums)
                    sum = sum + v;
                if constexpr (kSearch) {
                    const typename L::Mask better = L::greater(v, best);
                    best = L::select(better, v, best);
                    where = L::select(better, L::all(double(j + c)), where);
                }
            }
            if constexpr (kSums)
                sum.store(sums + i);
            if constexpr (kSearch) {
                best.store(maxWeight + i);
                where.store(argmax + i);
            }
        });
    });
}

// Pass 3 with the output: as normalisePass, and for each row i
//   output(i, c) = sum over j, in order, of w(i, j) V(j, c),
// one running sum a value column, kept in `output` itself (the block's rows:
// a few KB, in the cache). Each row's sum is the same sequence of operations
// in any block and on any thread. V's entries of the columns in hand are
// read once a visit and held as pairs for both lanes.
template <int DV, bool kSums, bool kSearch>
void normaliseOutputPass(const SoftmaxBlock &b, RowRun &run)
{
    const Eigen::Index m = b.m, ldWeights = b.ldWeights, ldOutput = b.ldOutput, ldValues = b.ldValues;
    double *weights = b.weights, *output = b.output;
    const double *values = b.values;
    const double *zInverse = run.zInverse;
    double *sums = run.sums, *maxWeight = run.maxWeight, *argmax = run.argmax;
    for (int c = 0; c < DV; ++c)
        std::fill_n(output + c * ldOutput, m, 0.0);
    forColumns<4>(b.cols, [=]<int C>(Eigen::Index j) {
        // V's entries for these columns, each as a pair for both lanes.
        Lane1 v1[C][DV];
#if defined(__SSE2__)
        Lane2 v2[C][DV];
#endif
        for (int k = 0; k < C; ++k)
            for (int c = 0; c < DV; ++c) {
                v1[k][c] = Lane1::all(values[c * ldValues + j + k]);
#if defined(__SSE2__)
                v2[k][c] = Lane2::all(v1[k][c].v);
#endif
            }
        forRows(m, [=, &v1
#if defined(__SSE2__)
                    , &v2
#endif
        ]<class L>(Eigen::Index i) {
            const L(*v)[DV];
#if defined(__SSE2__)
            if constexpr (L::kSize == 2)
                v = v2;
            else
#endif
                v = v1;
            const L scale = L::load(zInverse + i);
            L sum = kSums ? L::load(sums + i) : L::all(0.0);
            L best = kSearch ? L::load(maxWeight + i) : L::all(0.0);
            L where = kSearch ? L::load(argmax + i) : L::all(0.0);
            L acc[DV];
            for (int c = 0; c < DV; ++c)
                acc[c] = L::load(output + c * ldOutput + i);
            for (int k = 0; k < C; ++k) {
                double *w = weights + (j + k) * ldWeights + i;
                const L x = L::load(w) * scale;
                x.store(w);
                if constexpr (kSums)
                    sum = sum + x;
                if constexpr (kSearch) {
                    const typename L::Mask better = L::greater(x, best);
                    best = L::select(better, x, best);
                    where = L::select(better, L::all(double(j + k)), where);
                }
                for (int c = 0; c < DV; ++c)
                    acc[c] = acc[c] + x * v[k][c];
            }
            for (int c = 0; c < DV; ++c)
                acc[c].store(output + c * ldOutput + i);
            if constexpr (kSums)
                sum.store(sums + i);
            if constexpr (kSearch) {
                best.store(maxWeight + i);
                where.store(argmax + i);
            }
        });
    });
}

// Pass 3, with the output when the block asks for it and d_v is narrow enough.
template <bool kSums, bool kSearch>
void finishPass(const SoftmaxBlock &b, RowRun &run)
{
    if (!b.output)
        return normalisePass<kSums, kSearch>(b, run);
    switch (b.valueWidth) {
    case 1: return normaliseOutputPass<1, kSums, kSearch>(b, run);
    case 2: return normaliseOutputPass<2, kSums, kSearch>(b, run);
    case 3: return normaliseOutputPass<3, kSums, kSearch>(b, run);
    case 4: return normaliseOutputPass<4, kSums, kSearch>(b, run);
    case 5: return normaliseOutputPass<5, kSums, kSearch>(b, run);
    case 6: return normaliseOutputPass<6, kSums, kSearch>(b, run);
    case 7: return normaliseOutputPass<7, kSums, kSearch>(b, run);
    case 8: return normaliseOutputPass<8, kSums, kSearch>(b, run);
    case 12: return normaliseOutputPass<12, kSums, kSearch>(b, run);
    case 16: return normaliseOutputPass<16, kSums, kSearch>(b, run);
    default: break;
    }
    normalisePass<kSums, kSearch>(b, run);
    Eigen::Map<Matrix, 0, Eigen::OuterStride<>> out(b.output, b.m, b.valueWidth, Eigen::OuterStride<>(b.ldOutput));
    Eigen::Map<const Matrix, 0, Eigen::OuterStride<>> w(b.weights, b.m, b.cols, Eigen::OuterStride<>(b.ldWeights));
    Eigen::Map<const Matrix, 0, Eigen::OuterStride<>> v(b.values, b.cols, b.valueWidth, Eigen::OuterStride<>(b.ldValues));
    out.noalias() = w * v;
}

// softmax_1's denominator e^(-max) + z, where z = sum e^(x - max) >= 1 (the
// maximum's own term is 1): its inverse and its log. For max >= 0,
// e^(-max) <= 1; for max < 0 (every score below the sink's 0) e^(-max)
// overflows past max = -709.78, so 1 / (e^(-max) + z) is formed as
// e^max / (1 + z e^max) instead, which only underflows, to weights that are
// 0 in double anyway.
struct PlusOneDenominator {
    double inverse = 1, log = 0;
};
PlusOneDenominator plusOneDenominator(double max, double z)
{
    if (max >= 0) {
        const double d = z + std::exp(-max);
        return {1.0 / d, std::log(d)};
    }
    const double em = std::exp(max);
    return {em / (1.0 + z * em), -max + std::log1p(z * em)};
}

template <bool kMasked, bool kExclude, bool kStats, int DK>
void softmaxBlock(const SoftmaxBlock &b)
{
    // after_softmax with a blocked entry: the largest x may be blocked, so
    // the largest weight is searched for among the weights themselves.
    constexpr bool kSearch = kStats && kMasked && !kExclude;
    const Eigen::Index m = b.m;
    RowRun run(m);

    // Without a place for scaled (b.scaled null: c tau is 1 or a power of
    // two, see runSoftmaxBlock) pass 1 does not write it, and pass 2 forms x
    // again from the input: as is, or as x * (1 / (c tau)), which is exact.
    const bool store = b.scaled != nullptr;
    const bool multiply = !store && b.scaling == Scaling::Multiply;
    constexpr bool kArgmax = kStats && !kSearch;
    switch (b.scaling) {
    case Scaling::None:
        maxPass<kExclude, Scaling::None, kArgmax, false, DK>(b, run);
        break;
    case Scaling::Copy:
        if (store)
            maxPass<kExclude, Scaling::Copy, kArgmax, true, DK>(b, run);
        else
            maxPass<kExclude, Scaling::None, kArgmax, false, DK>(b, run);
        break;
    case Scaling::Divide:
        maxPass<kExclude, Scaling::Divide, kArgmax, true, DK>(b, run);
        break;
    case Scaling::Multiply:
        if (store)
            maxPass<kExclude, Scaling::Multiply, kArgmax, true, DK>(b, run);
        else
            maxPass<kExclude, Scaling::Multiply, kArgmax, false, DK>(b, run);
        break;
    }
    if constexpr (kMasked)
        findOpenRows(b, run);
    if constexpr (kExclude)
        for (Eigen::Index i = 0; i < m; ++i)
            if (!run.open[std::size_t(i)])
                run.max[std::size_t(i)] = 0.0; // any finite shift: the row is zeroed below

    // Every x - max is within fastExp's main range when the block's lowest
    // entry is within it of the highest maximum: then no lane needs the check.
    const double highest = m ? *std::max_element(run.max, run.max + m) : 0.0;
    const bool inRange = !kExclude && run.lowest - highest >= -kFastExpRange;
    const double *x = store && b.scaling != Scaling::None ? b.scaled : b.in;
    const Eigen::Index ldX = store && b.scaling != Scaling::None ? b.ldScaled : b.ldIn;
    if (inRange)
        multiply ? expPass<kMasked, kExclude, kStats, true, true>(b, x, ldX, run)
                 : expPass<kMasked, kExclude, kStats, true, false>(b, x, ldX, run);
    else
        multiply ? expPass<kMasked, kExclude, kStats, false, true>(b, x, ldX, run)
                 : expPass<kMasked, kExclude, kStats, false, false>(b, x, ldX, run);

    // A fully masked row has every entry blocked, so it is all zero already.
    // softmax_1 keeps log of its denominator for the entropy (z is not it).
    std::vector<double> logZ(b.plusOne && kStats ? std::size_t(m) : 0);
    for (std::size_t i = 0; i < std::size_t(m); ++i) {
        if (!(run.open[i] && run.z[i] > 0)) {
            run.z[i] = 1.0;
            run.zInverse[i] = 1.0;
            if (!logZ.empty())
                logZ[i] = 0.0;
        } else if (b.plusOne) {
            const PlusOneDenominator d = plusOneDenominator(run.max[i], run.z[i]);
            run.zInverse[i] = d.inverse;
            if (!logZ.empty())
                logZ[i] = d.log;
        } else {
            run.zInverse[i] = 1.0 / run.z[i];
        }
    }
    if constexpr (kSearch)
        std::fill_n(run.argmax, m, 0.0);
    finishPass<kStats, kSearch>(b, run);

    if constexpr (kStats) {
        for (std::size_t i = 0; i < std::size_t(m); ++i) {
            RowStats &r = b.rows[i];
            r = RowStats{};
            if (!run.open[i]) {
                r.fullyMasked = true;
                continue;
            }
            r.sum = run.sums[i];
            // With log w = (x - max) - log Z for both softmaxes (Z = z, or e^(-max) + z).
            const double logDenominator = logZ.empty() ? std::log(run.z[i]) : logZ[i];
            r.entropy = std::max(0.0, logDenominator * run.sums[i] - run.eShift[i] * run.zInverse[i]);
            r.maxWeight = kSearch ? run.maxWeight[i] : run.zInverse[i]; // 1 * (1 / z): see the top
            r.argmax = int(run.argmax[i]);
        }
    }
}

// The block's softmax, with the variant of the passes that its mask needs.
template <int DK>
void runSoftmaxBlockWith(const SoftmaxBlock &b)
{
    const bool stats = b.rows != nullptr;
    if (!b.blocked)
        return stats ? softmaxBlock<false, false, true, DK>(b) : softmaxBlock<false, false, false, DK>(b);
    if (b.stage == MaskStage::BeforeSoftmax)
        return stats ? softmaxBlock<true, true, true, DK>(b) : softmaxBlock<true, true, false, DK>(b);
    return stats ? softmaxBlock<true, false, true, DK>(b) : softmaxBlock<true, false, false, DK>(b);
}

void runSoftmaxBlock(const SoftmaxBlock &block)
{
    SoftmaxBlock b = block;
    // Scaled not kept, and c tau not a power of two: pass 1 divides into the
    // weights (pass 2 then overwrites each entry with its exponential), so
    // the softmax takes the very bits a stored scaled would hold, and the
    // weights are the same whether scaled is kept or not.
    if (!b.scaled && b.scaling == Scaling::Divide) {
        b.scaled = b.weights;
        b.ldScaled = b.ldWeights;
    }
    switch (b.keys ? b.keyWidth : 0) {
    case 1: return runSoftmaxBlockWith<1>(b);
    case 2: return runSoftmaxBlockWith<2>(b);
    case 3: return runSoftmaxBlockWith<3>(b);
    case 4: return runSoftmaxBlockWith<4>(b);
    case 8: return runSoftmaxBlockWith<8>(b);
    case 16: return runSoftmaxBlockWith<16>(b);
    default: return runSoftmaxBlockWith<0>(b);
    }
}

// How scores become scaled = scores / divisor, bit for bit, whether it is
// stored or not.
void setScaling(SoftmaxBlock &b, double divisor)
{
    b.divisor = divisor;
    int exponent = 0;
    const double inverse = 1.0 / divisor;
    if (divisor == 1.0) {
        b.scaling = Scaling::Copy;
    } else if (std::frexp(divisor, &exponent) == 0.5 && std::isfinite(inverse) && inverse * divisor == 1.0) {
        // A power of two: 1 / divisor is exact, and x * (1 / divisor) is the
        // same real number as x / divisor, so it rounds to the same double.
        b.scaling = Scaling::Multiply;
        b.inverse = inverse;
    } else {
        b.scaling = Scaling::Divide;
    }
}

// Each row divided by its norm (a zero row stays zero). Divides by the
// largest entry first so that tiny or huge rows neither underflow nor overflow.
Matrix unitRows(const Eigen::Ref<const Matrix> &m)
{
    Matrix u(m.rows(), m.cols());
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        const double largest = m.row(i).cwiseAbs().maxCoeff();
        if (largest == 0) {
            u.row(i).setZero();
            continue;
        }
        u.row(i) = m.row(i) / largest;
        u.row(i) /= u.row(i).norm();
    }
    return u;
}

// dst = s(q_i, k_j) for the rows of Q and K as compared: unit rows for the
// cosine (unitRows), the rows themselves otherwise.
// Inputs: Q, n_q by d; K, n_k by d. Output: dst, n_q by n_k.
void similarityOfCompared(Similarity kind, const Eigen::Ref<const Matrix> &Q, const Eigen::Ref<const Matrix> &K,
                          Eigen::Ref<Matrix> dst)
{
    switch (kind) {
    case Similarity::Dot:
        dst.noalias() = Q * K.transpose();
        break;
    case Similarity::Cosine:
        // The dot product of unit rows, clamped against rounding past +-1.
        dst.noalias() = Q * K.transpose();
        dst = dst.cwiseMax(-1.0).cwiseMin(1.0);
        break;
    case Similarity::NegSqDistance:
        // Directly, not as 2q.k - |q|^2 - |k|^2: a query on a key must give exactly 0.
        for (Eigen::Index i = 0; i < Q.rows(); ++i)
            dst.row(i) = -(K.rowwise() - Q.row(i)).rowwise().squaredNorm().transpose();
        break;
    }
}

// ---------------------------------------------------------------------------
// Threads.
//
// A large forward runs in one OpenMP parallel region: the projections, the
// heads and the blocks of query rows are independent, so each stage is a
// loop of tasks that the threads share (forTasks). Every task writes only its
// own rows of its own head's matrices and statistics, and how the work is
// cut into tasks depends on the sizes alone, so the results are the same bits
// for any number of threads.
//
// Eigen can also spread one product over threads by itself, but then it
// blocks the product differently, which changes the last bits with the
// thread count. Inside the region each thread sets its own thread count to
// 1, so Eigen keeps every product of compute() on the thread that asked.
//
// Below kParallelWork multiply-adds (n = 128, h = 8, d_model = 64 is 3.7
// million; n = 256 is 11.5 million) the region has one thread: threads would
// save little there, and an interactive view recomputing on every edit would
// keep a second core busy (an OpenMP thread waits for the next region by
// spinning for a while before it sleeps).

constexpr double kParallelWork = 8.0 * 1024 * 1024;

// Eigen gives a product a second thread from 2 * 50000 multiply-adds on
// (Parallelizer.h: one thread per 50000).
constexpr double kEigenSplitWork = 100000;

// The first exception a task throws (std::bad_alloc, say), kept to be
// rethrown after the region, which no exception may leave; once there is one,
// the remaining tasks are skipped.
class TaskError {
public:
    bool failed() const { return m_failed.load(std::memory_order_relaxed); }
    void keep(std::exception_ptr e)
    {
#if defined(_OPENMP)
#pragma omp critical(attn_task_error)
#endif
        if (!m_error)
            m_error = std::move(e);
        m_failed.store(true, std::memory_order_relaxed);
    }
    void rethrow() const
    {
        if (m_error)
            std::rethrow_exception(m_error);
    }

private:
    std::atomic<bool> m_failed{false};
    std::exception_ptr m_error;
};

// Runs task(k) for k in [0, count): shared among the threads of compute()'s
// parallel region when `shared`, all on the calling thread otherwise (never
// a work-sharing loop outside compute()'s own region, which would bind to a
// caller's).
template <class Task>
void forTasks(bool shared, Eigen::Index count, TaskError &error, Task &&task)
{
    auto run = [&](Eigen::Index k) {
        if (error.failed())
            return;
        try {
            task(k);
        } catch (...) {
            error.keep(std::current_exception());
        }
    };
    if (shared) {
#if defined(_OPENMP)
#pragma omp for schedule(dynamic)
#endif
        for (Eigen::Index k = 0; k < count; ++k)
            run(k);
    } else {
        for (Eigen::Index k = 0; k < count; ++k)
            run(k);
    }
}

// The rows of a block in compute(). Whole columns run fastest (each pass
// streams them), so every head is one block, except that fewer heads than
// kTasks are cut into more blocks, so that threads have work to share. The
// cut depends on the sizes alone, never on the thread count.
//
// A block's rows are a multiple of 24 (but the last block's): Eigen's product
// kernel takes rows in panels of 6 (SSE2; 12 with AVX, 24 with AVX-512) and
// handles the rows left over after the last whole panel in a different way,
// which rounds differently. Blocks of whole panels put every row through the
// same kernel as a product of the whole matrix would, to the bit.
Eigen::Index blockRows(Eigen::Index rows, int heads)
{
    constexpr int kTasks = 4;
    constexpr Eigen::Index kPanel = 24, kMinRows = 96;
    const Eigen::Index parts = heads >= kTasks ? 1 : (kTasks + heads - 1) / heads;
    const Eigen::Index cut = (rows + parts - 1) / parts;
    return std::max((cut + kPanel - 1) / kPanel * kPanel, kMinRows);
}

} // namespace

double scaleConstant(Scale scale, int dk)
{
    switch (scale) {
    case Scale::SqrtDk:
        return std::sqrt(double(dk));
    case Scale::Dk:
        return double(dk);
    case Scale::None:
        break;
    }
    return 1.0;
}

Matrix similarity(Similarity kind, const Eigen::Ref<const Matrix> &Q, const Eigen::Ref<const Matrix> &K)
{
    Matrix s(Q.rows(), K.rows());
    if (kind == Similarity::Cosine)
        similarityOfCompared(kind, unitRows(Q), unitRows(K), s);
    else
        similarityOfCompared(kind, Q, K, s);
    return s;
}

Matrix maskedSoftmax(const Eigen::Ref<const Matrix> &scaled, const BoolMatrix &blocked, MaskStage stage,
                     std::vector<RowStats> *rows, SoftmaxKind kind)
{
    const Eigen::Index n = scaled.rows(), m = scaled.cols();
    const bool anyBlocked = blocked.size() != 0 && blocked.any();
    Matrix weights(n, m);
    if (rows)
        rows->assign(std::size_t(n), RowStats{});
    for (Eigen::Index r0 = 0; r0 < n; r0 += kMaxBlockRows) {
        SoftmaxBlock b;
        b.m = std::min(kMaxBlockRows, n - r0);
        b.cols = m;
        b.in = scaled.data() + r0;
        b.ldIn = scaled.outerStride();
        b.blocked = anyBlocked ? blocked.data() + r0 : nullptr;
        b.ldBlocked = n;
        b.stage = stage;
        b.plusOne = kind == SoftmaxKind::PlusOne;
        b.weights = weights.data() + r0;
        b.ldWeights = n;
        b.rows = rows ? rows->data() + r0 : nullptr;
        runSoftmaxBlock(b);
    }
    return weights;
}

Trace compute(const Scenario &s, const ComputeOptions &options)
{
    Trace t;
    computeInto(s, t, options);
    return t;
}

namespace {

void computeStages(const Scenario &s, Trace &t, const ComputeOptions &options);

} // namespace

Result<Trace> tryCompute(const Scenario &s, const ComputeOptions &options)
{
    if (auto p = validate(s))
        return *p;
    Trace t;
    computeStages(s, t, options);
    return t;
}

void computeInto(const Scenario &s, Trace &t, const ComputeOptions &options)
{
    if (auto p = validate(s))
        throw ScenarioError(*p);
    try {
        computeStages(s, t, options);
    } catch (...) {
        t = Trace();
        throw;
    }
}

namespace {

void computeStages(const Scenario &s, Trace &t, const ComputeOptions &options)
{
    const int nq = queryCount(s), nk = keyCount(s), h = s.heads;
    t.dk = headDim(s);
    t.dv = headValueDim(s);
    t.divisor = scaleConstant(s.scale, t.dk) * s.temperature;
    t.blocked = blockedMatrix(s);
    const bool anyBlocked = t.blocked.any();
    const bool projected = s.mode == InputMode::Projected;
    const bool rope = s.encoding == Encoding::Rope;
    const bool cosine = s.similarity == Similarity::Cosine;
    const Matrix &source = projected && s.source ? *s.source : s.X;

    if (projected) {
        t.positionQuery = additiveTable(s.encoding, nq, int(s.X.cols()), s.seed);
        t.positionKey = additiveTable(s.encoding, nk, int(s.X.cols()), s.seed);
        t.encodedX = t.positionQuery.size() ? Matrix(s.X + t.positionQuery) : s.X;
        t.encodedSource = t.positionKey.size() ? Matrix(source + t.positionKey) : source;
        t.Q.resize(nq, s.Wq.cols());
        t.K.resize(nk, s.Wk.cols());
        t.V.resize(nk, s.Wv.cols());
        t.positionValue = Matrix(); // (a reused trace may hold a direct one's)
    } else {
        t.encodedX = t.encodedSource = Matrix();
        // As if Q, K and V were embeddings under an identity projection.
        t.positionQuery = additiveTable(s.encoding, nq, int(s.Q.cols()), s.seed);
        t.positionKey = additiveTable(s.encoding, nk, int(s.K.cols()), s.seed);
        t.positionValue = additiveTable(s.encoding, nk, int(s.V.cols()), s.seed);
        t.Q = t.positionQuery.size() ? Matrix(s.Q + t.positionQuery) : s.Q;
        t.K = t.positionKey.size() ? Matrix(s.K + t.positionKey) : s.K;
        t.V = t.positionValue.size() ? Matrix(s.V + t.positionValue) : s.V;
    }
    if (rope) {
        t.positionQuery = ropeAngles(nq, t.dk);
        t.positionKey = ropeAngles(nk, t.dk);
    }

    // Every matrix is allocated here, on the calling thread; the tasks fill them.
    // (Resized in place: a matrix of the same size keeps its memory.)
    t.heads.resize(std::size_t(h));
    for (HeadTrace &head : t.heads) {
        head.scores.resize(nq, nk);
        if (options.keepScaled)
            head.scaled.resize(nq, nk);
        else
            head.scaled = Matrix();
        head.weights.resize(nq, nk);
        head.output.resize(nq, t.dv);
        head.rows.assign(std::size_t(nq), RowStats{});
        head.divisor = t.divisor;
    }
    t.concat.resize(nq, Eigen::Index(h) * t.dv);
    const bool withWo = projected && s.Wo.has_value();
    if (withWo)
        t.output.resize(nq, s.Wo->cols());
    else
        t.output = Matrix();
    // Cosine compares unit rows: one copy of each head's Q and K, normalised.
    std::vector<Matrix> unitQ(cosine ? std::size_t(h) : 0), unitK(cosine ? std::size_t(h) : 0);

    SoftmaxBlock model; // what every block of every head shares
    model.cols = nk;
    setScaling(model, t.divisor);
    model.blocked = anyBlocked ? t.blocked.data() : nullptr;
    model.ldBlocked = nq;
    model.stage = s.maskStage;
    model.plusOne = s.softmax == SoftmaxKind::PlusOne;
    model.ldIn = model.ldScaled = model.ldWeights = nq;

    // The tasks of each stage.
    const Eigen::Index rowsPerBlock = blockRows(nq, h), qBlocks = (nq + rowsPerBlock - 1) / rowsPerBlock;
    // The projections whole, one task each: the same products, to the bit, as on one thread.
    const Eigen::Index projectionTasks = projected ? 3 : 0;
    auto project = [&](Eigen::Index k) {
        if (k == 0)
            t.Q.noalias() = t.encodedX * s.Wq;
        else if (k == 1)
            t.K.noalias() = t.encodedSource * s.Wk;
        else
            t.V.noalias() = t.encodedSource * s.Wv;
    };
    auto prepareHead = [&](Eigen::Index i) {
        HeadTrace &head = t.heads[std::size_t(i)];
        if (rope) {
            head.Q = applyRope(t.Q.middleCols(i * t.dk, t.dk), t.positionQuery);
            head.K = applyRope(t.K.middleCols(i * t.dk, t.dk), t.positionKey);
        } else {
            head.Q = t.Q.middleCols(i * t.dk, t.dk);
            head.K = t.K.middleCols(i * t.dk, t.dk);
        }
        head.V = t.V.middleCols(i * t.dv, t.dv);
        if (cosine) {
            unitQ[std::size_t(i)] = unitRows(head.Q);
            unitK[std::size_t(i)] = unitRows(head.K);
        }
    };
    // One block of query rows of one head, from scores to its columns of concat.
    auto attendBlock = [&](Eigen::Index k) {
        const Eigen::Index i = k / qBlocks, r0 = (k % qBlocks) * rowsPerBlock;
        const Eigen::Index rows = std::min(rowsPerBlock, Eigen::Index(nq) - r0);
        HeadTrace &head = t.heads[std::size_t(i)];
        const Matrix &Q = cosine ? unitQ[std::size_t(i)] : head.Q;
        const Matrix &K = cosine ? unitK[std::size_t(i)] : head.K;
        SoftmaxBlock b = model;
        if (s.similarity == Similarity::Dot && fusesScores(t.dk)) {
            b.queries = head.Q.data() + r0;
            b.ldQueries = head.Q.rows();
            b.keys = head.K.data();
            b.ldKeys = head.K.rows();
            b.keyWidth = t.dk;
            b.scoresOut = head.scores.data() + r0;
        } else {
            similarityOfCompared(s.similarity, Q.middleRows(r0, rows), K, head.scores.middleRows(r0, rows));
        }

        b.m = rows;
        b.in = head.scores.data() + r0;
        b.scaled = options.keepScaled ? head.scaled.data() + r0 : nullptr;
        if (b.blocked)
            b.blocked += r0;
        b.weights = head.weights.data() + r0;
        b.rows = head.rows.data() + r0;
        b.values = head.V.data();
        b.ldValues = head.V.rows();
        b.valueWidth = head.V.cols();
        b.output = head.output.data() + r0;
        b.ldOutput = nq;
        runSoftmaxBlock(b);

        t.concat.block(r0, i * t.dv, rows, t.dv) = head.output.middleRows(r0, rows);
    };

    TaskError error;
    auto stages = [&](bool shared) {
        forTasks(shared, projectionTasks, error, project);
        forTasks(shared, h, error, prepareHead);
        forTasks(shared, Eigen::Index(h) * qBlocks, error, attendBlock);
        if (withWo) // whole, on one thread, as before: it is small
            forTasks(shared, 1, error, [&](Eigen::Index) { t.output.noalias() = t.concat * *s.Wo; });
    };

    // The multiply-adds of each product: the projections, each head's
    // scores and output, Wo. `work` is their sum, `largest` the largest.
    const double width = projected ? double(s.X.cols()) : 0.0;
    const double products[] = {width * double(nq) * double(t.Q.cols()), width * double(nk) * double(t.K.cols()),
                               width * double(nk) * double(t.V.cols()), double(nq) * double(nk) * double(t.dk),
                               double(nq) * double(nk) * double(t.dv),
                               withWo ? double(nq) * double(t.concat.cols()) * double(s.Wo->cols()) : 0.0};
    const double work = products[0] + products[1] + products[2] + double(h) * (products[3] + products[4]) + products[5];
    const double largest = *std::max_element(std::begin(products), std::end(products));
#if defined(_OPENMP)
    // Inside a region (of one thread below kParallelWork), so that each
    // thread's own setting of one thread keeps Eigen from splitting the
    // products. When no product is large enough for Eigen to split, and no
    // threads are wanted, the region is left out.
    if (work >= kParallelWork || largest >= kEigenSplitWork) {
#pragma omp parallel num_threads(work >= kParallelWork ? omp_get_max_threads() : 1)
        {
            omp_set_num_threads(1); // this thread's setting only: Eigen splits no product in here
            stages(true);
        }
    } else {
        stages(false);
    }
#else
    (void)work;
    (void)largest;
    stages(false);
#endif
    error.rethrow();

    if (!withWo)
        t.output = t.concat;
}

// Runs task(k) for k in [0, count) as compute() runs its stages: in one
// parallel region when the work is large, with Eigen kept to one thread
// inside it (see "Threads" above).
template <class Task>
void runTasks(Eigen::Index count, double work, double largest, Task &&task)
{
    TaskError error;
#if defined(_OPENMP)
    if (work >= kParallelWork || largest >= kEigenSplitWork) {
#pragma omp parallel num_threads(work >= kParallelWork ? omp_get_max_threads() : 1)
        {
            omp_set_num_threads(1);
            forTasks(true, count, error, task);
        }
    } else {
        forTasks(false, count, error, task);
    }
#else
    (void)work;
    (void)largest;
    forTasks(false, count, error, task);
#endif
    error.rethrow();
}

// The rows [first, first + count) of a range, and the smallest range that
// holds two.
struct RowRange {
    int first = 0, count = 0;
    int end() const { return first + count; }
    RowRange join(RowRange o) const
    {
        if (!count)
            return o;
        if (!o.count)
            return *this;
        const int a = std::min(first, o.first), b = std::max(end(), o.end());
        return {a, b - a};
    }
};

// The query rows in which key `key` is open (blocked entries get weight 0
// at either mask stage): from the first to the last such row.
RowRange rowsSeeingKey(const BoolMatrix &blocked, int nq, int key)
{
    if (blocked.size() == 0)
        return {0, nq};
    int lo = 0, hi = nq;
    while (lo < hi && blocked(lo, key))
        ++lo;
    while (hi > lo && blocked(hi - 1, key))
        --hi;
    return {lo, hi - lo};
}

// The softmax of one row, its statistics and its output, from its scaled
// row (already written), as compute() does them.
// The softmax's input for rows from `first` of a head, as compute() took
// it: the stored scaled, or the scores with the scaling to apply.
SoftmaxBlock softmaxInput(const Trace &t, const HeadTrace &head, int first)
{
    const Eigen::Index nq = head.scores.rows();
    SoftmaxBlock b;
    b.cols = head.scores.cols();
    if (head.scaled.size()) {
        b.in = head.scaled.data() + first; // Scaling::None
    } else {
        b.in = head.scores.data() + first;
        setScaling(b, t.divisor); // b.scaled stays null: nothing stored
    }
    b.ldIn = nq;
    return b;
}

// Entry (i, j) of the softmax's input, as softmaxInput() gives it.
double softmaxInputAt(const Trace &t, const HeadTrace &head, Eigen::Index i, Eigen::Index j)
{
    if (head.scaled.size())
        return head.scaled(i, j);
    return head.scores(i, j) / t.divisor; // the bits pass 1 forms
}

void softmaxRow(const Scenario &s, const Trace &t, HeadTrace &head, int r)
{
    const Eigen::Index nq = head.scores.rows();
    SoftmaxBlock b = softmaxInput(t, head, r);
    b.m = 1;
    b.blocked = t.blocked.any() ? t.blocked.data() + r : nullptr;
    b.ldBlocked = nq;
    b.stage = s.maskStage;
    b.plusOne = s.softmax == SoftmaxKind::PlusOne;
    b.weights = head.weights.data() + r;
    b.ldWeights = nq;
    b.rows = head.rows.data() + r;
    b.values = head.V.data();
    b.ldValues = head.V.rows();
    b.valueWidth = head.V.cols();
    b.output = head.output.data() + r;
    b.ldOutput = nq;
    runSoftmaxBlock(b);
}

// Key `key` changed (its scaled column is written, the old one is xOld; its
// value row was vOld): the softmax and outputs of rows [first, first +
// count). A row that sees the key keeps its other weights' proportions:
// with w its old weight of the key, S = sum - w the rest, and e the key's
// entry grown by exp(x_new - x_old), every other weight is multiplied by
// c = 1 / (S + w e), the key's becomes w e c, and
//   entropy = c (H + w ln w) - c S ln c - w' ln w'
//   output  = c (out - w v_old) + w' v_new
// O(n_k) a row instead of an exponential an entry and the product with V.
// A row where this would lose digits (the key held most of the weight, or
// underflowed to 0, or was the largest, or grew enormously) and the
// changed query's own row are computed afresh instead.
void rescaleForKey(const Scenario &s, const Trace &t, HeadTrace &head, int key, int queryRow, int first, int count,
                   const Eigen::VectorXd &xOld, const Eigen::RowVectorXd &vOld)
{
    const bool anyBlocked = t.blocked.any();
    Eigen::VectorXd ratio = Eigen::VectorXd::Ones(count);
    std::vector<std::pair<int, double>> keyWeights; // (row, new weight of the key)
    std::vector<int> afresh;
    for (int r = first; r < first + count; ++r) {
        if (r == queryRow) {
            afresh.push_back(r);
            continue;
        }
        if (anyBlocked && t.blocked(r, key))
            continue; // before the softmax: this row never sees the key
        RowStats &st = head.rows[std::size_t(r)];
        const double w = head.weights(r, key), others = st.sum - w;
        const double dx = softmaxInputAt(t, head, r, key) - xOld(r);
        if (st.fullyMasked || !(w > 1e-250) || !(others >= 1.0 / 16) || st.argmax == key || !(dx < 600)) {
            afresh.push_back(r);
            continue;
        }
        const double grown = w * std::exp(dx);
        // softmax_1's sink holds 1 - sum of the row: the rest is 1 - w with it.
        const double c = 1.0 / ((s.softmax == SoftmaxKind::PlusOne ? 1.0 - w : others) + grown);
        const double wNew = grown * c;
        ratio(r - first) = c;
        keyWeights.emplace_back(r, wNew);
        const double rest = st.entropy + w * std::log(w); // -sum of w ln w over the other keys
        st.entropy = std::max(0.0, c * rest - c * others * std::log(c) - (wNew > 0 ? wNew * std::log(wNew) : 0.0));
        st.sum = c * others + wNew;
        const double largest = c * st.maxWeight;
        if (wNew > largest || (wNew == largest && key < st.argmax)) {
            st.maxWeight = wNew;
            st.argmax = key;
        } else {
            st.maxWeight = largest;
        }
        head.output.row(r) = c * (head.output.row(r) - w * vOld) + wNew * head.V.row(key);
    }
    // Column by column, as stored; rows left as they were have c = 1.
    head.weights.middleRows(first, count).array().colwise() *= ratio.array();
    for (const auto &[r, wNew] : keyWeights)
        head.weights(r, key) = wNew;
    for (int r : afresh)
        softmaxRow(s, t, head, r);
}

} // namespace

bool updateRow(const Scenario &s, Trace &t, MatrixId id, int row, TraceDelta *delta)
{
    const int nq = queryCount(s), nk = keyCount(s), h = s.heads;
    const bool projected = s.mode == InputMode::Projected;
    if (int(t.heads.size()) != h || t.Q.rows() != nq || t.K.rows() != nk || t.dk != headDim(s)
        || t.dv != headValueDim(s) || t.blocked.rows() != nq || t.blocked.cols() != nk)
        return false;
    bool q = false, k = false, v = false, wo = false;
    switch (id) {
    case MatrixId::Q:
        q = !projected;
        break;
    case MatrixId::K:
        k = !projected;
        break;
    case MatrixId::V:
        v = !projected;
        break;
    case MatrixId::X:
        q = projected;
        k = v = projected && !s.source;
        break;
    case MatrixId::Source:
        k = v = projected && s.source.has_value();
        break;
    case MatrixId::Wo:
        wo = projected && s.Wo.has_value() && t.output.cols() == s.Wo->cols();
        break;
    default:
        return false; // Wq, Wk, Wv: every query, key or value
    }
    if (!(q || k || v || wo) || row < 0 || row >= ((q ? nq : wo ? int(s.Wo->rows()) : nk)))
        return false;

    TraceDelta d;
    const bool withWo = projected && s.Wo.has_value();
    if (wo) {
        t.output.noalias() = t.concat * *s.Wo;
        d.outputCount = nq;
        if (delta)
            *delta = d;
        return true;
    }

    // The inputs: encoded and projected rows.
    const bool rope = s.encoding == Encoding::Rope;
    const bool additive = !rope && t.positionQuery.size() != 0;
    const bool cosine = s.similarity == Similarity::Cosine;
    if (projected) {
        if (q) {
            t.encodedX.row(row) = s.X.row(row);
            if (additive)
                t.encodedX.row(row) += t.positionQuery.row(row);
            t.Q.row(row).noalias() = t.encodedX.row(row) * s.Wq;
        }
        if (k || v) {
            const Matrix &source = s.source ? *s.source : s.X;
            t.encodedSource.row(row) = source.row(row);
            if (additive)
                t.encodedSource.row(row) += t.positionKey.row(row);
            t.K.row(row).noalias() = t.encodedSource.row(row) * s.Wk;
            t.V.row(row).noalias() = t.encodedSource.row(row) * s.Wv;
        }
    } else {
        if (q)
            t.Q.row(row) = additive ? Eigen::RowVectorXd(s.Q.row(row) + t.positionQuery.row(row)) : Eigen::RowVectorXd(s.Q.row(row));
        if (k)
            t.K.row(row) = additive ? Eigen::RowVectorXd(s.K.row(row) + t.positionKey.row(row)) : Eigen::RowVectorXd(s.K.row(row));
        if (v)
            t.V.row(row) = t.positionValue.size() ? Eigen::RowVectorXd(s.V.row(row) + t.positionValue.row(row))
                                                  : Eigen::RowVectorXd(s.V.row(row));
    }

    // Which rows of the softmax and of the output follow, the same in every head.
    const RowRange seeing = k || v ? rowsSeeingKey(t.blocked, nq, row) : RowRange{};
    RowRange weightRows = q ? RowRange{row, 1} : RowRange{};
    if (k) // at after_softmax a blocked entry still takes part in its row's softmax
        weightRows = weightRows.join(s.maskStage == MaskStage::AfterSoftmax && t.blocked.any() ? RowRange{0, nq} : seeing);
    const RowRange outputRows = v ? weightRows.join(seeing) : weightRows;
    const bool anyBlocked = t.blocked.any();
    // A changed key changes one entry of each row, so each row's weights
    // are the old ones times one factor but for that entry (rescaleForKey);
    // not at after_softmax with a mask, where blocked weights are gone.
    const bool rescale = k && (s.maskStage == MaskStage::BeforeSoftmax || !anyBlocked);

    auto updateHead = [&](Eigen::Index i) {
        HeadTrace &head = t.heads[std::size_t(i)];
        const int dk = t.dk, dv = t.dv;
        if (q)
            head.Q.row(row) = rope ? Eigen::RowVectorXd(applyRope(t.Q.block(row, i * dk, 1, dk), t.positionQuery.row(row)).row(0))
                                   : Eigen::RowVectorXd(t.Q.block(row, i * dk, 1, dk));
        if (k)
            head.K.row(row) = rope ? Eigen::RowVectorXd(applyRope(t.K.block(row, i * dk, 1, dk), t.positionKey.row(row)).row(0))
                                   : Eigen::RowVectorXd(t.K.block(row, i * dk, 1, dk));
        // What the key's rescaling below needs of before.
        const Eigen::RowVectorXd vOld = rescale ? Eigen::RowVectorXd(head.V.row(row)) : Eigen::RowVectorXd();
        Eigen::VectorXd xOld;
        if (rescale) {
            xOld.resize(nq);
            for (int r = 0; r < nq; ++r)
                xOld(r) = softmaxInputAt(t, head, r, row);
        }
        if (v)
            head.V.row(row) = t.V.block(row, i * dv, 1, dv);
        if (q) {
            Matrix scores(1, nk);
            if (cosine)
                similarityOfCompared(s.similarity, unitRows(head.Q.row(row)), unitRows(head.K), scores);
            else
                similarityOfCompared(s.similarity, head.Q.row(row), head.K, scores);
            head.scores.row(row) = scores;
            if (head.scaled.size())
                head.scaled.row(row) = scores / t.divisor; // as compute(): x / (c tau), or the same bits
        }
        if (k) {
            Matrix scores(nq, 1);
            if (cosine)
                similarityOfCompared(s.similarity, unitRows(head.Q), unitRows(head.K.row(row)), scores);
            else
                similarityOfCompared(s.similarity, head.Q, head.K.row(row), scores);
            head.scores.col(row) = scores;
            if (head.scaled.size())
                head.scaled.col(row) = scores / t.divisor;
        }
        if (rescale) {
            rescaleForKey(s, t, head, row, q ? row : -1, weightRows.first, weightRows.count, xOld, vOld);
        } else if (weightRows.count) {
            SoftmaxBlock b = softmaxInput(t, head, weightRows.first);
            b.m = weightRows.count;
            b.blocked = anyBlocked ? t.blocked.data() + weightRows.first : nullptr;
            b.ldBlocked = nq;
            b.stage = s.maskStage;
            b.plusOne = s.softmax == SoftmaxKind::PlusOne;
            b.weights = head.weights.data() + weightRows.first;
            b.ldWeights = nq;
            b.rows = head.rows.data() + weightRows.first;
            runSoftmaxBlock(b);
        }
        if (outputRows.count) {
            if (!rescale)
                head.output.middleRows(outputRows.first, outputRows.count).noalias() =
                    head.weights.middleRows(outputRows.first, outputRows.count) * head.V;
            t.concat.block(outputRows.first, i * dv, outputRows.count, dv) =
                head.output.middleRows(outputRows.first, outputRows.count);
        }
    };
    const double dk = t.dk, dv = t.dv;
    const double softmax = double(weightRows.count) * double(nk) * 8.0; // a few passes and an exponential an entry
    const double product = double(outputRows.count) * double(nk) * dv;
    const double scores = (q ? double(nk) * dk : 0.0) + (k ? double(nq) * dk : 0.0);
    runTasks(h, double(h) * (softmax + product + scores), std::max(product, scores), updateHead);

    if (outputRows.count) {
        if (withWo)
            t.output.middleRows(outputRows.first, outputRows.count).noalias() =
                t.concat.middleRows(outputRows.first, outputRows.count) * *s.Wo;
        else
            t.output.middleRows(outputRows.first, outputRows.count) = t.concat.middleRows(outputRows.first, outputRows.count);
    }
    d.scoreRow = q ? row : -1;
    d.scoreColumn = k ? row : -1;
    d.weightFirst = weightRows.first;
    d.weightCount = weightRows.count;
    d.outputFirst = outputRows.first;
    d.outputCount = outputRows.count;
    if (delta)
        *delta = d;
    return true;
}

Scenario toDirect(const Scenario &s)
{
    if (s.mode == InputMode::Direct)
        return s;
    const Trace t = compute(s);
    Scenario d = s;
    d.mode = InputMode::Direct;
    d.Q = t.Q;
    d.K = t.K;
    d.V = t.V;
    if (s.source && d.sourceTokens.empty())
        d.sourceTokens = keyLabels(s);
    d.X = Matrix();
    d.source.reset();
    d.Wq = d.Wk = d.Wv = Matrix();
    d.Wo.reset();
    if (d.encoding == Encoding::Sinusoidal || d.encoding == Encoding::Learned)
        d.encoding = Encoding::None; // already inside Q, K and V
    return d;
}

} // namespace attn
