// The teacher's side of a class session, in the window: Classroom ▸ Start a
// class session shows the code, the address and its QR code; asking which
// key wins hides the maps (and F7 cannot lift it) until the reveal; thirty
// WebSocket students' answers make the histogram, exactly; the reveal shows
// the row on the maps; Next asks the next row; a weight and a quiz
// question; the map a phone gets is the row's masked scores; the tallies
// saved as CSV; the end; and the window's --class-session.

#include "answerhistogram.h"
#include "classroommode.h"
#include "mainwindow.h"
#include "sessionpanel.h"
#include "stageviews.h"
#include "attn_test.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QWebSocket>

#include <memory>

using namespace attn;

namespace {

struct Phone {
    QList<QJsonObject> received;
    std::unique_ptr<QWebSocket> socket = std::make_unique<QWebSocket>(); // last: destroyed first
    void send(const QJsonObject &o) { socket->sendTextMessage(QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact))); }
    QString lastQuestion() const
    {
        for (auto it = received.rbegin(); it != received.rend(); ++it)
            if (it->value("type").toString() == QLatin1String("question"))
                return it->value("question").toString();
        return {};
    }
};

std::vector<std::unique_ptr<Phone>> phones(quint16 port, const QString &code, int n)
{
    std::vector<std::unique_ptr<Phone>> out;
    for (int i = 0; i < n; ++i) {
        auto p = std::make_unique<Phone>();
        Phone *raw = p.get();
        QObject::connect(raw->socket.get(), &QWebSocket::textMessageReceived, [raw](const QString &m) {
            raw->received << QJsonDocument::fromJson(m.toUtf8()).object();
        });
        QObject::connect(raw->socket.get(), &QWebSocket::connected, [raw, i] {
            raw->send({{"type", "hello"}, {"device", QStringLiteral("panel-test-phone-%1").arg(i, 3, 10, QLatin1Char('0'))}});
        });
        raw->socket->open(QUrl(QStringLiteral("ws://127.0.0.1:%1/ws?code=%2").arg(port).arg(code)));
        out.push_back(std::move(p));
    }
    return out;
}

QAction *findAction(MainWindow &w, const QString &objectName)
{
    for (QAction *a : w.menuBar()->findChildren<QAction *>())
        if (a->objectName() == objectName)
            return a;
    return nullptr;
}

} // namespace

class TestSessionPanel : public QObject {
    Q_OBJECT

    QTemporaryDir m_settings;

private slots:
    void initTestCase()
    {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
    }

    void askRevealNextInTheWindow()
    {
        MainWindow w;
        QVERIFY(!w.openLesson(QStringLiteral("multihead")));
        QVERIFY(w.document()->trace().heads[0].weights.rows() >= 3);
        w.resize(1600, 1000);
        w.show();
        ClassroomMode *mode = w.classroomMode();
        SessionPanel *panel = mode->sessionPanel();
        QVERIFY(!mode->sessionDock()->isVisible());
        QVERIFY(!mode->startClassSession(0, true, QStringLiteral("TEACH")));
        QVERIFY(mode->sessionDock()->isVisible());
        QCOMPARE(panel->joinCode(), QStringLiteral("TEACH"));
        QCOMPARE(panel->findChild<QLabel *>("joinCode")->text(), QStringLiteral("TEACH"));
        QVERIFY(!panel->findChild<QLabel *>("qrCode")->pixmap().isNull());
        QVERIFY(panel->studentUrl().endsWith(QStringLiteral(":%1/?code=TEACH").arg(panel->server()->port())));
        // The teacher's choice of the phones' language goes into the address and its QR code.
        auto *phoneLanguage = panel->findChild<QComboBox *>("phoneLanguage");
        QVERIFY(phoneLanguage);
        const QImage qrBefore = panel->findChild<QLabel *>("qrCode")->pixmap().toImage();
        phoneLanguage->setCurrentIndex(2);
        QVERIFY(panel->studentUrl().endsWith(QStringLiteral("/?code=TEACH&lang=zh_CN")));
        QVERIFY(panel->findChild<QLabel *>("studentAddress")->text().endsWith(QStringLiteral("&lang=zh_CN")));
        QVERIFY(panel->findChild<QLabel *>("qrCode")->pixmap().toImage() != qrBefore);
        phoneLanguage->setCurrentIndex(0);
        QLabel *status = w.statusBar()->findChild<QLabel *>("sessionStatus");
        QVERIFY(status && status->isVisible() && status->text().contains("TEACH"));
        QVERIFY(panel->countText().isEmpty()); // nothing asked: the count of students is said once, above

        auto class30 = phones(panel->server()->port(), "TEACH", 30);
        QTRY_COMPARE_WITH_TIMEOUT(panel->server()->students(), 30, 20000);
        QTRY_VERIFY(status->text().contains("30"));

        // Which key wins for the first query: the maps hide, F7 is held.
        w.document()->setCurrentQuery(0);
        QVERIFY(!panel->ask(SessionPanel::Ask::Winner));
        QVERIFY(panel->questionOpen());
        QAction *hide = nullptr;
        for (QAction *a : w.findChildren<QAction *>())
            if (a->shortcut() == QKeySequence(Qt::Key_F7))
                hide = a;
        QVERIFY(hide);
        QVERIFY(hide->isChecked());
        QVERIFY(!hide->isEnabled());
        for (StageView *v : w.findChildren<StageView *>())
            if (v->stage() == Stage::Weights)
                QVERIFY(v->answersHidden());

        const SessionQuestion q = *panel->server()->session().current();
        for (auto &p : class30)
            QTRY_COMPARE(p->lastQuestion(), QString::fromStdString(q.id));
        // Phone i answers i mod choices; the histogram is that, exactly.
        std::vector<int> expected(q.choices.size(), 0);
        for (std::size_t i = 0; i < class30.size(); ++i) {
            const int c = int(i % q.choices.size());
            class30[i]->send({{"type", "answer"}, {"question", QString::fromStdString(q.id)}, {"choice", c}});
            ++expected[std::size_t(c)];
        }
        QTRY_COMPARE_WITH_TIMEOUT(panel->server()->session().tally().answers, 30, 20000);
        // The histogram follows within a frame.
        auto histogramTotal = [panel] {
            int n = 0;
            for (const AnswerBar &b : panel->histogram()->bars())
                n += b.count;
            return n;
        };
        QTRY_COMPARE(histogramTotal(), 30);
        const auto &bars = panel->histogram()->bars();
        QCOMPARE(bars.size(), q.choices.size());
        for (std::size_t c = 0; c < bars.size(); ++c) {
            QCOMPARE(bars[c].count, expected[c]);
            QCOMPARE(bars[c].label, QString::fromStdString(q.choices[c].at("en")));
        }
        QVERIFY(!panel->histogram()->revealed());
        QVERIFY(panel->countText().contains("30"));

        // The phone's map: the row's masked scaled scores, one row, as a PNG.
        const QImage map = QImage::fromData(panel->mapImage(), "PNG");
        QCOMPARE(map.width(), 840);
        QCOMPARE(map.height(), 380);

        // The reveal: maps back, F7 free, the row selected, ticks on the histogram.
        panel->reveal();
        QVERIFY(!panel->questionOpen());
        QVERIFY(!hide->isChecked());
        QVERIFY(hide->isEnabled());
        QCOMPARE(w.document()->currentQuery(), 0);
        QVERIFY(panel->histogram()->revealed());
        QCOMPARE(panel->histogram()->bars()[std::size_t(q.answer.front())].right, true);
        QVERIFY(panel->countText().contains(QStringLiteral("right: %1").arg(expected[std::size_t(q.answer.front())])));

        // Next: the next row's question, to every phone.
        QVERIFY(!panel->next());
        const SessionQuestion *q2 = panel->server()->session().current();
        QCOMPARE(QString::fromStdString(q2->id), QStringLiteral("winner-h1-q2"));
        QCOMPARE(w.document()->currentQuery(), 1);
        for (auto &p : class30)
            QTRY_COMPARE(p->lastQuestion(), QStringLiteral("winner-h1-q2"));
        QVERIFY(panel->histogram()->bars().size() == q2->choices.size());

        // A weight to two decimals: the number bars.
        QVERIFY(!panel->ask(SessionPanel::Ask::Weight, 0));
        const SessionQuestion *q3 = panel->server()->session().current();
        QCOMPARE(q3->kind, SessionQuestion::Kind::Number);
        QCOMPARE(q3->number, w.document()->trace().heads[0].weights(1, 0));
        for (auto &p : class30)
            QTRY_COMPARE(p->lastQuestion(), QString::fromStdString(q3->id));
        for (int i = 0; i < 10; ++i)
            class30[std::size_t(i)]->send({{"type", "answer"}, {"question", QString::fromStdString(q3->id)}, {"number", i < 6 ? 0.5 : 0.25}});
        QTRY_COMPARE(panel->server()->session().tally().answers, 10);
        QTRY_COMPARE(histogramTotal(), 10);
        QCOMPARE(panel->histogram()->bars().size(), std::size_t(2));
        QCOMPARE(panel->histogram()->bars()[0].count, 4); // 0.25
        QCOMPARE(panel->histogram()->bars()[1].count, 6); // 0.50

        // Another lesson, the session goes on; its quiz, without a map.
        QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
        QVERIFY(panel->running());
        QVERIFY(!w.document()->scenario().quiz.empty());
        QVERIFY(!panel->ask(SessionPanel::Ask::Quiz, -1, 0));
        QCOMPARE(panel->server()->session().current()->id, w.document()->scenario().quiz[0].id);
        QVERIFY(panel->mapImage().isEmpty());
        QVERIFY(!hide->isChecked()); // a quiz question hides nothing

        // The tallies: every question with answers, anonymous.
        QTemporaryDir dir;
        const QString csv = dir.filePath("tallies.csv");
        QVERIFY(!panel->saveTallies(csv));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.startsWith("question,kind,answers,right"));
        QVERIFY(text.contains("\"winner-h1-q1\",choice,30,"));
        QVERIFY(text.contains(",number,10,"));
        QVERIFY(!text.contains("panel-test-phone"));
        QVERIFY(panel->saveTallies(dir.filePath("no/such/folder/t.csv")).has_value());

        // The end: phones told, the dock back to its start page, nothing listening.
        panel->stop();
        QVERIFY(!panel->running());
        for (auto &p : class30)
            QTRY_VERIFY(!p->received.isEmpty() && p->received.last().value("type").toString() == QLatin1String("ended"));
        QVERIFY(!status->isVisible());
        QVERIFY(hide->isEnabled());
    }

    void menuStartsASession()
    {
        MainWindow w;
        QVERIFY(!w.openLesson(QStringLiteral("causal")));
        w.show();
        QAction *start = findAction(w, "classSessionAction");
        QVERIFY(start);
        // Whatever port is free from 8642 on: the menu never fails because one is taken.
        start->trigger();
        SessionPanel *panel = w.classroomMode()->sessionPanel();
        QVERIFY(panel->running());
        QVERIFY(panel->server()->port() >= ClassServer::kDefaultPort);
        QCOMPARE(panel->joinCode().size(), 5);
        panel->stop();
    }

    void numberBars()
    {
        // Few distinct values: one bar each, rounded to the question's decimals.
        auto bars = AnswerHistogram::numberBars({0.25, 0.28, 0.28, 0.281, 0.5}, 0.2840, 0.005, 2);
        QCOMPARE(bars.size(), std::size_t(3));
        QCOMPARE(bars[0].label, QStringLiteral("0.25"));
        QCOMPARE(bars[1].label, QStringLiteral("0.28"));
        QCOMPARE(bars[1].count, 3);
        QVERIFY(bars[1].right && !bars[0].right && !bars[2].right);
        // Many: eight equal ranges from the least to the largest, every answer in one.
        std::vector<double> many;
        for (int i = 0; i <= 100; ++i)
            many.push_back(i / 100.0);
        bars = AnswerHistogram::numberBars(many, 0.5, 0.005, 2);
        QCOMPARE(bars.size(), std::size_t(8));
        int total = 0;
        for (const AnswerBar &b : bars)
            total += b.count;
        QCOMPARE(total, 101);
        QCOMPARE(bars.front().label, QStringLiteral("0.00 – 0.12")); // 0.125 as printf writes it (half to even)
        QVERIFY(bars[3].right || bars[4].right);
        QCOMPARE(AnswerHistogram::numberBars({-0.5}, 0, 0.1, 2).front().label, QStringLiteral("−0.50"));
    }

    void windowStartsWithASession()
    {
        // The launcher's line: the window starts with a session and prints the address.
        QTemporaryDir dir;
        QProcess app;
        app.setProcessEnvironment(test::offscreenEnvironment());
        app.start(test::binaryDir() + QStringLiteral("/bin/attention-lab"),
                  {"--lesson", "seed000-basic", "--class-session", "--port", "0", "--join-code", "TAUGHT", "--show", "session",
                   "--screenshot", dir.filePath("s.png")});
        QVERIFY(app.waitForFinished(60000));
        QCOMPARE(app.exitCode(), 0);
        const QString err = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(err.contains(QRegularExpression("class session at http://[0-9.]+:[0-9]+/\\?code=TAUGHT")), qPrintable(err));
        QVERIFY(QFile::exists(dir.filePath("s.png")));
    }
};

QTEST_MAIN(TestSessionPanel)
#include "test_sessionpanel.moc"
