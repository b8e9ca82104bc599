#include "sweeppreview.h"

namespace attn {

SweepPreview::SweepPreview(Document *doc, QObject *parent) : QObject(parent), m_doc(doc)
{
    connect(doc, &Document::gestureChanged, this, &SweepPreview::onGestureChanged);
    connect(doc, &Document::changed, this, &SweepPreview::onChanged);
    connect(doc, &Document::gestureCancelled, this, [this] { m_cancelled = true; });
}

SweepPreview::~SweepPreview()
{
    if (m_active) {
        const QSignalBlocker block(this);
        stop();
    }
}

void SweepPreview::begin(const QString &name)
{
    if (m_active)
        stop();
    m_applying = true;
    m_doc->beginGesture(name); // ends another gesture first, as a drag would
    m_applying = false;
    m_active = true;
}

bool SweepPreview::showSettings(const Settings &s)
{
    if (!m_active)
        return false;
    m_applying = true;
    const auto problem = m_doc->setSettings(s, QString());
    m_applying = false;
    return !problem;
}

bool SweepPreview::showRow(MatrixId id, int row, const Eigen::RowVectorXd &values)
{
    if (!m_active)
        return false;
    m_applying = true;
    const auto problem = m_doc->setRow(id, row, values, QString());
    m_applying = false;
    return !problem;
}

void SweepPreview::stop()
{
    if (!m_active)
        return;
    m_applying = true;
    m_active = false;
    m_doc->cancelGesture();
    m_applying = false;
    emit ended(false);
}

void SweepPreview::keep()
{
    if (!m_active)
        return;
    m_applying = true;
    m_active = false;
    m_doc->endGesture();
    m_applying = false;
    emit ended(true);
}

void SweepPreview::onGestureChanged(bool active)
{
    // Someone else ended our gesture (a drag began, Ctrl+Z, a new lesson):
    // what it left is theirs to say; the preview is over.
    if (!active && m_active && !m_applying) {
        m_active = false;
        // Cancelled (Ctrl+Z) or ended (another gesture, a new lesson)? The
        // document says so (gestureCancelled) right after this signal.
        m_cancelled = false;
        QMetaObject::invokeMethod(this, [this] { emit ended(!m_cancelled); },
                                  Qt::QueuedConnection);
    }
}

void SweepPreview::onChanged()
{
    // An edit from elsewhere in the middle of the preview (a typed cell, a
    // menu): keep the preview as its own step, under that edit.
    if (m_active && !m_applying)
        keep();
}

} // namespace attn
