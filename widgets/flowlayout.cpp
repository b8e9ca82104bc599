#include "flowlayout.h"

#include <algorithm>

namespace attn {

FlowLayout::FlowLayout(QWidget *parent) : QLayout(parent)
{
    setContentsMargins(0, 0, 0, 0);
}

FlowLayout::~FlowLayout()
{
    while (QLayoutItem *item = takeAt(0))
        delete item;
}

void FlowLayout::setGeometry(const QRect &rect)
{
    QLayout::setGeometry(rect);
    arrange(rect, true);
}

QSize FlowLayout::sizeHint() const
{
    int w = 0;
    for (QLayoutItem *item : m_items)
        w += item->sizeHint().width() + spacing();
    return {w, arrange(QRect(0, 0, std::max(1, w), 0), false)};
}

QSize FlowLayout::minimumSize() const
{
    // As narrow as its widest item: the rest wraps.
    QSize s;
    for (QLayoutItem *item : m_items)
        s = s.expandedTo(item->minimumSize());
    return s;
}

int FlowLayout::arrange(const QRect &rect, bool place) const
{
    int x = rect.x(), y = rect.y(), rowHeight = 0;
    const int gap = std::max(0, spacing());
    for (QLayoutItem *item : m_items) {
        const QSize hint = item->sizeHint();
        if (x > rect.x() && x + hint.width() > rect.right() + 1) {
            x = rect.x();
            y += rowHeight + gap;
            rowHeight = 0;
        }
        if (place)
            item->setGeometry(QRect(QPoint(x, y), hint));
        x += hint.width() + gap;
        rowHeight = std::max(rowHeight, hint.height());
    }
    return y + rowHeight - rect.y();
}

} // namespace attn
