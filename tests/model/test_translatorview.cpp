// The encoder-decoder mode (app/modes/translatormode, app/views/translatorview),
// offscreen: View ▸ Encoder-decoder opens the shipped tiny-translator and
// writes the translation of the sentence; the three kinds of attention are
// the core's numbers, the decoder's causal, the cross-attention m × n with
// the words written down the side; Reset, Step and Play write token by token
// through the KV cache, the maps equal to the whole forward's and the cached
// rows marked; a cross-attention head goes into the lab with its two
// sequences; a hostile folder is refused and the open model stays.

#include "attn_test.h"
#include "bart.h"
#include "distributionbars.h"
#include "document.h"
#include "headgrid.h"
#include "heatmapplot.h"
#include "mainwindow.h"
#include "samplingcontrols.h"
#include "translatormode.h"
#include "translatorview.h"

#include <QAction>
#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <sys/stat.h>

using namespace attn;

namespace {

std::shared_ptr<const BartModel> builtin()
{
    static std::shared_ptr<const BartModel> m = loadBuiltinSeq2Seq().value();
    return m;
}

bool copyTranslator(const QString &to)
{
    const QString from = test::sourceDir() + QStringLiteral("/resources/models/tiny-translator");
    for (const char *f : {"config.json", "model.safetensors", "vocab.json", "merges.txt"})
        if (!QFile::copy(from + QLatin1Char('/') + QLatin1String(f), to + QLatin1Char('/') + QLatin1String(f)))
            return false;
    return true;
}

Matrix meanOf(const LayerActivations &layer)
{
    Matrix m = Matrix::Zero(layer.heads[0].weights.rows(), layer.heads[0].weights.cols());
    for (const HeadActivations &h : layer.heads)
        m += h.weights / double(layer.heads.size());
    return m;
}

} // namespace

class TestTranslatorView : public QObject {
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
        m_window->translatorMode()->action()->trigger();
    }

    void cleanup() { m_window.reset(); }

    void translatesAndAligns()
    {
        TranslatorView *v = m_window->translatorMode()->view();
        QVERIFY(v->isVisible());
        QVERIFY(v->model());
        QCOMPARE(v->model()->name, QStringLiteral("tiny-translator"));
        QCOMPARE(v->text(), QStringLiteral("我 打 你 。"));
        QVERIFY(v->finished());
        QCOMPARE(QString::fromStdString(v->translation()).trimmed(), QStringLiteral("I hit you ."));
        QVERIFY(v->translationLabel()->text().contains(QStringLiteral("hit")));
        // The same ids as translate(), the same forward as the whole one.
        const auto tr = translate(*builtin(), v->text());
        QVERIFY(tr.ok());
        std::vector<int> ids;
        for (const GenerationStep &st : v->steps())
            ids.push_back(st.id);
        QVERIFY(ids == tr.value().ids);
        const Seq2SeqTrace *t = v->trace();
        QVERIFY(t);
        // The trace reads every token written but the last (</s>): its rows each wrote one.
        QCOMPARE(t->targetIds.size(), v->steps().size());
        std::vector<int> target(tr.value().trace.targetIds.begin(), tr.value().trace.targetIds.end() - 1);
        QVERIFY(t->targetIds == target);
        const auto whole = runSeq2Seq(*builtin(), t->sourceIds, target);
        QVERIFY(whole.ok());
        // The default map: the cross-attention of the last decoder layer, the heads averaged.
        QCOMPARE(v->kind(), Seq2SeqKind::Cross);
        QVERIFY(v->averaged());
        const HeatmapData &d = v->plot()->data();
        QVERIFY((d.values - meanOf(whole.value().cross[1])).cwiseAbs().maxCoeff() < 1e-12);
        QCOMPARE(d.values.rows(), Eigen::Index(target.size()));
        QCOMPARE(d.values.cols(), Eigen::Index(t->sourceIds.size()));
        QCOMPARE(d.colLabels, (QStringList{"<s>", "我", "打", "你", "。", "</s>"}));
        // Row i is named by what it reads and what it wrote: I → hit reads 打 most.
        const int row = int(d.rowLabels.indexOf(QStringLiteral("I → hit")));
        QVERIFY2(row >= 0, qPrintable(d.rowLabels.join(QLatin1Char('|'))));
        Eigen::Index best = 0;
        d.values.row(row).maxCoeff(&best);
        QCOMPARE(d.colLabels[int(best)], QStringLiteral("打"));
        QVERIFY(d.title.contains(QStringLiteral("the 4 heads averaged")));
        // The grid: the cross-attention's layers × heads, m × n, none causal.
        const HeadGridData &g = v->grid()->data();
        QCOMPARE(g.rows, 2);
        QCOMPARE(g.cols, 4);
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 4; ++h) {
                const HeadGridCell &c = g.cells[std::size_t(l * 4 + h)];
                QVERIFY(!c.causal);
                QVERIFY((c.weights - whole.value().cross[std::size_t(l)].heads[std::size_t(h)].weights).cwiseAbs().maxCoeff() < 1e-12);
            }
        // Where Q, K and V come from: two sequences, with the shapes.
        QVERIFY2(v->sourceText().contains(QStringLiteral("Q comes from the decoder's 6 tokens")), qPrintable(v->sourceText()));
        QVERIFY(v->sourceText().contains(QStringLiteral("6 × 32")));
        QVERIFY(v->sourceText().contains(QStringLiteral("K and V come from the encoder's output over the source's 6 tokens")));
    }

    void theThreeKinds()
    {
        TranslatorView *v = m_window->translatorMode()->view();
        const Seq2SeqTrace *t = v->trace();
        QVERIFY(t);
        const int n = int(t->sourceIds.size()), m = int(t->targetIds.size());
        // A click on the grid shows that head alone.
        v->findChild<QRadioButton *>(QStringLiteral("translatorDecoderSelf"))->click();
        QCOMPARE(v->kind(), Seq2SeqKind::DecoderSelf);
        const QRectF cell = v->grid()->mapRect(0, 2);
        QTest::mouseClick(v->grid(), Qt::LeftButton, {}, cell.center().toPoint());
        QCOMPARE(v->layer(), 0);
        QCOMPARE(v->head(), 2);
        QVERIFY(!v->averaged());
        const HeatmapData &d = v->plot()->data();
        QCOMPARE(d.values, t->decoderSelf[0].heads[2].weights);
        QCOMPARE(d.values.rows(), Eigen::Index(m));
        QCOMPARE(d.values.cols(), Eigen::Index(m));
        QCOMPARE(d.blocked.rows(), Eigen::Index(m));
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < m; ++j) {
                QCOMPARE(bool(d.blocked(i, j)), j > i);
                if (j > i)
                    QCOMPARE(d.values(i, j), 0.0);
            }
        QVERIFY(v->grid()->data().cells[0].causal);
        QVERIFY(v->sourceText().contains(QStringLiteral("Causal")));
        v->findChild<QRadioButton *>(QStringLiteral("translatorEncoderSelf"))->click();
        QCOMPARE(v->plot()->data().values, t->encoder[0].heads[2].weights);
        QCOMPARE(v->plot()->data().values.rows(), Eigen::Index(n));
        QVERIFY(v->plot()->data().values(0, n - 1) > 0); // both ways
        QVERIFY(v->plot()->data().rowNotes.isEmpty());   // the encoder runs once: nothing cached
        QVERIFY(v->sourceText().contains(QStringLiteral("No mask")));
    }

    // Reset, then Step: one row a step through the cache, equal to the whole forward.
    void stepByStepThroughTheCache()
    {
        TranslatorView *v = m_window->translatorMode()->view();
        QTest::mouseClick(v->controls()->resetButton(), Qt::LeftButton);
        QVERIFY(v->steps().empty());
        QVERIFY(!v->finished());
        QCOMPARE(v->trace()->targetIds.size(), std::size_t(1));
        QVERIFY(v->bars()->bars().empty());
        const BartModel &m = *builtin();
        std::vector<int> target{m.config.decoderStart};
        for (int step = 1; step <= 4; ++step) {
            QTest::mouseClick(v->controls()->stepButton(), Qt::LeftButton);
            QCOMPARE(int(v->steps().size()), step);
            const Seq2SeqTrace *t = v->trace();
            QCOMPARE(int(t->targetIds.size()), step);
            QCOMPARE(t->reused, step - 1);
            QVERIFY(t->targetIds == target);
            const auto whole = runSeq2Seq(m, t->sourceIds, target);
            QVERIFY(whole.ok());
            const HeatmapData &d = v->plot()->data();
            QVERIFY((d.values - meanOf(whole.value().cross[1])).cwiseAbs().maxCoeff() < 1e-12);
            // The cache on the map: the kept rows, and the new one.
            if (step > 1) {
                QCOMPARE(d.rowNotes.size(), step);
                QCOMPARE(d.rowNotes.count(QStringLiteral("cached")), step - 1);
                QCOMPARE(d.rowNotes.last(), QStringLiteral("new"));
            }
            // The bars: the step's distribution, the chosen token marked.
            const GenerationStep &st = v->steps().back();
            if (step > 1) // greedy (the first is forced)
                QCOMPARE(st.id, whole.value().next.front().id);
            bool marked = false;
            for (const DistributionBar &b : v->bars()->bars())
                marked = marked || b.chosen;
            QVERIFY(marked);
            // Work: the new row against the cached keys, against the whole triangle again.
            const CacheWork w = seq2seqCacheWork(step - 1, step, int(t->sourceIds.size()));
            QCOMPARE(st.cachedCells, w.withCache);
            QVERIFY2(v->cacheLabel()->text().contains(QStringLiteral("computed %1 score entries").arg(w.withCache)),
                     qPrintable(v->cacheLabel()->text()));
            target.push_back(st.id);
        }
        QCOMPARE(v->steps().front().id, m.config.forcedBos);
        // Play writes the rest and stops at </s>.
        QTest::mouseClick(v->controls()->playButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(v->finished(), 30000);
        QTRY_VERIFY(!v->controls()->playing());
        QCOMPARE(QString::fromStdString(v->translation()).trimmed(), QStringLiteral("I hit you ."));
        QVERIFY(!v->step());
        QVERIFY(v->statusLabel()->text().contains(QStringLiteral("finished")));
    }

    // Drawn with temperature and a seed: generateSeq2Seq's tokens, again for the same seed.
    void sampledWithASeed()
    {
        TranslatorView *v = m_window->translatorMode()->view();
        SamplingSettings s = v->controls()->settings();
        s.temperature = 2.0;
        s.topK = 0;
        s.seed = 7;
        v->controls()->setSettings(s);
        const auto g = generateSeq2Seq(*builtin(), v->text(), v->controls()->settings());
        QVERIFY(g.ok());
        QCOMPARE(v->steps().size(), g.value().steps.size());
        for (std::size_t i = 0; i < v->steps().size(); ++i) {
            QCOMPARE(v->steps()[i].id, g.value().steps[i].id);
            QCOMPARE(v->steps()[i].u, g.value().steps[i].u);
        }
    }

    void typingASentence()
    {
        TranslatorView *v = m_window->translatorMode()->view();
        auto *edit = v->findChild<QLineEdit *>(QStringLiteral("translatorText"));
        QVERIFY(edit);
        edit->selectAll();
        edit->insert(QStringLiteral("小明 在 家 帮助 她 。")); // as typed: one textChanged
        QCOMPARE(QString::fromStdString(v->translation()).trimmed(), QStringLiteral("the boy helps her at home ."));
        edit->clear();
        QVERIFY(v->problemText().contains(QStringLiteral("Type a sentence")));
        QVERIFY(!v->trace());
        QCOMPARE(v->plot()->data().values.size(), Eigen::Index(0));
        QVERIFY(v->bars()->bars().empty());
        edit->insert(QStringLiteral("I hit you ."));
        QCOMPARE(QString::fromStdString(v->translation()).trimmed(), QStringLiteral("我 打 你 。"));
    }

    void takeACrossAttentionHeadIntoTheLab()
    {
        TranslatorView *v = m_window->translatorMode()->view();
        v->setHead(1, 2);
        Document *doc = m_window->document();
        const Scenario before = doc->scenario();
        const int steps = doc->undoStack()->count();
        v->findChild<QPushButton *>(QStringLiteral("translatorTakeHead"))->click();
        QCOMPARE(doc->undoStack()->count(), steps + 1);
        const Scenario &s = doc->scenario();
        const Seq2SeqTrace *t = v->trace();
        const HeadActivations &h = t->cross[1].heads[2];
        QVERIFY(!s.mask.causal);
        QCOMPARE(s.Q, h.q);
        QCOMPARE(s.K, h.k);
        QCOMPARE(s.V, h.v);
        QCOMPARE(s.tokens.size(), t->targetIds.size());
        QCOMPARE(s.sourceTokens.size(), t->sourceIds.size());
        QCOMPARE(QString::fromStdString(s.sourceTokens[2]), QStringLiteral("打"));
        const Trace lab = compute(s);
        QVERIFY((lab.heads[0].weights - h.weights).cwiseAbs().maxCoeff() < 1e-12);
        doc->undoStack()->undo();
        QCOMPARE(doc->scenario().Q, before.Q);
        // The decoder's self-attention goes in causal.
        m_window->translatorMode()->action()->trigger();
        v->setKind(Seq2SeqKind::DecoderSelf);
        v->findChild<QPushButton *>(QStringLiteral("translatorTakeHead"))->click();
        QVERIFY(doc->scenario().mask.causal);
        QVERIFY(doc->scenario().sourceTokens.empty());
    }

    void aFolderOffTheGuiThreadAndAHostileOne()
    {
        QTemporaryDir dir;
        QVERIFY(copyTranslator(dir.path()));
        TranslatorMode *mode = m_window->translatorMode();
        QVERIFY(!mode->openFolder(dir.path()));
        QCOMPARE(mode->view()->model()->folder, dir.path());

        QTemporaryDir bad;
        QVERIFY(copyTranslator(bad.path()));
        const QString merges = bad.filePath(QStringLiteral("merges.txt"));
        QVERIFY(QFile::remove(merges));
        QCOMPARE(::mkfifo(QFile::encodeName(merges).constData(), 0600), 0);
        const auto p = mode->openFolder(bad.path());
        QVERIFY(p);
        QVERIFY2(QString::fromStdString(p->message).contains(QStringLiteral("not a regular file (a FIFO)")), p->toString().c_str());
        QCOMPARE(mode->view()->model()->folder, dir.path());
        QVERIFY(mode->view()->trace());
    }

private:
    QTemporaryDir m_settings;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestTranslatorView)
#include "test_translatorview.moc"
