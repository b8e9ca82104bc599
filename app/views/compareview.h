#pragma once
// A/B: the state pinned as A beside the live document (B) for a
// chosen stage, and the difference map B − A with its largest absolute
// difference written out. Bound to the document through ViewBinding: it
// follows every edit of B and the document's current head. Unpin goes back
// to A (one undo step); Keep B closes the comparison and keeps the edits.

#include "comparefigure.h"
#include "document.h"

#include <QWidget>

#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;

namespace attn {

class ViewBinding;

class CompareView : public QWidget {
    Q_OBJECT

public:
    explicit CompareView(Document *doc, QWidget *parent = nullptr);

    // Pins `a` (by default the document's current scenario) as A; `label`
    // names it ("我打你", a lesson title); empty: the scenario's title.
    void pin(const Scenario &a, const QString &label = QString());
    void pinCurrent();
    // Puts the document back to A (one undo step) and forgets A.
    void unpin();
    // Forgets A and keeps the document as it is.
    void keepB();
    bool isPinned() const { return m_a.has_value(); }
    const std::optional<Scenario> &pinned() const { return m_a; }

    void setStage(Stage stage);
    Stage stage() const { return m_stage; }
    void setAlignByToken(bool on);
    bool alignByToken() const;

    CompareFigure *figure() const { return m_figure; }
    QCheckBox *alignBox() const { return m_align; }
    // "Settings to both": a setting changed in B (the document) is given to
    // A too, so B − A still shows only what A and B were pinned to differ
    // in. On when A is pinned with B's settings, off when the settings are
    // the comparison (a built-in A/B of two settings).
    QCheckBox *bothBox() const { return m_both; }
    void setSettingsToBoth(bool on);
    QComboBox *stageBox() const { return m_stageBox; }
    const CompareMaps &maps() const { return m_figure->maps(); }
    void refresh();

signals:
    void pinnedChanged(bool pinned);
    void message(const QString &text);

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void followSettings();
    QString settingsLine() const;

    Document *m_doc;
    std::optional<Scenario> m_a;
    Trace m_ta;
    QString m_label;
    Stage m_stage = Stage::Weights;
    ViewBinding *m_binding = nullptr;
    QLabel *m_header = nullptr;
    QComboBox *m_stageBox = nullptr;
    QCheckBox *m_align = nullptr;
    QCheckBox *m_both = nullptr;
    Settings m_lastB; // B's settings at the last refresh: what changed since
    QPushButton *m_unpin = nullptr;
    QPushButton *m_keep = nullptr;
    QPushButton *m_repin = nullptr;
    CompareFigure *m_figure = nullptr;
};

} // namespace attn
