#pragma once
// The encoder (BERT) in the window: a sentence with [MASK] in it, read both
// ways. Every layer × head as a small map (no causal triangle: each token
// reads the tokens after it too), the chosen head's weights as a full map,
// where its Q, K and V come from with their shapes, and the words the model
// puts in the mask with their probabilities. Live: every key runs the
// forward again (the shipped encoder: well under a millisecond of work).
// Draws from the core's EncoderTrace (core/model/bert.h); knows no document.

#include "bert.h"

#include "backgroundload.h"

#include <QWidget>

#include <atomic>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace attn {

class DistributionBars;
class HeadGrid;
class HeatmapPlot;

class EncoderView : public QWidget {
    Q_OBJECT

public:
    explicit EncoderView(QWidget *parent = nullptr);
    ~EncoderView() override;

    // The shipped tiny-encoder, when no model is open yet. The Problem when it does not load.
    std::optional<Problem> ensureModel();
    void setModel(std::shared_ptr<const BertModel> model);
    const BertModel *model() const { return m_model.get(); }
    // Loads a folder off the GUI thread (progress and Cancel in the view);
    // loaded() or failed() follows.
    void openFolder(const QString &folder);
    bool isLoading() const { return m_load->running(); }
    void cancelLoading();

    void setText(const QString &text);
    QString text() const;
    void setHead(int layer, int head);   // 0-based
    int layer() const { return m_layer; }
    int head() const { return m_head; }

    const EncoderTrace *trace() const { return m_trace.get(); }
    QString problemText() const;         // why there is no trace, or empty
    QString sourceText() const;          // where the chosen head's Q, K, V come from

    HeadGrid *grid() const { return m_grid; }
    HeatmapPlot *plot() const { return m_plot; }
    DistributionBars *bars() const { return m_bars; }

    // "Q, K and V all come from the same n tokens": the words, with shapes.
    static QString sourceText(const BertConfig &c, int tokens, int layer);

signals:
    void takeHeadRequested(const Scenario &head, const QString &description);
    void loaded(const QString &name);
    void failed(const QString &message);   // a folder did not load
    void refused(const QString &message);  // a head could not go into the lab

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void recompute();
    void redraw();
    void loadDone(EncoderOrProblem result);

    std::shared_ptr<const BertModel> m_model;
    std::shared_ptr<const EncoderTrace> m_trace;
    QString m_problem;
    int m_layer = 0, m_head = 0;

    QLabel *m_modelLabel = nullptr;
    QLabel *m_textLabel = nullptr;
    QLineEdit *m_text = nullptr;
    QComboBox *m_examples = nullptr;
    QPushButton *m_take = nullptr;
    QLabel *m_about = nullptr;
    QLabel *m_source = nullptr;
    QLabel *m_message = nullptr;
    HeadGrid *m_grid = nullptr;
    HeatmapPlot *m_plot = nullptr;
    QLabel *m_fillTitle = nullptr;
    DistributionBars *m_bars = nullptr;
    QProgressBar *m_progress = nullptr;
    QPushButton *m_cancel = nullptr;
    std::unique_ptr<BackgroundLoad<BertModel>> m_load;
};

} // namespace attn
