#pragma once
// Hard against soft: beside the softmax weights, the same rows
// with only each row's k largest weights kept (renormalised: top-k
// attention), and the output a hard k-nearest-neighbour average gives (the
// k nearest values averaged, each 1/k). Soft nearest neighbours (seed 001)
// against hard k-NN, side by side. Computed by topK() in core/sweep.h.

#include "document.h"
#include "sweep.h"

#include <QWidget>

class QLabel;
class QSpinBox;

namespace attn {

class HeatmapPlot;

class TopKPanel : public QWidget {
    Q_OBJECT

public:
    explicit TopKPanel(Document *doc, QWidget *parent = nullptr);

    void setK(int k);
    int k() const;
    QSpinBox *kBox() const { return m_k; }
    HeatmapPlot *weightsPlot() const { return m_weights; }
    HeatmapPlot *outputPlot() const { return m_output; }
    const TopK &topK() const { return m_topK; }

public slots:
    void refresh();

protected:
    void changeEvent(QEvent *event) override;

private:
    // Each map at least as large as its numbers, whole title and every
    // label need (the tab scrolls where it is smaller).
    void sizeMaps();

    Document *m_doc;
    QSpinBox *m_k;
    QLabel *m_note;
    HeatmapPlot *m_weights;
    HeatmapPlot *m_output;
    TopK m_topK;
};

} // namespace attn
