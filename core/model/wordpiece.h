#pragma once
// BERT's tokenizer (Hugging Face's BertTokenizer: BasicTokenizer, then
// WordpieceTokenizer), read from vocab.txt (one token a line, its id the
// line's index from 0) and, when given, tokenizer_config.json's
// do_lower_case (default true, as bert-base-uncased).
//
//   text → parts       the special tokens ([MASK], [CLS], [SEP], [PAD], [UNK])
//                      split out first and kept whole
//   part → words       NFC; drop U+0000, U+FFFD and control characters (Cc, Cf:
//                      U+FEFF goes); white space (Zs, \t \n \r) becomes a space;
//                      a space either side of each CJK ideograph (Chinese is
//                      read a character at a time); split at spaces; with
//                      do_lower_case, lower case and drop accents (NFD, then no
//                      Mn); split each punctuation character (ASCII !-/ :-@
//                      [-` {-~ and Unicode P*) off as a word of its own
//   word → pieces      longest match first from the word's start; each later
//                      piece looked up with "##" before it ("playing" → play
//                      ##ing); a word with no match, or over 100 characters,
//                      is one [UNK]
//   encode             [CLS] pieces [SEP]

#include "result.h"
#include "validate.h"

#include <QByteArray>
#include <QString>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace attn {

inline constexpr int kMaxWordPieceChars = 100; // BERT's max_input_chars_per_word

class WordPieceTokenizer {
public:
    // vocab.txt's bytes; `vocabName` names it in messages. Refuses a
    // vocabulary over kMaxVocabulary lines, an empty or repeated token (with
    // its line), text that is not UTF-8, and one without [UNK], [CLS] and [SEP].
    static Result<WordPieceTokenizer> fromData(const QByteArray &vocabTxt, bool lowerCase, const QString &vocabName);

    struct Token {
        int id = 0;
        std::string piece;  // the vocabulary's string: "play", "##ing", "[MASK]", "我"
    };
    // [CLS] ... [SEP] (a text longer than kMaxTokenizerText is cut there).
    std::vector<Token> tokenize(const QString &text) const;
    std::vector<int> encode(const QString &text) const;
    // The words BasicTokenizer makes (before WordPiece), for the tests.
    std::vector<QString> basicWords(const QString &text) const;

    int size() const { return int(m_pieces.size()); }
    bool lowerCase() const { return m_lower; }
    std::optional<int> id(const std::string &piece) const;
    const std::string &piece(int id) const;   // empty for an id outside the vocabulary
    int maskId() const { return m_mask; }     // -1 without [MASK]
    int clsId() const { return m_cls; }
    int sepId() const { return m_sep; }
    int unkId() const { return m_unk; }

private:
    void wordPieces(const QString &word, std::vector<Token> &out) const;

    std::unordered_map<std::string, int> m_vocab;
    std::vector<std::string> m_pieces;
    std::vector<std::string> m_specials;      // of the five, those in the vocabulary
    bool m_lower = true;
    int m_unk = -1, m_cls = -1, m_sep = -1, m_mask = -1;
};

} // namespace attn
