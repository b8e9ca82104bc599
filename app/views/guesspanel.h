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
    explicit GuessBars(QWidget *parent = nullptr);
    void setKeys(const QStringList &labels);
    void setGuess(const std::vector<double> &guess);
    const std::vector<double> &guess() const { return m_guess; }
    void setTruth(const std::vector<double> &truth); // empty: not revealed
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

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
    void guessWinner(int key);
    void setGuess(const std::vector<double> &guess);
    std::vector<double> guess() const;
    // Shows the truth; returns the score, sum_j |guess_j - w_j| with the
    // guess scaled to sum to 1 (0 is perfect, 2 the worst).
    double reveal();
    bool revealed() const { return m_revealed; }
    void nextRow();
    QString scoreText() const;

    static double guessScore(std::vector<double> guess, const std::vector<double> &truth);

public slots:
    void refresh();

private:
    std::vector<double> truthRow() const;

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
    double m_lastScore = -1;
    int m_rounds = 0;
    double m_total = 0;
};

} // namespace attn
