#include "headscores.h"

#include "headlabel.h"

#include <algorithm>

namespace attn {

double prefixMatchingScore(const Matrix &w, int start, int span, int distance)
{
    const int D = distance > 0 ? distance : span;
    double sum = 0;
    for (int i = start + D; i < start + D + span; ++i)
        sum += w(i, i - D + 1);
    return span > 0 ? sum / span : 0.0;
}

double previousTokenScore(const Matrix &w)
{
    return scoreHead(w, {}).previousToken.score;
}

double uniformPrefixScore(const RepeatedSequences &r)
{
    const std::size_t B = r.starts.size();
    double total = 0;
    for (std::size_t b = 0; b < B; ++b) {
        const int D = r.distances.empty() ? r.spans[b] : r.distances[b], a = r.starts[b], S = r.spans[b];
        double sum = 0;
        for (int i = a + D; i < a + D + S; ++i)
            sum += 1.0 / (i + 1);
        total += S > 0 ? sum / S : 0.0;
    }
    return B ? total / double(B) : 0.0;
}

namespace {

// Calls visit(layer, head, b, weights) for every head on every sequence.
template <class Visit>
std::optional<Problem> eachHead(const Gpt2Model &model, const TrainForwardOptions &options, const TrainBatch &batch,
                                Visit visit)
{
    auto tape = forwardForTraining(model, batch, options);
    if (!tape.ok())
        return *tape.problem();
    const int H = model.config.nHead;
    for (int l = 0; l < model.config.nLayer; ++l)
        for (int h = 0; h < H; ++h)
            for (int b = 0; b < batch.batch; ++b)
                visit(l, h, b, tape.value().layers[std::size_t(l)].weights[std::size_t(b * H + h)]);
    return std::nullopt;
}

int distanceOf(const RepeatedSequences &r, int b)
{
    return r.distances.empty() ? r.spans[std::size_t(b)] : r.distances[std::size_t(b)];
}

} // namespace

Result<std::vector<TrainHeadScore>> headScores(const Gpt2Model &model, const TrainForwardOptions &options,
                                          const RepeatedSequences &repeated)
{
    const int H = model.config.nHead, B = repeated.batch.batch;
    std::vector<TrainHeadScore> out;
    for (int l = 0; l < model.config.nLayer; ++l)
        for (int h = 0; h < H; ++h)
            out.push_back(TrainHeadScore{l, h, 0, 0, 0, 0});
    if (auto p = eachHead(model, options, repeated.batch, [&](int l, int h, int b, const Matrix &w) {
            TrainHeadScore &s = out[std::size_t(l * H + h)];
            s.prefixMatching += prefixMatchingScore(w, repeated.starts[std::size_t(b)], repeated.spans[std::size_t(b)],
                                                    distanceOf(repeated, b)) / B;
            s.previousToken += previousTokenScore(w) / B;
        }))
        return *p;
    return out;
}

Result<std::vector<double>> prefixScores(const Gpt2Model &model, const TrainForwardOptions &options,
                                         const RepeatedSequences &r)
{
    const int H = model.config.nHead, B = r.batch.batch;
    std::vector<double> out(std::size_t(model.config.nLayer * H), 0.0);
    if (auto p = eachHead(model, options, r.batch, [&](int l, int h, int b, const Matrix &w) {
            out[std::size_t(l * H + h)] += prefixMatchingScore(w, r.starts[std::size_t(b)], r.spans[std::size_t(b)],
                                                                distanceOf(r, b)) / B;
        }))
        return *p;
    return out;
}

double inductionScore(const std::vector<TrainHeadScore> &heads)
{
    double best = 0;
    for (const TrainHeadScore &h : heads)
        if (h.layer >= kFirstInductionLayer)
            best = std::max(best, h.prefixMatching);
    return best;
}

double largestPrefixScore(const std::vector<TrainHeadScore> &heads)
{
    double best = 0;
    for (const TrainHeadScore &h : heads)
        best = std::max(best, h.prefixMatching);
    return best;
}

} // namespace attn
