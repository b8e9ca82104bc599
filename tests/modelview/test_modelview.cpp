// The model mode of the window, driven as a teacher drives it
// (offscreen): every number shown is held against an independent run of the
// model (runModel on a model loaded again), or against its formula.

#include "attn_test.h"

#include "attention.h"
#include "gpt2.h"
#include "headgrid.h"
#include "mainwindow.h"
#include "modelview.h"
#include "probe.h"
#include "safetensors.h"
#include "stagedata.h"
#include "stageviews.h"
#include "takehead.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPainter>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>

#include <cmath>
#include <random>
#include <set>

using namespace attn;

namespace {

QString modelSourceDir()
{
    return test::sourceDir() + QStringLiteral("/resources/models/tiny-bilingual");
}

std::shared_ptr<const Gpt2Model> builtin()
{
    static std::shared_ptr<const Gpt2Model> m = std::get<std::shared_ptr<const Gpt2Model>>(loadBuiltinModel());
    return m;
}

ModelTrace reference(const QString &text)
{
    return std::get<ModelTrace>(runModel(*builtin(), text));
}

double maxDiff(const Matrix &a, const Matrix &b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return INFINITY;
    return a.size() ? (a - b).cwiseAbs().maxCoeff() : 0.0;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// Types `text` into `w` key by key; QTest::keyClicks is Latin-1 only.
// A model folder of random weights (F16) with the built-in tokenizer.
bool writeRandomModel(const QString &dir, int layers, int heads, int embd, int positions)
{
    const std::int64_t V = builtin()->config.vocabSize, d = embd, P = positions, I = 4 * embd;
    std::mt19937_64 rng(9);
    std::normal_distribution<double> normal(0, 0.02);
    std::vector<TensorToWrite> t;
    auto add = [&](const std::string &name, std::vector<std::int64_t> shape, double around = 0) {
        std::int64_t count = 1;
        for (auto s : shape)
            count *= s;
        std::vector<double> v(static_cast<std::size_t>(count));
        for (double &x : v)
            x = around + normal(rng);
        t.push_back({name, DType::F16, shape, std::move(v)});
    };
    add("wte.weight", {V, d});
    add("wpe.weight", {P, d});
    for (int l = 0; l < layers; ++l) {
        const std::string h = "h." + std::to_string(l) + ".";
        for (const char *ln : {"ln_1", "ln_2"}) {
            add(h + ln + ".weight", {d}, 1);
            add(h + ln + ".bias", {d});
        }
        add(h + "attn.c_attn.weight", {d, 3 * d});
        add(h + "attn.c_attn.bias", {3 * d});
        add(h + "attn.c_proj.weight", {d, d});
        add(h + "attn.c_proj.bias", {d});
        add(h + "mlp.c_fc.weight", {d, I});
        add(h + "mlp.c_fc.bias", {I});
        add(h + "mlp.c_proj.weight", {I, d});
        add(h + "mlp.c_proj.bias", {d});
    }
    add("ln_f.weight", {d}, 1);
    add("ln_f.bias", {d});
    for (const char *f : {"vocab.json", "merges.txt"})
        if (!QFile::copy(modelSourceDir() + QLatin1Char('/') + QLatin1String(f), dir + QLatin1Char('/') + QLatin1String(f)))
            return false;
    const QJsonObject c{{"n_layer", layers}, {"n_head", heads}, {"n_embd", embd}, {"n_positions", positions}, {"vocab_size", int(V)}};
    return writeFile(dir + QStringLiteral("/model.safetensors"), safetensorsBytes(t))
        && writeFile(dir + QStringLiteral("/config.json"), QJsonDocument(c).toJson());
}

void type(QWidget *w, const QString &text)
{
    for (const QChar ch : text) {
        if (ch.unicode() < 128)
            QTest::keyClicks(w, QString(ch));
        else
            QTest::sendKeyEvent(QTest::Click, w, Qt::Key_unknown, QString(ch), Qt::NoModifier);
    }
}

int distinctColours(const QImage &image, const QRect &area)
{
    std::set<QRgb> colours;
    const QRect r = area.intersected(image.rect());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

} // namespace

class TestModelView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
    }

    void init()
    {
        m_window = std::make_unique<MainWindow>();
        m_window->setInteractive(false);
        m_window->resize(1600, 1000);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(!m_window->openLesson(QStringLiteral("seed000-basic")));
    }

    // The zoom is the application's font, which outlives the window.
    void cleanup()
    {
        m_window->setZoom(1.0, false);
        m_window.reset();
    }

    // At a projector's zoom the model mode still fits a 1600 x 1000 screen:
    // the grid's column scrolls instead of making the window taller.
    void projectorZoomFitsTheScreen()
    {
        MainWindow &w = *m_window;
        w.setZoom(2.0, false); // as --zoom 2 --show model does
        QVERIFY(!w.openBuiltinModel());
        w.setModelMode(true);
        QApplication::processEvents();
        QVERIFY2(w.minimumSizeHint().height() <= 1000,
                 qPrintable(QString::number(w.minimumSizeHint().height())));
        w.resize(1600, 1000);
        QApplication::processEvents();
        QCOMPARE(w.height(), 1000);
        auto *scroll = w.findChild<QScrollArea *>(QStringLiteral("modelOverviewScroll"));
        QVERIFY(scroll);
        QVERIFY(scroll->verticalScrollBar()->maximum() > 0); // the grid is taller than its room, and scrolls
    }

    // At a projector's zoom the five maps go over pages where one page left
    // their cells too low for their numbers, and every stage map then draws
    // its numbers; back at the normal zoom they share one page again.
    void projectorZoomKeepsTheMapsNumbers()
    {
        MainWindow &w = *m_window;
        QVERIFY(!w.openBuiltinModel());
        w.setModelMode(true);
        ModelView *mv = w.modelView();
        w.resize(1920, 1080);
        mv->setText(QStringLiteral("say cat red box . say cat red"));
        auto *picker = mv->findChild<QWidget *>(QStringLiteral("modelMapPicker"));
        QVERIFY(picker);
        QTRY_VERIFY(mv->stagePlot(Stage::Weights)->cellTextVisible());
        QCOMPARE(mv->mapArrangement(), ModelView::MapArrangement::Grid);
        QVERIFY(!picker->isVisible());
        w.setZoom(2.0, false);
        QTRY_VERIFY(mv->mapArrangement() != ModelView::MapArrangement::Grid);
        QVERIFY(picker->isVisible());
        QStackedWidget *pages = mv->mapPages();
        int seen = 0;
        for (int page = 0; page < pages->count(); ++page) {
            auto *button = mv->findChild<QToolButton *>(QStringLiteral("modelMapPage%1").arg(page + 1));
            QVERIFY(button);
            if (!button->isVisible())
                continue;
            QTest::mouseClick(button, Qt::LeftButton);
            QCOMPARE(pages->currentIndex(), page);
            QVERIFY(button->isChecked());
            for (Stage stage : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights}) {
                HeatmapPlot *plot = mv->stagePlot(stage);
                if (plot->parentWidget() != pages->currentWidget())
                    continue;
                ++seen;
                QTRY_VERIFY2(plot->cellTextVisible(), qPrintable(plot->objectName()));
            }
        }
        QCOMPARE(seen, 4);
        w.setZoom(1.0, false);
        QTRY_COMPARE(int(mv->mapArrangement()), int(ModelView::MapArrangement::Grid));
        QVERIFY(!picker->isVisible());
        QVERIFY(mv->stagePlot(Stage::Scores)->isVisible() && mv->stagePlot(Stage::Output)->isVisible());
        QTRY_VERIFY(mv->stagePlot(Stage::Weights)->cellTextVisible());
    }

    // The head's five maps and its q, k, v are the model's numbers; the
    // scaled scores are scores / √d_head and the weights are causal rows of 1.
    void headMapsAreTheModelsNumbers()
    {
        MainWindow &w = *m_window;
        QVERIFY(!w.openBuiltinModel());
        w.setModelMode(true);
        QVERIFY(w.modelMode());
        ModelView *mv = w.modelView();
        const QString text = QStringLiteral("the girl sees the king . she is happy .");
        mv->setText(text);
        mv->setHead(1, 1);
        // The view's forward keeps the positions its last one shares with
        // this text (incremental): equal to a whole forward within 1e-12.
        const ModelTrace ref = reference(text);
        const HeadActivations &h = ref.layers[1].heads[1];
        const int n = int(ref.ids.size());
        QCOMPARE(int(mv->trace()->ids.size()), n);

        QVERIFY(maxDiff(mv->stagePlot(Stage::Weights)->data().values, h.weights) <= 1e-12);
        QVERIFY(maxDiff(mv->stagePlot(Stage::Scores)->data().values, h.q * h.k.transpose()) <= 1e-12);
        QVERIFY(maxDiff(mv->stagePlot(Stage::Scaled)->data().values, h.scores / std::sqrt(32.0)) <= 1e-12);
        QVERIFY(maxDiff(mv->stagePlot(Stage::Output)->data().values, h.weights * h.v) <= 1e-12);
        const HeatmapData masked = mv->stagePlot(Stage::Masked)->data();
        QCOMPARE(masked.blocked.rows(), Eigen::Index(n));
        for (int i = 0; i < n; ++i) {
            QVERIFY(std::abs(h.weights.row(i).sum() - 1.0) <= 1e-12);
            for (int j = 0; j < n; ++j) {
                QCOMPARE(bool(masked.blocked(i, j)), j > i);
                if (j > i)
                    QCOMPARE(h.weights(i, j), 0.0);
            }
        }
        // The tokens label the rows: "girl" (from " girl") is the second.
        QCOMPARE(mv->stagePlot(Stage::Weights)->data().rowLabels.value(1), QStringLiteral("girl"));

        mv->headTabs()->setCurrentIndex(1);
        // Quiz 2: where Q, K and V come from, with the shapes of this sentence and layer 2.
        QVERIFY2(mv->qkvSourceText().contains(QStringLiteral("same sequence")) &&
                     mv->qkvSourceText().contains(QStringLiteral("layer 2's")) &&
                     mv->qkvSourceText().contains(QStringLiteral("(%1 × 128)").arg(n)) &&
                     mv->qkvSourceText().contains(QStringLiteral("(128 × 32 each)")) &&
                     mv->qkvSourceText().contains(QStringLiteral("each %1 × 32").arg(n)),
                 qPrintable(mv->qkvSourceText()));
        QCOMPARE(mv->findChild<QLabel *>(QStringLiteral("modelQkvSource"))->text(), mv->qkvSourceText());
        QVERIFY(maxDiff(mv->qkvPlot(0)->data().values, h.q) <= 1e-12);
        QVERIFY(maxDiff(mv->qkvPlot(1)->data().values, h.k) <= 1e-12);
        QVERIFY(maxDiff(mv->qkvPlot(2)->data().values, h.v) <= 1e-12);
        QCOMPARE(mv->qkvPlot(0)->data().values.cols(), Eigen::Index(32));

        // The kind line is scoreHead's.
        const HeadScores s = scoreHead(h.weights, ref.ids);
        QVERIFY(mv->kindLabel()->text().contains(ModelView::kindName(s.kind)));
        QVERIFY(mv->kindLabel()->text().contains(fixed2(s.meanEntropy)));
        QCOMPARE(mv->kindLabel()->toolTip(), ModelView::scoresText(s));
    }

    // A click on a grid cell shows that head; the grid's data is every head.
    void gridClickSwitchesHead()
    {
        MainWindow &w = *m_window;
        QVERIFY(!w.openBuiltinModel());
        w.setModelMode(true);
        ModelView *mv = w.modelView();
        const QString text = QStringLiteral("say cat red box . say cat red box .");
        mv->setText(text);
        mv->setHead(0, 0);
        QCoreApplication::processEvents();
        HeadGrid *grid = mv->overview();
        QCOMPARE(grid->data().rows, 3);
        QCOMPARE(grid->data().cols, 4);
        const ModelTrace ref = reference(text);
        for (int l = 0; l < 3; ++l)
            for (int hh = 0; hh < 4; ++hh) {
                const HeadGridCell &cell = grid->data().cells[std::size_t(l * 4 + hh)];
                QVERIFY(maxDiff(cell.weights, ref.layers[std::size_t(l)].heads[std::size_t(hh)].weights) <= 1e-12);
                const HeadScores s = scoreHead(ref.layers[std::size_t(l)].heads[std::size_t(hh)].weights, ref.ids);
                QCOMPARE(cell.caption.value(0), ModelView::kindName(s.kind));
                QVERIFY(cell.caption.value(1).contains(fixed2(s.meanEntropy)));
                // Each score beside its baseline, as "previous token: 0.62 (uniform 0.21)".
                QVERIFY(cell.toolTip.contains(ModelView::kindName(HeadKind::PreviousToken) + QStringLiteral(": ")
                                              + fixed2(s.previousToken.score) + QStringLiteral(" (uniform ")
                                              + fixed2(s.previousToken.uniform) + QLatin1Char(')')));
                QVERIFY(cell.toolTip.contains(fixed2(s.induction.score)));
                // On this repeated span, layer 2, head 1 is an induction head.
                if (l == 1 && hh == 0)
                    QCOMPARE(s.kind, HeadKind::Induction);
            }
        const QRectF target = grid->mapRect(2, 3);
        QVERIFY(target.width() > 20 && grid->rect().contains(target.center().toPoint()));
        QTest::mouseClick(grid, Qt::LeftButton, {}, target.center().toPoint());
        QCOMPARE(mv->layer(), 2);
        QCOMPARE(mv->head(), 3);
        QCOMPARE(grid->selectedRow(), 2);
        QCOMPARE(grid->selectedColumn(), 3);
        QCOMPARE(mv->layerBox()->value(), 3);
        QCOMPARE(mv->headBox()->value(), 4);
        QVERIFY(maxDiff(mv->stagePlot(Stage::Weights)->data().values, ref.layers[2].heads[3].weights) <= 1e-12);
        // And the spin box goes the other way.
        mv->layerBox()->setValue(1);
        QCOMPARE(grid->selectedRow(), 0);
        QVERIFY(maxDiff(mv->stagePlot(Stage::Weights)->data().values, ref.layers[0].heads[3].weights) <= 1e-12);
    }

    // The grid paints into a cached image and draws again only the cells
    // that changed; what it shows is what a whole paint draws.
    void gridRepaintsOnlyChangedCells()
    {
        MainWindow &w = *m_window;
        QVERIFY(!w.openBuiltinModel());
        w.setModelMode(true);
        ModelView *mv = w.modelView();
        mv->setText(QStringLiteral("the cat sat on the mat ."));
        mv->setHead(0, 0);
        HeadGrid *grid = mv->overview();
        auto whole = [grid] {
            QImage image(grid->size(), QImage::Format_ARGB32_Premultiplied);
            QPainter p(&image);
            grid->paint(p, QRectF(grid->rect()), grid->font(), false);
            return image;
        };
        auto shown = [grid] { return grid->grab().toImage().convertToFormat(QImage::Format_ARGB32_Premultiplied); };
        QCOMPARE(shown(), whole());
        grid->takeCellsRepainted();
        // The same data again: nothing to draw.
        grid->setData(grid->data());
        QCOMPARE(shown(), whole());
        QCOMPARE(grid->takeCellsRepainted(), 0);
        // Another head: the two frames change; their neighbours are clipped, the far cells untouched.
        mv->setHead(2, 3);
        QCOMPARE(shown(), whole());
        const int redrawn = grid->takeCellsRepainted();
        QVERIFY2(redrawn >= 2 && redrawn < 12, qPrintable(QString::number(redrawn)));
        // A new sentence: every cell's numbers changed, every cell drawn.
        mv->setText(QStringLiteral("the cat sat on the mat . the dog"));
        QCOMPARE(shown(), whole());
        QCOMPARE(grid->takeCellsRepainted(), 12);
    }

    // Typing: each key runs the forward (the built-in model is live).
    void typingChangesTokensAndMaps()
    {
        MainWindow &w = *m_window;
        QVERIFY(!w.openBuiltinModel());
        w.setModelMode(true);
        ModelView *mv = w.modelView();
        QVERIFY(mv->isLive());
        mv->setHead(2, 0);
        QLineEdit *field = mv->sentenceField();
        field->setFocus();
        field->clear();
        QTest::keyClicks(field, QStringLiteral("the cat"));
        QCOMPARE(mv->text(), QStringLiteral("the cat"));
        // Seven keys sent at once are read together, after the last one.
        QVERIFY(mv->recomputePending());
        QSignalSpy runs(mv, &ModelView::recomputed);
        QTRY_VERIFY(!mv->recomputePending());
        QCOMPARE(runs.count(), 1);
        QCOMPARE(mv->trace()->ids, builtin()->tokenizer.encode(QStringLiteral("the cat")));
        QCOMPARE(int(mv->trace()->ids.size()), 2);
        QVERIFY(mv->tokensLabel()->text().contains(QStringLiteral("␣</span>cat"))); // " cat": the space shown
        const Matrix before = mv->stagePlot(Stage::Weights)->data().values;
        QCOMPARE(before.rows(), Eigen::Index(2));
        // Key by key, each key's forward keeping the positions before the
        // first changed token: the same numbers as a forward of the whole text.
        for (const QChar ch : QStringLiteral(" sat .")) {
            QTest::keyClicks(field, QString(ch));
            QTRY_VERIFY(!mv->recomputePending());
            const ModelTrace step = reference(field->text());
            QCOMPARE(mv->trace()->ids, step.ids);
            for (std::size_t l = 0; l < step.layers.size(); ++l)
                for (std::size_t h = 0; h < step.layers[l].heads.size(); ++h)
                    QVERIFY(maxDiff(mv->trace()->layers[l].heads[h].weights, step.layers[l].heads[h].weights) <= 1e-12);
        }
        QVERIFY(mv->trace()->reused > 0);
        const ModelTrace ref = reference(QStringLiteral("the cat sat ."));
        QCOMPARE(mv->trace()->ids, ref.ids);
        QCOMPARE(mv->stagePlot(Stage::Weights)->data().values.rows(), Eigen::Index(4));
        QVERIFY(maxDiff(mv->stagePlot(Stage::Weights)->data().values, ref.layers[2].heads[0].weights) <= 1e-12);
        QCOMPARE(mv->overview()->data().cells[8].weights, mv->trace()->layers[2].heads[0].weights);
        QVERIFY(mv->tokensLabel()->text().contains(QStringLiteral("sat")));
        // Chinese goes through the same tokenizer.
        field->clear();
        type(field, QStringLiteral("我 打 你 。"));
        QTRY_VERIFY(!mv->recomputePending());
        QCOMPARE(mv->trace()->ids, builtin()->tokenizer.encode(QStringLiteral("我 打 你 。")));
        QVERIFY(mv->tokensLabel()->text().contains(QStringLiteral("打")));
        // An empty field: a note, nothing to take into the lab, no crash.
        field->clear();
        QTest::keyClick(field, Qt::Key_Space);
        QTest::keyClick(field, Qt::Key_Backspace);
        QTRY_VERIFY(!mv->recomputePending());
        QVERIFY(!mv->trace());
        QVERIFY(!mv->takeButton()->isEnabled());
        QVERIFY(!mv->problemLabel()->isHidden());
    }

    // The top 5: sorted, summing to at most 1, each the softmax of the logits.
    void predictionsAreTheSoftmax()
    {
        MainWindow &w = *m_window;
        QVERIFY(!w.openBuiltinModel());
        ModelView *mv = w.modelView();
        const QString text = QStringLiteral("say cat red box . say cat red");
        mv->setText(text);
        const ModelTrace &t = *mv->trace();
        QCOMPARE(int(t.next.size()), 5);
        const Eigen::VectorXd logits = reference(text).logits;
        QVERIFY(maxDiff(t.logits, logits) <= 1e-12);
        const double top = logits.maxCoeff();
        const double z = (logits.array() - top).exp().sum();
        double sum = 0;
        for (std::size_t i = 0; i < t.next.size(); ++i) {
            const Prediction &p = t.next[i];
            QVERIFY(std::abs(p.p - std::exp(logits(p.id) - top) / z) <= 1e-12);
            if (i > 0)
                QVERIFY(t.next[i - 1].p >= p.p);
            sum += p.p;
            // No token outside the top 5 is more likely than the fifth.
            QCOMPARE(mv->predictionTable()->item(int(i), 1)->text(), QString::number(p.p, 'f', 4));
        }
        int above = 0;
        for (Eigen::Index v = 0; v < logits.size(); ++v)
            above += logits(v) > logits(t.next[4].id);
        QCOMPARE(above, 4);
        QVERIFY(sum <= 1.0 + 1e-12);
        // After "say cat red box . say cat red" the induction has "box" next.
        QCOMPARE(QString::fromStdString(t.next[0].text), QStringLiteral(" box"));
        QCOMPARE(mv->predictionTable()->item(0, 0)->text(), QStringLiteral("␣box"));
    }

    // Into the lab: one undoable edit whose trace has the head's weights.
    void takeHeadIntoTheLab()
    {
        MainWindow &w = *m_window;
        Document *doc = w.document();
        const Scenario before = doc->scenario();
        const int steps = doc->undoStack()->count();
        QVERIFY(!w.openBuiltinModel());
        w.setModelMode(true);
        ModelView *mv = w.modelView();
        const QString text = QStringLiteral("say cat red box . say cat red box .");
        mv->setText(text);
        mv->setHead(2, 0);
        QCOMPARE(doc->scenario(), before); // the model mode changes nothing by itself
        QTest::mouseClick(mv->takeButton(), Qt::LeftButton);
        QVERIFY(!w.modelMode());
        QCOMPARE(doc->undoStack()->count(), steps + 1);
        const ModelTrace ref = reference(text);
        const Trace t = compute(doc->scenario());
        QCOMPARE(t.heads.size(), std::size_t(1));
        QVERIFY(maxDiff(t.heads[0].weights, ref.layers[2].heads[0].weights) <= 1e-12);
        QVERIFY(maxDiff(doc->trace().heads[0].weights, ref.layers[2].heads[0].weights) <= 1e-12);
        QCOMPARE(doc->scenario().tokens, tokenLabels(ref));
        QVERIFY(doc->scenario().mask.causal);
        // The lab's own maps show it.
        QVERIFY(maxDiff(w.stageView(Stage::Weights)->data().values, ref.layers[2].heads[0].weights) <= 1e-12);
        doc->undo();
        QCOMPARE(doc->scenario(), before);
    }

    // A broken folder: one message naming the file, nothing else changes.
    void badFolderLeavesEverything()
    {
        MainWindow &w = *m_window;
        Document *doc = w.document();
        const Scenario before = doc->scenario();
        const int steps = doc->undoStack()->count();
        QTemporaryDir dir;
        for (const char *f : {"config.json", "vocab.json", "merges.txt"})
            QVERIFY(QFile::copy(modelSourceDir() + QLatin1Char('/') + QLatin1String(f), dir.filePath(QLatin1String(f))));
        QFile model(modelSourceDir() + QStringLiteral("/model.safetensors"));
        QVERIFY(model.open(QIODevice::ReadOnly));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("model.safetensors")), model.read(model.size() / 2))); // cut short

        QVERIFY(!w.openBuiltinModel());
        const Gpt2Model *open = w.modelView()->model();
        QVERIFY(!w.modelMode());
        const QString message = problemText(w.openModel(dir.path()).value_or(Problem{}));
        QVERIFY(!message.isEmpty());
        QVERIFY2(message.contains(QStringLiteral("model.safetensors")), qPrintable(message));
        QVERIFY(!w.modelMode());
        QCOMPARE(w.modelView()->model(), open);
        QCOMPARE(doc->scenario(), before);
        QCOMPARE(doc->undoStack()->count(), steps);

        QVERIFY(QFile::remove(dir.filePath(QStringLiteral("config.json"))));
        const QString missing = problemText(w.openModel(dir.path()).value_or(Problem{}));
        QVERIFY2(missing.contains(QStringLiteral("config.json")), qPrintable(missing));
        QCOMPARE(doc->scenario(), before);
    }

    // A model too big to follow every key: a note, and the forward after a
    // pause or on Enter. GPT-2 small's layer shapes (one layer, F16), its key
    // over a budget lowered for the test (a model over the real one, 250
    // million a key, would be a file of 250 MB).
    void bigModelWaitsForAPause()
    {
        QTemporaryDir dir;
        for (const char *f : {"vocab.json", "merges.txt"})
            QVERIFY(QFile::copy(modelSourceDir() + QLatin1Char('/') + QLatin1String(f), dir.filePath(QLatin1String(f))));
        const int V = builtin()->config.vocabSize, d = 768, P = 64, I = 3072;
        std::mt19937_64 rng(5);
        std::normal_distribution<double> normal(0, 0.02);
        std::vector<TensorToWrite> t;
        auto add = [&](const std::string &name, std::vector<std::int64_t> shape, double around = 0) {
            std::int64_t count = 1;
            for (auto s : shape)
                count *= s;
            std::vector<double> v(static_cast<std::size_t>(count));
            for (double &x : v)
                x = around + normal(rng);
            t.push_back({name, DType::F16, shape, std::move(v)});
        };
        add("wte.weight", {V, d});
        add("wpe.weight", {P, d});
        add("h.0.ln_1.weight", {d}, 1);
        add("h.0.ln_1.bias", {d});
        add("h.0.attn.c_attn.weight", {d, 3 * d});
        add("h.0.attn.c_attn.bias", {3 * d});
        add("h.0.attn.c_proj.weight", {d, d});
        add("h.0.attn.c_proj.bias", {d});
        add("h.0.ln_2.weight", {d}, 1);
        add("h.0.ln_2.bias", {d});
        add("h.0.mlp.c_fc.weight", {d, I});
        add("h.0.mlp.c_fc.bias", {I});
        add("h.0.mlp.c_proj.weight", {I, d});
        add("h.0.mlp.c_proj.bias", {d});
        add("ln_f.weight", {d}, 1);
        add("ln_f.bias", {d});
        QVERIFY(writeFile(dir.filePath(QStringLiteral("model.safetensors")), safetensorsBytes(t)));
        const QJsonObject c{{"n_layer", 1}, {"n_head", 12}, {"n_embd", d}, {"n_positions", P}, {"vocab_size", V}};
        QVERIFY(writeFile(dir.filePath(QStringLiteral("config.json")), QJsonDocument(c).toJson()));

        Gpt2Config config;
        config.nLayer = 1, config.nHead = 12, config.nEmbd = d, config.nInner = I, config.vocabSize = V;
        // 32 tokens: 32 (4 d² + 2 d I + 2·32 d) + V d, the products a forward cannot avoid.
        const double macs = 32.0 * (4.0 * d * d + 2.0 * d * I + 2.0 * 32 * d) + double(V) * d;
        QCOMPARE(ModelView::forwardMultiplyAdds(config, 32), macs);
        const double builtinMacs = 32.0 * 3 * (4.0 * 128 * 128 + 2.0 * 128 * 512 + 2.0 * 32 * 128) + 706.0 * 128; // the logits: 706 tokens × d (lm_head)
        QCOMPARE(ModelView::forwardMultiplyAdds(builtin()->config, 32), builtinMacs);
        // A key at the end: two positions, the logits once.
        const double key = 2.0 * (4.0 * d * d + 2.0 * d * I + 2.0 * 32 * d) + double(V) * d;
        QCOMPARE(ModelView::keyMultiplyAdds(config, 32), key);
        QVERIFY(key < ModelView::kLiveKeyBudget);
        // GPT-2 small: 12 such layers and its 50,257-token vocabulary, about 210 million: live.
        Gpt2Config small = config;
        small.nLayer = 12, small.vocabSize = 50257;
        QVERIFY(std::fabs(ModelView::keyMultiplyAdds(small, 32) - 210e6) < 2e6);
        QVERIFY(ModelView::keyMultiplyAdds(small, 32) < ModelView::kLiveKeyBudget);
        // GPT-2 medium's shapes (24 layers, n_embd 1024): not.
        Gpt2Config medium = small;
        medium.nLayer = 24, medium.nEmbd = 1024, medium.nInner = 4096;
        QVERIFY(ModelView::keyMultiplyAdds(medium, 32) > ModelView::kLiveKeyBudget);

        MainWindow &w = *m_window;
        w.modelView()->setLiveKeyBudget(key / 2);
        const QString opened = problemText(w.openModel(dir.path()).value_or(Problem{}));
        w.modelView()->setLiveKeyBudget(ModelView::kLiveKeyBudget); // for the next model
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        QVERIFY(w.modelMode());
        ModelView *mv = w.modelView();
        QVERIFY(!mv->isLive());
        QVERIFY(!mv->slowNote()->isHidden());
        QVERIFY(mv->slowNote()->text().contains(QLocale().toString(key / 1e6, 'f', 0)));
        QCOMPARE(mv->stagePlot(Stage::Weights)->data().values.rows(), Eigen::Index(mv->trace()->ids.size()));
        QLineEdit *field = mv->sentenceField();
        field->setFocus();
        field->clear();
        QTest::keyClicks(field, QStringLiteral("the cat"));
        QVERIFY(!mv->trace() || mv->trace()->ids.size() != 2); // not yet
        QTRY_VERIFY_WITH_TIMEOUT(mv->trace() && mv->trace()->ids.size() == 2, 5000);
        QTest::keyClicks(field, QStringLiteral(" sat"));
        QCOMPARE(mv->trace()->ids.size(), std::size_t(2));
        QTest::keyClick(field, Qt::Key_Return); // Enter: at once
        QCOMPARE(mv->trace()->ids.size(), std::size_t(3));
        QCOMPARE(mv->trace()->layers[0].heads.size(), std::size_t(12));
    }

    // A user's own model of 1024 positions and many layers and heads: a text
    // whose trace would pass the limit is refused in the window's message
    // before the forward; the document is untouched; a shorter one runs.
    void traceBudgetInTheWindow()
    {
        QTemporaryDir dir;
        QVERIFY(writeRandomModel(dir.path(), 24, 16, 64, 1024));
        MainWindow &w = *m_window;
        Document *doc = w.document();
        const Scenario before = doc->scenario();
        const int steps = doc->undoStack()->count();
        const QString opened = problemText(w.openModel(dir.path()).value_or(Problem{}));
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        ModelView *mv = w.modelView();
        const int most = maxTracedTokens(mv->model()->config);
        QString text;
        while (int(mv->model()->tokenizer.encode(text).size()) <= most)
            text += QStringLiteral(" cat");
        mv->setText(text);
        QVERIFY(!mv->trace());
        QVERIFY(!mv->problemLabel()->isHidden());
        const QString shown = mv->problemLabel()->text();
        QVERIFY2(shown.contains(QLatin1String("more than the limit of 33,554,432")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("traces at most %1 tokens").arg(most)), qPrintable(shown));
        QVERIFY(!mv->takeButton()->isEnabled());
        QCOMPARE(doc->scenario(), before);
        QCOMPARE(doc->undoStack()->count(), steps);
        mv->setText(QStringLiteral("the cat sat"));
        QVERIFY(mv->trace());
        QCOMPARE(mv->trace()->layers.size(), std::size_t(24));
        QVERIFY(mv->problemLabel()->isHidden());
    }

    // Right-click ▸ Export figure… draws the same numbers as the screen.
    void figuresExport()
    {
        MainWindow &w = *m_window;
        QVERIFY(!w.openBuiltinModel());
        ModelView *mv = w.modelView();
        mv->setText(QStringLiteral("the cat sat on the mat ."));
        FigureStyle style;
        FigureSize size;
        size.width = 900, size.height = 700;
        const QImage grid = QImage::fromData(mv->figure(ModelFigure::Overview, style, FigureFormat::Png, size), "PNG");
        QCOMPARE(grid.size(), QSize(900, 700));
        QVERIFY(distinctColours(grid, grid.rect()) > 30);
        const QByteArray svg = mv->figure(ModelFigure::Overview, style, FigureFormat::Svg, size);
        QVERIFY(svg.contains("<svg"));
        for (ModelFigure f : {ModelFigure::Weights, ModelFigure::Scores, ModelFigure::Q}) {
            const QImage image = QImage::fromData(mv->figure(f, style, FigureFormat::Png, size), "PNG");
            QCOMPARE(image.size(), QSize(900, 700));
            QVERIFY(distinctColours(image, image.rect()) > 30);
        }
        QVERIFY(mv->figure(ModelFigure::Weights, style, FigureFormat::Svg, size).contains("<svg"));
        // To look at them: ATTN_MODELVIEW_FIGURES=DIR keeps the PNGs there.
        if (const QString keep = qEnvironmentVariable("ATTN_MODELVIEW_FIGURES"); !keep.isEmpty()) {
            QVERIFY(writeFile(QDir(keep).filePath(QStringLiteral("overview.png")), mv->figure(ModelFigure::Overview, style, FigureFormat::Png, size)));
            QVERIFY(writeFile(QDir(keep).filePath(QStringLiteral("weights.png")), mv->figure(ModelFigure::Weights, style, FigureFormat::Png, size)));
            QVERIFY(writeFile(QDir(keep).filePath(QStringLiteral("q.png")), mv->figure(ModelFigure::Q, style, FigureFormat::Png, size)));
        }
        QCOMPARE(mv->figureStem(ModelFigure::Weights), QStringLiteral("tiny-bilingual_L%1H%2_weights").arg(mv->layer() + 1).arg(mv->head() + 1));
        QVERIFY(mv->figureOf(mv->overview()) == ModelFigure::Overview);
        QCOMPARE(mv->overview()->contextMenuPolicy(), Qt::CustomContextMenu);
        QCOMPARE(mv->stagePlot(Stage::Weights)->contextMenuPolicy(), Qt::CustomContextMenu);
    }

    // `attention-lab --show model --screenshot`: the model mode, drawn.
    // Knocking a head out: the view's forward is the core's ablated one, the
    // grid says which head, the note gives the whole model's top 5 and the
    // probe's loss with and without; bringing it back restores everything.
    void knockOutAHead()
    {
        MainWindow &w = *m_window;
        QVERIFY(!w.openBuiltinModel());
        w.setModelMode(true);
        ModelView *mv = w.modelView();
        const QString text = QStringLiteral("the girl sees the king . she is happy .");
        mv->setText(text);
        const ModelTrace intact = reference(text);
        QVERIFY(mv->ablationNote()->isHidden());
        mv->knockOut(2, 0, false);
        QVERIFY(mv->isKnockedOut(2, 0));
        const ModelTrace knocked = std::get<ModelTrace>(runModelOnIdsAblated(*builtin(), intact.ids, 5, {{2, 0, {}}}));
        QVERIFY(maxDiff(mv->trace()->final, knocked.final) <= 1e-12);
        QCOMPARE(mv->predictionTable()->item(0, 0)->text().isEmpty(), false);
        QCOMPARE(mv->predictionTable()->item(0, 1)->data(Qt::UserRole).toDouble(), knocked.next[0].p);
        QVERIFY(!mv->ablationNote()->isHidden());
        const auto probe = repeatedProbe(builtin()->config.vocabSize, ModelView::kProbeSeed);
        const double with = std::get<double>(repeatLoss(*builtin(), probe));
        const double without = std::get<double>(repeatLoss(*builtin(), probe, {{2, 0, {}}}));
        const QString note = mv->ablationNote()->text();
        QVERIFY2(note.contains(QLocale::c().toString(with, 'f', 3)) && note.contains(QLocale::c().toString(without, 'f', 3)),
                 qPrintable(note));
        QVERIFY2(note.contains(QLocale::c().toString(intact.next[0].p, 'f', 4)), qPrintable(note));
        const HeadGridData grid = mv->overview()->data();
        QVERIFY(grid.cells[std::size_t(2 * 4 + 0)].caption.value(0).contains(QStringLiteral("knocked out")));
        QVERIFY(!grid.cells[std::size_t(2 * 4 + 1)].caption.value(0).contains(QStringLiteral("knocked out")));
        // Typing keeps the head out.
        mv->setText(text + QStringLiteral(" the"));
        QVERIFY(mv->trace()->ablated);
        // The mean: the core's mean over the probe.
        mv->knockOut(1, 2, true);
        QCOMPARE(int(mv->ablations().size()), 2);
        const auto means = meanHeadOutputs(*builtin(), probe);
        QVERIFY(maxDiff(mv->ablations()[1].mean, means.value()[1][2]) == 0);
        mv->bringBack(2, 0);
        mv->bringBack(1, 2);
        QVERIFY(mv->ablations().empty());
        QVERIFY(mv->ablationNote()->isHidden());
        mv->setText(text);
        QVERIFY(maxDiff(mv->trace()->final, intact.final) <= 1e-12);
    }

    // The scores tab: one row a head, the core's probe scores, sorted by a column.
    void scoresTableSorts()
    {
        MainWindow &w = *m_window;
        QVERIFY(!w.openBuiltinModel());
        w.setModelMode(true);
        ModelView *mv = w.modelView();
        mv->headTabs()->setCurrentIndex(2);
        QTableWidget *t = mv->scoresTable();
        QCOMPARE(t->rowCount(), 12);
        // First in the model's order: layer by layer, head by head.
        for (int r = 0; r < 12; ++r) {
            QCOMPARE(t->item(r, 0)->text().toInt(), r / 4 + 1);
            QCOMPARE(t->item(r, 1)->text().toInt(), r % 4 + 1);
        }
        const auto ref = probeScores(*builtin(), repeatedProbe(builtin()->config.vocabSize, ModelView::kProbeSeed));
        QVERIFY(ref.ok());
        t->sortByColumn(4, Qt::DescendingOrder); // first token
        double last = 2;
        for (int r = 0; r < t->rowCount(); ++r) {
            const int l = t->item(r, 0)->text().toInt() - 1, h = t->item(r, 1)->text().toInt() - 1;
            const HeadScores &s = ref.value()[std::size_t(l * 4 + h)];
            const double v = t->item(r, 4)->data(Qt::UserRole).toDouble();
            QCOMPARE(v, s.firstToken.score);
            QVERIFY(v <= last);
            last = v;
            QCOMPARE(t->item(r, 4)->text(), QStringLiteral("%1 (%2)").arg(fixed2(s.firstToken.score), fixed2(s.firstToken.uniform)));
            QCOMPARE(t->item(r, 2)->text(), ModelView::kindName(s.kind));
        }
        // Double-click shows that head.
        QSignalSpy changed(mv, &ModelView::headChanged);
        emit t->cellDoubleClicked(0, 0);
        QCOMPARE(mv->layer(), t->item(0, 0)->text().toInt() - 1);
        QCOMPARE(mv->head(), t->item(0, 1)->text().toInt() - 1);
        // Knocked out: the table is the scores without the head.
        mv->knockOut(0, 2, false);
        const auto after = probeScores(*builtin(), repeatedProbe(builtin()->config.vocabSize, ModelView::kProbeSeed), {{0, 2, {}}});
        QCOMPARE(mv->probeScoresShown().size(), std::size_t(12));
        QCOMPARE(mv->probeScoresShown()[5].previousToken.score, after.value()[5].previousToken.score);
        QVERIFY(mv->probeScoresShown()[5].previousToken.score != ref.value()[5].previousToken.score);
    }

    void screenshotOfTheModelMode()
    {
        // Where the maps are: the same window here, at the same size.
        MainWindow &w = *m_window;
        QVERIFY(w.showView(QStringLiteral("model")) == &w);
        QVERIFY(w.modelMode());
        // Laid out: the grid and the maps have their room.
        QTRY_VERIFY_WITH_TIMEOUT(w.modelView()->overview()->isVisible() && w.modelView()->overview()->width() > 200
                                     && w.modelView()->overview()->height() > 200, 30000);
        QApplication::processEvents();
        const QRect gridArea(w.modelView()->overview()->mapTo(&w, QPoint(0, 0)), w.modelView()->overview()->size());
        const QRect weightsArea(w.modelView()->stagePlot(Stage::Weights)->mapTo(&w, QPoint(0, 0)),
                                w.modelView()->stagePlot(Stage::Weights)->size());
        QVERIFY(gridArea.width() > 200 && gridArea.height() > 200);

        QTemporaryDir dir;
        const QString shot = dir.filePath(QStringLiteral("model.png"));
        QProcess app;
        app.setProcessEnvironment(test::offscreenEnvironment());
        app.start(test::binaryDir() + QStringLiteral("/bin/attention-lab"),
                  {QStringLiteral("--show"), QStringLiteral("model"), QStringLiteral("--screenshot"), shot,
                   QStringLiteral("--size"), QStringLiteral("1600x1000")});
        QVERIFY(app.waitForFinished(120000));
        QCOMPARE(app.exitCode(), 0);
        const QImage image(shot);
        QCOMPARE(image.size(), QSize(1600, 1000));
        const int inGrid = distinctColours(image, gridArea);
        const int inWeights = distinctColours(image, weightsArea);
        QVERIFY2(inGrid > 40, qPrintable(QString::number(inGrid)));
        QVERIFY2(inWeights > 40, qPrintable(QString::number(inWeights)));
    }

private:
    QTemporaryDir m_settings;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestModelView)
#include "test_modelview.moc"
