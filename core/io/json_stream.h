#pragma once
// JSON text written piece by piece, for outputs too large to hold as a tree
// (about 200 bytes a number) or as one text: the trace (trace_json.h) and a
// model's activations (`model trace --format json`). It writes the bytes of
// QJsonDocument's indented form of the same tree (four spaces a level, every
// array element on its own line); the caller writes an object's keys in the
// order QJsonObject sorts them. Chunks of about 1 MB go to the sink, and
// writing stops at the first chunk the sink refuses.

#include "scenario.h" // Matrix

#include <QByteArray>

#include <functional>
#include <string>
#include <vector>

namespace attn {

// JSON text with DEL, the C1 controls (U+0080 to U+009F), the line and
// paragraph separators and the bidirectional overrides and isolates inside
// its strings written as \u escapes, so that JSON shown on a terminal cannot
// drive it (Qt's writer escapes only U+0000 to U+001F). The parsed strings
// are unchanged.
QByteArray escapeTerminalControls(const QByteArray &json);

class JsonStream {
public:
    using Sink = std::function<bool(const QByteArray &)>;
    // `sink` must outlive the stream.
    explicit JsonStream(const Sink &sink);

    // False once the sink has refused a chunk: the caller may stop early.
    bool ok() const { return m_ok; }
    // Hands what is buffered to the sink; false once it has refused one.
    bool flush();
    bool finish() { return flush(); }

    void raw(const char *text) { m_buffer += text; }
    void indent(int level) { m_buffer.append(4 * level, ' '); }
    // `"name": ` at `level`.
    void key(int level, const char *name);
    // After a member or an element: ",\n", or "\n" after the last.
    void next(bool last) { m_buffer += last ? "\n" : ",\n"; }

    // As QJsonDocument writes a double ("-0" stays "-0"); not finite: null,
    // as Qt's writer writes it ("inf" would not be JSON).
    void number(double v);
    void integer(long long v) { m_buffer += QByteArray::number(v); }
    void boolean(bool b) { m_buffer += b ? "true" : "false"; }
    // A string as QJsonDocument escapes it, then escapeTerminalControls.
    void string(const std::string &utf8);
    // An array of strings; `level` is the indent of the line it starts on.
    void strings(int level, const std::vector<std::string> &v);

    // A matrix as an array of rows, each entry written by cell(m(i, j));
    // `level` is the indent of the line it starts on. Flushes between rows
    // once a chunk is full.
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
    // A matrix of numbers, a -0 written as 0 (as matrixToJson does).
    template <typename M>
    void matrix(int level, const M &m)
    {
        grid(level, m, [this](double v) { number(v == 0 ? 0.0 : v); });
    }

private:
    static constexpr qsizetype kChunk = 1024 * 1024;
    const Sink &m_sink;
    QByteArray m_buffer;
    bool m_ok = true;
};

} // namespace attn
