#include "takehead.h"

#include "bpe.h"

namespace attn {

namespace {

// A label a scenario accepts (validate.h: at most kMaxLabelCharacters code
// points): a longer token of a big vocabulary keeps its start and an ellipsis.
std::string boundedText(const std::string &utf8, int limit)
{
    int points = 0;
    std::size_t cut = utf8.size();
    for (std::size_t i = 0; i < utf8.size(); ++i) {
        if ((static_cast<unsigned char>(utf8[i]) & 0xC0) == 0x80)
            continue; // a continuation byte
        if (points == limit - 1)
            cut = i;
        ++points;
    }
    if (points <= limit)
        return utf8;
    return utf8.substr(0, cut) + "\u2026";
}

std::string boundedLabel(const std::string &utf8)
{
    return boundedText(utf8, kMaxLabelCharacters);
}

} // namespace

std::vector<std::string> tokenLabels(const ModelTrace &trace)
{
    std::vector<std::string> labels;
    for (const std::string &bytes : trace.texts)
        labels.push_back(boundedLabel(tokenLabel(bytes)));
    return labels;
}

namespace {

Result<Scenario> headScenarioUnchecked(const Gpt2Model &model, const ModelTrace &trace, int layer, int head,
                                             HeadInput input)
{
    const int layers = int(trace.layers.size());
    if (layer < 0 || layer >= layers)
        return Problem{"layer", "must be a layer from 1 to " + std::to_string(layers) + " (got " + std::to_string(layer + 1) + ")"};
    const LayerActivations &la = trace.layers[std::size_t(layer)];
    const int heads = int(la.heads.size());
    if (head < 0 || head >= heads)
        return Problem{"head", "must be a head from 1 to " + std::to_string(heads) + " (got " + std::to_string(head + 1) + ")"};
    const HeadActivations &h = la.heads[std::size_t(head)];

    Scenario s;
    const std::string where = model.name.toStdString() + ", layer " + std::to_string(layer + 1) + ", head "
        + std::to_string(head + 1);
    s.title = boundedText(where, kMaxTitleCharacters); // a long folder name is cut, not refused
    std::string text;
    for (const std::string &t : trace.texts)
        text += t;
    s.description = "Taken from the model " + where + " for the text \"" + displayText(text) + "\" ("
        + std::to_string(trace.ids.size()) + " tokens): "
        + (input == HeadInput::Direct ? "the head's q, k and v as Q, K and V"
                                      : "the layer's normed input LN_1(x) with a column of ones as X, and the head's "
                                        "slices of c_attn with their bias as the last row as W_Q, W_K, W_V")
        + "; scaled by sqrt(d_k) and causal, as in the model.";
    s.tokens = tokenLabels(trace);
    s.heads = 1;
    s.similarity = Similarity::Dot;
    s.scale = Scale::SqrtDk;
    s.temperature = 1.0;
    s.mask.causal = true;
    s.maskStage = MaskStage::BeforeSoftmax;
    s.encoding = Encoding::None;
    if (input == HeadInput::Direct) {
        s.mode = InputMode::Direct;
        s.Q = h.q;
        s.K = h.k;
        s.V = h.v;
        return s;
    }
    const Gpt2Config &c = model.config;
    const int d = c.nEmbd, dh = c.headDim();
    if (layer >= int(model.layers.size()) || la.normed.cols() != d)
        return Problem{"layer", "the trace is not of this model"};
    const Gpt2Layer &L = model.layers[std::size_t(layer)];
    const Matrix attnWeight = model.attnWeight(layer); // d by 3d, in double whatever the model's precision
    const Eigen::Index n = la.normed.rows();
    s.mode = InputMode::Projected;
    s.X.resize(n, d + 1);                 // n by d+1
    s.X.leftCols(d) = la.normed;
    s.X.col(d).setOnes();
    auto slice = [&](int part) {          // (d+1) by d_h
        Matrix w(d + 1, dh);
        w.topRows(d) = attnWeight.middleCols(part * d + head * dh, dh);
        w.row(d) = L.attnBias.segment(part * d + head * dh, dh);
        return w;
    };
    s.Wq = slice(0);
    s.Wk = slice(1);
    s.Wv = slice(2);
    return s;
}

} // namespace

Result<Scenario> headScenario(const Gpt2Model &model, const ModelTrace &trace, int layer, int head,
                                             HeadInput input)
{
    // What the lab refuses (a trace over its budget, numbers over its limit)
    // is said here, once, instead of thrown by compute() later.
    auto taken = headScenarioUnchecked(model, trace, layer, head, input);
    if (taken.ok())
        if (auto p = validate(taken.value()))
            return Problem{p->place, "this head cannot be taken into the lab: " + p->message};
    return taken;
}

namespace {

// One head's q, k, v as a direct-mode scenario of one head (the encoder's,
// the encoder-decoder's): the layer and head checked, the labels bounded.
Result<Scenario> directHeadScenario(const std::vector<LayerActivations> &layers, int layer, int head,
                                    const std::string &what, const std::string &model, const std::string &description,
                                    const std::vector<std::string> &queries, const std::vector<std::string> &keys,
                                    bool causal)
{
    const int count = int(layers.size());
    if (layer < 0 || layer >= count)
        return Problem{"layer", "must be a layer from 1 to " + std::to_string(count) + " (got " + std::to_string(layer + 1) + ")"};
    const LayerActivations &la = layers[std::size_t(layer)];
    const int heads = int(la.heads.size());
    if (head < 0 || head >= heads)
        return Problem{"head", "must be a head from 1 to " + std::to_string(heads) + " (got " + std::to_string(head + 1) + ")"};
    const HeadActivations &h = la.heads[std::size_t(head)];
    Scenario s;
    const std::string where = model + ", layer " + std::to_string(layer + 1) + ", head " + std::to_string(head + 1);
    s.title = boundedText(where, kMaxTitleCharacters);
    s.description = "Taken from " + what + where + description;
    for (const std::string &p : queries)
        s.tokens.push_back(boundedLabel(p));
    if (&keys != &queries)
        for (const std::string &p : keys)
            s.sourceTokens.push_back(boundedLabel(p));
    s.heads = 1;
    s.similarity = Similarity::Dot;
    s.scale = Scale::SqrtDk;
    s.temperature = 1.0;
    s.mask.causal = causal;
    s.maskStage = MaskStage::BeforeSoftmax;
    s.encoding = Encoding::None;
    s.mode = InputMode::Direct;
    s.Q = h.q;
    s.K = h.k;
    s.V = h.v;
    if (auto p = validate(s))
        return Problem{p->place, "this head cannot be taken into the lab: " + p->message};
    return s;
}

} // namespace

Result<Scenario> encoderHeadScenario(const BertModel &model, const EncoderTrace &trace, int layer, int head)
{
    std::string text;
    for (const std::string &p : trace.pieces)
        text += (text.empty() ? "" : " ") + p;
    return directHeadScenario(trace.layers, layer, head, "the encoder ", model.name.toStdString(),
                              " for \"" + displayText(text) + "\" (" + std::to_string(trace.ids.size())
                                  + " tokens): the head's q, k and v as Q, K and V; scaled by sqrt(d_k), no causal mask "
                                    "(an encoder reads both ways), as in the model.",
                              trace.pieces, trace.pieces, false);
}

Result<Scenario> seq2seqHeadScenario(const BartModel &model, const Seq2SeqTrace &trace, Seq2SeqKind kind, int layer,
                                     int head)
{
    auto labels = [&model](const std::vector<int> &ids) {
        std::vector<std::string> out;
        for (int id : ids)
            out.push_back(tokenLabel(model.tokenizer.bytes(id)));
        return out;
    };
    const std::vector<std::string> source = labels(trace.sourceIds), target = labels(trace.targetIds);
    std::string text;
    for (const std::string &p : source)
        text += (text.empty() ? "" : " ") + p;
    const std::string read = " for the source \"" + displayText(text) + "\" (" + std::to_string(source.size())
        + " tokens) and " + std::to_string(target.size()) + " decoder tokens: ";
    const std::string what = "the encoder-decoder ", name = model.name.toStdString();
    switch (kind) {
    case Seq2SeqKind::EncoderSelf:
        return directHeadScenario(trace.encoder, layer, head, what, name + ", encoder self-attention",
                                  read + "Q, K and V all from the source's tokens; scaled by sqrt(d_k), no mask, as in the model.",
                                  source, source, false);
    case Seq2SeqKind::DecoderSelf:
        return directHeadScenario(trace.decoderSelf, layer, head, what, name + ", decoder self-attention",
                                  read + "Q, K and V all from the decoder's tokens; scaled by sqrt(d_k), causal, as in the model.",
                                  target, target, true);
    case Seq2SeqKind::Cross:
        break;
    }
    return directHeadScenario(trace.cross, layer, head, what, name + ", cross-attention",
                              read + "Q from the decoder's tokens, K and V from the encoder's output over the source; "
                                     "scaled by sqrt(d_k), no mask, as in the model.",
                              target, source, false);
}

} // namespace attn
