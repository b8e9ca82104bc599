#pragma once
// The trace as JSON: what `attention-lab-cli trace --format json` prints and
// what the window's "Export numbers" writes. Every number is finite.

#include "attention.h"
#include "scenario.h"

#include <QJsonArray>
#include <QJsonObject>

namespace attn {

QJsonArray matrixToJson(const Eigen::Ref<const Matrix> &m);
QJsonArray boolMatrixToJson(const BoolMatrix &m);

// {"tokens", "source_tokens", "settings", "positional",
//  "heads": [{"Q", "K", "V", "scores", "scaled", "blocked", "weights", "output"}],
//  "concat", "output",
//  "rows": [[{"sum", "entropy", "max_weight", "argmax", "fully_masked"}, ...per query], ...per head]}
QJsonObject traceToJson(const Scenario &s, const Trace &t);

} // namespace attn
