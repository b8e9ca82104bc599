#include "cli.h"

#include "atomicwrite.h"
#include "attention.h"
#include "version.h"
#include "experiment.h"
#include "figureexport.h"
#include "trace_csv.h"
#include "lessons.h"
#include "scenario_json.h"
#include "trace_json.h"
#include "trace_text.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>

#include <cmath>
#include <optional>

namespace attn {

namespace {

constexpr int kBadInput = 2;
constexpr int kCannotWrite = 2; // a file or stdout could not be written: also one line, also 2
constexpr double kMaxExperimentDraws = 2e8; // q and k entries drawn by one experiment

const char *const kUsage = R"(Usage:
  attention-lab-cli trace FILE.json|--preset NAME [--format text|json]
      The whole attention chain: scores, scaled, mask, weights, output.
  attention-lab-cli presets
      The built-in lessons, one line each.
  attention-lab-cli experiment scaling [--dk N] [--seed S] [--trials T]
      Why divide by sqrt(d_k): raw against scaled scores of random q, k.
  attention-lab-cli export FILE.json|--preset NAME --out DIR [--format png,svg,pdf]
                    [--size WxH] [--scale S] [--stages scores,scaled,masked,weights,output,plane,dashboard]
                    [--head H|all] [--values auto|always|never] [--gradient viridis|cividis|magma]
                    [--diverging blue-red|purple-orange] [--numbers csv,json]
                    [--query N] [--plane-axes I,J|pca]
      Figures for slides, one file per stage and format, without a display.
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
            const qsizetype eq = a.indexOf(QLatin1Char('='));
            const QString name = eq > 0 ? a.left(eq) : a;
            // The name first: a misspelt option is unknown, not short of a value.
            if (!known.contains(name))
                throw UsageError{QStringLiteral("unknown option %1; this command takes %2")
                                     .arg(name, known.isEmpty() ? QStringLiteral("none") : known.join(QStringLiteral(", ")))};
            QString value;
            if (eq > 0)
                value = a.mid(eq + 1);
            else if (i + 1 < args.size())
                value = args[++i];
            else
                throw UsageError{QStringLiteral("%1 needs a value").arg(a)};
            for (const auto &[given, _] : o.named)
                if (given == name)
                    throw UsageError{QStringLiteral("%1 is given twice").arg(name)};
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

// Text from files and the command line reaches the terminal with its
// control characters escaped ("\x1b", "\n"), never raw.
QString safe(const QString &text)
{
    return QString::fromStdString(escapeControls(text.toStdString()));
}

QString problemLine(const QString &origin, const Problem &p)
{
    QString line = origin + QStringLiteral(": ");
    if (!p.place.empty())
        line += QString::fromStdString(p.place) + QStringLiteral(": ");
    return safe(line + QString::fromStdString(p.message));
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

QStringList splitList(const QString &text)
{
    QStringList out;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        out << part.trimmed().toLower();
    return out;
}

int exportFigures(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseOptions(args, {QStringLiteral("--preset"), QStringLiteral("--out"), QStringLiteral("--format"),
                                    QStringLiteral("--size"), QStringLiteral("--scale"), QStringLiteral("--stages"),
                                    QStringLiteral("--head"), QStringLiteral("--values"), QStringLiteral("--gradient"),
                                    QStringLiteral("--diverging"), QStringLiteral("--numbers"), QStringLiteral("--query"),
                                    QStringLiteral("--plane-axes")});
    if (!qobject_cast<QApplication *>(QCoreApplication::instance()))
        throw UsageError{QStringLiteral("drawing figures needs a QApplication")};

    const auto outDir = o.take(QStringLiteral("--out"));
    if (!outDir || outDir->isEmpty())
        throw UsageError{QStringLiteral("--out DIR is needed: the folder the figures go into")};

    QList<FigureFormat> formats;
    for (const QString &f : splitList(o.take(QStringLiteral("--format")).value_or(QStringLiteral("png")))) {
        const auto format = figureFormatFromName(f);
        if (!format)
            throw UsageError{QStringLiteral("--format: unknown format \"%1\"; expected png, svg or pdf").arg(f)};
        if (!formats.contains(*format))
            formats << *format;
    }
    if (formats.isEmpty())
        throw UsageError{QStringLiteral("--format: name at least one of png, svg, pdf")};

    FigureSize size;
    if (const auto text = o.take(QStringLiteral("--size"))) {
        const QStringList wh = text->toLower().split(QLatin1Char('x'));
        bool okW = false, okH = false;
        const int w = wh.value(0).toInt(&okW), h = wh.value(1).toInt(&okH);
        if (wh.size() != 2 || !okW || !okH)
            throw UsageError{QStringLiteral("--size: \"%1\" is not WIDTHxHEIGHT, e.g. 1200x900").arg(*text)};
        if (w < 100 || h < 100 || w > 8000 || h > 8000)
            throw UsageError{QStringLiteral("--size: each side must be between 100 and 8000 pixels (got %1)").arg(*text)};
        size.width = w;
        size.height = h;
    }
    if (const auto text = o.take(QStringLiteral("--scale"))) {
        bool ok = false;
        size.scale = text->toDouble(&ok);
        if (!ok || !(size.scale >= 1 && size.scale <= 4))
            throw UsageError{QStringLiteral("--scale: must be a number from 1 to 4 (got %1)").arg(*text)};
    }

    const QStringList stageNames = splitList(o.take(QStringLiteral("--stages"))
                                                 .value_or(QStringLiteral("scores,scaled,masked,weights,output,plane")));
    for (const QString &name : stageNames)
        if (name != QLatin1String("plane") && name != QLatin1String("dashboard") && !stageFromKey(name))
            throw UsageError{QStringLiteral("--stages: unknown stage \"%1\"; expected scores, scaled, masked, weights, "
                                            "output, plane or dashboard").arg(name)};

    FigureStyle style;
    const QString values = o.take(QStringLiteral("--values")).value_or(QStringLiteral("auto"));
    if (values == QLatin1String("auto"))
        style.cellText = CellTextMode::Auto;
    else if (values == QLatin1String("always"))
        style.cellText = CellTextMode::Always;
    else if (values == QLatin1String("never"))
        style.cellText = CellTextMode::Never;
    else
        throw UsageError{QStringLiteral("--values: unknown value \"%1\"; expected auto, always or never").arg(values)};
    if (const auto g = o.take(QStringLiteral("--gradient"))) {
        const auto v = sequentialGradientFromKey(*g);
        if (!v)
            throw UsageError{QStringLiteral("--gradient: unknown gradient \"%1\"; expected viridis, cividis or magma").arg(*g)};
        style.sequential = *v;
    }
    if (const auto g = o.take(QStringLiteral("--diverging"))) {
        const auto v = divergingGradientFromKey(*g);
        if (!v)
            throw UsageError{QStringLiteral("--diverging: unknown gradient \"%1\"; expected blue-red or purple-orange").arg(*g)};
        style.diverging = *v;
    }
    const QStringList numbers = splitList(o.take(QStringLiteral("--numbers")).value_or(QString()));
    for (const QString &n : numbers)
        if (n != QLatin1String("csv") && n != QLatin1String("json"))
            throw UsageError{QStringLiteral("--numbers: unknown kind \"%1\"; expected csv or json").arg(n)};
    const QString headText = o.take(QStringLiteral("--head")).value_or(QStringLiteral("1"));
    const std::optional<QString> queryText = o.take(QStringLiteral("--query"));
    const std::optional<QString> axesText = o.take(QStringLiteral("--plane-axes"));
    if ((queryText || axesText) && !stageNames.contains(QLatin1String("plane")) && !stageNames.contains(QLatin1String("dashboard")))
        throw UsageError{QStringLiteral("%1 sets up the plane; add plane or dashboard to --stages")
                             .arg(queryText ? QStringLiteral("--query") : QStringLiteral("--plane-axes"))};
    if (stageNames.contains(QLatin1String("dashboard"))
        && (size.width < kMinDashboardWidth || size.height < kMinDashboardHeight))
        throw UsageError{QStringLiteral("--size: the dashboard needs at least %1x%2 pixels (got %3x%4)")
                             .arg(kMinDashboardWidth)
                             .arg(kMinDashboardHeight)
                             .arg(size.width)
                             .arg(size.height)};

    const Source src = loadSource(o);
    const bool preset = src.origin.startsWith(QLatin1String("--preset "));
    if (const auto *p = std::get_if<Problem>(&src.loaded)) {
        err << "attention-lab-cli: " << problemLine(src.origin, *p) << "\n";
        return kBadInput;
    }
    const Scenario &s = std::get<Scenario>(src.loaded);
    const Trace t = compute(s);

    // The plane's query and axes, as the window's plane panel chooses them.
    PlaneView planeView;
    if (queryText) {
        bool ok = false;
        const int q = queryText->toInt(&ok);
        if (!ok || q < 1 || q > queryCount(s))
            throw UsageError{QStringLiteral("--query: must be a query from 1 to %1 (got %2)").arg(queryCount(s)).arg(*queryText)};
        planeView.query = q - 1;
    }
    if (axesText) {
        const int d = s.mode == InputMode::Direct ? headDim(s) : modelWidth(s);
        const QStringList pair = axesText->split(QLatin1Char(','));
        bool okX = false, okY = false;
        const int x = pair.value(0).toInt(&okX), y = pair.value(1).toInt(&okY);
        if (*axesText == QLatin1String("pca")) {
            if (d <= 2)
                throw UsageError{QStringLiteral("--plane-axes: pca needs more than two dimensions (the vectors have %1)").arg(d)};
            planeView.pca = true;
        } else if (pair.size() != 2 || !okX || !okY || x < 1 || y < 1 || x > d || y > d || x == y) {
            throw UsageError{QStringLiteral("--plane-axes: must be pca or two different dimensions from 1 to %1, "
                                            "e.g. 1,2 (got %2)").arg(d).arg(*axesText)};
        } else {
            planeView.horizontal = x - 1;
            planeView.vertical = y - 1;
        }
    }

    QList<int> heads;
    if (headText == QLatin1String("all")) {
        for (int h = 0; h < s.heads; ++h)
            heads << h;
    } else {
        bool ok = false;
        const int h = headText.toInt(&ok);
        if (!ok || h < 1 || h > s.heads)
            throw UsageError{QStringLiteral("--head: must be all or a head from 1 to %1 (got %2)").arg(s.heads).arg(headText)};
        heads << h - 1;
    }

    if (!QDir().mkpath(*outDir)) {
        err << "attention-lab-cli: --out " << safe(*outDir) << ": the folder cannot be created\n";
        return kBadInput;
    }
    const QString stem = preset ? src.origin.section(QLatin1Char(' '), 1) : QFileInfo(src.origin).completeBaseName();
    auto write = [&](const QString &name, const QByteArray &bytes) {
        const QString path = QDir(*outDir).filePath(name);
        if (const auto p = writeFileAtomically(path, bytes)) {
            err << "attention-lab-cli: " << safe(problemLine(p)) << "\n";
            return false;
        }
        out << safe(QDir::toNativeSeparators(path)) << "\n";
        return true;
    };

    for (int head : heads) {
        style.stage.head = head;
        for (const QString &name : stageNames) {
            for (FigureFormat format : formats) {
                QByteArray bytes;
                planeView.head = head;
                if (name == QLatin1String("plane")) {
                    bytes = renderPlaneFigure(s, planeView, format, size);
                } else if (name == QLatin1String("dashboard")) {
                    bytes = renderDashboard(s, t, style, &planeView, format, size);
                } else {
                    bytes = renderStageFigure(s, t, *stageFromKey(name), style, format, size);
                }
                if (!write(stem + QLatin1Char('_') + figureFileName(name, head, s.heads, format), bytes))
                    return kBadInput;
            }
        }
    }
    if (numbers.contains(QLatin1String("json"))
        && !write(stem + QStringLiteral("_trace.json"), QJsonDocument(traceToJson(s, t)).toJson(QJsonDocument::Indented)))
        return kBadInput;
    if (numbers.contains(QLatin1String("csv"))) {
        const Result<QStringList> written = writeTraceCsv(s, t, *outDir, stem);
        if (const Problem *p = written.problem()) {
            err << "attention-lab-cli: " << safe(problemLine(*p)) << "\n";
            return kBadInput;
        }
        for (const QString &path : written.value())
            out << safe(QDir::toNativeSeparators(path)) << "\n";
    }
    return 0;
}

int runCommand(const QStringList &args, QTextStream &out, QTextStream &err)
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
    if (rest.contains(QLatin1String("--help")) || rest.contains(QLatin1String("-h"))) {
        out << kUsage; // one page covers every command
        return 0;
    }
    try {
        if (command == QLatin1String("trace"))
            return trace(rest, out, err);
        if (command == QLatin1String("presets"))
            return presets(rest, out);
        if (command == QLatin1String("experiment"))
            return experiment(rest, out);
        if (command == QLatin1String("export"))
            return exportFigures(rest, out, err);
        throw UsageError{QStringLiteral("unknown command \"%1\"; the commands are trace, presets, experiment, export (see --help)")
                             .arg(command)};
    } catch (const UsageError &e) {
        err << "attention-lab-cli: " << safe(command) << ": " << safe(e.message) << "\n";
        return kBadInput;
    } catch (const ScenarioError &e) {
        err << "attention-lab-cli: " << safe(QString::fromStdString(e.problem().toString())) << "\n";
        return kBadInput;
    }
}

} // namespace

int runCli(const QStringList &args, QTextStream &out, QTextStream &err)
{
    int status = runCommand(args, out, err);
    // Output that did not arrive is a failure, said once: a full disk, a
    // closed stdout, a file size limit. The device says why (main.cpp's does).
    out.flush();
    if (out.status() != QTextStream::Ok) {
        if (status == 0) {
            const QString why = out.device() && !out.device()->errorString().isEmpty()
                ? out.device()->errorString()
                : QStringLiteral("the output could not be written");
            err << "attention-lab-cli: standard output: " << safe(why) << "\n";
        }
        status = status == 0 ? kCannotWrite : status;
    }
    err.flush();
    return status;
}

} // namespace attn
