#include "trace_json.h"

#include <QJsonDocument>
#include <QLocale>

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
                                 {"scaled", matrixToJson(h.scaledMatrix())},
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

// ---- the streamed text ----

namespace attn {

namespace {

// The scaled stage of a head, stored or derived: each entry formed as it is
// written, never an n_q by n_k copy.
struct ScaledStage {
    const HeadTrace &head;
    Eigen::Index rows() const { return head.scores.rows(); }
    Eigen::Index cols() const { return head.scores.cols(); }
    double operator()(Eigen::Index i, Eigen::Index j) const { return head.scaledAt(i, j); }
};

} // namespace

bool writeTraceJson(const Scenario &s, const Trace &t, const std::function<bool(const QByteArray &)> &sink)
{
    JsonStream o(sink);
    const bool rope = s.encoding == Encoding::Rope;
    const int h = int(t.heads.size());
    auto matrixMember = [&o](int level, const char *name, const auto &m, bool last) {
        o.key(level, name);
        o.matrix(level, m);
        o.next(last);
    };

    o.raw("{\n");
    matrixMember(1, "concat", t.concat, false);
    o.key(1, "format");
    o.raw("\"attention-lab/trace\"");
    o.next(false);

    o.key(1, "heads");
    if (h == 0) {
        o.raw("[\n");
        o.indent(1);
        o.raw("]");
    } else {
        o.raw("[\n");
        for (int i = 0; i < h && o.ok(); ++i) {
            const HeadTrace &head = t.heads[std::size_t(i)];
            o.indent(2);
            o.raw("{\n");
            matrixMember(3, "K", head.K, false);
            matrixMember(3, "Q", head.Q, false);
            matrixMember(3, "V", head.V, false);
            o.key(3, "blocked");
            o.grid(3, t.blocked, [&o](bool b) { o.boolean(b); });
            o.next(false);
            matrixMember(3, "output", head.output, false);
            matrixMember(3, "scaled", ScaledStage{head}, false);
            matrixMember(3, "scores", head.scores, false);
            matrixMember(3, "weights", head.weights, true);
            o.indent(2);
            o.raw("}");
            o.next(i + 1 == h);
        }
        o.indent(1);
        o.raw("]");
    }
    o.next(false);

    matrixMember(1, "output", t.output, false);

    o.key(1, "positional");
    o.raw("{\n");
    const bool tables = t.positionQuery.size() != 0;
    if (tables)
        matrixMember(2, rope ? "key_angles" : "key", t.positionKey, false);
    o.key(2, "kind");
    o.string(toString(s.encoding));
    o.next(!tables);
    if (tables) {
        matrixMember(2, rope ? "query_angles" : "query", t.positionQuery, t.positionValue.size() == 0);
        if (t.positionValue.size())
            matrixMember(2, "value", t.positionValue, true);
    }
    o.indent(1);
    o.raw("}");
    o.next(false);

    o.key(1, "rows");
    o.raw("[\n");
    for (int i = 0; i < h; ++i) {
        const std::vector<RowStats> &rows = t.heads[std::size_t(i)].rows;
        o.indent(2);
        o.raw("[\n");
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const RowStats &st = rows[r];
            o.indent(3);
            o.raw("{\n");
            o.key(4, "argmax");
            if (st.fullyMasked)
                o.raw("null");
            else
                o.integer(st.argmax);
            o.next(false);
            o.key(4, "entropy");
            o.number(st.entropy);
            o.next(false);
            o.key(4, "fully_masked");
            o.boolean(st.fullyMasked);
            o.next(false);
            o.key(4, "max_weight");
            o.number(st.maxWeight);
            o.next(false);
            o.key(4, "sum");
            o.number(st.sum);
            o.next(true);
            o.indent(3);
            o.raw("}");
            o.next(r + 1 == rows.size());
        }
        o.indent(2);
        o.raw("]");
        o.next(i + 1 == h);
        if (!o.flush())
            return false;
    }
    o.indent(1);
    o.raw("]");
    o.next(false);

    o.key(1, "settings");
    o.raw("{\n");
    o.key(2, "causal");
    o.boolean(s.mask.causal);
    o.next(false);
    o.key(2, "d_k");
    o.integer(t.dk);
    o.next(false);
    o.key(2, "d_v");
    o.integer(t.dv);
    o.next(false);
    o.key(2, "divisor");
    o.number(t.divisor);
    o.next(false);
    o.key(2, "heads");
    o.integer(s.heads);
    o.next(false);
    o.key(2, "mask_stage");
    o.string(toString(s.maskStage));
    o.next(false);
    o.key(2, "mode");
    o.string(toString(s.mode));
    o.next(false);
    o.key(2, "positional_encoding");
    o.string(toString(s.encoding));
    o.next(false);
    o.key(2, "scale");
    o.string(toString(s.scale));
    o.next(false);
    o.key(2, "similarity");
    o.string(toString(s.similarity));
    o.next(false);
    o.key(2, "temperature");
    o.number(s.temperature);
    o.next(true);
    o.indent(1);
    o.raw("}");
    o.next(false);

    o.key(1, "source_tokens");
    o.strings(1, keyLabels(s));
    o.next(false);
    o.key(1, "title");
    o.string(s.title);
    o.next(false);
    o.key(1, "tokens");
    o.strings(1, queryLabels(s));
    o.next(false);
    o.key(1, "version");
    o.integer(1);
    o.next(true);
    o.raw("}\n");
    return o.finish();
}

qint64 traceJsonSize(const Scenario &s, const Trace &t)
{
    qint64 length = 0;
    writeTraceJson(s, t, [&length](const QByteArray &chunk) {
        length += chunk.size();
        return true;
    });
    return length;
}

QByteArray traceJsonBytes(const Scenario &s, const Trace &t, qint64 size)
{
    // Reserved at its size: a grown array briefly holds two copies.
    QByteArray out;
    out.reserve(size >= 0 ? size : traceJsonSize(s, t));
    writeTraceJson(s, t, [&out](const QByteArray &chunk) {
        out += chunk;
        return true;
    });
    return out;
}

} // namespace attn
