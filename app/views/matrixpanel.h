#pragma once
// The left panel: the input matrices as editable tables (Q, K, V in direct
// mode; X, source, Wq, Wk, Wv, Wo in projected mode), the token buttons and
// the dimension spin boxes. Every control asks the document for an edit.

#include "document.h"
#include "edit.h"

#include <QModelIndex>
#include <QWidget>

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

    // The table showing `id`, or null when the scenario has no such matrix.
    QTableView *table(MatrixId id) const;
    MatrixModel *model(MatrixId id) const;
    void showMatrix(MatrixId id);

    // Token edits on the current table's side, at its current row.
    void addToken();
    void removeToken();
    void moveToken(int delta);

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
    void syncControls();
    // One edit from a control; false (and the control reset) when refused.
    bool apply(const Scenario &next, const QString &description);
    void showMessage(const QString &text, const QModelIndex &at = QModelIndex(), QTableView *view = nullptr);
    void editHeader(QTableView *view, int section);
    const Page *currentPage() const;
    void setMode(InputMode mode);

    Document *m_doc;
    std::vector<Page> m_pages; // one per matrix kind, created once
    QButtonGroup *m_mode;
    QTabWidget *m_tabs;
    QToolButton *m_add, *m_remove, *m_up, *m_down;
    QSpinBox *m_dk, *m_dv, *m_dModel, *m_dOut;
    QLabel *m_dModelLabel;
    QCheckBox *m_wo, *m_separate;
    QLabel *m_message;
};

} // namespace attn
