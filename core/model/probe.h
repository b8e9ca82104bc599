#pragma once
// The standard probe of a model's heads (Olsson et al. 2022: random token
// sequences said twice), every head's scores over it, and what knocking
// heads out does: the next-token top k of a text, the loss on the probe's
// second copies (the tokens the first copy gives away) and every head's
// scores, with and without.

#include "gpt2.h"
#include "headlabel.h"
#include "result.h"

#include <cstdint>
#include <vector>

namespace attn {

inline constexpr int kProbeSequences = 8;
inline constexpr int kProbeLength = 16;

// `sequences` texts of 2 × `length` ids: `length` uniform draws below
// `vocab` from Rng(seed), said twice.
std::vector<std::vector<int>> repeatedProbe(int vocab, std::uint64_t seed, int sequences = kProbeSequences,
                                            int length = kProbeLength);

// Every head's scores (headlabel.h), meaned over the probe's texts:
// [layer × n_head + head]. With `ablations`, of the forward with those heads
// knocked out.
Result<std::vector<HeadScores>> probeScores(const Gpt2Model &model, const std::vector<std::vector<int>> &probe,
                                            const std::vector<HeadAblation> &ablations = {});

// Each head's output (the row it writes for c_proj, d_h) averaged over every
// position of every probe text: [layer][head]. The mean ablation's row.
Result<std::vector<std::vector<Eigen::RowVectorXd>>> meanHeadOutputs(const Gpt2Model &model,
                                                                    const std::vector<std::vector<int>> &probe);

// The mean of −ln p(ids[i+1] | ids[0..i]) over the rows i = L .. 2L − 2 of
// each probe text of 2L ids (the second copy, whose next token the first
// copy gives away), over every text; in nats.
Result<double> repeatLoss(const Gpt2Model &model, const std::vector<std::vector<int>> &probe,
                          const std::vector<HeadAblation> &ablations = {});

struct AblationReport {
    std::vector<Prediction> nextBefore, nextAfter;       // the text's last position, top k
    double lossBefore = 0, lossAfter = 0;                // repeatLoss over the probe
    std::vector<HeadScores> scoresBefore, scoresAfter;   // probeScores
};

// The effect of `ablations` on `ids` (the top `topK` next tokens) and on the probe.
Result<AblationReport> ablationReport(const Gpt2Model &model, const std::vector<int> &ids,
                                      const std::vector<std::vector<int>> &probe,
                                      const std::vector<HeadAblation> &ablations, int topK = 5);

} // namespace attn
