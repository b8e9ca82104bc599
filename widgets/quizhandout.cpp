#include "quizhandout.h"

#include "quiz.h"

#include <QBuffer>
#include <QFont>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QStringList>
#include <QTextDocument>

namespace attn {

QuizHandout::QuizHandout(std::vector<QuizQuestion> questions, QString language, QString subtitle)
    : m_questions(std::move(questions)), m_language(std::move(language)), m_subtitle(std::move(subtitle))
{
}

QString QuizHandout::title()
{
    return tr("Attention Lab quiz");
}

QString QuizHandout::allLessons()
{
    return tr("All built-in lessons");
}

QString QuizHandout::local(const LocalText &t) const
{
    return QString::fromStdString(localText(t, m_language.toStdString()));
}

QString QuizHandout::answerLetters(const QuizQuestion &q) const
{
    QStringList letters;
    for (int a : q.answer)
        letters << letter(a);
    return letters.join(QStringLiteral(", "));
}

QString QuizHandout::subtitleLine() const
{
    const int n = int(m_questions.size());
    const QString count = n == 1 ? tr("1 question") : tr("%1 questions").arg(n);
    return m_subtitle.isEmpty() ? count : QStringLiteral("%1 · %2").arg(m_subtitle, count);
}

QString QuizHandout::text() const
{
    QString out = title() + QLatin1Char('\n') + subtitleLine() + QLatin1Char('\n');
    for (std::size_t i = 0; i < m_questions.size(); ++i) {
        const QuizQuestion &q = m_questions[i];
        out += QStringLiteral("\n%1. %2\n").arg(i + 1).arg(local(q.question));
        if (q.answer.size() > 1)
            out += QStringLiteral("   (%1)\n").arg(tr("More than one choice is right: pick every right one."));
        for (std::size_t c = 0; c < q.choices.size(); ++c)
            out += QStringLiteral("   %1. %2\n").arg(letter(int(c)), local(q.choices[c]));
    }
    if (m_questions.empty())
        return out;
    out += QStringLiteral("\n%1\n").arg(tr("Answer key"));
    for (std::size_t i = 0; i < m_questions.size(); ++i) {
        const QuizQuestion &q = m_questions[i];
        out += QStringLiteral("\n%1. %2\n").arg(i + 1).arg(answerLetters(q));
        const QString why = local(q.explanation);
        if (!why.isEmpty())
            out += QStringLiteral("   %1\n").arg(why);
    }
    return out;
}

QString QuizHandout::html() const
{
    QString h = QStringLiteral("<h1>%1</h1><p style='color:#555'>%2</p>").arg(title().toHtmlEscaped(), subtitleLine().toHtmlEscaped());
    for (std::size_t i = 0; i < m_questions.size(); ++i) {
        const QuizQuestion &q = m_questions[i];
        h += QStringLiteral("<p style='margin-top:14px'><b>%1.</b> %2</p>").arg(i + 1).arg(local(q.question).toHtmlEscaped());
        if (q.answer.size() > 1)
            h += QStringLiteral("<p style='margin-left:24px'><i>%1</i></p>")
                     .arg(tr("More than one choice is right: pick every right one.").toHtmlEscaped());
        for (std::size_t c = 0; c < q.choices.size(); ++c)
            h += QStringLiteral("<p style='margin-left:24px; margin-top:2px; margin-bottom:2px'>%1.&nbsp;&nbsp;%2</p>")
                     .arg(letter(int(c)), local(q.choices[c]).toHtmlEscaped());
    }
    if (m_questions.empty())
        return h;
    h += QStringLiteral("<h2 style='page-break-before: always'>%1</h2>").arg(tr("Answer key").toHtmlEscaped());
    for (std::size_t i = 0; i < m_questions.size(); ++i) {
        const QuizQuestion &q = m_questions[i];
        h += QStringLiteral("<p style='margin-top:12px'><b>%1. %2</b></p>").arg(i + 1).arg(answerLetters(m_questions[i]).toHtmlEscaped());
        const QString why = local(q.explanation);
        if (!why.isEmpty())
            h += QStringLiteral("<p style='margin-left:24px'>%1</p>").arg(why.toHtmlEscaped());
    }
    return h;
}

QByteArray QuizHandout::pdf() const
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setCreator(QStringLiteral("Attention Lab"));
        writer.setTitle(title());
        writer.setResolution(300);
        // No margins of the writer's own: QTextDocument::print lays the text
        // out 2 cm inside the page and numbers the pages.
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0),
                                         QPageLayout::Millimeter));
        QTextDocument doc;
        // A Simplified Chinese face first for zh_CN, so that shared Han
        // characters take their Chinese forms; the rest falls back as usual.
        QFont font(QStringLiteral("Noto Sans"), 11);
        if (m_language.startsWith(QLatin1String("zh")))
            font.setFamilies({QStringLiteral("Noto Sans CJK SC"), QStringLiteral("Noto Sans SC"), QStringLiteral("Noto Sans")});
        doc.setDefaultFont(font);
        doc.setHtml(html());
        doc.print(&writer);
    }
    return bytes;
}

} // namespace attn
