#pragma once
// The gradient lens: a loss picked in a sentence ("make every query attend
// to 猫", "move the query's output towards the value of 猫"), its value, and
// beside it the gradients the backward pass gives (core/backward.h):
// ∂L/∂weights, ∂L/∂scores, the selected query's softmax Jacobian, ∂L/∂Q,
// ∂L/∂K, ∂L/∂V (projected: ∂L/∂X, ∂L/∂W_*). Hovering a cell gives its hand
// calculation (core/gradlens.h). Where a gradient is undefined the panel
// says why, instead of maps.
//
// Gradient descent on the vector plane's selected vector (the query, or a
// key with "Drag keys"): Step moves it by −η∇ (one undo step); Descend
// takes steps on a timer, each only if it lowers the loss, until the loss
// stops falling (relative change below the tolerance) or the step limit,
// all of it one undo step (a gesture); Stop ends it at once.

#include "document.h"
#include "gradientlens.h"

#include <QTimer>
#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace attn {

class HeatmapPlot;
class PlanePanel;
class ViewBinding;

class GradientPanel : public QWidget {
    Q_OBJECT

public:
    // `plane`: the panel whose selected vector a step moves (may be null:
    // the selected query then).
    GradientPanel(Document *doc, GradientLens *lens, PlanePanel *plane, QWidget *parent = nullptr);
    ~GradientPanel() override;

    GradientLens *lens() const { return m_lens; }

    // The maps on show, by their title ("∂L/∂weights", "Jacobian", "∂L/∂Q" …).
    enum class Map { Weights, Scores, Jacobian, Input };
    struct MapView {
        Map map = Map::Weights;
        MatrixId id = MatrixId::Q; // Input only
        HeatmapPlot *plot = nullptr;
    };
    const std::vector<MapView> &maps() const { return m_maps; }
    HeatmapPlot *mapOf(Map map, MatrixId id = MatrixId::Q) const;
    // The hand calculation of a cell, as its tooltip gives it.
    QString cellText(Map map, MatrixId id, int row, int col) const;
    QString lossText() const;
    QString problemText() const;

    // Descent.
    void setLearningRate(double eta);
    double learningRate() const;
    void setMaxSteps(int steps);
    int maxSteps() const;
    void setTolerance(double tolerance) { m_tolerance = tolerance; }
    double tolerance() const { return m_tolerance; }
    // One step −η∇ on the selected vector, one undo step; false when there
    // is no gradient (the reason shown).
    bool step();
    void descend();
    void stop();
    // For a scripted figure (`--show descent`): the same steps as Descend,
    // taken now without the timer (small matrices: microseconds a step).
    void descendAtOnce();
    bool isDescending() const { return m_descending; }
    // The loss after each step of the steps and descent shown (the first
    // entry before them).
    const std::vector<double> &history() const { return m_history; }
    int descentSteps() const { return m_descentSteps; }

    QComboBox *kindBox() const { return m_kind; }
    QComboBox *tokenBox() const { return m_token; }
    QLineEdit *vectorEdit() const { return m_vector; }
    QPushButton *stepButton() const { return m_step; }
    QPushButton *descendButton() const { return m_descend; }
    QCheckBox *arrowsBox() const { return m_arrows; }
    QCustomPlot *historyPlot() const { return m_curve; }

public slots:
    void refresh();

signals:
    void descentFinished();

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    struct Target {
        MatrixId id = MatrixId::Q;
        int row = 0, offset = 0, width = 0;
        QString name;
    };
    Target target() const;
    // The selected vector after one step −η∇ of the loss now; nullopt
    // (the reason shown) without a gradient.
    std::optional<Eigen::RowVectorXd> steppedRow(const Target &t) const;
    void tick();
    void finishDescent();
    void retranslate();
    void fillTokens();
    void onKindChanged();
    void readVector();
    void updateMaps(const GradientLens::State &st);
    void updateCurve();
    void updateButtons();
    HeatmapPlot *plotAt(std::size_t index);
    void arrangeMaps();

    Document *m_doc;
    GradientLens *m_lens;
    PlanePanel *m_plane;
    ViewBinding *m_binding = nullptr;

    QLabel *m_lossLabel;
    QComboBox *m_kind;
    QComboBox *m_token;
    QLineEdit *m_vector;
    QLabel *m_formula;
    QLabel *m_problem;
    QWidget *m_mapsBox;
    QGridLayout *m_grid;
    std::vector<MapView> m_maps;
    std::vector<HeatmapPlot *> m_plots; // made as needed, kept
    int m_columns = 0;
    QLabel *m_etaLabel;
    QDoubleSpinBox *m_eta;
    QLabel *m_maxLabel;
    QSpinBox *m_max;
    QPushButton *m_step;
    QPushButton *m_descend;
    QCheckBox *m_arrows;
    QLabel *m_status;
    QCustomPlot *m_curve;

    QTimer m_timer;
    bool m_descending = false;
    int m_descentSteps = 0;
    double m_tolerance = 1e-4;
    std::vector<double> m_history;
    QString m_statusText;
};

} // namespace attn
