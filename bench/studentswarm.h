#pragma once
// A class of simulated phones for the benchmarks: N WebSocket clients on
// their own thread (so that their work does not count as the window's),
// each saying hello with its own device token and answering the open
// question when told, at a random moment within a spread. Used by
// bench_session (500 students answering within a second) and bench_drag
// --class-session (a drag while the class answers).

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QThread>
#include <QTimer>
#include <QUrl>
#include <QWebSocket>

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <vector>

class StudentSwarm : public QObject {
    Q_OBJECT

public:
    // steady_clock nanoseconds of the last answer sent (read from any thread).
    std::atomic<long long> lastSentNs{0};
    std::atomic<int> connected{0}, questionsSeen{0}, sent{0};

    // Call from the thread the swarm lives in (through invokeMethod).
    Q_INVOKABLE void open(const QUrl &url, int count)
    {
        for (int i = 0; i < count; ++i) {
            auto *s = new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, this);
            const QString device = QStringLiteral("bench-student-%1-xxxx").arg(i, 4, 10, QLatin1Char('0'));
            connect(s, &QWebSocket::connected, s, [this, s, device] {
                ++connected;
                s->sendTextMessage(QString::fromUtf8(QJsonDocument(QJsonObject{{"type", "hello"}, {"device", device}}).toJson(QJsonDocument::Compact)));
            });
            connect(s, &QWebSocket::textMessageReceived, s, [this](const QString &m) {
                const QJsonObject o = QJsonDocument::fromJson(m.toUtf8()).object();
                if (o.value("type").toString() == QLatin1String("question")) {
                    m_question = o.value("question").toString();
                    ++questionsSeen;
                }
            });
            s->open(url);
            m_sockets.push_back(s);
        }
    }
    // Every student answers `question` (a choice among `choices`) once, at a
    // uniformly random moment within `spreadMs`.
    Q_INVOKABLE void answerAll(const QString &question, int choices, int spreadMs, unsigned seed)
    {
        std::mt19937 rng(seed);
        for (QWebSocket *s : m_sockets) {
            const int at = spreadMs > 0 ? int(rng() % unsigned(spreadMs)) : 0;
            const int choice = int(rng() % unsigned(choices));
            QTimer::singleShot(at, s, [this, s, question, choice] {
                s->sendTextMessage(QString::fromUtf8(
                    QJsonDocument(QJsonObject{{"type", "answer"}, {"question", question}, {"choice", choice}}).toJson(QJsonDocument::Compact)));
                s->flush();
                lastSentNs = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
                ++sent;
            });
        }
    }
    Q_INVOKABLE void closeAll()
    {
        for (QWebSocket *s : m_sockets)
            s->abort();
        qDeleteAll(m_sockets);
        m_sockets.clear();
    }

private:
    std::vector<QWebSocket *> m_sockets;
    QString m_question;
};

// The swarm on a thread of its own; stopped and joined on destruction.
class SwarmThread {
public:
    SwarmThread()
    {
        m_swarm = new StudentSwarm;
        m_swarm->moveToThread(&m_thread);
        QObject::connect(&m_thread, &QThread::finished, m_swarm, &QObject::deleteLater);
        m_thread.start();
    }
    ~SwarmThread()
    {
        QMetaObject::invokeMethod(m_swarm, "closeAll", Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }
    StudentSwarm *swarm() const { return m_swarm; }

private:
    QThread m_thread;
    StudentSwarm *m_swarm;
};
