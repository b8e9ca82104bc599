#pragma once
// attention-lab-cli compare: the largest |B - A| per stage and head of two
// scenarios (or one comparison lesson that names its A).

#include <QStringList>
#include <QTextStream>

namespace attn {

// Options as `attention-lab-cli compare --help` lists them; 0, or 2 with one
// line on err for bad input. Throws cmdline::UsageError for a bad option
// (runCli turns it into one line).
int compareCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace attn
