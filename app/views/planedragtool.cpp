#include "planedragtool.h"

#include <QKeyEvent>
#include <QMouseEvent>

#include <cmath>

namespace attn {

PlaneDragTool::PlaneDragTool(Document *doc, PlanePlot *plot, QObject *parent)
    : QObject(parent), m_doc(doc), m_plot(plot)
{
    plot->setTool(this);
    connect(doc, &Document::currentChanged, this, [this] {
        // Another head mid-drag (a shortcut): the gesture ends where it is.
        if (m_drag && m_doc->currentHead() != m_drag->head) {
            endDrag();
            m_ignoreUntilRelease = true;
        }
    });
    connect(doc, &Document::changed, this, [this](const DocumentChange &change) {
        if (!change.has(ChangeKind::Shape))
            return;
        // Rows may have come or gone: nothing selected, hovered or dragged.
        if (m_drag) {
            dropDrag();
            m_doc->endGesture();
        }
        m_selectedKey = -1;
        m_hover = {};
        emit stateChanged();
    });
    // Ctrl+Z, a new lesson: the gesture is over without us.
    connect(doc, &Document::gestureChanged, this, [this](bool active) {
        if (!active && m_drag)
            dropDrag();
    });
    connect(doc, &Document::gestureCancelled, this, [this] {
        if (m_drag)
            dropDrag();
    });
}

PlaneDragTool::~PlaneDragTool()
{
    // A drag in flight when the plane goes: leave the document as it was.
    if (m_drag) {
        m_drag.reset();
        if (m_doc && m_doc->inGesture())
            m_doc->cancelGesture();
    }
    if (m_plot && m_plot->tool() == this)
        m_plot->setTool(nullptr);
}

void PlaneDragTool::setSnapStep(double step)
{
    step = step > 0 && std::isfinite(step) ? step : 0.0;
    if (step == m_snap)
        return;
    m_snap = step;
    emit settingsChanged();
}

void PlaneDragTool::setKeysDraggable(bool on)
{
    if (on == m_keysDraggable)
        return;
    m_keysDraggable = on;
    if (!on)
        m_selectedKey = -1;
    emit settingsChanged();
    emit stateChanged();
}

PlaneTarget PlaneDragTool::selectedVector() const
{
    const PlaneScene &sc = m_plot->scene();
    if (m_keysDraggable && m_selectedKey >= 0 && m_selectedKey < sc.keys.rows())
        return {PlaneRole::Key, m_selectedKey};
    if (sc.queries.rows() == 0)
        return {};
    return {PlaneRole::Query, sc.query};
}

Eigen::Vector2d PlaneDragTool::snapped(Eigen::Vector2d p, int width) const
{
    if (m_snap > 0) {
        p(0) = snapToGrid(p(0), m_snap);
        p(1) = snapToGrid(p(1), m_snap);
    }
    if (width == 1)
        p(1) = 0.0;
    return p;
}

Eigen::RowVectorXd PlaneDragTool::movedRow(MatrixId id, int index, int offset, int width, const PlaneBasis &b,
                                           const Eigen::Vector2d &p) const
{
    Eigen::RowVectorXd row = matrix(m_doc->scenario(), id).row(index);
    const Eigen::VectorXd shown = row.segment(offset, width).transpose();
    row.segment(offset, width) = placeInPlane(b, shown, snapped(p, width)).transpose();
    return row;
}

// --- drag ------------------------------------------------------------------

void PlaneDragTool::beginDrag(const PlaneTarget &t, const QPointF &pixel)
{
    if (t.role == PlaneRole::Query) {
        m_selectedKey = -1;
        m_doc->setCurrentQuery(t.index); // the scene shows this query's weights
    } else {
        m_selectedKey = t.index;
    }
    const PlaneScene &sc = m_plot->scene();
    Drag d;
    d.target = t;
    d.matrix = sc.matrixOf(t.role);
    d.columnOffset = sc.columnOffset;
    d.width = sc.d;
    d.head = sc.head;
    d.start = sc.pointOf(t);
    d.press = m_plot->coordAt(pixel);
    d.basis = sc.basis;
    d.name = sc.nameOf(t);
    m_drag = d;
    //: An undo step: a vector dragged in the plane ("Drag query q1").
    m_doc->beginGesture(tr("Drag %1").arg(d.name));
    m_plot->setCursor(Qt::ClosedHandCursor);
    emit stateChanged();
}

void PlaneDragTool::continueDrag(const QPointF &pixel)
{
    Drag &d = *m_drag;
    const Eigen::Vector2d now = m_plot->coordAt(pixel);
    if (!now.allFinite())
        return;
    const Eigen::RowVectorXd row = movedRow(d.matrix, d.target.index, d.columnOffset, d.width, d.basis,
                                            d.start + (now - d.press));
    if (row == matrix(m_doc->scenario(), d.matrix).row(d.target.index))
        return;
    // Refused (out of range): nothing changed, the last accepted step stays.
    if (!m_doc->setRow(d.matrix, d.target.index, row, tr("Drag %1").arg(d.name)))
        m_drag->moved = true;
}

void PlaneDragTool::endDrag()
{
    m_drag.reset();
    m_doc->endGesture(); // one undo step, "Drag query q1", or none for a click
    m_plot->unsetCursor();
    emit stateChanged();
}

void PlaneDragTool::cancelDrag()
{
    m_drag.reset();
    m_ignoreUntilRelease = true;
    m_doc->cancelGesture();
    m_plot->unsetCursor();
    emit stateChanged();
}

void PlaneDragTool::dropDrag()
{
    m_drag.reset();
    m_ignoreUntilRelease = true;
    m_plot->unsetCursor();
    emit stateChanged();
}

// --- keyboard --------------------------------------------------------------

void PlaneDragTool::nudge(int dx, int dy)
{
    const PlaneTarget t = selectedVector();
    const PlaneScene &sc = m_plot->scene();
    if (!t.isValid() || m_drag || (sc.d == 1 && dy != 0))
        return;
    Eigen::Vector2d p = sc.pointOf(t);
    const double step = nudgeStep();
    const int dir[2] = {dx, dy};
    for (int c = 0; c < 2; ++c) {
        if (dir[c] == 0)
            continue;
        if (m_snap > 0) {
            // The next grid line in that direction (from a point off the grid,
            // the nearest one beyond it).
            const double k = p(c) / step, nearest = std::round(k);
            const double onGrid = std::abs(k - nearest) < 1e-9;
            const double next = onGrid ? nearest + dir[c] : (dir[c] > 0 ? std::ceil(k) : std::floor(k));
            p(c) = snapToGrid(next * step, step);
        } else {
            p(c) += dir[c] * step;
        }
    }
    const MatrixId id = sc.matrixOf(t.role);
    //: An undo step: a vector moved with an arrow key ("Nudge query q1").
    m_doc->setRow(id, t.index, movedRow(id, t.index, sc.columnOffset, sc.d, sc.basis, p), tr("Nudge %1").arg(sc.nameOf(t)));
}

void PlaneDragTool::selectQuery(int delta)
{
    const PlaneScene &sc = m_plot->scene();
    const int n = int(sc.queries.rows());
    if (n == 0)
        return;
    m_selectedKey = -1;
    m_doc->setCurrentQuery(((sc.query + delta) % n + n) % n);
    emit stateChanged();
}

void PlaneDragTool::selectKey(int delta)
{
    const int n = int(m_plot->scene().keys.rows());
    if (n == 0 || !m_keysDraggable)
        return;
    m_selectedKey = m_selectedKey < 0 ? (delta > 0 ? 0 : n - 1) : ((m_selectedKey + delta) % n + n) % n;
    emit stateChanged();
}

void PlaneDragTool::setHoverTarget(const PlaneTarget &t)
{
    if (t == m_hover)
        return;
    m_hover = t;
    if (t.isValid()) {
        m_setHover = true;
        if (t.role == PlaneRole::Key)
            m_doc->setHovered(m_plot->scene().query, t.index); // the maps light this key's column
        else
            m_doc->setHovered(t.index, -1);
    } else if (m_setHover) {
        m_setHover = false;
        m_doc->setHovered(-1, -1);
    }
    emit stateChanged();
}

// --- events ----------------------------------------------------------------

bool PlaneDragTool::mousePressed(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return false;
    if (m_drag)
        return true;
    m_ignoreUntilRelease = false;
    const QPointF pos = event->position();
    const PlaneTarget t = m_plot->handleAt(pos, event->modifiers() & Qt::ShiftModifier, m_keysDraggable);
    if (t.isValid())
        beginDrag(t, pos);
    return true;
}

bool PlaneDragTool::mouseMoved(QMouseEvent *event)
{
    if (m_ignoreUntilRelease)
        return true;
    const QPointF pos = event->position();
    if (m_drag) {
        continueDrag(pos);
        return true;
    }
    // Hovering any vector lights it in the maps; the hand only where a drag can start.
    const bool shift = event->modifiers() & Qt::ShiftModifier;
    setHoverTarget(m_plot->handleAt(pos, shift, true));
    if (m_plot->handleAt(pos, shift, m_keysDraggable).isValid())
        m_plot->setCursor(Qt::OpenHandCursor);
    else
        m_plot->unsetCursor();
    return true;
}

bool PlaneDragTool::mouseReleased(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return false;
    if (m_ignoreUntilRelease) {
        m_ignoreUntilRelease = false;
        return true;
    }
    if (m_drag)
        endDrag();
    return true;
}

bool PlaneDragTool::keyPressed(QKeyEvent *event)
{
    const Qt::KeyboardModifiers mods = event->modifiers() & ~Qt::KeypadModifier;
    const bool plain = mods == Qt::NoModifier;
    switch (event->key()) {
    case Qt::Key_Escape:
        if (m_drag) {
            cancelDrag();
            return true;
        }
        if (m_selectedKey >= 0) {
            m_selectedKey = -1;
            emit stateChanged();
            return true;
        }
        return false;
    case Qt::Key_Left:
    case Qt::Key_Right:
    case Qt::Key_Up:
    case Qt::Key_Down:
        if (!plain)
            return false;
        nudge(event->key() == Qt::Key_Left ? -1 : event->key() == Qt::Key_Right ? 1 : 0,
              event->key() == Qt::Key_Down ? -1 : event->key() == Qt::Key_Up ? 1 : 0);
        return true;
    case Qt::Key_PageUp:
    case Qt::Key_PageDown: {
        const int delta = event->key() == Qt::Key_PageDown ? 1 : -1;
        if (mods == Qt::ShiftModifier && m_keysDraggable) {
            selectKey(delta);
            return true;
        }
        if (plain) {
            selectQuery(delta);
            return true;
        }
        return false;
    }
    default:
        return false;
    }
}

void PlaneDragTool::pointerLeft()
{
    if (!m_drag)
        setHoverTarget({});
}

} // namespace attn
