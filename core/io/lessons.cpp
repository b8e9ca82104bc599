#include "lessons.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

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

LessonInfo lessonInfo(const QString &name, const QString &language)
{
    QFile file(lessonResourcePath(name));
    if (!file.open(QIODevice::ReadOnly))
        return {name, QString(), QString()};
    const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
    auto text = [&](const QString &key) {
        const QString local = o.value(key + QLatin1Char('_') + language).toString();
        return language.isEmpty() || local.isEmpty() ? o.value(key).toString() : local;
    };
    return {name, text(QStringLiteral("title")), text(QStringLiteral("description"))};
}

QList<LessonInfo> builtInLessons(const QString &language)
{
    QList<LessonInfo> out;
    for (const QString &name : lessonIndex())
        if (std::holds_alternative<Scenario>(loadScenarioFile(lessonResourcePath(name))))
            out.append(lessonInfo(name, language));
    return out;
}

ScenarioOrProblem loadLesson(const QString &name)
{
    if (!lessonIndex().contains(name))
        return Problem{"", "no built-in lesson is called \"" + name.toStdString() + "\"; there are: "
                               + lessonIndex().join(QStringLiteral(", ")).toStdString()};
    return loadScenarioFile(lessonResourcePath(name));
}

std::vector<QuizItem> builtInQuiz()
{
    std::vector<LessonQuiz> all;
    for (const QString &name : lessonIndex()) {
        const ScenarioOrProblem loaded = loadLesson(name);
        if (const auto *s = std::get_if<Scenario>(&loaded))
            all.push_back({name.toStdString(), s->quiz});
    }
    return gatherQuiz(all);
}

Result<std::vector<QuizItem>> builtInQuiz(const QString &lesson)
{
    const ScenarioOrProblem loaded = loadLesson(lesson);
    if (const auto *p = std::get_if<Problem>(&loaded))
        return *p;
    std::vector<QuizItem> out;
    for (QuizItem &item : builtInQuiz())
        if (std::count(item.lessons.begin(), item.lessons.end(), lesson.toStdString()))
            out.push_back(std::move(item));
    return out;
}

} // namespace attn
