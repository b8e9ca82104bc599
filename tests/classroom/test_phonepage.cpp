// The student page in a real browser: the teacher's window starts a class
// session on loopback and asks which key wins; headless Chromium (Debian's
// `chromium`), driven over its DevTools protocol, opens the page in a
// phone-sized viewport, taps an answer as a finger would, and the answer
// reaches the teacher's histogram. Screenshots of the phone in English and
// Chinese, before and after the reveal, are written to
// build/test-output/phone-*.png to be looked at.

#include "answerhistogram.h"
#include "classroommode.h"
#include "lessons.h"
#include "mainwindow.h"
#include "sessionpanel.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QWebSocket>

#include <memory>

using namespace attn;

namespace {

// A headless Chromium and one page of it, spoken to over the DevTools protocol.
class Browser {
public:
    bool start(QString *why)
    {
        const QString exe = QStandardPaths::findExecutable(QStringLiteral("chromium"));
        if (exe.isEmpty()) {
            *why = QStringLiteral("chromium is not installed (scripts/setup installs it)");
            return false;
        }
        m_process.setProgram(exe);
        m_process.setArguments({QStringLiteral("--headless=new"), QStringLiteral("--no-sandbox"), QStringLiteral("--disable-gpu"),
                                QStringLiteral("--disable-dev-shm-usage"), QStringLiteral("--no-first-run"),
                                QStringLiteral("--remote-debugging-port=0"), QStringLiteral("--remote-allow-origins=*"), QStringLiteral("--user-data-dir=") + m_profile.path(),
                                QStringLiteral("--lang=en-US"), QStringLiteral("about:blank")});
        // Its own log (D-Bus, GPU) is noise here.
        m_process.setStandardOutputFile(QProcess::nullDevice());
        m_process.setStandardErrorFile(QProcess::nullDevice());
        m_process.start();
        if (!m_process.waitForStarted(10000)) {
            *why = QStringLiteral("chromium did not start");
            return false;
        }
        // Chromium writes the port it took, and the browser's socket path, here.
        // The file can exist before its first line is whole (a run under load
        // read it empty and took port 0), so the wait is for that line.
        const QString portFile = m_profile.filePath(QStringLiteral("DevToolsActivePort"));
        int port = 0;
        const bool written = QTest::qWaitFor([&] {
            QFile f(portFile);
            if (!f.open(QIODevice::ReadOnly))
                return false;
            const QByteArray line = f.readLine();
            port = line.endsWith('\n') ? line.trimmed().toInt() : 0;
            return port > 0;
        }, 30000);
        if (!written) {
            *why = QStringLiteral("chromium wrote no DevToolsActivePort");
            return false;
        }
        // The page's socket, from /json/list.
        QTcpSocket http;
        http.connectToHost(QHostAddress::LocalHost, quint16(port));
        if (!http.waitForConnected(5000)) {
            *why = QStringLiteral("cannot reach chromium's DevTools port");
            return false;
        }
        // The socket's address in the answer is built from this Host.
        http.write("GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port) + "\r\nConnection: close\r\n\r\n");
        QByteArray all;
        while (http.waitForReadyRead(5000))
            all += http.readAll();
        all += http.readAll();
        const QJsonArray targets = QJsonDocument::fromJson(all.mid(all.indexOf("\r\n\r\n") + 4)).array();
        QString url;
        for (const QJsonValue &t : targets)
            if (t.toObject().value("type").toString() == QLatin1String("page"))
                url = t.toObject().value("webSocketDebuggerUrl").toString();
        if (url.isEmpty()) {
            *why = QStringLiteral("chromium has no page");
            return false;
        }
        QObject::connect(&m_socket, &QWebSocket::textMessageReceived, [this](const QString &m) {
            const QJsonObject o = QJsonDocument::fromJson(m.toUtf8()).object();
            if (o.contains("id"))
                m_replies[o.value("id").toInt()] = o;
            else
                m_events << o.value("method").toString();
        });
        m_socket.open(QUrl(url));
        if (!QTest::qWaitFor([this] { return m_socket.state() == QAbstractSocket::ConnectedState; }, 10000)) {
            *why = QStringLiteral("cannot open chromium's page socket %1: %2").arg(url, m_socket.errorString());
            return false;
        }
        return true;
    }

    ~Browser()
    {
        m_socket.close();
        m_process.kill();
        m_process.waitForFinished(5000);
    }

    // One command; its result, or an empty object after 20 s.
    QJsonObject call(const QString &method, const QJsonObject &params = {})
    {
        const int id = ++m_id;
        m_socket.sendTextMessage(QString::fromUtf8(
            QJsonDocument(QJsonObject{{"id", id}, {"method", method}, {"params", params}}).toJson(QJsonDocument::Compact)));
        if (!QTest::qWaitFor([this, id] { return m_replies.contains(id); }, 20000))
            return {}; // callers check what they asked for
        return m_replies.take(id).value("result").toObject();
    }
    QJsonValue evaluate(const QString &expression)
    {
        return call("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}}).value("result").toObject().value("value");
    }
    // Until `expression` is true in the page, or 20 s.
    bool waitFor(const QString &expression)
    {
        // Each evaluation is a round trip that runs the event loop.
        return QTest::qWaitFor([&] { return evaluate(expression).toBool(); }, 20000);
    }
    // A finger's tap at the centre of the element `selector` names.
    bool tap(const QString &selector)
    {
        const QJsonObject r = evaluate(QStringLiteral("(() => { const e = document.querySelector(%1); if (!e) return null; "
                                                      "e.scrollIntoView({block: 'center'}); const b = e.getBoundingClientRect(); "
                                                      "return {x: b.x + b.width / 2, y: b.y + b.height / 2}; })()")
                                           .arg(QString::fromUtf8(QJsonDocument(QJsonArray{selector}).toJson(QJsonDocument::Compact)).mid(1).chopped(1)))
                                  .toObject();
        if (r.isEmpty())
            return false;
        const QJsonArray point{QJsonObject{{"x", r.value("x")}, {"y", r.value("y")}}};
        call("Input.dispatchTouchEvent", {{"type", "touchStart"}, {"touchPoints", point}});
        call("Input.dispatchTouchEvent", {{"type", "touchEnd"}, {"touchPoints", QJsonArray()}});
        return true;
    }
    bool screenshot(const QString &path)
    {
        const QByteArray png = QByteArray::fromBase64(call("Page.captureScreenshot", {{"format", "png"}}).value("data").toString().toLatin1());
        QFile f(path);
        return !png.isEmpty() && f.open(QIODevice::WriteOnly) && f.write(png) == png.size();
    }

private:
    QTemporaryDir m_profile;
    QProcess m_process;
    QWebSocket m_socket;
    int m_id = 0;
    QMap<int, QJsonObject> m_replies;
    QStringList m_events;
};

} // namespace

class TestPhonePage : public QObject {
    Q_OBJECT

    QTemporaryDir m_settings;

private slots:
    void initTestCase()
    {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
    }

    void answerFromAPhoneReachesTheHistogram()
    {
        MainWindow w;
        QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
        w.resize(1400, 900);
        w.show();
        SessionPanel *panel = w.classroomMode()->sessionPanel();
        QVERIFY(!w.classroomMode()->startClassSession(0, true, QStringLiteral("PHN42")));
        QVERIFY(panel->running());
        QVERIFY(w.classroomMode()->sessionDock()->isVisible());
        w.document()->setCurrentQuery(0);
        QVERIFY(!panel->ask(SessionPanel::Ask::Winner));
        QVERIFY(panel->questionOpen());
        const SessionQuestion *q = panel->server()->session().current();
        QVERIFY(q && q->choices.size() >= 2);

        Browser browser;
        QString why;
        if (!browser.start(&why))
            QFAIL(qPrintable(why));
        // An iPhone-sized portrait screen, touch, at twice the pixels.
        browser.call("Emulation.setDeviceMetricsOverride",
                     {{"width", 390}, {"height", 844}, {"deviceScaleFactor", 2}, {"mobile", true}});
        browser.call("Emulation.setTouchEmulationEnabled", {{"enabled", true}, {"maxTouchPoints", 5}});
        // The bare address, typed without the code: the page asks for it;
        // typed in lower case, it joins.
        browser.call("Page.navigate", {{"url", QStringLiteral("http://127.0.0.1:%1/").arg(panel->server()->port())}});
        QVERIFY2(browser.waitFor("!document.getElementById('join').hidden"), "no box for the code");
        QVERIFY(browser.evaluate("document.getElementById('msg').textContent").toString().contains("join code"));
        const QDir shots(QStringLiteral(ATTN_TEST_BINARY_DIR "/test-output"));
        QDir().mkpath(shots.path());
        QVERIFY(browser.screenshot(shots.filePath("phone-en-code.png")));
        QVERIFY(browser.tap("#codeinput"));
        browser.call("Input.insertText", {{"text", QStringLiteral("phn42")}});
        QVERIFY(browser.tap("#joinbtn"));
        QVERIFY2(browser.waitFor("document.querySelectorAll('#choices button').length > 1"), "the question did not reach the page");
        QVERIFY(browser.waitFor("document.getElementById('qtext').textContent.includes('largest weight')"));
        QVERIFY(browser.waitFor("(() => { const i = document.getElementById('qimg'); return !i.hidden && i.complete && i.naturalWidth > 0; })()"));
        QTRY_COMPARE_WITH_TIMEOUT(panel->server()->students(), 1, 20000);

        const QDir out(QStringLiteral(ATTN_TEST_BINARY_DIR "/test-output"));
        QDir().mkpath(out.path());
        QVERIFY(browser.screenshot(out.filePath("phone-en-question.png")));
        // The second choice, tapped: it reaches the teacher's histogram.
        QVERIFY(browser.tap("#choices button:nth-child(2)"));
        QTRY_COMPARE_WITH_TIMEOUT(panel->server()->session().tally().answers, 1, 20000);
        QCOMPARE(panel->server()->session().tally().counts[1], 1);
        QTRY_COMPARE(panel->histogram()->bars().at(1).count, 1); // within a frame
        QVERIFY(browser.waitFor("document.getElementById('note').textContent.length > 0"));
        QVERIFY(browser.screenshot(out.filePath("phone-en-answered.png")));

        // The reveal: on the phone, the right answer and its own.
        panel->reveal();
        QVERIFY(!panel->questionOpen());
        QVERIFY(browser.waitFor("!document.getElementById('result').hidden"));
        const QString right = browser.evaluate("document.getElementById('rightline').textContent").toString();
        const QString rightKey = QString::fromStdString(q->choices[std::size_t(q->answer.front())].at("en"));
        QVERIFY2(right.contains(rightKey), qPrintable(right));
        QVERIFY(browser.screenshot(out.filePath("phone-en-revealed.png")));

        // Chinese: the phone's own toggle; a weight to two decimals arrives in it,
        // typed as a Chinese keyboard types it (full-width digits, "。").
        QVERIFY(browser.tap("#lang"));
        QVERIFY(!panel->ask(SessionPanel::Ask::Weight, 0));
        const double weight = panel->server()->session().current()->number;
        QVERIFY(browser.waitFor("document.getElementById('qtext').textContent.includes('权重')"));
        QVERIFY(browser.waitFor("!document.getElementById('numform').hidden"));
        QVERIFY(browser.waitFor("(() => { const i = document.getElementById('qimg'); return !i.hidden && i.complete && i.naturalWidth > 0; })()"));
        QVERIFY(browser.tap("#num"));
        browser.call("Input.insertText", {{"text", QStringLiteral("０。７７")}});
        QVERIFY(browser.tap("#send"));
        QTRY_COMPARE_WITH_TIMEOUT(panel->server()->session().tally().answers, 1, 20000);
        QCOMPARE(panel->server()->session().tally().numbers, std::vector<double>{0.77});
        QCOMPARE(panel->server()->session().tally().right, std::fabs(0.77 - weight) <= 0.005 ? 1 : 0);
        QTRY_VERIFY(!panel->histogram()->bars().empty());
        QCOMPARE(panel->histogram()->bars().front().label, QStringLiteral("0.77"));
        QVERIFY(browser.screenshot(out.filePath("phone-zh-answered.png")));
        panel->reveal();
        QVERIFY(browser.waitFor("!document.getElementById('result').hidden"));
        QVERIFY(browser.screenshot(out.filePath("phone-zh-revealed.png")));

        // A lesson file's text is shown as text: markup in a question and its
        // choices creates no element and runs nothing.
        SessionQuestion hostile;
        hostile.id = "hostile";
        hostile.text = {{"en", "<img src=x onerror=\"window.pwned=1\"><b>bold?</b>"}, {"zh_CN", "<script>window.pwned=2</script>"}};
        hostile.choices = {{{"en", "<i>a</i>"}}, {{"en", "<svg onload=\"window.pwned=3\">"}}};
        hostile.answer = {0};
        QVERIFY(!panel->server()->ask(hostile));
        QVERIFY(browser.waitFor("document.querySelectorAll('#choices button').length === 2"));
        QVERIFY(browser.tap("#lang")); // back to English
        QVERIFY(browser.waitFor("document.getElementById('qtext').textContent.includes('<img src=x')"));
        QCOMPARE(browser.evaluate("document.querySelectorAll('#qtext *, #choices img, #choices svg, #choices i').length").toInt(), 0);
        QVERIFY(browser.evaluate("document.getElementById('choices').textContent.includes('<svg onload')").toBool());
        QVERIFY(browser.evaluate("typeof window.pwned === 'undefined'").toBool());

        // End: the phone is told.
        panel->stop();
        QVERIFY(browser.waitFor("document.getElementById('msg').textContent.length > 0 && document.getElementById('q').hidden"));
        QVERIFY(browser.screenshot(out.filePath("phone-zh-ended.png")));
        for (const char *name : {"phone-en-question.png", "phone-en-answered.png", "phone-en-revealed.png", "phone-zh-answered.png"}) {
            const QImage img(out.filePath(name));
            QCOMPARE(img.width(), 780); // 390 CSS pixels at 2x
            // Not an empty page: many colours.
            QSet<QRgb> colours;
            for (int y = 0; y < img.height(); y += 7)
                for (int x = 0; x < img.width(); x += 7)
                    colours.insert(img.pixel(x, y));
            QVERIFY2(colours.size() > 20, name);
        }
    }
};

QTEST_MAIN(TestPhonePage)
#include "test_phonepage.moc"
