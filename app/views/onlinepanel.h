#pragma once
// The weights of the selected query computed as FlashAttention computes
// them (core/online_softmax.h): the keys in tiles of B, a running maximum
// m, sum l and output o updated tile by tile, each update written out, the
// tile being read framed on the maps (tileChanged), and at the end the
// difference to the ordinary softmax and the memory traffic. Under it, why
// the safe softmax subtracts the maximum: the row shifted until its largest
// score overflows e^x, computed as written (inf, NaN) and shifted.

#include "document.h"
#include "online_softmax.h"

#include <QWidget>

class QLabel;
class QSpinBox;
class QDoubleSpinBox;
class QTableWidget;
class QToolButton;

namespace attn {

class OnlineSoftmaxPanel : public QWidget {
    Q_OBJECT

public:
    explicit OnlineSoftmaxPanel(Document *doc, QWidget *parent = nullptr);

    int tileSize() const;
    void setTileSize(int keys);
    // The tile shown, 0-based, and how many the row has.
    int tileIndex() const { return m_index; }
    int tileCount() const;
    void setTileIndex(int index); // clamped
    void first() { setTileIndex(0); }
    void previous() { setTileIndex(m_index - 1); }
    void next() { setTileIndex(m_index + 1); }
    void last() { setTileIndex(tileCount() - 1); }

    // What the panel shows, for tests and scripts.
    QString heading() const;
    QString arithmeticText() const; // the tile's lines, plain, one a line
    QString resultText() const;     // before the last tile: what is read; at it: the difference to the softmax
    QString trafficText() const;
    const OnlineRowResult &rowResult() const { return m_result; }

    // The overflow table: the row shifted so that its largest score is `top`.
    void setOverflowTop(double top);
    QTableWidget *overflowTable() const { return m_overflow; }

signals:
    // The tile being read: row `query` of head `head`, keys first..last
    // (0-based, inclusive); query < 0 when nothing is shown (the panel hidden).
    void tileChanged(int head, int query, int first, int last);

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void recompute();
    void refresh();
    void refreshOverflow();
    void announce();
    int query() const;

    Document *m_doc;
    QSpinBox *m_tile;
    QToolButton *m_first, *m_prev, *m_next, *m_last;
    QLabel *m_heading;
    QLabel *m_explain;
    QLabel *m_lines;
    QLabel *m_resultLabel;
    QLabel *m_traffic;
    QLabel *m_overflowIntro;
    QDoubleSpinBox *m_top;
    QTableWidget *m_overflow;
    QLabel *m_overflowNote;
    OnlineRowResult m_result;
    int m_index = 0;
    int m_wanted = 0; // the B the teacher chose (0: not yet)
    QString m_plain;
};

} // namespace attn
