#include "stagedata.h"

#include "edit.h"
#include "formula.h"

#include <QCoreApplication>

#include <cmath>
#include <cstdlib>

namespace attn {

namespace {

// The translation context of this file's strings.
struct StageText {
    Q_DECLARE_TR_FUNCTIONS(attn::StageText)
};

QStringList dimensionLabels(int n, const QString &prefix)
{
    QStringList out;
    for (int i = 0; i < n; ++i)
        out << prefix + QString::number(i + 1);
    return out;
}

// max |x| over the head's score stages (the masked map takes the scaled
// scores' range, blocked cells included, so that an open cell has one colour
// in both maps), at least a hair above 0 so a zero matrix still has a range.
double scoreRange(const Trace &t, int head, bool shared, Stage stage)
{
    const HeadTrace &h = t.heads[std::size_t(head)];
    double r = 0;
    // Scores and scaled are finite (validated inputs). Scaled's largest is
    // the scores' largest / (c tau), to the bit, whether stored or not: a
    // derived scaled costs no pass of its own (8 MB a head at n = 1024,
    // for each of three maps on every move of a drag).
    const bool scores = shared || stage == Stage::Scores, scaled = shared || stage != Stage::Scores;
    if (scaled && h.scaled.size() == 0) {
        const double largest = h.scores.size() ? h.scores.cwiseAbs().maxCoeff() : 0.0;
        r = largest / std::abs(h.divisor); // as HeadTrace::scaledMaxAbs()
        if (scores)
            r = std::max(r, largest);
        return std::max(r, 1e-9);
    }
    if (scores)
        r = std::max(r, h.scores.size() ? h.scores.cwiseAbs().maxCoeff() : 0.0);
    if (scaled)
        r = std::max(r, h.scaledMaxAbs());
    return std::max(r, 1e-9);
}

// With softmax_1 every row sums below 1 by design: its sum is written, not flagged.
QString rowNote(const RowStats &r, bool plusOne)
{
    if (r.fullyMasked)
        return StageText::tr("all blocked");
    QString note = QStringLiteral("%1 · %2").arg(fixed2(r.maxWeight), fixed2(r.entropy));
    if (plusOne)
        note += StageText::tr(" · Σ %1").arg(QString::fromStdString(fixed4(r.sum, Minus::Typographic)));
    else if (shortOfOne(r)) // the after-softmax mistake: the row no longer sums to 1
        note += StageText::tr(" · Σ %1 ✗").arg(QString::fromStdString(fixed4(r.sum, Minus::Typographic)));
    return note;
}

bool rowFlag(const RowStats &r, bool plusOne)
{
    return r.fullyMasked || (!plusOne && shortOfOne(r));
}

//: The header above the weights' row notes under softmax_1: largest weight, entropy H, the row's sum.
QString plusOneNotesLabel()
{
    return StageText::tr("max · H · Σ");
}

} // namespace

QString fixed2(double v)
{
    return QString::fromStdString(formatFixed(v, 2, Minus::Typographic));
}

QStringList toQStringList(const std::vector<std::string> &v)
{
    QStringList out;
    for (const auto &s : v)
        out << QString::fromStdString(s);
    return out;
}

QString stageName(Stage stage)
{
    switch (stage) {
    case Stage::Scores:
        return StageText::tr("Scores");
    case Stage::Scaled:
        return StageText::tr("Scaled scores");
    case Stage::Masked:
        return StageText::tr("After the mask");
    case Stage::Weights:
        return StageText::tr("Softmax weights");
    case Stage::Output:
        return StageText::tr("Output");
    }
    return {};
}

QString stageKey(Stage stage)
{
    switch (stage) {
    case Stage::Scores:
        return QStringLiteral("scores");
    case Stage::Scaled:
        return QStringLiteral("scaled");
    case Stage::Masked:
        return QStringLiteral("masked");
    case Stage::Weights:
        return QStringLiteral("weights");
    case Stage::Output:
        return QStringLiteral("output");
    }
    return {};
}

std::optional<Stage> stageFromKey(const QString &key)
{
    for (Stage s : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output})
        if (stageKey(s) == key)
            return s;
    return std::nullopt;
}

QString settingsSummary(const Scenario &s, int head)
{
    QStringList parts;
    if (s.heads > 1 && head >= 0)
        parts << StageText::tr("head %1 of %2").arg(head + 1).arg(s.heads);
    if (s.mask.causal)
        parts << StageText::tr("causal");
    if (s.mask.window > 0)
        parts << (s.mask.dilation > 1 ? StageText::tr("window %1, dilation %2").arg(s.mask.window).arg(s.mask.dilation)
                                      : StageText::tr("window %1").arg(s.mask.window));
    else if (s.mask.dilation > 1)
        parts << StageText::tr("stride %1").arg(s.mask.dilation);
    if (s.mask.block > 0)
        parts << StageText::tr("blocks of %1").arg(s.mask.block);
    if (!s.mask.global.empty() && s.mask.sparse())
        parts << StageText::tr("%n global token(s)", nullptr, int(s.mask.global.size()));
    if (s.mask.keyPadding.size() && s.mask.keyPadding.any())
        parts << StageText::tr("padding");
    if (s.mask.blocked.size() && s.mask.blocked.any())
        parts << StageText::tr("custom mask");
    if (hasMask(s) && s.maskStage == MaskStage::AfterSoftmax)
        parts << StageText::tr("after softmax ✗");
    switch (s.similarity) {
    case Similarity::Dot:
        break;
    case Similarity::Cosine:
        parts << StageText::tr("cosine");
        break;
    case Similarity::NegSqDistance:
        parts << StageText::tr("−‖q−k‖²");
        break;
    }
    switch (s.scale) {
    case Scale::SqrtDk:
        break;
    case Scale::None:
        parts << StageText::tr("unscaled");
        break;
    case Scale::Dk:
        parts << StageText::tr("÷ d_k ✗");
        break;
    }
    if (s.temperature != 1.0)
        parts << QStringLiteral("τ = %1").arg(QString::fromStdString(compact(s.temperature)));
    switch (s.encoding) {
    case Encoding::None:
        break;
    case Encoding::Sinusoidal:
        parts << StageText::tr("sinusoidal PE");
        break;
    case Encoding::Learned:
        parts << StageText::tr("learned PE");
        break;
    case Encoding::Rope:
        parts << StageText::tr("RoPE");
        break;
    }
    return parts.isEmpty() ? QString() : QStringLiteral(" · ") + parts.join(QStringLiteral(" · "));
}

HeatmapData stageData(const Scenario &s, const Trace &t, Stage stage, const StageOptions &options)
{
    const int head = std::clamp(options.head, 0, int(t.heads.size()) - 1);
    const HeadTrace &h = t.heads[std::size_t(head)];
    const bool before = s.maskStage == MaskStage::BeforeSoftmax;
    HeatmapData d;
    d.rowLabels = toQStringList(queryLabels(s));
    d.colLabels = toQStringList(keyLabels(s));
    d.rowAxisLabel = StageText::tr("queries");
    d.colAxisLabel = StageText::tr("keys");
    const QString summary = settingsSummary(s, head);
    const QString divisor = QString::fromStdString(divisorTerms(s, t)).section(QLatin1Char(' '), 0, 0);

    switch (stage) {
    case Stage::Scores:
        if (options.values)
            d.values = h.scores;
        d.title = StageText::tr("Scores  s = %1").arg(QString::fromUtf8(similaritySymbol(s)));
        d.colorBarLabel = StageText::tr("score");
        d.scale = HeatmapScale::Diverging;
        d.range = scoreRange(t, head, options.sharedScoreRange, stage);
        break;
    case Stage::Scaled:
        if (options.values)
            d.values = h.scaledMatrix();
        d.title = StageText::tr("Scaled  s / %1").arg(divisor);
        d.colorBarLabel = StageText::tr("scaled score");
        d.scale = HeatmapScale::Diverging;
        d.range = scoreRange(t, head, options.sharedScoreRange, stage);
        break;
    case Stage::Masked:
        if (options.values)
            d.values = h.scaledMatrix();
        d.title = before ? StageText::tr("Masked  blocked → −∞") : StageText::tr("Masked after the softmax ✗");
        d.colorBarLabel = StageText::tr("scaled score");
        d.scale = HeatmapScale::Diverging;
        d.range = scoreRange(t, head, options.sharedScoreRange, stage);
        if (before) {
            d.blocked = t.blocked;
            d.blockedText = QStringLiteral("−∞");
        } else {
            d.outlined = t.blocked;
        }
        break;
    case Stage::Weights: {
        if (options.values)
            d.values = h.weights;
        const bool plusOne = s.softmax == SoftmaxKind::PlusOne;
        d.title = plusOne ? StageText::tr("Softmax₁ weights  e^x / (1 + Σ e^x)") : StageText::tr("Softmax weights");
        d.colorBarLabel = StageText::tr("weight");
        d.scale = HeatmapScale::Probability;
        // Hatched and grey, no text: a blocked cell's "0" read as a weight
        // like any other, and crowded out the open cells' numbers.
        d.blocked = t.blocked;
        //: The header above the weights' row notes: the row's largest weight and its entropy H.
        d.rowNotesLabel = StageText::tr("max · H");
        //: Under the weights map: what the two numbers right of each row are. Entropy in nats (natural log).
        d.rowNotesLegend = StageText::tr("max = the largest weight in the row · H = the row's entropy in nats "
                                         "(0: all on one key)");
        if (plusOne) {
            d.rowNotesLabel = plusOneNotesLabel();
            //: Under the weights map with softmax_1: the rows sum below 1, the rest goes to no key.
            d.rowNotesLegend = StageText::tr("max = the largest weight · H = the entropy in nats · Σ = the row's sum, "
                                             "below 1 with softmax₁: the rest 1 − Σ attends to nothing");
        }
        for (const RowStats &r : h.rows) {
            d.rowNotes << rowNote(r, plusOne);
            d.rowFlagged << rowFlag(r, plusOne);
        }
        break;
    }
    case Stage::Output:
        if (options.values)
            d.values = h.output;
        d.colLabels = dimensionLabels(int(h.output.cols()), QStringLiteral("d"));
        d.colAxisLabel = StageText::tr("value dimensions");
        d.title = StageText::tr("Output  weights · V");
        d.colorBarLabel = StageText::tr("output");
        d.scale = HeatmapScale::Diverging;
        for (const RowStats &r : h.rows)
            d.rowFlagged << r.fullyMasked;
        break;
    }
    // One colour scale for the three score maps is a choice (View ▸ Score
    // maps share one colour range): the colour bar says so, or a pale map
    // reads as blank.
    if (options.sharedScoreRange && d.scale == HeatmapScale::Diverging && stage != Stage::Output)
        //: Appended to a score map's colour bar title when scores, scaled and masked share one colour range.
        d.colorBarLabel += StageText::tr(" · shared scale");
    if (!summary.isEmpty())
        d.title += QLatin1Char('\n') + summary.mid(3); // the settings on their own line, without the leading " · "
    return d;
}

void stageValues(const Trace &t, Stage stage, int head, Matrix &into)
{
    const HeadTrace &h = t.heads[std::size_t(std::clamp(head, 0, int(t.heads.size()) - 1))];
    switch (stage) {
    case Stage::Scores:
        into = h.scores;
        break;
    case Stage::Scaled:
    case Stage::Masked:
        // The bits of HeadTrace::scaledMatrix(), without its temporary.
        if (h.scaled.size())
            into = h.scaled;
        else
            into = h.scores / h.divisor;
        break;
    case Stage::Weights:
        into = h.weights;
        break;
    case Stage::Output:
        into = h.output;
        break;
    }
}

StageSpan changedCells(Stage stage, const TraceDelta &delta)
{
    switch (stage) {
    case Stage::Scores:
    case Stage::Scaled:
    case Stage::Masked:
        return {std::max(delta.scoreRow, 0), delta.scoreRow >= 0 ? 1 : 0, delta.scoreColumn};
    case Stage::Weights:
        return {delta.weightFirst, delta.weightCount, -1};
    case Stage::Output:
        return {delta.outputFirst, delta.outputCount, -1};
    }
    return {};
}

void updateStageData(HeatmapData &d, const Trace &t, Stage stage, const StageOptions &options, const TraceDelta &delta)
{
    const int head = std::clamp(options.head, 0, int(t.heads.size()) - 1);
    const HeadTrace &h = t.heads[std::size_t(head)];
    const StageSpan span = changedCells(stage, delta);
    const int end = span.firstRow + span.rowCount;
    const Matrix *source = nullptr; // null: the scaled stage, stored or not
    switch (stage) {
    case Stage::Scores:
    case Stage::Scaled:
    case Stage::Masked:
        source = stage == Stage::Scores ? &h.scores : nullptr;
        d.range = scoreRange(t, head, options.sharedScoreRange, stage);
        break;
    case Stage::Weights:
        source = &h.weights;
        // A value edit keeps the settings: the notes keep the form stageData chose.
        for (int r = span.firstRow; r < end; ++r) {
            const RowStats &st = h.rows[std::size_t(r)];
            const bool plusOne = d.rowNotesLabel == plusOneNotesLabel();
            d.rowNotes[r] = rowNote(st, plusOne);
            d.rowFlagged[r] = rowFlag(st, plusOne);
        }
        break;
    case Stage::Output:
        source = &h.output;
        for (int r = span.firstRow; r < end; ++r)
            d.rowFlagged[r] = h.rows[std::size_t(r)].fullyMasked;
        break;
    }
    if (span.rowCount) {
        if (source)
            d.values.middleRows(span.firstRow, span.rowCount) = source->middleRows(span.firstRow, span.rowCount);
        else
            d.values.middleRows(span.firstRow, span.rowCount) = h.scaledRows(span.firstRow, span.rowCount);
    }
    if (span.column >= 0) {
        if (source)
            d.values.col(span.column) = source->col(span.column);
        else
            d.values.col(span.column) = h.scaledCol(span.column);
    }
}

namespace {

QString reasonText(const BlockReasons &r, int row, int col)
{
    QStringList parts;
    if (r.causal)
        parts << StageText::tr("causal: key %1 comes after query %2").arg(col + 1).arg(row + 1);
    if (r.padding)
        parts << StageText::tr("key %1 is padding").arg(col + 1);
    if (r.window)
        parts << StageText::tr("outside the sliding window: %1 positions apart").arg(std::abs(row - col));
    if (r.dilation)
        parts << StageText::tr("off the dilation's stride");
    if (r.block)
        parts << StageText::tr("another block");
    if (r.hand)
        parts << StageText::tr("blocked by a click");
    return parts.join(QStringLiteral("; "));
}

QString q4(double v)
{
    return QString::fromStdString(fixed4(v, Minus::Typographic));
}

} // namespace

QString cellToolTip(const Scenario &s, const Trace &t, Stage stage, int head, int row, int col)
{
    if (head < 0 || head >= int(t.heads.size()) || row < 0 || col < 0)
        return {};
    const HeadTrace &h = t.heads[std::size_t(head)];
    const Eigen::Index cols = stage == Stage::Output ? h.output.cols() : h.scores.cols();
    if (row >= h.scores.rows() || col >= cols)
        return {};

    const auto ql = queryLabels(s), kl = keyLabels(s);
    const QString who = QStringLiteral("“%1” → %2").arg(QString::fromStdString(ql[std::size_t(row)]),
                                                       stage == Stage::Output ? QStringLiteral("d%1").arg(col + 1)
                                                                              : QStringLiteral("“%1”").arg(QString::fromStdString(kl[std::size_t(col)])));
    const QString sim = QString::fromUtf8(similaritySymbol(s));
    const bool blocked = stage != Stage::Output && t.blocked(row, col);
    const bool before = s.maskStage == MaskStage::BeforeSoftmax;
    const QString reason = blocked ? reasonText(blockReasons(s, row, col), row, col) : QString();

    QString line;
    switch (stage) {
    case Stage::Scores: {
        QString terms = QString::fromStdString(scoreTerms(s.similarity, h.Q.row(row), h.K.row(col)));
        line = StageText::tr("score = %1 = %2%3").arg(sim, terms.isEmpty() ? QString() : terms + QStringLiteral(" = "), q4(h.scores(row, col)));
        break;
    }
    case Stage::Scaled: {
        // "(2·2 + 0·0) / √2 = 4.0000 / 1.4142 = 2.8284"
        const QString terms = QString::fromStdString(scoreTerms(s.similarity, h.Q.row(row), h.K.row(col)));
        const QString c = QString::fromStdString(divisorTerms(s, t)).section(QStringLiteral(" = "), 0, 0);
        line = StageText::tr("scaled = score / (c·τ) = %1 / %2 = %3 / %4 = %5")
                   .arg(terms.isEmpty() ? sim : QStringLiteral("(%1)").arg(terms), c, q4(h.scores(row, col)),
                        QString::fromStdString(compact(t.divisor)), q4(h.scaledAt(row, col)));
        break;
    }
    case Stage::Masked:
        if (blocked && before)
            line = StageText::tr("blocked (%1): −∞, so its weight will be 0").arg(reason);
        else if (blocked)
            line = StageText::tr("blocked (%1), but the mask acts after the softmax: the score stays %2").arg(reason, q4(h.scaledAt(row, col)));
        else
            line = StageText::tr("open: %1").arg(q4(h.scaledAt(row, col)));
        break;
    case Stage::Weights: {
        if (h.rows[std::size_t(row)].fullyMasked) {
            line = StageText::tr("every key of this row is blocked: all its weights are 0");
            break;
        }
        if (blocked && before) {
            line = StageText::tr("blocked (%1): e^(−∞) = 0").arg(reason);
            break;
        }
        const SoftmaxTerms e = softmaxTerms(s, t, head, row, col);
        if (s.softmax == SoftmaxKind::PlusOne)
            line = StageText::tr("weight = e^(%1 − %2) / (e^(0 − %2) + Σ) = %3 / %4 = %5")
                       .arg(q4(h.scaledAt(row, col)), q4(e.max), q4(e.exp), q4(e.sum), q4(e.exp / e.sum));
        else
            line = StageText::tr("weight = e^(%1 − %2) / Σ = %3 / %4 = %5")
                       .arg(q4(h.scaledAt(row, col)), q4(e.max), q4(e.exp), q4(e.sum), q4(e.exp / e.sum));
        if (blocked)
            line += QLatin1Char('\n') + StageText::tr("then blocked after the softmax (%1): set to 0, and the row is not renormalised").arg(reason);
        const RowStats &r = h.rows[std::size_t(row)];
        line += QLatin1Char('\n') + StageText::tr("row: max %1 at “%2”, entropy %3 nats, sum %4")
                                        .arg(q4(r.maxWeight), QString::fromStdString(kl[std::size_t(r.argmax)]), q4(r.entropy), q4(r.sum));
        break;
    }
    case Stage::Output: {
        const QString terms = QString::fromStdString(outputTerms(h, row, col));
        line = StageText::tr("output = Σ_j w_j·v_j = %1%2").arg(terms.isEmpty() ? QString() : terms + QStringLiteral(" = "), q4(h.output(row, col)));
        break;
    }
    }

    const double exact = stage == Stage::Output ? h.output(row, col)
                       : stage == Stage::Scores ? h.scores(row, col)
                       : stage == Stage::Weights ? h.weights(row, col)
                                                 : h.scaledAt(row, col);
    const bool minusInfinity = stage == Stage::Masked && blocked && before;
    QString tip = who + QLatin1Char('\n') + line + QLatin1Char('\n')
                + StageText::tr("exact value: %1").arg(minusInfinity ? QStringLiteral("−∞") : QString::fromStdString(shortest(exact)));
    // What a click does is the clicked view's to say (StageView: Ctrl+click
    // blocks, a plain click selects the query; a model's map blocks nothing).
    return tip;
}

HeatmapData headWeightsData(const Scenario &s, const Trace &t, int head)
{
    StageOptions o;
    o.head = head;
    HeatmapData d = stageData(s, t, Stage::Weights, o);
    d.title = StageText::tr("head %1").arg(head + 1);
    d.rowNotes.clear();
    return d;
}

HeatmapData concatData(const Scenario &s, const Trace &t)
{
    HeatmapData d;
    d.values = t.concat;
    d.rowLabels = toQStringList(queryLabels(s));
    for (int c = 0; c < int(t.concat.cols()); ++c)
        d.colLabels << (s.heads > 1 ? QStringLiteral("h%1·%2").arg(c / t.dv + 1).arg(c % t.dv + 1)
                                    : QStringLiteral("d%1").arg(c + 1));
    d.rowAxisLabel = StageText::tr("queries");
    d.colAxisLabel = StageText::tr("heads' value dimensions");
    d.title = StageText::tr("Concatenated heads  [head₁ … headₕ]") + settingsSummary(s, -1);
    d.colorBarLabel = StageText::tr("output");
    d.scale = HeatmapScale::Diverging;
    d.columnGroup = s.heads > 1 ? t.dv : 0;
    return d;
}

HeatmapData finalOutputData(const Scenario &s, const Trace &t)
{
    HeatmapData d;
    d.values = t.output;
    d.rowLabels = toQStringList(queryLabels(s));
    d.colLabels = dimensionLabels(int(t.output.cols()), QStringLiteral("o"));
    d.rowAxisLabel = StageText::tr("queries");
    d.colAxisLabel = StageText::tr("output dimensions");
    const bool wo = s.mode == InputMode::Projected && s.Wo.has_value();
    d.title = wo ? StageText::tr("Output  concat · W_O") : StageText::tr("Output  = concat (no W_O)");
    d.colorBarLabel = StageText::tr("output");
    d.scale = HeatmapScale::Diverging;
    return d;
}

HeatmapData positionalData(const Scenario &s, const Trace &t)
{
    HeatmapData d;
    d.rowLabels = toQStringList(queryLabels(s));
    d.rowAxisLabel = StageText::tr("positions (queries)");
    if (s.encoding == Encoding::None || t.positionQuery.size() == 0)
        return d;
    d.values = t.positionQuery;
    if (s.encoding == Encoding::Rope) {
        d.title = StageText::tr("RoPE angles  θ(p, i) = p·10000^(−2i/d_k)");
        for (int i = 0; i < int(t.positionQuery.cols()); ++i)
            d.colLabels << StageText::tr("pair %1").arg(i + 1);
        d.colAxisLabel = StageText::tr("dimension pairs (2i, 2i+1)");
        d.colorBarLabel = StageText::tr("angle (radians)");
        d.scale = HeatmapScale::SequentialAuto;
    } else {
        d.title = s.encoding == Encoding::Sinusoidal ? StageText::tr("Sinusoidal encoding\nP(p, 2i) = sin, P(p, 2i+1) = cos")
                                                     : StageText::tr("Learned encoding (drawn from seed %1)").arg(s.seed);
        d.colLabels = dimensionLabels(int(t.positionQuery.cols()), QStringLiteral("d"));
        d.colAxisLabel = s.mode == InputMode::Projected ? StageText::tr("embedding dimensions (added to X)")
                                                        : StageText::tr("dimensions (added to Q, K and V)");
        d.colorBarLabel = StageText::tr("added value");
        d.scale = HeatmapScale::Diverging;
        d.range = 1.0;
    }
    return d;
}

void hideAnswers(HeatmapData &d)
{
    d.values.setZero();
    d.blocked.resize(0, 0);
    d.outlined.resize(0, 0);
    d.rowNotes.clear();
    d.rowNotesLabel.clear();
    d.rowNotesLegend.clear();
    d.rowFlagged.clear();
}

} // namespace attn
