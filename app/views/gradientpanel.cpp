#include "gradientpanel.h"

#include "edit.h"
#include "gradlens.h"
#include "heatmapplot.h"
#include "numbers.h"
#include "planepanel.h"
#include "viewbinding.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

constexpr int kTickMs = 60; // a step every 60 ms: the class can follow the query

QString num(double v)
{
    return QString::fromStdString(fixed4(v, Minus::Typographic));
}

QStringList labelsOf(const std::vector<std::string> &labels)
{
    QStringList out;
    for (const std::string &l : labels)
        out << QString::fromStdString(l);
    return out;
}

QStringList dimensionLabels(Eigen::Index n)
{
    QStringList out;
    for (Eigen::Index d = 0; d < n; ++d)
        out << QStringLiteral("d%1").arg(d + 1);
    return out;
}

} // namespace

GradientPanel::GradientPanel(Document *doc, GradientLens *lens, PlanePanel *plane, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_lens(lens), m_plane(plane)
{
    setObjectName(QStringLiteral("gradientPanel"));
    m_lossLabel = new QLabel(this);
    m_kind = new QComboBox(this);
    m_kind->setObjectName(QStringLiteral("gradientLossKind"));
    m_token = new QComboBox(this);
    m_token->setObjectName(QStringLiteral("gradientLossToken"));
    m_vector = new QLineEdit(this);
    m_vector->setObjectName(QStringLiteral("gradientLossVector"));
    m_formula = new QLabel(this);
    m_formula->setObjectName(QStringLiteral("gradientLossFormula"));
    m_formula->setWordWrap(true);
    m_formula->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("gradientProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #b00020;"));

    m_etaLabel = new QLabel(this);
    m_eta = new QDoubleSpinBox(this);
    m_eta->setObjectName(QStringLiteral("gradientRate"));
    m_eta->setDecimals(3);
    m_eta->setRange(0.001, 100.0);
    m_eta->setValue(1.0);
    m_eta->setSingleStep(0.1);
    m_etaLabel->setBuddy(m_eta);
    m_maxLabel = new QLabel(this);
    m_max = new QSpinBox(this);
    m_max->setObjectName(QStringLiteral("gradientMaxSteps"));
    m_max->setRange(1, 10000);
    m_max->setValue(200);
    m_maxLabel->setBuddy(m_max);
    m_step = new QPushButton(this);
    m_step->setObjectName(QStringLiteral("gradientStep"));
    m_descend = new QPushButton(this);
    m_descend->setObjectName(QStringLiteral("gradientDescend"));
    m_arrows = new QCheckBox(this);
    m_arrows->setObjectName(QStringLiteral("gradientArrows"));
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("gradientStatus"));
    m_status->setWordWrap(true);

    m_curve = new QCustomPlot(this);
    m_curve->setObjectName(QStringLiteral("gradientHistory"));
    m_curve->setMinimumHeight(130);
    m_curve->setMaximumHeight(170);
    m_curve->yAxis->ticker()->setTickCount(3);
    m_curve->xAxis->ticker()->setTickCount(4);
    m_curve->addGraph();
    m_curve->graph(0)->setPen(QPen(QColor(0x00, 0x7a, 0x5a), 2));
    m_curve->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));

    m_mapsBox = new QWidget(this);
    m_grid = new QGridLayout(m_mapsBox);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(4);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_mapsBox);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    // The sentence on two lines: "Loss: make every query attend to" / "猫".
    m_kind->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_kind->setMinimumContentsLength(10);
    m_vector->setMinimumWidth(60);
    auto *lossRow = new QHBoxLayout;
    lossRow->addWidget(m_lossLabel);
    lossRow->addWidget(m_kind, 1);
    layout->addLayout(lossRow);
    auto *tokenRow = new QHBoxLayout;
    tokenRow->addWidget(m_token, 1);
    tokenRow->addWidget(m_vector, 1);
    layout->addLayout(tokenRow);
    layout->addWidget(m_formula);
    layout->addWidget(m_problem);
    layout->addWidget(scroll, 1);
    // Short rows: the dock stays narrow beside the maps, at projector zoom too.
    auto *descentRow = new QHBoxLayout;
    descentRow->addWidget(m_etaLabel);
    descentRow->addWidget(m_eta);
    descentRow->addWidget(m_maxLabel);
    descentRow->addWidget(m_max);
    descentRow->addStretch(1);
    layout->addLayout(descentRow);
    auto *buttonRow = new QHBoxLayout;
    buttonRow->addWidget(m_step);
    buttonRow->addWidget(m_descend);
    buttonRow->addStretch(1);
    layout->addLayout(buttonRow);
    layout->addWidget(m_arrows);
    layout->addWidget(m_status);
    layout->addWidget(m_curve);

    retranslate();
    m_arrows->setChecked(true);

    connect(m_kind, &QComboBox::activated, this, [this] { onKindChanged(); });
    connect(m_token, &QComboBox::activated, this, [this](int i) {
        m_history.clear();
        m_lens->setToken(i);
    });
    connect(m_vector, &QLineEdit::editingFinished, this, &GradientPanel::readVector);
    connect(m_step, &QPushButton::clicked, this, [this] { step(); });
    connect(m_descend, &QPushButton::clicked, this, [this] { m_descending ? stop() : descend(); });
    connect(m_arrows, &QCheckBox::toggled, m_lens, &GradientLens::setArrowsShown);
    connect(m_lens, &GradientLens::changed, this, [this] { m_binding->request(); });
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, &GradientPanel::tick);
    // Ctrl+Z or Escape in the middle: the descent is undone, nothing to end.
    connect(doc, &Document::gestureCancelled, this, [this] {
        if (!m_descending)
            return;
        m_timer.stop();
        m_descending = false;
        m_statusText = tr("The descent was undone.");
        updateButtons();
        emit descentFinished();
    });

    // Every edit, drag or selection: the maps in the same frame as the plane.
    m_binding = new ViewBinding(this, doc, ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings,
                                [this] { refresh(); });
    connect(doc, &Document::changed, this, [this](const DocumentChange &c) {
        if (c.has(ChangeKind::Shape) || c.has(ChangeKind::Labels))
            fillTokens();
    });
    fillTokens();
    refresh();
}

GradientPanel::~GradientPanel()
{
    if (m_descending) {
        m_timer.stop();
        m_descending = false;
        m_doc->endGesture();
    }
}

void GradientPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // The arrows come with the lens: a teacher who opens it sees them.
    m_lens->setArrowsShown(m_arrows->isChecked());
}

void GradientPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        refresh();
    } else if (event->type() == QEvent::FontChange) {
        arrangeMaps(); // the maps' heights follow the zoom
    }
}

void GradientPanel::retranslate()
{
    m_lossLabel->setText(tr("Loss:"));
    const int kind = std::max(0, m_kind->currentIndex());
    m_kind->clear();
    m_kind->addItem(tr("Make every query attend to"));
    m_kind->addItem(tr("Move the query's output towards the value of"));
    m_kind->addItem(tr("Move the query's output towards the vector"));
    m_kind->setCurrentIndex(kind);
    m_kind->setToolTip(tr("The loss L whose gradients are shown; gradient descent lowers it"));
    m_vector->setPlaceholderText(tr("e.g. 1, 0"));
    m_vector->setToolTip(tr("The output the selected query should have: d_out numbers, separated by commas"));
    m_etaLabel->setText(tr("η:"));
    m_eta->setToolTip(tr("The learning rate: a step moves the vector by −η·∂L/∂v"));
    m_maxLabel->setText(tr("Steps ≤"));
    m_max->setToolTip(tr("Descend stops after this many steps at most"));
    m_step->setText(tr("Step"));
    m_step->setToolTip(tr("Move the selected vector of the plane by −η·∂L/∂v (one undo step)"));
    m_arrows->setText(tr("Arrows on the plane"));
    m_arrows->setToolTip(tr("Draw −∂L/∂v on the vector plane at the selected query (and at each key with Drag keys)"));
    m_curve->xAxis->setLabel(tr("step"));
    m_curve->yAxis->setLabel(tr("loss"));
    updateButtons();
}

void GradientPanel::updateButtons()
{
    m_descend->setText(m_descending ? tr("■ Stop") : tr("▶ Descend"));
    m_descend->setToolTip(m_descending ? tr("Stop the descent here (what it did so far stays, one undo step)")
                                       : tr("Take steps until the loss stops falling (all of them one undo step)"));
    m_step->setEnabled(!m_descending);
    m_status->setText(m_statusText);
    m_status->setVisible(!m_statusText.isEmpty());
}

void GradientPanel::fillTokens()
{
    const QStringList keys = labelsOf(keyLabels(m_doc->scenario()));
    const int current = m_token->currentIndex();
    m_token->clear();
    m_token->addItems(keys);
    m_token->setCurrentIndex(std::clamp(current < 0 ? m_lens->token() : current, 0, int(keys.size()) - 1));
}

void GradientPanel::onKindChanged()
{
    m_history.clear();
    const auto kind = GradientLens::Kind(m_kind->currentIndex());
    if (kind == GradientLens::Kind::TowardsVector)
        readVector();
    m_lens->setKind(kind);
}

void GradientPanel::readVector()
{
    const QStringList parts = m_vector->text().split(QLatin1Char(','), Qt::SkipEmptyParts);
    Eigen::RowVectorXd v(parts.size());
    for (qsizetype i = 0; i < parts.size(); ++i) {
        bool ok = false;
        QString text = parts[i].trimmed();
        text.replace(QChar(0x2212), QLatin1Char('-'));
        v(i) = text.toDouble(&ok);
        if (!ok)
            v(i) = std::nan("");
    }
    m_history.clear();
    m_lens->setTypedVector(v);
}

HeatmapPlot *GradientPanel::mapOf(Map map, MatrixId id) const
{
    for (const MapView &m : m_maps)
        if (m.map == map && (map != Map::Input || m.id == id))
            return m.plot;
    return nullptr;
}

HeatmapPlot *GradientPanel::plotAt(std::size_t index)
{
    while (m_plots.size() <= index) {
        auto *plot = new HeatmapPlot(m_mapsBox);
        plot->setMinimumWidth(120);
        plot->setObjectName(QStringLiteral("gradientMap%1").arg(m_plots.size()));
        const std::size_t i = m_plots.size();
        plot->setToolTipProvider([this, i](int row, int col) {
            if (i >= m_maps.size())
                return QString();
            return cellText(m_maps[i].map, m_maps[i].id, row, col);
        });
        m_plots.push_back(plot);
    }
    return m_plots[index];
}

QString GradientPanel::lossText() const
{
    return m_formula->text();
}

QString GradientPanel::problemText() const
{
    return m_problem->isVisible() ? m_problem->text() : QString();
}

void GradientPanel::refresh()
{
    const GradientLens::State st = m_lens->compute();
    const Scenario &s = m_doc->scenario();
    const int query = std::clamp(m_doc->currentQuery(), 0, std::max(0, queryCount(s) - 1));
    const QStringList keys = labelsOf(keyLabels(s)), queries = labelsOf(queryLabels(s));
    const int token = std::clamp(m_lens->token(), 0, std::max(0, int(keys.size()) - 1));
    if (m_kind->currentIndex() != int(m_lens->kind()))
        m_kind->setCurrentIndex(int(m_lens->kind()));
    m_token->setVisible(m_lens->kind() != GradientLens::Kind::TowardsVector);
    m_vector->setVisible(m_lens->kind() == GradientLens::Kind::TowardsVector);
    if (m_token->currentIndex() != token && token < m_token->count())
        m_token->setCurrentIndex(token);

    QString formula;
    if (st.loss) {
        const QString value = num(st.value);
        switch (m_lens->kind()) {
        case GradientLens::Kind::Attend:
            formula = tr("L = −(1/(h·n_q)) Σ_i log w(i, %1), over the rows where %1 is open = %2")
                          .arg(keys.value(token), value);
            break;
        case GradientLens::Kind::TowardsValue:
            formula = tr("L = ½‖y_%1 − t‖² = %2, t = the value of %3 (the output of %1 if it attended to %3 alone)")
                          .arg(queries.value(query), value, keys.value(token));
            break;
        case GradientLens::Kind::TowardsVector:
            formula = tr("L = ½‖y_%1 − t‖² = %2, t the typed vector").arg(queries.value(query), value);
            break;
        }
    }
    m_formula->setText(formula);
    m_formula->setVisible(!formula.isEmpty());
    if (st.problem) {
        m_problem->setText(tr("No gradient here: %1").arg(attn::problemText(*st.problem)));
        m_problem->show();
    } else {
        m_problem->hide();
    }
    updateMaps(st);
    updateCurve();
}

void GradientPanel::updateMaps(const GradientLens::State &st)
{
    m_maps.clear();
    if (!st.grad) {
        for (HeatmapPlot *p : m_plots)
            p->hide();
        return;
    }
    const Scenario &s = m_doc->scenario();
    const Trace &t = m_doc->trace();
    const Gradients &g = *st.grad;
    const int head = std::clamp(m_doc->currentHead(), 0, int(t.heads.size()) - 1);
    const int query = std::clamp(m_doc->currentQuery(), 0, int(t.output.rows()) - 1);
    const QStringList keys = labelsOf(keyLabels(s)), queries = labelsOf(queryLabels(s));
    const QString headNote = t.heads.size() > 1 ? tr(", head %1").arg(head + 1) : QString();
    const bool projected = s.mode == InputMode::Projected;

    auto show = [&](Map map, MatrixId id, HeatmapData d) {
        const std::size_t i = m_maps.size();
        HeatmapPlot *plot = plotAt(i);
        d.scale = HeatmapScale::Diverging;
        // An all-zero gradient (V under the attend loss): a plain scale, not ±1e-9.
        if (d.values.size() == 0 || d.values.cwiseAbs().maxCoeff() < 1e-12)
            d.range = 1.0;
        plot->setData(std::move(d));
        plot->show();
        m_maps.push_back({map, id, plot});
    };
    {
        HeatmapData d;
        d.values = g.heads[std::size_t(head)].weights;
        d.rowLabels = queries;
        d.colLabels = keys;
        d.title = tr("∂L/∂weights%1").arg(headNote);
        show(Map::Weights, MatrixId::Q, d);
    }
    {
        HeatmapData d;
        d.values = g.heads[std::size_t(head)].scores;
        d.rowLabels = queries;
        d.colLabels = keys;
        if (s.maskStage == MaskStage::BeforeSoftmax)
            d.blocked = t.blocked;
        else
            d.outlined = t.blocked;
        d.blockedText = QStringLiteral("0");
        d.title = tr("∂L/∂scores%1").arg(headNote);
        show(Map::Scores, MatrixId::Q, d);
    }
    {
        HeatmapData d;
        const Eigen::VectorXd w = softmaxRowProbabilities(t, head, query, s.maskStage, s.softmax);
        d.values = softmaxJacobian(w);
        d.rowLabels = keys;
        d.colLabels = keys;
        d.title = tr("Jacobian of %1").arg(queries.value(query));
        show(Map::Jacobian, MatrixId::Q, d);
    }
    for (const NamedGradient &n : g.inputs) {
        HeatmapData d;
        const QString name = QString::fromLatin1(matrixName(n.id));
        if (!projected) {
            const int width = n.id == MatrixId::V ? t.dv : t.dk;
            d.values = n.grad.middleCols(Eigen::Index(head) * width, width);
            d.title = tr("∂L/∂%1%2").arg(name, headNote);
        } else {
            d.values = n.grad;
            d.title = tr("∂L/∂%1").arg(name);
        }
        d.rowLabels = n.id == MatrixId::Q || n.id == MatrixId::X ? queries
                      : (n.id == MatrixId::K || n.id == MatrixId::V || n.id == MatrixId::Source)
                          ? keys
                          : dimensionLabels(d.values.rows());
        d.colLabels = dimensionLabels(d.values.cols());
        show(Map::Input, n.id, d);
    }
    for (std::size_t i = m_maps.size(); i < m_plots.size(); ++i)
        m_plots[i]->hide();
    arrangeMaps();
}

void GradientPanel::arrangeMaps()
{
    // Two maps a row where each keeps room for its numbers, else one; a
    // map as tall as its rows need.
    const int columns = width() >= 2 * 260 + 24 ? 2 : 1;
    const int line = fontMetrics().height();
    for (std::size_t i = 0; i < m_maps.size(); ++i) {
        HeatmapPlot *plot = m_maps[i].plot;
        plot->setMinimumHeight(int(9 * line + 1.6 * line * plot->rowCount()));
        m_grid->removeWidget(plot);
        m_grid->addWidget(plot, int(i) / columns, int(i) % columns);
    }
    m_columns = columns;
}

void GradientPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if ((width() >= 2 * 260 + 24 ? 2 : 1) != m_columns)
        arrangeMaps();
}

QString GradientPanel::cellText(Map map, MatrixId id, int row, int col) const
{
    const GradientLens::State st = m_lens->compute();
    if (!st.grad || !st.loss)
        return QString();
    const Scenario &s = m_doc->scenario();
    const Trace &t = m_doc->trace();
    const Gradients &g = *st.grad;
    const int head = std::clamp(m_doc->currentHead(), 0, int(t.heads.size()) - 1);
    const int query = std::clamp(m_doc->currentQuery(), 0, int(t.output.rows()) - 1);
    const QStringList keys = labelsOf(keyLabels(s)), queries = labelsOf(queryLabels(s));
    auto terms = [](const std::string &s) { return QString::fromStdString(s); };
    switch (map) {
    case Map::Weights: {
        const double v = g.heads[std::size_t(head)].weights(row, col);
        QString text = tr("∂L/∂w(%1 → %2) = %3").arg(queries.value(row), keys.value(col), num(v));
        const QString by = terms(weightGradientTerms(s, t, *st.loss, head, row, col));
        if (std::holds_alternative<AttendLoss>(*st.loss))
            text += QLatin1Char('\n') + (by.isEmpty() ? tr("The loss reads only the weights on %1: 0.").arg(keys.value(std::get<AttendLoss>(*st.loss).key))
                                                      : tr("−1/(h·n_q·w) = %1").arg(by));
        else if (!by.isEmpty())
            text += QLatin1Char('\n') + tr("Σ_d ∂out_d·v_%1,d = %2").arg(keys.value(col), by);
        return text;
    }
    case Map::Scores: {
        const double v = g.heads[std::size_t(head)].scores(row, col);
        QString text = tr("∂L/∂score(%1 → %2) = %3").arg(queries.value(row), keys.value(col), num(v));
        const ScoreGradientTerms r = scoreGradientTerms(s, t, g, head, row, col);
        if (r.passesNothing)
            return text + QLatin1Char('\n') + tr("Blocked before the softmax: the cell passes no gradient.");
        text += QLatin1Char('\n') + tr("w_j (g_j − Σ_k g_k w_k) ÷ (c·τ), g = ∂L/∂w");
        text += QLatin1Char('\n') + tr("Σ_k g_k w_k = %1").arg(terms(r.sum));
        text += QLatin1Char('\n') + tr("= %1").arg(terms(r.cell));
        if (r.blockedAfter)
            text += QLatin1Char('\n') + tr("Blocked after the softmax: g_j counts as 0, yet the score still moves "
                                           "the row's other weights through the denominator.");
        return text;
    }
    case Map::Jacobian: {
        const Eigen::VectorXd w = softmaxRowProbabilities(t, head, query, s.maskStage, s.softmax);
        return tr("∂w_%1/∂x_%2 = w_i(δ_ij − w_j) = %3").arg(keys.value(row), keys.value(col), terms(jacobianTerms(w, row, col)));
    }
    case Map::Input:
        break;
    }
    const Matrix *m = g.of(id);
    if (!m)
        return QString();
    const bool projected = s.mode == InputMode::Projected;
    const QString name = QString::fromLatin1(matrixName(id));
    if (projected) {
        QString formula;
        switch (id) {
        case MatrixId::X:
            formula = s.source ? tr("∂X = ∂Q W_qᵀ") : tr("∂X = ∂Q W_qᵀ + ∂K W_kᵀ + ∂V W_vᵀ");
            break;
        case MatrixId::Source:
            formula = tr("∂source = ∂K W_kᵀ + ∂V W_vᵀ");
            break;
        case MatrixId::Wq:
            formula = tr("∂W_q = (X + P)ᵀ ∂Q");
            break;
        case MatrixId::Wk:
            formula = tr("∂W_k = (S + P)ᵀ ∂K");
            break;
        case MatrixId::Wv:
            formula = tr("∂W_v = (S + P)ᵀ ∂V");
            break;
        case MatrixId::Wo:
            formula = std::holds_alternative<AttendLoss>(*st.loss) ? tr("The attend loss does not read W_O: 0.")
                                                                   : tr("∂W_O = concatᵀ (Y − T)");
            break;
        default:
            break;
        }
        return tr("∂L/∂%1[%2, %3] = %4").arg(name).arg(row + 1).arg(col + 1).arg(num((*m)(row, col))) + QLatin1Char('\n') +
               formula;
    }
    const int width = id == MatrixId::V ? t.dv : t.dk;
    const double v = (*m)(row, Eigen::Index(head) * width + col);
    const QString rowName = id == MatrixId::Q ? queries.value(row) : keys.value(row);
    QString text = tr("∂L/∂%1 of %2, d%3 = %4").arg(name, rowName).arg(col + 1).arg(num(v));
    QString by;
    if (id == MatrixId::Q)
        by = terms(queryGradientTerms(s, t, g, head, row, col));
    else if (id == MatrixId::K)
        by = terms(keyGradientTerms(s, t, g, head, row, col));
    else
        by = terms(valueGradientTerms(s, t, *st.loss, head, row, col));
    if (id == MatrixId::V)
        return text + QLatin1Char('\n') + tr("Σ_i w_i,%1·∂out_i,d = %2").arg(rowName, by.isEmpty() ? num(v) : by);
    QString formula;
    if (s.similarity == Similarity::Dot)
        formula = id == MatrixId::Q ? tr("Σ_j ∂s_j·k_j,d") : tr("Σ_i ∂s_i·q_i,d");
    else if (s.similarity == Similarity::NegSqDistance)
        formula = id == MatrixId::Q ? tr("−2 Σ_j ∂s_j (q_d − k_j,d)") : tr("2 Σ_i ∂s_i (q_i,d − k_d)");
    else
        formula = tr("through the unit vectors: (∂û − (∂û·û) û) / ‖v‖");
    if (s.encoding == Encoding::Rope)
        formula += QLatin1Char('\n') + tr("RoPE: the rotated vectors' gradient, turned back by R(θ)ᵀ");
    return text + QLatin1Char('\n') + formula + (by.isEmpty() ? QString() : QStringLiteral(" = ") + by);
}

void GradientPanel::updateCurve()
{
    QVector<double> x, y;
    for (std::size_t i = 0; i < m_history.size(); ++i) {
        x << double(i);
        y << m_history[i];
    }
    m_curve->graph(0)->setData(x, y, true);
    m_curve->setVisible(m_history.size() > 1);
    if (!y.isEmpty()) {
        const auto [lo, hi] = std::minmax_element(y.begin(), y.end());
        const double pad = std::max(1e-9, 0.08 * (*hi - *lo));
        m_curve->xAxis->setRange(0, std::max(1.0, double(x.size() - 1)));
        m_curve->yAxis->setRange(*lo - pad, *hi + pad);
    }
    m_curve->replot(QCustomPlot::rpQueuedReplot);
}

// ---- descent ----

void GradientPanel::setLearningRate(double eta)
{
    m_eta->setValue(eta);
}

double GradientPanel::learningRate() const
{
    return m_eta->value();
}

void GradientPanel::setMaxSteps(int steps)
{
    m_max->setValue(steps);
}

int GradientPanel::maxSteps() const
{
    return m_max->value();
}

GradientPanel::Target GradientPanel::target() const
{
    Target t;
    const Scenario &s = m_doc->scenario();
    const bool projected = s.mode == InputMode::Projected;
    const PlaneTarget v = m_plane ? m_plane->selectedVector() : PlaneTarget{};
    const bool key = v.isValid() && v.role == PlaneRole::Key;
    t.id = projected ? (key && s.source ? MatrixId::Source : MatrixId::X) : (key ? MatrixId::K : MatrixId::Q);
    t.row = key ? v.index : std::clamp(m_doc->currentQuery(), 0, std::max(0, queryCount(s) - 1));
    const int dk = m_doc->trace().dk;
    t.offset = projected ? 0 : std::clamp(m_doc->currentHead(), 0, std::max(0, s.heads - 1)) * dk;
    t.width = projected ? modelWidth(s) : dk;
    const QStringList labels = labelsOf(key ? keyLabels(s) : queryLabels(s));
    t.name = key ? tr("key %1").arg(labels.value(t.row)) : tr("query %1").arg(labels.value(t.row));
    return t;
}

std::optional<Eigen::RowVectorXd> GradientPanel::steppedRow(const Target &tg) const
{
    const GradientLens::State st = m_lens->compute();
    if (!st.grad)
        return std::nullopt;
    const Matrix *grad = st.grad->of(tg.id);
    if (!grad || tg.row >= grad->rows())
        return std::nullopt;
    return descentRow(matrix(m_doc->scenario(), tg.id), *grad, tg.row, tg.offset, tg.width, m_eta->value());
}

bool GradientPanel::step()
{
    if (m_descending || m_doc->inGesture())
        return false;
    const Target tg = target();
    const std::optional<Eigen::RowVectorXd> row = steppedRow(tg);
    if (!row) {
        refresh(); // the reason is shown
        return false;
    }
    if (m_history.empty())
        if (const auto l = m_lens->lossNow())
            m_history.push_back(*l);
    if (m_doc->setRow(tg.id, tg.row, *row, tr("Gradient step on %1").arg(tg.name)))
        return false;
    if (const auto l = m_lens->lossNow()) {
        const double before = m_history.back();
        m_history.push_back(*l);
        m_statusText = tr("Step: L %1 → %2").arg(num(before), num(*l));
    }
    updateButtons();
    updateCurve();
    return true;
}

void GradientPanel::descend()
{
    if (m_descending || m_doc->inGesture())
        return;
    const std::optional<double> l = m_lens->lossNow();
    if (!l || !m_lens->compute().grad) {
        refresh();
        return;
    }
    m_history = {*l};
    m_descentSteps = 0;
    m_descending = true;
    m_doc->beginGesture(tr("Descend on %1").arg(target().name));
    m_statusText = tr("Descending…");
    updateButtons();
    updateCurve();
    m_timer.start();
}

void GradientPanel::tick()
{
    if (!m_descending)
        return;
    const Target tg = target();
    const std::optional<Eigen::RowVectorXd> row = steppedRow(tg);
    const double before = m_history.back();
    if (!row) {
        m_statusText = tr("Stopped: no gradient here.");
        finishDescent();
        return;
    }
    // The step is tried first: one that does not lower the loss is not taken.
    Scenario next = m_doc->scenario();
    matrix(next, tg.id).row(tg.row) = *row;
    const std::optional<double> after = m_lens->lossOf(next);
    if (!after || !(*after < before)) {
        m_statusText = tr("Stopped at step %1: a step of η = %2 no longer lowers L = %3 (try a smaller η).")
                           .arg(m_descentSteps)
                           .arg(num(m_eta->value()), num(before));
        finishDescent();
        return;
    }
    if (m_doc->setRow(tg.id, tg.row, *row, tr("Descend on %1").arg(tg.name))) {
        m_statusText = tr("Stopped: the step was refused.");
        finishDescent();
        return;
    }
    ++m_descentSteps;
    m_history.push_back(*after);
    m_statusText = tr("Step %1: L = %2").arg(m_descentSteps).arg(num(*after));
    if (descentSettled(before, *after, m_tolerance))
        m_statusText = tr("Settled at step %1: L = %2 (it fell by less than %3 of itself).")
                           .arg(m_descentSteps)
                           .arg(num(*after), QString::number(m_tolerance));
    else if (m_descentSteps >= m_max->value())
        m_statusText = tr("Stopped at the limit, step %1: L = %2.").arg(m_descentSteps).arg(num(*after));
    else {
        updateButtons();
        updateCurve();
        return;
    }
    finishDescent();
}

void GradientPanel::descendAtOnce()
{
    descend();
    m_timer.stop();
    while (m_descending)
        tick();
}

void GradientPanel::stop()
{
    if (!m_descending)
        return;
    m_statusText = tr("Stopped at step %1.").arg(m_descentSteps);
    finishDescent();
}

void GradientPanel::finishDescent()
{
    m_timer.stop();
    m_descending = false;
    m_doc->endGesture(); // the whole descent: one undo step (none without a step)
    updateButtons();
    updateCurve();
    emit descentFinished();
}

} // namespace attn
