#include "tasks.h"

#include <algorithm>

namespace attn {

namespace {

const char kSymbols[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@#";

int below(Rng &rng, int n)
{
    return std::min(n - 1, int(rng.uniform() * n));
}

bool hasSeparator(TrainTask t)
{
    return t == TrainTask::Copy || t == TrainTask::Reverse;
}

} // namespace

const char *toString(TrainTask t)
{
    switch (t) {
    case TrainTask::Induction: return "induction";
    case TrainTask::Previous: return "previous";
    case TrainTask::Copy: return "copy";
    case TrainTask::Reverse: return "reverse";
    case TrainTask::Grammar: return "grammar";
    }
    return "induction";
}

std::optional<TrainTask> trainTaskFromString(const std::string &name)
{
    for (TrainTask t : {TrainTask::Induction, TrainTask::Previous, TrainTask::Copy, TrainTask::Reverse, TrainTask::Grammar})
        if (name == toString(t))
            return t;
    return std::nullopt;
}

std::vector<std::string> taskVocabulary(TrainTask task, int size)
{
    std::vector<std::string> v;
    for (int i = 0; i < size; ++i)
        v.emplace_back(1, kSymbols[i % (sizeof kSymbols - 1)]);
    if (hasSeparator(task) && size >= 2) {
        v[std::size_t(size - 2)] = "|";
        v[std::size_t(size - 1)] = ".";
    }
    return v;
}

std::vector<unsigned char> taskBytes(TrainTask task, int size)
{
    std::vector<unsigned char> out;
    std::vector<bool> used(kByteVocabulary, false);
    for (const std::string &piece : taskVocabulary(task, size)) {
        out.push_back((unsigned char)piece[0]);
        used[(unsigned char)piece[0]] = true;
    }
    for (int b = 0; b < kByteVocabulary; ++b)
        if (!used[std::size_t(b)])
            out.push_back((unsigned char)b);
    return out;
}

SpanRange inductionSpans(int T)
{
    return {2, std::max(2, T / 2)};
}

int contentTokens(TrainTask task, int vocabulary)
{
    return hasSeparator(task) ? vocabulary - 2 : vocabulary;
}

TrainBatch makeTaskBatch(TrainTask task, int B, int T, int V, Rng &rng)
{
    TrainBatch out;
    out.batch = B;
    out.length = T;
    out.ids.assign(std::size_t(B) * T, 0);
    out.targets.assign(std::size_t(B) * T, -1);
    const int content = contentTokens(task, V);
    for (int b = 0; b < B; ++b) {
        int *ids = out.ids.data() + std::size_t(b) * T;
        int *targets = out.targets.data() + std::size_t(b) * T;
        for (int t = 0; t < T; ++t)
            ids[t] = below(rng, content);
        switch (task) {
        case TrainTask::Induction: {
            // A span of L tokens at `start`, said again right after it.
            const SpanRange spans = inductionSpans(T);
            const int L = spans.lo + below(rng, spans.hi - spans.lo + 1);
            const int start = below(rng, T - 2 * L + 1);
            // The span said again and again to the end: every row from the
            // second copy's first token on is an induction target. Up to the
            // end of the second copy a row sees what a held-out sequence's
            // row sees (the model is causal).
            for (int t = start + L; t < T; ++t)
                ids[t] = ids[t - L];
            // Row r predicts r + 1.
            for (int r = start + L; r + 1 < T; ++r)
                targets[r] = ids[r + 1];
            break;
        }
        case TrainTask::Previous:
            for (int t = 1; t < T; ++t)
                targets[t] = ids[t - 1];
            break;
        case TrainTask::Copy:
        case TrainTask::Reverse: {
            const int sep = V - 2, pad = V - 1;
            const int maxLen = std::max(1, (T - 1) / 2);
            const int L = 1 + below(rng, maxLen);
            ids[L] = sep;
            for (int t = 0; t < L; ++t)
                ids[L + 1 + t] = task == TrainTask::Copy ? ids[t] : ids[L - 1 - t];
            for (int t = 2 * L + 1; t < T; ++t)
                ids[t] = pad;
            for (int r = L; r < 2 * L && r + 1 < T; ++r)
                targets[r] = ids[r + 1];
            break;
        }
        case TrainTask::Grammar:
            break; // grammar.h makes its own batches
        }
    }
    return out;
}

RepeatedSequences repeatedSequences(int count, int T, int content, Rng &rng, RepeatKind kind)
{
    RepeatedSequences out;
    out.batch.batch = count;
    out.batch.length = T;
    const SpanRange spans = inductionSpans(T);
    for (int b = 0; b < count; ++b) {
        std::vector<int> s(static_cast<std::size_t>(T));
        for (int &id : s)
            id = below(rng, content);
        int L = spans.lo + below(rng, spans.hi - spans.lo + 1), D = L;
        if (kind == RepeatKind::Distant) {
            D = L; // the distance takes the training's span distribution
            L = 2 + below(rng, D - 1);
        }
        const int start = below(rng, T - D - L + 1);
        if (kind != RepeatKind::None)
            for (int t = 0; t < L; ++t)
                s[std::size_t(start + D + t)] = s[std::size_t(start + t)];
        out.batch.ids.insert(out.batch.ids.end(), s.begin(), s.end());
        out.starts.push_back(start);
        out.spans.push_back(L);
        out.distances.push_back(D);
    }
    out.batch.targets.resize(out.batch.ids.size());
    for (std::size_t r = 0; r < out.batch.ids.size(); ++r)
        out.batch.targets[r] = (r + 1) % std::size_t(T) == 0 ? out.batch.ids[r] : out.batch.ids[r + 1];
    return out;
}

} // namespace attn
