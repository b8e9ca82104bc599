#include "scenario_json.h"

#include "atomicwrite.h"
#include "formula.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <cmath>
#include <cstdlib>
#include <vector>
#include <optional>

namespace attn {

namespace {

// Qt's parser refuses NaN, Infinity and numbers that overflow a double with
// no more than an offset. Before parsing, each such bare token is swapped
// for a marked string, so that the reader below can name its place
// ("inputs.Q[0][1]: NaN is not a finite number").
const QString kNonFiniteMark = QStringLiteral("\u0001non-finite:");

bool isTokenChar(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' || c == '-'
        || c == '.';
}

bool isNonFinite(const QByteArray &token)
{
    static const QRegularExpression name(QStringLiteral("^-?(NaN|nan|Infinity|infinity|Inf|inf)$"));
    static const QRegularExpression number(QStringLiteral("^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$"));
    const QString t = QString::fromLatin1(token);
    if (name.match(t).hasMatch())
        return true;
    return number.match(t).hasMatch() && !std::isfinite(std::strtod(token.constData(), nullptr));
}

// The text with its non-finite tokens marked, and where each swap ended, so
// that an offset in the marked text maps back to the original.
struct MarkedText {
    QByteArray text;
    std::vector<std::pair<qsizetype, qsizetype>> swaps; // (end in marked text, bytes added so far)

    qsizetype originalOffset(qsizetype offset) const
    {
        qsizetype added = 0;
        for (const auto &[end, total] : swaps) {
            if (end > offset)
                break;
            added = total;
        }
        return offset - added;
    }
};

MarkedText markNonFinite(const QByteArray &in)
{
    MarkedText out;
    out.text.reserve(in.size());
    const QByteArray open = "\"" + kNonFiniteMark.toUtf8();
    qsizetype added = 0;
    for (qsizetype i = 0; i < in.size();) {
        const char c = in[i];
        if (c == '"') { // copy a string whole, escapes included
            qsizetype j = i + 1;
            while (j < in.size() && in[j] != '"')
                j += in[j] == '\\' ? 2 : 1;
            j = std::min(j + 1, in.size());
            out.text += in.mid(i, j - i);
            i = j;
        } else if (isTokenChar(c)) {
            qsizetype j = i;
            while (j < in.size() && isTokenChar(in[j]))
                ++j;
            const QByteArray token = in.mid(i, j - i);
            if (isNonFinite(token)) {
                out.text += open + token + "\"";
                added += open.size() + 1;
                out.swaps.emplace_back(out.text.size(), added);
            } else {
                out.text += token;
            }
            i = j;
        } else {
            out.text += c;
            ++i;
        }
    }
    return out;
}

QString lineColumn(const QByteArray &text, qsizetype offset)
{
    int line = 1, column = 1;
    for (qsizetype i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else if ((uchar(text[i]) & 0xC0) != 0x80) { // count characters, not UTF-8 bytes
            ++column;
        }
    }
    return QStringLiteral("line %1, column %2").arg(line).arg(column);
}

std::variant<QJsonDocument, Problem> parseJson(const QByteArray &original)
{
    const MarkedText marked = markNonFinite(original);
    QJsonParseError error;
    QJsonDocument doc = QJsonDocument::fromJson(marked.text, &error);
    if (error.error == QJsonParseError::NoError)
        return doc;
    return Problem{lineColumn(original, marked.originalOffset(error.offset)).toStdString(),
                   "not valid JSON: " + error.errorString().toStdString()};
}

QString describe(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double:
        return QStringLiteral("the number %1").arg(v.toDouble());
    case QJsonValue::String: {
        QString s = v.toString();
        if (s.startsWith(kNonFiniteMark))
            return s.mid(kNonFiniteMark.size());
        if (s.size() > 20)
            s = s.left(20) + QStringLiteral("…");
        return QStringLiteral("the string \"%1\"").arg(s);
    }
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

struct Failure {
    Problem problem;
};

[[noreturn]] void fail(const std::string &place, const QString &message)
{
    throw Failure{Problem{place, message.toStdString()}};
}

std::string at(const std::string &place, qsizetype index)
{
    return place + "[" + std::to_string(index) + "]";
}

std::string key(const std::string &place, const char *name)
{
    return place.empty() ? std::string(name) : place + "." + name;
}

double readNumber(const QJsonValue &v, const std::string &place)
{
    if (v.isString() && v.toString().startsWith(kNonFiniteMark))
        fail(place, QStringLiteral("%1 is not a finite number").arg(describe(v)));
    if (!v.isDouble())
        fail(place, QStringLiteral("expected a number, got %1").arg(describe(v)));
    const double d = v.toDouble();
    if (!std::isfinite(d))
        fail(place, QStringLiteral("%1 is not a finite number").arg(d));
    return d;
}

bool readBool(const QJsonValue &v, const std::string &place)
{
    if (!v.isBool())
        fail(place, QStringLiteral("expected true or false, got %1").arg(describe(v)));
    return v.toBool();
}

QJsonArray readArray(const QJsonValue &v, const std::string &place, const char *of)
{
    if (!v.isArray())
        fail(place, QStringLiteral("expected an array of %1, got %2").arg(QLatin1String(of), describe(v)));
    return v.toArray();
}

// A rectangular array of arrays, every row as long as the first.
template <typename Cell, typename Read>
Eigen::Array<Cell, Eigen::Dynamic, Eigen::Dynamic> readGrid(const QJsonValue &v, const std::string &place,
                                                             const char *of, Read read)
{
    const QJsonArray rows = readArray(v, place, of);
    if (rows.isEmpty())
        fail(place, QStringLiteral("must have at least one row"));
    Eigen::Array<Cell, Eigen::Dynamic, Eigen::Dynamic> m;
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const std::string rowPlace = at(place, i);
        const QJsonArray row = readArray(rows[i], rowPlace, of);
        if (i == 0) {
            if (row.isEmpty())
                fail(rowPlace, QStringLiteral("must have at least one entry"));
            if (rows.size() > kMaxTokens || row.size() > kMaxWidth)
                fail(place, QStringLiteral("%1 by %2 is larger than the limit of %3 by %4")
                                .arg(rows.size()).arg(row.size()).arg(kMaxTokens).arg(kMaxWidth));
            m.resize(rows.size(), row.size());
        } else if (row.size() != m.cols()) {
            fail(rowPlace, QStringLiteral("has %1 entries, but row 0 has %2").arg(row.size()).arg(m.cols()));
        }
        for (qsizetype j = 0; j < row.size(); ++j)
            m(i, j) = read(row[j], at(rowPlace, j));
    }
    return m;
}

Matrix readMatrix(const QJsonObject &o, const char *name, const std::string &place)
{
    const std::string p = key(place, name);
    if (!o.contains(QLatin1String(name)))
        fail(p, QStringLiteral("is missing"));
    return readGrid<double>(o.value(QLatin1String(name)), p, "numbers", readNumber).matrix();
}

std::optional<Matrix> readOptionalMatrix(const QJsonObject &o, const char *name, const std::string &place)
{
    const QJsonValue v = o.value(QLatin1String(name));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    return readGrid<double>(v, key(place, name), "numbers", readNumber).matrix();
}

std::vector<std::string> readStrings(const QJsonValue &v, const std::string &place)
{
    std::vector<std::string> out;
    const QJsonArray a = readArray(v, place, "strings");
    for (qsizetype i = 0; i < a.size(); ++i) {
        if (!a[i].isString())
            fail(at(place, i), QStringLiteral("expected a string, got %1").arg(describe(a[i])));
        out.push_back(a[i].toString().toStdString());
    }
    return out;
}

QString readString(const QJsonValue &v, const std::string &place)
{
    if (!v.isString())
        fail(place, QStringLiteral("expected a string, got %1").arg(describe(v)));
    return v.toString();
}

template <typename E>
E readEnum(const QJsonObject &o, const char *name, E fallback, std::optional<E> (*parse)(const std::string &))
{
    const QJsonValue v = o.value(QLatin1String(name));
    if (v.isUndefined())
        return fallback;
    const QString s = readString(v, name);
    if (auto e = parse(s.toStdString()))
        return *e;
    fail(name, QStringLiteral("unknown value \"%1\"; expected one of %2")
                   .arg(s, QString::fromStdString(allNames(fallback))));
}

// An integer that a double holds exactly, within [lo, hi].
double readInteger(const QJsonValue &v, const std::string &place, double lo, double hi)
{
    const double d = readNumber(v, place);
    if (d != std::floor(d))
        fail(place, QStringLiteral("expected a whole number, got %1").arg(d));
    if (d < lo || d > hi)
        fail(place, QStringLiteral("must be between %1 and %2 (got %3)").arg(lo, 0, 'g', 17).arg(hi, 0, 'g', 17).arg(d, 0, 'g', 17));
    return d;
}

// Seeds are integers up to 2^63 - 1, read exactly (not through a double).
std::uint64_t readSeed(const QJsonValue &v)
{
    const double d = readNumber(v, "seed");
    const qint64 i = v.toInteger(-1);
    if (i >= 0)
        return std::uint64_t(i);
    if (d != std::floor(d))
        fail("seed", QStringLiteral("expected a whole number, got %1").arg(d));
    fail("seed", QStringLiteral("must be between 0 and %1 (got %2)").arg(kMaxSeed).arg(d, 0, 'g', 17));
}

Scenario readScenario(const QJsonDocument &doc)
{
    if (!doc.isObject())
        fail("", QStringLiteral("the top level must be a JSON object"));
    const QJsonObject o = doc.object();
    Scenario s;

    if (o.contains(QLatin1String("format"))) {
        const QString f = readString(o.value(QLatin1String("format")), "format");
        if (f != QLatin1String(kScenarioFormat))
            fail("format", QStringLiteral("is \"%1\", not \"%2\"").arg(f, QLatin1String(kScenarioFormat)));
    }
    if (o.contains(QLatin1String("version"))) {
        const double version = readInteger(o.value(QLatin1String("version")), "version", 1, 1e9);
        if (version > kScenarioVersion)
            fail("version", QStringLiteral("%1 is newer than this program reads (%2)").arg(version).arg(kScenarioVersion));
    }
    if (o.contains(QLatin1String("title")))
        s.title = readString(o.value(QLatin1String("title")), "title").toStdString();
    if (o.contains(QLatin1String("description")))
        s.description = readString(o.value(QLatin1String("description")), "description").toStdString();
    if (o.contains(QLatin1String("tokens")))
        s.tokens = readStrings(o.value(QLatin1String("tokens")), "tokens");
    if (o.contains(QLatin1String("source_tokens")))
        s.sourceTokens = readStrings(o.value(QLatin1String("source_tokens")), "source_tokens");

    if (!o.contains(QLatin1String("inputs")))
        fail("inputs", QStringLiteral("is missing"));
    const QJsonValue inputsValue = o.value(QLatin1String("inputs"));
    if (!inputsValue.isObject())
        fail("inputs", QStringLiteral("expected an object, got %1").arg(describe(inputsValue)));
    const QJsonObject in = inputsValue.toObject();
    const std::string ip = "inputs";
    if (in.contains(QLatin1String("mode"))) {
        const QString m = readString(in.value(QLatin1String("mode")), "inputs.mode");
        auto mode = inputModeFromString(m.toStdString());
        if (!mode)
            fail("inputs.mode", QStringLiteral("unknown value \"%1\"; expected one of %2")
                                    .arg(m, QString::fromStdString(allNames(InputMode::Direct))));
        s.mode = *mode;
    }
    if (s.mode == InputMode::Direct) {
        s.Q = readMatrix(in, "Q", ip);
        s.K = readMatrix(in, "K", ip);
        s.V = readMatrix(in, "V", ip);
    } else {
        s.X = readMatrix(in, "X", ip);
        s.source = readOptionalMatrix(in, "source", ip);
        s.Wq = readMatrix(in, "Wq", ip);
        s.Wk = readMatrix(in, "Wk", ip);
        s.Wv = readMatrix(in, "Wv", ip);
        s.Wo = readOptionalMatrix(in, "Wo", ip);
    }

    if (o.contains(QLatin1String("heads")))
        s.heads = int(readInteger(o.value(QLatin1String("heads")), "heads", 1, kMaxHeads));
    s.similarity = readEnum(o, "similarity", Similarity::Dot, similarityFromString);
    s.scale = readEnum(o, "scale", Scale::SqrtDk, scaleFromString);
    if (o.contains(QLatin1String("temperature")))
        s.temperature = readNumber(o.value(QLatin1String("temperature")), "temperature");
    s.maskStage = readEnum(o, "mask_stage", MaskStage::BeforeSoftmax, maskStageFromString);
    s.encoding = readEnum(o, "positional_encoding", Encoding::None, encodingFromString);
    if (o.contains(QLatin1String("seed")))
        s.seed = readSeed(o.value(QLatin1String("seed")));

    if (o.contains(QLatin1String("mask"))) {
        const QJsonValue mv = o.value(QLatin1String("mask"));
        if (!mv.isObject())
            fail("mask", QStringLiteral("expected an object, got %1").arg(describe(mv)));
        const QJsonObject m = mv.toObject();
        if (m.contains(QLatin1String("causal")))
            s.mask.causal = readBool(m.value(QLatin1String("causal")), "mask.causal");
        if (m.contains(QLatin1String("key_padding"))) {
            const QJsonArray a = readArray(m.value(QLatin1String("key_padding")), "mask.key_padding", "true/false");
            s.mask.keyPadding.resize(a.size());
            for (qsizetype j = 0; j < a.size(); ++j)
                s.mask.keyPadding(j) = readBool(a[j], at("mask.key_padding", j));
        }
        const QJsonValue blocked = m.value(QLatin1String("blocked"));
        if (!blocked.isUndefined() && !(blocked.isArray() && blocked.toArray().isEmpty()))
            s.mask.blocked = readGrid<bool>(blocked, "mask.blocked", "true/false", readBool);
    }

    if (auto p = validate(s))
        throw Failure{*p};
    return s;
}

// ---- writing ----

QByteArray number(double v)
{
    return QByteArray::fromStdString(shortest(v));
}

QByteArray quoted(const std::string &s)
{
    QByteArray a = QJsonDocument(QJsonArray{QString::fromStdString(s)}).toJson(QJsonDocument::Compact);
    return a.mid(1, a.size() - 2);
}

QByteArray stringList(const std::vector<std::string> &v)
{
    QByteArray out = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + quoted(v[i]);
    return out + "]";
}

template <typename Derived, typename Cell>
QByteArray row(const Eigen::DenseBase<Derived> &m, Eigen::Index i, Cell cell)
{
    QByteArray out = "[";
    for (Eigen::Index j = 0; j < m.cols(); ++j)
        out += (j ? ", " : "") + cell(m(i, j));
    return out + "]";
}

template <typename Derived, typename Cell>
QByteArray grid(const Eigen::DenseBase<Derived> &m, const QByteArray &indent, Cell cell)
{
    QByteArray out = "[";
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        out += (i ? ",\n" + indent + " " : QByteArray()) + row(m, i, cell);
    return out + "]";
}

QByteArray boolText(bool b)
{
    return b ? "true" : "false";
}

} // namespace

ScenarioOrProblem scenarioFromJson(const QByteArray &json)
{
    auto parsed = parseJson(json);
    if (auto *p = std::get_if<Problem>(&parsed))
        return *p;
    try {
        return readScenario(std::get<QJsonDocument>(parsed));
    } catch (const Failure &f) {
        return f.problem;
    }
}

ScenarioOrProblem loadScenarioFile(const QString &path)
{
    QFile file(path);
    if (!QFileInfo(path).isFile() && QFileInfo::exists(path))
        return Problem{"", "is not a file"};
    if (!file.open(QIODevice::ReadOnly))
        return Problem{"", "cannot be read: " + file.errorString().toStdString()};
    if (file.size() > kMaxScenarioFileBytes)
        return Problem{"", "is " + std::to_string(file.size()) + " bytes, more than the limit of "
                               + std::to_string(kMaxScenarioFileBytes)};
    return scenarioFromJson(file.readAll());
}

QByteArray scenarioToJson(const Scenario &s)
{
    const auto num = [](double v) { return number(v); };
    QByteArray o = "{\n";
    auto field = [&o](const char *name, const QByteArray &value, bool last = false) {
        o += QByteArray("  \"") + name + "\": " + value + (last ? "\n" : ",\n");
    };
    auto matrixField = [&o, &num](const char *name, const Matrix &m, bool last) {
        const QByteArray indent(int(qstrlen(name)) + 8, ' ');
        o += QByteArray("    \"") + name + "\": " + grid(m, indent, num) + (last ? "\n" : ",\n");
    };
    field("format", quoted(kScenarioFormat));
    field("version", QByteArray::number(kScenarioVersion));
    field("title", quoted(s.title));
    if (!s.description.empty())
        field("description", quoted(s.description));
    field("tokens", stringList(s.tokens));
    if (!s.sourceTokens.empty())
        field("source_tokens", stringList(s.sourceTokens));
    o += "  \"inputs\": {\n";
    o += QByteArray("    \"mode\": ") + quoted(toString(s.mode)) + ",\n";
    if (s.mode == InputMode::Direct) {
        matrixField("Q", s.Q, false);
        matrixField("K", s.K, false);
        matrixField("V", s.V, true);
    } else {
        matrixField("X", s.X, false);
        if (s.source)
            matrixField("source", *s.source, false);
        matrixField("Wq", s.Wq, false);
        matrixField("Wk", s.Wk, false);
        matrixField("Wv", s.Wv, !s.Wo.has_value());
        if (s.Wo)
            matrixField("Wo", *s.Wo, true);
    }
    o += "  },\n";
    field("heads", QByteArray::number(s.heads));
    field("similarity", quoted(toString(s.similarity)));
    field("scale", quoted(toString(s.scale)));
    field("temperature", number(s.temperature));
    QByteArray mask = "{\"causal\": " + boolText(s.mask.causal);
    if (s.mask.keyPadding.size())
        mask += ", \"key_padding\": " + row(s.mask.keyPadding.transpose(), 0, boolText);
    if (s.mask.blocked.size())
        mask += ",\n           \"blocked\": " + grid(s.mask.blocked, QByteArray(22, ' '), boolText);
    field("mask", mask + "}");
    field("mask_stage", quoted(toString(s.maskStage)));
    field("positional_encoding", quoted(toString(s.encoding)));
    field("seed", QByteArray::number(quint64(s.seed)), true);
    return o + "}\n";
}

QString saveScenarioFile(const QString &path, const Scenario &s)
{
    return writeFileAtomically(path, scenarioToJson(s));
}

} // namespace attn
