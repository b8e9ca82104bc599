#pragma once
// Sweeps: play buttons that animate one setting while every map
// follows. The temperature runs from 0.05 to 20 on a log scale and back;
// the selected query turns once around the origin in the plane. Pause, one
// step, a speed. Beside them, each row's entropy and largest weight against
// tau (temperatureCurves in core/sweep.h) with the current tau marked, so
// "low tau: nearly one-hot, high tau: uniform" is a curve.
//
// The frames are a preview (SweepPreview): Stop leaves the document exactly
// as it was, Keep makes the value on show one undo step.

#include "document.h"
#include "sweep.h"
#include "sweepclock.h"
#include "sweeppreview.h"

#include <qcustomplot.h>

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QToolButton;

namespace attn {

class PlanePanel;
class ViewBinding;

// Each row's entropy (left axis, nats) and largest weight (right axis)
// against tau on a log axis; the selected row bold, the others faint; the
// ceiling ln n dotted; the current tau a vertical line.
class SweepCurvePlot : public QCustomPlot {
    Q_OBJECT

public:
    explicit SweepCurvePlot(QWidget *parent = nullptr);

    void setCurves(const TemperatureCurves &curves, const QStringList &rowLabels, int selectedRow);
    void setCurrentTemperature(double tau);
    const TemperatureCurves &curves() const { return m_curves; }
    int selectedRow() const { return m_row; }
    double currentTemperature() const { return m_tau; }
    // The selected row's graphs (for tests and exports): entropy and largest weight.
    QCPGraph *entropyGraph() const { return m_entropy; }
    QCPGraph *maxWeightGraph() const { return m_max; }
    QCPItemStraightLine *marker() const { return m_marker; }
    static QColor entropyColor();
    static QColor maxWeightColor();
    static QColor markerColor();

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void placeMarker();
    void applyFonts();

    TemperatureCurves m_curves;
    QStringList m_labels;
    int m_row = 0;
    double m_tau = 1.0;
    QCPTextElement *m_title = nullptr;
    QCPGraph *m_entropy = nullptr;
    QCPGraph *m_max = nullptr;
    QCPItemStraightLine *m_marker = nullptr;
    QCPItemText *m_markerText = nullptr;
    QCPItemStraightLine *m_ceiling = nullptr;
    QCPItemText *m_ceilingText = nullptr;
    QCPItemText *m_oneHotText = nullptr;
    QCPItemText *m_uniformText = nullptr;
};

class SweepPanel : public QWidget {
    Q_OBJECT

public:
    enum class Mode { None, Temperature, Rotation };

    explicit SweepPanel(Document *doc, QWidget *parent = nullptr);
    ~SweepPanel() override;

    // The plane whose axes the query turns in (its PCA plane, when shown);
    // without one, the first two dimensions.
    void setPlanePanel(PlanePanel *plane) { m_plane = plane; }

    // The temperature sweep's grid (log steps, 0.05 … 20) and the query's
    // turn in frames.
    static const std::vector<double> &temperatureGrid();
    static constexpr int kTurnFrames = 72;
    // At most this many rows get a curve; see curveRows().
    static constexpr Eigen::Index kMaxCurveRows = 48;
    // The rows drawn out of `rows`, ascending, always holding `selected`.
    static std::vector<Eigen::Index> curveRows(Eigen::Index rows, Eigen::Index selected);

    Mode mode() const { return m_mode; }
    bool isPreviewing() const { return m_preview->isActive(); }
    bool isPlaying() const { return m_clock->isRunning(); }
    SweepClock *clock() const { return m_clock; }
    SweepCurvePlot *curvePlot() const { return m_plot; }
    QToolButton *temperatureButton() const { return m_tauPlay; }
    QToolButton *turnButton() const { return m_turnPlay; }
    QToolButton *stepButton() const { return m_stepButton; }
    QToolButton *stopButton() const { return m_stopButton; }
    QToolButton *keepButton() const { return m_keepButton; }
    QComboBox *speedBox() const { return m_speed; }
    QString statusText() const;

public slots:
    // Plays the temperature sweep (from 0.05, or on from where it paused).
    void playTemperature();
    // Plays the query's turn (from where it is, or on from where it paused).
    void playTurn();
    void pause();
    // One frame on, paused (starting the τ sweep when nothing runs).
    void step();
    // Shows frame `frame` of the τ sweep, paused (a picture for a script).
    void showTemperatureFrame(int frame);
    // The document back to where the sweep began.
    void stop();
    // The value on show as one undo step.
    void keep();

signals:
    // For the status bar: what a button did.
    void message(const QString &text);

private:
    void start(Mode mode);
    void onFrame(int frame);
    void onPreviewEnded(bool kept);
    void refreshCurves();
    void sync();

    // What the curves were last made from; equal inputs, equal curves.
    struct CurveInputs {
        Matrix scores;  // the drawn rows' scores, rows by n_k
        BoolMatrix blocked;
        MaskStage stage = MaskStage::BeforeSoftmax;
        SoftmaxKind softmax = SoftmaxKind::Standard;
        double c = 0;
        int selected = -1;
        QStringList labels;
        bool operator==(const CurveInputs &o) const;
    };
    CurveInputs m_curveInputs;

    Document *m_doc;
    PlanePanel *m_plane = nullptr;
    SweepClock *m_clock;
    SweepPreview *m_preview;
    ViewBinding *m_binding = nullptr;
    Mode m_mode = Mode::None;
    bool m_ending = false; // stop() or keep() in progress

    // Where the sweep began.
    Settings m_baseSettings;
    MatrixId m_turnMatrix = MatrixId::Q;
    int m_turnRow = 0;
    int m_turnOffset = 0;
    Eigen::RowVectorXd m_turnStart;
    PlaneBasis m_turnBasis;

    QToolButton *m_tauPlay;
    QToolButton *m_turnPlay;
    QToolButton *m_stepButton;
    QToolButton *m_stopButton;
    QToolButton *m_keepButton;
    QComboBox *m_speed;
    QLabel *m_status;
    SweepCurvePlot *m_plot;
};

} // namespace attn
