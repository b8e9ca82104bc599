#pragma once
// The numbers of a trace as CSV files, for a spreadsheet: one file per stage
// and head, labels in the first row and column, every number in its
// shortest exact form.

#include "attention.h"
#include "result.h"
#include "scenario.h"

#include <QString>
#include <QStringList>

namespace attn {

// The numbers of a trace: one CSV per stage and head (labels in the first
// row and column), written into `folder`; the files written, or the first
// file that could not be written (its path is the place) and none after it.
// A symbolic link at one of the names is replaced, not followed; a line
// saying so (replacedLinkNote) goes into `replacedLinks` when it is given.
Result<QStringList> writeTraceCsv(const Scenario &s, const Trace &t, const QString &folder, const QString &stem,
                                  QStringList *replacedLinks = nullptr);

} // namespace attn
