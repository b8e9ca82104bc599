#include "encodermode.h"

#include "encoderview.h"
#include "modelmode.h"

#include <QMainWindow>

namespace attn {

EncoderMode::EncoderMode(ModeHost &host, ModelMode &model) : EncoderMode(host, model, new EncoderView(host.mainWindow()))
{
}

EncoderMode::EncoderMode(ModeHost &host, ModelMode &model, EncoderView *view)
    : FolderMode(host, view,
                 {QStringLiteral("encoder"), QStringLiteral("encoderAction"), QStringLiteral("openEncoderAction"),
                  QStringLiteral("openModelAction"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B)},
                 {tr("&Encoder (BERT)"), tr("A model that reads both ways and fills in a masked word"), tr("Open &encoder…"),
                  tr("A BERT folder in the Hugging Face layout: config.json, model.safetensors, vocab.txt"),
                  tr("Open an encoder folder"), tr("The encoder was not opened: %1"), tr("Opened the encoder %1"),
                  tr("The built-in encoder did not load: %1")})
    , m_view(view)
{
    connect(m_view, &EncoderView::takeHeadRequested, this,
            [&model](const Scenario &head, const QString &description) { model.takeHeadIntoLab(head, description); });
    connect(m_view, &EncoderView::loaded, this, &EncoderMode::loaded);
    connect(m_view, &EncoderView::failed, this, &EncoderMode::failed);
    connect(m_view, &EncoderView::refused, this, [this](const QString &message) { m_host.showProblem(message); });
}

std::optional<Problem> EncoderMode::ensureModel()
{
    return m_view->ensureModel();
}

void EncoderMode::startLoading(const QString &folder)
{
    m_view->openFolder(folder);
}

bool EncoderMode::isLoading() const
{
    return m_view->isLoading();
}

} // namespace attn
