#pragma once
// A/B: two scenarios' traces compared stage by stage and head by head (no
// Qt). For each stage, the largest |B - A| and where it is; with "align by
// token", B's rows and columns are first put into A's token order, so that
// two orderings of the same words can be compared cell by cell.
//
// Without a positional encoding, attention is permutation-equivariant: the
// aligned difference is zero but for rounding (< 1e-12). With sinusoidal,
// learned or RoPE encoding it is not.

#include "attention.h"
#include "scenario.h"

#include <optional>
#include <string>
#include <vector>

namespace attn {

// The stages compared: the five per-head maps and the whole layer's two.
enum class CompareStage { Scores, Scaled, Masked, Weights, Output, Concat, FinalOutput };
inline constexpr CompareStage kAllCompareStages[] = {CompareStage::Scores,  CompareStage::Scaled, CompareStage::Masked,
                                                     CompareStage::Weights, CompareStage::Output, CompareStage::Concat,
                                                     CompareStage::FinalOutput};

// "scores", "scaled", "masked", "weights", "output", "concat", "final_output".
const char *compareStageKey(CompareStage s);
std::optional<CompareStage> compareStageFromKey(const std::string &key);
bool isPerHead(CompareStage s); // the first five

// The stage's matrix in a trace: head `head` for the per-head stages (n_q by
// n_k, or n_q by d_v for the output), the layer's for concat (n_q by h*d_v)
// and final output (n_q by d_out). Masked: the scaled scores with blocked
// entries -inf when the mask acts before the softmax (as the window's map).
Matrix compareStageMatrix(const Trace &t, const Scenario &s, CompareStage stage, int head);

// Token alignment. order[i] = the row of B that holds A's token i; the same
// label twice is matched in order of appearance. Empty (with a reason in
// `why`) unless both are self-attention over the same multiset of labels
// and the same number of heads. An identity order is still an alignment.
std::optional<std::vector<int>> tokenAlignment(const Scenario &a, const Scenario &b, std::string *why = nullptr);

// Puts B's trace into A's token order: new row i is old row order[i], and for
// the n_q by n_k stages new column j is old column order[j]. n_q = n_k = order.size().
Trace alignTrace(const Trace &b, const std::vector<int> &order);

struct StageDifference {
    CompareStage stage = CompareStage::Weights;
    int head = -1;           // 0-based; -1 for concat and final output
    bool comparable = false; // false: the shapes differ (why says how)
    std::string why;
    double maxAbsDiff = 0;   // over the cells finite in both; 0 if none
    int row = -1, col = -1;  // 0-based, in A's order; -1 when every cell agrees exactly or none is comparable
    int blockedInOne = 0;    // masked stage: cells -inf in one and finite in the other
    Matrix difference;       // B - A, n_rows by n_cols; NaN where a cell is -inf in either
};

struct Comparison {
    bool aligned = false;          // B was put into A's token order
    std::vector<int> order;        // the alignment used (empty when not aligned)
    bool encodingUsed = false;     // either scenario has a positional encoding
    std::vector<StageDifference> stages; // per-head stages head by head, then concat and final output
    // The largest over every stage and head; 0 when none is comparable
    // (ask anyComparable() before reading 0 as "the same").
    double maxAbsDiff() const;
    bool anyComparable() const;
    const StageDifference *find(CompareStage stage, int head) const;
};

// Difference of one stage between two traces (B already aligned if wanted).
StageDifference stageDifference(const Scenario &a, const Trace &ta, const Scenario &b, const Trace &tb,
                                CompareStage stage, int head);

// Compares every stage (or only `only`), every head both have. With
// alignByToken and an alignment (tokenAlignment), B is aligned first;
// without one, aligned stays false.
Comparison compareTraces(const Scenario &a, const Trace &ta, const Scenario &b, const Trace &tb, bool alignByToken,
                         std::optional<CompareStage> only = std::nullopt);
Comparison compareScenarios(const Scenario &a, const Scenario &b, bool alignByToken,
                            std::optional<CompareStage> only = std::nullopt);

// Below this the aligned difference is rounding: "the same numbers, reordered".
inline constexpr double kSameNumbers = 1e-12;

} // namespace attn
