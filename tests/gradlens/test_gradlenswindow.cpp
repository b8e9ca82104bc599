// The gradient lens in the real window (offscreen): its maps hold
// core/backward.h's numbers for the loss chosen, follow an edit at once
// together with the plane's arrow, say why where a gradient is undefined;
// Step lowers the loss as one undo step; Descend lowers it at every step,
// ends by itself or on Stop, and is one undo step. No fixed waits: QTRY_.

#include "attn_test.h"
#include "lesson_test.h"

#include "gradientlens.h"
#include "gradientmode.h"
#include "gradientpanel.h"
#include "gradlens.h"
#include "heatmapplot.h"
#include "mainwindow.h"
#include "planepanel.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;
using attn::test::lesson;

class TestGradLensWindow : public QObject {
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
        QAction *action = m_window->findChild<QAction *>(QStringLiteral("gradientLensAction"));
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
        action->trigger();
        QTRY_VERIFY(mode()->dock()->isVisible());
    }
    void cleanup() { m_window.reset(); }

    // View ▸ Gradient lens: the dock and the plane beside it, arrows on.
    void menuShowsLensAndPlane()
    {
        QCOMPARE(m_window->sideTabs()->currentWidget(), static_cast<QWidget *>(plane()));
        QVERIFY(mode()->lens()->arrowsShown());
        QCOMPARE(plane()->scene().arrows.size(), std::size_t(1));
    }

    // Seed 000, "make every query attend to" key 1: the maps are backward's.
    void mapsAreBackwardsNumbers()
    {
        const Scenario &s = doc()->scenario();
        const Gradients g = gradients(s, AttendLoss{0}).value();
        QCOMPARE(panel()->mapOf(GradientPanel::Map::Weights)->data().values, g.heads[0].weights);
        QCOMPARE(panel()->mapOf(GradientPanel::Map::Scores)->data().values, g.heads[0].scores);
        QCOMPARE(panel()->mapOf(GradientPanel::Map::Input, MatrixId::Q)->data().values, *g.of(MatrixId::Q));
        QCOMPARE(panel()->mapOf(GradientPanel::Map::Input, MatrixId::K)->data().values, *g.of(MatrixId::K));
        QCOMPARE(panel()->mapOf(GradientPanel::Map::Input, MatrixId::V)->data().values, *g.of(MatrixId::V));
        // The Jacobian at w = 0.7679, 0.0454, 0.1867, by hand:
        //   0.7679·0.2321 = 0.17823, −0.7679·0.0454 = −0.03486, −0.7679·0.1867 = −0.14337,
        //   0.0454·0.9546 = 0.04334, −0.0454·0.1867 = −0.00848, 0.1867·0.8133 = 0.15184.
        const Matrix hand = (Matrix(3, 3) << 0.17823, -0.03486, -0.14337, -0.03486, 0.04334, -0.00848, -0.14337,
                             -0.00848, 0.15184)
                                .finished();
        if (auto bad = test::matrixMismatch(panel()->mapOf(GradientPanel::Map::Jacobian)->data().values, hand, 0, 2e-4))
            QFAIL(qPrintable(*bad));
        // L = −ln 0.7679 = 0.2641, in the sentence.
        QVERIFY2(panel()->lossText().contains(QStringLiteral("= 0.2641")), qPrintable(panel()->lossText()));
        // Hovering a cell: its hand calculation.
        HeatmapPlot *jac = panel()->mapOf(GradientPanel::Map::Jacobian);
        QVERIFY2(jac->toolTipAt(0, 0).contains(QStringLiteral("0.7679·(1 − 0.7679) = 0.1782")), qPrintable(jac->toolTipAt(0, 0)));
        const QString dq = panel()->mapOf(GradientPanel::Map::Input, MatrixId::Q)->toolTipAt(0, 0);
        QVERIFY2(dq.contains(QStringLiteral("= −0.1962")), qPrintable(dq));
        QVERIFY(panel()->problemText().isEmpty());
    }

    // Another loss, picked in the sentence: the maps follow.
    void otherLossFromTheSentence()
    {
        panel()->kindBox()->setCurrentIndex(1);
        emit panel()->kindBox()->activated(1);
        panel()->tokenBox()->setCurrentIndex(2);
        emit panel()->tokenBox()->activated(2);
        const Trace &t = doc()->trace();
        const Loss loss = targetTowardsToken(doc()->scenario(), t, 0, 2);
        const Gradients g = backward(doc()->scenario(), t, loss).value();
        QTRY_COMPARE(panel()->mapOf(GradientPanel::Map::Weights)->data().values, g.heads[0].weights);
        QCOMPARE(panel()->mapOf(GradientPanel::Map::Input, MatrixId::V)->data().values, *g.of(MatrixId::V));
        QVERIFY(std::abs(*mode()->lens()->lossNow() - g.loss) < 1e-15);
    }

    // An edit: the maps and the plane's arrow follow at once (no event loop between).
    void followsAnEditAtOnce()
    {
        QVERIFY(!doc()->setRow(MatrixId::Q, 0, Eigen::RowVector2d(1, 1), QStringLiteral("edit")));
        const Gradients g = gradients(doc()->scenario(), AttendLoss{0}).value();
        QCOMPARE(panel()->mapOf(GradientPanel::Map::Input, MatrixId::Q)->data().values, *g.of(MatrixId::Q));
        const PlaneScene &sc = plane()->scene();
        QCOMPARE(sc.arrows.size(), std::size_t(1));
        QVERIFY((sc.arrows[0].step + g.of(MatrixId::Q)->row(0).transpose()).norm() < 1e-15);
    }

    // The cosine of a zero query: said in words, no maps, no arrow, no NaN.
    void undefinedGradientIsSaid()
    {
        Scenario s = doc()->scenario();
        s.similarity = Similarity::Cosine;
        s.Q.setZero();
        QVERIFY(!doc()->edit(s, QStringLiteral("zero")));
        const QString text = panel()->problemText();
        QVERIFY2(text.contains(QStringLiteral("zero vector")), qPrintable(text));
        QVERIFY(!text.contains(QStringLiteral("nan"), Qt::CaseInsensitive));
        for (const GradientPanel::MapView &m : panel()->maps())
            QVERIFY(m.plot->isHidden());
        QVERIFY(panel()->maps().empty());
        QVERIFY(plane()->scene().arrows.empty());
        QVERIFY(!panel()->step()); // nothing to step on
    }

    // Step: −η∇ on the query, the loss falls, one undo step, undone exactly.
    void stepLowersLossAndUndoes()
    {
        const Scenario before = doc()->scenario();
        const double l0 = *mode()->lens()->lossNow();
        const int count = doc()->undoStack()->count();
        panel()->setLearningRate(0.5);
        const Gradients g = gradients(before, AttendLoss{0}).value();
        QVERIFY(panel()->step());
        // q = (2, 0) − 0.5·(−0.1962, 0.1962) = (2.0981, −0.0981).
        const Eigen::RowVectorXd q = doc()->scenario().Q.row(0);
        QVERIFY((q - (before.Q.row(0) - 0.5 * g.of(MatrixId::Q)->row(0))).norm() < 1e-15);
        QVERIFY(std::abs(q(0) - 2.0981) < 1e-4 && std::abs(q(1) + 0.0981) < 1e-4);
        QVERIFY(*mode()->lens()->lossNow() < l0);
        QCOMPARE(doc()->undoStack()->count(), count + 1);
        doc()->undo();
        QVERIFY(doc()->scenario() == before);
        QCOMPARE(doc()->scenario().Q, before.Q);
    }

    // Descend: falls at every step, ends by itself, one undo step.
    void descendFallsAndIsOneUndoStep()
    {
        // "Make every query attend to" key 2 (0, 2): q swings from (2, 0) towards it.
        panel()->tokenBox()->setCurrentIndex(1);
        emit panel()->tokenBox()->activated(1);
        const Scenario before = doc()->scenario();
        const int count = doc()->undoStack()->count();
        panel()->setLearningRate(1.0);
        panel()->setMaxSteps(40);
        QSignalSpy finished(panel(), &GradientPanel::descentFinished);
        panel()->descend();
        QVERIFY(panel()->isDescending());
        QTRY_VERIFY_WITH_TIMEOUT(!panel()->isDescending(), 30000);
        QCOMPARE(finished.count(), 1);
        const std::vector<double> &h = panel()->history();
        QVERIFY(h.size() >= 3);
        QCOMPARE(int(h.size()), panel()->descentSteps() + 1);
        QVERIFY(panel()->descentSteps() <= 40);
        for (std::size_t i = 1; i < h.size(); ++i)
            QVERIFY2(h[i] < h[i - 1], qPrintable(QStringLiteral("step %1: %2 → %3").arg(i).arg(h[i - 1]).arg(h[i])));
        QVERIFY(std::abs(h.back() - *mode()->lens()->lossNow()) < 1e-15);
        // The weight on key 2 grew (0.0454 at the start).
        QVERIFY(doc()->trace().heads[0].weights(0, 1) > 0.3);
        // q turned towards k2: its second coordinate grew.
        QVERIFY(doc()->scenario().Q(0, 1) > 0.5);
        QCOMPARE(doc()->undoStack()->count(), count + 1);
        QVERIFY(!doc()->inGesture());
        doc()->undo();
        QVERIFY(doc()->scenario() == before);
    }

    // A descent that reaches its tolerance ends by itself before the limit.
    void descendSettlesOnTolerance()
    {
        panel()->setLearningRate(1.0);
        panel()->setMaxSteps(10000);
        panel()->setTolerance(0.05); // 5 % a step: reached soon
        panel()->descend();
        QTRY_VERIFY_WITH_TIMEOUT(!panel()->isDescending(), 30000);
        const std::vector<double> &h = panel()->history();
        QVERIFY(panel()->descentSteps() < 10000);
        QVERIFY(descentSettled(h[h.size() - 2], h.back(), 0.05));
    }

    // Stop at any time: what was done stays, one undo step; Ctrl+Z undoes it all.
    void stopKeepsOneUndoStep()
    {
        const Scenario before = doc()->scenario();
        const int count = doc()->undoStack()->count();
        panel()->setLearningRate(0.05);
        panel()->setMaxSteps(10000);
        panel()->setTolerance(0);
        panel()->descend();
        QTRY_VERIFY(panel()->history().size() >= 4);
        QVERIFY(panel()->isDescending());
        QVERIFY(!panel()->stepButton()->isEnabled());
        panel()->descendButton()->click(); // ■ Stop
        QVERIFY(!panel()->isDescending());
        QVERIFY(!(doc()->scenario() == before));
        QCOMPARE(doc()->undoStack()->count(), count + 1);
        doc()->undo();
        QVERIFY(doc()->scenario() == before);
        // Ctrl+Z in the middle of a descent cancels it, nothing left.
        panel()->descend();
        QTRY_VERIFY(panel()->history().size() >= 3);
        doc()->undo();
        QVERIFY(!panel()->isDescending());
        QVERIFY(doc()->scenario() == before);
        QCOMPARE(doc()->undoStack()->count(), count);
    }

    // With Drag keys, Step moves the selected key by −η ∂L/∂k.
    void stepMovesTheSelectedKey()
    {
        plane()->setKeysDraggable(true);
        plane()->tool()->selectKey(1); // the first key
        QCOMPARE(plane()->selectedVector(), (PlaneTarget{PlaneRole::Key, 0}));
        QCOMPARE(plane()->scene().arrows.size(), std::size_t(4));
        const Scenario before = doc()->scenario();
        const Gradients g = gradients(before, AttendLoss{0}).value();
        panel()->setLearningRate(1.0);
        QVERIFY(panel()->step());
        QVERIFY((doc()->scenario().K.row(0) - (before.K.row(0) - g.of(MatrixId::K)->row(0))).norm() < 1e-15);
        QCOMPARE(doc()->scenario().Q, before.Q);
    }

private:
    GradientMode *mode() const { return m_window->gradientMode(); }
    GradientPanel *panel() const { return mode()->panel(); }
    PlanePanel *plane() const { return m_window->findChild<PlanePanel *>(); }
    Document *doc() const { return m_window->document(); }

    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_settings;
};

QTEST_MAIN(TestGradLensWindow)
#include "test_gradlenswindow.moc"
