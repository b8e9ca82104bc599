#include "headscores.h"

namespace attn {

double prefixMatchingScore(const Matrix &w, int start, int span)
{
    double sum = 0;
    for (int i = start + span; i < start + 2 * span; ++i)
        sum += w(i, i - span + 1);
    return span > 0 ? sum / span : 0.0;
}

double previousTokenScore(const Matrix &w)
{
    return summarizeHead(w).previousToken;
}

Result<std::vector<HeadScore>> headScores(const Gpt2Model &model, const TrainForwardOptions &options,
                                          const RepeatedSequences &repeated)
{
    auto tape = forwardForTraining(model, repeated.batch, options);
    if (!tape.ok())
        return *tape.problem();
    const int H = model.config.nHead, B = repeated.batch.batch;
    std::vector<HeadScore> out;
    for (int l = 0; l < model.config.nLayer; ++l) {
        const LayerTape &lt = tape.value().layers[std::size_t(l)];
        for (int h = 0; h < H; ++h) {
            HeadScore s{l, h, 0, 0};
            for (int b = 0; b < B; ++b) {
                const Matrix &w = lt.weights[std::size_t(b * H + h)];
                s.prefixMatching += prefixMatchingScore(w, repeated.starts[std::size_t(b)], repeated.spans[std::size_t(b)]) / B;
                s.previousToken += previousTokenScore(w) / B;
            }
            out.push_back(s);
        }
    }
    return out;
}

} // namespace attn
