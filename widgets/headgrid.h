#pragma once
// HeadGrid: many small weight maps in a grid (a model's layers by heads),
// each with a caption under it, one of them selected. Drawn from the data
// it is given with a QPainter (one pixel per cell, scaled up): a grid of
// small QCustomPlots would cost a replot each, on every keystroke.
//
// The same paint() draws the widget and the exported figure (PNG, SVG, PDF
// through renderHeadGrid), so the file shows what the screen shows.
//
// The widget paints into a cached image and then only copies it: a cell is
// drawn again when its own numbers, caption, selection or hover changed (a
// click or the pointer moving over the grid redraws two cells, not twelve).

#include "figureexport.h"
#include "scenario.h"

#include <QFont>
#include <QHash>
#include <QStaticText>
#include <QStringList>
#include <QWidget>
#include <qcustomplot.h>

#include <functional>
#include <vector>

namespace attn {

struct HeadGridCell {
    Matrix weights;      // n by n, values in 0..1
    BoolMatrix blocked;  // empty or n by n: drawn in the heatmaps' blocked grey
    bool causal = false; // key j > query i blocked too: a model's heads, without an n × n mask per cell
    QStringList caption; // lines under the map ("previous-token", "H̄ 1.23 nats")
    QString toolTip;
};

struct HeadGridData {
    int rows = 0;                     // layers
    int cols = 0;                     // heads
    std::vector<HeadGridCell> cells;  // rows * cols, row by row
    QStringList rowLabels;            // "L1", ...; missing ones are numbered from 1
    QStringList colLabels;            // "H1", ...
    QString title;                    // drawn above the grid when not empty
};

// The words of a model's head grid: the window's are translated, the
// command line's English.
struct HeadGridWords {
    QString rowLabel = QStringLiteral("L%1"); // %1: the layer, from 1
    QString colLabel = QStringLiteral("H%1"); // %1: the head, from 1
    // A head's caption lines and tool tip, from its layer and head (0-based) and its weights.
    std::function<void(int layer, int head, const Matrix &weights, HeadGridCell &cell)> describe;
    QString title; // drawn above the grid when not empty
};

// Every layer by head of a causal model as a small weights map, layer by
// layer: `weights(l, h)` is layer l's head h (n by n), for 0 <= l < layers
// and 0 <= h < heads. What the window's overview and `model export
// --stages overview` both draw.
HeadGridData headGridData(int layers, int heads, const std::function<const Matrix &(int layer, int head)> &weights,
                          const HeadGridWords &words);

class HeadGrid : public QWidget {
    Q_OBJECT

public:
    explicit HeadGrid(QWidget *parent = nullptr);

    // Shapes may change between calls; a selection outside the new grid is
    // moved inside it.
    void setData(HeadGridData data);
    const HeadGridData &data() const { return m_data; }

    // (-1, -1): none selected.
    void setSelected(int row, int col);
    int selectedRow() const { return m_selRow; }
    int selectedColumn() const { return m_selCol; }

    void setGradient(const QCPColorGradient &gradient);

    // Where cell (row, col)'s map is drawn in widget pixels, and the cell at
    // a point ((-1, -1) outside every map and caption).
    QRectF mapRect(int row, int col) const;
    std::pair<int, int> cellAt(const QPointF &pos) const;

    // Draws the grid into `rect` with `font` (the widget's, or the figure font).
    // With the painter clipped, only what meets the clip is drawn.
    void paint(QPainter &painter, const QRectF &rect, const QFont &font, bool forFigure) const;

    // Cells drawn into the cache since the last call (for tests and the bench).
    int takeCellsRepainted();

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void cellClicked(int row, int col);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Layout {
        QRectF title;
        double labelW = 0, headerH = 0, captionH = 0;
        double cellW = 0, cellH = 0, map = 0; // one grid cell, and its square map's side
        QPointF origin;                        // top-left of cell (0, 0)
    };
    Layout layout(const QRectF &rect, const QFont &font) const;
    QRectF mapRectIn(const Layout &l, int row, int col) const;
    const QImage &cellImage(int index) const;
    // A caption line elided to `width` and laid out in `font` (bold: its bold
    // face), kept for the next paint.
    const QStaticText &captionText(const QString &line, const QFont &font, bool bold, double width) const;
    QRectF cellArea(const Layout &l, int row, int col) const; // the cell, with room for its frame
    void markCell(int row, int col);                          // draw again, and update the widget there
    void markCellIn(const Layout &l, int row, int col);       // the same, in a layout already made
    void markAll();

    HeadGridData m_data;
    mutable QCPColorGradient m_gradient; // color() is not const: it fills its lookup table on first use
    int m_selRow = 0, m_selCol = 0;
    int m_hoverRow = -1, m_hoverCol = -1;
    mutable std::vector<QImage> m_images; // one per cell, made on first paint after setData
    QImage m_cache;                       // the widget as last painted
    bool m_cacheWhole = true;             // the cache must be drawn whole
    std::vector<bool> m_dirty;            // cells to draw again into the cache
    mutable int m_cellsRepainted = 0;
    mutable QHash<QString, QStaticText> m_captions[2]; // captionText's, regular and bold, for m_captionFont and m_captionWidth
    mutable QFont m_captionFont;
    // layout()'s widest row label, for the font and labels in m_labelWidthKey:
    // measuring the labels shaped them again on every key typed into the model.
    mutable QString m_labelWidthKey;
    mutable double m_labelWidth = 0;
    mutable double m_captionWidth = -1;
};

// What a figure of the grid needs, in logical pixels, in renderHeadGrid's
// font: `minimum`, where every head still has a map and its caption (the
// widget's minimumSizeHint), and `preferred`, the widget's sizeHint (cells
// of about 8 by 10 lines). A model of many layers and heads would otherwise
// be drawn as unreadable specks, or asked for an image of gigabytes.
struct HeadGridFigureSizes {
    QSize minimum;
    QSize preferred;
};
HeadGridFigureSizes headGridFigureSizes(const HeadGridData &data);
// Above this many weights in all the grid's maps, a figure draws each map
// as an image (as the screen does) rather than a rectangle per weight: an
// SVG or PDF of a long sentence through many heads stays megabytes.
inline constexpr double kMaxHeadGridVectorCells = 256.0 * 1024;
// The most pixels an overview figure may have: 16 Mi (64 MB as a 32-bit PNG
// being drawn), 4096 by 4096.
inline constexpr double kMaxHeadGridFigurePixels = 4096.0 * 4096.0;

// The grid as a figure, in the figure font, at `size`.
QByteArray renderHeadGrid(const HeadGridData &data, const QCPColorGradient &gradient, int selectedRow, int selectedCol,
                          FigureFormat format, const FigureSize &size);

} // namespace attn
