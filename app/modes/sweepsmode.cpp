#include "sweepsmode.h"
#include "labmode.h"

#include "costpanel.h"
#include "sweeppanel.h"
#include "topkpanel.h"

#include <QAction>
#include <QMainWindow>
#include <QTabWidget>
#include <QToolBar>

namespace attn {

SweepsMode::SweepsMode(ModeHost &host) : Mode(host, host.mainWindow())
{
    // Two side tabs before the positional one (which stays last): the
    // sweeps with their entropy curve, and top-k beside the softmax.
    Document *doc = m_host.document();
    QTabWidget *tabs = m_host.lab()->sideTabs();
    m_sweepPanel = new SweepPanel(doc, tabs);
    m_sweepPanel->setPlanePanel(m_host.lab()->planePanel());
    tabs->insertTab(tabs->count() - 1, m_sweepPanel, tr("&Animate"));
    m_topKPanel = new TopKPanel(doc, tabs);
    tabs->insertTab(tabs->count() - 1, m_topKPanel, tr("Top-&k"));
    // What attention costs (the quiz's 关卡四 opens it).
    m_costPanel = new CostPanel(doc, tabs);
    tabs->insertTab(tabs->count() - 1, m_costPanel, tr("C&ost"));
    connect(m_sweepPanel, &SweepPanel::message, this, [this](const QString &text) { m_host.showMessage(text, 6000); });
    createToolBar();
    registerViews();
}

void SweepsMode::createToolBar()
{
    // A small toolbar a teacher finds: play the τ sweep or the query's turn.
    QToolBar *bar = m_toolBar = m_host.mainWindow()->addToolBar(tr("Animate"));
    bar->setObjectName(QStringLiteral("animateToolBar"));
    QAction *tau = bar->addAction(tr("▶ Sweep τ"), this, [this] {
        m_host.showSideTab(m_sweepPanel, false); // the maps follow the animation: they stay in view
        if (m_sweepPanel->isPlaying() && m_sweepPanel->mode() == SweepPanel::Mode::Temperature)
            m_sweepPanel->pause();
        else
            m_sweepPanel->playTemperature();
    });
    tau->setProperty("shortText", QStringLiteral("▶ τ"));
    tau->setToolTip(tr("Animate the temperature from 0.05 to 20 and back while the maps follow (the Animate tab)"));
    QAction *turn = bar->addAction(tr("▶ Turn the query"), this, [this] {
        m_host.showSideTab(m_sweepPanel, false); // the maps follow the animation: they stay in view
        if (m_sweepPanel->isPlaying() && m_sweepPanel->mode() == SweepPanel::Mode::Rotation)
            m_sweepPanel->pause();
        else
            m_sweepPanel->playTurn();
    });
    turn->setProperty("shortText", tr("▶ Turn"));
    turn->setToolTip(tr("Turn the selected query once around the origin while the maps follow"));
    QAction *stop = bar->addAction(tr("■ Stop"), m_sweepPanel, &SweepPanel::stop);
    stop->setProperty("shortText", QStringLiteral("■"));
    stop->setToolTip(tr("Stop the animation and put everything back as it was"));
    QAction *topk = bar->addAction(tr("Top-k"), this, [this] { m_host.showSideTab(m_topKPanel); });
    topk->setToolTip(tr("Hard against soft: each row's k largest weights only, and the hard k-NN average"));
}

void SweepsMode::registerViews()
{
    m_host.registerView(QStringLiteral("cost"), [this]() -> QWidget * {
        m_host.showSideTab(m_costPanel);
        return m_host.mainWindow();
    });
    // `--show sweep`: the τ sweep paused at a low τ (0.2), its curves beside the maps.
    m_host.registerView(QStringLiteral("sweep"), [this]() -> QWidget * {
        m_host.showSideTab(m_sweepPanel);
        m_sweepPanel->showTemperatureFrame(14);
        return m_host.mainWindow();
    });
    m_host.registerView(QStringLiteral("topk"), [this]() -> QWidget * {
        m_host.showSideTab(m_topKPanel);
        return m_host.mainWindow();
    });
}

QList<QToolBar *> SweepsMode::toolBars() const
{
    return {m_toolBar};
}

} // namespace attn
