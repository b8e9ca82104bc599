#include "scenario_json.h"
#include "utf8.h"

#include "atomicwrite.h"
#include "scenario_json_scan.h"
#include "formula.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <tuple>
#include <unordered_set>
#include <vector>

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

using scenario_scan::RawMember;
using scenario_scan::RawObjects;
using scenario_scan::scanProblem;

Result<QJsonDocument> parseJson(const QByteArray &original)
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

// An enum by its file name ("sqrt_dk"), or a failure at `place` that lists
// the names.
template <typename E>
E readName(const QJsonValue &v, const std::string &place, std::optional<E> (*parse)(const std::string &))
{
    const QString name = readString(v, place);
    if (auto e = parse(name.toStdString()))
        return *e;
    fail(place, QStringLiteral("unknown value \"%1\"; expected one of %2")
                    .arg(name, QString::fromStdString(allNames(E()))));
}

template <typename E>
E readEnum(const QJsonObject &o, const char *name, E fallback, std::optional<E> (*parse)(const std::string &))
{
    const QJsonValue v = o.value(QLatin1String(name));
    if (v.isUndefined())
        return fallback;
    return readName(v, name, parse);
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
    // The range as a reader checks it: 2^63 is shown as its digits, not 9.2233720368547758e+18.
    const QString range = QStringLiteral("0 and %1, that is 2^63 - 1").arg(kMaxSeed);
    if (d != std::floor(d))
        fail("seed", QStringLiteral("expected a whole number between %1, got %2").arg(range).arg(d, 0, 'g', 17));
    const QString got = std::fabs(d) < 1e21 ? QString::number(d, 'f', 0) : QString::number(d, 'g', 17);
    fail("seed", QStringLiteral("must be between %1 (got %2)").arg(range, got));
}

// ---- the lesson's notes and quiz ----

// {"en": "...", "zh_CN": "..."}: at least one language, every value a string.
LocalText readLocalText(const QJsonValue &v, const std::string &place)
{
    if (!v.isObject())
        fail(place, QStringLiteral("expected an object of texts by language, e.g. {\"en\": \"...\", \"zh_CN\": \"...\"}, got %1")
                        .arg(describe(v)));
    const QJsonObject o = v.toObject();
    if (o.isEmpty())
        fail(place, QStringLiteral("gives no text; give at least \"en\""));
    LocalText out;
    for (auto it = o.begin(); it != o.end(); ++it)
        out[it.key().toStdString()] = readString(it.value(), key(place, it.key().toStdString().c_str())).toStdString();
    return out;
}

std::vector<QuizQuestion> readQuiz(const QJsonValue &v)
{
    std::vector<QuizQuestion> out;
    const QJsonArray a = readArray(v, "quiz", "questions");
    static const std::unordered_set<std::string> known{"id", "question", "choices", "answer", "explanation", "open"};
    std::unordered_set<std::string> ids;
    for (qsizetype i = 0; i < a.size(); ++i) {
        const std::string place = at("quiz", i);
        if (!a[i].isObject())
            fail(place, QStringLiteral("expected a question (an object), got %1").arg(describe(a[i])));
        const QJsonObject o = a[i].toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            if (!known.count(it.key().toStdString()))
                fail(key(place, it.key().toStdString().c_str()),
                     QStringLiteral("unknown key; a question has id, question, choices, answer, explanation and open"));
        QuizQuestion q;
        if (o.contains(QLatin1String("id")))
            q.id = readString(o.value(QLatin1String("id")), key(place, "id")).toStdString();
        if (!q.id.empty() && !ids.insert(q.id).second) // a set: a 16 MiB file of questions stays linear
                fail(key(place, "id"), QStringLiteral("\"%1\" is the id of an earlier question; give each its own")
                                           .arg(QString::fromStdString(q.id)));
        if (!o.contains(QLatin1String("question")))
            fail(key(place, "question"), QStringLiteral("is missing"));
        q.question = readLocalText(o.value(QLatin1String("question")), key(place, "question"));
        const std::string choicesPlace = key(place, "choices");
        const QJsonArray choices = readArray(o.value(QLatin1String("choices")), choicesPlace, "choices");
        if (choices.size() < 2)
            fail(choicesPlace, QStringLiteral("a question needs at least two choices (got %1)").arg(choices.size()));
        for (qsizetype c = 0; c < choices.size(); ++c)
            q.choices.push_back(readLocalText(choices[c], at(choicesPlace, c)));
        const std::string answerPlace = key(place, "answer");
        const QJsonArray answer = readArray(o.value(QLatin1String("answer")), answerPlace, "choice numbers");
        if (answer.isEmpty())
            fail(answerPlace, QStringLiteral("names no right choice; give at least one, numbered from 0"));
        for (qsizetype c = 0; c < answer.size(); ++c) {
            const int n = int(readInteger(answer[c], at(answerPlace, c), 0, 1e6));
            if (n >= int(q.choices.size()))
                fail(at(answerPlace, c), QStringLiteral("%1 is not a choice: there are %2, numbered from 0")
                                             .arg(n).arg(q.choices.size()));
            q.answer.push_back(n);
        }
        if (o.contains(QLatin1String("explanation")))
            q.explanation = readLocalText(o.value(QLatin1String("explanation")), key(place, "explanation"));
        if (o.contains(QLatin1String("open"))) {
            const std::string openPlace = key(place, "open");
            const QJsonValue ov = o.value(QLatin1String("open"));
            if (!ov.isObject())
                fail(openPlace, QStringLiteral("expected an object such as {\"lesson\": \"causal\"}, got %1").arg(describe(ov)));
            const QJsonObject open = ov.toObject();
            for (auto it = open.begin(); it != open.end(); ++it) {
                const std::string k = it.key().toStdString();
                const std::string kp = key(openPlace, k.c_str());
                if (k == "lesson")
                    q.lesson = readString(it.value(), kp).toStdString();
                else if (k == "view")
                    q.view = readString(it.value(), kp).toStdString();
                else if (k == "scale")
                    q.settings.scale = readName(it.value(), kp, scaleFromString);
                else if (k == "positional_encoding")
                    q.settings.encoding = readName(it.value(), kp, encodingFromString);
                else if (k == "mask_stage")
                    q.settings.maskStage = readName(it.value(), kp, maskStageFromString);
                else if (k == "similarity")
                    q.settings.similarity = readName(it.value(), kp, similarityFromString);
                else if (k == "causal")
                    q.settings.causal = readBool(it.value(), kp);
                else {
                    fail(kp, QStringLiteral("unknown key; open takes lesson, view, scale, positional_encoding, "
                                            "mask_stage, similarity and causal"));
                }
            }
        }
        out.push_back(std::move(q));
    }
    return out;
}

// [{"stage": "weights", "row": 1, "col": 1, "printed": 0.8756}]: cells
// counted from 1, as a handout counts them, each inside its stage's map
// (checked once the shapes are known: `s` is already read).
std::vector<Misprint> readMisprints(const QJsonValue &v, const Scenario &s)
{
    std::vector<Misprint> out;
    const QJsonArray a = readArray(v, "misprints", "misprints");
    static const std::unordered_set<std::string> known{"stage", "head", "row", "col", "printed"};
    static const char *const stages[] = {"scores", "scaled", "masked", "weights", "output"};
    for (qsizetype i = 0; i < a.size(); ++i) {
        const std::string place = at("misprints", i);
        if (!a[i].isObject())
            fail(place, QStringLiteral("expected an object such as {\"stage\": \"weights\", \"row\": 1, \"col\": 1, "
                                       "\"printed\": 0.8756}, got %1").arg(describe(a[i])));
        const QJsonObject o = a[i].toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            if (!known.count(it.key().toStdString()))
                fail(key(place, it.key().toStdString().c_str()),
                     QStringLiteral("unknown key; a misprint has stage, head, row, col and printed"));
        for (const char *need : {"stage", "row", "col", "printed"})
            if (!o.contains(QLatin1String(need)))
                fail(key(place, need), QStringLiteral("is missing"));
        Misprint m;
        m.stage = readString(o.value(QLatin1String("stage")), key(place, "stage")).toStdString();
        if (std::find(std::begin(stages), std::end(stages), m.stage) == std::end(stages))
            fail(key(place, "stage"), QStringLiteral("unknown value \"%1\"; expected one of scores, scaled, masked, weights, output")
                                          .arg(QString::fromStdString(m.stage)));
        const int cols = m.stage == "output" ? headValueDim(s) : keyCount(s);
        if (o.contains(QLatin1String("head")))
            m.head = int(readInteger(o.value(QLatin1String("head")), key(place, "head"), 1, s.heads)) - 1;
        m.row = int(readInteger(o.value(QLatin1String("row")), key(place, "row"), 1, queryCount(s))) - 1;
        m.col = int(readInteger(o.value(QLatin1String("col")), key(place, "col"), 1, cols)) - 1;
        m.printed = readNumber(o.value(QLatin1String("printed")), key(place, "printed"));
        out.push_back(m);
    }
    return out;
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
    // Every setting by name, here and in scenarioToJson: a member added to
    // Settings or Mask stops both compiling until it is read and written.
    auto &[similarity, scale, temperature, mask, maskStage, softmax, encoding, seed] = settingsOf(s);
    similarity = readEnum(o, "similarity", Similarity::Dot, similarityFromString);
    scale = readEnum(o, "scale", Scale::SqrtDk, scaleFromString);
    if (o.contains(QLatin1String("temperature")))
        temperature = readNumber(o.value(QLatin1String("temperature")), "temperature");
    maskStage = readEnum(o, "mask_stage", MaskStage::BeforeSoftmax, maskStageFromString);
    softmax = readEnum(o, "softmax", SoftmaxKind::Standard, softmaxFromString);
    encoding = readEnum(o, "positional_encoding", Encoding::None, encodingFromString);
    if (o.contains(QLatin1String("seed")))
        seed = readSeed(o.value(QLatin1String("seed")));

    if (o.contains(QLatin1String("mask"))) {
        auto &[causal, window, dilation, block, global, keyPadding, blocked] = mask;
        const QJsonValue mv = o.value(QLatin1String("mask"));
        if (!mv.isObject())
            fail("mask", QStringLiteral("expected an object, got %1").arg(describe(mv)));
        const QJsonObject m = mv.toObject();
        if (m.contains(QLatin1String("causal")))
            causal = readBool(m.value(QLatin1String("causal")), "mask.causal");
        // Absent is off; written, each is at least 1 (0 would say nothing).
        for (auto [key, into] : {std::pair{"window", &window}, {"dilation", &dilation}, {"block", &block}})
            if (m.contains(QLatin1String(key)))
                *into = int(readInteger(m.value(QLatin1String(key)), std::string("mask.") + key, 1, kMaxMaskWidth));
        if (m.contains(QLatin1String("global"))) {
            const QJsonArray a = readArray(m.value(QLatin1String("global")), "mask.global", "token numbers (from 1)");
            for (qsizetype g = 0; g < a.size(); ++g)
                global.push_back(int(readInteger(a[g], at("mask.global", g), 1, kMaxTokens)) - 1);
        }
        if (m.contains(QLatin1String("key_padding"))) {
            const QJsonArray a = readArray(m.value(QLatin1String("key_padding")), "mask.key_padding", "true/false");
            keyPadding.resize(a.size());
            for (qsizetype j = 0; j < a.size(); ++j)
                keyPadding(j) = readBool(a[j], at("mask.key_padding", j));
        }
        const QJsonValue cells = m.value(QLatin1String("blocked"));
        if (!cells.isUndefined() && !(cells.isArray() && cells.toArray().isEmpty()))
            blocked = readGrid<bool>(cells, "mask.blocked", "true/false", readBool);
    }

    // Kept as unread keys too (Scenario::extra), so they are written back as they were.
    if (o.contains(QLatin1String("notes")))
        s.notes = readLocalText(o.value(QLatin1String("notes")), "notes");
    if (o.contains(QLatin1String("quiz")))
        s.quiz = readQuiz(o.value(QLatin1String("quiz")));

    if (auto p = validate(s))
        throw Failure{*p};
    if (o.contains(QLatin1String("misprints")))
        readMisprints(o.value(QLatin1String("misprints")), s); // refused here; kept in extra
    return s;
}

// ---- keys this version does not read ----
//
// Scenario::extra holds them as the text of one JSON object: the top
// level's unread members as they were written, and the unread members of
// "inputs" and of "mask" in objects under those two names (which are never
// unread themselves). Values are kept byte for byte, as the file had them.

const std::unordered_set<std::string> &topLevelKeys()
{
    static const std::unordered_set<std::string> keys{
        "format", "version", "title", "description", "tokens", "source_tokens", "inputs", "heads", "similarity",
        "scale", "temperature", "mask", "mask_stage", "softmax", "positional_encoding", "seed"};
    return keys;
}

std::unordered_set<std::string> inputKeysRead(InputMode mode)
{
    if (mode == InputMode::Direct)
        return {"mode", "Q", "K", "V"};
    return {"mode", "X", "source", "Wq", "Wk", "Wv", "Wo"};
}

const std::unordered_set<std::string> &maskKeys()
{
    static const std::unordered_set<std::string> keys{"causal", "window", "dilation", "block", "global", "key_padding",
                                                      "blocked"};
    return keys;
}

std::string unreadMembers(const QByteArray &text, const RawObjects &raw, InputMode mode)
{
    auto collect = [&text](const std::vector<RawMember> &members, const std::unordered_set<std::string> &read) {
        QByteArray out;
        for (const RawMember &m : members)
            if (!read.count(m.key))
                out += (out.isEmpty() ? "" : ", ") + m.rawKey + ": " + text.mid(m.valueBegin, m.valueEnd - m.valueBegin);
        return out;
    };
    QByteArray out = collect(raw.top, topLevelKeys());
    const QByteArray inputs = collect(raw.inputs, inputKeysRead(mode)), mask = collect(raw.mask, maskKeys());
    if (!inputs.isEmpty())
        out += (out.isEmpty() ? "" : ", ") + QByteArray("\"inputs\": {") + inputs + "}";
    if (!mask.isEmpty())
        out += (out.isEmpty() ? "" : ", ") + QByteArray("\"mask\": {") + mask + "}";
    if (out.isEmpty())
        return std::string();
    out.prepend('{');
    out.append('}');
    return out.toStdString();
}

// The kept members of s.extra, ready to write: (decoded key, "rawKey: value").
struct KeptMembers {
    std::vector<std::pair<std::string, QByteArray>> top, inputs, mask;
};

KeptMembers keptMembers(const std::string &extra)
{
    KeptMembers kept;
    if (extra.empty())
        return kept;
    const QByteArray text = QByteArray::fromStdString(extra);
    RawObjects raw;
    // Only what this file wrote is there; anything else is not written back.
    if (scanProblem(text, &raw) || !raw.topIsObject)
        return kept;
    auto lines = [&text](const std::vector<RawMember> &members, std::vector<std::pair<std::string, QByteArray>> &into) {
        for (const RawMember &m : members)
            if (m.valueEnd > m.valueBegin)
                into.emplace_back(m.key, m.rawKey + ": " + text.mid(m.valueBegin, m.valueEnd - m.valueBegin));
    };
    std::vector<RawMember> top;
    for (const RawMember &m : raw.top)
        if (!topLevelKeys().count(m.key))
            top.push_back(m);
    lines(top, kept.top);
    lines(raw.inputs, kept.inputs);
    lines(raw.mask, kept.mask);
    return kept;
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
    RawObjects raw;
    if (auto p = scanProblem(json, &raw))
        return *p;
    try {
        Scenario s = readScenario(std::get<QJsonDocument>(parsed));
        s.extra = unreadMembers(json, raw, s.mode);
        return s;
    } catch (const Failure &f) {
        return f.problem;
    }
}

std::vector<Misprint> misprintsOf(const Scenario &s)
{
    std::vector<Misprint> out;
    if (s.extra.empty())
        return out;
    const QJsonDocument kept = QJsonDocument::fromJson(QByteArray::fromStdString(s.extra));
    const QJsonValue v = kept.object().value(QLatin1String("misprints"));
    if (!v.isArray())
        return out;
    // One at a time: an edit since the file was read (a token removed) drops
    // the misprints whose cells have gone and keeps the others.
    for (const QJsonValue &one : v.toArray()) {
        try {
            for (const Misprint &m : readMisprints(QJsonArray{one}, s))
                out.push_back(m);
        } catch (const Failure &) {
        }
    }
    return out;
}

ScenarioOrProblem loadScenarioFile(const QString &path)
{
    QFile file(path);
    if (!QFileInfo(path).isFile() && QFileInfo::exists(path))
        return Problem{"", "is not a file"};
    if (!file.open(QIODevice::ReadOnly))
        return Problem{"", "cannot be read: " + file.errorString().toStdString()};
    auto tooLarge = [](qint64 size) {
        return Problem{"", "is " + std::to_string(size) + " bytes, more than the limit of "
                               + std::to_string(kMaxScenarioFileBytes) + " (16 MiB)"};
    };
    if (file.size() > kMaxScenarioFileBytes)
        return tooLarge(file.size());
    // One byte past the limit at most: a file that grows while it is read
    // is refused all the same.
    const QByteArray bytes = file.read(kMaxScenarioFileBytes + 1);
    if (bytes.size() > kMaxScenarioFileBytes)
        return tooLarge(std::max<qint64>(file.size(), bytes.size()));
    if (file.error() != QFileDevice::NoError)
        return Problem{"", "cannot be read: " + file.errorString().toStdString()};
    return scenarioFromJson(bytes);
}

QByteArray scenarioToJson(const Scenario &s)
{
    const auto num = [](double v) { return number(v); };
    const KeptMembers kept = keptMembers(s.extra);
    // Kept members whose names this object does not write itself.
    auto keptLines = [](const std::vector<std::pair<std::string, QByteArray>> &members,
                        const std::unordered_set<std::string> &written) {
        std::vector<QByteArray> out;
        for (const auto &[name, line] : members)
            if (!written.count(name))
                out.push_back(line);
        return out;
    };
    const std::vector<QByteArray> keptTop = keptLines(kept.top, topLevelKeys());
    const std::vector<QByteArray> keptInputs = keptLines(kept.inputs, inputKeysRead(s.mode));
    std::unordered_set<std::string> maskWritten{"causal", "window", "dilation", "block", "global"};
    if (s.mask.keyPadding.size())
        maskWritten.insert("key_padding");
    if (s.mask.blocked.size())
        maskWritten.insert("blocked");
    const std::vector<QByteArray> keptMask = keptLines(kept.mask, maskWritten);

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
    const bool inputsEnd = keptInputs.empty();
    if (s.mode == InputMode::Direct) {
        matrixField("Q", s.Q, false);
        matrixField("K", s.K, false);
        matrixField("V", s.V, inputsEnd);
    } else {
        matrixField("X", s.X, false);
        if (s.source)
            matrixField("source", *s.source, false);
        matrixField("Wq", s.Wq, false);
        matrixField("Wk", s.Wk, false);
        matrixField("Wv", s.Wv, !s.Wo.has_value() && inputsEnd);
        if (s.Wo)
            matrixField("Wo", *s.Wo, inputsEnd);
    }
    for (std::size_t i = 0; i < keptInputs.size(); ++i)
        o += "    " + keptInputs[i] + (i + 1 < keptInputs.size() ? ",\n" : "\n");
    o += "  },\n";
    field("heads", QByteArray::number(s.heads));
    // Every setting by name, as readScenario reads them.
    const auto &[similarity, scale, temperature, mask, maskStage, softmax, encoding, seed] = settingsOf(s);
    const auto &[causal, window, dilation, block, global, keyPadding, blocked] = mask;
    field("similarity", quoted(toString(similarity)));
    field("scale", quoted(toString(scale)));
    field("temperature", number(temperature));
    QByteArray maskText = "{\"causal\": " + boolText(causal);
    for (auto [key, value, off] : {std::tuple{"window", window, 0}, {"dilation", dilation, 1}, {"block", block, 0}})
        if (value != off)
            maskText += QByteArray(", \"") + key + "\": " + QByteArray::number(value);
    if (!global.empty()) {
        maskText += ", \"global\": [";
        for (std::size_t g = 0; g < global.size(); ++g)
            maskText += (g ? ", " : "") + QByteArray::number(global[g] + 1);
        maskText += "]";
    }
    if (keyPadding.size())
        maskText += ", \"key_padding\": " + row(keyPadding.transpose(), 0, boolText);
    if (blocked.size())
        maskText += ",\n           \"blocked\": " + grid(blocked, QByteArray(22, ' '), boolText);
    for (const QByteArray &line : keptMask)
        maskText += ", " + line;
    field("mask", maskText + "}");
    field("mask_stage", quoted(toString(maskStage)));
    // Written only when set, so the files of the ordinary softmax stay as they were.
    if (softmax != SoftmaxKind::Standard)
        field("softmax", quoted(toString(softmax)));
    field("positional_encoding", quoted(toString(encoding)));
    field("seed", QByteArray::number(quint64(seed)), keptTop.empty());
    for (std::size_t i = 0; i < keptTop.size(); ++i)
        o += "  " + keptTop[i] + (i + 1 < keptTop.size() ? ",\n" : "\n");
    return o + "}\n";
}

std::optional<Problem> saveScenarioFile(const QString &path, const Scenario &s)
{
    const QByteArray bytes = scenarioToJson(s);
    // A file that Open would refuse is not written: it could not be read back.
    if (bytes.size() > kMaxScenarioFileBytes)
        return Problem{QDir::toNativeSeparators(path).toStdString(),
                       "the file would be " + std::to_string(bytes.size()) + " bytes, more than the limit of "
                           + std::to_string(kMaxScenarioFileBytes) + " (16 MiB) that opening a file reads"};
    return writeFileAtomically(path, bytes);
}

} // namespace attn
