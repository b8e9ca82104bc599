#pragma once
// Loading a model off the GUI thread: a big model takes seconds to read, and
// the window keeps drawing, shows the progress and can be told to stop.
// loadModel (core/model/gpt2.h) runs on a worker thread with a LoadControl;
// its progress and its result come back to the loader's thread as signals.
// One load at a time; deleting the loader cancels a running load and waits
// for it (the core checks the flag between tensors, so that is short).

#include "gpt2.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

class QThread;

namespace attn {

class ModelLoader : public QObject {
    Q_OBJECT
public:
    // What runs on the worker thread: loadModel or loadBuiltinModel with the
    // given control (a test passes its own).
    using LoadFunction = std::function<ModelOrProblem(const LoadControl &)>;

    explicit ModelLoader(QObject *parent = nullptr);
    ~ModelLoader() override;

    // Starts loading the folder (kBuiltinModelFolder: the built-in model).
    // False, and nothing starts, while a load is running.
    bool start(const QString &folder);
    bool start(const QString &folder, LoadFunction load);
    bool isRunning() const { return m_thread != nullptr; }
    // The folder of the running or last load.
    QString folder() const { return m_folder; }
    // True from cancel() until the next start(): finished() then carried
    // a Problem whose message is kLoadCancelled.
    bool wasCancelled() const { return m_cancelRequested; }

public slots:
    // Stops the running load at its next check; finished() follows.
    void cancel();

signals:
    // A fraction from 0 to 1 that only grows, at most a hundred times a load.
    void progress(double fraction);
    // Once per start(): the model, or (model null) why there is none.
    // (Two arguments rather than a ModelOrProblem: Qt's meta-type system
    // cannot register a std::variant of a type without operator==.)
    void finished(std::shared_ptr<const attn::Gpt2Model> model, const attn::Problem &problem);

private:
    void done(ModelOrProblem result);

    QThread *m_thread = nullptr; // owned; joined in done() or the destructor
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_cancelRequested = false;
    QString m_folder;
};

} // namespace attn
