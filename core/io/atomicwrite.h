#pragma once
// Writing a file so that a failure leaves nothing half-written: the bytes go
// to a temporary file in the same folder that replaces the target only when
// every byte was written, flushed and synced. A full disk, a size limit, a
// missing permission or a failed rename leaves the old file byte for byte as
// it was and no temporary file behind, and is reported in words.

#include "validate.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <optional>

namespace attn {

// Nothing, or the Problem: its place the file's native path, its message
// the reason in words ("the folder /x does not exist", "no space left on
// the device", "permission denied"). Empty `bytes` are
// refused: nothing was made to write. An existing target keeps its
// permissions; a symbolic link stays a link and the file it points to is
// replaced. Temporary files are named ".NAME.attnlab-PID-XXXXXX.tmp"; one
// left behind by a writer that was killed (its process gone for a minute,
// or any such file older than an hour) is removed by the next write of NAME.
std::optional<Problem> writeFileAtomically(const QString &path, const QByteArray &bytes);

// Takes one chunk of the file's bytes; false once a chunk could not be
// written (the producer should stop then).
using ChunkWriter = std::function<bool(const QByteArray &chunk)>;
// Makes the file's bytes and hands them to the writer piece by piece;
// returns false when it could not make them or the writer refused one.
using ChunkProducer = std::function<bool(const ChunkWriter &write)>;

// The same for bytes too many to hold at once: they are written as
// `produce` makes them, with the same guarantees (the old file stays until
// every byte is on the disk; nothing made is refused like empty bytes).
std::optional<Problem> writeFileAtomically(const QString &path, const ChunkProducer &produce);

// "path: reason", the whole Problem as one line; empty when there is none.
QString problemLine(const std::optional<Problem> &p);
// The reason alone, in words; empty when there is none.
QString reasonOf(const std::optional<Problem> &p);

// The reason for a failed system call in words, from its errno value
// (ENOSPC: "no space left on the device", EFBIG: "the file is too large").
QString reasonFromErrno(int errnum);

// The name of a temporary file writeFileAtomically would use for `fileName`
// (a name, not a path) in process `pid` with the six-character `unique` part;
// for tests that make a leftover by hand.
QString atomicTempName(const QString &fileName, qint64 pid, const QString &unique);

} // namespace attn
