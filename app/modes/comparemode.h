#pragma once
// A/B, added to the lab: the compare view in a window of its own, made on
// first use; Pin as A pins the current state and shows it beside the
// document (B) and B − A. A built-in comparison (a lesson whose file has
// "compare": {"a": LESSON, ...}) opens A pinned and B as the document;
// openComparison does that for such a lesson. The Compare menu, and Pin
// and Unpin on the Attention menu and the Animate toolbar.

#include "mode.h"

class QAction;

namespace attn {

class CompareView;
class HeatmapPlot;

class CompareMode : public Mode {
    Q_OBJECT

public:
    explicit CompareMode(ModeHost &host);

    QString name() const override { return QStringLiteral("compare"); }
    QList<QMenu *> menus() const override;

    CompareView *compareView();
    CompareView *showCompare();
    void pinAsA();
    // The built-in comparison whose B is this lesson: its A pinned and shown.
    bool openComparison(const QString &lessonName);
    // Before switching lessons: asks to save only a document that has a file;
    // a changed built-in lesson may be kept as A instead, or just left.
    bool maybeSwitch();

private:
    void createMenu();
    void addExportMenu(HeatmapPlot *plot);
    void exportFigure(bool difference);
    QWidget *showForScript();

    CompareView *m_compare = nullptr;
    QMenu *m_menu = nullptr;
    QAction *m_unpinAction = nullptr;
};

} // namespace attn
