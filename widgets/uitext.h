#pragma once
// Small helpers for user-visible text.

#include <QRegularExpression>
#include <QString>

namespace attn {

// A menu or button text without its mnemonic: "&Sinusoidal" → "Sinusoidal",
// "正弦(&S)" → "正弦", for undo step names and messages.
inline QString withoutMnemonic(QString text)
{
    static const QRegularExpression chinese(QStringLiteral("\\(&.\\)"));
    text.remove(chinese);
    text.replace(QLatin1String("&&"), QLatin1String("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QLatin1Char('\x01'), QLatin1Char('&'));
    return text;
}

} // namespace attn
