#include "matrixpanel.h"
#include "sentencepanel.h"

#include "matrixmodel.h"
#include "matrixio.h"

#include <QAction>
#include <QApplication>
#include <QButtonGroup>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QEvent>
#include <QCheckBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMainWindow>
#include <QRadioButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyledItemDelegate>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <functional>
#include <limits>

namespace attn {

namespace {

// A block of cells on the clipboard (more than one value): it belongs in
// the table, even while a cell's editor is open.
bool clipboardHoldsBlock()
{
    const QString text = QApplication::clipboard()->text().trimmed();
    return text.contains(QLatin1Char('\t')) || text.contains(QLatin1Char('\n'));
}

// The cells' editor, which hands Ctrl+V with a block on the clipboard to
// the table (one undo step at the edited cell) instead of typing the tabs
// and lines into one cell. A single number still pastes into the editor.
class CellDelegate : public QStyledItemDelegate {
public:
    CellDelegate(std::function<void()> pasteBlock, QObject *parent)
        : QStyledItemDelegate(parent), m_pasteBlock(std::move(pasteBlock))
    {
    }

protected:
    bool eventFilter(QObject *object, QEvent *event) override
    {
        const bool key = event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress;
        auto *editor = qobject_cast<QWidget *>(object);
        if (key && editor && static_cast<QKeyEvent *>(event)->matches(QKeySequence::Paste) && clipboardHoldsBlock()) {
            event->accept();
            if (event->type() == QEvent::KeyPress) {
                emit closeEditor(editor, QAbstractItemDelegate::RevertModelCache);
                m_pasteBlock();
            }
            return true;
        }
        return QStyledItemDelegate::eventFilter(object, event);
    }

private:
    std::function<void()> m_pasteBlock;
};

QString tabTitle(MatrixId id)
{
    switch (id) {
    case MatrixId::Source:
        return MatrixPanel::tr("S (source)");
    case MatrixId::Wq:
        return QStringLiteral("W_Q");
    case MatrixId::Wk:
        return QStringLiteral("W_K");
    case MatrixId::Wv:
        return QStringLiteral("W_V");
    case MatrixId::Wo:
        return QStringLiteral("W_O");
    default:
        return QLatin1String(matrixName(id));
    }
}

QString tabToolTip(MatrixId id)
{
    switch (id) {
    case MatrixId::Q:
        return MatrixPanel::tr("Queries: one row per token that asks, h·d_k columns");
    case MatrixId::K:
        return MatrixPanel::tr("Keys: one row per token that is looked at, h·d_k columns");
    case MatrixId::V:
        return MatrixPanel::tr("Values: one row per key token, h·d_v columns; the output averages them");
    case MatrixId::X:
        return MatrixPanel::tr("Embeddings X: one row per token, d_model columns");
    case MatrixId::Source:
        return MatrixPanel::tr("Source sequence S for cross-attention: keys and values come from it");
    case MatrixId::Wq:
        return MatrixPanel::tr("Query projection: Q = X·W_Q (d_model × h·d_k)");
    case MatrixId::Wk:
        return MatrixPanel::tr("Key projection: K = S·W_K (d_model × h·d_k)");
    case MatrixId::Wv:
        return MatrixPanel::tr("Value projection: V = S·W_V (d_model × h·d_v)");
    case MatrixId::Wo:
        return MatrixPanel::tr("Output projection: output = concat·W_O (h·d_v × d_out)");
    }
    return {};
}

QToolButton *toolButton(const QString &text, const QString &tip, QWidget *parent)
{
    auto *b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(false);
    return b;
}

} // namespace

MatrixPanel::MatrixPanel(Document *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    auto *layout = new QVBoxLayout(this);

    auto *modeRow = new QHBoxLayout;
    m_mode = new QButtonGroup(this);
    auto *direct = new QRadioButton(tr("&Direct Q, K, V"), this);
    auto *projected = new QRadioButton(tr("&Projected X·W"), this);
    direct->setToolTip(tr("Edit the queries, keys and values themselves"));
    projected->setToolTip(tr("Edit token embeddings X and the projections W_Q, W_K, W_V (and W_O)"));
    m_mode->addButton(direct, int(InputMode::Direct));
    m_mode->addButton(projected, int(InputMode::Projected));
    modeRow->addWidget(direct);
    modeRow->addWidget(projected);
    modeRow->addStretch();
    layout->addLayout(modeRow);

    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    layout->addWidget(m_tabs, 1);

    auto *tokenRow = new QHBoxLayout;
    tokenRow->addWidget(new QLabel(tr("Tokens:"), this));
    m_add = toolButton(tr("+ Add"), tr("Add a token after the current row (Ctrl+T)"), this);
    m_remove = toolButton(tr("− Remove"), tr("Remove the current row's token (Ctrl+Shift+T)"), this);
    m_up = toolButton(QStringLiteral("↑"), tr("Move the current token up (Alt+Up)"), this);
    m_down = toolButton(QStringLiteral("↓"), tr("Move the current token down (Alt+Down)"), this);
    for (QToolButton *b : {m_add, m_remove, m_up, m_down})
        tokenRow->addWidget(b);
    tokenRow->addStretch();
    m_import = toolButton(tr("Import…"), tr("Replace the table shown with the numbers of a .csv or .npy file of the same shape"), this);
    m_export = toolButton(tr("Export…"), tr("Write the table shown to a .csv or .npy file"), this);
    tokenRow->addWidget(m_import);
    tokenRow->addWidget(m_export);
    layout->addLayout(tokenRow);

    auto *dims = new QGridLayout;
    auto spin = [this](int lo, int hi, const QString &tip) {
        auto *s = new QSpinBox(this);
        s->setRange(lo, hi);
        s->setToolTip(tip);
        s->setKeyboardTracking(false); // one edit per value, not per keystroke
        return s;
    };
    m_dk = spin(1, kMaxWidth, tr("d_k: the width of one head's queries and keys"));
    m_dv = spin(1, kMaxWidth, tr("d_v: the width of one head's values"));
    m_dModel = spin(1, kMaxWidth, tr("d_model: the width of the embeddings X"));
    m_dOut = spin(1, kMaxWidth, tr("d_out: the width of the output after W_O"));
    auto *dkLabel = new QLabel(tr("d_&k"), this);
    dkLabel->setBuddy(m_dk);
    auto *dvLabel = new QLabel(tr("d_&v"), this);
    dvLabel->setBuddy(m_dv);
    m_dModelLabel = new QLabel(tr("d_&model"), this);
    m_dModelLabel->setBuddy(m_dModel);
    m_wo = new QCheckBox(tr("W_&O, d_out"), this);
    m_wo->setToolTip(tr("Project the concatenated heads with W_O; d_out is its width"));
    dims->addWidget(dkLabel, 0, 0);
    dims->addWidget(m_dk, 0, 1);
    dims->addWidget(dvLabel, 0, 2);
    dims->addWidget(m_dv, 0, 3);
    dims->addWidget(m_dModelLabel, 1, 0);
    dims->addWidget(m_dModel, 1, 1);
    dims->addWidget(m_wo, 1, 2);
    dims->addWidget(m_dOut, 1, 3);
    dims->setColumnStretch(4, 1);
    layout->addLayout(dims);

    m_separate = new QCheckBox(tr("Separate key sequence (cross-&attention)"), this);
    m_separate->setToolTip(tr("Keys and values come from their own tokens instead of the queries' tokens"));
    layout->addWidget(m_separate);
    m_source = new QLabel(this);
    m_source->setObjectName(QStringLiteral("qkvSource"));
    m_source->setWordWrap(true);
    layout->addWidget(m_source);

    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_message->setVisible(false);
    layout->addWidget(m_message);
    // A sentence makes the tokens; Randomise fills the matrix shown.
    layout->addWidget(new SentencePanel(doc, [this] { return currentPage() ? currentPage()->id : MatrixId::Q; }, this));

    for (MatrixId id : {MatrixId::Q, MatrixId::K, MatrixId::V, MatrixId::X, MatrixId::Source, MatrixId::Wq,
                        MatrixId::Wk, MatrixId::Wv, MatrixId::Wo}) {
        auto *model = new MatrixModel(doc, id, this);
        auto *view = new QTableView(this);
        view->setModel(model);
        view->setItemDelegate(new CellDelegate([this] { pasteClipboard(); }, view));
        view->setToolTip(tabToolTip(id));
        view->setWordWrap(false);
        view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
        view->verticalHeader()->setSectionsClickable(true);
        view->setSelectionMode(QAbstractItemView::ContiguousSelection); // a block to copy
        view->setEditTriggers(QAbstractItemView::AllEditTriggers);
        view->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(view, &QWidget::customContextMenuRequested, this,
                [this, view](const QPoint &at) { showContextMenu(view, at); });
        // While a cell is being edited its line edit keeps Ctrl+C and Ctrl+V for its own text
        // (CellDelegate hands a pasted block to the table).
        auto *copy = new QAction(tr("&Copy"), view);
        copy->setShortcut(QKeySequence::Copy);
        copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(copy, &QAction::triggered, this, &MatrixPanel::copySelection);
        auto *paste = new QAction(tr("&Paste"), view);
        paste->setShortcut(QKeySequence::Paste);
        paste->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(paste, &QAction::triggered, this, &MatrixPanel::pasteClipboard);
        view->addAction(copy);
        view->addAction(paste);
        // A query's row header selects that query, as a row label of the maps does.
        connect(view->verticalHeader(), &QHeaderView::sectionClicked, this, [this, model](int section) {
            if (model->rowIsQuery(section))
                m_doc->setCurrentQuery(section);
        });
        connect(model, &MatrixModel::refused, this, [this, view](const QModelIndex &at, const QString &why) {
            showMessage(why, at, view);
            // The panel's own line may be out of sight below the tables: the status bar says it too.
            if (auto *main = qobject_cast<QMainWindow *>(window()))
                main->statusBar()->showMessage(why, 10000);
        });
        connect(view->verticalHeader(), &QHeaderView::sectionDoubleClicked, this,
                [this, view](int section) { editHeader(view, section); });
        connect(model, &QAbstractItemModel::modelReset, this, [this, view] { sizeColumns(view); });
        m_pages.push_back({id, model, view});
    }

    connect(m_mode, &QButtonGroup::idClicked, this, [this](int id) { setMode(InputMode(id)); });
    connect(m_add, &QToolButton::clicked, this, &MatrixPanel::addToken);
    connect(m_remove, &QToolButton::clicked, this, &MatrixPanel::removeToken);
    connect(m_up, &QToolButton::clicked, this, [this] { moveToken(-1); });
    connect(m_down, &QToolButton::clicked, this, [this] { moveToken(+1); });
    connect(m_import, &QToolButton::clicked, this, &MatrixPanel::importWithDialog);
    connect(m_export, &QToolButton::clicked, this, &MatrixPanel::exportWithDialog);
    connect(m_dk, &QSpinBox::valueChanged, this, [this](int v) {
        if (v != headDim(m_doc->scenario()))
            apply(setHeadDim(m_doc->scenario(), v), tr("Set d_k to %1").arg(v));
    });
    connect(m_dv, &QSpinBox::valueChanged, this, [this](int v) {
        if (v != headValueDim(m_doc->scenario()))
            apply(setHeadValueDim(m_doc->scenario(), v), tr("Set d_v to %1").arg(v));
    });
    connect(m_dModel, &QSpinBox::valueChanged, this, [this](int v) {
        if (v != modelWidth(m_doc->scenario()))
            apply(setModelDim(m_doc->scenario(), v), tr("Set d_model to %1").arg(v));
    });
    connect(m_dOut, &QSpinBox::valueChanged, this, [this](int v) {
        const Scenario &s = m_doc->scenario();
        if (s.Wo && v != s.Wo->cols())
            apply(setOutputDim(s, v), tr("Set d_out to %1").arg(v));
    });
    connect(m_wo, &QCheckBox::toggled, this, [this](bool on) {
        const Scenario &s = m_doc->scenario();
        if (on == s.Wo.has_value())
            return;
        if (on)
            apply(setOutputDim(s, valueWidth(s)), tr("Add W_O"));
        else
            apply(removeOutputProjection(s), tr("Remove W_O"));
    });
    connect(m_separate, &QCheckBox::toggled, this, [this](bool on) {
        const Scenario &s = m_doc->scenario();
        if (on == !sharesTokens(s))
            return;
        if (!on && s.mode == InputMode::Direct && queryCount(s) != keyCount(s)) {
            showMessage(tr("Self-attention needs as many keys as queries (now n_q = %1, n_k = %2); add or remove tokens first")
                            .arg(queryCount(s))
                            .arg(keyCount(s)));
            syncControls();
            return;
        }
        apply(setSeparateKeys(s, on), on ? tr("Separate key sequence") : tr("Self-attention"));
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { syncControls(); });
    connect(doc, &Document::changed, this, [this](const DocumentChange &what) {
        if (what.has(ChangeKind::Shape))
            rebuildTabs();
        syncControls();
    });
    connect(doc, &Document::problemReported, this, [this](const QString &why) { showMessage(why); });

    rebuildTabs();
    syncControls();
    keepTableInView();
}

QTableView *MatrixPanel::table(MatrixId id) const
{
    for (const Page &p : m_pages)
        if (p.id == id)
            return matrixPresent(m_doc->scenario(), id) ? p.view : nullptr;
    return nullptr;
}

MatrixModel *MatrixPanel::model(MatrixId id) const
{
    for (const Page &p : m_pages)
        if (p.id == id)
            return p.model;
    return nullptr;
}

void MatrixPanel::showMatrix(MatrixId id)
{
    if (QTableView *v = table(id))
        m_tabs->setCurrentWidget(v);
}

void MatrixPanel::copySelection()
{
    const Page *p = currentPage();
    if (!p)
        return;
    int r0 = 0, c0 = 0, r1 = p->model->rowCount() - 1, c1 = p->model->columnCount() - 1;
    // The selection's ranges, not its indexes: Ctrl+A on a 4096-row table
    // is one range, not millions of QModelIndex.
    const QItemSelection selected = p->view->selectionModel()->selection();
    if (!selected.isEmpty()) {
        r0 = c0 = std::numeric_limits<int>::max();
        r1 = c1 = -1;
        for (const QItemSelectionRange &range : selected) {
            r0 = std::min(r0, range.top());
            r1 = std::max(r1, range.bottom());
            c0 = std::min(c0, range.left());
            c1 = std::max(c1, range.right());
        }
    }
    if (r1 < 0 || c1 < 0)
        return;
    QApplication::clipboard()->setText(p->model->copy(r0, c0, r1, c1));
}

void MatrixPanel::pasteClipboard()
{
    const Page *p = currentPage();
    if (!p)
        return;
    // The block starts at the top left of the selection, or at the current cell.
    QModelIndex at = p->view->currentIndex();
    const QModelIndexList selected = p->view->selectionModel()->selectedIndexes();
    if (!selected.isEmpty()) {
        int r = selected.front().row(), c = selected.front().column();
        for (const QModelIndex &i : selected) {
            r = std::min(r, i.row());
            c = std::min(c, i.column());
        }
        at = p->model->index(r, c);
    }
    if (!at.isValid())
        at = p->model->index(0, 0);
    if (p->model->paste(at, QApplication::clipboard()->text()))
        return; // refused: shown by the model's refused() signal
    showMessage(QString());
}

std::optional<QString> MatrixPanel::importFile(const QString &path)
{
    const Page *p = currentPage();
    if (!p)
        return tr("There is no table to import into");
    const Result<Matrix> m = loadMatrixFile(path);
    if (const Problem *why = m.problem()) {
        const QString text = tr("Nothing was imported: %1").arg(QString::fromStdString(why->toString()));
        showMessage(text);
        return text;
    }
    if (auto refused = p->model->replaceAll(m.value(), QFileInfo(path).fileName()))
        return refused;
    showMessage(QString());
    return std::nullopt;
}

std::optional<QString> MatrixPanel::exportFile(const QString &path)
{
    const Page *p = currentPage();
    if (!p)
        return tr("There is no table to export");
    if (auto why = saveMatrixFile(path, p->model->values())) {
        const QString text = tr("Nothing was written: %1").arg(QString::fromStdString(why->toString()));
        showMessage(text);
        return text;
    }
    return std::nullopt;
}

namespace {

QString matrixFilters()
{
    return MatrixPanel::tr("Matrices (*.csv *.npy);;CSV, comma separated (*.csv);;NumPy array (*.npy)");
}

} // namespace

void MatrixPanel::importWithDialog()
{
    const Page *p = currentPage();
    if (!p)
        return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Import %1").arg(tabTitle(p->id)), QString(), matrixFilters());
    if (!path.isEmpty())
        importFile(path);
}

void MatrixPanel::exportWithDialog()
{
    const Page *p = currentPage();
    if (!p)
        return;
    QString filter;
    QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(tabTitle(p->id)),
                                                QLatin1String(matrixName(p->id)) + QStringLiteral(".csv"), matrixFilters(), &filter);
    if (path.isEmpty())
        return;
    if (!matrixFormatOf(path))
        path += filter.contains(QLatin1String("*.npy")) && !filter.contains(QLatin1String("*.csv")) ? QStringLiteral(".npy")
                                                                                                   : QStringLiteral(".csv");
    exportFile(path);
}

void MatrixPanel::showContextMenu(QTableView *view, const QPoint &at)
{
    QMenu menu(view);
    for (QAction *a : view->actions())
        menu.addAction(a);
    menu.addSeparator();
    menu.addAction(tr("&Import from .csv or .npy…"), this, &MatrixPanel::importWithDialog);
    menu.addAction(tr("&Export to .csv or .npy…"), this, &MatrixPanel::exportWithDialog);
    menu.exec(view->viewport()->mapToGlobal(at));
}

QString MatrixPanel::message() const
{
    return m_message->text();
}

void MatrixPanel::rebuildTabs()
{
    const MatrixId current = currentPage() ? currentPage()->id : MatrixId::Q;
    m_tabs->blockSignals(true);
    while (m_tabs->count())
        m_tabs->removeTab(0);
    for (const Page &p : m_pages) {
        p.view->hide(); // a removed page stays a child of the tab widget
        if (matrixPresent(m_doc->scenario(), p.id)) {
            const int at = m_tabs->addTab(p.view, tabTitle(p.id));
            m_tabs->setTabToolTip(at, tabToolTip(p.id));
            sizeColumns(p.view);
        }
    }
    showMatrix(current);
    m_tabs->blockSignals(false);
    if (m_tabs->currentWidget())
        m_tabs->currentWidget()->show();
}

const MatrixPanel::Page *MatrixPanel::currentPage() const
{
    for (const Page &p : m_pages)
        if (p.view == m_tabs->currentWidget())
            return &p;
    return nullptr;
}

bool MatrixPanel::apply(const Scenario &next, const QString &description)
{
    if (m_doc->edit(next, description)) {
        syncControls(); // refused: the spin box or switch goes back to what the document holds
        return false;
    }
    return true;
}

QString MatrixPanel::sourceText(const Scenario &s)
{
    const int nq = queryCount(s), nk = keyCount(s), dk = keyWidth(s), dv = valueWidth(s), d = modelWidth(s);
    if (s.mode == InputMode::Projected)
        return sharesTokens(s)
                   //: %1 tokens, %2 d_model, %3 the width of Q and K, %4 of V.
                   ? tr("Self-attention: Q = X·W_Q, K = X·W_K and V = X·W_V all come from the same X (%1 × %2): Q and K "
                        "are %1 × %3, V is %1 × %4.")
                         .arg(nq).arg(d).arg(dk).arg(dv)
                   //: %1 query tokens, %2 key tokens, %3 d_model, %4 the width of Q and K, %5 of V.
                   : tr("Cross-attention: Q = X·W_Q comes from the queries' sequence X (%1 × %3), K = S·W_K and V = "
                        "S·W_V from the source S (%2 × %3): Q is %1 × %4, K %2 × %4, V %2 × %5.")
                         .arg(nq).arg(nk).arg(d).arg(dk).arg(dv);
    if (sharesTokens(s))
        //: %1 tokens, %2 the width of Q and K, %3 of V.
        return tr("Self-attention: Q, K and V belong to the same tokens: Q and K are %1 × %2, V is %1 × %3.")
            .arg(nq).arg(dk).arg(dv);
    // Keys with tokens of their own, written directly: seed 000's one word
    // against its sentence is one of these, so it is not called cross-attention.
    //: %1 queries, %2 keys, %3 the width of Q and K, %4 of V.
    return tr("Q holds the queries (%1 × %3); K and V hold the keys and their values (%2 × %3 and %2 × %4), each "
              "with tokens of its own.")
        .arg(nq).arg(nk).arg(dk).arg(dv);
}

void MatrixPanel::syncControls()
{
    const Scenario &s = m_doc->scenario();
    const bool projected = s.mode == InputMode::Projected;
    const QSignalBlocker b1(m_dk), b2(m_dv), b3(m_dModel), b4(m_dOut), b5(m_wo), b6(m_separate);
    m_mode->button(int(s.mode))->setChecked(true);
    m_dk->setValue(headDim(s));
    m_dv->setValue(headValueDim(s));
    m_dModel->setValue(std::max(1, modelWidth(s)));
    m_dModel->setVisible(projected);
    m_dModelLabel->setVisible(projected);
    m_wo->setVisible(projected);
    m_wo->setChecked(s.Wo.has_value());
    m_dOut->setVisible(projected);
    m_dOut->setEnabled(s.Wo.has_value());
    m_dOut->setValue(s.Wo ? int(s.Wo->cols()) : valueWidth(s));
    m_separate->setChecked(!sharesTokens(s));
    m_source->setText(sourceText(s));

    const Page *p = currentPage();
    const bool tokens = p && rowsAreTokens(p->id);
    for (QToolButton *b : {m_add, m_remove, m_up, m_down})
        b->setEnabled(tokens);
    if (!tokens)
        m_add->setToolTip(tr("Pick Q, K, V, X or S to edit tokens"));
}

void MatrixPanel::showMessage(const QString &text, const QModelIndex &at, QTableView *view)
{
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
    if (view && at.isValid()) {
        const QRect cell = view->visualRect(at);
        QToolTip::showText(view->viewport()->mapToGlobal(cell.bottomLeft()), text, view->viewport(), cell, 6000);
    }
}

void MatrixPanel::editHeader(QTableView *view, int section)
{
    auto *model = qobject_cast<MatrixModel *>(view->model());
    if (!model || !model->rowsAreTokens())
        return;
    QHeaderView *header = view->verticalHeader();
    auto *editor = new QLineEdit(header->viewport());
    editor->setText(model->headerData(section, Qt::Vertical).toString());
    editor->selectAll();
    const int y = header->sectionViewportPosition(section);
    editor->setGeometry(0, y, std::max(header->width(), 80), header->sectionSize(section));
    editor->show();
    editor->setFocus();
    connect(editor, &QLineEdit::editingFinished, this, [model, editor, section] {
        if (!editor->property("done").toBool()) {
            editor->setProperty("done", true);
            model->setHeaderData(section, Qt::Vertical, editor->text());
            editor->deleteLater();
        }
    });
}

void MatrixPanel::sizeColumns(QTableView *view)
{
    // Wide enough for any value the table writes ("−0.0000"), in the font of
    // the moment, so a drag never wraps or elides a cell.
    const int width = view->fontMetrics().horizontalAdvance(QStringLiteral("−00.0000")) + 12;
    view->horizontalHeader()->setMinimumSectionSize(width / 2);
    view->horizontalHeader()->setDefaultSectionSize(width);
    for (int c = 0; c < view->model()->columnCount(); ++c)
        view->setColumnWidth(c, width);
}

void MatrixPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        for (const Page &p : m_pages)
            sizeColumns(p.view);
        keepTableInView();
    }
}

void MatrixPanel::keepTableInView()
{
    // The table keeps its header and two rows in view, whatever the
    // settings under it take at a projector's zoom: the panel's scroll area
    // scrolls instead of squeezing the table to nothing.
    const QTableView *view = m_pages.front().view;
    const int rows = 2 * view->verticalHeader()->defaultSectionSize();
    m_tabs->setMinimumHeight(m_tabs->tabBar()->sizeHint().height() + view->horizontalHeader()->sizeHint().height() + rows
                             + 2 * view->frameWidth() + 4);
}

void MatrixPanel::setMode(InputMode mode)
{
    const Scenario &s = m_doc->scenario();
    if (mode == s.mode)
        return;
    // Read before the switch: `s` refers to the document's scenario, which the switch replaces.
    const bool additive = s.encoding == Encoding::Sinusoidal || s.encoding == Encoding::Learned;
    const bool hadWo = s.Wo.has_value();
    if (mode == InputMode::Projected) {
        if (!apply(toProjected(s), tr("Switch to projected mode")))
            return;
        showMessage(additive ? tr("Projected mode: X is one-hot and W_Q, W_K, W_V hold the old Q, K, V. The positional "
                                  "encoding is now added to X, so the numbers change.")
                             : tr("Projected mode: X is one-hot and W_Q, W_K, W_V hold the old Q, K, V, so every "
                                  "number stays the same."));
    } else {
        if (!apply(toDirect(s), tr("Switch to direct mode")))
            return;
        showMessage(hadWo ? tr("Direct mode keeps the computed Q, K and V; W_O is dropped.")
                         : tr("Direct mode keeps the computed Q, K and V."));
    }
}

void MatrixPanel::addToken()
{
    const Page *p = currentPage();
    if (!p || !rowsAreTokens(p->id))
        return;
    const Scenario &s = m_doc->scenario();
    const Side side = tokenSide(p->id);
    const int n = int(matrix(s, p->id).rows());
    const int current = p->view->currentIndex().isValid() ? p->view->currentIndex().row() : n - 1;
    const int at = std::clamp(current + 1, 0, n);
    const QString label = side == Side::Query || sharesTokens(s) ? tr("t%1").arg(n + 1) : tr("k%1").arg(n + 1);
    if (!m_doc->edit(insertToken(s, side, at, label.toStdString()), tr("Add token %1").arg(label)))
        p->view->setCurrentIndex(p->model->index(at, 0));
}

void MatrixPanel::removeToken()
{
    const Page *p = currentPage();
    if (!p || !rowsAreTokens(p->id))
        return;
    const Scenario &s = m_doc->scenario();
    const int n = int(matrix(s, p->id).rows());
    if (n <= 1) {
        showMessage(tr("The last token cannot be removed: attention needs at least one query and one key"));
        return;
    }
    const int at = p->view->currentIndex().isValid() ? p->view->currentIndex().row() : n - 1;
    const QString name = p->model->headerData(at, Qt::Vertical).toString();
    if (!m_doc->edit(attn::removeToken(s, tokenSide(p->id), at), tr("Remove token %1").arg(name)))
        p->view->setCurrentIndex(p->model->index(std::min(at, n - 2), 0));
}

void MatrixPanel::moveToken(int delta)
{
    const Page *p = currentPage();
    if (!p || !rowsAreTokens(p->id) || !p->view->currentIndex().isValid())
        return;
    const Scenario &s = m_doc->scenario();
    const int n = int(matrix(s, p->id).rows());
    const QModelIndex cur = p->view->currentIndex();
    const int to = cur.row() + delta;
    if (to < 0 || to >= n)
        return;
    const QString name = p->model->headerData(cur.row(), Qt::Vertical).toString();
    if (!m_doc->edit(attn::moveToken(s, tokenSide(p->id), cur.row(), to), tr("Move token %1").arg(name)))
        p->view->setCurrentIndex(p->model->index(to, cur.column()));
}

} // namespace attn
