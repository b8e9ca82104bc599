#include "topkpanel.h"

#include "heatmapplot.h"
#include "stagedata.h"
#include "stageviews.h"
#include "viewbinding.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace attn {

TopKPanel::TopKPanel(Document *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("topKPanel"));
    auto *kLabel = new QLabel(tr("Keep the &k largest weights of each row:"), this);
    m_k = new QSpinBox(this);
    m_k->setObjectName(QStringLiteral("topK"));
    m_k->setRange(1, 64);
    m_k->setValue(2);
    m_k->setToolTip(tr("Top-k: each row keeps its k largest weights, renormalised to sum 1; "
                       "hard k-NN averages those k values equally"));
    kLabel->setBuddy(m_k);
    kLabel->setWordWrap(true);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_weights = new HeatmapPlot(this);
    m_weights->setObjectName(QStringLiteral("topKWeights"));
    m_output = new HeatmapPlot(this);
    m_output->setObjectName(QStringLiteral("topKOutput"));
    // The same weight reads alike here and in the lab's maps.
    joinDecimalsAgreement(m_weights);
    joinDecimalsAgreement(m_output);
    // One above the other, each as wide as the tab: side by side in a side
    // tab they were 90 px maps without numbers, their titles cut.
    auto *maps = new QWidget(this);
    auto *plots = new QVBoxLayout(maps);
    plots->setContentsMargins(0, 0, 0, 0);
    plots->addWidget(m_note);
    plots->addWidget(m_weights, 3);
    plots->addWidget(m_output, 2);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(maps);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *row = new QHBoxLayout;
    row->addWidget(kLabel);
    row->addWidget(m_k);
    row->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(row);
    layout->addWidget(scroll, 1);

    connect(m_k, &QSpinBox::valueChanged, this, &TopKPanel::refresh);
    for (HeatmapPlot *p : {m_weights, m_output})
        connect(p, &HeatmapPlot::cellHovered, this, [this, p](int r, int c) {
            m_doc->setHovered(r, p == m_output ? -1 : c);
        });
    new ViewBinding(this, doc, ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings,
                    [this] { refresh(); });
    refresh();
}

void TopKPanel::setK(int k)
{
    m_k->setValue(k);
}

int TopKPanel::k() const
{
    return m_k->value();
}

void TopKPanel::refresh()
{
    const Scenario &s = m_doc->scenario();
    const Trace &t = m_doc->trace();
    if (t.heads.empty())
        return;
    const int head = std::clamp(m_doc->currentHead(), 0, int(t.heads.size()) - 1);
    const HeadTrace &ht = t.heads[std::size_t(head)];
    m_k->setMaximum(std::max(1, keyCount(s)));
    m_topK = attn::topK(ht.weights, t.blocked, ht.V, m_k->value());
    const int k = m_topK.k;

    StageOptions o;
    o.head = head;
    HeatmapData w = stageData(s, t, Stage::Weights, o);
    w.values = m_topK.weights;
    w.title = tr("Top-%1 weights\nthe rest dropped, renormalised").arg(k);
    // Each row's note: how much of the soft weight the kept keys held.
    w.rowNotes.clear();
    for (Eigen::Index i = 0; i < ht.weights.rows(); ++i) {
        double kept = 0;
        for (Eigen::Index j = 0; j < ht.weights.cols(); ++j)
            if (m_topK.knn(i, j) > 0)
                kept += ht.weights(i, j);
        w.rowNotes << HeatmapPlot::formatValue(kept, 2);
    }
    w.rowNotesLabel = tr("soft weight kept");
    w.rowFlagged.clear();
    m_weights->setData(w);

    HeatmapData out = stageData(s, t, Stage::Output, o);
    out.values = m_topK.knnOutput;
    out.title = tr("Hard %1-NN output\nthe %1 nearest values averaged").arg(k);
    out.rowNotes.clear();
    out.rowNotesLabel.clear();
    out.rowFlagged.clear();
    m_output->setData(out);

    sizeMaps();
    m_note->setText(tr("Softmax gives every key some weight (soft nearest neighbours); top-%1 keeps only the %1 "
                       "heaviest of each row, and hard %1-NN averages their values equally. Compare with the "
                       "Softmax weights and Output maps.")
                        .arg(k));
}

void TopKPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        sizeMaps();
}

void TopKPanel::sizeMaps()
{
    // What a map's layout takes, in lines of its font: the labels, the
    // colour bar and its label, the row notes, margins; each cell as wide
    // as "−0.0000" with its padding and a line and a half high.
    for (HeatmapPlot *p : {m_weights, m_output}) {
        const HeatmapData &d = p->data();
        const QFontMetrics fm(p->font());
        const int line = fm.height();
        int labels = 0;
        for (const QString &l : d.rowLabels)
            labels = std::max(labels, fm.horizontalAdvance(l));
        int notes = 0;
        for (const QString &n : d.rowNotes)
            notes = std::max(notes, fm.horizontalAdvance(n));
        if (notes > 0)
            notes = std::max(notes, fm.horizontalAdvance(d.rowNotesLabel)) + 3 * line;
        const int cell = fm.horizontalAdvance(QStringLiteral("−0.0000")) + std::max(4, line * 3 / 10) + line / 2;
        int column = cell;
        for (const QString &l : d.colLabels)
            column = std::max(column, fm.horizontalAdvance(l) + line / 2);
        const QFontMetrics title(p->titleElement()->font());
        int titleWidth = 0;
        const QStringList titleLines = d.title.split(QLatin1Char('\n'));
        for (const QString &l : titleLines)
            titleWidth = std::max(titleWidth, title.horizontalAdvance(l) + 2 * line);
        const int width = std::max(titleWidth, labels + 2 * line + int(d.values.cols()) * column + 6 * line + notes);
        const int height = int(titleLines.size()) * title.height() + 4 * line + int(d.values.rows()) * (line * 3 / 2);
        p->setMinimumSize(width, height);
    }
}

} // namespace attn
