#include "viewbinding.h"

#include <QEvent>

namespace attn {

ViewBinding::ViewBinding(QWidget *view, Document *doc, ChangeKinds shows, std::function<void()> refresh,
                         Options options)
    : QObject(view), m_view(view), m_refresh(std::move(refresh)), m_options(options)
{
    connect(doc, &Document::changed, this, [this, shows](const DocumentChange &what) {
        if (!what.any(shows))
            return;
        const bool now = m_options.testFlag(EvenWhenHidden) || m_view->isVisible();
        if (m_partial && (what.trace || what.scoresKept) && now && !m_stale && m_partial(what))
            return;
        request();
    });
    if (options.testFlag(FollowsCurrent))
        connect(doc, &Document::currentChanged, this, &ViewBinding::request);
    view->installEventFilter(this);
}

void ViewBinding::request()
{
    if (m_options.testFlag(EvenWhenHidden) || m_view->isVisible()) {
        m_stale = false;
        m_refresh();
    } else {
        m_stale = true;
    }
}

bool ViewBinding::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view && event->type() == QEvent::Show && m_stale) {
        m_stale = false;
        m_refresh();
    }
    return QObject::eventFilter(watched, event);
}

} // namespace attn
