// bench_core: the attention forward beside the bare Eigen products it cannot
// avoid, in the same run (docs/performance.md has the command and figures).
//
// Every case is self-attention with d_model = 64 over n tokens, h heads,
// d_k = d_v = 64 / h, dot similarity, sqrt(d_k) scaling, no mask, no encoding.
//
//   BM_BareProducts        per head: S_h = Q_h K_h^T (n by n) and
//                          O_h = W_h V_h (n by n times n by d_v), written with
//                          noalias into preallocated matrices; all heads.
//   BM_Forward/projected   attn::compute: X (n by 64) and Wq, Wk, Wv (64 by 64).
//   BM_Forward/direct      attn::compute on the Q, K, V that projection gives.
//
// Items are attention weights, h * n^2 per forward. A forward reports
// x_bare = its time / the time of the bare products at the same n and h;
// the bare products are registered first, so they have run by then.

#include "attention.h"
#include "random.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

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

// Seconds per iteration of BM_BareProducts, by (n, h).
std::map<std::pair<int, int>, double> &bareSeconds()
{
    static std::map<std::pair<int, int>, double> seconds;
    return seconds;
}

// Wall time of the timing loop, per iteration (the benchmarks use real time too).
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

void setItems(benchmark::State &state, int n, int h)
{
    state.SetItemsProcessed(state.iterations() * std::int64_t(h) * n * n);
}

void BM_BareProducts(benchmark::State &state)
{
    const int n = int(state.range(0)), h = int(state.range(1));
    // The operands are the forward's own per-head Q, K, V and weights.
    const attn::Trace t = attn::compute(projectedScenario(n, h));
    std::vector<attn::Matrix> scores(std::size_t(h), attn::Matrix::Zero(n, n));
    std::vector<attn::Matrix> outputs(std::size_t(h), attn::Matrix::Zero(n, t.dv));

    const LoopClock clock;
    for (auto _ : state) {
        for (std::size_t i = 0; i < std::size_t(h); ++i) {
            const attn::HeadTrace &head = t.heads[i];
            scores[i].noalias() = head.Q * head.K.transpose();
            outputs[i].noalias() = head.weights * head.V;
            benchmark::DoNotOptimize(scores[i].data());
            benchmark::DoNotOptimize(outputs[i].data());
        }
        benchmark::ClobberMemory();
    }
    bareSeconds()[{n, h}] = clock.secondsPerIteration(state);
    setItems(state, n, h);
}

void BM_Forward(benchmark::State &state, attn::InputMode mode)
{
    const int n = int(state.range(0)), h = int(state.range(1));
    const attn::Scenario projected = projectedScenario(n, h);
    const attn::Scenario s = mode == attn::InputMode::Projected ? projected : attn::toDirect(projected);

    const LoopClock clock;
    for (auto _ : state) {
        attn::Trace t = attn::compute(s);
        benchmark::DoNotOptimize(t.output.data());
        benchmark::ClobberMemory();
    }
    const double seconds = clock.secondsPerIteration(state);
    if (auto bare = bareSeconds().find({n, h}); bare != bareSeconds().end())
        state.counters["x_bare"] = seconds / bare->second;
    setItems(state, n, h);
}

void sizes(benchmark::internal::Benchmark *b)
{
    b->ArgNames({"n", "h"})->ArgsProduct({{8, 64, 256, 1024}, {1, 8}});
    b->Unit(benchmark::kMicrosecond)->UseRealTime();
}

} // namespace

BENCHMARK(BM_BareProducts)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Forward, projected, attn::InputMode::Projected)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Forward, direct, attn::InputMode::Direct)->Apply(sizes);

BENCHMARK_MAIN();
