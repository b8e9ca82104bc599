#include "json_stream.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QString>

#include <cmath>

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

JsonStream::JsonStream(const Sink &sink) : m_sink(sink)
{
    m_buffer.reserve(kChunk + 64 * 1024);
}

bool JsonStream::flush()
{
    if (m_ok && !m_buffer.isEmpty())
        m_ok = m_sink(m_buffer);
    m_buffer.clear();
    return m_ok;
}

void JsonStream::key(int level, const char *name)
{
    indent(level);
    m_buffer += '"';
    m_buffer += name;
    m_buffer += "\": ";
}

void JsonStream::number(double v)
{
    if (!std::isfinite(v))
        m_buffer += "null";
    else
        m_buffer += QByteArray::number(v, 'g', QLocale::FloatingPointShortest);
}

void JsonStream::string(const std::string &utf8)
{
    // Through QString and Qt's own escaping: the same bytes for any input.
    const QByteArray escaped = QJsonDocument(QJsonArray{QString::fromStdString(utf8)}).toJson(QJsonDocument::Compact);
    m_buffer += escapeTerminalControls(escaped.mid(1, escaped.size() - 2));
}

void JsonStream::strings(int level, const std::vector<std::string> &v)
{
    raw("[\n");
    for (std::size_t i = 0; i < v.size(); ++i) {
        indent(level + 1);
        string(v[i]);
        next(i + 1 == v.size());
    }
    indent(level);
    raw("]");
}

void JsonStream::integers(int level, const std::vector<int> &v)
{
    raw("[\n");
    for (std::size_t i = 0; i < v.size(); ++i) {
        indent(level + 1);
        integer(v[i]);
        next(i + 1 == v.size());
    }
    indent(level);
    raw("]");
}

void JsonStream::scalar(const JsonMember &m)
{
    switch (m.m_kind) {
    case JsonMember::Kind::Null:
        raw("null");
        break;
    case JsonMember::Kind::Boolean:
        boolean(m.m_integer != 0);
        break;
    case JsonMember::Kind::Integer:
        integer(m.m_integer);
        break;
    case JsonMember::Kind::Number:
        number(m.m_number);
        break;
    case JsonMember::Kind::String:
        string(m.m_string);
        break;
    }
}

void JsonStream::members(int level, std::initializer_list<JsonMember> members, bool closes)
{
    std::size_t left = members.size();
    for (const JsonMember &m : members) {
        key(level, m.m_name);
        scalar(m);
        next(--left == 0 && closes);
    }
}

void JsonStream::objectBody(int level, std::initializer_list<JsonMember> members)
{
    raw("{\n");
    this->members(level + 1, members, true);
    indent(level);
    raw("}");
}

void JsonStream::object(int level, std::initializer_list<JsonMember> members, bool last)
{
    indent(level);
    objectBody(level, members);
    next(last);
}

void JsonStream::object(int level, const char *name, std::initializer_list<JsonMember> members, bool last)
{
    key(level, name);
    objectBody(level, members);
    next(last);
}

void JsonStream::openObject(int level, const char *name)
{
    key(level, name);
    raw("{\n");
}

void JsonStream::openArray(int level, const char *name)
{
    key(level, name);
    raw("[\n");
}

void JsonStream::openObject(int level)
{
    indent(level);
    raw("{\n");
}

} // namespace attn
