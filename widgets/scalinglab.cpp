#include "scalinglab.h"

#include "numbers.h"

#include <QCheckBox>
#include <QEvent>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QPixmap>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

// softmax([s, 0, 0]) has max weight above kSaturatedAbove once s > ln(2 p / (1 - p)).
const double kSaturatedScore = std::log(2 * kSaturatedAbove / (1 - kSaturatedAbove));

// The locale's digits without group separators: 1020.39, not 1,020.39.
QLocale numberLocale()
{
    QLocale l;
    l.setNumberOptions(QLocale::OmitGroupSeparator);
    return l;
}

// numbers.h's text for the eye: U+2212, never "−0.0000".
QString fixed(double v, int decimals = 4)
{
    return QString::fromStdString(formatFixed(v, decimals, Minus::Typographic));
}

QString percent(double fraction)
{
    return QLocale().toString(100 * fraction, 'f', 1) + QLatin1Char('%');
}

// A number for a title: 4 significant digits, minus sign typeset.
QString shortNumber(double v)
{
    return numberLocale().toString(v, 'g', 4).replace(QLatin1Char('-'), QChar(0x2212));
}

QCPScatterStyle::ScatterShape markerOf(ScoreScaling s)
{
    switch (s) {
    case ScoreScaling::Raw: return QCPScatterStyle::ssCircle;
    case ScoreScaling::SqrtDk: return QCPScatterStyle::ssSquare;
    case ScoreScaling::Dk: return QCPScatterStyle::ssTriangle;
    }
    return QCPScatterStyle::ssCircle;
}

// `text` in lines of at most `room` pixels where it can be, broken only
// where a title reads well broken: after a comma or semicolon (", ", "; ",
// or the full-width "，" "；") and before an opening parenthesis (" (", "（").
QString wrapTitle(const QString &text, const QFontMetrics &fm, int room)
{
    struct Piece {
        QString text, joiner; // joiner: what stood between it and the piece before
    };
    std::vector<Piece> pieces;
    QString joiner;
    qsizetype start = 0;
    auto cut = [&](qsizetype end, qsizetype next, const QString &between) {
        if (end > start) {
            pieces.push_back({text.mid(start, end - start), joiner});
            joiner = between;
            start = next;
        }
    };
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        const bool spaceAfter = i + 1 < text.size() && text[i + 1] == QLatin1Char(' ');
        if ((c == QLatin1Char(',') || c == QLatin1Char(';')) && spaceAfter)
            cut(i + 1, i + 2, QStringLiteral(" "));
        else if (c == QChar(0xFF0C) || c == QChar(0xFF1B)) // ， ；
            cut(i + 1, i + 1, QString());
        else if (c == QChar(0xFF08)) // （
            cut(i, i, QString());
        else if (c == QLatin1Char('(') && i > 0 && text[i - 1] == QLatin1Char(' '))
            cut(i - 1, i, QStringLiteral(" "));
    }
    pieces.push_back({text.mid(start), joiner});
    QStringList lines;
    for (const Piece &p : pieces) {
        if (!lines.isEmpty() && fm.horizontalAdvance(lines.back() + p.joiner + p.text) <= room)
            lines.back() += p.joiner + p.text;
        else
            lines << p.text;
    }
    return lines.join(QLatin1Char('\n'));
}

QCustomPlot *newPlot(QWidget *parent, const QString &objectName)
{
    auto *plot = new QCustomPlot(parent);
    plot->setObjectName(objectName);
    plot->setAntialiasedElements(QCP::aeAll);
    plot->setNoAntialiasingOnDrag(true);
    plot->setMinimumSize(260, 150);
    plot->plotLayout()->insertRow(0);
    auto *title = new QCPTextElement(plot, QString());
    title->setObjectName(QStringLiteral("title"));
    plot->plotLayout()->addElement(0, 0, title);
    return plot;
}

QCPTextElement *titleOf(QCustomPlot *plot)
{
    return qobject_cast<QCPTextElement *>(plot->plotLayout()->element(0, 0));
}

// The text is kept whole in a property; fitToSize() decides the font and line breaks.
void setTitle(QCustomPlot *plot, const QString &text)
{
    if (QCPTextElement *t = titleOf(plot)) {
        t->setProperty("fullText", text);
        t->setText(text);
    }
}

// The legend in a row of its own under the title, in one line, so that it
// covers no point; its items with room under the text for the descenders
// (the underscore of d_k).
void legendUnderTitle(QCustomPlot *p)
{
    if (!p->plotLayout()->hasElement(1, 0) || p->plotLayout()->element(1, 0) != p->legend) {
        if (p->legend->layout())
            p->legend->layout()->take(p->legend);
        p->plotLayout()->insertRow(1);
        p->plotLayout()->addElement(1, 0, p->legend);
        p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
        p->legend->setBorderPen(Qt::NoPen);
        p->legend->setBrush(Qt::NoBrush);
        p->plotLayout()->setRowStretchFactor(1, 0.001);
        p->legend->setMargins(QMargins(4, 0, 4, 2));
    }
    for (int i = 0; i < p->legend->itemCount(); ++i)
        p->legend->item(i)->setMargins(QMargins(6, 2, 10, 6));
    p->legend->setVisible(true);
}

// At most `columns` legend entries a row.
void wrapLegend(QCustomPlot *p, int columns)
{
    p->legend->setWrap(columns);
    p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
}

} // namespace

QColor scalingColour(ScoreScaling s)
{
    switch (s) {
    case ScoreScaling::Raw: return QColor(0xD5, 0x5E, 0x00);    // vermillion
    case ScoreScaling::SqrtDk: return QColor(0x00, 0x72, 0xB2); // blue
    case ScoreScaling::Dk: return QColor(0xCC, 0x79, 0xA7);     // reddish purple
    }
    return Qt::black;
}

QString ScalingLabView::seriesName(ScoreScaling s)
{
    switch (s) {
    case ScoreScaling::Raw: return tr("raw q·k");
    case ScoreScaling::SqrtDk: return tr("q·k / √d_k");
    case ScoreScaling::Dk: return tr("q·k / d_k");
    }
    return {};
}

ScalingLabView::ScalingLabView(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("ScalingLabView"));
    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(6, 6, 6, 6);
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(6);

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("labMessage"));
    m_message->setWordWrap(true);
    m_commonBox = new QCheckBox(tr("Same score axis for the three histograms"), this);
    m_commonBox->setObjectName(QStringLiteral("commonAxis"));
    m_commonBox->setChecked(m_commonAxis);
    m_commonBox->setToolTip(tr("On: the three histograms share the raw score's range, so you see how much wider "
                               "the raw scores spread. Off: each on its own range, so you see their shapes."));
    connect(m_commonBox, &QCheckBox::toggled, this, &ScalingLabView::setCommonAxis);
    auto *top = new QHBoxLayout;
    top->addWidget(m_message, 1);
    top->addWidget(m_commonBox);
    grid->addLayout(top, 0, 0, 1, 2);

    auto *left = new QVBoxLayout;
    left->setSpacing(2);
    const char *histNames[] = {"histogramRaw", "histogramSqrtDk", "histogramDk"};
    for (ScoreScaling s : kAllScoreScalings) {
        QCustomPlot *p = m_hist[std::size_t(s)] = newPlot(this, QLatin1String(histNames[std::size_t(s)]));
        p->yAxis->setLabel(tr("trials"));
        left->addWidget(p, 1);
    }
    grid->addLayout(left, 1, 0, 3, 1);

    m_variance = newPlot(this, QStringLiteral("variancePlot"));
    m_gradient = newPlot(this, QStringLiteral("gradientPlot"));
    auto *curves = new QHBoxLayout;
    curves->addWidget(m_variance, 1);
    curves->addWidget(m_gradient, 1);
    grid->addLayout(curves, 1, 1);

    auto *tableBox = new QVBoxLayout;
    tableBox->setSpacing(2);
    auto *tableTitle = new QLabel(tr("<b>What the scaling does to the softmax</b> (means over the trials)"), this);
    tableBox->addWidget(tableTitle);
    m_table = new QTableWidget(5, 6, this);
    m_table->setObjectName(QStringLiteral("softmaxTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setFocusPolicy(Qt::NoFocus);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->horizontalHeader()->hide(); // rows 0 and 1 are the two-level header
    m_table->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    tableBox->addWidget(m_table);
    m_tableNote = new QLabel(this);
    m_tableNote->setWordWrap(true);
    tableBox->addWidget(m_tableNote);
    grid->addLayout(tableBox, 2, 1);

    m_row = newPlot(this, QStringLiteral("rowPlot"));
    grid->addWidget(m_row, 3, 1);

    m_handout = new QLabel(this);
    m_handout->setObjectName(QStringLiteral("handoutDraw"));
    m_handout->setWordWrap(true);
    m_handout->setTextFormat(Qt::RichText);
    m_handout->setFrameShape(QFrame::StyledPanel);
    m_handout->setMargin(6);
    m_handout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(m_handout, 4, 0, 1, 2);

    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    grid->setRowStretch(1, 3);
    grid->setRowStretch(2, 0);
    grid->setRowStretch(3, 2);

    applyFonts();
    rebuild();
}

ScalingLabView::~ScalingLabView() = default;

void ScalingLabView::setData(const ScalingLabData &data)
{
    m_data = data;
    rebuild();
}

void ScalingLabView::setMessage(const QString &text, bool problem)
{
    m_message->setText(text);
    m_message->setStyleSheet(problem ? QStringLiteral("color: #b00020; font-weight: bold;") : QString());
}

QString ScalingLabView::message() const
{
    return m_message->text();
}

void ScalingLabView::setCommonAxis(bool on)
{
    if (m_commonBox->isChecked() != on)
        m_commonBox->setChecked(on); // comes back here through toggled
    if (m_commonAxis == on)
        return;
    m_commonAxis = on;
    drawHistograms();
    fitToSize();
}

void ScalingLabView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange) {
        applyFonts();
        // After the children have their new font too (the table's row heights).
        QMetaObject::invokeMethod(this, &ScalingLabView::rebuild, Qt::QueuedConnection);
    }
    QWidget::changeEvent(event);
}

void ScalingLabView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitToSize();
}

void ScalingLabView::fitTable()
{
    // Row heights from the font itself (the header row has two lines), so
    // the table is exactly as tall as its rows in any font: no empty band,
    // no row hidden; a horizontal scroll bar, when the window is too narrow
    // for the columns, gets room of its own.
    const QFontMetrics fm(font());
    const int line = fm.height() + 8;
    // The header row as tall as its tallest text drawn: a fallback font (CJK)
    // may have taller lines than the font's own metrics say.
    int header = fm.lineSpacing() + line;
    for (int c = 0; c < m_table->columnCount(); ++c)
        if (const QTableWidgetItem *item = m_table->item(1, c))
            header = std::max(header, fm.boundingRect(QRect(0, 0, 4096, 4096), Qt::AlignCenter, item->text()).height() + 8);
    for (int r = 0; r < m_table->rowCount(); ++r)
        m_table->setRowHeight(r, r == 1 ? header : line);
    int height = 2 * m_table->frameWidth();
    for (int r = 0; r < m_table->rowCount(); ++r)
        height += m_table->rowHeight(r);
    const int needed = m_table->verticalHeader()->sizeHint().width() + m_table->columnCount()
            * m_table->horizontalHeader()->minimumSectionSize() + 2 * m_table->frameWidth();
    if (needed > m_table->width())
        height += m_table->horizontalScrollBar()->sizeHint().height();
    m_table->setFixedHeight(height);
}

void ScalingLabView::fitToSize()
{
    fitTable();
    // Titles: the bold font, smaller (down to 0.75 of it) when the plot is
    // narrow, and broken after the first comma when even that is too wide.
    QFont bold = font();
    bold.setBold(true);
    for (QCustomPlot *p : {m_hist[0], m_hist[1], m_hist[2], m_variance, m_gradient, m_row}) {
        QCPTextElement *t = titleOf(p);
        if (!t)
            continue;
        QString text = t->property("fullText").toString();
        if (text.isEmpty())
            continue;
        QFont f = bold;
        const double base = f.pointSizeF() > 0 ? f.pointSizeF() : 10;
        const int room = p->width() - 12;
        for (double scale = 1.0; scale >= 0.75; scale -= 0.05) {
            f.setPointSizeF(base * scale);
            if (QFontMetrics(f).horizontalAdvance(text) <= room)
                break;
        }
        if (QFontMetrics(f).horizontalAdvance(text) > room)
            text = wrapTitle(text, QFontMetrics(f), room);
        t->setFont(f);
        t->setText(text);
        p->replot(QCustomPlot::rpQueuedReplot);
    }
    // Log ticks: one a decade when there is room, fewer on a short plot.
    const int decades = std::clamp(m_variance->axisRect()->height() / std::max(1, 2 * fontMetrics().height()), 2, 7);
    for (QCustomPlot *p : {m_variance, m_gradient}) {
        p->yAxis->ticker()->setTickCount(decades);
        p->replot(QCustomPlot::rpQueuedReplot);
    }
}

void ScalingLabView::applyFonts()
{
    const QFont f = font();
    QFont title = f;
    title.setBold(true);
    QFont small = f;
    small.setPointSizeF(f.pointSizeF() > 0 ? f.pointSizeF() * 0.9 : 9);
    for (QCustomPlot *p : {m_hist[0], m_hist[1], m_hist[2], m_variance, m_gradient, m_row}) {
        for (QCPAxis *axis : p->axisRect()->axes()) {
            axis->setTickLabelFont(f);
            axis->setLabelFont(f);
        }
        if (QCPTextElement *t = titleOf(p))
            t->setFont(title);
        p->legend->setFont(small);
    }
    // Heights in lines of the font, so that at a projector's zoom the
    // titles and legends do not eat the plots: the scroll area around the
    // lab scrolls instead.
    const int line = QFontMetrics(f).height();
    for (QCustomPlot *p : {m_hist[0], m_hist[1], m_hist[2], m_row})
        p->setMinimumHeight(std::max(150, (p == m_row ? 12 : 9) * line));
    for (QCustomPlot *p : {m_variance, m_gradient})
        p->setMinimumHeight(std::max(200, 16 * line));
}

void ScalingLabView::rebuild()
{
    drawHistograms();
    drawVariance();
    drawGradient();
    drawTable();
    drawRow();
    drawHandout();
    fitToSize();
}

void ScalingLabView::drawHistograms()
{
    const QFont small = [this] {
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() > 0 ? f.pointSizeF() * 0.9 : 9);
        return f;
    }();
    double commonHalf = 0;
    if (m_data.lab)
        for (const ScalingSeries &s : m_data.lab->series)
            commonHalf = std::max(commonHalf, std::max(-s.histogram.lo, s.histogram.hi));

    for (ScoreScaling sc : kAllScoreScalings) {
        QCustomPlot *p = m_hist[std::size_t(sc)];
        p->clearPlottables();
        p->clearItems();
        if (!m_data.lab) {
            setTitle(p, seriesName(sc));
            p->replot(QCustomPlot::rpQueuedReplot);
            continue;
        }
        const ScalingLab &lab = *m_data.lab;
        const ScalingSeries &s = lab.of(sc);
        const ScoreHistogram &h = s.histogram;
        const int dk = lab.params.dk;
        const QString theory = sc == ScoreScaling::Raw      ? tr("d_k = %1").arg(dk)
                               : sc == ScoreScaling::SqrtDk ? QStringLiteral("1")
                                                            : tr("1/d_k = %1").arg(shortNumber(1.0 / dk));
        setTitle(p, tr("%1: variance %2, theory %3").arg(seriesName(sc), shortNumber(s.variance), theory));

        const double half = m_commonAxis ? commonHalf : std::max(-h.lo, h.hi);
        const double yMax = [&] {
            double m = 0;
            for (int c : h.counts)
                m = std::max(m, double(c));
            for (double c : h.theoryCount)
                m = std::max(m, c);
            return std::max(1.0, m * 1.12);
        }();

        // Where softmax([s, 0, 0]) is saturated: shaded, drawn first (underneath).
        if (half > kSaturatedScore) {
            auto *shade = new QCPItemRect(p);
            shade->setObjectName(QStringLiteral("saturatedRegion"));
            shade->topLeft->setCoords(kSaturatedScore, yMax * 10);
            shade->bottomRight->setCoords(half * 10, -1);
            shade->setPen(Qt::NoPen);
            shade->setBrush(QColor(0, 0, 0, 22));
            auto *label = new QCPItemText(p);
            label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
            label->position->setType(QCPItemPosition::ptPlotCoords);
            label->position->setCoords(half, yMax);
            label->setPadding(QMargins(4, 2, 4, 2));
            label->setFont(small);
            label->setColor(QColor(60, 60, 60));
            label->setText(tr("[s, 0, 0] saturated: s > %1").arg(QLocale().toString(kSaturatedScore, 'f', 2)));
            label->setClipToAxisRect(true);
        }

        if (sc == ScoreScaling::Dk) {
            auto *mistake = new QCPItemText(p);
            mistake->setObjectName(QStringLiteral("classicMistake"));
            mistake->position->setType(QCPItemPosition::ptAxisRectRatio);
            mistake->position->setCoords(0, 0.3);
            mistake->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
            mistake->setPadding(QMargins(6, 3, 6, 3));
            mistake->setFont(small);
            mistake->setColor(scalingColour(sc).darker(150));
            mistake->setText(tr("÷ d_k instead of ÷ √d_k: the classic mistake"));
        }

        auto *bars = new QCPBars(p->xAxis, p->yAxis);
        bars->setName(tr("measured"));
        QVector<double> keys, values;
        for (int i = 0; i < h.bins(); ++i) {
            keys << h.binCentre(i);
            values << h.counts[std::size_t(i)];
        }
        bars->setData(keys, values, true);
        bars->setWidth(h.binWidth());
        const QColor c = scalingColour(sc);
        QColor fill = c;
        fill.setAlpha(150);
        bars->setBrush(fill);
        bars->setPen(QPen(c.darker(130), 0.8));

        auto *curve = p->addGraph();
        curve->setName(tr("theory"));
        QVector<double> xs, ys;
        const int samples = 241;
        for (int i = 0; i < samples; ++i) {
            const double x = h.lo + (h.hi - h.lo) * i / (samples - 1);
            xs << x;
            ys << double(lab.params.trials) * h.binWidth() * ScoreHistogram::normalDensity(x, s.theoryVariance);
        }
        curve->setData(xs, ys, true);
        curve->setPen(QPen(QColor(20, 20, 20), 2.0, Qt::DashLine));

        p->xAxis->setRange(-half, half);
        p->yAxis->setRange(0, yMax);
        p->yAxis->ticker()->setTickCount(3);
        p->xAxis->setLabel(sc == ScoreScaling::Dk ? tr("score (bars: %L1 trials; dashed: theory)").arg(lab.params.trials)
                                                  : QString());
        p->replot(QCustomPlot::rpQueuedReplot);
    }
}

void ScalingLabView::drawVariance()
{
    QCustomPlot *p = m_variance;
    p->clearPlottables();
    p->clearItems();
    setTitle(p, tr("Variance against d_k"));
    const double xLo = 0.7, xHi = 1500;

    auto logTicker = [](double base) {
        QSharedPointer<QCPAxisTickerLog> t(new QCPAxisTickerLog);
        t->setLogBase(base);
        t->setSubTickCount(0);
        return t;
    };
    p->xAxis->setScaleType(QCPAxis::stLogarithmic);
    p->xAxis->setTicker(logTicker(4));
    p->xAxis->setNumberFormat(QStringLiteral("g"));
    p->xAxis->setNumberPrecision(6);
    p->xAxis->setRange(xLo, xHi);
    p->xAxis->setLabel(tr("d_k (log scale)"));
    p->yAxis->setScaleType(QCPAxis::stLogarithmic);
    p->yAxis->setTicker(logTicker(10));
    p->yAxis->setNumberFormat(QStringLiteral("g"));
    p->yAxis->setNumberPrecision(6);
    p->yAxis->setRange(1.0 / xHi / 1.2, xHi * 1.2);
    p->yAxis->setLabel(tr("variance (log scale)"));

    const QFont small = p->legend->font();
    for (ScoreScaling sc : kAllScoreScalings) {
        const QColor c = scalingColour(sc);
        // Theory: d_k, 1, 1/d_k: straight lines on log-log axes.
        auto *theory = p->addGraph();
        theory->setName(tr("theory"));
        theory->setObjectName(QStringLiteral("theory"));
        QVector<double> xs{xLo, xHi}, ys;
        for (double x : xs)
            ys << (sc == ScoreScaling::Raw ? x : sc == ScoreScaling::Dk ? 1.0 / x : 1.0);
        theory->setData(xs, ys, true);
        theory->setPen(QPen(c, 1.5, Qt::DashLine));
        theory->removeFromLegend();
        // Measured points over them.
        auto *measured = p->addGraph();
        measured->setObjectName(QStringLiteral("measured"));
        measured->setName(seriesName(sc));
        QVector<double> mx, my;
        for (const VariancePoint &v : m_data.variance) {
            mx << v.dk;
            my << v.variance[std::size_t(sc)];
        }
        measured->setData(mx, my, true);
        measured->setLineStyle(QCPGraph::lsNone);
        measured->setScatterStyle(QCPScatterStyle(markerOf(sc), QPen(c, 1.8), Qt::white, 9));
    }

    // One legend entry for the three dashed lines.
    auto *theoryKey = p->addGraph();
    theoryKey->setObjectName(QStringLiteral("theoryKey"));
    theoryKey->setName(tr("theory: d_k, 1, 1/d_k"));
    theoryKey->setPen(QPen(QColor(40, 40, 40), 1.5, Qt::DashLine));

    if (m_data.lab) {
        const int dk = m_data.lab->params.dk;
        auto *line = new QCPItemStraightLine(p);
        line->setObjectName(QStringLiteral("currentDk"));
        line->point1->setCoords(dk, 1);
        line->point2->setCoords(dk, 2);
        line->setPen(QPen(QColor(90, 90, 90), 1.2, Qt::DotLine));
        auto *label = new QCPItemText(p);
        label->position->setCoords(dk, p->yAxis->range().upper);
        // Beside the line, on the side with room.
        label->setPositionAlignment((dk > 200 ? Qt::AlignRight : dk < 3 ? Qt::AlignLeft : Qt::AlignHCenter)
                                    | Qt::AlignTop);
        label->setFont(small);
        label->setText(tr("d_k = %1").arg(dk));
        label->setBrush(QColor(255, 255, 255, 220));
        label->setPadding(QMargins(3, 1, 3, 1));
        for (ScoreScaling sc : kAllScoreScalings) {
            auto *current = p->addGraph();
            current->setObjectName(QStringLiteral("current"));
            current->removeFromLegend();
            current->setData(QVector<double>{double(dk)}, QVector<double>{m_data.lab->of(sc).variance}, true);
            current->setLineStyle(QCPGraph::lsNone);
            const QColor c = scalingColour(sc);
            current->setScatterStyle(QCPScatterStyle(markerOf(sc), QPen(c.darker(140), 1.5), c, 12));
        }
    }

    legendUnderTitle(p);
    wrapLegend(p, 2); // half the column's width, beside the gradient plot
    if (m_data.variance.empty() && m_data.lab)
        setTitle(p, tr("Variance against d_k (measuring at d_k = 1, 2, 4, …, 1024…)"));
    else if (m_data.varianceTrials > 0)
        setTitle(p, tr("Variance against d_k (%L1 trials at each point)").arg(m_data.varianceTrials));
    p->replot(QCustomPlot::rpQueuedReplot);
}

// Solid: the softmax's mean Jacobian norm; dashed: the median |dw_1/dq|
// (the typical row; its mean is carried by the rare near-ties). Values
// below the axis are drawn on it.
void ScalingLabView::drawGradient()
{
    QCustomPlot *p = m_gradient;
    p->clearPlottables();
    p->clearItems();
    const double xLo = 0.7, xHi = 1500, yLo = 1e-4, yHi = 2;
    for (QCPAxis *axis : {p->xAxis, p->yAxis}) {
        QSharedPointer<QCPAxisTickerLog> t(new QCPAxisTickerLog);
        t->setLogBase(axis == p->xAxis ? 4 : 10);
        t->setSubTickCount(0);
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(t);
        axis->setNumberFormat(QStringLiteral("g"));
        axis->setNumberPrecision(6);
    }
    p->xAxis->setRange(xLo, xHi);
    p->xAxis->setLabel(tr("d_k (log scale)"));
    p->yAxis->setRange(yLo, yHi);
    p->yAxis->setLabel(tr("gradient norm (log scale)"));
    for (ScoreScaling sc : kAllScoreScalings) {
        const QColor c = scalingColour(sc);
        QVector<double> x, jacobian, query;
        for (const GradientPoint &g : m_data.gradients) {
            x << g.dk;
            jacobian << std::max(yLo, g.series[std::size_t(sc)].jacobianNorm);
            query << std::max(yLo, g.series[std::size_t(sc)].medianQueryGradientNorm);
        }
        auto *j = p->addGraph();
        j->setObjectName(QStringLiteral("jacobian"));
        j->removeFromLegend(); // the colours and markers are the variance plot's, beside it
        j->setData(x, jacobian, true);
        j->setPen(QPen(c, 1.6));
        j->setScatterStyle(QCPScatterStyle(markerOf(sc), QPen(c, 1.6), c, 7));
        auto *q = p->addGraph();
        q->setObjectName(QStringLiteral("queryGradient"));
        q->removeFromLegend();
        q->setData(x, query, true);
        q->setPen(QPen(c, 1.6, Qt::DashLine));
        q->setScatterStyle(QCPScatterStyle(markerOf(sc), QPen(c, 1.6), Qt::white, 7));
    }
    auto *solid = p->addGraph();
    solid->setName(tr("‖∂w/∂x‖ (mean)"));
    solid->setPen(QPen(QColor(40, 40, 40), 1.6));
    auto *dashed = p->addGraph();
    dashed->setName(tr("‖∂w₁/∂q‖ (median)"));
    dashed->setPen(QPen(QColor(40, 40, 40), 1.6, Qt::DashLine));
    legendUnderTitle(p);
    wrapLegend(p, 1);
    const int n = m_data.gradients.empty() ? 8 : m_data.gradients.front().keys;
    if (m_data.gradients.empty())
        setTitle(p, m_data.lab ? tr("Gradient against d_k (measuring…)") : tr("Gradient against d_k"));
    else
        setTitle(p, tr("Gradient against d_k (%L1 trials, rows of %2 keys; below 10⁻⁴ drawn on the axis)")
                        .arg(m_data.gradients.front().trials)
                        .arg(n));
    p->replot(QCustomPlot::rpQueuedReplot);
}

void ScalingLabView::drawTable()
{
    // Row 0 names the two situations over their three columns each, row 1
    // the measures; rows 2-4 are the scalings.
    const int n = m_data.lab ? m_data.lab->params.keys : 8;
    QFont bold = font();
    bold.setBold(true);
    const QString groups[2] = {tr("softmax([s, 0, 0])"), tr("a row of %1 random keys").arg(n)};
    const QString measures[3] = {tr("max\nweight"), tr("entropy\n(nats)"),
                                 tr("saturated\n(> %1)").arg(QLocale().toString(kSaturatedAbove, 'f', 2))};
    const QBrush headerBrush = palette().button();
    for (int r = 0; r < 2; ++r) {
        auto *corner = new QTableWidgetItem(QString());
        m_table->setVerticalHeaderItem(r, corner);
    }
    for (int g = 0; g < 2; ++g) {
        if (m_table->columnSpan(0, 3 * g) != 3)
            m_table->setSpan(0, 3 * g, 1, 3);
        auto *item = new QTableWidgetItem(groups[g]);
        item->setTextAlignment(Qt::AlignCenter);
        item->setFont(bold);
        item->setBackground(headerBrush);
        m_table->setItem(0, 3 * g, item);
        for (int c = 0; c < 3; ++c) {
            auto *m = new QTableWidgetItem(measures[c]);
            m->setTextAlignment(Qt::AlignCenter);
            m->setBackground(headerBrush);
            m_table->setItem(1, 3 * g + c, m);
        }
    }
    for (ScoreScaling sc : kAllScoreScalings) {
        const int r = int(sc) + 2;
        QPixmap swatch(12, 12);
        swatch.fill(scalingColour(sc));
        m_table->setVerticalHeaderItem(r, new QTableWidgetItem(QIcon(swatch), seriesName(sc)));
        for (int col = 0; col < 6; ++col) {
            QString text = QStringLiteral("–");
            bool strong = false;
            if (m_data.lab) {
                const ScalingSeries &s = m_data.lab->of(sc);
                const SoftmaxSummary &m = col < 3 ? s.threeWay : s.keys;
                text = col % 3 == 0 ? fixed(m.meanMaxWeight) : col % 3 == 1 ? fixed(m.meanEntropy) : percent(m.saturatedFraction);
                strong = col % 3 == 2 && m.saturatedFraction >= 0.05;
            }
            auto *item = new QTableWidgetItem(text);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (strong)
                item->setFont(bold);
            m_table->setItem(r, col, item);
        }
    }
    // Columns share the width, none narrower than its widest text.
    int widest = 0;
    for (int r = 0; r < m_table->rowCount(); ++r)
        for (int c = 0; c < m_table->columnCount(); ++c)
            if (const QTableWidgetItem *item = m_table->item(r, c)) {
                const QFont f = item->font();
                const int w = QFontMetrics(f).boundingRect(QRect(), 0, item->text()).width() + 12;
                widest = std::max(widest, (w + m_table->columnSpan(r, c) - 1) / m_table->columnSpan(r, c));
            }
    m_table->horizontalHeader()->setMinimumSectionSize(widest);
    fitTable();
    m_tableNote->setText(tr("Entropy in nats: 0 is one-hot; uniform is ln 3 = %1 for [s, 0, 0], ln %2 = %3 for %2 keys. "
                            "Saturated: max weight above %4, nearly one-hot, gradient nearly 0.")
                             .arg(fixed(std::log(3.0), 3))
                             .arg(n)
                             .arg(fixed(std::log(double(n)), 3))
                             .arg(QLocale().toString(kSaturatedAbove, 'f', 2)));
}

void ScalingLabView::drawRow()
{
    QCustomPlot *p = m_row;
    p->clearPlottables();
    p->clearItems();
    const int n = m_data.lab ? m_data.lab->params.keys : 0;
    setTitle(p, m_data.lab ? tr("One row: softmax over %1 keys, q·k_j for j = 1…%1 (trial 1)").arg(n)
                           : tr("One row of keys"));
    auto *group = new QCPBarsGroup(p);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(1);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int step = n <= 16 ? 1 : (n + 15) / 16;
    for (int j = 1; j <= n; j += step)
        ticker->addTick(j, QStringLiteral("k%1").arg(j));
    p->xAxis->setTicker(ticker);
    for (ScoreScaling sc : kAllScoreScalings) {
        auto *bars = new QCPBars(p->xAxis, p->yAxis);
        bars->setName(seriesName(sc));
        bars->setWidth(0.8 / 3);
        bars->setBarsGroup(group);
        const QColor c = scalingColour(sc);
        bars->setBrush(c);
        bars->setPen(QPen(c.darker(130), 0.8));
        if (m_data.lab) {
            QVector<double> keys, values;
            const std::vector<double> &w = m_data.lab->of(sc).exampleWeights;
            for (int j = 0; j < int(w.size()); ++j) {
                keys << j + 1;
                values << w[std::size_t(j)];
            }
            bars->setData(keys, values, true);
        }
    }
    p->xAxis->setRange(0.4, std::max(1, n) + 0.6);
    p->yAxis->setRange(0, 1.05);
    p->yAxis->setLabel(tr("weight"));
    p->xAxis->setLabel(QString());
    legendUnderTitle(p);
    p->replot(QCustomPlot::rpQueuedReplot);
}

void ScalingLabView::drawHandout()
{
    if (!m_data.handout) {
        m_handout->setText(tr("<b>The handout's draw</b>: not computed."));
        return;
    }
    const HandoutDraw &d = *m_data.handout;
    const bool handoutsOwn = d.seed == 7 && d.dk == 64;
    const TripleSoftmax printedScaled = handoutSoftmax(kHandoutPrintedScaled);
    const QString rowRaw = tr("raw q·k"), rowScaled = tr("q·k / √%1").arg(d.dk);
    auto cell = [](const QString &score, const QString &maxW, const QString &ent) {
        return QStringLiteral("<td align=right><b>%1</b></td><td align=right>%2</td><td align=right>%3</td>")
            .arg(score, maxW, ent);
    };
    QString html = tr("<b>The handout's draw.</b> Seed 000's own code: <code>random.seed(%1)</code>, then q and k "
                      "each %2 × <code>random.gauss(0, 1)</code> (Python's Mersenne Twister and gauss, reproduced "
                      "here), and softmax([score, 0, 0]).")
                       .arg(d.seed)
                       .arg(d.dk);
    html += QStringLiteral("<table cellspacing=0 cellpadding=3 style='margin-top:4px'>");
    html += QStringLiteral("<tr><th></th><th colspan=3 align=center>%1</th>").arg(tr("what the code prints"));
    if (handoutsOwn)
        html += QStringLiteral("<th width=16></th><th colspan=3 align=center>%1</th>").arg(tr("what the handout printed"));
    html += QStringLiteral("</tr><tr><th></th>");
    const QString sub = QStringLiteral("<th align=right>%1</th><th align=right>%2</th><th align=right>%3</th>")
                            .arg(tr("score"), tr("max weight"), tr("entropy"));
    html += sub;
    if (handoutsOwn)
        html += QStringLiteral("<th></th>") + sub;
    html += QStringLiteral("</tr>");
    html += QStringLiteral("<tr><td>%1</td>").arg(rowRaw) + cell(fixed(d.raw), fixed(d.rawMaxWeight), fixed(d.rawEntropy));
    if (handoutsOwn)
        html += QStringLiteral("<td></td>") + cell(fixed(kHandoutPrintedRaw, 2), fixed(1.0), fixed(0.0));
    html += QStringLiteral("</tr><tr><td>%1</td>").arg(rowScaled)
        + cell(fixed(d.scaled), fixed(d.scaledMaxWeight), fixed(d.scaledEntropy));
    if (handoutsOwn)
        html += QStringLiteral("<td></td>")
            + cell(fixed(kHandoutPrintedScaled, 2), fixed(kHandoutPrintedScaledMaxWeight),
                   fixed(kHandoutPrintedScaledEntropy));
    html += QStringLiteral("</tr></table>");
    if (handoutsOwn)
        html += tr("<p style='margin-top:4px'>The handout's printed scores are not what its code gives: Python 3.11 "
                   "prints raw = %1 and scaled = %2 for this seed. Even taking its 3.79 as given, "
                   "softmax([3.79, 0, 0]) has max weight %3 and entropy %4, not the printed %5 and %6. Any one draw "
                   "is only one draw: the histograms above show thousands (docs/lessons.md, “Where the seeds are "
                   "wrong”).</p>")
                    .arg(fixed(d.raw), fixed(d.scaled), fixed(printedScaled.maxWeight), fixed(printedScaled.entropy),
                         fixed(kHandoutPrintedScaledMaxWeight), fixed(kHandoutPrintedScaledEntropy));
    m_handout->setText(html);
}

} // namespace attn
