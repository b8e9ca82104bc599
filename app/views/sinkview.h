#pragma once
// The model mode's "Sinks" tab: StreamingLLM's experiment (Xiao et al.
// 2023) on the model that is open (core/model/sinks.h). A map of every
// head's weight on the first token at every position of a text (one row a
// head, one column a position), the loss with full attention, a window of
// w keys, and s sinks + the window, the paper's figure beside it, and a
// line computed from our numbers.
//
// The text is the model's own (written from "the cat" at temperature 1
// with a seed; "New text" takes the next seed), or the model view's
// sentence. The work (a generation, then three forwards) runs on a worker
// thread, one run at a time: a request made while one runs waits for it,
// and only the newest is shown. Nothing runs while the tab is hidden.

#include "gpt2.h"
#include "sinks.h"

#include <QWidget>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QTableWidget;
class QThread;

namespace attn {

class HeatmapPlot;

class SinkView : public QWidget {
    Q_OBJECT

public:
    explicit SinkView(QWidget *parent = nullptr);
    ~SinkView() override;

    // A new model (null: none); its own text is written again.
    void setModel(std::shared_ptr<const Gpt2Model> model);
    // The model view's sentence (its ids), read when the text is "the sentence".
    void setSentence(const std::vector<int> &ids);

    enum class Source { OwnText, Sentence };
    void setSource(Source source);
    Source source() const;
    // The seed of the model's own text (kSinkTextSeed at first; "New text" adds 1).
    void setSeed(std::uint64_t seed);
    std::uint64_t seed() const { return m_seed; }
    void setWindow(int window);
    void setSinks(int sinks);

    // Runs what is waiting, even hidden, and waits for it (the tests,
    // --show sinks before its picture).
    void waitForResult();

    // What is shown: the text's ids and the report (empty / null before
    // the first result or after a refusal).
    const std::vector<int> &ids() const { return m_ids; }
    const SinkReport *report() const { return m_report ? &*m_report : nullptr; }

    // The parts, for the tests.
    HeatmapPlot *plot() const { return m_plot; }
    QTableWidget *table() const { return m_table; }
    QSpinBox *windowBox() const { return m_window; }
    QSpinBox *sinksBox() const { return m_sinks; }
    QPushButton *newTextButton() const { return m_newText; }
    QComboBox *sourceBox() const { return m_source; }
    QLabel *tokensLabel() const { return m_tokens; }
    QLabel *paperLabel() const { return m_paper; }
    QLabel *findingLabel() const { return m_finding; }
    QLabel *problemLabel() const { return m_problem; }

signals:
    // A result was shown (or a refusal said).
    void computed();

protected:
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    struct Request {
        std::shared_ptr<const Gpt2Model> model;
        std::vector<int> ids; // empty: write the model's own text
        int tokens = 0;
        std::uint64_t seed = 0;
        int window = 0, sinks = 0;
    };
    struct Outcome {
        std::vector<int> ids;
        std::optional<SinkReport> report;
        QString problem;
        double ms = 0; // how long the run took
    };
    static Outcome run(const Request &r, const std::atomic<bool> &cancel);

    void retranslate();
    void changed(bool newText);
    void start();
    void finish(int runId);
    void present(Outcome outcome);
    void updateRanges(int tokens);
    void updateTable();
    void updateTokens();
    void updatePlot();
    void fitPlotHeight();
    void fitTokensHeight();

    std::shared_ptr<const Gpt2Model> m_model;
    std::vector<int> m_sentence;
    std::vector<int> m_ownIds; // the model's own text for m_seed (empty: to be written)
    std::uint64_t m_seed = kSinkTextSeed;
    std::vector<int> m_ids;
    std::optional<SinkReport> m_report;
    int m_shownWindow = 0, m_shownSinks = 0;
    QString m_shownProblem;

    bool m_dirty = false;     // a request waits
    QThread *m_thread = nullptr;
    int m_runId = 0;          // the running thread's
    Request m_running;        // what it computes
    Outcome m_outcome;        // written by the thread, read after it ended
    std::atomic<bool> m_cancel{false};

    QLabel *m_sourceLabel = nullptr;
    QComboBox *m_source = nullptr;
    QPushButton *m_newText = nullptr;
    QLabel *m_windowLabel = nullptr;
    QSpinBox *m_window = nullptr;
    QLabel *m_sinksLabel = nullptr;
    QSpinBox *m_sinks = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_tokensTitle = nullptr;
    QLabel *m_tokens = nullptr;
    QScrollArea *m_tokensScroll = nullptr;
    QLabel *m_problem = nullptr;
    HeatmapPlot *m_plot = nullptr;
    QLabel *m_tableTitle = nullptr;
    QTableWidget *m_table = nullptr;
    QLabel *m_paper = nullptr;
    QLabel *m_finding = nullptr;
};

} // namespace attn
