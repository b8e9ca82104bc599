#pragma once
// The next token's distribution as horizontal bars, one row a candidate:
// the token, a pale bar of its softmax at temperature 1, a solid bar of its
// probability after temperature, top-k and top-p, and both numbers. The
// chosen token's row is marked. Draws what it is given; knows no model.

#include <QString>
#include <QWidget>

#include <vector>

namespace attn {

struct DistributionBar {
    QString label;        // the token as shown ("␣cat")
    double raw = 0;       // softmax of the logits, in [0, 1]
    double p = 0;         // after the cuts, in [0, 1]
    bool chosen = false;
};

class DistributionBars : public QWidget {
    Q_OBJECT

public:
    explicit DistributionBars(QWidget *parent = nullptr);

    void setBars(std::vector<DistributionBar> bars);
    const std::vector<DistributionBar> &bars() const { return m_bars; }
    // What is said when there are no bars ("Press Step…").
    void setEmptyText(const QString &text);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    // The text of row i's numbers, as drawn ("0.158 → 1.000").
    static QString numbersText(const DistributionBar &b);

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    int rowHeight() const;
    std::vector<DistributionBar> m_bars;
    QString m_empty;
};

} // namespace attn
