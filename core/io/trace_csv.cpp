#include "trace_csv.h"

#include "atomicwrite.h"
#include "explain.h"
#include "formula.h"

#include <QDir>

namespace attn {

namespace {

// A label as a CSV field: quoted when it must be, and a leading = + - @
// made text with an apostrophe, so a spreadsheet never runs it as a formula.
QString csvField(QString s)
{
    if (!s.isEmpty() && QStringLiteral("=+-@\t\r").contains(s.front()))
        s.prepend(QLatin1Char('\''));
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n'))
        || s.contains(QLatin1Char('\r')))
        return QLatin1Char('"') + QString(s).replace(QLatin1Char('"'), QLatin1String("\"\"")) + QLatin1Char('"');
    return s;
}

// Built as UTF-8 bytes directly, each number appended in place: a map of
// 8 million cells takes its own size (about 20 bytes a cell), not the
// three times more a QString and its conversion would. `m` is a Matrix or
// anything with rows(), cols() and m(i, j) (the scaled stage, derived).
template <typename M>
QByteArray csv(const M &m, const QStringList &rows, const QStringList &cols, const BoolMatrix *blocked = nullptr)
{
    QByteArray out;
    out.reserve(qsizetype(m.rows()) * (m.cols() + 1) * 24 + 4096);
    // The byte order mark tells Excel the file is UTF-8 (Chinese labels).
    out += "\xEF\xBB\xBF\"\"";
    for (const QString &c : cols)
        out += ',' + csvField(c).toUtf8();
    out += '\n';
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        out += csvField(rows.value(int(i))).toUtf8();
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            out += ',';
            if (blocked && (*blocked)(i, j)) {
                out += "-inf";
                continue;
            }
            const std::string n = shortest(m(i, j));
            out.append(n.data(), qsizetype(n.size()));
        }
        out += '\n';
    }
    return out;
}

// The scaled stage of a head, stored or derived, without an n_q by n_k copy.
struct ScaledStage {
    const HeadTrace &head;
    Eigen::Index rows() const { return head.scores.rows(); }
    Eigen::Index cols() const { return head.scores.cols(); }
    double operator()(Eigen::Index i, Eigen::Index j) const { return head.scaledAt(i, j); }
};

QStringList numbered(const QString &prefix, Eigen::Index n)
{
    QStringList out;
    for (Eigen::Index i = 0; i < n; ++i)
        out << prefix + QString::number(i + 1);
    return out;
}

QStringList toQStringList(const std::vector<std::string> &v)
{
    QStringList out;
    for (const std::string &s : v)
        out << QString::fromStdString(s);
    return out;
}

} // namespace

Result<QStringList> writeTraceCsv(const Scenario &s, const Trace &t, const QString &folder, const QString &stem,
                                  QStringList *replacedLinks)
{
    const QStringList rows = toQStringList(queryLabels(s)), keys = toQStringList(keyLabels(s));
    const int h = int(t.heads.size());
    QStringList written;
    std::optional<Problem> failed;
    // The bytes are made only when they will be written: after a failure
    // (a full disk) no more matrices are formatted for nothing.
    auto write = [&](const QString &name, const auto &bytes) {
        if (failed)
            return;
        const QString path = QDir(folder).filePath(name);
        // The program made these names: a link at one is replaced, not followed.
        QString link;
        WriteOptions options;
        options.replaceLink = true;
        options.replacedLink = &link;
        failed = writeFileAtomically(path, bytes(), options);
        if (!failed)
            written << path;
        if (!failed && !link.isEmpty() && replacedLinks)
            *replacedLinks << replacedLinkNote(path, link);
    };
    for (int i = 0; i < h; ++i) {
        const HeadTrace &ht = t.heads[std::size_t(i)];
        const QString suffix = h > 1 ? QStringLiteral("_head%1.csv").arg(i + 1) : QStringLiteral(".csv");
        write(stem + QStringLiteral("_scores") + suffix, [&] { return csv(ht.scores, rows, keys); });
        write(stem + QStringLiteral("_scaled") + suffix, [&] { return csv(ScaledStage{ht}, rows, keys); });
        // As the map shows it: blocked entries -inf, or, when the mask acts
        // after the softmax, the scores untouched (the mistake's point).
        const bool before = s.maskStage == MaskStage::BeforeSoftmax;
        write(stem + QStringLiteral("_masked") + suffix, [&] { return csv(ScaledStage{ht}, rows, keys, before ? &t.blocked : nullptr); });
        write(stem + QStringLiteral("_weights") + suffix, [&] { return csv(ht.weights, rows, keys); });
        write(stem + QStringLiteral("_output") + suffix, [&] { return csv(ht.output, rows, numbered(QStringLiteral("d"), ht.output.cols())); });
    }
    if (h > 1)
        write(stem + QStringLiteral("_concat.csv"), [&] { return csv(t.concat, rows, numbered(QStringLiteral("c"), t.concat.cols())); });
    if (h > 1 || t.output.cols() != t.concat.cols() || !(t.output == t.concat))
        write(stem + QStringLiteral("_final_output.csv"), [&] { return csv(t.output, rows, numbered(QStringLiteral("o"), t.output.cols())); });
    if (failed)
        return *failed;
    return written;
}

} // namespace attn
