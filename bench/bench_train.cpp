// bench_train: the training core's speed (docs/performance.md, "Training").
//   bench_train step [--threads N] [--steps K]
//       a training step (forward, backward, AdamW) of the built-in model's
//       shape: 3 layers × 4 heads, d 128, vocabulary 601, batch 32 × 64;
//       prints JSON: the median wall and CPU milliseconds a step over K steps.
//   bench_train induction [--seed S] [--threads N] [--lr X] [--batch B] [--length T]
//       [--vocab V] [--d-model D] [--heads H] [--layers L] [--warmup W] [--mlp|--no-mlp]
//       [--scale sqrt|none|dk] [--embedding-std S] [--max-steps N] [--every K] [--all-steps]
//       the induction preset until a head of layer >= 2 reaches a prefix-matching
//       score of 0.4 on the held-out repeated sequences (or all steps with
//       --all-steps); prints JSON: the step, CPU and wall seconds to it, the
//       untrained model's largest prefix score (any layer), the uniform
//       baseline, that head's scores on the skeptic's sequences (a repeat
//       after a gap, no repeat) and the load average at the start and end.
#include "blas.h"
#include "gpt2_backward.h"
#include "trainer.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

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
    std::vector<double> times, cpu;
    for (int k = 0; k < steps + 1; ++k) {
        const double t0 = wall(), c0 = cpuSeconds();
        auto lg = lossAndGradient(m, b, {});
        if (!lg.ok())
            return 1;
        adamwStep(parameterRefs(m), parameterRefs(lg.value().gradient), state, {}, 1e-4);
        if (k > 0) { // the first step warms the allocator and the caches
            times.push_back(1000 * (wall() - t0));
            cpu.push_back(1000 * (cpuSeconds() - c0));
        }
    }
    std::sort(times.begin(), times.end());
    std::sort(cpu.begin(), cpu.end());
    // CPU milliseconds (all the process's threads): what a loaded machine moves least.
    std::printf("{\"threads\": %d, \"steps\": %d, \"median_ms\": %.2f, \"min_ms\": %.2f, \"median_cpu_ms\": %.2f, "
                "\"products\": \"%s\"}\n", threads, steps, times[times.size() / 2], times.front(), cpu[cpu.size() / 2],
                blas::backend());
    return 0;
}

std::string loadAverage()
{
    std::FILE *f = std::fopen("/proc/loadavg", "r");
    char buf[64] = "?";
    if (f) {
        if (!std::fgets(buf, sizeof buf, f))
            buf[0] = 0;
        std::fclose(f);
    }
    std::string s(buf);
    return s.substr(0, s.find(' ', s.find(' ', s.find(' ') + 1) + 1)); // the 1, 5 and 15 minute figures
}

// The head (layer >= 2) with the highest prefix score, and its skeptic scores.
const TrainHeadScore *bestInductionHead(const std::vector<TrainHeadScore> &heads)
{
    const TrainHeadScore *best = nullptr;
    for (const TrainHeadScore &h : heads)
        if (h.layer >= kFirstInductionLayer && (!best || h.prefixMatching > best->prefixMatching))
            best = &h;
    return best;
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
    s.layers = option(a, "--layers", QString::number(s.layers)).toInt();
    s.warmup = option(a, "--warmup", QString::number(s.warmup)).toInt();
    s.embeddingStd = option(a, "--embedding-std", QString::number(s.embeddingStd)).toDouble();
    s.seed = option(a, "--seed", "0").toULongLong();
    s.mlp = a.contains("--mlp") || (s.mlp && !a.contains("--no-mlp"));
    const QString scale = option(a, "--scale", "sqrt");
    s.scale = scale == "none" ? Scale::None : scale == "dk" ? Scale::Dk : Scale::SqrtDk;
    const int maxSteps = option(a, "--max-steps", "3000").toInt(), every = option(a, "--every", "25").toInt();
    const bool keepGoing = a.contains("--all-steps"); // do not stop at the first crossing
    s.steps = maxSteps;
    auto started = startTraining(s);
    if (!started.ok()) {
        std::fprintf(stderr, "%s\n", started.problem()->toString().c_str());
        return 2;
    }
    TrainState &st = started.value();
    auto first = evaluate(st);
    if (!first.ok())
        return 2;
    const double untrained = largestPrefixScore(first.value().heads);
    const std::string load0 = loadAverage();
    const double w0 = wall(), c0 = cpuSeconds();
    int formed = -1;
    double formedCpu = 0, formedWall = 0;
    TrainLogEntry at;
    while (st.step < maxSteps) {
        if (auto p = trainStep(st)) {
            std::fprintf(stderr, "%s\n", p->toString().c_str());
            return 2;
        }
        if (st.step % every && st.step != maxSteps)
            continue;
        auto e = evaluate(st);
        if (!e.ok())
            return 2;
        const TrainHeadScore *h = bestInductionHead(e.value().heads);
        double layer1 = 0, previous1 = 0;
        for (const TrainHeadScore &x : e.value().heads)
            if (x.layer < kFirstInductionLayer) {
                layer1 = std::max(layer1, x.prefixMatching);
                previous1 = std::max(previous1, x.previousToken);
            }
        std::fprintf(stderr, "step %d loss %.4f layer>=2 prefix %.3f (L%dH%d; gap %.3f, no repeat %.3f) layer-1 max %.3f, previous token %.3f\n",
                     st.step, e.value().loss, h ? h->prefixMatching : 0.0, h ? h->layer + 1 : 0, h ? h->head + 1 : 0,
                     h ? h->prefixDistant : 0.0, h ? h->prefixNoRepeat : 0.0, layer1, previous1);
        at = e.value();
        if (formed < 0 && inductionScore(e.value().heads) >= kInductionThreshold) {
            formed = st.step;
            formedCpu = cpuSeconds() - c0;
            formedWall = wall() - w0;
            if (!keepGoing)
                break;
        }
    }
    const TrainHeadScore *h = bestInductionHead(at.heads);
    std::printf("{\"seed\": %llu, \"step\": %s, \"cpu_s\": %.2f, \"wall_s\": %.2f, \"steps_run\": %d, \"cpu_s_run\": %.2f, "
                "\"wall_s_run\": %.2f, \"untrained_max_prefix\": %.3f, \"uniform_prefix\": %.3f, \"head\": \"L%dH%d\", "
                "\"prefix\": %.3f, \"prefix_gap\": %.3f, \"uniform_gap\": %.3f, \"prefix_no_repeat\": %.3f, \"loss\": %.4f, "
                "\"load_start\": \"%s\", \"load_end\": \"%s\"}\n",
                (unsigned long long)s.seed, formed >= 0 ? std::to_string(formed).c_str() : "null", formedCpu, formedWall,
                st.step, cpuSeconds() - c0, wall() - w0, untrained, uniformPrefixScore(st.repeated), h ? h->layer + 1 : 0,
                h ? h->head + 1 : 0, h ? h->prefixMatching : 0.0, h ? h->prefixDistant : 0.0,
                uniformPrefixScore(st.distant), h ? h->prefixNoRepeat : 0.0, at.loss, load0.c_str(), loadAverage().c_str());
    return formed >= 0 ? 0 : 1;
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
