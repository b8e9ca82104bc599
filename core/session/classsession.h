#pragma once
// A class session: the whole class answers the teacher's question from
// their phones. This is its state and its rules, without the network: the
// server (app/session) hands each WebSocket message to receive() and sends
// what comes back; the teacher's window asks, reveals and reads the tallies.
//
// Rules, each checked here so that a test can hold them without sockets:
//   - every request carries the join code (codeMatches, constant time);
//   - a message is at most limits.maxMessageBytes bytes of JSON, one object,
//     of a known type with fields of the right type; anything else is refused
//     with an error reply and changes nothing;
//   - a connection says hello with a device token (16 to 64 of A-Z a-z 0-9 _ -)
//     before it answers, and keeps that device; one answer per question per
//     device, which it may change until the reveal; at most twice
//     maxConnections devices in a session;
//   - at most limits.messagesPerSecond a connection on average (bursts of
//     limits.burst): more are refused unread;
//   - at most limits.maxConnections connections; a session ends after
//     limits.maxSessionMs;
//   - a choice is an index among the question's choices; a number is finite.
// Nothing a student sends is ever put into another student's page: replies
// carry only the session's own text and the sender's own answer.

#include "result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <random>
#include <string>
#include <vector>

namespace attn {

struct SessionLimits {
    int maxMessageBytes = 4096;
    int maxConnections = 500;
    double messagesPerSecond = 4;
    double burst = 8;
    std::int64_t maxSessionMs = std::int64_t(4) * 3600 * 1000; // four hours
};

struct SessionQuestion {
    enum class Kind { Choice, Number };
    std::string id;                                 // "guess-3", "seed000-q1"
    Kind kind = Kind::Choice;
    std::map<std::string, std::string> text;        // "en", "zh_CN" → the question
    std::vector<std::map<std::string, std::string>> choices; // Choice: at least two
    std::vector<int> answer;                        // Choice: the right indices
    double number = 0, tolerance = 0;               // Number: right when |x − number| ≤ tolerance
    int decimals = 2;                               // Number: how the truth is written
    bool image = false;                             // the server has a map for it
};

// What one question's answers came to.
struct SessionTally {
    std::string question;
    SessionQuestion::Kind kind = SessionQuestion::Kind::Choice;
    std::vector<int> counts;        // Choice: per choice
    std::vector<double> numbers;    // Number: every answer, sorted
    int answers = 0;
    int right = 0;
    // For the CSV a teacher reads later: the question's words, its choices
    // and the right answer, in English (else the first language given).
    std::string text;
    std::vector<std::string> choices;
    std::string answer;
};

class ClassSession {
public:
    explicit ClassSession(std::string joinCode, SessionLimits limits = {}, std::int64_t startMs = 0);

    // A join code of `length` letters and digits a projector cannot confuse
    // (no 0/O, 1/I/L), from `seed`.
    static std::string makeJoinCode(std::uint64_t seed, int length = 5);
    const std::string &joinCode() const { return m_code; }
    bool codeMatches(const QString &code) const;
    const SessionLimits &limits() const { return m_limits; }
    bool expired(std::int64_t nowMs) const;

    // --- the teacher ------------------------------------------------------
    // Opens a question (the answers of the one before are kept in history()).
    // A Problem for a question that cannot be asked (no id, fewer than two
    // choices, an answer out of range, a number not finite).
    std::optional<Problem> ask(SessionQuestion question);
    void reveal();
    void end() { m_ended = true; }
    bool ended() const { return m_ended; }
    const SessionQuestion *current() const { return m_current ? &*m_current : nullptr; }
    bool revealed() const { return m_revealed; }
    int version() const { return m_version; }
    SessionTally tally() const;                          // the open question's
    const std::vector<SessionTally> &history() const { return m_history; }
    // Every question asked, one row each: the anonymous counts, never a device.
    QByteArray tallyCsv() const;

    // --- the network -------------------------------------------------------
    // A new connection; false when the session is full or over.
    bool connect(const std::string &connection, std::int64_t nowMs);
    void disconnect(const std::string &connection);
    int connections() const { return int(m_connections.size()); }
    int students() const;                                // devices that said hello and are connected
    // One text message from a connection: the reply to send it (an error,
    // an ack, the question on hello), or nothing.
    std::optional<QJsonObject> receive(const std::string &connection, const QByteArray &message, std::int64_t nowMs);
    // The message that tells `connection` the state: the open question (with
    // its own answer), the reveal, idle, or ended.
    QJsonObject stateFor(const std::string &connection) const;
    // Messages refused so far (bad, too big, too fast, unknown connection).
    int refused() const { return m_refused; }

private:
    struct Connection {
        std::string device;
        double tokens = 0;
        std::int64_t lastMs = 0;
    };
    QJsonObject error(const QString &message);
    QJsonObject questionMessage(const std::string &device) const;
    QJsonObject revealMessage(const std::string &device) const;
    void archive();

    std::string m_code;
    SessionLimits m_limits;
    std::int64_t m_startMs = 0;
    std::map<std::string, Connection> m_connections;
    std::optional<SessionQuestion> m_current;
    bool m_revealed = false, m_ended = false;
    int m_version = 0;
    std::map<std::string, int> m_choices;       // device → choice, of the open question
    std::map<std::string, double> m_numbers;    // device → number
    std::set<std::string> m_devices;            // every device that said hello (capped)
    std::vector<SessionTally> m_history;
    int m_refused = 0;
};

} // namespace attn
