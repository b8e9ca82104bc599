#pragma once
// One matrix of the document (Q, K, V, X, source, Wq, Wk, Wv or Wo) as a
// table. The model owns no numbers: data() reads the document, setData()
// asks the document for an undoable edit, and the model follows the
// document's changed() signal.

#include "document.h"
#include "edit.h"
#include "result.h"

#include <QAbstractTableModel>

#include <optional>

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
    // Row `row` is a query's: Q and X, and K and V when the keys are the
    // queries' own tokens (self-attention). Clicking its header selects it.
    bool rowIsQuery(int row) const;

    // A spreadsheet's block (tab-separated text, rows by newline) written
    // from `topLeft` on as one undo step, every cell read as a typed one is.
    // Refused, with nothing changed, when a cell is not a number (the message
    // names the first such cell) or the block runs past the table's edge
    // (the message names both shapes); refused() is emitted with the message.
    std::optional<QString> paste(const QModelIndex &topLeft, const QString &text);
    // The cells from row r0, column c0 to r1, c1 (inclusive) as tab-separated
    // text, each number in its shortest exact form with an ASCII minus, so
    // that pasting it back gives the same doubles.
    QString copy(int r0, int c0, int r1, int c1) const;
    // The whole matrix replaced (an import), as one undo step. Refused when
    // the shape differs, the message naming both shapes, or when a value is
    // refused. `source` names where the values came from, for the undo text.
    std::optional<QString> replaceAll(const Matrix &values, const QString &source);
    // The whole matrix, for an export.
    Matrix values() const;

signals:
    // A typed value was refused; nothing changed. The message says where and why.
    void refused(const QModelIndex &index, const QString &message);

private:
    void onDocumentChanged(const DocumentChange &what);
    void onHoverChanged();
    QString columnName(int col) const;
    QString rowName(int row) const;
    QString cellPlace(int row, int col) const; // "K row “cat”, column 3"; "Wq row 2, column 3"
    QString rowPlace(int row) const;           // "“cat”", "“the” (token 4)" or "2"
    std::optional<QString> refuse(const QModelIndex &at, const QString &message);
    void onCurrentChanged();

    Document *m_doc;
    MatrixId m_id;
    int m_rows = 0;
    int m_cols = 0;
    int m_query = -1; // the selected query drawn in bold, as last announced
};

// "h1·2": the column's head and the dimension within the head, or "d2"
// for a single head. `width` is the per-head width.
QString headColumnName(int col, int heads, int width);

} // namespace attn
