#include "scalinglabpanel.h"

#include "scalinglab.h"
#include "sweepclock.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

namespace attn {

// One worker thread that runs the newest job it is given. submit() replaces a
// job still waiting, and the running job's stop() turns true, so a run
// nobody wants any more is abandoned within a few trials.
class LatestJobRunner {
public:
    using Job = std::function<void(const StopRequested &stop)>;

    LatestJobRunner() : m_thread([this] { loop(); }) {}

    ~LatestJobRunner()
    {
        {
            std::lock_guard lock(m_mutex);
            m_quit = true;
            m_pending.reset();
        }
        m_interrupt = true;
        m_wake.notify_all();
        m_thread.join();
    }

    void submit(Job job)
    {
        {
            // Raised under the lock: were it raised after, a worker that had
            // just taken this very job would see it and abandon the job nobody
            // replaced, leaving the panel busy for ever.
            std::lock_guard lock(m_mutex);
            m_interrupt = true;
            m_pending = std::move(job);
        }
        m_wake.notify_all();
    }

private:
    void loop()
    {
        const StopRequested stop = [this] { return m_interrupt.load(std::memory_order_relaxed); };
        for (;;) {
            Job job;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [this] { return m_quit || m_pending.has_value(); });
                if (m_quit)
                    return;
                job = std::move(*m_pending);
                m_pending.reset();
                m_interrupt = false;
            }
            job(stop);
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::optional<Job> m_pending;
    bool m_quit = false;
    std::atomic<bool> m_interrupt{false};
    std::thread m_thread; // last: starts once the members above exist
};

namespace {

// The gradient sweep's trials at most: 2000 (n + 1) (1 + 2 + ... + 1024)
// = 3.7e7 normal draws for n = 8, well under a second.
constexpr int kGradientSweepTrials = 2000;

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Trials of a preview: enough for a recognisable histogram, cheap enough to be instant.
int previewTrials(double drawsPerTrial, int trials)
{
    const int preview = int(ScalingLabPanel::kPreviewDraws / drawsPerTrial);
    return preview >= 200 && preview < trials / 2 ? preview : 0;
}

} // namespace

const std::vector<int> &ScalingLabPanel::sliderDks()
{
    static const std::vector<int> dks = [] {
        std::vector<int> out;
        for (int i = 0; i <= 100; ++i) {
            const int d = int(std::lround(std::pow(2.0, i / 10.0)));
            if (out.empty() || out.back() != d)
                out.push_back(d);
        }
        return out;
    }();
    return dks;
}

ScalingLabPanel::ScalingLabPanel(QWidget *parent)
    : QWidget(parent), m_labRunner(std::make_unique<LatestJobRunner>()),
      m_sweepRunner(std::make_unique<LatestJobRunner>())
{
    setObjectName(QStringLiteral("ScalingLabPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto *controls = new QHBoxLayout;
    controls->setSpacing(8);
    auto *dkName = new QLabel(tr("d_k"), this);
    QFont bold = dkName->font();
    bold.setBold(true);
    dkName->setFont(bold);
    controls->addWidget(dkName);
    controls->addWidget(new QLabel(QStringLiteral("1"), this));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("dkSlider"));
    m_slider->setRange(0, int(sliderDks().size()) - 1);
    m_slider->setPageStep(10);
    m_slider->setTracking(true);
    m_slider->setMinimumWidth(220);
    m_slider->setToolTip(tr("d_k on a log scale from 1 to 1024: each step multiplies it by about 1.07"));
    dkName->setBuddy(m_slider);
    controls->addWidget(m_slider, 3);
    controls->addWidget(new QLabel(QStringLiteral("1024"), this));
    m_dkLabel = new QLabel(this);
    m_dkLabel->setObjectName(QStringLiteral("dkValue"));
    m_dkLabel->setFont(bold);
    m_dkLabel->setMinimumWidth(m_dkLabel->fontMetrics().horizontalAdvance(QStringLiteral("d_k = 0000  ")));
    controls->addWidget(m_dkLabel);
    m_play = new QToolButton(this);
    m_play->setObjectName(QStringLiteral("dkPlay"));
    m_play->setToolTip(tr("Play: d_k walks from 1 to 1024 and back while the plots follow"));
    m_step = new QToolButton(this);
    m_step->setObjectName(QStringLiteral("dkStep"));
    m_step->setText(tr("Step ▸"));
    m_step->setToolTip(tr("d_k one notch on, paused"));
    controls->addWidget(m_play);
    controls->addWidget(m_step);
    m_clock = new SweepClock(this);
    m_clock->setFrames(int(sliderDks().size()), SweepClock::Path::Bounce);
    m_clock->setBaseRate(4.0);
    connect(m_clock, &SweepClock::frameChanged, this, [this](int frame) { m_slider->setValue(frame); });
    auto syncPlay = [this] { m_play->setText(m_clock->isRunning() ? tr("Pause") : tr("▶ Play d_k")); };
    connect(m_clock, &SweepClock::runningChanged, this, syncPlay);
    syncPlay();
    connect(m_play, &QToolButton::clicked, this, [this] { isPlaying() ? pause() : play(); });
    connect(m_step, &QToolButton::clicked, this, [this] {
        if (m_clock->frame() != m_slider->value())
            m_clock->seek(m_slider->value()); // from where the slider is
        m_clock->stepForward();
    });

    auto spin = [this, controls](const QString &label, const QString &name, int lo, int hi, int value, int step,
                                 const QString &tip) {
        auto *text = new QLabel(label, this);
        auto *box = new QSpinBox(this);
        box->setObjectName(name);
        box->setRange(lo, hi);
        box->setValue(value);
        box->setSingleStep(step);
        box->setGroupSeparatorShown(true);
        box->setKeyboardTracking(false); // typing 20000 is not a run at 2, 20, 200 and 2000
        box->setToolTip(tip);
        text->setBuddy(box);
        controls->addSpacing(6);
        controls->addWidget(text);
        controls->addWidget(box);
        return box;
    };
    const ScalingLabParams defaults;
    m_trials = spin(tr("&Trials"), QStringLiteral("trials"), 2, kMaxExperimentTrials, defaults.trials, 1000,
                    tr("How many pairs q, k are drawn"));
    m_seed = spin(tr("&Seed"), QStringLiteral("seed"), 0, std::numeric_limits<int>::max(), int(defaults.seed), 1,
                  tr("The same seed gives the same draws, on every computer"));
    m_keys = spin(tr("&Keys n"), QStringLiteral("keys"), kMinLabKeys, kMaxLabKeys, defaults.keys, 1,
                  tr("Keys in the softmax row: the scores q·k_1 … q·k_n"));
    controls->addStretch(1);
    layout->addLayout(controls);

    // In a scroll area: on a small screen at a large zoom the lab scrolls
    // rather than squeezing its plots and table over one another.
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_view = new ScalingLabView(scroll);
    scroll->setWidget(m_view);
    layout->addWidget(scroll, 1);

    connect(m_slider, &QSlider::valueChanged, this, [this] {
        updateDkLabel();
        request();
    });
    connect(m_trials, &QSpinBox::valueChanged, this, [this] {
        request();
        requestSweep();
    });
    connect(m_seed, &QSpinBox::valueChanged, this, [this] {
        request();
        requestSweep();
    });
    connect(m_keys, &QSpinBox::valueChanged, this, &ScalingLabPanel::request);

    ScalingLabData data;
    data.handout = handoutDraw(7, 64).value(); // the handout's own d_k, always in range
    m_view->setData(data);

    {
        const QSignalBlocker block(m_slider);
        setDk(defaults.dk);
    }
    updateDkLabel();
    request();
    requestSweep();
}

ScalingLabPanel::~ScalingLabPanel()
{
    // Joined here, before the widgets the workers' results are posted to go.
    m_labRunner.reset();
    m_sweepRunner.reset();
}

void ScalingLabPanel::setDk(int dk)
{
    const std::vector<int> &dks = sliderDks();
    const auto it = std::min_element(dks.begin(), dks.end(), [dk](int a, int b) {
        return std::abs(std::log(double(a) / dk)) < std::abs(std::log(double(b) / dk));
    });
    m_slider->setValue(int(it - dks.begin()));
}

int ScalingLabPanel::dk() const
{
    return sliderDks()[std::size_t(std::clamp(m_slider->value(), 0, int(sliderDks().size()) - 1))];
}

void ScalingLabPanel::play()
{
    // From where the slider is (a hand may have moved it since).
    if (m_clock->frame() != m_slider->value()) {
        const QSignalBlocker block(m_clock);
        m_clock->seek(m_slider->value());
    }
    m_clock->play();
}

void ScalingLabPanel::pause()
{
    m_clock->pause();
}

bool ScalingLabPanel::isPlaying() const
{
    return m_clock->isRunning();
}

void ScalingLabPanel::setTrials(int trials)
{
    m_trials->setValue(trials);
}

void ScalingLabPanel::setSeed(int seed)
{
    m_seed->setValue(seed);
}

void ScalingLabPanel::setKeys(int keys)
{
    m_keys->setValue(keys);
}

ScalingLabParams ScalingLabPanel::params() const
{
    ScalingLabParams p;
    p.dk = dk();
    p.trials = m_trials->value();
    p.seed = std::uint64_t(m_seed->value());
    p.keys = m_keys->value();
    return p;
}

bool ScalingLabPanel::isBusy() const
{
    return m_labBusy || m_sweepBusy;
}

void ScalingLabPanel::updateDkLabel()
{
    m_dkLabel->setText(tr("d_k = %1").arg(dk()));
}

void ScalingLabPanel::request()
{
    const std::uint64_t generation = ++m_generation;
    const ScalingLabParams p = params();
    if (const auto problem = checkScalingLab(p)) {
        // Refused before any work: the plots say nothing rather than show another d_k.
        m_labBusy = false;
        ScalingLabData data = m_view->data();
        data.lab.reset();
        m_view->setData(data);
        m_view->setMessage(tr("Not computed: %1.").arg(QString::fromStdString(problem->message)), true);
        m_labRunner->submit([](const StopRequested &) {}); // abandons a run in progress
        return;
    }
    m_labBusy = true;
    if (!m_view->data().lab || m_view->data().lab->params.dk != p.dk || m_view->message().isEmpty())
        m_view->setMessage(tr("Computing d_k = %1 (%L2 trials)…").arg(p.dk).arg(p.trials));
    m_labRunner->submit([this, p, generation](const StopRequested &stop) {
        const auto start = std::chrono::steady_clock::now();
        // Checked above, so a Problem here is one the check missed: said, not shown as numbers.
        auto refused = [this, generation](const Problem &problem) {
            QMetaObject::invokeMethod(this, [this, generation, what = QString::fromStdString(problem.message)] {
                if (generation != m_generation)
                    return;
                m_labBusy = false;
                m_view->setMessage(tr("Not computed: %1.").arg(what), true);
            }, Qt::QueuedConnection);
        };
        const int preview = previewTrials(2.0 * p.dk + p.keys - 1, p.trials);
        if (preview > 0) {
            ScalingLabParams first = p;
            first.trials = preview;
            const auto run = runScalingLab(first, stop);
            if (const Problem *problem = run.problem())
                return refused(*problem);
            if (!run.value())
                return;
            QMetaObject::invokeMethod(this, [this, generation, lab = *run.value(), t = secondsSince(start)] {
                showLab(generation, lab, true, t);
            }, Qt::QueuedConnection);
        }
        const auto run = runScalingLab(p, stop);
        if (const Problem *problem = run.problem())
            return refused(*problem);
        if (!run.value())
            return;
        QMetaObject::invokeMethod(this, [this, generation, lab = *run.value(), t = secondsSince(start)] {
            showLab(generation, lab, false, t);
        }, Qt::QueuedConnection);
    });
}

void ScalingLabPanel::requestSweep()
{
    const int trials = m_trials->value();
    const auto seed = std::uint64_t(m_seed->value());
    if (seed == m_sweepSeed && trials == m_sweepTrials)
        return;
    m_sweepSeed = seed;
    m_sweepTrials = trials;
    const std::uint64_t generation = ++m_sweepGeneration;
    const std::vector<int> dks = powersOfTwoDk(1024);
    // The points share the budget of one run: with more trials than it
    // allows they use as many as it does, and the plot's title says how many.
    const int sweepTrials =
        std::min(trials, int(std::floor(kMaxScalingDraws / varianceSweepDraws(1, dks))));
    m_sweepBusy = true;
    ScalingLabData data = m_view->data();
    data.variance.clear();
    data.varianceTrials = 0;
    data.gradients.clear();
    m_view->setData(data);
    m_sweepRunner->submit([this, seed, sweepTrials, dks, generation](const StopRequested &stop) {
        // The sweep's trials are bounded by the budget above: a Problem only ends the run.
        auto refused = [this, generation] {
            QMetaObject::invokeMethod(this, [this, generation] {
                if (generation == m_sweepGeneration)
                    m_sweepBusy = false;
            }, Qt::QueuedConnection);
        };
        const int preview = previewTrials(varianceSweepDraws(1, dks), sweepTrials);
        if (preview > 0) {
            const auto run = varianceSweep(seed, preview, dks, stop);
            if (run.problem())
                return refused();
            if (!run.value())
                return;
            QMetaObject::invokeMethod(this, [this, generation, points = *run.value(), preview] {
                if (generation == m_sweepGeneration) {
                    ScalingLabData data = m_view->data();
                    data.variance = points;
                    data.varianceTrials = preview;
                    m_view->setData(data);
                }
            }, Qt::QueuedConnection);
        }
        const auto run = varianceSweep(seed, sweepTrials, dks, stop);
        if (run.problem())
            return refused();
        if (!run.value())
            return;
        QMetaObject::invokeMethod(this, [this, generation, points = *run.value(), sweepTrials] {
            showSweep(generation, points, sweepTrials);
        }, Qt::QueuedConnection);
        // Then the gradient against d_k: full key vectors, (n + 1) d_k draws a
        // trial, so fewer trials (a mean's error of a few per cent).
        ScalingLabParams g;
        g.seed = seed;
        g.trials = std::min(sweepTrials, kGradientSweepTrials);
        std::vector<GradientPoint> gradients;
        for (int dk : dks) {
            g.dk = dk;
            const auto point = scalingGradients(g, stop);
            if (point.problem())
                return refused();
            if (!point.value())
                return;
            gradients.push_back(*point.value());
        }
        QMetaObject::invokeMethod(this, [this, generation, gradients] {
            if (generation != m_sweepGeneration)
                return;
            m_sweepBusy = false;
            ScalingLabData data = m_view->data();
            data.gradients = gradients;
            m_view->setData(data);
        }, Qt::QueuedConnection);
    });
}

void ScalingLabPanel::showLab(std::uint64_t generation, const ScalingLab &lab, bool preview, double seconds)
{
    if (generation != m_generation)
        return; // a stale result: the user has moved on
    if (!preview)
        m_labBusy = false;
    m_shownGeneration = generation;
    m_showsPreview = preview;
    ScalingLabData data = m_view->data();
    data.lab = lab;
    m_view->setData(data);
    const ScalingLabParams &p = lab.params;
    if (preview)
        m_view->setMessage(tr("d_k = %1: a first look at %L2 trials; computing all %L3…")
                               .arg(p.dk)
                               .arg(p.trials)
                               .arg(m_trials->value()));
    else
        m_view->setMessage(tr("d_k = %1: q, k ~ N(0, I), %L2 trials, seed %3, n = %4 keys (%5 s)")
                               .arg(p.dk)
                               .arg(p.trials)
                               .arg(p.seed)
                               .arg(p.keys)
                               .arg(QLocale().toString(seconds, 'f', 2)));
    emit resultShown(preview);
}

void ScalingLabPanel::showSweep(std::uint64_t generation, const std::vector<VariancePoint> &points, int trials)
{
    if (generation != m_sweepGeneration)
        return;
    // Still busy: the gradient against d_k follows on the same thread.
    ScalingLabData data = m_view->data();
    data.variance = points;
    data.varianceTrials = trials;
    m_view->setData(data);
}

} // namespace attn
