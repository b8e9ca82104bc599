#include "classroommode.h"
#include "labmode.h"

#include "document.h"
#include "guesspanel.h"
#include "heatmapplot.h"
#include "notespanel.h"
#include "planepanel.h"
#include "planeplot.h"
#include "quizpanel.h"
#include "sessionpanel.h"
#include "stageviews.h"
#include "onlinepanel.h"
#include "steppanel.h"

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>

namespace attn {

ClassroomMode::ClassroomMode(ModeHost &host) : Mode(host, host.mainWindow())
{
    Document *doc = m_host.document();
    QMainWindow *window = m_host.mainWindow();
    QTabWidget *tabs = m_host.lab()->sideTabs();
    m_classroom = new Classroom(doc, window);
    m_stepPanel = new StepPanel(doc, m_classroom, tabs);
    m_guessPanel = new GuessPanel(doc, m_classroom, tabs);
    m_onlinePanel = new OnlineSoftmaxPanel(doc, tabs);
    // Before the positional tab, which stays last (turning an encoding on shows it).
    tabs->insertTab(tabs->count() - 1, m_stepPanel, tr("&Steps"));
    tabs->insertTab(tabs->count() - 1, m_onlinePanel, tr("&Online softmax"));
    // The tile being read, framed on the score and weight maps while the tab is shown.
    connect(m_onlinePanel, &OnlineSoftmaxPanel::tileChanged, this, [this](int, int query, int first, int last) {
        for (Stage stage : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights})
            if (StageView *v = m_host.lab()->stageView(stage))
                v->setTile(HeatmapPlot::Tile{query, first, last});
    });
    tabs->insertTab(tabs->count() - 1, m_guessPanel, tr("&Guess"));

    m_notesPanel = new NotesPanel(doc, m_classroom, window);
    m_notesDock = new QDockWidget(tr("Lesson notes"), window);
    m_notesDock->setObjectName(QStringLiteral("notesDock"));
    m_notesDock->setWidget(m_notesPanel);
    m_notesDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable
                             | QDockWidget::DockWidgetClosable);
    // A tab beside the settings, in the left column: text reads best in a
    // tall column, and the maps keep the window's width (at a projector's
    // zoom a third column left every panel too narrow for its words).
    window->addDockWidget(Qt::LeftDockWidgetArea, m_notesDock);
    if (QDockWidget *settings = m_host.lab()->settingsDock())
        window->tabifyDockWidget(settings, m_notesDock);
    m_notesDock->hide();
    // Opened: its tab in front.
    connect(m_notesDock->toggleViewAction(), &QAction::triggered, m_notesDock, [this](bool on) {
        if (on)
            m_notesDock->raise();
    });

    createSession();
    createActions();
    // A guess under way hides the answers, as F7 does, until the reveal;
    // F7's own state is left as the teacher set it.
    connect(m_guessPanel, &GuessPanel::guessingChanged, this, [this](bool guessing) {
        if (guessing && !m_classroom->hidden()) {
            m_hiddenForGuess = true;
            m_classroom->setHidden(true);
        } else if (!guessing && m_hiddenForGuess) {
            m_hiddenForGuess = false;
            m_classroom->setHidden(false);
        }
    });
    connect(m_classroom, &Classroom::changed, this, &ClassroomMode::apply);
    // A new lesson keeps the hide mode; its maps come back hidden (StageView).
    connect(doc, &Document::changed, this, [this] {
        if (m_classroom->hidden())
            apply();
    });
    registerViews();
    apply();
}

void ClassroomMode::createActions()
{
    QMainWindow *window = m_host.mainWindow();
    QMenu *menu = m_menu = window->menuBar()->addMenu(tr("&Classroom"));
    auto *bar = m_toolBar = window->addToolBar(tr("Classroom"));
    bar->setObjectName(QStringLiteral("classroomToolBar"));
    m_stepAction = menu->addAction(tr("&Step through"));
    m_stepAction->setCheckable(true);
    m_stepAction->setShortcut(QKeySequence(Qt::Key_F6));
    m_stepAction->setToolTip(tr("Step through the chain one stage at a time (F6); Left/Right or Page Up/Down step, "
                                "Home/End jump"));
    connect(m_stepAction, &QAction::toggled, this, &ClassroomMode::setStepMode);
    bar->addAction(m_stepAction);
    m_stepAction->setProperty("shortText", tr("Steps"));
    const std::pair<QList<QKeySequence>, void (Classroom::*)()> keys[] = {
        {{QKeySequence(Qt::Key_Left), QKeySequence(Qt::Key_PageUp)}, &Classroom::previous},
        {{QKeySequence(Qt::Key_Right), QKeySequence(Qt::Key_PageDown)}, &Classroom::next},
        {{QKeySequence(Qt::Key_Home)}, &Classroom::first},
        {{QKeySequence(Qt::Key_End)}, &Classroom::last}};
    const QString names[] = {tr("Previous step"), tr("Next step"), tr("First step"), tr("Last step")};
    for (int k = 0; k < 4; ++k) {
        auto *a = new QAction(names[k], window);
        a->setShortcuts(keys[k].first);
        a->setEnabled(false); // only in step mode: the arrows belong to the tables and the plane otherwise
        connect(a, &QAction::triggered, m_classroom, keys[k].second);
        window->addAction(a);
        menu->addAction(a);
        if (k < 2) {
            bar->addAction(a);
            a->setProperty("shortText", k == 0 ? QStringLiteral("◂") : QStringLiteral("▸"));
        }
        m_stepKeys.push_back(a);
    }
    menu->addSeparator();
    m_hideAction = menu->addAction(tr("&Hide the answers"));
    m_hideAction->setCheckable(true);
    m_hideAction->setShortcut(QKeySequence(Qt::Key_F7));
    m_hideAction->setToolTip(tr("Predict, then reveal: weights and outputs show neither numbers nor colours (F7)"));
    connect(m_hideAction, &QAction::toggled, this, [this](bool on) {
        m_hiddenForGuess = false; // the teacher's choice from now on
        setAnswersHidden(on);
    });
    bar->addAction(m_hideAction);
    m_hideAction->setProperty("shortText", tr("Hide"));
    QAction *hideScaled = menu->addAction(tr("Hide the scaled scores too"));
    hideScaled->setCheckable(true);
    connect(hideScaled, &QAction::toggled, m_classroom, &Classroom::setHideScaled);
    QAction *guess = menu->addAction(tr("&Guess the row"), this, [this] { m_host.showSideTab(m_guessPanel); });
    bar->addAction(guess);
    guess->setProperty("shortText", tr("Guess"));
    QAction *online = menu->addAction(tr("&Online softmax, tile by tile"), this,
                                      [this] { m_host.showSideTab(m_onlinePanel); });
    online->setToolTip(tr("The weights as FlashAttention computes them: keys in tiles, a running maximum, sum and output"));
    menu->addSeparator();
    QAction *notes = m_notesDock->toggleViewAction();
    notes->setText(tr("Lesson &notes"));
    notes->setObjectName(QStringLiteral("notesAction"));
    notes->setShortcut(QKeySequence(Qt::Key_F8));
    menu->addAction(notes);
    bar->addAction(notes);
    notes->setProperty("shortText", tr("Notes"));
    QAction *quiz = menu->addAction(tr("&Quiz…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Q), this, [this] { showQuiz(); });
    bar->addAction(quiz);
    quiz->setProperty("shortText", tr("Quiz"));
    menu->addSeparator();
    m_sessionAction = menu->addAction(tr("Start a class &session"), this, [this] {
        if (!m_sessionPanel->running())
            if (auto p = startClassSession(8642, false, QString()))
                m_host.showProblem(problemText(*p));
        m_sessionDock->show();
        m_sessionDock->raise();
    });
    m_sessionAction->setObjectName(QStringLiteral("classSessionAction"));
    m_sessionAction->setToolTip(tr("Students answer from their phones' browsers on the classroom's network"));
    m_endSessionAction = menu->addAction(tr("&End the class session"), m_sessionPanel, &SessionPanel::stop);
    m_endSessionAction->setEnabled(false);
    bar->addAction(m_sessionAction);
    m_sessionAction->setProperty("shortText", tr("Session"));
}

void ClassroomMode::createSession()
{
    QMainWindow *window = m_host.mainWindow();
    m_sessionPanel = new SessionPanel(m_host.document(), window);
    m_sessionDock = new QDockWidget(tr("Class session"), window);
    m_sessionDock->setObjectName(QStringLiteral("sessionDock"));
    m_sessionDock->setProperty(kKeepDockAtZoom, true);
    m_sessionDock->setWidget(m_sessionPanel);
    m_sessionDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable
                               | QDockWidget::DockWidgetClosable);
    // Beside the maps, on the right: the histogram is read against them.
    window->addDockWidget(Qt::RightDockWidgetArea, m_sessionDock);
    m_sessionDock->hide();
    m_sessionStatus = new QLabel(window);
    m_sessionStatus->setObjectName(QStringLiteral("sessionStatus"));
    m_sessionStatus->hide();
    window->statusBar()->addPermanentWidget(m_sessionStatus);
    m_sessionPanel->setDecimalsSource([this] {
        StageView *v = m_host.lab()->stageView(Stage::Masked);
        return v ? v->drawnDecimals() : 4;
    });
    connect(m_sessionPanel, &SessionPanel::problem, this, [this](const QString &m) { m_host.showProblem(m); });
    connect(m_sessionPanel, &SessionPanel::saveRequested, this, &ClassroomMode::saveTallies);
    connect(m_sessionPanel->server(), &ClassServer::studentsChanged, this, &ClassroomMode::refreshSessionStatus);
    connect(m_sessionPanel, &SessionPanel::runningChanged, this, [this](bool on) {
        m_endSessionAction->setEnabled(on);
        m_sessionAction->setText(on ? tr("Class &session") : tr("Start a class &session"));
        refreshSessionStatus();
    });
    // A question about the weights hides them (as F7 does) until the reveal,
    // and F7 cannot lift it before then: the class would see the answer.
    connect(m_sessionPanel, &SessionPanel::hidingWanted, this, [this](bool hide) {
        m_hideAction->setEnabled(!hide);
        m_hiddenForGuess = false;
        m_classroom->setHidden(hide);
    });
}

void ClassroomMode::refreshSessionStatus()
{
    const bool on = m_sessionPanel->running();
    m_sessionStatus->setVisible(on);
    if (on)
        m_sessionStatus->setText(tr("Class session %1 · students: %2")
                                     .arg(m_sessionPanel->joinCode())
                                     .arg(m_sessionPanel->server()->students()));
}

std::optional<Problem> ClassroomMode::startClassSession(quint16 port, bool exactPort, const QString &joinCode)
{
    if (auto p = m_sessionPanel->start(port, exactPort, joinCode))
        return p;
    m_sessionDock->show();
    m_sessionDock->raise();
    return std::nullopt;
}

void ClassroomMode::saveTallies()
{
    const QString path = QFileDialog::getSaveFileName(m_host.mainWindow(), tr("Save the class's tallies"),
                                                      QStringLiteral("class-session.csv"), tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    if (auto p = m_sessionPanel->saveTallies(path))
        m_host.showProblem(problemText(*p));
    else
        m_host.showMessage(tr("Saved %1").arg(path), 4000);
}

void ClassroomMode::registerViews()
{
    m_host.registerView(QStringLiteral("session"), [this]() -> QWidget * {
        m_sessionDock->show();
        m_sessionDock->raise();
        return m_host.mainWindow();
    });
    // The online softmax of the causal lesson's last query, at its second tile.
    m_host.registerView(QStringLiteral("online"), [this]() -> QWidget * {
        m_host.showSideTab(m_onlinePanel);
        m_host.document()->setCurrentQuery(m_host.document()->trace().heads.empty()
                                               ? 0
                                               : int(m_host.document()->trace().heads[0].scores.rows()) - 1);
        m_onlinePanel->setTileIndex(1);
        return m_host.mainWindow();
    });
    m_host.registerView(QStringLiteral("steps"), [this]() -> QWidget * {
        setStepMode(true);
        m_host.showSideTab(m_stepPanel);
        return m_host.mainWindow();
    });
    m_host.registerView(QStringLiteral("notes"), [this]() -> QWidget * {
        m_notesDock->show();
        m_notesDock->raise();
        return m_host.mainWindow();
    });
    m_host.registerView(QStringLiteral("quiz"), [this]() -> QWidget * { return showQuiz()->window(); });
    m_host.registerView(QStringLiteral("guess"), [this]() -> QWidget * {
        m_host.showSideTab(m_guessPanel);
        return m_host.mainWindow();
    });
}

QList<QDockWidget *> ClassroomMode::dockWidgets() const
{
    return {m_notesDock, m_sessionDock};
}

QList<QToolBar *> ClassroomMode::toolBars() const
{
    return {m_toolBar};
}

QList<QMenu *> ClassroomMode::menus() const
{
    return {m_menu};
}

void ClassroomMode::setStepMode(bool on)
{
    m_classroom->setStepMode(on);
    if (on)
        m_host.showSideTab(m_stepPanel, false); // beside the maps, or a tab away from them at a projector's zoom
}

void ClassroomMode::setAnswersHidden(bool on)
{
    m_classroom->setHidden(on);
}

void ClassroomMode::apply()
{
    const bool stepping = m_classroom->stepMode(), hidden = m_classroom->hidden();
    LabMode *lab = m_host.lab();
    QSignalBlocker blockStep(m_stepAction), blockHide(m_hideAction);
    m_stepAction->setChecked(stepping);
    m_hideAction->setChecked(hidden);
    for (QAction *a : m_stepKeys)
        a->setEnabled(stepping);
    for (StageView *v : lab->stageViews()) {
        v->setAnswersHidden(m_classroom->stageHidden(v->stage()));
        v->setDimmed(!m_classroom->reached(v->stage()));
    }
    // A step's map that shares a place in the stage strip comes forward.
    QTabWidget *strip = lab->stageStrip();
    if (stepping && strip->count() > 0)
        if (StageView *v = lab->stageView(stageOfStep(m_classroom->currentStep())); strip->indexOf(v) >= 0)
            strip->setCurrentWidget(v);
    // The heads' weights and the concatenated outputs give the answers away too.
    for (HeatmapPlot *p : m_host.mainWindow()->findChildren<HeatmapPlot *>())
        if (!qobject_cast<StageView *>(p) && p->objectName() != QLatin1String("positional"))
            p->setValuesHidden(hidden);
    PlanePlot *plane = lab->vectorPlane();
    if (plane->weightsHidden() != hidden) {
        plane->setWeightsHidden(hidden);
        lab->planePanel()->refresh();
    }
    hideNumberTips(hidden);
    if (hidden)
        m_host.mainWindow()->statusBar()->clearMessage();
}

void ClassroomMode::hideNumberTips(bool hidden)
{
    // The lessons' descriptions name their weights: every menu's tips with a
    // number in them go while the answers are hidden.
    static const QRegularExpression number(QStringLiteral("\\d\\.\\d"));
    for (QMenu *menu : m_host.mainWindow()->menuBar()->findChildren<QMenu *>())
        for (QAction *a : menu->actions()) {
            if (!a->property("classroomToolTip").isValid()) {
                if (!a->toolTip().contains(number) && !a->statusTip().contains(number))
                    continue;
                a->setProperty("classroomToolTip", a->toolTip());
                a->setProperty("classroomStatusTip", a->statusTip());
            }
            a->setToolTip(hidden ? QString() : a->property("classroomToolTip").toString());
            a->setStatusTip(hidden ? QString() : a->property("classroomStatusTip").toString());
        }
}

QuizPanel *ClassroomMode::showQuiz()
{
    if (!m_quiz) {
        m_quiz = new QuizPanel(m_host.mainWindow());
        m_quiz->setWindowFlag(Qt::Window);
        // The titles of the app's windows are one family, translated in the main window's context.
        m_quiz->setWindowTitle(QCoreApplication::translate("attn::MainWindow", "Quiz — Attention Lab"));
        m_quiz->resize(900, 640);
        connect(m_quiz, &QuizPanel::openRequested, this, &ClassroomMode::openFromQuiz);
    }
    m_quiz->show();
    m_quiz->raise();
    m_quiz->activateWindow();
    return m_quiz;
}

void ClassroomMode::openFromQuiz(const QString &lesson, const QString &view, const SettingsPatch &settings)
{
    Document *doc = m_host.document();
    if (!lesson.isEmpty()) {
        if (!m_host.maybeSave() || m_host.openLesson(lesson))
            return;
    }
    if (!settings.empty()) {
        Settings s = settingsOf(doc->scenario());
        settings.applyTo(s);
        if (auto p = doc->setSettings(s, tr("Quiz setting"), Document::Step::Own))
            m_host.showProblem(problemText(*p));
    }
    if (!view.isEmpty())
        m_host.showView(view);
    m_host.mainWindow()->raise();
    m_host.mainWindow()->activateWindow();
}

} // namespace attn
