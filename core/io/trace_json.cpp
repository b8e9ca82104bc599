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

namespace {

// The global tokens as the file writes them: 1-based.
std::vector<int> globalTokenNumbers(const Mask &m)
{
    std::vector<int> out;
    for (int g : m.global)
        out.push_back(g + 1);
    return out;
}

QJsonArray globalTokens(const Mask &m)
{
    QJsonArray out;
    for (int g : globalTokenNumbers(m))
        out.append(g);
    return out;
}

} // namespace

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
                         {"softmax", toString(s.softmax)},
                         {"positional_encoding", toString(s.encoding)},
                         {"window", s.mask.window}, // 0: none, as in Mask
                         {"dilation", s.mask.dilation},
                         {"block", s.mask.block},
                         {"global", globalTokens(s.mask)}};

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

namespace {

// "online": one entry a head, one a query row, one a tile.
void writeOnline(JsonStream &o, const std::vector<OnlineHead> &online)
{
    o.openArray(1, "online");
    for (std::size_t h = 0; h < online.size() && o.ok(); ++h) {
        o.openObject(2);
        o.members(3, {{"head", h + 1}}, false);
        o.openArray(3, "rows");
        const std::vector<OnlineRow> &rows = online[h].rows;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            o.openObject(4);
            o.openArray(5, "tiles");
            for (std::size_t k = 0; k < rows[i].tiles.size(); ++k) {
                const OnlineTile &tile = rows[i].tiles[k];
                o.openObject(6);
                o.openArray(7, "keys");
                o.indent(8);
                o.integer(tile.first + 1);
                o.next(false);
                o.indent(8);
                o.integer(tile.last + 1);
                o.next(true);
                o.closeArray(7, false);
                o.members(7, {{"l", tile.l}, {"m", tile.m}}, false);
                o.key(7, "o");
                o.raw("[\n");
                for (Eigen::Index j = 0; j < tile.o.size(); ++j) {
                    o.indent(8);
                    o.number(tile.o(j) == 0 ? 0.0 : tile.o(j));
                    o.next(j + 1 == tile.o.size());
                }
                o.closeArray(7, true);
                o.closeObject(6, k + 1 == rows[i].tiles.size());
            }
            o.closeArray(5, true);
            o.closeObject(4, i + 1 == rows.size());
        }
        o.closeArray(3, true);
        o.closeObject(2, h + 1 == online.size());
        if (!o.flush())
            return;
    }
    o.closeArray(1, false);
}

bool writeTrace(const Scenario &s, const Trace &t, const std::vector<OnlineHead> *online,
                const std::function<bool(const QByteArray &)> &sink)
{
    JsonStream o(sink);
    const bool rope = s.encoding == Encoding::Rope;
    const int h = int(t.heads.size());

    o.raw("{\n");
    o.matrix(1, "concat", t.concat, false);
    o.members(1, {{"format", "attention-lab/trace"}}, false);

    o.openArray(1, "heads");
    for (int i = 0; i < h && o.ok(); ++i) {
        const HeadTrace &head = t.heads[std::size_t(i)];
        o.openObject(2);
        o.matrix(3, "K", head.K, false);
        o.matrix(3, "Q", head.Q, false);
        o.matrix(3, "V", head.V, false);
        o.key(3, "blocked");
        o.grid(3, t.blocked, [&o](bool b) { o.boolean(b); });
        o.next(false);
        o.matrix(3, "output", head.output, false);
        o.matrix(3, "scaled", ScaledStage{head}, false);
        o.matrix(3, "scores", head.scores, false);
        o.matrix(3, "weights", head.weights, true);
        o.closeObject(2, i + 1 == h);
    }
    o.closeArray(1, false);
    if (online)
        writeOnline(o, *online);

    o.matrix(1, "output", t.output, false);

    o.openObject(1, "positional");
    const bool tables = t.positionQuery.size() != 0;
    if (tables)
        o.matrix(2, rope ? "key_angles" : "key", t.positionKey, false);
    o.members(2, {{"kind", toString(s.encoding)}}, !tables);
    if (tables) {
        o.matrix(2, rope ? "query_angles" : "query", t.positionQuery, t.positionValue.size() == 0);
        if (t.positionValue.size())
            o.matrix(2, "value", t.positionValue, true);
    }
    o.closeObject(1, false);

    o.openArray(1, "rows");
    for (int i = 0; i < h; ++i) {
        const std::vector<RowStats> &rows = t.heads[std::size_t(i)].rows;
        o.indent(2);
        o.raw("[\n");
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const RowStats &st = rows[r];
            o.object(3,
                     {st.fullyMasked ? JsonMember("argmax", nullptr) : JsonMember("argmax", st.argmax),
                      {"entropy", st.entropy},
                      {"fully_masked", st.fullyMasked},
                      {"max_weight", st.maxWeight},
                      {"sum", st.sum}},
                     r + 1 == rows.size());
        }
        o.closeArray(2, i + 1 == h);
        if (!o.flush())
            return false;
    }
    o.closeArray(1, false);

    // The members in QJsonObject's order (sorted), as traceToJson writes them.
    o.openObject(1, "settings");
    o.members(2,
              {{"block", s.mask.block},
               {"causal", s.mask.causal},
               {"d_k", t.dk},
               {"d_v", t.dv},
               {"dilation", s.mask.dilation},
               {"divisor", t.divisor}},
              false);
    o.key(2, "global");
    o.integers(2, globalTokenNumbers(s.mask));
    o.next(false);
    o.members(2,
              {{"heads", s.heads},
               {"mask_stage", toString(s.maskStage)},
               {"mode", toString(s.mode)},
               {"positional_encoding", toString(s.encoding)},
               {"scale", toString(s.scale)},
               {"similarity", toString(s.similarity)},
               {"softmax", toString(s.softmax)},
               {"temperature", s.temperature},
               {"window", s.mask.window}},
              true);
    o.closeObject(1, false);

    o.key(1, "source_tokens");
    o.strings(1, keyLabels(s));
    o.next(false);
    o.members(1, {{"title", s.title}}, false);
    o.key(1, "tokens");
    o.strings(1, queryLabels(s));
    o.next(false);
    o.members(1, {{"version", 1}}, true);
    o.raw("}\n");
    return o.finish();
}

} // namespace

bool writeTraceJson(const Scenario &s, const Trace &t, const std::function<bool(const QByteArray &)> &sink)
{
    return writeTrace(s, t, nullptr, sink);
}

bool writeTraceJson(const Scenario &s, const Trace &t, const std::vector<OnlineHead> &online,
                    const std::function<bool(const QByteArray &)> &sink)
{
    return writeTrace(s, t, &online, sink);
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
