#pragma once
// A training run off the GUI thread (as ModelLoader loads a model): the
// core's startTraining, then trainStep and recordProgress step by step on a
// worker thread, so the window keeps drawing and the class watches. The
// run can be paused (the worker waits, idle), stepped one step at a time
// while paused, resumed and cancelled. What the worker records comes back
// to the runner's thread as signals, and the runner keeps it: every log
// entry and every checkpoint (the settings' schedule bounds how many).
// Deleting the runner cancels a run and waits for its current step.

#include "trainer.h"

#include <QObject>
#include <QString>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

class QThread;

namespace attn {

class TrainingRunner : public QObject {
    Q_OBJECT

public:
    explicit TrainingRunner(QObject *parent = nullptr);
    ~TrainingRunner() override;

    // Checks the settings and the budget and draws the start (on this
    // thread: milliseconds), then trains on the worker. The Problem, and
    // nothing starts, for settings the core refuses or while a run is going.
    std::optional<Problem> start(const TrainSettings &settings, bool paused = false);
    bool isRunning() const { return m_thread != nullptr; }
    bool isPaused() const { return m_paused; }
    // The steps done, as last reported by the worker.
    int step() const { return m_step; }
    const TrainSettings &settings() const { return m_settings; }
    // The state the run started from (its weights at step 0 and its held-out
    // data), for scoring and drawing a checkpoint; null before the first start.
    std::shared_ptr<const TrainState> initialState() const { return m_initial; }
    const std::vector<TrainLogEntry> &log() const { return m_log; }
    const std::vector<TrainCheckpoint> &checkpoints() const { return m_checkpoints; }
    // The weights at the last log entry (drawn while training).
    std::shared_ptr<const Gpt2Model> latestModel() const { return m_latest; }
    int latestModelStep() const { return m_latestStep; }

public slots:
    void pause();
    void resume();
    // While paused: one step, then paused again.
    void stepOnce();
    void cancel();

signals:
    void started();
    void stepped(int step, double batchLoss);
    void logged(int index);          // log()[index] is new
    void checkpointed(int index);    // checkpoints()[index] is new
    void paused(int step);           // the worker is waiting at this step
    void resumed();
    // Once per start: the run ended (all steps, cancelled, or a problem: one line).
    void finished(bool cancelled, const QString &problem);

private:
    struct Shared {
        std::mutex mutex;
        std::condition_variable wake;
        bool pause = false;
        bool cancel = false;
        int singleSteps = 0;
    };
    void done(bool cancelled, const QString &problem);

    QThread *m_thread = nullptr; // owned; joined in done() or the destructor
    std::shared_ptr<Shared> m_shared;
    TrainSettings m_settings;
    std::shared_ptr<const TrainState> m_initial;
    std::vector<TrainLogEntry> m_log;
    std::vector<TrainCheckpoint> m_checkpoints;
    std::shared_ptr<const Gpt2Model> m_latest;
    int m_latestStep = 0;
    int m_step = 0;
    bool m_paused = false;
};

} // namespace attn
