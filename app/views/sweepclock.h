#pragma once
// The frames of an animation (sweeps): a timer that walks frame
// indices 0 … n−1 and back (or round and round), with play, pause, one step
// and a speed. It knows nothing of what a frame shows: the τ sweep, the
// query's turn and the √d_k lab's slider each map an index to a value.

#include <QObject>
#include <QTimer>

namespace attn {

class SweepClock : public QObject {
    Q_OBJECT

public:
    enum class Path {
        Bounce, // 0, 1, …, n−1, n−2, …, 1, 0, 1, … (there and back)
        Loop,   // 0, 1, …, n−1, 0, 1, … (a turn)
    };

    explicit SweepClock(QObject *parent = nullptr);

    // n frames (at least 1); the position goes back to frame 0.
    void setFrames(int frames, Path path);
    int frames() const { return m_frames; }
    Path path() const { return m_path; }
    // Frames per second at speed 1.
    void setBaseRate(double framesPerSecond);
    // A multiple of the base rate (0.25 … 4).
    void setSpeed(double speed);
    double speed() const { return m_speed; }

    // The frame on show and the step in the walk (0 … period − 1).
    int frame() const { return frameAt(m_step); }
    int step() const { return m_step; }
    // Steps in one walk there and back (Bounce: 2n − 2) or round (Loop: n).
    int period() const;
    int frameAt(int step) const;

    bool isRunning() const { return m_timer.isActive(); }

public slots:
    void play();
    void pause();
    // One frame on (pausing first); emits frameChanged.
    void stepForward();
    // Back to step 0, paused, without emitting.
    void rewind();
    // Shows step `step` (taken modulo the period) and emits frameChanged.
    void seek(int step);

signals:
    void frameChanged(int frame);
    void runningChanged(bool running);

private:
    void tick();
    void applyInterval();

    QTimer m_timer;
    int m_frames = 1;
    Path m_path = Path::Bounce;
    int m_step = 0;
    double m_rate = 12.0;
    double m_speed = 1.0;
};

} // namespace attn
