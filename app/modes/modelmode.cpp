#include "modelmode.h"
#include "labmode.h"
#include "preferences.h"

#include "atomicwrite.h"
#include "document.h"
#include "generationpanel.h"
#include "modelloader.h"
#include "modelview.h"
#include "sinkview.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QScrollArea>
#include <QTimer>

namespace attn {

ModelMode::ModelMode(ModeHost &host) : Mode(host, host.mainWindow())
{
    m_view = new ModelView(m_host.mainWindow());
    connect(m_view, &ModelView::leaveRequested, this, [this] { m_host.switchMode(m_host.lab()); });
    connect(m_view, &ModelView::takeHeadRequested, this,
            [this](const Scenario &head, const QString &description) { takeHeadIntoLab(head, description); });
    connect(m_view, &ModelView::exportRequested, this, &ModelMode::exportFigure);
    createAction();
    createGeneration();

    // `--show model`: the built-in model reading a sentence where its
    // induction head (layer 2, head 1) has something to copy.
    m_host.registerView(QStringLiteral("model"), [this]() -> QWidget * {
        if (!m_view->model() && openBuiltinModel())
            return nullptr;
        m_host.switchMode(this);
        return m_host.mainWindow();
    });
    // `--show taken-head`: layer 2, head 1 reading a short repeat, taken
    // into the lab as the button does it.
    m_host.registerView(QStringLiteral("taken-head"), [this]() -> QWidget * {
        if (!m_view->model() && openBuiltinModel())
            return nullptr;
        m_host.switchMode(this);
        m_view->setText(QStringLiteral("say cat red box . say cat red"));
        m_view->setHead(1, 0);
        m_view->takeButton()->click();
        return m_host.mainWindow();
    });
    // `--show sinks`: the "Sinks" tab on the built-in model's own text
    // (seed 2026, window 8, 4 sinks: docs/model.md's table).
    // `--show knockout`: the four induction heads of layer 2 knocked out
    // while the model reads a repeat; `--show knockout-scores`: the broad
    // layer 1, head 4 knocked out, and every head's scores after it.
    auto knockout = [this](std::vector<HeadAblation> heads, bool scores) -> QWidget * {
        if (!m_view->model() && openBuiltinModel())
            return nullptr;
        m_host.switchMode(this);
        m_view->setText(QStringLiteral("say cat red box . say cat red"));
        m_view->setHead(1, 0);
        m_view->setAblations(std::move(heads));
        if (scores)
            m_view->headTabs()->setCurrentIndex(2); // Head scores
        return m_host.mainWindow();
    };
    m_host.registerView(QStringLiteral("knockout"), [knockout] {
        return knockout({{1, 0, {}}, {1, 1, {}}, {1, 2, {}}, {1, 3, {}}}, false);
    });
    m_host.registerView(QStringLiteral("knockout-scores"), [knockout] { return knockout({{0, 3, {}}}, true); });
    m_host.registerView(QStringLiteral("sinks"), [this]() -> QWidget * {
        if (!m_view->model() && openBuiltinModel())
            return nullptr;
        m_host.switchMode(this);
        m_view->headTabs()->setCurrentWidget(m_view->sinkTab());
        m_view->sinkView()->waitForResult();
        return m_host.mainWindow();
    });
}

void ModelMode::createAction()
{
    m_action = new QAction(tr("&Model mode"), m_host.mainWindow());
    m_action->setObjectName(QStringLiteral("modelMode"));
    m_action->setCheckable(true);
    m_action->setToolTip(tr("A real transformer reading a sentence: every layer and head (the built-in model unless you opened one)"));
    connect(m_action, &QAction::triggered, this, [this](bool on) {
        if (on && !m_view->model() && openBuiltinModel()) {
            m_action->setChecked(false);
            return;
        }
        m_host.switchMode(on ? static_cast<Mode *>(this) : m_host.lab());
    });
    if (QMenu *view = m_host.menu(QStringLiteral("viewMenu"))) {
        QAction *before = nullptr;
        for (QAction *a : view->actions())
            if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L)) // after the √d_k lab
                before = a;
        const int at = view->actions().indexOf(before);
        view->insertAction(at >= 0 && at + 1 < view->actions().size() ? view->actions()[at + 1] : nullptr, m_action);
    }
}

void ModelMode::createGeneration()
{
    QMainWindow *window = m_host.mainWindow();
    m_generation = new GenerationPanel(m_view, window);
    m_generationDock = new QDockWidget(tr("Generate"), window);
    m_generationDock->setObjectName(QStringLiteral("generationDock"));
    // Scrolled, so that a projector's zoom does not make the window taller.
    auto *scroll = new QScrollArea(m_generationDock);
    scroll->setWidget(m_generation);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_generationDock->setWidget(scroll);
    m_generationDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable
                                  | QDockWidget::DockWidgetClosable);
    window->addDockWidget(Qt::RightDockWidgetArea, m_generationDock);
    m_generationDock->hide();
    if (QMenu *view = m_host.menu(QStringLiteral("viewMenu"))) {
        m_generationAction = new QAction(tr("Generate &token by token"), this);
        m_generationAction->setObjectName(QStringLiteral("generationAction"));
        m_generationAction->setToolTip(tr("The model writes on, one token a step: the distribution of each next token, "
                                          "and the KV cache that spares it the whole triangle"));
        connect(m_generationAction, &QAction::triggered, this, [this] { showGeneration(); });
        const QList<QAction *> actions = view->actions();
        const int at = actions.indexOf(m_action);
        view->insertAction(at >= 0 && at + 1 < actions.size() ? actions[at + 1] : nullptr, m_generationAction);
    }
    // `--show generate`: the built-in model continuing "the cat" for eight
    // seeded steps, the last step's distribution in the dock.
    m_host.registerView(QStringLiteral("generate"), [this]() -> QWidget * {
        if (showGeneration())
            return nullptr;
        m_view->setText(QStringLiteral("the cat"));
        SamplingSettings s;
        s.steps = 8;
        s.temperature = 0.8;
        s.topK = 5;
        s.seed = 1;
        m_generation->setSettings(s);
        m_generation->reset();
        for (int i = 0; i < s.steps; ++i)
            m_generation->step();
        return m_host.mainWindow();
    });
}

std::optional<Problem> ModelMode::showGeneration()
{
    if (!m_view->model())
        if (auto p = openBuiltinModel())
            return p;
    m_host.switchMode(this);
    const bool wasHidden = m_generationDock->isHidden();
    m_generationDock->show();
    m_generationDock->raise();
    // Room for the settings and the bars with their numbers beside them.
    if (wasHidden && !m_generationDock->isFloating())
        QTimer::singleShot(0, this, [this] {
            // At a projector's zoom the maps keep most of the width.
            const int width = std::min(m_generation->fontMetrics().averageCharWidth() * 52, m_host.mainWindow()->width() * 2 / 7);
            m_host.mainWindow()->resizeDocks({m_generationDock}, {width}, Qt::Horizontal);
        });
    return std::nullopt;
}

QWidget *ModelMode::centralWidget() const
{
    return m_view;
}

void ModelMode::activate()
{
    m_view->sentenceField()->setFocus();
    m_action->setChecked(true);
}

void ModelMode::deactivate()
{
    m_action->setChecked(false);
    m_generation->pause();
    m_generationDock->hide();
}

// The load runs on a worker thread (a big model takes seconds); this waits
// for it in a local event loop, so the window keeps painting and the
// progress dialog's Cancel is heard, while callers keep a plain answer.
ModelOrProblem ModelMode::load(const QString &folder, const QString &name)
{
    if (m_loading)
        return Problem{std::string(), tr("a model is being opened; wait for it or cancel it").toStdString()};
    m_loading = true;
    ModelLoader loader;
    QProgressDialog *dialog = nullptr;
    if (m_host.interactive()) {
        dialog = new QProgressDialog(tr("Opening the model %1…").arg(name), tr("Cancel"), 0, 100, m_host.mainWindow());
        dialog->setWindowModality(Qt::WindowModal);
        dialog->setMinimumDuration(300);
        dialog->setAutoReset(false);
        connect(dialog, &QProgressDialog::canceled, &loader, &ModelLoader::cancel);
        connect(&loader, &ModelLoader::progress, dialog, [dialog](double f) { dialog->setValue(int(f * 100)); });
    }
    QEventLoop loop;
    ModelOrProblem result = Problem{folder.toStdString(), kLoadCancelled};
    connect(&loader, &ModelLoader::finished, &loop,
            [&](std::shared_ptr<const Gpt2Model> model, const Problem &problem) {
                if (model)
                    result = std::move(model);
                else
                    result = problem;
                loop.quit();
            });
    if (loader.start(folder))
        loop.exec();
    delete dialog;
    m_loading = false;
    return result;
}

std::optional<Problem> ModelMode::openModel(const QString &folder)
{
    const QString shownName = QFileInfo(folder).fileName().isEmpty() ? folder : QFileInfo(folder).fileName();
    const ModelOrProblem loaded = load(folder, shownName);
    if (const auto *p = std::get_if<Problem>(&loaded)) {
        const QString name = QFileInfo(folder).fileName().isEmpty() ? folder : QFileInfo(folder).fileName();
        const QString message = tr("The model %1 was not opened: %2").arg(name, problemText(*p));
        m_host.showProblem(message);
        if (m_host.interactive())
            QMessageBox::warning(m_host.mainWindow(), tr("Cannot open the model %1").arg(name), message);
        return Problem{std::string(), message.toStdString()};
    }
    m_view->setModel(std::get<std::shared_ptr<const Gpt2Model>>(loaded));
    if (m_view->text().trimmed().isEmpty())
        m_view->setText(QStringLiteral("the cat sat on the mat . the cat sat on the mat ."));
    prefs::lastFolder.set(QFileInfo(folder).absolutePath());
    m_host.switchMode(this);
    m_host.showMessage(tr("Opened the model %1").arg(QDir::toNativeSeparators(folder)), 4000);
    return std::nullopt;
}

std::optional<Problem> ModelMode::openBuiltinModel()
{
    if (m_view->model() && m_view->model()->folder == QLatin1String(kBuiltinModelFolder))
        return std::nullopt;
    const ModelOrProblem loaded = load(QLatin1String(kBuiltinModelFolder), tr("built in"));
    if (const auto *p = std::get_if<Problem>(&loaded)) {
        const QString message = tr("The built-in model was not opened: %1").arg(problemText(*p));
        m_host.showProblem(message);
        return Problem{std::string(), message.toStdString()};
    }
    m_view->setModel(std::get<std::shared_ptr<const Gpt2Model>>(loaded));
    if (m_view->text().trimmed().isEmpty()) {
        // The induction head (layer 2, head 1) copies the span's second
        // time: from "red" it looks at "box", the token the model then predicts.
        m_view->setText(QStringLiteral("say cat red box . say cat red"));
        m_view->setHead(1, 0);
    }
    return std::nullopt;
}

void ModelMode::showModel(std::shared_ptr<const Gpt2Model> model, const QString &text)
{
    const QString name = model->name;
    m_view->setModel(std::move(model));
    m_view->setText(text);
    m_host.switchMode(this);
    m_host.showMessage(tr("The model %1 from the training lab").arg(name), 4000);
}

std::optional<Problem> ModelMode::takeHeadIntoLab(const Scenario &head, const QString &description)
{
    Document *doc = m_host.document();
    if (auto p = doc->edit(head, description)) {
        m_host.showProblem(problemText(*p)); // the document refused it and stays as it was
        return p;
    }
    doc->setCurrentHead(0);
    m_host.switchMode(m_host.lab());
    m_host.showMessage(tr("%1 is now the lab's document; Edit ▸ Undo brings back what was open before")
                           .arg(QString::fromStdString(head.title)),
                       8000);
    return std::nullopt;
}

void ModelMode::exportFigure(ModelFigure what)
{
    const QString path = QFileDialog::getSaveFileName(
        m_host.mainWindow(), tr("Export figure"),
        QDir(prefs::lastFolder.get()).filePath(m_view->figureStem(what) + QStringLiteral(".png")),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    const FigureFormat format = figureFormatFromName(QFileInfo(path).suffix()).value_or(FigureFormat::Png);
    FigureSize size;
    if (what == ModelFigure::Overview)
        size.width = 1200, size.height = 900;
    const QByteArray bytes = m_view->figure(what, m_host.figureStyle(), format, size);
    if (bytes.isEmpty()) {
        m_host.exportFailed(tr("Nothing to export yet: type a sentence the model can read"));
        return;
    }
    if (const auto p = writeFileAtomically(path, bytes))
        m_host.exportFailed(problemText(*p));
    else
        m_host.showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 4000);
}

} // namespace attn
