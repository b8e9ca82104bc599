// The encoder mode (app/modes/encodermode, app/views/encoderview),
// offscreen: View ▸ Encoder opens the shipped tiny-encoder; the grid, the
// chosen head's map and the masked-word bars are the core's numbers and
// follow every key typed; no map is causal; a head taken into the lab is one
// undo step without the causal mask; a folder of the user's own loads off the
// GUI thread, a hostile one is refused in one message and the open model stays.

#include "attn_test.h"
#include "bert.h"
#include "distributionbars.h"
#include "document.h"
#include "encodermode.h"
#include "encoderview.h"
#include "headgrid.h"
#include "heatmapplot.h"
#include "mainwindow.h"
#include "safetensors.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <sys/stat.h>

using namespace attn;

namespace {

std::shared_ptr<const BertModel> builtin()
{
    static std::shared_ptr<const BertModel> m = loadBuiltinEncoder().value();
    return m;
}

// The shipped folder copied, so that a test may spoil a file of it.
bool copyEncoder(const QString &to)
{
    const QString from = test::sourceDir() + QStringLiteral("/resources/models/tiny-encoder");
    for (const char *f : {"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json"})
        if (!QFile::copy(from + QLatin1Char('/') + QLatin1String(f), to + QLatin1Char('/') + QLatin1String(f)))
            return false;
    return true;
}

} // namespace

class TestEncoderView : public QObject {
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
        m_window->encoderMode()->action()->trigger();
    }

    void cleanup() { m_window.reset(); }

    void opensTheShippedEncoder()
    {
        EncoderView *v = m_window->encoderMode()->view();
        QVERIFY(v->isVisible());
        QVERIFY(m_window->encoderMode()->action()->isChecked());
        QVERIFY(v->model());
        QCOMPARE(v->model()->name, QStringLiteral("tiny-encoder"));
        QCOMPARE(v->text(), QStringLiteral("我 [MASK] 你 。"));
        const auto t = runEncoder(*builtin(), v->text());
        QVERIFY(t.ok());
        // The grid: every layer × head, the core's weights, none causal.
        const HeadGridData &g = v->grid()->data();
        QCOMPARE(g.rows, builtin()->config.nLayer);
        QCOMPARE(g.cols, builtin()->config.nHead);
        for (int l = 0; l < g.rows; ++l)
            for (int h = 0; h < g.cols; ++h) {
                const HeadGridCell &c = g.cells[std::size_t(l * g.cols + h)];
                QVERIFY(!c.causal);
                QCOMPARE(c.weights, t.value().layers[std::size_t(l)].heads[std::size_t(h)].weights);
            }
        // The big map: layer 1, head 1; the first row reads the last key (both ways).
        const HeatmapData &d = v->plot()->data();
        QCOMPARE(d.values, t.value().layers[0].heads[0].weights);
        QVERIFY(d.values(0, d.values.cols() - 1) > 0);
        QCOMPARE(d.colLabels, (QStringList{"[CLS]", "我", "[MASK]", "你", "。", "[SEP]"}));
        // The bars: the core's top 5 for the mask, the first marked.
        const auto &bars = v->bars()->bars();
        QCOMPARE(int(bars.size()), 5);
        for (std::size_t i = 0; i < bars.size(); ++i) {
            QCOMPARE(bars[i].label, QString::fromStdString(t.value().fills[0].top[i].text));
            QCOMPARE(bars[i].p, t.value().fills[0].top[i].p);
            QCOMPARE(bars[i].chosen, i == 0);
        }
        QCOMPARE(DistributionBars::numbersText(bars[0]), QString::number(bars[0].p, 'f', 3));
        // Where Q, K and V come from, with the shapes.
        QVERIFY2(v->sourceText().contains(QStringLiteral("(6 × 128)")), qPrintable(v->sourceText()));
        QVERIFY(v->sourceText().contains(QStringLiteral("Q, K and V are 6 × 32")));
    }

    void followsEveryKeyAndTheGrid()
    {
        EncoderView *v = m_window->encoderMode()->view();
        auto *edit = v->findChild<QLineEdit *>(QStringLiteral("encoderText"));
        QVERIFY(edit);
        edit->clear();
        QTest::keyClicks(edit, QStringLiteral("the cat [MASK] on the mat ."));
        QCOMPARE(v->text(), QStringLiteral("the cat [MASK] on the mat ."));
        QCOMPARE(v->bars()->bars().front().label, QStringLiteral("sat"));
        // A click on layer 3, head 2 of the grid shows it.
        const QRectF cell = v->grid()->mapRect(2, 1);
        QTest::mouseClick(v->grid(), Qt::LeftButton, {}, cell.center().toPoint());
        QCOMPARE(v->layer(), 2);
        QCOMPARE(v->head(), 1);
        const auto t = runEncoder(*builtin(), v->text());
        QCOMPARE(v->plot()->data().values, t.value().layers[2].heads[1].weights);
        QVERIFY(v->plot()->data().title.contains(QStringLiteral("Layer 3, head 2")));
        // Too long: one message, no map, nothing stale.
        v->setText(QStringLiteral("the ").repeated(80));
        QVERIFY(v->problemText().contains(QStringLiteral("max_position_embeddings = 64")));
        QVERIFY(!v->trace());
        QCOMPARE(v->plot()->data().values.size(), Eigen::Index(0));
        QVERIFY(v->bars()->bars().empty());
    }

    void takeAHeadIntoTheLab()
    {
        EncoderView *v = m_window->encoderMode()->view();
        v->setHead(1, 3);
        Document *doc = m_window->document();
        const Scenario before = doc->scenario();
        const int steps = doc->undoStack()->count();
        v->findChild<QPushButton *>(QStringLiteral("encoderTakeHead"))->click();
        QCOMPARE(doc->undoStack()->count(), steps + 1);
        const Scenario &s = doc->scenario();
        QVERIFY(!s.mask.causal);
        const HeadActivations &h = v->trace()->layers[1].heads[3];
        QCOMPARE(s.Q, h.q);
        QCOMPARE(s.K, h.k);
        QCOMPARE(s.V, h.v);
        QCOMPARE(int(s.tokens.size()), 6);
        // compute() of it gives the head's weights again.
        const Trace t = compute(s);
        QVERIFY((t.heads[0].weights - h.weights).cwiseAbs().maxCoeff() < 1e-12);
        doc->undoStack()->undo();
        QCOMPARE(doc->scenario().Q, before.Q);
    }

    void aFolderOffTheGuiThreadAndAHostileOne()
    {
        QTemporaryDir dir;
        QVERIFY(copyEncoder(dir.path()));
        EncoderMode *mode = m_window->encoderMode();
        QVERIFY(!mode->openFolder(dir.path()));
        QCOMPARE(mode->view()->model()->folder, dir.path());

        QTemporaryDir bad;
        QVERIFY(copyEncoder(bad.path()));
        const QString vocab = bad.filePath(QStringLiteral("vocab.txt"));
        QVERIFY(QFile::remove(vocab));
        QCOMPARE(::mkfifo(QFile::encodeName(vocab).constData(), 0600), 0);
        const auto p = mode->openFolder(bad.path());
        QVERIFY(p);
        QVERIFY2(QString::fromStdString(p->message).contains(QStringLiteral("not a regular file (a FIFO)")), p->toString().c_str());
        // The open model stays, and its maps.
        QCOMPARE(mode->view()->model()->folder, dir.path());
        QVERIFY(mode->view()->trace());
    }

private:
    QTemporaryDir m_settings;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestEncoderView)
#include "test_encoderview.moc"
