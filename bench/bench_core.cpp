// bench_core: the attention forward beside the bare Eigen products it cannot
// avoid, in the same run (docs/performance.md has the command and figures).
//
// Every case is self-attention with d_model = 64 over n tokens, h heads,
// d_k = d_v = 64 / h, dot similarity, sqrt(d_k) scaling, no mask, no encoding.
//
//   BM_BareProducts        per head: S_h = Q_h K_h^T (n by n) and
//                          O_h = W_h V_h (n by n times n by d_v), written with
//                          noalias into preallocated matrices; the heads one
//                          after another, each product as Eigen runs it (with
//                          OpenMP, Eigen may split a product over threads).
//   BM_BareProductsByHead  the same products, the heads shared among the
//                          threads (OpenMP), each product on one thread: how
//                          the forward itself uses threads. With one thread
//                          it is BM_BareProducts again.
//   BM_Exponentials        per head: exp of every entry of an n by n matrix
//                          (Eigen's vectorised exp, into a preallocated
//                          matrix), one thread.
//   BM_FastExponentials    the same with attn::fastExp (core/fastexp.h), the
//                          exponential the forward uses; one thread.
//   BM_Forward/projected   attn::compute: X (n by 64) and Wq, Wk, Wv (64 by 64).
//   BM_Forward/direct      attn::compute on the Q, K, V that projection gives.
//   BM_Forward/derived     BM_Forward/projected without the scaled stage
//                          stored (the views derive it); derived_dk16 the
//                          same at h = 4, where c = sqrt(d_k) = 4.
//
// Times are wall-clock ("Time"; the "CPU" column is the calling thread's
// alone), so that threads count, and the "_min" of repetitions is the
// figure least disturbed by whatever else the machine runs. Items are
// attention weights, h * n^2 per forward. The later cases report x_bare =
// their time / that of the faster of the two bare-products cases at the same
// n and h: the baseline has the same threads as the forward, used at least as
// well. (The bare products are registered first, so they have run by then.)
// OMP_NUM_THREADS sets the threads (default: one per core); the context line
// "threads" says how many.
//
// The heap. A forward allocates every stage of every head afresh (about
// 3 h n^2 doubles: 200 MB at n = 1024, h = 8), and whether those pages come
// back from the kernel zeroed, at one page fault per 4 KiB, depends on what
// glibc did with the previous trace's memory: by default sometimes yes,
// sometimes no. So the heap is pinned to one of two states:
//   warm (default)  freed memory stays in the process and is reused, as in a
//                   long-running app; the figures measure the computation.
//   --cold_heap     freed memory goes straight back to the kernel, so every
//                   forward's matrices come fresh from it (glibc's defaults,
//                   without its adaptive thresholds); the figures include
//                   the page faults.

#include "attention.h"
#include "fastexp.h"
#include "random.h"
#include "softmax_block.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

constexpr int kModelWidth = 64;

attn::Matrix randomMatrix(attn::Rng &rng, Eigen::Index rows, Eigen::Index cols, double sd)
{
    attn::Matrix m(rows, cols);
    for (Eigen::Index j = 0; j < cols; ++j)
        for (Eigen::Index i = 0; i < rows; ++i)
            m(i, j) = sd * rng.normal();
    return m;
}

// Fixed-seed inputs. X ~ N(0, 1) and W ~ N(0, 1/64), so that the entries of
// Q, K and V are near unit size and the softmax is neither flat nor one-hot.
attn::Scenario projectedScenario(int n, int h)
{
    attn::Rng rng(std::uint64_t(n) * 100 + std::uint64_t(h));
    const double sd = 1.0 / std::sqrt(double(kModelWidth));
    attn::Scenario s;
    s.mode = attn::InputMode::Projected;
    s.heads = h;
    s.X = randomMatrix(rng, n, kModelWidth, 1.0);
    s.Wq = randomMatrix(rng, kModelWidth, kModelWidth, sd);
    s.Wk = randomMatrix(rng, kModelWidth, kModelWidth, sd);
    s.Wv = randomMatrix(rng, kModelWidth, kModelWidth, sd);
    return s;
}

// Seconds per iteration of the faster bare-products case, by (n, h).
std::map<std::pair<int, int>, double> &bareSeconds()
{
    static std::map<std::pair<int, int>, double> seconds;
    return seconds;
}

void recordBare(int n, int h, double seconds)
{
    auto [it, added] = bareSeconds().try_emplace({n, h}, seconds);
    if (!added)
        it->second = std::min(it->second, seconds);
}

// Wall-clock time of the timing loop, per iteration.
class LoopClock {
public:
    LoopClock() : m_start(std::chrono::steady_clock::now()) {}
    double secondsPerIteration(const benchmark::State &state) const
    {
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - m_start;
        return elapsed.count() / double(state.iterations());
    }

private:
    std::chrono::steady_clock::time_point m_start;
};

void reportRatio(benchmark::State &state, int n, int h, double seconds)
{
    if (auto bare = bareSeconds().find({n, h}); bare != bareSeconds().end())
        state.counters["x_bare"] = seconds / bare->second;
}

void setItems(benchmark::State &state, int n, int h)
{
    state.SetItemsProcessed(state.iterations() * std::int64_t(h) * n * n);
}

// The products of head i, as the forward has them.
void headProducts(const attn::HeadTrace &head, attn::Matrix &scores, attn::Matrix &output)
{
    scores.noalias() = head.Q * head.K.transpose();
    output.noalias() = head.weights * head.V;
    benchmark::DoNotOptimize(scores.data());
    benchmark::DoNotOptimize(output.data());
}

void bareProducts(benchmark::State &state, bool byHead)
{
    const int n = int(state.range(0)), h = int(state.range(1));
    // The operands are the forward's own per-head Q, K, V and weights.
    const attn::Trace t = attn::compute(projectedScenario(n, h));
    std::vector<attn::Matrix> scores(std::size_t(h), attn::Matrix::Zero(n, n));
    std::vector<attn::Matrix> outputs(std::size_t(h), attn::Matrix::Zero(n, t.dv));

    const LoopClock clock;
    for (auto _ : state) {
        if (byHead) {
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic)
#endif
            for (int i = 0; i < h; ++i)
                headProducts(t.heads[std::size_t(i)], scores[std::size_t(i)], outputs[std::size_t(i)]);
        } else {
            for (int i = 0; i < h; ++i)
                headProducts(t.heads[std::size_t(i)], scores[std::size_t(i)], outputs[std::size_t(i)]);
        }
        benchmark::ClobberMemory();
    }
    recordBare(n, h, clock.secondsPerIteration(state));
    setItems(state, n, h);
}

void BM_BareProducts(benchmark::State &state)
{
    bareProducts(state, false);
}

void BM_BareProductsByHead(benchmark::State &state)
{
    bareProducts(state, true);
}

void exponentials(benchmark::State &state, bool fast)
{
    const int n = int(state.range(0)), h = int(state.range(1));
    const attn::Trace t = attn::compute(projectedScenario(n, h));
    std::vector<attn::Matrix> e(std::size_t(h), attn::Matrix::Zero(n, n));
    // The softmax's inputs, formed once outside the timed loop.
    std::vector<attn::Matrix> scaled;
    for (const attn::HeadTrace &head : t.heads)
        scaled.push_back(head.scaledMatrix());

    const LoopClock clock;
    for (auto _ : state) {
        for (std::size_t i = 0; i < std::size_t(h); ++i) {
            const attn::Matrix &x = scaled[i];
            if (fast) {
                Eigen::Index k = 0;
#if defined(__SSE2__)
                for (; k + 2 <= x.size(); k += 2)
                    _mm_storeu_pd(e[i].data() + k, attn::fastExp(_mm_loadu_pd(x.data() + k)));
#endif
                for (; k < x.size(); ++k)
                    e[i].data()[k] = attn::fastExp(x.data()[k]);
            } else {
                e[i].array() = x.array().exp();
            }
            benchmark::DoNotOptimize(e[i].data());
        }
        benchmark::ClobberMemory();
    }
    reportRatio(state, n, h, clock.secondsPerIteration(state));
    setItems(state, n, h);
}

void BM_Exponentials(benchmark::State &state)
{
    exponentials(state, false);
}

void BM_FastExponentials(benchmark::State &state)
{
    exponentials(state, true);
}

// keepScaled false: the forward without the scaled stage stored (the views
// derive it from the scores: HeadTrace::scaledAt), as "derived".
void BM_Forward(benchmark::State &state, attn::InputMode mode, bool keepScaled = true)
{
    const int n = int(state.range(0)), h = int(state.range(1));
    const attn::Scenario projected = projectedScenario(n, h);
    const attn::Scenario s = mode == attn::InputMode::Projected ? projected : attn::toDirect(projected);

    const LoopClock clock;
    for (auto _ : state) {
        attn::Trace t = attn::compute(s, attn::ComputeOptions{.keepScaled = keepScaled});
        benchmark::DoNotOptimize(t.output.data());
        benchmark::ClobberMemory();
    }
    reportRatio(state, n, h, clock.secondsPerIteration(state));
    setItems(state, n, h);
}

// A causal flip as the window's document makes it: into the trace's own
// memory, the scaled stage derived; "kept" reuses the scores
// (ComputeOptions::scoresKept, a change that scoresSurvive), "whole"
// computes everything again.
void BM_Flip(benchmark::State &state, bool kept)
{
    const int n = int(state.range(0)), h = int(state.range(1));
    attn::Scenario s = projectedScenario(n, h);
    attn::Trace t = attn::compute(s, attn::ComputeOptions{.keepScaled = false});
    const LoopClock clock;
    for (auto _ : state) {
        s.mask.causal = !s.mask.causal;
        attn::computeInto(s, t, attn::ComputeOptions{.keepScaled = false, .scoresKept = kept});
        benchmark::DoNotOptimize(t.output.data());
        benchmark::ClobberMemory();
    }
    reportRatio(state, n, h, clock.secondsPerIteration(state));
    setItems(state, n, h);
}

// With --benchmark_repetitions, "min" is the figure least disturbed by
// whatever else the machine runs.
double minimum(const std::vector<double> &v)
{
    return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}

void sizes(benchmark::internal::Benchmark *b)
{
    b->ArgNames({"n", "h"})->ArgsProduct({{8, 64, 256, 1024}, {1, 8}});
    b->Unit(benchmark::kMicrosecond)->UseRealTime()->ComputeStatistics("min", minimum);
}

// Pins the heap's behaviour for large blocks (see the top of this file) and
// returns its name for the report's context.
const char *pinHeap(bool cold)
{
#if defined(__GLIBC__)
    // An explicit threshold also turns off glibc's own adjustment of it.
    if (cold) {
        mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        mallopt(M_TRIM_THRESHOLD, 128 * 1024);
        return "cold: blocks of 128 KiB and more are mapped afresh, and freed memory goes back to the kernel";
    }
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    return "warm: blocks below 32 MiB come from the heap, which keeps up to 1 GiB when freed";
#else
    (void)cold;
    return "as the C library leaves it";
#endif
}

} // namespace

BENCHMARK(BM_BareProducts)->Apply(sizes);
BENCHMARK(BM_BareProductsByHead)->Apply(sizes);
BENCHMARK(BM_Exponentials)->Apply(sizes);
BENCHMARK(BM_FastExponentials)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Forward, projected, attn::InputMode::Projected)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Forward, direct, attn::InputMode::Direct)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Forward, derived, attn::InputMode::Projected, false)->Apply(sizes);
// d_k = 16: c = sqrt(d_k) a power of two, which the softmax multiplies by.
BENCHMARK_CAPTURE(BM_Forward, derived_dk16, attn::InputMode::Projected, false)->ArgNames({"n", "h"})->Args({1024, 4});
BENCHMARK_CAPTURE(BM_Flip, whole, false)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Flip, kept, true)->Apply(sizes);

int main(int argc, char **argv)
{
    // Our one flag; the rest are Google Benchmark's.
    bool cold = false;
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--cold_heap") == 0)
            cold = true;
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    argv[argc] = nullptr;
    benchmark::AddCustomContext("heap", pinHeap(cold));
    // Which build of the softmax's passes ran (ATTN_NO_AVX512, ATTN_NO_AVX2).
    benchmark::AddCustomContext("softmax", attn::detail::softmaxBuild());
#if defined(_OPENMP)
    benchmark::AddCustomContext("threads", std::to_string(omp_get_max_threads()) + " (OpenMP)");
#else
    benchmark::AddCustomContext("threads", "1 (no OpenMP)");
#endif

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
