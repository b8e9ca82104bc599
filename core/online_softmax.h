#pragma once
// The weights and outputs computed as FlashAttention computes them: the
// keys read in tiles of B, each query row keeping a running maximum m, a
// running sum l of e^(s - m) and a running output o (already divided by l),
// so that the n_q by n_k weights are never stored (Milakov & Gimelshein
// 2018, "Online normalizer calculation for softmax"; Dao et al. 2022).
//
// Reading tile t (keys first..last) of row i, with s_j the scaled scores:
//   m_new = max(m_old, max_j s_j)
//   l_new = l_old e^(m_old - m_new) + sum_j e^(s_j - m_new)
//   o_new = (o_old l_old e^(m_old - m_new) + sum_j e^(s_j - m_new) v_j) / l_new
// After the last tile, o is the row's output and e^(s_j - m) / l its weights.
//
// Plain data from a computed trace: it repeats the trace's softmax in
// another order, so the difference to the trace is rounding only.

#include "attention.h"
#include "result.h"

#include <optional>
#include <string>
#include <vector>

namespace attn {

struct OnlineTile {
    int first = 0, last = 0; // the keys read, 0-based, inclusive
    double mOld = 0;         // the running maximum before the tile (-inf before the first)
    double m = 0;            // after it
    double rescale = 0;      // e^(mOld - m): what the old sum and output are multiplied by (0 before the first tile)
    double l = 0;            // the running sum after the tile
    Eigen::RowVectorXd o;    // 1 by d_v: the running output after the tile, divided by l
    bool open = false;       // some key of the tile is open (a tile of blocked keys changes nothing)
};

struct OnlineRow {
    std::vector<OnlineTile> tiles;
    bool fullyMasked = false; // no open key: no weights, the output row is zero
};

struct OnlineHead {
    std::vector<OnlineRow> rows;     // n_q rows
    Matrix weights;                  // n_q by n_k: e^(s_j - m) / l, from the final m and l
    Matrix output;                   // n_q by d_v: the last tile's o
    double largestWeightDifference = 0; // max |weights - the trace's|
    double largestOutputDifference = 0; // max |output - the trace's|
};

// Every head of `t` (computed from `s`) in tiles of `tile` keys (1 to n_k;
// larger is one tile). With the mask after the softmax the blocked keys
// count in l but not in o, as the trace's weights do. A Problem placed at
// "tile" for a size below 1.
Result<std::vector<OnlineHead>> onlineSoftmax(const Scenario &s, const Trace &t, int tile);

// One query row of one head, as onlineSoftmax computes it, for a view that
// steps through a single row (n_k / B tiles of d_v + 4 numbers, whatever
// n_q): its tiles, its weights (1 by n_k) and output (1 by d_v), and their
// largest differences to the trace's row. A Problem at "tile", "head" or
// "query" when one is out of range.
struct OnlineRowResult {
    OnlineRow row;
    Eigen::RowVectorXd weights; // 1 by n_k
    Eigen::RowVectorXd output;  // 1 by d_v
    double largestWeightDifference = 0;
    double largestOutputDifference = 0;
};
Result<OnlineRowResult> onlineSoftmaxRow(const Scenario &s, const Trace &t, int head, int query, int tile);

// Tile `index` of `r` (row `query` of head `head`) written out as a student
// writes it, in the step panel's notation (e^{x}, m_{old}): the tile's
// scores, the new maximum, the rescaling e^(m_old - m), the new sum l and
// the new output o. At most `maxKeys` of the tile's scores are listed. A
// tile that changes nothing (no key counted yet, or every key of it
// blocked) gives the scores line alone.
std::vector<std::string> onlineTileLines(const Scenario &s, const Trace &t, int head, int query,
                                         const OnlineRowResult &r, int index, int maxKeys = 8);

// The numbers the tiles of `t` at `tile` keys would hold (n_q rows, each
// ceil(n_k / tile) tiles of d_v + 4), checked before they are made: a
// Problem naming both when they pass kMaxOnlineNumbers.
inline constexpr double kMaxOnlineNumbers = 4e6;
std::optional<Problem> onlineTooLarge(const Trace &t, int tile);

// The tiles as a teacher writes them: for each head and query row, each
// tile's m (and the old one), the rescaling, l as old sum times the
// rescaling plus the tile's sum, and o; then the largest difference to the
// softmax and the memory traffic.
std::string onlineText(const Scenario &s, const std::vector<OnlineHead> &heads, int tile);

// Memory traffic of one row of n scores through the softmax, in element
// reads and writes of the n-vector (Milakov & Gimelshein's count): the safe
// softmax reads it for the maximum, again for the sum, and reads and writes
// it to normalise (4n); the online softmax finds the maximum and the sum in
// one pass (3n); fused with the weighted sum as FlashAttention does, the
// scores are never stored at all (0 accesses to an n_q by n_k matrix).
struct SoftmaxTraffic {
    long long safe = 0;   // 4 n per row
    long long online = 0; // 3 n per row
    long long fused = 0;  // 0: the scores live in a tile only
    long long storedCells = 0; // n_q n_k cells the safe and online softmax keep, 0 fused
};
SoftmaxTraffic softmaxTraffic(int queries, int keys);

// One row of scores through e^x / sum e^x as written, and with each score
// shifted by the row's maximum first. In double e^x overflows past about
// 709.78, so a row with a score of 800 gives inf / inf = NaN unshifted; the
// shifted row is finite for any finite scores.
struct OverflowRow {
    Eigen::RowVectorXd exponentials; // e^s, as is (may hold inf)
    Eigen::RowVectorXd naive;        // e^s / sum e^s (may hold inf and NaN)
    Eigen::RowVectorXd shifted;      // e^(s - max s), finite
    Eigen::RowVectorXd safe;         // e^(s - max s) / sum e^(s - max s): the weights
    double maximum = 0;
};
OverflowRow overflowRow(const Eigen::RowVectorXd &scores);

} // namespace attn
