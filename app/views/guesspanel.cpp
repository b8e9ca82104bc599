#include "guesspanel.h"

#include "numbers.h"
#include "steppanel.h"
#include "viewbinding.h"

#include <QFontMetricsF>
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

namespace {

QString barValue(double v)
{
    return QString::fromStdString(formatFixed(v, 2, Minus::Typographic));
}

} // namespace

QList<GuessBars::Label> GuessBars::valueLabels() const
{
    const QRectF r = plotRect();
    const int n = int(m_labels.size());
    QList<Label> out;
    if (n == 0 || r.height() <= 0 || r.width() <= 0)
        return out;
    const QFontMetricsF fm(font());
    const bool truth = m_truth.size() == std::size_t(n);
    const double slot = r.width() / n;
    // Each value keeps to its own part of its key's slot (the guess's left
    // half and the truth's right half once revealed), so no two can meet.
    const double room = truth ? slot / 2 : slot;
    const double wide = fm.horizontalAdvance(QStringLiteral("0.00")) + 4, tall = fm.height();
    const bool across = wide <= room, upright = !across && tall <= room;
    if (!across && !upright)
        return out; // too narrow to write a value: the bars alone
    for (int j = 0; j < n; ++j) {
        const double x = r.left() + j * slot;
        for (int k = 0; k < (truth ? 2 : 1); ++k) {
            const double v = k == 0 ? m_guess[std::size_t(j)] : m_truth[std::size_t(j)];
            const double barTop = r.bottom() - std::clamp(v, 0.0, 1.0) * r.height();
            const double left = x + k * room, centre = left + room / 2;
            Label l;
            l.text = barValue(v);
            l.rotated = upright;
            if (across) {
                l.box = QRectF(centre - wide / 2, barTop - tall, wide, tall);
            } else {
                // Upright, reading upwards from the top of the bar; a tall
                // bar holds its own value inside it.
                double top = barTop - 2 - wide;
                if (top < 0)
                    top = r.bottom() - barTop >= wide + 4 ? barTop + 2 : 0;
                l.box = QRectF(centre - tall / 2, top, tall, wide);
            }
            out.append(l);
        }
    }
    return out;
}

QList<GuessBars::Label> GuessBars::keyLabels() const
{
    const QRectF r = plotRect();
    const int n = int(m_labels.size());
    QList<Label> out;
    if (n == 0 || r.width() <= 0)
        return out;
    const QFontMetricsF fm(font());
    const double slot = r.width() / n;
    for (int j = 0; j < n; ++j) {
        // A long token is cut short within its own slot (its full name is on the winner's button).
        const QString text = fm.elidedText(m_labels[j], Qt::ElideRight, slot - 2);
        if (text.isEmpty())
            continue;
        const double w = std::min(fm.horizontalAdvance(text) + 1, slot - 1);
        out.append(Label{QRectF(r.left() + j * slot + (slot - w) / 2, r.bottom() + 2, w, fm.height()), text, false});
    }
    return out;
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
        const double gx = truth ? x + slot * 0.07 : x + slot * 0.2;
        const double g = m_guess[std::size_t(j)];
        p.fillRect(QRectF(gx, r.bottom() - g * r.height(), barW, g * r.height()), QColor(0xe6, 0x7e, 0x22));
        if (truth) {
            const double w = m_truth[std::size_t(j)];
            p.fillRect(QRectF(x + slot * 0.57, r.bottom() - w * r.height(), barW, w * r.height()), QColor(0x2c, 0x3e, 0x80));
        }
    }
    p.setPen(palette().color(QPalette::WindowText));
    for (const Label &l : keyLabels())
        p.drawText(l.box, Qt::AlignCenter, l.text);
    for (const Label &l : valueLabels()) {
        if (!l.rotated) {
            p.drawText(l.box, Qt::AlignCenter, l.text);
            continue;
        }
        p.save();
        p.translate(l.box.center());
        p.rotate(-90);
        p.drawText(QRectF(-l.box.height() / 2, -l.box.width() / 2, l.box.height(), l.box.width()), Qt::AlignCenter, l.text);
        p.restore();
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

std::vector<int> GuessPanel::openKeysOf(int row) const
{
    const Trace &t = m_doc->trace();
    std::vector<int> open;
    for (int j = 0; j < m_keys; ++j)
        if (row >= t.blocked.rows() || j >= t.blocked.cols() || !t.blocked(row, j))
            open.push_back(j);
    return open;
}

void GuessPanel::rebuildWinners(const QStringList &labels)
{
    QLayout *l = m_winners->layout();
    while (QLayoutItem *item = l->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const int open = int(m_open.size());
    l->addWidget(new QLabel(tr("Winner:"), m_winners));
    if (open > kMaxWinnerButtons)
        l->addWidget(new QLabel(tr("(%1 keys: too many to click; drag the bars to guess)").arg(open), m_winners));
    for (int j : m_open) {
        if (open > kMaxWinnerButtons)
            break;
        auto *b = new QPushButton(labels[j], m_winners);
        b->setObjectName(QStringLiteral("winner-%1").arg(j));
        b->setToolTip(tr("Guess that %1 gets the most weight").arg(labels[j]));
        connect(b, &QPushButton::clicked, this, [this, j] { guessWinner(j); });
        l->addWidget(b);
    }
    static_cast<QHBoxLayout *>(l)->addStretch(1);
    m_winnerStrip->setFixedHeight(m_winners->sizeHint().height() + m_winnerStrip->horizontalScrollBar()->sizeHint().height());
}

void GuessPanel::refresh()
{
    const Scenario &s = m_doc->scenario();
    const auto ql = queryLabels(s), kl = keyLabels(s);
    const int row = std::clamp(m_doc->currentQuery(), 0, std::max(0, int(ql.size()) - 1));
    const int keys = int(kl.size());
    const int oldKeys = m_keys;
    m_keys = keys;
    const std::vector<int> open = openKeysOf(row);
    if (row != m_row || keys != oldKeys || open != m_open) {
        // A new row (or new keys, or another mask): a fresh guess.
        m_row = row;
        m_open = open;
        m_revealed = false;
        QStringList labels, openLabels;
        for (const auto &k : kl)
            labels << QString::fromStdString(k);
        for (int j : m_open)
            openLabels << labels[j];
        m_bars->setKeys(openLabels);
        rebuildWinners(labels);
    }
    const QString query = QString::fromStdString(ql.empty() ? "" : ql[std::size_t(row)]);
    const int blocked = keys - int(m_open.size());
    if (m_open.empty())
        m_prompt->setText(tr("Query %1: every key is blocked, so no key gets any weight. Try the next row.").arg(query));
    else if (blocked > 0)
        //: %2 is the number of blocked keys, left out of the guess.
        m_prompt->setText(tr("Query %1: which key wins? Click it, or drag the bars to guess the whole row, then Reveal. "
                             "(%2 blocked keys get no weight and are left out.)")
                              .arg(query)
                              .arg(blocked));
    else
        m_prompt->setText(tr("Query %1: which key wins? Click it, or drag the bars to guess the whole row, then Reveal.")
                              .arg(query));
    if (m_revealed) {
        // Follows edits and drags once revealed.
        const std::vector<double> truth = truthRow();
        std::vector<double> shown;
        for (int j : m_open)
            shown.push_back(j < int(truth.size()) ? truth[std::size_t(j)] : 0.0);
        m_bars->setTruth(shown);
    }
    m_reveal->setEnabled(!m_revealed && !m_open.empty());
    m_next->setEnabled(row + 1 < int(ql.size()) || m_revealed);
    m_score->setText(scoreText());
    noteGuessing();
}

bool GuessPanel::guessing() const
{
    return isVisible() && !m_revealed && !m_open.empty();
}

void GuessPanel::noteGuessing()
{
    const bool now = guessing();
    if (now == m_wasGuessing)
        return;
    m_wasGuessing = now;
    emit guessingChanged(now);
}

void GuessPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    noteGuessing();
}

void GuessPanel::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    noteGuessing();
}

void GuessPanel::guessWinner(int key)
{
    if (m_revealed)
        return;
    const auto at = std::find(m_open.begin(), m_open.end(), key);
    if (at == m_open.end())
        return; // a blocked key (or none): nothing to guess there
    std::vector<double> g(m_open.size(), 0.0);
    g[std::size_t(at - m_open.begin())] = 1.0;
    m_bars->setGuess(g);
}

void GuessPanel::setGuess(const std::vector<double> &guess)
{
    std::vector<double> g;
    for (int j : m_open)
        g.push_back(j < int(guess.size()) ? guess[std::size_t(j)] : 0.0);
    m_bars->setGuess(g);
}

std::vector<double> GuessPanel::guess() const
{
    std::vector<double> g(std::size_t(std::max(m_keys, 0)), 0.0);
    const std::vector<double> &bars = m_bars->guess();
    for (std::size_t i = 0; i < m_open.size() && i < bars.size(); ++i)
        g[std::size_t(m_open[i])] = bars[i];
    return g;
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
    m_lastScore = guessScore(guess(), truth);
    if (!m_revealed) {
        ++m_rounds;
        m_total += m_lastScore;
    }
    m_revealed = true;
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
