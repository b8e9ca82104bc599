// The BPE tokenizer's loader (core/model/bpe): vocab.json, a NUL byte, then
// merges.txt. Oracle: a tokenizer that loads gives only ids it knows, and
// decoding what it encodes from its own pieces' bytes gives those bytes back.

#include "fuzz_common.h"

#include "bpe.h"

#include <QByteArray>
#include <QString>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const qsizetype split = bytes.indexOf('\0');
    const QByteArray vocab = split < 0 ? bytes : bytes.left(split);
    const QByteArray merges = split < 0 ? QByteArray() : bytes.mid(split + 1);
    auto loaded = attn::BpeTokenizer::fromData(vocab, merges, QStringLiteral("vocab.json"), QStringLiteral("merges.txt"));
    const auto *tok = std::get_if<attn::BpeTokenizer>(&loaded);
    if (!tok)
        return 0;
    const QString text = QStringLiteral("the cat sat 我 打 你\n") + QString::fromUtf8(merges.left(256));
    for (const attn::BpeTokenizer::Token &t : tok->tokenize(text)) {
        FUZZ_CHECK(tok->has(t.id), "an id the vocabulary lacks");
        FUZZ_CHECK(tok->piece(t.id) == t.piece, "a token's piece is not its id's");
        FUZZ_CHECK(tok->bytes(t.id) == t.text, "a token's text is not its id's bytes");
    }
    const std::vector<int> ids = tok->encode(text);
    for (int id : ids)
        FUZZ_CHECK(tok->has(id), "an id the vocabulary lacks");
    (void)tok->decode(ids);
    return 0;
}
