#pragma once
// The √d_k lab as a panel: a d_k slider on a log scale from 1 to
// 1024, trials, seed and n-keys fields over a ScalingLabView. It does not
// use the document: the lab is independent of the open lesson.
//
// Work happens off the GUI thread. Each change bumps a generation counter
// and hands the newest request to a worker (one for the current d_k's run,
// one for the variance-against-d_k points, which depend on the seed and the
// trials only); a worker abandons a run as soon as a newer request is
// waiting, and a result whose generation is not the newest is dropped, so
// dragging the slider never blocks the window and never shows a stale d_k.
// A slow run first shows a preview over its first trials (a prefix of the
// full run: the same draws), then the full one.

#include "experiment.h"

#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

class QLabel;
class QSlider;
class QSpinBox;
class QToolButton;

namespace attn {

class ScalingLabView;
class LatestJobRunner;
class SweepClock;

class ScalingLabPanel : public QWidget {
    Q_OBJECT

public:
    explicit ScalingLabPanel(QWidget *parent = nullptr);
    ~ScalingLabPanel() override;

    // The slider's d_k values: about 10 a doubling, from 1 to 1024, every
    // power of two among them. setDk picks the nearest.
    static const std::vector<int> &sliderDks();
    void setDk(int dk);
    int dk() const;
    void setTrials(int trials);
    void setSeed(int seed);
    void setKeys(int keys);

    ScalingLabParams params() const;
    ScalingLabView *view() const { return m_view; }
    QSlider *slider() const { return m_slider; }
    QSpinBox *trialsBox() const { return m_trials; }
    QSpinBox *seedBox() const { return m_seed; }
    QSpinBox *keysBox() const { return m_keys; }
    // Play (sweeps): the d_k slider walks 1 → 1024 and back while
    // the plots follow; the button pauses, Step moves one notch.
    QToolButton *playButton() const { return m_play; }
    QToolButton *stepButton() const { return m_step; }
    SweepClock *clock() const { return m_clock; }
    void play();
    void pause();
    bool isPlaying() const;

    // True while a run, the variance points or the gradient against d_k
    // are being computed.
    bool isBusy() const;
    // The generation of the newest request, and of the run on show.
    std::uint64_t generation() const { return m_generation; }
    std::uint64_t shownGeneration() const { return m_shownGeneration; }
    bool showsPreview() const { return m_showsPreview; }

    // Trials computed first, as a preview, when a run is bigger than this many draws.
    static constexpr double kPreviewDraws = 3e6;

signals:
    // A run (preview or full) for the newest request is on show.
    void resultShown(bool preview);

private:
    void request();
    void requestSweep();
    void showLab(std::uint64_t generation, const ScalingLab &lab, bool preview, double seconds);
    void showSweep(std::uint64_t generation, const std::vector<VariancePoint> &points, int trials);
    void updateDkLabel();

    ScalingLabView *m_view = nullptr;
    QSlider *m_slider = nullptr;
    QLabel *m_dkLabel = nullptr;
    QSpinBox *m_trials = nullptr;
    QSpinBox *m_seed = nullptr;
    QSpinBox *m_keys = nullptr;
    QToolButton *m_play = nullptr;
    QToolButton *m_step = nullptr;
    SweepClock *m_clock = nullptr;
    std::unique_ptr<LatestJobRunner> m_labRunner, m_sweepRunner;
    std::uint64_t m_generation = 0, m_shownGeneration = 0;
    std::uint64_t m_sweepGeneration = 0;
    bool m_labBusy = false, m_sweepBusy = false, m_showsPreview = false;
    std::uint64_t m_sweepSeed = ~std::uint64_t(0);
    int m_sweepTrials = -1;
};

} // namespace attn
