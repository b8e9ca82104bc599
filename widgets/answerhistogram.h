#pragma once
// The class's answers as horizontal bars, one row a choice (or a range of
// numbers): the choice, a bar as long as its count against the largest, and
// the count. Before the reveal every bar is one colour, so the picture gives
// nothing away; after it, the right rows are marked ✓ and drawn in the
// "right" colour. Counts only, never who. Draws what it is given.

#include <QString>
#include <QWidget>

#include <vector>

namespace attn {

struct AnswerBar {
    QString label;     // "k1", "none: every row sums to 1", "0.40 – 0.45"
    int count = 0;
    bool right = false; // shown only once revealed
};

class AnswerHistogram : public QWidget {
    Q_OBJECT

public:
    explicit AnswerHistogram(QWidget *parent = nullptr);

    void setBars(std::vector<AnswerBar> bars, bool revealed);
    const std::vector<AnswerBar> &bars() const { return m_bars; }
    bool revealed() const { return m_revealed; }
    void setEmptyText(const QString &text);

    // Up to `maxBars` bars of numbers: one a value when there are few
    // distinct values at `decimals`, else equal ranges from the least to the
    // largest; a bar is right when it holds a value within `tolerance` of
    // `truth`. `sorted` ascending.
    static std::vector<AnswerBar> numberBars(const std::vector<double> &sorted, double truth, double tolerance,
                                             int decimals, int maxBars = 8);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    int rowHeight() const;
    std::vector<AnswerBar> m_bars;
    bool m_revealed = false;
    QString m_empty;
};

} // namespace attn
