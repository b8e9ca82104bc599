#include "trainingmode.h"
#include "labmode.h"
#include "modelmode.h"
#include "preferences.h"

#include "traininglab.h"
#include "trainingrunner.h"

#include <QAction>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>
#include <QSlider>
#include <QTabWidget>

#include <cmath>

namespace attn {

TrainingMode::TrainingMode(ModeHost &host, ModelMode &model) : Mode(host, host.mainWindow()), m_model(model)
{
    m_view = new TrainingLabView(m_host.mainWindow());
    connect(m_view, &TrainingLabView::takeHeadRequested, this, [this](const Scenario &head, const QString &description) {
        m_model.takeHeadIntoLab(head, description);
    });
    connect(m_view, &TrainingLabView::openInModelModeRequested, this,
            [this](std::shared_ptr<const Gpt2Model> model, const QString &text) { m_model.showModel(std::move(model), text); });
    connect(m_view, &TrainingLabView::saveRequested, this, &TrainingMode::askAndSave);

    m_action = new QAction(tr("&Training lab"), m_host.mainWindow());
    m_action->setObjectName(QStringLiteral("trainingLabAction"));
    m_action->setCheckable(true);
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    m_action->setToolTip(tr("Train a small transformer from random weights and watch its heads form"));
    connect(m_action, &QAction::triggered, this,
            [this](bool on) { m_host.switchMode(on ? static_cast<Mode *>(this) : m_host.lab()); });
    if (QMenu *view = m_host.menu(QStringLiteral("viewMenu")))
        view->addAction(m_action);

    // `--show training`: the lab, untrained. `--show training-early` and
    // `--show training-late`: a previous-token run of 300 steps, at its
    // second checkpoint and at its last. `--show race`: ÷√d_k against ÷1.
    // `--show induction`: below.
    m_host.registerView(QStringLiteral("training"), [this]() -> QWidget * {
        m_host.switchMode(this);
        return m_host.mainWindow();
    });
    auto picture = [this](bool late) -> QWidget * {
        m_host.switchMode(this);
        TrainSettings s;
        s.task = TrainTask::Previous;
        s.steps = 300;
        m_view->setSettings(s);
        if (trainToEnd())
            return nullptr;
        m_view->showCheckpoint(late ? m_view->scrubber()->maximum() : 1);
        return m_host.mainWindow();
    };
    m_host.registerView(QStringLiteral("training-early"), [picture] { return picture(false); });
    // `--show induction`: the induction preset (seed 1) to step 1,600, past
    // the jump at about 1,100, at its last checkpoint; `--show
    // induction-early`: the same run at the checkpoint nearest step 900,
    // on the plateau before the jump.
    auto induction = [this](bool early) -> QWidget * {
        m_host.switchMode(this);
        TrainSettings s;
        s.seed = 1;
        s.steps = 1600;
        m_view->setSettings(s);
        if (trainToEnd())
            return nullptr;
        const int last = m_view->scrubber()->maximum();
        m_view->showCheckpoint(early ? int(std::lround(last * 900.0 / s.steps)) : last);
        return m_host.mainWindow();
    };
    m_host.registerView(QStringLiteral("induction"), [induction] { return induction(false); });
    m_host.registerView(QStringLiteral("induction-early"), [induction] { return induction(true); });
    m_host.registerView(QStringLiteral("training-late"), [picture] { return picture(true); });
    m_host.registerView(QStringLiteral("race"), [this]() -> QWidget * {
        m_host.switchMode(this);
        TrainSettings s;
        s.task = TrainTask::Previous;
        s.layers = 1;
        s.heads = 2;
        s.dModel = 128;
        s.steps = 300;
        m_view->setSettings(s);
        m_view->tabs()->setCurrentIndex(1);
        if (raceToEnd(Scale::None))
            return nullptr;
        return m_host.mainWindow();
    });
}

QWidget *TrainingMode::centralWidget() const
{
    return m_view;
}

void TrainingMode::activate()
{
    m_action->setChecked(true);
}

void TrainingMode::deactivate()
{
    m_action->setChecked(false);
}

std::optional<Problem> TrainingMode::trainToEnd()
{
    if (auto p = m_view->startTraining())
        return p;
    QEventLoop loop;
    QString problem;
    connect(m_view->runner(), &TrainingRunner::finished, &loop, [&](bool, const QString &p) {
        problem = p;
        loop.quit();
    });
    loop.exec();
    if (!problem.isEmpty())
        return Problem{"training", problem.toStdString()};
    return std::nullopt;
}

std::optional<Problem> TrainingMode::raceToEnd(Scale against)
{
    if (auto p = m_view->startRace(against))
        return p;
    QEventLoop loop;
    auto check = [&](bool, const QString &) {
        if (!m_view->raceRunner(0)->isRunning() && !m_view->raceRunner(1)->isRunning())
            loop.quit();
    };
    connect(m_view->raceRunner(0), &TrainingRunner::finished, &loop, check);
    connect(m_view->raceRunner(1), &TrainingRunner::finished, &loop, check);
    loop.exec();
    return std::nullopt;
}

std::optional<Problem> TrainingMode::saveModel(int checkpoint, const QString &folder)
{
    if (auto p = m_view->saveCheckpoint(checkpoint, folder)) {
        m_host.showProblem(tr("The model was not saved: %1").arg(QString::fromStdString(p->toString()).simplified()));
        return p;
    }
    m_host.showMessage(tr("Saved the trained model to %1").arg(QDir::toNativeSeparators(folder)), 6000);
    return std::nullopt;
}

void TrainingMode::askAndSave(int checkpoint)
{
    const int step = checkpoint >= 0 && checkpoint < int(m_view->runner()->checkpoints().size())
        ? m_view->runner()->checkpoints()[std::size_t(checkpoint)].step
        : 0;
    const QString folder = QFileDialog::getSaveFileName(
        m_host.mainWindow(), tr("Save the trained model as a folder"),
        QDir(prefs::lastFolder.get())
            .filePath(QStringLiteral("trained-%1-step%2").arg(QLatin1String(toString(m_view->runner()->settings().task))).arg(step)),
        QString(), nullptr, QFileDialog::ShowDirsOnly);
    if (folder.isEmpty())
        return;
    saveModel(checkpoint, folder);
}

} // namespace attn
