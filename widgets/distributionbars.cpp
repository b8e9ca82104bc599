#include "distributionbars.h"

#include "numbers.h"

#include <QPaintEvent>
#include <QPainter>

#include <algorithm>

namespace attn {

namespace {

constexpr int kRows = 5; // the height is kept for five rows, so the panel does not jump

QString decimals3(double v)
{
    return QString::fromStdString(formatFixed(v, 3));
}

} // namespace

DistributionBars::DistributionBars(QWidget *parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void DistributionBars::setBars(std::vector<DistributionBar> bars)
{
    m_bars = std::move(bars);
    updateGeometry();
    update();
}

void DistributionBars::setEmptyText(const QString &text)
{
    m_empty = text;
    update();
}

QString DistributionBars::numbersText(const DistributionBar &b)
{
    // Nothing cut (an encoder's guesses, greedy ranks): one number, not "p → p".
    if (b.raw == b.p)
        return decimals3(b.p);
    return decimals3(b.raw) + QStringLiteral(" → ") + decimals3(b.p);
}

int DistributionBars::rowHeight() const
{
    return fontMetrics().height() + 6;
}

QSize DistributionBars::sizeHint() const
{
    const QFontMetrics fm = fontMetrics();
    return {fm.horizontalAdvance(QStringLiteral("0.000 → 0.000")) * 3, rowHeight() * std::max<int>(kRows, int(m_bars.size())) + 4};
}

QSize DistributionBars::minimumSizeHint() const
{
    const QFontMetrics fm = fontMetrics();
    return {fm.horizontalAdvance(QStringLiteral("0.000 → 0.000")) * 2, sizeHint().height()};
}

void DistributionBars::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    const QFontMetrics fm = fontMetrics();
    if (m_bars.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(6, 0, -6, 0), Qt::AlignCenter | Qt::TextWordWrap, m_empty);
        return;
    }
    // The labels' column as wide as the widest label (a third of the width at most).
    int labelWidth = 0;
    for (const DistributionBar &b : m_bars)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(b.label));
    labelWidth = std::min(labelWidth + 12, width() / 3);
    QFont bold = font();
    bold.setBold(true);
    const int numbersWidth = QFontMetrics(bold).horizontalAdvance(QStringLiteral("0.000 → 0.000")) + 8;
    const int barLeft = labelWidth, barWidth = std::max(10, width() - labelWidth - numbersWidth - 4);
    const int h = rowHeight();
    const QColor chosen(230, 126, 34), kept(52, 101, 164), raw(200, 200, 200);
    for (std::size_t i = 0; i < m_bars.size(); ++i) {
        const DistributionBar &b = m_bars[i];
        const int y = 2 + int(i) * h;
        if (b.chosen)
            painter.fillRect(QRect(0, y, width(), h), QColor(253, 235, 208));
        painter.setPen(palette().color(QPalette::Text));
        QFont f = font();
        f.setBold(b.chosen);
        painter.setFont(f);
        painter.drawText(QRect(4, y, labelWidth - 8, h), Qt::AlignVCenter | Qt::AlignRight,
                         fm.elidedText(b.label, Qt::ElideMiddle, labelWidth - 8));
        const int inner = h - 8;
        painter.fillRect(QRect(barLeft, y + 4, int(std::clamp(b.raw, 0.0, 1.0) * barWidth), inner), raw);
        painter.fillRect(QRect(barLeft, y + 4 + inner / 4, int(std::clamp(b.p, 0.0, 1.0) * barWidth), inner / 2),
                         b.chosen ? chosen : kept);
        painter.drawText(QRect(width() - numbersWidth, y, numbersWidth - 2, h), Qt::AlignVCenter | Qt::AlignRight, numbersText(b));
    }
}

} // namespace attn
