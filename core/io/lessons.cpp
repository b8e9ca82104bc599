#include "lessons.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace attn {

QString lessonResourcePath(const QString &name)
{
    return QStringLiteral(":/lessons/%1.json").arg(name);
}

QStringList lessonIndex()
{
    QFile file(QStringLiteral(":/lessons/index.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QStringList names;
    const QJsonArray list = QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("lessons")).toArray();
    for (const QJsonValue &v : list)
        names << v.toString();
    return names;
}

QList<LessonInfo> builtInLessons()
{
    QList<LessonInfo> out;
    for (const QString &name : lessonIndex()) {
        const ScenarioOrProblem loaded = loadScenarioFile(lessonResourcePath(name));
        if (const auto *s = std::get_if<Scenario>(&loaded))
            out.append({name, QString::fromStdString(s->title), QString::fromStdString(s->description)});
    }
    return out;
}

ScenarioOrProblem loadLesson(const QString &name)
{
    if (!lessonIndex().contains(name))
        return Problem{"", "no built-in lesson is called \"" + name.toStdString() + "\"; there are: "
                               + lessonIndex().join(QStringLiteral(", ")).toStdString()};
    return loadScenarioFile(lessonResourcePath(name));
}

} // namespace attn
