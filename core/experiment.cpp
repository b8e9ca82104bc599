#include "experiment.h"

#include "pyrandom.h"
#include "random.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

namespace attn {

namespace {

constexpr std::uint64_t kKeyStreamTag = 0x6b65797374726d31ULL; // "keystrm1": the extra keys' stream
constexpr std::uint64_t kGradientStreamTag = 0x6772616473746d31ULL; // "gradstm1": the gradient's draws
constexpr int kStopCheckEvery = 16;                             // trials between stop() checks

// Plain left-to-right sum of products: the same rounding on every platform
// (Eigen's dot() sums in SIMD-width order).
double dot(const std::vector<double> &a, const std::vector<double> &b)
{
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        s += a[i] * b[i];
    return s;
}

struct RowResult {
    double maxWeight = 0;
    double entropy = 0;
};

// softmax(scores / divisor): the largest weight and -sum w ln w. Written as
// ln S - sum w (x - m), with m the largest score and S = sum exp(x - m), so
// a weight that underflows to 0 adds nothing (0 ln 0 = 0) and nothing overflows.
RowResult rowSoftmax(const double *scores, int n, double divisor, double *weights = nullptr)
{
    double m = scores[0] / divisor;
    for (int j = 1; j < n; ++j)
        m = std::max(m, scores[j] / divisor);
    double sum = 0;
    for (int j = 0; j < n; ++j)
        sum += std::exp(scores[j] / divisor - m);
    RowResult r;
    r.maxWeight = 1.0 / sum; // the largest score's weight: exp(0) / sum
    double expected = 0;     // sum w (x - m)
    for (int j = 0; j < n; ++j) {
        const double x = scores[j] / divisor - m;
        const double w = std::exp(x) / sum;
        expected += w * x;
        if (weights)
            weights[j] = w;
    }
    r.entropy = std::max(0.0, std::log(sum) - expected);
    return r;
}

struct Accumulator {
    double maxWeight = 0, entropy = 0, saturated = 0;
    void add(const RowResult &r)
    {
        maxWeight += r.maxWeight;
        entropy += r.entropy;
        saturated += r.maxWeight > kSaturatedAbove ? 1.0 : 0.0;
    }
    SoftmaxSummary mean(int trials) const
    {
        return {maxWeight / trials, entropy / trials, saturated / trials};
    }
};

double normalCdf(double x, double variance)
{
    return 0.5 * std::erfc(-x / std::sqrt(2.0 * variance));
}

void meanAndVariance(const std::vector<double> &raw, double divisor, double &mean, double &variance)
{
    const double n = double(raw.size());
    double s = 0;
    for (double r : raw)
        s += r / divisor;
    mean = s / n;
    double ss = 0;
    for (double r : raw) {
        const double d = r / divisor - mean;
        ss += d * d;
    }
    variance = ss / (n - 1);
}

ScoreHistogram histogramOf(const std::vector<double> &raw, double divisor, double theoryVariance, int bins)
{
    ScoreHistogram h;
    const double half = kHistogramSigmas * std::sqrt(theoryVariance);
    h.lo = -half;
    h.hi = half;
    h.counts.assign(std::size_t(bins), 0);
    const double width = (h.hi - h.lo) / bins;
    for (double r : raw) {
        const double x = r / divisor;
        if (x < h.lo) {
            ++h.below;
        } else if (x >= h.hi) {
            ++h.above;
        } else {
            const int i = std::min(bins - 1, int((x - h.lo) / width));
            ++h.counts[std::size_t(i)];
        }
    }
    h.theoryCount.resize(std::size_t(bins));
    const double trials = double(raw.size());
    for (int i = 0; i < bins; ++i) {
        const double a = h.lo + i * width, b = a + width;
        h.theoryCount[std::size_t(i)] = trials * (normalCdf(b, theoryVariance) - normalCdf(a, theoryVariance));
    }
    return h;
}

std::optional<Problem> checkDkTrials(int dk, int trials)
{
    if (dk < 1 || dk > kMaxExperimentDk)
        return Problem{"dk", "d_k must be from 1 to " + std::to_string(kMaxExperimentDk) + " (got " + std::to_string(dk) + ")"};
    if (trials < 2 || trials > kMaxExperimentTrials)
        return Problem{"trials", "trials must be from 2 to " + std::to_string(kMaxExperimentTrials) + " (got "
                                     + std::to_string(trials) + ")"};
    return std::nullopt;
}

std::string formatCount(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

// ||diag(w) - w w^T||_F for weights w of a row of n.
double jacobianNorm(const double *w, int n)
{
    double s2 = 0, s3 = 0;
    for (int i = 0; i < n; ++i) {
        s2 += w[i] * w[i];
        s3 += w[i] * w[i] * w[i];
    }
    return std::sqrt(std::max(0.0, s2 - 2 * s3 + s2 * s2));
}

// A plain left-to-right mean.
double meanOf(const std::vector<double> &v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return s / double(v.size());
}

// The middle value (the mean of the two middle ones for an even count); reorders v.
double medianOf(std::vector<double> &v)
{
    const std::size_t half = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(half), v.end());
    const double upper = v[half];
    if (v.size() % 2)
        return upper;
    return 0.5 * (upper + *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(half)));
}

} // namespace

double scalingDivisor(ScoreScaling s, int dk)
{
    switch (s) {
    case ScoreScaling::Raw: return 1.0;
    case ScoreScaling::SqrtDk: return std::sqrt(double(dk));
    case ScoreScaling::Dk: return double(dk);
    }
    return 1.0;
}

double theoreticalVariance(ScoreScaling s, int dk)
{
    switch (s) {
    case ScoreScaling::Raw: return double(dk);
    case ScoreScaling::SqrtDk: return 1.0;
    case ScoreScaling::Dk: return 1.0 / double(dk);
    }
    return 1.0;
}

const char *scalingKey(ScoreScaling s)
{
    switch (s) {
    case ScoreScaling::Raw: return "raw";
    case ScoreScaling::SqrtDk: return "sqrt_dk";
    case ScoreScaling::Dk: return "dk";
    }
    return "raw";
}

double ScoreHistogram::normalDensity(double x, double variance)
{
    return std::exp(-x * x / (2 * variance)) / std::sqrt(2 * std::numbers::pi * variance);
}

double scalingLabDraws(const ScalingLabParams &p)
{
    return double(p.trials) * (2.0 * double(p.dk) + double(p.keys - 1));
}

std::optional<Problem> checkScalingLab(const ScalingLabParams &p)
{
    if (auto problem = checkDkTrials(p.dk, p.trials))
        return problem;
    if (p.keys < kMinLabKeys || p.keys > kMaxLabKeys)
        return Problem{"keys", "the number of keys n must be from " + std::to_string(kMinLabKeys) + " to "
                                   + std::to_string(kMaxLabKeys) + " (got " + std::to_string(p.keys) + ")"};
    if (p.bins < kMinLabBins || p.bins > kMaxLabBins)
        return Problem{"bins", "the number of bins must be from " + std::to_string(kMinLabBins) + " to "
                                   + std::to_string(kMaxLabBins) + " (got " + std::to_string(p.bins) + ")"};
    const double draws = scalingLabDraws(p);
    if (draws > kMaxScalingDraws) {
        const double maxTrials = std::floor(kMaxScalingDraws / (2.0 * p.dk + p.keys - 1));
        return Problem{"trials", "trials x (2 d_k + n - 1) = " + formatCount(draws)
                                     + " random numbers is more than the limit of " + formatCount(kMaxScalingDraws)
                                     + "; at d_k = " + std::to_string(p.dk) + " with n = " + std::to_string(p.keys)
                                     + " keys use at most " + std::to_string(int(maxTrials)) + " trials"};
    }
    return std::nullopt;
}

double scalingGradientDraws(const ScalingLabParams &p)
{
    return double(p.trials) * (double(p.keys) + 1) * double(p.dk);
}

Result<std::optional<GradientPoint>> scalingGradients(const ScalingLabParams &p, const StopRequested &stop)
{
    if (auto problem = checkScalingLab(p))
        return *problem;
    if (const double draws = scalingGradientDraws(p); draws > kMaxScalingDraws)
        return Problem{"trials", "the gradient's " + formatCount(draws) + " random numbers (trials × (keys + 1) × d_k) "
                                 "are more than the limit of " + formatCount(kMaxScalingDraws) + "; use fewer trials"};
    const int dk = p.dk, n = p.keys;
    Rng rng(splitmix64(p.seed ^ kGradientStreamTag ^ splitmix64(std::uint64_t(dk))));
    const auto width = static_cast<std::size_t>(dk), count = static_cast<std::size_t>(n);
    std::vector<double> q(width), keys(count * width), scores(count), w(count), grad(width);
    std::array<std::vector<double>, 3> jacobians, queryGrads;
    for (std::size_t i = 0; i < 3; ++i) {
        jacobians[i].reserve(std::size_t(p.trials));
        queryGrads[i].reserve(std::size_t(p.trials));
    }
    for (int t = 0; t < p.trials; ++t) {
        if (stop && t % kStopCheckEvery == 0 && stop())
            return std::nullopt;
        for (double &v : q)
            v = rng.normal();
        for (double &v : keys)
            v = rng.normal();
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int c = 0; c < dk; ++c)
                s += q[std::size_t(c)] * keys[std::size_t(j) * std::size_t(dk) + std::size_t(c)];
            scores[std::size_t(j)] = s;
        }
        for (ScoreScaling sc : kAllScoreScalings) {
            const double c = scalingDivisor(sc, dk);
            rowSoftmax(scores.data(), n, c, w.data());
            jacobians[std::size_t(sc)].push_back(jacobianNorm(w.data(), n));
            // dw_1/dq = (w_1 / c) sum_j (delta_1j - w_j) k_j
            std::fill(grad.begin(), grad.end(), 0.0);
            for (int j = 0; j < n; ++j) {
                const double a = (j == 0 ? 1.0 : 0.0) - w[std::size_t(j)];
                const double *k = keys.data() + std::size_t(j) * std::size_t(dk);
                for (int cc = 0; cc < dk; ++cc)
                    grad[std::size_t(cc)] += a * k[cc];
            }
            queryGrads[std::size_t(sc)].push_back(w[0] / c * std::sqrt(dot(grad, grad)));
        }
    }
    GradientPoint point;
    point.dk = dk;
    point.trials = p.trials;
    point.keys = n;
    for (std::size_t i = 0; i < 3; ++i)
        point.series[i] = {meanOf(jacobians[i]), meanOf(queryGrads[i]), medianOf(jacobians[i]), medianOf(queryGrads[i])};
    return std::optional<GradientPoint>(point);
}

Result<GradientPoint> scalingGradients(const ScalingLabParams &p)
{
    auto run = scalingGradients(p, StopRequested());
    if (const Problem *problem = run.problem())
        return *problem;
    return *run.value();
}

std::array<GradientSummary, 3> handoutGradients(const HandoutDraw &d)
{
    std::array<GradientSummary, 3> out{};
    const double kNorm = std::sqrt(dot(d.k, d.k));
    for (ScoreScaling sc : kAllScoreScalings) {
        const double c = scalingDivisor(sc, d.dk);
        const double triple[3] = {d.raw, 0.0, 0.0};
        double w[3];
        rowSoftmax(triple, 3, c, w);
        const double j = jacobianNorm(w, 3), g = w[0] * (1 - w[0]) * kNorm / c;
        out[std::size_t(sc)] = {j, g, j, g};
    }
    return out;
}

Result<std::optional<ScalingLab>> runScalingLab(const ScalingLabParams &p, const StopRequested &stop)
{
    if (auto problem = checkScalingLab(p))
        return *problem;
    const int dk = p.dk, n = p.keys, trials = p.trials;
    Rng pairs(p.seed), extra(splitmix64(p.seed ^ kKeyStreamTag));

    ScalingLab lab;
    lab.params = p;
    std::vector<double> raw(static_cast<std::size_t>(trials));
    std::vector<double> q(static_cast<std::size_t>(dk)), k(static_cast<std::size_t>(dk)), row(static_cast<std::size_t>(n));
    std::array<Accumulator, 3> threeWay, keys;
    for (int t = 0; t < trials; ++t) {
        if (stop && t % kStopCheckEvery == 0 && stop())
            return std::nullopt;
        for (double &v : q)
            v = pairs.normal();
        for (double &v : k)
            v = pairs.normal();
        row[0] = raw[std::size_t(t)] = dot(q, k);
        // The other keys' scores q.k_j, j = 2..n: given q, each is N(0, |q|^2)
        // and independent of the others (rotate q onto the first axis), so
        // |q| z_j with z_j ~ N(0, 1) has exactly their joint distribution,
        // for one normal draw each instead of d_k.
        const double qNorm = std::sqrt(dot(q, q));
        for (int j = 1; j < n; ++j)
            row[std::size_t(j)] = qNorm * extra.normal();
        const double triple[3] = {row[0], 0.0, 0.0};
        for (ScoreScaling s : kAllScoreScalings) {
            const auto i = std::size_t(s);
            const double c = scalingDivisor(s, dk);
            threeWay[i].add(rowSoftmax(triple, 3, c));
            if (t == 0) {
                ScalingSeries &series = lab.series[i];
                series.exampleScores.resize(std::size_t(n));
                series.exampleWeights.resize(std::size_t(n));
                for (int j = 0; j < n; ++j)
                    series.exampleScores[std::size_t(j)] = row[std::size_t(j)] / c;
                keys[i].add(rowSoftmax(row.data(), n, c, series.exampleWeights.data()));
            } else {
                keys[i].add(rowSoftmax(row.data(), n, c));
            }
        }
    }
    for (ScoreScaling s : kAllScoreScalings) {
        const auto i = std::size_t(s);
        ScalingSeries &series = lab.series[i];
        series.scaling = s;
        series.divisor = scalingDivisor(s, dk);
        series.theoryVariance = theoreticalVariance(s, dk);
        meanAndVariance(raw, series.divisor, series.mean, series.variance);
        series.histogram = histogramOf(raw, series.divisor, series.theoryVariance, p.bins);
        series.threeWay = threeWay[i].mean(trials);
        series.keys = keys[i].mean(trials);
    }
    return std::optional<ScalingLab>(std::move(lab));
}

Result<ScalingLab> runScalingLab(const ScalingLabParams &p)
{
    auto run = runScalingLab(p, StopRequested());
    if (const Problem *problem = run.problem())
        return *problem;
    return std::move(*run.value());
}

Result<ScalingExperiment> runScalingExperiment(int dk, std::uint64_t seed, int trials)
{
    if (auto problem = checkDkTrials(dk, trials))
        return *problem;
    ScalingExperiment e;
    e.dk = dk;
    e.seed = seed;
    e.trials = trials;
    Rng rng(seed);
    std::vector<double> raw(static_cast<std::size_t>(trials));
    std::vector<double> q(static_cast<std::size_t>(dk)), k(static_cast<std::size_t>(dk));
    for (double &r : raw) {
        for (double &v : q)
            v = rng.normal();
        for (double &v : k)
            v = rng.normal();
        r = dot(q, k);
    }
    ScoreSummary *summaries[3] = {&e.raw, &e.scaled, &e.byDk};
    for (ScoreScaling s : kAllScoreScalings) {
        ScoreSummary &out = *summaries[std::size_t(s)];
        const double c = scalingDivisor(s, dk);
        meanAndVariance(raw, c, out.mean, out.variance);
        Accumulator acc;
        for (double r : raw) {
            const double triple[3] = {r, 0.0, 0.0};
            acc.add(rowSoftmax(triple, 3, c));
        }
        const SoftmaxSummary m = acc.mean(trials);
        out.meanMaxWeight = m.meanMaxWeight;
        out.meanEntropy = m.meanEntropy;
        out.saturatedFraction = m.saturatedFraction;
    }
    return e;
}

std::vector<int> powersOfTwoDk(int maxDk)
{
    std::vector<int> out;
    for (int d = 1; d <= maxDk; d *= 2)
        out.push_back(d);
    return out;
}

double varianceSweepDraws(int trials, const std::vector<int> &dks)
{
    double sum = 0;
    for (int d : dks)
        sum += d;
    return double(trials) * 2.0 * sum;
}

Result<std::optional<std::vector<VariancePoint>>> varianceSweep(std::uint64_t seed, int trials, const std::vector<int> &dks,
                                                                const StopRequested &stop)
{
    for (int d : dks)
        if (auto problem = checkDkTrials(d, trials))
            return *problem;
    if (const double draws = varianceSweepDraws(trials, dks); draws > kMaxScalingDraws)
        return Problem{"trials", "the variance sweep needs " + formatCount(draws)
                                     + " random numbers, more than the limit of " + formatCount(kMaxScalingDraws)
                                     + "; use fewer trials"};
    std::vector<VariancePoint> points;
    std::vector<double> raw(static_cast<std::size_t>(trials));
    for (int dk : dks) {
        Rng rng(seed);
        std::vector<double> q(static_cast<std::size_t>(dk)), k(static_cast<std::size_t>(dk));
        for (int t = 0; t < trials; ++t) {
            if (stop && t % kStopCheckEvery == 0 && stop())
                return std::nullopt;
            for (double &v : q)
                v = rng.normal();
            for (double &v : k)
                v = rng.normal();
            raw[std::size_t(t)] = dot(q, k);
        }
        VariancePoint point;
        point.dk = dk;
        for (ScoreScaling s : kAllScoreScalings) {
            double mean = 0;
            meanAndVariance(raw, scalingDivisor(s, dk), mean, point.variance[std::size_t(s)]);
        }
        points.push_back(point);
    }
    return std::optional<std::vector<VariancePoint>>(std::move(points));
}

Result<std::vector<VariancePoint>> varianceSweep(std::uint64_t seed, int trials, const std::vector<int> &dks)
{
    auto run = varianceSweep(seed, trials, dks, StopRequested());
    if (const Problem *problem = run.problem())
        return *problem;
    return std::move(*run.value());
}

TripleSoftmax handoutSoftmax(double x)
{
    // def softmax(xs): m = max(xs); ex = [math.exp(x - m) for x in xs]; s = sum(ex); return [e / s for e in ex]
    const double xs[3] = {x, 0.0, 0.0};
    const double m = std::max({x, 0.0, 0.0});
    double ex[3], s = 0;
    for (int i = 0; i < 3; ++i)
        s += (ex[i] = std::exp(xs[i] - m));
    double w[3];
    for (int i = 0; i < 3; ++i)
        w[i] = ex[i] / s;
    TripleSoftmax out;
    out.maxWeight = std::max({w[0], w[1], w[2]});
    double sum = 0; // ent = -sum(p * math.log(p + 1e-12) for p in w)
    for (double p : w)
        sum += p * std::log(p + 1e-12);
    out.entropy = -sum;
    return out;
}

Result<HandoutDraw> handoutDraw(std::uint64_t seed, int dk)
{
    if (dk < 1 || dk > kMaxExperimentDk)
        return Problem{"dk", "d_k must be from 1 to " + std::to_string(kMaxExperimentDk)};
    HandoutDraw d;
    d.seed = seed;
    d.dk = dk;
    PyRandom random(seed);
    d.q.resize(std::size_t(dk));
    d.k.resize(std::size_t(dk));
    for (double &v : d.q)
        v = random.gauss(0, 1);
    for (double &v : d.k)
        v = random.gauss(0, 1);
    d.raw = dot(d.q, d.k); // Python's sum() of a generator: 0 + a0*b0 + a1*b1 + ...
    d.scaled = d.raw / std::sqrt(double(dk));
    const TripleSoftmax raw = handoutSoftmax(d.raw), scaled = handoutSoftmax(d.scaled);
    d.rawMaxWeight = raw.maxWeight;
    d.rawEntropy = raw.entropy;
    d.scaledMaxWeight = scaled.maxWeight;
    d.scaledEntropy = scaled.entropy;
    return d;
}

} // namespace attn
