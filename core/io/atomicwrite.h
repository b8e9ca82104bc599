#pragma once
// Writing a file so that a failure leaves nothing half-written: the bytes go
// to a temporary file that replaces the target only when complete.

#include <QByteArray>
#include <QString>

namespace attn {

// An empty string, or the reason in words ("the folder /x does not exist",
// "Permission denied"). Empty `bytes` are refused: nothing was made to write.
QString writeFileAtomically(const QString &path, const QByteArray &bytes);

} // namespace attn
