#pragma once
// The built-in lessons: scenario files compiled in as resources
// (resources/lessons/, listed in order by its index.json).

#include "quiz.h"
#include "scenario_json.h"

#include <QList>
#include <QString>

namespace attn {

struct LessonInfo {
    QString name;        // "seed000-basic": what --preset and the Lessons menu take
    QString title;       // the scenario's title
    QString description; // one line
};

// In the order of index.json. A lesson that fails to load is left out (the
// tests make sure none does). With a language ("zh_CN"), the title and
// description are the lesson's "title_zh_CN" and "description_zh_CN" where
// it has them.
QList<LessonInfo> builtInLessons(const QString &language = QString());

// The lesson's title and description in `language`, or its own.
LessonInfo lessonInfo(const QString &name, const QString &language = QString());

// The lesson's scenario, or a problem that lists the names there are.
ScenarioOrProblem loadLesson(const QString &name);

// ":/lessons/<name>.json"
QString lessonResourcePath(const QString &name);

// The names in index.json, whether or not they load.
QStringList lessonIndex();

// The quiz of every built-in lesson, in index.json's order, each question
// once (gatherQuiz): what the quiz window asks and `attention-lab-cli quiz`
// prints.
std::vector<QuizItem> builtInQuiz();

// The questions of builtInQuiz() that `lesson` holds, with the same ids;
// a lesson that is not built in is a problem that lists the names there are.
Result<std::vector<QuizItem>> builtInQuiz(const QString &lesson);

} // namespace attn
