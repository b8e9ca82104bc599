#pragma once
// The controls of generation token by token, for every model that writes:
// Steps, Temperature (0: greedy), Top-k, Top-p, Seed and a speed, and the
// Step, Play and Reset buttons. Step and every tick of Play call the
// stepper the owner gives; Play stops when it returns false.

#include "generate.h"

#include <QWidget>

#include <functional>

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;

namespace attn {

class SamplingControls : public QWidget {
    Q_OBJECT

public:
    explicit SamplingControls(QWidget *parent = nullptr);

    SamplingSettings settings() const;
    void setSettings(const SamplingSettings &s);
    // The most steps the model can take (its positions).
    void setMaximumSteps(int steps);
    void setStepper(std::function<bool()> step) { m_step = std::move(step); }

    void play();
    void pause();
    bool playing() const;

    QPushButton *stepButton() const { return m_stepButton; }
    QPushButton *playButton() const { return m_playButton; }
    QPushButton *resetButton() const { return m_resetButton; }

signals:
    void resetRequested();
    void settingsChanged();

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();

    std::function<bool()> m_step;
    QLabel *m_stepsLabel = nullptr, *m_temperatureLabel = nullptr, *m_topKLabel = nullptr, *m_topPLabel = nullptr,
           *m_seedLabel = nullptr, *m_speedLabel = nullptr;
    QSpinBox *m_stepsBox = nullptr;
    QDoubleSpinBox *m_temperature = nullptr;
    QSpinBox *m_topK = nullptr;
    QDoubleSpinBox *m_topP = nullptr;
    QSpinBox *m_seed = nullptr;
    QSlider *m_speed = nullptr;
    QPushButton *m_stepButton = nullptr, *m_playButton = nullptr, *m_resetButton = nullptr;
    QTimer *m_timer = nullptr;
};

} // namespace attn
