// The class session's rules without the network (core/session): the join
// code, questions the teacher may ask, 200 students answering at random and
// every tally exact, an answer changed before the reveal and refused after
// it, malformed, oversized, too fast and unknown messages refused without
// touching anyone's answer, the connection limit, the session's end, and the
// CSV of anonymous tallies.

#include "classsession.h"
#include "sessionquestions.h"

#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>
#include <QJsonDocument>
#include <QTest>

#include <random>

using namespace attn;

namespace {

QByteArray json(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QByteArray hello(const std::string &device)
{
    return json({{"type", "hello"}, {"device", QString::fromStdString(device)}});
}

QByteArray choose(const std::string &question, int choice)
{
    return json({{"type", "answer"}, {"question", QString::fromStdString(question)}, {"choice", choice}});
}

std::string device(int i)
{
    return "student-device-" + std::to_string(1000 + i); // 19 characters of the allowed ones
}

SessionQuestion choiceQuestion(const std::string &id, int choices, std::vector<int> answer)
{
    SessionQuestion q;
    q.id = id;
    q.text = {{"en", "Which key gets the largest weight?"}, {"zh_CN", "哪个键的权重最大？"}};
    for (int c = 0; c < choices; ++c)
        q.choices.push_back({{"en", "k" + std::to_string(c + 1)}});
    q.answer = std::move(answer);
    return q;
}

} // namespace

class TestClassSession : public QObject {
    Q_OBJECT

private slots:
    void joinCode()
    {
        const std::string a = ClassSession::makeJoinCode(7), b = ClassSession::makeJoinCode(7), c = ClassSession::makeJoinCode(8);
        QCOMPARE(a, b);
        QVERIFY(a != c);
        QCOMPARE(a.size(), std::size_t(5));
        for (char ch : a + c)
            QVERIFY2(std::string("0O1IL").find(ch) == std::string::npos, a.c_str());
        const ClassSession s("K7QX2");
        QVERIFY(s.codeMatches(QStringLiteral("K7QX2")));
        QVERIFY(s.codeMatches(QStringLiteral("k7qx2"))); // typed on a phone
        QVERIFY(!s.codeMatches(QStringLiteral("K7QX")));
        QVERIFY(!s.codeMatches(QStringLiteral("K7QX22")));
        QVERIFY(!s.codeMatches(QString()));
        QVERIFY(!ClassSession("").codeMatches(QString()));
    }

    void questionsTheTeacherMayAsk()
    {
        ClassSession s("ABCDE");
        QVERIFY(s.ask(choiceQuestion("", 3, {0})));
        QVERIFY(s.ask(choiceQuestion("one choice", 1, {0})));
        QVERIFY(s.ask(choiceQuestion("out of range", 3, {3})));
        QVERIFY(s.ask(choiceQuestion("no answer", 3, {})));
        SessionQuestion n;
        n.id = "nan";
        n.kind = SessionQuestion::Kind::Number;
        n.number = std::nan("");
        QVERIFY(s.ask(n));
        QVERIFY(!s.current());
        QVERIFY(!s.ask(choiceQuestion("ok", 3, {1})));
        QCOMPARE(s.current()->id, std::string("ok"));
        QCOMPARE(s.version(), 1);
    }

    // 200 students, three questions, each student answering at random
    // (some twice, some not at all): the tallies are exactly the last
    // answer of each device, counted here independently.
    void twoHundredStudents()
    {
        ClassSession s("ABCDE");
        std::int64_t now = 0;
        for (int i = 0; i < 200; ++i) {
            QVERIFY(s.connect("c" + std::to_string(i), now));
            const auto r = s.receive("c" + std::to_string(i), hello(device(i)), now);
            QVERIFY(r);
            QCOMPARE(r->value("type").toString(), QStringLiteral("idle"));
        }
        QCOMPARE(s.students(), 200);
        std::mt19937 rng(20261205);
        for (int round = 0; round < 3; ++round) {
            const std::string id = "q" + std::to_string(round);
            const int choices = 3 + round;
            QVERIFY(!s.ask(choiceQuestion(id, choices, {round})));
            std::vector<int> last(200, -1);
            now += 1000;
            for (int i = 0; i < 200; ++i) {
                const int times = int(rng() % 3); // 0, 1 or 2 answers
                for (int t = 0; t < times; ++t) {
                    const int c = int(rng() % unsigned(choices));
                    const auto ack = s.receive("c" + std::to_string(i), choose(id, c), now);
                    QVERIFY(ack);
                    QCOMPARE(ack->value("type").toString(), QStringLiteral("ack"));
                    QCOMPARE(ack->value("choice").toInt(), c);
                    last[std::size_t(i)] = c;
                }
            }
            std::vector<int> expected(std::size_t(choices), 0);
            int answered = 0, right = 0;
            for (int c : last)
                if (c >= 0) {
                    ++expected[std::size_t(c)];
                    ++answered;
                    right += c == round;
                }
            const SessionTally t = s.tally();
            QVERIFY(t.counts == expected);
            QCOMPARE(t.answers, answered);
            QCOMPARE(t.right, right);
            s.reveal();
            // After the reveal: refused, nothing changes; each phone hears its own answer.
            const auto late = s.receive("c0", choose(id, 0), now);
            QCOMPARE(late->value("type").toString(), QStringLiteral("error"));
            QVERIFY(s.tally().counts == expected);
            const QJsonObject state = s.stateFor("c5");
            QCOMPARE(state.value("type").toString(), QStringLiteral("reveal"));
            QCOMPARE(state.value("answer").toArray().first().toInt(), round);
            QCOMPARE(state.value("yours").isNull(), last[5] < 0);
            if (last[5] >= 0)
                QCOMPARE(state.value("yours").toInt(), last[5]);
        }
        QCOMPARE(s.history().size(), std::size_t(2)); // the third is still open
        QCOMPARE(s.refused(), 3);                     // the three late answers
    }

    void numbers()
    {
        ClassSession s("ABCDE");
        SessionQuestion q;
        q.id = "w1";
        q.kind = SessionQuestion::Kind::Number;
        q.number = 0.42;
        q.tolerance = 0.005;
        QVERIFY(!s.ask(q));
        QVERIFY(s.connect("a", 0) && s.connect("b", 0));
        s.receive("a", hello(device(1)), 0);
        s.receive("b", hello(device(2)), 0);
        auto answer = [&](const char *c, const QJsonValue &v) {
            return s.receive(c, json({{"type", "answer"}, {"question", "w1"}, {"number", v}}), 0);
        };
        QCOMPARE(answer("a", 0.424)->value("type").toString(), QStringLiteral("ack"));
        QCOMPARE(answer("b", 0.43)->value("type").toString(), QStringLiteral("ack"));
        QCOMPARE(answer("b", QStringLiteral("0.42"))->value("type").toString(), QStringLiteral("error")); // a string
        const SessionTally t = s.tally();
        QCOMPARE(t.answers, 2);
        QCOMPARE(t.right, 1); // 0.424 is within 0.005 of 0.42; 0.43 is not
        QCOMPARE(t.numbers, (std::vector<double>{0.424, 0.43}));
    }

    void refusedWithoutDisturbingOthers_data()
    {
        QTest::addColumn<QByteArray>("message");
        QTest::addColumn<QString>("says");
        QTest::newRow("not JSON") << QByteArray("{\"type\": ") << "not a JSON object";
        QTest::newRow("an array") << QByteArray("[1, 2]") << "not a JSON object";
        QTest::newRow("unknown type") << json({{"type", "reveal"}}) << "unknown message type";
        QTest::newRow("too long") << QByteArray(4097, ' ') << "message too long";
        QTest::newRow("choice out of range") << choose("q", 3) << "not one of the choices";
        QTest::newRow("negative choice") << choose("q", -1) << "not one of the choices";
        QTest::newRow("a fraction") << json({{"type", "answer"}, {"question", "q"}, {"choice", 1.5}}) << "not one of the choices";
        QTest::newRow("a string choice") << json({{"type", "answer"}, {"question", "q"}, {"choice", "1"}}) << "not one of the choices";
        QTest::newRow("another question") << choose("other", 1) << "that question is not open";
        QTest::newRow("html as a device") << hello("<script>alert(1)</script>") << "bad device token";
        QTest::newRow("short device") << hello("abc") << "bad device token";
    }
    void refusedWithoutDisturbingOthers()
    {
        QFETCH(QByteArray, message);
        QFETCH(QString, says);
        ClassSession s("ABCDE");
        QVERIFY(!s.ask(choiceQuestion("q", 3, {1})));
        QVERIFY(s.connect("good", 0) && s.connect("bad", 0));
        s.receive("good", hello(device(1)), 0);
        s.receive("bad", hello(device(2)), 0);
        s.receive("good", choose("q", 2), 0);
        s.receive("bad", choose("q", 0), 0);
        const auto r = s.receive("bad", message, 0);
        QVERIFY(r);
        QCOMPARE(r->value("type").toString(), QStringLiteral("error"));
        QCOMPARE(r->value("message").toString(), says);
        QCOMPARE(s.tally().counts, (std::vector<int>{1, 0, 1}));
        QCOMPARE(s.refused(), 1);
        // An answer before hello is refused too.
        QVERIFY(s.connect("new", 0));
        QCOMPARE(s.receive("new", choose("q", 1), 0)->value("message").toString(), QStringLiteral("say hello first"));
        QCOMPARE(s.tally().answers, 2);
    }

    // A flood: a burst of 8 passes, the rest are dropped unread; a second
    // later 4 more pass. The other connection is not slowed.
    void flood()
    {
        ClassSession s("ABCDE");
        QVERIFY(!s.ask(choiceQuestion("q", 3, {1})));
        QVERIFY(s.connect("f", 0) && s.connect("calm", 0));
        int passed = 0;
        for (int i = 0; i < 50; ++i)
            passed += s.receive("f", hello(device(9)), 0).has_value();
        QCOMPARE(passed, 8);
        QCOMPARE(s.refused(), 42);
        passed = 0;
        for (int i = 0; i < 50; ++i)
            passed += s.receive("f", choose("q", 1), 1000).has_value();
        QCOMPARE(passed, 4);
        QVERIFY(s.receive("calm", hello(device(3)), 0));
        QCOMPARE(s.receive("calm", choose("q", 2), 0)->value("type").toString(), QStringLiteral("ack"));
        QCOMPARE(s.tally().counts, (std::vector<int>{0, 1, 1}));
        QVERIFY(!s.receive("nobody", hello(device(4)), 0)); // not connected
    }

    void limitsAndTheEnd()
    {
        SessionLimits limits;
        limits.maxConnections = 3;
        limits.maxSessionMs = 10'000;
        ClassSession s("ABCDE", limits, 0);
        QVERIFY(s.connect("a", 0) && s.connect("b", 0) && s.connect("c", 0));
        QVERIFY(!s.connect("d", 0));
        s.disconnect("c");
        QVERIFY(s.connect("d", 0));
        QVERIFY(!s.connect("e", 20'000)); // over
        const auto r = s.receive("a", hello(device(1)), 20'000);
        QCOMPARE(r->value("type").toString(), QStringLiteral("ended"));
        s.end();
        QCOMPARE(s.stateFor("a").value("type").toString(), QStringLiteral("ended"));
    }

    // The CSV: one row a question, counts only; a text a spreadsheet would
    // run as a formula is written as text; no device token anywhere.
    // The questions made from a lesson, their answers worked by hand:
    // Q row 1 = (1, 0), K = (1, 0), (0, 1), (2, 0): scores 1, 0, 2; over
    // sqrt(2): 0.7071, 0, 1.4142; e^: 2.0281, 1, 4.1133 (sum 7.1414):
    // weights 0.2840, 0.1400, 0.5760.
    void questionsFromALesson()
    {
        Scenario s;
        s.mode = InputMode::Direct;
        s.tokens = {"我", "爱", "你"};
        s.Q = Matrix{{1, 0}, {0, 1}, {1, 1}};
        s.K = Matrix{{1, 0}, {0, 1}, {2, 0}};
        s.V = Matrix{{1, 0}, {0, 1}, {1, 1}};
        Result<Trace> t = tryCompute(s);
        QVERIFY(t.ok());

        Result<SessionQuestion> w = winnerQuestion(s, t.value(), 0, 0);
        QVERIFY(w.ok());
        QCOMPARE(w.value().id, std::string("winner-h1-q1"));
        QCOMPARE(w.value().choices.size(), std::size_t(3));
        QCOMPARE(w.value().choices[2].at("en"), std::string("你"));
        QCOMPARE(w.value().answer, std::vector<int>{2});
        QVERIFY(w.value().text.at("en").find("“我”") != std::string::npos);
        QVERIFY(w.value().text.at("zh_CN").find("我") != std::string::npos);
        QVERIFY(w.value().image);

        Result<SessionQuestion> n = weightQuestion(s, t.value(), 0, 0, 0);
        QVERIFY(n.ok());
        QCOMPARE(n.value().kind, SessionQuestion::Kind::Number);
        const double e1 = std::exp(1 / std::sqrt(2.0)), e2 = std::exp(2 / std::sqrt(2.0));
        QVERIFY(std::fabs(n.value().number - e1 / (e1 + 1 + e2)) < 1e-12);
        QVERIFY(std::fabs(n.value().number - 0.2840) < 5e-5);
        // 0.28 is right (rounded), 0.29 is not.
        ClassSession session("ABCDE");
        QVERIFY(!session.ask(n.value()));
        QVERIFY(session.connect("a", 0) && session.connect("b", 0));
        session.receive("a", hello(device(1)), 0);
        session.receive("b", hello(device(2)), 0);
        session.receive("a", json({{"type", "answer"}, {"question", "weight-h1-q1-k1"}, {"number", 0.28}}), 0);
        session.receive("b", json({{"type", "answer"}, {"question", "weight-h1-q1-k1"}, {"number", 0.29}}), 0);
        QCOMPARE(session.tally().right, 1);

        // Nothing to sum below 1 with the ordinary softmax and no mask: "none".
        Result<SessionQuestion> r = rowSumQuestion(s, t.value(), 0);
        QVERIFY(r.ok());
        QCOMPARE(r.value().choices.size(), std::size_t(4));
        QCOMPARE(r.value().answer, std::vector<int>{3});
        // softmax_1: every row below 1.
        s.softmax = SoftmaxKind::PlusOne;
        QCOMPARE(rowSumQuestion(s, tryCompute(s).value(), 0).value().answer, (std::vector<int>{0, 1, 2}));
        // A causal mask applied after the softmax: the rows with a blocked key.
        s.softmax = SoftmaxKind::Standard;
        s.mask.causal = true;
        s.maskStage = MaskStage::AfterSoftmax;
        QCOMPARE(rowSumQuestion(s, tryCompute(s).value(), 0).value().answer, (std::vector<int>{0, 1}));
        // Causal before the softmax: the first query has one key, nothing to guess.
        s.maskStage = MaskStage::BeforeSoftmax;
        const Trace causal = tryCompute(s).value();
        QVERIFY(!winnerQuestion(s, causal, 0, 0).ok());
        QVERIFY(winnerQuestion(s, causal, 0, 1).ok());
        QCOMPARE(winnerQuestion(s, causal, 0, 1).value().choices.size(), std::size_t(2)); // blocked keys are not offered
        QVERIFY(!weightQuestion(s, causal, 0, 0, 2).ok());                                // a blocked key's weight is 0 by rule
        QVERIFY(!winnerQuestion(s, causal, 1, 0).ok());                                   // no head 2
        QVERIFY(!weightQuestion(s, causal, 0, 5, 0).ok());

        // Ties count: equal scores, every tied key right.
        Scenario tie = s;
        tie.mask.causal = false;
        tie.K = Matrix{{1, 0}, {1, 0}, {0, 1}};
        QCOMPARE(winnerQuestion(tie, tryCompute(tie).value(), 0, 0).value().answer, (std::vector<int>{0, 1}));

        // A quiz question as it is.
        QuizQuestion quiz;
        quiz.id = "seed000-q1";
        quiz.question = {{"en", "Why divide by sqrt(d_k)?"}, {"zh_CN", "为什么除以 √d_k？"}};
        quiz.choices = {{{"en", "a"}}, {{"en", "b"}}};
        quiz.answer = {1};
        const SessionQuestion qq = quizQuestion(quiz);
        QCOMPARE(qq.id, quiz.id);
        QCOMPARE(qq.text.at("zh_CN"), quiz.question.at("zh_CN"));
        QCOMPARE(qq.answer, quiz.answer);
        QVERIFY(!qq.image);
    }

    void csv()
    {
        ClassSession s("ABCDE");
        QVERIFY(!s.ask(choiceQuestion("=cmd|' /C calc'!A0", 3, {1})));
        QVERIFY(s.connect("a", 0));
        s.receive("a", hello(device(1)), 0);
        s.receive("a", choose("=cmd|' /C calc'!A0", 2), 0);
        s.reveal();
        QVERIFY(!s.ask(choiceQuestion("q2", 2, {0})));
        const QString csv = QString::fromUtf8(s.tallyCsv());
        const QStringList lines = csv.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2); // q2 has no answers and is not revealed yet
        QCOMPARE(lines[0], QStringLiteral("question,kind,answers,right,counts or values,question text,choices,right answer"));
        // The counts in the choices' order, then the words a teacher reads later.
        QCOMPARE(lines[1], QStringLiteral("\"'=cmd|' /C calc'!A0\",choice,1,0,\"0 0 1\",\"Which key gets the largest weight?\","
                                          "\"k1 | k2 | k3\",\"k2\""));
        QVERIFY(!csv.contains(QString::fromStdString(device(1))));
        // Each of OWASP's leading characters is made text; numbers stay numbers.
        for (const char *id : {"+1", "-1", "@SUM(A1)", "\tx", "\rx"}) {
            ClassSession t("ABCDE");
            QVERIFY(!t.ask(choiceQuestion(id, 2, {0})));
            t.reveal();
            QVERIFY2(QString::fromUtf8(t.tallyCsv()).contains(QStringLiteral("\"'") + QString::fromLatin1(id)), id);
        }
        SessionQuestion n;
        n.id = "n";
        n.kind = SessionQuestion::Kind::Number;
        n.text = {{"en", "x"}};
        ClassSession u("ABCDE");
        QVERIFY(!u.ask(n));
        QVERIFY(u.connect("a", 0));
        u.receive("a", hello(device(1)), 0);
        u.receive("a", json({{"type", "answer"}, {"question", "n"}, {"number", -0.5}}), 0);
        QVERIFY(u.tallyCsv().contains(",\"-0.5\""));
    }

    // Every refusal the rules can send has its Chinese words on the phone
    // page (student.js, ZH_ERRORS): a new one without them fails here.
    void everyRefusalHasChineseOnThePhone()
    {
        QFile rules(QStringLiteral(ATTN_TEST_SOURCE_DIR "/core/session/classsession.cpp"));
        QFile page(QStringLiteral(ATTN_TEST_SOURCE_DIR "/resources/classroom/student.js"));
        QVERIFY(rules.open(QIODevice::ReadOnly) && page.open(QIODevice::ReadOnly));
        const QString source = QString::fromUtf8(rules.readAll()), js = QString::fromUtf8(page.readAll());
        const QRegularExpression refusal(QStringLiteral("error\\(QStringLiteral\\(\"([^\"]+)\"\\)\\)"));
        int found = 0;
        for (auto it = refusal.globalMatch(source); it.hasNext(); ++found) {
            const QString message = it.next().captured(1);
            QVERIFY2(js.contains(QLatin1Char('\'') + message + QStringLiteral("': '")), qPrintable(message));
        }
        QVERIFY(found >= 10);
    }

    // One device a connection: a second hello with another token would be a
    // second vote; the number of devices in a session is capped.
    void oneDevicePerConnection()
    {
        SessionLimits limits;
        limits.maxConnections = 3;
        ClassSession s("ABCDE", limits);
        QVERIFY(!s.ask(choiceQuestion("q", 2, {0})));
        QVERIFY(s.connect("a", 0));
        QCOMPARE(s.receive("a", hello(device(1)), 0)->value("type").toString(), QStringLiteral("question"));
        QCOMPARE(s.receive("a", hello(device(1)), 0)->value("type").toString(), QStringLiteral("question")); // the same again: fine
        QCOMPARE(s.receive("a", hello(device(2)), 0)->value("type").toString(), QStringLiteral("error"));
        s.receive("a", choose("q", 1), 0);
        QCOMPARE(s.tally().answers, 1);
        // Six devices (twice the connections) over reconnections; the seventh is refused.
        for (int i = 2; i <= 6; ++i) {
            const std::string c = "c" + std::to_string(i);
            QVERIFY(s.connect(c, 1000 * i));
            QCOMPARE(s.receive(c, hello(device(i)), 1000 * i)->value("type").toString(), QStringLiteral("question"));
            s.disconnect(c);
        }
        QVERIFY(s.connect("c7", 9000));
        QCOMPARE(s.receive("c7", hello(device(7)), 9000)->value("type").toString(), QStringLiteral("error"));
        // A device seen before comes back.
        QCOMPARE(s.receive("c7", hello(device(3)), 9000)->value("type").toString(), QStringLiteral("question"));
    }
};

QTEST_GUILESS_MAIN(TestClassSession)
#include "test_classsession.moc"
