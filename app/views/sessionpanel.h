#pragma once
// The teacher's side of a class session (a dock beside the maps): start
// it, show the address, its QR code and the join code big enough for the
// back row, ask the class the open lesson's questions (which key wins, which
// rows sum below 1, a weight to two decimals, a question of the lesson's
// quiz), watch the answers arrive as a histogram, reveal, move on, end, and
// save the anonymous tallies. The server is a ClassServer; the questions
// come from core/session/sessionquestions.h; the maps the phones see are
// drawn here, from the document, as the projector draws them.

#include "classserver.h"
#include "document.h"

#include <QElapsedTimer>
#include <QHostAddress>
#include <QWidget>

#include <functional>

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTimer;

namespace attn {

class AnswerHistogram;

class SessionPanel : public QWidget {
    Q_OBJECT

public:
    enum class Ask { Winner, RowSum, Weight, Quiz };

    SessionPanel(Document *doc, QWidget *parent = nullptr);
    ~SessionPanel() override;

    ClassServer *server() const { return m_server; }
    // port 0 with exactPort: any free port (the tests).
    std::optional<Problem> start(quint16 port = ClassServer::kDefaultPort, bool exactPort = false,
                                 const QString &joinCode = {}, const QHostAddress &address = QHostAddress::Any);
    void stop();
    bool running() const { return m_server->running(); }

    // Asks about the document's current head and query (and `key` for a
    // weight, `quizIndex` of the lesson's quiz).
    std::optional<Problem> ask(Ask kind, int key = -1, int quizIndex = -1);
    void reveal();
    // The next row (which key wins, the weight), the next key, or the next
    // quiz question; asked at once.
    std::optional<Problem> next();
    // A question is open and not yet revealed: the maps stay hidden.
    bool questionOpen() const;
    std::optional<Problem> saveTallies(const QString &path) const;

    // The map a phone gets for the open question (PNG), drawn from the document.
    QByteArray mapImage() const;
    // The decimals the projector's map shows, so that the phone's agree (2 to 4).
    void setDecimalsSource(std::function<int()> decimals) { m_decimals = std::move(decimals); }
    QString studentUrl() const;     // on the chosen address
    QString joinCode() const { return m_server->joinCode(); }
    AnswerHistogram *histogram() const { return m_histogram; }
    QString countText() const;      // "23 answers from 31 students"

signals:
    // True while a question about the weights is open: the window hides the
    // answers (F7) until the reveal.
    void hidingWanted(bool hide);
    void runningChanged(bool running);
    void problem(const QString &message);
    void saveRequested(); // the window asks where (a file dialog)

protected:
    void changeEvent(QEvent *event) override;

private:
    void build();
    void retranslate();
    void applyFonts();
    void refreshRunning();
    void refreshAddress();
    void refreshQuestion();
    void refreshTally();
    void refreshAskChoices();
    void askFromControls();
    QString localText(const std::map<std::string, std::string> &text) const;

    Document *m_doc;
    ClassServer *m_server;
    // What was asked, to ask the next one and draw its map.
    Ask m_asked = Ask::Winner;
    int m_head = 0, m_query = 0, m_key = 0, m_quiz = 0;
    bool m_stale = false; // the lesson changed since the question was asked
    std::function<int()> m_decimals;
    static constexpr qint64 kFrameMs = 16;
    QTimer *m_tallyTimer = nullptr;
    QElapsedTimer m_tallyClock; // since the histogram was last refreshed

    QStackedWidget *m_pages;
    // Stopped.
    QLabel *m_intro;
    QLabel *m_portLabel;
    QSpinBox *m_port;
    QPushButton *m_start;
    // Running.
    QLabel *m_codeTitle, *m_code, *m_qr, *m_addressTitle;
    QLabel *m_url;
    QComboBox *m_address;
    QLabel *m_phoneLanguageLabel;
    QComboBox *m_phoneLanguage; // each phone's own, English, 中文
    QLabel *m_students;
    QLabel *m_askTitle;
    QComboBox *m_askKind, *m_askKey, *m_askQuiz;
    QPushButton *m_ask, *m_reveal, *m_next, *m_end, *m_save;
    QLabel *m_question, *m_count, *m_staleNote;
    AnswerHistogram *m_histogram;
};

} // namespace attn
