#pragma once
// The vector plane bound to the document: a
// PlanePlot that draws, a PlaneDragTool that edits, and the controls (the
// dimension pair or PCA, snapping, the keys toggle, Fit, Window). The panel
// rebuilds the scene (makePlaneScene) from the document's changes, its
// selection and hover, and the tool's state; a hidden panel waits until it
// is shown (ViewBinding). This is what the window shows in a tab.
//
// The PCA plane (d > 2) is fitted to the vectors when it is turned on, on
// Fit, for another head, and after any change that is not a change of rows
// (a lesson, a new shape, a setting); a drag, a nudge or a typed row moves
// the vectors within the plane as it is, so the picture does not turn under
// the user's hand.

#include "document.h"
#include "planedragtool.h"
#include "planeplot.h"

#include <QWidget>

#include <functional>
#include <optional>
#include <vector>

class QAbstractButton;
class QComboBox;
class QLabel;
class QToolButton;

namespace attn {

class ViewBinding;

class PlanePanel : public QWidget {
    Q_OBJECT

public:
    explicit PlanePanel(Document *doc, QWidget *parent = nullptr);
    ~PlanePanel() override;

    PlanePlot *plane() const { return m_plane; }
    PlaneDragTool *tool() const { return m_tool; }
    // The scene on show, brought up to date first if the panel was hidden.
    const PlaneScene &scene();

    // The width of the vectors shown: d_k (direct mode) or d_model (projected).
    int spaceDimension() const { return m_plane->scene().d; }
    // The dimensions on the horizontal and vertical axes (0-based) when
    // d > 2 and PCA is off. Out-of-range or equal choices are corrected.
    void setDimensions(int horizontal, int vertical);
    int horizontalDimension() const { return m_dimX; }
    int verticalDimension() const { return m_dimY; }
    // Projects onto the PCA plane of all keys and queries (d > 2 only).
    void setPrincipalProjection(bool on);
    bool principalProjection() const { return m_pca; }
    bool isProjection() const { return m_plane->isProjection(); }

    // The tool's settings, with the controls following.
    void setSnapStep(double step) { m_tool->setSnapStep(step); }
    double snapStep() const { return m_tool->snapStep(); }
    double nudgeStep() const { return m_tool->nudgeStep(); }
    void setKeysDraggable(bool on) { m_tool->setKeysDraggable(on); }
    bool keysDraggable() const { return m_tool->keysDraggable(); }
    PlaneTarget selectedVector() const { return m_tool->selectedVector(); }
    bool isDragging() const { return m_tool->isDragging(); }
    // Which matrix holds the rows of queries or keys: Q, K (direct), or X,
    // source (projected; X again for the keys of self-attention).
    MatrixId matrixOf(PlaneRole role) const { return m_plane->scene().matrixOf(role); }

    QComboBox *horizontalBox() const { return m_dimXBox; }
    QComboBox *verticalBox() const { return m_dimYBox; }
    QAbstractButton *pcaButton() const;
    QComboBox *snapBox() const { return m_snapBox; }
    QAbstractButton *dragKeysButton() const;
    QAbstractButton *fitButton() const;
    QAbstractButton *windowButton() const;
    // A panel of its own in a top-level window on the same document (the
    // Window button), for a large plane on the projector.
    PlanePanel *openWindow();

    // What the arrows of gradient descent are drawn from (the gradient
    // lens), asked each time the scene is made; null: no arrows.
    using GradientSource = std::function<std::optional<PlaneSettings::Gradient>(MatrixId queries, MatrixId keys)>;
    void setGradientSource(GradientSource source);

    // The snap steps offered, in the order of the box (0 = none).
    static std::vector<double> snapSteps();

public slots:
    // Makes the scene from the document now and hands it to the plot.
    void refresh();

signals:
    // Dimensions, projection, snap or the keys toggle changed (the controls follow).
    void viewChanged();

private:
    PlaneSettings settings() const;
    void onDocumentChanged(const DocumentChange &change);
    void sync();

    Document *m_doc;
    PlanePlot *m_plane;
    PlaneDragTool *m_tool;
    ViewBinding *m_binding = nullptr;
    GradientSource m_gradient;

    int m_dimX = 0;
    int m_dimY = 1;
    bool m_pca = false;
    std::optional<PlaneBasis> m_pcaBasis; // the PCA plane kept (see the top of this file)
    int m_basisHead = -1;                 // the head m_pcaBasis was fitted for

    QLabel *m_dimsLabel;
    QComboBox *m_dimXBox;
    QComboBox *m_dimYBox;
    QToolButton *m_pcaButton;
    QComboBox *m_snapBox;
    QToolButton *m_dragKeys;
    QToolButton *m_fit;
    QToolButton *m_window;
    QWidget *m_dimsRow;
    bool m_syncing = false;
};

} // namespace attn
