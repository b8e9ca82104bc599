#include "modelloader.h"

#include <QMetaObject>
#include <QThread>

#include <algorithm>
#include <cmath>

namespace attn {

ModelLoader::ModelLoader(QObject *parent)
    : QObject(parent)
{
}

ModelLoader::~ModelLoader()
{
    if (m_thread) {
        m_cancel->store(true);
        m_thread->wait();
        delete m_thread;
    }
}

bool ModelLoader::start(const QString &folder)
{
    return start(folder, [folder](const LoadControl &control) {
        return folder == QLatin1String(kBuiltinModelFolder) ? loadBuiltinModel(control) : loadModel(folder, control);
    });
}

bool ModelLoader::start(const QString &folder, LoadFunction load)
{
    if (m_thread)
        return false;
    m_folder = folder;
    m_cancelRequested = false;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    const std::shared_ptr<std::atomic<bool>> cancel = m_cancel;
    // The worker reaches back to this object only through queued calls,
    // which Qt drops if the object is gone (the destructor waits anyway).
    m_thread = QThread::create([this, load = std::move(load), cancel] {
        LoadControl control;
        control.cancel = cancel.get();
        int reported = -1; // in hundredths: at most a hundred signals
        control.progress = [this, &reported](double fraction) {
            const int step = int(std::floor(std::clamp(fraction, 0.0, 1.0) * 100));
            if (step <= reported)
                return;
            reported = step;
            const double shown = step / 100.0;
            QMetaObject::invokeMethod(this, [this, shown] { emit progress(shown); }, Qt::QueuedConnection);
        };
        ModelOrProblem result = load(control);
        QMetaObject::invokeMethod(this, [this, result = std::move(result)]() mutable { done(std::move(result)); },
                                  Qt::QueuedConnection);
    });
    m_thread->start();
    return true;
}

void ModelLoader::cancel()
{
    if (!m_thread)
        return;
    m_cancelRequested = true;
    m_cancel->store(true);
}

void ModelLoader::done(ModelOrProblem result)
{
    // The worker posted this as its last act: the join is immediate.
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    // A cancel that came after the core's last check still cancels.
    if (m_cancelRequested && result.ok())
        result = Problem{m_folder.toStdString(), kLoadCancelled};
    if (result.ok())
        emit finished(result.value(), Problem{});
    else
        emit finished(nullptr, *result.problem());
}

} // namespace attn
