#include "mainwindow.h"
#include "windowexport.h"
#include "recovery.h"

#include "edit.h"
#include "version.h"
#include "formula.h"
#include "gradients.h"
#include "lessons.h"
#include "matrixpanel.h"
#include "preferences.h"
#include "scenario_json.h"
#include "settingedits.h"
#include "settingsactions.h"
#include "stagedata.h"
#include "stageviews.h"
#include "togglepanel.h"
#include "atomicwrite.h"
#include "trace_csv.h"
#include "trace_json.h"
#include "planepanel.h"
#include "scalinglabpanel.h"
#include "compareview.h"
#include "sweeppanel.h"
#include "topkpanel.h"
#include "steppanel.h"
#include "guesspanel.h"
#include "notespanel.h"
#include "quizpanel.h"
#include "planeplot.h"
#include "modelview.h"
#include "costpanel.h"
#include "settingsbar.h"

#include <QRegularExpression>
#include <QSignalBlocker>
#include <QToolBar>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QJsonDocument>
#include <QJsonObject>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QResizeEvent>
#include <QScreen>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QLayout>
#include <QTabBar>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>

namespace attn {

namespace {

constexpr int kMaxRecentFiles = 8;
// The bottom row's shares: the weights map, the output map, the side tabs.
constexpr int kWeightsStretch = 5, kOutputStretch = 3, kSideTabsStretch = 4;

// What File ▸ New starts from: three tokens in two dimensions, one head.
Scenario blankScenario()
{
    Scenario s;
    s.title = MainWindow::tr("Untitled").toStdString();
    s.tokens = {"t1", "t2", "t3"};
    s.Q = Matrix{{1, 0}, {0, 1}, {1, 1}};
    s.K = Matrix{{1, 0}, {0, 1}, {-1, 0}};
    s.V = Matrix::Identity(3, 3);
    return s;
}

QAction *checkable(QActionGroup *group, const QString &text, int id)
{
    auto *a = new QAction(text, group);
    a->setCheckable(true);
    a->setData(id);
    return a;
}


// A row of items that wraps onto more rows when the width runs out (the
// side tabs' names: each whole, never scrolled out of view or elided).
class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget *parent) : QLayout(parent) { setContentsMargins(0, 0, 0, 0); }
    ~FlowLayout() override
    {
        while (QLayoutItem *item = takeAt(0))
            delete item;
    }
    void addItem(QLayoutItem *item) override { m_items.append(item); }
    int count() const override { return int(m_items.size()); }
    QLayoutItem *itemAt(int i) const override { return m_items.value(i); }
    QLayoutItem *takeAt(int i) override { return i >= 0 && i < m_items.size() ? m_items.takeAt(i) : nullptr; }
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
    void setGeometry(const QRect &rect) override
    {
        QLayout::setGeometry(rect);
        arrange(rect, true);
    }
    QSize sizeHint() const override
    {
        int w = 0;
        for (QLayoutItem *item : m_items)
            w += item->sizeHint().width() + spacing();
        return {w, arrange(QRect(0, 0, std::max(1, w), 0), false)};
    }
    QSize minimumSize() const override
    {
        // As narrow as its widest item: the rest wraps.
        QSize s;
        for (QLayoutItem *item : m_items)
            s = s.expandedTo(item->minimumSize());
        return s;
    }

private:
    int arrange(const QRect &rect, bool place) const
    {
        int x = rect.x(), y = rect.y(), rowHeight = 0;
        const int gap = std::max(0, spacing());
        for (QLayoutItem *item : m_items) {
            const QSize hint = item->sizeHint();
            if (x > rect.x() && x + hint.width() > rect.right() + 1) {
                x = rect.x();
                y += rowHeight + gap;
                rowHeight = 0;
            }
            if (place)
                item->setGeometry(QRect(QPoint(x, y), hint));
            x += hint.width() + gap;
            rowHeight = std::max(rowHeight, hint.height());
        }
        return y + rowHeight - rect.y();
    }
    QList<QLayoutItem *> m_items;
};

// The side tabs with their names in a wrapping row of buttons over the
// pages: a tab bar scrolls the names of ten tabs out of a narrow column
// ("All heads" shown as "ads"). The tab bar itself is hidden; the tab
// widget keeps its pages, order, texts and current page.
class SideTabWidget : public QTabWidget {
public:
    explicit SideTabWidget(QWidget *parent) : QTabWidget(parent) { tabBar()->hide(); }
    std::function<void()> tabsChanged;

protected:
    void tabInserted(int index) override
    {
        QTabWidget::tabInserted(index);
        if (tabsChanged)
            tabsChanged();
    }
    void tabRemoved(int index) override
    {
        QTabWidget::tabRemoved(index);
        if (tabsChanged)
            tabsChanged();
    }
};

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setObjectName(QStringLiteral("MainWindow"));
    m_baseFontSize = QApplication::font().pointSizeF() > 0 ? QApplication::font().pointSizeF() : 10.0;
    createViews();
    createMenus();
    createSweeps();
    createClassroom();
    createCompare();
    createModelMode();

    connect(&m_doc, &Document::fileStateChanged, this, &MainWindow::updateTitle);
    connect(&m_doc, &Document::problemReported, this, &MainWindow::showProblem);

    // The projector layout follows the window's size and what the maps hold.
    m_fitTimer = new QTimer(this);
    m_fitTimer->setSingleShot(true);
    m_fitTimer->setInterval(0);
    connect(m_fitTimer, &QTimer::timeout, this, [this] { fitLayout(std::exchange(m_fitPending, Refit::Grow)); });
    connect(&m_doc, &Document::changed, this, [this](const DocumentChange &what) {
        if (what.any(ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings)) {
            updateMapWidths(); // the titles name the settings
            scheduleFit(Refit::Grow);
        }
    });

    placeSettingsBar();
    readSettings();
    updateTitle();
}

void MainWindow::scheduleFit(Refit how)
{
    if (m_zoom < kProjectorZoom && !mapsTabbed() && !m_panelsFoldedByZoom)
        return; // nothing to fit and nothing to give back
    m_fitPending = std::max(m_fitPending, how);
    m_fitTimer->start();
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    QTimer::singleShot(0, this, &MainWindow::fitToolBarTexts);
    scheduleFit(Refit::Tabs);
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    fitToolBarTexts();
    if (m_fitting) {
        m_fitSizes.append(event->size());
    } else if (m_fitEnded.isValid() && m_fitEnded.elapsed() < 1000 && m_fitSizes.contains(event->size())) {
        return; // the window system's late echo of the fit's own steps (xcb): not the teacher's resize
    }
    // Grown by its layout's minimum (a larger font beside the panels), not
    // by the teacher: the size asked for comes back once the layout has
    // given the room (fitLayout). Any other resize is the size asked for.
    const QSize was = event->oldSize(), now = event->size();
    const bool grown = was.isValid() && !isMaximized() && !isFullScreen()
        && ((now.width() > was.width() && now.width() == minimumWidth())
            || (now.height() > was.height() && now.height() == minimumHeight()));
    if (!grown)
        m_askedSize = QSize();
    else if (!m_askedSize.isValid())
        m_askedSize = was;
    if (m_fitting)
        return; // fitLayout's own steps; it decides with the size they leave
    scheduleFit(Refit::Tabs);
}

void MainWindow::placeSettingsBar()
{
    // Its own row, under the other toolbars: sharing a row with the Classroom
    // and Animate toolbars, a projector's zoom pushed τ into the "»" overflow.
    // Also after restoreState, whose saved layout may predate that row.
    const bool shown = !m_settingsBar->isHidden();
    if (toolBarArea(m_settingsBar) != Qt::NoToolBarArea)
        removeToolBar(m_settingsBar);
    addToolBarBreak(Qt::TopToolBarArea);
    addToolBar(Qt::TopToolBarArea, m_settingsBar);
    m_settingsBar->setVisible(shown);
}

MainWindow::~MainWindow()
{
    // The views read the document while they close; it is a member and
    // would die before them.
    m_doc.disconnect(this);
    qDeleteAll(findChildren<QWidget *>(QString(), Qt::FindDirectChildrenOnly));
}

void MainWindow::createViews()
{
    m_settings = new SettingsActions(&m_doc, this);
    connect(m_settings, &SettingsActions::message, this, &MainWindow::showProblem);
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 4);
    m_formula = new FormulaBar(&m_doc, central);
    layout->addWidget(m_formula);

    // Two rows: the three score stages side by side; under them the weights,
    // the output and the side tabs. The weights map, the one a class reads
    // most and the one with a column of row notes, gets the widest share;
    // the output (usually a few value dimensions) the narrowest.
    // The maps live on a page of their own: at a projector's zoom the page
    // becomes the first of the side tabs, and the maps get the whole width
    // (setMapsTabbed).
    m_mapsPage = new QWidget(central);
    m_mapsPage->setObjectName(QStringLiteral("mapsPage"));
    auto *rows = m_mapRows = new QVBoxLayout(m_mapsPage);
    rows->setContentsMargins(0, 0, 0, 0);
    rows->setSpacing(4);
    auto *top = m_topRow = new QHBoxLayout;
    auto *bottom = m_bottomRow = new QHBoxLayout;
    top->setSpacing(4);
    bottom->setSpacing(4);
    const Stage stages[] = {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output};
    const int bottomStretch[] = {kWeightsStretch, kOutputStretch};
    for (int i = 0; i < 5; ++i) {
        auto *view = new StageView(&m_doc, stages[i], m_mapsPage);
        view->setMinimumSize(220, 180);
        m_stages.push_back(view);
        if (i < 3)
            top->addWidget(view, 1);
        else
            bottom->addWidget(view, bottomStretch[i - 3]);
    }
    // Where the top row has no room for three score maps (a projector's
    // zoom on a small screen), some of them share a place as tabs.
    m_stageStrip = new QTabWidget(m_mapsPage);
    m_stageStrip->setObjectName(QStringLiteral("stageStrip"));
    m_stageStrip->setDocumentMode(true);
    m_stageStrip->hide();
    m_sideBox = new QWidget(m_mapsPage);
    m_sideBox->setObjectName(QStringLiteral("sideBox"));
    auto *sideTabs = new SideTabWidget(m_sideBox);
    m_sideTabs = sideTabs;
    m_sideTabs->setObjectName(QStringLiteral("sideTabs"));
    m_sideTabs->setDocumentMode(true);
    m_sideTabNames = new QWidget(m_sideBox);
    m_sideTabNames->setObjectName(QStringLiteral("sideTabNames"));
    new FlowLayout(m_sideTabNames);
    m_sideTabNames->layout()->setSpacing(2);
    {
        auto *box = new QVBoxLayout(m_sideBox);
        box->setContentsMargins(0, 0, 0, 0);
        box->setSpacing(2);
        box->addWidget(m_sideTabNames);
        box->addWidget(m_sideTabs, 1);
    }
    sideTabs->tabsChanged = [this] { updateSideTabNames(); };
    connect(m_sideTabs, &QTabWidget::currentChanged, this, [this](int index) {
        const QList<QToolButton *> names = m_sideTabNames->findChildren<QToolButton *>();
        for (int i = 0; i < names.size(); ++i)
            names[i]->setChecked(names[i]->property("tabPage").value<QWidget *>() == m_sideTabs->widget(index));
    });
    m_planePanel = new PlanePanel(&m_doc, m_sideTabs);
    m_sideTabs->addTab(m_planePanel, tr("Vector &plane"));
    m_sideTabs->addTab(new AllHeadsView(&m_doc, m_sideTabs), tr("All &heads"));
    m_sideTabs->addTab(new ConcatView(&m_doc, m_sideTabs), tr("&Concat → output"));
    m_sideTabs->addTab(new PositionalView(&m_doc, m_sideTabs), tr("Positional &encoding"));
    bottom->addWidget(m_sideBox, kSideTabsStretch);
    rows->addLayout(top, 1);
    rows->addLayout(bottom, 1);
    layout->addWidget(m_mapsPage, 1);
    m_centralLayout = layout;
    setCentralWidget(central);

    m_matrices = new MatrixPanel(&m_doc, this);
    auto *inputs = m_inputsDock = new QDockWidget(tr("Inputs"), this);
    inputs->setObjectName(QStringLiteral("inputsDock"));
    // In a scroll area: the tables' toolbar would otherwise hold the window
    // wider than a 1280 px screen with the panels shown.
    auto *inputsScroll = new QScrollArea(this);
    inputsScroll->setWidget(m_matrices);
    inputsScroll->setWidgetResizable(true);
    inputsScroll->setFrameShape(QFrame::NoFrame);
    inputsScroll->setMinimumWidth(200);
    inputs->setWidget(inputsScroll);
    inputs->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable
                        | QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::LeftDockWidgetArea, inputs);

    m_toggles = new TogglePanel(&m_doc, m_settings, this);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(m_toggles);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *settings = new QDockWidget(tr("Settings"), this);
    settings->setObjectName(QStringLiteral("settingsDock"));
    settings->setWidget(scroll);
    settings->setFeatures(inputs->features());
    addDockWidget(Qt::LeftDockWidgetArea, settings); // under the inputs: the maps get the width
    resizeDocks({inputs, settings}, {340, 560}, Qt::Vertical);
    resizeDocks({inputs}, {400}, Qt::Horizontal);
    m_settingsDock = settings;

    // Issue 11: whenever the settings panel is hidden (maps only, F9, or the
    // projector layout), its settings stay one click away in a compact row.
    // Added to the window last, on a row of its own (placeSettingsBar).
    m_settingsBar = new SettingsBar(&m_doc, m_settings, this);
    m_settingsBar->hide();
    connect(settings, &QDockWidget::visibilityChanged, this, [this] {
        if (!modelMode())
            m_settingsBar->setVisible(!m_settingsDock->isVisible());
    });

    m_export = new WindowExport(&m_doc, this, [this] { return figureStyle(); }, [this] { return planeView(); });
    connect(m_export, &WindowExport::done, this, [this](const QString &message) { statusBar()->showMessage(message, 5000); });
    connect(m_export, &WindowExport::failed, this, &MainWindow::exportFailed);
    for (StageView *v : m_stages)
        m_export->addFigureMenu(v, ExportDialog::whatOf(v->stage()));
    m_export->addFigureMenu(m_planePanel->plane(), ExportDialog::What::Plane);

    m_statusProblem = new QLabel(this);
    m_statusProblem->setStyleSheet(QStringLiteral("color: #b00020;"));
    // Permanent: a passing message ("Saved …") must not hide why an edit was refused.
    statusBar()->addPermanentWidget(m_statusProblem); // no stretch: passing messages keep the room left of it
    m_statusProblem->hide();
}

void MainWindow::createMenus()
{
    createFileMenu();
    createEditMenu();
    createAttentionMenu();
    createViewMenu();
    createLessonsMenu();
    createHelpMenu();
}

void MainWindow::createFileMenu()
{
    // File
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, [this] {
        if (maybeSave())
            newDocument();
    });
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::open);
    QAction *openModelAction = file->addAction(tr("Open &model…"), this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(
            this, tr("Open a GPT-2 model folder (config.json, model.safetensors, vocab.json, merges.txt)"),
            prefs::lastFolder.get());
        if (!folder.isEmpty())
            openModel(folder);
    });
    openModelAction->setStatusTip(tr("A model folder in the Hugging Face GPT-2 layout: every layer and head for a sentence you type"));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, &MainWindow::saveAs);
    file->addSeparator();
    file->addAction(tr("&Export figure…"), QKeySequence(Qt::CTRL | Qt::Key_E), this,
                    [this] { m_export->showDialog(m_export->lastFigure()); });
    file->addAction(tr("Export &dashboard…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this,
                    [this] { m_export->showDialog(ExportDialog::What::Dashboard); });
    QMenu *numbers = file->addMenu(tr("Export &numbers"));
    numbers->addAction(tr("As &CSV files…"), m_export, &WindowExport::exportNumbersCsv);
    numbers->addAction(tr("As one &JSON trace…"), m_export, &WindowExport::exportNumbersJson);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    updateRecentMenu();
}

void MainWindow::createEditMenu()
{
    // Edit
    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    // Our own undo and redo actions (not QUndoStack's) so that the whole
    // text, step name included, is one translatable sentence.
    QUndoStack *stack = m_doc.undoStack();
    auto *undo = new QAction(tr("&Undo"), this);
    undo->setShortcuts(QKeySequence::Undo);
    auto *redo = new QAction(tr("&Redo"), this);
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    connect(undo, &QAction::triggered, &m_doc, &Document::undo);
    connect(redo, &QAction::triggered, &m_doc, &Document::redo);
    auto sync = [this, stack, undo, redo] {
        // Mid-gesture, undo cancels the gesture (Document::undo) and redo waits.
        undo->setEnabled(stack->canUndo() || m_doc.inGesture());
        redo->setEnabled(stack->canRedo() && !m_doc.inGesture());
        //: %1 names the step, e.g. "Undo Add token t5".
        undo->setText(m_doc.inGesture()     ? tr("&Undo: cancel the drag")
                      : stack->canUndo() ? tr("&Undo %1").arg(stack->undoText())
                                         : tr("&Undo"));
        //: %1 names the step, e.g. "Redo Add token t5".
        redo->setText(stack->canRedo() ? tr("&Redo %1").arg(stack->redoText()) : tr("&Redo"));
    };
    connect(stack, &QUndoStack::indexChanged, this, sync);
    connect(stack, &QUndoStack::cleanChanged, this, sync);
    connect(&m_doc, &Document::gestureChanged, this, sync);
    sync();
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(tr("&Copy figure"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this,
                    [this] { m_export->copyFigure(m_export->lastFigure()); });
    edit->addSeparator();
    edit->addAction(tr("&Add token"), QKeySequence(Qt::CTRL | Qt::Key_T), m_matrices, &MatrixPanel::addToken);
    edit->addAction(tr("&Remove token"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T), m_matrices,
                    &MatrixPanel::removeToken);
    edit->addAction(tr("Move token &up"), QKeySequence(Qt::ALT | Qt::Key_Up), m_matrices, [this] { m_matrices->moveToken(-1); });
    edit->addAction(tr("Move token &down"), QKeySequence(Qt::ALT | Qt::Key_Down), m_matrices,
                    [this] { m_matrices->moveToken(+1); });
}

void MainWindow::createAttentionMenu()
{
    // Attention: every setting of the panel, from the keyboard; the same
    // actions as the panel's buttons (SettingsActions).
    QMenu *attention = menuBar()->addMenu(tr("&Attention"));
    attention->addAction(m_settings->causal());
    attention->addAction(m_settings->afterSoftmax());
    attention->addAction(m_settings->clearMask());
    attention->addSeparator();
    QMenu *heads = attention->addMenu(tr("&Heads"));
    heads->addActions(m_settings->heads()->actions());
    heads->addSeparator();
    heads->addAction(m_settings->nextHead());
    heads->addAction(m_settings->previousHead());
    attention->addMenu(tr("&Positional encoding"))->addActions(m_settings->encodings()->actions());
    attention->addMenu(tr("&Scaling"))->addActions(m_settings->scales()->actions());
    attention->addMenu(tr("S&imilarity"))->addActions(m_settings->similarities()->actions());
    QMenu *temperature = attention->addMenu(tr("&Temperature"));
    temperature->addAction(m_settings->sharper());
    temperature->addAction(m_settings->flatter());
    temperature->addAction(m_settings->resetTemperature());
    // Turning an encoding on shows it.
    connect(m_settings->encodings(), &QActionGroup::triggered, this, [this] {
        if (m_doc.scenario().encoding != Encoding::None)
            showSideTab(m_sideTabs->widget(m_sideTabs->count() - 1), false);
    });
}

void MainWindow::createViewMenu()
{
    // View
    QMenu *view = menuBar()->addMenu(tr("&View"));
    QMenu *weights = view->addMenu(tr("Colours for &weights"));
    m_sequentialGroup = new QActionGroup(this);
    for (SequentialGradient g : allSequentialGradients())
        weights->addAction(checkable(m_sequentialGroup, displayName(g), int(g)));
    connect(m_sequentialGroup, &QActionGroup::triggered, this, [this](QAction *a) {
        prefs::sequentialGradient.set(settingsKey(SequentialGradient(a->data().toInt())));
        applyGradients();
    });
    QMenu *scores = view->addMenu(tr("Colours for &scores"));
    m_divergingGroup = new QActionGroup(this);
    for (DivergingGradient g : allDivergingGradients())
        scores->addAction(checkable(m_divergingGroup, displayName(g), int(g)));
    connect(m_divergingGroup, &QActionGroup::triggered, this, [this](QAction *a) {
        prefs::divergingGradient.set(settingsKey(DivergingGradient(a->data().toInt())));
        applyGradients();
    });
    QMenu *values = view->addMenu(tr("Cell &values"));
    m_cellTextGroup = new QActionGroup(this);
    values->addAction(checkable(m_cellTextGroup, tr("&Automatic (when they fit)"), int(CellTextMode::Auto)));
    values->addAction(checkable(m_cellTextGroup, tr("Al&ways"), int(CellTextMode::Always)));
    values->addAction(checkable(m_cellTextGroup, tr("&Never"), int(CellTextMode::Never)));
    connect(m_cellTextGroup, &QActionGroup::triggered, this, [this](QAction *a) {
        const char *keys[] = {"auto", "always", "never"};
        prefs::cellText.set(QLatin1String(keys[a->data().toInt()]));
        applyCellText();
    });
    values->addSeparator();
    values->addAction(tr("&Cycle"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V), this, [this] {
        const QList<QAction *> all = m_cellTextGroup->actions();
        const int next = (all.indexOf(m_cellTextGroup->checkedAction()) + 1) % all.size();
        all[next]->trigger();
    });
    // High contrast for a projector that washes colours out (light), or a
    // dark room (dark); the maps' colours stay colour-blind safe in both.
    QMenu *theme = view->addMenu(tr("&Theme"));
    m_themeGroup = new QActionGroup(this);
    for (FigureTheme t : allFigureThemes())
        theme->addAction(checkable(m_themeGroup, displayName(t), int(t)));
    connect(m_themeGroup, &QActionGroup::triggered, this, [this](QAction *a) {
        const FigureTheme t = FigureTheme(a->data().toInt());
        prefs::plotTheme.set(settingsKey(t));
        setWindowPlotTheme(t);
    });
    m_sharedRange = view->addAction(tr("Score maps share one colour &range"));
    m_sharedRange->setCheckable(true);
    m_sharedRange->setToolTip(tr("Scores, scaled scores and masked scores on one scale, so that scaling visibly shrinks them"));
    connect(m_sharedRange, &QAction::toggled, this, [this](bool on) {
        prefs::sharedScoreRange.set(on);
        for (StageView *v : m_stages)
            v->setSharedScoreRange(on);
    });
    view->addSeparator();
    QAction *zoomIn = view->addAction(tr("Zoom &in"), this, [this] { setZoom(m_zoom * 1.25); });
    // Ctrl+= as well: Ctrl++ needs Shift on most keyboards.
    zoomIn->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    view->addAction(tr("Zoom &out"), QKeySequence::ZoomOut, this, [this] { setZoom(m_zoom / 1.25); });
    view->addAction(tr("&Actual size"), QKeySequence(Qt::CTRL | Qt::Key_0), this, [this] { setZoom(1.0); });
    QAction *fullScreen = view->addAction(tr("&Full screen"));
    fullScreen->setShortcut(QKeySequence::FullScreen);
    fullScreen->setCheckable(true);
    connect(fullScreen, &QAction::toggled, this, [this](bool on) { on ? showFullScreen() : showNormal(); });
    view->addSeparator();
    for (QDockWidget *dock : findChildren<QDockWidget *>())
        view->addAction(dock->toggleViewAction());
    QAction *mapsOnly = view->addAction(tr("&Maps only (hide the panels)"));
    mapsOnly->setShortcut(QKeySequence(Qt::Key_F9));
    mapsOnly->setToolTip(tr("Give the whole window to the maps, e.g. on a projector; F9 again brings the panels back"));
    connect(mapsOnly, &QAction::triggered, this, [this] {
        const QList<QDockWidget *> docks = findChildren<QDockWidget *>();
        setPanelsShownByUser(std::none_of(docks.begin(), docks.end(), [](QDockWidget *d) { return d->isVisible(); }));
    });
    QAction *lab = view->addAction(tr("√d_k &lab…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L), this,
                                   [this] { showScalingLab(); });
    lab->setToolTip(tr("Why divide by √d_k: random q and k, their scores and the softmax, in a window of its own"));
    view->addSeparator();
    addLanguageMenu(view);
    registerView(QStringLiteral("lab"), [this]() -> QWidget * { return showScalingLab()->window(); });
}

// The language takes effect at the next start: the whole window is built in it.
void MainWindow::addLanguageMenu(QMenu *view)
{
    QMenu *language = view->addMenu(tr("&Language"));
    auto *languageGroup = new QActionGroup(this);
    const std::pair<QString, QString> languages[] = {{QString(), tr("&System default")},
                                                     {QStringLiteral("en"), QStringLiteral("&English")},
                                                     {QStringLiteral("zh_CN"), QStringLiteral("简体中文 (&C)")}};
    for (const auto &[code, name] : languages) {
        QAction *a = language->addAction(name);
        a->setCheckable(true);
        a->setData(code);
        a->setChecked(prefs::language.get() == code);
        languageGroup->addAction(a);
    }
    connect(languageGroup, &QActionGroup::triggered, this, [this](QAction *a) {
        prefs::language.set(a->data().toString());
        if (m_interactive)
            QMessageBox::information(this, tr("Language"), tr("The language changes the next time Attention Lab starts."));
    });
}

void MainWindow::createLessonsMenu()
{
    // Lessons
    m_lessonsMenu = menuBar()->addMenu(tr("&Lessons"));
    m_lessonsMenu->setToolTipsVisible(true);
    for (const LessonInfo &l : builtInLessons(QLocale().name())) {
        QAction *a = m_lessonsMenu->addAction(l.title);
        a->setToolTip(l.description);
        a->setStatusTip(l.description);
        connect(a, &QAction::triggered, this, [this, name = l.name] {
            if (maybeSwitch())
                openLesson(name);
        });
    }
    // The model mode: the document stays as it is until a head is taken in.
    m_lessonsMenu->addSeparator();
    QAction *model = m_lessonsMenu->addAction(tr("A real transformer: the built-in model"), this, [this] {
        if (openBuiltinModel().isEmpty())
            setModelMode(true);
    });
    const QString tip = tr("A small GPT-2 trained on English and Chinese: type a sentence and see every layer and head");
    model->setToolTip(tip);
    model->setStatusTip(tip);
}

void MainWindow::createHelpMenu()
{
    // Help
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Attention Lab"), this, [this] {
        QMessageBox::about(this, tr("About Attention Lab"),
                           tr("<h3>Attention Lab %1</h3><p>Scaled dot-product attention, live, for the classroom: "
                              "edit Q, K and V, switch masks, heads and encodings, and watch every stage change.</p>"
                              "<p>Hover a cell for its hand calculation; click a cell to block it.</p>")
                               .arg(QStringLiteral(ATTN_VERSION)));
    });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

PlanePlot *MainWindow::vectorPlane() const
{
    return m_planePanel->plane();
}

StageView *MainWindow::stageView(Stage stage) const
{
    for (StageView *v : m_stages)
        if (v->stage() == stage)
            return v;
    return nullptr;
}

std::vector<HeatmapPlot *> MainWindow::allPlots() const
{
    std::vector<HeatmapPlot *> out;
    for (HeatmapPlot *p : findChildren<HeatmapPlot *>())
        out.push_back(p);
    return out;
}

void MainWindow::readSettings()
{
    const QByteArray geometry = prefs::windowGeometry.get();
    if (geometry.isEmpty() || !restoreGeometry(geometry)) {
        const QRect screen = this->screen() ? this->screen()->availableGeometry() : QRect(0, 0, 1600, 1000);
        resize(std::min(1600, screen.width()), std::min(1000, screen.height()));
    }
    restoreState(prefs::windowState.get());
    m_settingsBar->setVisible(m_settingsDock->isHidden());
    placeSettingsBar();

    const auto seq = sequentialGradientFromKey(prefs::sequentialGradient.get()).value_or(SequentialGradient::Viridis);
    const auto div = divergingGradientFromKey(prefs::divergingGradient.get()).value_or(DivergingGradient::BlueRed);
    for (QAction *a : m_sequentialGroup->actions())
        a->setChecked(a->data().toInt() == int(seq));
    for (QAction *a : m_divergingGroup->actions())
        a->setChecked(a->data().toInt() == int(div));
    const QString text = prefs::cellText.get();
    const int mode = text == QLatin1String("always") ? 1 : text == QLatin1String("never") ? 2 : 0;
    m_cellTextGroup->actions()[mode]->setChecked(true);
    const FigureTheme theme = figureThemeFromKey(prefs::plotTheme.get()).value_or(FigureTheme::Default);
    for (QAction *a : m_themeGroup->actions())
        a->setChecked(a->data().toInt() == int(theme));
    setWindowPlotTheme(theme);
    m_sharedRange->setChecked(prefs::sharedScoreRange.get());
    for (StageView *v : m_stages)
        v->setSharedScoreRange(m_sharedRange->isChecked());
    applyGradients();
    applyCellText();
    setZoom(prefs::zoom.get(), false);
}

void MainWindow::writeSettings()
{
    prefs::windowGeometry.set(saveGeometry());
    prefs::windowState.set(modelMode() ? m_labState : saveState()); // the lab's panels, not the model mode's
    prefs::zoom.set(m_zoom);
}

void MainWindow::applyGradients()
{
    const auto seq = SequentialGradient(m_sequentialGroup->checkedAction()->data().toInt());
    const auto div = DivergingGradient(m_divergingGroup->checkedAction()->data().toInt());
    for (HeatmapPlot *p : allPlots()) {
        p->setSequentialGradient(sequentialGradient(seq));
        p->setDivergingGradient(divergingGradient(div));
    }
    if (m_modelView)
        m_modelView->overview()->setGradient(sequentialGradient(seq));
}

void MainWindow::applyCellText()
{
    const auto mode = CellTextMode(m_cellTextGroup->checkedAction()->data().toInt());
    for (StageView *v : m_stages)
        v->setCellText(mode);
    for (HeatmapPlot *p : allPlots())
        if (!p->isCompact() && !qobject_cast<StageView *>(p))
            p->setCellText(mode);
}

void MainWindow::setPanelsShown(bool shown)
{
    m_foldedDocks.clear();
    for (QDockWidget *d : findChildren<QDockWidget *>())
        d->setVisible(shown);
}

void MainWindow::setZoom(double zoom, bool announce)
{
    m_zoom = std::clamp(zoom, 0.6, 3.0);
    QFont f = QApplication::font();
    f.setPointSizeF(m_baseFontSize * m_zoom);
    QApplication::setFont(f);
    if (announce)
        statusBar()->showMessage(tr("Zoom %1%").arg(std::lround(m_zoom * 100)), 2000);
    // The output map has the smallest share of its row; it still needs room
    // for its title, two columns and its colour bar in the zoomed font. The
    // weights map, the one to read, keeps more than that.
    updateMapWidths();
    // Once the new font has reached the toolbars' buttons.
    QTimer::singleShot(0, this, &MainWindow::fitToolBarTexts);
    // The panels' text grows with the zoom; so does their column, within reason.
    // After the fonts have settled and the window has its size.
    QTimer::singleShot(0, this, [this] {
        if (m_inputsDock && !m_inputsDock->isFloating()) {
            // The inputs' own width where the window has it (their scroll
            // area is for a small screen, not a default).
            const double wanted = std::max(400 * m_zoom, m_matrices->minimumSizeHint().width() + 24.0);
            resizeDocks({m_inputsDock}, {int(std::min(wanted, 0.42 * width()))}, Qt::Horizontal);
        }
        QTimer::singleShot(0, this, [this] { fitLayout(Refit::All); });
    });
}

void MainWindow::updateMapWidths()
{
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

void MainWindow::setPanelsShownByUser(bool shown)
{
    m_panelsFoldedByZoom = false; // the teacher's choice: the zoom leaves it alone
    setPanelsShown(shown);
}

bool MainWindow::mapsTabbed() const
{
    return m_sideTabs->indexOf(m_mapsPage) >= 0;
}

void MainWindow::setMapsTabbed(bool on)
{
    if (on == mapsTabbed())
        return;
    QWidget *weights = stageView(Stage::Weights), *output = stageView(Stage::Output);
    if (on) {
        // The side tabs leave the maps' row (first, so that the maps' page
        // is not their parent) and take the maps as their first tab.
        m_tabBeforeMaps = m_sideTabs->currentWidget();
        m_bottomRow->removeWidget(m_sideBox);
        m_centralLayout->removeWidget(m_mapsPage);
        m_centralLayout->addWidget(m_sideBox, 1);
        m_sideTabs->insertTab(0, m_mapsPage, tr("&Maps"));
        m_sideTabs->setCurrentWidget(m_mapsPage);
        setOutputShare(0);
    } else {
        setStrippedMaps(0); // the strip only ever helps maps that already have the whole width
        m_formula->show();
        setBottomShare(0);
        m_outputShare = 0;
        const bool onMaps = m_sideTabs->currentWidget() == m_mapsPage;
        m_sideTabs->removeTab(m_sideTabs->indexOf(m_mapsPage));
        m_centralLayout->removeWidget(m_sideBox);
        m_centralLayout->addWidget(m_mapsPage, 1);
        m_bottomRow->addWidget(m_sideBox, kSideTabsStretch);
        m_bottomRow->setStretchFactor(weights, kWeightsStretch);
        m_bottomRow->setStretchFactor(output, kOutputStretch);
        if (onMaps && m_tabBeforeMaps && m_sideTabs->indexOf(m_tabBeforeMaps) >= 0)
            m_sideTabs->setCurrentWidget(m_tabBeforeMaps);
    }
    // A widget moved to another parent is hidden until shown again.
    m_mapsPage->show();
    m_sideBox->show();
}

void MainWindow::updateSideTabNames()
{
    // One checkable button a tab, in the tabs' order, with the tab's text
    // (and so its Alt mnemonic): a click shows the page.
    qDeleteAll(m_sideTabNames->findChildren<QToolButton *>(QString(), Qt::FindDirectChildrenOnly));
    for (int i = 0; i < m_sideTabs->count(); ++i) {
        QWidget *page = m_sideTabs->widget(i);
        auto *b = new QToolButton(m_sideTabNames);
        b->setText(m_sideTabs->tabText(i));
        b->setToolTip(m_sideTabs->tabToolTip(i));
        b->setCheckable(true);
        b->setAutoRaise(true);
        b->setChecked(page == m_sideTabs->currentWidget());
        b->setProperty("tabPage", QVariant::fromValue(page));
        connect(b, &QToolButton::clicked, this, [this, page, b] {
            if (m_sideTabs->indexOf(page) >= 0)
                m_sideTabs->setCurrentWidget(page);
            b->setChecked(m_sideTabs->currentWidget() == page);
        });
        m_sideTabNames->layout()->addWidget(b);
        b->show(); // a child added to a shown widget stays hidden otherwise
    }
}

QStringList MainWindow::sideTabNamesCut() const
{
    QStringList out;
    const QList<QToolButton *> names = m_sideTabNames->findChildren<QToolButton *>(QString(), Qt::FindDirectChildrenOnly);
    if (names.size() != m_sideTabs->count())
        out << QStringLiteral("%1 names for %2 tabs").arg(names.size()).arg(m_sideTabs->count());
    for (QToolButton *b : names) {
        const QString name = b->text().remove(QLatin1Char('&'));
        if (!b->isVisible() || !m_sideTabNames->rect().contains(b->geometry()))
            out << name + QStringLiteral(": not in view");
        else if (b->width() < b->sizeHint().width())
            out << name + QStringLiteral(": cut (%1 of %2 px)").arg(b->width()).arg(b->sizeHint().width());
    }
    return out;
}

void MainWindow::fitToolBarTexts()
{
    // The first row's toolbars (Animate, A/B, Classroom): where their full
    // texts are wider than the window (a projector's zoom), the buttons show
    // short ones ("▶ τ", "Steps"), the full text stays in the menus and the
    // tooltips, so that what a lesson uses stays one click away, not in "»".
    // Measured without switching: each toolbar's width now, less the texts
    // shown, plus the full ones.
    QList<QAction *> actions;
    int full = 0;
    for (QToolBar *bar : findChildren<QToolBar *>()) {
        if (bar == m_settingsBar || bar->isHidden() || toolBarArea(bar) != Qt::TopToolBarArea)
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
    const bool tight = full > width() - 24; // the row's handles and spacing
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

int MainWindow::strippedMaps() const
{
    return m_stageStrip->count();
}

void MainWindow::setStrippedMaps(int count)
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
    else if (hasMask(m_doc.scenario()))
        m_stageStrip->setCurrentWidget(stageView(Stage::Masked));
    else
        m_stageStrip->setCurrentIndex(0);
}

void MainWindow::setBottomShare(int share)
{
    // The rows' heights: even, then more for the weights and the output,
    // whose rows hold notes and whose cells need height for their numbers;
    // or more for the score maps, when a strip's tab bar takes theirs.
    constexpr std::pair<int, int> shares[] = {{1, 1}, {4, 5}, {2, 3}, {5, 4}, {3, 2}};
    m_bottomShare = std::clamp(share, 0, int(std::size(shares)) - 1);
    m_mapRows->setStretch(0, shares[m_bottomShare].first);
    m_mapRows->setStretch(1, shares[m_bottomShare].second);
}

void MainWindow::setOutputShare(int share)
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

void MainWindow::showStage(Stage stage)
{
    StageView *view = stageView(stage);
    if (mapsTabbed())
        m_sideTabs->setCurrentWidget(m_mapsPage);
    if (m_stageStrip->indexOf(view) >= 0)
        m_stageStrip->setCurrentWidget(view);
}

void MainWindow::showSideTab(QWidget *page, bool overMaps)
{
    // With the maps in the side tabs (a projector's zoom), what follows the
    // maps (an animation, step mode, an encoding turned on) leaves them in view.
    if (!overMaps && mapsTabbed() && m_sideTabs->currentWidget() == m_mapsPage)
        return;
    m_sideTabs->setCurrentWidget(page);
}

void MainWindow::settleLayout()
{
    // Docks folded and pages moved: their geometry now, not at the next
    // turn of the event loop, so that mapsReadable() measures the new room.
    for (int i = 0; i < 3; ++i) {
        QApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        if (layout())
            layout()->activate();
        if (centralWidget() && centralWidget()->layout())
            centralWidget()->layout()->activate();
        if (m_mapsPage->layout())
            m_mapsPage->layout()->activate();
    }
}

void MainWindow::fitLayout(Refit how)
{
    if (modelMode() || m_fitting)
        return;
    m_fitting = true;
    m_fitSizes.clear();
    updateMapWidths();
    fitToolBarTexts();
    const bool projector = m_zoom >= kProjectorZoom;
    // A tab the teacher chose beside the Maps tab stays chosen.
    const QPointer<QWidget> shown = mapsTabbed() ? m_sideTabs->currentWidget() : nullptr;
    // Back to the plain layout, then as much room as the maps need; below a
    // projector's zoom it stays plain.
    // A window no larger than when the maps went into the tabs has no more room.
    const bool larger = width() > m_tabbedAt.width() || height() > m_tabbedAt.height();
    if (how == Refit::All || !projector || (how == Refit::Tabs && larger))
        setMapsTabbed(false);
    if ((how == Refit::All || !projector) && m_panelsFoldedByZoom) {
        m_panelsFoldedByZoom = false;
        for (const QPointer<QDockWidget> &d : std::exchange(m_foldedDocks, {}))
            if (d)
                d->show();
    }
    // Decided once the window has its size (showEvent and resizeEvent ask again).
    if (projector && isVisible()) {
        settleLayout();
        // A projector's zoom: where the maps would drop their numbers, cut a
        // title or the weights' row notes, the layout gives them room, one
        // step at a time (issue 11): the panels fold into the settings bar
        // (F9 brings them back), then the maps take the whole width with
        // the plane and the other views in tabs beside the Maps tab.
        bool changed = false;
        if (!mapsReadable() && m_settingsDock->isVisible()) {
            m_foldedDocks.clear();
            for (QDockWidget *d : findChildren<QDockWidget *>())
                if (d->isVisible()) {
                    m_foldedDocks.push_back(d);
                    d->hide();
                }
            m_panelsFoldedByZoom = true;
            changed = true;
            settleLayout();
        }
        if (!mapsReadable() && !mapsTabbed()) {
            setMapsTabbed(true);
            m_tabbedAt = m_askedSize.isValid() ? m_askedSize : size();
            changed = true;
            settleLayout();
        }
        // Still short (zoom 2 on 1600x1000: three maps of five columns are
        // wider than the screen, and the output's rows too low for its
        // numbers): the arrangements of the Maps tab in turn, those with
        // every map in view first, until every map keeps its numbers; where
        // none does, the one that leaves the fewest maps short. The scaled
        // and masked scores share a place as tabs, then all three score
        // maps do; the rows' heights and the output's width vary within.
        if (mapsTabbed() && !mapsReadable()) {
            // Last of all the formula bar folds (its terms are in the maps'
            // titles): at zoom 2 on 1600x1000 two rows of five-row maps
            // need its height for their numbers.
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
            std::optional<Arrangement> best;
            int fewest = std::numeric_limits<int>::max();
            for (const Arrangement &a : tried) {
                setStrippedMaps(a.strip);
                setBottomShare(a.share);
                setOutputShare(a.output);
                m_formula->setVisible(a.formula);
                settleLayout();
                // One that needs a wider window than the one asked for (three
                // titles side by side) does not count: the window would grow
                // off the screen.
                const QSize room = m_askedSize.isValid() ? m_askedSize : size();
                const QSize least = minimumSizeHint();
                const int short_ = least.width() > room.width() || least.height() > room.height()
                    ? int(m_stages.size()) + 1
                    : unreadableMaps(fewest);
                if (short_ < fewest) {
                    fewest = short_;
                    best = a;
                }
                if (short_ == 0)
                    break;
            }
            if (best && fewest > 0) {
                setStrippedMaps(best->strip);
                setBottomShare(best->share);
                setOutputShare(best->output);
                m_formula->setVisible(best->formula);
                settleLayout();
            }
            changed = true;
        }
        if (changed && !m_classroom->hidden())
            // Short: at this zoom the status bar holds one short line.
            statusBar()->showMessage(tr("Panels folded so that every map keeps its numbers; F9 brings them back"), 8000);
    }
    if (shown && shown != m_mapsPage && m_sideTabs->indexOf(shown) >= 0)
        m_sideTabs->setCurrentWidget(shown);
    // The window grew to the panels' minimum on the way: back to the size asked for.
    const QSize asked = std::exchange(m_askedSize, QSize());
    if (asked.isValid() && asked != size() && asked.expandedTo(minimumSize()) == asked)
        resize(asked);
    m_fitting = false;
    m_fitEnded.start();
}

bool MainWindow::mapsReadable() const
{
    return unreadableMaps(1) == 0;
}

int MainWindow::unreadableMaps(int enough) const
{
    // Only where numbers are meant to show: the automatic cell text of a
    // lesson-sized scenario (at large n cell values switch off by design).
    if (CellTextMode(m_cellTextGroup->checkedAction()->data().toInt()) != CellTextMode::Auto
        || queryCount(m_doc.scenario()) > 16 || keyCount(m_doc.scenario()) > 16)
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

void MainWindow::startRecovery(const QString &folder)
{
    // A scripted window (a test, a screenshot) autosaves but asks nothing.
    const std::vector<RecoveredWork> left = m_interactive ? Recovery::leftovers(folder) : std::vector<RecoveredWork>();
    for (const RecoveredWork &work : left) {
        const QString name = !work.filePath.isEmpty() ? QFileInfo(work.filePath).fileName()
                             : !work.current.title.empty() ? QString::fromStdString(work.current.title)
                                                           : tr("Untitled");
        QMessageBox box(QMessageBox::Question, tr("Restore unsaved work?"),
                        tr("Attention Lab did not close properly. %1 has changes from %2 that were not saved.")
                            .arg(name, QLocale().toString(work.changedAt, QLocale::LongFormat)),
                        QMessageBox::NoButton, this);
        QPushButton *restore = box.addButton(tr("&Restore"), QMessageBox::AcceptRole);
        QPushButton *discard = box.addButton(tr("&Discard"), QMessageBox::DestructiveRole);
        box.addButton(tr("Ask &later"), QMessageBox::RejectRole);
        box.setDefaultButton(restore);
        box.exec();
        if (box.clickedButton() == restore) {
            if (const auto p = Recovery::restore(m_doc, work))
                showProblem(problemText(*p));
            else
                statusBar()->showMessage(tr("Restored the unsaved changes of %1").arg(name), 5000);
            break; // one document a window
        }
        if (box.clickedButton() == discard)
            Recovery::discard(work);
    }
    m_recovery = new Recovery(&m_doc, folder, this);
    connect(m_recovery, &Recovery::failed, this, &MainWindow::showProblem);
}

void MainWindow::registerView(const QString &name, ViewOpener open)
{
    m_views[name] = std::move(open);
}

QWidget *MainWindow::showView(const QString &name)
{
    const auto it = m_views.find(name);
    return it == m_views.end() ? nullptr : it->second();
}

QStringList MainWindow::viewNames() const
{
    QStringList names;
    for (const auto &[name, open] : m_views)
        names << name;
    return names;
}

ScalingLabPanel *MainWindow::showScalingLab()
{
    // Its own window, large: a class reads it from the back of the room. A
    // child of this window, so it follows the zoom and closes with it.
    if (!m_scalingLab) {
        m_scalingLab = new ScalingLabPanel(this);
        m_scalingLab->setWindowFlag(Qt::Window);
        m_scalingLab->setWindowTitle(tr("√d_k lab — Attention Lab"));
        const QRect screen = this->screen() ? this->screen()->availableGeometry() : QRect(0, 0, 1600, 1000);
        m_scalingLab->resize(std::min(1500, screen.width() * 9 / 10), std::min(1000, screen.height() * 9 / 10));
    }
    m_scalingLab->show();
    m_scalingLab->raise();
    m_scalingLab->activateWindow();
    return m_scalingLab;
}

void MainWindow::updateTitle()
{
    setWindowTitle(tr("%1[*] — Attention Lab").arg(m_doc.displayName()));
    setWindowModified(m_doc.isModified());
}

void MainWindow::showProblem(const QString &message)
{
    m_statusProblem->setText(message);
    m_statusProblem->setVisible(!message.isEmpty());
    QTimer::singleShot(10000, m_statusProblem, [label = m_statusProblem, message] {
        if (label->text() == message) {
            label->clear();
            label->hide();
        }
    });
}

FigureStyle MainWindow::figureStyle() const
{
    FigureStyle style;
    style.sequential = SequentialGradient(m_sequentialGroup->checkedAction()->data().toInt());
    style.diverging = DivergingGradient(m_divergingGroup->checkedAction()->data().toInt());
    style.cellText = CellTextMode(m_cellTextGroup->checkedAction()->data().toInt());
    style.stage.head = m_doc.currentHead();
    style.stage.sharedScoreRange = m_sharedRange->isChecked();
    return style;
}

PlaneView MainWindow::planeView() const
{
    const PlanePanel *plane = m_planePanel;
    PlaneView view;
    view.head = m_doc.currentHead();
    view.query = m_doc.currentQuery();
    view.horizontal = plane->horizontalDimension();
    view.vertical = plane->verticalDimension();
    view.pca = plane->principalProjection();
    return view;
}

std::optional<Problem> MainWindow::exportFigure(ExportDialog::What what, FigureFormat format, const FigureSize &size,
                                                const QString &path)
{
    return m_export->exportFigure(what, format, size, path);
}

QImage MainWindow::figureImage(ExportDialog::What what) const
{
    return m_export->figureImage(what);
}

QString MainWindow::exportStem() const
{
    return m_export->stem();
}

void MainWindow::exportFailed(const QString &message)
{
    showProblem(message);
    if (m_interactive)
        QMessageBox::warning(this, tr("Cannot export"), message);
}

QString MainWindow::openFile(const QString &path)
{
    const ScenarioOrProblem loaded = loadScenarioFile(path);
    if (const auto *p = std::get_if<Problem>(&loaded)) {
        const QString message = tr("%1 was not opened: %2").arg(QFileInfo(path).fileName(), problemText(*p));
        showProblem(message);
        if (m_interactive)
            QMessageBox::warning(this, tr("Cannot open %1").arg(QFileInfo(path).fileName()), message);
        return message;
    }
    m_doc.replace(std::get<Scenario>(loaded), QFileInfo(path).absoluteFilePath());
    setModelMode(false);
    prefs::lastFolder.set(QFileInfo(path).absolutePath());
    addRecentFile(QFileInfo(path).absoluteFilePath());
    statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), 4000);
    return QString();
}

QString MainWindow::openLesson(const QString &name)
{
    const ScenarioOrProblem loaded = loadLesson(name);
    if (const auto *p = std::get_if<Problem>(&loaded)) {
        const QString message = problemText(*p);
        showProblem(message);
        return message;
    }
    Scenario s = std::get<Scenario>(loaded);
    const LessonInfo local = lessonInfo(name, QLocale().name()); // the title in the window's language
    s.title = local.title.toStdString();
    s.description = local.description.toStdString();
    m_doc.replace(s, QString(), name);
    setModelMode(false);
    prefs::lastLesson.set(name);
    openComparison(name); // a built-in comparison: A pinned beside it
    return QString();
}

void MainWindow::newDocument()
{
    m_doc.replace(blankScenario(), QString());
    setModelMode(false);
}

void MainWindow::open()
{
    if (!maybeSave())
        return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a scenario"), prefs::lastFolder.get(),
                                                      tr("Attention Lab scenarios (*.json);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

bool MainWindow::save()
{
    if (m_doc.filePath().isEmpty())
        return saveAs();
    return saveTo(m_doc.filePath());
}

bool MainWindow::saveAs()
{
    QString suggestion = m_doc.filePath();
    if (suggestion.isEmpty())
        suggestion = QDir(prefs::lastFolder.get()).filePath(
            //: A file name for a new scenario.
            (m_doc.lessonName().isEmpty() ? tr("untitled") : m_doc.lessonName()) + QStringLiteral(".json"));
    QString path = QFileDialog::getSaveFileName(this, tr("Save the scenario"), suggestion,
                                                tr("Attention Lab scenarios (*.json)"));
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    return saveTo(path);
}

bool MainWindow::saveTo(const QString &path)
{
    if (const auto p = saveScenarioFile(path, m_doc.scenario())) {
        const QString message = tr("%1 was not saved: %2").arg(QDir::toNativeSeparators(path), QString::fromStdString(p->message));
        showProblem(message);
        if (m_interactive)
            QMessageBox::warning(this, tr("Cannot save"), message);
        return false;
    }
    m_doc.markSaved(QFileInfo(path).absoluteFilePath());
    prefs::lastFolder.set(QFileInfo(path).absolutePath());
    addRecentFile(QFileInfo(path).absoluteFilePath());
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::maybeSave()
{
    if (!m_doc.isModified() || !m_interactive)
        return true;
    const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                             tr("%1 has changes that are not saved. Save them?").arg(m_doc.displayName()),
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (maybeSave()) {
        writeSettings();
        event->accept();
    } else {
        event->ignore();
    }
}

void MainWindow::addRecentFile(const QString &path)
{
    QStringList files = prefs::recentFiles.get();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    prefs::recentFiles.set(files);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = prefs::recentFiles.get();
    int i = 1;
    for (const QString &f : files) {
        QAction *a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i++).arg(QFileInfo(f).fileName()));
        a->setToolTip(f);
        connect(a, &QAction::triggered, this, [this, f] {
            if (maybeSave())
                openFile(f);
        });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("&Clear the list"), this, [this] {
            prefs::recentFiles.set({});
            updateRecentMenu();
        });
    }
}

// ---- teaching in front of the class (issue 11) ----------------------------

void MainWindow::createClassroom()
{
    m_classroom = new Classroom(&m_doc, this);
    m_stepPanel = new StepPanel(&m_doc, m_classroom, m_sideTabs);
    m_guessPanel = new GuessPanel(&m_doc, m_classroom, m_sideTabs);
    // Before the positional tab, which stays last (turning an encoding on shows it).
    m_sideTabs->insertTab(m_sideTabs->count() - 1, m_stepPanel, tr("&Steps"));
    m_sideTabs->insertTab(m_sideTabs->count() - 1, m_guessPanel, tr("&Guess"));

    m_notesPanel = new NotesPanel(&m_doc, m_classroom, this);
    m_notesDock = new QDockWidget(tr("Lesson notes"), this);
    m_notesDock->setObjectName(QStringLiteral("notesDock"));
    m_notesDock->setWidget(m_notesPanel);
    m_notesDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable
                             | QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::RightDockWidgetArea, m_notesDock);
    m_notesDock->hide();

    QMenu *menu = menuBar()->addMenu(tr("&Classroom"));
    auto *bar = addToolBar(tr("Classroom"));
    bar->setObjectName(QStringLiteral("classroomToolBar"));
    m_stepAction = menu->addAction(tr("&Step through"));
    m_stepAction->setCheckable(true);
    m_stepAction->setShortcut(QKeySequence(Qt::Key_F6));
    m_stepAction->setToolTip(tr("Step through the chain one stage at a time (F6); Left/Right or Page Up/Down step, "
                                "Home/End jump"));
    connect(m_stepAction, &QAction::toggled, this, &MainWindow::setStepMode);
    bar->addAction(m_stepAction);
    m_stepAction->setProperty("shortText", tr("Steps"));
    const std::pair<QList<QKeySequence>, void (Classroom::*)()> keys[] = {
        {{QKeySequence(Qt::Key_Left), QKeySequence(Qt::Key_PageUp)}, &Classroom::previous},
        {{QKeySequence(Qt::Key_Right), QKeySequence(Qt::Key_PageDown)}, &Classroom::next},
        {{QKeySequence(Qt::Key_Home)}, &Classroom::first},
        {{QKeySequence(Qt::Key_End)}, &Classroom::last}};
    const QString names[] = {tr("Previous step"), tr("Next step"), tr("First step"), tr("Last step")};
    for (int k = 0; k < 4; ++k) {
        auto *a = new QAction(names[k], this);
        a->setShortcuts(keys[k].first);
        a->setEnabled(false); // only in step mode: the arrows belong to the tables and the plane otherwise
        connect(a, &QAction::triggered, m_classroom, keys[k].second);
        addAction(a);
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
    connect(m_hideAction, &QAction::toggled, this, &MainWindow::setAnswersHidden);
    bar->addAction(m_hideAction);
    m_hideAction->setProperty("shortText", tr("Hide"));
    QAction *hideScaled = menu->addAction(tr("Hide the scaled scores too"));
    hideScaled->setCheckable(true);
    connect(hideScaled, &QAction::toggled, m_classroom, &Classroom::setHideScaled);
    QAction *guess = menu->addAction(tr("&Guess the row"), this, [this] {
        showSideTab(m_guessPanel);
    });
    bar->addAction(guess);
    guess->setProperty("shortText", tr("Guess"));
    menu->addSeparator();
    QAction *notes = m_notesDock->toggleViewAction();
    notes->setText(tr("Lesson &notes"));
    notes->setShortcut(QKeySequence(Qt::Key_F8));
    menu->addAction(notes);
    bar->addAction(notes);
    notes->setProperty("shortText", tr("Notes"));
    QAction *quiz = menu->addAction(tr("&Quiz…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Q), this, [this] { showQuiz(); });
    bar->addAction(quiz);
    quiz->setProperty("shortText", tr("Quiz"));
    connect(m_classroom, &Classroom::changed, this, &MainWindow::applyClassroom);
    // A new lesson keeps the hide mode; its maps come back hidden (StageView).
    connect(&m_doc, &Document::changed, this, [this] {
        if (m_classroom->hidden())
            applyClassroom();
    });

    registerView(QStringLiteral("steps"), [this]() -> QWidget * {
        setStepMode(true);
        showSideTab(m_stepPanel);
        return this;
    });
    registerView(QStringLiteral("notes"), [this]() -> QWidget * {
        m_notesDock->show();
        return this;
    });
    registerView(QStringLiteral("quiz"), [this]() -> QWidget * { return showQuiz()->window(); });
    registerView(QStringLiteral("guess"), [this]() -> QWidget * {
        showSideTab(m_guessPanel);
        return this;
    });
    applyClassroom();
}

void MainWindow::setStepMode(bool on)
{
    m_classroom->setStepMode(on);
    if (on)
        showSideTab(m_stepPanel, false); // beside the maps, or a tab away from them at a projector's zoom
}

void MainWindow::setAnswersHidden(bool on)
{
    m_classroom->setHidden(on);
}

void MainWindow::applyClassroom()
{
    const bool stepping = m_classroom->stepMode(), hidden = m_classroom->hidden();
    QSignalBlocker blockStep(m_stepAction), blockHide(m_hideAction);
    m_stepAction->setChecked(stepping);
    m_hideAction->setChecked(hidden);
    for (QAction *a : m_stepKeys)
        a->setEnabled(stepping);
    for (StageView *v : m_stages) {
        v->setAnswersHidden(m_classroom->stageHidden(v->stage()));
        v->setDimmed(!m_classroom->reached(v->stage()));
    }
    // A step's map that shares a place in the stage strip comes forward.
    if (stepping && m_stageStrip->count() > 0)
        if (StageView *v = stageView(stageOfStep(m_classroom->currentStep())); m_stageStrip->indexOf(v) >= 0)
            m_stageStrip->setCurrentWidget(v);
    // The heads' weights and the concatenated outputs give the answers away too.
    for (HeatmapPlot *p : allPlots())
        if (!qobject_cast<StageView *>(p) && p->objectName() != QLatin1String("positional"))
            p->setValuesHidden(hidden);
    PlanePlot *plane = vectorPlane();
    if (plane->weightsHidden() != hidden) {
        plane->setWeightsHidden(hidden);
        m_planePanel->refresh();
    }
    // The lessons' descriptions name their weights: every menu's tips with a
    // number in them go while the answers are hidden.
    static const QRegularExpression number(QStringLiteral("\\d\\.\\d"));
    for (QMenu *menu : menuBar()->findChildren<QMenu *>())
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
    if (hidden)
        statusBar()->clearMessage();
}

QuizPanel *MainWindow::showQuiz()
{
    if (!m_quiz) {
        m_quiz = new QuizPanel(this);
        m_quiz->setWindowFlag(Qt::Window);
        m_quiz->setWindowTitle(tr("Quiz — Attention Lab"));
        m_quiz->resize(900, 640);
        connect(m_quiz, &QuizPanel::openRequested, this, &MainWindow::openFromQuiz);
    }
    m_quiz->show();
    m_quiz->raise();
    m_quiz->activateWindow();
    return m_quiz;
}

void MainWindow::openFromQuiz(const QString &lesson, const QString &view, const std::map<std::string, std::string> &settings)
{
    if (!lesson.isEmpty()) {
        if (!maybeSave() || !openLesson(lesson).isEmpty())
            return;
    }
    if (!settings.empty()) {
        Scenario s = m_doc.scenario();
        for (const auto &[key, value] : settings) {
            if (key == "scale")
                s.scale = scaleFromString(value).value_or(s.scale);
            else if (key == "positional_encoding")
                s.encoding = encodingFromString(value).value_or(s.encoding);
            else if (key == "mask_stage")
                s.maskStage = maskStageFromString(value).value_or(s.maskStage);
            else if (key == "similarity")
                s.similarity = similarityFromString(value).value_or(s.similarity);
            else if (key == "causal")
                s.mask.causal = value == "true";
        }
        m_doc.edit(s, tr("Quiz setting"));
    }
    if (!view.isEmpty())
        showView(view);
    raise();
    activateWindow();
}

// ---- sweeps and hard attention (issue 10) ----------------------------------

void MainWindow::createSweeps()
{
    // Two side tabs before the positional one (which stays last): the
    // sweeps with their entropy curve, and top-k beside the softmax.
    m_sweepPanel = new SweepPanel(&m_doc, m_sideTabs);
    m_sweepPanel->setPlanePanel(m_planePanel);
    m_sideTabs->insertTab(m_sideTabs->count() - 1, m_sweepPanel, tr("&Animate"));
    m_topKPanel = new TopKPanel(&m_doc, m_sideTabs);
    m_sideTabs->insertTab(m_sideTabs->count() - 1, m_topKPanel, tr("Top-&k"));
    // What attention costs (issue 11; the quiz's 关卡四 opens it).
    m_costPanel = new CostPanel(&m_doc, m_sideTabs);
    m_sideTabs->insertTab(m_sideTabs->count() - 1, m_costPanel, tr("C&ost"));
    registerView(QStringLiteral("cost"), [this]() -> QWidget * {
        showSideTab(m_costPanel);
        return this;
    });
    connect(m_sweepPanel, &SweepPanel::message, this, [this](const QString &text) { statusBar()->showMessage(text, 6000); });
    // What a click on a map did (selected a query, or Ctrl: blocked a cell).
    for (StageView *v : m_stages)
        connect(v, &StageView::message, this, [this](const QString &text) { statusBar()->showMessage(text, 4000); });

    // A small toolbar a teacher finds: play the τ sweep or the query's turn.
    QToolBar *bar = addToolBar(tr("Animate"));
    bar->setObjectName(QStringLiteral("animateToolBar"));
    QAction *tau = bar->addAction(tr("▶ Sweep τ"), this, [this] {
        showSideTab(m_sweepPanel, false); // the maps follow the animation: they stay in view
        if (m_sweepPanel->isPlaying() && m_sweepPanel->mode() == SweepPanel::Mode::Temperature)
            m_sweepPanel->pause();
        else
            m_sweepPanel->playTemperature();
    });
    tau->setProperty("shortText", QStringLiteral("▶ τ"));
    tau->setToolTip(tr("Animate the temperature from 0.05 to 20 and back while the maps follow (the Animate tab)"));
    QAction *turn = bar->addAction(tr("▶ Turn the query"), this, [this] {
        showSideTab(m_sweepPanel, false); // the maps follow the animation: they stay in view
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
    QAction *topk = bar->addAction(tr("Top-k"), this, [this] { showSideTab(m_topKPanel); });
    topk->setToolTip(tr("Hard against soft: each row's k largest weights only, and the hard k-NN average"));

    // `--show sweep`: the τ sweep paused at a low τ (0.2), its curves beside the maps.
    registerView(QStringLiteral("sweep"), [this]() -> QWidget * {
        showSideTab(m_sweepPanel);
        m_sweepPanel->showTemperatureFrame(14);
        return this;
    });
    registerView(QStringLiteral("topk"), [this]() -> QWidget * {
        showSideTab(m_topKPanel);
        return this;
    });
}

// ---- Issue 10: A/B, two versions side by side ----

namespace {

// A built-in comparison: the lesson file's "compare" object.
struct ComparisonSpec {
    QString a;          // the lesson pinned as A
    bool align = false; // align by token
    QString stage;      // "weights", ...
};

std::optional<ComparisonSpec> comparisonOf(const Scenario &s)
{
    if (s.extra.empty())
        return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(s.extra)).object();
    const QJsonObject c = o.value(QLatin1String("compare")).toObject();
    if (c.value(QLatin1String("a")).toString().isEmpty())
        return std::nullopt;
    return ComparisonSpec{c.value(QLatin1String("a")).toString(), c.value(QLatin1String("align_by_token")).toBool(),
                          c.value(QLatin1String("stage")).toString()};
}

std::optional<ComparisonSpec> comparisonOf(const QString &lesson)
{
    const ScenarioOrProblem r = loadLesson(lesson);
    if (const auto *s = std::get_if<Scenario>(&r))
        return comparisonOf(*s);
    return std::nullopt;
}

} // namespace

CompareView *MainWindow::compareView()
{
    if (!m_compare) {
        m_compare = new CompareView(&m_doc, this);
        m_compare->setWindowFlag(Qt::Window);
        m_compare->setWindowTitle(tr("A/B — Attention Lab"));
        connect(m_compare, &CompareView::message, this, [this](const QString &text) { statusBar()->showMessage(text, 5000); });
        // Right-click any of the three maps: the A/B figure or the difference map, PNG, SVG or PDF.
        for (HeatmapPlot *plot : {m_compare->figure()->plotA(), m_compare->figure()->plotB(), m_compare->figure()->plotDiff()}) {
            plot->setContextMenuPolicy(Qt::CustomContextMenu);
            connect(plot, &QWidget::customContextMenuRequested, this, [this, plot](const QPoint &pos) {
                QMenu menu;
                auto exportIt = [this](bool difference) {
                    const QString stem = exportStem() + (difference ? QStringLiteral("_diff_") : QStringLiteral("_compare_"))
                        + stageKey(m_compare->stage());
                    const QString path = QFileDialog::getSaveFileName(
                        this, difference ? tr("Export the difference map") : tr("Export the A/B figure"),
                        QDir(prefs::lastFolder.get()).filePath(stem + QStringLiteral(".png")),
                        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
                    if (path.isEmpty())
                        return;
                    const FigureFormat format = figureFormatFromName(QFileInfo(path).suffix()).value_or(FigureFormat::Png);
                    FigureSize size;
                    if (!difference)
                        size.width = 1800, size.height = 700;
                    const QByteArray bytes = difference ? renderDifferenceFigure(m_compare->maps(), figureStyle(), format, size)
                                                        : renderCompareFigure(m_compare->maps(), figureStyle(), format, size);
                    if (const auto p = writeFileAtomically(path, bytes))
                        exportFailed(problemText(*p));
                    else
                        statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 4000);
                };
                menu.addAction(tr("Export the A/B figure…"), this, [exportIt] { exportIt(false); });
                menu.addAction(tr("Export the difference map…"), this, [exportIt] { exportIt(true); });
                menu.exec(plot->mapToGlobal(pos));
            });
        }
        connect(m_compare, &CompareView::pinnedChanged, this, [this](bool pinned) {
            if (m_unpinAction)
                m_unpinAction->setEnabled(pinned);
            if (!pinned && m_compare)
                m_compare->hide();
        });
    }
    return m_compare;
}

CompareView *MainWindow::showCompare()
{
    CompareView *view = compareView();
    if (!view->isVisible()) {
        const QRect screen = this->screen() ? this->screen()->availableGeometry() : QRect(0, 0, 1600, 1000);
        view->resize(std::min(std::max(width(), 1000), screen.width()), std::min(std::max(height() * 3 / 4, 600), screen.height()));
    }
    view->show();
    view->raise();
    view->activateWindow();
    return view;
}

void MainWindow::pinAsA()
{
    compareView()->pinCurrent();
    showCompare();
}

bool MainWindow::openComparison(const QString &lessonName)
{
    const auto spec = comparisonOf(lessonName);
    if (!spec)
        return false;
    const ScenarioOrProblem loaded = loadLesson(spec->a);
    const auto *a = std::get_if<Scenario>(&loaded);
    if (!a)
        return false;
    Scenario pinned = *a;
    const LessonInfo local = lessonInfo(spec->a, QLocale().name());
    pinned.title = local.title.toStdString();
    CompareView *view = compareView();
    view->pin(pinned, local.title);
    view->setAlignByToken(spec->align);
    if (const auto stage = stageFromKey(spec->stage))
        view->setStage(*stage);
    showCompare();
    return true;
}

bool MainWindow::maybeSwitch()
{
    // A document with a file: the usual question.
    if (!m_doc.filePath().isEmpty())
        return maybeSave();
    if (!m_doc.isModified() || !m_interactive)
        return true;
    // A built-in lesson (or a new document) is not a file: nothing to save
    // into. Offer to keep it as A beside the next one instead.
    QMessageBox box(QMessageBox::Question, tr("Changed lesson"),
                    tr("%1 has changes. Keep it as A, to compare with the lesson you open?").arg(m_doc.displayName()),
                    QMessageBox::NoButton, this);
    QPushButton *keep = box.addButton(tr("Keep as A"), QMessageBox::AcceptRole);
    QPushButton *drop = box.addButton(tr("Just switch"), QMessageBox::DestructiveRole);
    QPushButton *saveCopy = box.addButton(tr("Save a copy…"), QMessageBox::ActionRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(keep);
    box.exec();
    if (box.clickedButton() == keep) {
        compareView()->pinCurrent();
        showCompare();
        return true;
    }
    if (box.clickedButton() == saveCopy)
        return saveAs();
    return box.clickedButton() == drop;
}

void MainWindow::createCompare()
{
    QMenu *menu = menuBar()->addMenu(tr("&Compare"));
    menu->setToolTipsVisible(true);
    QAction *pin = menu->addAction(tr("&Pin as A"), this, &MainWindow::pinAsA);
    pin->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+P")));
    pin->setToolTip(tr("Pin the current state as A; keep changing the document (B) and compare them side by side"));
    pin->setObjectName(QStringLiteral("pinAsA"));
    m_unpinAction = menu->addAction(tr("&Unpin (back to A)"), this, [this] { compareView()->unpin(); });
    m_unpinAction->setEnabled(false);
    m_unpinAction->setObjectName(QStringLiteral("unpinA"));
    menu->addAction(tr("Show A/B"), this, &MainWindow::showCompare);
    menu->addSeparator();
    for (const LessonInfo &l : builtInLessons(QLocale().name())) {
        if (!comparisonOf(l.name))
            continue;
        QAction *a = menu->addAction(l.title);
        a->setToolTip(l.description);
        a->setStatusTip(l.description);
        connect(a, &QAction::triggered, this, [this, name = l.name] {
            if (maybeSwitch())
                openLesson(name);
        });
    }
    // The Attention menu's and the toolbar's way in.
    for (QAction *action : menuBar()->actions())
        if (action->menu() && action->menu()->title() == tr("&Attention")) {
            action->menu()->addSeparator();
            action->menu()->addAction(pin);
        }
    // On the Animate toolbar (issue 10's other experiments), not a toolbar
    // of its own: one more toolbar wraps to a second row on a projector and
    // takes height from the maps.
    QToolBar *bar = findChild<QToolBar *>(QStringLiteral("animateToolBar"));
    if (!bar) {
        bar = addToolBar(tr("A/B"));
        bar->setObjectName(QStringLiteral("compareToolBar"));
    }
    bar->addSeparator();
    bar->addAction(pin);
    bar->addAction(m_unpinAction);
    pin->setProperty("shortText", tr("Pin A"));
    m_unpinAction->setProperty("shortText", tr("Unpin"));
    fitToolBarTexts();

    // `--show compare`: A/B of the lesson open. Nothing pinned yet: the
    // built-in comparison whose A is this lesson (permutation: 你打我
    // aligned by token), or the current state pinned.
    registerView(QStringLiteral("compare"), [this]() -> QWidget * {
        if (!compareView()->isPinned()) {
            QString partner;
            for (const QString &name : lessonIndex())
                if (const auto spec = comparisonOf(name); spec && spec->a == m_doc.lessonName()) {
                    partner = name;
                    break;
                }
            if (!partner.isEmpty())
                openLesson(partner);
            else
                compareView()->pinCurrent();
        }
        return showCompare();
    });
}

// Issue 13: the model mode.

void MainWindow::createModelMode()
{
    // The lab's central widget and the model view share the centre; the
    // model mode also puts the lab's docks and toolbars away (m_labState).
    QWidget *lab = takeCentralWidget();
    m_modes = new QStackedWidget(this);
    m_modes->setObjectName(QStringLiteral("modes"));
    m_modes->addWidget(lab);
    m_modelView = new ModelView(m_modes);
    m_modes->addWidget(m_modelView);
    setCentralWidget(m_modes);

    connect(m_modelView, &ModelView::leaveRequested, this, [this] { setModelMode(false); });
    connect(m_modelView, &ModelView::takeHeadRequested, this,
            [this](const Scenario &head, const QString &description) { takeHeadIntoLab(head, description); });
    connect(m_modelView, &ModelView::exportRequested, this, &MainWindow::exportModelFigure);

    m_modelModeAction = new QAction(tr("&Model mode"), this);
    m_modelModeAction->setObjectName(QStringLiteral("modelMode"));
    m_modelModeAction->setCheckable(true);
    m_modelModeAction->setToolTip(tr("A real transformer reading a sentence: every layer and head (the built-in model unless you opened one)"));
    connect(m_modelModeAction, &QAction::triggered, this, [this](bool on) {
        if (on && !m_modelView->model() && !openBuiltinModel().isEmpty()) {
            m_modelModeAction->setChecked(false);
            return;
        }
        setModelMode(on);
    });
    for (QAction *action : menuBar()->actions())
        if (action->menu() && action->menu()->title() == tr("&View")) {
            QMenu *view = action->menu();
            QAction *before = nullptr;
            for (QAction *a : view->actions())
                if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L)) // after the √d_k lab
                    before = a;
            const int at = view->actions().indexOf(before);
            view->insertAction(at >= 0 && at + 1 < view->actions().size() ? view->actions()[at + 1] : nullptr, m_modelModeAction);
        }

    // `--show model`: the built-in model reading a sentence where its
    // induction head (layer 3, head 1) has something to copy.
    registerView(QStringLiteral("model"), [this]() -> QWidget * {
        if (!m_modelView->model() && !openBuiltinModel().isEmpty())
            return nullptr;
        setModelMode(true);
        return this;
    });
}

bool MainWindow::modelMode() const
{
    return m_modes && m_modes->currentWidget() == m_modelView;
}

void MainWindow::setModelMode(bool on)
{
    if (!m_modes || on == modelMode())
        return;
    if (on) {
        m_labState = saveState();
        for (QDockWidget *d : findChildren<QDockWidget *>())
            if (d->parentWidget() == this)
                d->hide();
        for (QToolBar *t : findChildren<QToolBar *>())
            if (t->parentWidget() == this)
                t->hide();
        m_modes->setCurrentWidget(m_modelView);
        m_modelView->sentenceField()->setFocus();
    } else {
        m_modes->setCurrentIndex(0);
        restoreState(m_labState);
    }
    if (m_modelModeAction)
        m_modelModeAction->setChecked(on);
}

QString MainWindow::openModel(const QString &folder)
{
    const ModelOrProblem loaded = loadModel(folder);
    if (const auto *p = std::get_if<Problem>(&loaded)) {
        const QString name = QFileInfo(folder).fileName().isEmpty() ? folder : QFileInfo(folder).fileName();
        const QString message = tr("The model %1 was not opened: %2").arg(name, problemText(*p));
        showProblem(message);
        if (m_interactive)
            QMessageBox::warning(this, tr("Cannot open the model %1").arg(name), message);
        return message;
    }
    m_modelView->setModel(std::get<std::shared_ptr<const Gpt2Model>>(loaded));
    if (m_modelView->text().trimmed().isEmpty())
        m_modelView->setText(QStringLiteral("the cat sat on the mat . the cat sat on the mat ."));
    prefs::lastFolder.set(QFileInfo(folder).absolutePath());
    setModelMode(true);
    statusBar()->showMessage(tr("Opened the model %1").arg(QDir::toNativeSeparators(folder)), 4000);
    return QString();
}

QString MainWindow::openBuiltinModel()
{
    if (m_modelView->model() && m_modelView->model()->folder == QLatin1String(kBuiltinModelFolder))
        return QString();
    const ModelOrProblem loaded = loadBuiltinModel();
    if (const auto *p = std::get_if<Problem>(&loaded)) {
        const QString message = tr("The built-in model was not opened: %1").arg(problemText(*p));
        showProblem(message);
        return message;
    }
    m_modelView->setModel(std::get<std::shared_ptr<const Gpt2Model>>(loaded));
    if (m_modelView->text().trimmed().isEmpty()) {
        // The induction head (layer 3, head 1) copies the span's second
        // time: from "red" it looks at "box", the token the model then predicts.
        m_modelView->setText(QStringLiteral("say cat red box . say cat red"));
        m_modelView->setHead(2, 0);
    }
    return QString();
}

std::optional<Problem> MainWindow::takeHeadIntoLab(const Scenario &head, const QString &description)
{
    if (auto p = m_doc.edit(head, description)) {
        showProblem(problemText(*p)); // the document refused it and stays as it was
        return p;
    }
    m_doc.setCurrentHead(0);
    setModelMode(false);
    statusBar()->showMessage(tr("%1 is now the lab's document; Edit ▸ Undo brings back what was open before")
                                 .arg(QString::fromStdString(head.title)),
                             8000);
    return std::nullopt;
}

void MainWindow::exportModelFigure(ModelFigure what)
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export figure"), QDir(prefs::lastFolder.get()).filePath(m_modelView->figureStem(what) + QStringLiteral(".png")),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    const FigureFormat format = figureFormatFromName(QFileInfo(path).suffix()).value_or(FigureFormat::Png);
    FigureSize size;
    if (what == ModelFigure::Overview)
        size.width = 1200, size.height = 900;
    const QByteArray bytes = m_modelView->figure(what, figureStyle(), format, size);
    if (bytes.isEmpty()) {
        exportFailed(tr("Nothing to export yet: type a sentence the model can read"));
        return;
    }
    if (const auto p = writeFileAtomically(path, bytes))
        exportFailed(problemText(*p));
    else
        statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 4000);
}

} // namespace attn
