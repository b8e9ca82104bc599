#include "bpe.h"
#include "utf8.h"

#include "modelfile.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <climits>
#include <cmath>

namespace attn {

namespace {

enum class Kind { Letter, Number, Space, Other };

Kind kindOf(char32_t c)
{
    if (QChar::isLetter(c))
        return Kind::Letter;
    if (QChar::isNumber(c))
        return Kind::Number;
    if (QChar::isSpace(c))
        return Kind::Space;
    return Kind::Other;
}

// Decodes one UTF-8 character at s[i]; its length in *len, or 0 when the
// bytes there are not a whole, shortest-form character.
char32_t decodeUtf8(const std::string &s, std::size_t i, int *len)
{
    const auto b = [&](std::size_t k) { return (unsigned char)s[k]; };
    const unsigned char c = b(i);
    *len = 0;
    int n;
    char32_t cp;
    if (c < 0x80) {
        *len = 1;
        return c;
    } else if ((c & 0xe0) == 0xc0) {
        n = 2;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (i + std::size_t(n) > s.size())
        return 0;
    for (int k = 1; k < n; ++k) {
        if ((b(i + std::size_t(k)) & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (b(i + std::size_t(k)) & 0x3f);
    }
    static const char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < smallest[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    *len = n;
    return cp;
}

std::string hexByte(unsigned char b)
{
    static const char *digits = "0123456789abcdef";
    return std::string("\\x") + digits[b >> 4] + digits[b & 15];
}

} // namespace

const std::array<char32_t, 256> &bytesToUnicode()
{
    static const std::array<char32_t, 256> table = [] {
        std::array<char32_t, 256> t{};
        int next = 0;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
            t[std::size_t(b)] = printable ? char32_t(b) : char32_t(256 + next++);
        }
        return t;
    }();
    return table;
}

std::vector<QString> gpt2PreTokenize(const QString &text)
{
    const QList<uint> cps = text.toUcs4();
    const qsizetype n = cps.size();
    std::vector<QString> out;
    // Code point by code point: QString::fromUcs4 would take a leading
    // U+FEFF for a byte-order mark and drop it, and GPT-2 keeps it as text.
    auto push = [&](qsizetype from, qsizetype to) {
        QString piece;
        piece.reserve(2 * (to - from));
        for (qsizetype k = from; k < to; ++k) {
            const char32_t cp = char32_t(cps[k]);
            if (QChar::requiresSurrogates(cp)) {
                piece += QChar(QChar::highSurrogate(cp));
                piece += QChar(QChar::lowSurrogate(cp));
            } else {
                piece += QChar(char16_t(cp));
            }
        }
        out.push_back(piece);
    };
    auto at = [&](qsizetype k) { return char32_t(cps[k]); };
    qsizetype i = 0;
    while (i < n) {
        const char32_t c = at(i);
        // 's|'t|'re|'ve|'m|'ll|'d
        if (c == U'\'' && i + 1 < n) {
            const char32_t a = at(i + 1), b = i + 2 < n ? at(i + 2) : 0;
            int len = 0;
            if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l'))
                len = 3;
            else if (a == U's' || a == U't' || a == U'm' || a == U'd')
                len = 2;
            if (len) {
                push(i, i + len);
                i += len;
                continue;
            }
        }
        //  ?\p{L}+ |  ?\p{N}+ |  ?[^\s\p{L}\p{N}]+
        const qsizetype j = (c == U' ' && i + 1 < n) ? i + 1 : i;
        const Kind kind = kindOf(at(j));
        if (kind != Kind::Space) {
            qsizetype k = j + 1;
            while (k < n && kindOf(at(k)) == kind)
                ++k;
            push(i, k);
            i = k;
            continue;
        }
        // \s+(?!\S) | \s+   (here at(i) is white space)
        qsizetype k = i;
        while (k < n && kindOf(at(k)) == Kind::Space)
            ++k;
        if (k < n && k - i >= 2)
            --k; // the last one goes with what follows
        push(i, k);
        i = k;
    }
    return out;
}

Result<BpeTokenizer> BpeTokenizer::fromData(const QByteArray &vocabJson, const QByteArray &mergesText,
                                                           const QString &vocabName, const QString &mergesName)
{
    const std::string vname = vocabName.toStdString(), mname = mergesName.toStdString();
    BpeTokenizer t;
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(vocabJson, &error);
    if (error.error != QJsonParseError::NoError)
        return Problem{vname, "not JSON: " + error.errorString().toStdString() + " at byte " + std::to_string(error.offset)};
    if (!doc.isObject())
        return Problem{vname, "not a JSON object of tokens and their ids"};
    // Qt's parser keeps the last of two equal keys: a token given twice
    // would lose its first id without a word.
    if (const auto twice = firstDuplicateKey(vocabJson))
        return Problem{vname, "the token \"" + displayText(*twice) + "\" is given twice; each token has one id"};
    const QJsonObject vocab = doc.object();
    if (vocab.size() > kMaxVocabulary)
        return Problem{vname, std::to_string(vocab.size()) + " tokens, more than the limit of " + std::to_string(kMaxVocabulary)};
    int maxId = -1;
    for (auto it = vocab.begin(); it != vocab.end(); ++it) {
        const double d = it.value().toDouble(-1);
        if (!it.value().isDouble() || d < 0 || d >= kMaxVocabulary || std::floor(d) != d)
            return Problem{vname, "token \"" + displayText(it.key().toStdString()) + "\": the id is not a whole number from 0 to "
                                      + std::to_string(kMaxVocabulary - 1)};
        maxId = std::max(maxId, int(d));
    }
    t.m_pieces.assign(std::size_t(maxId + 1), std::string());
    for (auto it = vocab.begin(); it != vocab.end(); ++it) {
        const int id = int(it.value().toDouble());
        const std::string piece = it.key().toStdString();
        if (piece.empty())
            return Problem{vname, "an empty token (id " + std::to_string(id) + ")"};
        if (!t.m_pieces[std::size_t(id)].empty())
            return Problem{vname, "the id " + std::to_string(id) + " is given to two tokens, \""
                                      + displayText(t.m_pieces[std::size_t(id)]) + "\" and \"" + displayText(piece) + "\""};
        t.m_pieces[std::size_t(id)] = piece;
        t.m_vocab.emplace(piece, id);
    }
    const auto &table = bytesToUnicode();
    for (int b = 0; b < 256; ++b) {
        std::string s;
        appendUtf8(s, table[std::size_t(b)]);
        if (!t.m_vocab.count(s))
            return Problem{vname, "no token for the byte " + hexByte((unsigned char)b).substr(2).insert(0, "0x") + " (\"" + s
                                      + "\"): a byte-level vocabulary holds all 256"};
        t.m_byteOf[table[std::size_t(b)]] = (unsigned char)b;
    }

    int lineNumber = 0;
    for (QByteArray line : mergesText.split('\n')) {
        ++lineNumber;
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.isEmpty() || (lineNumber == 1 && line.startsWith("#version")))
            continue;
        const QList<QByteArray> parts = line.split(' ');
        const std::string where = "line " + std::to_string(lineNumber);
        if (parts.size() != 2 || parts[0].isEmpty() || parts[1].isEmpty())
            return Problem{mname, where + ": expected two tokens separated by one space, got \""
                                      + displayText(line.toStdString()) + "\""};
        const std::string a = parts[0].toStdString(), b = parts[1].toStdString();
        for (const std::string *p : {&a, &b})
            if (!t.m_vocab.count(*p))
                return Problem{mname, where + ": \"" + displayText(*p) + "\" is not a token of " + vname};
        if (!t.m_vocab.count(a + b))
            return Problem{mname, where + ": merging \"" + displayText(a) + "\" and \"" + displayText(b) + "\" gives \""
                                      + displayText(a + b) + "\", which " + vname + " lacks"};
        t.m_ranks.emplace(a + " " + b, int(t.m_ranks.size()));
        if (t.m_ranks.size() > std::size_t(kMaxVocabulary))
            return Problem{mname, "more than " + std::to_string(kMaxVocabulary) + " merges"};
    }
    return t;
}

Result<BpeTokenizer> BpeTokenizer::fromFiles(const QString &vocabPath, const QString &mergesPath,
                                                            const QString &vocabName, const QString &mergesName)
{
    const QString vname = vocabName.isEmpty() ? vocabPath : vocabName;
    const QString mname = mergesName.isEmpty() ? mergesPath : mergesName;
    QByteArray bytes[2];
    const QString paths[2] = {vocabPath, mergesPath}, names[2] = {vname, mname};
    const char *what[2] = {"vocab.json", "merges.txt"};
    for (int i = 0; i < 2; ++i) {
        auto read = readRegularFile(paths[i], names[i].toStdString(), kMaxTokenizerFileBytes, what[i]);
        if (!read.ok())
            return *read.problem();
        bytes[i] = std::move(read.value());
    }
    return fromData(bytes[0], bytes[1], vname, mname);
}

std::vector<std::string> BpeTokenizer::bpe(const std::string &symbolsUtf8) const
{
    // Split into symbols: one UTF-8 character each.
    std::vector<std::string> s;
    for (std::size_t i = 0; i < symbolsUtf8.size();) {
        int len = 0;
        decodeUtf8(symbolsUtf8, i, &len);
        len = std::max(len, 1);
        s.push_back(symbolsUtf8.substr(i, std::size_t(len)));
        i += std::size_t(len);
    }
    std::string key;
    while (s.size() > 1) {
        int best = INT_MAX;
        std::size_t at = 0;
        for (std::size_t i = 0; i + 1 < s.size(); ++i) {
            key.assign(s[i]).append(" ").append(s[i + 1]);
            const auto it = m_ranks.find(key);
            if (it != m_ranks.end() && it->second < best) {
                best = it->second;
                at = i;
            }
        }
        if (best == INT_MAX)
            break;
        const std::string a = s[at], b = s[at + 1];
        std::vector<std::string> merged;
        merged.reserve(s.size());
        for (std::size_t i = 0; i < s.size();) {
            if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
                merged.push_back(a + b);
                i += 2;
            } else {
                merged.push_back(s[i]);
                ++i;
            }
        }
        s = std::move(merged);
    }
    return s;
}

std::vector<BpeTokenizer::Token> BpeTokenizer::tokenize(const QString &text) const
{
    const auto &table = bytesToUnicode();
    std::vector<Token> out;
    std::unordered_map<std::string, std::vector<std::string>> seen;
    for (const QString &word : gpt2PreTokenize(text.left(kMaxTokenizerText))) {
        const QByteArray utf8 = word.toUtf8();
        std::string symbols;
        for (char ch : utf8)
            appendUtf8(symbols, table[(unsigned char)ch]);
        auto it = seen.find(symbols);
        if (it == seen.end())
            it = seen.emplace(symbols, bpe(symbols)).first;
        for (const std::string &piece : it->second) {
            // fromData() made sure every byte and every merge result is a token.
            const auto v = m_vocab.find(piece);
            if (v == m_vocab.end())
                continue;
            out.push_back({v->second, piece, bytes(v->second)});
        }
    }
    return out;
}

std::vector<int> BpeTokenizer::encode(const QString &text) const
{
    std::vector<int> ids;
    for (const Token &t : tokenize(text))
        ids.push_back(t.id);
    return ids;
}

std::string BpeTokenizer::decode(const std::vector<int> &ids) const
{
    std::string out;
    for (int id : ids)
        out += bytes(id);
    return out;
}

std::optional<int> BpeTokenizer::id(const std::string &piece) const
{
    const auto it = m_vocab.find(piece);
    if (it == m_vocab.end())
        return std::nullopt;
    return it->second;
}

const std::string &BpeTokenizer::piece(int id) const
{
    static const std::string none;
    return id >= 0 && id < size() ? m_pieces[std::size_t(id)] : none;
}

std::string BpeTokenizer::bytes(int id) const
{
    const std::string &p = piece(id);
    std::string out;
    for (std::size_t i = 0; i < p.size();) {
        int len = 0;
        const char32_t c = decodeUtf8(p, i, &len);
        if (len == 0) {
            out += p[i];
            ++i;
            continue;
        }
        const auto it = m_byteOf.find(c);
        if (it != m_byteOf.end())
            out += char(it->second);
        else
            out += p.substr(i, std::size_t(len)); // not a byte symbol (a special token's character): itself
        i += std::size_t(len);
    }
    return out;
}

std::string displayText(const std::string &bytes)
{
    std::string out;
    for (std::size_t i = 0; i < bytes.size();) {
        int len = 0;
        const char32_t c = decodeUtf8(bytes, i, &len);
        if (len == 0) {
            out += hexByte((unsigned char)bytes[i]);
            ++i;
            continue;
        }
        if (c == U'\n')
            out += "\\n";
        else if (c == U'\t')
            out += "\\t";
        else if (c == U'\r')
            out += "\\r";
        else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
            out += "\\u{" + QString::number(uint(c), 16).toStdString() + "}";
        else
            out += bytes.substr(i, std::size_t(len));
        i += std::size_t(len);
    }
    return out;
}

std::string tokenLabel(const std::string &bytes)
{
    if (bytes.empty())
        return "∅";
    if (bytes.find_first_not_of(' ') == std::string::npos) {
        std::string out;
        for (std::size_t i = 0; i < std::min<std::size_t>(bytes.size(), 8); ++i)
            out += "␣";
        return out;
    }
    std::string s = bytes[0] == ' ' ? bytes.substr(1) : bytes;
    std::string out;
    for (char ch : s) {
        if (ch == '\n')
            out += "↵";
        else
            out += ch;
    }
    return displayText(out);
}

} // namespace attn
