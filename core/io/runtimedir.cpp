#include "runtimedir.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QtGlobal>

#include <unistd.h>

namespace attn {

void prepareRuntimeDir()
{
    if (!qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR"))
        return;
    const QString dir = QDir::tempPath() + QStringLiteral("/runtime-attention-lab-%1").arg(::getuid());
    // Qt accepts the folder only if it is ours and 0700.
    if (!QDir().mkpath(dir)
        || !QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner))
        return; // Qt then warns and picks its own: no worse than before
    qputenv("XDG_RUNTIME_DIR", QFile::encodeName(dir));
}

} // namespace attn
