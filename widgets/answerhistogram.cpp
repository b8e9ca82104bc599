#include "answerhistogram.h"

#include "numbers.h"

#include <QPainter>
#include <QPaintEvent>

#include <algorithm>
#include <cmath>
#include <set>

namespace attn {

AnswerHistogram::AnswerHistogram(QWidget *parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void AnswerHistogram::setBars(std::vector<AnswerBar> bars, bool revealed)
{
    const bool rows = bars.size() != m_bars.size();
    m_bars = std::move(bars);
    m_revealed = revealed;
    if (rows)
        updateGeometry(); // only a new number of rows changes the size it asks for
    update(); // painted in the same frame as the answer that changed it
}

void AnswerHistogram::setEmptyText(const QString &text)
{
    m_empty = text;
    update();
}

std::vector<AnswerBar> AnswerHistogram::numberBars(const std::vector<double> &sorted, double truth, double tolerance,
                                                   int decimals, int maxBars)
{
    std::vector<AnswerBar> bars;
    if (sorted.empty())
        return bars;
    const double unit = std::pow(10.0, -decimals);
    auto rounded = [unit](double x) { return std::round(x / unit) * unit; };
    std::set<double> distinct;
    for (double x : sorted)
        distinct.insert(rounded(x));
    if (int(distinct.size()) <= maxBars) {
        for (double v : distinct) {
            AnswerBar b;
            b.label = QString::fromStdString(formatFixed(v, decimals, Minus::Typographic));
            for (double x : sorted)
                if (rounded(x) == v) {
                    ++b.count;
                    b.right = b.right || std::fabs(x - truth) <= tolerance;
                }
            bars.push_back(b);
        }
        return bars;
    }
    const double lo = sorted.front(), hi = sorted.back(), width = (hi - lo) / maxBars;
    for (int i = 0; i < maxBars; ++i) {
        AnswerBar b;
        const double a = lo + i * width, z = i + 1 == maxBars ? hi : lo + (i + 1) * width;
        b.label = QString::fromStdString(formatFixed(a, decimals, Minus::Typographic) + " – " + formatFixed(z, decimals, Minus::Typographic));
        for (double x : sorted)
            if ((x >= a && x < z) || (i + 1 == maxBars && x == hi)) {
                ++b.count;
                b.right = b.right || std::fabs(x - truth) <= tolerance;
            }
        bars.push_back(b);
    }
    return bars;
}

int AnswerHistogram::rowHeight() const
{
    return fontMetrics().height() * 2;
}

QSize AnswerHistogram::sizeHint() const
{
    return {fontMetrics().horizontalAdvance(QLatin1Char('x')) * 40, rowHeight() * int(std::max<std::size_t>(m_bars.size(), 3))};
}

QSize AnswerHistogram::minimumSizeHint() const
{
    return {fontMetrics().horizontalAdvance(QLatin1Char('x')) * 20, rowHeight() * int(std::max<std::size_t>(m_bars.size(), 1))};
}

void AnswerHistogram::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    const QFontMetrics fm = fontMetrics();
    if (m_bars.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(4, 4, -4, -4), Qt::AlignCenter | Qt::TextWordWrap, m_empty);
        return;
    }
    int most = 1;
    for (const AnswerBar &b : m_bars)
        most = std::max(most, b.count);
    const int h = std::min(rowHeight(), std::max(fm.height() + 4, height() / int(m_bars.size())));
    // The labels take what they need (in bold: a right one is), up to two
    // fifths of the width; the count its widest number; the bar the rest.
    QFont boldFont = font();
    boldFont.setBold(true);
    const QFontMetrics bold(boldFont);
    int labelW = 0;
    const QString tick = QStringLiteral(" ✓");
    for (const AnswerBar &b : m_bars)
        labelW = std::max(labelW, bold.horizontalAdvance(b.label + tick));
    labelW = std::min(labelW, width() * 2 / 5);
    const int countW = fm.horizontalAdvance(QString::number(most)) + fm.horizontalAdvance(QLatin1Char(' ')) * 2;
    const int gap = fm.horizontalAdvance(QLatin1Char(' '));
    const int barX = labelW + gap, barMax = std::max(1, width() - barX - countW - gap);
    // Blue before the reveal; after it, green for right, grey for the rest:
    // told apart by the tick and by lightness, not by hue alone.
    const QColor open(0x3b, 0x6f, 0xb6), right(0x1b, 0x7f, 0x3b), wrong(0xb8, 0xb8, 0xb8);
    for (std::size_t i = 0; i < m_bars.size(); ++i) {
        const AnswerBar &b = m_bars[i];
        const int y = int(i) * h;
        const bool tickIt = m_revealed && b.right;
        p.setPen(pal.color(QPalette::WindowText));
        p.setFont(tickIt ? boldFont : font());
        const QFontMetrics &m = tickIt ? bold : fm;
        const QString label = m.elidedText(b.label, Qt::ElideRight, labelW - (tickIt ? m.horizontalAdvance(tick) : 0));
        p.drawText(QRect(0, y, labelW, h), Qt::AlignRight | Qt::AlignVCenter, label + (tickIt ? tick : QString()));
        const int w = b.count ? std::max(2, int(std::lround(double(barMax) * b.count / most))) : 0;
        p.fillRect(QRect(barX, y + h / 6, w, h - h / 3), !m_revealed ? open : (b.right ? right : wrong));
        p.setFont(font());
        p.drawText(QRect(barX + w + gap, y, countW, h), Qt::AlignLeft | Qt::AlignVCenter, QString::number(b.count));
    }
}

} // namespace attn
