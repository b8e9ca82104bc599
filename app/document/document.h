#pragma once
// The open lesson: one scenario, its trace, and the undo stack that every
// change goes through. Views and models never change the scenario
// themselves: they call edit(), setRow() or setSettings(), which validate
// once and push one command (commands.h); the command swaps what it stores;
// the document recomputes the trace and says what changed
// (changed(DocumentChange)); each view redraws only for what it shows.
//
// A gesture (a drag, a slider held down) is an ordinary run of commands
// that merge into one undo step: beginGesture() on the press, edits on each
// move, endGesture() on the release. There is no side channel beside the
// stack.
//
// Ownership: the document owns the scenario, the trace and the undo stack;
// see commands.h for what each command owns.

#include "attention.h"
#include "commands.h"
#include "documentchange.h"
#include "scenario.h"
#include "validate.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <optional>

namespace attn {

class Document : public QObject {
    Q_OBJECT

public:
    explicit Document(QObject *parent = nullptr);
    ~Document() override;

    const Scenario &scenario() const { return m_scenario; }
    const Trace &trace() const { return m_trace; }
    QUndoStack *undoStack() { return &m_undo; }

    // Whether an edit joins the open gesture's undo step (the slider held
    // down, a sweep's frames) or is a step of its own (a menu choice made
    // in the middle of a drag).
    enum class Step { Gesture, Own };

    // One undoable edit of any scenario (tokens, widths, heads, mode; a
    // whole scenario from elsewhere). Refused (nothing changes) when `next`
    // does not validate: the problem is returned and problemReported()
    // emitted. The command stores only what differs: a row, the settings,
    // or (shapes, labels, text) the whole scenario. Never part of a gesture.
    // A change of settings alone is setSettings(), which needs no scenario.
    std::optional<Problem> edit(const Scenario &next, const QString &description);
    // Row `row` of matrix `id` set to `values` (same width). Within a
    // gesture, successive edits of the same row are one undo step.
    std::optional<Problem> setRow(MatrixId id, int row, const Eigen::RowVectorXd &values,
                                  const QString &description);
    // The settings, validated once with the scenario's inputs; refused like
    // edit(). Within a gesture (the temperature slider) one step, unless
    // `step` is Step::Own.
    std::optional<Problem> setSettings(const Settings &next, const QString &description, Step step = Step::Gesture);

    // A gesture: the edits until endGesture() merge into one undo step. Its
    // name is the latest edit's description, or `name` when that is empty.
    // An edit from elsewhere in the middle (a menu, a typed cell) is a step
    // of its own; the gesture's later edits start a new step after it.
    void beginGesture(const QString &name = QString());
    void endGesture();
    // Escape: the document returns to where the gesture (or its latest
    // step, after an edit from elsewhere) began; no undo step is left and
    // no redo can bring it back. Ends the gesture.
    void cancelGesture();
    bool inGesture() const { return m_gesture != 0; }

    // Undo and redo as the window offers them. Undo in the middle of a
    // gesture cancels the gesture; redo waits until the gesture is over.
    void undo();
    void redo();

    // A new scenario from a file or a lesson; clears the undo history. An
    // invalid scenario is refused (the problem returned) and changes nothing.
    // `filePath` is empty for a lesson or a new document.
    std::optional<Problem> replace(const Scenario &s, const QString &filePath, const QString &lessonName = QString());
    QString filePath() const { return m_filePath; }
    QString lessonName() const { return m_lessonName; }
    QString displayName() const; // file name, lesson title or "Untitled"
    bool isModified() const { return !m_undo.isClean(); }
    void markSaved(const QString &filePath);

    // What the views look at; not part of the scenario, not undoable.
    int currentHead() const { return m_head; }
    void setCurrentHead(int head);
    int currentQuery() const { return m_query; }
    void setCurrentQuery(int query);
    int hoveredRow() const { return m_hoverRow; }
    int hoveredColumn() const { return m_hoverCol; }
    void setHovered(int row, int col);

    // A refusal found outside an edit (a field that does not parse, a cell
    // that cannot be clicked): shown where problems are shown.
    void report(const QString &message) { emit problemReported(message); }

    // The commands' swaps (commands.h): set, recompute, announce.
    void applyRow(MatrixId id, int row, const Eigen::RowVectorXd &values);
    void applySettings(const Settings &s);
    void applyScenario(const Scenario &s, const DocumentChange &what);

signals:
    void changed(const attn::DocumentChange &change); // the trace is already recomputed
    void currentChanged();                      // head or query selection
    void hoverChanged(int row, int col);
    void problemReported(const QString &message);
    void gestureChanged(bool active);           // a gesture began or ended
    void gestureCancelled();                    // a gesture was undone (Escape, Ctrl+Z)
    void fileStateChanged();                    // path, name or modified flag

private:
    std::optional<Problem> refuse(const Problem &p);
    // Pushes `cmd`, made within the current gesture or not.
    void push(DocumentCommand *cmd);
    void afterChange(const DocumentChange &change);

    Scenario m_scenario;
    Trace m_trace;
    int m_incremental = 0; // updateRow()s since the last whole compute()
    QUndoStack m_undo;
    int m_gesture = 0;     // the open gesture's serial, 0 when none
    int m_gestureSerial = 0;
    QString m_gestureName;
    QString m_filePath;
    QString m_lessonName;
    int m_head = 0;
    int m_query = 0;
    int m_hoverRow = -1;
    int m_hoverCol = -1;
};

// The places in a problem, in words for the window: "inputs.K[2][1]" becomes
// "K row 3, column 2". Other places are kept.
QString problemText(const Problem &p);

} // namespace attn
