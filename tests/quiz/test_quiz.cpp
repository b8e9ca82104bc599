// The quiz as one list: a question that several lessons carry is asked,
// scored and printed once, under an id that does not move; the quiz window
// keeps its width from question to question; the handout (the questions,
// then the answer key on a page of its own) from File ▸ Print quiz handout.

#include "lessons.h"
#include "mainwindow.h"
#include "quiz.h"
#include "quizhandout.h"
#include "quizpanel.h"
#include "windowexport.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace attn;

namespace {

QuizQuestion question(const std::string &id, const std::string &text, int answer, const std::string &why = "")
{
    QuizQuestion q;
    q.id = id;
    q.question = {{"en", text}, {"zh_CN", text + "（中）"}};
    q.choices = {{{"en", "a"}}, {{"en", "b"}}, {{"en", "c"}}};
    q.answer = {answer};
    q.explanation = {{"en", why}};
    return q;
}

// A second, plain reading of the lessons' files: each question as the
// compact JSON of its question, choices and answer, once, in the order of
// index.json; and how many questions the files hold in all.
struct PlainQuiz {
    QStringList keys;
    int total = 0;
};

PlainQuiz plainQuiz()
{
    PlainQuiz p;
    for (const QString &name : lessonIndex()) {
        QFile f(lessonResourcePath(name));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        for (const QJsonValue &v : QJsonDocument::fromJson(f.readAll()).object().value(QLatin1String("quiz")).toArray()) {
            const QJsonObject o = v.toObject();
            const QJsonObject key{{QStringLiteral("q"), o.value(QLatin1String("question"))},
                                  {QStringLiteral("c"), o.value(QLatin1String("choices"))},
                                  {QStringLiteral("a"), o.value(QLatin1String("answer"))}};
            const QString k = QString::fromUtf8(QJsonDocument(key).toJson(QJsonDocument::Compact));
            ++p.total;
            if (!p.keys.contains(k))
                p.keys << k;
        }
    }
    return p;
}

QString keyOf(const QuizQuestion &q)
{
    auto local = [](const LocalText &t) {
        QJsonObject o;
        for (const auto &[lang, text] : t)
            o.insert(QString::fromStdString(lang), QString::fromStdString(text));
        return o;
    };
    QJsonArray choices, answer;
    for (const LocalText &c : q.choices)
        choices.append(local(c));
    for (int a : q.answer)
        answer.append(a);
    const QJsonObject key{{QStringLiteral("q"), local(q.question)}, {QStringLiteral("c"), choices}, {QStringLiteral("a"), answer}};
    return QString::fromUtf8(QJsonDocument(key).toJson(QJsonDocument::Compact));
}

// The N of the PDF's page tree ("/Count N"), or -1.
int pdfPageCount(const QByteArray &pdf)
{
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("/Type\\s*/Pages\\b[^>]*/Count\\s+(\\d+)"))
                                          .match(QString::fromLatin1(pdf));
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

} // namespace

class TestQuiz : public QObject {
    Q_OBJECT

private slots:
    void gatherKeepsEachQuestionOnce();
    void builtInQuizAsksEachQuestionOnce();
    void oneLessonsQuizKeepsTheIds();
    void scoreCountsEachQuestionOnce();
    void quizWindowKeepsItsWidth();
    void handoutHasTheQuestionsThenTheAnswerKey();
    void printQuizHandoutFromTheFileMenu();
};

void TestQuiz::gatherKeepsEachQuestionOnce()
{
    const QuizQuestion a = question("x", "first", 1, "because");
    QuizQuestion aAgain = a;
    aAgain.explanation = {{"en", "worded otherwise"}}; // the same question all the same
    aAgain.id.clear();
    const QuizQuestion b = question("", "second", 0);
    const QuizQuestion otherX = question("x", "third", 2); // another question under the same file id
    QuizQuestion notB = b;
    notB.answer = {2}; // other answer: another question
    const std::vector<QuizItem> got = gatherQuiz({{"one", {a, b}}, {"two", {aAgain, otherX, b, notB}}});
    QCOMPARE(int(got.size()), 4);
    QCOMPARE(got[0].question.id, std::string("x"));
    QCOMPARE(got[0].question.explanation.at("en"), std::string("because")); // the first occurrence's
    QCOMPARE(got[0].lessons, (std::vector<std::string>{"one", "two"}));
    QCOMPARE(got[1].question.id, std::string("one-q2")); // no file id: lesson and place, from 1
    QCOMPARE(got[1].lessons, (std::vector<std::string>{"one", "two"}));
    QCOMPARE(got[2].question.id, std::string("two/x"));
    QCOMPARE(got[2].lesson, std::string("two"));
    QCOMPARE(got[3].question.id, std::string("two-q4"));
    QVERIFY(sameQuestion(a, aAgain));
    QVERIFY(!sameQuestion(b, notB));
    // An id is the same whatever follows: the first lesson alone gives the same ones.
    const std::vector<QuizItem> first = gatherQuiz({{"one", {a, b}}});
    QCOMPARE(first[0].question.id, got[0].question.id);
    QCOMPARE(first[1].question.id, got[1].question.id);
}

void TestQuiz::builtInQuizAsksEachQuestionOnce()
{
    const PlainQuiz plain = plainQuiz();
    QVERIFY2(plain.total > plain.keys.size(), "the lessons share questions (the A/B lessons carry seed 000's)");
    const std::vector<QuizItem> quiz = builtInQuiz();
    QCOMPARE(int(quiz.size()), int(plain.keys.size()));
    std::set<std::string> ids;
    for (std::size_t i = 0; i < quiz.size(); ++i) {
        QCOMPARE(keyOf(quiz[i].question), plain.keys[qsizetype(i)]);
        QVERIFY2(ids.insert(quiz[i].question.id).second, quiz[i].question.id.c_str());
        for (std::size_t j = 0; j < i; ++j)
            QVERIFY(!sameQuestion(quiz[i].question, quiz[j].question));
    }
    // Seed 000's four challenges are carried by three lessons and asked once.
    const auto q1 = std::find_if(quiz.begin(), quiz.end(), [](const QuizItem &i) { return i.question.id == "seed000-q1"; });
    QVERIFY(q1 != quiz.end());
    QCOMPARE(q1->lesson, std::string("seed000-basic"));
    QCOMPARE(q1->lessons, (std::vector<std::string>{"seed000-basic", "compare-scaling-none", "compare-scaling-dk"}));
    // The window asks the same list, in the same order.
    QuizPanel panel;
    QCOMPARE(panel.questionCount(), int(quiz.size()));
    for (int i = 0; i < panel.questionCount(); ++i) {
        QCOMPARE(panel.entry(i).question.id, quiz[std::size_t(i)].question.id);
        QCOMPARE(panel.entry(i).lesson, QString::fromStdString(quiz[std::size_t(i)].lesson));
    }
}

void TestQuiz::oneLessonsQuizKeepsTheIds()
{
    const Result<std::vector<QuizItem>> dk = builtInQuiz(QStringLiteral("compare-scaling-dk"));
    QVERIFY(dk.ok());
    const ScenarioOrProblem lesson = loadLesson(QStringLiteral("compare-scaling-dk"));
    QCOMPARE(dk.value().size(), std::get<Scenario>(lesson).quiz.size());
    for (std::size_t i = 0; i < dk.value().size(); ++i)
        QCOMPARE(dk.value()[i].question.id, std::get<Scenario>(lesson).quiz[i].id);
    QVERIFY(builtInQuiz(QStringLiteral("causal")).ok()); // a lesson without a quiz: none
    QVERIFY(builtInQuiz(QStringLiteral("causal")).value().empty());
    const Result<std::vector<QuizItem>> none = builtInQuiz(QStringLiteral("no-such-lesson"));
    QVERIFY(none.problem());
    QVERIFY(QString::fromStdString(none.problem()->message).contains(QStringLiteral("seed000-basic")));
}

void TestQuiz::scoreCountsEachQuestionOnce()
{
    QuizPanel quiz;
    const int n = quiz.questionCount();
    QVERIFY(n > 0);
    for (int i = 0; i < n; ++i) {
        quiz.showQuestion(i);
        QVERIFY(quiz.answer(quiz.entry(i).question.answer));
        QVERIFY(quiz.answer(quiz.entry(i).question.answer)); // again: counted once
    }
    QCOMPARE(quiz.score(), n);
    QCOMPARE(quiz.answeredCount(), n);
    QCOMPARE(n, int(plainQuiz().keys.size()));
}

void TestQuiz::quizWindowKeepsItsWidth()
{
    MainWindow w;
    w.setInteractive(false);
    w.show();
    QuizPanel *quiz = w.showQuiz();
    QWidget *window = quiz->window();
    QVERIFY(QTest::qWaitForWindowExposed(window));
    QCoreApplication::sendPostedEvents(); // the layout's requests
    const int width = window->width();
    auto *next = quiz->findChild<QPushButton *>(QStringLiteral("quizNext"));
    QVERIFY(next);
    for (int i = 1; i < quiz->questionCount(); ++i) {
        QTest::mouseClick(next, Qt::LeftButton);
        QCoreApplication::sendPostedEvents();
        QCOMPARE(quiz->current(), i);
        QVERIFY2(window->width() == width, qPrintable(QStringLiteral("question %1 (%2): %3 px wide, the first %4 px")
                                                          .arg(i + 1)
                                                          .arg(QString::fromStdString(quiz->entry(i).question.id))
                                                          .arg(window->width())
                                                          .arg(width)));
        // Answered, the explanation shows: still the same width.
        quiz->answer(quiz->entry(i).question.answer);
        QCoreApplication::sendPostedEvents();
        QCOMPARE(window->width(), width);
    }
    QVERIFY(!next->isEnabled());
}

void TestQuiz::handoutHasTheQuestionsThenTheAnswerKey()
{
    std::vector<QuizQuestion> questions;
    for (QuizItem &item : builtInQuiz())
        questions.push_back(item.question);
    const QuizHandout en(questions, QStringLiteral("en"), QuizHandout::allLessons());
    const QString text = en.text();
    const qsizetype key = text.indexOf(QStringLiteral("\nAnswer key\n"));
    QVERIFY(key > 0);
    for (std::size_t i = 0; i < questions.size(); ++i) {
        const QString asked = QStringLiteral("\n%1. %2\n").arg(i + 1).arg(QString::fromStdString(questions[i].question.at("en")));
        QVERIFY2(text.indexOf(asked) >= 0 && text.indexOf(asked) < key, qPrintable(asked));
        QStringList letters;
        for (int a : questions[i].answer)
            letters << QuizHandout::letter(a);
        QVERIFY(text.indexOf(QStringLiteral("\n%1. %2\n").arg(i + 1).arg(letters.join(QStringLiteral(", "))), key) > key);
        QVERIFY(text.indexOf(QString::fromStdString(questions[i].explanation.at("en")), key) > key);
        for (std::size_t c = 0; c < questions[i].choices.size(); ++c)
            QVERIFY(text.contains(QStringLiteral("   %1. %2\n").arg(QuizHandout::letter(int(c)),
                                                                    QString::fromStdString(questions[i].choices[c].at("en")))));
    }
    QVERIFY(en.html().contains(QStringLiteral("page-break-before: always")));
    const QByteArray pdf = en.pdf();
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY2(pdfPageCount(pdf) >= 2, qPrintable(QString::number(pdfPageCount(pdf))));
    // In Chinese: the lessons' own Chinese text.
    const QuizHandout zh(questions, QStringLiteral("zh_CN"), QString());
    QVERIFY(zh.text().contains(QString::fromStdString(questions[0].question.at("zh_CN"))));
    QVERIFY(zh.text().contains(QStringLiteral("关卡一（单选）")));
    const QByteArray zhPdf = zh.pdf();
    QVERIFY(zhPdf.startsWith("%PDF-"));
    QVERIFY(pdfPageCount(zhPdf) >= 2);
}

void TestQuiz::printQuizHandoutFromTheFileMenu()
{
    MainWindow w;
    w.setInteractive(false);
    QMenu *file = w.menu(QStringLiteral("fileMenu"));
    QVERIFY(file);
    QAction *print = nullptr;
    for (QAction *a : file->actions())
        if (a->objectName() == QLatin1String("printQuizHandout"))
            print = a;
    QVERIFY(print);
    QCOMPARE(print->text(), QStringLiteral("&Print quiz handout…"));
    auto *exports = w.findChild<WindowExport *>();
    QVERIFY(exports);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("handout.pdf"));
    QVERIFY(!exports->writeQuizHandout(path));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray pdf = f.readAll();
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY(pdfPageCount(pdf) >= 2);
    // A folder that is not there: a problem in one line, nothing written.
    const auto p = exports->writeQuizHandout(dir.filePath(QStringLiteral("missing/handout.pdf")));
    QVERIFY(p);
    QVERIFY(!QString::fromStdString(p->message).isEmpty());
    QVERIFY(!QString::fromStdString(p->message).contains(QLatin1Char('\n')));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("missing/handout.pdf"))));
}

QTEST_MAIN(TestQuiz)
#include "test_quiz.moc"
