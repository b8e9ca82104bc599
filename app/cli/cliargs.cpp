#include "cliargs.h"

#include "numbers.h"
#include "trace_text.h"

#include <QIODevice>

namespace attn::cmdline {

std::optional<QString> Options::take(const QString &name)
{
    for (qsizetype i = 0; i < named.size(); ++i)
        if (named[i].first == name) {
            const QString v = named[i].second;
            named.removeAt(i);
            return v;
        }
    return std::nullopt;
}

Options parseOptions(const QStringList &args, const QStringList &known)
{
    Options o;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a.startsWith(QLatin1String("--"))) {
            const qsizetype eq = a.indexOf(QLatin1Char('='));
            const QString name = eq > 0 ? a.left(eq) : a;
            if (!known.contains(name))
                throw UsageError{QStringLiteral("unknown option %1; this command takes %2")
                                     .arg(name, known.isEmpty() ? QStringLiteral("none") : known.join(QStringLiteral(", ")))};
            QString value;
            if (eq > 0)
                value = a.mid(eq + 1);
            else if (i + 1 < args.size())
                value = args[++i];
            else
                throw UsageError{QStringLiteral("%1 needs a value").arg(a)};
            for (const auto &[given, _] : o.named)
                if (given == name)
                    throw UsageError{QStringLiteral("%1 is given twice").arg(name)};
            o.named.append({name, value});
        } else {
            o.positional << a;
        }
    }
    return o;
}

QString formatOption(Options &o)
{
    const QString format = o.take(QStringLiteral("--format")).value_or(QStringLiteral("text"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        throw UsageError{QStringLiteral("--format: unknown value \"%1\"; expected text or json").arg(format)};
    return format;
}

QList<FigureFormat> figureFormats(Options &o)
{
    QList<FigureFormat> formats;
    for (const QString &f : splitList(o.take(QStringLiteral("--format")).value_or(QStringLiteral("png")))) {
        const auto format = figureFormatFromName(f);
        if (!format)
            throw UsageError{QStringLiteral("--format: unknown format \"%1\"; expected png, svg or pdf").arg(f)};
        if (!formats.contains(*format))
            formats << *format;
    }
    if (formats.isEmpty())
        throw UsageError{QStringLiteral("--format: name at least one of png, svg, pdf")};
    return formats;
}

QStringList splitList(const QString &text)
{
    QStringList out;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        out << part.trimmed().toLower();
    return out;
}

QString safe(const QString &text)
{
    return QString::fromStdString(escapeControls(text.toStdString()));
}

bool writeChunk(QTextStream &out, const QByteArray &utf8)
{
    if (QIODevice *device = out.device()) {
        out.flush();
        if (out.status() == QTextStream::Ok && device->write(utf8) != utf8.size())
            out.setStatus(QTextStream::WriteFailed); // the device's errorString says why
    } else {
        out << QString::fromUtf8(utf8);
    }
    return out.status() == QTextStream::Ok;
}

QString fixed(double v, int decimals)
{
    return QString::fromStdString(formatFixed(v, decimals));
}

} // namespace attn::cmdline
