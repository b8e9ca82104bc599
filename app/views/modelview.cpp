#include "modelview.h"

#include "attention.h"
#include "document.h" // problemText
#include "gradients.h"
#include "sinkview.h"
#include "stagedata.h"

#include <QApplication>
#include <QButtonGroup>
#include <QElapsedTimer>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLinearGradient>
#include <QSignalBlocker>
#include <QLocale>
#include <QMenu>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

// A table cell that sorts by its number (UserRole), not its text: "0.93 (0.41)".
class ScoreItem : public QTableWidgetItem {
public:
    using QTableWidgetItem::QTableWidgetItem;
    bool operator<(const QTableWidgetItem &other) const override
    {
        const QVariant a = data(Qt::UserRole), b = other.data(Qt::UserRole);
        if (a.isValid() && b.isValid())
            return a.toDouble() < b.toDouble();
        return QTableWidgetItem::operator<(other);
    }
};

constexpr Stage kStages[] = {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output};

QString utf8(const std::string &s)
{
    return QString::fromStdString(s);
}

// A token for the eye with its word-start space made visible: " cat" is
// "␣cat", the marker grey in rich text.
QString tokenHtml(const std::string &bytes)
{
    const bool spaces = bytes.find_first_not_of(' ') == std::string::npos;
    const bool wordStart = !bytes.empty() && bytes[0] == ' ' && !spaces;
    QString out;
    if (wordStart)
        out += QStringLiteral("<span style=\"color:#8a8a8a;\">␣</span>");
    out += utf8(tokenLabel(bytes)).toHtmlEscaped();
    return out;
}

QString tokenPlain(const std::string &bytes)
{
    const bool spaces = bytes.find_first_not_of(' ') == std::string::npos;
    return (!bytes.empty() && bytes[0] == ' ' && !spaces ? QStringLiteral("␣") : QString()) + utf8(tokenLabel(bytes));
}

// A probability as a bar behind its number (the value in Qt::UserRole).
class BarDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const double p = std::clamp(index.data(Qt::UserRole).toDouble(), 0.0, 1.0);
        QRectF bar = QRectF(option.rect).adjusted(1, 2, -1, -2);
        bar.setWidth(bar.width() * p);
        painter->fillRect(bar, QColor(0x9c, 0xc3, 0xe6));
        QStyledItemDelegate::paint(painter, option, index);
    }
};


// A label whose text changes on every key, held so that the change does not
// lay the whole window out again: QLabel::setText asks its parent's layout
// to recompute (every label, the splitter, every plot: about 6 ms a key
// under load in bench_model --breakdown). Here the label's parent has no
// layout; the holder places it by hand and asks its own layout for room
// only when the label needs another size.
class LabelHolder : public QWidget {
public:
    LabelHolder(QLabel *label, QWidget *parent) : QWidget(parent), m_label(label)
    {
        label->setParent(this);
        setSizePolicy(label->wordWrap() ? QSizePolicy::Preferred : QSizePolicy::Fixed, QSizePolicy::Fixed);
    }
    // After the label's text changed: a new size only if it needs one.
    void refit()
    {
        const QSize want = wanted();
        if (want != m_hint) {
            m_hint = want;
            updateGeometry();
        }
    }
    QSize sizeHint() const override { return m_hint.isValid() ? m_hint : wanted(); }
    QSize minimumSizeHint() const override
    {
        const QSize h = sizeHint();
        return {m_label->wordWrap() ? 40 : h.width(), h.height()};
    }

protected:
    void resizeEvent(QResizeEvent *event) override
    {
        m_label->setGeometry(rect());
        refit();
        QWidget::resizeEvent(event);
    }
    // A zoom (the application's font) changes the label's size with the
    // same text: measure again.
    void changeEvent(QEvent *event) override
    {
        if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
            // Queued: the label may take the new font after its holder does.
            QMetaObject::invokeMethod(this, [this] {
                m_hint = QSize();
                refit();
            }, Qt::QueuedConnection);
        QWidget::changeEvent(event);
    }

private:
    QSize wanted() const
    {
        if (!m_label->wordWrap())
            return m_label->sizeHint();
        // One layout of the text at the width it has (a wrapped label's
        // width comes from the layout's stretch, not from its text).
        const int w = width() > 0 ? width() : 400;
        return {200, std::max(m_label->heightForWidth(w), fontMetrics().height())};
    }

    QLabel *m_label;
    QSize m_hint;
};

// Sets a held label's text; its holder asks for room only if the size changed.
void setHeldText(QLabel *label, const QString &text)
{
    if (label->text() == text)
        return;
    label->setText(text);
    if (auto *holder = dynamic_cast<LabelHolder *>(label->parentWidget()))
        holder->refit();
}

} // namespace

ModelView::ModelView(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("modelView"));
    auto *root = new QVBoxLayout(this);
    root->setContentsMargins(6, 6, 6, 6);
    root->setSpacing(4);
    buildTokenStrip(root);

    auto *split = new QSplitter(Qt::Horizontal, this);
    split->setChildrenCollapsible(false);
    QWidget *left = buildOverview(split);
    QWidget *right = buildHeadPanel(split);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({560, 900});
    root->addWidget(split, 1);

    connectParts();
    m_take->setEnabled(false);
    retranslate();
}

// The model line, the sentence, its tokens as the model sees them, and the
// notes beneath (a slow model, a refused sentence).
void ModelView::buildTokenStrip(QVBoxLayout *root)
{
    auto *top = new QHBoxLayout;
    m_modelLine = new QLabel(this);
    m_modelLine->setObjectName(QStringLiteral("modelLine"));
    m_modelLine->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_modelLine->font();
    bold.setBold(true);
    m_modelLine->setFont(bold);
    m_back = new QPushButton(this);
    m_back->setObjectName(QStringLiteral("backToLab"));
    top->addWidget(m_modelLine, 1);
    top->addWidget(m_back);
    root->addLayout(top);

    auto *sentenceRow = new QHBoxLayout;
    m_sentenceLabel = new QLabel(this);
    m_sentence = new QLineEdit(this);
    m_sentence->setObjectName(QStringLiteral("modelSentence"));
    m_sentence->setClearButtonEnabled(true);
    m_sentenceLabel->setBuddy(m_sentence);
    sentenceRow->addWidget(m_sentenceLabel);
    sentenceRow->addWidget(m_sentence, 1);
    root->addLayout(sentenceRow);

    auto *tokensRow = new QHBoxLayout;
    m_tokensTitle = new QLabel(this);
    m_tokensTitle->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_tokens = new QLabel(this);
    m_tokens->setObjectName(QStringLiteral("modelTokens"));
    m_tokens->setTextFormat(Qt::RichText);
    m_tokens->setWordWrap(true);
    m_tokens->setTextInteractionFlags(Qt::TextSelectableByMouse);
    tokensRow->addWidget(new LabelHolder(m_tokensTitle, this), 0, Qt::AlignTop);
    tokensRow->addWidget(new LabelHolder(m_tokens, this), 1);
    root->addLayout(tokensRow);

    m_slowNote = new QLabel(this);
    m_slowNote->setObjectName(QStringLiteral("modelSlowNote"));
    m_slowNote->setWordWrap(true);
    m_slowNote->setStyleSheet(QStringLiteral("background:#fff4cf; color:#5a4300; border:1px solid #e0c060; padding:4px;"));
    m_slowNote->hide();
    root->addWidget(m_slowNote);
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("modelProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color:#b00020;"));
    m_problem->hide();
    root->addWidget(m_problem);
}

// Every layer by head (the grid), and the next token beneath it.
QWidget *ModelView::buildOverview(QWidget *parent)
{
    auto *left = new QWidget(parent);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_overviewTitle = new QLabel(left);
    m_overviewTitle->setWordWrap(true);
    m_grid = new HeadGrid(left);
    m_grid->setObjectName(QStringLiteral("modelOverview"));
    m_nextTitle = new QLabel(left);
    m_nextTitle->setWordWrap(true); // "without" and the heads knocked out can be long
    m_predictions = new QTableWidget(5, 2, left);
    m_predictions->setObjectName(QStringLiteral("modelPredictions"));
    m_predictions->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_predictions->setSelectionMode(QAbstractItemView::NoSelection);
    m_predictions->setFocusPolicy(Qt::NoFocus);
    m_predictions->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_predictions->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_predictions->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_predictions->setItemDelegateForColumn(1, new BarDelegate(m_predictions));
    m_predictions->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_predictions->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    leftLayout->addWidget(m_overviewTitle);
    leftLayout->addWidget(m_grid, 1);
    m_ablationNote = new QLabel(left);
    m_ablationNote->setObjectName(QStringLiteral("modelAblationNote"));
    m_ablationNote->setWordWrap(true);
    m_ablationNote->setTextFormat(Qt::RichText);
    m_ablationNote->setStyleSheet(QStringLiteral("background:#fdecea; color:#5c1a14; border:1px solid #e0a49c; padding:4px;"));
    m_ablationNote->hide();
    leftLayout->addWidget(m_nextTitle);
    leftLayout->addWidget(m_predictions);
    leftLayout->addWidget(m_ablationNote);
    // Scrolled: at a projector's zoom the grid and the table are taller than
    // a 1000 px screen, and the window must not grow past it.
    auto *scroll = new QScrollArea(parent);
    scroll->setObjectName(QStringLiteral("modelOverviewScroll"));
    scroll->setWidget(left);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return scroll;
}

// The chosen head: which one and what kind, then its maps.
QWidget *ModelView::buildHeadPanel(QWidget *parent)
{
    auto *right = new QWidget(parent);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto *pick = new QHBoxLayout;
    m_layerLabel = new QLabel(right);
    m_layerBox = new QSpinBox(right);
    m_layerBox->setObjectName(QStringLiteral("modelLayer"));
    m_headLabel = new QLabel(right);
    m_headBox = new QSpinBox(right);
    m_headBox->setObjectName(QStringLiteral("modelHead"));
    m_layerLabel->setBuddy(m_layerBox);
    m_headLabel->setBuddy(m_headBox);
    m_kind = new QLabel(right);
    m_kind->setObjectName(QStringLiteral("modelKind"));
    m_kind->setWordWrap(true);
    m_take = new QPushButton(right);
    m_take->setObjectName(QStringLiteral("takeHead"));
    pick->addWidget(m_layerLabel);
    pick->addWidget(m_layerBox);
    pick->addSpacing(8);
    pick->addWidget(m_headLabel);
    pick->addWidget(m_headBox);
    pick->addSpacing(8);
    pick->addWidget(new LabelHolder(m_kind, right), 1);
    pick->addWidget(m_take);
    rightLayout->addLayout(pick);
    rightLayout->addWidget(buildHeadTabs(right), 1);
    return right;
}

// The head's stage maps (as the lab lays them out) and its q, k, v.
QTabWidget *ModelView::buildHeadTabs(QWidget *parent)
{
    m_tabs = new QTabWidget(parent);
    m_tabs->setObjectName(QStringLiteral("modelHeadTabs"));
    // The maps' page: the picker (shown when the maps are split over pages)
    // above a stack of pages, each with its maps in a grid (layOutMaps).
    // (In the tab bar's corner it pushed the tabs out of sight at zoom 2.)
    m_mapsPage = new QWidget(m_tabs);
    m_mapsPage->setObjectName(QStringLiteral("modelMapsPage"));
    m_mapsPage->installEventFilter(this);
    auto *mapsLayout = new QVBoxLayout(m_mapsPage);
    mapsLayout->setContentsMargins(0, 0, 0, 0);
    mapsLayout->setSpacing(2);
    m_mapPicker = new QWidget(m_mapsPage);
    m_mapPicker->setObjectName(QStringLiteral("modelMapPicker"));
    auto *pickerLayout = new QHBoxLayout(m_mapPicker);
    pickerLayout->setContentsMargins(2, 2, 2, 0);
    m_mapButtons = new QButtonGroup(this);
    m_mapButtons->setExclusive(true);
    for (int page = 0; page < 5; ++page) {
        auto *button = new QToolButton(m_mapPicker);
        button->setObjectName(QStringLiteral("modelMapPage%1").arg(page + 1));
        button->setCheckable(true);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        m_mapButtons->addButton(button, page);
        pickerLayout->addWidget(button);
    }
    pickerLayout->addStretch(1);
    m_mapPicker->hide();
    m_mapStack = new QStackedWidget(m_mapsPage);
    for (QWidget *&page : m_mapPages) {
        page = new QWidget(m_mapStack);
        m_mapStack->addWidget(page);
    }
    mapsLayout->addWidget(m_mapPicker);
    mapsLayout->addWidget(m_mapStack, 1);
    // The grid's minimum in every arrangement: were it smaller over pages, a
    // window short of room would give the maps another size with each
    // arrangement, and each size could choose the other.
    m_mapStack->setMinimumSize(2 * 200 + kMapSpacing + 4, 3 * 170 + 2 * kMapSpacing + 4);
    m_arrangeIdle = new QTimer(this);
    m_arrangeIdle->setSingleShot(true);
    m_arrangeIdle->setInterval(kPauseMs);
    connect(m_arrangeIdle, &QTimer::timeout, this, &ModelView::scheduleMapArrangement);
    connect(m_mapButtons, &QButtonGroup::idClicked, m_mapStack, &QStackedWidget::setCurrentIndex);
    for (int i = 0; i < 5; ++i) {
        auto *plot = new HeatmapPlot(m_mapPages[0]);
        plot->setObjectName(QStringLiteral("model_") + stageKey(kStages[i]));
        plot->setMinimumSize(200, 170);
        m_stagePlots[i] = plot;
        const Stage stage = kStages[i];
        plot->setToolTipProvider([this, stage](int row, int col) {
            return m_headScenario ? cellToolTip(*m_headScenario, m_headTrace, stage, 0, row, col) : QString();
        });
    }
    layOutMaps();
    QWidget *maps = m_mapsPage;
    m_tabs->addTab(maps, QString());
    auto *qkv = new QWidget(m_tabs);
    auto *qkvPage = new QVBoxLayout(qkv);
    qkvPage->setContentsMargins(2, 2, 2, 2);
    qkvPage->setSpacing(4);
    // Where Q, K and V come from (quiz 2: self- against cross-attention).
    m_qkvSource = new QLabel(qkv);
    m_qkvSource->setObjectName(QStringLiteral("modelQkvSource"));
    m_qkvSource->setWordWrap(true);
    qkvPage->addWidget(m_qkvSource);
    auto *qkvLayout = new QHBoxLayout;
    qkvLayout->setSpacing(4);
    qkvPage->addLayout(qkvLayout, 1);
    const char *names[] = {"model_q", "model_k", "model_v"};
    for (int i = 0; i < 3; ++i) {
        auto *plot = new HeatmapPlot(qkv);
        plot->setObjectName(QLatin1String(names[i]));
        plot->setMinimumSize(200, 170);
        m_qkvPlots[i] = plot;
        qkvLayout->addWidget(plot, 1);
    }
    m_tabs->addTab(qkv, QString());
    auto *scores = new QWidget(m_tabs);
    auto *scoresLayout = new QVBoxLayout(scores);
    scoresLayout->setContentsMargins(2, 2, 2, 2);
    m_scoresTitle = new QLabel(scores);
    m_scoresTitle->setWordWrap(true);
    m_scoresTable = new QTableWidget(0, 8, scores);
    m_scoresTable->setObjectName(QStringLiteral("modelScoresTable"));
    m_scoresTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_scoresTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_scoresTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_scoresTable->verticalHeader()->hide();
    m_scoresTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_scoresTable->horizontalHeader()->setStretchLastSection(true);
    m_scoresTable->setSortingEnabled(true);
    m_scoresTable->sortByColumn(0, Qt::AscendingOrder);
    scoresLayout->addWidget(m_scoresTitle);
    scoresLayout->addWidget(m_scoresTable, 1);
    m_tabs->addTab(scores, QString());
    // Scrolled, so that a projector's zoom does not make the window taller.
    auto *sinkScroll = new QScrollArea(m_tabs);
    sinkScroll->setObjectName(QStringLiteral("modelSinksTab"));
    m_sinkView = new SinkView(sinkScroll);
    sinkScroll->setWidget(m_sinkView);
    sinkScroll->setWidgetResizable(true);
    sinkScroll->setFrameShape(QFrame::NoFrame);
    sinkScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_sinkTab = sinkScroll;
    m_tabs->addTab(sinkScroll, QString());
    return m_tabs;
}

// Typing, the pickers, the grid, the tabs, the buttons and the maps' menus.
void ModelView::connectParts()
{
    m_pause = new QTimer(this);
    m_pause->setSingleShot(true);
    m_pause->setInterval(kPauseMs);
    connect(m_pause, &QTimer::timeout, this, &ModelView::recompute);
    // Keys typed faster than the views redraw are read together: the timer
    // fires when the event queue has been worked through, with the field's
    // text as the last key left it.
    m_coalesce = new QTimer(this);
    m_coalesce->setSingleShot(true);
    m_coalesce->setInterval(0);
    connect(m_coalesce, &QTimer::timeout, this, &ModelView::recompute);
    connect(m_sentence, &QLineEdit::textEdited, this, &ModelView::onTextEdited);
    connect(m_sentence, &QLineEdit::returnPressed, this, [this] {
        m_pause->stop();
        recompute();
    });
    connect(m_layerBox, &QSpinBox::valueChanged, this, [this](int v) { setHead(v - 1, m_head); });
    connect(m_headBox, &QSpinBox::valueChanged, this, [this](int v) { setHead(m_layer, v - 1); });
    connect(m_grid, &HeadGrid::cellClicked, this, [this](int row, int col) { setHead(row, col); });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { updateHeadMaps(); });
    connect(m_back, &QPushButton::clicked, this, &ModelView::leaveRequested);
    connect(m_take, &QPushButton::clicked, this, [this] {
        if (!m_headScenario)
            return;
        emit takeHeadRequested(*m_headScenario, tr("Take layer %1, head %2 into the lab").arg(m_layer + 1).arg(m_head + 1));
    });
    connect(m_scoresTable, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const QTableWidgetItem *l = m_scoresTable->item(row, 0), *h = m_scoresTable->item(row, 1);
        if (l && h)
            setHead(l->text().toInt() - 1, h->text().toInt() - 1);
    });
    m_grid->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_grid, &QWidget::customContextMenuRequested, this, &ModelView::showGridMenu);
    for (QWidget *w : figureWidgets()) {
        if (w == m_grid)
            continue;
        w->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(w, &QWidget::customContextMenuRequested, this, [this, w](const QPoint &pos) {
            const auto what = figureOf(w);
            if (!what)
                return;
            QMenu menu;
            QAction *a = menu.addAction(tr("Export figure…"));
            a->setEnabled(m_headScenario.has_value());
            if (menu.exec(w->mapToGlobal(pos)) == a)
                emit exportRequested(*what);
        });
    }
}

ModelView::~ModelView() = default;

double ModelView::forwardMultiplyAdds(const Gpt2Config &c, int tokens)
{
    const double n = tokens, d = c.nEmbd, inner = c.nInner > 0 ? c.nInner : 4.0 * c.nEmbd;
    // Per token and layer: c_attn (d × 3d), c_proj (d × d), the MLP (2 d × inner),
    // and the attention's scores and sums (2 n d); then one row of logits.
    return n * c.nLayer * (4 * d * d + 2 * d * inner + 2 * n * d) + double(c.vocabSize) * d;
}

double ModelView::keyMultiplyAdds(const Gpt2Config &c, int tokens)
{
    const double n = tokens, d = c.nEmbd, inner = c.nInner > 0 ? c.nInner : 4.0 * c.nEmbd;
    return 2 * c.nLayer * (4 * d * d + 2 * d * inner + 2 * n * d) + double(c.vocabSize) * d;
}

void ModelView::setModel(std::shared_ptr<const Gpt2Model> model)
{
    m_model = std::move(model);
    m_trace.reset(); // never reused by another model's forward
    m_ids.reset();  // another model's ids
    m_ablations.clear(); // another model's heads
    m_probeLoss.reset();
    m_probeScores.clear();
    m_scoresDirty = true;
    m_headScenario.reset();
    m_pause->stop();
    m_coalesce->stop();
    m_sinkView->setModel(m_model);
    if (!m_model) {
        retranslate();
        return;
    }
    const Gpt2Config &c = m_model->config;
    m_live = keyMultiplyAdds(c, 32) <= m_liveKeyBudget;
    m_slowNote->setVisible(!m_live);
    {
        const QSignalBlocker b1(m_layerBox), b2(m_headBox);
        m_layerBox->setRange(1, std::max(1, c.nLayer));
        m_headBox->setRange(1, std::max(1, c.nHead));
    }
    m_layer = std::clamp(m_layer, 0, std::max(0, c.nLayer - 1));
    m_head = std::clamp(m_head, 0, std::max(0, c.nHead - 1));
    retranslate();
    recompute();
}

QString ModelView::text() const
{
    return m_sentence->text();
}

void ModelView::setText(const QString &text)
{
    m_sentence->setText(text);
    m_pause->stop();
    recompute();
}

void ModelView::setIds(const std::vector<int> &ids)
{
    if (!m_model)
        return;
    const std::string bytes = m_model->tokenizer.decode(ids);
    m_idsText = QString::fromUtf8(bytes.data(), qsizetype(bytes.size()));
    m_ids = ids;
    m_sentence->setText(m_idsText);
    m_pause->stop();
    recompute();
}

bool ModelView::recomputePending() const
{
    return m_coalesce->isActive() || m_pause->isActive();
}

void ModelView::onTextEdited()
{
    if (m_live) {
        if (!m_coalesce->isActive())
            m_coalesce->start();
    } else {
        m_pause->start();
    }
}

void ModelView::setHead(int layer, int head)
{
    if (!m_model)
        return;
    layer = std::clamp(layer, 0, std::max(0, m_model->config.nLayer - 1));
    head = std::clamp(head, 0, std::max(0, m_model->config.nHead - 1));
    const bool changed = layer != m_layer || head != m_head;
    m_layer = layer;
    m_head = head;
    {
        const QSignalBlocker b1(m_layerBox), b2(m_headBox);
        m_layerBox->setValue(layer + 1);
        m_headBox->setValue(head + 1);
    }
    m_grid->setSelected(layer, head);
    if (changed) {
        updateHead();
        emit headChanged(layer, head);
    }
}

void ModelView::recompute()
{
    m_coalesce->stop();
    if (!m_model)
        return;
    QElapsedTimer clock;
    clock.start();
    // Incremental: the positions before the first changed token are the
    // last forward's (the model is causal), so a key at the end of the
    // sentence costs one or two positions, not all of them.
    if (m_ids && m_sentence->text() != m_idsText)
        m_ids.reset();
    auto run = m_ids ? runModelOnIds(*m_model, *m_ids, 5, m_trace ? &*m_trace : nullptr)
                     : runModel(*m_model, m_sentence->text(), 5, m_trace ? &*m_trace : nullptr);
    m_lastForwardMs = double(clock.nsecsElapsed()) / 1e6;
    if (const auto *p = std::get_if<Problem>(&run)) {
        m_trace.reset();
        m_headScenario.reset();
        m_problem->setText(m_sentence->text().trimmed().isEmpty() ? tr("Type a sentence for the model to read.")
                                                                  : problemText(*p));
        m_problem->show();
        setHeldText(m_tokens, QString());
        setHeldText(m_tokensTitle, tr("Tokens:"));
        m_take->setEnabled(false);
        setStale(true);
        emit recomputed();
        return;
    }
    m_intactNext.clear();
    if (!m_ablations.empty()) {
        // The knocked-out model's forward (never incremental: probe.h), the whole model's top 5 kept beside it.
        m_intactNext = std::get<ModelTrace>(run).next;
        auto knocked = runModelOnIdsAblated(*m_model, std::get<ModelTrace>(run).ids, 5, m_ablations);
        if (const Problem *p = knocked.problem()) { // the heads are the model's: only a bad model gets here
            m_ablations.clear();
            m_problem->setText(problemText(*p));
            m_problem->show();
        } else {
            run = std::move(knocked.value());
        }
    }
    // The same tokens (a space typed that the tokenizer joins later, a key
    // undone): every view already shows them.
    const bool same = m_trace && m_headScenario && m_problem->isHidden() && m_ablations.empty()
        && std::get<ModelTrace>(run).ids == m_trace->ids && !m_trace->ablated;
    m_trace = std::move(std::get<ModelTrace>(run));
    m_sinkView->setSentence(m_trace->ids);
    if (same) {
        emit recomputed();
        return;
    }
    m_problem->hide();
    m_problem->clear();
    updateTokens();
    updateOverview();
    updateHead();
    updatePredictions();
    updateAblationNote();
    setStale(false);
    m_take->setEnabled(m_headScenario.has_value());
    emit recomputed();
}

void ModelView::setStale(bool stale)
{
    for (HeatmapPlot *p : plots())
        p->setDimmed(stale);
    m_grid->setEnabled(!stale);
}

void ModelView::updateTokens()
{
    const ModelTrace &t = *m_trace;
    QString html;
    QString tip;
    for (std::size_t i = 0; i < t.texts.size(); ++i) {
        // Alternating backgrounds: where one token ends and the next begins.
        const char *bg = i % 2 ? "#f6e7cf" : "#dbe7f5";
        html += QStringLiteral("<span style=\"background-color:%1; color:#1a1a1a;\">&nbsp;%2&nbsp;</span> ")
                    .arg(QLatin1String(bg), tokenHtml(t.texts[i]));
        const std::string &piece = m_model->tokenizer.piece(t.ids[i]);
        tip += QStringLiteral("%1. %2  (%3, id %4)\n")
                   .arg(i + 1)
                   .arg(tokenPlain(t.texts[i]), utf8(piece))
                   .arg(t.ids[i]);
    }
    setHeldText(m_tokens, html);
    if (m_tokens->toolTip() != tip.trimmed())
        m_tokens->setToolTip(tip.trimmed());
    setHeldText(m_tokensTitle, tr("Tokens (%1):").arg(t.texts.size()));
}

HeadGridData ModelView::overviewData(bool withTitle) const
{
    if (!m_model || !m_trace)
        return {};
    const ModelTrace &t = *m_trace;
    HeadGridWords words;
    words.rowLabel = tr("L%1");
    words.colLabel = tr("H%1");
    words.describe = [this, &t](int l, int h, const Matrix &w, HeadGridCell &cell) {
        const HeadScores s = scoreHead(w, t.ids);
        const bool out = isKnockedOut(l, h);
        //: Under a head's map in the grid when the head is knocked out (its output replaced).
        cell.caption << (out ? tr("✕ knocked out") : kindName(s.kind)) << tr("H̄ %1 nats").arg(fixed2(s.meanEntropy));
        cell.toolTip = tr("Layer %1, head %2: %3").arg(l + 1).arg(h + 1).arg(kindName(s.kind)) + QLatin1Char('\n')
            + scoresText(s) + QLatin1Char('\n')
            + (out ? tr("Knocked out: it reads as before, but what it writes is replaced") + QLatin1Char('\n') : QString())
            + tr("Click to show this head; right-click to knock it out");
    };
    if (withTitle) {
        std::string text;
        for (const std::string &s : t.texts)
            text += s;
        words.title = tr("%1: every head's softmax weights for “%2”").arg(m_model->name, utf8(displayText(text)).trimmed());
    }
    return headGridData(int(t.layers.size()), t.layers.empty() ? 0 : int(t.layers[0].heads.size()),
                        [&t](int l, int h) -> const Matrix & { return t.layers[std::size_t(l)].heads[std::size_t(h)].weights; },
                        words);
}

void ModelView::updateOverview()
{
    m_grid->setData(overviewData(false));
    m_grid->setSelected(m_layer, m_head);
}

void ModelView::updateHead()
{
    if (!m_model || !m_trace)
        return;
    auto taken = attn::headScenario(*m_model, *m_trace, m_layer, m_head);
    if (const auto *p = std::get_if<Problem>(&taken)) {
        m_headScenario.reset();
        m_problem->setText(problemText(*p));
        m_problem->show();
        return;
    }
    // Validated by headScenario; a Problem all the same is said, never thrown out of a slot.
    Result<Trace> traced = tryCompute(std::get<Scenario>(taken));
    if (const Problem *p = traced.problem()) {
        m_headScenario.reset();
        m_problem->setText(problemText(*p));
        m_problem->show();
        return;
    }
    m_headScenario = std::move(std::get<Scenario>(taken));
    m_headTrace = std::move(traced.value());
    m_scores = scoreHead(m_trace->layers[std::size_t(m_layer)].heads[std::size_t(m_head)].weights, m_trace->ids);
    const HeadScores &s = m_scores;
    QString line = QStringLiteral("<b>%1</b>").arg(kindName(s.kind));
    if (const HeadScore *score = s.labelScore())
        line += tr(" %1 (uniform %2)").arg(fixed2(score->score), fixed2(score->uniform));
    setHeldText(m_kind, line + tr(" · mean entropy %1 nats · previous token %2 · first token %3 · itself %4")
                                   .arg(fixed2(s.meanEntropy), fixed2(s.previousToken.score), fixed2(s.firstToken.score),
                                        fixed2(s.self.score)));
    m_kind->setToolTip(scoresText(s));
    m_tabDirty[0] = m_tabDirty[1] = true;
    updateHeadMaps();
}

void ModelView::updateHeadMaps()
{
    // Only the tab in front: the other follows when it is shown.
    const int tab = m_tabs->currentIndex();
    if (tab == 2) {
        if (m_scoresDirty)
            updateScoresTable();
        return;
    }
    if (!m_headScenario || tab < 0 || tab > 1 || !m_tabDirty[tab])
        return;
    m_tabDirty[tab] = false;
    if (tab == 0) {
        StageOptions options;
        options.head = 0;
        // Each map on its own colour range: the scaled scores are the scores
        // divided by √32, and on the scores' range they would look blank.
        options.sharedScoreRange = false;
        for (int i = 0; i < 5; ++i) {
            HeatmapData d = stageData(*m_headScenario, m_headTrace, kStages[i], options);
            if (d.scale == HeatmapScale::Diverging)
                d.range = 0; // max |value| of the cells shown (the masked map: of its open cells)
            if (kStages[i] == Stage::Scores)
                markCache(d);
            m_stagePlots[i]->setData(std::move(d));
        }
        // The first maps are arranged for the room they have; after that,
        // new maps once typing pauses (and a new size or zoom at once), not
        // every key: trying the arrangements draws the maps several times.
        if (!m_arrangedOnce && m_stagePlots[0]->rowCount() > 0) {
            m_arrangedOnce = true;
            scheduleMapArrangement();
        } else {
            m_arrangeIdle->start(); // restarted by every key: after a pause in typing
        }
    } else {
        for (int i = 0; i < 3; ++i)
            m_qkvPlots[i]->setData(qkvData(i));
        m_qkvSource->setText(qkvSourceText());
    }
}

// The five maps on the pages of the arrangement: two maps a row, in the
// order of the computation (scores, scaled; masked, weights; the output).
// (Three in a row left a short sentence's cells too narrow for a model's
// scores, two or three digits before the point, and even for the weights'.)
//   Grid: all five on one page, the output below.
//   OutputApart: the four stage maps on one page, the output on the next.
//   Pairs: scores and scaled, masked and weights, the output: three pages.
//   Singles: a map a page, the whole width (a projector's zoom 2).
// The later ones give each map more height, where a projector's zoom left
// the grid's cells too low for their numbers (arrangeMapsToFit).
void ModelView::layOutMaps()
{
    for (QWidget *page : m_mapPages)
        delete page->layout(); // the maps stay; a new grid takes them
    std::vector<QGridLayout *> grids;
    for (QWidget *page : m_mapPages) {
        auto *grid = new QGridLayout(page);
        grid->setContentsMargins(2, 2, 2, 2);
        grid->setSpacing(kMapSpacing);
        for (int c = 0; c < 2; ++c)
            grid->setColumnStretch(c, 1);
        grids.push_back(grid);
    }
    HeatmapPlot *const *p = m_stagePlots;
    switch (m_arrangement) {
    case MapArrangement::Grid:
        for (int i = 0; i < 4; ++i)
            grids[0]->addWidget(p[i], i / 2, i % 2);
        grids[0]->addWidget(p[4], 2, 0, 1, 2);
        break;
    case MapArrangement::OutputApart:
        for (int i = 0; i < 4; ++i)
            grids[0]->addWidget(p[i], i / 2, i % 2);
        grids[1]->addWidget(p[4], 0, 0, 1, 2);
        break;
    case MapArrangement::Pairs:
        grids[0]->addWidget(p[0], 0, 0);
        grids[0]->addWidget(p[1], 0, 1);
        grids[1]->addWidget(p[2], 0, 0);
        grids[1]->addWidget(p[3], 0, 1);
        grids[2]->addWidget(p[4], 0, 0, 1, 2);
        break;
    case MapArrangement::Singles:
        for (int i = 0; i < 5; ++i)
            grids[std::size_t(i)]->addWidget(p[i], 0, 0, 1, 2);
        break;
    }
    for (QGridLayout *grid : grids)
        for (int r = 0; r < grid->rowCount(); ++r)
            grid->setRowStretch(r, 1);
    // A widget given a new parent is hidden until shown, and a layout shows
    // it (later) only in a page in view.
    for (HeatmapPlot *plot : m_stagePlots)
        plot->show();
    const int pages = pageCount();
    for (int page = 0; page < 5; ++page)
        m_mapButtons->button(page)->setVisible(page < pages);
    m_mapPicker->setVisible(pages > 1);
    const int current = std::min(m_mapStack->currentIndex(), pages - 1);
    m_mapStack->setCurrentIndex(std::max(current, 0));
    m_mapButtons->button(m_mapStack->currentIndex())->setChecked(true);
    retranslateMapPicker();
    // The buttons' new texts and widths now, not after the maps are drawn.
    m_mapPicker->layout()->activate();
}

void ModelView::retranslateMapPicker()
{
    QStringList names;
    if (m_arrangement == MapArrangement::OutputApart)
        names = {tr("Scores → weights"), tr("Output")};
    else if (m_arrangement == MapArrangement::Pairs)
        names = {tr("Scores, scaled"), tr("Masked, weights"), tr("Output")};
    else
        names = {tr("Scores"), tr("Scaled"), tr("Masked"), tr("Weights"), tr("Output")};
    const QString why = tr("At this size the maps are shown over pages, so that their cells keep their numbers");
    for (int page = 0; page < 5; ++page) {
        m_mapButtons->button(page)->setText(page < names.size() ? names[page] : QString());
        m_mapButtons->button(page)->setToolTip(why);
    }
}

void ModelView::setMapArrangement(MapArrangement arrangement)
{
    if (arrangement == m_arrangement)
        return;
    m_arrangement = arrangement;
    layOutMaps();
}

int ModelView::pageCount() const
{
    switch (m_arrangement) {
    case MapArrangement::Grid: return 1;
    case MapArrangement::OutputApart: return 2;
    case MapArrangement::Pairs: return 3;
    case MapArrangement::Singles: return 5;
    }
    return 1;
}

// How many of the four stage maps (not the output) draw their numbers in
// the arrangement now laid out: each page in front in turn, laid out and
// drawn at once.
int ModelView::mapsWithNumbers()
{
    const int front = m_mapStack->currentIndex();
    int count = 0;
    const int pages = pageCount();
    for (int page = 0; page < pages; ++page) {
        m_mapStack->setCurrentIndex(page);
        m_mapsPage->layout()->activate();
        m_mapPages[page]->layout()->activate();
        for (int i = 0; i < 4; ++i)
            if (HeatmapPlot *plot = m_stagePlots[i]; plot->parentWidget() == m_mapPages[page]) {
                plot->replot(QCustomPlot::rpQueuedRefresh); // laid out now, shown later
                count += plot->cellTextVisible();
            }
    }
    m_mapStack->setCurrentIndex(front);
    return count;
}

// After a new size, zoom or new maps: the arrangement in which the
// most stage maps' cells hold their numbers, the first of those on a tie
// (the grid shows the most at once). Each is laid out and drawn to count
// them: a map's labels and margins change with its cells' size, so a guess
// from the last layout is not good enough. The output does not count: its
// many columns (a head's 32 or 64 dimensions) would take a page of its own
// at any size, and its numbers are not what the lesson reads.
void ModelView::arrangeMapsToFit()
{
    if (!m_headScenario || m_stagePlots[0]->rowCount() == 0)
        return;
    if (!m_mapsPage->isVisible()) {
        m_arrangeWanted = true; // when the maps are shown again
        return;
    }
    m_arrangeWanted = false;
    // No numbers to keep in any arrangement (hidden values, cell text off).
    for (int i = 0; i < 4; ++i)
        if (!m_stagePlots[i]->valuesDrawn() || m_stagePlots[i]->cellText() == CellTextMode::Never)
            return;
    // The grid with every stage map's numbers drawn: nothing better to find.
    if (m_arrangement == MapArrangement::Grid && mapsWithNumbers() == 4)
        return;
    const MapArrangement was = m_arrangement;
    const int front = m_mapStack->currentIndex();
    // The trials move the maps between pages, which hides them: drawn once
    // at the end, and a map with the keyboard's focus keeps it.
    QPointer<QWidget> focused = QApplication::focusWidget();
    m_mapsPage->setUpdatesEnabled(false);
    MapArrangement best = MapArrangement::Grid;
    int most = -1;
    for (MapArrangement a : {MapArrangement::Grid, MapArrangement::OutputApart, MapArrangement::Pairs, MapArrangement::Singles}) {
        setMapArrangement(a);
        const int kept = mapsWithNumbers();
        if (kept > most) {
            most = kept;
            best = a;
        }
        if (kept == 4)
            break;
    }
    setMapArrangement(best);
    if (best == was)
        m_mapStack->setCurrentIndex(front);
    m_mapButtons->button(m_mapStack->currentIndex())->setChecked(true);
    m_mapsPage->setUpdatesEnabled(true);
    if (focused && focused != QApplication::focusWidget() && focused->isVisible())
        focused->setFocus(Qt::OtherFocusReason);
}

void ModelView::scheduleMapArrangement()
{
    if (m_arrangePending)
        return;
    m_arrangePending = true;
    // After the layout has given the maps their sizes.
    QTimer::singleShot(0, this, [this] {
        m_arrangePending = false;
        arrangeMapsToFit();
    });
}

bool ModelView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_mapsPage
        && (event->type() == QEvent::Resize || (event->type() == QEvent::Show && m_arrangeWanted)))
        scheduleMapArrangement();
    return QWidget::eventFilter(watched, event);
}

QString ModelView::qkvSourceText() const
{
    if (!m_model || !m_trace)
        return QString();
    const Gpt2Config &c = m_model->config;
    const int n = int(m_trace->ids.size()), head = c.headDim();
    //: %1 tokens, %2 the layer, %3 the model's width, %4 a head's width.
    return tr("Self-attention: Q, K and V come from the same sequence, the %1 tokens' states after layer %2's "
              "first LayerNorm (%1 × %3), times this head's W_Q, W_K and W_V (%3 × %4 each): q, k and v are "
              "each %1 × %4. (In cross-attention Q would come from the decoder's tokens and K, V from the "
              "encoder's.)")
        .arg(n)
        .arg(m_layer + 1)
        .arg(c.nEmbd)
        .arg(head);
}

HeatmapData ModelView::qkvData(int which) const
{
    HeatmapData d;
    if (!m_trace || !m_headScenario)
        return d;
    const HeadActivations &h = m_trace->layers[std::size_t(m_layer)].heads[std::size_t(m_head)];
    const Matrix &m = which == 0 ? h.q : which == 1 ? h.k : h.v;
    d.values = m;
    d.rowLabels = toQStringList(m_headScenario->tokens);
    d.rowAxisLabel = tr("tokens");
    d.colAxisLabel = tr("dimension of the head");
    const QString name = which == 0 ? QStringLiteral("q") : which == 1 ? QStringLiteral("k") : QStringLiteral("v");
    d.title = tr("%1 of layer %2, head %3 (%4 × %5)").arg(name).arg(m_layer + 1).arg(m_head + 1).arg(m.rows()).arg(m.cols());
    d.colorBarLabel = name;
    d.scale = HeatmapScale::Diverging;
    if (which > 0)
        markCache(d); // what a KV cache holds: the keys and the values
    return d;
}

void ModelView::markCache(HeatmapData &d) const
{
    // The rows the forward took from the previous one (typing at the end,
    // a generation step): only the rest was computed.
    if (!m_trace || m_trace->reused <= 0 || d.values.rows() != Eigen::Index(m_trace->ids.size()))
        return;
    d.rowNotes.clear();
    for (Eigen::Index i = 0; i < d.values.rows(); ++i)
        d.rowNotes << (i < m_trace->reused ? tr("cached") : tr("new"));
    d.rowNotesLabel = tr("KV cache");
    d.rowNotesLegend = tr("cached: the row was kept from the previous forward; new: computed for this one");
}

void ModelView::updatePredictions()
{
    const std::vector<Prediction> &next = m_trace->next;
    const bool rowsChanged = m_predictions->rowCount() != int(next.size());
    if (rowsChanged)
        m_predictions->setRowCount(int(next.size()));
    // The items stay; only what changed is set (each set repaints the table).
    auto setText = [](QTableWidgetItem *item, const QString &text) {
        if (item->text() != text)
            item->setText(text);
    };
    for (int i = 0; i < int(next.size()); ++i) {
        const Prediction &p = next[std::size_t(i)];
        QTableWidgetItem *token = m_predictions->item(i, 0);
        QTableWidgetItem *prob = m_predictions->item(i, 1);
        if (!token) {
            token = new QTableWidgetItem;
            m_predictions->setItem(i, 0, token);
        }
        if (!prob) {
            prob = new QTableWidgetItem;
            prob->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            prob->setForeground(QColor(0x1a, 0x1a, 0x1a));
            m_predictions->setItem(i, 1, prob);
        }
        setText(token, tokenPlain(p.text));
        const QString tip = tr("piece %1, id %2").arg(utf8(m_model->tokenizer.piece(p.id))).arg(p.id);
        if (token->toolTip() != tip)
            token->setToolTip(tip);
        setText(prob, QLocale::c().toString(p.p, 'f', 4));
        if (prob->data(Qt::UserRole).toDouble() != p.p)
            prob->setData(Qt::UserRole, p.p);
    }
    if (rowsChanged || m_predictions->maximumHeight() >= QWIDGETSIZE_MAX) {
        const int h = m_predictions->horizontalHeader()->height() + 2 * m_predictions->frameWidth()
            + m_predictions->verticalHeader()->length();
        m_predictions->setFixedHeight(std::max(h, fontMetrics().height() * 4));
    }
}

std::vector<HeatmapPlot *> ModelView::plots() const
{
    std::vector<HeatmapPlot *> out(std::begin(m_stagePlots), std::end(m_stagePlots));
    out.insert(out.end(), std::begin(m_qkvPlots), std::end(m_qkvPlots));
    return out;
}

std::vector<QWidget *> ModelView::figureWidgets() const
{
    std::vector<QWidget *> out;
    for (HeatmapPlot *p : plots())
        out.push_back(p);
    out.push_back(m_grid);
    return out;
}

std::optional<ModelFigure> ModelView::figureOf(const QWidget *w) const
{
    for (int i = 0; i < 5; ++i)
        if (w == m_stagePlots[i])
            return ModelFigure(i);
    for (int i = 0; i < 3; ++i)
        if (w == m_qkvPlots[i])
            return ModelFigure(int(ModelFigure::Q) + i);
    if (w == m_grid)
        return ModelFigure::Overview;
    return std::nullopt;
}

QString ModelView::figureStem(ModelFigure what) const
{
    const QString name = m_model ? m_model->name : QStringLiteral("model");
    if (what == ModelFigure::Overview)
        return name + QStringLiteral("_overview");
    static const char *keys[] = {"scores", "scaled", "masked", "weights", "output", "q", "k", "v"};
    return QStringLiteral("%1_L%2H%3_%4").arg(name).arg(m_layer + 1).arg(m_head + 1).arg(QLatin1String(keys[int(what)]));
}

QByteArray ModelView::figure(ModelFigure what, const FigureStyle &style, FigureFormat format, const FigureSize &size) const
{
    if (!m_trace || !m_headScenario)
        return {};
    if (what == ModelFigure::Overview)
        return renderHeadGrid(overviewData(true), sequentialGradient(style.sequential), m_layer, m_head, format, size);
    if (int(what) < 5) {
        FigureStyle s = style;
        s.stage.head = 0;
        s.stage.sharedScoreRange = false; // as the screen: each map on its own range
        auto plot = makeStagePlot(*m_headScenario, m_headTrace, kStages[int(what)], s);
        HeatmapData d = plot->data();
        if (d.scale == HeatmapScale::Diverging)
            d.range = 0;
        d.title = tr("%1 · layer %2, head %3").arg(m_model->name).arg(m_layer + 1).arg(m_head + 1) + QLatin1Char('\n') + d.title;
        plot->setData(d);
        return renderFigure(plot.get(), format, size);
    }
    HeatmapPlot plot;
    plot.setAttribute(Qt::WA_DontShowOnScreen);
    plot.setFont(figureFont());
    plot.setSequentialGradient(sequentialGradient(style.sequential));
    plot.setDivergingGradient(divergingGradient(style.diverging));
    plot.setCellText(style.cellText);
    HeatmapData d = qkvData(int(what) - int(ModelFigure::Q));
    d.title = m_model->name + QStringLiteral(" · ") + d.title;
    plot.setData(d);
    plot.resize(std::max(1, size.width), std::max(1, size.height));
    return renderFigure(&plot, format, size);
}

QString ModelView::kindName(HeadKind kind)
{
    switch (kind) {
    case HeadKind::PreviousToken:
        return tr("previous token");
    case HeadKind::FirstToken:
        return tr("first token (sink)");
    case HeadKind::Self:
        return tr("self");
    case HeadKind::Induction:
        return tr("induction");
    case HeadKind::DuplicateToken:
        //: A head whose rows look at earlier copies of their own token.
        return tr("duplicate token");
    case HeadKind::Broad:
        return tr("broad");
    case HeadKind::Focused:
        //: A head that reads few keys, none of them a fixed position (not the previous, first or same token).
        return tr("focused");
    case HeadKind::TooShort:
        return tr("too short to tell");
    }
    return {};
}

QString ModelView::scoresText(const HeadScores &s)
{
    auto line = [](const QString &name, const HeadScore &score) {
        return tr("%1: %2 (uniform %3)").arg(name, fixed2(score.score), fixed2(score.uniform));
    };
    QStringList lines;
    lines << line(kindName(HeadKind::PreviousToken), s.previousToken) << line(kindName(HeadKind::FirstToken), s.firstToken)
          << line(kindName(HeadKind::Self), s.self);
    if (s.induction.defined())
        lines << line(kindName(HeadKind::Induction), s.induction);
    else
        lines << tr("induction: no token of this text repeats an earlier one");
    if (s.duplicate.defined())
        lines << line(kindName(HeadKind::DuplicateToken), s.duplicate);
    else
        lines << tr("duplicate token: no token of this text repeats");
    lines << tr("spread (entropy ÷ ln open keys): %1 (uniform 1.00) · largest weight %2").arg(fixed2(s.spread), fixed2(s.maxWeight));
    lines << tr("mean entropy %1 nats").arg(fixed2(s.meanEntropy));
    lines << tr("The label: the highest score that is at least %1 and %2 times its uniform; "
                "with none, broad (spread at least %3) or focused")
                 .arg(fixed2(kMinScore), QLocale::c().toString(kMinRatio, 'g', 3), fixed2(kBroadSpread));
    return lines.join(QLatin1Char('\n'));
}

QString ModelView::modelSummary() const
{
    if (!m_model)
        return tr("No model open: Lessons ▸ A real transformer, or File ▸ Open model…");
    const Gpt2Config &c = m_model->config;
    const QString where = m_model->folder == QLatin1String(kBuiltinModelFolder) ? tr("built-in") : m_model->folder;
    return tr("%1 (%2) · %3 layers × %4 heads · n_embd %5 · %6 parameters · %7")
        .arg(m_model->name, where)
        .arg(c.nLayer)
        .arg(c.nHead)
        .arg(c.nEmbd)
        .arg(QLocale().toString(qlonglong(m_model->parameters)))
        .arg(utf8(m_model->dtype));
}

bool ModelView::isKnockedOut(int layer, int head) const
{
    return std::any_of(m_ablations.begin(), m_ablations.end(),
                       [&](const HeadAblation &a) { return a.layer == layer && a.head == head; });
}

void ModelView::setAblations(std::vector<HeadAblation> ablations)
{
    m_ablations = std::move(ablations);
    m_probeLoss.reset();
    m_probeProblem.clear();
    if (m_model && !m_ablations.empty()) {
        // The loss on the probe's second copies (what the first copy gives away), with every head and without these.
        const auto probe = repeatedProbe(m_model->config.vocabSize, kProbeSeed);
        const auto with = repeatLoss(*m_model, probe), without = repeatLoss(*m_model, probe, m_ablations);
        if (const Problem *p = with.ok() ? without.problem() : with.problem())
            m_probeProblem = problemText(*p);
        else
            m_probeLoss = std::pair{with.value(), without.value()};
    }
    m_scoresDirty = true;
    m_trace.reset(); // every position again, with or without the heads
    recompute();
    if (m_tabs->currentIndex() == 2)
        updateScoresTable();
}

void ModelView::knockOut(int layer, int head, bool mean)
{
    if (!m_model || layer < 0 || layer >= m_model->config.nLayer || head < 0 || head >= m_model->config.nHead)
        return;
    std::vector<HeadAblation> next;
    for (const HeadAblation &a : m_ablations)
        if (a.layer != layer || a.head != head)
            next.push_back(a);
    HeadAblation a{layer, head, {}};
    if (mean) {
        const auto means = meanHeadOutputs(*m_model, repeatedProbe(m_model->config.vocabSize, kProbeSeed));
        if (const Problem *p = means.problem()) {
            m_problem->setText(problemText(*p));
            m_problem->show();
            return;
        }
        a.mean = means.value()[std::size_t(layer)][std::size_t(head)];
    }
    next.push_back(std::move(a));
    setAblations(std::move(next));
}

void ModelView::bringBack(int layer, int head)
{
    std::vector<HeadAblation> next;
    for (const HeadAblation &a : m_ablations)
        if (a.layer != layer || a.head != head)
            next.push_back(a);
    setAblations(std::move(next));
}

void ModelView::showGridMenu(const QPoint &pos)
{
    const auto [layer, head] = m_grid->cellAt(pos);
    QMenu menu;
    QAction *zero = nullptr, *mean = nullptr, *back = nullptr, *all = nullptr;
    if (layer >= 0 && head >= 0 && m_trace) {
        if (isKnockedOut(layer, head)) {
            back = menu.addAction(tr("Bring layer %1, head %2 back").arg(layer + 1).arg(head + 1));
        } else {
            zero = menu.addAction(tr("Knock out layer %1, head %2: its output set to zero").arg(layer + 1).arg(head + 1));
            mean = menu.addAction(tr("Knock out layer %1, head %2: its output replaced by its mean over the probe")
                                      .arg(layer + 1)
                                      .arg(head + 1));
        }
    }
    if (!m_ablations.empty())
        all = menu.addAction(tr("Bring every head back"));
    menu.addSeparator();
    QAction *exportFigure = menu.addAction(tr("Export figure…"));
    exportFigure->setEnabled(m_headScenario.has_value());
    QAction *chosen = menu.exec(m_grid->mapToGlobal(pos));
    if (!chosen)
        return;
    if (chosen == zero || chosen == mean)
        knockOut(layer, head, chosen == mean);
    else if (chosen == back)
        bringBack(layer, head);
    else if (chosen == all)
        setAblations({});
    else if (chosen == exportFigure)
        emit exportRequested(ModelFigure::Overview);
}

void ModelView::updateAblationNote()
{
    if (m_ablations.empty() || !m_model) {
        m_ablationNote->hide();
        m_ablationNote->clear();
        m_nextTitle->setText(tr("<b>Next token</b> after the last position (top 5)"));
        return;
    }
    QStringList names;
    for (const HeadAblation &a : m_ablations)
        names << (a.mean.size() ? tr("layer %1, head %2 (its mean)") : tr("layer %1, head %2 (zero)")).arg(a.layer + 1).arg(a.head + 1);
    m_nextTitle->setText(tr("<b>Next token</b> after the last position (top 5), <b>without</b> %1").arg(names.join(tr("; "))));
    QStringList whole;
    for (const Prediction &p : m_intactNext)
        whole << QStringLiteral("%1 %2").arg(tokenPlain(p.text).toHtmlEscaped(), QLocale::c().toString(p.p, 'f', 4));
    QString text = tr("With every head: %1").arg(whole.join(QStringLiteral(" · ")));
    if (m_probeLoss)
        text += QStringLiteral("<br>")
            + tr("Loss on the probe's second copies (random tokens said twice: what the first copy gives away): "
                 "%1 nats with every head, %2 without")
                  .arg(QLocale::c().toString(m_probeLoss->first, 'f', 3), QLocale::c().toString(m_probeLoss->second, 'f', 3));
    else if (!m_probeProblem.isEmpty())
        text += QStringLiteral("<br>") + m_probeProblem.toHtmlEscaped();
    text += QStringLiteral("<br>") + tr("Right-click a head in the grid to bring it back.");
    m_ablationNote->setText(text);
    m_ablationNote->show();
}

void ModelView::updateScoresTable()
{
    if (!m_model)
        return;
    m_scoresDirty = false;
    const auto scored = probeScores(*m_model, repeatedProbe(m_model->config.vocabSize, kProbeSeed), m_ablations);
    QString title = tr("Every head's scores over the standard probe: %1 random token sequences of %2, each said twice "
                       "(seed %3). Each is a mean weight, beside its uniform baseline in brackets. Click a column to "
                       "sort; double-click a row to show that head.")
                        .arg(kProbeSequences)
                        .arg(kProbeLength)
                        .arg(kProbeSeed);
    if (!m_ablations.empty())
        title += QLatin1Char(' ') + tr("These are the scores with the knocked-out heads removed.");
    m_scoresTitle->setText(title);
    const bool sorting = m_scoresTable->isSortingEnabled();
    m_scoresTable->setSortingEnabled(false);
    if (const Problem *p = scored.problem()) {
        m_scoresTable->setRowCount(0);
        m_scoresTitle->setText(problemText(*p));
        m_probeScores.clear();
        m_scoresTable->setSortingEnabled(sorting);
        return;
    }
    m_probeScores = scored.value();
    const int heads = m_model->config.nHead;
    m_scoresTable->setRowCount(int(m_probeScores.size()));
    for (int i = 0; i < int(m_probeScores.size()); ++i) {
        const HeadScores &s = m_probeScores[std::size_t(i)];
        // The layer column sorts by layer, then head: the table's first order.
        auto number = [&](int col, int v, double key) {
            auto *item = new ScoreItem(QString::number(v));
            item->setData(Qt::UserRole, key);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_scoresTable->setItem(i, col, item);
        };
        number(0, i / heads + 1, i);
        number(1, i % heads + 1, i % heads);
        auto *label = new QTableWidgetItem(isKnockedOut(i / heads, i % heads) ? tr("✕ knocked out") : kindName(s.kind));
        label->setToolTip(scoresText(s));
        m_scoresTable->setItem(i, 2, label);
        const HeadScore *cols[] = {&s.previousToken, &s.firstToken, &s.self, &s.induction, &s.duplicate};
        for (int c = 0; c < 5; ++c) {
            const HeadScore &h = *cols[c];
            auto *item = new ScoreItem(h.defined() ? tr("%1 (%2)").arg(fixed2(h.score), fixed2(h.uniform)) : tr("—"));
            item->setData(Qt::UserRole, h.defined() ? h.score : -1.0);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (h.clear())
                item->setFont([f = m_scoresTable->font()]() mutable { f.setBold(true); return f; }());
            m_scoresTable->setItem(i, 3 + c, item);
        }
    }
    m_scoresTable->setSortingEnabled(sorting);
}

void ModelView::retranslate()
{
    m_modelLine->setText(modelSummary());
    m_back->setText(tr("Back to the lab"));
    retranslateMapPicker();
    m_back->setToolTip(tr("Leave the model mode; the lab's document is as you left it"));
    m_sentenceLabel->setText(tr("&Sentence:"));
    m_sentence->setPlaceholderText(tr("Type a sentence; the model reads it as you type"));
    if (!m_trace)
        setHeldText(m_tokensTitle, tr("Tokens:"));
    else
        setHeldText(m_tokensTitle, tr("Tokens (%1):").arg(m_trace->texts.size()));
    m_overviewTitle->setText(tr("<b>Every layer × head</b>: the softmax weights (click one to show it)"));
    m_nextTitle->setText(tr("<b>Next token</b> after the last position (top 5)"));
    m_predictions->setHorizontalHeaderLabels({tr("token"), tr("probability")});
    m_layerLabel->setText(tr("&Layer"));
    m_headLabel->setText(tr("&Head"));
    m_take->setText(tr("Take this head into the lab"));
    m_take->setToolTip(tr("The head's q, k and v for this sentence become the lab's Q, K and V (causal, scaled by √d_k): "
                          "one step you can undo"));
    m_tabs->setTabText(0, tr("Scores → weights → output"));
    m_tabs->setTabText(1, tr("Q, K, V"));
    m_tabs->setTabText(2, tr("Head scores"));
    m_tabs->setTabText(3, tr("Sinks"));
    m_tabs->setTabToolTip(3, tr("Attention sinks: each head's weight on the first token, and a sliding window with and without "
                                "the first tokens kept (StreamingLLM)"));
    m_scoresTable->setHorizontalHeaderLabels({tr("layer"), tr("head"), tr("label"), kindName(HeadKind::PreviousToken),
                                              kindName(HeadKind::FirstToken), kindName(HeadKind::Self),
                                              kindName(HeadKind::Induction), kindName(HeadKind::DuplicateToken)});
    m_scoresDirty = true;
    updateAblationNote();
    if (m_model && !m_live) {
        const double macs = keyMultiplyAdds(m_model->config, 32);
        m_slowNote->setText(tr("This model is big: a key typed at the end of a 32-token sentence takes about %1 million "
                               "multiply-adds, even with the earlier positions kept (GPT-2 small: 210 million). Typing "
                               "would lag, so the views are recomputed when you press Enter or pause typing.")
                                .arg(QLocale().toString(macs / 1e6, 'f', 0)));
    }
    if (m_trace && m_headScenario) {
        // The kind line and the maps' titles are in the language too.
        updateHead();
        updateOverview();
    }
    if (m_tabs->currentIndex() == 2)
        updateScoresTable();
}

void ModelView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    if (event->type() == QEvent::FontChange)
        scheduleMapArrangement();
    QWidget::changeEvent(event);
}

} // namespace attn
