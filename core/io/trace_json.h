#pragma once
// The trace as JSON: what `attention-lab-cli trace --format json` prints and
// what the window's "Export numbers" writes. Every number is finite.

#include "attention.h"
#include "online_softmax.h"
#include "json_stream.h" // escapeTerminalControls, for those who print JSON
#include "scenario.h"

#include <QJsonArray>
#include <QJsonObject>

#include <functional>

namespace attn {

QJsonArray matrixToJson(const Eigen::Ref<const Matrix> &m);
QJsonArray boolMatrixToJson(const BoolMatrix &m);

// The trace as a tree of JSON values, for a program that wants one. A
// large trace is better written with writeTraceJson: the tree costs about
// 200 bytes a number.
// {"tokens", "source_tokens", "settings", "positional",
//  "heads": [{"Q", "K", "V", "scores", "scaled", "blocked", "weights", "output"}],
//  "concat", "output",
//  "rows": [[{"sum", "entropy", "max_weight", "argmax", "fully_masked"}, ...per query], ...per head]}
QJsonObject traceToJson(const Scenario &s, const Trace &t);

// The same trace as JSON text, written piece by piece into `sink` (chunks of
// about 1 MB), so that no tree and no whole text is ever held: the bytes are
// those of QJsonDocument(traceToJson(s, t)).toJson(QJsonDocument::Indented),
// except that the characters escapeTerminalControls escapes are escaped
// (the same strings once parsed). Stops at the first chunk `sink` refuses
// (returns false) and returns false then.
bool writeTraceJson(const Scenario &s, const Trace &t, const std::function<bool(const QByteArray &)> &sink);
// The same with the online softmax of every head (online_softmax.h) as
// "online": [{"head", "rows": [{"tiles": [{"keys": [first, last] (1-based),
// "l", "m", "o": the running output over l}]}]}], after "heads" (a running
// maximum of -inf, before the first open key, is null).
bool writeTraceJson(const Scenario &s, const Trace &t, const std::vector<OnlineHead> &online,
                    const std::function<bool(const QByteArray &)> &sink);
// The number of bytes writeTraceJson writes, counted without keeping them.
qint64 traceJsonSize(const Scenario &s, const Trace &t);
// All of writeTraceJson's bytes in one array, allocated once at its size
// (`size` when the caller counted it already, else counted here).
QByteArray traceJsonBytes(const Scenario &s, const Trace &t, qint64 size = -1);

} // namespace attn
