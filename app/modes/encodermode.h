#pragma once
// The encoder as a mode of the window (View ▸ Encoder (BERT)): the
// EncoderView in place of the lab's maps, the shipped tiny-encoder opened
// the first time, a folder of the user's own (bert-base-uncased,
// bert-base-chinese) loaded off the GUI thread. A head taken into the lab
// goes through the model mode's one undoable edit of the document.

#include "mode.h"
#include "result.h"

class QAction;

namespace attn {

class EncoderView;
class ModelMode;

class EncoderMode : public Mode {
    Q_OBJECT

public:
    EncoderMode(ModeHost &host, ModelMode &model);

    QString name() const override { return QStringLiteral("encoder"); }
    QWidget *centralWidget() const override;
    void activate() override;
    void deactivate() override;

    EncoderView *view() const { return m_view; }
    QAction *action() const { return m_action; }
    // Loads `folder` and waits for it in a local event loop (the window
    // keeps drawing): for `--encoder DIR` and the tests.
    std::optional<Problem> openFolder(const QString &folder);

private:
    ModelMode &m_model;
    EncoderView *m_view = nullptr;
    QAction *m_action = nullptr;
    QAction *m_open = nullptr;
};

} // namespace attn
