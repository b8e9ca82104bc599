#include "encodermode.h"

#include "encoderview.h"
#include "labmode.h"
#include "modelmode.h"
#include "preferences.h"

#include <QAction>
#include <QEventLoop>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>

namespace attn {

EncoderMode::EncoderMode(ModeHost &host, ModelMode &model) : Mode(host, host.mainWindow()), m_model(model)
{
    m_view = new EncoderView(m_host.mainWindow());
    m_view->hide();
    connect(m_view, &EncoderView::takeHeadRequested, this,
            [this](const Scenario &head, const QString &description) { m_model.takeHeadIntoLab(head, description); });
    connect(m_view, &EncoderView::failed, this,
            [this](const QString &message) { m_host.showProblem(tr("The encoder was not opened: %1").arg(message)); });
    connect(m_view, &EncoderView::loaded, this,
            [this](const QString &name) { m_host.showMessage(tr("Opened the encoder %1").arg(name), 5000); });

    m_action = new QAction(tr("&Encoder (BERT)"), m_host.mainWindow());
    m_action->setObjectName(QStringLiteral("encoderAction"));
    m_action->setCheckable(true);
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    m_action->setToolTip(tr("A model that reads both ways and fills in a masked word"));
    connect(m_action, &QAction::triggered, this,
            [this](bool on) { m_host.switchMode(on ? static_cast<Mode *>(this) : m_host.lab()); });
    if (QMenu *view = m_host.menu(QStringLiteral("viewMenu")))
        view->addAction(m_action);

    m_open = new QAction(tr("Open &encoder…"), m_host.mainWindow());
    m_open->setObjectName(QStringLiteral("openEncoderAction"));
    m_open->setToolTip(tr("A BERT folder in the Hugging Face layout: config.json, model.safetensors, vocab.txt"));
    connect(m_open, &QAction::triggered, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(m_host.mainWindow(), tr("Open an encoder folder"),
                                                                 prefs::lastFolder.get());
        if (folder.isEmpty())
            return;
        m_host.switchMode(this);
        m_view->openFolder(folder);
    });
    if (QMenu *file = m_host.menu(QStringLiteral("fileMenu"))) {
        // Beside "Open model…".
        const QList<QAction *> actions = file->actions();
        QAction *before = nullptr;
        for (int i = 0; i + 1 < actions.size(); ++i)
            if (actions[i]->objectName() == QLatin1String("openModelAction"))
                before = actions[i + 1];
        file->insertAction(before, m_open);
    }

    m_host.registerView(QStringLiteral("encoder"), [this]() -> QWidget * {
        m_host.switchMode(this);
        return m_host.mainWindow();
    });
}

QWidget *EncoderMode::centralWidget() const
{
    return m_view;
}

void EncoderMode::activate()
{
    m_action->setChecked(true);
    if (auto p = m_view->ensureModel())
        m_host.showProblem(tr("The built-in encoder did not load: %1").arg(QString::fromStdString(p->toString())));
}

void EncoderMode::deactivate()
{
    m_action->setChecked(false);
}

std::optional<Problem> EncoderMode::openFolder(const QString &folder)
{
    m_host.switchMode(this);
    QEventLoop loop;
    std::optional<Problem> problem;
    auto a = connect(m_view, &EncoderView::loaded, &loop, [&](const QString &) { loop.quit(); });
    auto b = connect(m_view, &EncoderView::failed, &loop, [&](const QString &m) {
        problem = Problem{folder.toStdString(), m.toStdString()};
        loop.quit();
    });
    m_view->openFolder(folder);
    if (m_view->isLoading())
        loop.exec();
    disconnect(a);
    disconnect(b);
    return problem;
}

} // namespace attn
