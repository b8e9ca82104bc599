#include "generationpanel.h"

#include "bpe.h"
#include "distributionbars.h"
#include "modelview.h"
#include "numbers.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace attn {

namespace {

QString shown(const std::string &bytes)
{
    return QString::fromStdString(tokenLabel(bytes));
}

QString html(const QString &s)
{
    return s.toHtmlEscaped();
}

} // namespace

GenerationPanel::GenerationPanel(ModelView *view, QWidget *parent) : QWidget(parent), m_view(view)
{
    setObjectName(QStringLiteral("generationPanel"));
    auto *root = new QVBoxLayout(this);
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    root->addWidget(m_title);

    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_stepsBox = new QSpinBox(this);
    m_stepsBox->setRange(1, 64);
    m_stepsBox->setValue(16);
    m_temperature = new QDoubleSpinBox(this);
    m_temperature->setRange(0, 5);
    m_temperature->setDecimals(2);
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(1.0);
    m_topK = new QSpinBox(this);
    m_topK->setRange(0, 1000);
    m_topP = new QDoubleSpinBox(this);
    m_topP->setRange(0.01, 1.0);
    m_topP->setDecimals(2);
    m_topP->setSingleStep(0.05);
    m_topP->setValue(1.0);
    m_seed = new QSpinBox(this);
    m_seed->setRange(0, 999999);
    m_speed = new QSlider(Qt::Horizontal, this);
    m_speed->setRange(100, 2000); // ms a token
    m_speed->setValue(700);
    m_speed->setInvertedAppearance(true); // right: faster
    m_stepsLabel = new QLabel(this);
    m_temperatureLabel = new QLabel(this);
    m_topKLabel = new QLabel(this);
    m_topPLabel = new QLabel(this);
    m_seedLabel = new QLabel(this);
    m_speedLabel = new QLabel(this);
    form->addRow(m_stepsLabel, m_stepsBox);
    form->addRow(m_temperatureLabel, m_temperature);
    form->addRow(m_topKLabel, m_topK);
    form->addRow(m_topPLabel, m_topP);
    form->addRow(m_seedLabel, m_seed);
    form->addRow(m_speedLabel, m_speed);
    root->addLayout(form);

    auto *buttons = new QHBoxLayout;
    m_stepButton = new QPushButton(this);
    m_stepButton->setObjectName(QStringLiteral("generateStep"));
    m_playButton = new QPushButton(this);
    m_playButton->setObjectName(QStringLiteral("generatePlay"));
    m_playButton->setCheckable(true);
    m_resetButton = new QPushButton(this);
    m_resetButton->setObjectName(QStringLiteral("generateReset"));
    buttons->addWidget(m_stepButton);
    buttons->addWidget(m_playButton);
    buttons->addWidget(m_resetButton);
    root->addLayout(buttons);

    m_barsTitle = new QLabel(this);
    m_barsTitle->setWordWrap(true);
    root->addWidget(m_barsTitle);
    m_bars = new DistributionBars(this);
    root->addWidget(m_bars);
    m_cache = new QLabel(this);
    m_cache->setWordWrap(true);
    root->addWidget(m_cache);
    m_text = new QLabel(this);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    root->addWidget(m_text);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    root->addWidget(m_status);
    root->addStretch(1);

    m_timer = new QTimer(this);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (!step())
            pause();
    });
    connect(m_speed, &QSlider::valueChanged, this, [this](int ms) { m_timer->setInterval(ms); });
    m_timer->setInterval(m_speed->value());
    connect(m_stepButton, &QPushButton::clicked, this, [this] { step(); });
    connect(m_playButton, &QPushButton::toggled, this, [this](bool on) { on ? play() : pause(); });
    connect(m_resetButton, &QPushButton::clicked, this, &GenerationPanel::reset);
    // The sentence edited by hand, or another model: that text is the prompt now.
    connect(m_view->sentenceField(), &QLineEdit::textEdited, this, &GenerationPanel::forget);
    connect(m_view, &ModelView::recomputed, this, [this] {
        if (m_stepping || m_prompt.empty())
            return;
        std::vector<int> expected = m_prompt;
        for (const GenerationStep &st : m_steps)
            expected.push_back(st.id);
        if (!m_view->trace() || m_view->trace()->ids != expected)
            forget();
    });
    retranslate();
}

SamplingSettings GenerationPanel::settings() const
{
    SamplingSettings s;
    s.steps = m_stepsBox->value();
    s.temperature = m_temperature->value();
    s.topK = m_topK->value();
    s.topP = m_topP->value();
    s.seed = std::uint64_t(m_seed->value());
    return s;
}

void GenerationPanel::setSettings(const SamplingSettings &s)
{
    m_stepsBox->setValue(s.steps);
    m_temperature->setValue(s.temperature);
    m_topK->setValue(s.topK);
    m_topP->setValue(s.topP);
    m_seed->setValue(int(s.seed));
}

bool GenerationPanel::step()
{
    const Gpt2Model *model = m_view->model();
    if (!model) {
        m_status->setText(tr("Open a model first."));
        return false;
    }
    if (m_view->recomputePending())
        m_view->recompute(); // keys typed a moment ago: read them first
    const ModelTrace *t = m_view->trace();
    if (!t) {
        m_status->setText(tr("The model has no sentence to continue: type one."));
        return false;
    }
    const SamplingSettings s = settings();
    if (int(m_steps.size()) >= s.steps) {
        m_status->setText(tr("All %1 steps are done: Reset to start again, or raise Steps.").arg(s.steps));
        return false;
    }
    const int limit = std::min(model->config.nPositions, maxTracedTokens(model->config));
    if (int(t->ids.size()) >= limit) {
        m_status->setText(tr("The context is full: %1 reads at most %2 tokens.").arg(model->name).arg(limit));
        return false;
    }
    if (m_prompt.empty()) {
        m_prompt = t->ids;
        m_rng.emplace(s.seed);
        m_withCache = m_withoutCache = 0;
    }
    GenerationStep st = chooseNext(*model, *t, s, *m_rng);
    if (st.p <= 0) {
        m_status->setText(tr("The model gave no token a probability."));
        return false;
    }
    m_withCache += st.cachedCells;
    m_withoutCache += st.uncachedCells;
    std::vector<int> ids = t->ids;
    ids.push_back(st.id);
    m_steps.push_back(std::move(st));
    m_stepping = true;
    m_view->setIds(ids); // every map grows by the new row
    m_stepping = false;
    m_status->clear();
    updateTexts();
    emit stepped();
    return true;
}

void GenerationPanel::play()
{
    if (!m_playButton->isChecked()) {
        m_playButton->setChecked(true); // toggled calls play again
        return;
    }
    m_timer->start();
}

void GenerationPanel::pause()
{
    m_timer->stop();
    if (m_playButton->isChecked()) {
        const QSignalBlocker block(m_playButton);
        m_playButton->setChecked(false);
    }
}

bool GenerationPanel::playing() const
{
    return m_timer->isActive();
}

void GenerationPanel::reset()
{
    pause();
    if (!m_prompt.empty() && m_view->model()) {
        const std::vector<int> prompt = m_prompt;
        m_stepping = true;
        m_view->setIds(prompt);
        m_stepping = false;
    }
    forget();
}

void GenerationPanel::forget()
{
    m_prompt.clear();
    m_steps.clear();
    m_rng.reset();
    m_withCache = m_withoutCache = 0;
    m_status->clear();
    updateTexts();
}

void GenerationPanel::updateTexts()
{
    const Gpt2Model *model = m_view->model();
    if (m_steps.empty() || !model) {
        m_bars->setBars({});
        m_cache->setText(tr("Each step computes only the new query row against the cached keys and values; "
                            "without the cache the whole triangle is computed again."));
        m_text->clear();
        return;
    }
    const GenerationStep &st = m_steps.back();
    std::vector<DistributionBar> bars;
    for (const Candidate &c : st.top)
        bars.push_back({shown(model->tokenizer.bytes(c.id)), c.raw, c.p, c.id == st.id});
    bool shownChosen = std::any_of(st.top.begin(), st.top.end(), [&](const Candidate &c) { return c.id == st.id; });
    if (!shownChosen) // drawn from further down than the top 5
        bars.push_back({shown(st.text), 0.0, st.p, true});
    m_bars->setBars(std::move(bars));
    const int n = st.position; // tokens the forward read
    m_cache->setText(tr("Step %1: the forward read %2 tokens, %3 from the cache, and computed %4 score entries a head; "
                        "without the cache, %5 (the whole triangle). So far: %6 against %7.")
                         .arg(m_steps.size())
                         .arg(n)
                         .arg(st.reused)
                         .arg(st.cachedCells)
                         .arg(st.uncachedCells)
                         .arg(m_withCache)
                         .arg(m_withoutCache));
    QString text = QStringLiteral("<span>");
    for (int id : m_prompt)
        text += html(QString::fromStdString(displayText(model->tokenizer.bytes(id))));
    text += QStringLiteral("</span>");
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        const QString piece = html(QString::fromStdString(displayText(m_steps[i].text)));
        text += i + 1 == m_steps.size() ? QStringLiteral("<b style=\"background-color:#fdebd0; color:#1a1a1a;\">%1</b>").arg(piece)
                                        : QStringLiteral("<span style=\"color:#3465a4;\">%1</span>").arg(piece);
    }
    m_text->setText(text);
    m_barsTitle->setText(st.u > 0 || settings().temperature > 0
                             ? tr("Step %1's distribution: softmax → after temperature, top-k, top-p; u = %2 chose %3")
                                   .arg(m_steps.size())
                                   .arg(QString::fromStdString(formatFixed(st.u, 4)), shown(st.text))
                             : tr("Step %1's distribution: softmax → greedy (the most likely, %2)").arg(m_steps.size()).arg(shown(st.text)));
}

void GenerationPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void GenerationPanel::retranslate()
{
    m_title->setText(tr("<b>Generate, token by token.</b> Each step the model reads the text so far, and the next token "
                        "is drawn from its last position's distribution."));
    m_stepsLabel->setText(tr("Steps:"));
    m_temperatureLabel->setText(tr("Temperature:"));
    m_temperature->setToolTip(tr("0: greedy, always the most likely token; below 1 sharper, above 1 flatter"));
    m_topKLabel->setText(tr("Top-k:"));
    m_topK->setToolTip(tr("Keep only the k most likely tokens (0: all)"));
    m_topK->setSpecialValueText(tr("all"));
    m_topPLabel->setText(tr("Top-p:"));
    m_topP->setToolTip(tr("Keep the fewest most likely tokens whose probabilities reach p (1: all)"));
    m_seedLabel->setText(tr("Seed:"));
    m_seed->setToolTip(tr("The same seed draws the same tokens again"));
    m_speedLabel->setText(tr("Speed:"));
    m_speed->setToolTip(tr("Time between tokens while playing"));
    m_stepButton->setText(tr("Step"));
    m_stepButton->setToolTip(tr("Draw one token and append it"));
    m_playButton->setText(tr("Play"));
    m_playButton->setToolTip(tr("Step on a timer until the steps are done"));
    m_resetButton->setText(tr("Reset"));
    m_resetButton->setToolTip(tr("Back to the prompt; the seed starts again"));
    m_bars->setEmptyText(tr("Press Step: the next token's distribution appears here."));
    if (m_steps.empty())
        m_barsTitle->setText(tr("The next token's distribution"));
    updateTexts();
}

} // namespace attn
