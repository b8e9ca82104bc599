#pragma once
// One set of actions for the attention settings: the Attention menu shows
// them and the settings panel binds its buttons to them, so each setting is
// one edit (SettingEdits), one undo name and one enabled rule (core's
// whyNot* checks) wherever it is changed from.

#include "document.h"

#include <QAction>
#include <QActionGroup>
#include <QObject>

class QAbstractButton;

namespace attn {

// An action's text without its mnemonic, as a button or a width shows it:
// "&None" and "无(&N)" as "None" and "无".
QString plainActionText(const QAction *action);

class SettingsActions : public QObject {
    Q_OBJECT

public:
    explicit SettingsActions(Document *doc, QObject *parent = nullptr);

    QAction *causal() const { return m_causal; }
    QAction *afterSoftmax() const { return m_afterSoftmax; }
    QAction *plusOne() const { return m_plusOne; } // softmax₁: checked is SoftmaxKind::PlusOne
    QAction *clearMask() const { return m_clearMask; }
    // data(): int(SparsePreset); Custom is there to show a file's own
    // combination as checked, never enabled (there is nothing to pick).
    QActionGroup *sparseMasks() const { return m_sparse; }
    // The pattern's width w one wider or narrower: the window's W, else the
    // block's B (a file's own combination included); disabled without one.
    QAction *widerWindow() const { return m_wider; }
    QAction *narrowerWindow() const { return m_narrower; }
    QActionGroup *heads() const { return m_heads; }           // data(): 1, 2, 4, 8
    QActionGroup *encodings() const { return m_encodings; }   // data(): int(Encoding)
    QActionGroup *scales() const { return m_scales; }         // data(): int(Scale)
    QActionGroup *similarities() const { return m_similarities; } // data(): int(Similarity)
    QAction *sharper() const { return m_sharper; }
    QAction *flatter() const { return m_flatter; }
    QAction *resetTemperature() const { return m_resetTau; }
    QAction *nextHead() const { return m_nextHead; }
    QAction *previousHead() const { return m_previousHead; }

    // The action of a group with this data value.
    static QAction *actionFor(QActionGroup *group, int value);

    // The sparse mask's preset and width as one settings command: `w` is the
    // window's W or the block's B (ignored by Full). The undo history names both.
    void setSparseMask(SparsePreset preset, int w);
    // The width of the pattern there is, as one settings command: a preset's
    // w, or a file's own window (else its blocks) with the rest kept.
    void setSparseWidth(int w);
    // The widest w that still opens a pair more for n tokens: past it a
    // window (or a block) already reaches every key its pattern can.
    static int usefulSparseWidth(const Mask &m, int n);
    // The preset's name as the bar and the undo history write it ("sliding window").
    static QString name(SparsePreset preset);

    // A button that shows an action's state (checked, enabled, and its tool
    // tip when `withToolTip`) and triggers it when clicked.
    static void bind(QAbstractButton *button, QAction *action, bool withToolTip = false);

    // Checked and enabled states from the document.
    void sync();

signals:
    // Something to tell the user that is not a refused edit.
    void message(const QString &text);

private:
    QAction *checkable(QActionGroup *group, const QString &text, int value);
    void changeTemperature(double factor);

    Document *m_doc;
    QAction *m_causal, *m_afterSoftmax, *m_clearMask;
    QAction *m_plusOne;
    QActionGroup *m_sparse, *m_heads, *m_encodings, *m_scales, *m_similarities;
    QAction *m_sharper, *m_flatter, *m_resetTau, *m_nextHead, *m_previousHead;
    QAction *m_wider, *m_narrower;
};

} // namespace attn
