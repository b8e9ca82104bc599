#pragma once
// The scenario file (docs/scenario-format.md): JSON, read with Qt Core's
// parser. A file is read whole or not at all: the first problem is reported
// with its place in the file ("inputs.K[2][1]") and no scenario is returned.

#include "result.h"
#include "scenario.h"
#include "validate.h"

#include <QByteArray>
#include <QString>

#include <string>
#include <variant>
#include <vector>

namespace attn {

inline constexpr const char *kScenarioFormat = "attention-lab/scenario";
inline constexpr int kScenarioVersion = 1;
// 16 MiB: a lesson of 2048 tokens by 256 dimensions takes about 6 MB; the
// parsed document costs about 7 times the file in memory.
inline constexpr qint64 kMaxScenarioFileBytes = 16 * 1024 * 1024;

using ScenarioOrProblem = Result<Scenario>;

// Parses and validates. The problem's place is a path inside the document,
// or "line L, column C" when the text is not JSON at all.
ScenarioOrProblem scenarioFromJson(const QByteArray &json);

// Reads a file. A problem says why ("cannot be read: ...", "is 20000000
// bytes, more than the limit of 16777216"); the caller, which knows how to
// show it, names the file. A file over kMaxScenarioFileBytes is refused
// before it is read, and no more than that is ever read.
ScenarioOrProblem loadScenarioFile(const QString &path);

// Canonical text: keys in a fixed order, one matrix row per line, numbers in
// their shortest exact form, so that save, load, save gives the same bytes.
QByteArray scenarioToJson(const Scenario &s);

// Writes through a temporary file renamed into place, so a failed write
// leaves any old file whole. The problem's place is the file's path.
std::optional<Problem> saveScenarioFile(const QString &path, const Scenario &s);

// A number the lesson's source document prints wrongly (the optional
// "misprints" key of a scenario file): its stage, head and cell, and what
// is printed. What the formula gives is the trace's, never written in the
// file. Read with the file (a bad entry refuses it) and kept with the keys
// this version does not otherwise read (Scenario::extra), so saving writes
// it back as it was.
struct Misprint {
    std::string stage;    // "scores", "scaled", "masked", "weights" or "output"
    int head = 0;         // 0-based (the file counts heads, rows and columns from 1)
    int row = 0, col = 0; // 0-based
    double printed = 0;
};

// The misprints of `s`'s file whose cells `s` still has (a token removed
// since takes its misprints with it).
std::vector<Misprint> misprintsOf(const Scenario &s);

} // namespace attn
