#include "encoderview.h"

#include "distributionbars.h"
#include "gradients.h"
#include "headgrid.h"
#include "heatmapplot.h"
#include "modelfile.h"
#include "takehead.h"

#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace attn {

namespace {

// Sentences of the grammar the shipped encoder read, each with a [MASK]:
// a verb, a word the grammar fixes, agreement across a phrase and a
// pronoun that looks back across a sentence.
const char *const kExamples[] = {
    "我 [MASK] 你 。",
    "the cat [MASK] on the mat .",
    "the [MASK] near the tree chase the ball .",
    "小明 看见 了 小红 ， [MASK] 很 高兴 。",
    "the girl sees the king . [MASK] is happy .",
};

} // namespace

EncoderView::EncoderView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_textLabel = new QLabel(this);
    m_text = new QLineEdit(this);
    m_text->setObjectName(QStringLiteral("encoderText"));
    m_text->setMaxLength(kMaxModelTextCharacters);
    m_textLabel->setBuddy(m_text);
    m_examples = new QComboBox(this);
    m_examples->setObjectName(QStringLiteral("encoderExamples"));
    for (const char *e : kExamples)
        m_examples->addItem(QString::fromUtf8(e));
    m_take = new QPushButton(this);
    m_take->setObjectName(QStringLiteral("encoderTakeHead"));
    top->addWidget(m_textLabel);
    top->addWidget(m_text, 1);
    top->addWidget(m_examples);
    top->addWidget(m_take);
    layout->addLayout(top);

    m_modelLabel = new QLabel(this);
    m_modelLabel->setObjectName(QStringLiteral("encoderModel"));
    m_modelLabel->setWordWrap(true);
    m_about = new QLabel(this);
    m_about->setWordWrap(true);
    layout->addWidget(m_modelLabel);
    layout->addWidget(m_about);
    auto *loading = new QHBoxLayout;
    m_progress = new QProgressBar(this);
    m_cancel = new QPushButton(this);
    m_load = std::make_unique<BackgroundLoad<BertModel>>(this, m_progress, m_cancel);
    loading->addWidget(m_progress, 1);
    loading->addWidget(m_cancel);
    layout->addLayout(loading);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("encoderMessage"));
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_message->hide();
    layout->addWidget(m_message);

    auto *body = new QGridLayout;
    m_grid = new HeadGrid(this);
    m_grid->setObjectName(QStringLiteral("encoderGrid"));
    m_grid->setGradient(sequentialGradient(SequentialGradient::Viridis));
    m_plot = new HeatmapPlot(this);
    m_plot->setObjectName(QStringLiteral("encoderMap"));
    m_plot->setMinimumSize(260, 220);
    m_source = new QLabel(this);
    m_source->setObjectName(QStringLiteral("encoderSource"));
    m_source->setWordWrap(true);
    auto *right = new QVBoxLayout;
    m_fillTitle = new QLabel(this);
    m_fillTitle->setWordWrap(true);
    QFont bold = m_fillTitle->font();
    bold.setBold(true);
    m_fillTitle->setFont(bold);
    m_bars = new DistributionBars(this);
    m_bars->setObjectName(QStringLiteral("encoderFill"));
    m_bars->setMinimumWidth(220);
    right->addWidget(m_fillTitle);
    right->addWidget(m_bars);
    right->addStretch(1);
    body->addWidget(m_grid, 0, 0);
    body->addWidget(m_plot, 0, 1);
    body->addLayout(right, 0, 2);
    body->addWidget(m_source, 1, 0, 1, 3);
    body->setColumnStretch(0, 2);
    body->setColumnStretch(1, 3);
    body->setColumnStretch(2, 2);
    body->setRowStretch(0, 1);
    layout->addLayout(body, 1);

    connect(m_text, &QLineEdit::textChanged, this, &EncoderView::recompute);
    connect(m_examples, &QComboBox::activated, this, [this](int i) { setText(m_examples->itemText(i)); });
    connect(m_grid, &HeadGrid::cellClicked, this, [this](int row, int col) { setHead(row, col); });
    connect(m_take, &QPushButton::clicked, this, [this] {
        if (!m_model || !m_trace)
            return;
        auto s = encoderHeadScenario(*m_model, *m_trace, m_layer, m_head);
        if (const Problem *p = s.problem()) {
            emit refused(QString::fromStdString(p->toString()));
            return;
        }
        emit takeHeadRequested(s.value(), tr("Take encoder layer %1, head %2 into the lab").arg(m_layer + 1).arg(m_head + 1));
    });
    retranslate();
    m_text->setText(QString::fromUtf8(kExamples[0]));
}

EncoderView::~EncoderView() = default;

std::optional<Problem> EncoderView::ensureModel()
{
    if (m_model)
        return std::nullopt;
    auto loaded = loadBuiltinEncoder();
    if (const Problem *p = loaded.problem())
        return *p;
    setModel(loaded.value());
    return std::nullopt;
}

void EncoderView::setModel(std::shared_ptr<const BertModel> model)
{
    m_model = std::move(model);
    m_layer = std::min(m_layer, m_model ? m_model->config.nLayer - 1 : 0);
    m_head = std::min(m_head, m_model ? m_model->config.nHead - 1 : 0);
    retranslate();
    recompute();
}

void EncoderView::openFolder(const QString &folder)
{
    m_load->start([folder](const LoadControl &control) { return loadEncoder(folder, control); },
                  [this](EncoderOrProblem result) { loadDone(std::move(result)); });
}

void EncoderView::cancelLoading()
{
    m_load->cancel();
}

void EncoderView::loadDone(EncoderOrProblem result)
{
    if (const Problem *p = result.problem()) {
        emit failed(QString::fromStdString(p->toString()));
        return;
    }
    setModel(result.value());
    emit loaded(m_model->name);
}

void EncoderView::setText(const QString &text)
{
    m_text->setText(text);
}

QString EncoderView::text() const
{
    return m_text->text();
}

void EncoderView::setHead(int layer, int head)
{
    if (!m_model || layer < 0 || head < 0 || layer >= m_model->config.nLayer || head >= m_model->config.nHead)
        return;
    m_layer = layer;
    m_head = head;
    redraw();
}

QString EncoderView::problemText() const
{
    return m_problem;
}

QString EncoderView::sourceText(const BertConfig &c, int tokens, int layer)
{
    //: %1 tokens, %2 the layer, %3 hidden size, %4 the head's width.
    return tr("Q, K and V come from the same sequence: the %1 tokens' states entering layer %2 (%1 × %3), times W_Q, "
              "W_K and W_V (%3 × %4 each, this head's columns): Q, K and V are %1 × %4. No causal mask: row i reads "
              "every key, the later ones too. (Cross-attention would take K and V from another sequence.)")
        .arg(tokens)
        .arg(layer + 1)
        .arg(c.hidden)
        .arg(c.headDim());
}

QString EncoderView::sourceText() const
{
    return m_model && m_trace ? sourceText(m_model->config, int(m_trace->ids.size()), m_layer) : QString();
}

void EncoderView::recompute()
{
    m_trace.reset();
    m_problem.clear();
    if (m_model) {
        auto t = runEncoder(*m_model, m_text->text(), 5);
        if (const Problem *p = t.problem())
            m_problem = QString::fromStdString(p->message);
        else
            m_trace = std::make_shared<const EncoderTrace>(std::move(t.value()));
    }
    redraw();
}

void EncoderView::redraw()
{
    m_message->setVisible(!m_problem.isEmpty());
    m_message->setText(m_problem);
    m_take->setEnabled(m_trace != nullptr);
    if (!m_trace || !m_model) {
        m_grid->setData({});
        m_plot->setData({});
        m_bars->setBars({});
        m_source->clear();
        return;
    }
    const EncoderTrace &t = *m_trace;
    QStringList labels;
    for (const std::string &p : t.pieces)
        labels << QString::fromStdString(p);
    HeadGridWords words;
    words.rowLabel = tr("L%1");
    words.colLabel = tr("H%1");
    HeadGridData grid = headGridData(int(t.layers.size()), m_model->config.nHead,
                                     [&t](int l, int h) -> const Matrix & { return t.layers[std::size_t(l)].heads[std::size_t(h)].weights; },
                                     words);
    for (HeadGridCell &c : grid.cells)
        c.causal = false; // an encoder: no key is blocked
    m_grid->setData(std::move(grid));
    m_grid->setSelected(m_layer, m_head);

    HeatmapData d;
    d.values = t.layers[std::size_t(m_layer)].heads[std::size_t(m_head)].weights;
    d.rowLabels = labels;
    d.colLabels = labels;
    d.rowAxisLabel = tr("queries");
    d.colAxisLabel = tr("keys");
    d.title = tr("Layer %1, head %2: weights").arg(m_layer + 1).arg(m_head + 1);
    d.colorBarLabel = tr("weight");
    d.scale = HeatmapScale::Probability;
    m_plot->setData(std::move(d));
    m_source->setText(sourceText());

    std::vector<DistributionBar> bars;
    if (!t.fills.empty()) {
        const MaskFill &f = t.fills.front();
        for (std::size_t i = 0; i < f.top.size(); ++i)
            bars.push_back({QString::fromStdString(f.top[i].text), f.top[i].p, f.top[i].p, i == 0});
        m_fillTitle->setText(t.fills.size() == 1
                                 ? tr("[MASK] at position %1: the model's guesses").arg(f.position + 1)
                                 //: %1 the first mask's position, %2 how many masks.
                                 : tr("[MASK] at position %1 (the first of %2): the model's guesses").arg(f.position + 1).arg(t.fills.size()));
    } else {
        m_fillTitle->setText(m_model->hasMaskedLm ? tr("Write [MASK] where the model should guess a word.")
                                                  : tr("This model has no masked-word head: nothing to fill."));
    }
    m_bars->setBars(std::move(bars));
}

void EncoderView::retranslate()
{
    m_textLabel->setText(tr("&Sentence:"));
    m_take->setText(tr("Take this head into the lab"));
    m_take->setToolTip(tr("The chosen head's Q, K and V as a lab scenario, without the causal mask"));
    m_cancel->setText(tr("Cancel"));
    m_about->setText(tr("An encoder (BERT) reads the sentence both ways: every token attends to every other, before "
                        "and after it, so no map has the causal triangle. It was trained to fill in hidden words: "
                        "write [MASK] in the sentence."));
    if (m_model)
        m_modelLabel->setText(tr("Encoder: %1 (%2 layers × %3 heads, hidden %4, %5 parameters)")
                                  .arg(m_model->name)
                                  .arg(m_model->config.nLayer)
                                  .arg(m_model->config.nHead)
                                  .arg(m_model->config.hidden)
                                  .arg(QString::fromStdString(groupedNumber(double(m_model->parameters)))));
    m_bars->setEmptyText(tr("No guess"));
    if (m_trace)
        redraw();
}

void EncoderView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

} // namespace attn
