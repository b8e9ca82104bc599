#pragma once
// The left panel: the input matrices as editable tables (Q, K, V in direct
// mode; X, source, Wq, Wk, Wv, Wo in projected mode), the token buttons and
// the dimension spin boxes. Every control asks the document for an edit.

#include "document.h"
#include "edit.h"

#include <QModelIndex>
#include <QWidget>

#include <optional>
#include <vector>

class QButtonGroup;
class QCheckBox;
class QLabel;
class QSpinBox;
class QTabWidget;
class QTableView;
class QToolButton;

namespace attn {

class MatrixModel;

class MatrixPanel : public QWidget {
    Q_OBJECT

public:
    explicit MatrixPanel(Document *doc, QWidget *parent = nullptr);

    // Where Q, K and V come from, with the shapes: self-attention (one
    // sequence) or cross-attention (K and V from another), direct or
    // projected. Shown under the cross-attention box.
    static QString sourceText(const Scenario &s);

    // The table showing `id`, or null when the scenario has no such matrix.
    QTableView *table(MatrixId id) const;
    MatrixModel *model(MatrixId id) const;
    void showMatrix(MatrixId id);

    // Token edits on the current table's side, at its current row.
    void addToken();
    void removeToken();
    void moveToken(int delta);

    // The current table's selection (its bounding block; the whole table
    // when nothing is selected) to the clipboard as tab-separated text.
    void copySelection();
    // The clipboard's tab-separated block into the current table at its
    // current cell, one undo step; a refusal is shown and nothing changes.
    void pasteClipboard();
    // The current table from or to a .csv or .npy file; the message of a
    // refusal or failure (also shown), or nothing. The dialogs call these.
    std::optional<QString> importFile(const QString &path);
    std::optional<QString> exportFile(const QString &path);
    void importWithDialog();
    void exportWithDialog();

    // The last refusal shown, for tests.
    QString message() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Page {
        MatrixId id;
        MatrixModel *model;
        QTableView *view;
    };

    void rebuildTabs();
    void sizeColumns(QTableView *view);
    void keepTableInView();
    void syncControls();
    // One edit from a control; false (and the control reset) when refused.
    bool apply(const Scenario &next, const QString &description);
    void showMessage(const QString &text, const QModelIndex &at = QModelIndex(), QTableView *view = nullptr);
    void editHeader(QTableView *view, int section);
    const Page *currentPage() const;
    void setMode(InputMode mode);
    void showContextMenu(QTableView *view, const QPoint &at);

    Document *m_doc;
    std::vector<Page> m_pages; // one per matrix kind, created once
    QButtonGroup *m_mode;
    QTabWidget *m_tabs;
    QToolButton *m_add, *m_remove, *m_up, *m_down, *m_import, *m_export;
    QSpinBox *m_dk, *m_dv, *m_dModel, *m_dOut;
    QLabel *m_dModelLabel;
    QCheckBox *m_wo, *m_separate;
    QLabel *m_message;
    QLabel *m_source;
};

} // namespace attn
