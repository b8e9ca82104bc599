#include "document.h"

#include "edit.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QRegularExpression>

#include <new>

namespace attn {

namespace {

constexpr int kUndoLimit = 500;

// How the document computes its trace: the scaled stage derived from the
// scores (HeadTrace::scaledAt and the others), not stored, saving n_q n_k
// doubles a head (64 MB at n = 1024, h = 8). Its readers (the stage maps,
// the exports, the step texts) give the same numbers either way.
constexpr ComputeOptions kTraceOptions{.keepScaled = false};

bool sameShape(const Scenario &a, const Scenario &b)
{
    if (a.mode != b.mode || a.heads != b.heads || a.source.has_value() != b.source.has_value()
        || a.Wo.has_value() != b.Wo.has_value())
        return false;
    for (MatrixId id : matrixIds(a)) {
        const Matrix &ma = matrix(a, id), &mb = matrix(b, id);
        if (ma.rows() != mb.rows() || ma.cols() != mb.cols())
            return false;
    }
    return true;
}

// What differs between two scenarios of any shape.
DocumentChange difference(const Scenario &a, const Scenario &b)
{
    if (!sameShape(a, b))
        return DocumentChange::all();
    DocumentChange c;
    for (MatrixId id : matrixIds(a))
        if (matrix(a, id) != matrix(b, id))
            c.kinds |= ChangeKind::Values;
    if (a.tokens != b.tokens || a.sourceTokens != b.sourceTokens)
        c.kinds |= ChangeKind::Labels;
    if (a.title != b.title || a.description != b.description)
        c.kinds |= ChangeKind::Text;
    if (!(settingsOf(a) == settingsOf(b)))
        c.kinds |= ChangeKind::Settings;
    return c;
}

// The one row of one matrix in which two scenarios of the same shape, labels,
// text and settings differ, if they differ in exactly one row.
std::optional<std::pair<MatrixId, int>> singleRow(const Scenario &a, const Scenario &b)
{
    std::optional<std::pair<MatrixId, int>> found;
    for (MatrixId id : matrixIds(a)) {
        const Matrix &ma = matrix(a, id), &mb = matrix(b, id);
        if (ma == mb)
            continue;
        for (Eigen::Index r = 0; r < ma.rows(); ++r) {
            if (ma.row(r) == mb.row(r))
                continue;
            if (found)
                return std::nullopt;
            found = std::make_pair(id, int(r));
        }
    }
    return found;
}

} // namespace

Document::Document(QObject *parent) : QObject(parent)
{
    m_undo.setUndoLimit(kUndoLimit);
    connect(&m_undo, &QUndoStack::cleanChanged, this, &Document::fileStateChanged);
    // A small valid scenario so that the trace is never empty.
    Scenario s;
    s.tokens = {"q"};
    s.sourceTokens = {"k1", "k2", "k3"};
    s.Q = Matrix{{2, 0}};
    s.K = Matrix{{2, 0}, {0, 2}, {1, 1}};
    s.V = Matrix::Identity(3, 3);
    m_scenario = s;
    m_trace = compute(s, kTraceOptions);
}

Document::~Document()
{
    // The commands point back at the document: drop them first.
    m_undo.clear();
}

std::optional<Problem> Document::refuse(const Problem &p)
{
    emit problemReported(problemText(p));
    return p;
}

void Document::push(DocumentCommand *cmd)
{
    m_undo.push(cmd); // redo() applies it, or mergeWith() joins it to the gesture's step
}

std::optional<Problem> Document::edit(const Scenario &next, const QString &description)
{
    if (auto p = validate(next))
        return refuse(*p);
    const DocumentChange what = difference(m_scenario, next);
    if (what.kinds == ChangeKinds())
        return std::nullopt;
    // Never part of a gesture: an edit from elsewhere is a step of its own.
    const auto row = what.kinds == ChangeKinds(ChangeKind::Values) ? singleRow(m_scenario, next) : std::nullopt;
    if (what.kinds == ChangeKinds(ChangeKind::Settings)) {
        push(new SetSettingsCommand(this, settingsOf(m_scenario), settingsOf(next), description, 0));
    } else if (row) {
        const auto [id, r] = *row;
        push(new SetRowCommand(this, id, r, matrix(m_scenario, id).row(r), matrix(next, id).row(r), description, 0));
    } else {
        push(new ScenarioCommand(this, m_scenario, next, description, what));
    }
    return std::nullopt;
}

std::optional<Problem> Document::setRow(MatrixId id, int row, const Eigen::RowVectorXd &values,
                                        const QString &description)
{
    if (!matrixPresent(m_scenario, id) || row < 0 || row >= matrix(m_scenario, id).rows()
        || values.size() != matrix(m_scenario, id).cols())
        return refuse({std::string("inputs.") + matrixName(id), "no such row"});
    for (Eigen::Index c = 0; c < values.size(); ++c)
        if (auto p = checkEntry(matrixName(id), row, int(c), values(c)))
            return refuse(*p);
    const Eigen::RowVectorXd before = matrix(m_scenario, id).row(row);
    if (before == values)
        return std::nullopt;
    // Finite values of the right width keep a valid scenario valid, except
    // where a row's values matter to validity (RoPE pairs, cosine of a zero
    // row are computable): checked once on the result, in place.
    matrix(m_scenario, id).row(row) = values;
    auto p = validate(m_scenario);
    matrix(m_scenario, id).row(row) = before;
    if (p)
        return refuse(*p);
    const QString text = description.isEmpty() ? m_gestureName : description;
    push(new SetRowCommand(this, id, row, before, values, text, m_gesture));
    return std::nullopt;
}

std::optional<Problem> Document::setSettings(const Settings &next, const QString &description, Step step)
{
    const Settings before = settingsOf(m_scenario);
    if (before == next)
        return std::nullopt;
    // Validity depends on the inputs too (a causal mask needs n_q = n_k,
    // RoPE an even d_k): checked once on the result, in place, as setRow
    // does, without a copy of the scenario.
    settingsOf(m_scenario) = next;
    auto p = validate(m_scenario);
    settingsOf(m_scenario) = before;
    if (p)
        return refuse(*p);
    const int gesture = step == Step::Gesture ? m_gesture : 0;
    const QString text = description.isEmpty() && gesture ? m_gestureName : description;
    push(new SetSettingsCommand(this, before, next, text, gesture));
    return std::nullopt;
}

void Document::beginGesture(const QString &name)
{
    if (m_gesture)
        endGesture();
    //: An undo step: a drag with the mouse.
    m_gestureName = name.isEmpty() ? QCoreApplication::translate("attn::Document", "Drag") : name;
    m_gesture = ++m_gestureSerial;
    emit gestureChanged(true);
}

void Document::endGesture()
{
    if (!m_gesture)
        return;
    m_gesture = 0;
    m_gestureName.clear();
    emit gestureChanged(false);
}

void Document::cancelGesture()
{
    if (!m_gesture)
        return;
    const int index = m_undo.index();
    auto *top = index > 0 ? static_cast<DocumentCommand *>(const_cast<QUndoCommand *>(m_undo.command(index - 1)))
                          : nullptr;
    const bool undoStep = top && top->gesture() == m_gesture;
    endGesture();
    if (undoStep) {
        top->dropOnNextUndo();
        m_undo.undo();
    }
    emit gestureCancelled();
}

void Document::undo()
{
    if (m_gesture)
        cancelGesture();
    else
        m_undo.undo();
}

void Document::redo()
{
    if (!m_gesture)
        m_undo.redo();
}

std::optional<Problem> Document::replace(const Scenario &s, const QString &filePath, const QString &lessonName)
{
    if (auto p = validate(s))
        return p;
    // Into the old trace's memory, so that two traces (400 MB at n = 1024,
    // h = 8) are never alive at once. Only memory can fail here; then the
    // old scenario's trace is made again and nothing has changed.
    try {
        computeInto(s, m_trace, kTraceOptions);
    } catch (const std::bad_alloc &) {
        computeInto(m_scenario, m_trace, kTraceOptions);
        m_incremental = 0;
        return Problem{"", "not enough memory for the trace of this scenario"};
    }
    endGesture();
    m_undo.clear();
    m_filePath = filePath;
    m_lessonName = lessonName;
    m_head = 0;
    m_query = 0;
    m_hoverRow = m_hoverCol = -1;
    m_incremental = 0;
    m_scenario = s;
    emit changed(DocumentChange::all());
    emit currentChanged();
    emit hoverChanged(-1, -1);
    emit fileStateChanged();
    return std::nullopt;
}

QString Document::displayName() const
{
    if (!m_filePath.isEmpty())
        return QFileInfo(m_filePath).fileName();
    if (!m_scenario.title.empty())
        return QString::fromStdString(m_scenario.title);
    return tr("Untitled");
}

void Document::markSaved(const QString &filePath)
{
    m_filePath = filePath;
    m_lessonName.clear();
    m_undo.setClean();
    emit fileStateChanged();
}

void Document::setCurrentHead(int head)
{
    head = std::clamp(head, 0, m_scenario.heads - 1);
    if (head == m_head)
        return;
    m_head = head;
    emit currentChanged();
}

void Document::setCurrentQuery(int query)
{
    query = std::clamp(query, 0, queryCount(m_scenario) - 1);
    if (query == m_query)
        return;
    m_query = query;
    emit currentChanged();
}

void Document::setHovered(int row, int col)
{
    if (row == m_hoverRow && col == m_hoverCol)
        return;
    m_hoverRow = row;
    m_hoverCol = col;
    emit hoverChanged(row, col);
}

void Document::applyRow(MatrixId id, int row, const Eigen::RowVectorXd &values)
{
    matrix(m_scenario, id).row(row) = values;
    afterChange(DocumentChange::rows(id, row, 1));
}

void Document::applySettings(const Settings &s)
{
    DocumentChange what{ChangeKind::Settings};
    what.scoresKept = scoresSurvive(settingsOf(m_scenario), s);
    settingsOf(m_scenario) = s;
    afterChange(what);
}

void Document::applyScenario(const Scenario &s, const DocumentChange &what)
{
    m_scenario = s;
    afterChange(what);
}

void Document::afterChange(const DocumentChange &change)
{
    // Validated before it got here; compute() cannot throw for it. One row
    // of one matrix: only what it reaches is recomputed, in place (a drag at
    // n = 1024 would otherwise recompute and reallocate every stage).
    DocumentChange what = change;
    TraceDelta delta;
    // Every so many, the whole forward again: updateRow's rescaled weights
    // carry the rounding of each step, and this keeps it from adding up.
    constexpr int kResync = 256;
    if (what.isRowChange() && what.rowCount == 1 && m_incremental < kResync
        && updateRow(m_scenario, m_trace, *what.matrix, what.firstRow, &delta)) {
        what.trace = delta;
        ++m_incremental;
    } else {
        const double divisor = m_trace.divisor;
        ComputeOptions options = kTraceOptions;
        options.scoresKept = what.scoresKept;
        computeInto(m_scenario, m_trace, options); // in place: see replace()
        m_incremental = 0;
        what.scaledKept = what.scoresKept && m_trace.divisor == divisor;
    }
    const Scenario &s = m_scenario;
    const int head = std::clamp(m_head, 0, s.heads - 1), query = std::clamp(m_query, 0, queryCount(s) - 1);
    const bool moved = head != m_head || query != m_query;
    m_head = head;
    m_query = query;
    if (m_hoverRow >= queryCount(s) || m_hoverCol >= keyCount(s)) {
        m_hoverRow = m_hoverCol = -1;
        emit hoverChanged(-1, -1);
    }
    emit changed(what);
    if (moved)
        emit currentChanged();
}

QString problemText(const Problem &p)
{
    static const QRegularExpression entry(QStringLiteral("^inputs\\.(\\w+)\\[(\\d+)\\]\\[(\\d+)\\]$"));
    const QString place = QString::fromStdString(p.place);
    const QString message = QString::fromStdString(p.message);
    const auto m = entry.match(place);
    if (m.hasMatch())
        return QCoreApplication::translate("attn::Document", "%1 row %2, column %3: %4")
            .arg(m.captured(1))
            .arg(m.captured(2).toInt() + 1)
            .arg(m.captured(3).toInt() + 1)
            .arg(message);
    if (place.isEmpty())
        return message;
    return place + QStringLiteral(": ") + message;
}

} // namespace attn
