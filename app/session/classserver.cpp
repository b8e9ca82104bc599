#include "classserver.h"

#include <QAbstractHttpServer>
#include <QFile>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkInterface>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrlQuery>
#include <QWebSocket>

#include <algorithm>
#include <vector>

namespace attn {

namespace {

// Accepts the sockets and keeps each HTTP request small: the HTTP server
// buffers a request until it is whole, so a phone (or anyone on the
// network) could otherwise send an endless one. A socket handed over to
// the WebSocket server loses these connections (QAbstractHttpServer
// disconnects it), and the WebSocket limits take over.
class GuardTcpServer : public QTcpServer {
public:
    GuardTcpServer(const ClassServer::Options &options, QObject *parent) : QTcpServer(parent), m_options(options) {}

    // The page's sockets open now (a socket handed to the WebSocket server
    // is the session's to count).
    int openSockets()
    {
        m_open.erase(std::remove_if(m_open.begin(), m_open.end(), [](const QPointer<QTcpSocket> &s) {
                         return !s || s->state() == QAbstractSocket::UnconnectedState || s->property(kUpgrading).toBool();
                     }),
                     m_open.end());
        return int(m_open.size());
    }
    static constexpr const char *kUpgrading = "attnUpgrading";

protected:
    void incomingConnection(qintptr handle) override
    {
        auto *socket = new QTcpSocket(this);
        if (!socket->setSocketDescriptor(handle)) {
            delete socket;
            return;
        }
        const QHostAddress from = socket->peerAddress();
        const int open = openSockets();
        const int fromThere = int(std::count_if(m_open.begin(), m_open.end(), [&](const QPointer<QTcpSocket> &s) {
            return s && s->peerAddress() == from;
        }));
        const bool capped = m_options.capLoopback || !from.isLoopback();
        if (open >= ClassServer::kMaxHttpSockets || (capped && fromThere >= m_options.maxHttpSocketsPerHost)) {
            socket->abort();
            socket->deleteLater();
            return;
        }
        m_open.emplace_back(socket);
        // The server reads all it is given at each readyRead, so what is
        // available here is what arrived since: their sum is the request's size.
        auto received = std::make_shared<qint64>(0);
        connect(socket, &QTcpSocket::readyRead, socket, [socket, received] {
            *received += socket->bytesAvailable();
            if (*received > ClassServer::kMaxRequestBytes)
                socket->abort();
        });
        connect(socket, &QTcpSocket::bytesWritten, socket, [received] { *received = 0; }); // answered: the next request
        // Qt HttpServer 6.4 keeps a socket that never finishes its request,
        // or idles after one, forever: a page's socket gets a deadline (a
        // page loads in a few requests); a WebSocket's is lifted.
        QTimer::singleShot(m_options.requestDeadlineMs, socket, [socket] {
            if (!socket->property(kUpgrading).toBool())
                socket->abort();
        });
        addPendingConnection(socket);
    }

private:
    const ClassServer::Options &m_options;
    std::vector<QPointer<QTcpSocket>> m_open;
};

QByteArray resource(const QString &name)
{
    QFile f(QStringLiteral(":/classroom/") + name);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString normalLanguage(const QString &language)
{
    return language.startsWith(QLatin1String("zh")) ? QStringLiteral("zh_CN") : QStringLiteral("en");
}

} // namespace

class ClassHttpServer : public QAbstractHttpServer {
public:
    explicit ClassHttpServer(ClassServer *owner) : m_owner(owner) {}

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override
    {
        // A WebSocket upgrade is asked here first: true, with nothing
        // written, hands it to the WebSocket server; the code and the path
        // are checked there, so that a wrong one closes with 4001 (the page
        // then stops retrying) rather than failing the handshake.
        // Only a real upgrade (Connection: Upgrade) is handed over; anything
        // else is answered, or it would wait for nothing.
        if (request.value(QByteArrayLiteral("upgrade")).compare(QByteArrayLiteral("websocket"), Qt::CaseInsensitive) == 0
            && request.value(QByteArrayLiteral("connection")).toLower().contains("upgrade")) {
            socket->setProperty(GuardTcpServer::kUpgrading, true);
            return true;
        }
        ClassServer::Reply reply;
        if (request.method() != QHttpServerRequest::Method::Get && request.method() != QHttpServerRequest::Method::Head)
            reply = {QByteArrayLiteral("Only GET is served here.\n"), QByteArrayLiteral("text/plain; charset=utf-8"), 405};
        else
            reply = m_owner->answerRequest(request.url().path(), request.query(), request.remoteAddress());
        QHttpServerResponder responder = makeResponder(request, socket);
        const QByteArray body = request.method() == QHttpServerRequest::Method::Head ? QByteArray() : reply.body;
        responder.write(body,
                        {{"Content-Type", reply.mimeType},
                         {"Cache-Control", "no-store"},
                         {"X-Content-Type-Options", "nosniff"},
                         {"Referrer-Policy", "no-referrer"},
                         {"X-Frame-Options", "DENY"},
                         // The page's own script, style and images; its socket; nothing else.
                         {"Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; "
                                                     "img-src 'self' data:; connect-src 'self' ws: wss:; base-uri 'none'; "
                                                     "form-action 'self'; frame-ancestors 'none'"}},
                        QHttpServerResponder::StatusCode(reply.status));
        return true;
    }
    void missingHandler(const QHttpServerRequest &, QTcpSocket *) override {}

private:
    ClassServer *m_owner;
};

ClassServer::ClassServer(QObject *parent) : QObject(parent)
{
    // An ended session with nothing in it until start(): session() is always there to read.
    m_session = std::make_unique<ClassSession>(std::string());
    m_session->end();
    m_tick = new QTimer(this);
    m_tick->setInterval(1000);
    connect(m_tick, &QTimer::timeout, this, [this] {
        if (!m_session)
            return;
        if (m_session->expired(now())) {
            stop();
            return;
        }
        // The count on the phones, at most once a second: 500 phones joining
        // would otherwise be told 250,000 times.
        const int n = m_session->students();
        if (n != m_studentsSent) {
            m_studentsSent = n;
            const QJsonObject m{{QStringLiteral("type"), QStringLiteral("students")}, {QStringLiteral("students"), n}};
            for (const auto &[socket, peer] : m_sockets)
                send(socket, m);
        }
    });
    m_guard = new QTimer(this);
    m_guard->setInterval(100);
    connect(m_guard, &QTimer::timeout, this, &ClassServer::guardSockets);
}

ClassServer::~ClassServer()
{
    stop();
}

std::optional<Problem> ClassServer::start(const Options &options)
{
    stop();
    QString code = options.joinCode.trimmed().toUpper();
    if (code.isEmpty())
        code = QString::fromStdString(ClassSession::makeJoinCode(QRandomGenerator::system()->generate64(), 5));
    static const QString allowed = QStringLiteral("ABCDEFGHJKMNPQRSTUVWXYZ23456789");
    if (code.size() < 4 || code.size() > 8 || !std::all_of(code.begin(), code.end(), [](QChar c) { return allowed.contains(c); }))
        return Problem{"join code", "use 4 to 8 of the letters and digits A-Z and 2-9 without I, L and O"};

    m_options = options;
    auto http = std::make_unique<ClassHttpServer>(this);
    auto *tcp = new GuardTcpServer(m_options, http.get());
    const int tries = options.exactPort ? 1 : kPortsToTry;
    quint16 port = 0;
    for (int i = 0; i < tries && !port; ++i) {
        const int candidate = int(options.port) + i;
        if (candidate > 65535)
            break;
        if (tcp->listen(options.address, quint16(candidate)))
            port = tcp->serverPort();
    }
    if (!port)
        return Problem{"port " + std::to_string(options.port),
                       options.exactPort ? "another program uses it, or it is not allowed (below 1024 needs root)"
                                         : "it and the next " + std::to_string(kPortsToTry - 1) + " ports are in use"};
    tcp->setMaxPendingConnections(64);
    http->bind(tcp);
    connect(http.get(), &QAbstractHttpServer::newWebSocketConnection, this, &ClassServer::acceptWebSockets);

    m_clock.start();
    m_session = std::make_unique<ClassSession>(code.toStdString(), options.limits, now());
    m_http = std::move(http);
    m_port = port;
    m_language = normalLanguage(options.language);
    m_studentsSent = -1;
    m_studentsNoted = 0;
    m_image.clear();
    m_imageKey.clear();
    m_wrongCodes.clear();
    m_lastPingMs = now();
    m_tick->start();
    m_guard->start();
    return std::nullopt;
}

void ClassServer::stop()
{
    if (!m_http)
        return;
    m_tick->stop();
    m_guard->stop();
    m_session->end();
    const QJsonObject ended{{QStringLiteral("type"), QStringLiteral("ended")}};
    // Swapped out first: a socket's close below must not find itself in the list.
    auto sockets = std::exchange(m_sockets, {});
    for (const auto &[socket, peer] : sockets) {
        socket->disconnect(this);
        socket->sendTextMessage(QString::fromUtf8(QJsonDocument(ended).toJson(QJsonDocument::Compact)));
        socket->close(QWebSocketProtocol::CloseCodeGoingAway, QStringLiteral("the session ended"));
        socket->deleteLater();
        m_session->disconnect(peer.id);
    }
    m_http.reset(); // its server and the sockets still loading a page go with it: nothing listens
    m_port = 0;
    noteStudents();
    emit stopped();
}

QString ClassServer::joinCode() const
{
    return m_session ? QString::fromStdString(m_session->joinCode()) : QString();
}

QStringList ClassServer::addresses() const
{
    QStringList wired, wireless, loopback{QStringLiteral("127.0.0.1")};
    for (const QNetworkInterface &i : QNetworkInterface::allInterfaces()) {
        const auto flags = i.flags();
        if (!(flags & QNetworkInterface::IsUp) || !(flags & QNetworkInterface::IsRunning) || (flags & QNetworkInterface::IsLoopBack))
            continue;
        for (const QNetworkAddressEntry &e : i.addressEntries()) {
            const QHostAddress a = e.ip();
            if (a.protocol() != QAbstractSocket::IPv4Protocol || a.isLoopback() || a.isLinkLocal())
                continue;
            // Containers' and VMs' bridges are rarely where the phones are.
            const bool virtualBridge = i.name().startsWith(QLatin1String("docker")) || i.name().startsWith(QLatin1String("br-"))
                || i.name().startsWith(QLatin1String("veth")) || i.name().startsWith(QLatin1String("virbr"));
            (virtualBridge ? loopback : (i.type() == QNetworkInterface::Wifi ? wireless : wired)).prepend(a.toString());
        }
    }
    // Bridges go after the LAN's addresses, before 127.0.0.1.
    QStringList all = wireless + wired;
    loopback.removeDuplicates();
    std::stable_partition(loopback.begin(), loopback.end(), [](const QString &a) { return a != QLatin1String("127.0.0.1"); });
    return all + loopback;
}

QUrl ClassServer::studentUrl(const QString &host, const QString &language) const
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(host);
    url.setPort(m_port);
    url.setPath(QStringLiteral("/"));
    url.setQuery(QStringLiteral("code=") + joinCode()
                 + (language.isEmpty() ? QString() : QStringLiteral("&lang=") + normalLanguage(language)));
    return url;
}

std::optional<Problem> ClassServer::ask(SessionQuestion question)
{
    if (!m_http)
        return Problem{"class session", "no session is running"};
    if (auto problem = m_session->ask(std::move(question)))
        return problem; // a new version: the map cache's key changes with it
    broadcastState();
    emit answersChanged();
    return std::nullopt;
}

void ClassServer::reveal()
{
    if (!m_session || !m_session->current())
        return;
    m_session->reveal();
    broadcastState();
    emit answersChanged();
}

void ClassServer::setLanguage(const QString &language)
{
    m_language = normalLanguage(language);
}

void ClassServer::setImageProvider(std::function<QByteArray(const SessionQuestion &)> provider)
{
    m_imageProvider = std::move(provider);
    m_image.clear();
    m_imageKey.clear();
}

bool ClassServer::lockedOut(const QHostAddress &from) const
{
    if (from.isLoopback() && !m_options.capLoopback)
        return false; // this computer itself
    const auto it = m_wrongCodes.find(from.toString());
    return it != m_wrongCodes.end() && it->second >= m_options.wrongCodesPerHost;
}

bool ClassServer::codeAllowed(const QString &code, const QHostAddress &from)
{
    // Guessing the code: an address that tried too many wrong ones is refused
    // for the rest of the session, even with the right one. No code at all
    // (the bare address typed) is not a guess.
    if (lockedOut(from))
        return false;
    if (m_session->codeMatches(code))
        return true;
    if (!code.isEmpty())
        ++m_wrongCodes[from.toString()];
    return false;
}

ClassServer::Reply ClassServer::answerRequest(const QString &path, const QUrlQuery &query, const QHostAddress &from)
{
    static const QByteArray text = QByteArrayLiteral("text/plain; charset=utf-8");
    if (path == QLatin1String("/student.css"))
        return {resource(QStringLiteral("student.css")), QByteArrayLiteral("text/css; charset=utf-8")};
    if (path == QLatin1String("/student.js"))
        return {resource(QStringLiteral("student.js")), QByteArrayLiteral("text/javascript; charset=utf-8")};
    if (path != QLatin1String("/") && path != QLatin1String("/map.png"))
        return {QByteArrayLiteral("Not found.\n"), text, 404};
    if (lockedOut(from))
        return {QByteArrayLiteral("Too many wrong join codes from this device: ask your teacher.\n"
                                  "\xe6\xad\xa4\xe8\xae\xbe\xe5\xa4\x87\xe8\xbe\x93\xe9\x94\x99\xe5\x8a\xa0\xe5\x85\xa5\xe7\xa0\x81"
                                  "\xe6\xac\xa1\xe6\x95\xb0\xe8\xbf\x87\xe5\xa4\x9a\xef\xbc\x9a\xe8\xaf\xb7\xe5\x91\x8a\xe8\xaf\x89\xe8\x80\x81\xe5\xb8\x88\xe3\x80\x82\n"),
                text, 429};
    const bool allowed = codeAllowed(query.queryItemValue(QStringLiteral("code")), from);
    // The page holds no secret: without the code (the bare address typed) it
    // asks for it; with a wrong one it says so (403). Its question, map and
    // socket need the code.
    if (path == QLatin1String("/"))
        return {resource(QStringLiteral("student.html")), QByteArrayLiteral("text/html; charset=utf-8"),
                allowed || query.queryItemValue(QStringLiteral("code")).isEmpty() ? 200 : 403};
    if (!allowed)
        return {QByteArrayLiteral("Wrong join code.\n"), text, 403};
    // The map of the open question; an old question's map is gone.
    const SessionQuestion *q = m_session->current();
    const QString key = q ? QString::fromStdString(q->id) + QLatin1Char('|') + QString::number(m_session->version()) : QString();
    if (!q || !q->image || !m_imageProvider || query.queryItemValue(QStringLiteral("q")) != QString::fromStdString(q->id))
        return {QByteArrayLiteral("No map for this question.\n"), text, 404};
    if (m_imageKey != key) {
        m_image = m_imageProvider(*q);
        m_imageKey = key;
    }
    if (m_image.isEmpty())
        return {QByteArrayLiteral("No map for this question.\n"), text, 404};
    return {m_image, QByteArrayLiteral("image/png")};
}

void ClassServer::acceptWebSockets()
{
    while (m_http && m_http->hasPendingWebSocketConnections()) {
        QWebSocket *socket = m_http->nextPendingWebSocketConnection().release();
        socket->setParent(this);
        connect(socket, &QWebSocket::disconnected, socket, &QObject::deleteLater);
        const QUrl url = socket->requestUrl();
        const QString code = QUrlQuery(url).queryItemValue(QStringLiteral("code"));
        if (url.path() != QLatin1String("/ws") || !codeAllowed(code, socket->peerAddress())) {
            socket->close(QWebSocketProtocol::CloseCode(kCloseWrongCode), QStringLiteral("wrong join code"));
            continue;
        }
        const std::string id = std::to_string(++m_nextId); // (GCC 12 warns falsely on "c" + to_string)
        if (!m_session->connect(id, now())) {
            const bool over = m_session->ended() || m_session->expired(now());
            socket->close(over ? QWebSocketProtocol::CloseCodeGoingAway : QWebSocketProtocol::CloseCode(kCloseFull),
                          over ? QStringLiteral("the session ended") : QStringLiteral("the class is full"));
            continue;
        }
        // Beyond the session's 4 KB a message is refused with a reply; far
        // beyond it the socket is closed before the message is even kept.
        socket->setMaxAllowedIncomingFrameSize(quint64(m_session->limits().maxMessageBytes) * 4);
        socket->setMaxAllowedIncomingMessageSize(quint64(m_session->limits().maxMessageBytes) * 4);
        // Read a little ahead only: a client that floods (pings are answered
        // by Qt, unseen by the rules) is slowed by TCP, not buffered.
        socket->setReadBufferSize(kReadBufferBytes);
        m_sockets.emplace(socket, Peer{id, now()});
        connect(socket, &QWebSocket::pong, this, [this, socket] {
            if (auto it = m_sockets.find(socket); it != m_sockets.end())
                it->second.lastSeenMs = now();
        });
        connect(socket, &QWebSocket::textMessageReceived, this, [this, socket](const QString &m) { onMessage(socket, m); });
        connect(socket, &QWebSocket::binaryMessageReceived, this, [this, socket](const QByteArray &) {
            onMessage(socket, QStringLiteral("binary"));
        });
        connect(socket, &QWebSocket::disconnected, this, [this, socket] { onClosed(socket); });
    }
}

void ClassServer::onMessage(QWebSocket *socket, const QString &message)
{
    auto it = m_sockets.find(socket);
    if (it == m_sockets.end() || !m_session)
        return;
    it->second.lastSeenMs = now();
    const int studentsBefore = m_session->students();
    const std::optional<QJsonObject> reply = m_session->receive(it->second.id, message.toUtf8(), now());
    if (!reply)
        return;
    const QString type = reply->value(QLatin1String("type")).toString();
    // Only a hello is answered with the state.
    const bool hello = type == QLatin1String("question") || type == QLatin1String("reveal") || type == QLatin1String("idle");
    if (hello)
        send(socket, QJsonObject{{QStringLiteral("type"), QStringLiteral("welcome")},
                                 {QStringLiteral("students"), m_session->students()},
                                 {QStringLiteral("language"), m_language}});
    send(socket, *reply);
    if (m_session->students() != studentsBefore)
        noteStudents();
    if (type == QLatin1String("ack"))
        emit answersChanged();
}

void ClassServer::onClosed(QWebSocket *socket)
{
    auto it = m_sockets.find(socket);
    if (it == m_sockets.end())
        return;
    if (m_session)
        m_session->disconnect(it->second.id);
    m_sockets.erase(it);
    noteStudents();
}

void ClassServer::guardSockets()
{
    const qint64 t = now();
    const bool ping = t - m_lastPingMs >= m_options.pingIntervalMs;
    if (ping)
        m_lastPingMs = t;
    std::vector<QWebSocket *> gone;
    for (const auto &[socket, peer] : m_sockets) {
        // A client that does not read what it asked for (a ping flood), or a
        // phone that left the network without closing: closed, its place freed.
        if (socket->bytesToWrite() > kMaxQueuedBytes || t - peer.lastSeenMs > m_options.deadAfterMs)
            gone.push_back(socket);
        else if (ping)
            socket->ping();
    }
    for (QWebSocket *socket : gone)
        socket->abort(); // disconnected() → onClosed
}

void ClassServer::send(QWebSocket *socket, const QJsonObject &message)
{
    socket->sendTextMessage(QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
}

void ClassServer::broadcastState()
{
    for (const auto &[socket, peer] : m_sockets)
        send(socket, m_session->stateFor(peer.id));
}

void ClassServer::noteStudents()
{
    const int n = students();
    if (n != m_studentsNoted) {
        m_studentsNoted = n;
        emit studentsChanged(n);
    }
}

} // namespace attn
