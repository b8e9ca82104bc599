#pragma once
// What attention costs, and why it wins (seed 000's 关卡四 and
// seed 001's opening): for the current scenario, each stage's work and what
// it stores, how the score matrix grows as tokens are added (the O(n^2) the
// seeds name) against the parameters, which do not grow, and the path
// between the first and the last token: one step for attention against
// n - 1 for a recurrent network. Numbers from
// core/cost.h; the path drawn by widgets/PathDiagram.

#include "cost.h"
#include "document.h"

#include <QWidget>

class QBoxLayout;
class QCustomPlot;
class QLabel;
class QScrollArea;
class QTableWidget;

namespace attn {

class PathDiagram;

class CostPanel : public QWidget {
    Q_OBJECT

public:
    explicit CostPanel(Document *doc, QWidget *parent = nullptr);

    const AttentionCost &cost() const { return m_cost; }
    QTableWidget *table() const { return m_table; }
    QCustomPlot *growthPlot() const { return m_growth; }
    PathDiagram *pathDiagram() const { return m_path; }
    QString summary() const;
    // The parameters beside the score cells: the lesson's W_Q, W_K, W_V, W_O,
    // and every parameter of GPT-2 small and of the built-in model.
    QString parametersText() const;
    QString modelText() const;
    // The panel scrolls (a short tab beside the maps); the chart keeps a readable height.
    QScrollArea *scrollArea() const { return m_scroll; }

    // "12,288" in the UI's locale; "1.2 M" style for large values.
    static QString count(double v);

public slots:
    void refresh();

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void applySizes();
    void fitTable();
    void retranslate();
    void fillTable();
    void fillGrowth();
    void fillParameters();
    QString nowText() const; // "now: n = 5", or "now: n_q·n_k = 1·3"

    Document *m_doc;
    AttentionCost m_cost;
    QLabel *m_summary;
    QLabel *m_parameters;
    QLabel *m_models;
    QTableWidget *m_table;
    QCustomPlot *m_growth;
    QLabel *m_growthLegend;
    PathDiagram *m_path;
    QBoxLayout *m_figures;
    QScrollArea *m_scroll;
};

} // namespace attn
