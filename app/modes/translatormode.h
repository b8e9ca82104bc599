#pragma once
// The encoder-decoder as a mode of the window (View ▸ Encoder-decoder
// (BART)): the TranslatorView in place of the lab's maps, the shipped
// tiny-translator opened the first time, a folder of the user's own
// (facebook/bart-base) loaded off the GUI thread. A head taken into the lab
// goes through the model mode's one undoable edit of the document.

#include "mode.h"
#include "result.h"

class QAction;

namespace attn {

class TranslatorView;
class ModelMode;

class TranslatorMode : public Mode {
    Q_OBJECT

public:
    TranslatorMode(ModeHost &host, ModelMode &model);

    QString name() const override { return QStringLiteral("translator"); }
    QWidget *centralWidget() const override;
    void activate() override;
    void deactivate() override;

    TranslatorView *view() const { return m_view; }
    QAction *action() const { return m_action; }
    // Loads `folder` and waits for it in a local event loop (the window
    // keeps drawing): for `--translator DIR` and the tests.
    std::optional<Problem> openFolder(const QString &folder);

private:
    ModelMode &m_model;
    TranslatorView *m_view = nullptr;
    QAction *m_action = nullptr;
    QAction *m_open = nullptr;
};

} // namespace attn
