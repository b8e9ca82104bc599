#include "filenames.h"

#include <QDir>
#include <QFileInfo>

namespace attn {

namespace {

bool isControl(char32_t c)
{
    return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f);
}

// Marks that reorder what a terminal or file manager shows (U+202E makes
// "gnp.exe" look like "exe.png"), and the invisible direction marks.
bool isBidiControl(char32_t c)
{
    return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

} // namespace

QString cleanDerivedName(const QString &raw)
{
    QString out;
    out.reserve(raw.size());
    for (const char32_t c : raw.toUcs4()) {
        if (isControl(c) || isBidiControl(c) || c == U'/' || c == U'\\')
            out += QLatin1Char('_');
        else
            out += QString::fromUcs4(&c, 1);
    }
    if (out.startsWith(QLatin1Char('.')))
        out[0] = QLatin1Char('_');
    return out;
}

QString cleanFolderName(const QString &folder, const QString &fallback)
{
    // A resource path (":/models/x") is not made absolute: it names no folder on disk.
    const QString path = folder.startsWith(QLatin1Char(':')) ? folder : QDir::cleanPath(QFileInfo(folder).absoluteFilePath());
    const QString name = cleanDerivedName(QFileInfo(QDir::cleanPath(path)).fileName());
    return name.isEmpty() ? fallback : name;
}

std::optional<Problem> whyNotAFileStem(const QString &name)
{
    const auto why = [](const QString &text) { return Problem{std::string(), text.toStdString()}; };
    if (name.isEmpty())
        return why(QStringLiteral("is empty"));
    if (name.contains(QLatin1Char('/')) || name.contains(QLatin1Char('\\')))
        return why(QStringLiteral("\"%1\" holds a '/' or '\\': it names the files' first part, not a folder (use --out for that)").arg(name));
    if (name.contains(QLatin1String("..")))
        return why(QStringLiteral("\"%1\" holds \"..\": it names the files' first part, not a folder (use --out for that)").arg(name));
    for (const char32_t c : name.toUcs4())
        if (isControl(c) || isBidiControl(c))
            return why(QStringLiteral("holds a control character (U+%1)")
                .arg(QString::number(uint(c), 16).toUpper().rightJustified(4, QLatin1Char('0'))));
    if (name.startsWith(QLatin1Char('.')))
        return why(QStringLiteral("\"%1\" starts with '.', which would make hidden files").arg(name));
    return std::nullopt;
}

} // namespace attn
