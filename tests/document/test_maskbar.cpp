// The sparse mask in the settings bar: each preset and each width is one
// settings command, undone in one step, named in the undo history; the bar
// follows the document (a file's own pattern, an undo).

#include "attn_test.h"
#include "lesson_test.h"
#include "settingsactions.h"
#include "settingsbar.h"

#include <QMenu>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>
#include <QUndoStack>

using namespace attn;

namespace {

// The width box's place in the bar is shown.
bool widthShown(SettingsBar &bar)
{
    for (QAction *a : bar.actions())
        if (bar.widgetForAction(a) == bar.widthBox())
            return a->isVisible();
    return false;
}

} // namespace

class TestMaskBar : public QObject {
    Q_OBJECT

private slots:
    void presetsAndWidthAreOneStepEach()
    {
        Document doc;
        QVERIFY(!doc.replace(test::lesson(QStringLiteral("causal")), QString()).has_value());
        SettingsActions actions(&doc);
        SettingsBar bar(&doc, &actions);
        QSpinBox *w = bar.widthBox();
        QVERIFY(!widthShown(bar)); // a full mask has no width

        SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Window))->trigger();
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.scenario().mask.window, 2);
        QVERIFY(doc.scenario().mask.causal); // kept
        QVERIFY(widthShown(bar));
        QCOMPARE(w->value(), 2);
        QVERIFY(bar.sparseButton()->text().contains(SettingsActions::name(SparsePreset::Window)));

        w->setValue(3);
        QCOMPARE(doc.undoStack()->count(), 2);
        QCOMPARE(doc.scenario().mask.window, 3);
        QVERIFY(doc.undoStack()->undoText().contains(QStringLiteral("w = 3")));

        // Blocks of the same width; the window goes.
        SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Block))->trigger();
        QCOMPARE(doc.scenario().mask.block, 3);
        QCOMPARE(doc.scenario().mask.window, 0);
        SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::GlobalWindow))->trigger();
        QCOMPARE(doc.scenario().mask.window, 3);
        QCOMPARE(doc.scenario().mask.global, std::vector<int>{0});
        SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Full))->trigger();
        QVERIFY(!doc.scenario().mask.sparse());
        QVERIFY(doc.scenario().mask.global.empty());
        QCOMPARE(doc.undoStack()->count(), 5);

        // Undo walks back one preset at a time, and the bar follows.
        doc.undo();
        QCOMPARE(sparsePresetOf(doc.scenario().mask), SparsePreset::GlobalWindow);
        QVERIFY(SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::GlobalWindow))->isChecked());
        doc.undo();
        doc.undo();
        QCOMPARE(doc.scenario().mask.window, 3);
        QCOMPARE(w->value(), 3);
        doc.undo();
        doc.undo();
        QVERIFY(doc.scenario() == test::lesson(QStringLiteral("causal")));
        QVERIFY(!widthShown(bar));
    }

    void crossAttentionOffersOnlyFull()
    {
        Document doc;
        QVERIFY(!doc.replace(test::lesson(QStringLiteral("cross-attention")), QString()).has_value());
        SettingsActions actions(&doc);
        QVERIFY(SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Full))->isEnabled());
        QVERIFY(!SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Window))->isEnabled());
    }

    void aFilesOwnPatternIsCustom()
    {
        Scenario s = test::lesson(QStringLiteral("causal"));
        s.mask.window = 2;
        s.mask.block = 4;
        Document doc;
        QVERIFY(!doc.replace(s, QString()).has_value());
        SettingsActions actions(&doc);
        SettingsBar bar(&doc, &actions);
        // Only Custom is checked, and it cannot be picked.
        QAction *custom = SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Custom));
        QCOMPARE(actions.sparseMasks()->checkedAction(), custom);
        QVERIFY(!custom->isEnabled());
        custom->trigger();
        QCOMPARE(doc.undoStack()->count(), 0);
        QVERIFY(bar.sparseButton()->text().contains(SettingsActions::name(SparsePreset::Custom)));
        // The width changes the window and keeps the blocks.
        bar.widthBox()->setValue(3);
        QCOMPARE(doc.scenario().mask.window, 3);
        QCOMPARE(doc.scenario().mask.block, 4);
        QCOMPARE(doc.undoStack()->count(), 1);
        // Wider and narrower change the same window, one step each.
        actions.widerWindow()->trigger();
        QCOMPARE(doc.scenario().mask.window, 4);
        QCOMPARE(doc.scenario().mask.block, 4);
        QCOMPARE(doc.undoStack()->count(), 2);
        QCOMPARE(bar.widthBox()->value(), 4);
        QCOMPARE(actions.sparseMasks()->checkedAction(), custom);
    }

    // Attention ▸ Sparse mask: the presets are exclusive and follow the
    // document; wider and narrower move w by one, an undo step each, and
    // stop where the width would change nothing.
    void widerAndNarrowerAreOneStepEach()
    {
        Document doc;
        const Scenario causal = test::lesson(QStringLiteral("causal"));
        QVERIFY(!doc.replace(causal, QString()).has_value());
        const int n = queryCount(causal);
        QVERIFY(n >= 3);
        SettingsActions actions(&doc);
        QVERIFY(actions.sparseMasks()->isExclusive());
        QCOMPARE(actions.sparseMasks()->actions().size(), 6);
        QCOMPARE(actions.sparseMasks()->checkedAction(), SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Full)));
        // A full mask has no width to change.
        QVERIFY(!actions.widerWindow()->isEnabled());
        QVERIFY(!actions.narrowerWindow()->isEnabled());
        QCOMPARE(actions.widerWindow()->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Right));
        QCOMPARE(actions.narrowerWindow()->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Left));

        SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Window))->trigger();
        QCOMPARE(doc.scenario().mask.window, 2);
        QVERIFY(actions.narrowerWindow()->isEnabled());
        actions.narrowerWindow()->trigger();
        QCOMPARE(doc.scenario().mask.window, 1);
        QCOMPARE(doc.undoStack()->count(), 2);
        QCOMPARE(doc.undoStack()->undoText(), SettingsActions::tr("Mask: %1, w = %2").arg(SettingsActions::name(SparsePreset::Window)).arg(1));
        QVERIFY(!actions.narrowerWindow()->isEnabled()); // w = 1 is the narrowest
        // Up to W = n: past it the window already sees every key.
        for (int w = 2; w <= n; ++w) {
            QVERIFY2(actions.widerWindow()->isEnabled(), qPrintable(QStringLiteral("w = %1, n = %2").arg(w - 1).arg(n)));
            actions.widerWindow()->trigger();
            QCOMPARE(doc.scenario().mask.window, w);
        }
        QVERIFY(!actions.widerWindow()->isEnabled());
        QCOMPARE(doc.undoStack()->count(), 2 + n - 1);
        QVERIFY(doc.scenario().mask.causal); // kept
        QCOMPARE(sparsePresetOf(doc.scenario().mask), SparsePreset::Window);
        QVERIFY(SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Window))->isChecked());
        doc.undo();
        QCOMPARE(doc.scenario().mask.window, n - 1);
        QVERIFY(actions.widerWindow()->isEnabled());

        // Dilated by 2: W keys a side, 2 apart, reach |i − j| = 2(W − 1);
        // the farthest pair is n − 1 apart, so W = ⌊(n − 1)/2⌋ + 1 is the last that adds one.
        SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Dilated))->trigger();
        QCOMPARE(doc.scenario().mask.dilation, 2);
        const int widest = (n - 1) / 2 + 1;
        QCOMPARE(SettingsActions::usefulSparseWidth(doc.scenario().mask, n), widest);
        while (actions.widerWindow()->isEnabled())
            actions.widerWindow()->trigger();
        while (actions.narrowerWindow()->isEnabled() && doc.scenario().mask.window > widest)
            actions.narrowerWindow()->trigger();
        QCOMPARE(doc.scenario().mask.window, widest);
        // A second count: widest opens more pairs than widest − 1, and widest + 1 none more.
        auto open = [&](int w) {
            Mask m = doc.scenario().mask;
            m.window = w;
            int count = 0;
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    count += sparseOpen(m, i, j);
            return count;
        };
        QVERIFY2(open(widest) > open(widest - 1), qPrintable(QStringLiteral("%1 vs %2").arg(open(widest)).arg(open(widest - 1))));
        QCOMPARE(open(widest + 1), open(widest));

        // Blocks: the same two actions change B.
        SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Block))->trigger();
        const int b = doc.scenario().mask.block;
        actions.narrowerWindow()->trigger();
        QCOMPARE(doc.scenario().mask.block, b - 1);
        QCOMPARE(doc.scenario().mask.window, 0);

        // Back to full: no width, both off, and the menu's check follows an undo.
        SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Full))->trigger();
        QVERIFY(!actions.widerWindow()->isEnabled());
        doc.undo();
        QVERIFY(SettingsActions::actionFor(actions.sparseMasks(), int(SparsePreset::Block))->isChecked());
        QVERIFY(actions.narrowerWindow()->isEnabled());
    }
};

QTEST_MAIN(TestMaskBar)
#include "test_maskbar.moc"
