#pragma once
// Teaching in front of the class: the window's classroom state
// (step mode and hide mode, a view state, never document data and never
// saved) and the step panel, which writes the arithmetic of the current
// step for the selected query as a student writes it on paper.

#include "document.h"
#include "explain.h"
#include "steps.h"

#include <QObject>
#include <QWidget>

#include <vector>

class QLabel;
class QToolButton;
class QCheckBox;

namespace attn {

class Classroom : public QObject {
    Q_OBJECT

public:
    explicit Classroom(Document *doc, QObject *parent = nullptr);
    ~Classroom() override;
    // The classroom teaching from `doc`, or null: the stage views find
    // theirs through their document.
    static Classroom *of(const Document *doc);

    // Step mode: the chain one step at a time; maps not reached are dimmed.
    bool stepMode() const { return m_stepMode; }
    void setStepMode(bool on);
    std::vector<StepKind> steps() const;
    int stepCount() const { return int(steps().size()); }
    int step() const;          // 0-based, clamped to the steps of the scenario
    StepKind currentStep() const;
    void setStep(int index);   // clamped
    void next() { setStep(step() + 1); }
    void previous() { setStep(step() - 1); }
    void first() { setStep(0); }
    void last() { setStep(stepCount() - 1); }
    // Whether the map of `stage` is reached (always outside step mode).
    bool reached(Stage stage) const;
    // What the map of `stage` shows now: nothing before its step (no
    // numbers, no colours), the exponentials and their sums on the weights'
    // map at the step of the exponentials, its own values from its step on.
    enum class Shows { Values, Nothing, Exponentials };
    Shows shows(Stage stage) const;

    // Hide mode: weights and outputs (and, when chosen, scaled and masked
    // scores) show nothing that gives them away.
    bool hidden() const { return m_hidden; }
    void setHidden(bool on);
    bool hideScaled() const { return m_hideScaled; }
    void setHideScaled(bool on);
    bool stageHidden(Stage stage) const;

signals:
    void changed();

private:
    Document *m_doc;
    bool m_stepMode = false;
    int m_step = 0;
    bool m_hidden = false;
    bool m_hideScaled = false;
};

class StepPanel : public QWidget {
    Q_OBJECT

public:
    StepPanel(Document *doc, Classroom *classroom, QWidget *parent = nullptr);

    // The step's name ("Step 4 of 6: exponentials"), what it does, and its
    // lines as shown (rich text), for tests and scripts.
    QString heading() const;
    QString explanation() const;
    QString arithmeticHtml() const;
    // The lines as plain text (no markup), one per line.
    QString arithmeticText() const;

    static QString stepName(StepKind step);
    static QString stepExplanation(StepKind step, const Scenario &s);
    // "e^{2.8284}" → "e<sup>2.8284</sup>", "s_{k1}" → "s<sub>k1</sub>", escaped.
    static QString typeset(const std::string &line);

public slots:
    void refresh();

protected:
    void changeEvent(QEvent *event) override;

private:
    Document *m_doc;
    Classroom *m_classroom;
    QLabel *m_heading;
    QLabel *m_explain;
    QLabel *m_lines;
    QToolButton *m_first, *m_prev, *m_next, *m_last;
    QString m_plain;
};

} // namespace attn
