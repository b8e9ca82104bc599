#include "matrixio.h"

#include "atomicwrite.h"
#include "numbers.h"
#include "trace_text.h"

#include <QFile>
#include <QFileInfo>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace attn {

std::string shapeText(Eigen::Index rows, Eigen::Index cols)
{
    return std::to_string(rows) + " by " + std::to_string(cols);
}

namespace {

std::string placeOf(qint64 row, qint64 col)
{
    return "row " + std::to_string(row + 1) + ", column " + std::to_string(col + 1);
}

// A cell's text for a message: quoted, control characters escaped, long text cut.
std::string quoted(QByteArrayView cell)
{
    std::string s(cell.data(), std::size_t(std::min<qsizetype>(cell.size(), 40)));
    if (cell.size() > 40)
        s += "…";
    std::string out(1, '\'');
    out += escapeControls(QString::fromUtf8(s.data(), qsizetype(s.size())).toStdString());
    out += '\'';
    return out;
}

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

QByteArrayView trimmed(QByteArrayView v)
{
    while (!v.isEmpty() && isBlank(v.front()))
        v = v.sliced(1);
    while (!v.isEmpty() && isBlank(v.back()))
        v.chop(1);
    return v;
}

// A whole cell as a finite double, or why not.
std::optional<std::string> parseCell(QByteArrayView cell, double &out)
{
    if (cell.isEmpty())
        return std::string("the cell is empty; a number is needed");
    QByteArrayView digits = cell;
    if (digits.front() == '+')
        digits = digits.sliced(1);
    const char *first = digits.data();
    const char *last = first + digits.size();
    if (digits.isEmpty() || *first == '+' || (digits.size() != cell.size() && *first == '-'))
        return quoted(cell) + " is not a number";
    const auto [end, ec] = std::from_chars(first, last, out, std::chars_format::general);
    if (end != last || (ec != std::errc() && ec != std::errc::result_out_of_range))
        return quoted(cell) + " is not a number";
    if (ec == std::errc::result_out_of_range)
        return quoted(cell) + " is out of the range of a double";
    if (!std::isfinite(out))
        return quoted(cell) + " is not a finite number";
    return std::nullopt;
}

// .npy header: a Python dict literal, read strictly.
class NpyHeader {
public:
    explicit NpyHeader(QByteArrayView text) : m_t(text) {}

    std::optional<std::string> parse()
    {
        skip();
        if (!eat('{'))
            return std::string("the header is not a Python dict: it does not start with '{'");
        bool haveDescr = false, haveOrder = false, haveShape = false;
        for (;;) {
            skip();
            if (eat('}'))
                break;
            std::string key;
            if (!readString(key))
                return "a key of the header's dict is not a quoted string" + at();
            skip();
            if (!eat(':'))
                return "':' expected after '" + key + "'" + at();
            skip();
            if (key == "descr") {
                if (haveDescr)
                    return std::string("'descr' is given twice");
                haveDescr = true;
                if (peek() == '[')
                    return std::string("the dtype is structured (a list of fields); only '<f4' and '<f8' are read");
                if (!readString(descr))
                    return "'descr' is not a quoted string" + at();
            } else if (key == "fortran_order") {
                if (haveOrder)
                    return std::string("'fortran_order' is given twice");
                haveOrder = true;
                if (word("True"))
                    fortran = true;
                else if (word("False"))
                    fortran = false;
                else
                    return "'fortran_order' is neither True nor False" + at();
            } else if (key == "shape") {
                if (haveShape)
                    return std::string("'shape' is given twice");
                haveShape = true;
                if (auto why = readShape())
                    return why;
            } else {
                return "the header has the key '" + escapeControls(key) + "'; only 'descr', 'fortran_order' and 'shape' are read";
            }
            skip();
            if (eat(','))
                continue;
            skip();
            if (eat('}'))
                break;
            return "',' or '}' expected" + at();
        }
        skip();
        if (m_pos != m_t.size())
            return "text after the header's dict" + at();
        if (!haveDescr || !haveOrder || !haveShape)
            return std::string("the header lacks '") + (!haveDescr ? "descr" : !haveOrder ? "fortran_order" : "shape") + "'";
        return std::nullopt;
    }

    std::string descr;
    bool fortran = false;
    std::vector<qint64> shape;

private:
    std::string at() const { return " (header byte " + std::to_string(m_pos + 1) + ")"; }
    char peek() const { return m_pos < m_t.size() ? m_t[m_pos] : '\0'; }
    bool eat(char c)
    {
        if (peek() != c || m_pos >= m_t.size())
            return false;
        ++m_pos;
        return true;
    }
    void skip()
    {
        while (m_pos < m_t.size() && (isBlank(m_t[m_pos]) || m_t[m_pos] == '\n' || m_t[m_pos] == '\r'))
            ++m_pos;
    }
    bool word(const char *w)
    {
        const qsizetype n = qsizetype(std::strlen(w));
        if (m_t.sliced(m_pos).startsWith(QByteArrayView(w, n))) {
            m_pos += n;
            return true;
        }
        return false;
    }
    bool readString(std::string &out)
    {
        const char q = peek();
        if (q != '\'' && q != '"')
            return false;
        const qsizetype start = ++m_pos;
        while (m_pos < m_t.size() && m_t[m_pos] != q) {
            if (m_t[m_pos] == '\\' || m_t[m_pos] == '\n')
                return false; // numpy never writes escapes in these strings
            ++m_pos;
        }
        if (m_pos >= m_t.size())
            return false;
        out.assign(m_t.data() + start, std::size_t(m_pos - start));
        ++m_pos;
        return true;
    }
    std::optional<std::string> readShape()
    {
        if (!eat('('))
            return "'shape' is not a tuple" + at();
        for (;;) {
            skip();
            if (eat(')'))
                return std::nullopt;
            qint64 n = 0;
            int digits = 0;
            while (peek() >= '0' && peek() <= '9' && m_pos < m_t.size()) {
                if (++digits > 12)
                    return "a dimension of 'shape' is too large" + at();
                n = n * 10 + (m_t[m_pos++] - '0');
            }
            if (digits == 0)
                return "a dimension of 'shape' is not a whole number" + at();
            if (shape.size() >= 32)
                return std::string("'shape' has more than 32 dimensions");
            shape.push_back(n);
            skip();
            if (eat(','))
                continue;
            skip();
            if (eat(')'))
                return std::nullopt;
            return "',' or ')' expected in 'shape'" + at();
        }
    }

    QByteArrayView m_t;
    qsizetype m_pos = 0;
};

std::uint64_t littleEndian(const unsigned char *p, int bytes)
{
    std::uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

} // namespace

Result<Matrix> matrixFromCsv(const QByteArray &bytes)
{
    QByteArrayView text(bytes);
    if (text.startsWith("\xEF\xBB\xBF"))
        text = text.sliced(3);
    std::vector<double> values;
    qint64 cols = -1, rows = 0;
    qint64 blankRun = 0; // blank lines waiting: an error if a row follows them
    qsizetype pos = 0;
    while (pos < text.size()) {
        qsizetype eol = text.indexOf('\n', pos);
        if (eol < 0)
            eol = text.size();
        QByteArrayView line = text.sliced(pos, eol - pos);
        pos = eol + 1;
        if (line.endsWith('\r'))
            line.chop(1);
        if (trimmed(line).isEmpty()) {
            ++blankRun;
            continue;
        }
        if (blankRun > 0)
            return Problem{"row " + std::to_string(rows + 1), "the line is empty; a row of numbers is needed"};
        qint64 col = 0;
        qsizetype start = 0;
        for (;;) {
            const qsizetype comma = line.indexOf(',', start);
            const QByteArrayView cell = trimmed(line.sliced(start, (comma < 0 ? line.size() : comma) - start));
            double v = 0;
            if (auto why = parseCell(cell, v))
                return Problem{placeOf(rows, col), *why};
            if (qint64(values.size()) >= kMaxMatrixCells)
                return Problem{placeOf(rows, col), "more than " + std::to_string(kMaxMatrixCells) + " values"};
            values.push_back(v);
            ++col;
            if (comma < 0)
                break;
            start = comma + 1;
        }
        if (cols < 0)
            cols = col;
        else if (col != cols)
            return Problem{"row " + std::to_string(rows + 1),
                           "it has " + std::to_string(col) + (col == 1 ? " value" : " values") + ", row 1 has "
                               + std::to_string(cols)};
        ++rows;
        blankRun = 0;
    }
    if (rows == 0)
        return Problem{"", "there are no numbers in it"};
    Matrix m(rows, cols);
    for (qint64 i = 0; i < rows; ++i)
        for (qint64 j = 0; j < cols; ++j)
            m(i, j) = values[std::size_t(i * cols + j)];
    return m;
}

QByteArray matrixToCsv(const Matrix &m)
{
    QByteArray out;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            if (j)
                out += ',';
            out += shortest(m(i, j));
        }
        out += '\n';
    }
    return out;
}

Result<Matrix> matrixFromNpy(const QByteArray &bytes)
{
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.constData());
    const qint64 size = bytes.size();
    if (size < 10 || std::memcmp(p, "\x93NUMPY", 6) != 0)
        return Problem{"header", "not a NumPy .npy file (it does not start with \\x93NUMPY)"};
    const int major = p[6], minor = p[7];
    if (major < 1 || major > 3 || minor != 0)
        return Problem{"header", "format version " + std::to_string(major) + "." + std::to_string(minor)
                                     + " is not read; versions 1.0, 2.0 and 3.0 are"};
    const int lengthBytes = major == 1 ? 2 : 4;
    if (size < 8 + lengthBytes)
        return Problem{"header", "the file ends inside the header's length"};
    const qint64 headerLength = qint64(littleEndian(p + 8, lengthBytes));
    if (headerLength > kMaxNpyHeader)
        return Problem{"header", "the header is " + std::to_string(headerLength) + " bytes, more than the limit of "
                                     + std::to_string(kMaxNpyHeader)};
    const qint64 dataStart = 8 + lengthBytes + headerLength;
    if (dataStart > size)
        return Problem{"header", "the header says it is " + std::to_string(headerLength)
                                     + " bytes long, but the file ends before that"};
    const QByteArrayView headerText(bytes.constData() + 8 + lengthBytes, headerLength);
    for (char c : headerText)
        if (static_cast<unsigned char>(c) >= 0x80 || (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\r' && c != '\t'))
            return Problem{"header", "the header holds a byte that is not printable ASCII"};
    NpyHeader h(headerText);
    if (auto why = h.parse())
        return Problem{"header", *why};

    int item = 0;
    if (h.descr == "<f8")
        item = 8;
    else if (h.descr == "<f4")
        item = 4;
    else {
        const std::string d = "the dtype '" + escapeControls(h.descr) + "' ";
        const char order = h.descr.empty() ? '\0' : h.descr[0];
        const std::string kind = h.descr.size() > 1 ? h.descr.substr(1) : std::string();
        if (order == '>' && (kind == "f4" || kind == "f8"))
            return Problem{"header", d + "is big-endian; only little-endian '<f4' and '<f8' are read"};
        if (!kind.empty() && kind[0] == 'f')
            return Problem{"header", d + "is a float of another width; only '<f4' and '<f8' are read"};
        if (!kind.empty() && (kind[0] == 'i' || kind[0] == 'u' || kind[0] == 'b'))
            return Problem{"header", d + "holds integers; only floats, '<f4' and '<f8', are read"};
        if (!kind.empty() && kind[0] == 'O')
            return Problem{"header", d + "holds Python objects; only '<f4' and '<f8' are read"};
        return Problem{"header", d + "is not read; only '<f4' and '<f8' are"};
    }

    if (h.shape.empty())
        return Problem{"header", "the array is a single number (shape ()); a 1-D or 2-D array is needed"};
    if (h.shape.size() > 2)
        return Problem{"header", "the array has " + std::to_string(h.shape.size())
                                     + " dimensions; a 1-D or 2-D array is needed"};
    const qint64 rows = h.shape.size() == 1 ? 1 : h.shape[0];
    const qint64 cols = h.shape.back();
    if (rows == 0 || cols == 0)
        return Problem{"header", "the array is empty (" + shapeText(rows, cols) + ")"};
    // Each dimension has at most 12 digits, so the product cannot overflow.
    if (rows > kMaxMatrixCells || cols > kMaxMatrixCells || rows * cols > kMaxMatrixCells)
        return Problem{"header", "the array is " + shapeText(rows, cols) + ", more than "
                                     + std::to_string(kMaxMatrixCells) + " values"};
    const qint64 expected = rows * cols * item;
    if (size - dataStart != expected)
        return Problem{"data", "the header says " + shapeText(rows, cols) + " values of " + std::to_string(item)
                                   + " bytes (" + std::to_string(expected) + " bytes), but " + std::to_string(size - dataStart)
                                   + " bytes follow it"};

    Matrix m(rows, cols);
    const unsigned char *data = p + dataStart;
    for (qint64 k = 0; k < rows * cols; ++k) {
        const std::uint64_t bits = littleEndian(data + k * item, item);
        const double v = item == 8 ? std::bit_cast<double>(bits) : double(std::bit_cast<float>(std::uint32_t(bits)));
        const qint64 i = h.fortran ? k % rows : k / cols;
        const qint64 j = h.fortran ? k / rows : k % cols;
        if (!std::isfinite(v))
            return Problem{placeOf(i, j), std::string(std::isnan(v) ? "NaN" : "infinity") + " is not a finite number"};
        m(i, j) = v;
    }
    return m;
}

QByteArray matrixToNpy(const Matrix &m)
{
    QByteArray header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + QByteArray::number(qint64(m.rows()))
                        + ", " + QByteArray::number(qint64(m.cols())) + "), }";
    // NumPy pads so that the data starts at a multiple of 64 bytes.
    const qsizetype total = 10 + header.size() + 1;
    header += QByteArray((64 - total % 64) % 64, ' ');
    header += '\n';
    QByteArray out("\x93NUMPY\x01\x00", 8);
    out += char(header.size() & 0xff);
    out += char((header.size() >> 8) & 0xff);
    out += header;
    out.reserve(out.size() + m.size() * 8);
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            std::uint64_t bits = std::bit_cast<std::uint64_t>(m(i, j));
            char b[8];
            for (char &c : b) {
                c = char(bits & 0xff);
                bits >>= 8;
            }
            out.append(b, 8);
        }
    return out;
}

std::optional<MatrixFormat> matrixFormatOf(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("csv"))
        return MatrixFormat::Csv;
    if (suffix == QLatin1String("npy"))
        return MatrixFormat::Npy;
    return std::nullopt;
}

Result<Matrix> loadMatrixFile(const QString &path)
{
    const std::string where = QFileInfo(path).filePath().toStdString();
    const auto format = matrixFormatOf(path);
    if (!format)
        return Problem{where, "a matrix file ends in .csv or .npy"};
    QFile file(path);
    if (QFileInfo::exists(path) && !QFileInfo(path).isFile())
        return Problem{where, "is not a file"};
    if (!file.open(QIODevice::ReadOnly))
        return Problem{where, "cannot be read: " + file.errorString().toStdString()};
    if (file.size() > kMaxMatrixFileBytes)
        return Problem{where, "is " + std::to_string(file.size()) + " bytes, more than the limit of "
                                  + std::to_string(kMaxMatrixFileBytes)};
    const QByteArray bytes = file.readAll();
    Result<Matrix> m = *format == MatrixFormat::Csv ? matrixFromCsv(bytes) : matrixFromNpy(bytes);
    if (const Problem *p = m.problem())
        return Problem{where, p->toString()};
    return m;
}

std::optional<Problem> saveMatrixFile(const QString &path, const Matrix &m)
{
    const auto format = matrixFormatOf(path);
    if (!format)
        return Problem{QFileInfo(path).filePath().toStdString(), "a matrix file ends in .csv or .npy"};
    return writeFileAtomically(path, *format == MatrixFormat::Csv ? matrixToCsv(m) : matrixToNpy(m));
}

std::vector<QStringList> splitTabSeparated(const QString &text)
{
    QString t = text;
    t.replace(QLatin1String("\r\n"), QLatin1String("\n"));
    t.replace(QLatin1Char('\r'), QLatin1Char('\n'));
    QStringList lines = t.split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.back().isEmpty())
        lines.pop_back();
    std::vector<QStringList> rows;
    rows.reserve(std::size_t(lines.size()));
    for (const QString &line : lines)
        rows.push_back(line.split(QLatin1Char('\t')));
    return rows;
}

QString matrixToTabSeparated(const Matrix &m)
{
    QString out;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            if (j)
                out += QLatin1Char('\t');
            out += QString::fromStdString(shortest(m(i, j)));
        }
        out += QLatin1Char('\n');
    }
    return out;
}

} // namespace attn
