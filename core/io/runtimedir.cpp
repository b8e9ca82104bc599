#include "runtimedir.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtGlobal>

#ifdef Q_OS_UNIX
#include <unistd.h>
#endif

namespace attn {

void prepareRuntimeDir()
{
#ifdef Q_OS_UNIX
    if (!qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR"))
        return;
    const QString dir = QDir::tempPath() + QStringLiteral("/runtime-attention-lab-%1").arg(::getuid());
    QDir().mkdir(dir);
    // Only a real folder of ours (not a link someone left in /tmp), 0700 as
    // Qt requires; otherwise Qt warns and picks its own, no worse than before.
    const QFileInfo info(dir);
    if (info.isSymLink() || !info.isDir() || info.ownerId() != ::getuid()
        || !QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner))
        return;
    qputenv("XDG_RUNTIME_DIR", QFile::encodeName(dir));
#endif
}

} // namespace attn
