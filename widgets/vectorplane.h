#pragma once
// The vector plane (issue 4): attention as soft nearest neighbours, drawn.
// For the selected head and query it shows each key as an arrow from the
// origin whose width, opacity and "vote" disc grow with the key's weight
// (and the weight written beside its label), each query as a draggable
// handle, the values (when d_v = 2) and the output, the weighted average of
// the values, as its own arrow.
//
// What is shown. Direct mode: the head's columns of Q and K (d = d_k).
// Projected mode: the embeddings, rows of X as queries and rows of the
// source (or X again, in self-attention) as keys (d = d_model); dragging
// moves a row of X. With a positional encoding the raw inputs are shown and
// dragged; the caption says that the encoding is added after. d = 2 is drawn
// exactly; for d > 2 the plane shows two chosen dimensions or the PCA plane
// of all keys and queries (see projection.h), and dragging moves a vector
// within that plane only, keeping every other coordinate.
//
// Editing. A drag is a live gesture of the document: every move is an
// editLive() (all maps recompute), the release one commitLive(), so the
// drag is one undo step; Escape cancels it, a refused step changes nothing.
// Clicking a query selects it. Keyboard (the plane takes focus): arrow keys
// nudge the selected vector by the snap step (0.1 without snapping), one
// undo step each; Page Up/Down select the previous/next query, Shift+Page
// Up/Down a key (with keys draggable); + and − zoom, F fits, Escape cancels.
//
// Viewing. Right- or middle-drag pans, the wheel zooms, fit() frames every
// vector (and is redone on resizes until the user pans or zooms); the two
// axes always have the same scale, so angles are true. Hovering a key
// lights its column in every map (Document::setHovered).
//
// Drawing. Everything is painted by QCustomPlot layerables and layout
// elements, so savePng / savePdf / toPixmap export the plane as it is on
// screen. The vectors have a buffered layer of their own: a change that
// leaves caption, view and size alone (a drag) redraws that layer only. A
// hidden plane draws nothing until shown. Fonts follow the widget's font
// (projector zoom); on a small plot the note and then the legend give way
// to the drawing.

#include "document.h"
#include "edit.h"
#include "projection.h"

#include <QPointer>
#include <QStringList>
#include <QWidget>
#include <qcustomplot.h>

#include <optional>
#include <vector>

class QAbstractButton;
class QComboBox;
class QLabel;
class QToolButton;

namespace attn {

class PlaneVectorLayer;
class PlaneLegend;
class PlaneCaption;

class VectorPlane : public QCustomPlot {
    Q_OBJECT

public:
    enum class Role { Query, Key };
    // One vector of the plane: query row `index` or key row `index`.
    struct Target {
        Role role = Role::Query;
        int index = -1;
        bool isValid() const { return index >= 0; }
        bool operator==(const Target &) const = default;
    };

    explicit VectorPlane(Document *doc, QWidget *parent = nullptr);
    ~VectorPlane() override;

    Document *document() const { return m_doc; }

    // The width of the vectors shown: d_k (direct mode) or d_model (projected).
    int spaceDimension() const { return m_scene.d; }
    // The dimensions on the horizontal and vertical axes (0-based) when
    // d > 2 and PCA is off. Out-of-range or equal choices are corrected.
    void setDimensions(int horizontal, int vertical);
    int horizontalDimension() const { return m_dimX; }
    int verticalDimension() const { return m_dimY; }
    // Projects onto the PCA plane of all keys and queries (d > 2 only).
    void setPrincipalProjection(bool on);
    bool principalProjection() const { return m_pca; }
    bool isProjection() const { return m_pca && m_scene.d > 2; }
    const PlaneBasis &basis() const { return m_basis; }

    // Grid step for dragging and nudging; 0 turns snapping off.
    void setSnapStep(double step);
    double snapStep() const { return m_snap; }
    double nudgeStep() const { return m_snap > 0 ? m_snap : 0.1; }

    // Keys can be dragged (and nudged) too; off by default.
    void setKeysDraggable(bool on);
    bool keysDraggable() const { return m_keysDraggable; }

    // A picture for a slide, not a tool: no "drag it" in the legend or note.
    void setForFigure(bool on);

    // Frames every vector drawn, with room for the labels.
    void fit();
    // Zooms around the centre of the plot (factor < 1 zooms in).
    void zoomBy(double factor);

    // The scene in plane coordinates: rows are vectors, columns (x, y).
    const Matrix &queryPoints() const { return m_scene.queries; } // n_q by 2
    const Matrix &keyPoints() const { return m_scene.keys; }      // n_k by 2
    const Matrix &valuePoints() const { return m_scene.values; }  // n_k by 2, or empty unless d_v = 2
    std::optional<Eigen::Vector2d> outputPoint() const { return m_scene.output; }
    const Eigen::VectorXd &keyWeights() const { return m_scene.weights; } // of the selected query
    QString caption() const;      // the title and the note above the plot
    QString horizontalTitle() const;
    QString verticalTitle() const;

    // Widget pixels of a plane point, of query i and of key j (as laid out
    // by the last replot).
    QPointF pixelAt(const Eigen::Vector2d &p) const;
    QPointF queryPixel(int i) const;
    QPointF keyPixel(int j) const;
    // Pixels per unit along each axis (equal: the aspect ratio is 1:1).
    double pixelsPerUnit(Qt::Orientation orientation) const;

    // The vector that the arrow keys move: the selected query, or a key
    // after one was clicked or dragged (with keys draggable).
    Target selectedVector() const;
    bool isDragging() const { return m_drag.has_value(); }
    // Milliseconds the last replot took: a full one (QCustomPlot::replotTime)
    // or one of the vector layer alone, which a drag usually needs. Both emit
    // beforeReplot() and afterReplot().
    double lastReplotTime() const;
    bool lastReplotWasVectorsOnly() const { return m_lastWasVectors; }
    // Which matrix holds the rows of queries or keys: Q, K (direct), or X,
    // source (projected; X again for the keys of self-attention).
    MatrixId matrixOf(Role role) const;
    // The draggable vector under a widget pixel, if any: the selected query
    // first, then the other queries, then (only when keys are draggable) the
    // keys; preferKeys (Shift) puts the keys first.
    Target handleAt(const QPointF &pixel, bool preferKeys = false) const;

public slots:
    void refresh();

signals:
    // Dimensions, projection, snap or the keys toggle changed (the panel follows).
    void viewChanged();

protected:
    bool event(QEvent *event) override;
    void changeEvent(QEvent *event) override;
    void focusInEvent(QFocusEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void updateLayout() override;

private:
    friend class PlaneVectorLayer;
    friend class PlaneLegend;

    struct Scene {
        int d = 0;      // width of the vectors shown
        int dv = 0;     // d_v of the head
        int head = 0;
        int query = 0;
        Matrix queries; // n_q by 2
        Matrix keys;    // n_k by 2
        Matrix values;  // n_k by 2 when d_v = 2, else empty
        std::optional<Eigen::Vector2d> output;
        Eigen::VectorXd weights;   // n_k: the selected query's weights
        std::vector<bool> blocked; // n_k: blocked for the selected query
        bool fullyMasked = false;
        QStringList queryLabels, keyLabels;
        bool projected = false;
        bool selfAttention = false; // projected: the keys are the rows of X
    };
    struct Drag {
        Target target;
        Eigen::Vector2d start;  // the vector's plane coordinates at the press
        Eigen::Vector2d press;  // the pointer's plane coordinates at the press
        PlaneBasis basis;       // frozen for the whole gesture
        bool moved = false;
    };
    struct Pan {
        QPointF press;
        Eigen::Vector2d center;
    };

    void onDocumentChanged(Document::Changes what);
    void rebuildScene();
    void updateCaption();
    void fitChrome();
    void applyFonts();
    void applyView();
    void requestReplot();
    void replotVectors();
    QString chromeKey() const;
    double unit() const; // a pixel size that grows with the font

    int columnOffset() const;
    Eigen::Vector2d pointOf(const Target &t) const;
    QString nameOf(const Target &t) const;
    // The scenario with vector t moved to plane point p (snapped), within basis b.
    Scenario moved(const Target &t, Eigen::Vector2d p, const PlaneBasis &b) const;
    Eigen::Vector2d snapped(Eigen::Vector2d p) const;
    // The vector under a pixel; keys count when withKeys (else only queries).
    Target vectorAt(const QPointF &pixel, bool preferKeys, bool withKeys) const;

    void beginDrag(const Target &t, const QPointF &pixel);
    void continueDrag(const QPointF &pixel);
    void endDrag();
    void cancelDrag();
    void nudge(int dx, int dy);
    void selectQuery(int delta);
    void selectKey(int delta);
    void setHoverTarget(const Target &t);

    QString toolTipAt(const QPointF &pixel) const;
    void drawScene(QCPPainter *painter);

    Document *m_doc;
    QPointer<Document> m_docGuard; // for the destructor: the document may go first
    Scene m_scene;
    PlaneBasis m_basis;
    bool m_basisStale = true;
    int m_dimX = 0;
    int m_dimY = 1;
    bool m_pca = false;
    bool m_forFigure = false;
    double m_snap = 0.0;
    bool m_keysDraggable = false;
    int m_selectedKey = -1; // -1: the arrow keys move the selected query
    Target m_hover;
    bool m_setHover = false; // the plane set the document's hover

    // The view: centre and units per pixel, the same on both axes.
    Eigen::Vector2d m_center = Eigen::Vector2d::Zero();
    double m_unitsPerPixel = 0.01;
    bool m_fitPending = true;
    bool m_autoFit = true; // fit again on resizes, until the user pans or zooms
    QSize m_fittedSize;    // the axis rect the last fit was made for

    std::optional<Drag> m_drag;
    std::optional<Pan> m_pan;
    bool m_ignoreUntilRelease = false; // after Escape cancelled a drag
    bool m_selfEdit = false;           // the change in flight comes from this plane

    QString m_chromeKey;              // chromeKey() at the last full replot
    bool m_vectorReplotQueued = false;
    bool m_replotWhenShown = false;
    double m_lastReplotTime = 0;      // ms, of the last replot of the vectors alone
    bool m_lastWasVectors = false;

    PlaneVectorLayer *m_layer = nullptr;
    PlaneCaption *m_title = nullptr;
    PlaneCaption *m_note = nullptr;
    QStringList m_noteSentences; // the whole note; m_note may show less on a small plot
    PlaneLegend *m_legend = nullptr;
    QSharedPointer<QCPAxisTickerFixed> m_ticker;
};

// The plane with its controls: the dimension pair or PCA, snapping, the
// keys toggle and Fit. This is what the window shows in a tab.
class VectorPlanePanel : public QWidget {
    Q_OBJECT

public:
    explicit VectorPlanePanel(Document *doc, QWidget *parent = nullptr);

    VectorPlane *plane() const { return m_plane; }
    QComboBox *horizontalBox() const { return m_dimX; }
    QComboBox *verticalBox() const { return m_dimY; }
    QAbstractButton *pcaButton() const;
    QComboBox *snapBox() const { return m_snap; }
    QAbstractButton *dragKeysButton() const;
    QAbstractButton *fitButton() const;
    QAbstractButton *windowButton() const;
    // A panel of its own in a top-level window on the same document (the
    // Window button), for a large plane on the projector.
    VectorPlanePanel *openWindow();

    // The snap steps offered, in the order of the box (0 = none).
    static std::vector<double> snapSteps();

private:
    void sync();

    Document *m_doc;
    VectorPlane *m_plane;
    QLabel *m_dimsLabel;
    QComboBox *m_dimX;
    QComboBox *m_dimY;
    QToolButton *m_pca;
    QComboBox *m_snap;
    QToolButton *m_dragKeys;
    QToolButton *m_fit;
    QToolButton *m_window;
    QWidget *m_dimsRow;
    bool m_syncing = false;
};

} // namespace attn
