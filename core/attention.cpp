#include "attention.h"

#include "fastexp.h"
#include "positional.h"
#include "softmax_block.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>

#if defined(_OPENMP)
#include <omp.h>
#endif

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// The baseline build of the softmax's passes: SSE2's two doubles a lane where
// the compiler targets it (every x86-64), one otherwise.
namespace attn::detail {
namespace {
#if defined(__SSE2__)
// Two rows in an SSE2 register.
struct Lane2 {
    static constexpr int kSize = 2;
    using Mask = __m128d;
    __m128d v;

    static Lane2 load(const double *p) { return {_mm_loadu_pd(p)}; }
    void store(double *p) const { _mm_storeu_pd(p, v); }
    // Past the caches where p is aligned (a stage not read again soon).
    void stream(double *p) const
    {
        if ((reinterpret_cast<std::uintptr_t>(p) & 15) == 0)
            _mm_stream_pd(p, v);
        else
            _mm_storeu_pd(p, v);
    }
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
    static double lowest(Lane2 a)
    {
        const double lo = _mm_cvtsd_f64(a.v), hi = _mm_cvtsd_f64(_mm_unpackhi_pd(a.v, a.v));
        return hi < lo ? hi : lo;
    }
    static Lane2 exp(Lane2 a) { return {fastExp(a.v)}; }
    static Lane2 expInRange(Lane2 a) { return {fastExpInRange(a.v)}; }
};
#endif

#if defined(__SSE2__)
using WideLane = Lane2;
#endif
} // namespace
} // namespace attn::detail

#if !defined(__SSE2__)
#define ATTN_WIDE_LANE_IS_LANE1 1
#endif
#include "softmax_passes.h"

namespace attn::detail {

void runSoftmaxBlockBaseline(const SoftmaxBlock &b)
{
    runSoftmaxBlockWide(b);
}

void multiplyBlockBaseline(const ProductBlock &p)
{
    productBlock(p);
}

namespace {
bool setInEnvironment(const char *name)
{
    const char *value = std::getenv(name);
    return value && *value && *value != '0';
}
// ATTN_NO_AVX2=1 keeps the baseline build, ATTN_NO_AVX512=1 the AVX2 one
// (to compare the builds by hand).
bool useAvx2()
{
    static const bool use = hasAvx2Build() && !setInEnvironment("ATTN_NO_AVX2");
    return use;
}
bool useAvx512()
{
    static const bool use = useAvx2() && hasAvx512Build() && !setInEnvironment("ATTN_NO_AVX512");
    return use;
}
} // namespace

bool hasAvx2Build()
{
#if defined(ATTN_HAVE_AVX2_BUILD)
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
    }();
    return has;
#else
    return false;
#endif
}

bool hasAvx512Build()
{
#if defined(ATTN_HAVE_AVX512_BUILD)
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") != 0;
    }();
    return has;
#else
    return false;
#endif
}

#if !defined(ATTN_HAVE_AVX2_BUILD)
void runSoftmaxBlockAvx2(const SoftmaxBlock &b)
{
    runSoftmaxBlockBaseline(b);
}
#endif
#if !defined(ATTN_HAVE_AVX2_BUILD)
void multiplyBlockAvx2(const ProductBlock &p)
{
    multiplyBlockBaseline(p);
}
#endif
#if !defined(ATTN_HAVE_AVX512_BUILD)
void runSoftmaxBlockAvx512(const SoftmaxBlock &b)
{
    runSoftmaxBlockAvx2(b);
}
void multiplyBlockAvx512(const ProductBlock &p)
{
    multiplyBlockAvx2(p);
}
#endif

namespace {

// The block's columns up to its last open entry: past it every entry of
// every row is blocked (a causal mask blocks the keys after the block's
// last query), and masked before the softmax such an entry is 0 in the
// weights and takes no part in the sums or the output. The whole width
// when nothing may be left out: the scores or a stored scaled still to be
// written there, blocked entries that count (after the softmax), or an
// output that Eigen forms (its blocking depends on the width).
Eigen::Index openWidth(const SoftmaxBlock &b)
{
    if (!b.blocked || b.stage != MaskStage::BeforeSoftmax || b.queries
        || (b.scaled && b.scaling != Scaling::None)
        || (b.values && b.valueWidth > kFusedValueWidth))
        return b.cols;
    Eigen::Index width = b.cols;
    for (; width > 0; --width) {
        const bool *column = b.blocked + (width - 1) * b.ldBlocked;
        if (!std::all_of(column, column + b.m, [](bool x) { return x; }))
            break;
    }
    return width > 0 ? width : b.cols; // a block with no open entry: as it is
}

} // namespace

void runSoftmaxBlock(const SoftmaxBlock &block)
{
    SoftmaxBlock b = block;
    b.cols = openWidth(block);
    if (useAvx512())
        runSoftmaxBlockAvx512(b);
    else if (useAvx2())
        runSoftmaxBlockAvx2(b);
    else
        runSoftmaxBlockBaseline(b);
    for (Eigen::Index j = b.cols; j < block.cols; ++j)
        std::fill_n(block.weights + j * block.ldWeights, block.m, 0.0);
}

void multiplyBlock(const ProductBlock &p)
{
    if (useAvx512())
        multiplyBlockAvx512(p);
    else if (useAvx2())
        multiplyBlockAvx2(p);
    else
        multiplyBlockBaseline(p);
}

const char *softmaxBuild()
{
#if defined(__SSE2__)
    return useAvx512() ? "AVX-512" : useAvx2() ? "AVX2" : "SSE2";
#else
    return "scalar";
#endif
}

void multiplyWeightsValues(const SoftmaxBlock &b)
{
    Eigen::Map<Matrix, 0, Eigen::OuterStride<>> out(b.output, b.m, b.valueWidth, Eigen::OuterStride<>(b.ldOutput));
    Eigen::Map<const Matrix, 0, Eigen::OuterStride<>> w(b.weights, b.m, b.cols, Eigen::OuterStride<>(b.ldWeights));
    Eigen::Map<const Matrix, 0, Eigen::OuterStride<>> v(b.values, b.cols, b.valueWidth, Eigen::OuterStride<>(b.ldValues));
    out.noalias() = w * v;
}

} // namespace attn::detail

namespace attn {

namespace {

using detail::kMaxBlockRows;
using detail::runSoftmaxBlock;
using detail::Scaling;
using detail::SoftmaxBlock;

// Whether any flag of b is set: eight flags a word, and a look for an early
// exit only every 512 (Eigen's any() tests them one by one: 0.3 ms at
// n = 1024 with nothing set, a fortieth of the whole forward).
bool anySet(const BoolMatrix &b)
{
    const auto *bytes = reinterpret_cast<const unsigned char *>(b.data());
    const std::size_t n = std::size_t(b.size());
    std::uint64_t all = 0;
    std::size_t i = 0;
    while (i + 8 <= n && all == 0) {
        for (const std::size_t end = std::min(n, i + 512); i + 8 <= end; i += 8) {
            std::uint64_t word;
            std::memcpy(&word, bytes + i, sizeof word);
            all |= word;
        }
    }
    for (; i < n && all == 0; ++i)
        all |= bytes[i];
    return all != 0;
}

// out = a b for m rows of a (from `a`, columns ld apart) into m rows of out:
// multiplyBlock's order, so a row alone gets the bits it has in the whole.
void multiplyRows(const double *a, Eigen::Index ldA, Eigen::Index m, const Matrix &b, double *out, Eigen::Index ldOut)
{
    detail::ProductBlock p;
    p.a = a;
    p.ldA = ldA;
    p.b = b.data();
    p.ldB = b.rows();
    p.out = out;
    p.ldOut = ldOut;
    p.m = m;
    p.inner = b.rows();
    p.cols = b.cols();
    detail::multiplyBlock(p);
}
// out = a b, whole (out resized to a's rows by b's columns).
void multiplyInto(const Matrix &a, const Matrix &b, Matrix &out)
{
    assert(a.cols() == b.rows());
    out.resize(a.rows(), b.cols());
    multiplyRows(a.data(), a.rows(), a.rows(), b, out.data(), out.rows());
}
// Rows [first, first + count) of out = the same rows of a, times b.
void multiplyRowsOf(const Matrix &a, Eigen::Index first, Eigen::Index count, const Matrix &b, Matrix &out)
{
    assert(a.cols() == b.rows() && out.cols() == b.cols() && first + count <= a.rows() && first + count <= out.rows());
    if (count == 0 || out.size() == 0)
        return;
    // (A matrix of no columns has no data: none of it is read then.)
    multiplyRows(a.size() ? a.data() + first : nullptr, a.rows(), count, b, out.data() + first, out.rows());
}

// The d_k for which pass 1 forms the scores itself.
bool fusesScores(Eigen::Index dk)
{
    return dk == 1 || dk == 2 || dk == 3 || dk == 4 || dk == 8 || dk == 16;
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

#if defined(_OPENMP)
constexpr double kParallelWork = 8.0 * 1024 * 1024;

// Eigen gives a product a second thread from 2 * 50000 multiply-adds on
// (Parallelizer.h: one thread per 50000).
constexpr double kEigenSplitWork = 100000;
#endif

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
// kernel takes rows in panels (of 4 with SSE2 and no FMA; 12 with AVX, 24
// with AVX-512) and handles the rows left over after the last whole panel
// in a different way, which rounds differently. Blocks of whole panels put every row through the
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

bool scoresSurvive(const Settings &before, const Settings &after)
{
    return before.similarity == after.similarity && before.encoding == after.encoding && before.seed == after.seed;
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
    const bool anyBlocked = anySet(t.blocked);
    const bool projected = s.mode == InputMode::Projected;
    const bool rope = s.encoding == Encoding::Rope;
    const bool cosine = s.similarity == Similarity::Cosine;
    const Matrix &source = projected && s.source ? *s.source : s.X;

    // The scores kept: every head's Q, K, V and scores must be there in the
    // scenario's shapes (a trace of another scenario never passes).
    auto holdsScores = [&] {
        if (int(t.heads.size()) != h || t.Q.rows() != nq || t.K.rows() != nk || t.V.rows() != nk
            || t.concat.rows() != nq || t.concat.cols() != Eigen::Index(h) * t.dv)
            return false;
        return std::all_of(t.heads.begin(), t.heads.end(), [&](const HeadTrace &head) {
            return head.scores.rows() == nq && head.scores.cols() == nk && head.Q.rows() == nq && head.Q.cols() == t.dk
                   && head.K.rows() == nk && head.K.cols() == t.dk && head.V.rows() == nk && head.V.cols() == t.dv
                   && head.weights.rows() == nq && head.weights.cols() == nk && head.output.rows() == nq
                   && head.output.cols() == t.dv;
        });
    };
    const bool kept = options.scoresKept && holdsScores();

    if (kept) {
        // The inputs, the encoding and the projections are as they were.
    } else if (projected) {
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
    if (rope && !kept) {
        t.positionQuery = ropeAngles(nq, t.dk);
        t.positionKey = ropeAngles(nk, t.dk);
    }

    // Every matrix is allocated here, on the calling thread; the tasks fill them.
    // (Resized in place: a matrix of the same size keeps its memory.)
    t.heads.resize(std::size_t(h));
    for (HeadTrace &head : t.heads) {
        head.scores.resize(nq, nk); // (kept: the same size, so the same memory and values)
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
    std::vector<Matrix> unitQ(cosine && !kept ? std::size_t(h) : 0), unitK(cosine && !kept ? std::size_t(h) : 0);

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
    const Eigen::Index projectionTasks = projected && !kept ? 3 : 0;
    auto project = [&](Eigen::Index k) {
        if (k == 0)
            multiplyInto(t.encodedX, s.Wq, t.Q);
        else if (k == 1)
            multiplyInto(t.encodedSource, s.Wk, t.K);
        else
            multiplyInto(t.encodedSource, s.Wv, t.V);
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
        SoftmaxBlock b = model;
        if (kept) {
            // The scores are read as they are.
        } else if (s.similarity == Similarity::Dot && fusesScores(t.dk)) {
            b.queries = head.Q.data() + r0;
            b.ldQueries = head.Q.rows();
            b.keys = head.K.data();
            b.ldKeys = head.K.rows();
            b.keyWidth = t.dk;
            b.scoresOut = head.scores.data() + r0;
        } else {
            const Matrix &Q = cosine ? unitQ[std::size_t(i)] : head.Q;
            const Matrix &K = cosine ? unitK[std::size_t(i)] : head.K;
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
        forTasks(shared, kept ? 0 : h, error, prepareHead);
        forTasks(shared, Eigen::Index(h) * qBlocks, error, attendBlock);
        if (withWo) // whole, on one thread, as before: it is small
            forTasks(shared, 1, error, [&](Eigen::Index) { multiplyInto(t.concat, *s.Wo, t.output); });
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
    b.blocked = anySet(t.blocked) ? t.blocked.data() + r : nullptr;
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
    const bool anyBlocked = anySet(t.blocked);
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
        multiplyInto(t.concat, *s.Wo, t.output);
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
            multiplyRowsOf(t.encodedX, row, 1, s.Wq, t.Q);
        }
        if (k || v) {
            const Matrix &source = s.source ? *s.source : s.X;
            t.encodedSource.row(row) = source.row(row);
            if (additive)
                t.encodedSource.row(row) += t.positionKey.row(row);
            multiplyRowsOf(t.encodedSource, row, 1, s.Wk, t.K);
            multiplyRowsOf(t.encodedSource, row, 1, s.Wv, t.V);
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
    const bool anyBlocked = anySet(t.blocked);
    const RowRange seeing = k || v ? rowsSeeingKey(t.blocked, nq, row) : RowRange{};
    RowRange weightRows = q ? RowRange{row, 1} : RowRange{};
    if (k) // at after_softmax a blocked entry still takes part in its row's softmax
        weightRows = weightRows.join(s.maskStage == MaskStage::AfterSoftmax && anyBlocked ? RowRange{0, nq} : seeing);
    const RowRange outputRows = v ? weightRows.join(seeing) : weightRows;
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
            multiplyRowsOf(t.concat, outputRows.first, outputRows.count, *s.Wo, t.output);
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
