#include "foldermode.h"

#include "labmode.h"
#include "preferences.h"

#include <QAction>
#include <QEventLoop>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>

namespace attn {

FolderMode::FolderMode(ModeHost &host, QWidget *view, const Names &names, const Words &words)
    : Mode(host, host.mainWindow()), m_view(view), m_names(names), m_words(words)
{
    m_view->hide();
    m_action = new QAction(m_words.viewAction, m_host.mainWindow());
    m_action->setObjectName(m_names.viewAction);
    m_action->setCheckable(true);
    m_action->setShortcut(m_names.shortcut);
    m_action->setToolTip(m_words.viewTip);
    connect(m_action, &QAction::triggered, this,
            [this](bool on) { m_host.switchMode(on ? static_cast<Mode *>(this) : m_host.lab()); });
    if (QMenu *menu = m_host.menu(QStringLiteral("viewMenu")))
        menu->addAction(m_action);

    m_open = new QAction(m_words.openAction, m_host.mainWindow());
    m_open->setObjectName(m_names.openAction);
    m_open->setToolTip(m_words.openTip);
    connect(m_open, &QAction::triggered, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(m_host.mainWindow(), m_words.dialogTitle, prefs::lastFolder.get());
        if (folder.isEmpty())
            return;
        m_host.switchMode(this);
        startLoading(folder);
    });
    if (QMenu *file = m_host.menu(QStringLiteral("fileMenu"))) {
        const QList<QAction *> actions = file->actions();
        QAction *before = nullptr;
        for (int i = 0; i + 1 < actions.size(); ++i)
            if (actions[i]->objectName() == m_names.openAfter)
                before = actions[i + 1];
        file->insertAction(before, m_open);
    }

    m_host.registerView(m_names.mode, [this]() -> QWidget * {
        m_host.switchMode(this);
        return m_host.mainWindow();
    });
}

void FolderMode::activate()
{
    m_action->setChecked(true);
    if (auto p = ensureModel())
        m_host.showProblem(m_words.builtinFailed.arg(QString::fromStdString(p->toString())));
}

void FolderMode::deactivate()
{
    m_action->setChecked(false);
}

void FolderMode::loaded(const QString &name)
{
    m_lastProblem.reset();
    m_host.showMessage(m_words.opened.arg(name), 5000);
    emit loadEnded();
}

void FolderMode::failed(const QString &message)
{
    m_lastProblem = Problem{"", message.toStdString()};
    m_host.showProblem(m_words.notOpened.arg(message));
    emit loadEnded();
}

std::optional<Problem> FolderMode::openFolder(const QString &folder)
{
    m_host.switchMode(this);
    QEventLoop loop;
    const auto c = connect(this, &FolderMode::loadEnded, &loop, &QEventLoop::quit);
    m_lastProblem.reset();
    startLoading(folder);
    if (isLoading())
        loop.exec();
    disconnect(c);
    if (m_lastProblem)
        return Problem{folder.toStdString(), m_lastProblem->message};
    return std::nullopt;
}

} // namespace attn
