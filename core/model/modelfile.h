#pragma once
// Opening a model's files without trusting what the name points at. A model
// folder is read whole, so each file is bounded before a byte is read: it
// must be a regular file once links are followed (a link to /dev/zero would
// be read without end, a FIFO would block the open forever), its size is
// taken from the file system and checked against the file's limit, and no
// read asks for more than the limit + 1 bytes (a file that grows while it is
// read is refused, not followed).

#include "result.h"
#include "validate.h"

#include <QByteArray>
#include <QFile>
#include <QString>

#include <optional>
#include <string>

namespace attn {

// Opens `path` read-only into `file` when it is a regular file of at most
// `limit` bytes; otherwise the Problem, placed at `name`: "the file is
// missing", "not a regular file (a character device)", "a loop of symbolic
// links", "the file is too big (N bytes; the limit for what is M)". The open
// never blocks: the type is checked before the open and again on the open
// file (O_NONBLOCK), so a FIFO swapped in between is refused too.
std::optional<Problem> openRegularFile(QFile &file, const QString &path, const std::string &name, qint64 limit,
                                       const std::string &what);

// The whole file, read as openRegularFile opens it.
Result<QByteArray> readRegularFile(const QString &path, const std::string &name, qint64 limit, const std::string &what);

// The first key of `json` (text that is valid JSON) given twice in one
// object, with the keys of the objects it sits in ("__metadata__.format");
// nothing when every key is given once. Qt's parser keeps the last of two
// equal keys without a word, so a file that names a tensor or a token twice
// is caught here, from the text. Keys are compared decoded ("\u0061" is "a").
std::optional<std::string> firstDuplicateKey(const QByteArray &json);

// 33554432 → "33,554,432": a limit the eye can read.
std::string groupedNumber(double v);

} // namespace attn
