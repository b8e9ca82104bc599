#pragma once
// The seeds' own questions as an in-app quiz: every question of
// every built-in lesson's "quiz" key, one at a time, answered by clicking;
// the explanation after the answer; a button that opens the lesson (and the
// setting) that shows it live; the score kept for the session.

#include "scenario.h"

#include <QWidget>

#include <map>
#include <vector>

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace attn {

class QuizPanel : public QWidget {
    Q_OBJECT

public:
    struct Entry {
        QString lesson; // the first lesson whose file holds the question
        QuizQuestion question;
    };

    explicit QuizPanel(QWidget *parent = nullptr);

    // Every question of the built-in lessons, in the lessons' order, each
    // once however many lessons hold it (builtInQuiz in lessons.h).
    static std::vector<Entry> builtInQuestions();

    int questionCount() const { return int(m_entries.size()); }
    int current() const { return m_current; }
    const Entry &entry(int index) const { return m_entries[std::size_t(index)]; }
    void showQuestion(int index);
    // Answers the current question with these choices (0-based); true when
    // they are exactly the right ones. A question counts once.
    bool answer(const std::vector<int> &choices);
    int score() const;
    int answeredCount() const { return int(m_results.size()); }
    QString questionText() const;
    QString feedbackText() const;

signals:
    // "Show it live": open the lesson, apply the settings, show the view.
    void openRequested(const QString &lesson, const QString &view, const attn::SettingsPatch &settings);

private:
    void rebuild();
    void updateScore();

    std::vector<Entry> m_entries;
    int m_current = 0;
    std::map<int, bool> m_results;       // question index → answered right
    std::map<int, std::vector<int>> m_given;
    QLabel *m_progress, *m_question, *m_feedback, *m_score;
    QWidget *m_choiceBox;
    QVBoxLayout *m_choices;
    QPushButton *m_check, *m_open, *m_prev, *m_next;
    std::vector<QPushButton *> m_choiceButtons;
};

} // namespace attn
