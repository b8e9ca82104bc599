#pragma once
// HeatmapPlot: one n_rows by n_cols matrix drawn as a finished figure (title,
// token labels, crisp cells, labelled colour bar, cell values, blocked cells,
// per-row notes, a linked highlight). Everything is painted by QCustomPlot's
// layerables, so savePng / savePdf / toPixmap / QSvgGenerator exports show
// exactly what the screen shows.
//
// Layout: query rows run top to bottom (row 0 at the top), key columns are
// labelled along the top, row labels on the left, row notes on the right,
// then the colour bar.

#include "gradients.h"
#include "scenario.h"

#include <QImage>
#include <QStringList>
#include <QVector>
#include <qcustomplot.h>

#include <functional>
#include <memory>
#include <utility>

namespace attn {

class HeatmapCellLayer;
class HeatmapHighlightLayer;

enum class HeatmapScale {
    Probability,    // fixed 0..1, sequential gradient (weights)
    Diverging,      // symmetric [-r, r] around 0, diverging gradient (scores)
    SequentialAuto, // [min, max] of the shown cells, sequential gradient
};

enum class CellTextMode { Auto, Always, Never };

struct HeatmapData {
    Matrix values;           // n_rows by n_cols
    BoolMatrix blocked;      // empty or n_rows by n_cols: drawn grey, hatched, with blockedText
    BoolMatrix outlined;     // empty or n_rows by n_cols: dashed outline ("blocked, mask not applied here")
    QString blockedText;     // e.g. "−∞" or "0"
    QStringList rowLabels;   // n_rows query tokens; missing ones are numbered from 1
    QStringList colLabels;   // n_cols key tokens or dimension names; likewise
    QString rowAxisLabel;    // optional axis titles, e.g. "queries" / "keys"
    QString colAxisLabel;
    QString title;           // names the stage and the settings; may hold a second line
    QString colorBarLabel;
    HeatmapScale scale = HeatmapScale::Probability;
    double range = 0.0;      // Diverging: the half-range r; 0 = max |value| of the shown cells
    QStringList rowNotes;    // optional, one per row, right of the map ("0.77 · 0.66")
    QString rowNotesLabel;   // a short header above the notes ("max · H")
    QString rowNotesLegend;  // under the map, what the notes mean in words ("max = ..., H = ...")
    QVector<bool> rowFlagged;// optional, rows marked with a warning sign (e.g. fully masked)
    int columnGroup = 0;     // > 0: a separator every columnGroup columns (head boundaries)
};

class HeatmapPlot : public QCustomPlot {
    Q_OBJECT

public:
    explicit HeatmapPlot(QWidget *parent = nullptr);
    ~HeatmapPlot() override;

    // Replaces everything shown; shapes may change between calls. Masks or
    // lists of the wrong size are ignored (blocked, outlined, notes, flags)
    // or padded (labels). Non-finite values are drawn like blocked cells.
    void setData(HeatmapData data);
    // The same, but the values stay those shown (data.values is not
    // read): a settings change that moved no number (a causal flip leaves
    // the scores). The cells are coloured again only if the mask or the
    // scale changed; the title, labels and notes are taken as given.
    void setDataKeepingValues(HeatmapData data);
    // As setData, with the values written by `fill` into the plot's own
    // matrix (fill resizes it): a map of the same size gets no new 8 MB
    // block at n = 1024, whose first touch costs a page fault a 4 KB.
    void setData(HeatmapData data, const std::function<void(Matrix &values)> &fill);
    const HeatmapData &data() const { return m_data; }
    // Some cells changed (a drag at n = 1024 changes one row and one column
    // of a score map): `edit` changes the data in place, but only the values
    // of rows [firstRow, firstRow + rowCount) and of column `column` (-1:
    // none), those rows' notes and flags, and `range`. Only those cells are
    // written again; shapes, labels, masks and the label layout stay.
    void updateCells(int firstRow, int rowCount, int column, const std::function<void(HeatmapData &)> &edit);
    int rowCount() const;
    int columnCount() const;

    void setCellText(CellTextMode mode);
    CellTextMode cellText() const { return m_cellText; }
    // Whether the cell values are drawn at the current size and font.
    bool cellTextVisible() const;

    // Decimals of the cell values (4, 3 or 2, and 1 or 0 when the largest
    // |value| is 10 or more; -1: none drawn) at the last
    // layout of the widget's own size. decimalsThatFit() is what the room
    // allows of 4, 3 and 2 (else -1), whatever the cap; drawnDecimals() is
    // what is drawn: at most the cap. A window gives its maps one cap, the
    // least that fits in any of them, so the same number reads alike in
    // every map. The cap never changes the layout, so agreeing cannot loop.
    int decimalsThatFit() const;
    int drawnDecimals() const;
    void setDecimalsCap(int cap); // 2 to 4; 4 (the default) caps nothing
    int decimalsCap() const { return m_decimalsCap; }
    // The font the cell values are drawn in at the last layout (the plot's
    // own, or the smaller one when only that fits).
    QFont drawnCellFont() const;

    // Colours around the maps' colours: background, text, borders, blocked
    // cells (gradients.h). A dark theme draws diverging maps with
    // BlueBlackOrange whatever diverging gradient is set.
    void setTheme(const PlotTheme &theme);
    const PlotTheme &theme() const { return m_theme; }
    // The theme a HeatmapPlot or PlanePlot made from now on starts with
    // (the window's View ▸ Theme); see setWindowPlotTheme() in planeplot.h.
    static void setWindowTheme(FigureTheme theme);
    static FigureTheme windowTheme();

    void setSequentialGradient(const QCPColorGradient &gradient);
    void setDivergingGradient(const QCPColorGradient &gradient);
    QCPColorGradient sequentialGradient() const { return m_sequential; }
    QCPColorGradient divergingGradient() const { return m_diverging; }
    // The gradient and data range in use for the current data.
    QCPColorGradient activeGradient() const;
    QCPRange dataRange() const { return m_range; }

    // Small multiples: no cell text, no colour bar, no notes, a small title.
    void setCompact(bool compact);
    bool isCompact() const { return m_compact; }

    // Step mode: a map not reached yet is drawn faded.
    void setDimmed(bool dimmed);
    bool isDimmed() const { return m_dimmed; }
    // A dimmed map draws no values at all (a step not reached gives nothing
    // away), as setValuesHidden does, while its data stays as it is.
    void setBlankWhenDimmed(bool blank);
    bool blankWhenDimmed() const { return m_blankWhenDimmed; }
    // Whether values, colours, notes and tooltips are drawn: neither hidden
    // nor dimmed blank.
    bool valuesDrawn() const { return !blanked(); }
    // Predict, then reveal: every cell in one neutral fill, no
    // values, no colour bar, no row notes and no tooltip.
    void setValuesHidden(bool hidden);
    bool valuesHidden() const { return m_valuesHidden; }
    static QColor hiddenFillColor();
    // The tooltip of a cell as the pointer would get it (empty when hidden).
    QString toolTipAt(int row, int col) const;

    // Outlines query row `row` and key column `col` (either may be -1), and
    // the cell where they cross more strongly.
    void setHighlight(int row, int col);
    int highlightRow() const { return m_highlightRow; }
    int highlightColumn() const { return m_highlightCol; }

    // A tile being read: cells firstCol..lastCol (inclusive) of row `row`
    // framed in a bold orange, and the row's cells before it (read already)
    // in a thin dashed frame. row < 0: none.
    struct Tile {
        int row = -1, firstCol = -1, lastCol = -1;
        bool operator==(const Tile &) const = default;
    };
    void setTile(Tile tile);
    Tile tile() const { return m_tile; }

    // The keyboard's cell (arrow keys, Home, End), framed while the map has
    // the focus; (-1, -1) before the first key. A screen reader reads it
    // (heatmapaccessible.h).
    int currentRow() const { return m_currentRow; }
    int currentColumn() const { return m_currentCol; }
    void setCurrentCell(int row, int col);

    // Asked on a tooltip event for the cell under the pointer.
    void setToolTipProvider(std::function<QString(int row, int col)> provider);

    // Where the row notes' header and legend were drawn at the last layout
    // (empty when not drawn), in widget pixels.
    QRectF rowNotesHeaderRect() const;
    QRectF rowNotesLegendRect() const;
    QString rowNotesLegendShown() const { return m_legendText; }

    // Geometry of the last layout, in widget pixels. cellAt gives (-1, -1)
    // outside the map.
    QRectF cellRect(int row, int col) const;
    QPointF cellCenter(int row, int col) const;
    std::pair<int, int> cellAt(const QPointF &pos) const;
    // The query row whose label (left of the map) is at pos, or -1.
    int rowLabelAt(const QPointF &pos) const;
    // What cell (row, col) shows at the last layout, as the cell layer draws
    // it: its text (a value, the blocked text, or empty when none is drawn)
    // and whether it is drawn grey and hatched (blocked or not finite).
    QString cellLabel(int row, int col) const;
    bool cellHatched(int row, int col) const;

    QCPColorMap *colorMap() const { return m_map; }
    QCPColorScale *colorScale() const { return m_scale; }
    QCPTextElement *titleElement() const { return m_title; }

    // The figure at width x height (widget pixels; 0 = current size), each
    // pixel drawn scale times (2 for a 2x PNG).
    QImage renderImage(int width, int height, double scale = 1.0);

    // How a value is written in a cell: `decimals` places, a true minus
    // sign, never "−0.0000".
    static QString formatValue(double value, int decimals);
    static QColor blockedFillColor();
    static QColor blockedHatchColor();

signals:
    // decimalsThatFit() changed after a layout of the widget's own size, or
    // the plot was shown or hidden (hidden: -1).
    void decimalsFitChanged(int decimals);
    void cellHovered(int row, int col);
    void cellClicked(int row, int col, Qt::MouseButton button);
    // A row's label, left of the map, was clicked (pressed and released on it).
    void rowLabelClicked(int row, Qt::MouseButton button);
    void currentCellChanged(int row, int col);

protected:
    bool event(QEvent *event) override;
    void changeEvent(QEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void focusInEvent(QFocusEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;
    void updateLayout() override;

private:
    friend class HeatmapCellLayer;
    friend class HeatmapHighlightLayer;

    struct TextFit {
        int decimals = -1; // -1: values not drawn
        bool blockedText = false;
        int font = 0;      // index into kTextScales: the cell text's size
    };

    void requestReplot();
    bool blanked() const { return m_valuesHidden || (m_dimmed && m_blankWhenDimmed); }
    void applyFonts();
    void applyGradient();
    void applyCompact();
    void dropMisshapenMasks(); // blocked or outlined masks not of the values' shape: warned and dropped
    void rebuildMap();   // rebuildCells() and rebuildFrame()
    void rebuildCells(); // the hidden cells, the scale, the colour map
    void rebuildFrame(); // the axes, the title, the labels' layout
    void invalidateTextWidths();
    void ensureTextWidths() const;
    TextFit textFit(double cellWidth, double cellHeight) const;
    TextFit textFit(double cellWidth, double cellHeight, int cap) const;
    TextFit currentFit(int cap) const;
    QString cellLabelFor(int row, int col, const TextFit &fit) const; // what draw() writes in the cell
    void noteDecimalsFit();
    void applyTheme(const PlotTheme &theme);
    // The cell text's font: the plot's own (0) or the smaller one (1).
    QFont cellTextFont(int index) const;
    static constexpr double kSmallTextScale = 0.8;
    struct TickSteps {
        int rows = 1, flat = 1, upright = 1;
    };
    TickSteps tickSteps(const QSizeF &cell) const;
    bool setTicks(int rowStep, int colStep, bool rotated);
    struct TickDecision {
        int rowStep = 0, colStep = 0;
        bool rotated = false;
        bool smallFont = false; // the token labels in kSmallTextScale of the font
    };
    void chooseTicks();
    void setTickFont(bool small);
    // What the label layout was decided for: the room, the font, the labels.
    QString tickKey() const;
    struct Plan {
        QRect title, axis, scale; // outer rects; axis is empty when there is no room
        QSizeF cell;              // pixels per cell
    };
    Plan plan() const;
    void setHovered(int row, int col);
    QString rowLabel(int row) const;
    QString colLabel(int col) const;

    HeatmapData m_data;
    BoolMatrix m_hidden; // blocked or non-finite: not a colour of the scale
    bool m_anyHidden = false;
    bool m_anyOutlined = false; // an outline mask of the data's shape with a cell set
    QCPRange m_range{0.0, 1.0};
    QCPColorGradient m_sequential;
    QCPColorGradient m_diverging;
    CellTextMode m_cellText = CellTextMode::Auto;
    bool m_compact = false;
    bool m_dimmed = false;
    bool m_blankWhenDimmed = false;
    bool m_valuesHidden = false;
    int m_decimalsCap = 4;
    int m_reportedFit = -2; // decimalsThatFit() when last signalled
    PlotTheme m_theme;
    int m_highlightRow = -1;
    Tile m_tile;
    int m_highlightCol = -1;
    int m_currentRow = -1;
    int m_currentCol = -1;
    int m_hoverRow = -1;
    int m_hoverCol = -1;
    int m_pressRow = -1;
    int m_pressCol = -1;
    int m_pressLabelRow = -1;
    std::function<QString(int, int)> m_toolTip;

    // Widest cell text for 4, 3, 2, 1 and 0 decimals, and of blockedText, and
    // the line height, in the current font and the smaller one, and the
    // largest |value| shown (cached; recomputed after data or font changes).
    mutable bool m_widthsValid = false;
    mutable double m_valueWidth[2][5] = {};
    mutable double m_maxAbs = 0;
    mutable double m_blockedWidth[2] = {};
    mutable double m_textHeight[2] = {};

    // Tick label thinning and rotation chosen by the last layout.
    int m_rowStep = 0;
    int m_colStep = 0;
    bool m_colRotated = false;

    QString m_tickKey;           // tickKey() when m_tickDecision was made
    TickDecision m_tickDecision;
    // The row notes' legend under the map: its lines at the last layout.
    QString m_legendText;
    QString m_legendBoxKey; // the width, font and text m_legendBox was wrapped for
    QRectF m_legendBox;
    QMargins m_baseMargins; // the axis rect's minimum margins before a legend
    QRect m_layoutViewport; // the viewport the current layout was made for

    QCPColorMap *m_map = nullptr;
    QCPColorScale *m_scale = nullptr;
    QCPTextElement *m_title = nullptr;
    QCPMarginGroup *m_marginGroup = nullptr;
    QSharedPointer<QCPAxisTickerText> m_rowTicker, m_colTicker, m_noteTicker;
    HeatmapCellLayer *m_cells = nullptr;
    HeatmapHighlightLayer *m_highlight = nullptr;
    QCPLayer *m_highlightLayer = nullptr;
};

} // namespace attn
