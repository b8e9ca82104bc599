#include "sinks.h"

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

Result<double> nextTokenLoss(const Gpt2Model &model, const std::vector<int> &ids, const BoolMatrix &blocked)
{
    if (ids.size() < 2)
        return Problem{"text", "the loss needs at least 2 tokens"};
    auto r = blocked.size() ? runModelOnIdsMasked(model, ids, 0, blocked) : runModelOnIds(model, ids, 0);
    if (const auto *p = std::get_if<Problem>(&r))
        return *p;
    const ModelTrace &t = std::get<ModelTrace>(r);
    const Eigen::Index n = Eigen::Index(ids.size());
    // Every position's logits: LN_f's rows against the tied embedding.   (n − 1) by vocab
    const Matrix logits = t.final.topRows(n - 1) * model.unembedding().transpose();
    double sum = 0;
    for (Eigen::Index i = 0; i + 1 < n; ++i) {
        const double top = logits.row(i).maxCoeff();
        const double logSum = top + std::log((logits.row(i).array() - top).exp().sum());
        sum += logSum - logits(i, ids[std::size_t(i + 1)]);
    }
    return sum / double(n - 1);
}

Result<SinkReport> sinkExperiment(const Gpt2Model &model, const std::vector<int> &ids, int window, int sinks)
{
    const int n = int(ids.size());
    if (window < 1 || window >= n)
        return Problem{"window", std::to_string(window) + " is outside 1 to " + std::to_string(n - 1)
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
    for (const auto &c : cases) {
        auto loss = nextTokenLoss(model, ids, c.w ? sinkWindowMask(n, c.w, c.s) : BoolMatrix());
        if (const auto *p = std::get_if<Problem>(&loss))
            return *p;
        const double l = std::get<double>(loss);
        report.rows.push_back({c.name, c.w, c.s, l, std::exp(l)});
    }
    auto full = runModelOnIds(model, ids, 0);
    if (const auto *p = std::get_if<Problem>(&full))
        return *p;
    for (const LayerActivations &la : std::get<ModelTrace>(full).layers) {
        std::vector<double> heads;
        for (const HeadActivations &h : la.heads)
            heads.push_back(n > 1 ? h.weights.col(0).tail(n - 1).mean() : 0.0);
        report.firstTokenWeight.push_back(std::move(heads));
    }
    return report;
}

} // namespace attn
