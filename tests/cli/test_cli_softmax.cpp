// softmax_1 on the command line and in the file: `--softmax standard|plus_one`
// on trace and grad (a bad value is status 2 and one line naming the
// option), and the scenario file's "softmax" key written and read back
// (absent: standard; an unknown name refused naming the key).

#include "attention.h"
#include "cli_run.h"
#include "lessons.h"
#include "scenario_json.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QTest>

using namespace attn;

namespace {

using Run = test::CliRun;
Run cli(const QStringList &args) { return test::runCliInProcess(args); }

} // namespace

class TestCliSoftmax : public QObject {
    Q_OBJECT

private slots:
    void traceAndGradTakeTheSoftmax()
    {
        const Run text = cli({"trace", "--preset", "seed000-basic", "--softmax", "plus_one"});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains(QStringLiteral("softmax_1 (plus_one)")), qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("goes to the sink: attending to nothing")), qPrintable(text.out));
        const Run json = cli({"trace", "--preset", "seed000-basic", "--softmax", "plus_one", "--format", "json"});
        QCOMPARE(json.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(o.value("settings").toObject().value("softmax").toString(), QStringLiteral("plus_one"));
        const Run standard = cli({"trace", "--preset", "seed000-basic", "--softmax", "standard", "--format", "json"});
        QCOMPARE(QJsonDocument::fromJson(standard.out.toUtf8()).object().value("settings").toObject().value("softmax").toString(),
                 QStringLiteral("standard"));
        const Run grad = cli({"grad", "--preset", "seed000-basic", "--loss", "attend:1", "--softmax", "plus_one"});
        QCOMPARE(grad.code, 0);
        QVERIFY2(grad.out.contains(QStringLiteral("softmax_1")), qPrintable(grad.out));
        for (const char *command : {"trace", "grad"}) {
            QStringList args{command, "--preset", "seed000-basic", "--softmax", "plus_two"};
            if (QLatin1String(command) == QLatin1String("grad"))
                args << "--loss" << "attend:1";
            const Run bad = cli(args);
            QCOMPARE(bad.code, 2);
            QVERIFY(bad.out.isEmpty());
            QCOMPARE(bad.err.trimmed().count(QLatin1Char('\n')), 0);
            QVERIFY2(bad.err.contains(QStringLiteral("--softmax: unknown value \"plus_two\"; expected one of standard, plus_one")),
                     qPrintable(bad.err));
        }
    }

    void fileRoundTrip()
    {
        Scenario s = std::get<Scenario>(loadLesson(QStringLiteral("seed000-basic")));
        QVERIFY(!scenarioToJson(s).contains("\"softmax\"")); // standard: not written
        s.softmax = SoftmaxKind::PlusOne;
        const QByteArray bytes = scenarioToJson(s);
        QVERIFY(bytes.contains("\"softmax\": \"plus_one\""));
        const ScenarioOrProblem back = scenarioFromJson(bytes);
        QVERIFY(std::holds_alternative<Scenario>(back));
        QVERIFY(std::get<Scenario>(back) == s);
        QCOMPARE(std::get<Scenario>(back).softmax, SoftmaxKind::PlusOne);

        QByteArray wrong = bytes;
        wrong.replace("\"plus_one\"", "\"plus_two\"");
        const ScenarioOrProblem refused = scenarioFromJson(wrong);
        QVERIFY(std::holds_alternative<Problem>(refused));
        QCOMPARE(QString::fromStdString(std::get<Problem>(refused).place), QStringLiteral("softmax"));
        QVERIFY2(std::get<Problem>(refused).message.find("plus_one") != std::string::npos,
                 std::get<Problem>(refused).message.c_str());
    }
};

QTEST_MAIN(TestCliSoftmax)
#include "test_cli_softmax.moc"
