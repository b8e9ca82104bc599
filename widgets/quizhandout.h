#pragma once
// The quiz as a handout: the questions with their lettered choices, then,
// on a page of its own, the answer key with the explanations. One layout
// for `attention-lab-cli quiz` (text, PDF) and File ▸ Print quiz handout.
// The texts come in `language` from the lessons' files; the headings are
// translated (context attn::QuizHandout) by the application's translator.

#include "scenario.h" // QuizQuestion

#include <QByteArray>
#include <QCoreApplication>
#include <QString>

#include <vector>

namespace attn {

class QuizHandout {
    Q_DECLARE_TR_FUNCTIONS(attn::QuizHandout)

public:
    // `questions` in the order asked; `language` "en" or "zh_CN" (another
    // falls back to English, as the window does); `subtitle` says what
    // they come from ("All built-in lessons", a lesson's title).
    QuizHandout(std::vector<QuizQuestion> questions, QString language, QString subtitle);

    // Plain text, one line a heading, question, choice, answer or
    // explanation (lines end in "\n"; the terminal wraps them).
    QString text() const;
    // Rich text for QTextDocument: the answer key starts a new page.
    QString html() const;
    // An A4 PDF of html(), fonts embedded; needs a QGuiApplication (the
    // offscreen platform will do). Two pages at least when there is a question.
    QByteArray pdf() const;

    static QString title();
    static QString allLessons(); // the subtitle of every lesson's quiz
    static QString letter(int choice) { return QString(QChar(u'A' + choice)); }

private:
    QString local(const LocalText &t) const;
    QString answerLetters(const QuizQuestion &q) const;
    QString subtitleLine() const;

    std::vector<QuizQuestion> m_questions;
    QString m_language;
    QString m_subtitle;
};

} // namespace attn
