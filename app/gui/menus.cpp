// The main window's own menus: File, Edit, Attention, View, Lessons, Help.
// (The Classroom and Compare menus come with their modes.)
#include "mainwindow.h"
#include "windowexport.h"

#include "gradients.h"
#include "labmode.h"
#include "lessons.h"
#include "matrixpanel.h"
#include "planeplot.h"
#include "preferences.h"
#include "scalinglabpanel.h"
#include "settingsactions.h"
#include "stageviews.h"
#include "version.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QTabWidget>

#include <algorithm>

namespace attn {

namespace {

constexpr int kMaxRecentFiles = 8;

QAction *checkable(QActionGroup *group, const QString &text, int id)
{
    auto *a = new QAction(text, group);
    a->setCheckable(true);
    a->setData(id);
    return a;
}

} // namespace

void MainWindow::createMenus()
{
    createFileMenu();
    createEditMenu();
    createAttentionMenu();
    createViewMenu();
    createLessonsMenu();
    createHelpMenu();
}

QMenu *MainWindow::menu(const QString &objectName) const
{
    for (QAction *action : menuBar()->actions())
        if (action->menu() && action->menu()->objectName() == objectName)
            return action->menu();
    return nullptr;
}

void MainWindow::createFileMenu()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->setObjectName(QStringLiteral("fileMenu"));
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
    openModelAction->setObjectName(QStringLiteral("openModelAction"));
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
    file->addAction(tr("&Print quiz handout…"), m_export, &WindowExport::printQuizHandout)->setObjectName(QStringLiteral("printQuizHandout"));
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    updateRecentMenu();
}

void MainWindow::createEditMenu()
{
    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    edit->setObjectName(QStringLiteral("editMenu"));
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
    MatrixPanel *matrices = matrixPanel();
    edit->addAction(tr("&Add token"), QKeySequence(Qt::CTRL | Qt::Key_T), matrices, &MatrixPanel::addToken);
    edit->addAction(tr("&Remove token"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T), matrices,
                    &MatrixPanel::removeToken);
    edit->addAction(tr("Move token &up"), QKeySequence(Qt::ALT | Qt::Key_Up), matrices, [matrices] { matrices->moveToken(-1); });
    edit->addAction(tr("Move token &down"), QKeySequence(Qt::ALT | Qt::Key_Down), matrices,
                    [matrices] { matrices->moveToken(+1); });
}

void MainWindow::createAttentionMenu()
{
    // Every setting of the panel, from the keyboard; the same actions as the
    // panel's buttons (SettingsActions).
    SettingsActions *settings = settingsActions();
    QMenu *attention = menuBar()->addMenu(tr("&Attention"));
    attention->setObjectName(QStringLiteral("attentionMenu"));
    attention->addAction(settings->causal());
    attention->addAction(settings->afterSoftmax());
    attention->addAction(settings->clearMask());
    QMenu *sparse = attention->addMenu(tr("Sparse &mask"));
    sparse->setObjectName(QStringLiteral("sparseMaskMenu"));
    sparse->addActions(settings->sparseMasks()->actions());
    sparse->addSeparator();
    sparse->addAction(settings->widerWindow());
    sparse->addAction(settings->narrowerWindow());
    attention->addSeparator();
    attention->addAction(settings->plusOne());
    attention->addSeparator();
    QMenu *heads = attention->addMenu(tr("&Heads"));
    heads->addActions(settings->heads()->actions());
    heads->addSeparator();
    heads->addAction(settings->nextHead());
    heads->addAction(settings->previousHead());
    attention->addMenu(tr("&Positional encoding"))->addActions(settings->encodings()->actions());
    attention->addMenu(tr("&Scaling"))->addActions(settings->scales()->actions());
    attention->addMenu(tr("S&imilarity"))->addActions(settings->similarities()->actions());
    QMenu *temperature = attention->addMenu(tr("&Temperature"));
    temperature->addAction(settings->sharper());
    temperature->addAction(settings->flatter());
    temperature->addAction(settings->resetTemperature());
    // Turning an encoding on shows it.
    connect(settings->encodings(), &QActionGroup::triggered, this, [this] {
        if (m_doc.scenario().encoding != Encoding::None)
            showSideTab(sideTabs()->widget(sideTabs()->count() - 1), false);
    });
}

void MainWindow::createViewMenu()
{
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->setObjectName(QStringLiteral("viewMenu"));
    createLookMenus(view);
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

// The maps' look: colours, cell values, theme, one range for the score maps.
void MainWindow::createLookMenus(QMenu *view)
{
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
    connect(m_themeGroup, &QActionGroup::triggered, this, [](QAction *a) {
        const FigureTheme t = FigureTheme(a->data().toInt());
        prefs::plotTheme.set(settingsKey(t));
        setWindowPlotTheme(t);
    });
    m_sharedRange = view->addAction(tr("Score maps share one colour &range"));
    m_sharedRange->setCheckable(true);
    m_sharedRange->setToolTip(tr("Scores, scaled scores and masked scores on one scale, so that scaling visibly shrinks them"));
    connect(m_sharedRange, &QAction::toggled, this, [this](bool on) {
        prefs::sharedScoreRange.set(on);
        for (StageView *v : m_lab->stageViews())
            v->setSharedScoreRange(on);
    });
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
    m_lessonsMenu = menuBar()->addMenu(tr("&Lessons"));
    m_lessonsMenu->setObjectName(QStringLiteral("lessonsMenu"));
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
        if (!openBuiltinModel())
            setModelMode(true);
    });
    const QString tip = tr("A small GPT-2 trained on English and Chinese: type a sentence and see every layer and head");
    model->setToolTip(tip);
    model->setStatusTip(tip);
}

void MainWindow::createHelpMenu()
{
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    help->addAction(tr("&About Attention Lab"), this, [this] {
        QMessageBox::about(this, tr("About Attention Lab"),
                           tr("<h3>Attention Lab %1</h3><p>Scaled dot-product attention, live, for the classroom: "
                              "edit Q, K and V, switch masks, heads and encodings, and watch every stage change.</p>"
                              "<p>Hover a cell for its hand calculation; click a cell to select its query, "
                              "Ctrl+click it to block or open it.</p>")
                               .arg(QStringLiteral(ATTN_VERSION)));
    });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
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

} // namespace attn
