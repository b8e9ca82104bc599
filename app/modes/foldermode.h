#pragma once
// A mode that shows one model of a kind in place of the lab's maps (the
// encoder, the encoder-decoder): its View menu item with a shortcut, its
// File ▸ Open … item beside the one before it, its view by name, the
// shipped model opened the first time it shows, a folder of the user's own
// loaded off the GUI thread. The subclass gives the view and the words.

#include "mode.h"
#include "result.h"

#include <QKeySequence>

class QAction;

namespace attn {

class FolderMode : public Mode {
    Q_OBJECT

public:
    struct Words {
        QString viewAction, viewTip, openAction, openTip, dialogTitle;
        QString notOpened, opened, builtinFailed; // each with %1: the message or the name
    };
    struct Names {
        QString mode;       // "encoder": the code's name and the view's (`--show NAME`)
        QString viewAction; // object names
        QString openAction;
        QString openAfter;  // the File menu item the Open item follows
        QKeySequence shortcut;
    };

    QString name() const override { return m_names.mode; }
    QWidget *centralWidget() const override { return m_view; }
    void activate() override;
    void deactivate() override;

    QAction *action() const { return m_action; }
    // Loads `folder` and waits for it in a local event loop (the window
    // keeps drawing): for the tests and scripts.
    std::optional<Problem> openFolder(const QString &folder);

protected:
    FolderMode(ModeHost &host, QWidget *view, const Names &names, const Words &words);
    // The view's part: the shipped model when none is open, a folder off the
    // GUI thread (loaded(name) or failed(message) follows), whether one loads.
    virtual std::optional<Problem> ensureModel() = 0;
    virtual void startLoading(const QString &folder) = 0;
    virtual bool isLoading() const = 0;

    // The subclass connects its view's loaded and failed signals to these.
    void loaded(const QString &name);
    void failed(const QString &message);

signals:
    void loadEnded(); // after loaded() or failed(), for openFolder's wait

private:
    QWidget *m_view;
    Names m_names;
    Words m_words;
    QAction *m_action = nullptr;
    QAction *m_open = nullptr;
    std::optional<Problem> m_lastProblem;
};

} // namespace attn
