#include "sidetabs.h"
#include "flowlayout.h"

#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <functional>

namespace attn {

namespace {

// A tab widget that says when a tab comes or goes.
class SideTabWidget : public QTabWidget {
public:
    explicit SideTabWidget(QWidget *parent) : QTabWidget(parent) { tabBar()->hide(); }
    std::function<void()> tabsChanged;

protected:
    void tabInserted(int index) override
    {
        QTabWidget::tabInserted(index);
        if (tabsChanged)
            tabsChanged();
    }
    void tabRemoved(int index) override
    {
        QTabWidget::tabRemoved(index);
        if (tabsChanged)
            tabsChanged();
    }
};

} // namespace

SideTabs::SideTabs(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("sideBox"));
    auto *tabs = new SideTabWidget(this);
    m_tabs = tabs;
    m_tabs->setObjectName(QStringLiteral("sideTabs"));
    m_tabs->setDocumentMode(true);
    m_names = new QWidget(this);
    m_names->setObjectName(QStringLiteral("sideTabNames"));
    new FlowLayout(m_names);
    m_names->layout()->setSpacing(2);
    auto *box = new QVBoxLayout(this);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(2);
    box->addWidget(m_names);
    box->addWidget(m_tabs, 1);
    tabs->tabsChanged = [this] { updateNames(); };
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        const QList<QToolButton *> names = m_names->findChildren<QToolButton *>();
        for (int i = 0; i < names.size(); ++i)
            names[i]->setChecked(names[i]->property("tabPage").value<QWidget *>() == m_tabs->widget(index));
    });
}

void SideTabs::updateNames()
{
    // One checkable button a tab, in the tabs' order, with the tab's text
    // (and so its Alt mnemonic): a click shows the page.
    qDeleteAll(m_names->findChildren<QToolButton *>(QString(), Qt::FindDirectChildrenOnly));
    for (int i = 0; i < m_tabs->count(); ++i) {
        QWidget *page = m_tabs->widget(i);
        auto *b = new QToolButton(m_names);
        b->setText(m_tabs->tabText(i));
        b->setToolTip(m_tabs->tabToolTip(i));
        b->setCheckable(true);
        b->setAutoRaise(true);
        b->setChecked(page == m_tabs->currentWidget());
        b->setProperty("tabPage", QVariant::fromValue(page));
        connect(b, &QToolButton::clicked, this, [this, page, b] {
            if (m_tabs->indexOf(page) >= 0)
                m_tabs->setCurrentWidget(page);
            b->setChecked(m_tabs->currentWidget() == page);
        });
        m_names->layout()->addWidget(b);
        b->show(); // a child added to a shown widget stays hidden otherwise
    }
}

QStringList SideTabs::namesCut() const
{
    QStringList out;
    const QList<QToolButton *> names = m_names->findChildren<QToolButton *>(QString(), Qt::FindDirectChildrenOnly);
    if (names.size() != m_tabs->count())
        out << QStringLiteral("%1 names for %2 tabs").arg(names.size()).arg(m_tabs->count());
    for (QToolButton *b : names) {
        const QString name = b->text().remove(QLatin1Char('&'));
        if (!b->isVisible() || !m_names->rect().contains(b->geometry()))
            out << name + QStringLiteral(": not in view");
        else if (b->width() < b->sizeHint().width())
            out << name + QStringLiteral(": cut (%1 of %2 px)").arg(b->width()).arg(b->sizeHint().width());
    }
    return out;
}

} // namespace attn
