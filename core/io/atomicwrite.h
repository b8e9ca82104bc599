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

// How a write treats what it finds at its path.
struct WriteOptions {
    // For a file whose name the program made (an export's figures and
    // numbers): a symbolic link at the path is replaced by the new file, not
    // followed, so that whatever it names (another folder's file, a device,
    // nothing at all) is left as it was. Off (a document the user named): the
    // link stays and the file it points to gets the new bytes.
    bool replaceLink = false;
    // The new file readable and writable by its owner alone (0600), whatever
    // the old one had and whatever the umask allows: a recovery file.
    bool ownerOnly = false;
    // When given: set to what a replaced link named (its text), or emptied.
    QString *replacedLink = nullptr;
};

// Nothing, or the Problem: its place the file's native path, its message
// the reason in words ("the folder /x does not exist", "no space left on
// the device", "permission denied"). Empty `bytes` are
// refused: nothing was made to write. An existing target keeps its
// permissions; a symbolic link is followed or replaced as `options` say.
// Temporary files are named ".NAME.attnlab-PID-XXXXXX.tmp"; every write
// removes those in its folder that a killed writer left (removeAtomicLeftovers).
std::optional<Problem> writeFileAtomically(const QString &path, const QByteArray &bytes, const WriteOptions &options = {});

// Takes one chunk of the file's bytes; false once a chunk could not be
// written (the producer should stop then).
using ChunkWriter = std::function<bool(const QByteArray &chunk)>;
// Makes the file's bytes and hands them to the writer piece by piece;
// returns false when it could not make them or the writer refused one.
using ChunkProducer = std::function<bool(const ChunkWriter &write)>;

// The same for bytes too many to hold at once: they are written as
// `produce` makes them, with the same guarantees (the old file stays until
// every byte is on the disk; nothing made is refused like empty bytes).
std::optional<Problem> writeFileAtomically(const QString &path, const ChunkProducer &produce, const WriteOptions &options = {});

// The line that says a write replaced a link instead of following it:
// "PATH: replaced a symbolic link to TARGET (TARGET itself was not touched)".
QString replacedLinkNote(const QString &path, const QString &linkTarget);

// Removes the temporary files of writeFileAtomically in `folder` that no
// running writer owns, whatever their names and ages: regular files of this
// user matching the pattern exactly, whose writer's process is gone, or has
// started after the file was last written (its PID was reused), or any such
// file untouched for an hour (a writer on another machine sharing the folder
// cannot be asked). Each write does this for its own folder; call it at
// start for the folders the program writes into.
void removeAtomicLeftovers(const QString &folder);

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
