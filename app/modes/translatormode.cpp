#include "translatormode.h"

#include "translatorview.h"
#include "labmode.h"
#include "modelmode.h"
#include "preferences.h"

#include <QAction>
#include <QEventLoop>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>

namespace attn {

TranslatorMode::TranslatorMode(ModeHost &host, ModelMode &model) : Mode(host, host.mainWindow()), m_model(model)
{
    m_view = new TranslatorView(m_host.mainWindow());
    m_view->hide();
    connect(m_view, &TranslatorView::takeHeadRequested, this,
            [this](const Scenario &head, const QString &description) { m_model.takeHeadIntoLab(head, description); });
    connect(m_view, &TranslatorView::failed, this,
            [this](const QString &message) { m_host.showProblem(tr("The encoder-decoder was not opened: %1").arg(message)); });
    connect(m_view, &TranslatorView::loaded, this,
            [this](const QString &name) { m_host.showMessage(tr("Opened the encoder-decoder %1").arg(name), 5000); });

    m_action = new QAction(tr("Encoder-deco&der (BART)"), m_host.mainWindow());
    m_action->setObjectName(QStringLiteral("translatorAction"));
    m_action->setCheckable(true);
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_J));
    m_action->setToolTip(tr("A model that translates: the encoder reads, the decoder writes, cross-attention links them"));
    connect(m_action, &QAction::triggered, this,
            [this](bool on) { m_host.switchMode(on ? static_cast<Mode *>(this) : m_host.lab()); });
    if (QMenu *view = m_host.menu(QStringLiteral("viewMenu")))
        view->addAction(m_action);

    m_open = new QAction(tr("Open encoder-decoder…"), m_host.mainWindow());
    m_open->setObjectName(QStringLiteral("openTranslatorAction"));
    m_open->setToolTip(tr("A BART folder in the Hugging Face layout: config.json, model.safetensors, vocab.json, merges.txt"));
    connect(m_open, &QAction::triggered, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(m_host.mainWindow(), tr("Open an encoder-decoder folder"),
                                                                 prefs::lastFolder.get());
        if (folder.isEmpty())
            return;
        m_host.switchMode(this);
        m_view->openFolder(folder);
    });
    if (QMenu *file = m_host.menu(QStringLiteral("fileMenu"))) {
        // Beside "Open encoder…".
        const QList<QAction *> actions = file->actions();
        QAction *before = nullptr;
        for (int i = 0; i + 1 < actions.size(); ++i)
            if (actions[i]->objectName() == QLatin1String("openEncoderAction"))
                before = actions[i + 1];
        file->insertAction(before, m_open);
    }

    m_host.registerView(QStringLiteral("translator"), [this]() -> QWidget * {
        m_host.switchMode(this);
        return m_host.mainWindow();
    });
}

QWidget *TranslatorMode::centralWidget() const
{
    return m_view;
}

void TranslatorMode::activate()
{
    m_action->setChecked(true);
    if (auto p = m_view->ensureModel())
        m_host.showProblem(tr("The built-in encoder-decoder did not load: %1").arg(QString::fromStdString(p->toString())));
}

void TranslatorMode::deactivate()
{
    m_action->setChecked(false);
}

std::optional<Problem> TranslatorMode::openFolder(const QString &folder)
{
    m_host.switchMode(this);
    QEventLoop loop;
    std::optional<Problem> problem;
    auto a = connect(m_view, &TranslatorView::loaded, &loop, [&](const QString &) { loop.quit(); });
    auto b = connect(m_view, &TranslatorView::failed, &loop, [&](const QString &m) {
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
