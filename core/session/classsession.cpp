#include "classsession.h"

#include "numbers.h"
#include "quiz.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn {

namespace {

bool validDevice(const QString &d)
{
    if (d.size() < 16 || d.size() > 64)
        return false;
    return std::all_of(d.begin(), d.end(), [](QChar c) {
        return (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('A') && c <= QLatin1Char('Z'))
            || (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('_') || c == QLatin1Char('-');
    });
}

QJsonObject localText(const std::map<std::string, std::string> &t)
{
    QJsonObject o;
    for (const auto &[language, text] : t)
        o.insert(QString::fromStdString(language), QString::fromStdString(text));
    return o;
}

QString csvField(const std::string &s, bool guard = true)
{
    QString q = QString::fromStdString(s);
    // A cell a spreadsheet would read as a formula is written as text
    // (OWASP's list: = + - @, a tab, a carriage return).
    if (guard && !q.isEmpty() && QStringLiteral("=+-@\t\r").contains(q.front()))
        q.prepend(QLatin1Char('\''));
    q.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

} // namespace

ClassSession::ClassSession(std::string joinCode, SessionLimits limits, std::int64_t startMs)
    : m_code(std::move(joinCode)), m_limits(limits), m_startMs(startMs)
{
}

std::string ClassSession::makeJoinCode(std::uint64_t seed, int length)
{
    static const char alphabet[] = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"; // no 0 O 1 I L
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> pick(0, int(sizeof(alphabet)) - 2);
    std::string code;
    for (int i = 0; i < std::clamp(length, 4, 8); ++i)
        code += alphabet[pick(rng)];
    return code;
}

bool ClassSession::codeMatches(const QString &code) const
{
    const QByteArray given = code.toUpper().toUtf8();
    // Every byte compared whatever the first difference: no timing to learn the code from.
    unsigned diff = unsigned(given.size() ^ int(m_code.size()));
    for (std::size_t i = 0; i < m_code.size(); ++i)
        diff |= unsigned(char(i < std::size_t(given.size()) ? given[qsizetype(i)] : 0) ^ m_code[i]);
    return diff == 0 && !m_code.empty();
}

bool ClassSession::expired(std::int64_t nowMs) const
{
    return m_ended || nowMs - m_startMs > m_limits.maxSessionMs;
}

std::optional<Problem> ClassSession::ask(SessionQuestion q)
{
    if (q.id.empty() || q.id.size() > 64)
        return Problem{"question", "needs an id of 1 to 64 characters"};
    if (q.kind == SessionQuestion::Kind::Choice) {
        if (q.choices.size() < 2 || q.choices.size() > 12)
            return Problem{"question " + q.id, "needs 2 to 12 choices"};
        for (int a : q.answer)
            if (a < 0 || a >= int(q.choices.size()))
                return Problem{"question " + q.id, "an answer is not one of its choices"};
        if (q.answer.empty())
            return Problem{"question " + q.id, "has no right answer"};
    } else if (!std::isfinite(q.number) || !std::isfinite(q.tolerance) || q.tolerance < 0) {
        return Problem{"question " + q.id, "its number and tolerance must be finite"};
    }
    archive();
    m_current = std::move(q);
    m_revealed = false;
    m_choices.clear();
    m_numbers.clear();
    ++m_version;
    return std::nullopt;
}

void ClassSession::reveal()
{
    if (m_current)
        m_revealed = true;
}

void ClassSession::archive()
{
    if (m_current && (tally().answers > 0 || m_revealed))
        m_history.push_back(tally());
}

SessionTally ClassSession::tally() const
{
    SessionTally t;
    if (!m_current)
        return t;
    const SessionQuestion &q = *m_current;
    t.question = q.id;
    t.kind = q.kind;
    t.text = localText(q.text, "en");
    for (const auto &c : q.choices)
        t.choices.push_back(localText(c, "en"));
    if (q.kind == SessionQuestion::Kind::Choice) {
        for (int a : q.answer)
            t.answer += (t.answer.empty() ? "" : " | ") + t.choices[std::size_t(a)];
    } else {
        t.answer = formatFixed(q.number, q.decimals);
    }
    if (q.kind == SessionQuestion::Kind::Choice) {
        t.counts.assign(q.choices.size(), 0);
        for (const auto &[device, c] : m_choices) {
            ++t.counts[std::size_t(c)];
            if (std::find(q.answer.begin(), q.answer.end(), c) != q.answer.end())
                ++t.right;
        }
        t.answers = int(m_choices.size());
    } else {
        for (const auto &[device, x] : m_numbers) {
            t.numbers.push_back(x);
            if (std::fabs(x - q.number) <= q.tolerance)
                ++t.right;
        }
        std::sort(t.numbers.begin(), t.numbers.end());
        t.answers = int(m_numbers.size());
    }
    return t;
}

QByteArray ClassSession::tallyCsv() const
{
    std::vector<SessionTally> all = m_history;
    if (m_current && (tally().answers > 0 || m_revealed))
        all.push_back(tally());
    QString out = QStringLiteral("question,kind,answers,right,counts or values,question text,choices,right answer\n");
    for (const SessionTally &t : all) {
        QStringList cells;
        if (t.kind == SessionQuestion::Kind::Choice)
            for (int c : t.counts)
                cells << QString::number(c);
        else
            for (double x : t.numbers)
                cells << QString::number(x, 'g', 12);
        out += csvField(t.question) + QLatin1Char(',')
            + (t.kind == SessionQuestion::Kind::Choice ? QStringLiteral("choice") : QStringLiteral("number")) + QLatin1Char(',')
            + QString::number(t.answers) + QLatin1Char(',') + QString::number(t.right) + QLatin1Char(',')
            + csvField(cells.join(QLatin1Char(' ')).toStdString(), false) // numbers only: "-0.5" stays a number
            + QLatin1Char(',') + csvField(t.text) + QLatin1Char(',')
            + csvField(QString::fromStdString(std::accumulate(t.choices.begin(), t.choices.end(), std::string(),
                                                              [](std::string a, const std::string &b) {
                                                                  return a.empty() ? b : a + " | " + b;
                                                              }))
                           .toStdString())
            + QLatin1Char(',') + csvField(t.answer) + QLatin1Char('\n');
    }
    return out.toUtf8();
}

bool ClassSession::connect(const std::string &connection, std::int64_t nowMs)
{
    if (expired(nowMs) || int(m_connections.size()) >= m_limits.maxConnections)
        return false;
    m_connections[connection] = Connection{std::string(), m_limits.burst, nowMs};
    return true;
}

void ClassSession::disconnect(const std::string &connection)
{
    m_connections.erase(connection);
}

int ClassSession::students() const
{
    std::set<std::string> devices;
    for (const auto &[id, c] : m_connections)
        if (!c.device.empty())
            devices.insert(c.device);
    return int(devices.size());
}

QJsonObject ClassSession::error(const QString &message)
{
    ++m_refused;
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("error")}, {QStringLiteral("message"), message}};
}

std::optional<QJsonObject> ClassSession::receive(const std::string &connection, const QByteArray &message, std::int64_t nowMs)
{
    auto it = m_connections.find(connection);
    if (it == m_connections.end()) {
        ++m_refused;
        return std::nullopt;
    }
    Connection &c = it->second;
    // A token bucket: `burst` at once, refilled at messagesPerSecond.
    c.tokens = std::min(m_limits.burst, c.tokens + double(nowMs - c.lastMs) / 1000.0 * m_limits.messagesPerSecond);
    c.lastMs = nowMs;
    if (c.tokens < 1) {
        ++m_refused;
        return std::nullopt; // too fast: not even an error to send back
    }
    c.tokens -= 1;
    if (message.size() > m_limits.maxMessageBytes)
        return error(QStringLiteral("message too long"));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(message, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject())
        return error(QStringLiteral("not a JSON object"));
    const QJsonObject o = doc.object();
    const QString type = o.value(QLatin1String("type")).toString();
    if (expired(nowMs))
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("ended")}};
    if (type == QLatin1String("hello")) {
        const QString device = o.value(QLatin1String("device")).toString();
        if (!validDevice(device))
            return error(QStringLiteral("bad device token"));
        // One device a connection: a new token on the same socket would be
        // a second vote.
        if (!c.device.empty() && c.device != device.toStdString())
            return error(QStringLiteral("one device per connection"));
        // Phones keep their token across reconnections, so a class brings
        // about as many devices as students; tokens made up by a script do not.
        if (c.device.empty() && !m_devices.count(device.toStdString())) {
            if (int(m_devices.size()) >= 2 * m_limits.maxConnections)
                return error(QStringLiteral("too many devices in this session"));
            m_devices.insert(device.toStdString());
        }
        c.device = device.toStdString();
        return stateFor(connection);
    }
    if (type != QLatin1String("answer"))
        return error(QStringLiteral("unknown message type"));
    if (c.device.empty())
        return error(QStringLiteral("say hello first"));
    if (!m_current || o.value(QLatin1String("question")).toString().toStdString() != m_current->id)
        return error(QStringLiteral("that question is not open"));
    if (m_revealed)
        return error(QStringLiteral("the answer has been revealed"));
    const SessionQuestion &q = *m_current;
    QJsonObject ack{{QStringLiteral("type"), QStringLiteral("ack")}, {QStringLiteral("question"), QString::fromStdString(q.id)}};
    if (q.kind == SessionQuestion::Kind::Choice) {
        const QJsonValue v = o.value(QLatin1String("choice"));
        const double x = v.toDouble(-1);
        if (!v.isDouble() || x != std::floor(x) || x < 0 || x >= double(q.choices.size()))
            return error(QStringLiteral("not one of the choices"));
        m_choices[c.device] = int(x);
        ack.insert(QStringLiteral("choice"), int(x));
    } else {
        const QJsonValue v = o.value(QLatin1String("number"));
        if (!v.isDouble() || !std::isfinite(v.toDouble()) || std::fabs(v.toDouble()) > 1e12)
            return error(QStringLiteral("not a number"));
        m_numbers[c.device] = v.toDouble();
        ack.insert(QStringLiteral("number"), v.toDouble());
    }
    return ack;
}

QJsonObject ClassSession::questionMessage(const std::string &device) const
{
    const SessionQuestion &q = *m_current;
    QJsonObject o{{QStringLiteral("type"), QStringLiteral("question")},
                  {QStringLiteral("question"), QString::fromStdString(q.id)},
                  {QStringLiteral("kind"), q.kind == SessionQuestion::Kind::Choice ? QStringLiteral("choice") : QStringLiteral("number")},
                  {QStringLiteral("text"), localText(q.text)},
                  {QStringLiteral("image"), q.image},
                  {QStringLiteral("version"), m_version}};
    QJsonValue yours;
    if (q.kind == SessionQuestion::Kind::Choice) {
        QJsonArray choices;
        for (const auto &c : q.choices)
            choices.append(localText(c));
        o.insert(QStringLiteral("choices"), choices);
        if (auto it = m_choices.find(device); it != m_choices.end())
            yours = it->second;
    } else {
        o.insert(QStringLiteral("decimals"), q.decimals);
        if (auto it = m_numbers.find(device); it != m_numbers.end())
            yours = it->second;
    }
    o.insert(QStringLiteral("yours"), yours);
    return o;
}

QJsonObject ClassSession::revealMessage(const std::string &device) const
{
    const SessionQuestion &q = *m_current;
    QJsonObject o{{QStringLiteral("type"), QStringLiteral("reveal")}, {QStringLiteral("question"), QString::fromStdString(q.id)}};
    QJsonValue yours;
    if (q.kind == SessionQuestion::Kind::Choice) {
        QJsonArray answer;
        for (int a : q.answer)
            answer.append(a);
        o.insert(QStringLiteral("answer"), answer);
        if (auto it = m_choices.find(device); it != m_choices.end())
            yours = it->second;
    } else {
        o.insert(QStringLiteral("number"), q.number);
        o.insert(QStringLiteral("tolerance"), q.tolerance);
        if (auto it = m_numbers.find(device); it != m_numbers.end())
            yours = it->second;
    }
    o.insert(QStringLiteral("yours"), yours);
    return o;
}

QJsonObject ClassSession::stateFor(const std::string &connection) const
{
    if (m_ended)
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("ended")}};
    auto it = m_connections.find(connection);
    const std::string device = it == m_connections.end() ? std::string() : it->second.device;
    if (!m_current)
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("idle")}};
    return m_revealed ? revealMessage(device) : questionMessage(device);
}

} // namespace attn
