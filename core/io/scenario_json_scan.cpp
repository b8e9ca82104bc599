#include "scenario_json_scan.h"
#include "utf8.h"

#include <cstdint>
#include <unordered_set>

namespace attn::scenario_scan {

namespace {

bool isJsonSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

struct ScanFailure {
    Problem problem;
};

class Scanner {
public:
    explicit Scanner(const QByteArray &text) : m_text(text) {}

    // Throws ScanFailure for a duplicate key or a lone surrogate.
    RawObjects scan()
    {
        skipSpace();
        value("");
        return std::move(m_found);
    }

private:
    struct Frame {
        bool object = false;
        std::string place;
        qsizetype index = 0;                   // the next array element
        std::unordered_set<std::string> keys; // an object's keys so far
        std::vector<RawMember> *record = nullptr;
    };

    const QByteArray &m_text;
    qsizetype m_pos = 0;
    RawObjects m_found;

    char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }

    void skipSpace()
    {
        while (m_pos < m_text.size() && isJsonSpace(m_text[m_pos]))
            ++m_pos;
    }

    std::uint32_t hex4()
    {
        std::uint32_t v = 0;
        for (int k = 0; k < 4; ++k) {
            const int h = m_pos < m_text.size() ? hexDigit(m_text[m_pos]) : -1;
            if (h < 0)
                return 0xFFFFFFFF;
            v = v * 16 + std::uint32_t(h);
            ++m_pos;
        }
        return v;
    }

    // A string at m_pos (its opening quote), decoded; a lone surrogate is
    // refused at `place`, described by `what`.
    std::string string(const std::string &place, const char *what)
    {
        std::string out;
        ++m_pos; // "
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c == '"') {
                ++m_pos;
                return out;
            }
            if (c != '\\') {
                out += c;
                ++m_pos;
                continue;
            }
            ++m_pos;
            const char e = peek();
            ++m_pos;
            switch (e) {
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                const qsizetype escapeAt = m_pos - 2;
                std::uint32_t u = hex4();
                if (u >= 0xD800 && u <= 0xDBFF && peek() == '\\' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == 'u') {
                    const qsizetype save = m_pos;
                    m_pos += 2;
                    const std::uint32_t low = hex4();
                    if (low >= 0xDC00 && low <= 0xDFFF) {
                        appendUtf8(out, 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
                        break;
                    }
                    m_pos = save;
                }
                if (u >= 0xD800 && u <= 0xDFFF)
                    throw ScanFailure{Problem{place, std::string(what) + " holds a lone surrogate, "
                                                         + m_text.mid(escapeAt, 6).toStdString()
                                                         + ", which is half of a character, not a character"}};
                if (u > 0xFFFF) // not four hex digits: Qt's parser refused it already
                    u = 0xFFFD;
                appendUtf8(out, u);
                break;
            }
            default: out += e; break; // \" \\ \/
            }
        }
        return out;
    }

    // A number, true, false, null or a non-finite token.
    void bare()
    {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (isJsonSpace(c) || c == ',' || c == ']' || c == '}' || c == ':' || c == '"' || c == '[' || c == '{')
                break;
            ++m_pos;
        }
    }

    static std::string memberPlace(const std::string &place, const std::string &name)
    {
        return place.empty() ? name : place + "." + name;
    }

    // One value starting at m_pos, with everything inside it.
    void value(const std::string &rootPlace)
    {
        std::vector<Frame> stack;
        auto open = [&](const std::string &place) {
            const char c = peek();
            if (c == '{' || c == '[') {
                Frame f;
                f.object = c == '{';
                f.place = place;
                if (f.object) {
                    if (stack.empty()) {
                        f.record = &m_found.top;
                        m_found.topIsObject = true;
                    } else if (stack.size() == 1 && stack.front().object) {
                        if (place == "inputs") {
                            f.record = &m_found.inputs;
                            m_found.inputsIsObject = true;
                        } else if (place == "mask") {
                            f.record = &m_found.mask;
                            m_found.maskIsObject = true;
                        }
                    }
                }
                ++m_pos;
                stack.push_back(std::move(f));
                return false; // not finished: the frame is open
            }
            if (c == '"')
                string(place, "the text");
            else
                bare();
            return true;
        };
        // After a value inside the frame on top: note where it ended.
        auto finished = [&]() {
            if (stack.empty())
                return;
            Frame &f = stack.back();
            if (f.object && f.record && !f.record->empty())
                f.record->back().valueEnd = m_pos;
        };

        if (open(rootPlace))
            return;
        while (!stack.empty() && m_pos < m_text.size()) {
            skipSpace();
            Frame &f = stack.back();
            const char c = peek();
            if (c == ',') {
                ++m_pos;
                continue;
            }
            if (c == '}' || c == ']') {
                ++m_pos;
                stack.pop_back();
                finished();
                continue;
            }
            if (c == '\0' && m_pos >= m_text.size())
                break;
            std::string childPlace;
            if (f.object) {
                const qsizetype keyBegin = m_pos;
                if (c != '"')
                    return; // not JSON after all: Qt's parser says where
                std::string name = string(f.place.empty() ? std::string() : f.place, "a key");
                if (!f.keys.insert(name).second)
                    throw ScanFailure{Problem{memberPlace(f.place, name),
                                              "appears twice in the same object; give each key once"}};
                const QByteArray rawKey = m_text.mid(keyBegin, m_pos - keyBegin);
                skipSpace();
                if (peek() != ':')
                    return;
                ++m_pos;
                skipSpace();
                childPlace = memberPlace(f.place, name);
                if (f.record)
                    f.record->push_back(RawMember{std::move(name), rawKey, m_pos, m_pos});
            } else {
                childPlace = f.place + "[" + std::to_string(f.index++) + "]";
            }
            if (open(childPlace))
                finished();
        }
    }
};

} // namespace

std::optional<Problem> scanProblem(const QByteArray &text, RawObjects *found)
{
    try {
        RawObjects r = Scanner(text).scan();
        if (found)
            *found = std::move(r);
        return std::nullopt;
    } catch (const ScanFailure &f) {
        return f.problem;
    }
}

} // namespace attn::scenario_scan
