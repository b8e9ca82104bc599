#include "sweepclock.h"

#include <algorithm>
#include <cmath>

namespace attn {

SweepClock::SweepClock(QObject *parent) : QObject(parent)
{
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &SweepClock::tick);
    applyInterval();
}

void SweepClock::setFrames(int frames, Path path)
{
    m_frames = std::max(1, frames);
    m_path = path;
    m_step = 0;
}

void SweepClock::setBaseRate(double framesPerSecond)
{
    if (framesPerSecond > 0 && std::isfinite(framesPerSecond)) {
        m_rate = framesPerSecond;
        applyInterval();
    }
}

void SweepClock::setSpeed(double speed)
{
    if (speed > 0 && std::isfinite(speed)) {
        m_speed = std::clamp(speed, 0.25, 4.0);
        applyInterval();
    }
}

void SweepClock::applyInterval()
{
    m_timer.setInterval(std::max(10, int(std::lround(1000.0 / (m_rate * m_speed)))));
}

int SweepClock::period() const
{
    if (m_path == Path::Loop)
        return m_frames;
    return std::max(1, 2 * m_frames - 2);
}

int SweepClock::frameAt(int step) const
{
    const int p = period();
    step = ((step % p) + p) % p;
    return step < m_frames ? step : 2 * m_frames - 2 - step;
}

void SweepClock::play()
{
    if (m_timer.isActive())
        return;
    m_timer.start();
    emit runningChanged(true);
}

void SweepClock::pause()
{
    if (!m_timer.isActive())
        return;
    m_timer.stop();
    emit runningChanged(false);
}

void SweepClock::stepForward()
{
    pause();
    seek(m_step + 1);
}

void SweepClock::rewind()
{
    pause();
    m_step = 0;
}

void SweepClock::seek(int step)
{
    const int p = period();
    m_step = ((step % p) + p) % p;
    emit frameChanged(frame());
}

void SweepClock::tick()
{
    seek(m_step + 1);
}

} // namespace attn
