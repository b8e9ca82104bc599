#include "quizcmd.h"

#include "atomicwrite.h"
#include "cliargs.h"
#include "json_stream.h"
#include "lessons.h"
#include "quiz.h"
#include "quizhandout.h"

#include <QCoreApplication>
#include <QDir>
#include <QGuiApplication>
#include <QTranslator>

#include <memory>

namespace attn {

using namespace cmdline;

namespace {

constexpr int kCannotWrite = 2;

// The handout's headings in `language` while it lives: the app's own
// translation, installed next to the binary or compiled in.
class HeadingLanguage {
public:
    explicit HeadingLanguage(const QString &language)
    {
        if (language == QLatin1String("en"))
            return;
        const QString installed = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/attention-lab/translations"));
        const QString name = QStringLiteral("attention-lab_") + language;
        if (m_translator.load(name, installed) || m_translator.load(name, QStringLiteral(":/i18n")))
            m_installed = QCoreApplication::installTranslator(&m_translator);
    }
    ~HeadingLanguage()
    {
        if (m_installed)
            QCoreApplication::removeTranslator(&m_translator);
    }
    HeadingLanguage(const HeadingLanguage &) = delete;
    HeadingLanguage &operator=(const HeadingLanguage &) = delete;

private:
    QTranslator m_translator;
    bool m_installed = false;
};

// {"questions": [{"answer", "choices", "explanation", "id", "question"}]}:
// QJsonDocument's indented form, keys in its order; the texts in `language`.
QByteArray quizJson(const std::vector<QuizItem> &items, const std::string &language)
{
    QByteArray bytes;
    const JsonStream::Sink sink = [&bytes](const QByteArray &chunk) {
        bytes += chunk;
        return true;
    };
    JsonStream j(sink);
    j.raw("{\n");
    j.openArray(1, "questions");
    for (std::size_t i = 0; i < items.size(); ++i) {
        const QuizQuestion &q = items[i].question;
        j.openObject(2);
        j.openArray(3, "answer");
        for (std::size_t a = 0; a < q.answer.size(); ++a) {
            j.indent(4);
            j.integer(q.answer[a]);
            j.next(a + 1 == q.answer.size());
        }
        j.closeArray(3, false);
        j.key(3, "choices");
        std::vector<std::string> choices;
        for (const LocalText &c : q.choices)
            choices.push_back(localText(c, language));
        j.strings(3, choices);
        j.next(false);
        j.members(3,
                  {{"explanation", localText(q.explanation, language)},
                   {"id", q.id},
                   {"question", localText(q.question, language)}},
                  true);
        j.closeObject(2, i + 1 == items.size());
    }
    j.indent(1);
    j.raw("]\n}\n");
    j.finish();
    return bytes;
}

// Text from the lessons' files, each line with its controls escaped.
QByteArray safeLines(const QString &text)
{
    QStringList lines = text.split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    QString out;
    for (const QString &line : lines)
        out += safe(line) + QLatin1Char('\n');
    return out.toUtf8();
}

} // namespace

int quizCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseOptions(args, {QStringLiteral("--lesson"), QStringLiteral("--format"), QStringLiteral("--language"),
                                    QStringLiteral("--out")});
    if (!o.positional.isEmpty())
        throw UsageError{QStringLiteral("takes no file (got \"%1\"); name a built-in lesson with --lesson NAME").arg(o.positional.first())};
    const QString format = o.take(QStringLiteral("--format")).value_or(QStringLiteral("text"));
    if (format != QLatin1String("text") && format != QLatin1String("json") && format != QLatin1String("pdf"))
        throw UsageError{QStringLiteral("--format: unknown value \"%1\"; expected text, json or pdf").arg(format)};
    const QString language = o.take(QStringLiteral("--language")).value_or(QStringLiteral("en"));
    if (language != QLatin1String("en") && language != QLatin1String("zh_CN"))
        throw UsageError{QStringLiteral("--language: unknown value \"%1\"; expected en or zh_CN").arg(language)};
    const std::optional<QString> outFile = o.take(QStringLiteral("--out"));
    if (outFile && outFile->isEmpty())
        throw UsageError{QStringLiteral("--out: give a file name")};
    // As export's figures, the PDF goes into a file --out names, never to the terminal.
    if (format == QLatin1String("pdf") && !outFile)
        throw UsageError{QStringLiteral("--format pdf needs --out FILE: the file the handout goes into")};
    if (format == QLatin1String("pdf") && !qobject_cast<QGuiApplication *>(QCoreApplication::instance()))
        throw UsageError{QStringLiteral("--format pdf needs a QGuiApplication")};
    const std::optional<QString> lesson = o.take(QStringLiteral("--lesson"));

    std::vector<QuizItem> items;
    if (lesson) {
        Result<std::vector<QuizItem>> got = builtInQuiz(*lesson);
        if (const Problem *p = got.problem())
            throw UsageError{QStringLiteral("--lesson: %1").arg(QString::fromStdString(p->message))};
        items = std::move(got.value());
        if (items.empty() && format == QLatin1String("pdf"))
            throw UsageError{QStringLiteral("--lesson: %1 has no quiz questions (without --lesson: every lesson's)").arg(*lesson)};
    } else {
        items = builtInQuiz();
    }

    const HeadingLanguage headings(language);
    std::vector<QuizQuestion> questions;
    for (const QuizItem &item : items)
        questions.push_back(item.question);
    const QString subtitle = lesson ? lessonInfo(*lesson, language).title : QuizHandout::allLessons();
    const QuizHandout handout(std::move(questions), language, subtitle);
    const QByteArray bytes = format == QLatin1String("json") ? quizJson(items, language.toStdString())
                             : format == QLatin1String("pdf") ? handout.pdf()
                                                              : safeLines(handout.text());
    if (!outFile) {
        writeChunk(out, bytes); // a failed stdout: runCli says why, once
        return 0;
    }
    // A file the user named: a link there is followed, as a saved document's is.
    if (const auto p = writeFileAtomically(*outFile, bytes)) {
        err << "attention-lab-cli: " << safe(problemLine(p)) << "\n";
        return kCannotWrite;
    }
    out << safe(QDir::toNativeSeparators(*outFile)) << "\n";
    return 0;
}

} // namespace attn
