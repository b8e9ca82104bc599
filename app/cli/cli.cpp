#include "cli.h"

#include "attention.h"
#include "experiment.h"
#include "lessons.h"
#include "scenario_json.h"
#include "trace_json.h"
#include "trace_text.h"

#include <QJsonDocument>

#include <cmath>
#include <optional>

namespace attn {

namespace {

constexpr int kBadInput = 2;
constexpr double kMaxExperimentDraws = 2e8; // q and k entries drawn by one experiment

const char *const kUsage = R"(Usage:
  attention-lab-cli trace FILE.json|--preset NAME [--format text|json]
      The whole attention chain: scores, scaled, mask, weights, output.
  attention-lab-cli presets
      The built-in lessons, one line each.
  attention-lab-cli experiment scaling [--dk N] [--seed S] [--trials T]
      Why divide by sqrt(d_k): raw against scaled scores of random q, k.
  attention-lab-cli --help | --version
)";

// Options after the command: "--name value" pairs and plain arguments.
struct Options {
    QStringList positional;
    QList<QPair<QString, QString>> named;

    std::optional<QString> take(const QString &name)
    {
        for (qsizetype i = 0; i < named.size(); ++i)
            if (named[i].first == name) {
                const QString v = named[i].second;
                named.removeAt(i);
                return v;
            }
        return std::nullopt;
    }
};

struct UsageError {
    QString message;
};

Options parseOptions(const QStringList &args, const QStringList &known)
{
    Options o;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a.startsWith(QLatin1String("--"))) {
            QString name = a, value;
            const qsizetype eq = a.indexOf(QLatin1Char('='));
            if (eq > 0) {
                name = a.left(eq);
                value = a.mid(eq + 1);
            } else if (i + 1 < args.size()) {
                value = args[++i];
            } else {
                throw UsageError{QStringLiteral("%1 needs a value").arg(a)};
            }
            if (!known.contains(name))
                throw UsageError{QStringLiteral("unknown option %1; this command takes %2")
                                     .arg(name, known.isEmpty() ? QStringLiteral("none") : known.join(QStringLiteral(", ")))};
            o.named.append({name, value});
        } else {
            o.positional << a;
        }
    }
    return o;
}

long long parseInteger(const QString &option, const QString &text, long long lo, long long hi)
{
    bool ok = false;
    const long long v = text.toLongLong(&ok);
    if (!ok)
        throw UsageError{QStringLiteral("%1: \"%2\" is not a whole number").arg(option, text)};
    if (v < lo || v > hi)
        throw UsageError{QStringLiteral("%1: must be between %2 and %3 (got %4)").arg(option).arg(lo).arg(hi).arg(v)};
    return v;
}

// The scenario named by FILE or --preset NAME; `origin` names it in messages.
struct Source {
    QString origin;
    ScenarioOrProblem loaded;
};

Source loadSource(Options &o)
{
    const auto preset = o.take(QStringLiteral("--preset"));
    if (preset && !o.positional.isEmpty())
        throw UsageError{QStringLiteral("give a file or --preset, not both")};
    if (preset)
        return {QStringLiteral("--preset %1").arg(*preset), loadLesson(*preset)};
    if (o.positional.size() != 1)
        throw UsageError{o.positional.isEmpty() ? QStringLiteral("name a scenario file or --preset NAME")
                                                : QStringLiteral("one scenario file at a time")};
    const QString file = o.positional.takeFirst();
    return {file, loadScenarioFile(file)};
}

QString problemLine(const QString &origin, const Problem &p)
{
    QString line = origin + QStringLiteral(": ");
    if (!p.place.empty())
        line += QString::fromStdString(p.place) + QStringLiteral(": ");
    return line + QString::fromStdString(p.message);
}

int trace(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseOptions(args, {QStringLiteral("--preset"), QStringLiteral("--format")});
    const QString format = o.take(QStringLiteral("--format")).value_or(QStringLiteral("text"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        throw UsageError{QStringLiteral("--format: unknown value \"%1\"; expected text or json").arg(format)};
    const Source src = loadSource(o);
    if (const auto *p = std::get_if<Problem>(&src.loaded)) {
        err << "attention-lab-cli: " << problemLine(src.origin, *p) << "\n";
        return kBadInput;
    }
    const Scenario &s = std::get<Scenario>(src.loaded);
    const Trace t = compute(s);
    if (format == QLatin1String("json"))
        out << QJsonDocument(traceToJson(s, t)).toJson(QJsonDocument::Indented);
    else
        out << QString::fromStdString(traceText(s, t));
    return 0;
}

int presets(const QStringList &args, QTextStream &out)
{
    Options o = parseOptions(args, {});
    if (!o.positional.isEmpty())
        throw UsageError{QStringLiteral("presets takes no arguments")};
    const QList<LessonInfo> lessons = builtInLessons();
    qsizetype width = 0;
    for (const LessonInfo &l : lessons)
        width = std::max(width, l.name.size());
    for (const LessonInfo &l : lessons)
        out << l.name.leftJustified(width + 2) << l.title << "\n"
            << QString(width + 2, QLatin1Char(' ')) << l.description << "\n";
    return 0;
}

QString fixed(double v, int decimals = 4)
{
    QString s = QString::number(v, 'f', decimals);
    return s.startsWith(QLatin1Char('-')) && s.count(QLatin1Char('0')) == s.size() - 2 ? s.mid(1) : s;
}

int experiment(const QStringList &args, QTextStream &out)
{
    Options o = parseOptions(args, {QStringLiteral("--dk"), QStringLiteral("--seed"), QStringLiteral("--trials")});
    if (o.positional.size() != 1 || o.positional.first() != QLatin1String("scaling"))
        throw UsageError{QStringLiteral("the experiment there is: experiment scaling [--dk N] [--seed S] [--trials T]")};
    const int dk = int(parseInteger(QStringLiteral("--dk"), o.take(QStringLiteral("--dk")).value_or(QStringLiteral("64")),
                                    1, kMaxExperimentDk));
    const auto seed = std::uint64_t(parseInteger(QStringLiteral("--seed"),
                                                 o.take(QStringLiteral("--seed")).value_or(QStringLiteral("7")), 0,
                                                 std::numeric_limits<long long>::max()));
    const int trials = int(parseInteger(QStringLiteral("--trials"),
                                        o.take(QStringLiteral("--trials")).value_or(QStringLiteral("10000")), 2,
                                        kMaxExperimentTrials));
    if (double(dk) * trials > kMaxExperimentDraws)
        throw UsageError{QStringLiteral("--dk × --trials = %1 is more than the limit of %2 (about a minute of work)")
                             .arg(double(dk) * trials, 0, 'g', 6)
                             .arg(kMaxExperimentDraws, 0, 'g', 6)};
    const ScalingExperiment e = runScalingExperiment(dk, seed, trials);

    out << "Scaling experiment: q, k ~ N(0, I) in d_k = " << dk << " dimensions, " << trials
        << " trials, seed " << seed << "\n";
    out << "Theory: Var(q·k) = d_k = " << dk << "; Var(q·k / √d_k) = 1. Softmax of [score, 0, 0]: max entropy ln 3 = "
        << fixed(std::log(3.0)) << "\n\n";
    out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
               .arg(QString(), -16)
               .arg(QStringLiteral("mean"), 10)
               .arg(QStringLiteral("variance"), 12)
               .arg(QStringLiteral("max weight"), 12)
               .arg(QStringLiteral("entropy"), 10)
               .arg(QStringLiteral("saturated"), 11);
    auto line = [&out](const QString &name, const ScoreSummary &s) {
        out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                   .arg(name, -16)
                   .arg(fixed(s.mean), 10)
                   .arg(fixed(s.variance), 12)
                   .arg(fixed(s.meanMaxWeight), 12)
                   .arg(fixed(s.meanEntropy), 10)
                   .arg(fixed(100 * s.saturatedFraction, 1) + QStringLiteral("%"), 11);
    };
    line(QStringLiteral("raw q·k"), e.raw);
    line(QStringLiteral("scaled q·k/√d_k"), e.scaled);
    out << "\nmax weight and entropy are means over the trials of softmax([score, 0, 0]);\n"
           "saturated: trials whose max weight exceeds 0.99 (softmax is nearly one-hot, its gradient nearly 0).\n";
    return 0;
}

} // namespace

int runCli(const QStringList &args, QTextStream &out, QTextStream &err)
{
    if (args.isEmpty() || args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")
        || args.first() == QLatin1String("help")) {
        (args.isEmpty() ? err : out) << kUsage;
        return args.isEmpty() ? kBadInput : 0;
    }
    if (args.first() == QLatin1String("--version")) {
        out << "attention-lab-cli " << ATTN_VERSION << "\n";
        return 0;
    }
    const QString command = args.first();
    const QStringList rest = args.mid(1);
    try {
        if (command == QLatin1String("trace"))
            return trace(rest, out, err);
        if (command == QLatin1String("presets"))
            return presets(rest, out);
        if (command == QLatin1String("experiment"))
            return experiment(rest, out);
        throw UsageError{QStringLiteral("unknown command \"%1\"; the commands are trace, presets, experiment (see --help)")
                             .arg(command)};
    } catch (const UsageError &e) {
        err << "attention-lab-cli: " << command << ": " << e.message << "\n";
        return kBadInput;
    } catch (const ScenarioError &e) {
        err << "attention-lab-cli: " << QString::fromStdString(e.problem().toString()) << "\n";
        return kBadInput;
    }
}

} // namespace attn
