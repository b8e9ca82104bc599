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
        for (QAction *a : actions.sparseMasks()->actions())
            QVERIFY(!a->isChecked());
        QVERIFY(bar.sparseButton()->text().contains(SettingsActions::name(SparsePreset::Custom)));
        // The width changes the window and keeps the blocks.
        bar.widthBox()->setValue(3);
        QCOMPARE(doc.scenario().mask.window, 3);
        QCOMPARE(doc.scenario().mask.block, 4);
        QCOMPARE(doc.undoStack()->count(), 1);
    }
};

QTEST_MAIN(TestMaskBar)
#include "test_maskbar.moc"
