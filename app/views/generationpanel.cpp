#include "generationpanel.h"

#include "bpe.h"
#include "distributionbars.h"
#include "modelview.h"
#include "numbers.h"
#include "samplingcontrols.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
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

    m_controls = new SamplingControls(this);
    m_controls->setStepper([this] { return step(); });
    root->addWidget(m_controls);

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
    m_training = new QLabel(this);
    m_training->setObjectName(QStringLiteral("generationTraining"));
    m_training->setWordWrap(true);
    m_training->setTextFormat(Qt::RichText);
    root->addWidget(m_training);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    root->addWidget(m_status);
    root->addStretch(1);

    connect(m_controls, &SamplingControls::resetRequested, this, &GenerationPanel::reset);
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
    return m_controls->settings();
}

void GenerationPanel::setSettings(const SamplingSettings &s)
{
    m_controls->setSettings(s);
}

QPushButton *GenerationPanel::stepButton() const
{
    return m_controls->stepButton();
}

QPushButton *GenerationPanel::playButton() const
{
    return m_controls->playButton();
}

QPushButton *GenerationPanel::resetButton() const
{
    return m_controls->resetButton();
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
    m_controls->play();
}

void GenerationPanel::pause()
{
    m_controls->pause();
}

bool GenerationPanel::playing() const
{
    return m_controls->playing();
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

std::optional<GenerationPanel::TrainingCheck> GenerationPanel::trainingCheck() const
{
    const Gpt2Model *model = m_view->model();
    const ModelTrace *t = m_view->trace();
    if (!model || !t || m_steps.empty())
        return std::nullopt;
    const auto whole = runModelOnIds(*model, t->ids, 1); // no previous trace: nothing reused
    if (!whole.ok())
        return std::nullopt;
    const ModelTrace &w = whole.value();
    TrainingCheck c;
    for (std::size_t l = 0; l < w.layers.size() && l < t->layers.size(); ++l)
        for (std::size_t h = 0; h < w.layers[l].heads.size(); ++h) {
            const Matrix &a = w.layers[l].heads[h].weights, &b = t->layers[l].heads[h].weights;
            if (a.rows() != b.rows() || a.cols() != b.cols())
                return std::nullopt;
            c.worstWeight = std::max(c.worstWeight, (a - b).cwiseAbs().maxCoeff());
        }
    for (const GenerationStep &st : m_steps) {
        const int row = st.position - 1; // the row that predicted it
        if (row < 0 || row >= w.final.rows())
            return std::nullopt;
        const Eigen::VectorXd logits = model->logitsOf(w.final.row(row)).transpose();
        const Eigen::VectorXd e = (logits.array() - logits.maxCoeff()).exp().matrix();
        c.stepP.push_back(st.raw);
        c.onePassP.push_back(e(st.id) / e.sum());
    }
    return c;
}

void GenerationPanel::updateTraining()
{
    // One more forward a step: only while the model is small enough to type into live.
    const std::optional<TrainingCheck> c = m_view->isLive() ? trainingCheck() : std::nullopt;
    if (!c) {
        m_training->clear();
        return;
    }
    const Gpt2Model *model = m_view->model();
    QString table = QStringLiteral("<p>") + tr("<b>Training reads it all at once.</b> One forward over the whole text, "
                                              "without the cache, every position under the causal mask: row i predicts "
                                              "token i + 1, as each step did.")
        + QStringLiteral("</p><table cellspacing=\"0\" cellpadding=\"2\"><tr><th align=\"left\">%1</th>"
                         "<th align=\"right\">%2</th><th align=\"right\">%3</th></tr>")
              .arg(tr("token"), tr("p at its step"), tr("p in one pass"));
    const std::size_t first = m_steps.size() > 8 ? m_steps.size() - 8 : 0; // the last eight
    for (std::size_t i = first; i < m_steps.size(); ++i)
        table += QStringLiteral("<tr><td>%1</td><td align=\"right\">%2</td><td align=\"right\">%3</td></tr>")
                    .arg(html(shown(model->tokenizer.bytes(m_steps[i].id))),
                         QString::fromStdString(formatFixed(c->stepP[i], 4)),
                         QString::fromStdString(formatFixed(c->onePassP[i], 4)));
    table += QStringLiteral("</table><p>")
        + tr("Largest difference of any weight between the maps the steps built and the one pass: %1.")
              .arg(QString::fromStdString(compact(c->worstWeight)))
        + QStringLiteral("</p>");
    m_training->setText(table);
}

void GenerationPanel::updateTexts()
{
    updateTraining();
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
    m_bars->setEmptyText(tr("Press Step: the next token's distribution appears here."));
    if (m_steps.empty())
        m_barsTitle->setText(tr("The next token's distribution"));
    updateTexts();
}

} // namespace attn
