#include "comparefigure.h"

#include "numbers.h"
#include "stagedata.h"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QVBoxLayout>

#include <cmath>
#include <functional>

namespace attn {

namespace {

struct CompareText {
    Q_DECLARE_TR_FUNCTIONS(attn::CompareText)
};

// "Σ 0.87" beside each row: how much weight the row gives out.
void addRowSums(HeatmapData &d, const Trace &t, int head)
{
    if (head < 0 || head >= int(t.heads.size()))
        return;
    const Matrix &w = t.heads[std::size_t(head)].weights;
    d.rowNotes.clear();
    for (Eigen::Index i = 0; i < w.rows(); ++i)
        d.rowNotes << QStringLiteral("Σ %1").arg(fixed2(w.row(i).sum()));
    d.rowNotesLabel = CompareText::tr("row sum");
}

} // namespace

CompareStage toCompareStage(Stage stage)
{
    switch (stage) {
    case Stage::Scores: return CompareStage::Scores;
    case Stage::Scaled: return CompareStage::Scaled;
    case Stage::Masked: return CompareStage::Masked;
    case Stage::Weights: return CompareStage::Weights;
    case Stage::Output: return CompareStage::Output;
    }
    return CompareStage::Weights;
}

QString diffNumber(double v)
{
    if (v == 0)
        return QStringLiteral("0");
    if (std::abs(v) < 5e-5)
        return QString::number(v, 'g', 2).replace(QLatin1Char('-'), QChar(0x2212));
    return QString::fromStdString(formatFixed(v, 4, Minus::Typographic));
}

CompareMaps compareMaps(const Scenario &a, const Trace &ta, const Scenario &b, const Trace &tb, Stage stage, int head,
                        bool alignByToken)
{
    CompareMaps m;
    m.stage = stage;
    const int heads = int(std::min(ta.heads.size(), tb.heads.size()));
    m.head = std::clamp(head, 0, std::max(0, heads - 1));
    m.alignRequested = alignByToken;
    std::string why;
    const auto order = tokenAlignment(a, b, &why);
    m.alignable = order.has_value();
    m.alignWhy = QString::fromStdString(why);
    m.aligned = alignByToken && m.alignable;
    const Trace alignedB = m.aligned ? alignTrace(tb, *order) : Trace();
    const Trace &bt = m.aligned ? alignedB : tb;

    StageOptions options;
    options.head = m.head;
    m.a = stageData(a, ta, stage, options);
    m.b = stageData(b, bt, stage, options);
    if (m.aligned) { // B's tokens are now in A's order
        m.b.rowLabels = m.a.rowLabels;
        if (stage != Stage::Output)
            m.b.colLabels = m.a.colLabels;
    }
    const QString stageTitle = stageName(stage);
    m.a.title = CompareText::tr("A · %1%2").arg(stageTitle, settingsSummary(a, heads > 1 ? m.head : -1));
    m.b.title = CompareText::tr("B · %1%2").arg(stageTitle, settingsSummary(b, heads > 1 ? m.head : -1))
        + (m.aligned ? CompareText::tr(" · in A's token order") : QString());
    const bool sums = (stage == Stage::Weights || stage == Stage::Masked)
        && (a.maskStage == MaskStage::AfterSoftmax || b.maskStage == MaskStage::AfterSoftmax);
    if (sums) {
        addRowSums(m.a, ta, m.head);
        addRowSums(m.b, bt, m.head);
    }
    // One colour range for A and B, so equal colours are equal numbers.
    if (m.a.scale == HeatmapScale::Diverging && m.b.scale == HeatmapScale::Diverging) {
        auto range = [](const HeatmapData &d) {
            if (d.range > 0)
                return d.range;
            double r = 0;
            for (Eigen::Index i = 0; i < d.values.size(); ++i)
                if (std::isfinite(d.values.data()[i]))
                    r = std::max(r, std::abs(d.values.data()[i]));
            return r;
        };
        const double r = std::max(range(m.a), range(m.b));
        m.a.range = m.b.range = r;
    }

    m.difference = stageDifference(a, ta, b, bt, toCompareStage(stage), m.head);
    const Comparison all = compareTraces(a, ta, b, tb, m.aligned);
    m.overallMax = all.maxAbsDiff();
    m.sameNumbers = m.aligned && m.overallMax < kSameNumbers;

    HeatmapData &d = m.diff;
    d.rowLabels = m.a.rowLabels;
    d.colLabels = m.a.colLabels;
    d.rowAxisLabel = m.a.rowAxisLabel;
    d.colAxisLabel = m.a.colAxisLabel;
    d.scale = HeatmapScale::Diverging;
    d.colorBarLabel = CompareText::tr("B − A");
    d.blockedText = QStringLiteral("−∞");
    if (m.difference.comparable) {
        d.values = m.difference.difference;
        // Below what four decimals show, a difference is drawn white: rounding
        // noise (1e-16) must not look like a difference.
        d.range = std::max(m.difference.maxAbsDiff, 1e-4);
        const QString where = m.difference.row >= 0
            ? CompareText::tr(" at (%1, %2)").arg(d.rowLabels.value(m.difference.row),
                                                   d.colLabels.value(m.difference.col))
            : QString();
        m.maxText = CompareText::tr("max |B − A| = %1%2").arg(diffNumber(m.difference.maxAbsDiff), where);
        if (m.difference.maxAbsDiff > 0 && m.difference.maxAbsDiff < kSameNumbers)
            m.maxText += CompareText::tr(" (rounding only)");
    } else {
        d.values = Matrix();
        m.maxText = CompareText::tr("A and B cannot be compared cell by cell here: %1")
                        .arg(QString::fromStdString(m.difference.why));
    }
    d.title = CompareText::tr("B − A · %1").arg(stageTitle);

    if (m.sameNumbers) {
        m.verdict = CompareText::tr("the same numbers, reordered: attention alone cannot see word order");
    } else if (m.aligned) {
        const StageDifference *worst = nullptr;
        for (const StageDifference &s : all.stages)
            if (s.comparable && (!worst || s.maxAbsDiff > worst->maxAbsDiff))
                worst = &s;
        const auto la = queryLabels(a);
        QString where;
        if (worst && worst->row >= 0) {
            const QString col = worst->stage == CompareStage::Output || !isPerHead(worst->stage)
                ? QStringLiteral("d%1").arg(worst->col + 1)
                : QString::fromStdString(la[std::size_t(worst->col)]);
            where = CompareText::tr("%1 (%2, %3)")
                        .arg(QString::fromLatin1(compareStageKey(worst->stage)),
                             QString::fromStdString(la[std::size_t(worst->row)]), col);
        }
        m.verdict = CompareText::tr("not only reordered: the largest difference is %1 in %2")
                        .arg(diffNumber(m.overallMax), where);
    } else if (m.alignRequested && !m.alignable) {
        m.verdict = CompareText::tr("cannot align by token: %1").arg(m.alignWhy);
    }
    return m;
}

CompareFigure::CompareFigure(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    auto *row = new QHBoxLayout;
    for (auto &plot : m_plots) {
        plot = new HeatmapPlot(this);
        plot->setMinimumSize(160, 140);
        row->addWidget(plot, 1);
    }
    layout->addLayout(row, 1);
}

QString CompareFigure::summaryText() const
{
    return m_maps.verdict.isEmpty() ? m_maps.maxText : m_maps.maxText + QStringLiteral(" — ") + m_maps.verdict;
}

void CompareFigure::setMaps(const CompareMaps &maps)
{
    m_maps = maps;
    m_plots[0]->setData(maps.a);
    m_plots[1]->setData(maps.b);
    m_plots[2]->setData(maps.diff);
    // Nothing comparable: no colour bar (it would show a range of nothing).
    m_plots[2]->setCompact(!maps.difference.comparable);
    QString html = QStringLiteral("<b>%1</b>").arg(maps.maxText.toHtmlEscaped());
    if (!maps.verdict.isEmpty())
        html += QStringLiteral(" — <span style=\"color:%1\">%2</span>")
                    .arg(maps.sameNumbers ? QStringLiteral("#007a3d") : QStringLiteral("#a03000"),
                         maps.verdict.toHtmlEscaped());
    m_summary->setText(html);
}

std::unique_ptr<HeatmapPlot> makeComparePlot(const HeatmapData &data, const FigureStyle &style)
{
    auto plot = std::make_unique<HeatmapPlot>();
    styleFigurePlot(plot.get(), style);
    plot->setData(data);
    return plot;
}

QByteArray renderCompareFigure(const CompareMaps &maps, const FigureStyle &style, FigureFormat format,
                               const FigureSize &size)
{
    const int w = std::max(600, size.width), h = std::max(300, size.height);
    std::array<std::unique_ptr<HeatmapPlot>, 3> plots{makeComparePlot(maps.a, style), makeComparePlot(maps.b, style),
                                                      makeComparePlot(maps.diff, style)};
    plots[2]->setCompact(!maps.difference.comparable);
    for (auto &p : plots) // three maps share the width: a slide's type for several plots
        p->setFont(figureFont(style.preset, true));
    QFont title = figureFont(style.preset);
    title.setPointSizeF(style.preset == FigurePreset::Slide ? 24 : 13);
    const PlotTheme theme = plotTheme(style.theme);
    const int header = QFontMetrics(title).height() * 3;
    const int cellW = w / 3, cellH = h - header;
    for (auto &p : plots)
        p->resize(cellW, cellH);
    FigureSize sized = size;
    sized.width = w;
    sized.height = h;
    return paintFigure(format, sized, [&](QCPPainter *painter) {
        painter->save();
        painter->fillRect(QRect(0, 0, w, h), theme.background);
        painter->setFont(title);
        painter->setPen(theme.ink);
        const QString text = maps.verdict.isEmpty() ? maps.maxText : maps.maxText + QLatin1Char('\n') + maps.verdict;
        painter->drawText(QRect(8, 0, w - 16, header), Qt::AlignCenter | Qt::TextWordWrap, text);
        painter->restore();
        for (int i = 0; i < 3; ++i) {
            painter->save();
            painter->translate(i * cellW, header);
            plots[std::size_t(i)]->toPainter(painter, cellW, cellH);
            painter->restore();
        }
    }, theme.background);
}

QByteArray renderDifferenceFigure(const CompareMaps &maps, const FigureStyle &style, FigureFormat format,
                                  const FigureSize &size)
{
    HeatmapData d = maps.diff;
    d.title += QLatin1Char('\n') + maps.maxText;
    auto plot = makeComparePlot(d, style);
    plot->setCompact(!maps.difference.comparable);
    plot->resize(size.width, size.height);
    return renderFigure(plot.get(), format, size);
}

} // namespace attn
