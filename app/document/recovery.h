#pragma once
// Autosave and recovery: a few seconds after each change the open
// document is written atomically to a recovery file of this process; a save
// or a clean exit removes it. After a crash or a kill the next start finds
// the file of a process that is gone and offers to restore it.
//
// The file holds the scenario as it stands and the one it started from (the
// file or lesson as loaded or last saved), so a restored document is that
// start plus one undo step, "Recovered changes": Ctrl+Z goes back to what
// was on disk, and the document counts as modified until it is saved.

#include "document.h"

#include <QDateTime>
#include <QObject>
#include <QTimer>

#include <optional>

namespace attn {

struct RecoveredWork {
    QString recoveryFile;  // the file it was read from
    QString filePath;      // the document's file, empty for a lesson or a new one
    QString lessonName;
    QDateTime changedAt;   // when the document last changed
    Scenario base;         // as loaded or last saved
    Scenario current;      // with the unsaved changes
};

class Recovery : public QObject {
    Q_OBJECT

public:
    // Watches `doc`; writes into `folder` (made when needed).
    Recovery(Document *doc, const QString &folder, QObject *parent = nullptr);
    ~Recovery() override; // a clean exit: the file goes

    // Where recovery files live: $ATTENTION_LAB_RECOVERY_DIR, else the
    // app's data folder.
    static QString defaultFolder();
    // The work left by a process that is no longer running, newest first
    // (files that cannot be read are skipped and left alone).
    static std::vector<RecoveredWork> leftovers(const QString &folder);
    // Puts `work` into `doc` (start plus one undo step) and deletes its file.
    static std::optional<Problem> restore(Document &doc, const RecoveredWork &work);
    static void discard(const RecoveredWork &work);

    QString file() const { return m_file; }
    // Seconds after a change before it is written (3 by default).
    void setDelay(int milliseconds)
    {
        m_delay = milliseconds;
        m_timer.setInterval(milliseconds);
    }
    // Writes now if something is pending; the reason if it could not.
    std::optional<Problem> flush();

signals:
    void written();
    // An autosave could not be written ("Autosave failed: path: reason");
    // said once per reason, and tried again later until it goes through.
    void failed(const QString &message);

private:
    void onChanged();
    void onFileState();
    void autosave();

    Document *m_doc;
    QString m_file;
    QTimer m_timer;
    Scenario m_base;
    QDateTime m_changedAt;
    bool m_pending = false;
    int m_delay = 3000;
    int m_failures = 0; // autosaves that failed in a row
    QString m_lastFailure;
};

} // namespace attn
