#include "costpanel.h"

#include "pathdiagram.h"
#include "viewbinding.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QScrollArea>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>

namespace attn {

CostPanel::CostPanel(Document *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("costPanel"));
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("costSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);

    m_table = new QTableWidget(0, 3, this);
    m_table->setObjectName(QStringLiteral("costTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    // The stage and how it is counted share the wide first column, wrapped:
    // the tab beside the maps is narrow.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setWordWrap(true);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);

    m_growth = new QCustomPlot(this);
    m_growth->setObjectName(QStringLiteral("costGrowth"));
    m_growth->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    // The whole table, never a scroll bar inside the panel's own.
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    connect(m_table->horizontalHeader(), &QHeaderView::sectionResized, this, [this] { fitTable(); });

    m_path = new PathDiagram(this);
    m_growthLegend = new QLabel(this);
    m_growthLegend->setObjectName(QStringLiteral("costGrowthLegend"));
    m_growthLegend->setWordWrap(true);
    m_growthLegend->setTextFormat(Qt::RichText);

    // Beside the maps the tab is short: rather than squeeze the chart to a
    // sliver, each part keeps a readable size and the panel scrolls. The
    // chart (the n² the seeds name) and the path come first, side by side
    // when the tab is wide; the table of every stage under them.
    auto *content = new QWidget;
    content->setObjectName(QStringLiteral("costContent"));
    auto *chart = new QWidget(content);
    auto *chartLayout = new QVBoxLayout(chart);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->addWidget(m_growthLegend);
    chartLayout->addWidget(m_growth, 1);
    m_figures = new QBoxLayout(QBoxLayout::TopToBottom);
    m_figures->addWidget(chart, 3);
    m_figures->addWidget(m_path, 2);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addLayout(m_figures);
    layout->addWidget(m_table);
    layout->addStretch(1);
    m_scroll = new QScrollArea(this);
    m_scroll->setObjectName(QStringLiteral("costScroll"));
    m_scroll->setWidget(content);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_scroll);
    applySizes();

    new ViewBinding(this, doc, ChangeKind::Shape | ChangeKind::Settings | ChangeKind::Labels, [this] { refresh(); });
    refresh();
}

QString CostPanel::count(double v)
{
    const QLocale locale;
    if (std::abs(v) < 1e7)
        return locale.toString(qlonglong(std::llround(v)));
    return locale.toString(v, 'g', 3);
}

namespace {

QString bytesText(double bytes)
{
    const QLocale locale;
    return locale.formattedDataSize(qint64(bytes), 1, QLocale::DataSizeTraditionalFormat);
}

} // namespace

QString CostPanel::summary() const
{
    return m_summary->text();
}

void CostPanel::refresh()
{
    m_cost = attentionCost(m_doc->scenario());
    retranslate();
}

void CostPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    if (event->type() == QEvent::FontChange) {
        applySizes();
        fillGrowth(); // its axes' fonts
        fitTable();
    }
    QWidget::changeEvent(event);
}

void CostPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    applySizes();
}

void CostPanel::applySizes()
{
    // Sizes in lines of the current font, so the zoom keeps them readable.
    const int line = QFontMetrics(font()).height();
    m_growth->setMinimumHeight(std::max(160, 10 * line));
    m_path->setMinimumHeight(std::max(140, 8 * line));
    // Wide enough for both at a readable width: the chart and the path side by side.
    const bool wide = width() >= std::max(640, 44 * line);
    m_figures->setDirection(wide ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
}

void CostPanel::fitTable()
{
    // Rows as tall as their wrapped text at the current column width, and
    // the table as tall as its rows: the panel's scroll bar does the rest.
    m_table->resizeRowsToContents();
    int h = m_table->horizontalHeader()->height() + 2 * m_table->frameWidth();
    for (int r = 0; r < m_table->rowCount(); ++r)
        h += m_table->rowHeight(r);
    if (m_table->height() != h)
        m_table->setFixedHeight(h);
}

void CostPanel::retranslate()
{
    const AttentionCost &c = m_cost;
    // Twice the queries and twice the keys: four times the cells, whatever
    // the two counts are (self-attention doubles n, cross-attention both).
    const AttentionCost twice = attentionCostAt(m_doc->scenario(), 2 * c.nq, 2 * c.nk);
    const QString doubled = c.nq == c.nk ? tr("Double the tokens to %1").arg(2 * c.nq)
                                         : tr("Double the queries to %1 and the keys to %2").arg(2 * c.nq).arg(2 * c.nk);
    m_summary->setText(
        tr("<b>%1 score cells</b> = h·n<sub>q</sub>·n<sub>k</sub> = %2·%3·%4: one for every pair of a query and a "
           "key, in every head. %5 and there are %6 (×%7): the cost grows as n². "
           "All stages together: %8 operations (multiply-adds and the softmax's steps), %9 stored.")
            .arg(count(c.scoreCells))
            .arg(c.heads)
            .arg(c.nq)
            .arg(c.nk)
            .arg(doubled)
            .arg(count(twice.scoreCells))
            .arg(QLocale().toString(twice.scoreCells / std::max(1.0, c.scoreCells), 'g', 3))
            .arg(count(c.totalOperations))
            .arg(bytesText(c.bytes())));
    fillTable();
    fillGrowth();

    const Scenario &s = m_doc->scenario();
    QStringList tokens;
    // The sequence the keys are (the tokens themselves in self-attention; the
    // source in cross-attention, and seed 000's three keys for its one query).
    for (const std::string &t : keyLabels(s))
        tokens << QString::fromStdString(t);
    const int n = int(tokens.size());
    m_path->setTokens(tokens);
    m_path->setCaptions(
        tr("Recurrent network: from the first token to the last, n − 1 = %1 steps, one token at a time")
            .arg(std::max(0, n - 1)),
        tr("Attention: every token reaches every other in 1 step, all pairs at once"));
}

void CostPanel::fillTable()
{
    const AttentionCost &c = m_cost;
    m_table->setHorizontalHeaderLabels({tr("Stage"), tr("Work"), tr("Values stored")});
    m_table->setRowCount(int(c.stages.size()) + 1);
    const QString hq = QStringLiteral("%1·%2·%3").arg(c.heads).arg(c.nq).arg(c.nk);
    int row = 0;
    for (const StageCost &st : c.stages) {
        QString name, how;
        if (st.stage == "projections") {
            name = tr("Q, K, V = X W");
            how = tr("(n_q + n_k)·d_model·h·d_k + n_k·d_model·h·d_v products");
        } else if (st.stage == "scores") {
            name = tr("Scores q·k");
            how = tr("h·n_q·n_k·d_k = %1·%2 products").arg(hq).arg(c.dk);
            if (m_doc->scenario().similarity != Similarity::Dot)
                how += tr(", plus the norms");
        } else if (st.stage == "scaled") {
            name = tr("Scaled");
            how = tr("one division a cell: %1").arg(hq);
        } else if (st.stage == "mask") {
            name = tr("Mask");
            how = tr("one test a cell: %1").arg(hq);
        } else if (st.stage == "softmax") {
            name = tr("Softmax");
            how = tr("subtract the max, e^x, divide: 3·%1").arg(hq);
        } else if (st.stage == "output") {
            name = tr("Output = weights·V");
            how = tr("h·n_q·n_k·d_v = %1·%2 products").arg(hq).arg(c.dv);
        } else if (st.stage == "concat_wo") {
            name = tr("Concat · W_O");
            how = tr("n_q·h·d_v·d_out products");
        }
        auto *stage = new QTableWidgetItem(name + QLatin1Char('\n') + how);
        stage->setToolTip(how);
        m_table->setItem(row, 0, stage);
        auto *work = new QTableWidgetItem(count(st.operations));
        work->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, 1, work);
        auto *stored = new QTableWidgetItem(count(st.stored));
        stored->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, 2, stored);
        ++row;
    }
    QFont bold = m_table->font();
    bold.setBold(true);
    auto *total = new QTableWidgetItem(tr("Total") + QLatin1Char('\n')
                                       + tr("%1 of memory as doubles").arg(bytesText(c.bytes())));
    total->setFont(bold);
    m_table->setItem(row, 0, total);
    auto *work = new QTableWidgetItem(count(c.totalOperations));
    work->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    work->setFont(bold);
    m_table->setItem(row, 1, work);
    auto *stored = new QTableWidgetItem(count(c.totalStored));
    stored->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    stored->setFont(bold);
    m_table->setItem(row, 2, stored);
    fitTable();
}

QString CostPanel::nowText() const
{
    if (m_cost.nq == m_cost.nk)
        return tr("now: n = %1").arg(m_cost.nq);
    return tr("now: n_q·n_k = %1·%2").arg(m_cost.nq).arg(m_cost.nk);
}

void CostPanel::fillGrowth()
{
    const Scenario &s = m_doc->scenario();
    // Today's place on the h·n² curve: n = √(n_q·n_k), so that the dot sits
    // on the curve when queries and keys differ in number too.
    const double now = std::sqrt(double(m_cost.nq) * double(m_cost.nk));
    const int last = std::max(16, int(std::ceil(4 * now)));
    QVector<double> n, cells, linear;
    for (int i = 1; i <= last; ++i) {
        n << i;
        cells << attentionCostAt(s, i).scoreCells;
        // A recurrent network's steps grow as n: h·n, to scale with the same heads.
        linear << double(std::max(1, s.heads)) * i;
    }
    m_growth->clearGraphs();
    m_growth->clearItems();
    // The legend is a line of text above the chart: inside a short chart
    // it would hide the curves.
    m_growth->legend->setVisible(false);
    m_growthLegend->setText(QStringLiteral("<span style='color:#0072b2'>━ %1</span> &nbsp; "
                                           "<span style='color:#d55e00'>╌ %2</span> &nbsp; "
                                           "<span style='color:#0072b2'>●</span> %3")
                                .arg(tr("score cells h·n²"), tr("a recurrent network's steps, h·n"),
                                     nowText()));

    QCPGraph *g = m_growth->addGraph();
    g->setData(n, cells, true);
    g->setName(tr("score cells h·n²"));
    g->setPen(QPen(QColor(0x00, 0x72, 0xb2), 2));
    QCPGraph *r = m_growth->addGraph();
    r->setData(n, linear, true);
    r->setName(tr("a recurrent network's steps, h·n"));
    r->setPen(QPen(QColor(0xd5, 0x5e, 0x00), 2, Qt::DashLine));

    // Today's sentence, marked.
    QCPGraph *mark = m_growth->addGraph();
    mark->setData(QVector<double>{now}, QVector<double>{m_cost.scoreCells});
    mark->setLineStyle(QCPGraph::lsNone);
    mark->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0x00, 0x72, 0xb2), 9));
    mark->setName(nowText());

    m_growth->xAxis->setLabel(tr("tokens n"));
    m_growth->yAxis->setLabel(tr("cells"));
    for (QCPAxis *a : {m_growth->xAxis, m_growth->yAxis}) {
        a->setLabelFont(font());
        a->setTickLabelFont(font());
    }
    m_growth->xAxis->setRange(0, last + 0.5);
    m_growth->yAxis->setRange(0, cells.back() * 1.05);
    m_growth->replot();
}

} // namespace attn
