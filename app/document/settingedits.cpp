#include "settingedits.h"

#include "edit.h"

namespace attn {

namespace {

// The document's settings with one change, validated and pushed as one
// settings command of its own (or, `step`, part of the open gesture).
template <typename Change>
std::optional<Problem> change(Document &doc, const QString &description, Change &&f,
                              Document::Step step = Document::Step::Own)
{
    Settings s = settingsOf(doc.scenario());
    f(s);
    return doc.setSettings(s, description, step);
}

} // namespace

std::optional<Problem> SettingEdits::setCausal(Document &doc, bool on)
{
    return change(doc, on ? tr("Causal mask on") : tr("Causal mask off"), [on](Settings &s) { s.mask.causal = on; });
}

std::optional<Problem> SettingEdits::setMaskStage(Document &doc, MaskStage stage)
{
    return change(doc, stage == MaskStage::BeforeSoftmax ? tr("Mask before softmax") : tr("Mask after softmax"),
                  [stage](Settings &s) { s.maskStage = stage; });
}

std::optional<Problem> SettingEdits::setSoftmax(Document &doc, SoftmaxKind kind)
{
    //: An undo step: the row normaliser, softmax₁ = e^x / (1 + Σ e^x) or the ordinary softmax.
    return change(doc, kind == SoftmaxKind::PlusOne ? tr("Softmax₁ (+1)") : tr("Ordinary softmax"),
                  [kind](Settings &s) { s.softmax = kind; });
}

std::optional<Problem> SettingEdits::setHeadCount(Document &doc, int heads)
{
    // Not a setting: h changes d_k, a shape edit.
    return doc.edit(setHeads(doc.scenario(), heads), heads == 1 ? tr("1 head") : tr("%1 heads").arg(heads));
}

std::optional<Problem> SettingEdits::setEncoding(Document &doc, Encoding encoding)
{
    return change(doc, tr("Positional encoding: %1").arg(name(encoding)),
                  [encoding](Settings &s) { s.encoding = encoding; });
}

std::optional<Problem> SettingEdits::setScale(Document &doc, Scale scale)
{
    return change(doc, tr("Scaling: %1").arg(name(scale)), [scale](Settings &s) { s.scale = scale; });
}

std::optional<Problem> SettingEdits::setSimilarity(Document &doc, Similarity similarity)
{
    return change(doc, tr("Similarity: %1").arg(name(similarity)),
                  [similarity](Settings &s) { s.similarity = similarity; });
}

std::optional<Problem> SettingEdits::setTemperature(Document &doc, double tau, bool live)
{
    if (doc.scenario().temperature == tau)
        return std::nullopt;
    // Held: part of the slider's gesture (one undo step for the whole move).
    return change(doc, tr("Temperature %1").arg(tau), [tau](Settings &s) { s.temperature = tau; },
                  live ? Document::Step::Gesture : Document::Step::Own);
}

QString SettingEdits::name(Encoding encoding)
{
    switch (encoding) {
    case Encoding::None:
        return tr("none");
    case Encoding::Sinusoidal:
        return tr("sinusoidal");
    case Encoding::Learned:
        return tr("learned");
    case Encoding::Rope:
        return tr("RoPE");
    }
    return QString();
}

QString SettingEdits::name(Scale scale)
{
    switch (scale) {
    case Scale::SqrtDk:
        return tr("÷ √d_k");
    case Scale::None:
        return tr("÷ 1");
    case Scale::Dk:
        return tr("÷ d_k");
    }
    return QString();
}

QString SettingEdits::name(Similarity similarity)
{
    switch (similarity) {
    case Similarity::Dot:
        return tr("dot product");
    case Similarity::Cosine:
        return tr("cosine");
    case Similarity::NegSqDistance:
        return tr("negative squared distance");
    }
    return QString();
}

} // namespace attn
