#pragma once
// Typed settings: one place that names every key and its default, instead
// of strings scattered over the window.

#include <QSettings>
#include <QString>
#include <QVariant>

namespace attn {

template <typename T>
struct Preference {
    const char *key;
    T fallback;

    T get() const { return QSettings().value(QLatin1String(key), QVariant::fromValue(fallback)).template value<T>(); }
    void set(const T &value) const { QSettings().setValue(QLatin1String(key), QVariant::fromValue(value)); }
};

namespace prefs {
inline const Preference<QByteArray> windowGeometry{"window/geometry", {}};
inline const Preference<QByteArray> windowState{"window/state", {}};
inline const Preference<QString> sequentialGradient{"view/sequentialGradient", QStringLiteral("viridis")};
inline const Preference<QString> divergingGradient{"view/divergingGradient", QStringLiteral("blue-red")};
inline const Preference<QString> cellText{"view/cellText", QStringLiteral("auto")};
inline const Preference<QString> plotTheme{"view/theme", QStringLiteral("default")};
inline const Preference<bool> sharedScoreRange{"view/sharedScoreRange", true};
inline const Preference<double> zoom{"view/zoom", 1.0};
inline const Preference<QString> language{"view/language", QString()}; // empty: the system's
inline const Preference<QString> lastFolder{"files/lastFolder", QString()};
inline const Preference<QStringList> recentFiles{"files/recent", {}};
inline const Preference<QString> lastLesson{"files/lastLesson", QStringLiteral("seed000-basic")};
} // namespace prefs

} // namespace attn
