// A map read with a screen reader: what QAccessible (and through it Orca,
// over AT-SPI) gets from a HeatmapPlot: a table whose headers are the
// tokens, whose cells say their value or "blocked" and carry the hand
// calculation as their description, and whose current cell the keyboard
// moves. (The focus event itself goes out only while an assistive tool is
// attached, QAccessible::isActive(), which the offscreen platform never is:
// what a tool asks on it, the table's focusChild() and the cell's focused
// state, is tested instead.)

#include "attention.h"
#include "heatmapaccessible.h"
#include "heatmapplot.h"
#include "numbers.h"
#include "stagedata.h"

#include <QAccessible>
#include <QApplication>
#include <QSignalSpy>
#include <QTest>

using namespace attn;

namespace {

// Three tokens with a causal mask: the cells above the diagonal are blocked.
Scenario causalScenario()
{
    Scenario s;
    s.tokens = {"我", "打", "你"};
    s.Q = Matrix{{1.0, 0.0}, {0.5, -2.0}, {0.0, 1.5}};
    s.K = Matrix{{2.0, 1.0}, {-1.0, 0.5}, {0.25, 0.0}};
    s.V = Matrix{{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}};
    s.mask.causal = true;
    return s;
}

} // namespace

class TestAccessibility : public QObject {
    Q_OBJECT

private slots:
    void mapIsATableOfTokens()
    {
        const Scenario s = causalScenario();
        const Trace t = compute(s);
        HeatmapPlot plot;
        plot.setData(stageData(s, t, Stage::Weights, StageOptions{}));
        plot.setToolTipProvider([&](int r, int c) { return cellToolTip(s, t, Stage::Weights, 0, r, c); });

        QAccessibleInterface *iface = QAccessible::queryAccessibleInterface(&plot);
        QVERIFY(iface);
        QCOMPARE(iface->role(), QAccessible::Table);
        QAccessibleTableInterface *table = iface->tableInterface();
        QVERIFY(table);
        QCOMPARE(table->rowCount(), 3);
        QCOMPARE(table->columnCount(), 3);
        QCOMPARE(iface->childCount(), 9);
        QCOMPARE(iface->text(QAccessible::Name), plot.data().title.simplified());
        for (int i = 0; i < 3; ++i) {
            const QString token = QString::fromStdString(s.tokens[std::size_t(i)]);
            QCOMPARE(table->rowDescription(i), token);
            QCOMPARE(table->columnDescription(i), token);
        }
        const HeadTrace &h = t.heads[0];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                QAccessibleInterface *cell = table->cellAt(i, j);
                QVERIFY(cell);
                QCOMPARE(cell->role(), QAccessible::Cell);
                QAccessibleTableCellInterface *ci = cell->tableCellInterface();
                QVERIFY(ci);
                QCOMPARE(ci->rowIndex(), i);
                QCOMPARE(ci->columnIndex(), j);
                QCOMPARE(ci->table(), iface);
                QCOMPARE(ci->rowHeaderCells().size(), 1);
                QCOMPARE(ci->columnHeaderCells().size(), 1);
                QCOMPARE(ci->rowHeaderCells()[0]->text(QAccessible::Name), QString::fromStdString(s.tokens[std::size_t(i)]));
                QCOMPARE(ci->rowHeaderCells()[0]->role(), QAccessible::RowHeader);
                QCOMPARE(ci->columnHeaderCells()[0]->text(QAccessible::Name), QString::fromStdString(s.tokens[std::size_t(j)]));
                QCOMPARE(ci->columnHeaderCells()[0]->role(), QAccessible::ColumnHeader);
                // The child index a focus event names is the same cell.
                QCOMPARE(iface->indexOfChild(cell), i * 3 + j);
                QCOMPARE(iface->child(i * 3 + j), cell);
                QCOMPARE(table->cellAt(i, j), cell); // one interface a cell, not one a call
                // Causal: key j after query i is blocked; the rest say their weight.
                const QString expected = j > i ? QStringLiteral("blocked")
                                               : QString::fromStdString(formatFixed(h.weights(i, j), 4, Minus::Ascii));
                QCOMPARE(cell->text(QAccessible::Name), expected);
                QCOMPARE(cell->text(QAccessible::Value), expected);
                // The description is the hand calculation, the tooltip's text.
                const QString hand = cellToolTip(s, t, Stage::Weights, 0, i, j);
                QVERIFY(!hand.isEmpty());
                QCOMPARE(cell->text(QAccessible::Description), hand);
                if (j <= i)
                    QVERIFY2(hand.contains(QString::fromStdString(fixed4(h.weights(i, j), Minus::Typographic))), qPrintable(hand));
            }
        // Out of the table: nothing, not a crash.
        QVERIFY(!table->cellAt(3, 0));
        QVERIFY(!table->cellAt(0, -1));
        QVERIFY(!iface->child(9));
    }

    // Predict, then reveal: a hidden map tells a screen reader nothing either.
    void hiddenMapSaysNothing()
    {
        const Scenario s = causalScenario();
        const Trace t = compute(s);
        HeatmapPlot plot;
        plot.setData(stageData(s, t, Stage::Weights, StageOptions{}));
        plot.setToolTipProvider([&](int r, int c) { return cellToolTip(s, t, Stage::Weights, 0, r, c); });
        plot.setValuesHidden(true);
        QAccessibleTableInterface *table = QAccessible::queryAccessibleInterface(&plot)->tableInterface();
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                QCOMPARE(table->cellAt(i, j)->text(QAccessible::Value), QStringLiteral("hidden"));
                QCOMPARE(table->cellAt(i, j)->text(QAccessible::Description), QString());
            }
        plot.setValuesHidden(false);
        QCOMPARE(table->cellAt(1, 0)->text(QAccessible::Value),
                 QString::fromStdString(formatFixed(t.heads[0].weights(1, 0), 4, Minus::Ascii)));
    }

    void keyboardMovesTheFocusedCell()
    {
        const Scenario s = causalScenario();
        const Trace t = compute(s);
        HeatmapPlot plot;
        plot.setData(stageData(s, t, Stage::Weights, StageOptions{}));
        plot.resize(500, 400);
        plot.show();
        plot.activateWindow();
        plot.setFocus();
        QTRY_VERIFY(plot.hasFocus());
        QAccessibleInterface *iface = QAccessible::queryAccessibleInterface(&plot);
        QSignalSpy moved(&plot, &HeatmapPlot::currentCellChanged);
        QCOMPARE(plot.currentRow(), -1);
        // The first key lands on the first cell; then each arrow moves one cell, clamped at the edges.
        const struct {
            Qt::Key key;
            int row, col;
        } moves[] = {{Qt::Key_Right, 0, 0}, {Qt::Key_Right, 0, 1}, {Qt::Key_Down, 1, 1}, {Qt::Key_End, 1, 2},
                     {Qt::Key_Right, 1, 2}, {Qt::Key_PageDown, 2, 2}, {Qt::Key_Home, 2, 0}, {Qt::Key_Up, 1, 0}};
        int events = 0;
        for (const auto &m : moves) {
            const int before = plot.currentRow() * 3 + plot.currentColumn();
            QTest::keyClick(&plot, m.key);
            QCOMPARE(plot.currentRow(), m.row);
            QCOMPARE(plot.currentColumn(), m.col);
            QAccessibleInterface *cell = iface->tableInterface()->cellAt(m.row, m.col);
            QCOMPARE(iface->focusChild(), cell);
            QVERIFY(cell->state().focused);
            // The cell the focus event names (child r * columns + c) is this one.
            QCOMPARE(iface->child(m.row * 3 + m.col), cell);
            if (m.row * 3 + m.col != before) {
                ++events;
                QCOMPARE(moved.size(), events);
                QCOMPARE(moved.last().at(0).toInt(), m.row);
                QCOMPARE(moved.last().at(1).toInt(), m.col);
            } else {
                QCOMPARE(moved.size(), events); // against the edge: nothing moved, nothing said
            }
            // Only the current cell is focused.
            QCOMPARE(iface->tableInterface()->cellAt((m.row + 1) % 3, m.col)->state().focused, false);
        }
        // A new shape: the table follows, and the current cell is dropped if it is gone.
        Scenario two = s;
        two.tokens = {"a", "b"};
        two.Q.conservativeResize(2, 2);
        two.K.conservativeResize(2, 2);
        two.V.conservativeResize(2, 2);
        plot.setData(stageData(two, compute(two), Stage::Weights, StageOptions{}));
        QCOMPARE(iface->tableInterface()->rowCount(), 2);
        QCOMPARE(iface->tableInterface()->columnDescription(1), QStringLiteral("b"));
        QCOMPARE(iface->tableInterface()->cellAt(1, 0)->text(QAccessible::Name),
                 QString::fromStdString(formatFixed(compute(two).heads[0].weights(1, 0), 4, Minus::Ascii)));
        QCOMPARE(plot.currentRow(), 1); // (1, 0) is still there
    }
};

QTEST_MAIN(TestAccessibility)
#include "test_accessibility.moc"
