#include "traincmd.h"

#include "cliargs.h"
#include "json_stream.h"
#include "numbers.h"
#include "savemodel.h"
#include "trainer.h"

#include <QDir>

#include <chrono>
#include <cmath>

namespace attn {

using namespace cmdline;

namespace {

constexpr int kBadInput = 2;

long long wholeNumber(Options &o, const QString &option, long long lo, long long hi, long long fallback)
{
    const auto text = o.take(option);
    if (!text)
        return fallback;
    bool ok = false;
    const long long v = text->toLongLong(&ok);
    if (!ok || v < lo || v > hi)
        throw UsageError{QStringLiteral("%1: must be a whole number from %2 to %3 (got \"%4\")").arg(option).arg(lo).arg(hi).arg(*text)};
    return v;
}

TrainSettings settingsFrom(Options &o)
{
    TrainSettings s;
    const QString task = o.take(QStringLiteral("--task")).value_or(QStringLiteral("induction"));
    const auto t = trainTaskFromString(task.toStdString());
    if (!t)
        throw UsageError{QStringLiteral("--task: unknown task \"%1\"; expected induction, previous, copy, reverse or grammar").arg(task)};
    s.task = *t;
    s.layers = int(wholeNumber(o, QStringLiteral("--layers"), 1, 3, s.layers));
    s.heads = int(wholeNumber(o, QStringLiteral("--heads"), 1, 4, s.heads));
    s.dModel = int(wholeNumber(o, QStringLiteral("--d-model"), 16, 128, s.dModel));
    if (s.dModel % s.heads != 0)
        throw UsageError{QStringLiteral("--d-model: %1 is not a multiple of --heads %2").arg(s.dModel).arg(s.heads)};
    s.steps = int(wholeNumber(o, QStringLiteral("--steps"), 0, 1000000, s.steps));
    s.seed = std::uint64_t(wholeNumber(o, QStringLiteral("--seed"), 0, (1LL << 62), 0));
    const QString scale = o.take(QStringLiteral("--scale")).value_or(QStringLiteral("sqrt"));
    if (scale == QLatin1String("sqrt"))
        s.scale = Scale::SqrtDk;
    else if (scale == QLatin1String("none"))
        s.scale = Scale::None;
    else if (scale == QLatin1String("dk"))
        s.scale = Scale::Dk;
    else
        throw UsageError{QStringLiteral("--scale: unknown scale \"%1\"; expected sqrt, none or dk").arg(scale)};
    s.logEvery = int(wholeNumber(o, QStringLiteral("--log-every"), 1, 1000000, s.logEvery));
    s.batch = int(wholeNumber(o, QStringLiteral("--batch"), 1, 1024, s.batch));
    s.length = int(wholeNumber(o, QStringLiteral("--length"), 4, 256, s.length));
    s.vocabulary = int(wholeNumber(o, QStringLiteral("--vocab"), kMinTaskVocabulary, kMaxTaskVocabulary, s.vocabulary));
    s.threads = int(wholeNumber(o, QStringLiteral("--threads"), 1, 64, s.threads));
    if (const auto lr = o.take(QStringLiteral("--lr"))) {
        bool ok = false;
        s.learningRate = lr->toDouble(&ok);
        if (!ok || !(s.learningRate > 0 && s.learningRate < 1))
            throw UsageError{QStringLiteral("--lr: must be a number between 0 and 1 (got \"%1\")").arg(*lr)};
    }
    return s;
}

QString headLine(const std::vector<TrainedHeadScore> &heads)
{
    QStringList parts;
    for (const TrainedHeadScore &h : heads)
        parts << QStringLiteral("L%1H%2 prefix %3 (gap %4, no repeat %5) prev %6")
                     .arg(h.layer + 1)
                     .arg(h.head + 1)
                     .arg(fixed(h.prefixMatching, 3), fixed(h.prefixDistant, 3), fixed(h.prefixNoRepeat, 3),
                          fixed(h.previousToken, 3));
    return parts.join(QStringLiteral(", "));
}

// One log entry as a line of JSON (JSON Lines: one object a log step).
QByteArray entryJson(const TrainLogEntry &e)
{
    QByteArray line;
    const JsonStream::Sink sink = [&line](const QByteArray &chunk) {
        line += chunk;
        return true;
    };
    JsonStream j(sink); // holds the sink by reference
    j.raw("{\"step\": ");
    j.integer(e.step);
    j.raw(", \"loss\": ");
    j.number(e.loss);
    j.raw(", \"heads\": [");
    for (std::size_t i = 0; i < e.heads.size(); ++i) {
        const TrainedHeadScore &h = e.heads[i];
        j.raw(i ? ", {\"layer\": " : "{\"layer\": ");
        j.integer(h.layer + 1);
        j.raw(", \"head\": ");
        j.integer(h.head + 1);
        j.raw(", \"prefix_matching\": ");
        j.number(h.prefixMatching);
        j.raw(", \"previous_token\": ");
        j.number(h.previousToken);
        j.raw(", \"prefix_gap\": ");
        j.number(h.prefixDistant);
        j.raw(", \"prefix_no_repeat\": ");
        j.number(h.prefixNoRepeat);
        j.raw("}");
    }
    j.raw("]}\n");
    j.finish();
    return line;
}

} // namespace

int trainCommand(const QStringList &argsIn, QTextStream &out, QTextStream &err)
{
    QStringList args = argsIn;
    const bool mlp = takeFlag(args, QStringLiteral("--mlp"));
    Options o = parseOptions(args, {QStringLiteral("--task"), QStringLiteral("--layers"), QStringLiteral("--heads"),
                                    QStringLiteral("--d-model"), QStringLiteral("--steps"), QStringLiteral("--seed"),
                                    QStringLiteral("--scale"), QStringLiteral("--out"), QStringLiteral("--log-every"),
                                    QStringLiteral("--format"), QStringLiteral("--batch"), QStringLiteral("--length"),
                                    QStringLiteral("--vocab"), QStringLiteral("--lr"), QStringLiteral("--threads")});
    if (!o.positional.isEmpty())
        throw UsageError{QStringLiteral("unexpected argument \"%1\"").arg(o.positional.first())};
    TrainSettings s = settingsFrom(o);
    s.mlp = mlp;
    const auto outDir = o.take(QStringLiteral("--out"));
    if (!outDir || outDir->isEmpty())
        throw UsageError{QStringLiteral("--out DIR is needed: the folder the trained model goes into")};
    const bool json = formatOption(o) == QLatin1String("json");
    if (auto p = validateSettings(s))
        throw UsageError{QString::fromStdString(p->place + ": " + p->message)};
    if (auto p = checkTrainingBudget(s)) {
        err << "attention-lab-cli: train: " << safe(QString::fromStdString(p->message)) << "\n";
        return kBadInput;
    }

    TrainControl control;
    control.progress = [&](const TrainLogEntry &e) {
        if (json)
            writeChunk(out, entryJson(e));
        else
            out << "step " << e.step << "  loss " << fixed(e.loss, 4) << "  " << headLine(e.heads) << "\n";
        out.flush();
    };
    const auto start = std::chrono::steady_clock::now();
    const auto trained = train(s, control);
    if (!trained.ok()) {
        err << "attention-lab-cli: train: " << safe(QString::fromStdString(trained.problem()->toString())) << "\n";
        return kBadInput;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (auto p = saveTrainedModel(trained.value().model, s, *outDir)) {
        err << "attention-lab-cli: train: " << safe(QString::fromStdString(p->toString())) << "\n";
        return kBadInput;
    }
    // The time on err: stdout stays the same bits for the same seed.
    err << "trained " << trained.value().step << " steps in " << fixed(seconds, 1) << " s; saved "
        << safe(QDir::toNativeSeparators(*outDir)) << "\n";
    if (!json)
        out << "saved " << safe(QDir::toNativeSeparators(*outDir)) << "\n";
    return 0;
}

} // namespace attn
