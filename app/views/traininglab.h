#pragma once
// The training lab: a small GPT-2-shaped model grows its heads while the
// class watches. The teacher picks the task and the model's shape, starts,
// pauses, steps and cancels (TrainingRunner: the core's own trainStep on a
// worker thread); the loss, every head's previous-token and prefix-matching
// scores (beside the uniform baseline) and the probe's attention maps are
// drawn as the log grows. Checkpoints (at most kTrainLabCheckpoints) are
// kept and a slider goes back to any of them; the race trains the same
// model, data and seed twice, ÷√d_k against ÷1 or ÷d_k.
//
// The view does not train and does not edit the document: it asks the core,
// and emits what the mode does with a head or a model.

#include "trainer.h"
#include "headgrid.h"
#include "result.h"
#include "scenario.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QTabWidget;

namespace attn {

class TrainingChart;
class TrainingRunner;
struct Gpt2Model;
struct ModelTrace;

// The most checkpoints a run keeps (the first at step 0, the last at the
// end): at d_model 128, 3 layers with the MLP, about 5 MB each, 200 MB in all.
inline constexpr int kTrainLabCheckpoints = 40;

class TrainingLabView : public QWidget {
    Q_OBJECT

public:
    explicit TrainingLabView(QWidget *parent = nullptr);
    ~TrainingLabView() override;

    // The settings in the form (with the window's bounded log and checkpoint schedule).
    TrainSettings settings() const;
    void setSettings(const TrainSettings &settings);

    // Start: the Problem (one line, also shown under the buttons) when the
    // core refuses the settings; nothing starts then.
    std::optional<Problem> startTraining();
    TrainingRunner *runner() const { return m_runner; }
    TrainingRunner *raceRunner(int which) const { return which == 0 ? m_raceA : m_raceB; }
    std::optional<Problem> startRace(Scale against);

    TrainingChart *lossChart() const { return m_loss; }
    TrainingChart *previousChart() const { return m_previous; }
    TrainingChart *prefixChart() const { return m_prefix; }
    TrainingChart *raceChart() const { return m_race; }
    HeadGrid *probeGrid() const { return m_grid; }
    QSlider *scrubber() const { return m_scrubber; }
    QTabWidget *tabs() const { return m_tabs; }
    QString statusText() const;

    // The checkpoint the slider shows (-1: none yet), and its log entry's scores.
    int shownCheckpoint() const;
    void showCheckpoint(int index);
    std::vector<TrainHeadScore> shownScores() const;
    // The probe: the first held-out repeated sequence (T token ids).
    std::vector<int> probeIds() const;
    // The trained model at checkpoint `index` as a GPT-2 reader sees it (the
    // queries rescaled to ÷√d_h, the task's tokenizer).
    Result<std::shared_ptr<const Gpt2Model>> readableCheckpoint(int index) const;
    // The head (0-based) of checkpoint `index` reading the probe, as a lab
    // scenario: Q, K, V the head's q, k, v, divided as the training divided.
    Result<Scenario> checkpointHead(int index, int layer, int head) const;
    std::optional<Problem> saveCheckpoint(int index, const QString &folder) const;
    // The probe's text (the tokens' characters), for model mode.
    QString probeText() const;

protected:
    // Hidden (the teacher is back in the lab), the charts and maps are not
    // redrawn at each log entry; shown again, they are drawn once.
    void showEvent(QShowEvent *event) override;

signals:
    void takeHeadRequested(const attn::Scenario &head, const QString &description);
    void openInModelModeRequested(std::shared_ptr<const attn::Gpt2Model> model, const QString &text);
    void saveRequested(int checkpoint);

private:
    void buildUi();
    void setStatus(const QString &text);
    void updateButtons();
    void updateCharts();
    void updateMaps();
    void updateRaceChart();
    void onLogged();
    void onCheckpointed(int index);
    void onFinished(bool cancelled, const QString &problem);
    void drawMaps(const Gpt2Model &weights, int step);
    const TrainLogEntry *entryAt(int step) const;

    TrainingRunner *m_runner = nullptr;
    TrainingRunner *m_raceA = nullptr, *m_raceB = nullptr;
    Scale m_raceAgainst = Scale::None;

    QComboBox *m_task = nullptr, *m_scale = nullptr, *m_raceScale = nullptr;
    QSpinBox *m_layers = nullptr, *m_heads = nullptr, *m_dModel = nullptr, *m_seed = nullptr, *m_steps = nullptr,
             *m_batch = nullptr, *m_length = nullptr;
    QCheckBox *m_mlp = nullptr;
    QPushButton *m_start = nullptr, *m_pause = nullptr, *m_resume = nullptr, *m_step = nullptr, *m_cancel = nullptr;
    QPushButton *m_take = nullptr, *m_openModel = nullptr, *m_save = nullptr;
    QPushButton *m_raceStart = nullptr, *m_raceCancel = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr, *m_checkpointLabel = nullptr, *m_scoresLabel = nullptr, *m_mapsTitle = nullptr,
           *m_raceStatus = nullptr;
    QSlider *m_scrubber = nullptr;
    QTabWidget *m_tabs = nullptr;
    TrainingChart *m_loss = nullptr, *m_previous = nullptr, *m_prefix = nullptr, *m_race = nullptr;
    HeadGrid *m_grid = nullptr;
    bool m_stale = false;  // log entries came while hidden
    bool m_follow = true; // the slider follows the newest checkpoint
    int m_mapsStep = -1;
    QList<QLabel *> m_formLabels;
};

} // namespace attn
