#include "settingedits.h"

#include "edit.h"

namespace attn {

std::optional<Problem> SettingEdits::setCausal(Document &doc, bool on)
{
    Scenario s = doc.scenario();
    s.mask.causal = on;
    return doc.edit(s, on ? tr("Causal mask on") : tr("Causal mask off"));
}

std::optional<Problem> SettingEdits::setMaskStage(Document &doc, MaskStage stage)
{
    Scenario s = doc.scenario();
    s.maskStage = stage;
    return doc.edit(s, stage == MaskStage::BeforeSoftmax ? tr("Mask before softmax") : tr("Mask after softmax"));
}

std::optional<Problem> SettingEdits::setHeadCount(Document &doc, int heads)
{
    return doc.edit(setHeads(doc.scenario(), heads), heads == 1 ? tr("1 head") : tr("%1 heads").arg(heads));
}

std::optional<Problem> SettingEdits::setEncoding(Document &doc, Encoding encoding)
{
    Scenario s = doc.scenario();
    s.encoding = encoding;
    return doc.edit(s, tr("Positional encoding: %1").arg(name(encoding)));
}

std::optional<Problem> SettingEdits::setScale(Document &doc, Scale scale)
{
    Scenario s = doc.scenario();
    s.scale = scale;
    return doc.edit(s, tr("Scaling: %1").arg(name(scale)));
}

std::optional<Problem> SettingEdits::setSimilarity(Document &doc, Similarity similarity)
{
    Scenario s = doc.scenario();
    s.similarity = similarity;
    return doc.edit(s, tr("Similarity: %1").arg(name(similarity)));
}

std::optional<Problem> SettingEdits::setTemperature(Document &doc, double tau, bool live)
{
    Scenario s = doc.scenario();
    if (s.temperature == tau)
        return std::nullopt;
    s.temperature = tau;
    const QString description = tr("Temperature %1").arg(tau);
    // Held: part of the slider's gesture (one undo step for the whole move).
    return live ? doc.setSettings(Settings::of(s), description) : doc.edit(s, description);
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
