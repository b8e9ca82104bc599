#pragma once
// What every command of attention-lab-cli reads and writes the same way: the
// options after the command, the one usage error, text made safe for a
// terminal, a streamed piece of stdout and numbers as text (core/numbers.h).
// UsageError is thrown and caught inside the command line (runCli and
// modelCommand turn it into one line on err); it never leaves attn_cli.

#include "figureexport.h"
#include "scenario_json.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QTextStream>

#include <optional>

namespace attn::cmdline {

struct UsageError {
    QString message;
};

// Options after the command: "--name value" (or "--name=value") pairs and plain arguments.
struct Options {
    QStringList positional;
    QList<QPair<QString, QString>> named;

    // The value of `name`, taken out so that what is left can be checked.
    std::optional<QString> take(const QString &name);
};

// `known` lists the options the command takes. An unknown option, one given
// twice or one without its value is a UsageError; the name is checked first,
// so a misspelt option is unknown, not short of a value.
Options parseOptions(const QStringList &args, const QStringList &known);

// --format text|json (text when not given).
QString formatOption(Options &o);

// --format png,svg,pdf for figures (png when not given), each once, in the
// order given; an unknown one or none at all is a UsageError.
QList<FigureFormat> figureFormats(Options &o);

// "a, B,,c" -> "a", "b", "c".
QStringList splitList(const QString &text);

// Text from files and the command line reaches the terminal with its
// control characters escaped ("\x1b", "\n"), never raw.
QString safe(const QString &text);

// One piece of a streamed output, straight to out's device when it has one
// (no round trip through UTF-16); false once `out` has failed, so that the
// writer stops instead of formatting the rest for nothing.
bool writeChunk(QTextStream &out, const QByteArray &utf8);

// The scenario named by FILE or --preset NAME; `origin` names it in messages.
struct Source {
    QString origin;
    ScenarioOrProblem loaded;
};
// FILE or --preset NAME, taken out of `o` (a UsageError when neither or both).
Source loadSource(Options &o);

// The mask options of trace and export: --window W, --dilation D, --block B,
// --global I[,J...] (1-based) and, given by the caller (a flag), --causal,
// set over the loaded scenario's own mask (docs/scenario-format.md). A bad
// value is a UsageError naming the option; a pattern the scenario cannot
// take (a global token past its end) is validation's, when it is traced.
// A whole number from 1 to `largest`, or a UsageError naming the option.
int wholeNumberOption(const QString &option, const QString &text, int largest);

QStringList maskOptionNames();
void applyMaskOptions(Options &o, bool causal, Source &src);

// The settings options of trace, export and grad: --softmax standard|plus_one
// (softmax_1), set over the loaded scenario's own. A bad value is a
// UsageError naming the option and the accepted names.
QStringList settingOptionNames();
void applySettingOptions(Options &o, Source &src);

// "origin: place: message", safe for a terminal.
QString problemLine(const QString &origin, const Problem &p);

// JSON for stdout: with the characters a terminal obeys escaped.
QByteArray terminalJson(const QJsonObject &o);

// Removes a flag (an option without a value) from args; true if it was there.
bool takeFlag(QStringList &args, const QString &flag);

// formatFixed's text (ASCII minus, never "-0.0000"), for QString::arg.
QString fixed(double v, int decimals = 4);

} // namespace attn::cmdline
