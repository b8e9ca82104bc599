#pragma once
// The model mode: a real GPT-2-shaped model reading a sentence.
// The tokens as the model sees them, every layer × head as a small weights
// map (HeadGrid), one chosen head's scores, scaled scores, causal mask,
// weights and output (the lab's own stage maps, through headScenario and
// stageData, so they cannot disagree with the lab), its q, k, v, and the
// next token after the last position.
//
// Live: every edit of the sentence runs the forward (incremental: the
// positions before the edit are kept) and redraws, unless a key's work is
// too big (keyMultiplyAdds above the live key budget): then after a pause
// in typing or on Enter. The view knows nothing of the document: "Take this
// head into the lab" hands the scenario to whoever listens.

#include "figureexport.h"
#include "gpt2.h"
#include "headlabel.h"
#include "headgrid.h"
#include "probe.h"
#include "heatmapplot.h"
#include "takehead.h"

#include <QWidget>

#include <functional>
#include <memory>
#include <optional>

class QButtonGroup;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTabWidget;
class QTableWidget;
class QTimer;
class QVBoxLayout;

namespace attn {

class SinkView;

// What can be exported from the model view.
enum class ModelFigure { Scores, Scaled, Masked, Weights, Output, Q, K, V, Overview };

class ModelView : public QWidget {
    Q_OBJECT

public:
    explicit ModelView(QWidget *parent = nullptr);
    ~ModelView() override;

    // A new model; the sentence stays (and is run through it).
    void setModel(std::shared_ptr<const Gpt2Model> model);
    const Gpt2Model *model() const { return m_model.get(); }

    // Sets the sentence field and runs the forward at once.
    void setText(const QString &text);
    // The model reads exactly these ids (a generated text, which the
    // tokenizer might split otherwise); the field shows their text, and
    // the ids hold until the field is edited.
    void setIds(const std::vector<int> &ids);
    QString text() const;
    // 0-based layer and head; out-of-range values are clamped.
    void setHead(int layer, int head);
    int layer() const { return m_layer; }
    // What feeds the head, with the shapes: "Q, K and V come from the same sequence …" (the Q, K, V tab).
    QString qkvSourceText() const;
    int head() const { return m_head; }

    // The last successful forward, for the text now in the field (null
    // before the first, or while the field holds a text the model refused).
    const ModelTrace *trace() const { return m_trace ? &*m_trace : nullptr; }
    // The chosen head as the lab's scenario, and its trace (what the maps show).
    const Scenario *headScenario() const { return m_headScenario ? &*m_headScenario : nullptr; }
    const Trace *headTrace() const { return m_headScenario ? &m_headTrace : nullptr; }

    // Multiply-adds of one whole forward of `tokens` tokens (the layers'
    // products, the attention, the last position's logits).
    static double forwardMultiplyAdds(const Gpt2Config &config, int tokens);
    // Multiply-adds of one key typed at the end of a `tokens`-token
    // sentence with the incremental forward: two positions (the last token
    // changed, or one added) through every layer, their attention over
    // `tokens` keys, and the logits. What decides "live".
    static double keyMultiplyAdds(const Gpt2Config &config, int tokens);
    // Typing follows every key while a key's work at 32 tokens is under
    // this. GPT-2 small's 210 million passes: about 75 ms of float32
    // products a key on one core here, bound by reading its 500 MB of
    // weights once (NumPy on OpenBLAS takes 71 ms for the same products);
    // a model with more work a key waits for a pause or Enter.
    static constexpr double kLiveKeyBudget = 250e6;
    // Another budget, from the next model opened on (the tests lower it).
    void setLiveKeyBudget(double multiplyAdds) { m_liveKeyBudget = multiplyAdds; }
    bool isLive() const { return m_live; }
    // The pause after the last key before a big model recomputes.
    static constexpr int kPauseMs = 600;

    // The parts, for the window and the tests.
    QLineEdit *sentenceField() const { return m_sentence; }
    QLabel *tokensLabel() const { return m_tokens; }
    QLabel *slowNote() const { return m_slowNote; }
    QLabel *problemLabel() const { return m_problem; }
    QLabel *kindLabel() const { return m_kind; }
    HeadGrid *overview() const { return m_grid; }
    HeatmapPlot *stagePlot(Stage stage) const { return m_stagePlots[int(stage)]; }
    HeatmapPlot *qkvPlot(int which) const { return m_qkvPlots[which]; } // 0 q, 1 k, 2 v
    QTabWidget *headTabs() const { return m_tabs; }
    // How the five maps share the first tab: all on one page, or over two,
    // three or five (a picker above them) where one page leaves
    // their cells too low or narrow for their numbers (a projector's zoom).
    // Chosen again after a new size or zoom, for the first maps, and after
    // new maps (another sentence or head) once typing pauses.
    enum class MapArrangement { Grid, OutputApart, Pairs, Singles };
    MapArrangement mapArrangement() const { return m_arrangement; }
    QStackedWidget *mapPages() const { return m_mapStack; }
    // The "Sinks" tab (sinkview.h): the model's weight on the first token
    // and StreamingLLM's window against sinks + a window; it follows the
    // model and the sentence.
    SinkView *sinkView() const { return m_sinkView; }
    QWidget *sinkTab() const { return m_sinkTab; } // the tab's page (the view, scrolled)
    QTableWidget *predictionTable() const { return m_predictions; }
    QPushButton *takeButton() const { return m_take; }
    QPushButton *backButton() const { return m_back; }
    QSpinBox *layerBox() const { return m_layerBox; }
    QSpinBox *headBox() const { return m_headBox; }
    // Every plot the view draws with, for the gradients and exports.
    std::vector<HeatmapPlot *> plots() const;
    std::vector<QWidget *> figureWidgets() const; // the plots and the grid: where "Export figure…" is offered
    std::optional<ModelFigure> figureOf(const QWidget *w) const;

    // Recomputes now (Enter does this; so does a pause with a big model).
    void recompute();
    // A key was typed and its forward has not run yet: keys typed faster
    // than the event loop comes round are read together (never dropped: the
    // forward reads the field as the last key left it).
    bool recomputePending() const;
    // How long the last recompute's forward took (tokenizer included), and
    // how many positions it kept from the one before (ModelTrace::reused).
    double lastForwardMs() const { return m_lastForwardMs; }

    // The figure drawn off screen in the figure font (the window's look in
    // `style`); empty before the first forward.
    QByteArray figure(ModelFigure what, const FigureStyle &style, FigureFormat format, const FigureSize &size) const;
    // "tiny-bilingual_L3H1_weights", "tiny-bilingual_overview": file names.
    QString figureStem(ModelFigure what) const;
    // The overview's data (the grid shows it; the overview figure draws it with a title).
    HeadGridData overviewData(bool withTitle) const;

    // "3 layers × 4 heads · …": the model line, translated.
    QString modelSummary() const;
    // A head's label (headscores.h) in the UI's language.
    static QString kindName(HeadKind kind);
    // Every score of a head beside its uniform baseline, one a line
    // ("previous token: 0.62 (uniform 0.21)"), and the rule of the label.
    static QString scoresText(const HeadScores &s);
    // The chosen head's scores (for the sentence now shown).
    const HeadScores &headScores() const { return m_scores; }

    // Heads knocked out (right-click a head in the grid): the forward runs
    // without them (probe.h); the next-token table is the knocked-out
    // model's, and the note under it gives the whole model's top 5 and the
    // loss on the probe's second copies, with and without. Empty: none.
    void setAblations(std::vector<HeadAblation> ablations);
    const std::vector<HeadAblation> &ablations() const { return m_ablations; }
    // Knock out (mean: replace its output by its mean over the probe) or bring back one head.
    void knockOut(int layer, int head, bool mean);
    void bringBack(int layer, int head);
    bool isKnockedOut(int layer, int head) const;
    QLabel *ablationNote() const { return m_ablationNote; }
    // Every head's scores over the standard probe (probe.h), one row a head,
    // sortable by any column; with heads knocked out, the scores without them.
    QTableWidget *scoresTable() const { return m_scoresTable; }
    const std::vector<HeadScores> &probeScoresShown() const { return m_probeScores; }
    // The probe's seed (model scores --seed's default).
    static constexpr std::uint64_t kProbeSeed = 1;

signals:
    // The head for the sentence as an ordinary scenario, and the undo text.
    void takeHeadRequested(const attn::Scenario &scenario, const QString &description);
    void leaveRequested();
    // Right-click ▸ Export figure… on a map or the grid.
    void exportRequested(attn::ModelFigure what);
    void headChanged(int layer, int head);
    // After every forward, the views updated (tests, the bench).
    void recomputed();

protected:
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void buildTokenStrip(QVBoxLayout *root);
    QWidget *buildOverview(QWidget *parent);
    QWidget *buildHeadPanel(QWidget *parent);
    QTabWidget *buildHeadTabs(QWidget *parent);
    void connectParts();
    void retranslate();
    void onTextEdited();
    void updateTokens();
    void updateOverview();
    void updateHead();
    void updateHeadMaps();
    void updatePredictions();
    void setStale(bool stale);
    void markCache(HeatmapData &d) const;
    HeatmapData qkvData(int which) const;
    void updateAblationNote();
    void updateScoresTable();
    void showGridMenu(const QPoint &pos);
    void layOutMaps();
    void retranslateMapPicker();
    void setMapArrangement(MapArrangement arrangement);
    int pageCount() const;
    int mapsWithNumbers();
    void arrangeMapsToFit();
    void scheduleMapArrangement();

    std::shared_ptr<const Gpt2Model> m_model;
    std::optional<ModelTrace> m_trace;
    std::optional<std::vector<int>> m_ids; // setIds's, while the field shows their text
    QString m_idsText;
    std::optional<Scenario> m_headScenario;
    Trace m_headTrace;
    HeadScores m_scores;
    std::vector<HeadAblation> m_ablations;
    std::vector<Prediction> m_intactNext;          // the whole model's top 5, while heads are knocked out
    std::optional<std::pair<double, double>> m_probeLoss; // with every head, without the knocked-out ones
    std::vector<HeadScores> m_probeScores;         // the table's
    bool m_scoresDirty = true;
    QString m_probeProblem;
    int m_layer = 0;
    int m_head = 0;
    bool m_live = true;
    double m_liveKeyBudget = kLiveKeyBudget;
    bool m_tabDirty[2] = {true, true}; // the maps of each tab, waiting to be shown
    static constexpr int kMapSpacing = 4;
    MapArrangement m_arrangement = MapArrangement::Grid;
    bool m_arrangePending = false;
    bool m_arrangedOnce = false; // for the first maps shown
    bool m_arrangeWanted = false; // asked while the maps were hidden
    QTimer *m_arrangeIdle = nullptr; // after new maps, once typing pauses
    QWidget *m_mapsPage = nullptr;
    QWidget *m_mapPicker = nullptr;
    QButtonGroup *m_mapButtons = nullptr;
    QStackedWidget *m_mapStack = nullptr;
    QWidget *m_mapPages[5] = {};

    QLabel *m_modelLine = nullptr;
    QLabel *m_sentenceLabel = nullptr;
    QLineEdit *m_sentence = nullptr;
    QLabel *m_tokensTitle = nullptr;
    QLabel *m_tokens = nullptr;
    QLabel *m_slowNote = nullptr;
    QLabel *m_problem = nullptr;
    QLabel *m_overviewTitle = nullptr;
    HeadGrid *m_grid = nullptr;
    QLabel *m_nextTitle = nullptr;
    QTableWidget *m_predictions = nullptr;
    QLabel *m_ablationNote = nullptr;
    QLabel *m_scoresTitle = nullptr;
    QTableWidget *m_scoresTable = nullptr;
    QLabel *m_layerLabel = nullptr;
    QLabel *m_headLabel = nullptr;
    QSpinBox *m_layerBox = nullptr;
    QSpinBox *m_headBox = nullptr;
    QLabel *m_kind = nullptr;
    QPushButton *m_take = nullptr;
    QPushButton *m_back = nullptr;
    QTabWidget *m_tabs = nullptr;
    HeatmapPlot *m_stagePlots[5] = {};
    HeatmapPlot *m_qkvPlots[3] = {};
    QLabel *m_qkvSource = nullptr;
    SinkView *m_sinkView = nullptr;
    QWidget *m_sinkTab = nullptr;
    QTimer *m_pause = nullptr;
    QTimer *m_coalesce = nullptr;
    double m_lastForwardMs = 0;
};

} // namespace attn
