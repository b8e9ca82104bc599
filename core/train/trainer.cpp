#include "trainer.h"

#include "attention.h"
#include "blas.h"
#include "grammar.h"
#include "modelfile.h"

#include <algorithm>
#include <cmath>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {

namespace {

// Fixed offsets of the seed for the streams that must not share numbers.
constexpr std::uint64_t kDataStream = 0x64617461ULL;      // "data"
constexpr std::uint64_t kHeldOutStream = 0x68656c64ULL;   // "held"

std::optional<Problem> range(const char *name, long long v, long long lo, long long hi)
{
    if (v >= lo && v <= hi)
        return std::nullopt;
    return Problem{name, "must be from " + std::to_string(lo) + " to " + std::to_string(hi) + " (got " + std::to_string(v) + ")"};
}

TrainBatch taskBatch(const TrainSettings &s, int batch, Rng &rng)
{
    if (s.task == TrainTask::Grammar)
        return grammarBatch(batch, s.length, rng);
    return makeTaskBatch(s.task, batch, s.length, s.vocabulary, rng);
}

void useThreads(int threads)
{
#ifdef _OPENMP
    omp_set_num_threads(threads); // this thread's setting: a window's worker sets its own
#endif
    blas::setThreads(threads);
}

} // namespace

std::optional<Problem> validateSettings(const TrainSettings &s)
{
    for (auto p : {range("layers", s.layers, 1, 3), range("heads", s.heads, 1, 4), range("d_model", s.dModel, 16, 128),
                   range("steps", s.steps, 0, 1000000), range("batch", s.batch, 1, 1024),
                   range("length", s.length, 4, 256), range("log_every", s.logEvery, 1, 1000000),
                   range("checkpoint_every", s.checkpointEvery, 0, 1000000), range("threads", s.threads, 1, 64),
                   range("held_out", s.heldOut, 1, 1024), range("warmup", s.warmup, 0, 1000000)})
        if (p)
            return p;
    if (s.task != TrainTask::Grammar)
        if (auto p = range("vocabulary", s.vocabulary, kMinTaskVocabulary, kMaxTaskVocabulary))
            return p;
    if (s.dModel % s.heads != 0)
        return Problem{"d_model", std::to_string(s.dModel) + " is not a multiple of heads " + std::to_string(s.heads)};
    if (!(s.learningRate > 0 && s.learningRate < 1))
        return Problem{"learning_rate", "must be a number between 0 and 1"};
    if (!(s.clip >= 0) || !std::isfinite(s.clip))
        return Problem{"clip", "must be 0 (none) or a positive number"};
    return std::nullopt;
}

Gpt2Config trainConfig(const TrainSettings &s)
{
    Gpt2Config c;
    c.nLayer = s.layers;
    c.nHead = s.heads;
    c.nEmbd = s.dModel;
    c.nPositions = s.length;
    c.vocabSize = s.task == TrainTask::Grammar ? grammarVocabularySize() : kByteVocabulary;
    c.nInner = 4 * s.dModel;
    c.epsilon = 1e-5;
    c.geluTanh = true;
    c.tiedEmbedding = s.tiedEmbedding;
    return c;
}

TrainForwardOptions trainOptions(const TrainSettings &s)
{
    TrainForwardOptions o;
    o.divisor = scaleConstant(s.scale, s.dModel / s.heads);
    o.mlp = s.mlp;
    return o;
}

double trainingMemoryBytes(const TrainSettings &s)
{
    const Gpt2Config c = trainConfig(s);
    const double params = modelParameters(c);
    const int every = s.checkpointEvery > 0 ? s.checkpointEvery : s.logEvery;
    const double checkpoints = double(s.steps) / std::max(1, every) + 2;
    const double cells = trainStepCells(c, std::max(std::max(s.batch, 32), s.heldOut), s.length, s.mlp);
    return 8.0 * (4 * params + checkpoints * params + cells);
}

std::optional<Problem> checkTrainingBudget(const TrainSettings &s)
{
    const double bytes = trainingMemoryBytes(s);
    if (bytes <= kTrainBudgetBytes)
        return std::nullopt;
    return Problem{"training", "would hold " + groupedNumber(bytes) + " bytes (weights, gradient, AdamW's moments, a step's "
                               "activations and the checkpoints), more than the budget of " + groupedNumber(kTrainBudgetBytes)
                               + " bytes (1 GiB)"};
}

Gpt2Model initialWeights(const Gpt2Config &c, bool mlp, std::uint64_t seed, double embeddingStd)
{
    Gpt2Model m = zeroWeights(c);
    Rng rng(seed);
    auto fill = [&](Matrix &x, double sd) {
        for (Eigen::Index j = 0; j < x.cols(); ++j)
            for (Eigen::Index i = 0; i < x.rows(); ++i)
                x(i, j) = sd * rng.normal();
    };
    const double d = c.nEmbd, depth = std::sqrt(2.0 * c.nLayer);
    fill(m.wte, embeddingStd);
    fill(m.wpe, embeddingStd);
    for (Gpt2Layer &L : m.layers) {
        L.ln1Weight.setOnes();
        L.ln2Weight.setOnes();
        fill(L.attnWeight, 1.0 / std::sqrt(d));
        fill(L.projWeight, 1.0 / std::sqrt(d) / depth);
        // Drawn with or without the MLP, so both start from the same attention.
        Matrix fc(c.nEmbd, c.nInner), proj(c.nInner, c.nEmbd);
        fill(fc, 1.0 / std::sqrt(d));
        fill(proj, 1.0 / std::sqrt(double(c.nInner)) / depth);
        if (mlp) {
            L.fcWeight = fc;
            L.mlpProjWeight = proj;
        }
    }
    m.lnfWeight.setOnes();
    if (!c.tiedEmbedding)
        fill(m.lmHead, 1.0 / std::sqrt(d));
    return m;
}

Result<TrainState> startTraining(const TrainSettings &settings)
{
    if (auto p = validateSettings(settings))
        return *p;
    if (auto p = checkTrainingBudget(settings))
        return *p;
    TrainState s;
    s.settings = settings;
    const Gpt2Config c = trainConfig(settings);
    s.model = initialWeights(c, settings.mlp, settings.seed, settings.embeddingStd);
    s.data = Rng(splitmix64(settings.seed ^ kDataStream));
    Rng held(splitmix64(settings.seed ^ kHeldOutStream));
    s.evaluation = taskBatch(settings, std::max(settings.batch, 32), held);
    const int content = settings.task == TrainTask::Grammar ? c.vocabSize : contentTokens(settings.task, settings.vocabulary);
    s.repeated = repeatedSequences(settings.heldOut, settings.length, content, held);
    s.distant = repeatedSequences(settings.heldOut, settings.length, content, held, RepeatKind::Distant);
    s.unrepeated = repeatedSequences(settings.heldOut, settings.length, content, held, RepeatKind::None);
    return s;
}

std::optional<Problem> trainStep(TrainState &s)
{
    useThreads(s.settings.threads);
    const TrainBatch batch = taskBatch(s.settings, s.settings.batch, s.data);
    const TrainForwardOptions options = trainOptions(s.settings);
    auto lg = lossAndGradient(s.model, batch, options);
    if (!lg.ok())
        return Problem{"step " + std::to_string(s.step + 1), lg.problem()->message + "; try a smaller learning rate"};
    Gpt2Model &g = lg.value().gradient;
    std::vector<ParameterRef> params = parameterRefs(s.model), grads = parameterRefs(g);
    std::vector<bool> skip;
    double norm2 = 0;
    for (const ParameterRef &p : grads) {
        skip.push_back(p.mlp && !s.settings.mlp);
        norm2 += Eigen::Map<const Eigen::VectorXd>(p.data, p.size).squaredNorm();
    }
    if (!std::isfinite(norm2))
        return Problem{"step " + std::to_string(s.step + 1), "the gradient is not a finite number; try a smaller learning rate"};
    if (const double norm = std::sqrt(norm2); s.settings.clip > 0 && norm > s.settings.clip)
        for (ParameterRef &p : grads)
            Eigen::Map<Eigen::VectorXd>(p.data, p.size) *= s.settings.clip / norm;
    const int w = s.settings.warmup;
    const double lr = s.settings.learningRate * (w > 0 ? std::min(1.0, double(s.step + 1) / w) : 1.0);
    adamwStep(params, grads, s.adam, s.settings.adam, lr, skip);
    s.lastLoss = lg.value().loss;
    ++s.step;
    return std::nullopt;
}

Result<TrainLogEntry> evaluate(const TrainState &s)
{
    useThreads(s.settings.threads);
    const TrainForwardOptions options = trainOptions(s.settings);
    auto tape = forwardForTraining(s.model, s.evaluation, options);
    if (!tape.ok())
        return *tape.problem();
    auto heads = headScores(s.model, options, s.repeated);
    if (!heads.ok())
        return *heads.problem();
    auto distant = prefixScores(s.model, options, s.distant);
    auto unrepeated = prefixScores(s.model, options, s.unrepeated);
    if (!distant.ok())
        return *distant.problem();
    if (!unrepeated.ok())
        return *unrepeated.problem();
    for (std::size_t i = 0; i < heads.value().size(); ++i) {
        heads.value()[i].prefixDistant = distant.value()[i];
        heads.value()[i].prefixNoRepeat = unrepeated.value()[i];
    }
    return TrainLogEntry{s.step, tape.value().loss, std::move(heads.value())};
}

Result<TrainRecord> recordProgress(TrainState &s)
{
    const TrainSettings &settings = s.settings;
    const int every = settings.checkpointEvery > 0 ? settings.checkpointEvery : settings.logEvery;
    TrainRecord r;
    if (s.step % settings.logEvery == 0 || s.step == settings.steps) {
        auto e = evaluate(s);
        if (!e.ok())
            return *e.problem();
        s.log.push_back(std::move(e.value()));
        r.logged = true;
    }
    if (s.step % every == 0 || s.step == settings.steps) {
        s.checkpoints.push_back({s.step, std::make_shared<const Gpt2Model>(s.model)});
        r.checkpointed = true;
    }
    return r;
}

TrainSchedule boundedSchedule(int steps, int cap)
{
    TrainSchedule t;
    t.logEvery = std::max(5, int(std::lround(steps / 100.0)));
    // floor(steps / every) <= cap - 2 checkpoints after step 0, and the last: at most cap.
    const long long room = std::max(1, cap - 2);
    const long long blocks = (steps + t.logEvery * room - 1) / (t.logEvery * room);
    t.checkpointEvery = t.logEvery * int(std::max(1LL, blocks));
    return t;
}

int checkpointCount(int steps, int every)
{
    every = std::max(1, every);
    return steps / every + 1 + (steps % every != 0 ? 1 : 0);
}

TrainState stateAtCheckpoint(const TrainState &state, const Gpt2Model &weights, int step)
{
    TrainState s;
    s.settings = state.settings;
    s.model = weights;
    s.evaluation = state.evaluation;
    s.repeated = state.repeated;
    s.distant = state.distant;
    s.unrepeated = state.unrepeated;
    s.step = step;
    return s;
}

Result<TrainState> train(const TrainSettings &settings, const TrainControl &control)
{
    auto started = startTraining(settings);
    if (!started.ok())
        return started;
    TrainState &s = started.value();
    auto record = [&]() -> std::optional<Problem> {
        auto r = recordProgress(s);
        if (!r.ok())
            return *r.problem();
        if (r.value().logged && control.progress)
            control.progress(s.log.back());
        return std::nullopt;
    };
    if (auto p = record())
        return *p;
    while (s.step < settings.steps) {
        if (control.cancel && control.cancel->load(std::memory_order_relaxed)) {
            s.cancelled = true;
            break;
        }
        if (auto p = trainStep(s))
            return *p;
        if (auto p = record())
            return *p;
    }
    return started;
}

} // namespace attn
