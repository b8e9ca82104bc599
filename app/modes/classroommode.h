#pragma once
// Teaching in front of the class, added to the lab: step mode, hide mode
// (a view state: never saved, off at every start), the Steps, Online
// softmax and Guess side tabs, the lesson's notes (a dock) and the seeds' quiz (a window of
// its own); the class session (a dock: the whole class answers from phones);
// the Classroom menu and toolbar.

#include "mode.h"
#include "result.h"
#include "scenario.h"

#include <map>
#include <string>
#include <vector>

class QAction;
class QLabel;

namespace attn {

class Classroom;
class GuessPanel;
class OnlineSoftmaxPanel;
class NotesPanel;
class QuizPanel;
class SessionPanel;
class StepPanel;

class ClassroomMode : public Mode {
    Q_OBJECT

public:
    explicit ClassroomMode(ModeHost &host);

    QString name() const override { return QStringLiteral("classroom"); }
    QList<QDockWidget *> dockWidgets() const override;
    QList<QToolBar *> toolBars() const override;
    QList<QMenu *> menus() const override;

    Classroom *classroom() const { return m_classroom; }
    StepPanel *stepPanel() const { return m_stepPanel; }
    GuessPanel *guessPanel() const { return m_guessPanel; }
    OnlineSoftmaxPanel *onlinePanel() const { return m_onlinePanel; }
    NotesPanel *notesPanel() const { return m_notesPanel; }
    QDockWidget *notesDock() const { return m_notesDock; }
    QuizPanel *showQuiz(); // its own window, made on first use
    SessionPanel *sessionPanel() const { return m_sessionPanel; }
    QDockWidget *sessionDock() const { return m_sessionDock; }
    // Starts a class session and shows its dock; port 0 with exactPort: any free port.
    std::optional<Problem> startClassSession(quint16 port, bool exactPort, const QString &joinCode);
    void setStepMode(bool on);
    void setAnswersHidden(bool on);

private:
    void createActions();
    void registerViews();
    void apply();
    void hideNumberTips(bool hidden);
    void openFromQuiz(const QString &lesson, const QString &view, const SettingsPatch &settings);
    void createSession();
    void saveTallies();
    void refreshSessionStatus();

    Classroom *m_classroom = nullptr;
    StepPanel *m_stepPanel = nullptr;
    GuessPanel *m_guessPanel = nullptr;
    OnlineSoftmaxPanel *m_onlinePanel = nullptr;
    NotesPanel *m_notesPanel = nullptr;
    QDockWidget *m_notesDock = nullptr;
    QuizPanel *m_quiz = nullptr;
    SessionPanel *m_sessionPanel = nullptr;
    QDockWidget *m_sessionDock = nullptr;
    QLabel *m_sessionStatus = nullptr; // in the status bar: the code and the students
    QAction *m_sessionAction = nullptr, *m_endSessionAction = nullptr;
    QMenu *m_menu = nullptr;
    QToolBar *m_toolBar = nullptr;
    QAction *m_stepAction = nullptr;
    QAction *m_hideAction = nullptr;
    std::vector<QAction *> m_stepKeys;
    bool m_hiddenForGuess = false; // the hide mode was turned on by a guess, not by F7
};

} // namespace attn
