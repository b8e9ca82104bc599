#pragma once
// GPT-2's byte-level BPE tokenizer: vocab.json (token → id) and merges.txt
// (the merges in the order they were learnt), read as Hugging Face writes
// them.
//
//   text → pre-tokens     GPT-2's pattern, by hand (gpt2PreTokenize)
//   pre-token → bytes     UTF-8
//   bytes → symbols       bytes_to_unicode: each byte one printable character
//   symbols → tokens      merge the adjacent pair with the lowest rank, again
//                         and again, until no pair has a rank
//
// So " world" is the pre-token of the bytes 20 77 6f 72 6c 64, the symbols
// "Ġ w o r l d", and, with the merges of GPT-2, the one token "Ġworld".

#include "result.h"
#include "validate.h"

#include <QByteArray>
#include <QString>

#include <array>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace attn {

// GPT-2's bytes_to_unicode(): the character each byte stands for. The
// printable Latin-1 bytes stand for themselves; the others are moved to
// U+0100 and up in byte order (space 0x20 → U+0120 'Ġ', newline → U+010A 'Ċ').
const std::array<char32_t, 256> &bytesToUnicode();

// GPT-2's pre-tokenisation, the pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// matched by hand, code point by code point, with Qt's Unicode tables for
// letters (L*), numbers (N*) and white space. The pieces cover the text
// exactly, in order.
std::vector<QString> gpt2PreTokenize(const QString &text);

inline constexpr int kMaxVocabulary = 1 << 20;
// vocab.json and merges.txt are read whole, each at most this (GPT-2's are
// 1.0 MB and 0.46 MB; 2^20 tokens of 60 bytes fit).
inline constexpr qint64 kMaxTokenizerFileBytes = 64 * 1024 * 1024;
inline constexpr qsizetype kMaxTokenizerText = 1 << 20; // characters given to encode()

class BpeTokenizer {
public:
    // The files' names are used in messages ("vocab.json", "merges.txt").
    static Result<BpeTokenizer> fromData(const QByteArray &vocabJson, const QByteArray &mergesText,
                                                        const QString &vocabName, const QString &mergesName);
    static Result<BpeTokenizer> fromFiles(const QString &vocabPath, const QString &mergesPath,
                                                         const QString &vocabName = {}, const QString &mergesName = {});

    struct Token {
        int id = 0;
        std::string piece; // the vocabulary's string, e.g. "Ġworld"
        std::string text;  // the bytes it stands for, e.g. " world" (may be part of a UTF-8 character)
    };

    // The ids of `text` (longer than kMaxTokenizerText: cut there).
    std::vector<int> encode(const QString &text) const;
    std::vector<Token> tokenize(const QString &text) const;
    // The bytes of the ids, one after another (UTF-8 when the ids are whole characters).
    std::string decode(const std::vector<int> &ids) const;

    int size() const { return int(m_pieces.size()); } // one more than the largest id
    bool has(int id) const { return id >= 0 && id < size() && !m_pieces[std::size_t(id)].empty(); }
    std::optional<int> id(const std::string &piece) const;
    const std::string &piece(int id) const; // "Ġworld"; empty for an id the vocabulary lacks
    std::string bytes(int id) const;        // " world"
    int mergeCount() const { return int(m_ranks.size()); }

private:
    std::vector<std::string> bpe(const std::string &symbolsUtf8) const;

    std::unordered_map<std::string, int> m_vocab;   // piece → id
    std::vector<std::string> m_pieces;              // id → piece
    std::unordered_map<std::string, int> m_ranks;   // "a b" → rank
    std::unordered_map<char32_t, unsigned char> m_byteOf; // bytesToUnicode inverted
};

// Text for the eye: the bytes as UTF-8, each byte that is not part of a
// whole character written \xNN; control characters escaped.
std::string displayText(const std::string &bytes);
// A short label for a token in a map: displayText without the leading space
// that marks a word's start; a token of only spaces as "␣", newline as "↵".
std::string tokenLabel(const std::string &bytes);

} // namespace attn
