#include "quiz.h"

#include <algorithm>
#include <set>

namespace attn {

bool sameQuestion(const QuizQuestion &a, const QuizQuestion &b)
{
    return a.question == b.question && a.choices == b.choices && a.answer == b.answer;
}

std::vector<QuizItem> gatherQuiz(const std::vector<LessonQuiz> &lessons)
{
    std::vector<QuizItem> out;
    std::set<std::string> ids;
    for (const LessonQuiz &l : lessons)
        for (std::size_t i = 0; i < l.quiz.size(); ++i) {
            const QuizQuestion &q = l.quiz[i];
            const auto seen = std::find_if(out.begin(), out.end(), [&q](const QuizItem &it) { return sameQuestion(it.question, q); });
            if (seen != out.end()) {
                if (std::find(seen->lessons.begin(), seen->lessons.end(), l.lesson) == seen->lessons.end())
                    seen->lessons.push_back(l.lesson);
                continue;
            }
            QuizItem item{l.lesson, {l.lesson}, q};
            std::string id = q.id.empty() ? l.lesson + "-q" + std::to_string(i + 1) : q.id;
            if (ids.count(id))
                id = l.lesson + "/" + id;
            // A file id may itself look like "lesson/id": count on until free.
            for (int n = 2; ids.count(id); ++n)
                id = l.lesson + "/" + (q.id.empty() ? "q" + std::to_string(i + 1) : q.id) + "-" + std::to_string(n);
            ids.insert(id);
            item.question.id = id;
            out.push_back(std::move(item));
        }
    return out;
}

std::string localText(const LocalText &text, const std::string &language)
{
    for (const std::string &code : {language, std::string("en")}) {
        const auto it = text.find(code);
        if (it != text.end())
            return it->second;
    }
    return text.empty() ? std::string() : text.begin()->second;
}

} // namespace attn
