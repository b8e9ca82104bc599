// bench_train: the training core's speed (docs/performance.md, "Training").
//   bench_train step [--threads N] [--steps K]
//       a training step (forward, backward, AdamW) of the built-in model's
//       shape: 3 layers × 4 heads, d 128, vocabulary 601, batch 32 × 64;
//       prints JSON: the median milliseconds a step over K steps.
//   bench_train induction [--threads N] [--lr X] [--batch B] [--length T]
//       [--vocab V] [--d-model D] [--heads H] [--mlp] [--embedding-std S] [--max-steps N] [--every K]
//       the induction preset until some head's prefix-matching score reaches
//       0.4; prints JSON: the step, wall and CPU seconds, every head's score
//       at step 0.
#include "blas.h"
#include "gpt2_backward.h"
#include "trainer.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace attn;

namespace {

double cpuSeconds()
{
    return double(std::clock()) / CLOCKS_PER_SEC;
}

double wall()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

QString option(const QStringList &a, const QString &name, const QString &fallback)
{
    const qsizetype i = a.indexOf(name);
    return i >= 0 && i + 1 < a.size() ? a[i + 1] : fallback;
}

int step(const QStringList &a)
{
    const int threads = option(a, "--threads", "1").toInt(), steps = option(a, "--steps", "10").toInt();
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    blas::setThreads(threads);
    Gpt2Config c;
    c.nLayer = 3;
    c.nHead = 4;
    c.nEmbd = 128;
    c.nPositions = 64;
    c.vocabSize = 601;
    c.nInner = 512;
    Gpt2Model m = initialWeights(c, true, 1, 0.5);
    Rng rng(2);
    TrainBatch b{32, 64, {}, {}};
    for (int i = 0; i < 32 * 64; ++i) {
        b.ids.push_back(int(rng.uniform() * 601));
        b.targets.push_back(int(rng.uniform() * 601));
    }
    AdamWState state;
    std::vector<double> times;
    for (int k = 0; k < steps + 1; ++k) {
        const double t0 = wall();
        auto lg = lossAndGradient(m, b, {});
        if (!lg.ok())
            return 1;
        adamwStep(parameterRefs(m), parameterRefs(lg.value().gradient), state, {}, 1e-4);
        if (k > 0) // the first step warms the allocator and the caches
            times.push_back(1000 * (wall() - t0));
    }
    std::sort(times.begin(), times.end());
    std::printf("{\"threads\": %d, \"steps\": %d, \"median_ms\": %.2f, \"min_ms\": %.2f, \"products\": \"%s\"}\n", threads,
                steps, times[times.size() / 2], times.front(), blas::backend());
    return 0;
}

int induction(const QStringList &a)
{
    TrainSettings s;
    s.threads = option(a, "--threads", "1").toInt();
    s.learningRate = option(a, "--lr", QString::number(s.learningRate)).toDouble();
    s.batch = option(a, "--batch", QString::number(s.batch)).toInt();
    s.length = option(a, "--length", QString::number(s.length)).toInt();
    s.vocabulary = option(a, "--vocab", QString::number(s.vocabulary)).toInt();
    s.dModel = option(a, "--d-model", QString::number(s.dModel)).toInt();
    s.heads = option(a, "--heads", QString::number(s.heads)).toInt();
    s.embeddingStd = option(a, "--embedding-std", QString::number(s.embeddingStd)).toDouble();
    s.seed = option(a, "--seed", "0").toULongLong();
    s.mlp = a.contains("--mlp");
    const int maxSteps = option(a, "--max-steps", "2000").toInt(), every = option(a, "--every", "10").toInt();
    s.steps = maxSteps;
    auto started = startTraining(s);
    if (!started.ok()) {
        std::fprintf(stderr, "%s\n", started.problem()->toString().c_str());
        return 2;
    }
    TrainState &st = started.value();
    auto first = evaluate(st);
    double untrained = 0;
    for (const HeadScore &h : first.value().heads)
        untrained = std::max(untrained, h.prefixMatching);
    const double w0 = wall(), c0 = cpuSeconds();
    while (st.step < maxSteps) {
        if (auto p = trainStep(st)) {
            std::fprintf(stderr, "%s\n", p->toString().c_str());
            return 2;
        }
        if (st.step % every)
            continue;
        auto e = evaluate(st);
        double best = 0;
        for (const HeadScore &h : e.value().heads)
            best = std::max(best, h.prefixMatching);
        std::fprintf(stderr, "step %d loss %.4f best prefix %.3f\n", st.step, e.value().loss, best);
        if (best >= 0.4) {
            std::printf("{\"step\": %d, \"wall_s\": %.2f, \"cpu_s\": %.2f, \"best_prefix\": %.3f, \"untrained_max_prefix\": %.3f, "
                        "\"loss\": %.4f}\n", st.step, wall() - w0, cpuSeconds() - c0, best, untrained, e.value().loss);
            return 0;
        }
    }
    std::printf("{\"step\": null, \"wall_s\": %.2f, \"cpu_s\": %.2f, \"untrained_max_prefix\": %.3f}\n", wall() - w0,
                cpuSeconds() - c0, untrained);
    return 1;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv); // the grammar task reads the built-in model's resources
    const QStringList a = app.arguments().mid(1);
    if (!a.isEmpty() && a[0] == "step")
        return step(a);
    if (!a.isEmpty() && a[0] == "induction")
        return induction(a);
    std::fprintf(stderr, "usage: bench_train step|induction [options]\n");
    return 2;
}
