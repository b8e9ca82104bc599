#include "commands.h"

#include "document.h"

namespace attn {

DocumentCommand::DocumentCommand(Document *doc, const QString &text, int gesture)
    : QUndoCommand(text), m_doc(doc), m_gesture(gesture)
{
}

void DocumentCommand::undo()
{
    swap(false);
    if (m_drop)
        setObsolete(true); // QUndoStack deletes it after this undo
}

void DocumentCommand::redo()
{
    swap(true);
}

bool DocumentCommand::sameGesture(const QUndoCommand *other) const
{
    const auto *o = static_cast<const DocumentCommand *>(other);
    return m_gesture != 0 && o->m_gesture == m_gesture;
}

SetRowCommand::SetRowCommand(Document *doc, MatrixId id, int row, Eigen::RowVectorXd before,
                             Eigen::RowVectorXd after, const QString &text, int gesture)
    : DocumentCommand(doc, text, gesture), m_matrix(id), m_row(row), m_before(std::move(before)),
      m_after(std::move(after))
{
}

bool SetRowCommand::mergeWith(const QUndoCommand *other)
{
    const auto *o = static_cast<const SetRowCommand *>(other);
    if (!sameGesture(other) || o->m_matrix != m_matrix || o->m_row != m_row)
        return false;
    m_after = o->m_after;
    setText(o->text()); // the latest name ("Temperature 0.5"), as the gesture ends
    setObsolete(m_after == m_before);
    return true;
}

void SetRowCommand::swap(bool toAfter)
{
    m_doc->applyRow(m_matrix, m_row, toAfter ? m_after : m_before);
}

SetSettingsCommand::SetSettingsCommand(Document *doc, Settings before, Settings after, const QString &text,
                                       int gesture)
    : DocumentCommand(doc, text, gesture), m_before(std::move(before)), m_after(std::move(after))
{
}

bool SetSettingsCommand::mergeWith(const QUndoCommand *other)
{
    if (!sameGesture(other))
        return false;
    m_after = static_cast<const SetSettingsCommand *>(other)->m_after;
    setText(other->text());
    setObsolete(m_after == m_before);
    return true;
}

void SetSettingsCommand::swap(bool toAfter)
{
    m_doc->applySettings(toAfter ? m_after : m_before);
}

ScenarioCommand::ScenarioCommand(Document *doc, Scenario before, Scenario after, const QString &text,
                                 DocumentChange what)
    : DocumentCommand(doc, text, 0), m_before(std::move(before)), m_after(std::move(after)), m_what(what)
{
}

void ScenarioCommand::swap(bool toAfter)
{
    m_doc->applyScenario(toAfter ? m_after : m_before, m_what);
}

} // namespace attn
