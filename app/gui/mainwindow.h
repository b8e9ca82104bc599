#pragma once
// The window a teacher opens in front of a class: the input matrices on the
// left, every stage of the computation as a heatmap in the centre, the
// settings on the right, the formula on top.

#include "document.h"
#include "explain.h"
#include "exportdialog.h"
#include "figureexport.h"

#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>

#include <functional>
#include <limits>
#include <map>
#include <vector>

class QAction;
class QDockWidget;
class QActionGroup;
class QLabel;
class QMenu;
class QHBoxLayout;
class QStackedWidget;
class QTabWidget;
class QTimer;
class QVBoxLayout;

namespace attn {

class FormulaBar;
class Classroom;
class StepPanel;
class GuessPanel;
class NotesPanel;
class QuizPanel;
class HeatmapPlot;
class MatrixPanel;
class Recovery;
class SettingsActions;
class WindowExport;
class StageView;
class TogglePanel;
class PlanePanel;
class ScalingLabPanel;
class CompareView;
class SweepPanel;
class TopKPanel;
class PlanePlot;
class ModelView;
class SettingsBar;
class CostPanel;
enum class ModelFigure;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    Document *document() { return &m_doc; }
    MatrixPanel *matrixPanel() const { return m_matrices; }
    TogglePanel *togglePanel() const { return m_toggles; }
    SettingsActions *settingsActions() const { return m_settings; }
    PlanePanel *planePanel() const { return m_planePanel; }
    // The √d_k lab in a window of its own (View ▸ √d_k lab), made on first use; shown and raised.
    ScalingLabPanel *showScalingLab();
    StageView *stageView(Stage stage) const;
    QTabWidget *sideTabs() const { return m_sideTabs; }
    // The side tabs' names, each whole in view (a wrapping row of buttons
    // over the pages, not a scrolling tab bar): what is cut or out of view.
    QStringList sideTabNamesCut() const;
    PlanePlot *vectorPlane() const;

    // Loads a file or a built-in lesson. On a problem the open document
    // stays as it was and the message is shown (and returned).
    QString openFile(const QString &path);
    QString openLesson(const QString &name);
    bool saveTo(const QString &path);

    // 1.0 is the system font size; the projector wants 1.5 or more.
    void setZoom(double zoom, bool announce = true); // announce: "Zoom 150%" in the status bar
    double zoom() const { return m_zoom; }
    // The inputs and settings panels; hidden, the maps get the window (F9).
    void setPanelsShown(bool shown);
    // The settings in one row, shown while the settings panel is hidden.
    SettingsBar *settingsBar() const { return m_settingsBar; }
    // Every stage map shows its numbers, its whole title and (weights) its
    // row notes; checked to fold the panels away at a projector's zoom.
    bool mapsReadable() const;
    // From this zoom on, the layout gives the maps the room they need
    // (fitLayout): the panels fold into the settings bar, then the maps
    // become the first of the side tabs and take the whole width.
    static constexpr double kProjectorZoom = 1.25;
    bool mapsTabbed() const;
    // How many of the score maps (the last ones of scores, scaled, masked)
    // share a place as tabs of a stage strip: 0, 2 or 3.
    int strippedMaps() const;
    QTabWidget *stageStrip() const { return m_stageStrip; }
    // Brings a stage's map into view: the Maps tab, its tab in the strip.
    void showStage(Stage stage);
    bool panelsFoldedByZoom() const { return m_panelsFoldedByZoom; }

    // Writes a figure (WindowExport); nothing is left half-written on a problem.
    std::optional<Problem> exportFigure(ExportDialog::What what, FigureFormat format, const FigureSize &size, const QString &path);
    // The View menu's look, and the head shown: what exports draw with.
    FigureStyle figureStyle() const;
    // What the exported plane shows: the head, query and axes of the one on screen.
    PlaneView planeView() const;
    // The start of exported files' names: the lesson or file name.
    QString exportStem() const;
    QImage figureImage(ExportDialog::What what) const;

    // Views a script can ask for by name (`attention-lab --show NAME`): each
    // feature registers its own. showView() shows it and returns the widget
    // to grab (the main window, or a window of its own), or null for an
    // unknown name; viewNames() lists them for the error message.
    using ViewOpener = std::function<QWidget *()>;
    void registerView(const QString &name, ViewOpener open);
    QWidget *showView(const QString &name);
    QStringList viewNames() const;

    // Sweeps and hard attention (issue 10): the Animate and Top-k tabs.
    SweepPanel *sweepPanel() const { return m_sweepPanel; }
    TopKPanel *topKPanel() const { return m_topKPanel; }

    // Autosave into `folder` from now on (Recovery), after offering to
    // restore the work a crashed or killed window left there.
    void startRecovery(const QString &folder);

    // Teaching in front of the class (issue 11): step mode, hide mode (a
    // view state: never saved, off at every start), the step panel, the
    // guesses, the lesson's notes and the seeds' quiz.
    Classroom *classroom() const { return m_classroom; }
    StepPanel *stepPanel() const { return m_stepPanel; }
    GuessPanel *guessPanel() const { return m_guessPanel; }
    NotesPanel *notesPanel() const { return m_notesPanel; }
    QDockWidget *notesDock() const { return m_notesDock; }
    QuizPanel *showQuiz(); // its own window, made on first use
    void setStepMode(bool on);
    void setAnswersHidden(bool on);

    // A/B (issue 10): the compare view in a window of its own, made on first
    // use; pinAsA pins the current state and shows it. A built-in comparison
    // (a lesson whose file has "compare": {"a": LESSON, ...}) opens A pinned
    // and B as the document; openLesson does that for such a lesson.
    CompareView *compareView();
    CompareView *showCompare();
    void pinAsA();
    bool openComparison(const QString &lessonName);
    // Before switching lessons: asks to save only a document that has a file;
    // a changed built-in lesson may be kept as A instead, or just left.
    bool maybeSwitch();

    // The model mode (issue 13): a real GPT-2-shaped model reading a
    // sentence, in place of the lab's maps and panels (ModelView). openModel
    // reads a Hugging Face GPT-2 folder; on a problem the message is shown
    // (and returned), and the model, the mode and the document stay as they
    // were. Taking a head into the lab is one undoable edit of the document
    // and leaves the mode.
    ModelView *modelView() const { return m_modelView; }
    QString openModel(const QString &folder);
    QString openBuiltinModel();
    void setModelMode(bool on);
    bool modelMode() const;
    std::optional<Problem> takeHeadIntoLab(const Scenario &head, const QString &description);

    // Whether a message box may be shown (off for scripted screenshots and tests).
    void setInteractive(bool on) { m_interactive = on; }

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void exportFailed(const QString &message); // status bar, and a message box when interactive
    void createViews();
    void createMenus();
    void createFileMenu();
    void createEditMenu();
    void createAttentionMenu();
    void createViewMenu();
    void addLanguageMenu(QMenu *view);
    void createLessonsMenu();
    void createHelpMenu();
    void readSettings();
    void writeSettings();
    void applyGradients();
    void applyCellText();
    void updateTitle();
    void updateRecentMenu();
    void addRecentFile(const QString &path);
    void showProblem(const QString &message);
    bool maybeSave();
    void newDocument();
    void open();
    bool save();
    bool saveAs();
    std::vector<HeatmapPlot *> allPlots() const;

    // The projector layout (issue 11).
    void placeSettingsBar();
    void setPanelsShownByUser(bool shown);
    void updateMapWidths(); // F9: the zoom leaves the teacher's choice alone
    void setMapsTabbed(bool on);
    void setStrippedMaps(int count);
    void setBottomShare(int share);
    void setOutputShare(int share);
    void updateSideTabNames();
    void fitToolBarTexts(); // short texts on the first toolbar row when it is tight
    // Maps short of their numbers, title or row notes; counted up to `enough`.
    int unreadableMaps(int enough = std::numeric_limits<int>::max()) const;
    // Shows a side tab; overMaps false: not while the maps are the tab in view.
    void showSideTab(QWidget *page, bool overMaps = true);
    void settleLayout();
    // How much of the layout to decide again: Grow only gives more room (a
    // lesson or a setting changed), Tabs also takes the maps out of the tabs
    // first (a new window size), All also brings back the panels the zoom
    // folded (a new zoom).
    enum class Refit { Grow, Tabs, All };
    void fitLayout(Refit how);
    void scheduleFit(Refit how);
    QWidget *m_mapsPage = nullptr;
    QVBoxLayout *m_centralLayout = nullptr;
    QVBoxLayout *m_mapRows = nullptr;
    int m_bottomShare = 0;
    int m_outputShare = 0;
    bool m_toolBarsShort = false;
    QHBoxLayout *m_topRow = nullptr;
    QHBoxLayout *m_bottomRow = nullptr;
    QTabWidget *m_stageStrip = nullptr;
    QPointer<QWidget> m_tabBeforeMaps;
    std::vector<QPointer<QDockWidget>> m_foldedDocks;
    QTimer *m_fitTimer = nullptr;
    Refit m_fitPending = Refit::Grow;
    QSize m_askedSize; // the size before the layout's minimum grew the window
    QSize m_tabbedAt;  // the window's size when the maps went into the tabs
    bool m_panelsFoldedByZoom = false;
    bool m_fitting = false;
    // The sizes fitLayout's own steps gave the window, and when it ended: a
    // window system that confirms a top-level's resizes later sends them
    // back as resize events, which must not start the fit again.
    QList<QSize> m_fitSizes;
    QElapsedTimer m_fitEnded;

    Document m_doc;
    MatrixPanel *m_matrices = nullptr;
    TogglePanel *m_toggles = nullptr;
    FormulaBar *m_formula = nullptr;
    std::vector<StageView *> m_stages;
    QTabWidget *m_sideTabs = nullptr;
    QWidget *m_sideBox = nullptr, *m_sideTabNames = nullptr; // the side tabs and their wrapping names
    QDockWidget *m_inputsDock = nullptr;
    QDockWidget *m_settingsDock = nullptr;
    SettingsBar *m_settingsBar = nullptr;
    CostPanel *m_costPanel = nullptr;
    PlanePanel *m_planePanel = nullptr;
    ScalingLabPanel *m_scalingLab = nullptr;
    QLabel *m_statusProblem = nullptr;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_lessonsMenu = nullptr;

    SettingsActions *m_settings = nullptr;
    WindowExport *m_export = nullptr;
    QActionGroup *m_sequentialGroup = nullptr;
    QActionGroup *m_themeGroup = nullptr;
    QActionGroup *m_divergingGroup = nullptr;
    QActionGroup *m_cellTextGroup = nullptr;
    QAction *m_sharedRange = nullptr;

    double m_zoom = 1.0;
    double m_baseFontSize = 0;
    bool m_interactive = true;
    std::map<QString, ViewOpener> m_views;

    // Issue 10's A/B (mainwindow.cpp, createCompare).
    void createCompare();
    CompareView *m_compare = nullptr;
    QAction *m_unpinAction = nullptr;

    // Issue 10's sweeps (mainwindow.cpp, createSweeps).
    void createSweeps();
    SweepPanel *m_sweepPanel = nullptr;
    TopKPanel *m_topKPanel = nullptr;

    // Issue 11 (mainwindow.cpp, at its end).
    void createClassroom();
    void applyClassroom();
    void openFromQuiz(const QString &lesson, const QString &view, const std::map<std::string, std::string> &settings);
    Classroom *m_classroom = nullptr;
    StepPanel *m_stepPanel = nullptr;
    GuessPanel *m_guessPanel = nullptr;
    NotesPanel *m_notesPanel = nullptr;
    QDockWidget *m_notesDock = nullptr;
    QuizPanel *m_quiz = nullptr;
    QAction *m_stepAction = nullptr;
    QAction *m_hideAction = nullptr;
    std::vector<QAction *> m_stepKeys;
    Recovery *m_recovery = nullptr;

    // Issue 13's model mode (mainwindow.cpp, createModelMode).
    void createModelMode();
    void exportModelFigure(ModelFigure what);
    ModelView *m_modelView = nullptr;
    QStackedWidget *m_modes = nullptr;
    QAction *m_modelModeAction = nullptr;
    QByteArray m_labState; // the docks and toolbars as the lab had them, while the model mode hides them
};

} // namespace attn
