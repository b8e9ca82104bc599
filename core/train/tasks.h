#pragma once
// The training tasks: batches of token sequences and the next tokens to
// predict (gpt2_backward.h's TrainBatch), drawn from a seeded generator.
//
//   induction  random tokens, then a span of them said again: the second
//              copy (the counted targets) can be predicted only by looking
//              back at what followed the earlier occurrence. The span's
//              length is drawn first (inductionSpans: 2 to T/2), then its
//              start anywhere it fits, so that neither a fixed distance
//              back nor the absolute position tells where the earlier copy
//              is (docs/learning.md works out what position alone scores).
//   previous   random tokens; each position predicts the token before it.
//   copy       a list of random tokens, "|", the list again ("." pads).
//   reverse    the same with the list reversed.
//   grammar    sentences of the built-in model's grammar (grammar.h),
//              tokenized with the built-in model's tokenizer.

#include "gpt2_backward.h"
#include "random.h"

#include <optional>
#include <string>
#include <vector>

namespace attn {

enum class TrainTask { Induction, Previous, Copy, Reverse, Grammar };

const char *toString(TrainTask t);                      // "induction", ...
std::optional<TrainTask> trainTaskFromString(const std::string &name);

// The synthetic tasks' vocabulary: single characters, each one symbol of
// GPT-2's byte-level BPE with no merges, so the saved folder reads as a
// GPT-2 model. Copy and reverse use the last two ids as "|" and ".". A
// byte-level vocabulary holds every byte, so the model's vocabulary is the
// 256 bytes: the task's `size` characters are ids 0 to size - 1, the other
// bytes follow in byte order (never drawn; the model learns to rule them out).
inline constexpr int kMinTaskVocabulary = 8;
inline constexpr int kMaxTaskVocabulary = 64;
inline constexpr int kByteVocabulary = 256;
std::vector<std::string> taskVocabulary(TrainTask task, int size);
// The bytes of all kByteVocabulary ids, the task's characters first.
std::vector<unsigned char> taskBytes(TrainTask task, int size);
// The ids a synthetic task draws its random tokens from: [0, contentTokens).
int contentTokens(TrainTask task, int vocabulary);

// `batch` sequences of `length` tokens of a synthetic task (not grammar).
TrainBatch makeTaskBatch(TrainTask task, int batch, int length, int vocabulary, Rng &rng);

// The induction task's span lengths for sequences of T tokens: lo to hi,
// drawn uniformly (T >= 4).
struct SpanRange {
    int lo = 2, hi = 2;
};
SpanRange inductionSpans(int length);

// Held-out sequences for the prefix-matching score: `count` sequences of
// `length` random tokens in which a span of spans[b] tokens starting at
// starts[b] is said again distances[b] tokens later, drawn as follows:
//   Adjacent  the training's distribution: the repeat right after the span
//             (distance = span);
//   Distant   the distance drawn from the training's span lengths, the span
//             2 to that distance, random tokens between the two copies (an
//             induction head follows the content, not the span's length);
//   None      no repeat at all: fresh random tokens, starts/spans/distances
//             drawn as for Adjacent only to say where the score looks.
// Every target is counted (they are for looking at weights).
enum class RepeatKind { Adjacent, Distant, None };
struct RepeatedSequences {
    TrainBatch batch;
    std::vector<int> starts, spans;   // count each
    std::vector<int> distances;       // count each: the second copy starts at starts + distances
};
RepeatedSequences repeatedSequences(int count, int length, int contentTokens, Rng &rng,
                                    RepeatKind kind = RepeatKind::Adjacent);

} // namespace attn
