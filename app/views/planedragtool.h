#pragma once
// The vector plane's tool (as Tiled's tools): it turns the plot's
// left button and keys into document edits and selection; the plot only
// draws and answers hit-tests, the panel rebuilds the scene from the
// document's changes like every other view.
//
// Mouse. A press on a handle (a query; a key too with keysDraggable, Shift
// picks the key over a query on the same spot) begins a gesture of the
// document; each move sets the vector's row (setRow: the vector moves within
// the plane, every coordinate the plane does not show kept, see
// placeInPlane; the PCA plane frozen for the gesture; snapped to the grid);
// the release ends the gesture, so the whole drag is one undo step. Escape
// cancels it: the document returns to where the drag began. Clicking a
// query selects it. Hovering a vector lights it in the maps
// (Document::setHovered).
//
// Keyboard. Arrow keys nudge the selected vector by the snap step (0.1
// without snapping): one setRow each, one undo step each; Page Up/Down
// select the previous/next query, Shift+Page Up/Down a key (with keys
// draggable); Escape cancels a drag or forgets the selected key.

#include "document.h"
#include "planeplot.h"

#include <QObject>
#include <QPointer>

#include <optional>

namespace attn {

class PlaneDragTool : public QObject, public PlaneTool {
    Q_OBJECT

public:
    // Works on `plot` (which it sets its tool) and edits `doc`.
    PlaneDragTool(Document *doc, PlanePlot *plot, QObject *parent = nullptr);
    ~PlaneDragTool() override;

    // Grid step for dragging and nudging; 0 turns snapping off.
    void setSnapStep(double step);
    double snapStep() const { return m_snap; }
    double nudgeStep() const { return m_snap > 0 ? m_snap : 0.1; }

    // Keys can be dragged (and nudged) too; off by default.
    void setKeysDraggable(bool on);
    bool keysDraggable() const { return m_keysDraggable; }

    // What the scene shows of the tool: the vector under the pointer, the
    // key the arrow keys move (-1: the selected query), the vector dragged.
    PlaneTarget hovered() const { return m_hover; }
    int selectedKey() const { return m_selectedKey; }
    PlaneTarget dragged() const { return m_drag ? m_drag->target : PlaneTarget{}; }
    // The vector that the arrow keys move: the selected query, or a key
    // after one was clicked or dragged (with keys draggable).
    PlaneTarget selectedVector() const;
    bool isDragging() const { return m_drag.has_value(); }

    // The keyboard's edits and selections.
    void nudge(int dx, int dy);
    void selectQuery(int delta);
    void selectKey(int delta);

    // PlaneTool
    bool mousePressed(QMouseEvent *event) override;
    bool mouseMoved(QMouseEvent *event) override;
    bool mouseReleased(QMouseEvent *event) override;
    bool keyPressed(QKeyEvent *event) override;
    void pointerLeft() override;
    bool busy() const override { return m_drag.has_value(); }

signals:
    // The snap step or the keys toggle changed (the panel's controls follow).
    void settingsChanged();
    // The hovered, selected or dragged vector changed (the scene shows them).
    void stateChanged();

private:
    struct Drag {
        PlaneTarget target;
        MatrixId matrix = MatrixId::Q; // whose row moves
        int columnOffset = 0;          // the columns shown: [offset, offset + width)
        int width = 0;
        int head = 0;
        Eigen::Vector2d start;         // the vector's plane coordinates at the press
        Eigen::Vector2d press;         // the pointer's plane coordinates at the press
        PlaneBasis basis;              // frozen for the whole gesture
        QString name;                  // "query q1"
        bool moved = false;
    };

    void beginDrag(const PlaneTarget &t, const QPointF &pixel);
    void continueDrag(const QPointF &pixel);
    void endDrag();
    void cancelDrag();
    // The drag is over without the tool ending it (another head, a new
    // lesson, Ctrl+Z): the rest of the gesture does nothing.
    void dropDrag();
    void setHoverTarget(const PlaneTarget &t);
    Eigen::Vector2d snapped(Eigen::Vector2d p, int width) const;
    // Row `index` of `id` with its columns [offset, offset + width) moved
    // within basis `b` to plane point `p` (snapped).
    Eigen::RowVectorXd movedRow(MatrixId id, int index, int offset, int width, const PlaneBasis &b,
                                const Eigen::Vector2d &p) const;

    QPointer<Document> m_doc; // the window's document may go before its children
    QPointer<PlanePlot> m_plot;
    double m_snap = 0.0;
    bool m_keysDraggable = false;
    int m_selectedKey = -1;
    PlaneTarget m_hover;
    bool m_setHover = false; // the tool set the document's hover
    std::optional<Drag> m_drag;
    bool m_ignoreUntilRelease = false; // after the drag was cancelled or ended from elsewhere
};

} // namespace attn
