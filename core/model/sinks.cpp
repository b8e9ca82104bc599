#include "sinks.h"

#include "generate.h"

#include <algorithm>
#include <cmath>

namespace attn {

BoolMatrix sinkWindowMask(int n, int window, int sinks)
{
    BoolMatrix b(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            b(i, j) = j > i || (window > 0 && i - j >= window && j >= sinks);
    return b;
}

namespace {

// The mean next-token loss of a trace's own text (every position's logits:
// LN_f's rows against the tied embedding).
double traceLoss(const Gpt2Model &model, const ModelTrace &t)
{
    const Eigen::Index n = Eigen::Index(t.ids.size());
    // (n − 1) by vocab
    const Matrix logits = model.logitsOf(t.final.topRows(n - 1));
    double sum = 0;
    for (Eigen::Index i = 0; i + 1 < n; ++i) {
        const double top = logits.row(i).maxCoeff();
        const double logSum = top + std::log((logits.row(i).array() - top).exp().sum());
        sum += logSum - logits(i, t.ids[std::size_t(i + 1)]);
    }
    return sum / double(n - 1);
}

} // namespace

Result<double> nextTokenLoss(const Gpt2Model &model, const std::vector<int> &ids, const BoolMatrix &blocked)
{
    if (ids.size() < 2)
        return Problem{"text", "the loss needs at least 2 tokens"};
    auto r = blocked.size() ? runModelOnIdsMasked(model, ids, 0, blocked) : runModelOnIds(model, ids, 0);
    if (const auto *p = std::get_if<Problem>(&r))
        return *p;
    return traceLoss(model, std::get<ModelTrace>(r));
}

Result<SinkReport> sinkExperiment(const Gpt2Model &model, const std::vector<int> &ids, int window, int sinks)
{
    const int n = int(ids.size());
    if (n < 3)
        return Problem{"text", "the experiment needs at least 3 tokens (the text has " + std::to_string(n) + ")"};
    // A window of 1 would leave no room for a sink beside it (s < w).
    if (window < 2 || window >= n)
        return Problem{"window", std::to_string(window) + " is outside 2 to " + std::to_string(n - 1)
                                     + " (the text has " + std::to_string(n) + " tokens)"};
    if (sinks < 1 || sinks >= window)
        return Problem{"sinks", std::to_string(sinks) + " is outside 1 to " + std::to_string(window - 1)};
    SinkReport report;
    const struct {
        std::string name;
        int w, s;
    } cases[] = {{"full", 0, 0},
                 {"window " + std::to_string(window), window, 0},
                 {std::to_string(sinks) + " sinks + window " + std::to_string(window), window, sinks}};
    // The full forward once: its loss, and the weights on the first token.
    auto full = runModelOnIds(model, ids, 0);
    if (const auto *p = std::get_if<Problem>(&full))
        return *p;
    const ModelTrace &t = std::get<ModelTrace>(full);
    for (const auto &c : cases) {
        double l = 0;
        if (c.w == 0) {
            l = traceLoss(model, t);
        } else {
            auto loss = nextTokenLoss(model, ids, sinkWindowMask(n, c.w, c.s));
            if (const auto *p = std::get_if<Problem>(&loss))
                return *p;
            l = std::get<double>(loss);
        }
        report.rows.push_back({c.name, c.w, c.s, l, std::exp(l)});
    }
    report.byPosition = firstTokenWeights(t);
    const int heads = t.layers.empty() ? 0 : int(t.layers[0].heads.size());
    for (std::size_t l = 0; l < t.layers.size(); ++l) {
        std::vector<double> row;
        for (int h = 0; h < heads; ++h)
            row.push_back(report.byPosition.row(Eigen::Index(l) * heads + h).tail(n - 1).mean());
        report.firstTokenWeight.push_back(std::move(row));
    }
    return report;
}

double SinkReport::windowCostPercent() const
{
    if (rows.size() < 2 || rows[0].loss == 0)
        return 0;
    return (rows[1].loss - rows[0].loss) / rows[0].loss * 100;
}

std::optional<double> SinkReport::sinksRecoverPercent() const
{
    if (rows.size() < 3 || !(rows[1].loss > rows[0].loss))
        return std::nullopt;
    return (rows[1].loss - rows[2].loss) / (rows[1].loss - rows[0].loss) * 100;
}

Matrix firstTokenWeights(const ModelTrace &t)
{
    const Eigen::Index n = Eigen::Index(t.ids.size());
    const Eigen::Index heads = t.layers.empty() ? 0 : Eigen::Index(t.layers[0].heads.size());
    Matrix out(Eigen::Index(t.layers.size()) * heads, n);
    for (std::size_t l = 0; l < t.layers.size(); ++l)
        for (Eigen::Index h = 0; h < heads; ++h)
            out.row(Eigen::Index(l) * heads + h) = t.layers[l].heads[std::size_t(h)].weights.col(0).transpose();
    return out;
}

Result<Matrix> firstTokenWeights(const Gpt2Model &model, const std::vector<int> &ids)
{
    auto r = runModelOnIds(model, ids, 0);
    if (const auto *p = std::get_if<Problem>(&r))
        return *p;
    return firstTokenWeights(std::get<ModelTrace>(r));
}

double uniformFirstTokenWeight(int n)
{
    if (n < 2)
        return 0;
    double s = 0;
    for (int i = 1; i < n; ++i)
        s += 1.0 / (i + 1);
    return s / (n - 1);
}

Result<std::vector<int>> sinkText(const Gpt2Model &model, int tokens, std::uint64_t seed, const std::atomic<bool> *cancel)
{
    if (tokens < 1)
        return Problem{"tokens", std::to_string(tokens) + " is below 1"};
    // No more than the model reads in one forward (generate() would draw one
    // more, from the last position's logits).
    tokens = std::min({tokens, model.config.nPositions, maxTracedTokens(model.config)});
    std::vector<int> prompt = model.tokenizer.encode(QStringLiteral("the cat"));
    if (prompt.empty())
        return Problem{"text", "the prompt \"the cat\" gives no token"};
    if (int(prompt.size()) >= tokens) {
        prompt.resize(std::size_t(tokens));
        return prompt;
    }
    SamplingSettings s;
    s.temperature = 1.0;
    s.seed = seed;
    s.steps = std::min(tokens - int(prompt.size()), kMaxGenerationSteps);
    auto g = generate(model, prompt, s, cancel);
    if (const auto *p = std::get_if<Problem>(&g))
        return *p;
    const Generation &gen = std::get<Generation>(g);
    std::vector<int> ids = gen.prompt;
    for (const GenerationStep &st : gen.steps)
        ids.push_back(st.id);
    return ids;
}

} // namespace attn
