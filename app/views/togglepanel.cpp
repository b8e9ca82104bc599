#include "togglepanel.h"

#include "settingedits.h"
#include "settingsactions.h"

#include "flowlayout.h"

#include "edit.h"
#include "formula.h"
#include "stagedata.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QListWidget>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpressionValidator>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace attn {

namespace {

QRadioButton *radio(QButtonGroup *group, int id, const QString &text, const QString &tip, QWidget *parent)
{
    auto *b = new QRadioButton(text, parent);
    b->setToolTip(tip);
    group->addButton(b, id);
    return b;
}

// A row of buttons that wraps in a narrow dock (a projector's zoom, a
// Chinese label) instead of widening the panel past its column.
QWidget *flowRow(QWidget *parent, std::initializer_list<QWidget *> items)
{
    auto *row = new QWidget(parent);
    auto *flow = new FlowLayout(row);
    flow->setSpacing(6);
    for (QWidget *w : items) {
        w->setParent(row);
        flow->addWidget(w);
    }
    return row;
}

// A label that wraps: a setting's explanation in a narrow dock.
QLabel *wrappedLabel(const QString &text, QWidget *parent)
{
    auto *l = new QLabel(text, parent);
    l->setWordWrap(true);
    return l;
}

} // namespace

TemperatureBox::TemperatureBox(QWidget *parent) : QDoubleSpinBox(parent)
{
    // As many decimals as Qt allows: the box rounds every value to them,
    // and τ must come back from it exactly as the document has it.
    setDecimals(323);
    setRange(kMinTemperature, kMaxTemperature);
    setKeyboardTracking(false);
}

QLocale TemperatureBox::numberLocale() const
{
    QLocale l = locale();
    l.setNumberOptions(QLocale::OmitGroupSeparator); // "123457", not "123,457"
    return l;
}

QString TemperatureBox::textFromValue(double v) const
{
    return numberLocale().toString(v, 'g', QLocale::FloatingPointShortest);
}

double TemperatureBox::valueFromText(const QString &text) const
{
    return numberLocale().toDouble(text.trimmed());
}

QValidator::State TemperatureBox::validate(QString &text, int &) const
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return QValidator::Intermediate;
    bool ok = false;
    const double v = numberLocale().toDouble(t, &ok);
    if (ok)
        return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    // A number being typed: "1e", "1e-", "0." still lead somewhere.
    static const QRegularExpression partial(QStringLiteral("^[0-9]*[.,]?[0-9]*([eE][-+]?[0-9]*)?$"));
    return partial.match(t).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
}

void TemperatureBox::fixup(QString &input) const
{
    // Typing done (Enter, focus out) on a text that is no τ: the box goes
    // back to the document's τ, and says why, once (the line edit and the
    // spin box may both ask for the same text).
    const QString t = input.trimmed();
    if (t.isEmpty() || t == m_lastRefused)
        return;
    bool ok = false;
    numberLocale().toDouble(t, &ok);
    const QString stays = textFromValue(value());
    const QString message = ok ? tr("τ: %1 is outside %2 to %3; τ stays %4")
                                     .arg(t, textFromValue(minimum()), textFromValue(maximum()), stays)
                               : tr("τ: “%1” is not a number; τ stays %2").arg(t, stays);
    m_lastRefused = t;
    QTimer::singleShot(0, this, [this] { m_lastRefused.clear(); });
    emit const_cast<TemperatureBox *>(this)->refused(message);
}

// Along the slider's log scale, on a grid of twenty steps a decade, so
// that one step up and one down come back to where they started.
void TemperatureBox::stepBy(int steps)
{
    const double k = std::round(20 * std::log10(value()));
    setValue(TogglePanel::roundTemperature(std::pow(10.0, (k + steps) / 20.0)));
}

int TogglePanel::sliderPosition(double temperature)
{
    const double t = std::clamp(temperature, kSliderMinTemperature, kSliderMaxTemperature);
    const double f = std::log(t / kSliderMinTemperature) / std::log(kSliderMaxTemperature / kSliderMinTemperature);
    return int(std::lround(f * kSliderSteps));
}

double TogglePanel::temperatureAt(int position)
{
    const double f = double(std::clamp(position, 0, kSliderSteps)) / kSliderSteps;
    return roundTemperature(kSliderMinTemperature * std::pow(kSliderMaxTemperature / kSliderMinTemperature, f));
}

// Mask: causal, padding, cells blocked by hand, before or after the softmax, row sums.
QGroupBox *TogglePanel::createMaskGroup()
{
    auto *mask = new QGroupBox(tr("Mask"), this);
    auto *maskLayout = new QVBoxLayout(mask);
    m_causal = new QCheckBox(tr("&Causal mask"), mask);
    m_causal->setToolTip(tr("Block every key after the query's own position (Ctrl+Shift+M)"));
    maskLayout->addWidget(m_causal);
    maskLayout->addWidget(wrappedLabel(tr("Key padding (tick the padding tokens):"), mask));
    m_padding = new QListWidget(mask);
    m_padding->setFlow(QListView::LeftToRight);
    m_padding->setWrapping(true);
    m_padding->setMaximumHeight(m_padding->fontMetrics().height() * 3);
    m_padding->setToolTip(tr("Padding keys are blocked in every row"));
    maskLayout->addWidget(m_padding);
    //: How a map's cell is blocked by hand: Ctrl and a click; a plain click selects the cell's query row.
    auto *hint = new QLabel(tr("Ctrl+click a cell of any map to block or open it (a plain click selects its query)."), mask);
    hint->setObjectName(QStringLiteral("customMaskHint"));
    hint->setWordWrap(true);
    maskLayout->addWidget(hint);
    m_clearMask = new QPushButton(tr("C&lear clicks"), mask);
    m_clearMask->setToolTip(tr("Open every cell blocked by hand"));
    maskLayout->addWidget(m_clearMask, 0, Qt::AlignLeft);
    m_stage = new QButtonGroup(this);
    maskLayout->addWidget(flowRow(mask, {new QLabel(tr("Apply:")),
                                         radio(m_stage, int(MaskStage::BeforeSoftmax), tr("&before softmax"),
                                               tr("Correct: blocked scores become −∞, each row renormalises over the open keys"), mask),
                                         radio(m_stage, int(MaskStage::AfterSoftmax), tr("&after softmax ✗"),
                                               tr("The misconception: softmax first, then zero the blocked weights; rows no longer sum to 1 "
                                                  "(Ctrl+Shift+A)"),
                                               mask)}));
    // A check box cannot wrap: its name, and the formula in a label that can.
    m_plusOne = new QCheckBox(tr("Softmax&₁"), mask);
    m_plusOne->setObjectName(QStringLiteral("plusOneCheck"));
    maskLayout->addWidget(m_plusOne);
    QLabel *plusOneNote = wrappedLabel(tr("e^x / (1 + Σ e^x): rows may attend to nothing"), mask);
    plusOneNote->setIndent(m_plusOne->style()->pixelMetric(QStyle::PM_IndicatorWidth) + 4);
    maskLayout->addWidget(plusOneNote);
    m_rowSums = new QLabel(mask);
    m_rowSums->setWordWrap(true);
    maskLayout->addWidget(m_rowSums);
    return mask;
}


// Heads: 1, 2, 4 or 8, and the head the maps show.
QGroupBox *TogglePanel::createHeadsGroup()
{
    auto *heads = new QGroupBox(tr("Heads"), this);
    auto *headsLayout = new QVBoxLayout(heads);
    m_heads = new QButtonGroup(this);
    auto *counts = new QWidget(heads);
    auto *countsLayout = new QHBoxLayout(counts);
    countsLayout->setContentsMargins(0, 0, 0, 0);
    for (int h : {1, 2, 4, 8}) {
        auto *b = new QPushButton(QString::number(h), counts);
        b->setCheckable(true);
        b->setMinimumWidth(36);
        b->setMaximumWidth(48);
        m_heads->addButton(b, h);
        countsLayout->addWidget(b);
    }
    auto *showLabel = new QLabel(tr("&Show:"), heads);
    m_head = new QComboBox(heads);
    m_head->setToolTip(tr("The head the maps show (Ctrl+] next, Ctrl+[ previous)"));
    // As wide as "head 1 of 8", not as the longest translation: the panel stays narrow.
    m_head->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_head->setMinimumContentsLength(11);
    showLabel->setBuddy(m_head);
    auto *show = new QWidget(heads);
    auto *showLayout = new QHBoxLayout(show);
    showLayout->setContentsMargins(0, 0, 0, 0);
    showLayout->addWidget(showLabel);
    showLayout->addWidget(m_head, 1);
    headsLayout->addWidget(flowRow(heads, {counts, show}));
    return heads;
}


// Positional encoding and the learned table's seed.
QGroupBox *TogglePanel::createEncodingGroup()
{
    auto *pe = new QGroupBox(tr("Positional encoding"), this);
    auto *peLayout = new QGridLayout(pe);
    m_encoding = new QButtonGroup(this);
    peLayout->addWidget(flowRow(pe, {radio(m_encoding, int(Encoding::None), tr("&None"),
                                           tr("Attention alone cannot see word order: permuting tokens only permutes the results"), pe),
                                     radio(m_encoding, int(Encoding::Sinusoidal), tr("S&inusoidal"),
                                           tr("Add sin/cos waves of the position (Attention Is All You Need)"), pe),
                                     radio(m_encoding, int(Encoding::Learned), tr("&Learned"),
                                           tr("Add a fixed table drawn from the seed, standing in for a trained one"), pe),
                                     radio(m_encoding, int(Encoding::Rope), tr("&RoPE"),
                                           tr("Rotate each head's queries and keys by position (needs an even d_k)"), pe)}),
                        0, 0, 1, 2);
    auto *seedLabel = new QLabel(tr("S&eed"), pe);
    // A line edit, not a spin box: a seed runs to 2^63 - 1, past any int.
    m_seed = new QLineEdit(pe);
    // Digits only; an empty field is let through to commitSeed, which puts
    // the seed back and says why.
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{0,19}")), m_seed));
    m_seed->setToolTip(tr("Draws the learned table (0 to %1)").arg(kMaxSeed));
    seedLabel->setBuddy(m_seed);
    peLayout->addWidget(seedLabel, 1, 0);
    peLayout->addWidget(m_seed, 1, 1);
    return pe;
}


// Scaling, temperature and similarity.
QGroupBox *TogglePanel::createScalingGroup()
{
    auto *scaling = new QGroupBox(tr("Scaling"), this);
    auto *scalingLayout = new QVBoxLayout(scaling);
    m_scale = new QButtonGroup(this);
    scalingLayout->addWidget(flowRow(scaling, {radio(m_scale, int(Scale::SqrtDk), tr("÷ √d_&k"),
                                                     tr("Keeps the score variance at 1 whatever d_k is"), scaling),
                                               radio(m_scale, int(Scale::None), tr("÷ 1 (n&one)"),
                                                     tr("Scores grow with d_k and softmax saturates to one-hot"), scaling),
                                               radio(m_scale, int(Scale::Dk), tr("÷ d_k ✗"),
                                                     tr("The classic mistake: variance 1/d_k, weights too flat"), scaling)}));
    auto *tauLabel = new QLabel(tr("&Temperature τ"), scaling);
    m_tau = new QSlider(Qt::Horizontal, scaling);
    m_tau->setRange(0, kSliderSteps);
    m_tau->setPageStep(kSliderSteps / 20);
    m_tau->setToolTip(tr("Low τ: nearly argmax; high τ: nearly uniform (log scale, 0.05 to 10)"));
    m_tau->setMinimumWidth(40);
    tauLabel->setBuddy(m_tau);
    m_tauBox = new TemperatureBox(scaling);
    m_tauBox->setToolTip(tr("Any τ from %1 to %2").arg(QString::fromStdString(compact(kMinTemperature)),
                                                          QString::fromStdString(compact(kMaxTemperature))));
    // The name above its slider and box, so the row fits a narrow dock.
    scalingLayout->addWidget(tauLabel);
    auto *tauRow = new QHBoxLayout;
    tauRow->addWidget(m_tau, 1);
    tauRow->addWidget(m_tauBox);
    scalingLayout->addLayout(tauRow);
    m_similarity = new QButtonGroup(this);
    scalingLayout->addWidget(flowRow(scaling, {new QLabel(tr("Similarity:")),
                                               radio(m_similarity, int(Similarity::Dot), tr("&dot q·k"),
                                                     tr("Direction and length both count"), scaling),
                                               radio(m_similarity, int(Similarity::Cosine), tr("c&osine"),
                                                     tr("Only the angle counts"), scaling),
                                               radio(m_similarity, int(Similarity::NegSqDistance), tr("−‖q−k‖²"),
                                                     tr("Euclidean neighbourhood: nearer keys score higher"), scaling)}));
    return scaling;
}

TogglePanel::TogglePanel(Document *doc, SettingsActions *actions, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    auto *layout = new QVBoxLayout(this);

    layout->addWidget(createMaskGroup());
    layout->addWidget(createHeadsGroup());
    layout->addWidget(createEncodingGroup());
    layout->addWidget(createScalingGroup());
    layout->addStretch();

    // Edits: the buttons of the settings are the menu's actions.
    bindActions(actions);
    connect(m_padding, &QListWidget::itemChanged, this, [this](QListWidgetItem *item) {
        const int key = m_padding->row(item);
        const bool on = item->checkState() == Qt::Checked;
        const Scenario &s = m_doc->scenario();
        const bool was = s.mask.keyPadding.size() > key && s.mask.keyPadding(key);
        if (on != was)
            m_doc->setSettings(setKeyPadding(s, key, on),
                               on ? tr("Pad %1").arg(item->text()) : tr("Unpad %1").arg(item->text()),
                               Document::Step::Own);
    });
    connect(m_head, &QComboBox::activated, this, [this](int i) { m_doc->setCurrentHead(i); });
    connect(m_seed, &QLineEdit::editingFinished, this, &TogglePanel::commitSeed);
    // The slider is a gesture: live while dragged, one undo step on release.
    // Keyboard and wheel steps on it are single edits.
    // Undo in mid-drag cancels the gesture (Document::undo); the slider then
    // stays out of the document until it is released.
    connect(m_tau, &QSlider::sliderPressed, this, [this] {
        m_tauCancelled = false;
        m_doc->beginGesture(tr("Temperature"));
    });
    connect(doc, &Document::gestureCancelled, this, [this] { m_tauCancelled = m_tau->isSliderDown(); });
    connect(m_tau, &QSlider::valueChanged, this, [this](int pos) {
        if (m_tau->isSliderDown() && m_tauCancelled)
            return; // undone under the hand: nothing more until the release
        // While held, part of the gesture; after another edit (a shortcut)
        // the next move starts a new step.
        setTemperature(temperatureAt(pos), m_tau->isSliderDown());
    });
    connect(m_tau, &QSlider::sliderReleased, this, [this] {
        m_doc->endGesture(); // the step is named by its last edit, "Temperature 0.5"
        m_tauCancelled = false;
        sync();
    });
    connect(m_tauBox, &QDoubleSpinBox::valueChanged, this, [this](double v) { setTemperature(v, false); });
    connect(m_tauBox, &TemperatureBox::refused, doc, &Document::report);

    connect(doc, &Document::changed, this, [this](const DocumentChange &what) {
        if (what.any(ChangeKind::Settings | ChangeKind::Shape | ChangeKind::Labels))
            sync();
        else if (what.has(ChangeKind::Values))
            syncRowSums(); // a drag: only the sums can change here
    });
    connect(doc, &Document::currentChanged, this, &TogglePanel::sync);
    sync();
}

void TogglePanel::bindActions(SettingsActions *actions)
{
    SettingsActions::bind(m_causal, actions->causal(), true);
    SettingsActions::bind(m_clearMask, actions->clearMask());
    SettingsActions::bind(m_plusOne, actions->plusOne(), true);
    // Two radio buttons for one checkable action: each puts it their way.
    QAction *after = actions->afterSoftmax();
    for (QAbstractButton *b : m_stage->buttons()) {
        const bool wantsAfter = m_stage->id(b) == int(MaskStage::AfterSoftmax);
        connect(b, &QAbstractButton::clicked, after, [after, wantsAfter] {
            if (after->isChecked() != wantsAfter)
                after->trigger();
        });
    }
    auto showStage = [this, after] {
        m_stage->button(int(after->isChecked() ? MaskStage::AfterSoftmax : MaskStage::BeforeSoftmax))->setChecked(true);
    };
    connect(after, &QAction::changed, this, showStage);
    showStage();
    for (QAbstractButton *b : m_heads->buttons())
        SettingsActions::bind(b, SettingsActions::actionFor(actions->heads(), m_heads->id(b)), true);
    for (QAbstractButton *b : m_encoding->buttons()) {
        const bool rope = m_encoding->id(b) == int(Encoding::Rope);
        SettingsActions::bind(b, SettingsActions::actionFor(actions->encodings(), m_encoding->id(b)), rope);
    }
    for (QAbstractButton *b : m_scale->buttons())
        SettingsActions::bind(b, SettingsActions::actionFor(actions->scales(), m_scale->id(b)));
    for (QAbstractButton *b : m_similarity->buttons())
        SettingsActions::bind(b, SettingsActions::actionFor(actions->similarities(), m_similarity->id(b)));
}

void TogglePanel::setTemperature(double tau, bool live)
{
    SettingEdits::setTemperature(*m_doc, tau, live);
}

void TogglePanel::commitSeed()
{
    if (!m_seed->isModified())
        return; // focus left a field nobody typed in
    m_seed->setModified(false);
    bool ok = false;
    const qulonglong seed = m_seed->text().toULongLong(&ok);
    if (!ok || seed > kMaxSeed) {
        m_doc->report(tr("Seed: “%1” is not a whole number from 0 to %2; the seed stays %3")
                          .arg(m_seed->text())
                          .arg(kMaxSeed)
                          .arg(m_doc->scenario().seed));
        m_seed->setText(QString::number(m_doc->scenario().seed));
        return;
    }
    Settings s = settingsOf(m_doc->scenario());
    if (s.seed == seed)
        return;
    s.seed = seed;
    m_doc->setSettings(s, tr("Seed %1").arg(seed), Document::Step::Own);
}

void TogglePanel::sync()
{
    const Scenario &s = m_doc->scenario();
    const QSignalBlocker b2(m_padding), b3(m_head), b4(m_seed), b5(m_tau), b6(m_tauBox);

    const auto keys = keyLabels(s);
    if (m_padding->count() != int(keys.size()))
        m_padding->clear();
    for (int j = 0; j < int(keys.size()); ++j) {
        if (m_padding->count() <= j) {
            auto *item = new QListWidgetItem(m_padding);
            item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
        }
        QListWidgetItem *item = m_padding->item(j);
        item->setText(QString::fromStdString(keys[std::size_t(j)]));
        const bool padded = s.mask.keyPadding.size() > j && s.mask.keyPadding(j);
        item->setCheckState(padded ? Qt::Checked : Qt::Unchecked);
    }
    syncRowSums();

    if (m_head->count() != s.heads) {
        m_head->clear();
        for (int i = 0; i < s.heads; ++i)
            m_head->addItem(tr("head %1 of %2").arg(i + 1).arg(s.heads));
    }
    m_head->setCurrentIndex(m_doc->currentHead());
    m_head->setEnabled(s.heads > 1);

    if (!m_seed->isModified()) // not while someone is typing a seed
        m_seed->setText(QString::number(s.seed));
    m_seed->setEnabled(s.encoding == Encoding::Learned);

    if (!m_tau->isSliderDown())
        m_tau->setValue(sliderPosition(s.temperature));
    if (m_tauBox->value() != s.temperature)
        m_tauBox->setValue(s.temperature);
}

// Row sums: the after-softmax mistake shows as rows below 1.
void TogglePanel::syncRowSums()
{
    const Trace &t = m_doc->trace();
    QStringList sums;
    bool short_ = false;
    const HeadTrace &head = t.heads[std::size_t(std::clamp(m_doc->currentHead(), 0, int(t.heads.size()) - 1))];
    for (const RowStats &r : head.rows) {
        sums << fixed2(r.sum);
        short_ = short_ || shortOfOne(r);
    }
    if (sums.size() > 12)
        sums = sums.mid(0, 12) << QStringLiteral("…");
    // softmax₁ sums below 1 by design: said in words, not marked as the mistake.
    const bool plusOne = m_doc->scenario().softmax == SoftmaxKind::PlusOne;
    const bool mistake = short_ && !plusOne;
    m_rowSums->setText(tr("Row sums of the weights: %1%2")
                           .arg(sums.join(QStringLiteral("  ")),
                                plusOne ? tr("  softmax₁: below 1, the rest 1 − Σ attends to nothing")
                                : mistake ? tr("  ✗ below 1: the mask was applied after the softmax") : QString()));
    m_rowSums->setStyleSheet(mistake ? QStringLiteral("color: #b00020; font-weight: bold;") : QString());
}

} // namespace attn
