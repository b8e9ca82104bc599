#include "translatormode.h"

#include "translatorview.h"
#include "modelmode.h"

#include <QMainWindow>

namespace attn {

TranslatorMode::TranslatorMode(ModeHost &host, ModelMode &model) : TranslatorMode(host, model, new TranslatorView(host.mainWindow()))
{
}

TranslatorMode::TranslatorMode(ModeHost &host, ModelMode &model, TranslatorView *view)
    : FolderMode(host, view,
                 {QStringLiteral("translator"), QStringLiteral("translatorAction"), QStringLiteral("openTranslatorAction"),
                  QStringLiteral("openEncoderAction"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_J)},
                 {tr("Encoder-deco&der (BART)"),
                  tr("A model that translates: the encoder reads, the decoder writes, cross-attention links them"),
                  tr("Open encoder-decoder…"),
                  tr("A BART folder in the Hugging Face layout: config.json, model.safetensors, vocab.json, merges.txt"),
                  tr("Open an encoder-decoder folder"), tr("The encoder-decoder was not opened: %1"),
                  tr("Opened the encoder-decoder %1"), tr("The built-in encoder-decoder did not load: %1")})
    , m_view(view)
{
    connect(m_view, &TranslatorView::takeHeadRequested, this,
            [&model](const Scenario &head, const QString &description) { model.takeHeadIntoLab(head, description); });
    connect(m_view, &TranslatorView::loaded, this, &TranslatorMode::loaded);
    connect(m_view, &TranslatorView::failed, this, &TranslatorMode::failed);
    connect(m_view, &TranslatorView::refused, this, [this](const QString &message) { m_host.showProblem(message); });
}

std::optional<Problem> TranslatorMode::ensureModel()
{
    return m_view->ensureModel();
}

void TranslatorMode::startLoading(const QString &folder)
{
    m_view->openFolder(folder);
}

bool TranslatorMode::isLoading() const
{
    return m_view->isLoading();
}

} // namespace attn
