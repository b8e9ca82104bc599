#include "mainwindow.h"
#include "traininglab.h"
#include "trainingmode.h"
#include "encodermode.h"
#include "encoderview.h"
#include "translatormode.h"
#include "translatorview.h"
#include "projectorlayout.h"
#include "recovery.h"
#include "windowexport.h"

#include "classroommode.h"
#include "comparemode.h"
#include "gradients.h"
#include "labmode.h"
#include "lessons.h"
#include "matrixpanel.h"
#include "modelmode.h"
#include "modelview.h"
#include "planepanel.h"
#include "planeplot.h"
#include "preferences.h"
#include "scalinglabpanel.h"
#include "scenario_json.h"
#include "settingsbar.h"
#include "sidetabs.h"
#include "stageviews.h"
#include "sweepsmode.h"
#include "gradientmode.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>

#include <cmath>

namespace attn {

namespace {

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

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setObjectName(QStringLiteral("MainWindow"));
    m_baseFontSize = QApplication::font().pointSizeF() > 0 ? QApplication::font().pointSizeF() : 10.0;
    // The lab first: the other modes add to it. Its maps page, side tabs
    // and docks are what the projector layout arranges.
    addMode(m_lab = new LabMode(*this));
    m_projector = new ProjectorLayout(*this, *m_lab);
    createStatusBar();
    createMenus();
    addMode(m_sweepsMode = new SweepsMode(*this));
    addMode(m_gradientMode = new GradientMode(*this));
    addMode(m_classroomMode = new ClassroomMode(*this));
    addMode(m_compareMode = new CompareMode(*this));
    addMode(m_modelMode = new ModelMode(*this));
    addMode(m_trainingMode = new TrainingMode(*this, *m_modelMode));
    addMode(m_encoderMode = new EncoderMode(*this, *m_modelMode));
    addMode(m_translatorMode = new TranslatorMode(*this, *m_modelMode));

    connect(&m_doc, &Document::fileStateChanged, this, &MainWindow::updateTitle);
    connect(&m_doc, &Document::problemReported, this, &MainWindow::showProblem);

    m_lab->placeSettingsBar();
    readSettings();
    updateTitle();
}

MainWindow::~MainWindow()
{
    // The views read the document while they close; it is a member and
    // would die before them.
    m_doc.disconnect(this);
    m_doc.disconnect(m_projector);
    for (Mode *mode : m_modes)
        m_doc.disconnect(mode);
    qDeleteAll(findChildren<QWidget *>(QString(), Qt::FindDirectChildrenOnly));
}

void MainWindow::addMode(Mode *mode)
{
    m_modes.push_back(mode);
    if (!m_current)
        m_current = mode; // the first, the lab, is in view
    QWidget *centre = mode->centralWidget();
    if (!centre || mode == m_lab)
        return;
    if (!m_centre) {
        // The lab's central widget and the other modes' share the centre.
        QWidget *lab = takeCentralWidget();
        m_centre = new QStackedWidget(this);
        m_centre->setObjectName(QStringLiteral("modes"));
        m_centre->addWidget(lab);
        m_centre->addWidget(centre);
        setCentralWidget(m_centre);
        return;
    }
    m_centre->addWidget(centre);
}

void MainWindow::switchMode(Mode *mode)
{
    if (!m_centre || !mode || mode == m_current || !mode->centralWidget())
        return;
    Mode *was = m_current;
    if (was == m_lab) {
        // Another mode has the whole window: the lab's docks and toolbars go
        // away, and come back as they were (m_labState).
        m_labState = saveState();
        for (QDockWidget *d : findChildren<QDockWidget *>())
            if (d->parentWidget() == this)
                d->hide();
        for (QToolBar *t : findChildren<QToolBar *>())
            if (t->parentWidget() == this)
                t->hide();
    } else {
        for (QDockWidget *d : was->dockWidgets())
            d->hide();
        for (QToolBar *t : was->toolBars())
            t->hide();
    }
    was->deactivate();
    m_centre->setCurrentWidget(mode->centralWidget());
    m_current = mode;
    if (mode == m_lab) {
        restoreState(m_labState);
        m_projector->schedule(ProjectorLayout::Refit::Tabs); // what changed while away (a head taken)
    } else {
        for (QDockWidget *d : mode->dockWidgets())
            d->show();
        for (QToolBar *t : mode->toolBars())
            t->show();
    }
    mode->activate();
}

void MainWindow::createStatusBar()
{
    m_export = new WindowExport(&m_doc, this, [this] { return figureStyle(); }, [this] { return planeView(); });
    connect(m_export, &WindowExport::done, this, [this](const QString &message) { statusBar()->showMessage(message, 5000); });
    connect(m_export, &WindowExport::failed, this, &MainWindow::exportFailed);
    for (StageView *v : m_lab->stageViews())
        m_export->addFigureMenu(v, ExportDialog::whatOf(v->stage()));
    m_export->addFigureMenu(vectorPlane(), ExportDialog::What::Plane);

    // Why the maps write fewer than four decimals, where they do: the same
    // number everywhere, and said once.
    m_decimalsNote = new QLabel(this);
    m_decimalsNote->setObjectName(QStringLiteral("decimalsNote"));
    statusBar()->addPermanentWidget(m_decimalsNote);
    m_decimalsNote->hide();
    for (StageView *v : m_lab->stageViews())
        connect(v, &HeatmapPlot::decimalsFitChanged, this, &MainWindow::updateDecimalsNote, Qt::QueuedConnection);

    m_statusProblem = new QLabel(this);
    m_statusProblem->setStyleSheet(QStringLiteral("color: #b00020;"));
    // Permanent: a passing message ("Saved …") must not hide why an edit was refused.
    statusBar()->addPermanentWidget(m_statusProblem); // no stretch: passing messages keep the room left of it
    m_statusProblem->hide();
}

void MainWindow::updateDecimalsNote()
{
    // The maps agree on one number of decimals (agreeOnDecimals): the
    // fewest any map in view draws is theirs.
    // Maps of big values (a model's scores, |s| ≥ 10) write one or no
    // decimal by their values, not for want of room: they do not count.
    int cap = 5;
    for (StageView *v : m_lab->stageViews())
        if (v->isVisible() && v->cellTextVisible() && v->drawnDecimals() >= 2)
            cap = std::min(cap, v->drawnDecimals());
    const bool drawn = cap <= 4;
    if (drawn && cap < 4)
        //: In the status bar at a projector's zoom: why every map writes fewer decimals. Short: the line holds little.
        m_decimalsNote->setText(tr("%1 decimals in every map: 4 do not fit at this size").arg(cap));
    m_decimalsNote->setVisible(drawn && cap < 4);
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    m_projector->shown();
    QTimer::singleShot(0, this, &MainWindow::updateDecimalsNote);
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    m_projector->resized(event);
}

void MainWindow::fitToolBarTexts()
{
    m_projector->fitToolBarTexts();
}

// ---- the lab's parts, as the tests and the command line reach them ----

MatrixPanel *MainWindow::matrixPanel() const { return m_lab->matrixPanel(); }
TogglePanel *MainWindow::togglePanel() const { return m_lab->togglePanel(); }
SettingsActions *MainWindow::settingsActions() const { return m_lab->settingsActions(); }
PlanePanel *MainWindow::planePanel() const { return m_lab->planePanel(); }
PlanePlot *MainWindow::vectorPlane() const { return m_lab->vectorPlane(); }
StageView *MainWindow::stageView(Stage stage) const { return m_lab->stageView(stage); }
QTabWidget *MainWindow::sideTabs() const { return m_lab->sideTabs(); }
QStringList MainWindow::sideTabNamesCut() const { return m_lab->sideBox()->namesCut(); }
SettingsBar *MainWindow::settingsBar() const { return m_lab->settingsBar(); }
bool MainWindow::mapsTabbed() const { return m_lab->mapsTabbed(); }
int MainWindow::strippedMaps() const { return m_lab->strippedMaps(); }
QTabWidget *MainWindow::stageStrip() const { return m_lab->stageStrip(); }
void MainWindow::showStage(Stage stage) { m_lab->showStage(stage); }
void MainWindow::showSideTab(QWidget *page, bool overMaps) { m_lab->showSideTab(page, overMaps); }
bool MainWindow::panelsFoldedByZoom() const { return m_projector->panelsFoldedByZoom(); }

bool MainWindow::mapsReadable() const
{
    return m_lab->unreadableMaps(cellTextMode(), 1) == 0;
}

CellTextMode MainWindow::cellTextMode() const
{
    return CellTextMode(m_cellTextGroup->checkedAction()->data().toInt());
}

// ---- the other modes ----

SweepPanel *MainWindow::sweepPanel() const { return m_sweepsMode->sweepPanel(); }
TopKPanel *MainWindow::topKPanel() const { return m_sweepsMode->topKPanel(); }
Classroom *MainWindow::classroom() const { return m_classroomMode->classroom(); }
StepPanel *MainWindow::stepPanel() const { return m_classroomMode->stepPanel(); }
GuessPanel *MainWindow::guessPanel() const { return m_classroomMode->guessPanel(); }
NotesPanel *MainWindow::notesPanel() const { return m_classroomMode->notesPanel(); }
QDockWidget *MainWindow::notesDock() const { return m_classroomMode->notesDock(); }
QuizPanel *MainWindow::showQuiz() { return m_classroomMode->showQuiz(); }
void MainWindow::setStepMode(bool on) { m_classroomMode->setStepMode(on); }
void MainWindow::setAnswersHidden(bool on) { m_classroomMode->setAnswersHidden(on); }
CompareView *MainWindow::compareView() { return m_compareMode->compareView(); }
CompareView *MainWindow::showCompare() { return m_compareMode->showCompare(); }
void MainWindow::pinAsA() { m_compareMode->pinAsA(); }
bool MainWindow::openComparison(const QString &lessonName) { return m_compareMode->openComparison(lessonName); }
bool MainWindow::maybeSwitch() { return m_compareMode->maybeSwitch(); }
ModelView *MainWindow::modelView() const { return m_modelMode->modelView(); }
std::optional<Problem> MainWindow::openModel(const QString &folder) { return m_modelMode->openModel(folder); }
std::optional<Problem> MainWindow::openBuiltinModel() { return m_modelMode->openBuiltinModel(); }

std::optional<Problem> MainWindow::takeHeadIntoLab(const Scenario &head, const QString &description)
{
    return m_modelMode->takeHeadIntoLab(head, description);
}

bool MainWindow::modelMode() const
{
    return m_modelMode && m_current == m_modelMode;
}

void MainWindow::setModelMode(bool on)
{
    if (m_modelMode)
        switchMode(on ? static_cast<Mode *>(m_modelMode) : m_lab);
}

// ---- what the window keeps ----

std::vector<HeatmapPlot *> MainWindow::allPlots() const
{
    std::vector<HeatmapPlot *> out;
    for (HeatmapPlot *p : findChildren<HeatmapPlot *>())
        out.push_back(p);
    return out;
}

void MainWindow::readSettings()
{
    // The last session's place and size only where they fit a screen now: a
    // session on a 1920x1080 projector must not reopen partly off a 1600x1000 one.
    const QByteArray geometry = prefs::windowGeometry.get();
    if (geometry.isEmpty() || !restoreGeometry(geometry) || !fitsScreen()) {
        const QScreen *on = QGuiApplication::screenAt(pos()) ? QGuiApplication::screenAt(pos()) : this->screen();
        const QRect screen = on ? on->availableGeometry() : QRect(0, 0, 1600, 1000);
        setWindowState(windowState() & ~(Qt::WindowMaximized | Qt::WindowFullScreen));
        // Room for the window's frame and title bar: whole on the screen, not under its edges.
        resize(std::min(1600, screen.width() - 16), std::min(1000, screen.height() - 48));
        move(screen.topLeft() + QPoint((screen.width() - width()) / 2, (screen.height() - height()) / 2));
    }
    restoreState(prefs::windowState.get());
    settingsBar()->setVisible(m_lab->settingsDock()->isHidden());
    m_lab->placeSettingsBar();

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
    for (StageView *v : m_lab->stageViews())
        v->setSharedScoreRange(m_sharedRange->isChecked());
    applyGradients();
    applyCellText();
    setZoom(prefs::zoom.get(), false);
}

bool MainWindow::fitsScreen() const
{
    // Maximized or full screen, the window system fits it to the screen it is on.
    const QScreen *on = QGuiApplication::screenAt(geometry().center());
    return on && (isMaximized() || isFullScreen() || on->availableGeometry().contains(geometry()));
}

void MainWindow::writeSettings()
{
    prefs::windowGeometry.set(saveGeometry());
    prefs::windowState.set(m_current == m_lab ? saveState() : m_labState); // the lab's panels, not another mode's
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
    if (m_modelMode)
        modelView()->overview()->setGradient(sequentialGradient(seq));
    if (m_trainingMode)
        m_trainingMode->view()->probeGrid()->setGradient(sequentialGradient(seq));
    if (m_encoderMode)
        m_encoderMode->view()->grid()->setGradient(sequentialGradient(seq));
    if (m_translatorMode)
        m_translatorMode->view()->grid()->setGradient(sequentialGradient(seq));
}

void MainWindow::applyCellText()
{
    const CellTextMode mode = cellTextMode();
    for (StageView *v : m_lab->stageViews())
        v->setCellText(mode);
    for (HeatmapPlot *p : allPlots())
        if (!p->isCompact() && !qobject_cast<StageView *>(p))
            p->setCellText(mode);
}

void MainWindow::setPanelsShown(bool shown)
{
    m_projector->forgetFoldedPanels();
    QList<QPointer<QDockWidget>> back = std::exchange(m_hiddenPanels, {});
    for (QDockWidget *d : m_lab->dockWidgets())
        back << d;
    for (QDockWidget *d : findChildren<QDockWidget *>()) {
        if (!shown && d->isVisible())
            m_hiddenPanels << d;
        if (!shown || back.contains(d))
            d->setVisible(shown);
    }
}

void MainWindow::setPanelsShownByUser(bool shown)
{
    setPanelsShown(shown);
    m_projector->panelsChosen(shown); // the teacher's choice: the zoom leaves it alone
}

QWidget *MainWindow::panelsNotice() const
{
    return m_projector->panelsNotice();
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
    m_lab->updateMapWidths();
    // Once the new font has reached the toolbars' buttons.
    QTimer::singleShot(0, this, &MainWindow::fitToolBarTexts);
    // The panels' text grows with the zoom; so does their column, within reason.
    // After the fonts have settled and the window has its size.
    QTimer::singleShot(0, this, [this] {
        QDockWidget *inputs = m_lab->inputsDock();
        if (inputs && !inputs->isFloating()) {
            // The inputs' own width where the window has it (their scroll
            // area is for a small screen, not a default).
            const double wanted = std::max(400 * m_zoom, matrixPanel()->minimumSizeHint().width() + 24.0);
            resizeDocks({inputs}, {int(std::min(wanted, 0.42 * width()))}, Qt::Horizontal);
        }
        QTimer::singleShot(0, this, [this] { m_projector->fit(ProjectorLayout::Refit::All); });
    });
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

bool MainWindow::isWorking() const
{
    return m_scalingLab && m_scalingLab->isVisible() && m_scalingLab->isBusy();
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

void MainWindow::showMessage(const QString &text, int milliseconds)
{
    statusBar()->showMessage(text, milliseconds);
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
    style.cellText = cellTextMode();
    style.stage.head = m_doc.currentHead();
    style.stage.sharedScoreRange = m_sharedRange->isChecked();
    return style;
}

PlaneView MainWindow::planeView() const
{
    const PlanePanel *plane = planePanel();
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

// ---- files ----

std::optional<Problem> MainWindow::openFile(const QString &path)
{
    const ScenarioOrProblem loaded = loadScenarioFile(path);
    if (const auto *p = std::get_if<Problem>(&loaded)) {
        const QString message = tr("%1 was not opened: %2").arg(QFileInfo(path).fileName(), problemText(*p));
        showProblem(message);
        if (m_interactive)
            QMessageBox::warning(this, tr("Cannot open %1").arg(QFileInfo(path).fileName()), message);
        return Problem{std::string(), message.toStdString()}; // as shown: the file's name and the reason
    }
    m_doc.replace(std::get<Scenario>(loaded), QFileInfo(path).absoluteFilePath());
    setModelMode(false);
    prefs::lastFolder.set(QFileInfo(path).absolutePath());
    addRecentFile(QFileInfo(path).absoluteFilePath());
    statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), 4000);
    return std::nullopt;
}

std::optional<Problem> MainWindow::openLesson(const QString &name)
{
    const ScenarioOrProblem loaded = loadLesson(name);
    if (const auto *p = std::get_if<Problem>(&loaded)) {
        showProblem(problemText(*p));
        return *p;
    }
    Scenario s = std::get<Scenario>(loaded);
    const LessonInfo local = lessonInfo(name, QLocale().name()); // the title in the window's language
    s.title = local.title.toStdString();
    s.description = local.description.toStdString();
    m_doc.replace(s, QString(), name);
    setModelMode(false);
    prefs::lastLesson.set(name);
    openComparison(name); // a built-in comparison: A pinned beside it
    return std::nullopt;
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

} // namespace attn
