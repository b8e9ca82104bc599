// The class session on the network (app/session): a server on loopback,
// 200 WebSocket students answering at random over three questions with
// every tally checked exactly; the page, its script and the map served
// only with the join code, nothing else (no path from disk); malformed,
// oversized, wrong-code and flooding clients refused without disturbing the
// others; the next free port; a clean stop that tells every phone and
// leaves nothing listening; the QR code of the address.

#include "classserver.h"
#include "qrcode.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTcpSocket>
#include <QTest>
#include <QWebSocket>

#include <map>
#include <memory>
#include <random>

using namespace attn;

namespace {

constexpr const char *kCode = "KQ7MZ";

// One phone: a socket, its device token, the messages it got, how it closed.
struct Student {
    QString device;
    QList<QJsonObject> received;
    int closeCode = -1;
    bool open = false;
    // Last: destroyed first, so that its signals on closing find the rest alive.
    std::unique_ptr<QWebSocket> socket = std::make_unique<QWebSocket>();

    QList<QJsonObject> ofType(const QString &type) const
    {
        QList<QJsonObject> out;
        for (const QJsonObject &m : received)
            if (m.value("type").toString() == type)
                out << m;
        return out;
    }
    void send(const QJsonObject &o) { socket->sendTextMessage(QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact))); }
};

std::unique_ptr<Student> makeStudent(quint16 port, const QString &code, int index, const QString &path = "/ws")
{
    auto s = std::make_unique<Student>();
    s->device = QStringLiteral("device-%1-abcdefghij").arg(index, 4, 10, QLatin1Char('0'));
    Student *raw = s.get();
    QObject::connect(raw->socket.get(), &QWebSocket::textMessageReceived, [raw](const QString &m) {
        raw->received << QJsonDocument::fromJson(m.toUtf8()).object();
    });
    QObject::connect(raw->socket.get(), &QWebSocket::connected, [raw] {
        raw->open = true;
        raw->send({{"type", "hello"}, {"device", raw->device}});
    });
    QObject::connect(raw->socket.get(), &QWebSocket::disconnected, [raw] {
        raw->open = false;
        raw->closeCode = raw->socket->closeCode();
    });
    raw->socket->open(QUrl(QStringLiteral("ws://127.0.0.1:%1%2?code=%3").arg(port).arg(path, code)));
    return s;
}

SessionQuestion choiceQuestion(const std::string &id, int choices, std::vector<int> answer, bool image = false)
{
    SessionQuestion q;
    q.id = id;
    q.text = {{"en", "Which key gets the largest weight for 我?"}, {"zh_CN", "“我”给哪个键的权重最大？"}};
    for (int c = 0; c < choices; ++c)
        q.choices.push_back({{"en", "k" + std::to_string(c + 1)}});
    q.answer = std::move(answer);
    q.image = image;
    return q;
}

SessionQuestion numberQuestion(const std::string &id, double value)
{
    SessionQuestion q;
    q.id = id;
    q.kind = SessionQuestion::Kind::Number;
    q.text = {{"en", "The weight of k1, to two decimals"}};
    q.number = value;
    q.tolerance = 0.005;
    return q;
}

// A raw HTTP exchange: the status line's code and the body.
struct HttpReply {
    int status = 0;
    QByteArray headers, body;
    bool closed = false;
};

// The server answers in this thread's event loop, so the client waits by
// running it, never by blocking.
HttpReply rawGet(quint16 port, const QByteArray &request)
{
    QByteArray all;
    bool closed = false;
    QTcpSocket s; // after what its signals write: destroyed first
    QObject::connect(&s, &QTcpSocket::readyRead, [&] { all += s.readAll(); });
    QObject::connect(&s, &QTcpSocket::disconnected, [&] { closed = true; });
    QObject::connect(&s, &QTcpSocket::errorOccurred, [&] { closed = true; });
    QObject::connect(&s, &QTcpSocket::connected, [&] { s.write(request); });
    s.connectToHost(QHostAddress::LocalHost, port);
    HttpReply r;
    auto complete = [&] {
        const int end = all.indexOf("\r\n\r\n");
        if (end < 0)
            return false;
        for (const QByteArray &line : all.left(end).split('\n'))
            if (line.toLower().startsWith("content-length:"))
                return all.size() - end - 4 >= line.mid(15).trimmed().toInt();
        return false;
    };
    QElapsedTimer clock;
    clock.start();
    while (!closed && !complete() && clock.elapsed() < 20000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    r.closed = closed;
    const int end = all.indexOf("\r\n\r\n");
    if (end >= 0) {
        r.headers = all.left(end);
        r.body = all.mid(end + 4);
        r.status = all.split(' ').value(1).toInt();
    }
    return r;
}

// A client that speaks the WebSocket protocol by hand: no automatic pong, no reading unless asked.
struct RawWebSocket {
    QByteArray received;
    bool closed = false;
    std::unique_ptr<QTcpSocket> socket = std::make_unique<QTcpSocket>(); // last: destroyed first
};

std::unique_ptr<RawWebSocket> rawWebSocket(quint16 port, const QByteArray &code, bool read = true)
{
    auto w = std::make_unique<RawWebSocket>();
    RawWebSocket *raw = w.get();
    if (read)
        QObject::connect(raw->socket.get(), &QTcpSocket::readyRead, [raw] { raw->received += raw->socket->readAll(); });
    QObject::connect(raw->socket.get(), &QTcpSocket::disconnected, [raw] { raw->closed = true; });
    raw->socket->setReadBufferSize(read ? 0 : 1); // not reading: the kernel's window fills
    raw->socket->connectToHost(QHostAddress::LocalHost, port);
    raw->socket->write("GET /ws?code=" + code + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
    return w;
}

// A client's frame: FIN, the opcode, masked (RFC 6455 5.3).
QByteArray clientFrame(quint8 opcode, const QByteArray &payload)
{
    QByteArray f;
    f.append(char(0x80 | opcode));
    if (payload.size() < 126) {
        f.append(char(0x80 | payload.size()));
    } else {
        f.append(char(0x80 | 126));
        f.append(char(payload.size() >> 8));
        f.append(char(payload.size() & 0xff));
    }
    const char key[4] = {0x11, 0x22, 0x33, 0x44};
    f.append(key, 4);
    for (int i = 0; i < payload.size(); ++i)
        f.append(char(payload[i] ^ key[i % 4]));
    return f;
}

HttpReply get(quint16 port, const QByteArray &target)
{
    return rawGet(port, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
}

} // namespace

class TestClassServer : public QObject {
    Q_OBJECT

    std::unique_ptr<ClassServer> startServer(SessionLimits limits = {}, ClassServer::Options o = {})
    {
        auto server = std::make_unique<ClassServer>();
        o.address = QHostAddress::LocalHost;
        o.port = 0; // any free port: tests run side by side
        o.exactPort = true;
        o.joinCode = kCode;
        o.limits = limits;
        const auto problem = server->start(o);
        if (problem)
            qWarning("%s", problem->toString().c_str());
        return server;
    }

private slots:
    void servesOnlyItsOwnPagesWithTheCode()
    {
        auto server = startServer();
        QVERIFY(server->running());
        const quint16 port = server->port();
        QVERIFY(port > 0);
        QCOMPARE(server->joinCode(), QString(kCode));
        QCOMPARE(server->studentUrl("192.168.1.20").toString(), QStringLiteral("http://192.168.1.20:%1/?code=KQ7MZ").arg(port));

        HttpReply page = get(port, "/?code=KQ7MZ");
        QCOMPARE(page.status, 200);
        QVERIFY(page.body.contains("<script src=\"student.js\"></script>"));
        QVERIFY(page.headers.contains("Content-Security-Policy: default-src 'none'"));
        QVERIFY(page.headers.contains("Cache-Control: no-store"));
        // The code is typed in lower case on some phones.
        QCOMPARE(get(port, "/?code=kq7mz").status, 200);
        // Without a code the page asks for one (it holds no secret); a wrong
        // one is 403; the question, its map and the socket need the right one.
        const HttpReply bare = get(port, "/");
        QCOMPARE(bare.status, 200);
        QVERIFY(bare.body.contains("id=\"join\""));
        QCOMPARE(get(port, "/?code=").status, 200);
        QCOMPARE(get(port, "/?code=KQ7MA").status, 403);
        QCOMPARE(get(port, "/student.js").status, 200);
        QVERIFY(get(port, "/student.js").body.contains("new WebSocket"));
        QCOMPARE(get(port, "/student.css").status, 200);
        // Nothing from disk, whatever the path.
        for (const QByteArray target : {"/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/student.html",
                                        "/classroom/student.js", "/index.html?code=KQ7MZ", "//etc/passwd",
                                        "/favicon.ico", "/student.js/../../etc/passwd"}) {
            const HttpReply r = get(port, target);
            QVERIFY2(r.status == 404 || r.status == 400, target.constData());
            QVERIFY2(!r.body.contains("root:"), target.constData());
        }
        // Only GET (and HEAD).
        HttpReply post = rawGet(port, "POST /?code=KQ7MZ HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
        QCOMPARE(post.status, 405);
        // No map without an open question that has one.
        QCOMPARE(get(port, "/map.png?code=KQ7MZ&q=guess-1&v=1").status, 404);
    }

    void oversizedRequestIsCut()
    {
        auto server = startServer();
        const quint16 port = server->port();
        // A header far past the limit: the socket is closed, the server lives on.
        const QByteArray huge = "GET /?code=KQ7MZ HTTP/1.1\r\nHost: x\r\nX-Pad: " + QByteArray(400 * 1024, 'a') + "\r\n\r\n";
        QElapsedTimer clock;
        clock.start();
        const HttpReply r = rawGet(port, huge);
        QVERIFY(r.closed);
        QCOMPARE(r.status, 0);
        QVERIFY(clock.elapsed() < 10000); // cut, not left to time out
        QCOMPARE(get(port, "/?code=KQ7MZ").status, 200);
    }

    void mapOfTheOpenQuestion()
    {
        auto server = startServer();
        int drawn = 0;
        server->setImageProvider([&drawn](const SessionQuestion &q) {
            ++drawn;
            QByteArray png("\x89PNG\r\n\x1a\n", 8);
            return png + QByteArray::fromStdString(q.id);
        });
        QVERIFY(!server->ask(choiceQuestion("guess-2", 3, {1}, true)));
        const HttpReply a = get(server->port(), "/map.png?code=KQ7MZ&q=guess-2&v=1");
        QCOMPARE(a.status, 200);
        QVERIFY(a.headers.contains("Content-Type: image/png"));
        QVERIFY(a.body.endsWith("guess-2"));
        // Forty phones ask; the window draws it once.
        for (int i = 0; i < 5; ++i)
            QCOMPARE(get(server->port(), "/map.png?code=KQ7MZ&q=guess-2&v=1").status, 200);
        QCOMPARE(drawn, 1);
        QCOMPARE(get(server->port(), "/map.png?code=WRONG&q=guess-2&v=1").status, 403);
        QCOMPARE(get(server->port(), "/map.png?code=KQ7MZ&q=guess-1&v=1").status, 404);
        QVERIFY(!server->ask(choiceQuestion("guess-3", 3, {0}, false)));
        QCOMPARE(get(server->port(), "/map.png?code=KQ7MZ&q=guess-3&v=2").status, 404);
    }

    void twoHundredStudentsEveryTallyExact()
    {
        auto server = startServer();
        const quint16 port = server->port();
        const quint32 seed = QRandomGenerator::global()->generate();
        qInfo("answers drawn with seed %u", seed);
        std::mt19937 rng(seed);

        std::vector<std::unique_ptr<Student>> students;
        for (int i = 0; i < 200; ++i)
            students.push_back(makeStudent(port, kCode, i));
        QTRY_COMPARE_WITH_TIMEOUT(server->students(), 200, 30000);
        for (const auto &s : students) {
            QTRY_VERIFY(!s->ofType("welcome").isEmpty());
            QCOMPARE(s->ofType("idle").size(), 1); // nothing asked yet
        }

        const std::vector<SessionQuestion> questions = {choiceQuestion("guess-1", 4, {2}), choiceQuestion("seed000-q3", 3, {0, 1}),
                                                        numberQuestion("number-1", 0.47)};
        for (std::size_t qi = 0; qi < questions.size(); ++qi) {
            const SessionQuestion &q = questions[qi];
            QVERIFY(!server->ask(q));
            for (const auto &s : students)
                QTRY_VERIFY(!s->ofType("question").isEmpty() && s->ofType("question").last().value("question").toString() == QString::fromStdString(q.id));
            // Some answer, some change their mind; the last answer counts.
            std::map<int, int> choice;
            std::map<int, double> number;
            int messages = 0;
            for (int i = 0; i < 200; ++i) {
                const int times = int(rng() % 3); // 0: does not answer
                for (int t = 0; t < times; ++t) {
                    QJsonObject a{{"type", "answer"}, {"question", QString::fromStdString(q.id)}};
                    if (q.kind == SessionQuestion::Kind::Choice) {
                        const int c = int(rng() % q.choices.size());
                        a.insert("choice", c);
                        choice[i] = c;
                    } else {
                        const double x = std::round(double(rng() % 100)) / 100.0;
                        a.insert("number", x);
                        number[i] = x;
                    }
                    students[std::size_t(i)]->send(a);
                    ++messages;
                }
            }
            // Every answer acknowledged, then the tally, exactly.
            auto acks = [&] {
                int n = 0;
                for (const auto &s : students)
                    for (const QJsonObject &m : s->ofType("ack"))
                        n += m.value("question").toString() == QString::fromStdString(q.id);
                return n;
            };
            QTRY_COMPARE_WITH_TIMEOUT(acks(), messages, 30000);
            const SessionTally t = server->session().tally();
            if (q.kind == SessionQuestion::Kind::Choice) {
                std::vector<int> expected(q.choices.size(), 0);
                int right = 0;
                for (const auto &[i, c] : choice) {
                    ++expected[std::size_t(c)];
                    right += std::find(q.answer.begin(), q.answer.end(), c) != q.answer.end();
                }
                QCOMPARE(t.counts, expected);
                QCOMPARE(t.answers, int(choice.size()));
                QCOMPARE(t.right, right);
            } else {
                std::vector<double> expected;
                int right = 0;
                for (const auto &[i, x] : number) {
                    expected.push_back(x);
                    right += std::fabs(x - 0.47) <= 0.005;
                }
                std::sort(expected.begin(), expected.end());
                QCOMPARE(t.numbers, expected);
                QCOMPARE(t.right, right);
            }
            // The reveal reaches every phone with its own answer.
            server->reveal();
            for (std::size_t i = 0; i < students.size(); ++i) {
                const Student &s = *students[i];
                QTRY_VERIFY(!s.ofType("reveal").isEmpty() && s.ofType("reveal").last().value("question").toString() == QString::fromStdString(q.id));
                const QJsonValue yours = s.ofType("reveal").last().value("yours");
                if (q.kind == SessionQuestion::Kind::Choice) {
                    if (choice.count(int(i)))
                        QCOMPARE(yours.toInt(), choice.at(int(i)));
                    else
                        QVERIFY(yours.isNull() || yours.isUndefined());
                }
            }
            // An answer after the reveal changes nothing.
            const SessionTally revealed = server->session().tally();
            students[0]->send({{"type", "answer"}, {"question", QString::fromStdString(q.id)}, {"choice", 0}, {"number", 0.0}});
            QTRY_VERIFY(!students[0]->ofType("error").isEmpty());
            QCOMPARE(server->session().tally().counts, revealed.counts);
            QCOMPARE(server->session().tally().numbers, revealed.numbers);
            students[0]->received.clear();
        }
        // The CSV: one row a question, anonymous.
        server->ask(choiceQuestion("after", 2, {0}));
        const QByteArray csv = server->session().tallyCsv();
        QCOMPARE(csv.count('\n'), 1 + 3);
        QVERIFY(!csv.contains("device-"));
    }

    void badClientsAreRefusedOthersUndisturbed()
    {
        SessionLimits limits;
        auto server = startServer(limits);
        const quint16 port = server->port();
        QVERIFY(!server->ask(choiceQuestion("guess-1", 3, {1})));
        auto good = makeStudent(port, kCode, 1);
        QTRY_VERIFY(!good->ofType("question").isEmpty());
        good->send({{"type", "answer"}, {"question", "guess-1"}, {"choice", 2}});
        QTRY_COMPARE(good->ofType("ack").size(), 1);

        // A wrong code, a wrong path: closed with 4001 before a word is read.
        auto wrong = makeStudent(port, "ZZZZZ", 2);
        auto elsewhere = makeStudent(port, kCode, 3, "/admin");
        QTRY_COMPARE(wrong->closeCode, ClassServer::kCloseWrongCode);
        QTRY_COMPARE(elsewhere->closeCode, ClassServer::kCloseWrongCode);

        // Malformed: an error reply, the socket stays, nothing counted.
        auto bad = makeStudent(port, kCode, 4);
        QTRY_VERIFY(!bad->ofType("question").isEmpty());
        bad->socket->sendTextMessage("{\"type\": \"answer\", \"question\": \"guess-1\", \"choice\": ");
        bad->socket->sendTextMessage("[1, 2, 3]");
        bad->socket->sendTextMessage("{\"type\": \"answer\", \"question\": \"guess-1\", \"choice\": 7}");
        bad->socket->sendTextMessage("{\"type\": \"answer\", \"question\": \"guess-1\", \"choice\": \"<img src=x onerror=alert(1)>\"}");
        bad->socket->sendBinaryMessage(QByteArray(10, '\0'));
        QTRY_COMPARE(bad->ofType("error").size(), 5);
        // Over 4 KB: refused with a reply; far over: the socket is closed.
        bad->socket->sendTextMessage("{\"type\": \"hello\", \"device\": \"" + QString(5000, 'a') + "\"}");
        QTRY_COMPARE(bad->ofType("error").size(), 6);
        QVERIFY(bad->open);
        bad->socket->sendTextMessage(QString(200 * 1024, 'x'));
        QTRY_VERIFY(!bad->open);

        // A flood: 100 answers at once; the bucket lets a burst through, the rest unread.
        auto flood = makeStudent(port, kCode, 5);
        QTRY_VERIFY(!flood->ofType("question").isEmpty());
        const int refusedBefore = server->session().refused();
        for (int i = 0; i < 100; ++i)
            flood->send({{"type", "answer"}, {"question", "guess-1"}, {"choice", i % 3}});
        QTRY_VERIFY(server->session().refused() >= refusedBefore + 100 - int(limits.burst));
        // Every message answered or refused: acks and refusals add up to the hundred.
        QTRY_COMPARE(int(flood->ofType("ack").size()) + server->session().refused() - refusedBefore, 100);
        QVERIFY(flood->ofType("ack").size() <= int(limits.burst));

        // The good student's answer stands; the tally holds two phones at most.
        const SessionTally t = server->session().tally();
        QVERIFY(!flood->ofType("ack").isEmpty());
        std::vector<int> expected{0, 0, 1}; // the good student's 2
        ++expected[std::size_t(flood->ofType("ack").last().value("choice").toInt())];
        QCOMPARE(t.answers, 2);
        QCOMPARE(t.counts, expected);
        QVERIFY(good->open);
        good->send({{"type", "answer"}, {"question", "guess-1"}, {"choice", 0}});
        QTRY_COMPARE(good->ofType("ack").size(), 2);
        // Nothing a student sent reaches another page.
        for (const QJsonObject &m : good->received)
            QVERIFY(!QJsonDocument(m).toJson().contains("onerror"));
    }

    void connectionLimit()
    {
        SessionLimits limits;
        limits.maxConnections = 5;
        auto server = startServer(limits);
        std::vector<std::unique_ptr<Student>> students;
        for (int i = 0; i < 5; ++i)
            students.push_back(makeStudent(server->port(), kCode, i));
        QTRY_COMPARE(server->students(), 5);
        auto sixth = makeStudent(server->port(), kCode, 99);
        QTRY_COMPARE(sixth->closeCode, ClassServer::kCloseFull);
        QCOMPARE(server->students(), 5);
        // One leaves: a place frees.
        students[0]->socket->close();
        QTRY_COMPARE(server->students(), 4);
        auto seventh = makeStudent(server->port(), kCode, 100);
        QTRY_COMPARE(server->students(), 5);
    }

    void sameDeviceTwiceCountsOnce()
    {
        auto server = startServer();
        auto a = makeStudent(server->port(), kCode, 7);
        auto b = makeStudent(server->port(), kCode, 7); // the phone woke and reconnected before the old socket closed
        QTRY_VERIFY(!a->ofType("welcome").isEmpty() && !b->ofType("welcome").isEmpty());
        QCOMPARE(server->students(), 1);
    }

    void nextFreePortAndExactPort()
    {
        auto first = startServer();
        ClassServer second;
        ClassServer::Options o;
        o.address = QHostAddress::LocalHost;
        o.port = first->port();
        o.joinCode = "ABCD";
        QVERIFY(!second.start(o));
        QVERIFY(second.port() != first->port());
        QVERIFY(second.port() > first->port() && second.port() < first->port() + ClassServer::kPortsToTry);
        ClassServer third;
        o.exactPort = true;
        const auto problem = third.start(o);
        QVERIFY(problem);
        QVERIFY(QString::fromStdString(problem->toString()).contains(QString::number(first->port())));
        QVERIFY(!third.running());
        // Codes a projector would make ambiguous are refused.
        ClassServer fourth;
        o.exactPort = false;
        for (const char *code : {"ABC", "AB0CD", "ABCDEFGHJ", "AB CD"}) {
            o.joinCode = code;
            QVERIFY2(fourth.start(o), code);
        }
        o.joinCode.clear();
        QVERIFY(!fourth.start(o));
        QCOMPARE(fourth.joinCode().size(), 5);
    }

    void stopsCleanly()
    {
        auto server = startServer();
        const quint16 port = server->port();
        std::vector<std::unique_ptr<Student>> students;
        for (int i = 0; i < 20; ++i)
            students.push_back(makeStudent(port, kCode, i));
        QTRY_COMPARE(server->students(), 20);
        server->ask(choiceQuestion("guess-1", 2, {0}));
        students[3]->send({{"type", "answer"}, {"question", "guess-1"}, {"choice", 1}});
        QTRY_COMPARE(server->session().tally().answers, 1);
        server->stop();
        QVERIFY(!server->running());
        for (const auto &s : students) {
            QTRY_VERIFY(!s->open);
            QVERIFY(!s->ofType("ended").isEmpty());
        }
        QCOMPARE(server->students(), 0);
        // Nothing listens.
        QTcpSocket probe;
        probe.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(!probe.waitForConnected(2000));
        // The tallies stay for the CSV.
        QVERIFY(server->session().tallyCsv().contains("\"guess-1\",choice,1,0"));
    }

    // Upgrade: websocket without Connection: Upgrade is an ordinary request,
    // answered at once (it would otherwise wait for nothing, holding its socket).
    void halfAnUpgradeIsAnswered()
    {
        auto server = startServer();
        QElapsedTimer clock;
        clock.start();
        const HttpReply r = rawGet(server->port(), "GET /?code=KQ7MZ HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: close\r\n\r\n");
        QCOMPARE(r.status, 200);
        QVERIFY(clock.elapsed() < 5000);
    }

    // Sockets that never finish a request (or idle after one) are closed
    // after the deadline; one address holds a few at most; the page still loads.
    void idleSocketsAreClosed()
    {
        ClassServer::Options o;
        o.requestDeadlineMs = 400;
        o.maxHttpSocketsPerHost = 16;
        o.capLoopback = true;
        auto server = startServer({}, o);
        int connected = 0, closed = 0;
        std::vector<std::unique_ptr<QTcpSocket>> idle; // after the counts its signals write
        for (int i = 0; i < 20; ++i) {
            idle.push_back(std::make_unique<QTcpSocket>());
            QObject::connect(idle.back().get(), &QTcpSocket::connected, [&connected] { ++connected; });
            QObject::connect(idle.back().get(), &QTcpSocket::disconnected, [&closed] { ++closed; });
            idle.back()->connectToHost(QHostAddress::LocalHost, server->port());
        }
        QTRY_COMPARE(connected, 20);
        // The four past the cap are dropped at once, the rest at the deadline.
        QTRY_COMPARE(closed, 4);
        QTRY_COMPARE_WITH_TIMEOUT(closed, 20, 10000);
        QCOMPARE(get(server->port(), "/?code=KQ7MZ").status, 200);
        // A WebSocket is not a page's socket: it outlives the deadline.
        auto student = makeStudent(server->port(), kCode, 1);
        QTRY_COMPARE(server->students(), 1);
        QElapsedTimer clock;
        clock.start();
        QTRY_VERIFY_WITH_TIMEOUT(clock.elapsed() > 3 * o.requestDeadlineMs, 5000);
        QVERIFY(student->open);
        QCOMPARE(server->students(), 1);
    }

    // An address that guessed too many codes is refused, even with the right one.
    void guessingTheCodeIsRefused()
    {
        ClassServer::Options o;
        o.wrongCodesPerHost = 5;
        o.capLoopback = true; // this computer is otherwise trusted
        auto server = startServer({}, o);
        QCOMPARE(get(server->port(), "/?code=KQ7MZ").status, 200);
        // The bare address, typed again and again, is not a guess.
        for (int i = 0; i < 10; ++i)
            QCOMPARE(get(server->port(), "/").status, 200);
        for (int i = 0; i < 5; ++i)
            QCOMPARE(get(server->port(), "/?code=AAAA" + QByteArray::number(i + 2)).status, 403);
        const HttpReply locked = get(server->port(), "/?code=KQ7MZ");
        QCOMPARE(locked.status, 429);
        QVERIFY(locked.body.contains("ask your teacher"));
        auto student = makeStudent(server->port(), kCode, 1);
        QTRY_COMPARE(student->closeCode, ClassServer::kCloseWrongCode);
    }

    // Pings are answered by Qt, out of the rules' sight: a client that pings
    // and never reads the pongs is closed when they pile up, and the others
    // are not disturbed.
    void pingFloodIsCut()
    {
        auto server = startServer();
        auto good = makeStudent(server->port(), kCode, 1);
        QTRY_COMPARE(server->students(), 1);
        auto flood = rawWebSocket(server->port(), kCode, false);
        QTRY_VERIFY(flood->socket->state() == QAbstractSocket::ConnectedState);
        const QByteArray ping = clientFrame(0x9, QByteArray(125, 'p'));
        QByteArray burst;
        for (int i = 0; i < 2000; ++i)
            burst += ping;
        // Written as fast as the server takes it, never read: the pongs pile up.
        QElapsedTimer clock;
        clock.start();
        while (!flood->closed && flood->socket->state() == QAbstractSocket::ConnectedState && clock.elapsed() < 60000) {
            if (flood->socket->bytesToWrite() < 4 * burst.size())
                flood->socket->write(burst);
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        }
        QVERIFY2(flood->socket->state() != QAbstractSocket::ConnectedState, "the flooding client was not closed");
        QVERIFY(good->open);
        QCOMPARE(server->students(), 1);
    }

    // A phone that left without closing (no pong, nothing sent) is dropped
    // and its place freed; a live one, which answers the pings, stays.
    void deadPhonesAreDropped()
    {
        ClassServer::Options o;
        // Far apart, so that a loaded machine's stall (server and clients
        // share this thread) never passes for a dead phone.
        o.pingIntervalMs = 100;
        o.deadAfterMs = 3000;
        auto server = startServer({}, o);
        auto live = makeStudent(server->port(), kCode, 1);
        auto dead = rawWebSocket(server->port(), kCode);
        QTRY_VERIFY(dead->received.contains("101 Switching Protocols"));
        dead->socket->write(clientFrame(0x1, R"({"type":"hello","device":"dead-phone-device-0001"})"));
        QTRY_COMPARE(server->students(), 2);
        QTRY_COMPARE_WITH_TIMEOUT(server->students(), 1, 20000);
        QTRY_VERIFY(dead->closed);
        QVERIFY(live->open);
    }

    void qrCode()
    {
        const QString url = QStringLiteral("http://192.168.178.24:8642/?code=KQ7MZ");
        const int w = qrCodeWidth(url);
        QVERIFY(w >= 21 && (w - 21) % 4 == 0); // a QR version's size: 21 + 4 (v − 1)
        const QImage img = qrCodeImage(url, 6);
        QCOMPARE(img.width(), (w + 8) * 6);
        // The finder pattern in the top-left: dark ring, light ring, dark centre.
        auto dark = [&](int mx, int my) { return qGray(img.pixel((mx + 4) * 6 + 3, (my + 4) * 6 + 3)) < 128; };
        QVERIFY(dark(0, 0) && dark(6, 0) && dark(0, 6) && dark(6, 6));
        QVERIFY(!dark(1, 1) && !dark(5, 5));
        QVERIFY(dark(3, 3));
        QVERIFY(qGray(img.pixel(2, 2)) > 128); // quiet zone
        QVERIFY(qrCodeImage(QString(8000, 'x')).isNull());
    }
};

QTEST_MAIN(TestClassServer)
#include "test_classserver.moc"
