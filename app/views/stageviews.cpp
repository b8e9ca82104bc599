#include "stageviews.h"

#include "edit.h"
#include "explain.h"
#include "formula.h"
#include "scenario_json.h"
#include "stagedata.h"
#include "steps.h"
#include "viewbinding.h"

#include <QEvent>
#include <QGuiApplication>
#include <QGridLayout>
#include <QVBoxLayout>

#include <cmath>

namespace attn {

namespace {

// The maps of one window that write the chain's numbers (the stages, the
// concatenation, the final output) agree on one number of decimals.
constexpr char kAgreesOnDecimals[] = "attn.agreesOnDecimals";

// The weights' map at the step of the exponentials: e^{s′ − max} and
// each row's sum Σ′, so that the next step's division is the weights.
HeatmapData exponentialsData(const Scenario &s, const Trace &t, int head, bool sharedRange)
{
    StageOptions o;
    o.head = head;
    o.sharedScoreRange = sharedRange;
    HeatmapData d = stageData(s, t, Stage::Weights, o);
    Eigen::VectorXd sums;
    d.values = stepExponentials(s, t, head, &sums);
    const QString summary = d.title.section(QLatin1Char('\n'), 1);
    //: The weights' map at step 4 of step mode: each cell e to the power of (scaled score minus the row's maximum).
    d.title = StageView::tr("Exponentials  e^(s′ − max)");
    if (!summary.isEmpty())
        d.title += QLatin1Char('\n') + summary;
    d.colorBarLabel = StageView::tr("e^(s′ − max)");
    d.scale = HeatmapScale::Probability; // the row's largest is e^0 = 1
    d.rowNotes.clear();
    for (Eigen::Index i = 0; i < sums.size(); ++i)
        d.rowNotes << QString::fromStdString(handNumber(sums(i)));
    //: The header above the row notes at the step of the exponentials: each row's sum.
    d.rowNotesLabel = StageView::tr("Σ′");
    d.rowNotesLegend = StageView::tr("Σ′ = the row's sum of exponentials; the next step divides each by it");
    return d;
}

} // namespace

void agreeOnDecimals(QWidget *inWindow)
{
    QWidget *window = inWindow->window();
    QList<HeatmapPlot *> plots = window->findChildren<HeatmapPlot *>();
    if (auto *self = qobject_cast<HeatmapPlot *>(window))
        plots.prepend(self);
    int cap = 4;
    QList<HeatmapPlot *> group;
    for (HeatmapPlot *p : plots) {
        if (!p->property(kAgreesOnDecimals).toBool())
            continue;
        group << p;
        // Only maps on screen that write their numbers have a say.
        const int fit = p->isVisible() ? p->decimalsThatFit() : -1;
        if (fit >= 0)
            cap = std::min(cap, fit);
    }
    for (HeatmapPlot *p : group)
        p->setDecimalsCap(cap);
}

void joinDecimalsAgreement(HeatmapPlot *plot)
{
    plot->setProperty(kAgreesOnDecimals, true);
    // What fits depends on the layout and never on the cap: no loop.
    QObject::connect(plot, &HeatmapPlot::decimalsFitChanged, plot, [plot] { agreeOnDecimals(plot); });
}

StageView::StageView(Document *doc, Stage stage, QWidget *parent) : HeatmapPlot(parent), m_doc(doc), m_stage(stage)
{
    setObjectName(QStringLiteral("stage-") + stageKey(stage));
    joinDecimalsAgreement(this);
    setBlankWhenDimmed(true);
    setToolTipProvider([this](int row, int col) {
        if (m_shows == Classroom::Shows::Exponentials) {
            Eigen::VectorXd sums;
            const Matrix e = stepExponentials(m_doc->scenario(), m_doc->trace(), m_doc->currentHead(), &sums);
            if (row >= e.rows() || col >= e.cols() || col < 0)
                return QString();
            return QStringLiteral("e^(s′ − max) = %1\nΣ′ = %2")
                .arg(QString::fromStdString(handNumber(e(row, col))), QString::fromStdString(handNumber(sums(row))));
        }
        QString text = cellToolTip(m_doc->scenario(), m_doc->trace(), m_stage, m_doc->currentHead(), row, col);
        const QString query = QString::fromStdString(queryLabels(m_doc->scenario())[std::size_t(row)]);
        //: The last line of a map cell's tooltip: what a click and a Ctrl+click do.
        text += QStringLiteral("\n\n")
            + (m_stage == Stage::Output ? tr("Click: select query %1").arg(query)
                                        : tr("Click: select query %1 · Ctrl+click: block or open this cell").arg(query));
        return text;
    });
    connect(this, &HeatmapPlot::cellHovered, this, &StageView::onHover);
    connect(this, &HeatmapPlot::cellClicked, this, &StageView::onCellClicked);
    connect(this, &HeatmapPlot::rowLabelClicked, this, [this](int row, Qt::MouseButton button) {
        if (button == Qt::LeftButton)
            selectQuery(row);
    });
    // The maps of the window are always drawn: a window's first show finds them ready.
    auto *binding = new ViewBinding(this, doc,
                                    ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings,
                                    [this] { refresh(); }, ViewBinding::FollowsCurrent | ViewBinding::EvenWhenHidden);
    binding->setPartialRefresh([this](const DocumentChange &what) { return refreshCells(what); });
    connect(doc, &Document::hoverChanged, this, [this](int row, int col) {
        setHighlight(row, m_stage == Stage::Output ? -1 : col);
    });
    refresh();
}

void StageView::setSharedScoreRange(bool shared)
{
    if (shared == m_sharedRange)
        return;
    m_sharedRange = shared;
    refresh();
}

void StageView::refresh()
{
    followClassroom();
    StageOptions o;
    o.head = m_doc->currentHead();
    o.sharedScoreRange = m_sharedRange;
    if (m_shows == Classroom::Shows::Exponentials || m_answersHidden) {
        HeatmapData d = m_shows == Classroom::Shows::Exponentials
                            ? exponentialsData(m_doc->scenario(), m_doc->trace(), o.head, m_sharedRange)
                            : stageData(m_doc->scenario(), m_doc->trace(), m_stage, o);
        if (m_answersHidden)
            hideAnswers(d);
        setData(std::move(d));
    } else {
        // The values straight into the map's own matrix.
        o.values = false;
        setData(stageData(m_doc->scenario(), m_doc->trace(), m_stage, o),
                [&](Matrix &values) { stageValues(m_doc->trace(), m_stage, o.head, values); });
    }
    m_shownHead = o.head;
    setHighlight(m_doc->hoveredRow(), m_stage == Stage::Output ? -1 : m_doc->hoveredColumn());
}

bool StageView::refreshCells(const DocumentChange &what)
{
    if (m_answersHidden || m_shows == Classroom::Shows::Exponentials || m_shownHead != m_doc->currentHead())
        return false;
    StageOptions o;
    o.head = m_shownHead;
    o.sharedScoreRange = m_sharedRange;
    if (!what.trace) {
        // A settings change that moved none of this map's numbers (a causal
        // flip and the scores): the frame again, the cells only if masked.
        const bool kept = m_stage == Stage::Scores ? what.scoresKept
                                                   : (m_stage == Stage::Scaled || m_stage == Stage::Masked) && what.scaledKept;
        if (!kept)
            return false;
        o.values = false;
        setDataKeepingValues(stageData(m_doc->scenario(), m_doc->trace(), m_stage, o));
        setHighlight(m_doc->hoveredRow(), m_doc->hoveredColumn());
        return true;
    }
    const StageSpan span = changedCells(m_stage, *what.trace);
    updateCells(span.firstRow, span.rowCount, span.column,
                [&](HeatmapData &d) { updateStageData(d, m_doc->trace(), m_stage, o, *what.trace); });
    return true;
}

void StageView::setAnswersHidden(bool hidden)
{
    followClassroom();
    if (hidden == m_answersHidden)
        return;
    m_answersHidden = hidden;
    setValuesHidden(hidden);
    refresh();
}

void StageView::followClassroom()
{
    if (m_classroom)
        return;
    m_classroom = Classroom::of(m_doc);
    if (!m_classroom)
        return;
    connect(m_classroom, &Classroom::changed, this, &StageView::applyStep);
    applyStep();
}

void StageView::applyStep()
{
    const Classroom::Shows shows = m_classroom ? m_classroom->shows(m_stage) : Classroom::Shows::Values;
    // A stage not reached yet is drawn dimmed and blank (setBlankWhenDimmed).
    setDimmed(shows == Classroom::Shows::Nothing);
    if (shows == m_shows)
        return;
    const bool redraw = shows == Classroom::Shows::Exponentials || m_shows == Classroom::Shows::Exponentials;
    m_shows = shows;
    if (redraw)
        refresh();
}

void StageView::onHover(int row, int col)
{
    // The output's columns are value dimensions, not keys.
    m_doc->setHovered(row, m_stage == Stage::Output ? -1 : col);
}

void StageView::onCellClicked(int row, int col, Qt::MouseButton button)
{
    if (button != Qt::LeftButton || row < 0)
        return;
    // A plain click selects the row's query; only Ctrl+click changes the mask.
    if (m_stage == Stage::Output || col < 0 || !(QGuiApplication::keyboardModifiers() & blockModifier())) {
        selectQuery(row);
        return;
    }
    m_doc->setCurrentQuery(row);
    const Scenario &s = m_doc->scenario();
    const bool blocked = s.mask.blocked.size() && s.mask.blocked(row, col);
    const auto q = queryLabels(s), k = keyLabels(s);
    const QString cell = QStringLiteral("%1 → %2").arg(QString::fromStdString(q[std::size_t(row)]),
                                                       QString::fromStdString(k[std::size_t(col)]));
    const BlockReasons why = blockReasons(s, row, col);
    if (!why.hand && (why.causal || why.padding || why.window || why.dilation || why.block)) {
        // A click cannot open it, and a hand block under it would change
        // nothing on screen: say what holds it instead of adding a step.
        m_doc->report(why.causal    ? tr("%1 is blocked by the causal mask; turn the causal mask off to open it").arg(cell)
                      : why.padding ? tr("%1 is blocked because the key is padding; untick it under Key padding to open it")
                                          .arg(cell)
                                    : tr("%1 is outside the sparse mask; choose Mask: full in the settings bar to open it")
                                          .arg(cell));
        return;
    }
    //: An undo step: a map cell clicked open again (unmasked) or blocked (masked).
    m_doc->setSettings(toggleBlocked(s, row, col), blocked ? tr("Unblock %1").arg(cell) : tr("Block %1").arg(cell),
                       Document::Step::Own);
}

void StageView::selectQuery(int row)
{
    const Scenario &s = m_doc->scenario();
    if (row < 0 || row >= queryCount(s))
        return;
    m_doc->setCurrentQuery(row);
    const QString query = QString::fromStdString(queryLabels(s)[std::size_t(row)]);
    emit message(m_stage == Stage::Output ? tr("Query %1 selected").arg(query)
                                          : tr("Query %1 selected (Ctrl+click a cell to block or open it)").arg(query));
}

MisprintNote::MisprintNote(Document *doc, QWidget *parent) : QLabel(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("misprintNote"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setStyleSheet(QStringLiteral("color: #8a4b00;")); // a warning's colour, not an error's
    new ViewBinding(this, doc, ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings,
                    [this] { refresh(); }, ViewBinding::FollowsCurrent | ViewBinding::EvenWhenHidden);
    connect(doc, &Document::fileStateChanged, this, &MisprintNote::refresh);
    hide();
}

QString MisprintNote::noteText(const Scenario &s, const Trace &t, int head, const std::function<bool(Stage)> &shown)
{
    QStringList lines;
    const std::vector<Misprint> misprints = misprintsOf(s); // read from the file's kept members: once
    for (Stage stage : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output}) {
        if (shown && !shown(stage))
            continue;
        QStringList printed, computed;
        for (const Misprint &m : misprints) {
            if (m.head != head || m.stage != stageKey(stage).toStdString() || head >= int(t.heads.size()))
                continue;
            const HeadTrace &h = t.heads[std::size_t(head)];
            const Matrix values = stage == Stage::Scores ? h.scores
                                  : stage == Stage::Weights ? h.weights
                                  : stage == Stage::Output  ? h.output
                                                            : h.scaledMatrix();
            if (m.row >= values.rows() || m.col >= values.cols())
                continue;
            printed << HeatmapPlot::formatValue(m.printed, 4);
            computed << HeatmapPlot::formatValue(values(m.row, m.col), 4);
        }
        if (!printed.isEmpty())
            //: Under the maps, where a lesson's source document prints a wrong number: the stage's name, the printed
            //: numbers, the numbers the formula gives.
            lines << tr("%1: the handout prints %2; the formula gives %3")
                         .arg(stageName(stage), printed.join(QStringLiteral(", ")), computed.join(QStringLiteral(", ")));
    }
    return lines.join(QLatin1Char('\n'));
}

void MisprintNote::refresh()
{
    if (!m_classroom && (m_classroom = Classroom::of(m_doc)))
        connect(m_classroom, &Classroom::changed, this, &MisprintNote::refresh);
    // An edited lesson shows no note, so a drag (every move an edit) costs
    // nothing here.
    if (m_doc->isModified()) {
        setVisible(false);
        return;
    }
    // The note gives the answers away where the maps do not show them (hide
    // mode, a step not reached); the printed numbers are the lesson's, not
    // an edited version's.
    const QString note = noteText(m_doc->scenario(), m_doc->trace(), m_doc->currentHead(), [this](Stage stage) {
        return !m_classroom || (!m_classroom->hidden() && m_classroom->shows(stage) == Classroom::Shows::Values);
    });
    setText(note);
    setVisible(!note.isEmpty());
}

AllHeadsView::AllHeadsView(Document *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    new QGridLayout(this);
    // A tab in the background waits until it is shown: no work on a drag.
    new ViewBinding(this, doc, ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings,
                    [this] { refresh(); });
    refresh();
}

void AllHeadsView::refresh()
{
    const Scenario &s = m_doc->scenario();
    const Trace &t = m_doc->trace();
    auto *grid = static_cast<QGridLayout *>(layout());
    while (int(m_plots.size()) > s.heads) {
        delete m_plots.back();
        m_plots.pop_back();
    }
    const int columns = s.heads <= 2 ? s.heads : s.heads <= 4 ? 2 : 4;
    while (int(m_plots.size()) < s.heads) {
        auto *p = new HeatmapPlot(this);
        p->setCompact(true);
        const int head = int(m_plots.size());
        p->setObjectName(QStringLiteral("head-%1").arg(head + 1));
        connect(p, &HeatmapPlot::cellClicked, this, [this, head](int, int, Qt::MouseButton) { m_doc->setCurrentHead(head); });
        p->setToolTipProvider([head](int, int) { return tr("Head %1: click to show it in every map").arg(head + 1); });
        m_plots.push_back(p);
    }
    for (int i = 0; i < s.heads; ++i) {
        grid->addWidget(m_plots[std::size_t(i)], i / columns, i % columns);
        HeatmapData d = headWeightsData(s, t, i);
        if (i == m_doc->currentHead())
            d.title = tr("▶ head %1 (shown)").arg(i + 1);
        m_plots[std::size_t(i)]->setData(d);
    }
}

ConcatView::ConcatView(Document *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_concat = new HeatmapPlot(this);
    m_concat->setObjectName(QStringLiteral("concat"));
    m_output = new HeatmapPlot(this);
    m_output->setObjectName(QStringLiteral("final-output"));
    joinDecimalsAgreement(m_concat);
    joinDecimalsAgreement(m_output);
    layout->addWidget(m_concat);
    layout->addWidget(m_output);
    new ViewBinding(this, doc, ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings,
                    [this] { refresh(); }, {});
    refresh();
}

void ConcatView::refresh()
{
    m_concat->setData(concatData(m_doc->scenario(), m_doc->trace()));
    m_output->setData(finalOutputData(m_doc->scenario(), m_doc->trace()));
}

PositionalView::PositionalView(Document *doc, QWidget *parent) : QStackedWidget(parent), m_doc(doc)
{
    m_off = new QLabel(tr("The positional encoding is off.\n\nWithout it, attention cannot see word order: "
                          "reorder the tokens and the maps only reorder.\nTurn on sinusoidal, learned or RoPE "
                          "in the settings panel to see the encoding here."),
                       this);
    m_off->setAlignment(Qt::AlignCenter);
    m_off->setWordWrap(true);
    m_plot = new HeatmapPlot(this);
    m_plot->setObjectName(QStringLiteral("positional"));
    addWidget(m_off);
    addWidget(m_plot);
    // The encoding depends on the sizes, the encoding and its seed, never on the values.
    new ViewBinding(this, doc, ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings, [this] { refresh(); }, {});
    refresh();
}

void PositionalView::refresh()
{
    const HeatmapData d = positionalData(m_doc->scenario(), m_doc->trace());
    if (d.values.size() == 0) {
        setCurrentWidget(m_off);
        return;
    }
    m_plot->setData(d);
    setCurrentWidget(m_plot);
}

FormulaBar::FormulaBar(Document *doc, QWidget *parent) : QLabel(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("formula"));
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setAlignment(Qt::AlignCenter);
    setWordWrap(true);
    // The formula names the settings and the sizes, not the numbers: a drag leaves it alone.
    new ViewBinding(this, doc, ChangeKind::Shape | ChangeKind::Settings, [this] { refresh(); },
                    ViewBinding::EvenWhenHidden);
    refresh();
}

void FormulaBar::refresh()
{
    const Formula f = formula(m_doc->scenario());
    const int base = font().pointSize() > 0 ? font().pointSize() : 10;
    QString html = QStringLiteral("<span style='font-size:%1pt; font-family:serif;'>%2</span>")
                       .arg(int(std::lround(base * 1.6)))
                       .arg(QString::fromStdString(f.attention).toHtmlEscaped());
    if (f.notRenormalised)
        html += QStringLiteral(" <span style='font-size:%1pt; color:#b00020;'>%2</span>")
                    .arg(int(std::lround(base * 1.2)))
                    .arg(tr("✗ not renormalised").toHtmlEscaped());
    QStringList small;
    if (!f.inputs.empty())
        small << QString::fromStdString(f.inputs).toHtmlEscaped();
    if (f.rope)
        small << tr("R rotates each pair of dimensions by its position").toHtmlEscaped();
    if (!f.output.empty())
        small << QString::fromStdString(f.output).toHtmlEscaped();
    if (!small.isEmpty())
        html += QStringLiteral("<br><span style='font-size:%1pt; color:#555;'>%2</span>")
                    .arg(int(std::lround(base * 1.1)))
                    .arg(small.join(QStringLiteral(" &nbsp;·&nbsp; ")));
    setText(html);
}

void FormulaBar::changeEvent(QEvent *event)
{
    QLabel::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        refresh();
}

} // namespace attn
