#include "pathdiagram.h"

#include <QPainter>
#include <QPainterPath>
#include <QtMath>

#include <algorithm>

namespace attn {

PathDiagram::PathDiagram(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("pathDiagram"));
}

void PathDiagram::setTokens(const QStringList &tokens)
{
    m_tokens = tokens;
    update();
}

void PathDiagram::setCaptions(const QString &recurrent, const QString &attention)
{
    m_recurrent = recurrent;
    m_attention = attention;
    update();
}

namespace {

// An arrow head at `tip`, pointing along `dir` (any length).
void arrowHead(QPainter &p, QPointF tip, QPointF dir, double size)
{
    const double len = std::hypot(dir.x(), dir.y());
    if (len <= 0)
        return;
    const QPointF u = dir / len, n(-u.y(), u.x());
    QPolygonF head;
    head << tip << tip - u * size + n * size * 0.5 << tip - u * size - n * size * 0.5;
    p.drawPolygon(head);
}

} // namespace

void PathDiagram::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    const int n = int(m_tokens.size());
    if (n == 0)
        return;

    // Which tokens are drawn: all, or the first ones, "…", the last two.
    QStringList shown;
    QList<int> index;
    if (n <= kShown) {
        shown = m_tokens;
        for (int i = 0; i < n; ++i)
            index << i;
    } else {
        for (int i = 0; i < kShown - 3; ++i) {
            shown << m_tokens[i];
            index << i;
        }
        shown << QStringLiteral("…");
        index << -1;
        shown << m_tokens[n - 2] << m_tokens[n - 1];
        index << n - 2 << n - 1;
    }

    const QFontMetricsF fm(font());
    const double lineH = fm.height();
    const double margin = lineH * 0.6;
    const int count = int(shown.size());
    const double slot = (width() - 2 * margin) / count;
    const double boxW = std::max(lineH * 1.6, slot * 0.72);
    const double boxH = lineH * 1.6;
    // The captions wrap (the tab beside the maps is narrow); the tokens sit
    // in the middle of what is left between them.
    const QRectF textArea(margin, 2, width() - 2 * margin, height());
    const double topH = fm.boundingRect(textArea, Qt::TextWordWrap, m_recurrent).height();
    const double bottomH = fm.boundingRect(textArea, Qt::TextWordWrap, m_attention).height();
    const double midY = topH + (height() - topH - bottomH) * 0.45;
    const QColor ink = pal.color(QPalette::Text);
    const QColor recurrent(0xd5, 0x5e, 0x00); // Okabe-Ito vermillion
    const QColor attention(0x00, 0x72, 0xb2); // Okabe-Ito blue

    auto centre = [&](int k) { return QPointF(margin + slot * (k + 0.5), midY); };

    // The recurrent chain: arcs above, one per step.
    QPen chainPen(recurrent, std::max(1.5, lineH / 9));
    for (int k = 0; k + 1 < count; ++k) {
        const QPointF a = centre(k) + QPointF(boxW * 0.15, -boxH / 2), b = centre(k + 1) + QPointF(-boxW * 0.15, -boxH / 2);
        QPainterPath path(a);
        const double lift = std::min(lineH * 1.2, height() * 0.12);
        path.cubicTo(a + QPointF(0, -lift), b + QPointF(0, -lift), b);
        p.setPen(index[k] < 0 || index[k + 1] < 0 ? QPen(recurrent, chainPen.widthF(), Qt::DotLine) : chainPen);
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setPen(Qt::NoPen);
        p.setBrush(recurrent);
        arrowHead(p, b, QPointF(0, 1), lineH * 0.4);
    }

    // Attention: from the last token to every earlier one, one hop each;
    // the arc to the first token is the one that matters.
    for (int k = 0; k + 1 < count; ++k) {
        if (index[k] < 0)
            continue;
        const QPointF a = centre(count - 1) + QPointF(0, boxH / 2), b = centre(k) + QPointF(0, boxH / 2);
        const double depth = std::min(height() * 0.3, lineH * 0.8 + (a.x() - b.x()) * 0.18);
        QPainterPath path(a);
        path.cubicTo(a + QPointF(0, depth), b + QPointF(0, depth), b);
        const bool first = k == 0;
        QColor c = attention;
        c.setAlphaF(first ? 1.0 : 0.45);
        p.setPen(QPen(c, first ? chainPen.widthF() * 1.6 : chainPen.widthF()));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setPen(Qt::NoPen);
        p.setBrush(c);
        arrowHead(p, b, QPointF(0, -1), lineH * 0.4);
    }

    // The tokens.
    for (int k = 0; k < count; ++k) {
        const QRectF box(centre(k) - QPointF(boxW / 2, boxH / 2), QSizeF(boxW, boxH));
        if (index[k] >= 0) {
            p.setPen(QPen(ink, 1));
            p.setBrush(pal.color(QPalette::AlternateBase));
            p.drawRoundedRect(box, 4, 4);
        }
        p.setPen(ink);
        p.drawText(box, Qt::AlignCenter, fm.elidedText(shown[k], Qt::ElideRight, boxW - 4));
    }

    // Captions: above the chain and below the arcs.
    p.setPen(recurrent);
    p.drawText(QRectF(margin, 2, width() - 2 * margin, topH), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
               m_recurrent);
    p.setPen(attention);
    p.drawText(QRectF(margin, height() - bottomH - 2, width() - 2 * margin, bottomH),
               Qt::AlignLeft | Qt::AlignBottom | Qt::TextWordWrap, m_attention);
}

} // namespace attn
