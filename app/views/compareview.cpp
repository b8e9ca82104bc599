#include "compareview.h"

#include "stagedata.h"
#include "validate.h"
#include "viewbinding.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <utility>

namespace attn {

namespace {
constexpr Stage kStages[] = {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output};
}

CompareView::CompareView(Document *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("compareView"));
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    m_header = new QLabel(this);
    m_header->setWordWrap(true);
    bar->addWidget(m_header, 1);
    m_stageBox = new QComboBox(this);
    m_stageBox->setObjectName(QStringLiteral("compareStage"));
    for (Stage s : kStages)
        m_stageBox->addItem(stageName(s), int(s));
    m_stageBox->setCurrentIndex(int(Stage::Weights));
    bar->addWidget(m_stageBox);
    m_align = new QCheckBox(this);
    m_align->setObjectName(QStringLiteral("alignByToken"));
    bar->addWidget(m_align);
    m_both = new QCheckBox(this);
    m_both->setObjectName(QStringLiteral("settingsToBoth"));
    bar->addWidget(m_both);
    m_repin = new QPushButton(this);
    m_unpin = new QPushButton(this);
    m_keep = new QPushButton(this);
    bar->addWidget(m_repin);
    bar->addWidget(m_unpin);
    bar->addWidget(m_keep);
    layout->addLayout(bar);
    m_figure = new CompareFigure(this);
    layout->addWidget(m_figure, 1);
    retranslate();

    connect(m_stageBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_stage = Stage(m_stageBox->itemData(i).toInt());
        refresh();
    });
    connect(m_align, &QCheckBox::toggled, this, [this] { refresh(); });
    connect(m_both, &QCheckBox::toggled, this, [this] { refresh(); });
    connect(m_repin, &QPushButton::clicked, this, &CompareView::pinCurrent);
    connect(m_unpin, &QPushButton::clicked, this, &CompareView::unpin);
    connect(m_keep, &QPushButton::clicked, this, &CompareView::keepB);
    m_binding = new ViewBinding(this, doc,
                                ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings
                                    | ChangeKind::Text,
                                [this] { refresh(); });
}

void CompareView::retranslate()
{
    m_align->setText(tr("Align by token"));
    m_align->setToolTip(tr("B holds A's tokens in another order: put B's rows and columns in A's order, so that the "
                           "same word is compared with the same word"));
    m_stageBox->setToolTip(tr("The stage shown for A, B and B − A"));
    m_both->setText(tr("Settings to both"));
    m_both->setToolTip(tr("A setting changed in B (encoding, mask, scale, τ, …) is changed in A too, so that B − A "
                          "still shows only what A and B were pinned to differ in"));
    for (int i = 0; i < m_stageBox->count(); ++i)
        m_stageBox->setItemText(i, stageName(Stage(m_stageBox->itemData(i).toInt())));
    m_repin->setText(tr("Pin B as A"));
    m_repin->setToolTip(tr("Make the live document the new A"));
    m_unpin->setText(tr("Unpin (back to A)"));
    m_unpin->setToolTip(tr("Put the document back as A was (one undo step) and close the comparison"));
    m_keep->setText(tr("Keep B"));
    m_keep->setToolTip(tr("Close the comparison and keep the document as it is"));
    refresh();
}

void CompareView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void CompareView::pin(const Scenario &a, const QString &label)
{
    m_a = a;
    m_ta = compute(a);
    m_label = label.isEmpty() ? QString::fromStdString(a.title) : label;
    m_lastB = settingsOf(m_doc->scenario());
    {
        const QSignalBlocker block(m_both);
        m_both->setChecked(settingsOf(a) == m_lastB);
    }
    refresh();
    emit pinnedChanged(true);
    emit message(tr("Pinned as A: %1. Change the document (B) and compare.").arg(m_label));
}

void CompareView::pinCurrent()
{
    pin(m_doc->scenario(), m_doc->displayName());
}

void CompareView::unpin()
{
    if (!m_a)
        return;
    const Scenario a = *m_a;
    m_a.reset();
    if (!(a == m_doc->scenario()))
        m_doc->edit(a, tr("Back to A"));
    refresh();
    emit pinnedChanged(false);
    emit message(tr("Unpinned: the document is A again"));
}

void CompareView::keepB()
{
    if (!m_a)
        return;
    m_a.reset();
    refresh();
    emit pinnedChanged(false);
}

void CompareView::setStage(Stage stage)
{
    const int i = m_stageBox->findData(int(stage));
    if (i >= 0)
        m_stageBox->setCurrentIndex(i);
    m_stage = stage;
    refresh();
}

void CompareView::setAlignByToken(bool on)
{
    m_align->setChecked(on);
}

void CompareView::setSettingsToBoth(bool on)
{
    m_both->setChecked(on);
}

void CompareView::followSettings()
{
    const Settings &b = settingsOf(m_doc->scenario());
    const Settings before = std::exchange(m_lastB, b);
    if (!m_a || !m_both->isChecked() || b == before)
        return;
    // Only what changed in B since the last look goes to A: a setting A
    // was pinned with on purpose stays.
    Scenario a = *m_a;
    Settings &s = settingsOf(a);
    if (b.similarity != before.similarity)
        s.similarity = b.similarity;
    if (b.scale != before.scale)
        s.scale = b.scale;
    if (b.temperature != before.temperature)
        s.temperature = b.temperature;
    if (b.mask.causal != before.mask.causal)
        s.mask.causal = b.mask.causal;
    if (b.maskStage != before.maskStage)
        s.maskStage = b.maskStage;
    if (b.encoding != before.encoding)
        s.encoding = b.encoding;
    if (b.seed != before.seed)
        s.seed = b.seed;
    // Padding and a hand-made mask belong to B's tokens: A keeps its own.
    if (validate(a))
        return;
    m_a = a;
    m_ta = compute(a);
}

QString CompareView::settingsLine() const
{
    const Scenario &b = m_doc->scenario();
    if (!m_a || settingsOf(*m_a) == settingsOf(b))
        return QString();
    auto named = [](const Scenario &s) {
        const QString summary = settingsSummary(s, -1);
        return summary.isEmpty() ? tr("the defaults") : summary.mid(3); // without the leading " · "
    };
    //: The settings of A and of B, when they differ.
    return tr("Their settings differ, so B − A shows that as well: A has %1; B has %2.").arg(named(*m_a), named(b));
}

bool CompareView::alignByToken() const
{
    return m_align->isChecked() && m_align->isEnabled();
}

void CompareView::refresh()
{
    const bool pinned = m_a.has_value();
    m_unpin->setEnabled(pinned);
    m_keep->setEnabled(pinned);
    if (!pinned) {
        m_header->setText(tr("Nothing pinned. Pin the current state as A (Ctrl+Shift+P), change the document, and "
                             "A, B and B − A appear here."));
        m_align->setEnabled(false);
        m_both->setEnabled(false);
        m_figure->setMaps(CompareMaps{});
        m_figure->summaryLabel()->clear();
        return;
    }
    m_both->setEnabled(true);
    followSettings();
    const Scenario &b = m_doc->scenario();
    const Trace &tb = m_doc->trace();
    const bool alignable = tokenAlignment(*m_a, b).has_value();
    const bool reordered = alignable && queryLabels(*m_a) != queryLabels(b);
    m_align->setEnabled(alignable);
    m_align->setVisible(alignable);
    const CompareMaps maps = compareMaps(*m_a, m_ta, b, tb, m_stage, m_doc->currentHead(), alignable && m_align->isChecked());
    m_figure->setMaps(maps);
    QString header = tr("<b>A</b>: %1 (pinned) · <b>B</b>: %2 (live)")
                         .arg(m_label.toHtmlEscaped(), m_doc->displayName().toHtmlEscaped());
    if (reordered && !m_align->isChecked())
        header += QStringLiteral("<br>") + tr("A and B hold the same tokens in another order: align by token to "
                                              "compare word with word.");
    if (const QString line = settingsLine(); !line.isEmpty())
        header += QStringLiteral("<br>") + line.toHtmlEscaped();
    m_header->setText(header);
}

} // namespace attn
