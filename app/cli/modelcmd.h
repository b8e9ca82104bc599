#pragma once
// attention-lab-cli model ...: a GPT-2 model (core/model) on the command line.
//   model info   [--model DIR|builtin] [--format text|json]
//   model trace  [--model DIR|builtin] --text "..." [--layer L] [--head H] [--format text|json]
//   model export [--model DIR|builtin] --text "..." --out DIR [--layer L --head H]
//                [--stages scores,scaled,masked,weights,output,overview] [--format png,svg,pdf]
//                [--size WxH] [--scenario FILE] [--input direct|projected]
//   model generate [--model DIR|builtin] --text "..." [--steps N] [--temperature T]
//                [--top-k K] [--top-p P] [--seed S] [--format text|json]
//   model scores [--model DIR|builtin] [--seed S] [--format text|json]
//   model sinks  [--model DIR|builtin] [--text "..." | --generate N] [--seed S]
//                [--window W] [--sinks S] [--format text|json]
//   model fill   [--model DIR|encoder] --text "... [MASK] ..." [--layer L] [--head H]
//                [--top K] [--format text|json]      (an encoder: BERT's layout)
//   model translate [--model DIR|translator] --text "..." [--steps N] [--temperature T] [--top-k K] [--top-p P]
//                   [--seed S] [--format text|json]
//                                                     (an encoder-decoder: BART's layout)
// Layers and heads count from 1. Exit status as runCli's: 0 done, 2 bad
// input or output that could not be written, with one line on err.

#include <QByteArray>
#include <QList>
#include <QStringList>
#include <QTextStream>

#include <functional>

namespace attn {

struct ModelTrace;

int modelCommand(const QStringList &args, QTextStream &out, QTextStream &err);

// `model trace --format json` of the chosen layers and heads (0-based),
// written into `sink` in chunks of about 1 MB as it is formatted: the bytes
// of the QJsonDocument it used to build (indented, keys sorted), with the
// characters escapeTerminalControls escapes escaped, but never the whole
// tree or text in memory. Stops at the first chunk `sink` refuses (false).
// `ablation`, when not empty, is an object's indented text (QJsonDocument's)
// written first, as "ablation" (keys sorted).
bool writeModelTraceJson(const ModelTrace &t, const QList<int> &layers, const QList<int> &heads,
                         const std::function<bool(const QByteArray &)> &sink, const QByteArray &ablation = {});

} // namespace attn
