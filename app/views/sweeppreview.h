#pragma once
// A preview of edits that are not (yet) an undo step: what a sweep shows
// frame by frame. It is a document gesture (Document::beginGesture), so it
// needs no side channel: each frame is an ordinary setSettings or setRow in
// the gesture, which the stack merges into one step; stop() cancels the
// gesture (the document is as it was, with no step left and no redo), keep()
// ends it (one undo step, named when the preview began).
//
// The preview ends by itself when something else ends the gesture (another
// gesture, Ctrl+Z, a new lesson: ended()), or when an edit from elsewhere
// lands in the middle of it: the preview is then kept as its own step under
// that edit, which nothing could take back otherwise (kept()).

#include "document.h"

#include <QObject>

namespace attn {

class SweepPreview : public QObject {
    Q_OBJECT

public:
    explicit SweepPreview(Document *doc, QObject *parent = nullptr);
    ~SweepPreview() override; // stops a preview in progress

    // Starts a preview; the undo step, if kept, is called `name`. A preview
    // in progress is stopped first.
    void begin(const QString &name);
    bool isActive() const { return m_active; }

    // One frame: refused (false, nothing changes) outside a preview or when
    // the document refuses the values.
    bool showSettings(const Settings &s);
    bool showRow(MatrixId id, int row, const Eigen::RowVectorXd &values);

    // The document back to where the preview began, no undo step left.
    void stop();
    // The value on show kept as one undo step.
    void keep();

signals:
    // The preview ended; kept: the value on show stayed as an undo step.
    // Emitted at once by stop() and keep(); in the next turn of the event
    // loop when something else ended the gesture.
    void ended(bool kept);

private:
    void onGestureChanged(bool active);
    void onChanged();

    Document *m_doc;
    bool m_active = false;
    bool m_applying = false;  // our own edit (or our own end of the gesture) in progress
    bool m_cancelled = false; // the gesture someone else ended was cancelled
};

} // namespace attn
