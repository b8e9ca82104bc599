#include "probe.h"

#include "random.h"

#include <algorithm>
#include <cmath>

namespace attn {

std::vector<std::vector<int>> repeatedProbe(int vocab, std::uint64_t seed, int sequences, int length)
{
    std::vector<std::vector<int>> out;
    Rng rng(seed);
    for (int k = 0; k < sequences; ++k) {
        std::vector<int> ids(std::size_t(std::max(length, 0)));
        for (int &id : ids)
            id = std::min(vocab - 1, int(rng.uniform() * vocab));
        ids.insert(ids.end(), ids.begin(), ids.end()); // said twice
        out.push_back(std::move(ids));
    }
    return out;
}

Result<std::vector<HeadScores>> probeScores(const Gpt2Model &model, const std::vector<std::vector<int>> &probe,
                                            const std::vector<HeadAblation> &ablations)
{
    const int layers = model.config.nLayer, heads = model.config.nHead;
    std::vector<std::vector<HeadScores>> each(std::size_t(layers * heads));
    for (const std::vector<int> &ids : probe) {
        auto r = runModelOnIdsAblated(model, ids, 0, ablations);
        if (const auto *p = std::get_if<Problem>(&r))
            return *p;
        const ModelTrace &t = std::get<ModelTrace>(r);
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h)
                each[std::size_t(l * heads + h)].push_back(
                    scoreHead(t.layers[std::size_t(l)].heads[std::size_t(h)].weights, t.ids));
    }
    std::vector<HeadScores> out;
    for (const auto &e : each)
        out.push_back(meanScores(e));
    return out;
}

Result<std::vector<std::vector<Eigen::RowVectorXd>>> meanHeadOutputs(const Gpt2Model &model,
                                                                    const std::vector<std::vector<int>> &probe)
{
    const int layers = model.config.nLayer, heads = model.config.nHead, dh = model.config.headDim();
    std::vector<std::vector<Eigen::RowVectorXd>> sum(std::size_t(layers),
                                                     std::vector<Eigen::RowVectorXd>(std::size_t(heads), Eigen::RowVectorXd::Zero(dh)));
    double rows = 0;
    for (const std::vector<int> &ids : probe) {
        auto r = runModelOnIds(model, ids, 0);
        if (const auto *p = std::get_if<Problem>(&r))
            return *p;
        const ModelTrace &t = std::get<ModelTrace>(r);
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h)
                sum[std::size_t(l)][std::size_t(h)] += t.layers[std::size_t(l)].heads[std::size_t(h)].output.colwise().sum();
        rows += double(ids.size());
    }
    if (rows == 0)
        return Problem{"probe", "the probe has no tokens"};
    for (auto &layer : sum)
        for (Eigen::RowVectorXd &m : layer)
            m /= rows;
    return sum;
}

Result<double> repeatLoss(const Gpt2Model &model, const std::vector<std::vector<int>> &probe,
                          const std::vector<HeadAblation> &ablations)
{
    double sum = 0;
    int rows = 0;
    for (const std::vector<int> &ids : probe) {
        const Eigen::Index n = Eigen::Index(ids.size()), L = n / 2;
        if (L < 2)
            continue;
        auto r = runModelOnIdsAblated(model, ids, 0, ablations);
        if (const auto *p = std::get_if<Problem>(&r))
            return *p;
        const ModelTrace &t = std::get<ModelTrace>(r);
        // The second copy's rows against the tied embedding.   (L − 1) by vocab
        const Matrix logits = model.logitsOf(t.final.middleRows(L, L - 1));
        for (Eigen::Index i = 0; i < L - 1; ++i) {
            const double top = logits.row(i).maxCoeff();
            const double logSum = top + std::log((logits.row(i).array() - top).exp().sum());
            sum += logSum - logits(i, ids[std::size_t(L + i + 1)]);
            ++rows;
        }
    }
    if (rows == 0)
        return Problem{"probe", "no probe text is long enough (2 × 2 tokens at least)"};
    return sum / rows;
}

Result<AblationReport> ablationReport(const Gpt2Model &model, const std::vector<int> &ids,
                                      const std::vector<std::vector<int>> &probe,
                                      const std::vector<HeadAblation> &ablations, int topK)
{
    AblationReport out;
    for (const bool knocked : {false, true}) {
        const std::vector<HeadAblation> none;
        const std::vector<HeadAblation> &a = knocked ? ablations : none;
        auto t = runModelOnIdsAblated(model, ids, topK, a);
        if (const auto *p = std::get_if<Problem>(&t))
            return *p;
        auto loss = repeatLoss(model, probe, a);
        if (const auto *p = std::get_if<Problem>(&loss))
            return *p;
        auto scores = probeScores(model, probe, a);
        if (const auto *p = std::get_if<Problem>(&scores))
            return *p;
        (knocked ? out.nextAfter : out.nextBefore) = std::get<ModelTrace>(t).next;
        (knocked ? out.lossAfter : out.lossBefore) = std::get<double>(loss);
        (knocked ? out.scoresAfter : out.scoresBefore) = std::move(std::get<std::vector<HeadScores>>(scores));
    }
    return out;
}

} // namespace attn
