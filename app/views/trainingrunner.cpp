#include "trainingrunner.h"

#include <QMetaObject>
#include <QThread>

namespace attn {

TrainingRunner::TrainingRunner(QObject *parent) : QObject(parent) {}

TrainingRunner::~TrainingRunner()
{
    if (m_thread) {
        {
            std::lock_guard lock(m_shared->mutex);
            m_shared->cancel = true;
        }
        m_shared->wake.notify_all();
        m_thread->wait();
        delete m_thread;
    }
}

std::optional<Problem> TrainingRunner::start(const TrainSettings &settings, bool startPaused)
{
    if (m_thread)
        return Problem{"training", "a training is running; cancel it first"};
    auto begun = startTraining(settings);
    if (!begun.ok())
        return *begun.problem();
    m_settings = settings;
    m_initial = std::make_shared<const TrainState>(begun.value());
    m_log.clear();
    m_checkpoints.clear();
    m_latest.reset();
    m_latestStep = 0;
    m_step = 0;
    m_paused = startPaused;
    m_shared = std::make_shared<Shared>();
    m_shared->pause = startPaused;
    auto state = std::make_shared<TrainState>(std::move(begun.value()));
    const std::shared_ptr<Shared> shared = m_shared;
    // The worker owns `state`; it reaches this object only through queued
    // calls (the destructor waits for it, so `this` outlives them).
    m_thread = QThread::create([this, state, shared] {
        TrainState &s = *state;
        auto report = [this, &s](const TrainRecord &r) {
            std::optional<TrainLogEntry> entry;
            std::optional<TrainCheckpoint> checkpoint;
            std::shared_ptr<const Gpt2Model> latest;
            if (r.logged) {
                entry = s.log.back();
                latest = r.checkpointed ? s.checkpoints.back().model : std::make_shared<const Gpt2Model>(s.model);
            }
            if (r.checkpointed)
                checkpoint = s.checkpoints.back();
            const int step = s.step;
            const double loss = s.lastLoss;
            QMetaObject::invokeMethod(this, [this, step, loss, entry, checkpoint, latest] {
                m_step = step;
                emit stepped(step, loss);
                if (entry) {
                    m_latest = latest;
                    m_latestStep = step;
                    m_log.push_back(*entry);
                    emit logged(int(m_log.size()) - 1);
                }
                if (checkpoint) {
                    m_checkpoints.push_back(*checkpoint);
                    emit checkpointed(int(m_checkpoints.size()) - 1);
                }
            }, Qt::QueuedConnection);
        };
        auto finish = [this](bool cancelled, const QString &problem) {
            QMetaObject::invokeMethod(this, [this, cancelled, problem] { done(cancelled, problem); }, Qt::QueuedConnection);
        };
        auto first = recordProgress(s);
        if (!first.ok())
            return finish(false, QString::fromStdString(first.problem()->toString()));
        report(first.value());
        // Only the newest weights are needed here; the window keeps the checkpoints.
        s.checkpoints.clear();
        s.log.clear();
        while (s.step < s.settings.steps) {
            {
                std::unique_lock lock(shared->mutex);
                bool announced = false;
                while (!shared->cancel && shared->pause && shared->singleSteps == 0) {
                    if (!announced) {
                        const int step = s.step;
                        QMetaObject::invokeMethod(this, [this, step] {
                            if (m_thread && m_paused)
                                emit paused(step);
                        }, Qt::QueuedConnection);
                        announced = true;
                    }
                    shared->wake.wait(lock);
                }
                if (shared->cancel)
                    return finish(true, QString());
                if (shared->singleSteps > 0)
                    --shared->singleSteps;
            }
            if (auto p = trainStep(s))
                return finish(false, QString::fromStdString(p->toString()));
            auto r = recordProgress(s);
            if (!r.ok())
                return finish(false, QString::fromStdString(r.problem()->toString()));
            report(r.value());
            s.checkpoints.clear();
            s.log.clear();
        }
        finish(false, QString());
    });
    m_thread->start();
    emit started();
    return std::nullopt;
}

void TrainingRunner::pause()
{
    if (!m_thread || m_paused)
        return;
    m_paused = true;
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->pause = true;
    }
    m_shared->wake.notify_all();
}

void TrainingRunner::resume()
{
    if (!m_thread || !m_paused)
        return;
    m_paused = false;
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->pause = false;
    }
    m_shared->wake.notify_all();
    emit resumed();
}

void TrainingRunner::stepOnce()
{
    if (!m_thread || !m_paused)
        return;
    {
        std::lock_guard lock(m_shared->mutex);
        ++m_shared->singleSteps;
    }
    m_shared->wake.notify_all();
}

void TrainingRunner::cancel()
{
    if (!m_thread)
        return;
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->cancel = true;
    }
    m_shared->wake.notify_all();
}

void TrainingRunner::done(bool cancelled, const QString &problem)
{
    // The worker posted this as its last act: the join is immediate.
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_paused = false;
    emit finished(cancelled, problem);
}

} // namespace attn
