// `attention-lab-cli quiz`, run as a user runs it: the questions the quiz
// window asks, as text, JSON (in the language asked for) and a PDF handout;
// bad options are one line and exit 2.

#include "attn_test.h"

#include "cli.h"
#include "lessons.h"
#include "quizpanel.h"

#include <QApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace attn;

namespace {

struct Run {
    bool finished = false;
    int code = -1;
    QByteArray out;
    QString err;

    QString describe() const
    {
        return QStringLiteral("finished %1, exit %2\nstdout: %3\nstderr: %4")
            .arg(finished).arg(code).arg(QString::fromUtf8(out.left(2000)), err.left(2000));
    }
};

Run runBinary(const QStringList &args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("XDG_RUNTIME_DIR"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM")); // the CLI needs no display of its own accord
    env.remove(QStringLiteral("DISPLAY"));
    p.setProcessEnvironment(env);
    p.start(test::binaryDir() + QStringLiteral("/bin/attention-lab-cli"), QStringList{QStringLiteral("quiz")} + args);
    Run r;
    if (!p.waitForStarted(10000))
        return r;
    r.finished = p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit;
    r.code = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

int pdfPageCount(const QByteArray &pdf)
{
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("/Type\\s*/Pages\\b[^>]*/Count\\s+(\\d+)"))
                                          .match(QString::fromLatin1(pdf));
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

QJsonArray questionsOf(const Run &r)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("not JSON: %s", qPrintable(error.errorString()));
    return doc.object().value(QLatin1String("questions")).toArray();
}

} // namespace

class TestCliQuiz : public QObject {
    Q_OBJECT

private slots:
    void jsonIsTheWindowsQuiz();
    void jsonInChinese();
    void oneLessonsQuiz();
    void textListsEachQuestionThenTheAnswers();
    void pdfHandout();
    void badOptionsAreOneLine_data();
    void badOptionsAreOneLine();
};

void TestCliQuiz::jsonIsTheWindowsQuiz()
{
    const Run r = runBinary({QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(r.finished && r.code == 0 && r.err.isEmpty(), qPrintable(r.describe()));
    const QJsonArray questions = questionsOf(r);
    QuizPanel window;
    QCOMPARE(questions.size(), window.questionCount());
    std::set<QString> ids;
    for (int i = 0; i < window.questionCount(); ++i) {
        const QJsonObject q = questions[i].toObject();
        QCOMPARE(q.keys(), (QStringList{QStringLiteral("answer"), QStringLiteral("choices"), QStringLiteral("explanation"),
                                        QStringLiteral("id"), QStringLiteral("question")}));
        const QuizQuestion &asked = window.entry(i).question;
        QCOMPARE(q.value(QLatin1String("id")).toString(), QString::fromStdString(asked.id));
        QVERIFY(ids.insert(q.value(QLatin1String("id")).toString()).second);
        QCOMPARE(q.value(QLatin1String("question")).toString(), QString::fromStdString(asked.question.at("en")));
        QCOMPARE(q.value(QLatin1String("explanation")).toString(), QString::fromStdString(asked.explanation.at("en")));
        const QJsonArray choices = q.value(QLatin1String("choices")).toArray();
        QCOMPARE(choices.size(), qsizetype(asked.choices.size()));
        for (qsizetype c = 0; c < choices.size(); ++c)
            QCOMPARE(choices[c].toString(), QString::fromStdString(asked.choices[std::size_t(c)].at("en")));
        const QJsonArray answer = q.value(QLatin1String("answer")).toArray();
        QCOMPARE(answer.size(), qsizetype(asked.answer.size()));
        for (qsizetype a = 0; a < answer.size(); ++a)
            QCOMPARE(answer[a].toInt(-1), asked.answer[std::size_t(a)]);
    }
    // Written as QJsonDocument writes the same tree.
    QCOMPARE(r.out, QJsonDocument(QJsonDocument::fromJson(r.out).object()).toJson(QJsonDocument::Indented));
}

void TestCliQuiz::jsonInChinese()
{
    const Run r = runBinary({QStringLiteral("--format=json"), QStringLiteral("--language"), QStringLiteral("zh_CN")});
    QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
    const QJsonArray questions = questionsOf(r);
    const std::vector<QuizItem> quiz = builtInQuiz();
    QCOMPARE(questions.size(), qsizetype(quiz.size()));
    for (qsizetype i = 0; i < questions.size(); ++i) {
        const QuizQuestion &q = quiz[std::size_t(i)].question;
        QCOMPARE(questions[i].toObject().value(QLatin1String("question")).toString(), QString::fromStdString(q.question.at("zh_CN")));
        QCOMPARE(questions[i].toObject().value(QLatin1String("explanation")).toString(),
                 QString::fromStdString(q.explanation.at("zh_CN")));
    }
    QVERIFY(QString::fromUtf8(r.out).contains(QStringLiteral("关卡一（单选）")));
}

void TestCliQuiz::oneLessonsQuiz()
{
    const Run r = runBinary({QStringLiteral("--lesson"), QStringLiteral("seed001-selftest"), QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
    const QJsonArray questions = questionsOf(r);
    const Result<std::vector<QuizItem>> lesson = builtInQuiz(QStringLiteral("seed001-selftest"));
    QVERIFY(lesson.ok());
    QCOMPARE(questions.size(), qsizetype(lesson.value().size()));
    for (qsizetype i = 0; i < questions.size(); ++i)
        QCOMPARE(questions[i].toObject().value(QLatin1String("id")).toString(), QString::fromStdString(lesson.value()[std::size_t(i)].question.id));
    // A lesson without questions: an empty list.
    const Run none = runBinary({QStringLiteral("--lesson"), QStringLiteral("causal"), QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(none.finished && none.code == 0, qPrintable(none.describe()));
    QVERIFY(QJsonDocument::fromJson(none.out).object().value(QLatin1String("questions")).isArray());
    QCOMPARE(questionsOf(none).size(), 0);
}

void TestCliQuiz::textListsEachQuestionThenTheAnswers()
{
    const Run r = runBinary({});
    QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
    const QString text = QString::fromUtf8(r.out);
    const std::vector<QuizItem> quiz = builtInQuiz();
    const qsizetype key = text.indexOf(QStringLiteral("\nAnswer key\n"));
    QVERIFY2(key > 0, qPrintable(text.left(500)));
    // "N. " starts a question before the key and an answer after it: one each.
    const QRegularExpression numbered(QStringLiteral("^(\\d+)\\. "), QRegularExpression::MultilineOption);
    int asked = 0, answered = 0;
    for (auto it = numbered.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const int n = m.captured(1).toInt();
        if (m.capturedStart() < key)
            QCOMPARE(n, ++asked);
        else
            QCOMPARE(n, ++answered);
    }
    QCOMPARE(asked, int(quiz.size()));
    QCOMPARE(answered, int(quiz.size()));
    QVERIFY(text.contains(QStringLiteral("1. ") + QString::fromStdString(quiz[0].question.question.at("en"))));
    // The same in Chinese, headings too (the app's translation).
    const Run zh = runBinary({QStringLiteral("--language"), QStringLiteral("zh_CN")});
    QVERIFY2(zh.finished && zh.code == 0, qPrintable(zh.describe()));
    const QString zhText = QString::fromUtf8(zh.out);
    QVERIFY(zhText.contains(QStringLiteral("1. ") + QString::fromStdString(quiz[0].question.question.at("zh_CN"))));
    QVERIFY2(!zhText.contains(QStringLiteral("Answer key")), qPrintable(zhText.left(300)));
    // In-process, runCli gives the same text.
    QString out, err;
    {
        QTextStream o(&out), e(&err);
        QCOMPARE(runCli({QStringLiteral("quiz")}, o, e), 0);
    }
    QCOMPARE(out, text);
}

void TestCliQuiz::pdfHandout()
{
    QTemporaryDir dir;
    for (const QString &language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
        const QString path = dir.filePath(language + QStringLiteral(".pdf"));
        const Run r = runBinary({QStringLiteral("--format"), QStringLiteral("pdf"), QStringLiteral("--language"), language,
                                 QStringLiteral("--out"), path});
        QVERIFY2(r.finished && r.code == 0, qPrintable(r.describe()));
        QCOMPARE(QString::fromUtf8(r.out), QDir::toNativeSeparators(path) + QLatin1Char('\n'));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray pdf = f.readAll();
        QVERIFY(pdf.startsWith("%PDF-"));
        QVERIFY2(pdfPageCount(pdf) >= 2, qPrintable(QString::number(pdfPageCount(pdf))));
    }
    // Into a folder that is not there: one line, exit 2, nothing made.
    const Run bad = runBinary({QStringLiteral("--format"), QStringLiteral("pdf"), QStringLiteral("--out"),
                               dir.filePath(QStringLiteral("missing/x.pdf"))});
    QVERIFY2(bad.finished && bad.code == 2 && bad.err.count(QLatin1Char('\n')) == 1 && bad.out.isEmpty(), qPrintable(bad.describe()));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("missing/x.pdf"))));
}

void TestCliQuiz::badOptionsAreOneLine_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("says");
    QTest::newRow("format") << QStringList{QStringLiteral("--format"), QStringLiteral("html")} << QStringLiteral("text, json or pdf");
    QTest::newRow("language") << QStringList{QStringLiteral("--language"), QStringLiteral("fr")} << QStringLiteral("en or zh_CN");
    QTest::newRow("lesson") << QStringList{QStringLiteral("--lesson"), QStringLiteral("nope")} << QStringLiteral("seed000-basic");
    QTest::newRow("pdf without --out") << QStringList{QStringLiteral("--format"), QStringLiteral("pdf")} << QStringLiteral("--out FILE");
    QTest::newRow("unknown option") << QStringList{QStringLiteral("--lessons"), QStringLiteral("x")} << QStringLiteral("--lessons");
    QTest::newRow("a file") << QStringList{QStringLiteral("quiz.json")} << QStringLiteral("--lesson NAME");
    QTest::newRow("twice") << QStringList{QStringLiteral("--format=json"), QStringLiteral("--format=text")} << QStringLiteral("twice");
    QTest::newRow("pdf of no questions") << QStringList{QStringLiteral("--lesson"), QStringLiteral("causal"), QStringLiteral("--format"),
                                                        QStringLiteral("pdf"), QStringLiteral("--out"), QStringLiteral("/nonexistent/x.pdf")}
                                         << QStringLiteral("causal has no quiz questions");
    QTest::newRow("no value") << QStringList{QStringLiteral("--lesson")} << QStringLiteral("needs a value");
}

void TestCliQuiz::badOptionsAreOneLine()
{
    QFETCH(QStringList, args);
    QFETCH(QString, says);
    const Run r = runBinary(args);
    QVERIFY2(r.finished && r.code == 2 && r.out.isEmpty(), qPrintable(r.describe()));
    QVERIFY2(r.err.startsWith(QLatin1String("attention-lab-cli: quiz: ")) && r.err.count(QLatin1Char('\n')) == 1
                 && r.err.endsWith(QLatin1Char('\n')) && r.err.contains(says),
             qPrintable(r.describe()));
}

QTEST_MAIN(TestCliQuiz)
#include "test_cli_quiz.moc"
