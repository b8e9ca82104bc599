#include "labmode.h"
#include "sidetabs.h"

#include "document.h"
#include "formula.h"
#include "matrixpanel.h"
#include "planepanel.h"
#include "settingsactions.h"
#include "settingsbar.h"
#include "stageviews.h"
#include "togglepanel.h"

#include <QApplication>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QMainWindow>
#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

namespace attn {

namespace {
// The bottom row's shares: the weights map, the output map, the side tabs.
constexpr int kWeightsStretch = 5, kOutputStretch = 3, kSideTabsStretch = 4;
} // namespace

LabMode::LabMode(ModeHost &host) : Mode(host, host.mainWindow())
{
    m_settings = new SettingsActions(m_host.document(), m_host.mainWindow());
    connect(m_settings, &SettingsActions::message, this, [this](const QString &text) { m_host.showProblem(text); });
    createMaps();
    createSideTabs();
    createDocks();
    // What a click on a map did (selected a query, or Ctrl: blocked a cell).
    for (StageView *v : m_stages)
        connect(v, &StageView::message, this, [this](const QString &text) { m_host.showMessage(text, 4000); });
}

void LabMode::createMaps()
{
    Document *doc = m_host.document();
    m_central = new QWidget(m_host.mainWindow());
    auto *layout = m_centralLayout = new QVBoxLayout(m_central);
    layout->setContentsMargins(4, 4, 4, 4);
    m_formula = new FormulaBar(doc, m_central);
    layout->addWidget(m_formula);

    // Two rows: the three score stages side by side; under them the weights,
    // the output and the side tabs. The weights map, the one a class reads
    // most and the one with a column of row notes, gets the widest share;
    // the output (usually a few value dimensions) the narrowest.
    // The maps live on a page of their own: at a projector's zoom the page
    // becomes the first of the side tabs, and the maps get the whole width
    // (setMapsTabbed).
    m_mapsPage = new QWidget(m_central);
    m_mapsPage->setObjectName(QStringLiteral("mapsPage"));
    m_mapRows = new QVBoxLayout(m_mapsPage);
    m_mapRows->setContentsMargins(0, 0, 0, 0);
    m_mapRows->setSpacing(4);
    m_topRow = new QHBoxLayout;
    m_bottomRow = new QHBoxLayout;
    m_topRow->setSpacing(4);
    m_bottomRow->setSpacing(4);
    const Stage stages[] = {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output};
    const int bottomStretch[] = {kWeightsStretch, kOutputStretch};
    for (int i = 0; i < 5; ++i) {
        auto *view = new StageView(doc, stages[i], m_mapsPage);
        view->setMinimumSize(220, 180);
        m_stages.push_back(view);
        if (i < 3)
            m_topRow->addWidget(view, 1);
        else
            m_bottomRow->addWidget(view, bottomStretch[i - 3]);
    }
    // Where the top row has no room for three score maps (a projector's
    // zoom on a small screen), some of them share a place as tabs.
    m_stageStrip = new QTabWidget(m_mapsPage);
    m_stageStrip->setObjectName(QStringLiteral("stageStrip"));
    m_stageStrip->setDocumentMode(true);
    m_stageStrip->hide();
}

void LabMode::createSideTabs()
{
    Document *doc = m_host.document();
    m_sideBox = new SideTabs(m_mapsPage);
    QTabWidget *tabs = m_sideBox->tabs();
    m_planePanel = new PlanePanel(doc, tabs);
    tabs->addTab(m_planePanel, tr("Vector &plane"));
    tabs->addTab(new AllHeadsView(doc, tabs), tr("All &heads"));
    tabs->addTab(new ConcatView(doc, tabs), tr("&Concat → output"));
    tabs->addTab(new PositionalView(doc, tabs), tr("Positional &encoding"));
    m_bottomRow->addWidget(m_sideBox, kSideTabsStretch);
    m_mapRows->addLayout(m_topRow, 1);
    m_mapRows->addLayout(m_bottomRow, 1);
    // Where the lesson's handout prints a wrong number: said under the maps that show it.
    m_mapRows->addWidget(new MisprintNote(doc, m_mapsPage));
    m_centralLayout->addWidget(m_mapsPage, 1);
    m_host.mainWindow()->setCentralWidget(m_central);
}

void LabMode::createDocks()
{
    Document *doc = m_host.document();
    QMainWindow *window = m_host.mainWindow();
    m_matrices = new MatrixPanel(doc, window);
    auto *inputs = m_inputsDock = new QDockWidget(tr("Inputs"), window);
    inputs->setObjectName(QStringLiteral("inputsDock"));
    // In a scroll area: the tables' toolbar would otherwise hold the window
    // wider than a 1280 px screen with the panels shown.
    auto *inputsScroll = new QScrollArea(window);
    inputsScroll->setWidget(m_matrices);
    inputsScroll->setWidgetResizable(true);
    inputsScroll->setFrameShape(QFrame::NoFrame);
    inputsScroll->setMinimumWidth(200);
    inputs->setWidget(inputsScroll);
    inputs->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable
                        | QDockWidget::DockWidgetClosable);
    window->addDockWidget(Qt::LeftDockWidgetArea, inputs);

    m_toggles = new TogglePanel(doc, m_settings, window);
    auto *scroll = new QScrollArea(window);
    scroll->setWidget(m_toggles);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    // Its rows wrap: it scrolls down, never sideways, and is never narrower
    // than its widest word or button (the zoom changes that width).
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_settingsScroll = scroll;
    fitSettingsWidth();
    auto *settings = m_settingsDock = new QDockWidget(tr("Settings"), window);
    settings->setObjectName(QStringLiteral("settingsDock"));
    settings->setWidget(scroll);
    settings->setFeatures(inputs->features());
    window->addDockWidget(Qt::LeftDockWidgetArea, settings); // under the inputs: the maps get the width
    window->resizeDocks({inputs, settings}, {340, 560}, Qt::Vertical);
    window->resizeDocks({inputs}, {400}, Qt::Horizontal);

    // Whenever the settings panel is hidden (maps only, F9, or the
    // projector layout), its settings stay one click away in a compact row.
    // Added to the window last, on a row of its own (placeSettingsBar).
    m_settingsBar = new SettingsBar(doc, m_settings, window);
    m_settingsBar->hide();
    connect(settings, &QDockWidget::visibilityChanged, this, [this] {
        if (!m_host.currentMode() || m_host.currentMode() == this) // not while the model mode hides the docks
            m_settingsBar->setVisible(!m_settingsDock->isVisible());
    });
}

QList<QDockWidget *> LabMode::dockWidgets() const
{
    return {m_inputsDock, m_settingsDock};
}

QList<QToolBar *> LabMode::toolBars() const
{
    return {m_settingsBar};
}

void LabMode::placeSettingsBar()
{
    // Its own row, under the other toolbars: sharing a row with the Classroom
    // and Animate toolbars, a projector's zoom pushed τ into the "»" overflow.
    // Also after restoreState, whose saved layout may predate that row.
    QMainWindow *window = m_host.mainWindow();
    const bool shown = !m_settingsBar->isHidden();
    if (window->toolBarArea(m_settingsBar) != Qt::NoToolBarArea)
        window->removeToolBar(m_settingsBar);
    window->addToolBarBreak(Qt::TopToolBarArea);
    window->addToolBar(Qt::TopToolBarArea, m_settingsBar);
    m_settingsBar->setVisible(shown);
}

PlanePlot *LabMode::vectorPlane() const
{
    return m_planePanel->plane();
}

StageView *LabMode::stageView(Stage stage) const
{
    for (StageView *v : m_stages)
        if (v->stage() == stage)
            return v;
    return nullptr;
}

QTabWidget *LabMode::sideTabs() const
{
    return m_sideBox->tabs();
}

void LabMode::showSideTab(QWidget *page, bool overMaps)
{
    // With the maps in the side tabs (a projector's zoom), what follows the
    // maps (an animation, step mode, an encoding turned on) leaves them in view.
    if (!overMaps && mapsTabbed() && sideTabs()->currentWidget() == m_mapsPage)
        return;
    sideTabs()->setCurrentWidget(page);
}

void LabMode::showStage(Stage stage)
{
    StageView *view = stageView(stage);
    if (mapsTabbed())
        sideTabs()->setCurrentWidget(m_mapsPage);
    if (m_stageStrip->indexOf(view) >= 0)
        m_stageStrip->setCurrentWidget(view);
}

bool LabMode::mapsTabbed() const
{
    return sideTabs()->indexOf(m_mapsPage) >= 0;
}

void LabMode::setMapsTabbed(bool on)
{
    if (on == mapsTabbed())
        return;
    QTabWidget *tabs = sideTabs();
    QWidget *weights = stageView(Stage::Weights), *output = stageView(Stage::Output);
    if (on) {
        // The side tabs leave the maps' row (first, so that the maps' page
        // is not their parent) and take the maps as their first tab.
        m_tabBeforeMaps = tabs->currentWidget();
        m_bottomRow->removeWidget(m_sideBox);
        m_centralLayout->removeWidget(m_mapsPage);
        m_centralLayout->addWidget(m_sideBox, 1);
        tabs->insertTab(0, m_mapsPage, tr("&Maps"));
        tabs->setCurrentWidget(m_mapsPage);
        setOutputShare(0);
    } else {
        setStrippedMaps(0); // the strip only ever helps maps that already have the whole width
        m_formula->show();
        setBottomShare(0);
        m_outputShare = 0;
        const bool onMaps = tabs->currentWidget() == m_mapsPage;
        tabs->removeTab(tabs->indexOf(m_mapsPage));
        m_centralLayout->removeWidget(m_sideBox);
        m_centralLayout->addWidget(m_mapsPage, 1);
        m_bottomRow->addWidget(m_sideBox, kSideTabsStretch);
        m_bottomRow->setStretchFactor(weights, kWeightsStretch);
        m_bottomRow->setStretchFactor(output, kOutputStretch);
        if (onMaps && m_tabBeforeMaps && tabs->indexOf(m_tabBeforeMaps) >= 0)
            tabs->setCurrentWidget(m_tabBeforeMaps);
    }
    // A widget moved to another parent is hidden until shown again.
    m_mapsPage->show();
    m_sideBox->show();
}

int LabMode::strippedMaps() const
{
    return m_stageStrip->count();
}

void LabMode::setStrippedMaps(int count)
{
    count = std::clamp(count, 0, 3);
    if (count == strippedMaps())
        return;
    const Stage row[] = {Stage::Scores, Stage::Scaled, Stage::Masked};
    QWidget *chosen = m_stageStrip->currentWidget();
    while (m_stageStrip->count() > 0)
        m_stageStrip->removeTab(0);
    m_topRow->removeWidget(m_stageStrip);
    for (Stage st : row)
        m_topRow->removeWidget(stageView(st));
    // The first maps keep their own place; the last `count` share the strip.
    for (int i = 0; i < 3 - count; ++i) {
        m_topRow->addWidget(stageView(row[i]), 1);
        stageView(row[i])->show();
    }
    for (int i = 3 - count; i < 3; ++i)
        m_stageStrip->addTab(stageView(row[i]), stageName(row[i]));
    if (count == 0) {
        m_stageStrip->hide();
        return;
    }
    m_topRow->addWidget(m_stageStrip, 1);
    m_stageStrip->show();
    // In view: the map chosen before, else the mask where one acts, else the first.
    if (chosen && m_stageStrip->indexOf(chosen) >= 0)
        m_stageStrip->setCurrentWidget(chosen);
    else if (hasMask(m_host.document()->scenario()))
        m_stageStrip->setCurrentWidget(stageView(Stage::Masked));
    else
        m_stageStrip->setCurrentIndex(0);
}

void LabMode::setBottomShare(int share)
{
    // The rows' heights: even, then more for the weights and the output,
    // whose rows hold notes and whose cells need height for their numbers;
    // or more for the score maps, when a strip's tab bar takes theirs.
    constexpr std::pair<int, int> shares[] = {{1, 1}, {4, 5}, {2, 3}, {5, 4}, {3, 2}};
    m_bottomShare = std::clamp(share, 0, int(std::size(shares)) - 1);
    m_mapRows->setStretch(0, shares[m_bottomShare].first);
    m_mapRows->setStretch(1, shares[m_bottomShare].second);
}

void LabMode::setOutputShare(int share)
{
    // The bottom row's widths with the maps in a tab: the weights and their
    // row notes take most of it; an output of a few value dimensions whose
    // numbers need wider cells than its share gives, more.
    constexpr std::pair<int, int> shares[] = {{2 * kWeightsStretch, kOutputStretch}, {2, 1}, {1, 1}};
    m_outputShare = std::clamp(share, 0, int(std::size(shares)) - 1);
    if (!mapsTabbed())
        return;
    m_bottomRow->setStretchFactor(stageView(Stage::Weights), shares[m_outputShare].first);
    m_bottomRow->setStretchFactor(stageView(Stage::Output), shares[m_outputShare].second);
}

void LabMode::fitSettingsWidth()
{
    // The settings panel at the font of now: no narrower than what it cannot wrap.
    m_settingsScroll->setMinimumWidth(m_toggles->minimumSizeHint().width()
                                      + m_settingsScroll->verticalScrollBar()->sizeHint().width());
}

void LabMode::updateMapWidths()
{
    fitSettingsWidth();

    // The output map has the smallest share of its row; it still needs room
    // for two columns and its colour bar in the zoomed font. The weights
    // map, the one to read, keeps more than that. And no map is narrower
    // than its title (which names the settings, so it changes with them):
    // the layout gives a title its room rather than have it cut.
    const int line = QFontMetrics(QApplication::font()).height();
    for (StageView *v : m_stages) {
        const QFontMetrics title(v->titleElement()->font());
        int width = 220;
        for (const QString &l : v->data().title.split(QLatin1Char('\n')))
            width = std::max(width, title.horizontalAdvance(l) + 2 * line);
        if (v->stage() == Stage::Output)
            width = std::max(width, 12 * line);
        if (v->stage() == Stage::Weights)
            width = std::max(width, 15 * line);
        if (v->minimumWidth() != width)
            v->setMinimumWidth(width);
    }
}

int LabMode::unreadableMaps(CellTextMode mode, int enough) const
{
    // Only where numbers are meant to show: the automatic cell text of a
    // lesson-sized scenario (at large n cell values switch off by design).
    const Scenario &s = m_host.document()->scenario();
    if (mode != CellTextMode::Auto || queryCount(s) > 16 || keyCount(s) > 16)
        return 0;
    int count = 0;
    for (StageView *v : m_stages) {
        // A map in the strip behind another is one click away: it has the
        // size of the one in front and must keep its numbers too.
        if (!v->isVisible()) {
            if (!m_stageStrip->isVisible() || m_stageStrip->indexOf(v) < 0)
                continue;
            // Hidden: the strip sizes only the map in front, and a hidden
            // widget's resize waits until it is shown. Laid out now at the
            // size it will have in front.
            if (QWidget *front = m_stageStrip->currentWidget(); front && front != v)
                v->setGeometry(front->geometry());
            QResizeEvent resized(v->size(), v->size());
            QApplication::sendEvent(v, &resized);
        }
        v->replot(QCustomPlot::rpImmediateRefresh);
        if (!v->cellTextVisible() || v->titleElement()->text() != v->data().title
            || (v->stage() == Stage::Weights && !v->yAxis2->visible())) {
            if (++count >= enough)
                break; // no better than one already found: the rest need no replot
        }
    }
    return count;
}

} // namespace attn
