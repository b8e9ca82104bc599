#pragma once
// attention-lab-cli grad: the exact gradients of a loss (attend:J or
// target:T.npy) through a scenario's attention chain (core/backward.h).

#include <QStringList>
#include <QTextStream>

namespace attn {

// Options as `attention-lab-cli --help` lists them; 0, or 2 with one line
// on err for bad input. Throws cmdline::UsageError for a bad option (runCli
// turns it into one line).
int gradCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace attn
