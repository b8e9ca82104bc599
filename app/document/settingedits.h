#pragma once
// The settings that the panel and the Attention menu both change: one edit
// each, named the same in the undo history wherever it was made from. Each
// changes one field of the document's settings and pushes one settings
// command (Document::setSettings), a step of its own; the head count is a
// shape edit (Document::edit). Each returns the refusal, if the document
// refused.

#include "document.h"

#include <QCoreApplication>

namespace attn {

class SettingEdits {
    Q_DECLARE_TR_FUNCTIONS(attn::SettingEdits)

public:
    static std::optional<Problem> setCausal(Document &doc, bool on);
    static std::optional<Problem> setMaskStage(Document &doc, MaskStage stage);
    static std::optional<Problem> setSoftmax(Document &doc, SoftmaxKind kind);
    static std::optional<Problem> setHeadCount(Document &doc, int heads);
    static std::optional<Problem> setEncoding(Document &doc, Encoding encoding);
    static std::optional<Problem> setScale(Document &doc, Scale scale);
    static std::optional<Problem> setSimilarity(Document &doc, Similarity similarity);
    // live: part of the open gesture (the slider held down, Document::beginGesture).
    static std::optional<Problem> setTemperature(Document &doc, double tau, bool live = false);

    // Names as the undo history writes them ("Sinusoidal", "÷ √d_k").
    static QString name(Encoding encoding);
    static QString name(Scale scale);
    static QString name(Similarity similarity);
};

} // namespace attn
