#include "costpanel.h"

#include "gpt2.h"
#include "pathdiagram.h"
#include "viewbinding.h"

#include <QEvent>
#include <QFile>
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

    m_parameters = new QLabel(this);
    m_parameters->setObjectName(QStringLiteral("costParameters"));
    m_parameters->setWordWrap(true);
    m_parameters->setTextFormat(Qt::RichText);
    m_models = new QLabel(this);
    m_models->setObjectName(QStringLiteral("costModels"));
    m_models->setWordWrap(true);
    m_models->setTextFormat(Qt::RichText);

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
    layout->addWidget(m_parameters);
    layout->addWidget(m_models);
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

QString CostPanel::parametersText() const
{
    return m_parameters->text();
}

QString CostPanel::modelText() const
{
    return m_models->text();
}

namespace {

TransformerShape gpt2Small()
{
    return TransformerShape{.layers = 12, .heads = 12, .dModel = 768, .dInner = 3072, .positions = 1024, .vocab = 50257};
}

// The built-in model's shape from its config.json, read once; none when it cannot be read.
std::optional<TransformerShape> builtinShape()
{
    static const std::optional<TransformerShape> shape = []() -> std::optional<TransformerShape> {
        QFile f(QString::fromLatin1(kBuiltinModelFolder) + QStringLiteral("/config.json"));
        if (!f.open(QIODevice::ReadOnly))
            return std::nullopt;
        const Result<Gpt2Config> c = gpt2ConfigFromJson(f.readAll(), QStringLiteral("config.json"));
        if (c.problem())
            return std::nullopt;
        const Gpt2Config &g = c.value();
        return TransformerShape{g.nLayer, g.nHead, g.nEmbd, g.nInner, g.nPositions, g.vocabSize, true};
    }();
    return shape;
}

} // namespace

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
    if (c.openCells < c.scoreCells) {
        const Mask &m = m_doc->scenario().mask;
        QString text = m_summary->text() + QStringLiteral(" ")
                       + tr("<b>Open under the mask: %1</b> of the %2 cells (%3 %).")
                             .arg(count(c.openCells), count(c.scoreCells))
                             .arg(QLocale().toString(100.0 * c.openCells / std::max(1.0, c.scoreCells), 'f', 0));
        if (m.window > 0 && c.nq == c.nk)
            text += QStringLiteral(" ")
                    + tr("A window of W = %1 keeps about n·(2W − 1) cells a head: it grows as n·W, not n²; a kernel "
                         "that skips the blocked cells does that much work.")
                          .arg(m.window);
        m_summary->setText(text);
    }
    fillTable();
    fillGrowth();
    fillParameters();

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

void CostPanel::fillParameters()
{
    const Scenario &s = m_doc->scenario();
    const AttentionParameters p = attentionParameters(s);
    if (!p.projected) {
        m_parameters->setText(tr("<b>Parameters: none.</b> In direct mode Q, K and V are given as they are: there is no "
                                 "W<sub>Q</sub>, W<sub>K</sub>, W<sub>V</sub> to learn. Only the score matrix grows with n."));
    } else {
        const int dm = modelWidth(s), wk = keyWidth(s), wv = valueWidth(s);
        QString terms = tr("W<sub>Q</sub> %1×%2 = %3, W<sub>K</sub> %1×%2 = %4, W<sub>V</sub> %1×%5 = %6")
                            .arg(dm)
                            .arg(wk)
                            .arg(count(p.wq))
                            .arg(count(p.wk))
                            .arg(wv)
                            .arg(count(p.wv));
        if (s.Wo)
            terms += tr(", W<sub>O</sub> %1×%2 = %3").arg(s.Wo->rows()).arg(s.Wo->cols()).arg(count(p.wo));
        m_parameters->setText(tr("<b>Parameters: %1</b> (%2), the same for every n: the weights are learned once and "
                                 "shared by every token, while the score cells grow as n².")
                                  .arg(count(p.total()), terms));
    }
    auto modelLine = [](const QString &name, const TransformerShape &m) {
        const ModelParameters mp = modelParameterCount(m);
        const int n = m.positions, cross = modelCrossover(m);
        QString line = tr("<b>%1</b>: %2 parameters at every n (embeddings %3, attention %4, MLP %5, LayerNorms %6); "
                          "its score cells at n = %7: %8 layers × %9 heads × n² = %10.")
                           .arg(name, count(mp.total()), count(mp.tokenEmbedding + mp.positionEmbedding),
                                count(mp.attention), count(mp.mlp), count(mp.layerNorms))
                           .arg(n)
                           .arg(m.layers)
                           .arg(m.heads)
                           .arg(count(modelScoreCells(m, n)));
        line += QStringLiteral(" ")
                + (cross <= n ? tr("They pass the parameters from n = %1.").arg(cross)
                              : tr("They would pass the parameters only at n = %1, past its %2 positions.").arg(cross).arg(n));
        return line;
    };
    QString models = tr("A whole model, every parameter counted:") + QStringLiteral("<br>")
                     + modelLine(tr("GPT-2 small"), gpt2Small());
    if (const auto builtin = builtinShape())
        models += QStringLiteral("<br>") + modelLine(tr("The built-in model"), *builtin);
    m_models->setText(models);
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
    QVector<double> n, cells, linear, open, params;
    for (const CostPoint &p : costCurve(s, last)) {
        n << p.n;
        cells << p.scoreCells;
        // A recurrent network's steps grow as n: h·n, to scale with the same heads.
        linear << double(std::max(1, s.heads)) * p.n;
        open << p.openCells;
        params << p.parameters;
    }
    const bool sparse = s.mask.sparse() && m_cost.nq == m_cost.nk;
    const double parameters = params.isEmpty() ? 0.0 : params.front();
    m_growth->clearGraphs();
    m_growth->clearItems();
    // The legend is a line of text above the chart: inside a short chart
    // it would hide the curves.
    m_growth->legend->setVisible(false);
    QString legend = QStringLiteral("<span style='color:#0072b2'>━ %1</span> &nbsp; "
                                    "<span style='color:#009e73'>━ %2</span> &nbsp; ")
                         .arg(tr("score cells h·n²"), parameters > 0 ? tr("parameters W_Q, W_K, W_V, W_O (flat)")
                                                                     : tr("parameters: 0 in direct mode"));
    if (sparse)
        legend += QStringLiteral("<span style='color:#cc79a7'>┅ %1</span> &nbsp; ").arg(tr("open cells under the mask"));
    legend += QStringLiteral("<span style='color:#d55e00'>╌ %1</span> &nbsp; <span style='color:#0072b2'>●</span> %2")
                  .arg(tr("a recurrent network's steps, h·n"), nowText());
    m_growthLegend->setText(legend);

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

    // The parameters against n: a flat line, the answer to "what grows?".
    QCPGraph *w = m_growth->addGraph();
    w->setData(n, params, true);
    w->setName(tr("parameters W_Q, W_K, W_V, W_O (flat)"));
    w->setPen(QPen(QColor(0x00, 0x9e, 0x73), 2));
    if (sparse) {
        QCPGraph *o = m_growth->addGraph();
        o->setData(n, open, true);
        o->setName(tr("open cells under the mask"));
        o->setPen(QPen(QColor(0xcc, 0x79, 0xa7), 2, Qt::DotLine));
    }

    m_growth->xAxis->setLabel(tr("tokens n"));
    m_growth->yAxis->setLabel(tr("cells, parameters"));
    for (QCPAxis *a : {m_growth->xAxis, m_growth->yAxis}) {
        a->setLabelFont(font());
        a->setTickLabelFont(font());
    }
    m_growth->xAxis->setRange(0, last + 0.5);
    m_growth->yAxis->setRange(0, std::max(cells.back(), parameters * 1.2) * 1.05);
    m_growth->replot();
}

} // namespace attn
