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

// The bytes after a UTF-8 lead byte `c` that make a character to escape:
// DEL, C1 (C2 80..9F), U+2028..202E (E2 80 A8..AE), U+2066..2069 (E2 81 A6..A9).
int terminalControlAt(const char *p, qsizetype left, char32_t *cp)
{
    const auto b = [p](int i) { return static_cast<unsigned char>(p[i]); };
    if (b(0) == 0x7F) {
        *cp = 0x7F;
        return 1;
    }
    if (left >= 2 && b(0) == 0xC2 && b(1) >= 0x80 && b(1) <= 0x9F) {
        *cp = b(1);
        return 2;
    }
    if (left >= 3 && b(0) == 0xE2 && ((b(1) == 0x80 && b(2) >= 0xA8 && b(2) <= 0xAE) || (b(1) == 0x81 && b(2) >= 0xA6 && b(2) <= 0xA9))) {
        *cp = 0x2000 + ((b(1) & 0x3F) << 6) + (b(2) & 0x3F);
        return 3;
    }
    return 0;
}

void appendEscape(QByteArray &out, char32_t cp)
{
    static const char kHex[] = "0123456789abcdef";
    out += "\\u";
    for (int k = 3; k >= 0; --k)
        out += kHex[(cp >> (4 * k)) & 0xF];
}

// Writes as QJsonDocument's indented form does: four spaces a level, keys
// in the order QJsonObject sorts them, every array element on its own line.
class JsonStream {
public:
    explicit JsonStream(const std::function<bool(const QByteArray &)> &sink) : m_sink(sink)
    {
        m_buffer.reserve(kChunk + 64 * 1024);
    }

    bool ok() const { return m_ok; }

    bool finish()
    {
        flush();
        return m_ok;
    }

    void raw(const char *text) { m_buffer += text; }
    void indent(int level) { m_buffer.append(4 * level, ' '); }
    // `"name": ` on its own line at `level`.
    void key(int level, const char *name)
    {
        indent(level);
        m_buffer += '"';
        m_buffer += name;
        m_buffer += "\": ";
    }
    // After a member or an element: ",\n", or "\n" after the last.
    void next(bool last) { m_buffer += last ? "\n" : ",\n"; }

    // As QJsonDocument writes a double.
    void number(double v) { m_buffer += QByteArray::number(v, 'g', QLocale::FloatingPointShortest); }
    void integer(long long v) { m_buffer += QByteArray::number(v); }
    void boolean(bool b) { m_buffer += b ? "true" : "false"; }

    void string(const std::string &utf8)
    {
        // Through QString, as traceToJson does: the same bytes for any input.
        const QByteArray escaped = QJsonDocument(QJsonArray{QString::fromStdString(utf8)}).toJson(QJsonDocument::Compact);
        m_buffer += escapeTerminalControls(escaped.mid(1, escaped.size() - 2));
    }

    void strings(int level, const std::vector<std::string> &v)
    {
        if (v.empty()) {
            raw("[\n");
            indent(level);
            raw("]");
            return;
        }
        raw("[\n");
        for (std::size_t i = 0; i < v.size(); ++i) {
            indent(level + 1);
            string(v[i]);
            next(i + 1 == v.size());
        }
        indent(level);
        raw("]");
    }

    // A matrix as an array of rows: `level` is the indent of the line it starts on.
    template <typename M, typename Cell>
    void grid(int level, const M &m, Cell cell)
    {
        raw("[\n");
        for (Eigen::Index i = 0; i < m.rows(); ++i) {
            indent(level + 1);
            raw("[\n");
            for (Eigen::Index j = 0; j < m.cols(); ++j) {
                indent(level + 2);
                cell(m(i, j));
                next(j + 1 == m.cols());
            }
            indent(level + 1);
            raw("]");
            next(i + 1 == m.rows());
            if (m_buffer.size() >= kChunk && !flush())
                return;
        }
        indent(level);
        raw("]");
    }

    template <typename M>
    void matrix(int level, const M &m)
    {
        grid(level, m, [this](double v) { number(v == 0 ? 0.0 : v); }); // no "-0", as matrixToJson
    }

    bool flush()
    {
        if (m_ok && !m_buffer.isEmpty())
            m_ok = m_sink(m_buffer);
        m_buffer.clear();
        return m_ok;
    }

private:
    static constexpr qsizetype kChunk = 1024 * 1024;
    const std::function<bool(const QByteArray &)> &m_sink;
    QByteArray m_buffer;
    bool m_ok = true;
};

// The scaled stage of a head, stored or derived: each entry formed as it is
// written, never an n_q by n_k copy.
struct ScaledStage {
    const HeadTrace &head;
    Eigen::Index rows() const { return head.scores.rows(); }
    Eigen::Index cols() const { return head.scores.cols(); }
    double operator()(Eigen::Index i, Eigen::Index j) const { return head.scaledAt(i, j); }
};

} // namespace

QByteArray escapeTerminalControls(const QByteArray &json)
{
    QByteArray out;
    qsizetype copied = 0;
    for (qsizetype i = 0; i < json.size();) {
        char32_t cp = 0;
        const int len = terminalControlAt(json.constData() + i, json.size() - i, &cp);
        if (len == 0) {
            ++i;
            continue;
        }
        if (out.isEmpty())
            out.reserve(json.size() + 16);
        out.append(json.constData() + copied, i - copied);
        appendEscape(out, cp);
        i += len;
        copied = i;
    }
    if (copied == 0)
        return json;
    out.append(json.constData() + copied, json.size() - copied);
    return out;
}

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
