#pragma once
// The side tabs beside the maps (the plane, the heads, steps, cost …) with
// their names in a wrapping row of buttons over the pages: a tab bar
// scrolls the names of ten tabs out of a narrow column ("All heads" shown
// as "ads"). The tab bar itself is hidden; the tab widget keeps its pages,
// order, texts and current page.

#include <QStringList>
#include <QWidget>

class QTabWidget;

namespace attn {

class SideTabs : public QWidget {
    Q_OBJECT

public:
    explicit SideTabs(QWidget *parent);

    QTabWidget *tabs() const { return m_tabs; }
    // What of the names is cut or out of view (empty: each whole in view).
    QStringList namesCut() const;

private:
    void updateNames();
    QTabWidget *m_tabs = nullptr;
    QWidget *m_names = nullptr;
};

} // namespace attn
