#include "generate.h"

#include "numbers.h"
#include "random.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn {

namespace {

constexpr int kTopShown = 5;

// Whether a comes before b in the draw's order: more likely, then lower id.
bool before(const Eigen::VectorXd &z, int a, int b)
{
    return z(a) != z(b) ? z(a) > z(b) : a < b;
}

} // namespace

std::optional<Problem> validateSampling(const SamplingSettings &s)
{
    if (s.steps < 1 || s.steps > kMaxGenerationSteps)
        return Problem{"steps", std::to_string(s.steps) + " is outside 1 to " + std::to_string(kMaxGenerationSteps)};
    if (!std::isfinite(s.temperature) || s.temperature < 0)
        return Problem{"temperature", shortest(s.temperature) + " is not a number of 0 (greedy) or more"};
    if (s.topK < 0)
        return Problem{"top-k", std::to_string(s.topK) + " is below 0 (0 keeps every token)"};
    if (!std::isfinite(s.topP) || s.topP <= 0 || s.topP > 1)
        return Problem{"top-p", shortest(s.topP) + " is outside (0, 1] (1 keeps every token)"};
    return std::nullopt;
}

std::vector<Candidate> nextTokenDistribution(const Eigen::VectorXd &logits, const SamplingSettings &s)
{
    const int V = int(logits.size());
    std::vector<Candidate> out;
    if (V == 0)
        return out;
    std::vector<int> order(static_cast<std::size_t>(V));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return before(logits, a, b); });

    // Softmax at temperature 1, for the "raw" column; shifted by the maximum.
    const double top = logits(order[0]);
    const Eigen::VectorXd e1 = (logits.array() - top).exp();
    const double sum1 = e1.sum();

    if (s.temperature == 0) {
        out.push_back({order[0], 1.0, e1(order[0]) / sum1});
        return out;
    }
    // At temperature T: e^{(z - max) / T}; the maximum's term is 1, so the
    // sum is at least 1 and nothing divides by 0, however small T is.
    std::vector<double> p(static_cast<std::size_t>(V));
    double sum = 0;
    for (int r = 0; r < V; ++r) {
        p[std::size_t(r)] = std::exp((logits(order[std::size_t(r)]) - top) / s.temperature);
        sum += p[std::size_t(r)];
    }
    int kept = s.topK > 0 ? std::min(s.topK, V) : V;
    if (s.topP < 1) {
        double running = 0;
        int r = 0;
        while (r < kept) {
            running += p[std::size_t(r)] / sum;
            ++r;
            if (running >= s.topP)
                break;
        }
        kept = std::max(1, r);
    }
    double keptSum = 0;
    for (int r = 0; r < kept; ++r)
        keptSum += p[std::size_t(r)];
    for (int r = 0; r < kept; ++r) {
        const double q = p[std::size_t(r)] / keptSum;
        if (q <= 0)
            break; // underflowed at a tiny temperature: the draw can never reach it
        out.push_back({order[std::size_t(r)], q, e1(order[std::size_t(r)]) / sum1});
    }
    return out;
}

int pickCandidate(const std::vector<Candidate> &candidates, double u)
{
    double running = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        running += candidates[i].p;
        if (u < running)
            return int(i);
    }
    return candidates.empty() ? -1 : int(candidates.size()) - 1;
}

CacheWork cacheWork(int cached, int tokens)
{
    const std::int64_t n = std::max(0, tokens), c = std::clamp(cached, 0, tokens);
    // Σ_{i=c}^{n-1} (i + 1) = n (n + 1) / 2 − c (c + 1) / 2
    return {n * (n + 1) / 2 - c * (c + 1) / 2, n * (n + 1) / 2};
}

GenerationStep chooseFromLogits(const Eigen::VectorXd &logits, const std::vector<Prediction> &top, const SamplingSettings &s,
                                Rng &rng)
{
    GenerationStep st;
    const std::vector<Candidate> candidates = nextTokenDistribution(logits, s);
    st.u = s.temperature == 0 ? 0.0 : rng.uniform();
    const int pick = pickCandidate(candidates, st.u);
    if (pick < 0)
        return st; // p stays 0: nothing to choose (an empty vocabulary)
    st.id = candidates[std::size_t(pick)].id;
    st.p = candidates[std::size_t(pick)].p;
    st.raw = candidates[std::size_t(pick)].raw;
    // The five most likely at temperature 1 (the trace's own top 5, in
    // the same order as the candidates), each with what the cuts left it.
    for (std::size_t i = 0; i < top.size(); ++i)
        st.top.push_back({top[i].id, i < candidates.size() ? candidates[i].p : 0.0, top[i].p});
    return st;
}

GenerationStep chooseNext(const Gpt2Model &model, const ModelTrace &t, const SamplingSettings &s, Rng &rng)
{
    GenerationStep st = chooseFromLogits(t.logits, t.next, s, rng);
    st.position = int(t.ids.size());
    if (st.p <= 0)
        return st;
    st.text = model.tokenizer.bytes(st.id);
    st.reused = t.reused;
    const CacheWork work = cacheWork(t.reused, int(t.ids.size()));
    st.cachedCells = work.withCache;
    st.uncachedCells = work.withoutCache;
    return st;
}

Result<Generation> generate(const Gpt2Model &model, const std::vector<int> &prompt, const SamplingSettings &s,
                            const std::atomic<bool> *cancel)
{
    if (auto p = validateSampling(s))
        return *p;
    if (prompt.empty())
        return Problem{"text", "the prompt is empty: type at least one word"};
    const int limit = std::min(model.config.nPositions, maxTracedTokens(model.config));
    if (int(prompt.size()) > limit)
        return Problem{"text", "the prompt has " + std::to_string(prompt.size()) + " tokens; " + model.name.toStdString()
                                   + " reads at most " + std::to_string(limit)};
    Generation g;
    g.prompt = prompt;
    std::vector<int> ids = prompt;
    Rng rng(s.seed);
    std::optional<ModelTrace> previous;
    for (int step = 0; step < s.steps; ++step) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            g.stopped = "cancelled";
            break;
        }
        auto r = runModelOnIds(model, ids, kTopShown, previous ? &*previous : nullptr);
        if (auto *p = std::get_if<Problem>(&r))
            return *p;
        ModelTrace t = std::move(std::get<ModelTrace>(r));
        GenerationStep st = chooseNext(model, t, s, rng);
        if (st.p <= 0)
            return Problem{"logits", "the model gave no token a probability"};
        g.steps.push_back(std::move(st));
        previous = std::move(t);

        if (int(ids.size()) + 1 > limit) {
            g.stopped = "the context of " + std::to_string(limit) + " positions is full";
            break;
        }
        ids.push_back(g.steps.back().id);
    }
    if (previous)
        g.trace = std::move(*previous);
    return g;
}

} // namespace attn
