#pragma once
// Sweeps and hard attention, added to the lab: the Animate tab (the τ sweep
// with each row's entropy, the query's turn), the Top-k tab, the Cost tab,
// and the Animate toolbar that plays them.

#include "mode.h"

namespace attn {

class CostPanel;
class SweepPanel;
class TopKPanel;

class SweepsMode : public Mode {
    Q_OBJECT

public:
    explicit SweepsMode(ModeHost &host);

    QString name() const override { return QStringLiteral("sweeps"); }
    QList<QToolBar *> toolBars() const override;

    SweepPanel *sweepPanel() const { return m_sweepPanel; }
    TopKPanel *topKPanel() const { return m_topKPanel; }
    CostPanel *costPanel() const { return m_costPanel; }

private:
    void createToolBar();
    void registerViews();

    SweepPanel *m_sweepPanel = nullptr;
    TopKPanel *m_topKPanel = nullptr;
    CostPanel *m_costPanel = nullptr;
    QToolBar *m_toolBar = nullptr;
};

} // namespace attn
