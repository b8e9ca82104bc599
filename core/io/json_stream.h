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

#include <concepts>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace attn {

// JSON text with DEL, the C1 controls (U+0080 to U+009F), the line and
// paragraph separators and the bidirectional overrides and isolates inside
// its strings written as \u escapes, so that JSON shown on a terminal cannot
// drive it (Qt's writer escapes only U+0000 to U+001F). The parsed strings
// are unchanged.
QByteArray escapeTerminalControls(const QByteArray &json);

// One member of an object written by JsonStream::object or members: a
// name and a scalar (null, a boolean, an integer, a number or a string).
class JsonMember {
public:
    JsonMember(const char *name, std::nullptr_t) : m_name(name), m_kind(Kind::Null) {}
    JsonMember(const char *name, bool v) : m_name(name), m_kind(Kind::Boolean), m_integer(v) {}
    template <std::integral I>
        requires(!std::same_as<I, bool>)
    JsonMember(const char *name, I v) : m_name(name), m_kind(Kind::Integer), m_integer(static_cast<long long>(v))
    {
    }
    template <std::floating_point F>
    JsonMember(const char *name, F v) : m_name(name), m_kind(Kind::Number), m_number(double(v))
    {
    }
    // Not through bool, as a bare literal would convert.
    JsonMember(const char *name, const char *v) : m_name(name), m_kind(Kind::String), m_string(v) {}
    JsonMember(const char *name, std::string v) : m_name(name), m_kind(Kind::String), m_string(std::move(v)) {}

private:
    friend class JsonStream;
    enum class Kind { Null, Boolean, Integer, Number, String };
    const char *m_name;
    Kind m_kind;
    long long m_integer = 0;
    double m_number = 0;
    std::string m_string;
};

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
    // The same for whole numbers.
    void integers(int level, const std::vector<int> &v);

    // An object's scalar members, one a line at `level`; the last one ends
    // the object when `closes` (no comma after it).
    void members(int level, std::initializer_list<JsonMember> members, bool closes);
    // An object of scalars as an array's element, its braces at `level`;
    // then next(last).
    void object(int level, std::initializer_list<JsonMember> members, bool last);
    // The same as the member `name` of an object at `level`.
    void object(int level, const char *name, std::initializer_list<JsonMember> members, bool last);

    // `"name": {` or `"name": [` and the line break: the members or
    // elements follow at level + 1, then close(level, ...).
    void openObject(int level, const char *name);
    void openArray(int level, const char *name);
    // `{` on a line of its own at `level`, for an object in an array.
    void openObject(int level);
    // The closing `}` or `]` at `level`, then next(last).
    void closeObject(int level, bool last) { close(level, "}", last); }
    void closeArray(int level, bool last) { close(level, "]", last); }

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
    // The member `"name": matrix`, then next(last).
    template <typename M>
    void matrix(int level, const char *name, const M &m, bool last)
    {
        key(level, name);
        matrix(level, m);
        next(last);
    }

private:
    void scalar(const JsonMember &m);
    void objectBody(int level, std::initializer_list<JsonMember> members);
    void close(int level, const char *bracket, bool last)
    {
        indent(level);
        raw(bracket);
        next(last);
    }

    static constexpr qsizetype kChunk = 1024 * 1024;
    const Sink &m_sink;
    QByteArray m_buffer;
    bool m_ok = true;
};

} // namespace attn
