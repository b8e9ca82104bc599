// The model mode's "Sinks" tab (app/views/sinkview), offscreen: its map is
// every head's weight on the first token at every position, the core's
// numbers (firstTokenWeights); its table is sinkExperiment's, and follows
// the window and sinks boxes; the "sentence above" reads the model view's
// sentence; a model opened from a folder is followed; --show sinks exists.

#include "attn_test.h"

#include "gpt2.h"
#include "heatmapplot.h"
#include "mainwindow.h"
#include "modelmode.h"
#include "modelview.h"
#include "sinks.h"
#include "sinkview.h"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace attn;

namespace {

std::shared_ptr<const Gpt2Model> builtin()
{
    static std::shared_ptr<const Gpt2Model> m = std::get<std::shared_ptr<const Gpt2Model>>(loadBuiltinModel());
    return m;
}

SinkReport expected(const Gpt2Model &m, const std::vector<int> &ids, int window, int sinks)
{
    auto r = sinkExperiment(m, ids, window, sinks);
    if (const Problem *p = r.problem())
        qFatal("%s", p->toString().c_str());
    return r.value();
}

} // namespace

class TestSinkView : public QObject {
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
        QVERIFY(!m_window->openBuiltinModel());
        m_window->setModelMode(true);
    }

    void cleanup() { m_window.reset(); }

    // The tab is there; shown, it computes on the model's own text (seed
    // 2026): heads × n cells, each the core's w(i, 0), none NaN.
    void mapIsTheCoresNumbers()
    {
        ModelView *mv = m_window->modelView();
        SinkView *sv = mv->sinkView();
        QVERIFY(sv);
        const int tab = mv->headTabs()->indexOf(mv->sinkTab());
        QVERIFY(tab >= 0);
        QCOMPARE(mv->headTabs()->tabText(tab), QStringLiteral("Sinks"));
        QSignalSpy spy(sv, &SinkView::computed);
        mv->headTabs()->setCurrentIndex(tab);
        QVERIFY(spy.wait(20000));
        const Gpt2Model &m = *builtin();
        const auto text = sinkText(m, m.config.nPositions);
        QVERIFY(text.ok());
        QVERIFY(sv->ids() == text.value());
        const int n = int(text.value().size());
        QCOMPARE(n, 64);
        const Matrix w = firstTokenWeights(m, text.value()).value();
        const HeatmapData &d = sv->plot()->data();
        QCOMPARE(sv->plot()->rowCount(), m.config.nLayer * m.config.nHead);
        QCOMPARE(sv->plot()->columnCount(), n);
        QCOMPARE(d.values.rows(), w.rows());
        QCOMPARE(d.values.cols(), w.cols());
        for (Eigen::Index r = 0; r < w.rows(); ++r)
            for (Eigen::Index c = 0; c < w.cols(); ++c) {
                QVERIFY2(std::isfinite(d.values(r, c)), qPrintable(QStringLiteral("cell %1, %2").arg(r).arg(c)));
                QCOMPARE(d.values(r, c), w(r, c));
            }
        QCOMPARE(d.rowLabels.value(0), QStringLiteral("L1H1"));
        QCOMPARE(d.rowLabels.value(w.rows() - 1), QStringLiteral("L%1H%2").arg(m.config.nLayer).arg(m.config.nHead));
        QVERIFY(!d.title.isEmpty());
        QVERIFY(sv->plot()->toolTipAt(1, 5).contains(QLatin1String("position 6")));
        // The table: full, window 8, 4 sinks + window 8, as the core has them.
        const SinkReport rep = expected(m, text.value(), 8, 4);
        for (int r = 0; r < 3; ++r) {
            QCOMPARE(sv->table()->item(r, 1)->data(Qt::UserRole).toDouble(), rep.rows[std::size_t(r)].loss);
            QCOMPARE(sv->table()->item(r, 2)->data(Qt::UserRole).toDouble(), rep.rows[std::size_t(r)].perplexity);
        }
        QCOMPARE(sv->table()->item(1, 0)->text(), QStringLiteral("window 8"));
        QCOMPARE(sv->table()->item(2, 0)->text(), QStringLiteral("4 sinks + window 8"));
        QVERIFY(sv->paperLabel()->text().contains(QLatin1String("5158")));
        QVERIFY(sv->findingLabel()->text().contains(QLatin1String("Our model")));
        QVERIFY(!sv->problemLabel()->isVisibleTo(sv));
    }

    // The window box: the table's window row becomes the core's for the new window.
    void windowBoxChangesTheTable()
    {
        ModelView *mv = m_window->modelView();
        SinkView *sv = mv->sinkView();
        mv->headTabs()->setCurrentWidget(mv->sinkTab());
        sv->waitForResult();
        const std::vector<int> ids = sv->ids();
        QCOMPARE(int(ids.size()), 64);
        QSignalSpy spy(sv, &SinkView::computed);
        sv->windowBox()->setValue(16);
        QVERIFY(spy.wait(20000));
        QVERIFY(sv->ids() == ids); // the same text: only the window changed
        const SinkReport rep = expected(*builtin(), ids, 16, 4);
        QCOMPARE(sv->table()->item(1, 0)->text(), QStringLiteral("window 16"));
        QCOMPARE(sv->table()->item(1, 1)->data(Qt::UserRole).toDouble(), rep.rows[1].loss);
        QCOMPARE(sv->table()->item(2, 1)->data(Qt::UserRole).toDouble(), rep.rows[2].loss);
        QCOMPARE(sv->table()->item(1, 2)->data(Qt::UserRole).toDouble(), rep.rows[1].perplexity);
        // Sinks can never reach the window.
        sv->windowBox()->setValue(3);
        sv->waitForResult();
        QCOMPARE(sv->sinksBox()->maximum(), 2);
        QCOMPARE(sv->sinksBox()->value(), 2);
        QCOMPARE(sv->table()->item(2, 0)->text(), QStringLiteral("2 sinks + window 3"));
        QCOMPARE(sv->table()->item(2, 1)->data(Qt::UserRole).toDouble(), expected(*builtin(), ids, 3, 2).rows[2].loss);
        QCOMPARE(sv->windowBox()->maximum(), 63);
    }

    // "New text": the next seed's text, and its numbers.
    void newText()
    {
        ModelView *mv = m_window->modelView();
        SinkView *sv = mv->sinkView();
        mv->headTabs()->setCurrentWidget(mv->sinkTab());
        sv->waitForResult();
        sv->newTextButton()->click();
        sv->waitForResult();
        QCOMPARE(sv->seed(), kSinkTextSeed + 1);
        const std::vector<int> ids = sinkText(*builtin(), 64, kSinkTextSeed + 1).value();
        QVERIFY(sv->ids() == ids);
        QVERIFY(sv->plot()->data().values == firstTokenWeights(*builtin(), ids).value());
    }

    // "The sentence above": the model view's sentence, followed as it changes;
    // a window too long for it is cut to what it allows.
    void followsTheSentence()
    {
        ModelView *mv = m_window->modelView();
        SinkView *sv = mv->sinkView();
        mv->headTabs()->setCurrentWidget(mv->sinkTab());
        sv->setSource(SinkView::Source::Sentence);
        mv->setText(QStringLiteral("the girl sees the king . she says the king is happy ."));
        sv->waitForResult();
        const std::vector<int> ids = mv->trace()->ids;
        const int n = int(ids.size());
        QVERIFY(sv->ids() == ids);
        QCOMPARE(sv->plot()->columnCount(), n);
        QCOMPARE(sv->windowBox()->maximum(), n - 1);
        QCOMPARE(sv->table()->item(1, 1)->data(Qt::UserRole).toDouble(), expected(*builtin(), ids, 8, 4).rows[1].loss);
        mv->setText(QStringLiteral("the cat sat on"));
        sv->waitForResult();
        const std::vector<int> shorter = mv->trace()->ids;
        QVERIFY(sv->ids() == shorter);
        const int m = int(shorter.size());
        QCOMPARE(sv->windowBox()->value(), m - 1);
        QCOMPARE(sv->table()->item(1, 1)->data(Qt::UserRole).toDouble(), expected(*builtin(), shorter, m - 1, std::min(4, m - 2)).rows[1].loss);
        // Too short: said, and nothing drawn.
        mv->setText(QStringLiteral("cat"));
        sv->waitForResult();
        QVERIFY(sv->problemLabel()->isVisibleTo(sv));
        QVERIFY(!sv->report());
        QCOMPARE(sv->plot()->rowCount(), 0);
    }

    // A model opened from a folder is followed: the numbers are the new model's.
    void followsTheModel()
    {
        ModelView *mv = m_window->modelView();
        SinkView *sv = mv->sinkView();
        mv->headTabs()->setCurrentWidget(mv->sinkTab());
        sv->waitForResult();
        const Gpt2Model *before = mv->model();
        QVERIFY(!m_window->modelModeObject()->openModel(test::sourceDir() + QStringLiteral("/resources/models/tiny-bilingual")));
        QVERIFY(mv->model() != before);
        sv->waitForResult();
        QVERIFY(sv->report());
        const std::vector<int> ids = sinkText(*mv->model(), 64).value();
        QVERIFY(sv->ids() == ids);
        QCOMPARE(sv->table()->item(0, 1)->data(Qt::UserRole).toDouble(), expected(*mv->model(), ids, 8, 4).rows[0].loss);
    }

    void showSinks()
    {
        QVERIFY(m_window->viewNames().contains(QStringLiteral("sinks")));
        QVERIFY(m_window->showView(QStringLiteral("sinks")));
        ModelView *mv = m_window->modelView();
        QCOMPARE(mv->headTabs()->currentWidget(), mv->sinkTab());
        QVERIFY(mv->sinkView()->report());
    }

private:
    QTemporaryDir m_settings;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestSinkView)
#include "test_sinkview.moc"
