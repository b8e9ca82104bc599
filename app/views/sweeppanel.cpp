#include "sweeppanel.h"

#include "heatmapplot.h"
#include "planepanel.h"
#include "viewbinding.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <numeric>
#include <cmath>

namespace attn {

namespace {

constexpr int kTemperatureFrames = 61; // 0.05 … 20: about 10 frames a factor of 2.7
constexpr int kFaintRows = 12;         // more rows: only the selected one is drawn

QString tauText(double tau)
{
    // Three significant digits: 0.0500, 0.632, 12.6.
    QString s = QString::number(tau, 'g', 3);
    return s.replace(QLatin1Char('-'), QChar(0x2212));
}

} // namespace

// ---------------------------------------------------------------------------
SweepCurvePlot::SweepCurvePlot(QWidget *parent) : QCustomPlot(parent)
{
    setObjectName(QStringLiteral("sweepCurves"));
    setMinimumSize(200, 160);
    setBackground(Qt::white);
    plotLayout()->insertRow(0);
    m_title = new QCPTextElement(this);
    m_title->setTextFlags(Qt::AlignCenter | Qt::TextWordWrap);
    plotLayout()->addElement(0, 0, m_title);

    xAxis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (double t : {0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0})
        ticks->addTick(t, QString::number(t));
    xAxis->setTicker(ticks);
    xAxis->setRange(kSweepMinTemperature, kSweepMaxTemperature);
    xAxis->setLabel(tr("temperature τ (log scale)"));
    yAxis->setLabel(tr("entropy (nats), solid"));
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("largest weight, dashed"));
    yAxis2->setRange(0, 1.05);
    yAxis2->setTickLabelColor(maxWeightColor());
    yAxis2->setLabelColor(maxWeightColor());
    yAxis->setTickLabelColor(entropyColor());
    yAxis->setLabelColor(entropyColor());
    for (QCPAxis *a : {xAxis, yAxis, yAxis2})
        a->setSubTicks(false);
    xAxis->grid()->setPen(QPen(QColor(0xe2, 0xe2, 0xe2)));
    yAxis->grid()->setPen(QPen(QColor(0xe2, 0xe2, 0xe2)));

    m_ceiling = new QCPItemStraightLine(this);
    m_ceiling->setPen(QPen(entropyColor(), 1.2, Qt::DotLine));
    m_ceilingText = new QCPItemText(this);
    m_ceilingText->setColor(entropyColor());
    m_ceilingText->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_oneHotText = new QCPItemText(this);
    m_oneHotText->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    m_oneHotText->setColor(QColor(0x3a, 0x3a, 0x3a));
    m_uniformText = new QCPItemText(this);
    m_uniformText->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    m_uniformText->setColor(QColor(0x3a, 0x3a, 0x3a));
    m_marker = new QCPItemStraightLine(this);
    m_marker->setPen(QPen(markerColor(), 2.0));
    m_markerText = new QCPItemText(this);
    m_markerText->setColor(markerColor());
    m_markerText->setBrush(QColor(255, 255, 255, 230));
    m_markerText->setPadding(QMargins(3, 1, 3, 1));
    applyFonts();
    rebuild();
}

QColor SweepCurvePlot::entropyColor()
{
    return QColor(0x00, 0x72, 0xb2);
}

QColor SweepCurvePlot::maxWeightColor()
{
    return QColor(0xc0, 0x50, 0x00);
}

QColor SweepCurvePlot::markerColor()
{
    return QColor(0x11, 0x11, 0x11);
}

void SweepCurvePlot::setCurves(const TemperatureCurves &curves, const QStringList &rowLabels, int selectedRow)
{
    m_curves = curves;
    m_labels = rowLabels;
    m_row = std::clamp(selectedRow, 0, std::max(0, int(curves.entropy.cols()) - 1));
    rebuild();
}

void SweepCurvePlot::setCurrentTemperature(double tau)
{
    if (tau == m_tau)
        return;
    m_tau = tau;
    placeMarker();
    replot(rpQueuedReplot);
}

void SweepCurvePlot::rebuild()
{
    clearGraphs();
    m_entropy = m_max = nullptr;
    const int nq = int(m_curves.entropy.cols()), nt = int(m_curves.taus.size());
    QVector<double> x(nt);
    for (int t = 0; t < nt; ++t)
        x[t] = m_curves.taus[std::size_t(t)];
    auto addGraph = [&](QCPAxis *valueAxis, const Matrix &m, int row, const QPen &pen) {
        QCPGraph *g = QCustomPlot::addGraph(xAxis, valueAxis);
        QVector<double> y(nt);
        for (int t = 0; t < nt; ++t)
            y[t] = m(t, row);
        g->setData(x, y, true);
        g->setPen(pen);
        return g;
    };
    double top = 0.1;
    for (int i = 0; i < nq; ++i)
        top = std::max(top, m_curves.uniformEntropy(i));
    if (nq > 1 && nq <= kFaintRows) {
        for (int i = 0; i < nq; ++i) {
            if (i == m_row)
                continue;
            QColor e = entropyColor(), w = maxWeightColor();
            e.setAlphaF(0.22);
            w.setAlphaF(0.22);
            addGraph(yAxis, m_curves.entropy, i, QPen(e, 1.2));
            addGraph(yAxis2, m_curves.maxWeight, i, QPen(w, 1.2, Qt::DashLine));
        }
    }
    const double u = std::max(1.0, QFontMetricsF(font()).height() / 17.0);
    if (nq > 0) {
        m_entropy = addGraph(yAxis, m_curves.entropy, m_row, QPen(entropyColor(), 3.0 * u));
        m_max = addGraph(yAxis2, m_curves.maxWeight, m_row, QPen(maxWeightColor(), 3.0 * u, Qt::DashLine));
    }
    yAxis->setRange(0, top * 1.08);
    const QString row = m_labels.value(m_row, QString::number(m_row + 1));
    m_title->setText(nq > 0 ? tr("Query %1 as τ runs").arg(row) : tr("Entropy and largest weight against τ"));
    const double ceiling = nq > 0 ? m_curves.uniformEntropy(m_row) : 0.0;
    m_ceiling->point1->setCoords(kSweepMinTemperature, ceiling);
    m_ceiling->point2->setCoords(kSweepMaxTemperature, ceiling);
    m_ceiling->setVisible(nq > 0);
    m_ceilingText->position->setCoords(0.055, ceiling * 0.98);
    //: The entropy of uniform weights over n keys.
    m_ceilingText->setText(tr("uniform: ln %1 = %2")
                               .arg(std::lround(std::exp(ceiling)))
                               .arg(HeatmapPlot::formatValue(ceiling, 2)));
    m_ceilingText->setVisible(nq > 0);
    m_oneHotText->position->setCoords(0.055, 0.02 * top);
    m_oneHotText->setText(tr("low τ: nearly one-hot"));
    m_uniformText->position->setCoords(19.0, 0.5 * top);
    m_uniformText->setText(tr("high τ: nearly uniform"));
    m_uniformText->setVisible(nq > 0);
    m_oneHotText->setVisible(nq > 0);
    placeMarker();
    replot(rpQueuedReplot);
}

void SweepCurvePlot::placeMarker()
{
    const double t = std::clamp(m_tau, kSweepMinTemperature, kSweepMaxTemperature);
    m_marker->point1->setCoords(t, 0);
    m_marker->point2->setCoords(t, 1);
    m_markerText->setText(QStringLiteral("τ = %1").arg(tauText(m_tau)));
    // On the side of the line with more room.
    const bool right = t < 2.0;
    m_markerText->setPositionAlignment((right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    m_markerText->position->setCoords(right ? t * 1.08 : t / 1.08, yAxis->range().upper * 0.55);
}

void SweepCurvePlot::applyFonts()
{
    const QFont f = font();
    QFont bold = f;
    bold.setBold(true);
    for (QCPAxis *a : {xAxis, yAxis, yAxis2}) {
        a->setTickLabelFont(f);
        a->setLabelFont(f);
    }
    m_title->setFont(bold);
    for (QCPItemText *t : {m_ceilingText, m_oneHotText, m_uniformText})
        t->setFont(f);
    m_markerText->setFont(bold);
}

void SweepCurvePlot::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange) {
        applyFonts();
        rebuild();
    }
    QCustomPlot::changeEvent(event);
}

// ---------------------------------------------------------------------------
const std::vector<double> &SweepPanel::temperatureGrid()
{
    static const std::vector<double> grid = logGrid(kSweepMinTemperature, kSweepMaxTemperature, kTemperatureFrames);
    return grid;
}

SweepPanel::SweepPanel(Document *doc, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_clock(new SweepClock(this)), m_preview(new SweepPreview(doc, this))
{
    setObjectName(QStringLiteral("sweepPanel"));
    auto button = [this](const QString &name, const QString &tip) {
        auto *b = new QToolButton(this);
        b->setObjectName(name);
        b->setToolTip(tip);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        return b;
    };
    m_tauPlay = button(QStringLiteral("sweepTemperature"),
                       tr("Play the temperature from 0.05 to 20 and back while every map follows; "
                          "nothing changes for good until you keep a value"));
    m_turnPlay = button(QStringLiteral("sweepTurn"),
                        tr("Turn the selected query once around the origin in the plane while every map follows"));
    m_stepButton = button(QStringLiteral("sweepStep"), tr("One frame on, paused"));
    m_stepButton->setText(tr("Step ▸"));
    m_stopButton = button(QStringLiteral("sweepStop"), tr("Stop and put everything back as it was"));
    m_stopButton->setText(tr("■ Stop"));
    m_keepButton = button(QStringLiteral("sweepKeep"), tr("Keep the value on show, as one undo step"));
    m_keepButton->setText(tr("✓ Keep this value"));
    m_speed = new QComboBox(this);
    m_speed->setObjectName(QStringLiteral("sweepSpeed"));
    m_speed->setToolTip(tr("How fast the sweep plays"));
    for (double s : {0.25, 0.5, 1.0, 2.0, 4.0})
        m_speed->addItem(QStringLiteral("%1×").arg(s), s);
    m_speed->setCurrentIndex(2);
    auto *speedLabel = new QLabel(tr("Speed"), this);
    speedLabel->setBuddy(m_speed);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("sweepStatus"));
    m_status->setWordWrap(true);
    m_plot = new SweepCurvePlot(this);

    auto *grid = new QGridLayout;
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(4);
    grid->setVerticalSpacing(2);
    // Two columns, so that the panel stays narrow in a side tab at a
    // projector's zoom.
    grid->addWidget(m_tauPlay, 0, 0);
    grid->addWidget(m_turnPlay, 0, 1);
    grid->addWidget(m_stepButton, 1, 0);
    grid->addWidget(m_stopButton, 1, 1);
    grid->addWidget(m_keepButton, 2, 0);
    auto *speedRow = new QHBoxLayout;
    speedRow->addWidget(speedLabel);
    speedRow->addWidget(m_speed);
    speedRow->addStretch(1);
    grid->addLayout(speedRow, 2, 1);
    grid->setColumnStretch(2, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(3);
    layout->addLayout(grid);
    layout->addWidget(m_status);
    layout->addWidget(m_plot, 1);

    connect(m_tauPlay, &QToolButton::clicked, this, [this] {
        if (m_mode == Mode::Temperature && m_clock->isRunning())
            pause();
        else
            playTemperature();
    });
    connect(m_turnPlay, &QToolButton::clicked, this, [this] {
        if (m_mode == Mode::Rotation && m_clock->isRunning())
            pause();
        else
            playTurn();
    });
    connect(m_stepButton, &QToolButton::clicked, this, &SweepPanel::step);
    connect(m_stopButton, &QToolButton::clicked, this, &SweepPanel::stop);
    connect(m_keepButton, &QToolButton::clicked, this, &SweepPanel::keep);
    connect(m_speed, &QComboBox::activated, this, [this](int i) { m_clock->setSpeed(m_speed->itemData(i).toDouble()); });
    connect(m_clock, &SweepClock::frameChanged, this, &SweepPanel::onFrame);
    connect(m_clock, &SweepClock::runningChanged, this, &SweepPanel::sync);
    connect(m_preview, &SweepPreview::ended, this, &SweepPanel::onPreviewEnded);

    // The curves depend on the scores, the mask and the scale, not on τ; the
    // marker follows τ. Both follow the selected query and head.
    m_binding = new ViewBinding(this, doc, ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings,
                                [this] { refreshCurves(); });
    refreshCurves();
    sync();
}

SweepPanel::~SweepPanel()
{
    m_clock->pause();
    if (m_preview->isActive()) {
        const QSignalBlocker block(m_preview);
        m_preview->stop();
    }
}

// The rows whose curves are drawn: every row of a lesson; of a long
// sequence the selected one and an even sample, so that an edit at n = 1024
// costs 61 softmaxes of kMaxCurveRows rows, not of n (the faint curves of a
// thousand rows would be one grey band anyway).
std::vector<Eigen::Index> SweepPanel::curveRows(Eigen::Index rows, Eigen::Index selected)
{
    std::vector<Eigen::Index> out;
    if (rows <= kMaxCurveRows) {
        out.resize(std::size_t(rows));
        std::iota(out.begin(), out.end(), Eigen::Index(0));
        return out;
    }
    for (Eigen::Index i = 0; i < kMaxCurveRows - 1; ++i)
        out.push_back(i * (rows - 1) / (kMaxCurveRows - 2));
    if (std::find(out.begin(), out.end(), selected) == out.end())
        out.push_back(selected);
    std::sort(out.begin(), out.end());
    return out;
}

void SweepPanel::refreshCurves()
{
    const Scenario &s = m_doc->scenario();
    const Trace &t = m_doc->trace();
    if (t.heads.empty())
        return;
    // The curves need no τ (the scores do not depend on it) and no forward
    // of their own: the document's scores, with the mask and the scale.
    const int head = std::clamp(m_doc->currentHead(), 0, int(t.heads.size()) - 1);
    const Matrix &scores = t.heads[std::size_t(head)].scores;
    const Eigen::Index query = std::clamp<Eigen::Index>(m_doc->currentQuery(), 0, std::max<Eigen::Index>(0, scores.rows() - 1));
    const std::vector<Eigen::Index> rows = curveRows(scores.rows(), query);
    const bool all = Eigen::Index(rows.size()) == scores.rows();
    const bool anyBlocked = t.blocked.rows() == scores.rows() && t.blocked.cols() == scores.cols();
    CurveInputs in;
    in.scores = all ? scores : Matrix(scores(rows, Eigen::all));
    if (anyBlocked)
        in.blocked = all ? t.blocked : BoolMatrix(t.blocked(rows, Eigen::all));
    in.stage = s.maskStage;
    in.softmax = s.softmax;
    in.c = scaleConstant(s.scale, t.dk);
    in.selected = int(std::find(rows.begin(), rows.end(), query) - rows.begin());
    const auto labels = queryLabels(s);
    for (Eigen::Index r : rows)
        in.labels << (std::size_t(r) < labels.size() ? QString::fromStdString(labels[std::size_t(r)]) : QString::number(r + 1));
    // A τ frame changes the settings but none of this: nothing to redo.
    if (!(in == m_curveInputs)) {
        m_plot->setCurves(temperatureCurves(in.scores, in.blocked, in.stage, in.c, temperatureGrid(), in.softmax), in.labels, in.selected);
        m_curveInputs = std::move(in);
    }
    m_plot->setCurrentTemperature(s.temperature);
    sync();
}

bool SweepPanel::CurveInputs::operator==(const CurveInputs &o) const
{
    return stage == o.stage && softmax == o.softmax && c == o.c && selected == o.selected && labels == o.labels && scores.rows() == o.scores.rows()
        && scores.cols() == o.scores.cols() && scores == o.scores && blocked.rows() == o.blocked.rows()
        && blocked.cols() == o.blocked.cols() && (blocked == o.blocked).all();
}

void SweepPanel::start(Mode mode)
{
    if (m_preview->isActive() && m_mode != mode)
        stop();
    if (!m_preview->isActive()) {
        m_mode = mode;
        const Scenario &s = m_doc->scenario();
        m_baseSettings = settingsOf(s);
        if (mode == Mode::Temperature) {
            //: An undo step: the temperature kept from a sweep.
            m_preview->begin(tr("Temperature sweep"));
            m_clock->setFrames(kTemperatureFrames, SweepClock::Path::Bounce);
            m_clock->setBaseRate(12.0);
            // From the grid's τ nearest the current one, going up.
            const std::vector<double> &g = temperatureGrid();
            int nearest = 0;
            for (int i = 0; i < int(g.size()); ++i)
                if (std::abs(std::log(g[std::size_t(i)] / s.temperature))
                    < std::abs(std::log(g[std::size_t(nearest)] / s.temperature)))
                    nearest = i;
            m_clock->seek(nearest);
        } else {
            PlaneSettings fallback; // without a plane panel: dimensions 1 and 2
            fallback.head = m_doc->currentHead();
            fallback.query = m_doc->currentQuery();
            const PlaneScene scene = m_plane ? m_plane->scene() : makePlaneScene(s, m_doc->trace(), fallback);
            m_turnMatrix = scene.queryMatrix;
            m_turnRow = scene.query;
            m_turnOffset = scene.columnOffset;
            m_turnBasis = scene.basis;
            m_turnStart = matrix(s, m_turnMatrix).row(m_turnRow);
            //: An undo step: the query's direction kept from its turn around the origin.
            m_preview->begin(tr("Turn query %1").arg(scene.queryLabels.value(scene.query)));
            m_clock->setFrames(kTurnFrames, SweepClock::Path::Loop);
            m_clock->setBaseRate(12.0);
            m_clock->rewind();
        }
    }
    m_mode = mode;
}

void SweepPanel::playTemperature()
{
    start(Mode::Temperature);
    m_clock->play();
    sync();
}

void SweepPanel::playTurn()
{
    start(Mode::Rotation);
    m_clock->play();
    sync();
}

void SweepPanel::pause()
{
    m_clock->pause();
    sync();
}

void SweepPanel::step()
{
    if (!m_preview->isActive())
        start(Mode::Temperature);
    m_clock->stepForward();
    sync();
}

void SweepPanel::showTemperatureFrame(int frame)
{
    start(Mode::Temperature);
    m_clock->pause();
    m_clock->seek(frame);
    sync();
}

void SweepPanel::stop()
{
    m_clock->pause();
    if (m_preview->isActive()) {
        m_ending = true;
        m_preview->stop();
        m_ending = false;
        emit message(tr("Sweep stopped: everything is as it was"));
    }
    m_mode = Mode::None;
    sync();
}

void SweepPanel::keep()
{
    m_clock->pause();
    if (m_preview->isActive()) {
        m_ending = true;
        m_preview->keep();
        m_ending = false;
        emit message(m_doc->undoStack()->canUndo() ? tr("Kept: %1 (one undo step)").arg(m_doc->undoStack()->undoText())
                                                   : tr("Kept: nothing had changed"));
    }
    m_mode = Mode::None;
    sync();
}

void SweepPanel::onFrame(int frame)
{
    if (!m_preview->isActive())
        return;
    if (m_mode == Mode::Temperature) {
        Settings s = m_baseSettings;
        s.temperature = temperatureGrid()[std::size_t(std::clamp(frame, 0, kTemperatureFrames - 1))];
        m_preview->showSettings(s);
    } else if (m_mode == Mode::Rotation) {
        const int d = m_turnBasis.dimension();
        if (m_turnOffset + d > m_turnStart.size())
            return;
        const double angle = 2.0 * M_PI * double(frame) / double(kTurnFrames);
        const Eigen::VectorXd part = m_turnStart.segment(m_turnOffset, d).transpose();
        Eigen::RowVectorXd row = m_turnStart;
        row.segment(m_turnOffset, d) = rotateInPlane(m_turnBasis, part, angle).transpose();
        m_preview->showRow(m_turnMatrix, m_turnRow, row);
    }
    sync();
}

void SweepPanel::onPreviewEnded(bool kept)
{
    if (m_ending)
        return; // our own stop() or keep()
    m_clock->pause();
    m_mode = Mode::None;
    emit message(kept ? tr("The sweep stopped for another edit; its value stays as an undo step")
                      : tr("The sweep stopped"));
    sync();
}

QString SweepPanel::statusText() const
{
    return m_status->text();
}

void SweepPanel::sync()
{
    const bool previewing = m_preview->isActive();
    const bool running = m_clock->isRunning();
    m_tauPlay->setText(m_mode == Mode::Temperature && running ? tr("Pause") : tr("▶ Sweep τ"));
    m_turnPlay->setText(m_mode == Mode::Rotation && running ? tr("Pause") : tr("▶ Turn the query"));
    m_stopButton->setEnabled(previewing);
    m_keepButton->setEnabled(previewing);
    const double tau = m_doc->scenario().temperature;
    QString text;
    if (!previewing) {
        text = tr("τ = %1. ▶ plays τ from 0.05 to 20 and back (or turns the query) while every map follows; "
                  "nothing changes for good until you keep a value.")
                   .arg(tauText(tau));
    } else if (m_mode == Mode::Temperature) {
        text = tr("Preview τ = %1: Stop puts τ = %2 back; Keep makes it one undo step.")
                   .arg(tauText(tau), tauText(m_baseSettings.temperature));
    } else {
        const int degrees = int(std::lround(360.0 * m_clock->frame() / kTurnFrames));
        text = tr("Preview: the query turned by %1°. Stop puts it back; Keep makes it one undo step.").arg(degrees);
    }
    m_status->setText(text);
}

} // namespace attn
