#include "samplingcontrols.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

namespace attn {

SamplingControls::SamplingControls(QWidget *parent) : QWidget(parent)
{
    auto *root = new QVBoxLayout(this);
    root->setContentsMargins(0, 0, 0, 0);
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

    m_timer = new QTimer(this);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (!m_step || !m_step())
            pause();
    });
    connect(m_speed, &QSlider::valueChanged, this, [this](int ms) { m_timer->setInterval(ms); });
    m_timer->setInterval(m_speed->value());
    connect(m_stepButton, &QPushButton::clicked, this, [this] {
        if (m_step)
            m_step();
    });
    connect(m_playButton, &QPushButton::toggled, this, [this](bool on) { on ? play() : pause(); });
    connect(m_resetButton, &QPushButton::clicked, this, [this] {
        pause();
        emit resetRequested();
    });
    for (QSpinBox *b : {m_stepsBox, m_topK, m_seed})
        connect(b, &QSpinBox::valueChanged, this, &SamplingControls::settingsChanged);
    for (QDoubleSpinBox *b : {m_temperature, m_topP})
        connect(b, &QDoubleSpinBox::valueChanged, this, &SamplingControls::settingsChanged);
    retranslate();
}

SamplingSettings SamplingControls::settings() const
{
    SamplingSettings s;
    s.steps = m_stepsBox->value();
    s.temperature = m_temperature->value();
    s.topK = m_topK->value();
    s.topP = m_topP->value();
    s.seed = std::uint64_t(m_seed->value());
    return s;
}

void SamplingControls::setSettings(const SamplingSettings &s)
{
    m_stepsBox->setValue(s.steps);
    m_temperature->setValue(s.temperature);
    m_topK->setValue(s.topK);
    m_topP->setValue(s.topP);
    m_seed->setValue(int(s.seed));
}

void SamplingControls::setMaximumSteps(int steps)
{
    m_stepsBox->setMaximum(std::max(1, steps));
}

void SamplingControls::play()
{
    if (!m_playButton->isChecked()) {
        m_playButton->setChecked(true); // toggled calls play again
        return;
    }
    m_timer->start();
}

void SamplingControls::pause()
{
    m_timer->stop();
    if (m_playButton->isChecked()) {
        const QSignalBlocker block(m_playButton);
        m_playButton->setChecked(false);
    }
}

bool SamplingControls::playing() const
{
    return m_timer->isActive();
}

void SamplingControls::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void SamplingControls::retranslate()
{
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
    m_resetButton->setToolTip(tr("Back to the start; the seed starts again"));
}

} // namespace attn
