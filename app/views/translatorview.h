#pragma once
// The encoder-decoder (BART) in the window: a sentence in one language and
// the translation the model writes, token by token. The three kinds of
// attention side by side in name: the encoder's self-attention (the source
// both ways), the decoder's self-attention (causal) and the cross-attention
// (queries from the decoder, keys and values from the encoder), each as
// layers × heads and the chosen head's map; the cross-attention's map is the
// alignment: the words written down the side, the source across.
//
// Live: typing the source writes the whole translation again (greedy at
// temperature 0, else drawn with the seed). Reset goes back to the first
// token; Step writes one more through the KV cache (extendSeq2Seq: one new
// decoder row against the cached keys and values), Play steps on a timer.
// The rows the cache kept are marked on the maps. Draws from the core's
// Seq2SeqTrace (core/model/bart.h); knows no document.

#include "bart.h"
#include "takehead.h"

#include "backgroundload.h"

#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QRadioButton;

namespace attn {

class DistributionBars;
class HeadGrid;
class HeatmapPlot;
class SamplingControls;

class TranslatorView : public QWidget {
    Q_OBJECT

public:
    explicit TranslatorView(QWidget *parent = nullptr);
    ~TranslatorView() override;

    // The shipped tiny-translator, when no model is open yet.
    std::optional<Problem> ensureModel();
    void setModel(std::shared_ptr<const BartModel> model);
    const BartModel *model() const { return m_model.get(); }
    void openFolder(const QString &folder);
    bool isLoading() const { return m_load->running(); }
    void cancelLoading();

    void setText(const QString &text);
    QString text() const;
    void setKind(Seq2SeqKind kind);
    Seq2SeqKind kind() const { return m_kind; }
    void setHead(int layer, int head); // 0-based, of the current kind; shows that head alone
    // The map of the chosen layer's heads averaged (the alignment a
    // translation is read by) instead of one head.
    void setAveraged(bool on);
    bool averaged() const;
    int layer() const { return m_layer; }
    int head() const { return m_head; }

    // Generation: back to the first token, one token more (false with the
    // reason in the status line when it cannot), the whole translation.
    void reset();
    bool step();
    void writeAll();
    bool finished() const { return m_finished; }
    const std::vector<GenerationStep> &steps() const { return m_steps; }
    std::string translation() const; // the text written so far

    const Seq2SeqTrace *trace() const { return m_trace.get(); }
    QString problemText() const;
    QString sourceText() const; // where the chosen head's Q, K, V come from
    static QString sourceText(Seq2SeqKind kind, const BartConfig &c, int sourceTokens, int targetTokens, int layer);

    HeadGrid *grid() const { return m_grid; }
    HeatmapPlot *plot() const { return m_plot; }
    DistributionBars *bars() const { return m_bars; }
    SamplingControls *controls() const { return m_controls; }
    QLabel *cacheLabel() const { return m_cache; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *translationLabel() const { return m_written; }

signals:
    void takeHeadRequested(const Scenario &head, const QString &description);
    void loaded(const QString &name);
    void failed(const QString &message);   // a folder did not load
    void refused(const QString &message);  // a head could not go into the lab

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void redraw();
    void loadDone(Seq2SeqOrProblem result);
    const std::vector<LayerActivations> *layers() const;

    std::shared_ptr<const BartModel> m_model;
    std::vector<int> m_source;
    std::shared_ptr<const Seq2SeqTrace> m_trace;
    std::vector<GenerationStep> m_steps;
    std::optional<Rng> m_rng;
    std::int64_t m_withCache = 0, m_withoutCache = 0;
    bool m_finished = false;
    QString m_problem;
    Seq2SeqKind m_kind = Seq2SeqKind::Cross;
    int m_layer = 1, m_head = 0; // the last decoder layer of the shipped model

    QLabel *m_modelLabel = nullptr;
    QLabel *m_textLabel = nullptr;
    QLineEdit *m_text = nullptr;
    QComboBox *m_examples = nullptr;
    QPushButton *m_take = nullptr;
    QLabel *m_about = nullptr;
    QLabel *m_message = nullptr;
    QLabel *m_written = nullptr;
    QRadioButton *m_kindButtons[3] = {};
    QCheckBox *m_average = nullptr;
    QButtonGroup *m_kindGroup = nullptr;
    HeadGrid *m_grid = nullptr;
    HeatmapPlot *m_plot = nullptr;
    QLabel *m_sourceLabel = nullptr;
    QLabel *m_barsTitle = nullptr;
    DistributionBars *m_bars = nullptr;
    SamplingControls *m_controls = nullptr;
    QLabel *m_cache = nullptr;
    QLabel *m_status = nullptr;
    QProgressBar *m_progress = nullptr;
    QPushButton *m_cancel = nullptr;
    std::unique_ptr<BackgroundLoad<BartModel>> m_load;
};

} // namespace attn
