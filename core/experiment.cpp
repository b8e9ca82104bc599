#include "experiment.h"

#include "attention.h"
#include "random.h"

#include <cmath>

namespace attn {

namespace {

ScoreSummary summarise(const Eigen::VectorXd &scores)
{
    ScoreSummary out;
    const auto n = double(scores.size());
    out.mean = scores.mean();
    out.variance = (scores.array() - out.mean).square().sum() / (n - 1);

    // Every trial is one row [score, 0, 0] of a single softmax call.
    Matrix rows = Matrix::Zero(scores.size(), 3);
    rows.col(0) = scores;
    std::vector<RowStats> stats;
    maskedSoftmax(rows, BoolMatrix(), MaskStage::BeforeSoftmax, &stats);
    for (const RowStats &r : stats) {
        out.meanMaxWeight += r.maxWeight / n;
        out.meanEntropy += r.entropy / n;
        out.saturatedFraction += (r.maxWeight > 0.99 ? 1.0 : 0.0) / n;
    }
    return out;
}

} // namespace

ScalingExperiment runScalingExperiment(int dk, std::uint64_t seed, int trials)
{
    ScalingExperiment e;
    e.dk = dk;
    e.seed = seed;
    e.trials = trials;
    Rng rng(seed);
    Eigen::VectorXd raw(trials);
    Eigen::VectorXd q(dk), k(dk);
    for (int t = 0; t < trials; ++t) {
        for (int i = 0; i < dk; ++i)
            q(i) = rng.normal();
        for (int i = 0; i < dk; ++i)
            k(i) = rng.normal();
        raw(t) = q.dot(k);
    }
    e.raw = summarise(raw);
    e.scaled = summarise(raw / std::sqrt(double(dk)));
    return e;
}

} // namespace attn
