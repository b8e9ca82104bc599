#pragma once
// The numbers of a trace as CSV files, for a spreadsheet: one file per stage
// and head, labels in the first row and column, every number in its
// shortest exact form.

#include "attention.h"
#include "scenario.h"

#include <QString>
#include <QStringList>

namespace attn {

// The numbers of a trace: one CSV per stage and head (labels in the first
// row and column), written into `folder`; returns the files written, or
// sets `error` and writes none of the rest.
QStringList writeTraceCsv(const Scenario &s, const Trace &t, const QString &folder, const QString &stem,
                          QString *error);

} // namespace attn
