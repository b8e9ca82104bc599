#include "onlinepanel.h"

#include "numbers.h"
#include "steppanel.h"
#include "viewbinding.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

namespace {

QString text(const std::string &s)
{
    return QString::fromStdString(s);
}

constexpr double kDefaultTop = 800; // e^800 overflows a double (past about 709.78)

} // namespace

OnlineSoftmaxPanel::OnlineSoftmaxPanel(Document *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("onlineSoftmax"));
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *page = new QWidget(scroll);
    scroll->setWidget(page);
    outer->addWidget(scroll);
    auto *layout = new QVBoxLayout(page);

    auto *tileRow = new QHBoxLayout;
    auto *tileLabel = new QLabel(tr("Keys a tile (B):"), page);
    m_tile = new QSpinBox(page);
    m_tile->setObjectName(QStringLiteral("onlineTileSize"));
    m_tile->setRange(1, 1 << 20); // narrowed to n_k once the row is known
    m_tile->setValue(2);
    m_tile->setToolTip(tr("B: how many keys are read at a time (FlashAttention's block of K and V)"));
    tileLabel->setBuddy(m_tile);
    tileRow->addWidget(tileLabel);
    tileRow->addWidget(m_tile);
    tileRow->addStretch(1);
    layout->addLayout(tileRow);

    auto *nav = new QHBoxLayout;
    auto button = [this, page, nav](const QString &label, const QString &tip, void (OnlineSoftmaxPanel::*slot)()) {
        auto *b = new QToolButton(page);
        b->setText(label);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        connect(b, &QToolButton::clicked, this, slot);
        nav->addWidget(b);
        return b;
    };
    m_first = button(QStringLiteral("|◀"), tr("First tile"), &OnlineSoftmaxPanel::first);
    m_prev = button(QStringLiteral("◀"), tr("Previous tile"), &OnlineSoftmaxPanel::previous);
    m_heading = new QLabel(page);
    m_heading->setObjectName(QStringLiteral("onlineHeading"));
    m_heading->setWordWrap(true);
    nav->addWidget(m_heading, 1);
    m_next = button(QStringLiteral("▶"), tr("Next tile"), &OnlineSoftmaxPanel::next);
    m_last = button(QStringLiteral("▶|"), tr("Last tile"), &OnlineSoftmaxPanel::last);
    layout->addLayout(nav);

    m_explain = new QLabel(page);
    m_explain->setWordWrap(true);
    layout->addWidget(m_explain);
    m_lines = new QLabel(page);
    m_lines->setObjectName(QStringLiteral("onlineArithmetic"));
    m_lines->setTextFormat(Qt::RichText);
    m_lines->setWordWrap(true);
    m_lines->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_lines);
    m_resultLabel = new QLabel(page);
    m_resultLabel->setObjectName(QStringLiteral("onlineResult"));
    m_resultLabel->setWordWrap(true);
    layout->addWidget(m_resultLabel);
    m_traffic = new QLabel(page);
    m_traffic->setObjectName(QStringLiteral("onlineTraffic"));
    m_traffic->setWordWrap(true);
    layout->addWidget(m_traffic);

    auto *box = new QGroupBox(tr("Why the softmax subtracts the maximum"), page);
    auto *boxLayout = new QVBoxLayout(box);
    auto *topRow = new QHBoxLayout;
    auto *topLabel = new QLabel(tr("Shift the row until its largest score is"), box);
    topLabel->setWordWrap(true);
    m_top = new QDoubleSpinBox(box);
    m_top->setObjectName(QStringLiteral("overflowTop"));
    m_top->setRange(-1e6, 1e6);
    m_top->setDecimals(1);
    m_top->setValue(kDefaultTop);
    topLabel->setBuddy(m_top);
    topRow->addWidget(topLabel, 1);
    topRow->addWidget(m_top);
    boxLayout->addLayout(topRow);
    m_overflowIntro = new QLabel(box);
    m_overflowIntro->setWordWrap(true);
    boxLayout->addWidget(m_overflowIntro);
    m_overflow = new QTableWidget(box);
    m_overflow->setObjectName(QStringLiteral("overflowTable"));
    m_overflow->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_overflow->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_overflow->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    boxLayout->addWidget(m_overflow);
    m_overflowNote = new QLabel(box);
    m_overflowNote->setWordWrap(true);
    boxLayout->addWidget(m_overflowNote);
    layout->addWidget(box);
    layout->addStretch(1);

    connect(m_tile, &QSpinBox::valueChanged, this, [this](int keys) {
        m_wanted = keys;
        m_index = 0;
        recompute();
    });
    connect(m_top, &QDoubleSpinBox::valueChanged, this, &OnlineSoftmaxPanel::refreshOverflow);
    new ViewBinding(this, doc, ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings,
                    [this] { recompute(); });
    recompute();
}

int OnlineSoftmaxPanel::query() const
{
    const Trace &t = m_doc->trace();
    const int head = std::clamp(m_doc->currentHead(), 0, std::max(0, int(t.heads.size()) - 1));
    const int rows = t.heads.empty() ? 0 : int(t.heads[std::size_t(head)].scores.rows());
    return std::clamp(m_doc->currentQuery(), 0, std::max(0, rows - 1));
}

int OnlineSoftmaxPanel::tileSize() const
{
    return m_tile->value();
}

void OnlineSoftmaxPanel::setTileSize(int keys)
{
    m_tile->setValue(keys);
}

int OnlineSoftmaxPanel::tileCount() const
{
    return int(m_result.row.tiles.size());
}

void OnlineSoftmaxPanel::setTileIndex(int index)
{
    index = std::clamp(index, 0, std::max(0, tileCount() - 1));
    if (index == m_index)
        return;
    m_index = index;
    refresh();
}

void OnlineSoftmaxPanel::setOverflowTop(double top)
{
    m_top->setValue(top);
}

void OnlineSoftmaxPanel::recompute()
{
    const Trace &t = m_doc->trace();
    const int head = std::clamp(m_doc->currentHead(), 0, std::max(0, int(t.heads.size()) - 1));
    const int keys = t.heads.empty() ? 0 : int(t.heads[std::size_t(head)].scores.cols());
    {
        // The teacher's B is kept while the lesson has fewer keys, and back when it has more.
        const QSignalBlocker block(m_tile);
        if (!m_wanted)
            m_wanted = m_tile->value();
        m_tile->setRange(1, std::max(1, keys));
        m_tile->setValue(std::min(m_wanted, std::max(1, keys)));
    }
    m_result = OnlineRowResult{};
    if (!t.heads.empty() && keys > 0) {
        auto r = onlineSoftmaxRow(m_doc->scenario(), t, head, query(), tileSize());
        if (r.ok())
            m_result = std::move(r.value());
    }
    m_index = std::clamp(m_index, 0, std::max(0, tileCount() - 1));
    refresh();
    refreshOverflow();
}

void OnlineSoftmaxPanel::refresh()
{
    const Scenario &s = m_doc->scenario();
    const Trace &t = m_doc->trace();
    const int head = std::clamp(m_doc->currentHead(), 0, std::max(0, int(t.heads.size()) - 1));
    const int row = query();
    const auto ql = queryLabels(s);
    const int count = tileCount();
    const QString queryName = QString::fromStdString(row < int(ql.size()) ? ql[std::size_t(row)] : std::string());
    m_first->setEnabled(m_index > 0);
    m_prev->setEnabled(m_index > 0);
    m_next->setEnabled(m_index + 1 < count);
    m_last->setEnabled(m_index + 1 < count);
    m_plain.clear();
    if (count == 0) {
        m_heading->setText(tr("No keys to read."));
        m_lines->clear();
        m_resultLabel->clear();
        m_traffic->clear();
        announce();
        return;
    }
    const OnlineTile &tile = m_result.row.tiles[std::size_t(m_index)];
    //: %1 and %2 count the tiles, %3 and %4 are the first and last key read, %5 the query, %6 the head.
    m_heading->setText(tr("<b>Tile %1 of %2:</b> keys %3–%4 &nbsp; <span style='color:#666'>(query %5, head %6)</span>")
                           .arg(m_index + 1)
                           .arg(count)
                           .arg(tile.first + 1)
                           .arg(tile.last + 1)
                           .arg(queryName.toHtmlEscaped())
                           .arg(head + 1));
    m_explain->setText(
        s.softmax == SoftmaxKind::PlusOne
            ? tr("softmax₁: the row starts as if a key of score 0 and value 0 had been read (m = 0, ℓ = 1, o = 0). "
                 "Each tile raises the running maximum m if it must, rescales what was summed so far by "
                 "e^(m_old − m), and adds its own keys.")
            : tr("The n × n weights are never stored: each tile raises the running maximum m if it must, rescales "
                 "what was summed so far by e^(m_old − m), and adds its own keys. o is kept divided by ℓ, so after "
                 "the last tile it is the output row."));

    const std::vector<std::string> lines = onlineTileLines(s, t, head, row, m_result, m_index);
    const int base = font().pointSize() > 0 ? font().pointSize() : 10;
    QString html = QStringLiteral("<div style='font-size:%1pt; font-family:serif; line-height:140%;'>")
                       .arg(int(std::lround(base * 1.3)));
    for (const std::string &line : lines) {
        html += StepPanel::typeset(line) + QStringLiteral("<br>");
        QString plain = QString::fromStdString(line);
        plain.replace(QStringLiteral("^{"), QStringLiteral("^")).remove(QStringLiteral("_{")).remove(QLatin1Char('}'));
        m_plain += plain + QLatin1Char('\n');
    }
    if (lines.size() == 1) { // the tile changes nothing
        const QString why = tile.m == -std::numeric_limits<double>::infinity()
                                ? tr("Every key read so far is blocked: m = −∞, ℓ = 0, o = 0.")
                                : tr("Every key of this tile is blocked: m, ℓ and o stay as they were.");
        html += why.toHtmlEscaped();
        m_plain += why + QLatin1Char('\n');
    }
    html += QStringLiteral("</div>");
    m_lines->setText(html);

    if (m_index + 1 < count) {
        m_resultLabel->setText(tr("Read: keys 1–%1 of %2. The keys after them are not read yet; only m, ℓ and o are "
                             "kept for this row.")
                              .arg(tile.last + 1)
                              .arg(t.heads[std::size_t(head)].scores.cols()));
    } else if (m_result.row.fullyMasked) {
        m_resultLabel->setText(tr("Every key is blocked: the row has no weights and its output is 0."));
    } else {
        //: %1 and %2 are the largest differences, e.g. 2.2e-16.
        m_resultLabel->setText(tr("All keys read: o is the output row, and e^(s_j − m) / ℓ the weights. Largest "
                             "difference to the ordinary softmax: weights %1, output %2 (rounding).")
                              .arg(text(compact(m_result.largestWeightDifference)),
                                   text(compact(m_result.largestOutputDifference))));
    }
    const HeadTrace &h = t.heads[std::size_t(head)];
    const SoftmaxTraffic c = softmaxTraffic(int(h.scores.rows()), int(h.scores.cols()));
    //: %1 = n_q × n_k scores, %2 the safe softmax's reads and writes, %3 the online one's.
    m_traffic->setText(tr("Memory traffic of this head's %1 scores: the safe softmax reads and writes %2 (4 a score: "
                          "the maximum, the sum, then read and write to divide), the online softmax %3 (3 a score). "
                          "Fused with the weighted sum, as here, the scores live in one tile at a time: the "
                          "n_q × n_k matrix is never stored.")
                           .arg(c.storedCells)
                           .arg(c.safe)
                           .arg(c.online));
    announce();
}

void OnlineSoftmaxPanel::refreshOverflow()
{
    const Scenario &s = m_doc->scenario();
    const Trace &t = m_doc->trace();
    m_overflow->clear();
    if (t.heads.empty()) {
        m_overflow->setRowCount(0);
        m_overflow->setColumnCount(0);
        return;
    }
    const int head = std::clamp(m_doc->currentHead(), 0, int(t.heads.size()) - 1);
    const HeadTrace &h = t.heads[std::size_t(head)];
    const int row = query();
    const Eigen::Index nk = h.scores.cols();
    const bool maskBefore = s.maskStage == MaskStage::BeforeSoftmax;
    // The row as the softmax gets it: blocked keys at −∞ when the mask comes first.
    Eigen::RowVectorXd scores = h.scaledRow(row);
    double largest = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < nk; ++j) {
        if (maskBefore && t.blocked(row, j))
            scores(j) = -std::numeric_limits<double>::infinity();
        else
            largest = std::max(largest, scores(j));
    }
    if (largest == -std::numeric_limits<double>::infinity()) {
        m_overflowIntro->setText(tr("Every key of this row is blocked: nothing to exponentiate."));
        m_overflow->setRowCount(0);
        m_overflow->setColumnCount(0);
        m_overflowNote->clear();
        return;
    }
    const double shift = m_top->value() - largest;
    scores.array() += shift;
    const OverflowRow r = overflowRow(scores);
    //: %1 the shift added, %2 the query.
    m_overflowIntro->setText(tr("The scaled scores of query %2, each plus %1: adding one number to a whole row "
                                "changes none of its weights. In double precision e^x overflows past x ≈ 709.78.")
                                 .arg(text(compact(shift, Minus::Typographic)),
                                      QString::fromStdString(queryLabels(s)[std::size_t(row)])));
    const QStringList rowNames = {tr("s"), tr("e^s"), tr("e^s / Σ e^s (as written)"), tr("s − max"), tr("e^(s − max)"),
                                  tr("weights (shifted)")};
    const Eigen::RowVectorXd *rows[] = {&scores, &r.exponentials, &r.naive, nullptr, &r.shifted, &r.safe};
    const int shown = int(std::min<Eigen::Index>(nk, 16));
    m_overflow->setRowCount(int(rowNames.size()));
    m_overflow->setColumnCount(shown);
    m_overflow->setVerticalHeaderLabels(rowNames);
    QStringList keys;
    for (const std::string &k : keyLabels(s))
        keys << QString::fromStdString(k);
    m_overflow->setHorizontalHeaderLabels(keys.mid(0, shown));
    for (int i = 0; i < rowNames.size(); ++i) {
        for (int j = 0; j < shown; ++j) {
            const double v = rows[i] ? (*rows[i])(j) : scores(j) - r.maximum;
            auto *item = new QTableWidgetItem(text(formatFixed(v, 4, Minus::Typographic)));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (!std::isfinite(v) && !(std::isinf(v) && v < 0)) // −∞ is a blocked key, not a failure
                item->setForeground(QColor(200, 0, 0));
            m_overflow->setItem(i, j, item);
        }
    }
    m_overflow->resizeColumnsToContents();
    m_overflow->setFixedHeight(m_overflow->horizontalHeader()->height() + m_overflow->verticalHeader()->length()
                               + 2 * m_overflow->frameWidth());
    const bool naiveBroken = !r.naive.allFinite();
    QString note = naiveBroken ? tr("As written, e^s overflows to inf and inf / inf is NaN: the row is lost. Shifted "
                                    "by its maximum, the largest exponential is e^0 = 1 and nothing overflows; the "
                                    "weights are the lesson's own.")
                               : tr("Nothing overflows at this shift: both ways give the same weights. Raise the "
                                    "largest score past 709.78 to see e^s overflow.");
    if (nk > shown)
        note += QLatin1Char(' ') + tr("The first %1 of %2 keys are shown.").arg(shown).arg(nk);
    m_overflowNote->setText(note);
}

void OnlineSoftmaxPanel::announce()
{
    if (!isVisible() || tileCount() == 0) {
        emit tileChanged(-1, -1, -1, -1);
        return;
    }
    const OnlineTile &tile = m_result.row.tiles[std::size_t(m_index)];
    const int head = std::clamp(m_doc->currentHead(), 0, std::max(0, int(m_doc->trace().heads.size()) - 1));
    emit tileChanged(head, query(), tile.first, tile.last);
}

QString OnlineSoftmaxPanel::heading() const
{
    return m_heading->text();
}

QString OnlineSoftmaxPanel::arithmeticText() const
{
    return m_plain;
}

QString OnlineSoftmaxPanel::resultText() const
{
    return m_resultLabel->text();
}

QString OnlineSoftmaxPanel::trafficText() const
{
    return m_traffic->text();
}

void OnlineSoftmaxPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::LanguageChange)
        recompute();
}

void OnlineSoftmaxPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    announce();
}

void OnlineSoftmaxPanel::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    emit tileChanged(-1, -1, -1, -1);
}

} // namespace attn
