// bench_drag: the vector plane's drag, end to end (speed figures;
// docs/performance.md, "Interactive latency (drag)", has the command and
// the table).
//
// It builds the real window (attn::MainWindow, 1600x1000, shown, the plane's
// tab in front) on the offscreen platform, opens a scenario, and replays a
// drag on the selected query's handle with QTest: a press, --moves moves
// sweeping the query 306° around the origin, and a release. Each event is
// timed from the moment it is sent until the event queue is empty, no
// QCustomPlot has a replot queued, and every plot that replotted has painted
// again: what a user would see as the frame after the pointer moved.
//
// Columns (milliseconds per event, over all moves of all repetitions):
//   median, p95, max   the whole event, as above
//   handler            inside the event itself: the edit, validation, the
//                      forward pass and every view taking the new data
//   replot             sum of QCustomPlot::replotTime() over the plots that
//                      replotted for the event (median); for the plane
//                      PlanePlot::lastReplotTime(), which also covers its
//                      replots of the vector layer alone
//   forward            attn::compute() alone on the same scenario (median of
//                      50 runs; 10 above n = 256), for scale
//   plots/event        how many plots replotted per move (all views follow)
//
// After the drags of a case, three more figures:
//   open      Document::replace with the case's scenario until the window
//             has settled (every map drawn): what opening the lesson costs
//             in a window that is already up (median of 3)
//   edit      one typed cell (Document::setRow outside a gesture, as the
//             matrix table does) until settled; median and max of 10 edits
//             of different rows
//   causal    the causal mask flipped (Document::setSettings, its own undo
//             step, as the settings panel does): every stage of every head
//             recomputed and redrawn, until settled; median and max of 10
//   RSS       the process's resident memory after the case (VmRSS), and its
//             peak so far (VmHWM), in MB
//
// Usage: bench_drag [--moves N] [--repeat R] [--flips N] [--no-forward] [--detail] [--memory] [--while-training] [--class-session N] [--case NAME]...
//   --flips N  flips of the causal mask a case (default 10); many, with
//            --moves 1 --no-forward, to profile the settings change alone
//   --no-forward leaves out the forward column's own compute() runs (0)
//   --class-session N starts a class session on loopback with N simulated
//            phones (their sockets on a thread of their own), a question
//            open, every phone answering again once a second through the
//            drags: the drag must stay live while the class answers.
//   --while-training starts the training lab's default run (induction, 2
//            layers by 2 heads, d_model 32, on its worker thread) before
//            the drags and keeps it going through them: the drag must stay
//            live while the class watches a model train. The steps it made
//            during each case are printed after the case's line.
//   --detail adds each plot's mean replotTime() and replots per event.
//   --memory prints, for each case, where the resident memory goes: VmRSS
//            and the heap (mallinfo2: in use, free but kept, mapped) after
//            each step, and the bytes of the document's trace by stage.
//   cases: seed000-basic, seed001-soft-knn, multihead (the built-in lessons)
//          and n128, n512, n1024 (projected, n tokens, d_model = 64, h = 8,
//          fixed seed). Budgets for the drag's p95: 16.7 ms for the lessons
//          and n128, 33 ms for n512, 50 ms for n1024.

#include "attention.h"
#include "lessons.h"
#include "mainwindow.h"
#include "labmode.h"
#include "classroommode.h"
#include "sessionpanel.h"
#include "studentswarm.h"
#include "traininglab.h"
#include "trainingmode.h"
#include "trainingrunner.h"
#include "random.h"
#include "planeplot.h"

#include <QAbstractEventDispatcher>
#include <QFile>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr double kPi = 3.14159265358979323846;

// QCustomPlot keeps "a queued replot is pending" in a protected member; a
// pointer to it, formed in a derived class, reads it on any plot.
struct ReplotPeek : QCustomPlot {
    static bool queued(const QCustomPlot *p) { return p->*(&ReplotPeek::mReplotQueued); }
};

// Projected self-attention: X ~ N(0, 1), W ~ N(0, 1/64), as bench_core.
attn::Scenario generated(int n, int dModel, int heads, std::uint64_t seed)
{
    attn::Rng rng(seed);
    auto random = [&](int rows, int cols, double sd) {
        attn::Matrix m(rows, cols);
        for (int j = 0; j < cols; ++j)
            for (int i = 0; i < rows; ++i)
                m(i, j) = sd * rng.normal();
        return m;
    };
    const double sd = 1.0 / std::sqrt(double(dModel));
    attn::Scenario s;
    s.title = "bench: n = " + std::to_string(n) + ", d_model = " + std::to_string(dModel) + ", h = " + std::to_string(heads);
    s.mode = attn::InputMode::Projected;
    s.heads = heads;
    s.X = random(n, dModel, 1.0);
    s.Wq = random(dModel, dModel, sd);
    s.Wk = random(dModel, dModel, sd);
    s.Wv = random(dModel, dModel, sd);
    return s;
}

// A line of /proc/self/status ("VmRSS:  123456 kB") in MB; 0 when unknown.
double statusMB(const char *key)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray want = QByteArray(key) + ':';
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith(want))
            return line.mid(want.size()).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return 0;
}

// The process's memory at one step, for --memory.
void memoryLine(const char *step)
{
    const struct mallinfo2 mi = mallinfo2();
    std::printf("    %-40s RSS %6.0f MB  peak %6.0f | heap in use %6.0f, free kept %6.0f, mmapped %6.0f MB\n", step,
                statusMB("VmRSS"), statusMB("VmHWM"), double(mi.uordblks + mi.hblkhd) / 1048576.0,
                double(mi.fordblks) / 1048576.0, double(mi.hblkhd) / 1048576.0);
}

double mb(const attn::Matrix &m)
{
    return double(m.size()) * sizeof(double) / 1048576.0;
}

// The document's trace, stage by stage, in MB.
void traceLine(const attn::Trace &t)
{
    double scores = 0, scaled = 0, weights = 0, rest = 0;
    for (const attn::HeadTrace &h : t.heads) {
        scores += mb(h.scores);
        scaled += mb(h.scaled);
        weights += mb(h.weights);
        rest += mb(h.Q) + mb(h.K) + mb(h.V) + mb(h.output) + double(h.rows.size() * sizeof(attn::RowStats)) / 1048576.0;
    }
    rest += mb(t.Q) + mb(t.K) + mb(t.V) + mb(t.encodedX) + mb(t.encodedSource) + mb(t.concat) + mb(t.output)
          + double(t.blocked.size()) / 1048576.0;
    std::printf("    trace: scores %.0f MB, scaled %.0f MB, weights %.0f MB, the rest %.1f MB; total %.0f MB\n", scores,
                scaled, weights, rest, scores + scaled + weights + rest);
}

double percentile(std::vector<double> v, double p);

// "12.3", or "-" for a figure that was not measured.
std::string ms(const std::vector<double> &v, double p)
{
    if (v.empty())
        return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", percentile(v, p));
    return text;
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const double at = p * double(v.size() - 1);
    const std::size_t lo = std::size_t(std::floor(at)), hi = std::min(v.size() - 1, lo + 1);
    return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

// Watches every plot of the window: which replotted, for how long, and
// whether each has painted since.
class Watcher : public QObject {
public:
    explicit Watcher(QWidget *window)
    {
        for (QCustomPlot *p : window->findChildren<QCustomPlot *>()) {
            m_plots.push_back(p);
            p->installEventFilter(this);
            // A replot may paint at once (QCP::phImmediateRefresh, QCustomPlot's
            // default) or later: from its start, the plot owes a paint.
            QObject::connect(p, &QCustomPlot::beforeReplot, this, [this, p] {
                if (p->isVisible())
                    m_unpainted[p] = true;
            });
            QObject::connect(p, &QCustomPlot::afterReplot, this, [this, p] {
                // The plane often replots its vector layer alone: its own clock.
                const auto *plane = qobject_cast<attn::PlanePlot *>(p);
                const double ms = plane ? plane->lastReplotTime() : p->replotTime();
                m_replotMs += ms;
                ++m_replots;
                PerPlot &pp = m_perPlot[p->objectName().toStdString() + (p->isVisible() ? "" : " (hidden)")];
                pp.ms += ms;
                ++pp.count;
            });
        }
    }

    void reset()
    {
        m_replotMs = 0;
        m_replots = 0;
    }
    double replotMs() const { return m_replotMs; }
    struct PerPlot {
        double ms = 0;
        long count = 0;
    };
    const std::map<std::string, PerPlot> &perPlot() const { return m_perPlot; }
    void clearPerPlot() { m_perPlot.clear(); }
    int replots() const { return m_replots; }

    // Nothing left to do: no replot queued, no visible plot waiting for paint.
    bool settled() const
    {
        for (QCustomPlot *p : m_plots)
            if (ReplotPeek::queued(p))
                return false;
        for (const auto &[p, waiting] : m_unpainted)
            if (waiting)
                return false;
        return true;
    }

    void report() const
    {
        for (QCustomPlot *p : m_plots)
            if (ReplotPeek::queued(p))
                std::fprintf(stderr, "  queued: %s\n", qPrintable(p->objectName()));
        for (const auto &[p, waiting] : m_unpainted)
            if (waiting)
                std::fprintf(stderr, "  unpainted: %s %s vis=%d\n", qPrintable(p->objectName()), p->metaObject()->className(), p->isVisible());
    }

protected:
    bool eventFilter(QObject *o, QEvent *e) override
    {
        if (e->type() == QEvent::Paint)
            m_unpainted[static_cast<QCustomPlot *>(o)] = false;
        return false;
    }

private:
    std::vector<QCustomPlot *> m_plots;
    std::map<QCustomPlot *, bool> m_unpainted;
    double m_replotMs = 0;
    int m_replots = 0;
    std::map<std::string, PerPlot> m_perPlot;
};

// Runs the event loop until the window has caught up with everything.
void drain(Watcher &watcher)
{
    // Widgets repaint on their window's update request, which the platform
    // delivers from a timer (QPlatformWindow::requestUpdate, 5 ms unless
    // QT_QPA_UPDATE_IDLE_TIME says otherwise): wait for it like a user would.
    QAbstractEventDispatcher *dispatcher = QAbstractEventDispatcher::instance();
    QElapsedTimer guard;
    guard.start();
    while (guard.elapsed() < 2000) {
        QCoreApplication::sendPostedEvents();
        const bool busy = dispatcher->processEvents(QEventLoop::AllEvents);
        if (watcher.settled()) {
            if (!busy)
                return;
        } else if (!busy) {
            // Sleep until the next event; a timer makes sure that is soon.
            QTimer wake;
            wake.setSingleShot(true);
            wake.start(20);
            dispatcher->processEvents(QEventLoop::WaitForMoreEvents);
        }
    }
    std::fprintf(stderr, "bench_drag: the event loop did not settle\n");
    watcher.report();
}

struct Result {
    std::string name;
    int n = 0, dModel = 0, heads = 0;
    std::vector<double> total, handler, replot;
    double forward = 0;
    double plotsPerEvent = 0;
    int moves = 0;
    std::map<std::string, Watcher::PerPlot> perPlot; // summed over the timed events
    long events = 0;
    std::vector<double> open, edit, flip;
    std::vector<double> flipHandler, flipReplot; // the flip's own handler, and its plots' replot times
    double rss = 0, peak = 0;
};

Result run(attn::MainWindow &window, const std::string &name, const attn::Scenario &scenario, int moves, int repeat,
           int flips, bool memory, bool timeForward)
{
    attn::Document *doc = window.document();
    if (memory) {
        std::printf("  %s, memory:\n", name.c_str());
        memoryLine("before opening");
    }
    doc->replace(scenario, QString(), QString::fromStdString(name));
    if (memory)
        memoryLine("replace (trace computed, views told)");
    window.sideTabs()->setCurrentIndex(0);
    attn::PlanePlot *plane = window.vectorPlane();
    Watcher watcher(&window);
    drain(watcher);
    plane->replot();
    drain(watcher);
    if (memory) {
        memoryLine("drawn");
        traceLine(doc->trace());
    }

    watcher.clearPerPlot();
    Result r;
    r.name = name;
    r.n = attn::queryCount(scenario);
    r.dModel = scenario.mode == attn::InputMode::Projected ? attn::modelWidth(scenario) : attn::keyWidth(scenario);
    r.heads = scenario.heads;
    r.moves = moves;
    long replotCount = 0, events = 0;

    QElapsedTimer clock;
    auto timed = [&](auto send) {
        watcher.reset();
        clock.start();
        send();
        const double handler = double(clock.nsecsElapsed()) / 1e6;
        drain(watcher);
        r.total.push_back(double(clock.nsecsElapsed()) / 1e6);
        r.handler.push_back(handler);
        r.replot.push_back(watcher.replotMs());
        replotCount += watcher.replots();
        ++events;
    };

    for (int rep = 0; rep < repeat; ++rep) {
        doc->replace(scenario, QString(), QString::fromStdString(name));
        drain(watcher);
        plane->replot();
        drain(watcher);
        if (rep == 0)
            watcher.clearPerPlot();
        const QPointF start = plane->queryPixel(doc->currentQuery());
        const QPointF origin = plane->pixelAt(Eigen::Vector2d::Zero());
        const QPointF d = start - origin;
        const double radius = std::max(40.0, std::hypot(d.x(), d.y()));
        const double a0 = std::atan2(d.y(), d.x());
        auto at = [&](int i) {
            const double a = a0 + 1.7 * kPi * double(i) / moves;
            // Start exactly on the handle, then sweep most of the way around
            // the origin (ending where it started would be no edit at all).
            return i == 0 ? start.toPoint() : (origin + QPointF(std::cos(a), std::sin(a)) * radius).toPoint();
        };
        if (!plane->handleAt(start).isValid())
            std::fprintf(stderr, "bench_drag: %s: no handle under the press\n", name.c_str());
        timed([&] { QTest::mousePress(plane, Qt::LeftButton, {}, at(0)); });
        for (int i = 1; i <= moves; ++i)
            timed([&] { QTest::mouseMove(plane, at(i)); });
        timed([&] { QTest::mouseRelease(plane, Qt::LeftButton, {}, at(moves)); });
        if (doc->undoStack()->count() != 1)
            std::fprintf(stderr, "bench_drag: %s: the drag made %d undo steps\n", name.c_str(), doc->undoStack()->count());
        if (memory)
            memoryLine(("drag " + std::to_string(rep + 1) + " (opened again, dragged)").c_str());
    }
    r.plotsPerEvent = events ? double(replotCount) / double(events) : 0;

    // Opening the scenario, then typed cells: each until the window settled.
    for (int i = 0; i < 3; ++i) {
        drain(watcher);
        clock.start();
        doc->replace(scenario, QString(), QString::fromStdString(name));
        drain(watcher);
        r.open.push_back(double(clock.nsecsElapsed()) / 1e6);
        if (memory)
            memoryLine(("open " + std::to_string(i + 1)).c_str());
    }
    const attn::MatrixId edited = scenario.mode == attn::InputMode::Projected ? attn::MatrixId::X : attn::MatrixId::Q;
    const int rows = int(attn::matrix(scenario, edited).rows());
    for (int i = 0; i < 10; ++i) {
        const int row = (i * 7919 + 3) % rows;
        Eigen::RowVectorXd values = attn::matrix(doc->scenario(), edited).row(row);
        values(i % values.size()) += 0.25;
        clock.start();
        doc->setRow(edited, row, values, QStringLiteral("bench edit"));
        drain(watcher);
        r.edit.push_back(double(clock.nsecsElapsed()) / 1e6);
    }
    if (memory)
        memoryLine("10 typed cells");
    for (int i = 0; i < flips; ++i) {
        attn::Settings st = attn::settingsOf(doc->scenario());
        st.mask.causal = !st.mask.causal;
        watcher.reset();
        clock.start();
        if (const auto refused = doc->setSettings(st, QStringLiteral("bench causal"), attn::Document::Step::Own)) {
            // A lesson of one query and three keys has no causal mask to flip.
            drain(watcher);
            break;
        }
        r.flipHandler.push_back(double(clock.nsecsElapsed()) / 1e6);
        drain(watcher);
        r.flip.push_back(double(clock.nsecsElapsed()) / 1e6);
        r.flipReplot.push_back(watcher.replotMs());
    }
    if (memory) {
        // A settings change: the whole forward, into the trace's memory.
        attn::Settings st = attn::settingsOf(doc->scenario());
        st.temperature = st.temperature == 1.0 ? 0.5 : 1.0;
        doc->setSettings(st, QStringLiteral("bench temperature"));
        drain(watcher);
        memoryLine("a settings change (whole forward)");
    }
    r.rss = statusMB("VmRSS");
    r.peak = statusMB("VmHWM");
    r.perPlot = watcher.perPlot();
    r.events = events;

    std::vector<double> forward;
    const int forwards = !timeForward ? 0 : r.n > 256 ? 10 : 50; // a whole forward at n = 1024 is tens of ms
    for (int i = 0; i < forwards; ++i) {
        clock.start();
        const attn::Trace t = attn::compute(scenario); // as the document does
        forward.push_back(double(clock.nsecsElapsed()) / 1e6);
        if (t.heads.empty())
            std::fprintf(stderr, "bench_drag: empty trace\n");
    }
    r.forward = forward.empty() ? 0.0 : percentile(forward, 0.5);
    return r;
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    // The window reads and writes settings: keep them away from the user's.
    QTemporaryDir settings;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());

    int moves = 120, repeat = 3, flips = 10;
    bool timeForward = true;
    bool detail = false, memory = false, whileTraining = false;
    int sessionStudents = 0;
    std::vector<std::string> cases;
    const QStringList args = QCoreApplication::arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--moves") && i + 1 < args.size())
            moves = std::max(1, args[++i].toInt());
        else if (args[i] == QLatin1String("--repeat") && i + 1 < args.size())
            repeat = std::max(1, args[++i].toInt());
        else if (args[i] == QLatin1String("--no-forward"))
            timeForward = false;
        else if (args[i] == QLatin1String("--flips") && i + 1 < args.size())
            flips = std::max(1, args[++i].toInt());
        else if (args[i] == QLatin1String("--detail"))
            detail = true;
        else if (args[i] == QLatin1String("--memory"))
            memory = true;
        else if (args[i] == QLatin1String("--while-training"))
            whileTraining = true;
        else if (args[i] == QLatin1String("--class-session") && i + 1 < args.size())
            sessionStudents = std::clamp(args[++i].toInt(), 1, 500);
        else if (args[i] == QLatin1String("--case") && i + 1 < args.size())
            cases.push_back(args[++i].toStdString());
        else {
            std::fprintf(stderr, "usage: bench_drag [--moves N] [--repeat R] [--flips N] [--no-forward] [--detail] [--memory] [--while-training] "
                                 "[--class-session N] [--case NAME]...\n"
                                 "cases: seed000-basic seed001-soft-knn multihead n128 n512 n1024\n");
            return 2;
        }
    }
    if (cases.empty())
        cases = {"seed000-basic", "seed001-soft-knn", "multihead", "n128", "n512", "n1024"};

    attn::MainWindow window;
    window.setInteractive(false);
    window.resize(1600, 1000);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window)) {
        std::fprintf(stderr, "bench_drag: the window was not exposed\n");
        return 1;
    }

    attn::TrainingRunner *runner = nullptr;
    if (whileTraining) {
        // The training lab's default settings, with steps enough to outlast the drags.
        attn::TrainingLabView *lab = window.trainingMode()->view();
        attn::TrainSettings ts;
        ts.steps = 100000;
        lab->setSettings(ts);
        window.switchMode(window.trainingMode());
        if (auto p = lab->startTraining()) {
            std::fprintf(stderr, "bench_drag: the training did not start: %s\n", p->toString().c_str());
            return 1;
        }
        window.switchMode(window.lab());
        runner = lab->runner();
        std::printf("bench_drag: while training (the training lab's worker: induction, 2 layers x 2 heads, d_model 32, batch 16, T 32)\n");
    }
    std::unique_ptr<SwarmThread> swarmThread;
    QTimer answerTimer;
    if (sessionStudents > 0) {
        attn::SessionPanel *panel = window.classroomMode()->sessionPanel();
        if (auto p = window.classroomMode()->startClassSession(0, true, QStringLiteral("DRAGS"))) {
            std::fprintf(stderr, "bench_drag: the class session did not start: %s\n", p->toString().c_str());
            return 1;
        }
        swarmThread = std::make_unique<SwarmThread>();
        StudentSwarm *swarm = swarmThread->swarm();
        QMetaObject::invokeMethod(swarm, "open", Qt::QueuedConnection,
                                  Q_ARG(QUrl, QUrl(QStringLiteral("ws://127.0.0.1:%1/ws?code=DRAGS").arg(panel->server()->port()))),
                                  Q_ARG(int, sessionStudents));
        QElapsedTimer clock;
        clock.start();
        while (panel->server()->students() < sessionStudents && clock.elapsed() < 60000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        // A question that hides nothing, so that the maps draw as they do without a session.
        attn::SessionQuestion q;
        q.id = "bench";
        q.text = {{"en", "Which?"}};
        q.choices = {{{"en", "a"}}, {{"en", "b"}}, {{"en", "c"}}, {{"en", "d"}}};
        q.answer = {0};
        panel->server()->ask(q);
        QObject::connect(&answerTimer, &QTimer::timeout, swarm, [swarm, seed = 1u]() mutable {
            swarm->answerAll(QStringLiteral("bench"), 4, 1000, seed++);
        });
        answerTimer.start(1000);
        std::printf("bench_drag: while a class session runs: %d phones connected, each answering once a second\n",
                    panel->server()->students());
    }
    std::printf("bench_drag: %d moves per drag, %d drags per case, window %dx%d, plane %dx%d, platform %s\n", moves, repeat,
                window.width(), window.height(), window.vectorPlane()->width(), window.vectorPlane()->height(),
                qPrintable(QGuiApplication::platformName()));
    std::printf("%-18s %4s %4s %2s | %7s %7s %7s | %8s %7s %8s %11s | %7s %7s %7s %7s %7s | %6s %6s\n", "case", "n", "d",
                "h", "median", "p95", "max", "handler", "replot", "forward", "plots/event", "open", "edit", "editmax",
                "causal", "caumax", "RSS", "peak");
    int failures = 0;
    for (const std::string &name : cases) {
        attn::Scenario s;
        double budget = 1000.0 / 60.0;
        if (name == "n128" || name == "n512" || name == "n1024") {
            const int n = std::stoi(name.substr(1));
            s = generated(n, 64, 8, 20250);
            budget = n == 128 ? 1000.0 / 60.0 : n == 512 ? 33.0 : 50.0;
        } else {
            const auto loaded = attn::loadLesson(QString::fromStdString(name));
            if (const auto *p = std::get_if<attn::Problem>(&loaded)) {
                std::fprintf(stderr, "bench_drag: %s: %s\n", name.c_str(), p->toString().c_str());
                return 1;
            }
            s = std::get<attn::Scenario>(loaded);
        }
        const int stepsBefore = runner ? runner->step() : 0;
        const Result r = run(window, name, s, moves, repeat, flips, memory, timeForward);
        const double p95 = percentile(r.total, 0.95);
        std::printf("%-18s %4d %4d %2d | %7.2f %7.2f %7.2f | %8.2f %7.2f %8.3f %11.1f | %7.1f %7.1f %7.1f %7s %7s | "
                    "%6.0f %6.0f   %s (budget %.1f ms)\n",
                    r.name.c_str(), r.n, r.dModel, r.heads, percentile(r.total, 0.5), p95, percentile(r.total, 1.0),
                    percentile(r.handler, 0.5), percentile(r.replot, 0.5), r.forward, r.plotsPerEvent,
                    percentile(r.open, 0.5), percentile(r.edit, 0.5), percentile(r.edit, 1.0), ms(r.flip, 0.5).c_str(),
                    ms(r.flip, 1.0).c_str(), r.rss, r.peak,
                    p95 <= budget ? "ok" : "OVER", budget);
        if (swarmThread)
            std::printf("    the class sent %d answers so far\n", swarmThread->swarm()->sent.load());
        if (runner)
            std::printf("    the training made %d steps during this case (running: %s)\n", runner->step() - stepsBefore,
                        runner->isRunning() ? "yes" : "no");
        if (detail && !r.flip.empty())
            std::printf("    causal flip: %.2f ms median, of which %.2f in the handler (forward, views given their data) "
                        "and %.2f replotting\n",
                        percentile(r.flip, 0.5), percentile(r.flipHandler, 0.5), percentile(r.flipReplot, 0.5));
        if (detail)
            for (const auto &[plot, pp] : r.perPlot)
                std::printf("    %-26s %6.2f ms per replot, %5.2f replots per event\n", plot.c_str(), pp.ms / double(pp.count),
                            double(pp.count) / double(r.events));
        std::fflush(stdout);
        failures += p95 > budget;
    }
    return failures ? 3 : 0;
}
