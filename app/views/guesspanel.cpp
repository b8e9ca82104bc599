#include "guesspanel.h"

#include "steppanel.h"
#include "viewbinding.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attn {

GuessBars::GuessBars(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("guessBars"));
    setToolTip(tr("Drag each bar to the weight you expect"));
    setMouseTracking(false);
}

void GuessBars::setKeys(const QStringList &labels)
{
    m_labels = labels;
    m_guess.assign(std::size_t(labels.size()), labels.isEmpty() ? 0.0 : 1.0 / labels.size());
    m_truth.clear();
    update();
}

void GuessBars::setGuess(const std::vector<double> &guess)
{
    m_guess = guess;
    m_guess.resize(std::size_t(m_labels.size()), 0.0);
    for (double &g : m_guess)
        g = std::clamp(g, 0.0, 1.0);
    update();
    emit guessChanged();
}

void GuessBars::setTruth(const std::vector<double> &truth)
{
    m_truth = truth;
    update();
}

QSize GuessBars::sizeHint() const
{
    return QSize(60 * std::max<qsizetype>(3, m_labels.size()), 8 * fontMetrics().height());
}

QSize GuessBars::minimumSizeHint() const
{
    return QSize(20 * std::max<qsizetype>(1, m_labels.size()), 5 * fontMetrics().height());
}

QRectF GuessBars::plotRect() const
{
    const double line = fontMetrics().height();
    return QRectF(4, line * 1.3, width() - 8, height() - line * 2.8);
}

void GuessBars::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF r = plotRect();
    const int n = int(m_labels.size());
    if (n == 0 || r.height() <= 0)
        return;
    p.setPen(QPen(QColor(0x99, 0x99, 0x99), 1));
    p.drawLine(r.bottomLeft(), r.bottomRight());
    const double slot = r.width() / n;
    const bool truth = m_truth.size() == std::size_t(n);
    for (int j = 0; j < n; ++j) {
        const double x = r.left() + j * slot;
        const double barW = truth ? slot * 0.36 : slot * 0.6;
        const double gx = truth ? x + slot * 0.12 : x + slot * 0.2;
        const double g = m_guess[std::size_t(j)];
        const QRectF bar(gx, r.bottom() - g * r.height(), barW, g * r.height());
        p.fillRect(bar, QColor(0xe6, 0x7e, 0x22));
        p.setPen(Qt::black);
        p.drawText(QRectF(gx - slot * 0.1, bar.top() - fontMetrics().height(), barW + slot * 0.2, fontMetrics().height()),
                   Qt::AlignCenter, QString::number(g, 'f', 2));
        if (truth) {
            const double w = m_truth[std::size_t(j)];
            const QRectF tb(x + slot * 0.52, r.bottom() - w * r.height(), barW, w * r.height());
            p.fillRect(tb, QColor(0x2c, 0x3e, 0x80));
            p.drawText(QRectF(tb.left() - slot * 0.1, tb.top() - fontMetrics().height(), barW + slot * 0.2,
                              fontMetrics().height()),
                       Qt::AlignCenter, QString::number(w, 'f', 2));
        }
        p.drawText(QRectF(x, r.bottom() + 2, slot, fontMetrics().height() * 1.4), Qt::AlignHCenter | Qt::AlignTop,
                   m_labels[j]);
    }
}

void GuessBars::setFromPoint(const QPointF &pos)
{
    const QRectF r = plotRect();
    const int n = int(m_labels.size());
    if (n == 0 || !m_truth.empty())
        return; // revealed: the guess stands
    const int j = std::clamp(int((pos.x() - r.left()) / (r.width() / n)), 0, n - 1);
    m_guess[std::size_t(j)] = std::clamp((r.bottom() - pos.y()) / r.height(), 0.0, 1.0);
    update();
    emit guessChanged();
}

void GuessBars::mousePressEvent(QMouseEvent *event)
{
    setFromPoint(event->position());
}

void GuessBars::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton)
        setFromPoint(event->position());
}

// ---------------------------------------------------------------------------

GuessPanel::GuessPanel(Document *doc, Classroom *classroom, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_classroom(classroom)
{
    setObjectName(QStringLiteral("guess"));
    auto *layout = new QVBoxLayout(this);
    m_prompt = new QLabel(this);
    m_prompt->setWordWrap(true);
    layout->addWidget(m_prompt);
    // One button a key, in a strip that scrolls sideways: a long sentence
    // must not widen the panel (and with it the window) past the screen.
    m_winners = new QWidget;
    new QHBoxLayout(m_winners);
    m_winners->layout()->setContentsMargins(0, 0, 0, 0);
    m_winnerStrip = new QScrollArea(this);
    m_winnerStrip->setWidget(m_winners);
    m_winnerStrip->setWidgetResizable(true);
    m_winnerStrip->setFrameShape(QFrame::NoFrame);
    m_winnerStrip->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_winnerStrip->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    layout->addWidget(m_winnerStrip);
    m_bars = new GuessBars(this);
    layout->addWidget(m_bars, 1);
    auto *buttons = new QHBoxLayout;
    m_reveal = new QPushButton(tr("&Reveal"), this);
    m_next = new QPushButton(tr("Ne&xt row"), this);
    buttons->addWidget(m_reveal);
    buttons->addWidget(m_next);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    m_score = new QLabel(this);
    m_score->setWordWrap(true);
    layout->addWidget(m_score);
    connect(m_reveal, &QPushButton::clicked, this, [this] { reveal(); });
    connect(m_next, &QPushButton::clicked, this, &GuessPanel::nextRow);
    new ViewBinding(this, doc, ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings,
                    [this] { refresh(); }, ViewBinding::FollowsCurrent | ViewBinding::EvenWhenHidden);
    refresh();
}

std::vector<double> GuessPanel::truthRow() const
{
    const Trace &t = m_doc->trace();
    if (t.heads.empty())
        return {};
    const HeadTrace &h = t.heads[std::size_t(std::clamp(m_doc->currentHead(), 0, int(t.heads.size()) - 1))];
    const int row = std::clamp(m_doc->currentQuery(), 0, std::max(0, int(h.weights.rows()) - 1));
    std::vector<double> out;
    for (Eigen::Index j = 0; j < h.weights.cols(); ++j)
        out.push_back(h.weights(row, j));
    return out;
}

void GuessPanel::refresh()
{
    const Scenario &s = m_doc->scenario();
    const auto ql = queryLabels(s), kl = keyLabels(s);
    const int row = std::clamp(m_doc->currentQuery(), 0, std::max(0, int(ql.size()) - 1));
    const int keys = int(kl.size());
    if (row != m_row || keys != m_keys) {
        // A new row (or new keys): a fresh guess.
        m_row = row;
        m_keys = keys;
        m_revealed = false;
        QStringList labels;
        for (const auto &k : kl)
            labels << QString::fromStdString(k);
        m_bars->setKeys(labels);
        QLayout *l = m_winners->layout();
        while (QLayoutItem *item = l->takeAt(0)) {
            delete item->widget();
            delete item;
        }
        l->addWidget(new QLabel(tr("Winner:"), m_winners));
        if (keys > kMaxWinnerButtons)
            l->addWidget(new QLabel(tr("(%1 keys: too many to click; drag the bars to guess)").arg(keys), m_winners));
        for (int j = 0; j < keys && keys <= kMaxWinnerButtons; ++j) {
            auto *b = new QPushButton(labels[j], m_winners);
            b->setObjectName(QStringLiteral("winner-%1").arg(j));
            b->setToolTip(tr("Guess that %1 gets the most weight").arg(labels[j]));
            connect(b, &QPushButton::clicked, this, [this, j] { guessWinner(j); });
            l->addWidget(b);
        }
        static_cast<QHBoxLayout *>(l)->addStretch(1);
        m_winnerStrip->setFixedHeight(m_winners->sizeHint().height() + m_winnerStrip->horizontalScrollBar()->sizeHint().height());
    }
    m_prompt->setText(tr("Query %1: which key wins? Click it, or drag the bars to guess the whole row, then Reveal.")
                          .arg(QString::fromStdString(ql.empty() ? "" : ql[std::size_t(row)])));
    if (m_revealed)
        m_bars->setTruth(truthRow()); // follows edits and drags once revealed
    m_reveal->setEnabled(!m_revealed);
    m_next->setEnabled(row + 1 < int(ql.size()) || m_revealed);
    m_score->setText(scoreText());
}

void GuessPanel::guessWinner(int key)
{
    if (m_revealed)
        return;
    std::vector<double> g(std::size_t(std::max(m_keys, 0)), 0.0);
    if (key >= 0 && key < int(g.size()))
        g[std::size_t(key)] = 1.0;
    m_bars->setGuess(g);
}

void GuessPanel::setGuess(const std::vector<double> &guess)
{
    m_bars->setGuess(guess);
}

std::vector<double> GuessPanel::guess() const
{
    return m_bars->guess();
}

double GuessPanel::guessScore(std::vector<double> guess, const std::vector<double> &truth)
{
    guess.resize(truth.size(), 0.0);
    double sum = 0;
    for (double g : guess)
        sum += g;
    double score = 0;
    for (std::size_t j = 0; j < truth.size(); ++j)
        score += std::abs((sum > 0 ? guess[j] / sum : 0.0) - truth[j]);
    return score;
}

double GuessPanel::reveal()
{
    const std::vector<double> truth = truthRow();
    m_lastScore = guessScore(m_bars->guess(), truth);
    if (!m_revealed) {
        ++m_rounds;
        m_total += m_lastScore;
    }
    m_revealed = true;
    m_bars->setTruth(truth);
    refresh();
    return m_lastScore;
}

void GuessPanel::nextRow()
{
    const int n = queryCount(m_doc->scenario());
    if (n <= 0)
        return;
    m_doc->setCurrentQuery((std::clamp(m_doc->currentQuery(), 0, n - 1) + 1) % n);
    if (n == 1) {
        m_row = -1; // one query: the next round starts it over
        refresh();
    }
}

QString GuessPanel::scoreText() const
{
    if (!m_revealed)
        return m_rounds ? tr("Rounds: %1 · average difference %2").arg(m_rounds).arg(m_total / m_rounds, 0, 'f', 2)
                        : QString();
    //: The score of a guess: the total absolute difference from the true row (0 = perfect, 2 = worst).
    return tr("Orange: your guess (scaled to sum to 1 for the score) · blue: the true weights. Difference Σ|guess − w| = "
              "%1 (0 is perfect, 2 the worst).")
        .arg(m_lastScore, 0, 'f', 2);
}

} // namespace attn
