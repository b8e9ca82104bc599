#include "settingsbar.h"

#include "edit.h"
#include "settingedits.h"
#include "togglepanel.h"
#include "validate.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QLabel>
#include <QLayout>
#include <QMenu>
#include <QSpinBox>
#include <QSignalBlocker>
#include <QTimer>
#include <QToolButton>

namespace attn {

SettingsBar::SettingsBar(Document *doc, SettingsActions *actions, QWidget *parent)
    : QToolBar(parent), m_doc(doc), m_actions(actions)
{
    setObjectName(QStringLiteral("settingsToolBar"));
    setToolButtonStyle(Qt::ToolButtonTextOnly);

    m_causal = toggleButton(actions->causal(), QStringLiteral("barCausal"));
    m_afterSoftmax = toggleButton(actions->afterSoftmax(), QStringLiteral("barAfterSoftmax"));
    m_sparse = menuButton(actions->sparseMasks(), QStringLiteral("barSparseMask"));
    m_widthLabel = new QLabel(this);
    m_width = new QSpinBox(this);
    m_width->setObjectName(QStringLiteral("barMaskWidth"));
    m_width->setRange(1, kMaxMaskWidth);
    m_widthLabel->setBuddy(m_width);
    m_widthLabelItem = addWidget(m_widthLabel);
    m_widthItem = addWidget(m_width);
    connect(m_width, &QSpinBox::valueChanged, this, [this](int w) {
        const Mask &m = m_doc->scenario().mask;
        if (w != sparseWidth(m) && sparseWidth(m) > 0) {
            m_actions->setSparseWidth(w); // the same edit as Attention ▸ Sparse mask ▸ Wider
            sync(); // a refusal puts the width back
        }
    });
    addSeparator();
    m_heads = menuButton(actions->heads(), QStringLiteral("barHeads"));
    m_encoding = menuButton(actions->encodings(), QStringLiteral("barEncoding"));
    m_scale = menuButton(actions->scales(), QStringLiteral("barScale"));
    m_similarity = menuButton(actions->similarities(), QStringLiteral("barSimilarity"));
    addSeparator();

    m_tauLabel = new QLabel(this);
    // The panel's own box: τ as the document has it (0.005, 1e-06), not
    // rounded to two decimals, over core's range; a typed τ out of it is
    // refused with one message.
    auto *tau = new TemperatureBox(this);
    m_tau = tau;
    m_tau->setObjectName(QStringLiteral("barTemperature"));
    connect(tau, &TemperatureBox::refused, doc, &Document::report);
    m_tauLabel->setBuddy(m_tau);
    addWidget(m_tauLabel);
    addWidget(m_tau);
    connect(m_tau, &QDoubleSpinBox::valueChanged, this, [this](double tau) {
        if (std::abs(tau - m_doc->scenario().temperature) > 1e-12)
            SettingEdits::setTemperature(*m_doc, tau);
    });

    connect(doc, &Document::changed, this, [this](const DocumentChange &what) {
        if (what.any(ChangeKind::Settings | ChangeKind::Shape))
            sync();
    });
    retranslate();
    sync();
}

QToolButton *SettingsBar::toggleButton(QAction *action, const QString &objectName)
{
    // The action's own state and its one edit, with a text of the bar's own
    // (shorter when the row is tight): a button with the action as its
    // default action would take the action's text back at every change.
    auto *button = new QToolButton(this);
    button->setObjectName(objectName);
    button->setCheckable(true);
    button->setAutoRaise(true);
    connect(button, &QToolButton::clicked, action, [action, button] {
        action->trigger();
        button->setChecked(action->isChecked()); // an edit refused leaves it as it was
    });
    auto follow = [action, button] {
        button->setChecked(action->isChecked());
        button->setEnabled(action->isEnabled());
        button->setToolTip(action->toolTip());
    };
    connect(action, &QAction::changed, button, follow);
    follow();
    addWidget(button);
    return button;
}

QToolButton *SettingsBar::menuButton(QActionGroup *group, const QString &objectName)
{
    auto *button = new QToolButton(this);
    button->setObjectName(objectName);
    button->setPopupMode(QToolButton::InstantPopup);
    auto *menu = new QMenu(button);
    menu->addActions(group->actions());
    button->setMenu(menu);
    addWidget(button);
    connect(group, &QActionGroup::triggered, this, &SettingsBar::sync);
    return button;
}

void SettingsBar::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QToolBar::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        fitTexts();
}

void SettingsBar::resizeEvent(QResizeEvent *event)
{
    QToolBar::resizeEvent(event);
    fitTexts();
}

void SettingsBar::setCompact(bool compact)
{
    m_compact = compact;
    sync();
}

void SettingsBar::fitTexts()
{
    // The bar has a row of its own: when its texts are wider than the row
    // (a projector's zoom), the short ones, so that nothing, τ last of all,
    // falls into the "»" overflow. Measured without switching the texts:
    // the width now, less the texts shown, plus the full ones.
    if (width() <= 0)
        return;
    int full = sizeHint().width();
    if (m_compact) {
        for (QToolButton *b : {m_causal, m_afterSoftmax, m_sparse, m_heads, m_encoding, m_scale, m_similarity}) {
            const QFontMetrics fm(b->font());
            full += fm.horizontalAdvance(b->property("fullText").toString()) - fm.horizontalAdvance(b->text());
        }
    }
    const bool tight = full > width();
    if (tight == m_compact)
        return;
    setCompact(tight);
    // Laid out again with the new texts once this resize is done: the
    // layout placed its items for the old ones, τ in the overflow.
    QTimer::singleShot(0, this, [this] {
        layout()->invalidate();
        layout()->activate();
    });
}

void SettingsBar::retranslate()
{
    setWindowTitle(tr("Settings"));
    m_tauLabel->setText(tr(" &τ "));
    m_widthLabel->setText(tr(" &w "));
    m_sparse->setToolTip(tr("Sparse mask: which keys each query may see besides the causal mask and the padding"));
    m_width->setToolTip(tr("Width w: the sliding window's W (key j open for query i when |i − j| < W) or the block's size B"));
    m_heads->setToolTip(tr("How many heads (h): the width splits into h parts of d_k"));
    m_encoding->setToolTip(tr("Positional encoding"));
    m_scale->setToolTip(tr("What the scores are divided by before the softmax"));
    m_similarity->setToolTip(tr("How a query and a key are compared"));
    m_tau->setToolTip(tr("Temperature τ: the scores are divided by τ; small τ sharpens, large τ flattens"));
    sync();
}

void SettingsBar::sync()
{
    const Scenario &s = m_doc->scenario();
    auto checkedText = [](QActionGroup *g) {
        QAction *a = g->checkedAction();
        return a ? plainActionText(a) : QString();
    };
    // The full texts, kept to measure against while the short ones show.
    m_causal->setProperty("fullText", plainActionText(m_actions->causal()));
    m_afterSoftmax->setProperty("fullText", plainActionText(m_actions->afterSoftmax()));
    const SparsePreset preset = sparsePresetOf(s.mask);
    m_sparse->setProperty("fullText", tr("Mask: %1").arg(SettingsActions::name(preset)));
    m_heads->setProperty("fullText", tr("Heads: %1").arg(s.heads));
    m_encoding->setProperty("fullText", tr("Position: %1").arg(checkedText(m_actions->encodings())));
    m_scale->setProperty("fullText", tr("Scale: %1").arg(checkedText(m_actions->scales())));
    m_similarity->setProperty("fullText", tr("Similarity: %1").arg(checkedText(m_actions->similarities())));
    if (!m_compact) {
        for (QToolButton *b : {m_causal, m_afterSoftmax, m_sparse, m_heads, m_encoding, m_scale, m_similarity})
            b->setText(b->property("fullText").toString());
    } else {
        // The short forms: the symbols the formula and the maps' titles use.
        m_causal->setText(tr("Causal"));
        m_afterSoftmax->setText(tr("After softmax ✗"));
        const QString shortNames[] = {tr("Full"), tr("Window"), tr("Dilated"), tr("Block"), tr("Global+window"), tr("Custom")};
        m_sparse->setText(shortNames[int(preset)]);
        m_heads->setText(tr("h = %1").arg(s.heads));
        m_encoding->setText(tr("PE: %1").arg(checkedText(m_actions->encodings())));
        m_scale->setText(s.scale == Scale::SqrtDk ? QStringLiteral("÷ √d_k") : s.scale == Scale::Dk ? QStringLiteral("÷ d_k ✗")
                                                                                                   : QStringLiteral("÷ 1"));
        m_similarity->setText(s.similarity == Similarity::Dot      ? QStringLiteral("q·k")
                              : s.similarity == Similarity::Cosine ? QStringLiteral("cos(q, k)")
                                                                   : QStringLiteral("−‖q−k‖²"));
    }
    for (QToolButton *b : {m_heads, m_encoding, m_scale, m_similarity})
        b->setEnabled(b->menu() && !b->menu()->actions().isEmpty());
    const QSignalBlocker block(m_tau);
    m_tau->setValue(s.temperature);
    // The width of the pattern there is; none to set under a full mask.
    const QSignalBlocker blockWidth(m_width);
    const int w = sparseWidth(s.mask);
    m_width->setValue(w > 0 ? w : 2);
    // Room in the row only when there is a width: a full mask has none.
    m_widthItem->setVisible(w > 0);
    m_widthLabelItem->setVisible(w > 0);
}

} // namespace attn
