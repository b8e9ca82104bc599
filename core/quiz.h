#pragma once
// The quiz of several lessons as one list: a question that two lessons'
// files both carry (the A/B lessons reuse seed 000's challenges) is asked,
// printed and scored once. What the quiz window, `attention-lab-cli quiz`
// and the printed handout all take.

#include "scenario.h"

#include <string>
#include <vector>

namespace attn {

// One lesson's questions, as its file gives them.
struct LessonQuiz {
    std::string lesson;
    std::vector<QuizQuestion> quiz;
};

// One question of the gathered quiz.
struct QuizItem {
    std::string lesson;               // the first lesson (in the given order) that holds it
    std::vector<std::string> lessons; // every lesson that holds it, in order
    QuizQuestion question;            // question.id is the stable id (see gatherQuiz)
};

// Two questions are the same when their question text, choices (every
// language) and answer are: the explanation and what "Show it live" opens
// do not make a question another one.
bool sameQuestion(const QuizQuestion &a, const QuizQuestion &b);

// Every question once, in the order of its first occurrence. The stable id
// of a question is its file's "id" ("seed000-q1") or, without one,
// "<lesson>-q<N>" (N counts from 1 within its first lesson's quiz); when a
// different question already has that id, "<lesson>/<id>". Ids are unique
// in the result and do not depend on which lessons come later.
std::vector<QuizItem> gatherQuiz(const std::vector<LessonQuiz> &lessons);

// The text in `language` ("zh_CN"), else in English, else in any language
// it has; empty when it has none.
std::string localText(const LocalText &text, const std::string &language);

} // namespace attn
