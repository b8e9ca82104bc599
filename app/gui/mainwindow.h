#pragma once
// The window a teacher opens in front of a class. It assembles the modes
// (app/modes: the lab, and what is added to it: classroom, A/B, sweeps;
// the model mode), switches between those that take the whole window, and
// keeps what they share: the document, the menus, the status bar, the
// zoom and the projector layout, exports, files, recovery.

#include "document.h"
#include "explain.h"
#include "exportdialog.h"
#include "figureexport.h"
#include "heatmapplot.h"
#include "mode.h"

#include <QMainWindow>
#include <QPointer>

#include <functional>
#include <map>
#include <optional>
#include <vector>

class QAction;
class QActionGroup;
class QLabel;
class QMenu;
class QStackedWidget;
class QTabWidget;

namespace attn {

class Classroom;
class ClassroomMode;
class CompareMode;
class CompareView;
class CostPanel;
class GuessPanel;
class LabMode;
class MatrixPanel;
class ModelMode;
class ModelView;
class NotesPanel;
class PlanePanel;
class PlanePlot;
class ProjectorLayout;
class QuizPanel;
class Recovery;
class ScalingLabPanel;
class SettingsActions;
class SettingsBar;
class StageView;
class StepPanel;
class SweepPanel;
class SweepsMode;
class GradientMode;
class TrainingMode;
class EncoderMode;
class TranslatorMode;
class TogglePanel;
class TopKPanel;
class WindowExport;

class MainWindow : public QMainWindow, public ModeHost {
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // The modes (app/modes).
    LabMode *lab() const override { return m_lab; }
    ClassroomMode *classroomMode() const { return m_classroomMode; }
    CompareMode *compareMode() const { return m_compareMode; }
    SweepsMode *sweepsMode() const { return m_sweepsMode; }
    GradientMode *gradientMode() const { return m_gradientMode; }
    ModelMode *modelModeObject() const { return m_modelMode; }
    TrainingMode *trainingMode() const { return m_trainingMode; }
    EncoderMode *encoderMode() const { return m_encoderMode; }
    TranslatorMode *translatorMode() const { return m_translatorMode; }

    Document *document() override { return &m_doc; }
    MatrixPanel *matrixPanel() const;
    TogglePanel *togglePanel() const;
    SettingsActions *settingsActions() const;
    PlanePanel *planePanel() const;
    // The √d_k lab in a window of its own (View ▸ √d_k lab), made on first use; shown and raised.
    ScalingLabPanel *showScalingLab();
    StageView *stageView(Stage stage) const;
    QTabWidget *sideTabs() const;
    // The side tabs' names, each whole in view (a wrapping row of buttons
    // over the pages, not a scrolling tab bar): what is cut or out of view.
    QStringList sideTabNamesCut() const;
    PlanePlot *vectorPlane() const;

    // Loads a file or a built-in lesson. On a problem the open document
    // stays as it was and the message is shown (and returned).
    std::optional<Problem> openFile(const QString &path);
    std::optional<Problem> openLesson(const QString &name) override;
    bool saveTo(const QString &path);

    // 1.0 is the system font size; the projector wants 1.5 or more.
    void setZoom(double zoom, bool announce = true); // announce: "Zoom 150%" in the status bar
    double zoom() const { return m_zoom; }
    // The inputs and settings panels; hidden, the maps get the window (F9).
    // Shown again: those and the others that were in view when they were
    // hidden (the lesson notes only if they were open).
    void setPanelsShown(bool shown);
    // F9: the teacher's choice, which the projector's zoom leaves alone.
    void setPanelsShownByUser(bool shown);
    // Shown where the panels in view leave a map without its numbers.
    QWidget *panelsNotice() const;
    // The settings in one row, shown while the settings panel is hidden.
    SettingsBar *settingsBar() const;
    // Every stage map shows its numbers, its whole title and (weights) its
    // row notes; checked to fold the panels away at a projector's zoom.
    bool mapsReadable() const;
    // From this zoom on, the layout gives the maps the room they need
    // (ProjectorLayout): the panels fold into the settings bar, then the maps
    // become the first of the side tabs and take the whole width.
    static constexpr double kProjectorZoom = 1.25;
    bool mapsTabbed() const;
    // How many of the score maps (the last ones of scores, scaled, masked)
    // share a place as tabs of a stage strip: 0, 2 or 3.
    int strippedMaps() const;
    QTabWidget *stageStrip() const;
    // Brings a stage's map into view: the Maps tab, its tab in the strip.
    void showStage(Stage stage);
    bool panelsFoldedByZoom() const;
    // View ▸ Cell values.
    CellTextMode cellTextMode() const;
    // In the status bar while the maps write fewer than 4 decimals: how many, and why.
    QLabel *decimalsNote() const { return m_decimalsNote; }

    // Writes a figure (WindowExport); nothing is left half-written on a problem.
    std::optional<Problem> exportFigure(ExportDialog::What what, FigureFormat format, const FigureSize &size, const QString &path);
    // The View menu's look, and the head shown: what exports draw with.
    FigureStyle figureStyle() const override;
    // What the exported plane shows: the head, query and axes of the one on screen.
    PlaneView planeView() const;
    // The start of exported files' names: the lesson or file name.
    QString exportStem() const override;
    QImage figureImage(ExportDialog::What what) const;

    // Views a script can ask for by name (`attention-lab --show NAME`): each
    // feature registers its own. showView() shows it and returns the widget
    // to grab (the main window, or a window of its own), or null for an
    // unknown name; viewNames() lists them for the error message.
    using ViewOpener = std::function<QWidget *()>;
    void registerView(const QString &name, ViewOpener open) override;
    QWidget *showView(const QString &name) override;
    QStringList viewNames() const;
    // Background work whose result a view will still draw (the √d_k lab's
    // measurements): a screenshot waits for it, so that no plot is empty.
    bool isWorking() const;

    // Sweeps and hard attention: the Animate and Top-k tabs (SweepsMode).
    SweepPanel *sweepPanel() const;
    TopKPanel *topKPanel() const;

    // Autosave into `folder` from now on (Recovery), after offering to
    // restore the work a crashed or killed window left there.
    void startRecovery(const QString &folder);

    // Teaching in front of the class (ClassroomMode).
    Classroom *classroom() const;
    StepPanel *stepPanel() const;
    GuessPanel *guessPanel() const;
    NotesPanel *notesPanel() const;
    QDockWidget *notesDock() const;
    QuizPanel *showQuiz(); // its own window, made on first use
    void setStepMode(bool on);
    void setAnswersHidden(bool on);

    // A/B (CompareMode).
    CompareView *compareView();
    CompareView *showCompare();
    void pinAsA();
    bool openComparison(const QString &lessonName);
    bool maybeSwitch();

    // The model mode (ModelMode): on a problem the message is shown (and
    // returned), and the model, the mode and the document stay as they were.
    ModelView *modelView() const;
    std::optional<Problem> openModel(const QString &folder);
    std::optional<Problem> openBuiltinModel();
    void setModelMode(bool on);
    bool modelMode() const;
    std::optional<Problem> takeHeadIntoLab(const Scenario &head, const QString &description);

    // Whether a message box may be shown (off for scripted screenshots and tests).
    void setInteractive(bool on) { m_interactive = on; }

    // ModeHost
    QMainWindow *mainWindow() override { return this; }
    bool interactive() const override { return m_interactive; }
    Mode *currentMode() const override { return m_current; }
    void switchMode(Mode *mode) override;
    void showMessage(const QString &text, int milliseconds) override;
    void showProblem(const QString &message) override;
    void exportFailed(const QString &message) override; // status bar, and a message box when interactive
    void showSideTab(QWidget *page, bool overMaps = true) override;
    void fitToolBarTexts() override;
    bool maybeSave() override;
    bool saveAs() override;
    QMenu *menu(const QString &objectName) const override;

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void addMode(Mode *mode);
    void createStatusBar();
    void createMenus(); // menus.cpp
    void createFileMenu();
    void createEditMenu();
    void createAttentionMenu();
    void createViewMenu();
    void createLookMenus(QMenu *view);
    void addLanguageMenu(QMenu *view);
    void createLessonsMenu();
    void createHelpMenu();
    void updateRecentMenu();
    void addRecentFile(const QString &path);
    void readSettings();
    // Whether the geometry just restored lies on a screen, whole.
    bool fitsScreen() const;
    void writeSettings();
    void applyGradients();
    void applyCellText();
    void updateDecimalsNote();
    void updateTitle();
    void newDocument();
    void open();
    bool save();
    std::vector<HeatmapPlot *> allPlots() const;

    Document m_doc;
    LabMode *m_lab = nullptr;
    ClassroomMode *m_classroomMode = nullptr;
    SweepsMode *m_sweepsMode = nullptr;
    GradientMode *m_gradientMode = nullptr;
    CompareMode *m_compareMode = nullptr;
    ModelMode *m_modelMode = nullptr;
    TrainingMode *m_trainingMode = nullptr;
    EncoderMode *m_encoderMode = nullptr;
    TranslatorMode *m_translatorMode = nullptr;
    std::vector<Mode *> m_modes;
    Mode *m_current = nullptr;
    QStackedWidget *m_centre = nullptr; // the central widgets of the modes that have one
    QByteArray m_labState; // the docks and toolbars as the lab had them, while another mode hides them
    ProjectorLayout *m_projector = nullptr;

    ScalingLabPanel *m_scalingLab = nullptr;
    QLabel *m_statusProblem = nullptr;
    QLabel *m_decimalsNote = nullptr;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_lessonsMenu = nullptr;
    WindowExport *m_export = nullptr;
    QActionGroup *m_sequentialGroup = nullptr;
    QActionGroup *m_themeGroup = nullptr;
    QActionGroup *m_divergingGroup = nullptr;
    QActionGroup *m_cellTextGroup = nullptr;
    QAction *m_sharedRange = nullptr;
    Recovery *m_recovery = nullptr;
    QList<QPointer<QDockWidget>> m_hiddenPanels; // in view when setPanelsShown(false) hid them

    double m_zoom = 1.0;
    double m_baseFontSize = 0;
    bool m_interactive = true;
    std::map<QString, ViewOpener> m_views;
};

} // namespace attn
