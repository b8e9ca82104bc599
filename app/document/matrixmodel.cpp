#include "matrixmodel.h"

#include "formula.h"
#include "matrixio.h"
#include "validate.h"

#include <QColor>
#include <QFont>
#include <QLocale>

#include <cmath>

namespace attn {

namespace {

QString exact(double v)
{
    return QString::fromStdString(shortest(v));
}

// Faint tints that tell the heads' column blocks apart.
QColor headTint(int head)
{
    return head % 2 == 0 ? QColor(0, 0, 0, 0) : QColor(90, 120, 200, 28);
}

} // namespace

QString headColumnName(int col, int heads, int width)
{
    if (heads <= 1 || width <= 0)
        return QStringLiteral("d%1").arg(col + 1);
    return QStringLiteral("h%1·%2").arg(col / width + 1).arg(col % width + 1);
}

MatrixModel::MatrixModel(Document *doc, MatrixId id, QObject *parent)
    : QAbstractTableModel(parent), m_doc(doc), m_id(id)
{
    if (isPresent()) {
        m_rows = int(matrix(doc->scenario(), id).rows());
        m_cols = int(matrix(doc->scenario(), id).cols());
    }
    connect(doc, &Document::changed, this, &MatrixModel::onDocumentChanged);
    connect(doc, &Document::hoverChanged, this, &MatrixModel::onHoverChanged);
    connect(doc, &Document::currentChanged, this, &MatrixModel::onCurrentChanged);
    m_query = doc->currentQuery();
}

bool MatrixModel::rowIsQuery(int row) const
{
    if (!rowsAreTokens() || row < 0 || row >= m_rows)
        return false;
    return tokenSide(m_id) == Side::Query || sharesTokens(m_doc->scenario());
}

QString MatrixModel::cellPlace(int row, int col) const
{
    return tr("%1 row %2, column %3").arg(QLatin1String(matrixName(m_id)), rowPlace(row)).arg(col + 1);
}

QString MatrixModel::rowPlace(int row) const
{
    // A token row is named by its token, as the class sees it on the maps;
    // a token that occurs twice also gets its number.
    if (rowsAreTokens() && row >= 0 && row < m_rows) {
        const QString label = rowName(row);
        if (!label.isEmpty()) {
            int same = 0;
            for (int r = 0; r < m_rows; ++r)
                same += rowName(r) == label;
            //: A token row of a table: "我", or "the" (token 4) when the token occurs twice.
            return same == 1 ? tr("“%1”").arg(label) : tr("“%1” (token %2)").arg(label).arg(row + 1);
        }
    }
    return QString::number(row + 1);
}

std::optional<QString> MatrixModel::refuse(const QModelIndex &at, const QString &message)
{
    emit refused(at, message);
    return message;
}

std::optional<QString> MatrixModel::paste(const QModelIndex &topLeft, const QString &text)
{
    if (!isPresent() || m_rows == 0 || m_cols == 0)
        return refuse(topLeft, tr("There is no table to paste into"));
    const int top = topLeft.isValid() ? topLeft.row() : 0;
    const int left = topLeft.isValid() ? topLeft.column() : 0;
    const std::vector<QStringList> cells = splitTabSeparated(text);
    if (cells.empty())
        return refuse(topLeft, tr("The clipboard holds no cells to paste"));
    const int rows = int(cells.size());
    const int cols = int(cells.front().size());
    for (int r = 1; r < rows; ++r)
        if (cells[std::size_t(r)].size() != cols)
            return refuse(topLeft, tr("Line %1 of the pasted text has %2 cells and line 1 has %3; a rectangular block is needed")
                                       .arg(r + 1)
                                       .arg(cells[std::size_t(r)].size())
                                       .arg(cols));
    const QString name = QLatin1String(matrixName(m_id));
    if (top + rows > m_rows || left + cols > m_cols)
        return refuse(topLeft, tr("A block of %1 by %2 cells pasted at %3 runs past the edge of %4, which is %5 by %6; nothing was pasted")
                                   .arg(rows)
                                   .arg(cols)
                                   .arg(cellPlace(top, left), name)
                                   .arg(m_rows)
                                   .arg(m_cols));
    Scenario next = m_doc->scenario();
    Matrix &m = matrix(next, m_id);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const Result<double> v = parseNumber(cells[std::size_t(r)][c]);
            std::optional<Problem> why;
            if (const Problem *p = v.problem())
                why = *p;
            else
                why = checkEntry(matrixName(m_id), top + r, left + c, v.value());
            if (why)
                return refuse(index(top + r, left + c), tr("%1: %2; nothing was pasted")
                                                            .arg(cellPlace(top + r, left + c), QString::fromStdString(why->message)));
            m(top + r, left + c) = v.value();
        }
    if (m == matrix(m_doc->scenario(), m_id))
        return std::nullopt;
    const QString what = rows * cols == 1 ? tr("Paste into %1").arg(cellPlace(top, left))
                                          : tr("Paste %1 by %2 cells into %3 at row %4, column %5").arg(rows).arg(cols).arg(name, rowPlace(top)).arg(left + 1);
    // A refusal of the scenario as a whole is reported by the document itself.
    if (auto p = m_doc->edit(next, what))
        return problemText(*p);
    return std::nullopt;
}

QString MatrixModel::copy(int r0, int c0, int r1, int c1) const
{
    if (!isPresent() || m_rows == 0 || m_cols == 0)
        return {};
    r0 = std::clamp(r0, 0, m_rows - 1);
    r1 = std::clamp(r1, r0, m_rows - 1);
    c0 = std::clamp(c0, 0, m_cols - 1);
    c1 = std::clamp(c1, c0, m_cols - 1);
    return matrixToTabSeparated(matrix(m_doc->scenario(), m_id).block(r0, c0, r1 - r0 + 1, c1 - c0 + 1));
}

Matrix MatrixModel::values() const
{
    return isPresent() ? matrix(m_doc->scenario(), m_id) : Matrix();
}

std::optional<QString> MatrixModel::replaceAll(const Matrix &values, const QString &source)
{
    const QString name = QLatin1String(matrixName(m_id));
    if (!isPresent())
        return refuse(QModelIndex(), tr("This lesson has no %1").arg(name));
    if (values.rows() != m_rows || values.cols() != m_cols)
        return refuse(QModelIndex(), tr("%1 holds %2 by %3 numbers, but %4 is %5 by %6; nothing was imported")
                                         .arg(source)
                                         .arg(values.rows())
                                         .arg(values.cols())
                                         .arg(name)
                                         .arg(m_rows)
                                         .arg(m_cols));
    for (int r = 0; r < m_rows; ++r)
        for (int c = 0; c < m_cols; ++c)
            if (auto why = checkEntry(matrixName(m_id), r, c, values(r, c)))
                return refuse(index(r, c), tr("%1 (from %2): %3; nothing was imported")
                                               .arg(cellPlace(r, c), source, QString::fromStdString(why->message)));
    if (values == matrix(m_doc->scenario(), m_id))
        return std::nullopt;
    Scenario next = m_doc->scenario();
    matrix(next, m_id) = values;
    if (auto p = m_doc->edit(next, tr("Import %1 from %2").arg(name, source)))
        return problemText(*p);
    return std::nullopt;
}

bool MatrixModel::isPresent() const
{
    return matrixPresent(m_doc->scenario(), m_id);
}

int MatrixModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_rows;
}

int MatrixModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_cols;
}

QVariant MatrixModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !isPresent())
        return {};
    const double v = matrix(m_doc->scenario(), m_id)(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole:
        return QString::fromStdString(compact(v));
    case Qt::EditRole:
        return exact(v);
    case Qt::ToolTipRole:
        return tr("%1 = %2").arg(QStringLiteral("%1[%2][%3]").arg(QLatin1String(matrixName(m_id))).arg(index.row()).arg(index.column()), exact(v));
    case Qt::TextAlignmentRole:
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::BackgroundRole: {
        const Scenario &s = m_doc->scenario();
        if (rowsAreTokens()) {
            const int hovered = tokenSide(m_id) == Side::Query ? m_doc->hoveredRow() : m_doc->hoveredColumn();
            if (hovered == index.row())
                return QColor(255, 200, 0, 90);
        }
        int width = 0;
        if (m_id == MatrixId::Q || m_id == MatrixId::K || m_id == MatrixId::Wq || m_id == MatrixId::Wk)
            width = headDim(s);
        else if (m_id == MatrixId::V || m_id == MatrixId::Wv)
            width = headValueDim(s);
        if (s.heads > 1 && width > 0)
            return headTint(index.column() / width);
        return {};
    }
    default:
        return {};
    }
}

Result<double> MatrixModel::parseNumber(const QString &text)
{
    auto refuse = [](const QString &why) { return Problem{"", why.toStdString()}; };
    QString t = text.trimmed();
    t.replace(QChar(0x2212), QLatin1Char('-')); // the minus sign a formula shows
    if (t.isEmpty())
        return refuse(tr("a number is needed here"));
    bool ok = false;
    double v = QLocale::c().toDouble(t, &ok);
    if (!ok && !std::isinf(v))
        v = QLocale().toDouble(t, &ok);
    // Qt reads "nan" and "inf" as numbers, and "1e999" as infinity that is not ok.
    if (std::isnan(v) || std::isinf(v) || t.contains(QLatin1String("infinity"), Qt::CaseInsensitive))
        return refuse(tr("\"%1\" is not a finite number").arg(text));
    if (!ok)
        return refuse(tr("\"%1\" is not a number").arg(text));
    return v;
}

bool MatrixModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid) || !isPresent())
        return false;
    const QString where = cellPlace(index.row(), index.column());
    const Result<double> parsed = parseNumber(value.toString());
    std::optional<Problem> why;
    if (const Problem *p = parsed.problem())
        why = *p;
    else
        why = checkEntry(matrixName(m_id), index.row(), index.column(), parsed.value());
    const double old = matrix(m_doc->scenario(), m_id)(index.row(), index.column());
    if (why) {
        // Refused before the document saw it: said here, at the cell.
        emit refused(index, tr("%1: %2; it stays %3").arg(where, QString::fromStdString(why->message), exact(old)));
        return false;
    }
    const double v = parsed.value();
    if (v == old)
        return true;
    Eigen::RowVectorXd row = matrix(m_doc->scenario(), m_id).row(index.row());
    row(index.column()) = v;
    // A refusal from the document (the scenario as a whole) is reported by
    // the document itself, once.
    return !m_doc->setRow(m_id, index.row(), row, tr("Set %1 to %2").arg(where, exact(v))).has_value();
    return true;
}

QString MatrixModel::rowName(int row) const
{
    const Scenario &s = m_doc->scenario();
    if (rowsAreTokens()) {
        const auto labels = tokenSide(m_id) == Side::Query ? queryLabels(s) : keyLabels(s);
        return row < int(labels.size()) ? QString::fromStdString(labels[std::size_t(row)]) : QString();
    }
    if (m_id == MatrixId::Wo)
        return headColumnName(row, s.heads, headValueDim(s));
    return QStringLiteral("e%1").arg(row + 1); // a dimension of the embedding
}

QString MatrixModel::columnName(int col) const
{
    const Scenario &s = m_doc->scenario();
    switch (m_id) {
    case MatrixId::Q:
    case MatrixId::K:
    case MatrixId::Wq:
    case MatrixId::Wk:
        return headColumnName(col, s.heads, headDim(s));
    case MatrixId::V:
    case MatrixId::Wv:
        return headColumnName(col, s.heads, headValueDim(s));
    case MatrixId::X:
    case MatrixId::Source:
        return QStringLiteral("e%1").arg(col + 1);
    case MatrixId::Wo:
        return QStringLiteral("o%1").arg(col + 1);
    }
    return {};
}

QVariant MatrixModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    const int count = orientation == Qt::Vertical ? m_rows : m_cols;
    if (section < 0 || section >= count)
        return {};
    if (role == Qt::DisplayRole || role == Qt::EditRole)
        return orientation == Qt::Vertical ? rowName(section) : columnName(section);
    if (role == Qt::ToolTipRole && orientation == Qt::Vertical && rowsAreTokens())
        return rowIsQuery(section) ? tr("Token %1: click to select this query, double-click to rename").arg(section + 1)
                                   : tr("Token %1: double-click to rename").arg(section + 1);
    if (role == Qt::FontRole && orientation == Qt::Vertical && rowIsQuery(section) && section == m_doc->currentQuery()) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::BackgroundRole && orientation == Qt::Vertical && rowsAreTokens()) {
        const int hovered = tokenSide(m_id) == Side::Query ? m_doc->hoveredRow() : m_doc->hoveredColumn();
        if (hovered == section)
            return QColor(255, 200, 0, 120);
    }
    return {};
}

bool MatrixModel::setHeaderData(int section, Qt::Orientation orientation, const QVariant &value, int role)
{
    if (orientation != Qt::Vertical || role != Qt::EditRole || !rowsAreTokens() || section < 0 || section >= m_rows)
        return false;
    const QString label = value.toString().trimmed();
    if (label.isEmpty()) {
        emit refused(QModelIndex(), tr("A token needs a label; token %1 keeps its name").arg(section + 1));
        return false;
    }
    if (label == rowName(section))
        return true;
    // Said here, in the table's words, before the document would name it "tokens[0]".
    if (const auto n = label.toUcs4().size(); n > kMaxLabelCharacters) {
        emit refused(QModelIndex(), tr("A token name can have at most %1 characters (this one has %2); token %3 keeps its name")
                                        .arg(kMaxLabelCharacters)
                                        .arg(n)
                                        .arg(section + 1));
        return false;
    }
    const Scenario next = renameToken(m_doc->scenario(), tokenSide(m_id), section, label.toStdString());
    return !m_doc->edit(next, tr("Rename token %1 to %2").arg(rowName(section), label)).has_value();
}

Qt::ItemFlags MatrixModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable;
}

void MatrixModel::onDocumentChanged(const DocumentChange &what)
{
    const bool present = isPresent();
    const int rows = present ? int(matrix(m_doc->scenario(), m_id).rows()) : 0;
    const int cols = present ? int(matrix(m_doc->scenario(), m_id).cols()) : 0;
    if (rows != m_rows || cols != m_cols || what.has(ChangeKind::Shape)) {
        beginResetModel();
        m_rows = rows;
        m_cols = cols;
        endResetModel();
        return;
    }
    if (m_rows == 0 || m_cols == 0)
        return;
    if (what.isRowChange()) {
        // A drag or a typed cell: only those rows of that matrix.
        if (*what.matrix == m_id)
            emit dataChanged(index(what.firstRow, 0), index(what.firstRow + what.rowCount - 1, m_cols - 1));
    } else if (what.any(ChangeKind::Values | ChangeKind::Settings)) {
        emit dataChanged(index(0, 0), index(m_rows - 1, m_cols - 1));
    }
    if (what.has(ChangeKind::Labels))
        emit headerDataChanged(Qt::Vertical, 0, m_rows - 1);
}

void MatrixModel::onCurrentChanged()
{
    const int query = m_doc->currentQuery();
    if (query == m_query)
        return;
    m_query = query;
    if (rowsAreTokens() && m_rows > 0)
        emit headerDataChanged(Qt::Vertical, 0, m_rows - 1);
}

void MatrixModel::onHoverChanged()
{
    if (!rowsAreTokens() || m_rows == 0 || m_cols == 0)
        return;
    emit dataChanged(index(0, 0), index(m_rows - 1, m_cols - 1), {Qt::BackgroundRole});
    emit headerDataChanged(Qt::Vertical, 0, m_rows - 1);
}

} // namespace attn
