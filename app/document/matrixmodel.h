#pragma once
// One matrix of the document (Q, K, V, X, source, Wq, Wk, Wv or Wo) as a
// table. The model owns no numbers: data() reads the document, setData()
// asks the document for an undoable edit, and the model follows the
// document's changed() signal.

#include "document.h"
#include "edit.h"
#include "result.h"

#include <QAbstractTableModel>

namespace attn {

class MatrixModel : public QAbstractTableModel {
    Q_OBJECT

public:
    MatrixModel(Document *doc, MatrixId id, QObject *parent = nullptr);

    MatrixId matrixId() const { return m_id; }
    bool isPresent() const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool setHeaderData(int section, Qt::Orientation orientation, const QVariant &value,
                       int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

    // Parses what a user typed: a finite number, "." as the decimal point
    // (the locale's too), "−" as a minus sign. Returns the reason on failure.
    static Result<double> parseNumber(const QString &text);

    // Rows are tokens (Q, K, V, X, source) or dimensions (the Ws).
    bool rowsAreTokens() const { return attn::rowsAreTokens(m_id); }

signals:
    // A typed value was refused; nothing changed. The message says where and why.
    void refused(const QModelIndex &index, const QString &message);

private:
    void onDocumentChanged(const DocumentChange &what);
    void onHoverChanged();
    QString columnName(int col) const;
    QString rowName(int row) const;

    Document *m_doc;
    MatrixId m_id;
    int m_rows = 0;
    int m_cols = 0;
};

// "h1·2": the column's head and the dimension within the head, or "d2"
// for a single head. `width` is the per-head width.
QString headColumnName(int col, int heads, int width);

} // namespace attn
