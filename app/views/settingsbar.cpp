#include "settingsbar.h"

#include "edit.h"
#include "settingedits.h"
#include "validate.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <QToolButton>

namespace attn {

SettingsBar::SettingsBar(Document *doc, SettingsActions *actions, QWidget *parent)
    : QToolBar(parent), m_doc(doc), m_actions(actions)
{
    setObjectName(QStringLiteral("settingsToolBar"));
    setToolButtonStyle(Qt::ToolButtonTextOnly);

    addAction(actions->causal());
    addAction(actions->afterSoftmax());
    addSeparator();
    m_heads = menuButton(actions->heads(), QStringLiteral("barHeads"));
    m_encoding = menuButton(actions->encodings(), QStringLiteral("barEncoding"));
    m_scale = menuButton(actions->scales(), QStringLiteral("barScale"));
    m_similarity = menuButton(actions->similarities(), QStringLiteral("barSimilarity"));
    addSeparator();

    m_tauLabel = new QLabel(this);
    m_tau = new QDoubleSpinBox(this);
    m_tau->setObjectName(QStringLiteral("barTemperature"));
    m_tau->setRange(0.01, 1000.0); // what two decimals can show; the panel reaches further
    m_tau->setDecimals(2);
    m_tau->setSingleStep(0.1);
    m_tau->setKeyboardTracking(false); // one edit when typing is done, not one a digit
    m_tauLabel->setBuddy(m_tau);
    addWidget(m_tauLabel);
    addWidget(m_tau);
    connect(m_tau, &QDoubleSpinBox::valueChanged, this, [this](double tau) {
        if (std::abs(tau - m_doc->scenario().temperature) > 1e-12)
            SettingEdits::setTemperature(*m_doc, roundTemperature(tau));
    });

    connect(doc, &Document::changed, this, [this](const DocumentChange &what) {
        if (what.any(ChangeKind::Settings | ChangeKind::Shape))
            sync();
    });
    retranslate();
    sync();
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
}

void SettingsBar::retranslate()
{
    setWindowTitle(tr("Settings"));
    m_tauLabel->setText(tr(" &τ "));
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
        return a ? a->text().remove(QLatin1Char('&')) : QString();
    };
    m_heads->setText(tr("Heads: %1").arg(s.heads));
    m_encoding->setText(tr("Position: %1").arg(checkedText(m_actions->encodings())));
    m_scale->setText(tr("Scale: %1").arg(checkedText(m_actions->scales())));
    m_similarity->setText(tr("Similarity: %1").arg(checkedText(m_actions->similarities())));
    for (QToolButton *b : {m_heads, m_encoding, m_scale, m_similarity})
        b->setEnabled(b->menu() && !b->menu()->actions().isEmpty());
    const QSignalBlocker block(m_tau);
    m_tau->setValue(s.temperature);
}

} // namespace attn
