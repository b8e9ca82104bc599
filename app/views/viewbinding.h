#pragma once
// Binds a view to the document: the view's refresh() runs for the kinds of
// change it shows (and for a new head or query, when it follows them), and a
// view that is not visible waits until it is shown, so a background tab does
// no work during a drag. One place for what every document view needs.

#include "document.h"

#include <QObject>
#include <QWidget>

#include <functional>

namespace attn {

class ViewBinding : public QObject {
    Q_OBJECT

public:
    enum Option { FollowsCurrent = 0x1, EvenWhenHidden = 0x2 };
    Q_DECLARE_FLAGS(Options, Option)

    ViewBinding(QWidget *view, Document *doc, ChangeKinds shows, std::function<void()> refresh,
                Options options = FollowsCurrent);

    // Refreshes now if visible (or EvenWhenHidden), else at the next show.
    void request();
    // For a change whose trace was updated row by row (DocumentChange::trace)
    // or kept its scores (DocumentChange::scoresKept) reaching a view that
    // is up to date: `partial(change)` redraws what changed; it returns
    // false to have the whole refresh instead.
    void setPartialRefresh(std::function<bool(const DocumentChange &)> partial) { m_partial = std::move(partial); }
    bool isStale() const { return m_stale; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *m_view;
    std::function<void()> m_refresh;
    std::function<bool(const DocumentChange &)> m_partial;
    Options m_options;
    bool m_stale = false;
};

} // namespace attn

Q_DECLARE_OPERATORS_FOR_FLAGS(attn::ViewBinding::Options)
