#pragma once
// attention-lab-cli: the core without a window.
//   trace FILE.json|--preset NAME [--format text|json]
//   presets
//   experiment scaling [--dk N] [--seed S] [--trials T]

#include <QStringList>
#include <QTextStream>

namespace attn {

// Exit status: 0 done, 2 bad input (one line on err naming the file, the
// place and the reason) or output that could not be written: a file of
// export, or `out` itself (full disk, closed, size limit), said in one line
// with the reason taken from out's device's errorString(). Text from files
// and the command line reaches err and out with control characters escaped.
int runCli(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace attn
