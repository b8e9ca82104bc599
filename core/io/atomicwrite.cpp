#include "atomicwrite.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

namespace attn {

QString writeFileAtomically(const QString &path, const QByteArray &bytes)
{
    if (bytes.isEmpty())
        return QCoreApplication::translate("attn::Files", "there was nothing to write");
    const QFileInfo info(path);
    if (!info.absoluteDir().exists())
        return QCoreApplication::translate("attn::Files", "the folder %1 does not exist")
            .arg(QDir::toNativeSeparators(info.absolutePath()));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return file.errorString();
    if (file.write(bytes) != bytes.size()) {
        const QString why = file.errorString();
        file.cancelWriting();
        return why;
    }
    if (!file.commit())
        return file.errorString();
    return QString();
}

} // namespace attn
