#pragma once
// The document's undo commands. Each stores only what it changes: a row of
// one matrix, the settings, or (for edits that change shapes: tokens,
// widths, heads, mode) the scenario before and after. Undo and redo are the
// same swap. Commands made during one gesture (a drag, a slider held down)
// merge into one undo step, as Qt's undoframework MoveCommand and Tiled's
// ChangeMapObject do; a merged step that ends where it began is obsolete
// and leaves the stack.
//
// Ownership: the Document owns the scenario, the trace and the stack; the
// stack owns the commands; each command owns the values it swaps and holds
// a plain pointer back to the document, which outlives the stack's content
// (Document's destructor clears the stack first).

#include "documentchange.h"
#include "scenario.h"

#include <QUndoCommand>

namespace attn {

class Document;

class DocumentCommand : public QUndoCommand {
public:
    // `gesture`: the gesture the command was made in (0: none). Commands of
    // the same gesture and target merge.
    DocumentCommand(Document *doc, const QString &text, int gesture);
    int gesture() const { return m_gesture; }
    // The next undo drops the command from the stack (a cancelled gesture:
    // no redo can bring it back).
    void dropOnNextUndo() { m_drop = true; }

    void undo() final;
    void redo() final;

protected:
    virtual void swap(bool toAfter) = 0;
    // Merging is allowed only within one gesture.
    bool sameGesture(const QUndoCommand *other) const;
    Document *m_doc;

private:
    int m_gesture;
    bool m_drop = false;
};

// One row of one matrix (a drag, a nudge, a typed cell).
class SetRowCommand : public DocumentCommand {
public:
    enum { Id = 1 };
    SetRowCommand(Document *doc, MatrixId id, int row, Eigen::RowVectorXd before, Eigen::RowVectorXd after,
                  const QString &text, int gesture);
    int id() const override { return Id; }
    bool mergeWith(const QUndoCommand *other) override;

private:
    void swap(bool toAfter) override;
    MatrixId m_matrix;
    int m_row;
    Eigen::RowVectorXd m_before, m_after;
};

// The settings (a toggle, a menu choice, the temperature slider): the
// Settings (scenario.h) before and after.
class SetSettingsCommand : public DocumentCommand {
public:
    enum { Id = 2 };
    SetSettingsCommand(Document *doc, Settings before, Settings after, const QString &text, int gesture);
    int id() const override { return Id; }
    bool mergeWith(const QUndoCommand *other) override;

private:
    void swap(bool toAfter) override;
    Settings m_before, m_after;
};

// Any other edit: the whole scenario before and after (token edits, widths,
// heads, mode). These change shapes, so they are rare and never merge.
class ScenarioCommand : public DocumentCommand {
public:
    ScenarioCommand(Document *doc, Scenario before, Scenario after, const QString &text, DocumentChange what);

private:
    void swap(bool toAfter) override;
    Scenario m_before, m_after;
    DocumentChange m_what;
};

} // namespace attn
