#pragma once
// Predict, then reveal: for the selected query, a student clicks
// the key they think wins, or drags bars to guess the whole row; Reveal
// shows the true row beside the guess with a score (the total absolute
// difference), then Next row moves on.

#include "document.h"

#include <QWidget>

#include <vector>

class QLabel;
class QPushButton;
class QScrollArea;

namespace attn {

class Classroom;

// The bars: one per key, dragged up and down (0 to 1); after the reveal the
// true weights stand beside them.
class GuessBars : public QWidget {
    Q_OBJECT

public:
    // A text drawn over the bars: its box in widget pixels (a rotated
    // text's box is upright), for painting and for tests.
    struct Label {
        QRectF box;
        QString text;
        bool rotated = false; // read bottom to top, when the slots are too narrow to write across
    };

    explicit GuessBars(QWidget *parent = nullptr);
    void setKeys(const QStringList &labels);
    void setGuess(const std::vector<double> &guess);
    const std::vector<double> &guess() const { return m_guess; }
    void setTruth(const std::vector<double> &truth); // empty: not revealed
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    // The values above the bars (the guess's, then the truth's, key by key)
    // and the keys' names under them, as painted at the current size: no two
    // overlap. A value with no room is left out.
    QList<Label> valueLabels() const;
    QList<Label> keyLabels() const;

signals:
    void guessChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    QRectF plotRect() const;
    void setFromPoint(const QPointF &p);

    QStringList m_labels;
    std::vector<double> m_guess, m_truth;
};

class GuessPanel : public QWidget {
    Q_OBJECT

public:
    // More keys than this get no winner buttons: the bars are the guess.
    static constexpr int kMaxWinnerButtons = 64;

    GuessPanel(Document *doc, Classroom *classroom, QWidget *parent = nullptr);

    // The key clicked as the winner: the guess puts all its weight there.
    // Only open keys are offered: a blocked key gets no weight whatever one
    // guesses, and a click on it changes nothing.
    void guessWinner(int key);
    // The guess, one number a key (blocked keys 0); the bars hold the open keys.
    void setGuess(const std::vector<double> &guess);
    std::vector<double> guess() const;
    // Shows the truth; returns the score, sum_j |guess_j - w_j| with the
    // guess scaled to sum to 1 (0 is perfect, 2 the worst).
    double reveal();
    bool revealed() const { return m_revealed; }
    // The keys of the row that can get weight: the bars and the winners.
    const std::vector<int> &openKeys() const { return m_open; }
    // A guess is under way: the panel is in view, the row not revealed.
    // While it is, what gives the answer away is hidden (ClassroomMode).
    bool guessing() const;
    void nextRow();
    QString scoreText() const;

    static double guessScore(std::vector<double> guess, const std::vector<double> &truth);

public slots:
    void refresh();

signals:
    void guessingChanged(bool guessing);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    std::vector<double> truthRow() const;
    std::vector<int> openKeysOf(int row) const;
    void rebuildWinners(const QStringList &labels);
    void noteGuessing();

    Document *m_doc;
    Classroom *m_classroom;
    QLabel *m_prompt;
    QWidget *m_winners;
    QScrollArea *m_winnerStrip;
    GuessBars *m_bars;
    QPushButton *m_reveal, *m_next;
    QLabel *m_score;
    bool m_revealed = false;
    int m_row = -1;
    int m_keys = -1;
    std::vector<int> m_open;
    bool m_wasGuessing = false;
    double m_lastScore = -1;
    int m_rounds = 0;
    double m_total = 0;
};

} // namespace attn
