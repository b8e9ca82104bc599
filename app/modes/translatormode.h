#pragma once
// The encoder-decoder as a mode of the window (View ▸ Encoder-decoder
// (BART)): the TranslatorView in place of the lab's maps, the shipped
// tiny-translator opened the first time, a folder of the user's own
// (facebook/bart-base) loaded off the GUI thread. A head taken into the lab
// goes through the model mode's one undoable edit of the document.

#include "foldermode.h"

namespace attn {

class TranslatorView;
class ModelMode;

class TranslatorMode : public FolderMode {
    Q_OBJECT

public:
    TranslatorMode(ModeHost &host, ModelMode &model);

    TranslatorView *view() const { return m_view; }

protected:
    std::optional<Problem> ensureModel() override;
    void startLoading(const QString &folder) override;
    bool isLoading() const override;

private:
    TranslatorMode(ModeHost &host, ModelMode &model, TranslatorView *view);
    TranslatorView *m_view;
};

} // namespace attn
