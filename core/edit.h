#pragma once
// Edits of a scenario as pure functions: each takes a scenario and returns
// the edited copy, keeping every shape that must agree in step (a token is a
// row of Q, K and V at once; d_k is a column block of Q and K per head). The
// window's undo commands are built from these; the result may still fail
// validate() (a causal mask after adding a query, say), and the caller refuses it then.

#include "scenario.h"
#include "validate.h"

#include <string>
#include <vector>

namespace attn {

// The matrices a scenario holds, in file order.
enum class MatrixId { Q, K, V, X, Source, Wq, Wk, Wv, Wo };

const char *matrixName(MatrixId id);        // "Q", "source", "Wq", ...
bool matrixPresent(const Scenario &s, MatrixId id);
const Matrix &matrix(const Scenario &s, MatrixId id); // a present matrix
Matrix &matrix(Scenario &s, MatrixId id);             // a present matrix
std::vector<MatrixId> matrixIds(const Scenario &s);   // the present ones, in file order

// Which sequence a matrix's rows belong to, if any.
enum class Side { Query, Key };
bool rowsAreTokens(MatrixId id);          // Q, K, V, X, source
Side tokenSide(MatrixId id);              // Q, X: queries; K, V, source: keys

// Self-attention: the keys are the query tokens themselves (no separate
// key labels in direct mode, no source in projected mode), so a token edit
// changes both sides.
bool sharesTokens(const Scenario &s);

// Token edits. `side` is ignored when the scenario shares tokens. New rows
// are zero; new mask entries are open.
Scenario insertToken(const Scenario &s, Side side, int index, const std::string &label);
Scenario removeToken(const Scenario &s, Side side, int index);
Scenario moveToken(const Scenario &s, Side side, int from, int to);
Scenario renameToken(const Scenario &s, Side side, int index, const std::string &label);

// Switches between self-attention (the keys are the query tokens) and two
// sequences (cross-attention: separate key tokens; in projected mode a
// source matrix, first a copy of X). Going back to self-attention in direct
// mode needs n_q = n_k; the mask arrays that no longer fit are cleared.
Scenario setSeparateKeys(const Scenario &s, bool separate);

// Reorders the tokens of a self-attention scenario: new token i is old token
// order[i], in every matrix and in the mask (used by the permutation lesson).
Scenario permuteTokens(const Scenario &s, const std::vector<int> &order);

// Width edits. Per-head dimensions grow or shrink at the end of each head's
// column block, so the other columns of every head keep their numbers.
Scenario setHeadDim(const Scenario &s, int dk);       // d_k of Q and K (or Wq and Wk)
Scenario setHeadValueDim(const Scenario &s, int dv);  // d_v of V (or Wv and the rows of Wo)
Scenario setModelDim(const Scenario &s, int dModel);  // columns of X, source; rows of Wq, Wk, Wv
Scenario setOutputDim(const Scenario &s, int dOut);   // columns of Wo (creates it as [I 0] when absent)
Scenario removeOutputProjection(const Scenario &s);
// Changes h and keeps the widths h*d_k and h*d_v (so d_k = width / h).
Scenario setHeads(const Scenario &s, int heads);

// Mask edits that keep the mask arrays the right size: the scenario's
// settings with the one change, for Document::setSettings.
Settings setKeyPadding(const Scenario &s, int key, bool padded);
Settings toggleBlocked(const Scenario &s, int query, int key);
Settings clearHandMask(const Scenario &s);

// τ rounded to two significant digits (numbers a class can read and check,
// and 1 exactly), within what validate() accepts.
double roundTemperature(double tau);

// Whether a setting can be switched on, in validate()'s own words: the
// one rule that the menus, the settings panel and the loader all follow.
std::optional<Problem> whyNotCausal(const Scenario &s);
std::optional<Problem> whyNotHeads(const Scenario &s, int heads);
std::optional<Problem> whyNotEncoding(const Scenario &s, Encoding encoding);

// Mode switches that compute the same attention weights where they can.
// Direct to projected: one-hot embeddings (X = I, or [I 0] and [0 I] for
// separate sequences) with Wq = Q, Wk = K, Wv = V: exact without an additive
// encoding. Projected to direct: toDirect() in attention.h.
Scenario toProjected(const Scenario &s);

} // namespace attn
