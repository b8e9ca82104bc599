#pragma once
// The open lesson: one scenario, its trace, and the undo stack that every
// change goes through. Views and models never change the scenario
// themselves: they call edit() (or editLive() for a drag), which validates
// and pushes one command; the command sets the scenario; the document
// recomputes the trace and says what changed; views redraw from it.
//
// Ownership: the document owns the scenario, the trace and the undo stack;
// each ScenarioCommand owns the two scenarios it swaps between.

#include "attention.h"
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
    enum class Change {
        Values = 0x1,   // numbers in the matrices
        Shape = 0x2,    // sizes, heads or mode: models reset
        Labels = 0x4,   // token labels
        Settings = 0x8, // similarity, scale, temperature, mask, encoding, seed
        Text = 0x10,    // title, description
    };
    Q_DECLARE_FLAGS(Changes, Change)

    explicit Document(QObject *parent = nullptr);
    ~Document() override;

    const Scenario &scenario() const { return m_scenario; }
    const Trace &trace() const { return m_trace; }
    QUndoStack *undoStack() { return &m_undo; }

    // One undoable edit. Refused (nothing changes) when `next` does not
    // validate: the problem is returned and problemReported() emitted.
    std::optional<Problem> edit(const Scenario &next, const QString &description);

    // A drag or a slider: each step is shown at once, and commitLive() makes
    // the whole gesture one undo step. edit() and replace() end a gesture
    // first. The step is named by commitLive's `description`, else by the
    // latest one editLive was given ("Temperature 0.5"), else "Drag".
    std::optional<Problem> editLive(const Scenario &next, const QString &description = QString());
    void commitLive(const QString &description = QString());
    void cancelLive();
    bool isLive() const { return m_liveStart.has_value(); }

    // Undo and redo as the window offers them. Undo in the middle of a
    // gesture cancels the gesture (the document returns to where it began);
    // redo then does nothing. Going to the stack directly would leave the
    // gesture's start stale and its commit would undo the wrong step.
    void undo();
    void redo();

    // A new scenario from a file or a lesson; clears the undo history. The
    // loaders validate; an invalid scenario throws ScenarioError and changes nothing.
    // `filePath` is empty for a lesson or a new document.
    void replace(const Scenario &s, const QString &filePath, const QString &lessonName = QString());
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

    // Used by ScenarioCommand only.
    void setScenario(const Scenario &s);

signals:
    void changed(attn::Document::Changes what); // the trace is already recomputed
    void currentChanged();                      // head or query selection
    void hoverChanged(int row, int col);
    void problemReported(const QString &message);
    void liveChanged(bool live);                // a gesture began or ended
    void liveCancelled();                       // a gesture was undone (Escape, Ctrl+Z)
    void fileStateChanged();                    // path, name or modified flag

private:

    Scenario m_scenario;
    Trace m_trace;
    QUndoStack m_undo;
    std::optional<Scenario> m_liveStart;
    QString m_liveDescription;
    QString m_filePath;
    QString m_lessonName;
    int m_head = 0;
    int m_query = 0;
    int m_hoverRow = -1;
    int m_hoverCol = -1;
};

// Swaps the document between two scenarios; undo and redo are the same swap.
class ScenarioCommand : public QUndoCommand {
public:
    ScenarioCommand(Document *doc, Scenario before, Scenario after, const QString &text, bool alreadyApplied);
    void undo() override;
    void redo() override;

private:
    Document *m_doc;
    Scenario m_before;
    Scenario m_after;
    bool m_skipFirstRedo;
};

// The places in a problem, in words for the window: "inputs.K[2][1]" becomes
// "K row 3, column 2". Other places are kept.
QString problemText(const Problem &p);

} // namespace attn

Q_DECLARE_OPERATORS_FOR_FLAGS(attn::Document::Changes)
