#pragma once
// The settings in one compact row (a projector layout): mask, its
// sparse pattern and width, where it acts, heads, encoding, scale, similarity and τ, each one click
// away when the panels are hidden (maps-only, F9) or give their room to the
// maps at a projector's zoom. Buttons of the same SettingsActions the
// Attention menu and the settings panel use, so each is one edit with one
// undo name and one enabled rule.

#include "settingsactions.h"

#include <QToolBar>

class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QToolButton;

namespace attn {

class SettingsBar : public QToolBar {
    Q_OBJECT

public:
    SettingsBar(Document *doc, SettingsActions *actions, QWidget *parent = nullptr);

    QToolButton *headsButton() const { return m_heads; }
    QToolButton *encodingButton() const { return m_encoding; }
    QToolButton *scaleButton() const { return m_scale; }
    QToolButton *similarityButton() const { return m_similarity; }
    QDoubleSpinBox *temperatureBox() const { return m_tau; }
    QToolButton *causalButton() const { return m_causal; }
    QToolButton *afterSoftmaxButton() const { return m_afterSoftmax; }
    // The sparse mask's preset (full, sliding window, …) and its width w.
    QToolButton *sparseButton() const { return m_sparse; }
    QSpinBox *widthBox() const { return m_width; }
    // Short texts ("h = 2", "q·k") while the full ones are wider than the row.
    bool isCompact() const { return m_compact; }

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    QToolButton *toggleButton(QAction *action, const QString &objectName);
    QToolButton *menuButton(QActionGroup *group, const QString &objectName);
    void setCompact(bool compact);
    void fitTexts();
    void sync();
    void retranslate();

    Document *m_doc;
    SettingsActions *m_actions;
    QToolButton *m_causal, *m_afterSoftmax, *m_sparse;
    QSpinBox *m_width;
    QLabel *m_widthLabel;
    QAction *m_widthItem, *m_widthLabelItem; // shown only where there is a width to set
    QToolButton *m_heads, *m_encoding, *m_scale, *m_similarity;
    bool m_compact = false;
    QDoubleSpinBox *m_tau;
    QLabel *m_tauLabel;
};

} // namespace attn
