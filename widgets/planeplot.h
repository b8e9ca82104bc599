#pragma once
// The vector plane's plot:
// attention as soft nearest neighbours, drawn. It draws the PlaneScene it is
// given (planescene.h): for the selected head and query each key as an
// arrow from the origin whose width, opacity and "vote" disc grow with the
// key's weight (and the weight written beside its label), each query as a
// handle, the values (when d_v = 2) and the output, the weighted average of
// the values, as its own arrow. It knows nothing of the document: a
// PlaneTool (set with setTool) turns the left button and the keyboard into
// edits; the plot answers its hit-tests.
//
// Viewing. Right- or middle-drag pans, the wheel zooms, + and − zoom, F
// fits; fit() frames every vector (and is redone on resizes until the user
// pans or zooms, never during a drag); the two axes always have the same
// scale, so angles are true.
//
// Drawing. Everything is painted by QCustomPlot layerables and layout
// elements, so savePng / savePdf / toPixmap export the plane as it is on
// screen. The vectors have a buffered layer of their own: a new scene that
// leaves caption, view and size alone (a drag) redraws that layer only. A
// hidden plot draws nothing until shown. Fonts follow the widget's font
// (projector zoom); on a small plot the note and then the legend give way
// to the drawing.

#include "gradients.h"
#include "planescene.h"

#include <QStringList>
#include <qcustomplot.h>

#include <optional>
#include <vector>

class QKeyEvent;
class QMouseEvent;

namespace attn {

class PlaneVectorLayer;
class PlaneLegend;
class PlaneCaption;
class PlanePlot;

// What a plot's left button and keyboard do: each handler returns true when
// it took the event (the plot then does nothing more with it). The plot
// pans and zooms by itself; a tool sees no right or middle button while the
// plot pans, and the plot does not pan while the tool is busy().
class PlaneTool {
public:
    virtual ~PlaneTool() = default;
    virtual bool mousePressed(QMouseEvent *) { return false; }
    virtual bool mouseMoved(QMouseEvent *) { return false; }
    virtual bool mouseReleased(QMouseEvent *) { return false; }
    virtual bool keyPressed(QKeyEvent *) { return false; }
    virtual void pointerLeft() {}
    // In the middle of a gesture (a drag): no panning, no refitting.
    virtual bool busy() const { return false; }
};

// A label as the last drawing placed it (widget pixels): never over another
// label, a key's weight disc or a handle while there is a free place; set
// off from its anchor with a leader line when the places beside it are taken.
struct PlaneLabel {
    QString text;
    QRectF rect;
    QPointF anchor;
    bool leader = false;
    QColor color;
    bool bold = false;
};

class PlanePlot : public QCustomPlot {
    Q_OBJECT

public:
    explicit PlanePlot(QWidget *parent = nullptr);
    ~PlanePlot() override;

    // Background, text, grid and the vectors' colours (gradients.h); each
    // theme keeps key blue and query orange apart for every colour vision.
    void setTheme(const PlotTheme &theme);
    const PlotTheme &theme() const { return m_theme; }

    // What to draw. Drawing is queued (and left for later while hidden).
    void setScene(const PlaneScene &scene);
    const PlaneScene &scene() const { return m_scene; }
    // Predict, then reveal: scenes set from now on are drawn as
    // with PlaneSettings::hideWeights (set the scene again to apply it).
    void setWeightsHidden(bool hidden) { m_weightsHidden = hidden; }
    bool weightsHidden() const { return m_weightsHidden; }

    // The tool that gets the left button and the keys; not owned; null: none.
    void setTool(PlaneTool *tool) { m_tool = tool; }
    PlaneTool *tool() const { return m_tool; }

    // Frames every vector drawn, with room for the labels, and keeps doing
    // so on resizes until the user pans or zooms (emits fitRequested()).
    void fit();
    // Frames the vectors once, at the next layout (a new plane or shape).
    void fitOnce();
    // Zooms around the centre of the plot (factor < 1 zooms in).
    void zoomBy(double factor);

    // The scene, for those who read it off the plot.
    int spaceDimension() const { return m_scene.d; }
    bool isProjection() const { return m_scene.pca; }
    const PlaneBasis &basis() const { return m_scene.basis; }
    const Matrix &queryPoints() const { return m_scene.queries; } // n_q by 2
    const Matrix &keyPoints() const { return m_scene.keys; }      // n_k by 2
    const Matrix &valuePoints() const { return m_scene.values; }  // n_k by 2, or empty unless d_v = 2
    std::optional<Eigen::Vector2d> outputPoint() const { return m_scene.output; }
    const Eigen::VectorXd &keyWeights() const { return m_scene.weights; } // of the selected query
    QString caption() const { return m_scene.caption(); } // the title and the note above the plot
    QString horizontalTitle() const { return m_scene.horizontalTitle; }
    // The warning over the plot when the picture can mislead (empty: none).
    QString warningText() const;
    // The labels and the "in view" badge as the last drawing placed them.
    const std::vector<PlaneLabel> &placedLabels() const { return m_labels; }
    QRectF shownBadge() const { return m_badge; }
    // The radius in pixels of key j's weight disc.
    double keyDiscRadius(int j) const;
    QString verticalTitle() const { return m_scene.verticalTitle; }

    // Widget pixels of a plane point, of query i and of key j (as laid out
    // by the last replot), and the plane point under a pixel.
    QPointF pixelAt(const Eigen::Vector2d &p) const;
    QPointF queryPixel(int i) const;
    QPointF keyPixel(int j) const;
    Eigen::Vector2d coordAt(const QPointF &pixel) const;
    // Pixels per unit along each axis (equal: the aspect ratio is 1:1).
    double pixelsPerUnit(Qt::Orientation orientation) const;
    // The vector under a widget pixel, if any: the selected query first,
    // then the other queries, then (only withKeys) the keys; preferKeys
    // (Shift) puts the keys first.
    PlaneTarget handleAt(const QPointF &pixel, bool preferKeys = false, bool withKeys = false) const;

    // Milliseconds the last replot took: a full one (QCustomPlot::replotTime)
    // or one of the vector layer alone, which a drag usually needs. Both emit
    // beforeReplot() and afterReplot().
    double lastReplotTime() const;
    bool lastReplotWasVectorsOnly() const { return m_lastWasVectors; }

signals:
    // fit() was asked for (the F key, the Fit button): a PCA plane may be
    // fitted again to the vectors as they are now.
    void fitRequested();

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

    struct Pan {
        QPointF press;
        Eigen::Vector2d center;
    };

    void updateCaption();
    void fitChrome();
    void applyFonts();
    void applyTheme(const PlotTheme &theme);
    PlotTheme m_theme;
    void applyView();
    void requestReplot();
    void replotVectors();
    QString chromeKey() const;
    double unit() const; // a pixel size that grows with the font
    bool toolBusy() const { return m_tool && m_tool->busy(); }

    QString toolTipAt(const QPointF &pixel) const;

    // Drawing the scene (the vector layer's draw()), back to front, each
    // part in a function of its own; Frame holds the pixels of every vector
    // for one drawing, Labels the labels placed so far (planeplot.cpp).
    struct Frame;
    class Labels;
    Frame frame() const;
    void drawScene(QCPPainter *painter);
    // What the similarity compares: distance circles, the unit circle and
    // angles, projections onto the query's line (under everything else).
    void drawGuides(QCPPainter *painter);
    void drawValues(QCPPainter *painter, const Frame &f);
    void drawOtherQueries(QCPPainter *painter, const Frame &f);
    void drawKeys(QCPPainter *painter, const Frame &f);
    void drawOutputAndQuery(QCPPainter *painter, const Frame &f);
    void drawRings(QCPPainter *painter, const Frame &f);
    void drawGradientArrows(QCPPainter *painter, const Frame &f, Labels &labels);
    void blockLabelObstacles(Labels &labels, const Frame &f) const;
    void drawShownBadge(QCPPainter *painter, const Frame &f, Labels &labels);
    void placeQueryAndOutputLabels(Labels &labels, const Frame &f) const;
    void placeKeyLabels(Labels &labels, const Frame &f) const;
    void placeAngleLabel(Labels &labels, const Frame &f) const;
    void placeOtherLabels(Labels &labels, const Frame &f) const;
    void drawLabels(QCPPainter *painter, const Frame &f, const std::vector<PlaneLabel> &placed);

    PlaneScene m_scene;
    bool m_weightsHidden = false;
    PlaneTool *m_tool = nullptr;

    // The view: centre and units per pixel, the same on both axes.
    Eigen::Vector2d m_center = Eigen::Vector2d::Zero();
    double m_unitsPerPixel = 0.01;
    bool m_fitPending = true;
    bool m_autoFit = true; // fit again on resizes, until the user pans or zooms
    QSize m_fittedSize;    // the axis rect the last fit was made for
    std::optional<Pan> m_pan;

    QString m_chromeKey;              // chromeKey() at the last full replot
    bool m_vectorReplotQueued = false;
    bool m_replotWhenShown = false;
    double m_lastReplotTime = 0;      // ms, of the last replot of the vectors alone
    bool m_lastWasVectors = false;

    PlaneVectorLayer *m_layer = nullptr;
    PlaneCaption *m_title = nullptr;
    PlaneCaption *m_note = nullptr;
    PlaneCaption *m_warning = nullptr;
    std::vector<PlaneLabel> m_labels;
    QRectF m_badge;
    PlaneLegend *m_legend = nullptr;
    QSharedPointer<QCPAxisTickerFixed> m_ticker;
};

// The window's View ▸ Theme: every HeatmapPlot and PlanePlot on screen
// takes `theme` now, and every one made later starts with it. Figures
// being exported (Qt::WA_DontShowOnScreen) keep their own.
void setWindowPlotTheme(FigureTheme theme);

} // namespace attn
