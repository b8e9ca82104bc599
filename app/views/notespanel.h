#pragma once
// The lesson's notes: what it shows, what to try and, for the
// seed lessons, where the handout's numbers are wrong, from the lesson
// file's "notes" key, in the window's language. Hidden with the answers.

#include "document.h"

#include <QWidget>

class QTextBrowser;

namespace attn {

class Classroom;

class NotesPanel : public QWidget {
    Q_OBJECT

public:
    NotesPanel(Document *doc, Classroom *classroom, QWidget *parent = nullptr);
    QString text() const; // as shown, plain

    // The text of `t` in `language` ("zh_CN"), else English, else any.
    static QString localText(const LocalText &t, const QString &language);

public slots:
    void refresh();

protected:
    void changeEvent(QEvent *event) override;

private:
    void keepReadableWidth();
    Document *m_doc;
    Classroom *m_classroom;
    QTextBrowser *m_text;
};

} // namespace attn
