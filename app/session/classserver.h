#pragma once
// The class session on the network: a small HTTP and WebSocket server
// (Qt HttpServer, Qt WebSockets) that serves the student page and hands
// every phone's message to the session's rules (core/session). It runs in
// the window's thread; nothing listens until start(), nothing after stop().
//
// What it serves, and nothing else (no file from disk, no path taken from a
// request):
//   GET /?code=CODE                  the student page (without a code: the
//                                    same page, asking for it; it holds no secret)
//   GET /student.css, /student.js    its style and script (no secret in them)
//   GET /map.png?code=CODE&q=ID&v=N  the open question's map, drawn by the app
//   WebSocket /ws?code=CODE          the answers; a wrong code closes with 4001
// Limits beside the session's own (message size, rate, connections, length):
// a request of at most kMaxRequestBytes; a page's socket lives at most
// requestDeadlineMs (Qt HttpServer 6.4 keeps idle ones forever); at most
// kMaxHttpSockets of them, maxHttpSocketsPerHost from one address; an
// address that tried wrongCodesPerHost wrong join codes is refused; a
// WebSocket reads at most kReadBufferBytes ahead and is closed when kMaxQueuedBytes
// wait to be sent to it (a client that pings and never reads), and when
// nothing came from it for deadAfterMs (pinged every pingIntervalMs: a phone
// that left the network).

#include "classsession.h"
#include "result.h"

#include <QElapsedTimer>
#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <map>
#include <memory>

class QTimer;
class QWebSocket;

namespace attn {

class ClassHttpServer;

class ClassServer : public QObject {
    Q_OBJECT

public:
    static constexpr quint16 kDefaultPort = 8642;
    static constexpr int kPortsToTry = 20;         // 8642, 8643, ... when one is taken
    static constexpr qint64 kMaxRequestBytes = 16 * 1024;
    static constexpr int kMaxHttpSockets = 300;    // page loads at once, WebSockets not counted
    static constexpr qint64 kReadBufferBytes = 64 * 1024;
    static constexpr qint64 kMaxQueuedBytes = 256 * 1024;
    static constexpr int kCloseWrongCode = 4001;   // the page stops retrying on it
    static constexpr int kCloseFull = 4002;        // the class is full: the page retries later

    struct Options {
        quint16 port = kDefaultPort;
        bool exactPort = false;        // true: that port or fail (the command line's --port)
        QString joinCode;              // empty: a fresh one
        QHostAddress address = QHostAddress::Any; // the tests: LocalHost
        SessionLimits limits;
        QString language = QStringLiteral("en"); // the phones' default: "en" or "zh_CN"
        int requestDeadlineMs = 15000;
        int maxHttpSocketsPerHost = 16; // not for this computer itself (127.0.0.1), unless capLoopback
        bool capLoopback = false;
        int wrongCodesPerHost = 30;  // not for this computer itself, unless capLoopback
        int pingIntervalMs = 20000;
        int deadAfterMs = 90000;
    };

    explicit ClassServer(QObject *parent = nullptr);
    ~ClassServer() override;

    // Listens; a Problem when no port could be had or the join code is not
    // one a phone can type (4 to 8 of the session's letters and digits).
    std::optional<Problem> start(const Options &options);
    // Tells every phone the session ended, closes every socket and stops
    // listening. The tallies stay readable until the next start().
    void stop();
    bool running() const { return bool(m_http); }
    quint16 port() const { return m_port; }
    QString joinCode() const;
    // The addresses a phone can reach: the LAN's IPv4 addresses, the
    // likeliest first, then 127.0.0.1.
    QStringList addresses() const;
    // The page's address on `host`; `language` ("en", "zh_CN") fixes the
    // page's language (the teacher's choice), empty leaves it to each phone.
    QUrl studentUrl(const QString &host, const QString &language = {}) const;

    // The running session, or the last one (its tallies stay for the CSV), or an empty one.
    const ClassSession &session() const { return *m_session; }
    // The teacher: ask, reveal, end. Every phone hears at once.
    std::optional<Problem> ask(SessionQuestion question);
    void reveal();
    void setLanguage(const QString &language);
    // The map of the open question (PNG bytes), drawn by the window; asked
    // once a question version, then served from the cache.
    void setImageProvider(std::function<QByteArray(const SessionQuestion &)> provider);
    int students() const { return m_session ? m_session->students() : 0; }

signals:
    void studentsChanged(int students);
    void answersChanged();   // the open question's tally changed
    void stopped();

private:
    friend class ClassHttpServer;
    struct Reply {
        QByteArray body, mimeType;
        int status = 200;
    };
    Reply answerRequest(const QString &path, const QUrlQuery &query, const QHostAddress &from);
    bool codeAllowed(const QString &code, const QHostAddress &from); // counts the wrong ones
    bool lockedOut(const QHostAddress &from) const;
    void guardSockets();
    void acceptWebSockets();
    void onMessage(QWebSocket *socket, const QString &message);
    void onClosed(QWebSocket *socket);
    void broadcastState();
    void send(QWebSocket *socket, const QJsonObject &message);
    void noteStudents();
    qint64 now() const { return m_clock.elapsed(); }

    std::unique_ptr<ClassSession> m_session;
    std::unique_ptr<ClassHttpServer> m_http;
    struct Peer {
        std::string id;      // its connection in the session
        qint64 lastSeenMs = 0; // a message or a pong
    };
    std::map<QWebSocket *, Peer> m_sockets;
    std::map<QString, int> m_wrongCodes; // address → wrong join codes tried
    Options m_options;
    qint64 m_lastPingMs = 0;
    quint64 m_nextId = 0;
    quint16 m_port = 0;
    QString m_language = QStringLiteral("en");
    QElapsedTimer m_clock;
    QTimer *m_tick = nullptr;      // the students' count to the phones, the session's end
    QTimer *m_guard = nullptr;     // queued bytes, dead phones, pings
    int m_studentsSent = -1, m_studentsNoted = 0;
    std::function<QByteArray(const SessionQuestion &)> m_imageProvider;
    QByteArray m_image;
    QString m_imageKey;
};

} // namespace attn
