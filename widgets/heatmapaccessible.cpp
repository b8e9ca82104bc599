#include "heatmapaccessible.h"

#include "heatmapplot.h"
#include "numbers.h"

#include <QAccessible>
#include <QAccessibleWidget>
#include <QCoreApplication>
#include <QHash>
#include <QPointer>

#include <cmath>

namespace attn {

namespace {

bool inside(const HeatmapPlot *p, int row, int col)
{
    return p && row >= 0 && col >= 0 && row < p->rowCount() && col < p->columnCount();
}

// A token as the map labels it, in full (the map may elide it); a missing
// one is numbered from 1, as the map numbers it.
QString headerText(const HeatmapPlot *p, Qt::Orientation o, int index)
{
    const QStringList &labels = o == Qt::Horizontal ? p->data().colLabels : p->data().rowLabels;
    return index < labels.size() && !labels[index].isEmpty() ? labels[index] : QString::number(index + 1);
}

QRect globalCellRect(const HeatmapPlot *p, int row, int col)
{
    const QRect r = p->cellRect(row, col).toAlignedRect();
    return QRect(p->mapToGlobal(r.topLeft()), r.size());
}

class HeatmapAccessible;

// A token above a column or left of a row.
class HeaderCell : public QAccessibleInterface {
public:
    HeaderCell(HeatmapPlot *plot, Qt::Orientation o, int index) : m_plot(plot), m_orientation(o), m_index(index) {}

    bool isValid() const override
    {
        return m_plot && m_index >= 0
            && m_index < (m_orientation == Qt::Horizontal ? m_plot->columnCount() : m_plot->rowCount());
    }
    QObject *object() const override { return nullptr; }
    QWindow *window() const override { return m_plot ? m_plot->window()->windowHandle() : nullptr; }
    QAccessibleInterface *parent() const override { return QAccessible::queryAccessibleInterface(m_plot.data()); }
    QAccessibleInterface *child(int) const override { return nullptr; }
    QAccessibleInterface *childAt(int, int) const override { return nullptr; }
    int childCount() const override { return 0; }
    int indexOfChild(const QAccessibleInterface *) const override { return -1; }
    QString text(QAccessible::Text t) const override
    {
        if (!isValid() || t != QAccessible::Name)
            return QString();
        return headerText(m_plot, m_orientation, m_index);
    }
    void setText(QAccessible::Text, const QString &) override {}
    QRect rect() const override
    {
        if (!isValid())
            return QRect();
        const QRect first = m_orientation == Qt::Horizontal ? globalCellRect(m_plot, 0, m_index)
                                                            : globalCellRect(m_plot, m_index, 0);
        // The label sits one cell's height above the column, or one width left of the row.
        return m_orientation == Qt::Horizontal ? first.translated(0, -first.height())
                                               : first.translated(-first.width(), 0);
    }
    QAccessible::Role role() const override
    {
        return m_orientation == Qt::Horizontal ? QAccessible::ColumnHeader : QAccessible::RowHeader;
    }
    QAccessible::State state() const override
    {
        QAccessible::State s;
        s.readOnly = true;
        s.invisible = !m_plot || !m_plot->isVisible();
        return s;
    }

private:
    QPointer<HeatmapPlot> m_plot;
    Qt::Orientation m_orientation;
    int m_index;
};

// One cell: its value (Name and Value) and its hand calculation (Description).
class Cell : public QAccessibleInterface, public QAccessibleTableCellInterface {
public:
    Cell(HeatmapPlot *plot, const HeatmapAccessible *table, int row, int col)
        : m_plot(plot), m_table(table), m_row(row), m_col(col)
    {
    }

    bool isValid() const override { return inside(m_plot, m_row, m_col); }
    QObject *object() const override { return nullptr; }
    QWindow *window() const override { return m_plot ? m_plot->window()->windowHandle() : nullptr; }
    QAccessibleInterface *parent() const override { return QAccessible::queryAccessibleInterface(m_plot.data()); }
    QAccessibleInterface *child(int) const override { return nullptr; }
    QAccessibleInterface *childAt(int, int) const override { return nullptr; }
    int childCount() const override { return 0; }
    int indexOfChild(const QAccessibleInterface *) const override { return -1; }
    QString text(QAccessible::Text t) const override
    {
        if (!isValid())
            return QString();
        switch (t) {
        case QAccessible::Name:
        case QAccessible::Value:
            return accessibleCellValue(m_plot, m_row, m_col);
        case QAccessible::Description:
            return m_plot->toolTipAt(m_row, m_col);
        default:
            return QString();
        }
    }
    void setText(QAccessible::Text, const QString &) override {}
    QRect rect() const override { return isValid() ? globalCellRect(m_plot, m_row, m_col) : QRect(); }
    QAccessible::Role role() const override { return QAccessible::Cell; }
    QAccessible::State state() const override
    {
        QAccessible::State s;
        s.readOnly = true;
        s.focusable = true;
        s.invisible = !m_plot || !m_plot->isVisible();
        s.focused = m_plot && m_plot->hasFocus() && m_plot->currentRow() == m_row && m_plot->currentColumn() == m_col;
        return s;
    }
    void *interface_cast(QAccessible::InterfaceType t) override
    {
        return t == QAccessible::TableCellInterface ? static_cast<QAccessibleTableCellInterface *>(this) : nullptr;
    }

    bool isSelected() const override { return false; }
    QList<QAccessibleInterface *> columnHeaderCells() const override;
    QList<QAccessibleInterface *> rowHeaderCells() const override;
    int columnIndex() const override { return m_col; }
    int rowIndex() const override { return m_row; }
    int columnExtent() const override { return 1; }
    int rowExtent() const override { return 1; }
    QAccessibleInterface *table() const override { return parent(); }

private:
    QPointer<HeatmapPlot> m_plot;
    const HeatmapAccessible *m_table;
    int m_row, m_col;
};

// The map as a table. Its children are the cells, row by row: child
// r * columnCount() + c is cell (r, c).
class HeatmapAccessible : public QAccessibleWidget, public QAccessibleTableInterface {
public:
    explicit HeatmapAccessible(HeatmapPlot *plot) : QAccessibleWidget(plot, QAccessible::Table) {}
    ~HeatmapAccessible() override { clear(); }

    HeatmapPlot *plot() const { return static_cast<HeatmapPlot *>(widget()); }

    void *interface_cast(QAccessible::InterfaceType t) override
    {
        if (t == QAccessible::TableInterface)
            return static_cast<QAccessibleTableInterface *>(this);
        return QAccessibleWidget::interface_cast(t);
    }

    QString text(QAccessible::Text t) const override
    {
        const QString own = QAccessibleWidget::text(t);
        if (!own.isEmpty())
            return own;
        if (t == QAccessible::Name)
            return plot()->data().title.simplified();
        if (t == QAccessible::Description)
            return QCoreApplication::translate("attn::HeatmapAccessible",
                                               "%1 rows by %2 columns; the arrow keys move from cell to cell")
                .arg(rowCount())
                .arg(columnCount());
        return QString();
    }

    int childCount() const override { return rowCount() * columnCount(); }
    QAccessibleInterface *child(int index) const override
    {
        const int cols = columnCount();
        if (index < 0 || cols == 0 || index >= childCount())
            return nullptr;
        return cellAt(index / cols, index % cols);
    }
    int indexOfChild(const QAccessibleInterface *child) const override
    {
        if (!child || child->role() != QAccessible::Cell)
            return -1;
        auto *cell = const_cast<QAccessibleInterface *>(child)->tableCellInterface();
        if (!cell || cell->table() != this)
            return -1;
        return cell->rowIndex() * columnCount() + cell->columnIndex();
    }
    QAccessibleInterface *childAt(int x, int y) const override
    {
        const auto [row, col] = plot()->cellAt(QPointF(plot()->mapFromGlobal(QPoint(x, y))));
        return row >= 0 ? cellAt(row, col) : nullptr;
    }
    QAccessibleInterface *focusChild() const override
    {
        if (plot()->hasFocus() && inside(plot(), plot()->currentRow(), plot()->currentColumn()))
            return cellAt(plot()->currentRow(), plot()->currentColumn());
        return QAccessibleWidget::focusChild();
    }

    // QAccessibleTableInterface
    QAccessibleInterface *caption() const override { return nullptr; }
    QAccessibleInterface *summary() const override { return nullptr; }
    QAccessibleInterface *cellAt(int row, int column) const override
    {
        if (!inside(plot(), row, column))
            return nullptr;
        checkShape();
        const quint64 key = (quint64(quint32(row)) << 32) | quint32(column);
        if (const auto it = m_cells.constFind(key); it != m_cells.constEnd())
            return QAccessible::accessibleInterface(*it);
        auto *cell = new Cell(plot(), this, row, column);
        m_cells.insert(key, QAccessible::registerAccessibleInterface(cell));
        return cell;
    }
    QAccessibleInterface *header(Qt::Orientation o, int index) const
    {
        if (index < 0 || index >= (o == Qt::Horizontal ? columnCount() : rowCount()))
            return nullptr;
        checkShape();
        QHash<int, QAccessible::Id> &ids = o == Qt::Horizontal ? m_columnHeaders : m_rowHeaders;
        if (const auto it = ids.constFind(index); it != ids.constEnd())
            return QAccessible::accessibleInterface(*it);
        auto *h = new HeaderCell(plot(), o, index);
        ids.insert(index, QAccessible::registerAccessibleInterface(h));
        return h;
    }
    int selectedCellCount() const override { return 0; }
    QList<QAccessibleInterface *> selectedCells() const override { return {}; }
    QString columnDescription(int column) const override
    {
        return column >= 0 && column < columnCount() ? headerText(plot(), Qt::Horizontal, column) : QString();
    }
    QString rowDescription(int row) const override
    {
        return row >= 0 && row < rowCount() ? headerText(plot(), Qt::Vertical, row) : QString();
    }
    int selectedColumnCount() const override { return 0; }
    int selectedRowCount() const override { return 0; }
    int columnCount() const override { return plot()->columnCount(); }
    int rowCount() const override { return plot()->rowCount(); }
    QList<int> selectedColumns() const override { return {}; }
    QList<int> selectedRows() const override { return {}; }
    bool isColumnSelected(int) const override { return false; }
    bool isRowSelected(int) const override { return false; }
    bool selectRow(int) override { return false; }
    bool selectColumn(int) override { return false; }
    bool unselectRow(int) override { return false; }
    bool unselectColumn(int) override { return false; }
    void modelChange(QAccessibleTableModelChangeEvent *) override { clear(); }

private:
    // Cells of another shape are gone: a screen reader asking for one gets
    // a new interface for the new shape.
    void checkShape() const
    {
        if (m_rows != rowCount() || m_cols != columnCount()) {
            const_cast<HeatmapAccessible *>(this)->clear();
            m_rows = rowCount();
            m_cols = columnCount();
        }
    }
    void clear()
    {
        for (QHash<quint64, QAccessible::Id>::const_iterator it = m_cells.constBegin(); it != m_cells.constEnd(); ++it)
            QAccessible::deleteAccessibleInterface(it.value());
        for (const QHash<int, QAccessible::Id> *ids : {&m_rowHeaders, &m_columnHeaders})
            for (QAccessible::Id id : *ids)
                QAccessible::deleteAccessibleInterface(id);
        m_cells.clear();
        m_rowHeaders.clear();
        m_columnHeaders.clear();
    }

    mutable QHash<quint64, QAccessible::Id> m_cells;
    mutable QHash<int, QAccessible::Id> m_rowHeaders, m_columnHeaders;
    mutable int m_rows = -1, m_cols = -1;
};

QList<QAccessibleInterface *> Cell::columnHeaderCells() const
{
    QAccessibleInterface *h = isValid() ? m_table->header(Qt::Horizontal, m_col) : nullptr;
    return h ? QList<QAccessibleInterface *>{h} : QList<QAccessibleInterface *>{};
}

QList<QAccessibleInterface *> Cell::rowHeaderCells() const
{
    QAccessibleInterface *h = isValid() ? m_table->header(Qt::Vertical, m_row) : nullptr;
    return h ? QList<QAccessibleInterface *>{h} : QList<QAccessibleInterface *>{};
}

QAccessibleInterface *heatmapFactory(const QString &, QObject *object)
{
    if (auto *plot = qobject_cast<HeatmapPlot *>(object))
        return new HeatmapAccessible(plot);
    return nullptr;
}

} // namespace

void installHeatmapAccessibility()
{
    static const bool installed = [] {
        QAccessible::installFactory(heatmapFactory);
        return true;
    }();
    (void)installed;
}

QString accessibleCellValue(const HeatmapPlot *plot, int row, int col)
{
    if (!inside(plot, row, col))
        return QString();
    if (!plot->valuesDrawn())
        //: What a screen reader says for a cell while the answers are hidden.
        return QCoreApplication::translate("attn::HeatmapAccessible", "hidden");
    const HeatmapData &d = plot->data();
    if (d.blocked.rows() == plot->rowCount() && d.blocked.cols() == plot->columnCount() && d.blocked(row, col))
        //: What a screen reader says for a blocked cell of a map.
        return QCoreApplication::translate("attn::HeatmapAccessible", "blocked");
    // Read aloud, not looked at: the ASCII minus, which every speech
    // synthesiser says as "minus".
    return QString::fromStdString(fixed4(d.values(row, col), Minus::Ascii));
}

void notifyHeatmapCurrentCell(HeatmapPlot *plot)
{
    if (!QAccessible::isActive() || !inside(plot, plot->currentRow(), plot->currentColumn()))
        return;
    QAccessibleEvent event(plot, QAccessible::Focus);
    event.setChild(plot->currentRow() * plot->columnCount() + plot->currentColumn());
    QAccessible::updateAccessibility(&event);
}

void notifyHeatmapDataChanged(HeatmapPlot *plot)
{
    if (!QAccessible::isActive())
        return;
    QAccessibleTableModelChangeEvent event(plot, QAccessibleTableModelChangeEvent::ModelReset);
    QAccessible::updateAccessibility(&event);
}

} // namespace attn
