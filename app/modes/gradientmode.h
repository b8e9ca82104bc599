#pragma once
// The gradient lens, added to the lab: a dock beside the maps and the
// vector plane (both in view: the class watches the query move while the
// loss falls), the plane's arrows of −∂L/∂v, and View ▸ Gradient lens.

#include "mode.h"

class QAction;

namespace attn {

class GradientLens;
class GradientPanel;

class GradientMode : public Mode {
    Q_OBJECT

public:
    explicit GradientMode(ModeHost &host);

    QString name() const override { return QStringLiteral("gradients"); }
    QList<QDockWidget *> dockWidgets() const override;

    GradientLens *lens() const { return m_lens; }
    GradientPanel *panel() const { return m_panel; }
    QDockWidget *dock() const { return m_dock; }
    // The dock and the plane in view (View ▸ Gradient lens).
    void showLens();

private:
    GradientLens *m_lens = nullptr;
    GradientPanel *m_panel = nullptr;
    QDockWidget *m_dock = nullptr;
    QAction *m_action = nullptr;
};

} // namespace attn
