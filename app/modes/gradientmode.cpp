#include "gradientmode.h"
#include "labmode.h"

#include "gradientlens.h"
#include "gradientpanel.h"
#include "planepanel.h"

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QTimer>

namespace attn {

GradientMode::GradientMode(ModeHost &host) : Mode(host, host.mainWindow())
{
    QMainWindow *window = m_host.mainWindow();
    PlanePanel *plane = m_host.lab()->planePanel();
    m_lens = new GradientLens(m_host.document(), this);
    m_panel = new GradientPanel(m_host.document(), m_lens, plane, window);
    m_dock = new QDockWidget(tr("Gradient lens"), window);
    m_dock->setObjectName(QStringLiteral("gradientDock"));
    m_dock->setWidget(m_panel);
    m_dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable
                        | QDockWidget::DockWidgetClosable);
    window->addDockWidget(Qt::RightDockWidgetArea, m_dock);
    m_dock->hide();

    // The plane draws the lens's arrows: it asks the lens each time it draws.
    plane->setGradientSource([lens = m_lens](MatrixId queries, MatrixId keys) { return lens->planeGradient(queries, keys); });
    connect(m_lens, &GradientLens::changed, plane, &PlanePanel::refresh);
    // A closed dock takes its arrows with it.
    connect(m_dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (!visible && !m_dock->isVisible())
            m_lens->setArrowsShown(false);
    });

    if (QMenu *view = m_host.menu(QStringLiteral("viewMenu"))) {
        m_action = new QAction(tr("&Gradient lens"), this);
        m_action->setObjectName(QStringLiteral("gradientLensAction"));
        m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
        m_action->setToolTip(tr("The gradients of a loss you choose beside the maps, and gradient descent on the plane"));
        connect(m_action, &QAction::triggered, this, &GradientMode::showLens);
        view->addAction(m_action);
    }
    // `--show gradients`: the lens and the plane, as the menu shows them.
    m_host.registerView(QStringLiteral("gradients"), [this]() -> QWidget * {
        showLens();
        return m_host.mainWindow();
    });
    // `--show descent`: seed 000's query turned towards its second key,
    // "make every query attend to" it, by a descent of 30 steps with its curve.
    m_host.registerView(QStringLiteral("descent"), [this]() -> QWidget * {
        showLens();
        m_lens->setKind(GradientLens::Kind::Attend);
        m_lens->setToken(1);
        m_panel->setMaxSteps(30);
        m_panel->descendAtOnce();
        return m_host.mainWindow();
    });
}

void GradientMode::showLens()
{
    const bool wasHidden = m_dock->isHidden();
    m_dock->show();
    m_dock->raise();
    // Room for two maps side by side with their numbers.
    if (wasHidden && !m_dock->isFloating())
        QTimer::singleShot(0, this, [this] {
            m_host.mainWindow()->resizeDocks({m_dock}, {m_panel->fontMetrics().averageCharWidth() * 62}, Qt::Horizontal);
        });
    m_host.showSideTab(m_host.lab()->planePanel()); // over the maps too: the lens has the numbers
    m_lens->setArrowsShown(m_panel->arrowsBox()->isChecked());
}

QList<QDockWidget *> GradientMode::dockWidgets() const
{
    return {m_dock};
}

} // namespace attn
