// A model folder's config.json (core/model/gpt2, gpt2ConfigFromJson); its
// vocab.json is fuzz_bpe's. Oracle: a config that loads is within every
// limit the reader states, its heads divide its width, and the work bound
// derived from it (maxTracedTokens) is one the trace budget allows.

#include "fuzz_common.h"

#include "gpt2.h"

#include <QByteArray>
#include <QString>

#include <cmath>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const auto loaded = attn::gpt2ConfigFromJson(bytes, QStringLiteral("config.json"));
    if (const auto *p = std::get_if<attn::Problem>(&loaded)) {
        FUZZ_CHECK(p->place == "config.json", "a problem that does not name the file");
        FUZZ_CHECK(!p->message.empty(), "a problem without a reason");
        return 0;
    }
    const attn::Gpt2Config &c = std::get<attn::Gpt2Config>(loaded);
    FUZZ_CHECK(c.nLayer >= 1 && c.nLayer <= attn::kMaxModelLayers, "n_layer outside its limits");
    FUZZ_CHECK(c.nHead >= 1 && c.nHead <= attn::kMaxHeads, "n_head outside its limits");
    FUZZ_CHECK(c.nEmbd >= 1 && c.nEmbd <= attn::kMaxModelWidth, "n_embd outside its limits");
    FUZZ_CHECK(c.nPositions >= 1 && c.nPositions <= attn::kMaxModelPositions, "n_positions outside its limits");
    FUZZ_CHECK(c.vocabSize >= 1 && c.vocabSize <= attn::kMaxVocabulary, "vocab_size outside its limits");
    FUZZ_CHECK(c.nInner >= 1 && c.nInner <= 4 * attn::kMaxModelWidth, "n_inner outside its limits");
    FUZZ_CHECK(c.nEmbd % c.nHead == 0 && c.headDim() >= 1, "heads that do not divide the width");
    FUZZ_CHECK(c.epsilon > 0 && c.epsilon < 1, "layer_norm_epsilon outside (0, 1)");
    const int n = attn::maxTracedTokens(c);
    FUZZ_CHECK(n >= 0 && n <= c.nPositions, "a token bound beyond the positions");
    FUZZ_CHECK(std::isfinite(attn::modelTraceCells(c, n)) && attn::modelTraceCells(c, n) <= attn::kMaxModelTraceCells,
               "the token bound's trace is over the budget");
    if (n < c.nPositions)
        FUZZ_CHECK(attn::modelTraceCells(c, n + 1) > attn::kMaxModelTraceCells, "the token bound is not the largest");
    return 0;
}
