#pragma once
// Generation token by token, beside the model mode's maps: Step draws the
// next token from the distribution of the last position (temperature,
// top-k, top-p, a seed, as `attention-lab-cli model generate`), appends it,
// and the model view reads the longer text through its KV cache, so every
// map grows by one row. The bars show the distribution the token came from;
// a counter says what the cache saved. Play steps on a timer; Reset goes
// back to the prompt. Editing the sentence makes it the new prompt.

#include "generate.h"
#include "random.h"

#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QPushButton;

namespace attn {

class DistributionBars;
class ModelView;
class SamplingControls;

class GenerationPanel : public QWidget {
    Q_OBJECT

public:
    explicit GenerationPanel(ModelView *view, QWidget *parent = nullptr);

    SamplingSettings settings() const;
    void setSettings(const SamplingSettings &s);

    // One token more (false, with the reason in the status line, when the
    // model's context is full, the steps are done or there is no forward).
    bool step();
    void play();
    void pause();
    bool playing() const;
    // Back to the prompt: the generated tokens go, the seed starts again.
    void reset();

    const std::vector<int> &prompt() const { return m_prompt; }
    const std::vector<GenerationStep> &steps() const { return m_steps; }

    // The parts, for the tests.
    QPushButton *stepButton() const;
    QPushButton *playButton() const;
    QPushButton *resetButton() const;
    DistributionBars *bars() const { return m_bars; }
    QLabel *cacheLabel() const { return m_cache; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *textLabel() const { return m_text; }
    QLabel *trainingLabel() const { return m_training; }
    // The training view of the steps so far: one forward over the whole text
    // without the cache, as training reads it (every position at once under
    // the causal mask). Its largest weight difference from the maps the
    // steps built, and per step the chosen token's probability at
    // temperature 1 there and at the step. Nothing when there are no steps.
    struct TrainingCheck {
        double worstWeight = 0;        // over every layer, head and cell
        std::vector<double> stepP;     // per step: st.raw
        std::vector<double> onePassP;  // per step: softmax of the one pass's row position − 1
    };
    std::optional<TrainingCheck> trainingCheck() const;

signals:
    void stepped();

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void updateTexts();
    void updateTraining();
    void forget(); // the sentence was edited: it is the prompt now

    ModelView *m_view;
    std::vector<int> m_prompt;
    std::vector<GenerationStep> m_steps;
    std::optional<Rng> m_rng;
    std::int64_t m_withCache = 0, m_withoutCache = 0;
    bool m_stepping = false;

    QLabel *m_title = nullptr;
    SamplingControls *m_controls = nullptr;
    DistributionBars *m_bars = nullptr;
    QLabel *m_barsTitle = nullptr;
    QLabel *m_cache = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_text = nullptr;
    QLabel *m_training = nullptr;
};

} // namespace attn
