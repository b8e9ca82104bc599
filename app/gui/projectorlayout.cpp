#include "projectorlayout.h"

#include "mode.h"
#include "mainwindow.h"

#include "classroommode.h"
#include "labmode.h"
#include "settingsactions.h"
#include "settingsbar.h"
#include "stageviews.h"
#include "steppanel.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QResizeEvent>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>

#include <limits>
#include <optional>

namespace attn {

ProjectorLayout::ProjectorLayout(MainWindow &window, LabMode &lab) : QObject(&window), m_window(window), m_lab(lab)
{
    // The projector layout follows the window's size and what the maps hold.
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    m_timer->setInterval(0);
    connect(m_timer, &QTimer::timeout, this, [this] { fit(std::exchange(m_pending, Refit::Grow)); });
    connect(window.document(), &Document::changed, this, [this](const DocumentChange &what) {
        if (what.any(ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings)) {
            m_lab.updateMapWidths(); // the titles name the settings
            schedule(Refit::Grow);
        }
    });
}

bool ProjectorLayout::bigScores() const
{
    // A lesson-sized scenario whose raw scores reach two digits (a head
    // taken from a model): its numbers need the maps' whole width.
    const Scenario &s = m_window.document()->scenario();
    if (queryCount(s) > 16 || keyCount(s) > 16)
        return false;
    for (const HeadTrace &h : m_window.document()->trace().heads)
        if (h.scores.size() && h.scores.cwiseAbs().maxCoeff() >= 10.0)
            return true;
    return false;
}

void ProjectorLayout::schedule(Refit how)
{
    // Below a projector's zoom only a model's head at lesson size is fitted
    // (scores near ±100 need wider cells than a lesson's); a large scenario
    // writes no numbers by design.
    if (m_window.zoom() < MainWindow::kProjectorZoom && !bigScores() && !m_lab.mapsTabbed() && !m_panelsFoldedByZoom
        && !(m_notice && m_notice->isVisible()))
        return; // nothing to fit and nothing to give back
    m_pending = std::max(m_pending, how);
    m_timer->start();
}

void ProjectorLayout::shown()
{
    createNotice();
    QTimer::singleShot(0, this, &ProjectorLayout::fitToolBarTexts);
    schedule(Refit::Tabs);
}

void ProjectorLayout::resized(QResizeEvent *event)
{
    fitToolBarTexts();
    if (m_fitting) {
        m_fitSizes.append(event->size());
    } else if (m_fitEnded.isValid() && m_fitEnded.elapsed() < 1000 && m_fitSizes.contains(event->size())) {
        return; // the window system's late echo of the fit's own steps (xcb): not the teacher's resize
    }
    // Grown by its layout's minimum (a larger font beside the panels), not
    // by the teacher: the size asked for comes back once the layout has
    // given the room (fit). Any other resize is the size asked for.
    const QSize was = event->oldSize(), now = event->size();
    const bool grown = was.isValid() && !m_window.isMaximized() && !m_window.isFullScreen()
        && ((now.width() > was.width() && now.width() == m_window.minimumWidth())
            || (now.height() > was.height() && now.height() == m_window.minimumHeight()));
    if (!grown)
        m_askedSize = QSize();
    else if (!m_askedSize.isValid())
        m_askedSize = was;
    if (m_fitting)
        return; // fit's own steps; it decides with the size they leave
    schedule(Refit::Tabs);
}

void ProjectorLayout::panelsChosen(bool shown)
{
    m_panelsFoldedByZoom = false;
    m_panelsChosen = shown;
    if (shown)
        createNotice();
    schedule(Refit::Tabs);
}

void ProjectorLayout::createNotice()
{
    if (m_notice)
        return;
    // One short line: at a projector's zoom the status bar holds little.
    m_notice = new QWidget(&m_window);
    m_notice->setObjectName(QStringLiteral("panelsNotice"));
    auto *row = new QHBoxLayout(m_notice);
    row->setContentsMargins(0, 0, 0, 0);
    auto *text = new QLabel(MainWindow::tr("The panels cost some maps their numbers"), m_notice);
    text->setStyleSheet(QStringLiteral("color: #8a4b00;"));
    auto *fold = new QToolButton(m_notice);
    fold->setObjectName(QStringLiteral("foldPanels"));
    fold->setText(MainWindow::tr("Fold them (F9)"));
    connect(fold, &QToolButton::clicked, this, [this] { m_window.setPanelsShownByUser(false); });
    row->addWidget(text);
    row->addWidget(fold);
    m_window.statusBar()->addPermanentWidget(m_notice);
    m_notice->hide();
    // At any zoom a panel opened beside the maps (the gradient lens) may
    // cost one its numbers: said once the docks have moved.
    auto *later = new QTimer(this);
    later->setSingleShot(true);
    later->setInterval(0);
    connect(later, &QTimer::timeout, this, &ProjectorLayout::updateNotice);
    for (QDockWidget *d : m_window.findChildren<QDockWidget *>())
        connect(d, &QDockWidget::visibilityChanged, later, qOverload<>(&QTimer::start));
}

void ProjectorLayout::updateNotice()
{
    if (!m_notice)
        return;
    bool panels = false;
    for (QDockWidget *d : m_window.findChildren<QDockWidget *>())
        panels = panels || (d->isVisible() && !d->isFloating());
    m_notice->setVisible(panels && m_window.isVisible() && m_window.currentMode() == m_window.lab()
                         && !m_window.mapsReadable());
}

void ProjectorLayout::fitToolBarTexts()
{
    // The first row's toolbars (Animate, A/B, Classroom): where their full
    // texts are wider than the window (a projector's zoom), the buttons show
    // short ones ("▶ τ", "Steps"), the full text stays in the menus and the
    // tooltips, so that what a lesson uses stays one click away, not in "»".
    // Measured without switching: each toolbar's width now, less the texts
    // shown, plus the full ones.
    QList<QAction *> actions;
    int full = 0;
    for (QToolBar *bar : m_window.findChildren<QToolBar *>()) {
        if (bar == m_lab.settingsBar() || bar->isHidden() || m_window.toolBarArea(bar) != Qt::TopToolBarArea)
            continue;
        full += bar->sizeHint().width();
        for (QAction *a : bar->actions()) {
            if (!a->property("shortText").isValid() || !a->isVisible())
                continue;
            actions << a;
            if (QWidget *button = bar->widgetForAction(a)) {
                const QFontMetrics fm(button->font());
                full += fm.horizontalAdvance(plainActionText(a)) - fm.horizontalAdvance(a->iconText());
            }
        }
    }
    const bool tight = full > m_window.width() - 24; // the row's handles and spacing
    if (tight == m_toolBarsShort)
        return;
    m_toolBarsShort = tight;
    for (QAction *a : actions) {
        if (tight) {
            // The tooltip names it in full (a tooltip not set shows the icon text).
            if (a->property("fullTip").isNull())
                a->setProperty("fullTip", a->toolTip());
            a->setToolTip(a->property("fullTip").toString());
            a->setIconText(a->property("shortText").toString());
        } else {
            a->setIconText(QString());
        }
    }
}

void ProjectorLayout::settle()
{
    // Docks folded and pages moved: their geometry now, not at the next
    // turn of the event loop, so that the maps are measured in the new room.
    for (int i = 0; i < 3; ++i) {
        QApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        if (m_window.layout())
            m_window.layout()->activate();
        if (m_window.centralWidget() && m_window.centralWidget()->layout())
            m_window.centralWidget()->layout()->activate();
        if (m_lab.mapsPage()->layout())
            m_lab.mapsPage()->layout()->activate();
    }
}

void ProjectorLayout::fit(Refit how)
{
    if (m_window.currentMode() != m_window.lab() || m_fitting) // the model mode and the training lab fit themselves
        return;
    m_fitting = true;
    m_fitSizes.clear();
    m_lab.updateMapWidths();
    fitToolBarTexts();
    const bool projector = m_window.zoom() >= MainWindow::kProjectorZoom;
    QTabWidget *tabs = m_lab.sideTabs();
    // A tab the teacher chose beside the Maps tab stays chosen.
    const QPointer<QWidget> shown = m_lab.mapsTabbed() ? tabs->currentWidget() : nullptr;
    // Back to the plain layout, then as much room as the maps need; below a
    // projector's zoom it stays plain.
    // A window no larger than when the maps went into the tabs has no more room.
    const bool larger = m_window.width() > m_tabbedAt.width() || m_window.height() > m_tabbedAt.height();
    if (how == Refit::All || !projector || (how == Refit::Tabs && larger))
        m_lab.setMapsTabbed(false);
    if ((how == Refit::All || !projector) && m_panelsFoldedByZoom) {
        m_panelsFoldedByZoom = false;
        for (const QPointer<QDockWidget> &d : std::exchange(m_foldedDocks, {}))
            if (d)
                d->show();
    }
    // Decided once the window has its size (showEvent and resizeEvent ask again).
    if (projector && m_window.isVisible()) {
        settle();
        // A projector's zoom: where the maps would drop their numbers, cut a
        // title or the weights' row notes, the layout gives them room, one
        // step at a time.
        bool changed = !m_panelsChosen && foldPanels();
        changed = tabMaps() || changed;
        if (m_lab.mapsTabbed() && !m_window.mapsReadable()) {
            chooseArrangement();
            changed = true;
        }
        if (changed && m_panelsFoldedByZoom && !m_window.classroom()->hidden())
            // Short: at this zoom the status bar holds one short line.
            m_window.statusBar()->showMessage(
                MainWindow::tr("Panels folded so that every map keeps its numbers; F9 brings them back"), 8000);
    } else if (m_window.isVisible() && bigScores() && !m_window.mapsReadable()) {
        // Below a projector's zoom the panels stay, but a lesson-sized map
        // still keeps its numbers (a model's head of scores near ±100 taken
        // into the lab): the maps take the width, the plane goes to a tab.
        settle();
        if (tabMaps() && !m_window.mapsReadable())
            chooseArrangement();
    }
    if (shown && shown != m_lab.mapsPage() && tabs->indexOf(shown) >= 0)
        tabs->setCurrentWidget(shown);
    // The window grew to the panels' minimum on the way: back to the size asked for.
    const QSize asked = std::exchange(m_askedSize, QSize());
    if (asked.isValid() && asked != m_window.size() && asked.expandedTo(m_window.minimumSize()) == asked)
        m_window.resize(asked);
    if ((projector || m_lab.mapsTabbed()) && m_window.isVisible())
        settle();
    updateNotice();
    m_fitting = false;
    m_fitEnded.start();
}

bool ProjectorLayout::foldPanels()
{
    // First the panels fold into the settings bar (F9 brings them back).
    if (m_window.mapsReadable() || !m_lab.settingsDock()->isVisible())
        return false;
    m_foldedDocks.clear();
    // A dock the class reads from the projector (the class session's join
    // code and answers) stays: only F9 folds it.
    for (QDockWidget *d : m_window.findChildren<QDockWidget *>())
        if (d->isVisible() && !d->property(kKeepDockAtZoom).toBool()) {
            m_foldedDocks.push_back(d);
            d->hide();
        }
    m_panelsFoldedByZoom = true;
    settle();
    return true;
}

bool ProjectorLayout::tabMaps()
{
    // Then the maps take the whole width, with the plane and the other
    // views in tabs beside the Maps tab.
    if (m_window.mapsReadable() || m_lab.mapsTabbed())
        return false;
    m_lab.setMapsTabbed(true);
    m_tabbedAt = m_askedSize.isValid() ? m_askedSize : m_window.size();
    settle();
    return true;
}

void ProjectorLayout::chooseArrangement()
{
    // Still short (zoom 2 on 1600x1000: three maps of five columns are
    // wider than the screen, and the output's rows too low for its
    // numbers): the arrangements of the Maps tab in turn, those with every
    // map in view first, until every map keeps its numbers; where none
    // does, the one that leaves the fewest maps short. The scaled and
    // masked scores share a place as tabs, then all three score maps do;
    // the rows' heights and the output's width vary within. Last of all
    // the formula bar folds (its terms are in the maps' titles): at zoom 2
    // on 1600x1000 two rows of five-row maps need its height for their numbers.
    struct Arrangement {
        int strip, share, output;
        bool formula;
    };
    std::vector<Arrangement> tried;
    for (bool formula : {true, false})
        for (int strip : {0, 2, 3})
            for (int share : {0, 1, 3, 2, 4})
                for (int output : {0, 1, 2})
                    tried.push_back({strip, share, output, formula});
    const auto arrange = [this](const Arrangement &a) {
        m_lab.setStrippedMaps(a.strip);
        m_lab.setBottomShare(a.share);
        m_lab.setOutputShare(a.output);
        m_lab.formulaBar()->setVisible(a.formula);
        settle();
    };
    std::optional<Arrangement> best;
    int fewest = std::numeric_limits<int>::max();
    const CellTextMode cellText = m_window.cellTextMode();
    for (const Arrangement &a : tried) {
        arrange(a);
        // One that needs a wider window than the one asked for (three
        // titles side by side) does not count: the window would grow off
        // the screen.
        const QSize room = m_askedSize.isValid() ? m_askedSize : m_window.size();
        const QSize least = m_window.minimumSizeHint();
        const int short_ = least.width() > room.width() || least.height() > room.height()
            ? int(m_lab.stageViews().size()) + 1
            : m_lab.unreadableMaps(cellText, fewest);
        if (short_ < fewest) {
            fewest = short_;
            best = a;
        }
        if (short_ == 0)
            break;
    }
    if (best && fewest > 0)
        arrange(*best);
}

} // namespace attn
