#include "wordpiece.h"

#include "bpe.h"

#include <QStringDecoder>

namespace attn {

namespace {

bool isCjk(char32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF)
        || (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF)
        || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool isWhitespace(char32_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || QChar::category(c) == QChar::Separator_Space;
}

bool isControl(char32_t c)
{
    if (c == '\t' || c == '\n' || c == '\r')
        return false;
    const auto cat = QChar::category(c);
    return cat == QChar::Other_Control || cat == QChar::Other_Format;
}

bool isPunctuation(char32_t c)
{
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126))
        return true;
    switch (QChar::category(c)) {
    case QChar::Punctuation_Connector:
    case QChar::Punctuation_Dash:
    case QChar::Punctuation_Open:
    case QChar::Punctuation_Close:
    case QChar::Punctuation_InitialQuote:
    case QChar::Punctuation_FinalQuote:
    case QChar::Punctuation_Other:
        return true;
    default:
        return false;
    }
}

// Code point by code point: QString's own conversions would treat a
// leading U+FEFF as a byte-order mark.
std::u32string codePoints(const QString &s)
{
    std::u32string out;
    out.reserve(std::size_t(s.size()));
    for (qsizetype i = 0; i < s.size(); ++i) {
        const QChar c = s.at(i);
        if (c.isHighSurrogate() && i + 1 < s.size() && s.at(i + 1).isLowSurrogate()) {
            out += QChar::surrogateToUcs4(c, s.at(i + 1));
            ++i;
        } else {
            out += char32_t(c.unicode());
        }
    }
    return out;
}

QString fromCodePoints(const std::u32string &s)
{
    QString out;
    for (char32_t c : s) {
        if (QChar::requiresSurrogates(c)) {
            out += QChar(QChar::highSurrogate(c));
            out += QChar(QChar::lowSurrogate(c));
        } else {
            out += QChar(char16_t(c));
        }
    }
    return out;
}

const char *const kSpecials[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};

} // namespace

Result<WordPieceTokenizer> WordPieceTokenizer::fromData(const QByteArray &vocabTxt, bool lowerCase, const QString &vocabName)
{
    const std::string name = vocabName.toStdString();
    auto toUtf8 = QStringDecoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = toUtf8(vocabTxt);
    if (toUtf8.hasError())
        return Problem{name, "not UTF-8 text"};
    WordPieceTokenizer t;
    t.m_lower = lowerCase;
    qsizetype start = 0;
    int line = 0;
    while (start < text.size()) {
        qsizetype end = text.indexOf(QLatin1Char('\n'), start);
        if (end < 0)
            end = text.size();
        QString token = text.mid(start, end - start);
        if (token.endsWith(QLatin1Char('\r')))
            token.chop(1);
        start = end + 1;
        ++line;
        if (line > kMaxVocabulary)
            return Problem{name, "holds more than " + std::to_string(kMaxVocabulary) + " tokens"};
        const std::string piece = token.toStdString();
        if (piece.empty())
            return Problem{name, "line " + std::to_string(line) + " is empty (each line is one token)"};
        if (!t.m_vocab.emplace(piece, int(t.m_pieces.size())).second)
            return Problem{name, "line " + std::to_string(line) + ": the token \"" + piece + "\" is given twice (first on line "
                                     + std::to_string(t.m_vocab.at(piece) + 1) + ")"};
        t.m_pieces.push_back(piece);
    }
    for (const char *s : kSpecials)
        if (t.m_vocab.count(s))
            t.m_specials.emplace_back(s);
    auto need = [&](const char *s, int &into) -> std::optional<Problem> {
        const auto it = t.m_vocab.find(s);
        if (it == t.m_vocab.end())
            return Problem{name, std::string("has no ") + s + " token (BERT's tokenizer needs [UNK], [CLS] and [SEP])"};
        into = it->second;
        return std::nullopt;
    };
    for (auto [s, into] : {std::pair<const char *, int *>{"[UNK]", &t.m_unk}, {"[CLS]", &t.m_cls}, {"[SEP]", &t.m_sep}})
        if (auto p = need(s, *into))
            return *p;
    if (const auto it = t.m_vocab.find("[MASK]"); it != t.m_vocab.end())
        t.m_mask = it->second;
    return t;
}

std::optional<int> WordPieceTokenizer::id(const std::string &piece) const
{
    const auto it = m_vocab.find(piece);
    if (it == m_vocab.end())
        return std::nullopt;
    return it->second;
}

const std::string &WordPieceTokenizer::piece(int id) const
{
    static const std::string none;
    return id >= 0 && id < size() ? m_pieces[std::size_t(id)] : none;
}

std::vector<QString> WordPieceTokenizer::basicWords(const QString &input) const
{
    const QString text = input.left(kMaxTokenizerText).normalized(QString::NormalizationForm_C);
    std::vector<QString> words;
    // The special tokens first, whole; the text between them as BERT's BasicTokenizer reads it.
    qsizetype at = 0;
    while (at <= text.size()) {
        qsizetype next = text.size();
        const std::string *special = nullptr;
        for (const std::string &s : m_specials) {
            const qsizetype i = text.indexOf(QLatin1String(s.data(), qsizetype(s.size())), at);
            if (i >= 0 && (i < next || (i == next && special && s.size() > special->size()))) {
                next = i;
                special = &s;
            }
        }
        const std::u32string part = codePoints(text.mid(at, next - at));
        std::u32string spaced;
        for (char32_t c : part) {
            if (c == 0 || c == 0xFFFD || isControl(c))
                continue;
            if (isWhitespace(c)) {
                spaced += U' ';
            } else if (isCjk(c)) {
                spaced += U' ';
                spaced += c;
                spaced += U' ';
            } else {
                spaced += c;
            }
        }
        std::size_t i = 0;
        while (i < spaced.size()) {
            while (i < spaced.size() && spaced[i] == U' ')
                ++i;
            std::size_t j = i;
            while (j < spaced.size() && spaced[j] != U' ')
                ++j;
            if (j == i)
                break;
            std::u32string word = spaced.substr(i, j - i);
            i = j;
            if (m_lower) {
                const QString folded = fromCodePoints(word).toLower().normalized(QString::NormalizationForm_D);
                word.clear();
                for (char32_t c : codePoints(folded))
                    if (QChar::category(c) != QChar::Mark_NonSpacing)
                        word += c;
            }
            std::u32string piece;
            for (char32_t c : word) {
                if (isPunctuation(c)) {
                    if (!piece.empty())
                        words.push_back(fromCodePoints(piece));
                    words.push_back(fromCodePoints(std::u32string(1, c)));
                    piece.clear();
                } else {
                    piece += c;
                }
            }
            if (!piece.empty())
                words.push_back(fromCodePoints(piece));
        }
        if (!special)
            break;
        words.push_back(QString::fromStdString(*special));
        at = next + qsizetype(special->size());
    }
    return words;
}

void WordPieceTokenizer::wordPieces(const QString &word, std::vector<Token> &out) const
{
    const std::u32string w = codePoints(word);
    if (w.size() > std::size_t(kMaxWordPieceChars)) {
        out.push_back({m_unk, m_pieces[std::size_t(m_unk)]});
        return;
    }
    std::vector<Token> pieces;
    std::size_t start = 0;
    while (start < w.size()) {
        std::size_t end = w.size();
        std::optional<int> found;
        std::string sub;
        while (start < end) {
            sub = (start > 0 ? "##" : "") + fromCodePoints(w.substr(start, end - start)).toStdString();
            if ((found = id(sub)))
                break;
            --end;
        }
        if (!found) {
            out.push_back({m_unk, m_pieces[std::size_t(m_unk)]});
            return;
        }
        pieces.push_back({*found, sub});
        start = end;
    }
    out.insert(out.end(), pieces.begin(), pieces.end());
}

std::vector<WordPieceTokenizer::Token> WordPieceTokenizer::tokenize(const QString &text) const
{
    std::vector<Token> out{{m_cls, m_pieces[std::size_t(m_cls)]}};
    for (const QString &w : basicWords(text)) {
        const std::string s = w.toStdString();
        bool special = false;
        for (const std::string &sp : m_specials)
            special = special || s == sp;
        if (special)
            out.push_back({m_vocab.at(s), s});
        else
            wordPieces(w, out);
    }
    out.push_back({m_sep, m_pieces[std::size_t(m_sep)]});
    return out;
}

std::vector<int> WordPieceTokenizer::encode(const QString &text) const
{
    std::vector<int> ids;
    for (const Token &t : tokenize(text))
        ids.push_back(t.id);
    return ids;
}

} // namespace attn
