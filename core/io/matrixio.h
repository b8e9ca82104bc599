#pragma once
// One matrix in and out of a file: CSV (numbers only, comma
// separated) and NumPy's .npy (float32 or float64, little-endian, C or
// Fortran order, 1-D or 2-D), and the tab-separated text of a spreadsheet's
// clipboard. Readers trust nothing: sizes are checked against the bytes
// that are there before anything is allocated, and the first problem is
// returned with its place ("row 2, column 3", "header") and reason.
// Writers give the shortest text that reads back as the same double, so
// write → read is exact.

#include "result.h"
#include "scenario.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace attn {

inline constexpr qint64 kMaxMatrixFileBytes = 256LL * 1024 * 1024;
inline constexpr qint64 kMaxMatrixCells = 4096LL * 4096; // kMaxTokens by kMaxWidth
inline constexpr int kMaxNpyHeader = 64 * 1024;

// CSV: one row per line (LF or CRLF, a last newline or not, a UTF-8 byte
// order mark allowed), values separated by commas, spaces around a value
// allowed. Numbers only: no header row, no empty cell, no NaN or infinity.
// Every row as long as the first. A problem's place is "row R, column C"
// (from 1) or "row R".
Result<Matrix> matrixFromCsv(const QByteArray &text);
QByteArray matrixToCsv(const Matrix &m);

// .npy versions 1.0, 2.0 and 3.0 with dtype '<f4' or '<f8'. A 1-D array is
// one row. The header is parsed strictly (a Python dict with exactly
// 'descr', 'fortran_order' and 'shape') and may be at most kMaxNpyHeader
// bytes; the data must be exactly shape × item size bytes. A problem's place
// is "header", "data" or "row R, column C" for a value that is not finite.
Result<Matrix> matrixFromNpy(const QByteArray &bytes);
// Version 1.0, '<f8', C order, shape (rows, cols).
QByteArray matrixToNpy(const Matrix &m);

enum class MatrixFormat { Csv, Npy };
// By the file's suffix (.csv, .npy; any case); none for another suffix.
std::optional<MatrixFormat> matrixFormatOf(const QString &path);

// A whole file, by its suffix. The problem's place is the path; its message
// starts with the place inside the file ("row 2, column 3: ...").
Result<Matrix> loadMatrixFile(const QString &path);
// Through writeFileAtomically: a failure leaves the old file as it was.
std::optional<Problem> saveMatrixFile(const QString &path, const Matrix &m);

// A spreadsheet's clipboard: rows split at newlines (LF, CRLF or CR), one
// last empty line dropped, cells split at tabs. The cells are left as text
// for the caller's own number parser.
std::vector<QStringList> splitTabSeparated(const QString &text);
// Rows by newline, cells by tab, every number in its shortest exact form
// with an ASCII minus; a newline after the last row, as spreadsheets copy.
QString matrixToTabSeparated(const Matrix &m);

// "3 by 4" (rows by columns).
std::string shapeText(Eigen::Index rows, Eigen::Index cols);

} // namespace attn
