#include "trace_json.h"

namespace attn {

namespace {

QJsonArray strings(const std::vector<std::string> &v)
{
    QJsonArray a;
    for (const auto &s : v)
        a.append(QString::fromStdString(s));
    return a;
}

QJsonValue rowToJson(const RowStats &r)
{
    return QJsonObject{{"sum", r.sum},
                       {"entropy", r.entropy},
                       {"max_weight", r.maxWeight},
                       {"argmax", r.fullyMasked ? QJsonValue(QJsonValue::Null) : QJsonValue(r.argmax)},
                       {"fully_masked", r.fullyMasked}};
}

} // namespace

QJsonArray matrixToJson(const Eigen::Ref<const Matrix> &m)
{
    QJsonArray rows;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        QJsonArray row;
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            row.append(m(i, j) == 0 ? 0.0 : m(i, j)); // no "-0"
        rows.append(row);
    }
    return rows;
}

QJsonArray boolMatrixToJson(const BoolMatrix &m)
{
    QJsonArray rows;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        QJsonArray row;
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            row.append(bool(m(i, j)));
        rows.append(row);
    }
    return rows;
}

QJsonObject traceToJson(const Scenario &s, const Trace &t)
{
    QJsonObject settings{{"mode", toString(s.mode)},
                         {"heads", s.heads},
                         {"d_k", t.dk},
                         {"d_v", t.dv},
                         {"similarity", toString(s.similarity)},
                         {"scale", toString(s.scale)},
                         {"temperature", s.temperature},
                         {"divisor", t.divisor},
                         {"causal", s.mask.causal},
                         {"mask_stage", toString(s.maskStage)},
                         {"positional_encoding", toString(s.encoding)}};

    QJsonObject positional{{"kind", toString(s.encoding)}};
    if (t.positionQuery.size()) {
        const bool rope = s.encoding == Encoding::Rope;
        positional.insert(rope ? "query_angles" : "query", matrixToJson(t.positionQuery));
        positional.insert(rope ? "key_angles" : "key", matrixToJson(t.positionKey));
        if (t.positionValue.size())
            positional.insert("value", matrixToJson(t.positionValue));
    }

    QJsonArray heads, rows;
    const QJsonArray blocked = boolMatrixToJson(t.blocked);
    for (const HeadTrace &h : t.heads) {
        heads.append(QJsonObject{{"Q", matrixToJson(h.Q)},
                                 {"K", matrixToJson(h.K)},
                                 {"V", matrixToJson(h.V)},
                                 {"scores", matrixToJson(h.scores)},
                                 {"scaled", matrixToJson(h.scaled)},
                                 {"blocked", blocked},
                                 {"weights", matrixToJson(h.weights)},
                                 {"output", matrixToJson(h.output)}});
        QJsonArray headRows;
        for (const RowStats &r : h.rows)
            headRows.append(rowToJson(r));
        rows.append(headRows);
    }

    return QJsonObject{{"format", "attention-lab/trace"},
                       {"version", 1},
                       {"title", QString::fromStdString(s.title)},
                       {"tokens", strings(queryLabels(s))},
                       {"source_tokens", strings(keyLabels(s))},
                       {"settings", settings},
                       {"positional", positional},
                       {"heads", heads},
                       {"concat", matrixToJson(t.concat)},
                       {"output", matrixToJson(t.output)},
                       {"rows", rows}};
}

} // namespace attn
