#pragma once
// A model folder read off the GUI thread, for a view that shows a progress
// bar and a Cancel button while it reads (the encoder's, the
// encoder-decoder's). The loader runs on a worker thread with a LoadControl;
// its progress and its result come back on the GUI thread. One load at a
// time; destroying it cancels a running load and waits for it (the core
// checks the flag between tensors, so that is short).

#include "gpt2.h"
#include "result.h"

#include <QMetaObject>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QThread>

#include <atomic>
#include <functional>
#include <memory>

namespace attn {

template <class Model>
class BackgroundLoad {
public:
    using Loaded = Result<std::shared_ptr<const Model>>;

    // `context` receives the result (its thread, the GUI's); the bar and the
    // button show while a load runs, and the button cancels it.
    BackgroundLoad(QObject *context, QProgressBar *bar, QPushButton *cancel) : m_context(context), m_bar(bar), m_button(cancel)
    {
        m_bar->setRange(0, 100);
        m_bar->hide();
        m_button->hide();
        QObject::connect(m_button, &QPushButton::clicked, m_context, [this] { this->cancel(); });
    }
    ~BackgroundLoad()
    {
        cancel();
        if (m_thread) {
            m_thread->wait();
            delete m_thread;
        }
    }
    BackgroundLoad(const BackgroundLoad &) = delete;
    BackgroundLoad &operator=(const BackgroundLoad &) = delete;

    bool running() const { return m_thread != nullptr; }
    void cancel()
    {
        if (m_cancel)
            m_cancel->store(true);
    }
    // Runs `load` on a worker thread, then `done` on the context's thread.
    // False, and nothing starts, while a load runs.
    bool start(std::function<Loaded(const LoadControl &)> load, std::function<void(Loaded)> done)
    {
        if (m_thread)
            return false;
        m_cancel = std::make_shared<std::atomic<bool>>(false);
        m_bar->setValue(0);
        m_bar->show();
        m_button->show();
        auto flag = m_cancel;
        QPointer<QProgressBar> bar = m_bar;
        m_thread = QThread::create([this, flag, bar, load = std::move(load), done = std::move(done)] {
            LoadControl control;
            control.cancel = flag.get();
            control.progress = [bar](double f) {
                QMetaObject::invokeMethod(bar, [bar, f] { if (bar) bar->setValue(int(f * 100)); }, Qt::QueuedConnection);
            };
            Loaded result = load(control);
            QMetaObject::invokeMethod(
                m_context,
                [this, done, result = std::move(result)]() mutable {
                    m_thread->wait();
                    delete m_thread;
                    m_thread = nullptr;
                    m_bar->hide();
                    m_button->hide();
                    done(std::move(result));
                },
                Qt::QueuedConnection);
        });
        m_thread->start();
        return true;
    }

private:
    QObject *m_context;
    QProgressBar *m_bar;
    QPushButton *m_button;
    QThread *m_thread = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

} // namespace attn
