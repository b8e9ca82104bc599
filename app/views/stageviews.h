#pragma once
// The document's views of the computation: one heatmap per stage, the
// heads as small multiples, the concatenation, the positional encoding and
// the formula. Each redraws from the document's trace when it changes.

#include "document.h"
#include "explain.h"
#include "heatmapplot.h"
#include "steppanel.h"

#include <QLabel>
#include <QPointer>
#include <QShowEvent>
#include <QStackedWidget>
#include <QWidget>

#include <functional>
#include <vector>

namespace attn {

// One number of decimals across the maps of a window (0.7679 in
// the weights and 0.768 in the output read as different numbers). A plot
// that joins writes its values with the fewest decimals that fit in any of
// the joined maps shown in its window; each layout that changes what fits
// (a resize, new data, a tab shown or hidden) settles it again, and the
// maps that change repaint at once. Stage views and the concatenation's
// maps join themselves.
void joinDecimalsAgreement(HeatmapPlot *plot);
void agreeOnDecimals(QWidget *inWindow);

class StageView : public HeatmapPlot {
    Q_OBJECT

public:
    StageView(Document *doc, Stage stage, QWidget *parent = nullptr);

    Stage stage() const { return m_stage; }
    void setSharedScoreRange(bool shared);
    void refresh();
    // Predict, then reveal: neither numbers nor colours, notes or tooltips.
    void setAnswersHidden(bool hidden);
    bool answersHidden() const { return m_answersHidden; }
    // Step mode: what the map shows at the classroom's step (Classroom::shows).
    Classroom::Shows shows() const { return m_shows; }

    // What a click does: a plain click selects the query row (as does a
    // click on a row's label); Ctrl+click blocks or opens the cell.
    static Qt::KeyboardModifier blockModifier() { return Qt::ControlModifier; }

signals:
    // What a click did, for the status bar ("Query 我 selected; Ctrl+click blocks a cell").
    void message(const QString &text);

private:
    void onCellClicked(int row, int col, Qt::MouseButton button);
    void selectQuery(int row);
    void onHover(int row, int col);
    // A row edit: only the cells it changed (false: refresh() instead).
    bool refreshCells(const DocumentChange &what);
    // The window's classroom, once it exists: its step decides what the map shows.
    void followClassroom();
    void applyStep();

    Document *m_doc;
    Stage m_stage;
    int m_shownHead = -1;
    bool m_sharedRange = true;
    bool m_answersHidden = false;
    QPointer<Classroom> m_classroom;
    Classroom::Shows m_shows = Classroom::Shows::Values;
};

class AllHeadsView : public QWidget {
    Q_OBJECT

public:
    explicit AllHeadsView(Document *doc, QWidget *parent = nullptr);
    void refresh();
    const std::vector<HeatmapPlot *> &plots() const { return m_plots; }

private:
    Document *m_doc;
    std::vector<HeatmapPlot *> m_plots;
};

// Under the maps: where the lesson's source document prints a number the
// formula does not give ("Softmax weights: the handout prints 0.8756; the
// formula gives 0.7679"), from the lesson file's misprints. Shown while the
// lesson is as it was opened (an edit changes what the formula gives) and
// the maps show their numbers (not in hide mode, nor before the step).
class MisprintNote : public QLabel {
    Q_OBJECT

public:
    explicit MisprintNote(Document *doc, QWidget *parent = nullptr);
    void refresh();
    // The note's text for `head`: a line for each stage that has misprints
    // and whose map shows its numbers (`shown`; none: every stage).
    static QString noteText(const Scenario &s, const Trace &t, int head, const std::function<bool(Stage)> &shown = {});

private:
    Document *m_doc;
    QPointer<Classroom> m_classroom;
};

class ConcatView : public QWidget {
    Q_OBJECT

public:
    explicit ConcatView(Document *doc, QWidget *parent = nullptr);
    void refresh();
    HeatmapPlot *concatPlot() const { return m_concat; }
    HeatmapPlot *outputPlot() const { return m_output; }

private:
    Document *m_doc;
    HeatmapPlot *m_concat;
    HeatmapPlot *m_output;
};

class PositionalView : public QStackedWidget {
    Q_OBJECT

public:
    explicit PositionalView(Document *doc, QWidget *parent = nullptr);
    void refresh();
    HeatmapPlot *plot() const { return m_plot; }

private:
    Document *m_doc;
    QLabel *m_off;
    HeatmapPlot *m_plot;
};

// The formula of the current setting, written out with its options.
class FormulaBar : public QLabel {
    Q_OBJECT

public:
    explicit FormulaBar(Document *doc, QWidget *parent = nullptr);
    void refresh();

protected:
    void changeEvent(QEvent *event) override;

private:
    Document *m_doc;
};

} // namespace attn
