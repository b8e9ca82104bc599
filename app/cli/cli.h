#pragma once
// attention-lab-cli: the core without a window.
//   trace FILE.json|--preset NAME [--format text|json]
//   presets
//   experiment scaling [--dk N] [--seed S] [--trials T]

#include <QStringList>
#include <QTextStream>

namespace attn {

// Exit status: 0 done, 2 bad input (one line on err naming the file, the
// place and the reason).
int runCli(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace attn
