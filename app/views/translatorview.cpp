#include "translatorview.h"

#include "bpe.h"
#include "distributionbars.h"
#include "gradients.h"
#include "headgrid.h"
#include "heatmapplot.h"
#include "modelfile.h"
#include "numbers.h"
#include "samplingcontrols.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>

namespace attn {

namespace {

// Pairs of the grammar the shipped translator learnt, both ways: a word
// order the languages share, a place that moves (在 家 before the verb,
// "at home" after it: a crossing), and a time word in front.
const char *const kExamples[] = {
    "我 打 你 。",
    "小明 在 家 帮助 她 。",
    "昨天 猫 追 狗 。",
    "I hit you .",
    "the boy helps her at home .",
};

QString shown(const std::string &bytes)
{
    return QString::fromStdString(tokenLabel(bytes));
}

} // namespace

TranslatorView::TranslatorView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_textLabel = new QLabel(this);
    m_text = new QLineEdit(this);
    m_text->setObjectName(QStringLiteral("translatorText"));
    m_text->setMaxLength(kMaxModelTextCharacters);
    m_textLabel->setBuddy(m_text);
    m_examples = new QComboBox(this);
    m_examples->setObjectName(QStringLiteral("translatorExamples"));
    for (const char *e : kExamples)
        m_examples->addItem(QString::fromUtf8(e));
    m_take = new QPushButton(this);
    m_take->setObjectName(QStringLiteral("translatorTakeHead"));
    top->addWidget(m_textLabel);
    top->addWidget(m_text, 1);
    top->addWidget(m_examples);
    top->addWidget(m_take);
    layout->addLayout(top);

    m_written = new QLabel(this);
    m_written->setObjectName(QStringLiteral("translatorWritten"));
    m_written->setWordWrap(true);
    m_written->setTextFormat(Qt::RichText);
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    m_written->setFont(big);
    layout->addWidget(m_written);
    m_modelLabel = new QLabel(this);
    m_modelLabel->setObjectName(QStringLiteral("translatorModel"));
    m_modelLabel->setWordWrap(true);
    m_about = new QLabel(this);
    m_about->setWordWrap(true);
    layout->addWidget(m_modelLabel);
    layout->addWidget(m_about);
    auto *loading = new QHBoxLayout;
    m_progress = new QProgressBar(this);
    m_cancel = new QPushButton(this);
    m_load = std::make_unique<BackgroundLoad<BartModel>>(this, m_progress, m_cancel);
    loading->addWidget(m_progress, 1);
    loading->addWidget(m_cancel);
    layout->addLayout(loading);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("translatorMessage"));
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_message->hide();
    layout->addWidget(m_message);

    auto *body = new QGridLayout;
    auto *left = new QVBoxLayout;
    m_kindGroup = new QButtonGroup(this);
    for (int i = 0; i < 3; ++i) {
        m_kindButtons[i] = new QRadioButton(this);
        m_kindGroup->addButton(m_kindButtons[i], i);
        left->addWidget(m_kindButtons[i]);
    }
    m_kindButtons[0]->setObjectName(QStringLiteral("translatorEncoderSelf"));
    m_kindButtons[1]->setObjectName(QStringLiteral("translatorDecoderSelf"));
    m_kindButtons[2]->setObjectName(QStringLiteral("translatorCross"));
    m_kindButtons[int(m_kind)]->setChecked(true);
    m_average = new QCheckBox(this);
    m_average->setObjectName(QStringLiteral("translatorAverage"));
    m_average->setChecked(true);
    left->addWidget(m_average);
    m_grid = new HeadGrid(this);
    m_grid->setObjectName(QStringLiteral("translatorGrid"));
    m_grid->setGradient(sequentialGradient(SequentialGradient::Viridis));
    left->addWidget(m_grid, 1);
    m_plot = new HeatmapPlot(this);
    m_plot->setObjectName(QStringLiteral("translatorMap"));
    m_plot->setMinimumSize(260, 220);
    m_sourceLabel = new QLabel(this);
    m_sourceLabel->setObjectName(QStringLiteral("translatorSource"));
    m_sourceLabel->setWordWrap(true);

    // The right column scrolls rather than squeezing its fields at projector zoom.
    auto *rightArea = new QScrollArea(this);
    rightArea->setWidgetResizable(true);
    rightArea->setFrameShape(QFrame::NoFrame);
    rightArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *rightWidget = new QWidget(rightArea);
    auto *right = new QVBoxLayout(rightWidget);
    right->setContentsMargins(0, 0, 0, 0);
    rightArea->setWidget(rightWidget);
    m_controls = new SamplingControls(this);
    m_controls->setObjectName(QStringLiteral("translatorControls"));
    SamplingSettings greedy;
    greedy.temperature = 0;
    greedy.steps = 31;
    m_controls->setSettings(greedy);
    m_controls->setStepper([this] { return step(); });
    m_barsTitle = new QLabel(this);
    m_barsTitle->setWordWrap(true);
    QFont bold = m_barsTitle->font();
    bold.setBold(true);
    m_barsTitle->setFont(bold);
    m_bars = new DistributionBars(this);
    m_bars->setObjectName(QStringLiteral("translatorNext"));
    m_bars->setMinimumWidth(220);
    m_cache = new QLabel(this);
    m_cache->setWordWrap(true);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    right->addWidget(m_controls);
    right->addWidget(m_barsTitle);
    right->addWidget(m_bars);
    right->addWidget(m_cache);
    right->addWidget(m_status);
    right->addStretch(1);
    body->addLayout(left, 0, 0);
    body->addWidget(m_plot, 0, 1);
    body->addWidget(rightArea, 0, 2);
    body->addWidget(m_sourceLabel, 1, 0, 1, 3);
    body->setColumnStretch(0, 2);
    body->setColumnStretch(1, 4);
    body->setColumnStretch(2, 2);
    body->setRowStretch(0, 1);
    layout->addLayout(body, 1);

    connect(m_text, &QLineEdit::textChanged, this, &TranslatorView::writeAll);
    connect(m_examples, &QComboBox::activated, this, [this](int i) { setText(m_examples->itemText(i)); });
    connect(m_kindGroup, &QButtonGroup::idClicked, this, [this](int id) { setKind(Seq2SeqKind(id)); });
    connect(m_grid, &HeadGrid::cellClicked, this, [this](int row, int col) { setHead(row, col); });
    connect(m_average, &QCheckBox::toggled, this, &TranslatorView::redraw);
    connect(m_controls, &SamplingControls::resetRequested, this, &TranslatorView::reset);
    // New settings write the translation again to the same step (all of it
    // when it was finished), so the class sees what they change.
    connect(m_controls, &SamplingControls::settingsChanged, this, [this] {
        const int keep = m_finished ? -1 : int(m_steps.size());
        reset();
        for (int i = 0; keep < 0 || i < keep; ++i)
            if (!step())
                break;
        if (m_finished)
            m_status->clear();
    });
    connect(m_take, &QPushButton::clicked, this, [this] {
        if (!m_model || !m_trace)
            return;
        auto s = seq2seqHeadScenario(*m_model, *m_trace, m_kind, m_layer, m_head);
        if (const Problem *p = s.problem()) {
            emit refused(QString::fromStdString(p->toString()));
            return;
        }
        const QString what = m_kind == Seq2SeqKind::EncoderSelf   ? tr("encoder self-attention")
                             : m_kind == Seq2SeqKind::DecoderSelf ? tr("decoder self-attention")
                                                                  : tr("cross-attention");
        //: %1 the kind of attention, %2 the layer, %3 the head.
        emit takeHeadRequested(s.value(), tr("Take %1, layer %2, head %3 into the lab").arg(what).arg(m_layer + 1).arg(m_head + 1));
    });
    retranslate();
    const QSignalBlocker block(m_text);
    m_text->setText(QString::fromUtf8(kExamples[0]));
}

TranslatorView::~TranslatorView() = default;

std::optional<Problem> TranslatorView::ensureModel()
{
    if (m_model)
        return std::nullopt;
    auto loaded = loadBuiltinSeq2Seq();
    if (const Problem *p = loaded.problem())
        return *p;
    setModel(loaded.value());
    return std::nullopt;
}

void TranslatorView::setModel(std::shared_ptr<const BartModel> model)
{
    m_model = std::move(model);
    if (m_model)
        m_controls->setMaximumSteps(m_model->config.maxPositions - 1);
    setKind(m_kind); // clamps the layer and head to the new model
    retranslate();
    writeAll();
}

void TranslatorView::openFolder(const QString &folder)
{
    m_load->start([folder](const LoadControl &control) { return loadSeq2Seq(folder, control); },
                  [this](Seq2SeqOrProblem result) { loadDone(std::move(result)); });
}

void TranslatorView::cancelLoading()
{
    m_load->cancel();
}

void TranslatorView::loadDone(Seq2SeqOrProblem result)
{
    if (const Problem *p = result.problem()) {
        emit failed(QString::fromStdString(p->toString()));
        return;
    }
    setModel(result.value());
    emit loaded(m_model->name);
}

void TranslatorView::setText(const QString &text)
{
    m_text->setText(text);
}

QString TranslatorView::text() const
{
    return m_text->text();
}

const std::vector<LayerActivations> *TranslatorView::layers() const
{
    if (!m_trace)
        return nullptr;
    switch (m_kind) {
    case Seq2SeqKind::EncoderSelf:
        return &m_trace->encoder;
    case Seq2SeqKind::DecoderSelf:
        return &m_trace->decoderSelf;
    case Seq2SeqKind::Cross:
        break;
    }
    return &m_trace->cross;
}

void TranslatorView::setKind(Seq2SeqKind kind)
{
    m_kind = kind;
    if (!m_kindButtons[int(kind)]->isChecked())
        m_kindButtons[int(kind)]->setChecked(true);
    if (m_model) {
        const BartConfig &c = m_model->config;
        const bool encoder = kind == Seq2SeqKind::EncoderSelf;
        m_layer = std::clamp(m_layer, 0, std::max(0, (encoder ? c.encoderLayers : c.decoderLayers) - 1));
        m_head = std::clamp(m_head, 0, std::max(0, (encoder ? c.encoderHeads : c.decoderHeads) - 1));
    }
    redraw();
}

void TranslatorView::setHead(int layer, int head)
{
    const std::vector<LayerActivations> *ls = layers();
    if (!ls || layer < 0 || layer >= int(ls->size()) || head < 0 || head >= int((*ls)[std::size_t(layer)].heads.size()))
        return;
    m_layer = layer;
    m_head = head;
    if (m_average->isChecked())
        m_average->setChecked(false); // redraws
    else
        redraw();
}

void TranslatorView::setAveraged(bool on)
{
    m_average->setChecked(on);
}

bool TranslatorView::averaged() const
{
    return m_average->isChecked();
}

void TranslatorView::reset()
{
    m_controls->pause();
    m_steps.clear();
    m_rng.reset();
    m_withCache = m_withoutCache = 0;
    m_finished = false;
    m_trace.reset();
    m_problem.clear();
    m_status->clear();
    if (m_model) {
        m_source = sourceIds(*m_model, m_text->text());
        if (m_text->text().trimmed().isEmpty()) {
            m_problem = tr("Type a sentence to translate.");
        } else {
            auto t = runSeq2Seq(*m_model, m_source, {m_model->config.decoderStart});
            if (const Problem *p = t.problem())
                m_problem = QString::fromStdString(p->message);
            else
                m_trace = std::make_shared<const Seq2SeqTrace>(std::move(t.value()));
        }
    }
    redraw();
}

bool TranslatorView::step()
{
    if (!m_model || !m_trace) {
        m_status->setText(m_model ? tr("Type a sentence to translate.") : tr("Open a model first."));
        return false;
    }
    if (m_finished) {
        m_status->setText(tr("The translation is finished (the model wrote </s>): Reset to write it again."));
        return false;
    }
    const SamplingSettings s = m_controls->settings();
    if (int(m_steps.size()) >= s.steps) {
        m_status->setText(tr("All %1 steps are done: Reset to start again, or raise Steps.").arg(s.steps));
        return false;
    }
    if (m_steps.size() == m_trace->targetIds.size()) {
        // The last token written becomes the decoder's next input: one new row through the cache.
        if (int(m_trace->targetIds.size()) >= m_model->config.maxPositions) {
            m_status->setText(tr("The translation is full: %1 writes at most %2 tokens.")
                                  .arg(m_model->name)
                                  .arg(m_model->config.maxPositions - 1));
            return false;
        }
        auto t = extendSeq2Seq(*m_model, *m_trace, m_steps.back().id);
        if (const Problem *p = t.problem()) {
            m_status->setText(QString::fromStdString(p->message));
            return false;
        }
        m_trace = std::make_shared<const Seq2SeqTrace>(std::move(t.value()));
    }
    if (!m_rng)
        m_rng.emplace(s.seed);
    GenerationStep st = chooseNextSeq2Seq(*m_model, *m_trace, s, *m_rng);
    if (st.p <= 0) {
        m_status->setText(tr("The model gave no token a probability."));
        return false;
    }
    m_withCache += st.cachedCells;
    m_withoutCache += st.uncachedCells;
    m_finished = st.id == m_model->config.eos;
    m_steps.push_back(std::move(st));
    m_status->clear();
    redraw();
    return true;
}

void TranslatorView::writeAll()
{
    reset();
    while (step()) {
    }
    if (m_finished)
        m_status->clear(); // the normal end is no news
}

std::string TranslatorView::translation() const
{
    if (!m_model)
        return {};
    std::vector<int> ids;
    for (const GenerationStep &st : m_steps)
        ids.push_back(st.id);
    return seq2seqText(*m_model, ids);
}

QString TranslatorView::problemText() const
{
    return m_problem;
}

QString TranslatorView::sourceText(Seq2SeqKind kind, const BartConfig &c, int sourceTokens, int targetTokens, int layer)
{
    const int dh = kind == Seq2SeqKind::EncoderSelf ? c.d / std::max(1, c.encoderHeads) : c.d / std::max(1, c.decoderHeads);
    switch (kind) {
    case Seq2SeqKind::EncoderSelf:
        //: %1 source tokens, %2 the layer, %3 d_model, %4 the head's width.
        return tr("Encoder self-attention: Q, K and V come from the same sequence, the source's %1 tokens entering encoder "
                  "layer %2 (%1 × %3), times W_Q, W_K, W_V (%3 × %4 each): Q, K, V are %1 × %4. No mask: every source "
                  "token reads every other, before and after it.")
            .arg(sourceTokens)
            .arg(layer + 1)
            .arg(c.d)
            .arg(dh);
    case Seq2SeqKind::DecoderSelf:
        //: %1 decoder tokens, %2 the layer, %3 d_model, %4 the head's width.
        return tr("Decoder self-attention: Q, K and V come from the same sequence, the decoder's %1 tokens so far in "
                  "decoder layer %2 (%1 × %3), times W_Q, W_K, W_V (%3 × %4 each): Q, K, V are %1 × %4. Causal: a token "
                  "reads only the tokens written before it, as when it was written.")
            .arg(targetTokens)
            .arg(layer + 1)
            .arg(c.d)
            .arg(dh);
    case Seq2SeqKind::Cross:
        break;
    }
    //: %1 decoder tokens, %2 source tokens, %3 the layer, %4 d_model, %5 the head's width.
    return tr("Cross-attention: Q comes from the decoder's %1 tokens (after its self-attention in layer %3: %1 × %4 times "
              "W_Q: %1 × %5); K and V come from the encoder's output over the source's %2 tokens (%2 × %4 times W_K, "
              "W_V: %2 × %5). The weights are %1 × %2: each word written looks up the source words.")
        .arg(targetTokens)
        .arg(sourceTokens)
        .arg(layer + 1)
        .arg(c.d)
        .arg(dh);
}

QString TranslatorView::sourceText() const
{
    return m_model && m_trace ? sourceText(m_kind, m_model->config, int(m_trace->sourceIds.size()),
                                           int(m_trace->targetIds.size()), m_layer)
                              : QString();
}

void TranslatorView::redraw()
{
    m_message->setVisible(!m_problem.isEmpty());
    m_message->setText(m_problem);
    m_take->setEnabled(m_trace != nullptr);
    const std::vector<LayerActivations> *ls = layers();
    if (!m_trace || !m_model || !ls || ls->empty()) {
        m_grid->setData({});
        m_plot->setData({});
        m_bars->setBars({});
        m_sourceLabel->clear();
        m_cache->clear();
        m_written->clear();
        return;
    }
    const Seq2SeqTrace &t = *m_trace;
    const BartModel &model = *m_model;
    QStringList source, inputs, rows;
    for (int id : t.sourceIds)
        source << shown(model.tokenizer.bytes(id));
    for (int id : t.targetIds)
        inputs << shown(model.tokenizer.bytes(id));
    // A decoder row is named by what it reads and what it wrote: the alignment.
    for (int i = 0; i < inputs.size(); ++i)
        rows << (std::size_t(i) < m_steps.size() ? tr("%1 → %2").arg(inputs[i], shown(m_steps[std::size_t(i)].text))
                                                 : inputs[i]);

    HeadGridWords words;
    words.rowLabel = tr("L%1");
    words.colLabel = tr("H%1");
    HeadGridData grid = headGridData(int(ls->size()), int(ls->front().heads.size()),
                                     [ls](int l, int h) -> const Matrix & { return (*ls)[std::size_t(l)].heads[std::size_t(h)].weights; },
                                     words);
    for (HeadGridCell &c : grid.cells)
        c.causal = m_kind == Seq2SeqKind::DecoderSelf;
    m_grid->setData(std::move(grid));
    m_grid->setSelected(m_layer, m_head);

    HeatmapData d;
    const LayerActivations &layer = (*ls)[std::size_t(m_layer)];
    const bool mean = m_average->isChecked();
    if (mean) {
        d.values = Matrix::Zero(layer.heads.front().weights.rows(), layer.heads.front().weights.cols());
        for (const HeadActivations &h : layer.heads)
            d.values += h.weights / double(layer.heads.size());
    } else {
        d.values = layer.heads[std::size_t(m_head)].weights;
    }
    //: %1 the layer, %2 the head or, averaged, how many heads.
    const QString which = mean ? tr("layer %1, the %2 heads averaged").arg(m_layer + 1).arg(layer.heads.size())
                               : tr("layer %1, head %2").arg(m_layer + 1).arg(m_head + 1);
    d.scale = HeatmapScale::Probability;
    d.colorBarLabel = tr("weight");
    switch (m_kind) {
    case Seq2SeqKind::EncoderSelf:
        d.rowLabels = d.colLabels = source;
        d.rowAxisLabel = tr("source queries");
        d.colAxisLabel = tr("source keys");
        d.title = tr("Encoder self-attention, %1: weights").arg(which);
        break;
    case Seq2SeqKind::DecoderSelf: {
        d.rowLabels = rows;
        d.colLabels = inputs;
        d.rowAxisLabel = tr("decoder: reads → writes");
        d.colAxisLabel = tr("decoder keys");
        d.title = tr("Decoder self-attention (causal), %1: weights").arg(which);
        const Eigen::Index m = d.values.rows();
        d.blocked = BoolMatrix::Constant(m, m, false);
        for (Eigen::Index i = 0; i < m; ++i)
            for (Eigen::Index j = i + 1; j < m; ++j)
                d.blocked(i, j) = true;
        d.blockedText = QStringLiteral("0");
        break;
    }
    case Seq2SeqKind::Cross:
        d.rowLabels = rows;
        d.colLabels = source;
        d.rowAxisLabel = tr("decoder: reads → writes");
        d.colAxisLabel = tr("source (the encoder's keys and values)");
        d.title = tr("Cross-attention, %1: the alignment").arg(which);
        break;
    }
    if (m_kind != Seq2SeqKind::EncoderSelf && t.reused > 0) {
        // The KV cache on the map: the rows kept from earlier steps, and the one this step computed.
        for (Eigen::Index i = 0; i < d.values.rows(); ++i)
            d.rowNotes << (i < t.reused ? tr("cached") : tr("new"));
        d.rowNotesLabel = tr("KV cache");
        d.rowNotesLegend = tr("cached: the row's keys and values were kept from earlier steps; new: the only row this step computed");
    }
    m_plot->setData(std::move(d));
    m_sourceLabel->setText(sourceText());

    // The translation so far, the last token marked.
    QString written = tr("Translation:") + QStringLiteral(" ");
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        std::vector<int> one{m_steps[i].id};
        QString piece = QString::fromStdString(seq2seqText(model, one)).toHtmlEscaped();
        if (piece.isEmpty()) // <s>, </s>: tokens too, set apart
            piece = QStringLiteral("<span style=\"color:#777777;\"> %1 </span>").arg(shown(m_steps[i].text).toHtmlEscaped());
        written += i + 1 == m_steps.size()
            ? QStringLiteral("<b style=\"background-color:#fdebd0; color:#1a1a1a;\">%1</b>").arg(piece)
            : QStringLiteral("<span style=\"color:#3465a4;\">%1</span>").arg(piece);
    }
    if (m_steps.empty())
        written += tr("(press Step)");
    m_written->setText(written);

    if (m_steps.empty()) {
        m_bars->setBars({});
        m_barsTitle->setText(tr("The next token's distribution"));
        m_cache->setText(tr("Each step computes only the new decoder row against the cached keys and values (its own "
                            "earlier rows' and the encoder's); without the cache the whole triangle and every row "
                            "against the source are computed again."));
        return;
    }
    const GenerationStep &st = m_steps.back();
    std::vector<DistributionBar> bars;
    for (const Candidate &c : st.top)
        bars.push_back({shown(model.tokenizer.bytes(c.id)), c.raw, c.p, c.id == st.id});
    if (std::none_of(st.top.begin(), st.top.end(), [&](const Candidate &c) { return c.id == st.id; }))
        bars.push_back({shown(st.text), 0.0, st.p, true}); // drawn from further down than the top 5
    m_bars->setBars(std::move(bars));
    const bool forced = m_steps.size() == 1 && model.config.forcedBos == st.id && st.u == 0;
    if (forced)
        m_barsTitle->setText(tr("Step 1 writes %1: the model's config forces it first (forced_bos_token_id)").arg(shown(st.text)));
    else if (m_controls->settings().temperature > 0)
        m_barsTitle->setText(tr("Step %1's distribution: softmax → after temperature, top-k, top-p; u = %2 chose %3")
                                 .arg(m_steps.size())
                                 .arg(QString::fromStdString(formatFixed(st.u, 4)), shown(st.text)));
    else
        m_barsTitle->setText(tr("Step %1's distribution: softmax → greedy (the most likely, %2)").arg(m_steps.size()).arg(shown(st.text)));
    //: %1 the step, %2 decoder tokens read, %3 of them from the cache, %4 entries computed, %5 source tokens, %6 without the cache, %7 and %8 the totals.
    m_cache->setText(tr("Step %1: the decoder read %2 tokens, %3 from the cache; a head computed %4 score entries (the new "
                        "row against the decoder's keys and against the %5 source keys); without the cache, %6. So far: "
                        "%7 against %8.")
                         .arg(m_steps.size())
                         .arg(t.targetIds.size())
                         .arg(st.reused)
                         .arg(st.cachedCells)
                         .arg(t.sourceIds.size())
                         .arg(st.uncachedCells)
                         .arg(m_withCache)
                         .arg(m_withoutCache));
}

void TranslatorView::retranslate()
{
    m_textLabel->setText(tr("&Source:"));
    m_take->setText(tr("Take this head into the lab"));
    m_take->setToolTip(tr("The chosen head's Q, K and V as a lab scenario; a cross-attention head keeps its two sequences "
                          "(queries from the decoder, keys and values from the encoder)"));
    m_cancel->setText(tr("Cancel"));
    m_kindButtons[0]->setText(tr("Encoder self-attention (both ways)"));
    m_kindButtons[1]->setText(tr("Decoder self-attention (causal)"));
    m_kindButtons[2]->setText(tr("Cross-attention (Q from the decoder, K and V from the encoder)"));
    m_average->setText(tr("Average the layer's heads"));
    m_average->setToolTip(tr("The mean of the chosen layer's heads: for the cross-attention, the alignment of the "
                             "words written with the source. Click a head to see it alone."));
    m_about->setText(tr("An encoder-decoder (BART) translates: the encoder reads the source both ways, the decoder writes "
                        "the translation token by token, reading what it wrote (causal) and the source (cross-attention). "
                        "Type Chinese or English."));
    if (m_model)
        m_modelLabel->setText(tr("Encoder-decoder: %1 (encoder %2 layers × %3 heads, decoder %4 layers × %5 heads, d_model "
                                 "%6, %7 parameters)")
                                  .arg(m_model->name)
                                  .arg(m_model->config.encoderLayers)
                                  .arg(m_model->config.encoderHeads)
                                  .arg(m_model->config.decoderLayers)
                                  .arg(m_model->config.decoderHeads)
                                  .arg(m_model->config.d)
                                  .arg(QString::fromStdString(groupedNumber(double(m_model->parameters)))));
    m_bars->setEmptyText(tr("Press Step: the next token's distribution appears here."));
    redraw();
}

void TranslatorView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    if (event->type() == QEvent::FontChange) {
        // The translation a size above the rest, at every zoom.
        QFont big = font();
        big.setPointSizeF(big.pointSizeF() * 1.4);
        m_written->setFont(big);
    }
    QWidget::changeEvent(event);
}

} // namespace attn
