// bench_model: typing into the model mode, key by key (the
// command and the table are in docs/model.md, "Live typing").
//
// It builds the real window (attn::MainWindow, 1600x1000, shown) on the
// offscreen platform, opens the built-in model in the model mode and types
// sentences of 8, 16 and 32 tokens into the sentence field one character at
// a time with QTest. Each key is timed from the moment it is sent until the
// event queue is empty, no QCustomPlot has a replot queued, and every plot
// and the overview grid that changed has painted again: the frame after the
// key. It is split where the view says it has taken the new numbers (its
// recomputed() signal):
//   forward   the model's forward for the key (ModelView::lastForwardMs where
//             the view has it; else runModel on the whole text, timed beside)
//   compute   from the key to recomputed(): the forward and every view taking its data
//   paint     from recomputed() until everything has painted: replots and paints
//   total     the key
//
// The same source builds against an older ModelView (without lastForwardMs),
// so the baseline can be measured by the same program: build it in a
// worktree of the older commit and run both, interleaved, with --csv into
// one file and --label to tell them apart; --summarize FILE prints the table.
//
// Usage: bench_model [--repeat R] [--tokens 8,16,32] [--tab maps|qkv] [--label NAME --csv FILE]
//        bench_model --summarize FILE
//        bench_model --model DIR [--repeat R] [--enter]
//        bench_model --write-random DIR [--layers L] [--heads H] [--embd D] [--positions P] [--vocab V] [--dtype F16|F32]
//   --breakdown        after each sentence, where a key's time went: every
//                      event's own time by type and receiver, per key
//   --model DIR        another model folder; a model too big for live typing
//                      is timed per Enter (forward and repaint) instead
//   --enter            times the whole forward per Enter even for a live
//                      model (what compare_gpt2_forward.py sets beside PyTorch)
//   --write-random DIR writes a model of GPT-2 small's shapes (n_embd 768,
//                      12 heads, MLP 4 n_embd, L layers, default 12, 64
//                      positions; or as the options say), random
//                      weights (N(0, 0.02), seed 7, F16 or --dtype F32), with the
//                      built-in model's tokenizer (its ids; --vocab V: a
//                      vocabulary of V rows, GPT-2's 50257), and exits

#include "gpt2.h"
#include "headgrid.h"
#include "mainwindow.h"
#include "modelview.h"
#include "safetensors.h"

#include <QAbstractEventDispatcher>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

// --breakdown: every event's own time (its handlers, less the events sent
// from inside them), by event type and receiver, summed over the keys.
class TimedApp : public QApplication {
public:
    using QApplication::QApplication;
    bool enabled = false;
    std::map<std::string, double> exclusiveMs; // "Paint HeatmapPlot model_weights" → ms
    std::map<std::string, long> counts;

    bool notify(QObject *receiver, QEvent *event) override
    {
        // The GUI thread's events only: other threads deliver theirs too.
        if (!enabled || QThread::currentThread() != thread())
            return QApplication::notify(receiver, event);
        // Named before: the event may delete its receiver (DeferredDelete).
        const QEvent::Type eventType = event->type();
        std::string who = receiver->metaObject()->className();
        if (!receiver->objectName().isEmpty()) // appended in two steps: GCC 12's -Wrestrict misreads " " + string
            who.append(1, ' ').append(receiver->objectName().toStdString());
        QElapsedTimer t;
        t.start();
        m_children.push_back(0);
        const bool r = QApplication::notify(receiver, event);
        const double total = double(t.nsecsElapsed()) / 1e6;
        const double inner = m_children.back();
        m_children.pop_back();
        if (!m_children.empty())
            m_children.back() += total;
        const double own = total - inner;
        if (own > 0.02) {
            const char *type = nullptr;
            switch (eventType) {
            case QEvent::Paint: type = "Paint"; break;
            case QEvent::LayoutRequest: type = "LayoutRequest"; break;
            case QEvent::UpdateRequest: type = "UpdateRequest"; break;
            case QEvent::Resize: type = "Resize"; break;
            case QEvent::MetaCall: type = "MetaCall"; break;
            case QEvent::Timer: type = "Timer"; break;
            case QEvent::KeyPress: type = "KeyPress"; break;
            case QEvent::KeyRelease: type = "KeyRelease"; break;
            default: type = "other"; break;
            }
            const std::string key = std::string(type) + " " + who;
            exclusiveMs[key] += own;
            counts[key] += 1;
        }
        return r;
    }

private:
    std::vector<double> m_children;
};

struct ReplotPeek : QCustomPlot {
    static bool queued(const QCustomPlot *p) { return p->*(&ReplotPeek::mReplotQueued); }
};

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const double at = p * double(v.size() - 1);
    const std::size_t lo = std::size_t(std::floor(at)), hi = std::min(v.size() - 1, lo + 1);
    return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

// Every plot of the view and its grid: whether each owes a paint.
class Watcher : public QObject {
public:
    explicit Watcher(attn::ModelView *view)
    {
        for (QCustomPlot *p : view->findChildren<QCustomPlot *>()) {
            m_plots.push_back(p);
            p->installEventFilter(this);
            QObject::connect(p, &QCustomPlot::beforeReplot, this, [this, p] {
                if (p->isVisible())
                    m_unpainted[p] = true;
            });
            QObject::connect(p, &QCustomPlot::afterReplot, this, [this, p] { m_replotMs += p->replotTime(); });
        }
        m_grid = view->overview();
        m_grid->installEventFilter(this);
        // The grid owes a paint when it was given new data (a key that left
        // the tokens as they were gives it none).
        m_gridCells = view->overview()->data().cells.data();
        QObject::connect(view, &attn::ModelView::recomputed, this, [this, view] {
            const void *cells = view->overview()->data().cells.data();
            if (m_grid->isVisible() && cells != m_gridCells)
                m_unpainted[m_grid] = true;
            m_gridCells = cells;
        });
    }

    double takeReplotMs()
    {
        const double ms = m_replotMs;
        m_replotMs = 0;
        return ms;
    }

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

protected:
    bool eventFilter(QObject *o, QEvent *e) override
    {
        if (e->type() == QEvent::Paint)
            m_unpainted[o] = false;
        return false;
    }

private:
    std::vector<QCustomPlot *> m_plots;
    QWidget *m_grid = nullptr;
    const void *m_gridCells = nullptr;
    std::map<QObject *, bool> m_unpainted;
    double m_replotMs = 0;
};

void drain(Watcher &watcher)
{
    QAbstractEventDispatcher *dispatcher = QAbstractEventDispatcher::instance();
    QElapsedTimer guard;
    guard.start();
    while (guard.elapsed() < 5000) {
        QCoreApplication::sendPostedEvents();
        const bool busy = dispatcher->processEvents(QEventLoop::AllEvents);
        if (watcher.settled()) {
            if (!busy)
                return;
        } else if (!busy) {
            QTimer wake;
            wake.setSingleShot(true);
            wake.start(20);
            dispatcher->processEvents(QEventLoop::WaitForMoreEvents);
        }
    }
    std::fprintf(stderr, "bench_model: the event loop did not settle\n");
}

// The longest run of whole words of `text` that is exactly `tokens` tokens
// for the model (or the longest below, if none is).
QString sentenceOf(const attn::Gpt2Model &m, const QString &text, int tokens)
{
    const QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QString best;
    for (int k = 1; k <= words.size(); ++k) {
        const QString s = words.mid(0, k).join(QLatin1Char(' '));
        const int n = int(m.tokenizer.encode(s).size());
        if (n > tokens)
            break;
        best = s;
    }
    return best;
}

int writeRandom(const QString &dir, int layers, int heads, int d, int P, int vocab, attn::DType dtype)
{
    const auto builtin = attn::loadBuiltinModel();
    const auto &m = *std::get<std::shared_ptr<const attn::Gpt2Model>>(builtin);
    const int V = vocab > 0 ? std::max(vocab, m.config.vocabSize) : m.config.vocabSize, I = 4 * d;
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal(0, 0.02);
    std::vector<attn::TensorToWrite> t;
    auto add = [&](const std::string &name, std::vector<std::int64_t> shape, double around = 0) {
        std::int64_t count = 1;
        for (auto s : shape)
            count *= s;
        std::vector<double> v(static_cast<std::size_t>(count));
        for (double &x : v)
            x = around + normal(rng);
        t.push_back({name, dtype, shape, std::move(v)});
    };
    add("wte.weight", {V, d});
    add("wpe.weight", {P, d});
    for (int l = 0; l < layers; ++l) {
        const std::string h = "h." + std::to_string(l) + ".";
        add(h + "ln_1.weight", {d}, 1);
        add(h + "ln_1.bias", {d});
        add(h + "attn.c_attn.weight", {d, 3 * d});
        add(h + "attn.c_attn.bias", {3 * d});
        add(h + "attn.c_proj.weight", {d, d});
        add(h + "attn.c_proj.bias", {d});
        add(h + "ln_2.weight", {d}, 1);
        add(h + "ln_2.bias", {d});
        add(h + "mlp.c_fc.weight", {d, I});
        add(h + "mlp.c_fc.bias", {I});
        add(h + "mlp.c_proj.weight", {I, d});
        add(h + "mlp.c_proj.bias", {d});
    }
    add("ln_f.weight", {d}, 1);
    add("ln_f.bias", {d});
    QDir().mkpath(dir);
    auto write = [&](const QString &name, const QByteArray &bytes) {
        QFile f(QDir(dir).filePath(name));
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    };
    auto copy = [&](const char *name) {
        QFile f(QString::fromLatin1(attn::kBuiltinModelFolder) + QLatin1Char('/') + QLatin1String(name));
        return f.open(QIODevice::ReadOnly) && write(QLatin1String(name), f.readAll());
    };
    const QJsonObject c{{"n_layer", layers}, {"n_head", heads}, {"n_embd", d}, {"n_positions", P}, {"vocab_size", V},
                        {"layer_norm_epsilon", 1e-5}, {"activation_function", "gelu_new"}};
    if (!write(QStringLiteral("model.safetensors"), attn::safetensorsBytes(t)) || !write(QStringLiteral("config.json"), QJsonDocument(c).toJson())
        || !copy("vocab.json") || !copy("merges.txt")) {
        std::fprintf(stderr, "bench_model: cannot write %s\n", qPrintable(dir));
        return 2;
    }
    std::printf("%s: %d layers × %d heads, n_embd %d, n_positions %d, vocab %d, random, %s\n", qPrintable(dir), layers, heads, d,
                P, V, attn::toString(dtype));
    return 0;
}

} // namespace

// The view's own forward time where it has one (the incremental view), or -1.
template <class View>
double viewForwardMs(const View *view)
{
    if constexpr (requires { view->lastForwardMs(); })
        return view->lastForwardMs();
    else
        return -1;
}

struct KeyTime {
    double total = 0, forward = 0, compute = 0, paint = 0;
};

void printHeader()
{
    std::printf("%-12s %6s %5s | %15s | %15s | %15s | %15s\n", "", "tokens", "keys", "total med / p95", "forward m / p95",
                "views m / p95", "paint m / p95");
}

void printRow(const std::string &label, int tokens, const std::vector<KeyTime> &keys)
{
    std::vector<double> total, forward, views, paint;
    for (const KeyTime &k : keys) {
        total.push_back(k.total);
        forward.push_back(k.forward);
        views.push_back(std::max(0.0, k.compute - k.forward));
        paint.push_back(k.paint);
    }
    std::printf("%-12s %6d %5zu | %6.2f / %6.2f | %6.2f / %6.2f | %6.2f / %6.2f | %6.2f / %6.2f\n", label.c_str(), tokens,
                keys.size(), percentile(total, 0.5), percentile(total, 0.95), percentile(forward, 0.5), percentile(forward, 0.95),
                percentile(views, 0.5), percentile(views, 0.95), percentile(paint, 0.5), percentile(paint, 0.95));
}

// The rows --csv appended, grouped by label and sentence length.
int summarize(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        std::fprintf(stderr, "bench_model: cannot read %s\n", qPrintable(path));
        return 2;
    }
    std::map<std::pair<int, std::string>, std::vector<KeyTime>> groups;
    while (!f.atEnd()) {
        const QList<QByteArray> c = f.readLine().trimmed().split(',');
        if (c.size() != 6)
            continue;
        KeyTime k{c[2].toDouble(), c[3].toDouble(), c[4].toDouble(), c[5].toDouble()};
        groups[{c[1].toInt(), c[0].toStdString()}].push_back(k);
    }
    printHeader();
    for (const auto &[key, keys] : groups)
        printRow(key.second, key.first, keys);
    return 0;
}

int main(int argc, char **argv)
{
    TimedApp app(argc, argv);
    QTemporaryDir settings;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());

    int repeat = 3;
    QString modelDir, writeDir, tab = QStringLiteral("maps"), csvPath, label = QStringLiteral("this build");
    QList<int> sizes{8, 16, 32};
    int layers = 12, heads = 12, embd = 768, positions = 64, vocab = 0;
    attn::DType dtype = attn::DType::F16;
    bool breakdown = false;
    bool perEnter = false;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        const QString a = args[i];
        const bool more = i + 1 < args.size();
        if (a == QLatin1String("--repeat") && more)
            repeat = std::max(1, args[++i].toInt());
        else if (a == QLatin1String("--model") && more)
            modelDir = args[++i];
        else if (a == QLatin1String("--write-random") && more)
            writeDir = args[++i];
        else if (a == QLatin1String("--layers") && more)
            layers = std::clamp(args[++i].toInt(), 1, 48);
        else if (a == QLatin1String("--tab") && more)
            tab = args[++i];
        else if (a == QLatin1String("--heads") && more)
            heads = std::clamp(args[++i].toInt(), 1, 64);
        else if (a == QLatin1String("--embd") && more)
            embd = std::clamp(args[++i].toInt(), 1, 4096);
        else if (a == QLatin1String("--positions") && more)
            positions = std::clamp(args[++i].toInt(), 1, 4096);
        else if (a == QLatin1String("--vocab") && more)
            vocab = std::clamp(args[++i].toInt(), 1, 262144);
        else if (a == QLatin1String("--dtype") && more)
            dtype = args[++i] == QLatin1String("F32") ? attn::DType::F32 : attn::DType::F16;
        else if (a == QLatin1String("--breakdown"))
            breakdown = true;
        else if (a == QLatin1String("--enter"))
            perEnter = true;
        else if (a == QLatin1String("--csv") && more)
            csvPath = args[++i];
        else if (a == QLatin1String("--label") && more)
            label = args[++i];
        else if (a == QLatin1String("--summarize") && more)
            return summarize(args[++i]);
        else if (a == QLatin1String("--tokens") && more) {
            sizes.clear();
            for (const QString &t : args[++i].split(QLatin1Char(',')))
                if (t.toInt() > 0)
                    sizes << std::min(t.toInt(), 64);
        } else {
            std::fprintf(stderr, "usage: bench_model [--repeat R] [--tokens 8,16,32] [--tab maps|qkv] [--label NAME --csv FILE] "
                                 "[--breakdown] | --summarize FILE | --model DIR [--enter] | --write-random DIR [--layers L] [--heads H] [--embd D] [--positions P] "
                                 "[--vocab V] [--dtype F16|F32]\n");
            return 2;
        }
    }
    if (!writeDir.isEmpty()) {
        if (embd % heads != 0) {
            std::fprintf(stderr, "bench_model: --heads %d does not divide --embd %d\n", heads, embd);
            return 2;
        }
        return writeRandom(writeDir, layers, heads, embd, positions, vocab, dtype);
    }

    attn::MainWindow window;
    window.setInteractive(false);
    window.resize(1600, 1000);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return 2;
    if (const auto problem = modelDir.isEmpty() ? window.openBuiltinModel() : window.openModel(modelDir)) {
        std::fprintf(stderr, "bench_model: %s\n", qPrintable(attn::problemText(*problem)));
        return 2;
    }
    window.setModelMode(true);
    attn::ModelView *view = window.modelView();
    view->setHead(std::min(2, view->model()->config.nLayer - 1), 0);
    view->headTabs()->setCurrentIndex(tab == QLatin1String("qkv") ? 1 : 0);
    const attn::Gpt2Model &model = *view->model();
    const QString source = QStringLiteral("say cat red box . say cat red box . the cat sat on the mat . the dog "
                                          "sat on the box . the girl sees the king . she is happy . he is sad .");

    Watcher watcher(view);
    QElapsedTimer clock;
    double recomputedAt = -1;
    QObject::connect(view, &attn::ModelView::recomputed, view, [&] { recomputedAt = double(clock.nsecsElapsed()) / 1e6; });
    QLineEdit *field = view->sentenceField();
    field->setFocus();
    const double macs = attn::ModelView::forwardMultiplyAdds(model.config, 32);
    std::printf("model %s: %d layers, %d heads, n_embd %d; %.1f million multiply-adds for 32 tokens; %s; %s\n",
                qPrintable(model.name), model.config.nLayer, model.config.nHead, model.config.nEmbd, macs / 1e6,
                view->isLive() ? "live" : "on Enter or a pause", qPrintable(label));

    if (!view->isLive() || perEnter) {
        // Typed without a forward, then Enter: the wait a teacher sees.
        const QString text = sentenceOf(model, source, 32);
        std::vector<KeyTime> keys;
        for (int r = 0; r < repeat; ++r) {
            const QSignalBlocker quiet(field); // no pause timer in between
            field->setText(QString());       // nothing kept: each Enter is the whole forward
            view->recompute();
            drain(watcher);
            field->setText(text);
            clock.start();
            view->recompute();
            const double compute = double(clock.nsecsElapsed()) / 1e6;
            drain(watcher);
            const double total = double(clock.nsecsElapsed()) / 1e6;
            const double forward = viewForwardMs(view);
            keys.push_back({total, forward >= 0 ? forward : compute, compute, total - compute});
        }
        printHeader();
        printRow("per Enter", int(model.tokenizer.encode(text).size()), keys);
        return 0;
    }

    std::FILE *csv = csvPath.isEmpty() ? nullptr : std::fopen(qPrintable(csvPath), "a");
    printHeader();
    for (const int size : sizes) {
        const QString text = sentenceOf(model, source, size);
        const int tokens = int(model.tokenizer.encode(text).size());
        std::vector<KeyTime> keys;
        for (int r = 0; r < repeat; ++r) {
            field->clear();
            view->recompute();
            drain(watcher);
            app.enabled = breakdown;
            for (const QChar ch : text) {
                recomputedAt = -1;
                clock.start();
                QTest::keyClicks(field, QString(ch));
                drain(watcher);
                KeyTime k;
                k.total = double(clock.nsecsElapsed()) / 1e6;
                k.compute = recomputedAt >= 0 ? recomputedAt : k.total;
                k.paint = k.total - k.compute;
                k.forward = viewForwardMs(view);
                if (k.forward < 0) {
                    // The older view runs the whole forward on every key: time it beside.
                    QElapsedTimer f;
                    f.start();
                    const auto run = attn::runModel(model, field->text());
                    k.forward = run.index() == 0 ? double(f.nsecsElapsed()) / 1e6 : 0.0;
                }
                keys.push_back(k);
                if (csv)
                    std::fprintf(csv, "%s,%d,%.4f,%.4f,%.4f,%.4f\n", qPrintable(label), tokens, k.total, k.forward, k.compute, k.paint);
            }
            app.enabled = false;
            if (!view->trace() || int(view->trace()->ids.size()) != tokens) {
                std::fprintf(stderr, "bench_model: the view did not end at %d tokens\n", tokens);
                return 1;
            }
        }
        printRow(label.toStdString(), tokens, keys);
        if (breakdown) {
            // Where a key's time went: the largest owners, per key.
            std::vector<std::pair<double, std::string>> top;
            double sum = 0;
            for (const auto &[k, ms] : app.exclusiveMs) {
                top.push_back({ms, k});
                sum += ms;
            }
            std::sort(top.rbegin(), top.rend());
            const double perKey = 1.0 / double(keys.size());
            std::printf("  where the time went (ms per key, events' own time; %.2f in all):\n", sum * perKey);
            for (std::size_t i = 0; i < std::min<std::size_t>(top.size(), 18); ++i)
                std::printf("  %8.3f  %6.2f×  %s\n", top[i].first * perKey, double(app.counts[top[i].second]) * perKey,
                            top[i].second.c_str());
            app.exclusiveMs.clear();
            app.counts.clear();
        }
    }
    if (csv)
        std::fclose(csv);
    return 0;
}
