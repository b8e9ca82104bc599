#include "traininglab.h"

#include "trainingchart.h"
#include "trainingrunner.h"

#include "gpt2.h"
#include "numbers.h"
#include "savemodel.h"
#include "takehead.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>

namespace attn {

namespace {

QString scaleName(Scale s)
{
    switch (s) {
    case Scale::SqrtDk:
        return QStringLiteral("÷√d_k");
    case Scale::None:
        return QStringLiteral("÷1");
    case Scale::Dk:
        return QStringLiteral("÷d_k");
    }
    return {};
}

QString number3(double v)
{
    return QString::fromStdString(formatFixed(v, 3, Minus::Typographic));
}

// The mean of 1/(i+1) over the rows i = 1..T-1: the previous-token score of
// weights spread evenly over the open keys.
double uniformPreviousScore(int length)
{
    double sum = 0;
    for (int i = 1; i < length; ++i)
        sum += 1.0 / (i + 1);
    return length > 1 ? sum / (length - 1) : 0.0;
}

QString problemLine(const Problem &p)
{
    return QString::fromStdString(p.toString()).simplified();
}

// Keeps a vertical scroll area as wide as its widget's minimum width (the
// window's zoom changes it).
class ColumnWidthFit : public QObject {
public:
    ColumnWidthFit(QScrollArea *scroll, QWidget *inner) : QObject(scroll), m_scroll(scroll), m_inner(inner) {}
    void update()
    {
        const int w = m_inner->minimumSizeHint().width() + m_scroll->verticalScrollBar()->sizeHint().width() + 2;
        if (m_scroll->minimumWidth() != w)
            m_scroll->setMinimumWidth(w);
    }
    bool eventFilter(QObject *, QEvent *event) override
    {
        if (event->type() == QEvent::LayoutRequest || event->type() == QEvent::FontChange)
            update();
        return false;
    }

private:
    QScrollArea *m_scroll;
    QWidget *m_inner;
};

} // namespace

TrainingLabView::TrainingLabView(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("trainingLab"));
    m_runner = new TrainingRunner(this);
    m_raceA = new TrainingRunner(this);
    m_raceB = new TrainingRunner(this);
    buildUi();
    connect(m_runner, &TrainingRunner::stepped, this, [this](int step, double) {
        m_progress->setValue(step);
        m_progress->setFormat(tr("step %1 of %2").arg(step).arg(m_runner->settings().steps));
    });
    connect(m_runner, &TrainingRunner::logged, this, [this] { onLogged(); });
    connect(m_runner, &TrainingRunner::checkpointed, this, [this](int i) { onCheckpointed(i); });
    connect(m_runner, &TrainingRunner::paused, this, [this](int step) {
        setStatus(tr("Paused at step %1").arg(step));
        updateButtons();
    });
    connect(m_runner, &TrainingRunner::resumed, this, [this] {
        setStatus(tr("Training…"));
        updateButtons();
    });
    connect(m_runner, &TrainingRunner::finished, this, [this](bool c, const QString &p) { onFinished(c, p); });
    for (TrainingRunner *r : {m_raceA, m_raceB}) {
        connect(r, &TrainingRunner::logged, this, [this] { updateRaceChart(); });
        connect(r, &TrainingRunner::finished, this, [this](bool cancelled, const QString &problem) {
            if (!problem.isEmpty())
                m_raceStatus->setText(tr("The race stopped: %1").arg(problem));
            else if (cancelled)
                m_raceStatus->setText(tr("The race was cancelled"));
            else if (!m_raceA->isRunning() && !m_raceB->isRunning())
                m_raceStatus->setText(tr("Both runs finished: the same weights, batches and seed, only the divisor differs"));
            updateButtons();
            updateRaceChart();
        });
    }
    setSettings(TrainSettings{});
    updateButtons();
}

TrainingLabView::~TrainingLabView() = default;

void TrainingLabView::buildUi()
{
    auto *outer = new QHBoxLayout(this);
    // The settings column scrolls when a projector's zoom makes it taller than the window.
    auto *scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("trainSettingsScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *sideWidget = new QWidget(scroll);
    auto *side = new QVBoxLayout(sideWidget);
    side->setContentsMargins(0, 0, 0, 0);
    scroll->setWidget(sideWidget);
    outer->addWidget(scroll, 0);

    auto *form = new QGroupBox(tr("Model and task"), this);
    auto *fl = new QFormLayout(form);
    m_task = new QComboBox(form);
    m_task->setObjectName(QStringLiteral("trainTask"));
    m_task->addItem(tr("Induction (repeat a span)"), int(TrainTask::Induction));
    m_task->addItem(tr("Previous token"), int(TrainTask::Previous));
    m_task->addItem(tr("Copy a list"), int(TrainTask::Copy));
    m_task->addItem(tr("Reverse a list"), int(TrainTask::Reverse));
    m_task->addItem(tr("Bilingual grammar"), int(TrainTask::Grammar));
    auto spin = [form](const char *name, int lo, int hi) {
        auto *s = new QSpinBox(form);
        s->setObjectName(QLatin1String(name));
        s->setRange(lo, hi);
        return s;
    };
    m_layers = spin("trainLayers", 1, 3);
    m_heads = spin("trainHeads", 1, 4);
    m_dModel = spin("trainDModel", 16, 128);
    m_dModel->setSingleStep(8);
    m_mlp = new QCheckBox(tr("MLP after attention"), form);
    m_mlp->setObjectName(QStringLiteral("trainMlp"));
    m_scale = new QComboBox(form);
    m_scale->setObjectName(QStringLiteral("trainScale"));
    for (Scale s : {Scale::SqrtDk, Scale::None, Scale::Dk})
        m_scale->addItem(scaleName(s), int(s));
    m_seed = spin("trainSeed", 0, 999999);
    m_steps = spin("trainSteps", 1, 100000);
    m_steps->setSingleStep(100);
    m_batch = spin("trainBatch", 1, 1024);
    m_length = spin("trainLength", 4, 256);
    fl->addRow(tr("Task"), m_task);
    fl->addRow(tr("Layers"), m_layers);
    fl->addRow(tr("Heads"), m_heads);
    fl->addRow(tr("d_model"), m_dModel);
    fl->addRow(QString(), m_mlp);
    fl->addRow(tr("Scaling"), m_scale);
    fl->addRow(tr("Seed"), m_seed);
    fl->addRow(tr("Steps"), m_steps);
    fl->addRow(tr("Batch"), m_batch);
    fl->addRow(tr("Tokens T"), m_length);
    side->addWidget(form);

    auto *buttons = new QGridLayout;
    auto button = [this](const QString &text, const char *name) {
        auto *b = new QPushButton(text, this);
        b->setObjectName(QLatin1String(name));
        return b;
    };
    m_start = button(tr("Start"), "trainStart");
    m_pause = button(tr("Pause"), "trainPause");
    m_resume = button(tr("Resume"), "trainResume");
    m_step = button(tr("Single step"), "trainStep");
    m_cancel = button(tr("Cancel"), "trainCancel");
    buttons->addWidget(m_start, 0, 0);
    buttons->addWidget(m_cancel, 0, 1);
    buttons->addWidget(m_pause, 1, 0);
    buttons->addWidget(m_resume, 1, 1);
    buttons->addWidget(m_step, 2, 0, 1, 2);
    side->addLayout(buttons);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("trainProgress"));
    m_progress->setTextVisible(true);
    side->addWidget(m_progress);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("trainStatus"));
    m_status->setWordWrap(true);
    side->addWidget(m_status);

    auto *cp = new QGroupBox(tr("Checkpoints"), this);
    auto *cl = new QVBoxLayout(cp);
    m_scrubber = new QSlider(Qt::Horizontal, cp);
    m_scrubber->setObjectName(QStringLiteral("trainScrubber"));
    m_scrubber->setRange(0, 0);
    m_scrubber->setEnabled(false);
    m_checkpointLabel = new QLabel(tr("No checkpoint yet"), cp);
    m_checkpointLabel->setWordWrap(true);
    m_scoresLabel = new QLabel(cp);
    m_scoresLabel->setObjectName(QStringLiteral("trainScores"));
    m_scoresLabel->setWordWrap(true);
    m_take = button(tr("Take this checkpoint's head into the lab"), "trainTakeHead");
    m_openModel = button(tr("Open in model mode"), "trainOpenModel");
    m_save = button(tr("Save model…"), "trainSave");
    for (QWidget *w : std::initializer_list<QWidget *>{m_scrubber, m_checkpointLabel, m_scoresLabel, m_take, m_openModel, m_save})
        cl->addWidget(w);
    side->addWidget(cp);
    side->addStretch(1);
    // The column as wide as its content at any zoom; only its height scrolls.
    auto *fit = new ColumnWidthFit(scroll, sideWidget);
    sideWidget->installEventFilter(fit);
    fit->update();

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("trainTabs"));
    outer->addWidget(m_tabs, 1);
    auto *page = new QWidget(m_tabs);
    auto *grid = new QGridLayout(page);
    m_loss = new TrainingChart(page);
    m_loss->setObjectName(QStringLiteral("trainLoss"));
    m_previous = new TrainingChart(page);
    m_previous->setObjectName(QStringLiteral("trainPrevious"));
    m_prefix = new TrainingChart(page);
    m_prefix->setObjectName(QStringLiteral("trainPrefix"));
    for (TrainingChart *c : {m_previous, m_prefix})
        c->setToolTip(tr("Dashed: the score of uniform weights, each row 1/(i+1) on its i+1 open keys (on the order of 1/T): a head above it prefers the pattern"));
    grid->addWidget(m_loss, 0, 0);
    grid->addWidget(m_previous, 1, 0);
    grid->addWidget(m_prefix, 2, 0);
    auto *maps = new QVBoxLayout;
    m_mapsTitle = new QLabel(page);
    m_mapsTitle->setWordWrap(true);
    m_grid = new HeadGrid(page);
    m_grid->setObjectName(QStringLiteral("trainProbeGrid"));
    maps->addWidget(m_mapsTitle);
    maps->addWidget(m_grid, 1);
    grid->addLayout(maps, 0, 1, 3, 1);
    grid->setColumnStretch(0, 3);
    grid->setColumnStretch(1, 2);
    m_tabs->addTab(page, tr("Training"));

    auto *racePage = new QWidget(m_tabs);
    auto *rl = new QVBoxLayout(racePage);
    auto *row = new QHBoxLayout;
    m_raceScale = new QComboBox(racePage);
    m_raceScale->setObjectName(QStringLiteral("raceAgainst"));
    m_raceScale->addItem(tr("÷√d_k against ÷1"), int(Scale::None));
    m_raceScale->addItem(tr("÷√d_k against ÷d_k"), int(Scale::Dk));
    m_raceStart = button(tr("Start the race"), "raceStart");
    m_raceCancel = button(tr("Cancel the race"), "raceCancel");
    row->addWidget(m_raceScale);
    row->addWidget(m_raceStart);
    row->addWidget(m_raceCancel);
    row->addStretch(1);
    rl->addLayout(row);
    m_raceStatus = new QLabel(tr("The model, data and seed of the settings on the left, trained twice: only the scores' divisor differs."),
                              racePage);
    m_raceStatus->setWordWrap(true);
    rl->addWidget(m_raceStatus);
    m_race = new TrainingChart(racePage);
    m_race->setObjectName(QStringLiteral("raceLoss"));
    rl->addWidget(m_race, 1);
    m_tabs->addTab(racePage, tr("The race"));

    connect(m_start, &QPushButton::clicked, this, [this] { startTraining(); });
    connect(m_pause, &QPushButton::clicked, m_runner, &TrainingRunner::pause);
    connect(m_resume, &QPushButton::clicked, m_runner, &TrainingRunner::resume);
    connect(m_step, &QPushButton::clicked, m_runner, &TrainingRunner::stepOnce);
    connect(m_cancel, &QPushButton::clicked, m_runner, &TrainingRunner::cancel);
    connect(m_pause, &QPushButton::clicked, this, [this] { updateButtons(); });
    connect(m_scrubber, &QSlider::valueChanged, this, [this](int v) {
        m_follow = v == m_scrubber->maximum();
        showCheckpoint(v);
    });
    connect(m_grid, &HeadGrid::cellClicked, this, [this](int r, int c) { m_grid->setSelected(r, c); });
    connect(m_take, &QPushButton::clicked, this, [this] {
        const int index = shownCheckpoint();
        auto head = checkpointHead(index, m_grid->selectedRow(), m_grid->selectedColumn());
        if (!head.ok()) {
            setStatus(tr("The head was not taken: %1").arg(problemLine(*head.problem())));
            return;
        }
        emit takeHeadRequested(head.value(), tr("Take layer %1, head %2 of the trained model (step %3) into the lab")
                                                 .arg(m_grid->selectedRow() + 1)
                                                 .arg(m_grid->selectedColumn() + 1)
                                                 .arg(m_runner->checkpoints()[std::size_t(index)].step));
    });
    connect(m_openModel, &QPushButton::clicked, this, [this] {
        auto m = readableCheckpoint(shownCheckpoint());
        if (!m.ok()) {
            setStatus(tr("The model was not opened: %1").arg(problemLine(*m.problem())));
            return;
        }
        emit openInModelModeRequested(m.value(), probeText());
    });
    connect(m_save, &QPushButton::clicked, this, [this] { emit saveRequested(shownCheckpoint()); });
    connect(m_raceStart, &QPushButton::clicked, this, [this] {
        if (auto p = startRace(Scale(m_raceScale->currentData().toInt())))
            m_raceStatus->setText(tr("The race was not started: %1").arg(problemLine(*p)));
    });
    connect(m_raceCancel, &QPushButton::clicked, this, [this] {
        m_raceA->cancel();
        m_raceB->cancel();
    });
}

TrainSettings TrainingLabView::settings() const
{
    TrainSettings s;
    s.task = TrainTask(m_task->currentData().toInt());
    s.layers = m_layers->value();
    s.heads = m_heads->value();
    s.dModel = m_dModel->value();
    s.mlp = m_mlp->isChecked();
    s.scale = Scale(m_scale->currentData().toInt());
    s.seed = std::uint64_t(m_seed->value());
    s.steps = m_steps->value();
    s.batch = m_batch->value();
    s.length = m_length->value();
    const TrainSchedule t = boundedSchedule(s.steps, kTrainLabCheckpoints);
    s.logEvery = t.logEvery;
    s.checkpointEvery = t.checkpointEvery;
    return s;
}

void TrainingLabView::setSettings(const TrainSettings &s)
{
    m_task->setCurrentIndex(std::max(0, m_task->findData(int(s.task))));
    m_layers->setValue(s.layers);
    m_heads->setValue(s.heads);
    m_dModel->setValue(s.dModel);
    m_mlp->setChecked(s.mlp);
    m_scale->setCurrentIndex(std::max(0, m_scale->findData(int(s.scale))));
    m_seed->setValue(int(s.seed));
    m_steps->setValue(s.steps);
    m_batch->setValue(s.batch);
    m_length->setValue(s.length);
}

std::optional<Problem> TrainingLabView::startTraining()
{
    if (m_runner->isRunning())
        return Problem{"training", tr("a training is running; cancel it first").toStdString()};
    const TrainSettings s = settings();
    if (auto p = m_runner->start(s)) {
        setStatus(tr("Not started: %1").arg(problemLine(*p)));
        return p;
    }
    m_follow = true;
    m_mapsStep = -1;
    m_progress->setRange(0, s.steps);
    m_progress->setValue(0);
    m_scrubber->setRange(0, 0);
    m_scrubber->setEnabled(false);
    setStatus(tr("Training…"));
    updateCharts();
    updateButtons();
    return std::nullopt;
}

std::optional<Problem> TrainingLabView::startRace(Scale against)
{
    if (m_raceA->isRunning() || m_raceB->isRunning())
        return Problem{"race", tr("a race is running; cancel it first").toStdString()};
    TrainSettings s = settings();
    s.scale = Scale::SqrtDk;
    if (auto p = m_raceA->start(s))
        return p;
    s.scale = against;
    if (auto p = m_raceB->start(s)) {
        m_raceA->cancel();
        return p;
    }
    m_raceAgainst = against;
    m_raceStatus->setText(tr("Racing: %1 against %2, %3 steps each").arg(scaleName(Scale::SqrtDk), scaleName(against)).arg(s.steps));
    updateRaceChart();
    updateButtons();
    return std::nullopt;
}

QString TrainingLabView::statusText() const
{
    return m_status->text();
}

void TrainingLabView::setStatus(const QString &text)
{
    m_status->setText(text);
}

void TrainingLabView::updateButtons()
{
    const bool running = m_runner->isRunning(), paused = m_runner->isPaused();
    m_start->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_pause->setEnabled(running && !paused);
    m_resume->setEnabled(running && paused);
    m_step->setEnabled(running && paused);
    const bool any = !m_runner->checkpoints().empty();
    m_take->setEnabled(any);
    m_openModel->setEnabled(any);
    m_save->setEnabled(any);
    const bool racing = m_raceA->isRunning() || m_raceB->isRunning();
    m_raceStart->setEnabled(!racing);
    m_raceCancel->setEnabled(racing);
    for (QWidget *w : std::initializer_list<QWidget *>{m_task, m_layers, m_heads, m_dModel, m_mlp, m_scale, m_seed, m_steps,
                                                       m_batch, m_length})
        w->setEnabled(!running);
}

const TrainLogEntry *TrainingLabView::entryAt(int step) const
{
    for (const TrainLogEntry &e : m_runner->log())
        if (e.step == step)
            return &e;
    return nullptr;
}

void TrainingLabView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_stale)
        return;
    m_stale = false;
    if (shownCheckpoint() >= 0)
        showCheckpoint(shownCheckpoint()); // its label, maps and the charts
    else
        updateCharts();
    if (m_follow && m_runner->latestModel())
        drawMaps(*m_runner->latestModel(), m_runner->latestModelStep());
}

void TrainingLabView::onLogged()
{
    if (!isVisible()) {
        m_stale = true;
        return;
    }
    updateCharts();
    // Live: the newest weights' maps, every log step, while the slider follows.
    if (m_follow && m_runner->latestModel())
        drawMaps(*m_runner->latestModel(), m_runner->latestModelStep());
}

void TrainingLabView::onCheckpointed(int index)
{
    const QSignalBlocker block(m_scrubber);
    m_scrubber->setEnabled(true);
    m_scrubber->setRange(0, index);
    if (m_follow) {
        m_scrubber->setValue(index);
        if (isVisible())
            showCheckpoint(index);
        else
            m_stale = true;
    }
    updateButtons();
}

void TrainingLabView::onFinished(bool cancelled, const QString &problem)
{
    if (!problem.isEmpty())
        setStatus(tr("Training stopped: %1").arg(problem));
    else if (cancelled)
        setStatus(tr("Cancelled at step %1; the checkpoints so far are kept").arg(m_runner->step()));
    else
        setStatus(tr("Finished: %1 steps").arg(m_runner->step()));
    updateButtons();
}

int TrainingLabView::shownCheckpoint() const
{
    return m_runner->checkpoints().empty() ? -1 : m_scrubber->value();
}

void TrainingLabView::showCheckpoint(int index)
{
    const auto &cps = m_runner->checkpoints();
    if (index < 0 || index >= int(cps.size()))
        return;
    if (m_scrubber->value() != index) {
        const QSignalBlocker block(m_scrubber);
        m_scrubber->setValue(index);
        m_follow = index == m_scrubber->maximum();
    }
    const TrainCheckpoint &c = cps[std::size_t(index)];
    const TrainLogEntry *e = entryAt(c.step);
    m_checkpointLabel->setText(tr("Checkpoint %1 of %2: step %3, held-out loss %4")
                                   .arg(index + 1)
                                   .arg(cps.size())
                                   .arg(c.step)
                                   .arg(e ? number3(e->loss) : QStringLiteral("–")));
    QStringList lines;
    if (e)
        for (const TrainHeadScore &h : e->heads)
            lines << tr("L%1H%2: previous token %3, prefix matching %4")
                         .arg(h.layer + 1)
                         .arg(h.head + 1)
                         .arg(number3(h.previousToken), number3(h.prefixMatching));
    m_scoresLabel->setText(lines.join(QLatin1Char('\n')));
    drawMaps(*c.model, c.step);
    updateCharts();
}

std::vector<TrainHeadScore> TrainingLabView::shownScores() const
{
    const int i = shownCheckpoint();
    if (i < 0)
        return {};
    const TrainLogEntry *e = entryAt(m_runner->checkpoints()[std::size_t(i)].step);
    return e ? e->heads : std::vector<TrainHeadScore>{};
}

std::vector<int> TrainingLabView::probeIds() const
{
    const auto init = m_runner->initialState();
    if (!init || init->repeated.batch.batch < 1)
        return {};
    const int T = init->repeated.batch.length;
    return std::vector<int>(init->repeated.batch.ids.begin(), init->repeated.batch.ids.begin() + T);
}

Result<std::shared_ptr<const Gpt2Model>> TrainingLabView::readableCheckpoint(int index) const
{
    const auto &cps = m_runner->checkpoints();
    if (index < 0 || index >= int(cps.size()))
        return Problem{"checkpoint", tr("there is no checkpoint yet: start a training").toStdString()};
    const TrainSettings &s = m_runner->settings();
    const QString name = QStringLiteral("trained-%1-step%2").arg(QLatin1String(toString(s.task))).arg(cps[std::size_t(index)].step);
    auto m = readableTrainedModel(*cps[std::size_t(index)].model, s, name);
    if (!m.ok())
        return *m.problem();
    return std::shared_ptr<const Gpt2Model>(std::make_shared<Gpt2Model>(std::move(m.value())));
}

Result<Scenario> TrainingLabView::checkpointHead(int index, int layer, int head) const
{
    auto m = readableCheckpoint(index);
    if (!m.ok())
        return *m.problem();
    auto trace = runModelOnIds(*m.value(), probeIds(), 1);
    if (!trace.ok())
        return *trace.problem();
    auto s = headScenario(*m.value(), trace.value(), layer, head);
    if (!s.ok())
        return s;
    // The reader's q is the trained q times sqrt(d_h) / c: give the lab the
    // trained q and the training's divisor, so it computes the same weights.
    const TrainSettings &ts = m_runner->settings();
    const int dh = ts.dModel / ts.heads;
    const double c = scaleConstant(ts.scale, dh);
    Scenario &sc = s.value();
    sc.Q *= c / std::sqrt(double(dh));
    sc.scale = ts.scale;
    const std::string sqrtText = "scaled by sqrt(d_k)";
    if (const auto at = sc.description.find(sqrtText); at != std::string::npos && ts.scale != Scale::SqrtDk)
        sc.description.replace(at, sqrtText.size(), ts.scale == Scale::None ? "not scaled (÷1)" : "scaled by d_k");
    return s;
}

std::optional<Problem> TrainingLabView::saveCheckpoint(int index, const QString &folder) const
{
    const auto &cps = m_runner->checkpoints();
    if (index < 0 || index >= int(cps.size()))
        return Problem{"checkpoint", tr("there is no checkpoint yet: start a training").toStdString()};
    return saveTrainedModel(*cps[std::size_t(index)].model, m_runner->settings(), folder);
}

QString TrainingLabView::probeText() const
{
    const auto ids = probeIds();
    auto m = readableCheckpoint(0);
    if (!m.ok())
        return {};
    std::string text;
    for (int id : ids)
        text += m.value()->tokenizer.bytes(id);
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

void TrainingLabView::drawMaps(const Gpt2Model &weights, int step)
{
    const TrainSettings &s = m_runner->settings();
    auto readable = readableTrainedModel(weights, s, QString());
    if (!readable.ok())
        return;
    auto trace = runModelOnIds(readable.value(), probeIds(), 1);
    if (!trace.ok()) {
        m_mapsTitle->setText(tr("The probe's maps cannot be drawn: %1").arg(problemLine(*trace.problem())));
        return;
    }
    m_mapsStep = step;
    const ModelTrace &t = trace.value();
    const TrainLogEntry *e = entryAt(step);
    HeadGridWords words;
    words.rowLabel = tr("L%1");
    words.colLabel = tr("H%1");
    words.describe = [e](int l, int h, const Matrix &, HeadGridCell &cell) {
        if (!e)
            return;
        for (const TrainHeadScore &x : e->heads)
            if (x.layer == l && x.head == h) {
                cell.caption << tr("prev %1").arg(number3(x.previousToken)) << tr("prefix %1").arg(number3(x.prefixMatching));
                cell.toolTip = tr("Layer %1, head %2: previous-token score %3, prefix-matching score %4 (held-out sequences)")
                                   .arg(l + 1)
                                   .arg(h + 1)
                                   .arg(number3(x.previousToken), number3(x.prefixMatching));
            }
    };
    const int sel = m_grid->selectedRow(), selC = m_grid->selectedColumn();
    m_grid->setData(headGridData(int(t.layers.size()), t.layers.empty() ? 0 : int(t.layers[0].heads.size()),
                                 [&t](int l, int h) -> const Matrix & { return t.layers[std::size_t(l)].heads[std::size_t(h)].weights; },
                                 words));
    m_grid->setSelected(std::max(0, sel), std::max(0, selC));
    const auto init = m_runner->initialState();
    const int S = init ? init->repeated.spans.front() : 0, a = init ? init->repeated.starts.front() : 0;
    m_mapsTitle->setText(tr("Step %1: every head's weights on a held-out probe of %2 tokens (tokens %3–%4 said again from %5)")
                             .arg(step)
                             .arg(t.ids.size())
                             .arg(a + 1)
                             .arg(a + S)
                             .arg(a + S + 1));
}

void TrainingLabView::updateCharts()
{
    const auto &log = m_runner->log();
    const TrainSettings &s = m_runner->settings();
    const int shown = shownCheckpoint();
    const double marker = shown >= 0 ? m_runner->checkpoints()[std::size_t(shown)].step : -1;
    ChartData loss;
    loss.title = tr("Held-out loss");
    loss.xLabel = tr("step");
    loss.yLabel = tr("cross-entropy (nats)");
    loss.xMax = s.steps;
    loss.marker = marker;
    ChartSeries ls;
    ls.name = tr("loss (%1)").arg(scaleName(s.scale));
    ls.color = seriesColor(0);
    for (const TrainLogEntry &e : log) {
        ls.steps << e.step;
        ls.values << e.loss;
    }
    loss.series << ls;
    m_loss->setData(loss);

    ChartData prev, prefix;
    prev.title = tr("Previous-token score");
    prefix.title = tr("Prefix-matching score");
    for (ChartData *c : {&prev, &prefix}) {
        c->xLabel = tr("step");
        c->yLabel = tr("mean weight");
        c->xMax = s.steps;
        c->marker = marker;
        c->yMin = 0;
        c->yMax = 1;
    }
    const int heads = log.empty() ? 0 : int(log.front().heads.size());
    for (int i = 0; i < heads; ++i) {
        ChartSeries a, b;
        a.name = b.name = tr("L%1H%2").arg(log.front().heads[std::size_t(i)].layer + 1).arg(log.front().heads[std::size_t(i)].head + 1);
        a.color = b.color = seriesColor(i);
        a.style = b.style = log.front().heads[std::size_t(i)].layer == 0 ? Qt::SolidLine : Qt::DashDotLine;
        for (const TrainLogEntry &e : log) {
            a.steps << e.step;
            b.steps << e.step;
            a.values << e.heads[std::size_t(i)].previousToken;
            b.values << e.heads[std::size_t(i)].prefixMatching;
        }
        prev.series << a;
        prefix.series << b;
    }
    if (const auto init = m_runner->initialState()) {
        const double up = uniformPreviousScore(s.length), ux = uniformPrefixScore(init->repeated);
        prev.lines << ChartLine{tr("uniform %1").arg(number3(up)), up, QColor(90, 90, 90)};
        prefix.lines << ChartLine{tr("uniform %1").arg(number3(ux)), ux, QColor(90, 90, 90)};
    }
    m_previous->setData(prev);
    m_prefix->setData(prefix);
}

void TrainingLabView::updateRaceChart()
{
    ChartData d;
    d.title = tr("The race: held-out loss, the same model, data and seed");
    d.xLabel = tr("step");
    d.yLabel = tr("cross-entropy (nats)");
    int i = 0;
    for (TrainingRunner *r : {m_raceA, m_raceB}) {
        ChartSeries s;
        s.name = scaleName(r->settings().scale);
        s.color = seriesColor(i++);
        d.xMax = std::max(d.xMax, double(r->settings().steps));
        for (const TrainLogEntry &e : r->log()) {
            s.steps << e.step;
            s.values << e.loss;
        }
        if (r->initialState())
            d.series << s;
    }
    m_race->setData(d);
}

} // namespace attn
