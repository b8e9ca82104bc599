// The maps of a model's head, in the model mode and taken into the lab, at
// a short sentence: every open cell writes its number (the value, to the
// decimals shown), a blocked cell is hatched and writes no "0", and each
// map in the model mode has a colour range of its own values.

#include "attn_test.h"

#include "document.h"
#include "gpt2.h"
#include "heatmapplot.h"
#include "mainwindow.h"
#include "modelview.h"
#include "stageviews.h"

#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace attn;

namespace {


// Every cell of `plot` as drawn: an open cell's text is its value to the
// decimals drawn; a blocked (or non-finite) cell is hatched, with no "0".
void checkCellTexts(const HeatmapPlot *plot)
{
    const HeatmapData &d = plot->data();
    QVERIFY2(plot->rowCount() > 0 && plot->isVisible(), qPrintable(plot->objectName()));
    const int decimals = plot->drawnDecimals();
    QVERIFY2(decimals >= 0, qPrintable(plot->objectName() + QStringLiteral(": no numbers drawn")));
    for (int i = 0; i < plot->rowCount(); ++i)
        for (int j = 0; j < plot->columnCount(); ++j) {
            const QString where = QStringLiteral("%1 (%2, %3)").arg(plot->objectName()).arg(i).arg(j);
            const QString text = plot->cellLabel(i, j);
            const bool blocked = (d.blocked.size() && d.blocked(i, j)) || !std::isfinite(d.values(i, j));
            if (blocked) {
                QVERIFY2(plot->cellHatched(i, j), qPrintable(where + QStringLiteral(": not hatched")));
                QVERIFY2(text != QStringLiteral("0"), qPrintable(where + QStringLiteral(": a bare 0")));
                continue;
            }
            QVERIFY2(!plot->cellHatched(i, j), qPrintable(where));
            bool ok = false;
            const double shown = QString(text).replace(QChar(0x2212), QLatin1Char('-')).toDouble(&ok);
            QVERIFY2(ok, qPrintable(where + QStringLiteral(": \"") + text + QLatin1Char('"')));
            QVERIFY2(std::abs(shown - d.values(i, j)) <= 0.5 * std::pow(10.0, -decimals) + 1e-12,
                     qPrintable(where + QStringLiteral(": ") + text + QStringLiteral(" for ") + test::num(d.values(i, j))));
        }
}

// The smallest and largest finite open value of a map.
std::pair<double, double> openRange(const HeatmapData &d)
{
    double lo = INFINITY, hi = -INFINITY;
    for (Eigen::Index i = 0; i < d.values.rows(); ++i)
        for (Eigen::Index j = 0; j < d.values.cols(); ++j)
            if (std::isfinite(d.values(i, j)) && !(d.blocked.size() && d.blocked(i, j))) {
                lo = std::min(lo, d.values(i, j));
                hi = std::max(hi, d.values(i, j));
            }
    return {lo, hi};
}

} // namespace

class TestModelMaps : public QObject {
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
        QVERIFY(m_window->modelMode());
        ModelView *mv = m_window->modelView();
        mv->setText(QStringLiteral("say cat red box . say cat red"));
        mv->setHead(1, 0); // the induction head of the built-in model
        QVERIFY(mv->trace() && mv->trace()->ids.size() <= 8);
        QCoreApplication::processEvents();
    }

    void cleanup() { m_window.reset(); }

    void modelModeMapsShowTheirNumbers_data() { stageRows(); }
    void modelModeMapsShowTheirNumbers()
    {
        QFETCH(int, stage);
        checkCellTexts(m_window->modelView()->stagePlot(Stage(stage)));
    }

    // Each stage on its own range: a diverging map's half-range is the
    // largest |value| of its own open cells (so it holds [min, max] and
    // meets one end), the weights' 0..1 hold theirs and meet 1.
    void modelModeRangesAreEachStages()
    {
        ModelView *mv = m_window->modelView();
        for (Stage stage : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output}) {
            const HeatmapPlot *plot = mv->stagePlot(stage);
            const auto [lo, hi] = openRange(plot->data());
            const QCPRange r = plot->dataRange();
            QVERIFY2(r.lower <= lo && hi <= r.upper, qPrintable(plot->objectName()));
            if (stage == Stage::Weights) {
                ATTN_COMPARE_NEAR(hi, 1.0, 1e-12); // the first row is all on its one key
                QCOMPARE(r.lower, 0.0);
                QCOMPARE(r.upper, 1.0);
            } else {
                ATTN_COMPARE_NEAR(r.upper, std::max(std::abs(lo), std::abs(hi)), 1e-12);
                ATTN_COMPARE_NEAR(r.lower, -r.upper, 1e-12);
            }
        }
        // The scaled scores are the scores ÷ √32: so are their ranges.
        ATTN_COMPARE_NEAR(mv->stagePlot(Stage::Scaled)->dataRange().upper,
                          mv->stagePlot(Stage::Scores)->dataRange().upper / std::sqrt(32.0), 1e-9);
    }

    void takenHeadShowsItsNumbers_data() { stageRows(); }
    void takenHeadShowsItsNumbers()
    {
        QFETCH(int, stage);
        MainWindow &w = *m_window;
        QTest::mouseClick(w.modelView()->takeButton(), Qt::LeftButton);
        QVERIFY(!w.modelMode());
        QCoreApplication::processEvents();
        // The layout may put the scaled and masked maps in tabs: the one asked for in front.
        w.showStage(Stage(stage));
        QCoreApplication::processEvents();
        checkCellTexts(w.stageView(Stage(stage)));
        // With the causal mask off every cell is open, and writes its number.
        Scenario open = w.document()->scenario();
        open.mask.causal = false;
        QVERIFY(!w.document()->edit(open, QStringLiteral("causal off")));
        QCoreApplication::processEvents();
        w.showStage(Stage(stage));
        QCoreApplication::processEvents();
        checkCellTexts(w.stageView(Stage(stage)));
    }

    // In the lab the three score maps may share one range (a View choice, so
    // that scaling visibly shrinks them): then each colour bar says so. Without
    // it the scaled map's range is its own, ÷√d_k of the scores', not ±scores'.
    void takenHeadScaledRangeIsItsOwnOrSaid()
    {
        MainWindow &w = *m_window;
        QTest::mouseClick(w.modelView()->takeButton(), Qt::LeftButton);
        QCoreApplication::processEvents();
        const Scenario &taken = w.document()->scenario();
        QCOMPARE(int(taken.mode), int(InputMode::Direct));
        const int dk = int(taken.Q.cols()) / taken.heads;
        QVERIFY(dk > 1);
        for (bool shared : {true, false}) {
            for (Stage s : {Stage::Scores, Stage::Scaled, Stage::Masked})
                w.stageView(s)->setSharedScoreRange(shared);
            QCoreApplication::processEvents();
            for (Stage s : {Stage::Scores, Stage::Scaled, Stage::Masked}) {
                w.showStage(s);
                QCoreApplication::processEvents();
                const HeatmapPlot *plot = w.stageView(s);
                QCOMPARE(plot->data().colorBarLabel.contains(QStringLiteral("shared scale")), shared);
                const auto [lo, hi] = openRange(plot->data());
                const QCPRange r = plot->dataRange();
                QVERIFY2(r.lower <= lo && hi <= r.upper, qPrintable(plot->objectName()));
                // Its own: the range meets its own largest |value|. The lab's
                // masked map keeps the scaled map's range (scoreRange), so an
                // open cell has one colour in both; a blocked cell may hold the largest.
                if (!shared && s != Stage::Masked)
                    ATTN_COMPARE_NEAR(r.upper, std::max(std::abs(lo), std::abs(hi)), 1e-12);
                if (!shared && s == Stage::Masked)
                    ATTN_COMPARE_NEAR(r.upper, w.stageView(Stage::Scaled)->dataRange().upper, 1e-12);
            }
            if (!shared)
                ATTN_COMPARE_NEAR(w.stageView(Stage::Scaled)->dataRange().upper,
                                  w.stageView(Stage::Scores)->dataRange().upper / std::sqrt(double(dk)), 1e-9);
        }
    }

private:
    static void stageRows()
    {
        QTest::addColumn<int>("stage");
        QTest::newRow("scores") << int(Stage::Scores);
        QTest::newRow("scaled") << int(Stage::Scaled);
        QTest::newRow("masked") << int(Stage::Masked);
        QTest::newRow("weights") << int(Stage::Weights);
    }
    QTemporaryDir m_settings;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestModelMaps)
#include "test_modelmaps.moc"
