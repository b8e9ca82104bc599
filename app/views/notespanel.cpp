#include "notespanel.h"

#include <algorithm>

#include "quiz.h"
#include "steppanel.h"
#include "viewbinding.h"

#include <QEvent>
#include <QLocale>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace attn {

NotesPanel::NotesPanel(Document *doc, Classroom *classroom, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_classroom(classroom)
{
    setObjectName(QStringLiteral("notes"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_text = new QTextBrowser(this);
    m_text->setOpenExternalLinks(false);
    layout->addWidget(m_text);
    keepReadableWidth();
    connect(classroom, &Classroom::changed, this, &NotesPanel::refresh);
    new ViewBinding(this, doc, ChangeKind::Text | ChangeKind::Shape, [this] { refresh(); }, {});
    refresh();
}

QString NotesPanel::localText(const LocalText &t, const QString &language)
{
    return QString::fromStdString(attn::localText(t, language.toStdString()));
}

void NotesPanel::refresh()
{
    const Scenario &s = m_doc->scenario();
    QString html = QStringLiteral("<h3>%1</h3>").arg(QString::fromStdString(s.title).toHtmlEscaped());
    if (m_classroom->hidden()) {
        html += QStringLiteral("<p><i>%1</i></p>").arg(tr("The notes are hidden while the answers are hidden: "
                                                         "they give the numbers away.").toHtmlEscaped());
    } else if (s.notes.empty()) {
        html += QStringLiteral("<p><i>%1</i></p>").arg(tr("This lesson has no notes. A lesson file can carry them "
                                                         "under the key \"notes\".").toHtmlEscaped());
    } else {
        // Paragraphs separated by blank lines; a line starting with "- " is a list item.
        const QString text = localText(s.notes, QLocale().name());
        for (const QString &para : text.split(QStringLiteral("\n\n"), Qt::SkipEmptyParts)) {
            QStringList items, plain;
            for (const QString &line : para.split(QLatin1Char('\n')))
                (line.startsWith(QStringLiteral("- ")) ? items : plain) << line.mid(line.startsWith(QStringLiteral("- ")) ? 2 : 0).toHtmlEscaped();
            if (!plain.isEmpty())
                html += QStringLiteral("<p>%1</p>").arg(plain.join(QStringLiteral("<br>")));
            if (!items.isEmpty())
                html += QStringLiteral("<ul><li>%1</li></ul>").arg(items.join(QStringLiteral("</li><li>")));
        }
    }
    m_text->setHtml(html);
}

void NotesPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        keepReadableWidth();
}

void NotesPanel::keepReadableWidth()
{
    // A column some words wide, never one that breaks words letter by
    // letter (the maps beside it give way, or say that they cannot).
    // A run of Chinese breaks anywhere, but a column of twelve characters
    // still reads as a line.
    const QFontMetrics fm = m_text->fontMetrics();
    const int word = std::max(fm.horizontalAdvance(QStringLiteral("permutation-swapped")),
                              fm.horizontalAdvance(QStringLiteral("注意力注意力注意力注意力")));
    m_text->setMinimumWidth(word + 24);
}

QString NotesPanel::text() const
{
    return m_text->toPlainText();
}

} // namespace attn
