// The masked softmax's passes, for softmax_block.h's SoftmaxBlock: included
// once by each build (attention.cpp for the baseline, softmax_avx2.cpp for
// AVX2, softmax_avx512.cpp for AVX-512), each of which first defines
// WideLane, the widest lane type it has, in attn::detail's anonymous
// namespace. Everything here has internal linkage, and uses nothing from
// the standard library or Eigen that a compiler would emit as a shared
// (weak) function: a wide build's copy of such a function could otherwise
// replace the baseline's everywhere in the program. tests/CMakeLists.txt
// (softmax_avx2_symbols) checks the wide objects for that.

#include "fastexp.h"
#include "softmax_block.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>

namespace attn::detail {

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
//      scaled = scores / (c tau), written (into the weights when it is not
//      kept, to be overwritten by pass 2); each row's maximum over
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
// done several rows at a time (WideLane) or alone, whichever block holds it,
// and in every build.


// Small helpers instead of <algorithm>'s templates (see the top).
inline void fillDoubles(double *p, std::size_t n, double v)
{
    for (std::size_t i = 0; i < n; ++i)
        p[i] = v;
}
inline double largerOf(double a, double b) { return a < b ? b : a; }

// One row (a plain double), with the operations the passes need; `Mask`
// says in which lanes a condition holds. The wide lanes (Lane2 in
// attention.cpp, Lane4 in softmax_avx2.cpp) have the same operations.
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


// x stored at p; with `stream`, past the caches where the lane type can
// (a stage nothing reads again soon).
template <class L>
inline void put(L x, double *p, bool stream)
{
    if constexpr (requires { x.stream(p); }) {
        if (stream)
            return x.stream(p);
    }
    x.store(p);
}

// Every lane of L at `b` is blocked (L::kSize flags from b).
template <class L>
inline bool allBlockedAt(const bool *b)
{
    bool all = true;
    for (int k = 0; k < L::kSize; ++k)
        all = all && b[k];
    return all;
}

// Columns j..j+C-1 are blocked in every lane of L from row i: the passes
// then skip the lanes' exponentials and products (a causal mask blocks
// about half the entries). The weights there are 0, which adds nothing to
// a row's sums or output (+0 and -0 both leave a sum as it was, V finite),
// so skipping keeps every bit.
template <class L, int C>
inline bool columnsBlocked(const bool *blockedAll, Eigen::Index ldBlocked, Eigen::Index j, Eigen::Index i)
{
    bool all = true;
    for (int c = 0; c < C; ++c)
        all = all && allBlockedAt<L>(blockedAll + (j + c) * ldBlocked + i);
    return all;
}

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


#if defined(ATTN_WIDE_LANE_IS_LANE1)
using WideLane = Lane1;
#endif

// f.operator()<Lane>(i) for the rows i of [0, m): WideLane::kSize at a
// time, then the last few alone.
template <class F>
inline void forRows(Eigen::Index m, F &&f)
{
    Eigen::Index i = 0;
    if constexpr (WideLane::kSize > 1)
        for (; i + WideLane::kSize <= m; i += WideLane::kSize)
            f.template operator()<WideLane>(i);
    for (; i < m; ++i)
        f.template operator()<Lane1>(i);
}

// A cache line. The wide lanes' loads and stores at a multiple of it never
// straddle two lines (an AVX-512 one at a multiple of only 16 bytes always
// does), and their streaming stores apply (put). Eigen's matrices start on
// one too (EIGEN_MAX_ALIGN_BYTES in CMakeLists.txt).
constexpr std::size_t kLine = 64;

// n doubles from a multiple of kLine, not set; freed by freeLines.
inline double *newLines(std::size_t n)
{
    return new (std::align_val_t(kLine)) double[n];
}
inline void freeLines(double *p)
{
    ::operator delete[](p, std::align_val_t(kLine));
}

// The running values of a block's rows, m of each, in one allocation, each
// array from a cache line.
struct RowRun {
    explicit RowRun(Eigen::Index m)
        : values(newLines(8 * stride(m))), open(new char[std::size_t(m)])
    {
        const std::size_t n = std::size_t(m);
        fillDoubles(values, 8 * stride(m), 0.0);
        double *p = values;
        for (double **array : {&max, &z, &eShift, &zInverse, &sums, &maxWeight, &argmax, &logZ}) {
            *array = p;
            p += stride(m);
        }
        fillDoubles(max, n, -kInf);
        fillDoubles(maxWeight, n, -kInf);
        for (std::size_t i = 0; i < n; ++i)
            open[i] = 1;
    }
    ~RowRun()
    {
        freeLines(values);
        delete[] open;
    }
    static std::size_t stride(Eigen::Index m) { return (std::size_t(m) + 7) / 8 * 8; }
    RowRun(const RowRun &) = delete;
    RowRun &operator=(const RowRun &) = delete;
    double *values; // zeros, but for the two set to -inf (8 arrays, stride(m) apart)
    char *open;     // m flags: the row has an entry that takes part
    double *max, *z, *eShift, *zInverse, *sums, *maxWeight, *argmax; // argmax: a column, as a double
    double *logZ;   // softmax_1's log of each row's denominator
    double lowest = -kInf; // no entry that takes part is below this (pass 1; -inf: not known)
};

// Pass 1: scaled (unless the input is scaled already), each row's maximum
// over the entries that take part, and (kArgmax) the first column with it.
template <bool kExclude, Scaling kScaling, bool kArgmax, int DK>
void maxPass(const SoftmaxBlock &b, RowRun &run)
{
    constexpr bool kStore = kScaling != Scaling::None; // (an input scaled already is not copied)
    const double *queries = b.queries, *keys = b.keys;
    const Eigen::Index ldQueries = b.ldQueries, ldKeys = b.ldKeys;
    double *scoresOut = b.scoresOut;
    const bool stream = b.stream;
    // Locals, so that the compiler need not reload them after every store.
    const Eigen::Index m = b.m, ldIn = b.ldIn, ldScaled = b.ldScaled, ldBlocked = b.ldBlocked;
    const double *scores = b.in;
    double *scaledAll = b.scaled;
    const bool *blockedAll = b.blocked;
    const double divisor = b.divisor, inverse = b.inverse;
    double *rowMax = run.max, *argmax = run.argmax;
    // The lowest entry, where every entry takes part (see expPass).
    struct Lowest {
        WideLane wide = WideLane::all(kInf);
        Lane1 one = Lane1::all(kInf);
    } lowest;
    // Four keys a visit to each run of rows: the queries' entries and the
    // running maximum are loaded once for all four.
    forColumns<4>(b.cols, [=, &lowest]<int C>(Eigen::Index j) {
        // Keys j..j+C-1's entries, each in every lane of both lane types.
        [[maybe_unused]] Lane1 key1[C][DK > 0 ? DK : 1];
        [[maybe_unused]] WideLane keyWide[C][DK > 0 ? DK : 1];
        if constexpr (DK > 0) {
            for (int k = 0; k < C; ++k)
                for (int c = 0; c < DK; ++c) {
                    key1[k][c] = Lane1::all(keys[c * ldKeys + j + k]);
                    keyWide[k][c] = WideLane::all(key1[k][c].v);
                }
        }
        forRows(m, [=, &lowest, &key1, &keyWide]<class L>(Eigen::Index i) {
            (void)lowest, (void)key1, (void)keyWide; // unused in some of the variants
            [[maybe_unused]] L query[DK > 0 ? DK : 1];
            if constexpr (DK > 0)
                for (int c = 0; c < DK; ++c)
                    query[c] = L::load(queries + c * ldQueries + i);
            L best = L::load(rowMax + i);
            for (int k = 0; k < C; ++k) {
                const Eigen::Index column = j + k;
                L x;
                if constexpr (DK > 0) {
                    const L *key;
                    if constexpr (L::kSize == 1)
                        key = key1[k];
                    else
                        key = keyWide[k];
                    x = query[0] * key[0];
                    for (int c = 1; c < DK; ++c)
                        x = x + query[c] * key[c];
                    put(x, scoresOut + column * ldIn + i, stream);
                } else {
                    x = L::load(scores + column * ldIn + i);
                }
                if constexpr (kScaling == Scaling::Divide)
                    x = x / L::all(divisor);
                else if constexpr (kScaling == Scaling::Multiply)
                    x = x * L::all(inverse);
                if constexpr (kStore)
                    x.store(scaledAll + column * ldScaled + i);
                if constexpr (kExclude) {
                    x = L::select(L::blockedAt(blockedAll + column * ldBlocked + i), L::all(-kInf), x);
                } else {
                    if constexpr (L::kSize == 1)
                        lowest.one = L::min(lowest.one, x);
                    else
                        lowest.wide = L::min(lowest.wide, x);
                }
                if constexpr (kArgmax) {
                    // A row's maximum rises rarely (about ln n times in n random
                    // entries), so this branch is seldom taken.
                    const typename L::Mask better = L::greater(x, best);
                    if (L::any(better))
                        L::select(better, L::all(double(column)), L::load(argmax + i)).store(argmax + i);
                }
                best = L::max(best, x);
            }
            best.store(rowMax + i);
        });
    });
    if constexpr (!kExclude) {
        const double wide = WideLane::lowest(lowest.wide), one = lowest.one.v;
        run.lowest = wide < one ? wide : one;
    }
}

// Which rows have an entry open, when anything is blocked. Most masks open
// every row within the first few keys (a causal one at the first), so the
// scan stops once every row is open.
void findOpenRows(const SoftmaxBlock &b, RowRun &run)
{
    const Eigen::Index m = b.m;
    char *__restrict open = run.open;
    for (Eigen::Index i = 0; i < m; ++i)
        open[i] = 0;
    for (Eigen::Index j = 0; j < b.cols; ++j) {
        const bool *__restrict blocked = b.blocked + j * b.ldBlocked;
        for (Eigen::Index i = 0; i < m; ++i)
            open[i] |= char(!blocked[i]);
        if (j % 16 == 0) {
            char all = 1;
            for (Eigen::Index i = 0; i < m; ++i)
                all &= open[i];
            if (all)
                return;
        }
    }
}

// Pass 2: e = exp(x - max), blocked entries zeroed, and the row sums z.
// For the entropy it also sums e (x - max), to which a blocked entry
// (e = 0) adds nothing: with w = e / z,
//   -sum w log w = log z * sum w - sum e (x - max) / z,
// one multiply-add per entry instead of one logarithm.
template <bool kMasked, bool kExclude, bool kStats, bool kInRange>
void expPass(const SoftmaxBlock &b, const double *scaledAll, Eigen::Index ldScaled, RowRun &run)
{
    const Eigen::Index m = b.m, ldWeights = b.ldWeights, ldBlocked = b.ldBlocked;
    double *weights = b.weights;
    const bool *blockedAll = b.blocked;
    const double *rowMax = run.max;
    double *z = run.z, *eShift = run.eShift;
    forColumns<2>(b.cols, [=]<int C>(Eigen::Index j) {
        forRows(m, [=]<class L>(Eigen::Index i) {
            if constexpr (kExclude) {
                if (columnsBlocked<L, C>(blockedAll, ldBlocked, j, i)) {
                    for (int c = 0; c < C; ++c)
                        L::all(0.0).store(weights + (j + c) * ldWeights + i);
                    return;
                }
            }
            const L shift = L::load(rowMax + i);
            L sum = L::load(z + i), sumShifted = L::load(eShift + i);
            for (int c = 0; c < C; ++c) {
                L x = L::load(scaledAll + (j + c) * ldScaled + i);
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
// kSkip: blocked entries drop out of the rows (mask before the softmax), so
// their weights are 0 already and lanes blocked throughout are left alone.
template <bool kSums, bool kSearch, bool kSkip>
void normalisePass(const SoftmaxBlock &b, RowRun &run)
{
    const Eigen::Index m = b.m, ldWeights = b.ldWeights, ldBlocked = b.ldBlocked;
    double *weights = b.weights;
    const bool *blockedAll = b.blocked;
    const double *zInverse = run.zInverse;
    double *sums = run.sums, *maxWeight = run.maxWeight, *argmax = run.argmax;
    forColumns<4>(b.cols, [=]<int C>(Eigen::Index j) {
        forRows(m, [=]<class L>(Eigen::Index i) {
            if constexpr (kSkip)
                if (columnsBlocked<L, C>(blockedAll, ldBlocked, j, i))
                    return;
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
// read once a visit and held in every lane of both lane types.
template <int DV, bool kSums, bool kSearch, bool kSkip>
void normaliseOutputPass(const SoftmaxBlock &b, RowRun &run)
{
    const Eigen::Index m = b.m, ldWeights = b.ldWeights, ldOutput = b.ldOutput, ldValues = b.ldValues;
    const Eigen::Index ldBlocked = b.ldBlocked;
    const bool *blockedAll = b.blocked;
    double *weights = b.weights, *output = b.output;
    double *weightsOut = b.weightsOut ? b.weightsOut : b.weights;
    const Eigen::Index ldOut = b.weightsOut ? b.ldWeightsOut : b.ldWeights;
    const bool apart = b.weightsOut != nullptr, stream = b.stream;
    const double *values = b.values;
    const double *zInverse = run.zInverse;
    double *sums = run.sums, *maxWeight = run.maxWeight, *argmax = run.argmax;
    for (int c = 0; c < DV; ++c)
        fillDoubles(output + c * ldOutput, std::size_t(m), 0.0);
    forColumns<8>(b.cols, [=]<int C>(Eigen::Index j) {
        // V's entries for these columns, in every lane of both lane types.
        Lane1 v1[C][DV];
        WideLane vWide[C][DV];
        for (int k = 0; k < C; ++k)
            for (int c = 0; c < DV; ++c) {
                v1[k][c] = Lane1::all(values[c * ldValues + j + k]);
                vWide[k][c] = WideLane::all(v1[k][c].v);
            }
        forRows(m, [=, &v1, &vWide]<class L>(Eigen::Index i) {
            if constexpr (kSkip)
                if (columnsBlocked<L, C>(blockedAll, ldBlocked, j, i)) {
                    if (apart)
                        for (int k = 0; k < C; ++k)
                            L::all(0.0).store(weightsOut + (j + k) * ldOut + i);
                    return;
                }
            const L(*v)[DV];
            if constexpr (L::kSize == 1)
                v = v1;
            else
                v = vWide;
            const L scale = L::load(zInverse + i);
            L sum = kSums ? L::load(sums + i) : L::all(0.0);
            L best = kSearch ? L::load(maxWeight + i) : L::all(0.0);
            L where = kSearch ? L::load(argmax + i) : L::all(0.0);
            L acc[DV];
            for (int c = 0; c < DV; ++c)
                acc[c] = L::load(output + c * ldOutput + i);
            for (int k = 0; k < C; ++k) {
                const L x = L::load(weights + (j + k) * ldWeights + i) * scale;
                put(x, weightsOut + (j + k) * ldOut + i, stream);
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
template <bool kSums, bool kSearch, bool kSkip>
void finishPass(const SoftmaxBlock &b, RowRun &run)
{
    if (!b.output)
        return normalisePass<kSums, kSearch, kSkip>(b, run);
    switch (b.valueWidth) {
    case 1: return normaliseOutputPass<1, kSums, kSearch, kSkip>(b, run);
    case 2: return normaliseOutputPass<2, kSums, kSearch, kSkip>(b, run);
    case 3: return normaliseOutputPass<3, kSums, kSearch, kSkip>(b, run);
    case 4: return normaliseOutputPass<4, kSums, kSearch, kSkip>(b, run);
    case 5: return normaliseOutputPass<5, kSums, kSearch, kSkip>(b, run);
    case 6: return normaliseOutputPass<6, kSums, kSearch, kSkip>(b, run);
    case 7: return normaliseOutputPass<7, kSums, kSearch, kSkip>(b, run);
    case 8: return normaliseOutputPass<8, kSums, kSearch, kSkip>(b, run);
    case 12: return normaliseOutputPass<12, kSums, kSearch, kSkip>(b, run);
    case 16: return normaliseOutputPass<16, kSums, kSearch, kSkip>(b, run);
    default: break;
    }
    normalisePass<kSums, kSearch, kSkip>(b, run);
    multiplyWeightsValues(b);
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

    // Pass 1 writes scaled where runSoftmaxBlockWide gave it a place (the
    // weights, when it is not kept), and pass 2 reads x there; an input
    // scaled already (Scaling::None) is read as it is.
    constexpr bool kArgmax = kStats && !kSearch;
    switch (b.scaling) {
    case Scaling::None:
        maxPass<kExclude, Scaling::None, kArgmax, DK>(b, run);
        break;
    case Scaling::Copy:
        maxPass<kExclude, Scaling::Copy, kArgmax, DK>(b, run);
        break;
    case Scaling::Divide:
        maxPass<kExclude, Scaling::Divide, kArgmax, DK>(b, run);
        break;
    case Scaling::Multiply:
        maxPass<kExclude, Scaling::Multiply, kArgmax, DK>(b, run);
        break;
    }
    if constexpr (kMasked)
        findOpenRows(b, run);
    if constexpr (kExclude)
        for (Eigen::Index i = 0; i < m; ++i)
            if (!run.open[i])
                run.max[i] = 0.0; // any finite shift: the row is zeroed below

    // Every x - max is within fastExp's main range when the block's lowest
    // entry is within it of the highest maximum: then no lane needs the check.
    double highest = m ? run.max[0] : 0.0;
    for (Eigen::Index i = 1; i < m; ++i)
        highest = largerOf(highest, run.max[i]);
    const bool inRange = !kExclude && run.lowest - highest >= -kFastExpRange;
    const double *x = b.scaling != Scaling::None ? b.scaled : b.in;
    const Eigen::Index ldX = b.scaling != Scaling::None ? b.ldScaled : b.ldIn;
    if (inRange)
        expPass<kMasked, kExclude, kStats, true>(b, x, ldX, run);
    else
        expPass<kMasked, kExclude, kStats, false>(b, x, ldX, run);

    // A fully masked row has every entry blocked, so it is all zero already.
    // softmax_1 keeps log of its denominator for the entropy (z is not it).
    const bool keepLogZ = b.plusOne && kStats;
    for (Eigen::Index i = 0; i < m; ++i) {
        if (!(run.open[i] && run.z[i] > 0)) {
            run.z[i] = 1.0;
            run.zInverse[i] = 1.0;
            run.logZ[i] = 0.0;
        } else if (b.plusOne) {
            const PlusOneDenominator d = plusOneDenominator(run.max[i], run.z[i]);
            run.zInverse[i] = d.inverse;
            run.logZ[i] = d.log;
        } else {
            run.zInverse[i] = 1.0 / run.z[i];
        }
    }
    if constexpr (kSearch)
        fillDoubles(run.argmax, std::size_t(m), 0.0);
    finishPass<kStats, kSearch, kExclude>(b, run);

    if constexpr (kStats) {
        for (Eigen::Index i = 0; i < m; ++i) {
            RowStats &r = b.rows[i];
            r = RowStats{};
            if (!run.open[i]) {
                r.fullyMasked = true;
                continue;
            }
            r.sum = run.sums[i];
            // With log w = (x - max) - log Z for both softmaxes (Z = z, or e^(-max) + z).
            const double logDenominator = keepLogZ ? run.logZ[i] : std::log(run.z[i]);
            r.entropy = largerOf(0.0, logDenominator * run.sums[i] - run.eShift[i] * run.zInverse[i]);
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

void runSoftmaxBlockKeyed(const SoftmaxBlock &b);

void runSoftmaxBlockWide(const SoftmaxBlock &block)
{
    SoftmaxBlock b = block;
    // Scaled not kept: pass 1 writes it into the weights all the same (pass
    // 2 then overwrites each entry with its exponential), so the softmax
    // takes the very bits a stored scaled would hold, the weights are the
    // same whether scaled is kept or not, and a large block is banded below
    // whatever c tau is (a power of two, or 1 with scaling off, included:
    // forming x again from the scores in pass 2 would read them back from
    // memory, 1.75 times the forward's time at n = 1024).
    if (!b.scaled && b.scaling != Scaling::None) {
        b.scaled = b.weights;
        b.ldScaled = b.ldWeights;
    }
    // A block whose x and e would not stay in the cache between the passes
    // (the derived forward at n = 1024: 8 MB each) is worked through in
    // bands of rows whose x and e do, in a scratch of kBandDoubles: pass 1
    // writes x there, pass 2 rewrites it with e, and pass 3 reads e there and
    // writes each final weight once, past the caches (`stream`), as pass 1
    // does the scores where they are aligned alike. So no n x n stage is read
    // back from memory. Each row's operations are the same as in one block,
    // so its bits are too (test_softmax_builds).
    const Eigen::Index dv = b.valueWidth;
    const bool fused = (dv >= 1 && dv <= 8) || dv == 12 || dv == 16; // finishPass's widths
    const bool banded = b.scaled == b.weights && b.output && fused && b.in
        && b.m * b.cols > kBandDoubles && b.cols > 0;
    if (banded) {
        Eigen::Index band = (kBandDoubles / b.cols) / 8 * 8;
        if (band < 8)
            band = 8;
        double *scratch = newLines(std::size_t(band * b.cols));
        // The first band ends where the weights' columns reach a 64-byte
        // boundary (all columns alike when ld is a multiple of 8), so that
        // every later band's weights stream. (Eigen's matrices start on a
        // cache line, so with ld a multiple of 8 that is the first band, and
        // the scores stream too.)
        const auto offset = Eigen::Index((reinterpret_cast<std::uintptr_t>(b.weights) & 63) / sizeof(double));
        const Eigen::Index first = offset ? 8 - offset : band;
        for (Eigen::Index r0 = 0, rows = first; r0 < b.m; r0 += rows, rows = band) {
            SoftmaxBlock part = b;
            part.m = b.m - r0 < rows ? b.m - r0 : rows;
            part.in = b.in + r0;
            if (b.scoresOut)
                part.scoresOut = b.scoresOut + r0;
            if (b.queries)
                part.queries = b.queries + r0;
            if (b.blocked)
                part.blocked = b.blocked + r0;
            if (b.rows)
                part.rows = b.rows + r0;
            part.output = b.output + r0;
            part.scaled = part.weights = scratch;
            part.ldScaled = part.ldWeights = part.m;
            part.weightsOut = b.weights + r0;
            part.ldWeightsOut = b.ldWeights;
            part.stream = true;
            runSoftmaxBlockKeyed(part);
        }
        freeLines(scratch);
        __builtin_ia32_sfence(); // the streamed stores seen before the threads' barrier
        return;
    }
    runSoftmaxBlockKeyed(b);
}

// out = A B for the rows i.. of L (see ProductBlock), columns j0..j0+J-1:
// J running sums, each a row's column, A's lane loaded once for all J.
template <class L, int J>
inline void productColumns(const ProductBlock &p, Eigen::Index i, Eigen::Index j0)
{
    L acc[J];
    for (int c = 0; c < J; ++c)
        acc[c] = L::all(0.0);
    for (Eigen::Index k = 0; k < p.inner; ++k) {
        const L a = L::load(p.a + k * p.ldA + i);
        for (int c = 0; c < J; ++c)
            acc[c] = acc[c] + a * L::all(p.b[(j0 + c) * p.ldB + k]);
    }
    for (int c = 0; c < J; ++c)
        acc[c].store(p.out + (j0 + c) * p.ldOut + i);
}

void productBlock(const ProductBlock &p)
{
    forRows(p.m, [&]<class L>(Eigen::Index i) {
        Eigen::Index j = 0;
        for (; j + 8 <= p.cols; j += 8)
            productColumns<L, 8>(p, i, j);
        for (; j < p.cols; ++j)
            productColumns<L, 1>(p, i, j);
    });
}

void runSoftmaxBlockKeyed(const SoftmaxBlock &b)
{
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

} // namespace

} // namespace attn::detail
