#pragma once
// The projector layout: from a projector's zoom on (MainWindow::kProjectorZoom),
// the window makes room for the maps instead of letting them drop their
// numbers, one step at a time: the panels fold into the settings bar (F9
// brings them back), then the maps become the first side tab and take the
// whole width, then the lab's arrangements of the Maps tab in turn (a stage
// strip, the rows' and the output's shares, the formula folded) until
// every map keeps its numbers. Also the first toolbar row's short texts
// where it is tight. It decides; the lab (LabMode) arranges.

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSize>

#include <vector>

class QDockWidget;
class QResizeEvent;
class QTimer;

namespace attn {

class LabMode;
class MainWindow;

class ProjectorLayout : public QObject {
    Q_OBJECT

public:
    explicit ProjectorLayout(MainWindow &window, LabMode &lab);

    // How much of the layout to decide again: Grow only gives more room (a
    // lesson or a setting changed), Tabs also takes the maps out of the tabs
    // first (a new window size), All also brings back the panels the zoom
    // folded (a new zoom).
    enum class Refit { Grow, Tabs, All };
    void schedule(Refit how);
    void fit(Refit how);

    // The window's own events.
    void shown();
    void resized(QResizeEvent *event);

    // Short texts on the first toolbar row (Animate, A/B, Classroom) when it is tight.
    void fitToolBarTexts();

    bool panelsFoldedByZoom() const { return m_panelsFoldedByZoom; }
    // The teacher showed or hid the panels (F9): the zoom leaves that alone
    // (it never folds panels the teacher brought back), and the maps beside
    // them get what room the layout can give.
    void panelsChosen(bool shown);
    // Shown where panels in view leave some map without its numbers: one
    // line that says so and offers to fold them.
    QWidget *panelsNotice() const { return m_notice; }
    // The panels were shown or hidden: none is folded by the zoom any more.
    void forgetFoldedPanels() { m_foldedDocks.clear(); }

private:
    bool bigScores() const;
    void settle();
    bool foldPanels();
    bool tabMaps();
    void chooseArrangement();
    void createNotice();
    void updateNotice();

    MainWindow &m_window;
    LabMode &m_lab;
    bool m_toolBarsShort = false;
    std::vector<QPointer<QDockWidget>> m_foldedDocks;
    QTimer *m_timer = nullptr;
    Refit m_pending = Refit::Grow;
    QSize m_askedSize; // the size before the layout's minimum grew the window
    QSize m_tabbedAt;  // the window's size when the maps went into the tabs
    bool m_panelsFoldedByZoom = false;
    bool m_panelsChosen = false; // the teacher brought the panels back: never folded by the zoom
    QWidget *m_notice = nullptr;
    bool m_fitting = false;
    // The sizes fit's own steps gave the window, and when it ended: a
    // window system that confirms a top-level's resizes later sends them
    // back as resize events, which must not start the fit again.
    QList<QSize> m_fitSizes;
    QElapsedTimer m_fitEnded;
};

} // namespace attn
