#pragma once
// The encoder as a mode of the window (View ▸ Encoder (BERT)): the
// EncoderView in place of the lab's maps, the shipped tiny-encoder opened
// the first time, a folder of the user's own (bert-base-uncased,
// bert-base-chinese) loaded off the GUI thread. A head taken into the lab
// goes through the model mode's one undoable edit of the document.

#include "foldermode.h"

namespace attn {

class EncoderView;
class ModelMode;

class EncoderMode : public FolderMode {
    Q_OBJECT

public:
    EncoderMode(ModeHost &host, ModelMode &model);

    EncoderView *view() const { return m_view; }

protected:
    std::optional<Problem> ensureModel() override;
    void startLoading(const QString &folder) override;
    bool isLoading() const override;

private:
    EncoderMode(ModeHost &host, ModelMode &model, EncoderView *view);
    EncoderView *m_view;
};

} // namespace attn
