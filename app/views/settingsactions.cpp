#include "settingsactions.h"

#include "edit.h"
#include "formula.h"
#include "settingedits.h"
#include "validate.h"

#include <QAbstractButton>
#include <QRegularExpression>

#include <algorithm>

namespace attn {

QString plainActionText(const QAction *action)
{
    static const QRegularExpression mnemonic(QStringLiteral("\\(&[^)]\\)|&(?=.)"));
    return action->text().remove(mnemonic).trimmed();
}

QAction *SettingsActions::checkable(QActionGroup *group, const QString &text, int value)
{
    auto *a = new QAction(text, group);
    a->setCheckable(true);
    a->setData(value);
    return a;
}

QAction *SettingsActions::actionFor(QActionGroup *group, int value)
{
    for (QAction *a : group->actions())
        if (a->data().toInt() == value)
            return a;
    return nullptr;
}

void SettingsActions::bind(QAbstractButton *button, QAction *action, bool withToolTip)
{
    auto show = [button, action, withToolTip] {
        const QSignalBlocker block(button);
        button->setEnabled(action->isEnabled());
        if (button->isCheckable())
            button->setChecked(action->isChecked());
        if (withToolTip)
            button->setToolTip(action->toolTip());
    };
    QObject::connect(action, &QAction::changed, button, show);
    QObject::connect(button, &QAbstractButton::clicked, action, [button, action] {
        // A radio button clicked while checked, or a refused edit: the
        // action's state (synced from the document) puts the button back.
        action->trigger();
        const QSignalBlocker block(button);
        if (button->isCheckable())
            button->setChecked(action->isChecked());
    });
    show();
}

SettingsActions::SettingsActions(Document *doc, QObject *parent) : QObject(parent), m_doc(doc)
{
    m_causal = new QAction(tr("&Causal mask"), this);
    m_causal->setCheckable(true);
    m_causal->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    connect(m_causal, &QAction::triggered, this, [this](bool on) {
        SettingEdits::setCausal(*m_doc, on);
        sync(); // a refusal puts the check back
    });
    m_afterSoftmax = new QAction(tr("Mask &after softmax (the mistake)"), this);
    m_afterSoftmax->setCheckable(true);
    m_afterSoftmax->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    connect(m_afterSoftmax, &QAction::triggered, this, [this](bool on) {
        SettingEdits::setMaskStage(*m_doc, on ? MaskStage::AfterSoftmax : MaskStage::BeforeSoftmax);
        sync();
    });
    m_clearMask = new QAction(tr("C&lear clicked cells"), this);
    m_clearMask->setToolTip(tr("Open every cell blocked by hand"));
    connect(m_clearMask, &QAction::triggered, this,
            [this] {
                m_doc->setSettings(clearHandMask(m_doc->scenario()), tr("Clear the hand-made mask"),
                                   Document::Step::Own);
            });

    // softmax₁, e^x / (1 + Σ e^x): a setting of its own, beside the mask's.
    m_plusOne = new QAction(tr("Softmax&₁: +1 in the denominator (attend to nothing)"), this);
    m_plusOne->setObjectName(QStringLiteral("plusOneAction"));
    m_plusOne->setCheckable(true);
    m_plusOne->setToolTip(tr("w = e^x / (1 + Σ e^x): a sink of score 0 and value 0 beside the keys, so a row may "
                             "sum below 1 and give the rest to nothing"));
    connect(m_plusOne, &QAction::triggered, this, [this](bool on) {
        SettingEdits::setSoftmax(*m_doc, on ? SoftmaxKind::PlusOne : SoftmaxKind::Standard);
        sync();
    });

    m_sparse = new QActionGroup(this);
    for (SparsePreset p : {SparsePreset::Full, SparsePreset::Window, SparsePreset::Dilated, SparsePreset::Block,
                           SparsePreset::GlobalWindow, SparsePreset::Custom})
        checkable(m_sparse, name(p), int(p));
    connect(m_sparse, &QActionGroup::triggered, this, [this](QAction *a) {
        const auto preset = SparsePreset(a->data().toInt());
        const int w = sparseWidth(m_doc->scenario().mask);
        if (preset != SparsePreset::Custom)
            setSparseMask(preset, w > 0 ? w : 2);
        sync();
    });
    // Ctrl+Shift+Right and Left, beside the temperature's Up and Down.
    m_wider = new QAction(tr("&Wider window (w + 1)"), this);
    m_wider->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Right));
    m_narrower = new QAction(tr("&Narrower window (w − 1)"), this);
    m_narrower->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Left));
    connect(m_wider, &QAction::triggered, this, [this] { setSparseWidth(sparseWidth(m_doc->scenario().mask) + 1); });
    connect(m_narrower, &QAction::triggered, this, [this] { setSparseWidth(sparseWidth(m_doc->scenario().mask) - 1); });

    m_heads = new QActionGroup(this);
    const Qt::Key headKeys[] = {Qt::Key_1, Qt::Key_2, Qt::Key_4, Qt::Key_8};
    int k = 0;
    for (int h : {1, 2, 4, 8})
        checkable(m_heads, h == 1 ? tr("&1 head") : tr("&%1 heads").arg(h), h)
            ->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | headKeys[k++]));
    connect(m_heads, &QActionGroup::triggered, this, [this](QAction *a) {
        SettingEdits::setHeadCount(*m_doc, a->data().toInt());
        sync();
    });
    m_nextHead = new QAction(tr("&Next head"), this);
    m_nextHead->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketRight));
    m_previousHead = new QAction(tr("&Previous head"), this);
    m_previousHead->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketLeft));
    auto nudgeHead = [this](int delta) {
        const int h = m_doc->scenario().heads;
        m_doc->setCurrentHead((m_doc->currentHead() + delta + h) % h);
    };
    connect(m_nextHead, &QAction::triggered, this, [nudgeHead] { nudgeHead(+1); });
    connect(m_previousHead, &QAction::triggered, this, [nudgeHead] { nudgeHead(-1); });

    m_encodings = new QActionGroup(this);
    const std::pair<Encoding, QString> encodings[] = {{Encoding::None, tr("&None")},
                                                      {Encoding::Sinusoidal, tr("&Sinusoidal")},
                                                      {Encoding::Learned, tr("&Learned")},
                                                      {Encoding::Rope, tr("&RoPE")}};
    k = 0;
    for (const auto &[e, text] : encodings)
        checkable(m_encodings, text, int(e))->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key(Qt::Key_0 + k++)));
    connect(m_encodings, &QActionGroup::triggered, this, [this](QAction *a) {
        SettingEdits::setEncoding(*m_doc, Encoding(a->data().toInt()));
        sync();
    });

    m_scales = new QActionGroup(this);
    checkable(m_scales, tr("÷ √d_&k"), int(Scale::SqrtDk));
    checkable(m_scales, tr("÷ 1 (&none)"), int(Scale::None));
    checkable(m_scales, tr("÷ &d_k (the mistake)"), int(Scale::Dk));
    connect(m_scales, &QActionGroup::triggered, this, [this](QAction *a) {
        SettingEdits::setScale(*m_doc, Scale(a->data().toInt()));
        sync();
    });

    m_similarities = new QActionGroup(this);
    checkable(m_similarities, tr("&Dot product q·k"), int(Similarity::Dot));
    checkable(m_similarities, tr("&Cosine"), int(Similarity::Cosine));
    checkable(m_similarities, tr("&Negative squared distance"), int(Similarity::NegSqDistance));
    connect(m_similarities, &QActionGroup::triggered, this, [this](QAction *a) {
        SettingEdits::setSimilarity(*m_doc, Similarity(a->data().toInt()));
        sync();
    });

    m_sharper = new QAction(tr("&Sharper (τ × 0.8)"), this);
    m_sharper->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Down));
    m_flatter = new QAction(tr("&Flatter (τ × 1.25)"), this);
    m_flatter->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Up));
    m_resetTau = new QAction(tr("&Reset to τ = 1"), this);
    m_resetTau->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Backspace));
    connect(m_sharper, &QAction::triggered, this, [this] { changeTemperature(0.8); });
    connect(m_flatter, &QAction::triggered, this, [this] { changeTemperature(1.25); });
    connect(m_resetTau, &QAction::triggered, this, [this] { changeTemperature(0); });

    connect(doc, &Document::changed, this, [this](const DocumentChange &what) {
        if (what.any(ChangeKind::Settings | ChangeKind::Shape))
            sync();
    });
    connect(doc, &Document::currentChanged, this, &SettingsActions::sync);
    sync();
}

QString SettingsActions::name(SparsePreset preset)
{
    switch (preset) {
    case SparsePreset::Full:
        return tr("Full (every pair)");
    case SparsePreset::Window:
        return tr("Sliding window");
    case SparsePreset::Dilated:
        return tr("Dilated window (every 2nd)");
    case SparsePreset::Block:
        return tr("Block-local");
    case SparsePreset::GlobalWindow:
        return tr("Global first token + window");
    case SparsePreset::Custom:
        return tr("Custom (from the file)");
    }
    return QString();
}

void SettingsActions::setSparseMask(SparsePreset preset, int w)
{
    Settings s = settingsOf(m_doc->scenario());
    s.mask = withSparsePreset(s.mask, preset, w);
    if (s == settingsOf(m_doc->scenario()))
        return;
    //: An undo step: the sparse mask's preset and its width w.
    const QString what = preset == SparsePreset::Full ? tr("Mask: full") : tr("Mask: %1, w = %2").arg(name(preset)).arg(w);
    m_doc->setSettings(s, what, Document::Step::Own);
}

void SettingsActions::setSparseWidth(int w)
{
    const Mask &m = m_doc->scenario().mask;
    if (sparseWidth(m) <= 0 || w == sparseWidth(m))
        return;
    const SparsePreset p = sparsePresetOf(m);
    if (p != SparsePreset::Custom) {
        setSparseMask(p, w);
        return;
    }
    // A file's own combination: its window (or its blocks) changes, the rest stays.
    Settings s = settingsOf(m_doc->scenario());
    (s.mask.window > 0 ? s.mask.window : s.mask.block) = w;
    //: An undo step: the width of a file's own sparse mask.
    m_doc->setSettings(s, tr("Mask width w = %1").arg(w), Document::Step::Own);
}

int SettingsActions::usefulSparseWidth(const Mask &m, int n)
{
    // A window of W keys a side, D apart, reaches the keys |i − j| = k·D for
    // k < W; the farthest pair is n − 1 apart. A block of n holds them all.
    const int reach = m.window > 0 ? (n - 1) / std::max(1, m.dilation) + 1 : n;
    return std::clamp(reach, 1, kMaxMaskWidth);
}

void SettingsActions::changeTemperature(double factor)
{
    const double now = m_doc->scenario().temperature;
    const double tau = factor == 0 ? 1.0 : roundTemperature(now * factor);
    if (tau == now && factor != 0) {
        // Not a refused edit: nothing was asked of the document.
        emit message(tr("The temperature is at the end of its range (%1 to %2)")
                         .arg(QString::fromStdString(compact(kMinTemperature)),
                              QString::fromStdString(compact(kMaxTemperature))));
        return;
    }
    SettingEdits::setTemperature(*m_doc, tau);
}

void SettingsActions::sync()
{
    const Scenario &s = m_doc->scenario();
    m_causal->setChecked(s.mask.causal);
    const bool causalFits = !whyNotCausal(s);
    m_causal->setEnabled(causalFits || s.mask.causal);
    m_causal->setToolTip(causalFits ? tr("Block every key after the query's own position (Ctrl+Shift+M)")
                                    : tr("A causal mask needs as many queries as keys"));
    m_afterSoftmax->setChecked(s.maskStage == MaskStage::AfterSoftmax);
    m_plusOne->setChecked(s.softmax == SoftmaxKind::PlusOne);
    const SparsePreset preset = sparsePresetOf(s.mask);
    const bool square = queryCount(s) == keyCount(s);
    for (QAction *a : m_sparse->actions()) {
        const auto p = SparsePreset(a->data().toInt());
        a->setChecked(p == preset);
        if (p == SparsePreset::Custom) {
            a->setEnabled(false); // shown, never picked: a file sets it
            a->setToolTip(tr("A file's own combination of window, dilation, blocks and global tokens"));
            continue;
        }
        a->setEnabled(p == preset || p == SparsePreset::Full || square);
        a->setToolTip(square ? QString() : tr("A sparse mask counts positions in one sequence: it needs as many queries as keys"));
    }
    const int w = sparseWidth(s.mask), widest = usefulSparseWidth(s.mask, queryCount(s));
    m_wider->setEnabled(w > 0 && w < widest);
    m_narrower->setEnabled(w > 1);
    if (w <= 0) {
        const QString none = tr("Choose a sliding window or blocks first: a full mask has no width");
        m_wider->setToolTip(none);
        m_narrower->setToolTip(none);
    } else {
        m_wider->setToolTip(w < widest ? tr("w = %1 → %2 (Ctrl+Shift+Right)").arg(w).arg(w + 1)
                                       : tr("w = %1 already reaches every key the pattern can").arg(w));
        m_narrower->setToolTip(w > 1 ? tr("w = %1 → %2 (Ctrl+Shift+Left)").arg(w).arg(w - 1)
                                     : tr("w = 1 is the narrowest"));
    }
    m_clearMask->setEnabled(s.mask.blocked.size() && s.mask.blocked.any());
    for (QAction *a : m_heads->actions()) {
        const int h = a->data().toInt();
        const bool fits = !whyNotHeads(s, h);
        a->setChecked(h == s.heads);
        a->setEnabled(fits || h == s.heads);
        a->setToolTip(fits ? tr("%1 head(s): d_k = %2, d_v = %3").arg(h).arg(keyWidth(s) / h).arg(valueWidth(s) / h)
                           : tr("%1 heads do not divide the widths h·d_k = %2 and h·d_v = %3")
                                 .arg(h)
                                 .arg(keyWidth(s))
                                 .arg(valueWidth(s)));
    }
    m_nextHead->setEnabled(s.heads > 1);
    m_previousHead->setEnabled(s.heads > 1);
    for (QAction *a : m_encodings->actions()) {
        const auto e = Encoding(a->data().toInt());
        a->setChecked(e == s.encoding);
        a->setEnabled(e == s.encoding || !whyNotEncoding(s, e));
    }
    QAction *rope = actionFor(m_encodings, int(Encoding::Rope));
    rope->setToolTip(headDim(s) % 2 == 0 ? tr("Rotate each head's queries and keys by position")
                                         : tr("RoPE rotates pairs of dimensions and needs an even d_k (now %1)").arg(headDim(s)));
    for (QAction *a : m_scales->actions())
        a->setChecked(a->data().toInt() == int(s.scale));
    for (QAction *a : m_similarities->actions())
        a->setChecked(a->data().toInt() == int(s.similarity));
}

} // namespace attn
