#pragma once
// A mode of the window: an object that owns its widgets, actions and state,
// and tells the window what it contributes (docks, toolbars, menus, and for
// a mode that takes the whole window, its central widget). The window only
// assembles the modes and switches between those with a central widget, as
// Tiled's MainWindow does with its Editors (src/tiled/editor.h).
//
// A new mode is a new Mode subclass, made by one line in
// MainWindow's constructor; it reaches the window through ModeHost only.

#include "figureexport.h"
#include "validate.h"

#include <QList>
#include <QObject>

#include <functional>
#include <optional>

class QDockWidget;
class QMainWindow;
class QMenu;
class QToolBar;
class QWidget;

namespace attn {

class Document;
class LabMode;
class Mode;

// A dock with this property true stays when the projector's zoom folds the
// panels (the class reads it: the class session's code and answers); F9
// still folds it.
inline constexpr const char *kKeepDockAtZoom = "attnKeepDockAtZoom";

// What the window offers its modes: the document, the lab they add to, and
// the window's own services (status bar, views by name, the open and save
// questions, exports). MainWindow implements it.
class ModeHost {
public:
    virtual ~ModeHost() = default;
    virtual QMainWindow *mainWindow() = 0;
    virtual Document *document() = 0;
    virtual LabMode *lab() const = 0;
    // The mode with a central widget in view (the lab or the model mode),
    // and a switch to another one.
    virtual Mode *currentMode() const = 0;
    virtual void switchMode(Mode *mode) = 0;
    // Whether a message box may be shown (off for scripted screenshots and tests).
    virtual bool interactive() const = 0;
    virtual void showMessage(const QString &text, int milliseconds) = 0; // a passing status bar message
    virtual void showProblem(const QString &message) = 0;                 // why something was refused
    virtual void exportFailed(const QString &message) = 0;
    virtual FigureStyle figureStyle() const = 0;
    virtual QString exportStem() const = 0;
    // Views a script asks for by name (`attention-lab --show NAME`).
    virtual void registerView(const QString &name, std::function<QWidget *()> open) = 0;
    virtual QWidget *showView(const QString &name) = 0;
    // Shows a side tab; overMaps false: not while the maps are the tab in view.
    virtual void showSideTab(QWidget *page, bool overMaps = true) = 0;
    // The first toolbar row's texts, again (short where the row is tight).
    virtual void fitToolBarTexts() = 0;
    virtual bool maybeSave() = 0;
    virtual bool saveAs() = 0;
    virtual std::optional<Problem> openLesson(const QString &name) = 0;
    // The menu bar's menu of this object name ("attentionMenu", "viewMenu"), or null.
    virtual QMenu *menu(const QString &objectName) const = 0;
};

class Mode : public QObject {
    Q_OBJECT

public:
    Mode(ModeHost &host, QObject *parent) : QObject(parent), m_host(host) {}

    // A short name for the code ("lab", "classroom", "model").
    virtual QString name() const = 0;
    // What the mode adds to the window; the window shows them while the
    // mode is active and hides them while another exclusive mode is.
    virtual QList<QDockWidget *> dockWidgets() const { return {}; }
    virtual QList<QToolBar *> toolBars() const { return {}; }
    virtual QList<QMenu *> menus() const { return {}; }
    // A mode with a central widget takes the whole window (the lab, the
    // model mode); one without adds to the lab (classroom, A/B, sweeps).
    virtual QWidget *centralWidget() const { return nullptr; }
    // The window switched to this mode, or away from it.
    virtual void activate() {}
    virtual void deactivate() {}

protected:
    ModeHost &m_host;
};

} // namespace attn
