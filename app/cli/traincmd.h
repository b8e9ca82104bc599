#pragma once
// attention-lab-cli train: a small GPT-2 trained from random weights (core/train).
//   train --task induction|previous|copy|reverse|grammar --layers L --heads H --d-model D [--mlp]
//         --steps N --seed S --scale sqrt|none|dk --out DIR [--log-every K]
//         [--batch B] [--length T] [--vocab V] [--lr X] [--threads N] [--format text|json]
// Prints the held-out loss and every head's scores each K steps, then saves
// the model folder. Exit status as runCli's: 0 done, 2 bad input, a refused
// budget or a folder that could not be written, with one line on err.

#include <QStringList>
#include <QTextStream>

namespace attn {

int trainCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace attn
