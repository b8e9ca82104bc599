// bench_session: a whole class answering at once (docs/performance.md,
// "A class session"). The real window (attn::MainWindow, 1600x1000, on the
// offscreen platform) starts a class session on loopback and asks which key
// wins; --students phones (default 500, on a thread of their own) connect,
// and each answers once at a random moment within --spread ms (default
// 1000). Measured per round (--rounds, default 5):
//   last→tally   from the last answer leaving its phone to the session
//                counting it (the server's queue under the burst)
//   tally→paint  from the tally to the histogram first painted with every
//                answer: the frame after the last answer (budget: one frame,
//                16.7 ms)
// and once: the time for every phone to connect and say hello.
//
// Usage: bench_session [--students N] [--spread MS] [--rounds R] [--lesson NAME]
//                      [--screenshot PNG [--language zh_CN] [--zoom Z] [--size WxH] [--reveal]]
//   --screenshot saves the window after the last round (with the dock and
//   the histogram; --reveal: after the reveal): the projector's picture in
//   docs/classroom.md, at a projector's zoom with the panels shown.

#include "answerhistogram.h"
#include "classroommode.h"
#include "mainwindow.h"
#include "sessionpanel.h"
#include "studentswarm.h"

#include <QApplication>
#include <QBuffer>
#include <QElapsedTimer>
#include <QLocale>
#include <QSettings>
#include <QTranslator>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace {

long long nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Notes when the histogram first paints every answer of the round.
class PaintWatch : public QObject {
public:
    const attn::AnswerHistogram *histogram = nullptr;
    int expected = -1;
    long long completeNs = 0;
    bool eventFilter(QObject *o, QEvent *e) override
    {
        if (e->type() == QEvent::Paint && !completeNs) {
            int drawn = 0;
            for (const attn::AnswerBar &bar : histogram->bars())
                drawn += bar.count;
            if (drawn == expected)
                completeNs = nowNs();
        }
        return QObject::eventFilter(o, e);
    }
};

bool waitUntil(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QTemporaryDir settings;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());
    int students = 500, spread = 1000, rounds = 5;
    QString screenshot, language, lesson = QStringLiteral("seed000-basic");
    double zoom = 0;
    bool revealShot = false;
    QSize size(1600, 1000);
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--students") && i + 1 < args.size())
            students = std::clamp(args[++i].toInt(), 1, 500);
        else if (args[i] == QLatin1String("--spread") && i + 1 < args.size())
            spread = std::max(0, args[++i].toInt());
        else if (args[i] == QLatin1String("--rounds") && i + 1 < args.size())
            rounds = std::max(1, args[++i].toInt());
        else if (args[i] == QLatin1String("--screenshot") && i + 1 < args.size())
            screenshot = args[++i];
        else if (args[i] == QLatin1String("--lesson") && i + 1 < args.size())
            lesson = args[++i];
        else if (args[i] == QLatin1String("--language") && i + 1 < args.size())
            language = args[++i];
        else if (args[i] == QLatin1String("--zoom") && i + 1 < args.size())
            zoom = args[++i].toDouble();
        else if (args[i] == QLatin1String("--size") && i + 1 < args.size()) {
            const QStringList wh = args[++i].split(QLatin1Char('x'));
            size = QSize(wh.value(0).toInt(), wh.value(1).toInt());
        } else if (args[i] == QLatin1String("--reveal"))
            revealShot = true;
        else {
            std::fprintf(stderr, "usage: bench_session [--students N] [--spread MS] [--rounds R] [--lesson NAME] "
                                 "[--screenshot PNG [--language zh_CN] [--zoom Z] [--size WxH] [--reveal]]\n");
            return 2;
        }
    }
    if (!language.isEmpty()) {
        QLocale::setDefault(QLocale(language));
        auto *translator = new QTranslator(&app);
        if (translator->load(QLocale(language), QStringLiteral("attention-lab"), QStringLiteral("_"), QStringLiteral(":/i18n")))
            app.installTranslator(translator);
    }

    attn::MainWindow window;
    if (auto p = window.openLesson(lesson)) {
        std::fprintf(stderr, "bench_session: %s\n", p->toString().c_str());
        return 1;
    }
    window.resize(size);
    window.show();
    if (zoom > 0) {
        window.setZoom(zoom, false);
        window.setPanelsShownByUser(true);
    }
    attn::SessionPanel *panel = window.classroomMode()->sessionPanel();
    if (auto p = window.classroomMode()->startClassSession(0, true, QStringLiteral("BENCH"))) {
        std::fprintf(stderr, "bench_session: %s\n", p->toString().c_str());
        return 1;
    }
    PaintWatch watch;
    watch.histogram = panel->histogram();
    panel->histogram()->installEventFilter(&watch);

    SwarmThread thread;
    StudentSwarm *swarm = thread.swarm();
    const QUrl url(QStringLiteral("ws://127.0.0.1:%1/ws?code=BENCH").arg(panel->server()->port()));
    QElapsedTimer joinClock;
    joinClock.start();
    QMetaObject::invokeMethod(swarm, "open", Qt::QueuedConnection, Q_ARG(QUrl, url), Q_ARG(int, students));
    if (!waitUntil([&] { return panel->server()->students() == students; }, 60000)) {
        std::fprintf(stderr, "bench_session: only %d of %d students joined\n", panel->server()->students(), students);
        return 1;
    }
    const double joinMs = double(joinClock.nsecsElapsed()) / 1e6;
    std::printf("bench_session: %d students on loopback (their sockets on a thread of their own), answers spread over %d ms\n",
                students, spread);
    std::printf("  all connected and greeted in %.0f ms\n", joinMs);
    std::printf("  %-6s %12s %12s %10s\n", "round", "last→tally", "tally→paint", "answers");

    std::vector<double> toTally, toPaint;
    for (int r = 0; r < rounds; ++r) {
        // From the last row up: the causal lesson's first row has one open key, nothing to guess.
        const int rows = int(window.document()->trace().heads[0].weights.rows());
        window.document()->setCurrentQuery(rows - 1 - r % rows);
        const int seenBefore = swarm->questionsSeen;
        if (auto p = panel->ask(attn::SessionPanel::Ask::Winner)) {
            std::fprintf(stderr, "bench_session: %s\n", p->toString().c_str());
            return 1;
        }
        const attn::SessionQuestion q = *panel->server()->session().current();
        if (!waitUntil([&] { return swarm->questionsSeen >= seenBefore + students; }, 60000)) {
            std::fprintf(stderr, "bench_session: the question did not reach every phone\n");
            return 1;
        }
        long long talliedNs = 0;
        auto conn = QObject::connect(panel->server(), &attn::ClassServer::answersChanged, panel, [&] {
            if (!talliedNs && panel->server()->session().tally().answers == students)
                talliedNs = nowNs();
        });
        const int sentBefore = swarm->sent;
        watch.expected = students;
        watch.completeNs = 0;
        QMetaObject::invokeMethod(swarm, "answerAll", Qt::QueuedConnection, Q_ARG(QString, QString::fromStdString(q.id)),
                                  Q_ARG(int, int(q.choices.size())), Q_ARG(int, spread), Q_ARG(unsigned, unsigned(17 + r)));
        if (!waitUntil([&] { return talliedNs && watch.completeNs; }, 60000)) {
            std::fprintf(stderr, "bench_session: round %d: %d of %d answers counted\n", r + 1,
                         panel->server()->session().tally().answers, students);
            return 1;
        }
        QObject::disconnect(conn);
        const double a = double(talliedNs - swarm->lastSentNs) / 1e6, b = double(watch.completeNs - talliedNs) / 1e6;
        toTally.push_back(a);
        toPaint.push_back(b);
        int total = 0;
        for (const attn::AnswerBar &bar : panel->histogram()->bars())
            total += bar.count;
        std::printf("  %-6d %9.1f ms %9.1f ms %10d\n", r + 1, a, b, total);
        if (swarm->sent - sentBefore != students || total != students) {
            std::fprintf(stderr, "bench_session: round %d: the histogram holds %d answers, %d were sent\n", r + 1, total,
                         swarm->sent - sentBefore);
            return 1;
        }
        panel->reveal();
    }
    std::sort(toTally.begin(), toTally.end());
    std::sort(toPaint.begin(), toPaint.end());
    std::printf("  median %9.1f ms %9.1f ms   (max %.1f ms, %.1f ms; budget for tally→paint: one frame, 16.7 ms)\n",
                toTally[toTally.size() / 2], toPaint[toPaint.size() / 2], toTally.back(), toPaint.back());
    if (!screenshot.isEmpty()) {
        window.document()->setCurrentQuery(int(window.document()->trace().heads[0].weights.rows()) - 1);
        panel->ask(attn::SessionPanel::Ask::Winner);
        const attn::SessionQuestion q = *panel->server()->session().current();
        waitUntil([&] { return swarm->questionsSeen >= (rounds + 1) * students; }, 60000);
        QMetaObject::invokeMethod(swarm, "answerAll", Qt::QueuedConnection, Q_ARG(QString, QString::fromStdString(q.id)),
                                  Q_ARG(int, int(q.choices.size())), Q_ARG(int, 200), Q_ARG(unsigned, 5u));
        // Counted, and drawn: the histogram follows within a frame.
        waitUntil([&] {
            int drawn = 0;
            for (const attn::AnswerBar &bar : panel->histogram()->bars())
                drawn += bar.count;
            return panel->server()->session().tally().answers == students && drawn == students;
        }, 60000);
        if (revealShot)
            panel->reveal();
        // Laid out and painted at the size asked for (the zoom refits the panels).
        waitUntil([&] { return window.size() == size; }, 5000);
        QApplication::processEvents();
        if (!window.grab().save(screenshot, "PNG")) {
            std::fprintf(stderr, "bench_session: cannot write %s\n", qPrintable(screenshot));
            return 1;
        }
        std::printf("%s\n", qPrintable(screenshot));
    }
    panel->stop();
    return 0;
}
