#pragma once
// attention-lab-cli quiz: the questions the quiz window asks, as text, JSON
// or a PDF handout (the questions, then the answer key on a page of its own).

#include <QStringList>
#include <QTextStream>

namespace attn {

// quiz [--lesson NAME] [--format text|json|pdf] [--language en|zh_CN] [--out FILE]
// 0, or 2 with one line on err (a file that could not be written). Throws
// cmdline::UsageError for a bad option (runCli turns it into one line).
// The PDF needs a QGuiApplication (main.cpp makes one, off screen).
int quizCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace attn
