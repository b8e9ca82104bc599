#include "document.h"

#include "edit.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QRegularExpression>

namespace attn {

namespace {

constexpr int kUndoLimit = 500;

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

bool sameValues(const Scenario &a, const Scenario &b)
{
    for (MatrixId id : matrixIds(a))
        if (matrix(a, id) != matrix(b, id))
            return false;
    return true;
}

Document::Changes difference(const Scenario &a, const Scenario &b)
{
    Document::Changes c;
    if (!sameShape(a, b))
        return Document::Change::Shape | Document::Change::Values | Document::Change::Labels
             | Document::Change::Settings | Document::Change::Text;
    if (!sameValues(a, b))
        c |= Document::Change::Values;
    if (a.tokens != b.tokens || a.sourceTokens != b.sourceTokens)
        c |= Document::Change::Labels;
    if (a.title != b.title || a.description != b.description)
        c |= Document::Change::Text;
    Scenario settingsOnly = b;
    settingsOnly.title = a.title;
    settingsOnly.description = a.description;
    settingsOnly.tokens = a.tokens;
    settingsOnly.sourceTokens = a.sourceTokens;
    for (MatrixId id : matrixIds(a))
        matrix(settingsOnly, id) = matrix(a, id);
    if (!(settingsOnly == a))
        c |= Document::Change::Settings;
    return c;
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
    m_trace = compute(s);
}

Document::~Document()
{
    // The commands point back at the document: drop them first.
    m_undo.clear();
}

std::optional<Problem> Document::edit(const Scenario &next, const QString &description)
{
    commitLive(); // a gesture in progress becomes its own step first
    if (auto p = validate(next)) {
        emit problemReported(problemText(*p));
        return p;
    }
    if (next == m_scenario)
        return std::nullopt;
    m_undo.push(new ScenarioCommand(this, m_scenario, next, description, false));
    return std::nullopt;
}

std::optional<Problem> Document::editLive(const Scenario &next, const QString &description)
{
    if (auto p = validate(next)) {
        emit problemReported(problemText(*p));
        return p;
    }
    if (!description.isEmpty())
        m_liveDescription = description;
    const bool starting = !m_liveStart;
    if (starting)
        m_liveStart = m_scenario;
    setScenario(next);
    if (starting)
        emit liveChanged(true);
    return std::nullopt;
}

void Document::commitLive(const QString &description)
{
    if (!m_liveStart)
        return;
    //: An undo step: a drag with the mouse.
    const QString name = !description.isEmpty()        ? description
                         : !m_liveDescription.isEmpty() ? m_liveDescription
                                                        : QCoreApplication::translate("attn::Document", "Drag");
    Scenario before = std::move(*m_liveStart);
    m_liveStart.reset();
    m_liveDescription.clear();
    emit liveChanged(false);
    if (before == m_scenario)
        return;
    m_undo.push(new ScenarioCommand(this, std::move(before), m_scenario, name, true));
}

void Document::cancelLive()
{
    if (!m_liveStart)
        return;
    Scenario before = std::move(*m_liveStart);
    m_liveStart.reset();
    m_liveDescription.clear();
    setScenario(before);
    emit liveChanged(false);
    emit liveCancelled();
}

void Document::undo()
{
    if (m_liveStart)
        cancelLive();
    else
        m_undo.undo();
}

void Document::redo()
{
    if (!m_liveStart)
        m_undo.redo();
}


void Document::replace(const Scenario &s, const QString &filePath, const QString &lessonName)
{
    if (auto p = validate(s))
        throw ScenarioError(*p);
    Trace trace = compute(s); // first: should it throw, nothing has changed yet
    const bool wasLive = m_liveStart.has_value();
    m_liveStart.reset();
    m_liveDescription.clear();
    if (wasLive)
        emit liveChanged(false);
    m_undo.clear();
    m_filePath = filePath;
    m_lessonName = lessonName;
    m_head = 0;
    m_query = 0;
    m_hoverRow = m_hoverCol = -1;
    m_trace = std::move(trace);
    m_scenario = s;
    emit changed(Change::Shape | Change::Values | Change::Labels | Change::Settings | Change::Text);
    emit currentChanged();
    emit hoverChanged(-1, -1);
    emit fileStateChanged();
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

void Document::setScenario(const Scenario &s)
{
    const Changes what = difference(m_scenario, s);
    // Validated before it got here; compute() cannot throw for it.
    m_trace = compute(s);
    m_scenario = s;
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

ScenarioCommand::ScenarioCommand(Document *doc, Scenario before, Scenario after, const QString &text,
                                 bool alreadyApplied)
    : QUndoCommand(text), m_doc(doc), m_before(std::move(before)), m_after(std::move(after)),
      m_skipFirstRedo(alreadyApplied)
{
}

void ScenarioCommand::undo()
{
    m_doc->setScenario(m_before);
}

void ScenarioCommand::redo()
{
    if (m_skipFirstRedo) {
        m_skipFirstRedo = false;
        return;
    }
    m_doc->setScenario(m_after);
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
