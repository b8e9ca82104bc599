#include "sinkview.h"

#include "bpe.h"
#include "document.h" // problemText
#include "heatmapplot.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QFontMetricsF>
#include <QPalette>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

// In the UI's language, without group separators (the paper's "5158").
QString number(double v, int decimals)
{
    QLocale locale;
    locale.setNumberOptions(locale.numberOptions() | QLocale::OmitGroupSeparator);
    return locale.toString(v, 'f', decimals);
}

QString utf8(const std::string &s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// A token for the eye, its word-start space made visible ("␣cat").
QString tokenPlain(const std::string &bytes)
{
    const bool spaces = bytes.find_first_not_of(' ') == std::string::npos;
    return (!bytes.empty() && bytes[0] == ' ' && !spaces ? QStringLiteral("␣") : QString()) + utf8(tokenLabel(bytes));
}

// The longest text the experiment writes for a model: its context, within the trace limit.
int ownTextTokens(const Gpt2Model &m)
{
    return std::min(m.config.nPositions, maxTracedTokens(m.config));
}

} // namespace

SinkView::SinkView(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("sinkView"));
    auto *root = new QVBoxLayout(this);
    root->setContentsMargins(2, 2, 2, 2);
    root->setSpacing(4);

    auto *controls = new QHBoxLayout;
    m_sourceLabel = new QLabel(this);
    m_source = new QComboBox(this);
    m_source->setObjectName(QStringLiteral("sinkSource"));
    m_source->addItem(QString());
    m_source->addItem(QString());
    m_sourceLabel->setBuddy(m_source);
    m_newText = new QPushButton(this);
    m_newText->setObjectName(QStringLiteral("sinkNewText"));
    m_windowLabel = new QLabel(this);
    m_window = new QSpinBox(this);
    m_window->setObjectName(QStringLiteral("sinkWindow"));
    m_window->setRange(2, 63);
    m_window->setValue(8);
    m_windowLabel->setBuddy(m_window);
    m_sinksLabel = new QLabel(this);
    m_sinks = new QSpinBox(this);
    m_sinks->setObjectName(QStringLiteral("sinkSinks"));
    m_sinks->setRange(1, 7);
    m_sinks->setValue(4);
    m_sinksLabel->setBuddy(m_sinks);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("sinkStatus"));
    {
        QPalette grey = m_status->palette(); // a palette, not a style sheet: the window's zoom reaches it
        grey.setColor(QPalette::WindowText, QColor(0x5a, 0x5a, 0x5a));
        m_status->setPalette(grey);
    }
    controls->addWidget(m_sourceLabel);
    controls->addWidget(m_source);
    controls->addWidget(m_newText);
    controls->addSpacing(12);
    controls->addWidget(m_windowLabel);
    controls->addWidget(m_window);
    controls->addSpacing(8);
    controls->addWidget(m_sinksLabel);
    controls->addWidget(m_sinks);
    controls->addSpacing(12);
    controls->addWidget(m_status, 1);
    root->addLayout(controls);

    auto *tokensRow = new QHBoxLayout;
    m_tokensTitle = new QLabel(this);
    m_tokensTitle->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_tokens = new QLabel(this);
    m_tokens->setObjectName(QStringLiteral("sinkTokens"));
    m_tokens->setTextFormat(Qt::RichText);
    m_tokens->setWordWrap(true);
    m_tokens->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // At most about three lines; a longer text scrolls (a big model's 256
    // tokens, or a projector's zoom, would take the map's room).
    m_tokensScroll = new QScrollArea(this);
    m_tokensScroll->setWidget(m_tokens);
    m_tokensScroll->setWidgetResizable(true);
    m_tokensScroll->setFrameShape(QFrame::NoFrame);
    m_tokensScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    tokensRow->addWidget(m_tokensTitle, 0, Qt::AlignTop);
    tokensRow->addWidget(m_tokensScroll, 1);
    root->addLayout(tokensRow);
    fitTokensHeight();

    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("sinkProblem"));
    m_problem->setWordWrap(true);
    {
        QPalette red = m_problem->palette();
        red.setColor(QPalette::WindowText, QColor(0xb0, 0x00, 0x20));
        m_problem->setPalette(red);
    }
    m_problem->hide();
    root->addWidget(m_problem);

    m_plot = new HeatmapPlot(this);
    m_plot->setObjectName(QStringLiteral("sinkMap"));
    m_plot->setMinimumSize(300, 200);
    m_plot->setToolTipProvider([this](int row, int col) -> QString {
        if (!m_report || !m_model || row < 0 || col < 0 || row >= m_report->byPosition.rows() || col >= m_report->byPosition.cols())
            return {};
        const int heads = m_model->config.nHead;
        const std::string bytes = m_model->tokenizer.bytes(m_ids[std::size_t(col)]);
        return tr("Layer %1, head %2, position %3 (“%4”)").arg(row / heads + 1).arg(row % heads + 1).arg(col + 1).arg(tokenPlain(bytes))
            + QLatin1Char('\n')
            + tr("weight on the first token: %1; evenly spread over the %2 tokens it reads: %3")
                  .arg(number(m_report->byPosition(row, col), 4))
                  .arg(col + 1)
                  .arg(number(1.0 / (col + 1), 4));
    });
    root->addWidget(m_plot, 1);

    auto *bottom = new QHBoxLayout;
    auto *tableColumn = new QVBoxLayout;
    m_tableTitle = new QLabel(this);
    m_table = new QTableWidget(3, 3, this);
    m_table->setObjectName(QStringLiteral("sinkTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setFocusPolicy(Qt::NoFocus);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            auto *item = new QTableWidgetItem;
            if (c > 0)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(r, c, item);
        }
    tableColumn->addWidget(m_tableTitle);
    tableColumn->addWidget(m_table);
    tableColumn->addStretch(1);
    bottom->addLayout(tableColumn);
    auto *notes = new QVBoxLayout;
    m_paper = new QLabel(this);
    m_paper->setObjectName(QStringLiteral("sinkPaper"));
    m_paper->setWordWrap(true);
    m_finding = new QLabel(this);
    m_finding->setObjectName(QStringLiteral("sinkFinding"));
    m_finding->setWordWrap(true);
    m_finding->setTextFormat(Qt::RichText);
    notes->addWidget(m_paper);
    notes->addWidget(m_finding);
    notes->addStretch(1);
    bottom->addSpacing(8);
    bottom->addLayout(notes, 1);
    root->addLayout(bottom);
    // Room the map cannot use (its cells are as tall as their width allows)
    // goes below the table, not around the map.
    root->addStretch(0);
    connect(m_plot, &QCustomPlot::afterReplot, this, &SinkView::fitPlotHeight, Qt::QueuedConnection);

    connect(m_source, &QComboBox::currentIndexChanged, this, [this] {
        m_newText->setEnabled(source() == Source::OwnText);
        changed(false);
    });
    connect(m_newText, &QPushButton::clicked, this, [this] { setSeed(m_seed + 1); });
    connect(m_window, &QSpinBox::valueChanged, this, [this](int w) {
        m_sinks->setMaximum(std::max(1, w - 1));
        changed(false);
    });
    connect(m_sinks, &QSpinBox::valueChanged, this, [this] { changed(false); });
    retranslate();
}

SinkView::~SinkView()
{
    m_cancel = true;
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

void SinkView::setModel(std::shared_ptr<const Gpt2Model> model)
{
    m_model = std::move(model);
    m_sentence.clear(); // another model's ids
    changed(true);
}

void SinkView::setSentence(const std::vector<int> &ids)
{
    if (ids == m_sentence)
        return;
    m_sentence = ids;
    if (source() == Source::Sentence)
        changed(false);
}

void SinkView::setSource(Source s)
{
    m_source->setCurrentIndex(s == Source::Sentence ? 1 : 0);
}

SinkView::Source SinkView::source() const
{
    return m_source->currentIndex() == 1 ? Source::Sentence : Source::OwnText;
}

void SinkView::setSeed(std::uint64_t seed)
{
    m_seed = seed;
    changed(true);
}

void SinkView::setWindow(int window)
{
    m_window->setValue(window);
}

void SinkView::setSinks(int sinks)
{
    m_sinks->setValue(sinks);
}

// Something the result depends on changed: run again, now if the tab is
// shown, else when it is.
void SinkView::changed(bool newText)
{
    if (newText)
        m_ownIds.clear();
    m_dirty = true;
    if (isVisible())
        start();
}

// A long text's map is as wide as the tab and no taller than its cells
// allow (HeatmapPlot keeps them near square): the plot, laid out with its
// block centred, gives back the empty bands above and below it.
void SinkView::fitPlotHeight()
{
    if (m_plot->rowCount() == 0 || !m_plot->isVisible())
        return;
    const int top = int(m_plot->titleElement()->outerRect().top());
    const int spare = 2 * (top - 6);
    if (spare > 8 && m_plot->height() - spare >= m_plot->minimumHeight())
        m_plot->setMaximumHeight(m_plot->height() - spare);
}

void SinkView::fitTokensHeight()
{
    // One line of the token chips, measured as the label lays them out.
    QLabel line;
    line.setFont(m_tokens->font());
    line.setTextFormat(Qt::RichText);
    line.setText(QStringLiteral("<span style=\"background-color:#dbe7f5;\">the</span> cat"));
    const int one = std::max(1, line.sizeHint().height());
    // Measured at the width the label has (beside a scroll bar when the text is long).
    const int width = m_tokens->width() > 100 ? m_tokens->width()
                                              : m_tokensScroll->width() - m_tokensScroll->verticalScrollBar()->sizeHint().width();
    const int whole = std::max(m_tokens->heightForWidth(std::max(100, width)), one);
    // The lines of the whole text (a Chinese token makes its line taller): three of them at most.
    const int lines = std::max(1, int(std::lround(double(whole) / one)));
    const int most = lines <= 3 ? whole : int(std::ceil(3.0 * whole / lines));
    m_tokensScroll->setFixedHeight(std::min(most, whole) + 2);
}

void SinkView::resizeEvent(QResizeEvent *event)
{
    // Wider or narrower: the map may want another height; let it take all and fit again.
    if (event->oldSize().width() != event->size().width()) {
        m_plot->setMaximumHeight(QWIDGETSIZE_MAX);
        QMetaObject::invokeMethod(this, &SinkView::fitTokensHeight, Qt::QueuedConnection);
    }
    QWidget::resizeEvent(event);
}

void SinkView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        start();
}

void SinkView::start()
{
    if (m_thread || !m_dirty)
        return; // the run in progress starts the next when it ends
    m_dirty = false;
    if (!m_model) {
        present({});
        return;
    }
    Request r;
    r.model = m_model;
    r.ids = source() == Source::Sentence ? m_sentence : m_ownIds;
    r.tokens = ownTextTokens(*m_model);
    r.seed = m_seed;
    r.window = m_window->value();
    r.sinks = m_sinks->value();
    m_running = r;
    const int id = ++m_runId;
    m_cancel = false;
    m_status->setText(tr("Computing…"));
    m_thread = QThread::create([this, r] { m_outcome = run(r, m_cancel); });
    connect(m_thread, &QThread::finished, this, [this, id] { finish(id); });
    m_thread->start();
}

SinkView::Outcome SinkView::run(const Request &r, const std::atomic<bool> &cancel)
{
    Outcome o;
    QElapsedTimer clock;
    clock.start();
    if (r.ids.empty()) {
        auto written = sinkText(*r.model, r.tokens, r.seed, &cancel);
        if (const Problem *p = written.problem()) {
            o.problem = problemText(*p);
            return o;
        }
        o.ids = std::move(written.value());
    } else {
        o.ids = r.ids;
    }
    if (cancel)
        return o;
    const int n = int(o.ids.size());
    if (n < 3) {
        o.problem = tr("The experiment needs a text of at least 3 tokens (this one has %1).").arg(n);
        return o;
    }
    // The values asked for, within what this text allows.
    const int window = std::clamp(r.window, 2, n - 1);
    const int sinks = std::clamp(r.sinks, 1, window - 1);
    auto report = sinkExperiment(*r.model, o.ids, window, sinks);
    if (const Problem *p = report.problem())
        o.problem = problemText(*p);
    else
        o.report = std::move(report.value());
    o.ms = double(clock.nsecsElapsed()) / 1e6;
    return o;
}

void SinkView::finish(int runId)
{
    if (!m_thread || runId != m_runId)
        return; // already taken (waitForResult)
    m_thread->wait();
    m_thread->deleteLater();
    m_thread = nullptr;
    Outcome o = std::move(m_outcome);
    m_outcome = {};
    // The model's own text is kept for its seed: a new window needs no new text.
    if (m_running.ids.empty() && m_running.model == m_model && m_running.seed == m_seed && !o.ids.empty())
        m_ownIds = o.ids;
    const bool stale = m_running.model != m_model;
    m_running = {};
    if (m_dirty) {
        start(); // what was asked meanwhile; this result is not shown
        return;
    }
    if (!stale)
        present(std::move(o));
}

void SinkView::waitForResult()
{
    for (int guard = 0; guard < 16 && (m_thread || m_dirty); ++guard) {
        if (!m_thread)
            start();
        if (m_thread) {
            m_thread->wait();
            finish(m_runId);
        }
    }
}

void SinkView::present(Outcome o)
{
    m_ids = std::move(o.ids);
    m_report = std::move(o.report);
    m_shownProblem = o.problem;
    if (m_report && m_report->rows.size() == 3) {
        const QSignalBlocker b1(m_window), b2(m_sinks);
        updateRanges(int(m_ids.size()));
        m_window->setValue(m_report->rows[1].window);
        m_sinks->setMaximum(std::max(1, m_report->rows[1].window - 1));
        m_sinks->setValue(m_report->rows[2].sinks);
    } else if (!m_ids.empty()) {
        updateRanges(int(m_ids.size()));
    }
    m_problem->setText(m_shownProblem);
    m_problem->setVisible(!m_shownProblem.isEmpty());
    m_status->setText(m_report ? tr("%1 tokens · %2 ms").arg(m_ids.size()).arg(number(o.ms, 0)) : QString());
    updateTokens();
    updatePlot();
    updateTable();
    emit computed();
}

void SinkView::updateRanges(int tokens)
{
    m_window->setRange(2, std::max(2, tokens - 1));
    m_sinks->setRange(1, std::max(1, m_window->value() - 1));
}

void SinkView::updateTokens()
{
    if (!m_model || m_ids.empty()) {
        m_tokens->clear();
        m_tokensTitle->setText(tr("Text:"));
        return;
    }
    QString html;
    for (std::size_t i = 0; i < m_ids.size(); ++i) {
        // Alternating backgrounds: where one token ends and the next begins.
        const char *bg = i % 2 ? "#f6e7cf" : "#dbe7f5";
        html += QStringLiteral("<span style=\"background-color:%1; color:#1a1a1a;\">%2</span>")
                    .arg(QLatin1String(bg), tokenPlain(m_model->tokenizer.bytes(m_ids[i])).toHtmlEscaped());
        html += QStringLiteral(" ");
    }
    m_tokens->setText(html);
    fitTokensHeight();
    QMetaObject::invokeMethod(this, &SinkView::fitTokensHeight, Qt::QueuedConnection); // at the width laid out
    m_tokensTitle->setText(source() == Source::OwnText ? tr("The model's text (%1 tokens, seed %2):").arg(m_ids.size()).arg(m_seed)
                                                       : tr("The sentence (%1 tokens):").arg(m_ids.size()));
}

void SinkView::updatePlot()
{
    HeatmapData d;
    if (!m_report || !m_model) {
        m_plot->setData(d);
        return;
    }
    const int heads = m_model->config.nHead;
    const int n = int(m_ids.size());
    if (m_plot->rowCount() != int(m_report->byPosition.rows()) || m_plot->columnCount() != n)
        m_plot->setMaximumHeight(QWIDGETSIZE_MAX); // another shape: fitted again
    d.values = m_report->byPosition;
    for (int l = 0; l < m_model->config.nLayer; ++l)
        for (int h = 0; h < heads; ++h) {
            d.rowLabels << tr("L%1H%2").arg(l + 1).arg(h + 1);
            d.rowNotes << number(m_report->firstTokenWeight[std::size_t(l)][std::size_t(h)], 3);
        }
    for (int id : m_ids)
        d.colLabels << tokenPlain(m_model->tokenizer.bytes(id));
    d.rowAxisLabel = tr("head");
    d.colAxisLabel = tr("position i (the query), 1 to %1").arg(n);
    d.title = tr("Weight on the first token") + QLatin1Char('\n') + tr("every head at every position of the text (full causal attention)");
    d.colorBarLabel = tr("weight");
    d.scale = HeatmapScale::Probability;
    d.rowNotesLabel = tr("mean");
    d.rowNotesLegend = tr("mean = over positions 2 to %1; evenly spread causal rows would give %2")
                           .arg(n)
                           .arg(number(uniformFirstTokenWeight(n), 3));
    m_plot->setData(std::move(d));
}

void SinkView::updateTable()
{
    const bool have = m_report && m_report->rows.size() == 3;
    for (int r = 0; r < 3; ++r) {
        QTableWidgetItem *name = m_table->item(r, 0), *loss = m_table->item(r, 1), *ppl = m_table->item(r, 2);
        if (!have) {
            name->setText(QString());
            loss->setText(QString());
            ppl->setText(QString());
            loss->setData(Qt::UserRole, QVariant());
            ppl->setData(Qt::UserRole, QVariant());
            continue;
        }
        const SinkRow &row = m_report->rows[std::size_t(r)];
        name->setText(r == 0 ? tr("full") : r == 1 ? tr("window %1").arg(row.window) : tr("%1 sinks + window %2").arg(row.sinks).arg(row.window));
        loss->setText(number(row.loss, 4));
        loss->setData(Qt::UserRole, row.loss);
        ppl->setText(number(row.perplexity, 3));
        ppl->setData(Qt::UserRole, row.perplexity);
    }
    m_table->resizeColumnsToContents();
    m_table->updateGeometry();
    if (!have) {
        m_finding->clear();
        return;
    }
    const SinkReport &rep = *m_report;
    const double cost = rep.windowCostPercent();
    const int sinks = rep.rows[2].sinks;
    QString line;
    if (const auto back = rep.sinksRecoverPercent())
        line = tr("<b>Our model:</b> the window alone costs %1 % more loss; the %2 sinks bring back %3 % of it.")
                   .arg(number(cost, 2))
                   .arg(sinks)
                   .arg(number(*back, 1));
    else
        line = tr("<b>Our model:</b> the window alone changes the loss by %1 %: it costs nothing here; with %2 sinks: %3 %.")
                   .arg((cost > 0 ? QStringLiteral("+") : QString()) + number(cost, 2))
                   .arg(sinks)
                   .arg(number((rep.rows[2].loss - rep.rows[0].loss) / rep.rows[0].loss * 100, 2));
    // The head that leans most on the first token, against the uniform baseline.
    double most = -1;
    int ml = 0, mh = 0;
    for (std::size_t l = 0; l < rep.firstTokenWeight.size(); ++l)
        for (std::size_t h = 0; h < rep.firstTokenWeight[l].size(); ++h)
            if (rep.firstTokenWeight[l][h] > most) {
                most = rep.firstTokenWeight[l][h];
                ml = int(l);
                mh = int(h);
            }
    const double uniform = uniformFirstTokenWeight(int(m_ids.size()));
    line += QLatin1Char(' ')
        + tr("The head that leans most on the first token, L%1H%2, puts %3 there on average, %4 times what evenly spread rows would (%5).")
              .arg(ml + 1)
              .arg(mh + 1)
              .arg(number(most, 3))
              .arg(number(uniform > 0 ? most / uniform : 0, 1))
              .arg(number(uniform, 3));
    m_finding->setText(line);
}

void SinkView::retranslate()
{
    m_sourceLabel->setText(tr("&Text:"));
    m_source->setItemText(0, tr("the model's own"));
    m_source->setItemText(1, tr("the sentence above"));
    m_source->setToolTip(tr("The model's own text: it writes from “the cat” at temperature 1, as long as its context. "
                            "The sentence above: what the model mode reads."));
    m_newText->setText(tr("&New text"));
    m_newText->setToolTip(tr("The model writes another text (the next seed)"));
    m_windowLabel->setText(tr("&Window"));
    m_window->setToolTip(tr("Each query reads only its last w tokens (itself included)"));
    m_sinksLabel->setText(tr("S&inks"));
    m_sinks->setToolTip(tr("The first s tokens stay readable beside the window"));
    m_tableTitle->setText(tr("<b>StreamingLLM's experiment</b> on this text"));
    m_table->setHorizontalHeaderLabels({tr("attention"), tr("loss (nats/token)"), tr("perplexity")});
    m_paper->setText(tr("The paper (Xiao et al. 2023, StreamingLLM): Llama-2-13B on 65K tokens has perplexity %1 with "
                        "window attention alone, and %2 with 4 sinks + the window.")
                         .arg(number(kPaperWindowPerplexity, 0))
                         .arg(number(kPaperSinksPerplexity, 2)));
    updateTokens();
    updatePlot();
    updateTable();
}

void SinkView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    if (event->type() == QEvent::FontChange) { // a zoom: the labels take other room
        m_plot->setMaximumHeight(QWIDGETSIZE_MAX);
        fitTokensHeight();
    }
    QWidget::changeEvent(event);
}

} // namespace attn
