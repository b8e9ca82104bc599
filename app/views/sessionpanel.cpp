#include "sessionpanel.h"

#include "answerhistogram.h"
#include "atomicwrite.h"
#include "figureexport.h"
#include "heatmapplot.h"
#include "qrcode.h"
#include "quiz.h"
#include "sessionquestions.h"
#include "stagedata.h"

#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScreen>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace attn {

namespace {

// One row of a map, on the full map's colour range, so that the phone's
// colours are the projector's.
HeatmapData cropRow(HeatmapData d, int row)
{
    if (d.scale != HeatmapScale::Probability && d.range == 0) {
        double r = 0;
        for (Eigen::Index i = 0; i < d.values.rows(); ++i)
            for (Eigen::Index j = 0; j < d.values.cols(); ++j)
                if (std::isfinite(d.values(i, j)) && !(d.blocked.size() && d.blocked(i, j)))
                    r = std::max(r, std::fabs(d.values(i, j)));
        d.range = r;
    }
    // A one-row strip leaves the colour bar no room for its words.
    d.colorBarLabel.clear();
    // The phone's question says what the map is, in the phone's language;
    // the map keeps only the tokens and numbers, which need none.
    d.title.clear();
    d.rowAxisLabel.clear();
    d.colAxisLabel.clear();
    d.values = Matrix(d.values.row(row));
    if (d.blocked.size())
        d.blocked = BoolMatrix(d.blocked.row(row));
    if (d.outlined.size())
        d.outlined = BoolMatrix(d.outlined.row(row));
    d.rowLabels = QStringList{d.rowLabels.value(row)};
    if (!d.rowNotes.isEmpty())
        d.rowNotes = QStringList{d.rowNotes.value(row)};
    if (!d.rowFlagged.isEmpty())
        d.rowFlagged = QVector<bool>{d.rowFlagged.value(row)};
    return d;
}

} // namespace

SessionPanel::SessionPanel(Document *doc, QWidget *parent) : QWidget(parent), m_doc(doc), m_server(new ClassServer(this))
{
    build();
    applyFonts();
    m_server->setImageProvider([this](const SessionQuestion &) { return mapImage(); });
    // 500 phones answering within a second would redraw the dock 500 times:
    // at most once a frame, and never later than one frame after the last answer.
    m_tallyTimer = new QTimer(this);
    m_tallyTimer->setSingleShot(true);
    connect(m_tallyTimer, &QTimer::timeout, this, &SessionPanel::refreshTally);
    auto soon = [this] {
        if (m_tallyTimer->isActive())
            return;
        const qint64 since = m_tallyClock.isValid() ? m_tallyClock.elapsed() : kFrameMs;
        m_tallyTimer->start(int(std::max<qint64>(0, kFrameMs - since)));
    };
    connect(m_server, &ClassServer::studentsChanged, this, soon);
    connect(m_server, &ClassServer::answersChanged, this, soon);
    connect(m_server, &ClassServer::stopped, this, [this] {
        refreshRunning();
        emit hidingWanted(false);
        emit runningChanged(false);
    });
    // Only a running session follows the lesson: a drag at n = 1024 with the
    // dock closed costs nothing here.
    connect(m_doc, &Document::changed, this, [this] {
        if (!m_server->running())
            return;
        if (questionOpen() && m_asked != Ask::Quiz)
            m_stale = true;
        refreshAskChoices();
        refreshQuestion();
    });
    connect(m_doc, &Document::currentChanged, this, [this] {
        if (m_server->running())
            refreshAskChoices();
    });
    retranslate();
    refreshRunning();
}

SessionPanel::~SessionPanel()
{
    // The phones are told the session ended; nobody here listens any more.
    m_server->blockSignals(true);
    m_server->stop();
}

void SessionPanel::build()
{
    auto *outer = new QVBoxLayout(this);
    m_pages = new QStackedWidget(this);
    outer->addWidget(m_pages);

    auto *stopped = new QWidget(m_pages);
    auto *sl = new QVBoxLayout(stopped);
    m_intro = new QLabel(stopped);
    m_intro->setWordWrap(true);
    sl->addWidget(m_intro);
    auto *portRow = new QHBoxLayout;
    m_portLabel = new QLabel(stopped);
    m_port = new QSpinBox(stopped);
    m_port->setRange(1024, 65535);
    m_port->setValue(ClassServer::kDefaultPort);
    m_portLabel->setBuddy(m_port);
    portRow->addWidget(m_portLabel);
    portRow->addWidget(m_port);
    portRow->addStretch();
    sl->addLayout(portRow);
    m_start = new QPushButton(stopped);
    connect(m_start, &QPushButton::clicked, this, [this] {
        if (auto p = start(quint16(m_port->value())))
            emit problem(QString::fromStdString(p->toString()));
    });
    sl->addWidget(m_start);
    sl->addStretch();
    m_pages->addWidget(stopped);

    auto *running = new QWidget(m_pages);
    auto *rl = new QVBoxLayout(running);
    auto *top = new QGridLayout;
    m_codeTitle = new QLabel(running);
    m_code = new QLabel(running);
    m_code->setObjectName(QStringLiteral("joinCode"));
    m_code->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_qr = new QLabel(running);
    m_qr->setObjectName(QStringLiteral("qrCode"));
    m_qr->setAlignment(Qt::AlignTop | Qt::AlignRight);
    m_addressTitle = new QLabel(running);
    m_url = new QLabel(running);
    m_url->setObjectName(QStringLiteral("studentAddress"));
    m_url->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Several networks (wired and Wi-Fi, a hotspot): the teacher picks the one the phones are on.
    m_address = new QComboBox(running);
    m_address->setObjectName(QStringLiteral("studentHost"));
    connect(m_address, &QComboBox::currentIndexChanged, this, &SessionPanel::refreshAddress);
    m_phoneLanguageLabel = new QLabel(running);
    m_phoneLanguage = new QComboBox(running);
    m_phoneLanguage->setObjectName(QStringLiteral("phoneLanguage"));
    m_phoneLanguageLabel->setBuddy(m_phoneLanguage);
    connect(m_phoneLanguage, &QComboBox::currentIndexChanged, this, [this] {
        const QString chosen = m_phoneLanguage->currentData().toString();
        m_server->setLanguage(chosen.isEmpty() ? QLocale().name() : chosen);
        refreshAddress();
    });
    m_students = new QLabel(running);
    m_students->setObjectName(QStringLiteral("studentCount"));
    m_students->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    top->addWidget(m_codeTitle, 0, 0);
    top->addWidget(m_code, 1, 0);
    top->addWidget(m_qr, 0, 1, 3, 1);
    top->addWidget(m_addressTitle, 3, 0, 1, 2);
    top->addWidget(m_url, 4, 0, 1, 2);
    top->addWidget(m_address, 5, 0, 1, 2, Qt::AlignLeft);
    auto *languageRow = new QHBoxLayout;
    languageRow->addWidget(m_phoneLanguageLabel);
    languageRow->addWidget(m_phoneLanguage);
    languageRow->addStretch();
    top->addLayout(languageRow, 6, 0, 1, 2);
    top->addWidget(m_students, 7, 0, 1, 2);
    top->setColumnStretch(0, 1);
    rl->addLayout(top);

    auto *askBox = new QGridLayout;
    m_askTitle = new QLabel(running);
    m_askKind = new QComboBox(running);
    m_askKind->setObjectName(QStringLiteral("askKind"));
    m_askKind->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_askKind->setMinimumContentsLength(12);
    m_askKey = new QComboBox(running);
    m_askQuiz = new QComboBox(running);
    m_askQuiz->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_askQuiz->setMinimumContentsLength(16);
    m_ask = new QPushButton(running);
    m_ask->setObjectName(QStringLiteral("askButton"));
    // The question's words need the dock's whole width: "Ask:" above them.
    askBox->addWidget(m_askTitle, 0, 0);
    askBox->addWidget(m_askKind, 1, 0);
    askBox->addWidget(m_askKey, 2, 0);
    askBox->addWidget(m_askQuiz, 2, 0);
    askBox->addWidget(m_ask, 3, 0, Qt::AlignLeft);
    askBox->setColumnStretch(0, 1);
    rl->addLayout(askBox);
    connect(m_askKind, &QComboBox::currentIndexChanged, this, &SessionPanel::refreshAskChoices);
    connect(m_ask, &QPushButton::clicked, this, &SessionPanel::askFromControls);

    m_question = new QLabel(running);
    m_question->setObjectName(QStringLiteral("sessionQuestion"));
    m_question->setWordWrap(true);
    m_question->setTextFormat(Qt::PlainText); // a lesson file's text, never markup
    rl->addWidget(m_question);
    m_histogram = new AnswerHistogram(running);
    m_histogram->setObjectName(QStringLiteral("answerHistogram"));
    rl->addWidget(m_histogram, 1);
    m_count = new QLabel(running);
    m_count->setObjectName(QStringLiteral("answerCount"));
    // Its text changes with every answer: its width must not move the dock's layout.
    m_count->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    rl->addWidget(m_count);
    m_staleNote = new QLabel(running);
    m_staleNote->setWordWrap(true);
    m_staleNote->setStyleSheet(QStringLiteral("color: #9a4d00;"));
    rl->addWidget(m_staleNote);
    auto *buttons = new QGridLayout;
    m_reveal = new QPushButton(running);
    m_reveal->setObjectName(QStringLiteral("revealButton"));
    m_next = new QPushButton(running);
    m_next->setObjectName(QStringLiteral("nextButton"));
    m_save = new QPushButton(running);
    m_save->setObjectName(QStringLiteral("saveTallies"));
    m_end = new QPushButton(running);
    m_end->setObjectName(QStringLiteral("endSession"));
    buttons->addWidget(m_reveal, 0, 0);
    buttons->addWidget(m_next, 0, 1);
    buttons->addWidget(m_save, 1, 0);
    buttons->addWidget(m_end, 1, 1);
    rl->addLayout(buttons);
    connect(m_reveal, &QPushButton::clicked, this, &SessionPanel::reveal);
    connect(m_next, &QPushButton::clicked, this, [this] {
        if (auto p = next())
            emit problem(QString::fromStdString(p->toString()));
    });
    connect(m_end, &QPushButton::clicked, this, &SessionPanel::stop);
    connect(m_save, &QPushButton::clicked, this, &SessionPanel::saveRequested);
    m_pages->addWidget(running);
}

void SessionPanel::retranslate()
{
    m_intro->setText(tr("The whole class answers from their phones: start a session, and students open the address "
                        "(or scan the code) on the classroom's network. Nothing is kept but the anonymous counts, "
                        "and only if you save them."));
    m_portLabel->setText(tr("&Port:"));
    m_port->setToolTip(tr("If this port is taken, the next free one is used"));
    m_start->setText(tr("&Start the session"));
    m_codeTitle->setText(tr("Join code"));
    m_addressTitle->setText(tr("Students open:"));
    m_phoneLanguageLabel->setText(tr("Phones in:"));
    {
        const int keep = std::max(0, m_phoneLanguage->currentIndex());
        QSignalBlocker block(m_phoneLanguage);
        m_phoneLanguage->clear();
        m_phoneLanguage->addItem(tr("each phone's language"), QString());
        m_phoneLanguage->addItem(QStringLiteral("English"), QStringLiteral("en"));
        m_phoneLanguage->addItem(QStringLiteral("中文"), QStringLiteral("zh_CN"));
        m_phoneLanguage->setCurrentIndex(keep);
    }
    m_askTitle->setText(tr("Ask:"));
    const int kind = m_askKind->currentIndex();
    {
        QSignalBlocker block(m_askKind);
        m_askKind->clear();
        m_askKind->addItem(tr("Which key wins for the selected query?"), int(Ask::Winner));
        m_askKind->addItem(tr("Which row's weights sum below 1?"), int(Ask::RowSum));
        m_askKind->addItem(tr("The weight of a key, to two decimals"), int(Ask::Weight));
        m_askKind->addItem(tr("A question of the lesson's quiz"), int(Ask::Quiz));
        m_askKind->setCurrentIndex(std::max(0, kind));
    }
    m_ask->setText(tr("&Ask the class"));
    m_reveal->setText(tr("&Reveal"));
    m_next->setText(tr("&Next"));
    m_save->setText(tr("Save the tallies…"));
    m_end->setText(tr("&End the session"));
    m_histogram->setEmptyText(tr("No answers yet"));
    refreshAskChoices();
    refreshTally();
    refreshQuestion();
}

void SessionPanel::applyFonts()
{
    // Derived from the panel's font, again at every zoom: the code and the
    // counts are read from the back row.
    auto scaled = [this](double factor, bool bold) {
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() * factor);
        f.setBold(bold);
        return f;
    };
    QFont big = scaled(3.2, true);
    big.setLetterSpacing(QFont::AbsoluteSpacing, big.pointSizeF() * 0.25);
    big.setStyleHint(QFont::Monospace);
    m_code->setFont(big);
    m_url->setFont(scaled(1.3, true));
    m_students->setFont(scaled(1.4, false));
    m_question->setFont(scaled(1.2, true));
    m_histogram->setFont(scaled(1.25, false));
    refreshAddress(); // the QR code's modules follow the type
}

void SessionPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    if (event->type() == QEvent::FontChange)
        applyFonts();
    QWidget::changeEvent(event);
}

std::optional<Problem> SessionPanel::start(quint16 port, bool exactPort, const QString &joinCode, const QHostAddress &address)
{
    ClassServer::Options o;
    o.port = port;
    o.exactPort = exactPort;
    o.joinCode = joinCode;
    o.address = address;
    o.language = QLocale().name();
    if (auto p = m_server->start(o))
        return p;
    m_stale = false;
    refreshRunning();
    emit runningChanged(true);
    return std::nullopt;
}

void SessionPanel::stop()
{
    m_server->stop(); // stopped() refreshes
}

void SessionPanel::refreshRunning()
{
    const bool on = m_server->running();
    m_pages->setCurrentIndex(on ? 1 : 0);
    if (on) {
        m_code->setText(joinCode());
        QSignalBlocker block(m_address);
        m_address->clear();
        QStringList hosts = m_server->addresses();
        // 127.0.0.1 only reaches this computer: offered only when there is no network.
        if (hosts.size() > 1)
            hosts.removeAll(QStringLiteral("127.0.0.1"));
        for (const QString &host : hosts)
            m_address->addItem(host, host);
        m_address->setVisible(hosts.size() > 1);
        refreshAddress();
    }
    refreshAskChoices();
    refreshQuestion();
    refreshTally();
}

QString SessionPanel::studentUrl() const
{
    const QString host = m_address->currentData().toString();
    return m_server->studentUrl(host.isEmpty() ? QStringLiteral("127.0.0.1") : host, m_phoneLanguage->currentData().toString())
        .toString();
}

void SessionPanel::refreshAddress()
{
    if (!m_server->running())
        return;
    const QString url = studentUrl();
    m_url->setText(url);
    const int module = std::max(3, fontMetrics().height() / 4);
    m_qr->setPixmap(QPixmap::fromImage(qrCodeImage(url, module)));
}

void SessionPanel::refreshAskChoices()
{
    const Ask kind = Ask(m_askKind->currentData().toInt());
    const Scenario &s = m_doc->scenario();
    m_askKey->setVisible(kind == Ask::Weight);
    m_askQuiz->setVisible(kind == Ask::Quiz);
    if (kind == Ask::Weight) {
        const int keep = m_askKey->currentIndex();
        const std::vector<std::string> &keys = s.sourceTokens.empty() ? s.tokens : s.sourceTokens;
        const int n = m_doc->trace().heads.empty() ? 0 : int(m_doc->trace().heads[0].weights.cols());
        QSignalBlocker block(m_askKey);
        m_askKey->clear();
        for (int j = 0; j < n; ++j) {
            const QString name = j < int(keys.size()) ? QString::fromStdString(keys[std::size_t(j)]) : QStringLiteral("k%1").arg(j + 1);
            m_askKey->addItem(tr("key %1").arg(name), j);
        }
        m_askKey->setCurrentIndex(std::clamp(keep, 0, std::max(0, n - 1)));
    }
    if (kind == Ask::Quiz) {
        const int keep = m_askQuiz->currentIndex();
        QSignalBlocker block(m_askQuiz);
        m_askQuiz->clear();
        for (std::size_t i = 0; i < s.quiz.size(); ++i)
            m_askQuiz->addItem(localText(s.quiz[i].question), int(i));
        m_askQuiz->setCurrentIndex(std::clamp(keep, 0, std::max(0, m_askQuiz->count() - 1)));
        if (s.quiz.empty())
            m_askQuiz->addItem(tr("(this lesson has no quiz)"));
    }
    m_ask->setEnabled(m_server->running() && (kind != Ask::Quiz || !s.quiz.empty()));
}

void SessionPanel::askFromControls()
{
    const Ask kind = Ask(m_askKind->currentData().toInt());
    if (auto p = ask(kind, m_askKey->currentData().toInt(), m_askQuiz->currentData().toInt()))
        emit problem(QString::fromStdString(p->toString()));
}

std::optional<Problem> SessionPanel::ask(Ask kind, int key, int quizIndex)
{
    const Scenario &s = m_doc->scenario();
    const Trace &t = m_doc->trace();
    const int head = m_doc->currentHead(), query = std::max(0, m_doc->currentQuery());
    Result<SessionQuestion> q = Problem{"question", "unknown"};
    switch (kind) {
    case Ask::Winner:
        q = winnerQuestion(s, t, head, query);
        break;
    case Ask::RowSum:
        q = rowSumQuestion(s, t, head);
        break;
    case Ask::Weight:
        q = weightQuestion(s, t, head, query, key);
        break;
    case Ask::Quiz:
        if (quizIndex < 0 || quizIndex >= int(s.quiz.size()))
            return Problem{"quiz", "this lesson has no question " + std::to_string(quizIndex + 1)};
        q = quizQuestion(s.quiz[std::size_t(quizIndex)]);
        break;
    }
    if (!q.ok())
        return *q.problem();
    if (auto p = m_server->ask(q.value()))
        return p;
    m_asked = kind;
    m_head = head;
    m_query = query;
    m_key = key;
    m_quiz = quizIndex;
    m_stale = false;
    refreshQuestion();
    refreshTally();
    emit hidingWanted(kind != Ask::Quiz);
    return std::nullopt;
}

void SessionPanel::reveal()
{
    if (!questionOpen())
        return;
    m_server->reveal();
    // The truth on the maps: the asked row selected, the answers shown.
    if (m_asked != Ask::Quiz && m_asked != Ask::RowSum) {
        m_doc->setCurrentHead(m_head);
        m_doc->setCurrentQuery(m_query);
    }
    emit hidingWanted(false);
    refreshQuestion();
    refreshTally();
}

std::optional<Problem> SessionPanel::next()
{
    const Trace &t = m_doc->trace();
    const int rows = t.heads.empty() ? 0 : int(t.heads[0].weights.rows());
    const int cols = t.heads.empty() ? 0 : int(t.heads[0].weights.cols());
    switch (m_asked) {
    case Ask::Winner:
        // The next row with two open keys, so that "Next" never lands on a
        // question that cannot be asked.
        for (int step = 1; step < rows; ++step) {
            const int row = (m_query + step) % rows;
            m_doc->setCurrentQuery(row);
            if (winnerQuestion(m_doc->scenario(), t, m_head, row).ok())
                return ask(Ask::Winner);
        }
        return Problem{"next", "no other row has two open keys"};
    case Ask::RowSum:
        return ask(Ask::RowSum);
    case Ask::Weight:
        for (int step = 1; step < cols; ++step) {
            const int key = (m_key + step) % cols;
            if (weightQuestion(m_doc->scenario(), t, m_head, m_query, key).ok()) {
                m_askKey->setCurrentIndex(key);
                return ask(Ask::Weight, key);
            }
        }
        return Problem{"next", "no other key is open for this query"};
    case Ask::Quiz: {
        const int n = int(m_doc->scenario().quiz.size());
        if (n == 0)
            return Problem{"quiz", "this lesson has no quiz"};
        const int index = (m_quiz + 1) % n;
        m_askQuiz->setCurrentIndex(index);
        return ask(Ask::Quiz, -1, index);
    }
    }
    return std::nullopt;
}

bool SessionPanel::questionOpen() const
{
    return m_server->running() && m_server->session().current() && !m_server->session().revealed();
}

QString SessionPanel::localText(const std::map<std::string, std::string> &text) const
{
    return QString::fromStdString(attn::localText(text, QLocale().name().toStdString()));
}

void SessionPanel::refreshQuestion()
{
    const SessionQuestion *q = m_server->running() ? m_server->session().current() : nullptr;
    m_question->setText(q ? localText(q->text) : tr("Nothing asked yet: choose a question and Ask the class."));
    m_reveal->setEnabled(questionOpen());
    m_next->setEnabled(q != nullptr);
    m_save->setEnabled(m_server->session().history().size() + (q ? 1 : 0) > 0);
    m_staleNote->setVisible(m_stale && questionOpen());
    m_staleNote->setText(tr("The lesson changed after the question was asked: its answer is the one from then. "
                            "Ask again for the new numbers."));
}

QString SessionPanel::countText() const
{
    const int students = m_server->students();
    if (!m_server->running() || !m_server->session().current())
        return QString(); // the count of students stands above
    const SessionTally t = m_server->session().tally();
    QString text = tr("Answers: %1 of %2 students").arg(t.answers).arg(students);
    if (m_server->session().revealed())
        text += QStringLiteral(" · ") + tr("right: %1").arg(t.right);
    return text;
}

void SessionPanel::refreshTally()
{
    m_tallyTimer->stop();
    m_tallyClock.start();
    m_students->setText(tr("Students connected: %1").arg(m_server->students()));
    m_count->setText(countText());
    const SessionQuestion *q = m_server->running() ? m_server->session().current() : nullptr;
    if (!q) {
        m_histogram->setBars({}, false);
        return;
    }
    const SessionTally t = m_server->session().tally();
    const bool revealed = m_server->session().revealed();
    std::vector<AnswerBar> bars;
    if (q->kind == SessionQuestion::Kind::Choice) {
        for (std::size_t c = 0; c < q->choices.size(); ++c) {
            AnswerBar b;
            b.label = localText(q->choices[c]);
            b.count = t.counts[c];
            b.right = std::find(q->answer.begin(), q->answer.end(), int(c)) != q->answer.end();
            bars.push_back(b);
        }
    } else {
        bars = AnswerHistogram::numberBars(t.numbers, q->number, q->tolerance, q->decimals);
    }
    m_histogram->setBars(std::move(bars), revealed);
    refreshQuestion();
}

QByteArray SessionPanel::mapImage() const
{
    const Scenario &s = m_doc->scenario();
    const Trace &t = m_doc->trace();
    if (m_asked == Ask::Quiz || m_head >= int(t.heads.size()))
        return {};
    StageOptions options;
    options.head = m_head;
    HeatmapData d = stageData(s, t, Stage::Masked, options);
    const bool oneRow = m_asked != Ask::RowSum;
    if (oneRow) {
        if (m_query >= d.values.rows())
            return {};
        d = cropRow(std::move(d), m_query);
    }
    // A phone in portrait: about its width in CSS pixels, drawn at twice
    // that, in type a little larger than the window's.
    FigureStyle style;
    style.cellText = CellTextMode::Always;
    HeatmapPlot plot;
    styleFigurePlot(&plot, style);
    QFont f = figureFont();
    f.setPointSizeF(f.pointSizeF() * 1.2);
    plot.setFont(f);
    if (m_decimals)
        plot.setDecimalsCap(std::clamp(m_decimals(), 2, 4));
    plot.setData(std::move(d));
    FigureSize size;
    size.width = 420;
    size.height = oneRow ? 190 : 420;
    size.scale = 2;
    plot.resize(size.width, size.height);
    return renderFigure(&plot, FigureFormat::Png, size);
}

std::optional<Problem> SessionPanel::saveTallies(const QString &path) const
{
    return writeFileAtomically(path, m_server->session().tallyCsv());
}

} // namespace attn
