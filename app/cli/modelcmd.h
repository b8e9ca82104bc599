#pragma once
// attention-lab-cli model ...: a GPT-2 model (core/model) on the command line.
//   model info   [--model DIR|builtin] [--format text|json]
//   model trace  [--model DIR|builtin] --text "..." [--layer L] [--head H] [--format text|json]
//   model export [--model DIR|builtin] --text "..." --out DIR [--layer L --head H]
//                [--stages scores,scaled,masked,weights,output,overview] [--format png,svg,pdf]
//                [--size WxH] [--scenario FILE] [--input direct|projected]
// Layers and heads count from 1. Exit status as runCli's: 0 done, 2 bad
// input or output that could not be written, with one line on err.

#include <QStringList>
#include <QTextStream>

namespace attn {

int modelCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace attn
