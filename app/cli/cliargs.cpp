#include "cliargs.h"

#include "json_stream.h"
#include "lessons.h"
#include "numbers.h"
#include "trace_text.h"
#include "validate.h"

#include <QIODevice>
#include <QJsonDocument>

#include <algorithm>

namespace attn::cmdline {

std::optional<QString> Options::take(const QString &name)
{
    for (qsizetype i = 0; i < named.size(); ++i)
        if (named[i].first == name) {
            const QString v = named[i].second;
            named.removeAt(i);
            return v;
        }
    return std::nullopt;
}

Options parseOptions(const QStringList &args, const QStringList &known)
{
    Options o;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a.startsWith(QLatin1String("--"))) {
            const qsizetype eq = a.indexOf(QLatin1Char('='));
            const QString name = eq > 0 ? a.left(eq) : a;
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

QString formatOption(Options &o)
{
    const QString format = o.take(QStringLiteral("--format")).value_or(QStringLiteral("text"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        throw UsageError{QStringLiteral("--format: unknown value \"%1\"; expected text or json").arg(format)};
    return format;
}

QList<FigureFormat> figureFormats(Options &o)
{
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
    return formats;
}

QStringList splitList(const QString &text)
{
    QStringList out;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        out << part.trimmed().toLower();
    return out;
}

QString safe(const QString &text)
{
    return QString::fromStdString(escapeControls(text.toStdString()));
}

bool writeChunk(QTextStream &out, const QByteArray &utf8)
{
    if (QIODevice *device = out.device()) {
        out.flush();
        if (out.status() == QTextStream::Ok && device->write(utf8) != utf8.size())
            out.setStatus(QTextStream::WriteFailed); // the device's errorString says why
    } else {
        out << QString::fromUtf8(utf8);
    }
    return out.status() == QTextStream::Ok;
}

QString fixed(double v, int decimals)
{
    return QString::fromStdString(formatFixed(v, decimals));
}

Source loadSource(Options &o)
{
    const auto preset = o.take(QStringLiteral("--preset"));
    // "export FILE --preset slide": the figures' preset has a name of its own.
    if (preset && figurePresetFromKey(*preset) == FigurePreset::Slide && !lessonIndex().contains(preset->trimmed()))
        throw UsageError{QStringLiteral("--preset names a built-in lesson; the figures' preset is --figure-preset %1")
                             .arg(preset->trimmed())};
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

int wholeNumberOption(const QString &option, const QString &text, int largest)
{
    bool ok = false;
    const int v = text.trimmed().toInt(&ok);
    if (!ok || v < 1 || v > largest)
        throw UsageError{QStringLiteral("%1: must be a whole number from 1 to %2 (got \"%3\")").arg(option).arg(largest).arg(text)};
    return v;
}

QStringList maskOptionNames()
{
    return {QStringLiteral("--mask"), QStringLiteral("--window"), QStringLiteral("--dilation"), QStringLiteral("--block"),
            QStringLiteral("--global")};
}

namespace {

// The settings bar's presets by their command-line names (Custom is no
// preset to ask for).
constexpr std::pair<SparsePreset, const char *> kSparsePresetNames[] = {{SparsePreset::Full, "full"},
                                                                         {SparsePreset::Window, "window"},
                                                                         {SparsePreset::Dilated, "dilated"},
                                                                         {SparsePreset::Block, "block"},
                                                                         {SparsePreset::GlobalWindow, "global-window"}};

std::optional<SparsePreset> sparsePresetNamed(const QString &name)
{
    for (const auto &[p, n] : kSparsePresetNames)
        if (name == QLatin1String(n))
            return p;
    return std::nullopt;
}

QString sparsePresetNames()
{
    QStringList names;
    for (const auto &[p, n] : kSparsePresetNames)
        names << QLatin1String(n);
    return names.join(QStringLiteral(", "));
}

int maskWidth(const QString &option, const QString &text)
{
    return wholeNumberOption(option, text, kMaxMaskWidth);
}

} // namespace

void applyMaskOptions(Options &o, bool causal, Source &src)
{
    Scenario *s = std::get_if<Scenario>(&src.loaded);
    Mask m = s ? s->mask : Mask();
    m.causal = m.causal || causal;
    // A preset first, as the settings bar sets it ("window:3"; the width
    // left out: the scenario's own, else 2); the single patterns then change it.
    if (const auto preset = o.take(QStringLiteral("--mask"))) {
        const QString name = preset->section(QLatin1Char(':'), 0, 0).trimmed();
        const auto p = sparsePresetNamed(name);
        if (!p)
            throw UsageError{QStringLiteral("--mask: \"%1\" is not a preset (%2, and :W for the width, e.g. window:3)")
                                 .arg(name, sparsePresetNames())};
        const bool widthGiven = preset->contains(QLatin1Char(':'));
        if (widthGiven && *p == SparsePreset::Full)
            throw UsageError{QStringLiteral("--mask: full has no width (got \"%1\")").arg(*preset)};
        const int w = widthGiven ? maskWidth(QStringLiteral("--mask"), preset->section(QLatin1Char(':'), 1))
                                 : (sparseWidth(m) > 0 ? sparseWidth(m) : 2);
        m = withSparsePreset(m, *p, w);
    }
    if (const auto w = o.take(QStringLiteral("--window")))
        m.window = maskWidth(QStringLiteral("--window"), *w);
    if (const auto d = o.take(QStringLiteral("--dilation")))
        m.dilation = maskWidth(QStringLiteral("--dilation"), *d);
    if (const auto b = o.take(QStringLiteral("--block")))
        m.block = maskWidth(QStringLiteral("--block"), *b);
    if (const auto g = o.take(QStringLiteral("--global"))) {
        m.global.clear();
        for (const QString &part : g->split(QLatin1Char(',')))
            m.global.push_back(maskWidth(QStringLiteral("--global"), part) - 1);
        std::sort(m.global.begin(), m.global.end());
        m.global.erase(std::unique(m.global.begin(), m.global.end()), m.global.end());
    }
    if (s)
        s->mask = m;
}

QStringList settingOptionNames()
{
    return {QStringLiteral("--softmax")};
}

void applySettingOptions(Options &o, Source &src)
{
    const auto text = o.take(QStringLiteral("--softmax"));
    if (!text)
        return;
    const std::optional<SoftmaxKind> kind = softmaxFromString(text->toStdString());
    if (!kind)
        throw UsageError{QStringLiteral("--softmax: unknown value \"%1\"; expected one of %2")
                             .arg(*text, QString::fromStdString(allNames(SoftmaxKind::Standard)))};
    if (Scenario *s = std::get_if<Scenario>(&src.loaded))
        s->softmax = *kind;
}

QString problemLine(const QString &origin, const Problem &p)
{
    QString line = origin + QStringLiteral(": ");
    if (!p.place.empty())
        line += QString::fromStdString(p.place) + QStringLiteral(": ");
    return safe(line + QString::fromStdString(p.message));
}

// JSON for stdout: with the characters a terminal obeys escaped.
QByteArray terminalJson(const QJsonObject &o)
{
    return escapeTerminalControls(QJsonDocument(o).toJson(QJsonDocument::Indented));
}

// Removes a flag (an option without a value) from args; true if it was there.
bool takeFlag(QStringList &args, const QString &flag)
{
    bool found = false;
    for (qsizetype i = args.size() - 1; i >= 0; --i)
        if (args[i] == flag) {
            if (found)
                throw UsageError{QStringLiteral("%1 is given twice").arg(flag)};
            args.removeAt(i);
            found = true;
        }
    return found;
}

} // namespace attn::cmdline
