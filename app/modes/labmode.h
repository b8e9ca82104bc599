#pragma once
// The lab: the mode a lesson is taught in. It owns the input tables (the
// Inputs dock), the settings (the Settings dock, and the settings bar that
// stands in for it when it is hidden), the formula, the five stage maps and
// the side tabs beside them (the plane, the heads, and what the other
// modes add). It also offers the maps' arrangements the projector layout
// chooses from: the maps as the first side tab, some score maps sharing a
// stage strip, the rows' and the output's shares.

#include "heatmapplot.h"
#include "mode.h"
#include "stagedata.h"

#include <QPointer>

#include <limits>
#include <vector>

class QHBoxLayout;
class QTabWidget;
class QVBoxLayout;

class QScrollArea;

namespace attn {

class FormulaBar;
class MatrixPanel;
class PlanePanel;
class PlanePlot;
class SettingsActions;
class SettingsBar;
class SideTabs;
class StageView;
class TogglePanel;

class LabMode : public Mode {
    Q_OBJECT

public:
    explicit LabMode(ModeHost &host);

    QString name() const override { return QStringLiteral("lab"); }
    QList<QDockWidget *> dockWidgets() const override;
    QList<QToolBar *> toolBars() const override;
    QWidget *centralWidget() const override { return m_central; }

    SettingsActions *settingsActions() const { return m_settings; }
    MatrixPanel *matrixPanel() const { return m_matrices; }
    TogglePanel *togglePanel() const { return m_toggles; }
    PlanePanel *planePanel() const { return m_planePanel; }
    PlanePlot *vectorPlane() const;
    FormulaBar *formulaBar() const { return m_formula; }
    const std::vector<StageView *> &stageViews() const { return m_stages; }
    StageView *stageView(Stage stage) const;
    QTabWidget *sideTabs() const;
    SideTabs *sideBox() const { return m_sideBox; }
    QWidget *mapsPage() const { return m_mapsPage; }
    QTabWidget *stageStrip() const { return m_stageStrip; }
    QDockWidget *inputsDock() const { return m_inputsDock; }
    QDockWidget *settingsDock() const { return m_settingsDock; }
    SettingsBar *settingsBar() const { return m_settingsBar; }
    // The settings bar on a row of its own, under the other toolbars.
    void placeSettingsBar();

    // Shows a side tab; overMaps false: not while the maps are the tab in view.
    void showSideTab(QWidget *page, bool overMaps = true);
    // Brings a stage's map into view: the Maps tab, its tab in the strip.
    void showStage(Stage stage);

    // The arrangements of the maps (ProjectorLayout chooses among them).
    bool mapsTabbed() const;
    void setMapsTabbed(bool on);
    // How many of the score maps (the last ones of scores, scaled, masked)
    // share a place as tabs of a stage strip: 0, 2 or 3.
    int strippedMaps() const;
    void setStrippedMaps(int count);
    void setBottomShare(int share);
    void setOutputShare(int share);
    // No map narrower than its title, the output and the weights wider still.
    void updateMapWidths();
    // Maps short of their numbers, title or row notes, where `mode` shows
    // numbers; counted up to `enough`.
    int unreadableMaps(CellTextMode mode, int enough = std::numeric_limits<int>::max()) const;

private:
    void createMaps();
    void createSideTabs();
    void createDocks();

    QWidget *m_central = nullptr;
    QVBoxLayout *m_centralLayout = nullptr;
    SettingsActions *m_settings = nullptr;
    FormulaBar *m_formula = nullptr;
    QWidget *m_mapsPage = nullptr;
    QVBoxLayout *m_mapRows = nullptr;
    QHBoxLayout *m_topRow = nullptr;
    QHBoxLayout *m_bottomRow = nullptr;
    std::vector<StageView *> m_stages;
    QTabWidget *m_stageStrip = nullptr;
    SideTabs *m_sideBox = nullptr;
    QPointer<QWidget> m_tabBeforeMaps;
    int m_bottomShare = 0;
    int m_outputShare = 0;
    PlanePanel *m_planePanel = nullptr;
    MatrixPanel *m_matrices = nullptr;
    void fitSettingsWidth();
    TogglePanel *m_toggles = nullptr;
    QScrollArea *m_settingsScroll = nullptr;
    QDockWidget *m_inputsDock = nullptr;
    QDockWidget *m_settingsDock = nullptr;
    SettingsBar *m_settingsBar = nullptr;
};

} // namespace attn
