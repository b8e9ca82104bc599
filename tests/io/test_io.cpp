// The scenario file (docs/scenario-format.md) and the trace as JSON: save,
// load, save again gives the same bytes; each kind of bad input is refused
// with a message that names the place and the reason.

#include "attention.h"
#include "attn_test.h"
#include "json_test.h"
#include "lessons.h"
#include "random_scenario.h"
#include "atomicwrite.h"
#include "filenames.h"
#include "scenario_json.h"
#include "trace_json.h"
#include "validate.h"

#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <utility>

#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

using namespace attn;
using attn::test::num;
using attn::test::matrixFromJson;
using attn::test::nonFiniteIn;

namespace {

const QByteArray kSmallInputs = R"("inputs": {"Q": [[1, 0]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[1], [2], [3]]})";

QByteArray withSmallInputs(const QByteArray &settings)
{
    return "{" + settings + (settings.isEmpty() ? "" : ", ") + kSmallInputs + "}";
}

QString problemText(const ScenarioOrProblem &r)
{
    if (const auto *p = std::get_if<Problem>(&r))
        return QString::fromStdString(p->toString());
    return QStringLiteral("(no problem: the scenario loaded)");
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// save -> load -> equal -> save -> same bytes; the first thing that fails.
std::optional<QString> roundTripProblem(const Scenario &s)
{
    const QByteArray first = scenarioToJson(s);
    const ScenarioOrProblem back = scenarioFromJson(first);
    if (const auto *p = std::get_if<Problem>(&back))
        return QStringLiteral("the saved text does not load: %1\n%2")
            .arg(QString::fromStdString(p->toString()), QString::fromUtf8(first));
    if (!(std::get<Scenario>(back) == s))
        return QStringLiteral("load(save(s)) != s\n%1").arg(QString::fromUtf8(first));
    const QByteArray second = scenarioToJson(std::get<Scenario>(back));
    if (second != first)
        return QStringLiteral("saved again, the bytes differ:\n%1\n---\n%2")
            .arg(QString::fromUtf8(first), QString::fromUtf8(second));
    return std::nullopt;
}

// The names in `folder`, hidden ones too, sorted.
QStringList entriesOf(const QString &folder)
{
    QStringList names = QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    names.sort();
    return names;
}

// A file's modification time set `seconds` before now.
bool makeOlder(const QString &path, double seconds)
{
    timespec now {};
    ::clock_gettime(CLOCK_REALTIME, &now);
    const double t = double(now.tv_sec) + now.tv_nsec * 1e-9 - seconds;
    timespec times[2];
    times[0].tv_sec = times[1].tv_sec = time_t(std::floor(t));
    times[0].tv_nsec = times[1].tv_nsec = long((t - std::floor(t)) * 1e9);
    return ::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), times, 0) == 0;
}

// A PID no process has: a child's that has exited and been reaped.
pid_t pidOfAGoneProcess()
{
    const pid_t child = ::fork();
    if (child == 0)
        ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

} // namespace

class TestIo : public QObject {
    Q_OBJECT

private slots:
    // ---- save, load, save again ----

    void roundTripLessons_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &name : lessonIndex())
            QTest::newRow(qPrintable(name)) << name;
    }

    void roundTripLessons()
    {
        QFETCH(QString, name);
        const ScenarioOrProblem r = loadLesson(name);
        QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(problemText(r)));
        const Scenario &s = std::get<Scenario>(r);
        ATTN_VERIFY_NO_MISMATCH(roundTripProblem(s), name);

        // Through files, as File ▸ Save and Open do.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(name + QStringLiteral(".json"));
        QCOMPARE(reasonOf(saveScenarioFile(path, s)), QString());
        const ScenarioOrProblem loaded = loadScenarioFile(path);
        QVERIFY2(std::holds_alternative<Scenario>(loaded), qPrintable(problemText(loaded)));
        QVERIFY(std::get<Scenario>(loaded) == s);
        const QString again = dir.filePath(QStringLiteral("again.json"));
        QCOMPARE(reasonOf(saveScenarioFile(again, std::get<Scenario>(loaded))), QString());
        QCOMPARE(readFile(again), readFile(path));
        // The text is JSON any reader takes.
        QJsonParseError error;
        QJsonDocument::fromJson(readFile(path), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
    }

    // Random scenarios: both modes, source, Wo, masks, every option, Chinese
    // and awkward labels, arbitrary doubles.
    void roundTripRandomScenarios()
    {
        test::RandomOptions o;
        o.labels = true;
        int projected = 0, withWo = 0, withSource = 0, masked = 0, chinese = 0;
        for (std::uint64_t seed = 1; seed <= 400; ++seed) {
            const Scenario s = test::randomScenario(seed, o);
            ATTN_VERIFY_NO_MISMATCH(roundTripProblem(s), QStringLiteral("seed %1").arg(seed));
            projected += s.mode == InputMode::Projected;
            withWo += s.Wo.has_value();
            withSource += s.source.has_value();
            masked += s.mask.causal || s.mask.keyPadding.size() || s.mask.blocked.size();
            chinese += std::any_of(s.tokens.begin(), s.tokens.end(), [](const std::string &t) { return t == "我" || t == "注意力"; });
        }
        QVERIFY(projected > 100 && withWo > 50 && withSource > 50 && masked > 100 && chinese > 50);
    }

    // Numbers at the edges keep their exact value: shortest exact form.
    void roundTripExactNumbers()
    {
        Scenario s;
        s.title = "数字";
        s.tokens = {"甲", "乙"};
        s.Q = Matrix{{0.1, 1.0 / 3}, {-0.0, 5e-324}};
        s.K = Matrix{{1e12, -1e12}, {2.2250738585072014e-308, 123456789.123456789}};
        s.V = Matrix{{std::nextafter(1.0, 2.0), -std::nextafter(0.1, 0.0)}, {1e-300, 7}};
        s.temperature = std::nextafter(1.0, 0.0);
        s.seed = 9007199254740992ULL; // 2^53, the largest the file takes
        ATTN_VERIFY_NO_MISMATCH(roundTripProblem(s), QStringLiteral("edge numbers"));
        const QByteArray text = scenarioToJson(s);
        QVERIFY2(text.contains("\"K\": [[1e+12, -1e+12]") && !text.contains("-0,") && !text.contains("[-0"),
                 text.constData());
    }

    // The Scenario's seed is 64 bits; what is saved must load back the same
    // (or the save must refuse it). Above 2^53 the writer writes digits a
    // double cannot hold.
    void roundTripKeepsLargeSeed_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::newRow("2^53 + 1") << quint64(9007199254740993ULL);
        QTest::newRow("2^63 - 1") << quint64(9223372036854775807ULL);
        QTest::newRow("0xDEADBEEFDEADBEEF") << quint64(0xDEADBEEFDEADBEEFULL);
    }

    void roundTripKeepsLargeSeed()
    {
        QFETCH(quint64, seed);
        Scenario s;
        s.Q = Matrix{{1, 0}};
        s.K = Matrix{{1, 0}};
        s.V = Matrix{{1}};
        s.seed = seed;
        s.encoding = Encoding::Learned; // the seed matters: it draws the table
        if (seed > kMaxSeed) {
            // Too large to read back exactly: refused before it can be saved.
            const auto p = validate(s);
            QVERIFY(p.has_value());
            QCOMPARE(QString::fromStdString(p->place), QStringLiteral("seed"));
            return;
        }
        const ScenarioOrProblem back = scenarioFromJson(scenarioToJson(s));
        QVERIFY2(std::holds_alternative<Scenario>(back),
                 qPrintable(QStringLiteral("a saved scenario does not load: ") + problemText(back)));
        QCOMPARE(quint64(std::get<Scenario>(back).seed), seed);
    }

    // Keys in a fixed order, one matrix row per line.
    void savedTextIsCanonical()
    {
        const ScenarioOrProblem r = loadLesson(QStringLiteral("seed000-basic"));
        QVERIFY(std::holds_alternative<Scenario>(r));
        const QByteArray text = scenarioToJson(std::get<Scenario>(r));
        QVERIFY2(text.startsWith("{\n  \"format\": \"attention-lab/scenario\",\n  \"version\": 1,\n"), text.constData());
        QVERIFY2(text.contains("\"Q\": [[2, 0]]"), text.constData());
        QVERIFY2(text.contains("\"K\": [[2, 0],\n"), text.constData());
        const char *order[] = {"\"format\"", "\"version\"", "\"title\"", "\"tokens\"", "\"inputs\"", "\"heads\"",
                               "\"similarity\"", "\"scale\"", "\"temperature\"", "\"mask\"", "\"mask_stage\"",
                               "\"positional_encoding\"", "\"seed\""};
        qsizetype last = -1;
        for (const char *key : order) {
            const qsizetype at = text.indexOf(key);
            QVERIFY2(at > last, key);
            last = at;
        }
    }

    // ---- reading ----

    // Every key but inputs may be left out.
    void onlyInputsTakesDefaults()
    {
        const ScenarioOrProblem r = scenarioFromJson(R"({"inputs": {"Q": [[1, 2]], "K": [[3, 4]], "V": [[5]]}})");
        QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(problemText(r)));
        const Scenario &s = std::get<Scenario>(r);
        QVERIFY(s.mode == InputMode::Direct);
        QCOMPARE(s.heads, 1);
        QVERIFY(s.similarity == Similarity::Dot);
        QVERIFY(s.scale == Scale::SqrtDk);
        QCOMPARE(s.temperature, 1.0);
        QVERIFY(s.maskStage == MaskStage::BeforeSoftmax);
        QVERIFY(s.encoding == Encoding::None);
        QCOMPARE(quint64(s.seed), quint64(7));
        QVERIFY(!s.mask.causal && s.mask.keyPadding.size() == 0 && s.mask.blocked.size() == 0);
        QVERIFY(s.title.empty() && s.description.empty() && s.tokens.empty() && s.sourceTokens.empty());
        ATTN_COMPARE_MATRIX(s.Q, (Matrix{{1, 2}}), 0.0);
        ATTN_COMPARE_MATRIX(s.V, (Matrix{{5}}), 0.0);
        // Default labels q1 / k1.
        QVERIFY(queryLabels(s) == std::vector<std::string>{"q1"});
        QVERIFY(keyLabels(s) == std::vector<std::string>{"k1"});
    }

    // Keys a later version may add are ignored, at any level.
    void unknownKeysAreIgnored()
    {
        const QByteArray plain = withSmallInputs(R"("heads": 1, "mask": {"causal": false})");
        const QByteArray extra = R"({"future": {"a": [1, 2]}, "heads": 1, "colour": "blue",
            "mask": {"causal": false, "stride": 3},
            "inputs": {"Q": [[1, 0]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[1], [2], [3]], "bias": [[NaN]]}})";
        const ScenarioOrProblem a = scenarioFromJson(plain), b = scenarioFromJson(extra);
        QVERIFY2(std::holds_alternative<Scenario>(a), qPrintable(problemText(a)));
        QVERIFY2(std::holds_alternative<Scenario>(b), qPrintable(problemText(b)));
        QVERIFY(std::get<Scenario>(a) == std::get<Scenario>(b));
    }

    // The table of bad inputs: the problem's place, and words of its reason.
    void badInput_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("place");
        QTest::addColumn<QStringList>("reason");
        const auto direct = [](const QByteArray &q, const QByteArray &k, const QByteArray &v) {
            return QByteArray(R"({"inputs": {"Q": )") + q + R"(, "K": )" + k + R"(, "V": )" + v + "}}";
        };
        const QByteArray K3 = "[[1, 0], [0, 1], [1, 1]]", V3 = "[[1], [2], [3]]";
        const auto projected = [](const QByteArray &rest) {
            return QByteArray(R"({"inputs": {"mode": "projected", "X": [[1, 0], [0, 1]], )") + rest + "}}";
        };
        const QByteArray W = R"("Wq": [[1, 0], [0, 1]], "Wk": [[1, 0], [0, 1]], "Wv": [[1], [1]])";

        QTest::newRow("not JSON") << QByteArray(R"({"inputs": {)") << "line 1, column 13" << QStringList{"not valid JSON"};
        QTest::newRow("empty text") << QByteArray() << "line 1, column 1" << QStringList{"not valid JSON"};
        QTest::newRow("top level an array") << QByteArray("[1, 2]") << "" << QStringList{"top level", "object"};
        QTest::newRow("top level a string in an array") << QByteArray(R"(["inputs"])") << "" << QStringList{"top level", "object"};
        QTest::newRow("ragged row") << direct("[[1, 0]]", "[[1, 0], [0], [1, 1]]", V3) << "inputs.K[1]"
                                    << QStringList{"has 1 entries", "row 0 has 2"};
        QTest::newRow("missing inputs") << QByteArray(R"({"title": "x"})") << "inputs" << QStringList{"missing"};
        QTest::newRow("inputs not an object") << QByteArray(R"({"inputs": [1]})") << "inputs"
                                              << QStringList{"expected an object", "array"};
        QTest::newRow("missing K") << QByteArray(R"({"inputs": {"Q": [[1, 0]], "V": [[1]]}})") << "inputs.K"
                                   << QStringList{"missing"};
        QTest::newRow("missing Wq") << projected(R"("Wk": [[1], [1]], "Wv": [[1], [1]])") << "inputs.Wq"
                                    << QStringList{"missing"};
        QTest::newRow("string for a number") << direct("[[1, 0]]", R"([[1, 0], [0, 1], [1, "abc"]])", V3)
                                             << "inputs.K[2][1]" << QStringList{"expected a number", "\"abc\""};
        QTest::newRow("bool for a number") << direct("[[1, true]]", K3, V3) << "inputs.Q[0][1]"
                                           << QStringList{"expected a number", "true"};
        QTest::newRow("null for a number") << direct("[[1, null]]", K3, V3) << "inputs.Q[0][1]"
                                           << QStringList{"expected a number", "null"};
        QTest::newRow("NaN") << direct("[[1, NaN]]", K3, V3) << "inputs.Q[0][1]" << QStringList{"NaN", "not a finite number"};
        QTest::newRow("nan in K") << direct("[[1, 0]]", "[[1, 0], [0, 1], [1, nan]]", V3) << "inputs.K[2][1]"
                                  << QStringList{"nan", "not a finite number"};
        QTest::newRow("Infinity") << direct("[[1, Infinity]]", K3, V3) << "inputs.Q[0][1]"
                                  << QStringList{"Infinity", "not a finite number"};
        QTest::newRow("-Infinity") << direct("[[1, -Infinity]]", K3, V3) << "inputs.Q[0][1]"
                                   << QStringList{"-Infinity", "not a finite number"};
        QTest::newRow("1e999") << direct("[[1, 1e999]]", K3, V3) << "inputs.Q[0][1]"
                               << QStringList{"1e999", "not a finite number"};
        QTest::newRow("-1e999 in V") << direct("[[1, 0]]", K3, "[[1], [-1e999], [3]]") << "inputs.V[1][0]"
                                     << QStringList{"-1e999", "not a finite number"};
        QTest::newRow("two NaNs: the first") << direct("[[NaN, 0]]", "[[1, 0], [0, 1], [1, Infinity]]", V3)
                                             << "inputs.Q[0][0]" << QStringList{"NaN"};
        QTest::newRow("NaN in Wo") << projected(W + R"(, "Wo": [[1, NaN]])") << "inputs.Wo[0][1]"
                                   << QStringList{"NaN", "not a finite number"};
        QTest::newRow("magnitude over 1e12") << direct("[[1e13, 0]]", K3, V3) << "inputs.Q[0][0]"
                                             << QStringList{"1e+13", "limit"};
        QTest::newRow("no rows") << direct("[]", K3, V3) << "inputs.Q" << QStringList{"at least one row"};
        QTest::newRow("empty row") << direct("[[]]", K3, V3) << "inputs.Q[0]" << QStringList{"at least one entry"};
        QTest::newRow("matrix a number") << direct("5", K3, V3) << "inputs.Q" << QStringList{"expected an array", "number 5"};
        QTest::newRow("K wider than Q") << direct("[[1, 0]]", "[[1, 0, 1], [0, 1, 1], [1, 1, 1]]", V3) << "inputs.K"
                                        << QStringList{"has 3 columns", "Q has 2"};
        QTest::newRow("V rows") << direct("[[1, 0]]", K3, "[[1], [2]]") << "inputs.V" << QStringList{"has 2 rows", "K has 3"};
        QTest::newRow("Wk width") << projected(R"("Wq": [[1, 0], [0, 1]], "Wk": [[1], [1]], "Wv": [[1], [1]])")
                                  << "inputs.Wk" << QStringList{"has 1 columns", "Wq has 2"};
        QTest::newRow("source width") << projected(R"("source": [[1, 2, 3]], )" + W) << "inputs.source"
                                      << QStringList{"has 3 columns", "d_model = 2"};
        QTest::newRow("Wo rows") << projected(W + R"(, "Wo": [[1], [2]])") << "inputs.Wo" << QStringList{"has 2 rows", "Wv has 1"};
        QTest::newRow("heads do not divide") << QByteArray(R"({"heads": 3, "inputs": {"Q": [[1, 0, 0, 0]], "K": [[1, 0, 0, 0]], "V": [[1, 2, 3]]}})")
                                             << "heads" << QStringList{"3 heads do not divide", "width 4"};
        QTest::newRow("heads do not divide d_v") << withSmallInputs(R"("heads": 2)") << "heads"
                                                 << QStringList{"2 heads do not divide the value width 1"};
        QTest::newRow("heads 0") << withSmallInputs(R"("heads": 0)") << "heads" << QStringList{"between 1 and 64", "got 0"};
        QTest::newRow("heads 1.5") << withSmallInputs(R"("heads": 1.5)") << "heads" << QStringList{"whole number", "1.5"};
        QTest::newRow("heads a string") << withSmallInputs(R"("heads": "two")") << "heads" << QStringList{"expected a number"};
        QTest::newRow("temperature 0") << withSmallInputs(R"("temperature": 0)") << "temperature"
                                       << QStringList{"greater than 0", "got 0"};
        QTest::newRow("temperature negative") << withSmallInputs(R"("temperature": -1)") << "temperature"
                                              << QStringList{"greater than 0", "got -1"};
        QTest::newRow("temperature NaN") << withSmallInputs(R"("temperature": NaN)") << "temperature"
                                         << QStringList{"NaN", "not a finite number"};
        QTest::newRow("temperature tiny") << withSmallInputs(R"("temperature": 1e-9)") << "temperature"
                                          << QStringList{"between"};
        QTest::newRow("causal, n_q != n_k") << withSmallInputs(R"("mask": {"causal": true})") << "mask.causal"
                                            << QStringList{"n_q = 1", "n_k = 3"};
        QTest::newRow("causal not a bool") << withSmallInputs(R"("mask": {"causal": 1})") << "mask.causal"
                                           << QStringList{"expected true or false"};
        QTest::newRow("mask not an object") << withSmallInputs(R"("mask": [true])") << "mask" << QStringList{"expected an object"};
        QTest::newRow("RoPE, odd d_k") << QByteArray(R"({"positional_encoding": "rope", "inputs": {"Q": [[1, 0, 1]], "K": [[1, 0, 1]], "V": [[1]]}})")
                                       << "positional_encoding" << QStringList{"even d_k", "d_k = 3"};
        QTest::newRow("unknown similarity") << withSmallInputs(R"("similarity": "euclid")") << "similarity"
                                            << QStringList{"\"euclid\"", "dot, cosine, neg_sq_distance"};
        QTest::newRow("unknown scale") << withSmallInputs(R"("scale": "half")") << "scale"
                                       << QStringList{"\"half\"", "sqrt_dk, none, dk"};
        QTest::newRow("unknown mask_stage") << withSmallInputs(R"("mask_stage": "during")") << "mask_stage"
                                            << QStringList{"\"during\"", "before_softmax, after_softmax"};
        QTest::newRow("unknown positional_encoding") << withSmallInputs(R"("positional_encoding": "alibi")")
                                                     << "positional_encoding"
                                                     << QStringList{"\"alibi\"", "none, sinusoidal, learned, rope"};
        QTest::newRow("unknown inputs.mode") << QByteArray(R"({"inputs": {"mode": "both", "Q": [[1]], "K": [[1]], "V": [[1]]}})")
                                             << "inputs.mode" << QStringList{"\"both\"", "direct, projected"};
        QTest::newRow("enum not a string") << withSmallInputs(R"("similarity": 3)") << "similarity"
                                           << QStringList{"expected a string"};
        QTest::newRow("key_padding length") << withSmallInputs(R"("mask": {"key_padding": [true, false]})")
                                            << "mask.key_padding" << QStringList{"2 entries for 3 keys"};
        QTest::newRow("key_padding entry") << withSmallInputs(R"("mask": {"key_padding": [true, 0, false]})")
                                           << "mask.key_padding[1]" << QStringList{"expected true or false"};
        QTest::newRow("blocked columns") << withSmallInputs(R"("mask": {"blocked": [[true, false]]})")
                                         << "mask.blocked" << QStringList{"2 columns for 3 keys"};
        QTest::newRow("blocked rows") << withSmallInputs(R"("mask": {"blocked": [[true, false, true], [false, false, false]]})")
                                      << "mask.blocked" << QStringList{"2 rows for 1 queries"};
        QTest::newRow("blocked ragged") << QByteArray(R"({"mask": {"blocked": [[true, false], [true]]}, "inputs": {"Q": [[1], [2]], "K": [[1], [2]], "V": [[1], [2]]}})")
                                        << "mask.blocked[1]" << QStringList{"has 1 entries"};
        // kSmallInputs: one query, three keys, d_v = 1.
        QTest::newRow("misprint col") << withSmallInputs(R"("misprints": [{"stage": "weights", "row": 1, "col": 4, "printed": 0.5}])")
                                      << "misprints[0].col" << QStringList{"between 1 and 3", "got 4"};
        QTest::newRow("misprint output col") << withSmallInputs(R"("misprints": [{"stage": "output", "row": 1, "col": 2, "printed": 0.5}])")
                                             << "misprints[0].col" << QStringList{"between 1 and 1", "got 2"};
        QTest::newRow("misprint row 0") << withSmallInputs(R"("misprints": [{"stage": "scores", "row": 0, "col": 1, "printed": 4}])")
                                        << "misprints[0].row" << QStringList{"between 1 and 1", "got 0"};
        QTest::newRow("misprint stage") << withSmallInputs(R"("misprints": [{"stage": "softmax", "row": 1, "col": 1, "printed": 1}])")
                                        << "misprints[0].stage" << QStringList{"unknown value \"softmax\"", "weights"};
        QTest::newRow("misprint printed") << withSmallInputs(R"("misprints": [{"stage": "weights", "row": 1, "col": 1}])")
                                          << "misprints[0].printed" << QStringList{"is missing"};
        QTest::newRow("misprint NaN") << withSmallInputs(R"("misprints": [{"stage": "weights", "row": 1, "col": 1, "printed": NaN}])")
                                      << "misprints[0].printed" << QStringList{"not a finite number"};
        QTest::newRow("misprint key") << withSmallInputs(R"("misprints": [{"stage": "weights", "row": 1, "col": 1, "printed": 1, "value": 2}])")
                                      << "misprints[0].value" << QStringList{"unknown key"};
        QTest::newRow("misprints not an array") << withSmallInputs(R"("misprints": {"stage": "weights"})")
                                                << "misprints" << QStringList{"expected an array"};
        QTest::newRow("tokens count") << withSmallInputs(R"("tokens": ["a", "b"])") << "tokens"
                                      << QStringList{"2 labels for 1 query rows"};
        QTest::newRow("source_tokens count") << withSmallInputs(R"("source_tokens": ["a"])") << "source_tokens"
                                             << QStringList{"1 labels for 3 key rows"};
        QTest::newRow("token not a string") << withSmallInputs(R"("tokens": [1])") << "tokens[0]" << QStringList{"expected a string"};
        QTest::newRow("wrong format") << withSmallInputs(R"("format": "attention-lab/trace")") << "format"
                                      << QStringList{"attention-lab/trace", "attention-lab/scenario"};
        QTest::newRow("newer version") << withSmallInputs(R"("version": 2)") << "version" << QStringList{"2", "newer"};
        QTest::newRow("version 0") << withSmallInputs(R"("version": 0)") << "version" << QStringList{"between 1"};
        QTest::newRow("seed negative") << withSmallInputs(R"("seed": -1)") << "seed" << QStringList{"between 0", "got -1"};
        // 2^63, one past the range: its digits and the range in words, not 9.2233720368547758e+18.
        QTest::newRow("seed 2^63") << withSmallInputs(R"("seed": 9223372036854775808)") << "seed"
                                   << QStringList{"between 0 and 9223372036854775807", "2^63 - 1", "(got 9223372036854775808)"};
        QTest::newRow("seed 1e30") << withSmallInputs(R"("seed": 1e30)") << "seed" << QStringList{"2^63 - 1", "got 1e+30"};
        QTest::newRow("title a number") << withSmallInputs(R"("title": 5)") << "title" << QStringList{"expected a string"};
        // A quiz's settings are read with the file, as the file's own settings are.
        const auto quizOpen = [](const QByteArray &open) {
            return withSmallInputs(R"("quiz": [{"question": {"en": "q"}, "choices": [{"en": "a"}, {"en": "b"}], "answer": [0], "open": )"
                                   + open + "}]");
        };
        QTest::newRow("quiz: unknown mask_stage") << quizOpen(R"({"mask_stage": "during"})") << "quiz[0].open.mask_stage"
                                                  << QStringList{"\"during\"", "before_softmax, after_softmax"};
        QTest::newRow("quiz: unknown scale") << quizOpen(R"({"lesson": "causal", "scale": "half"})") << "quiz[0].open.scale"
                                             << QStringList{"\"half\"", "sqrt_dk, none, dk"};
        QTest::newRow("quiz: unknown similarity") << quizOpen(R"({"similarity": "euclid"})") << "quiz[0].open.similarity"
                                                  << QStringList{"\"euclid\"", "dot, cosine, neg_sq_distance"};
        QTest::newRow("quiz: unknown positional_encoding") << quizOpen(R"({"positional_encoding": "alibi"})")
                                                           << "quiz[0].open.positional_encoding"
                                                           << QStringList{"\"alibi\"", "none, sinusoidal, learned, rope"};
        QTest::newRow("quiz: scale not a string") << quizOpen(R"({"scale": 1})") << "quiz[0].open.scale"
                                                  << QStringList{"expected a string"};
        QTest::newRow("quiz: causal not a bool") << quizOpen(R"({"causal": "yes"})") << "quiz[0].open.causal"
                                                 << QStringList{"expected true or false"};
        QTest::newRow("quiz: temperature not a quiz key") << quizOpen(R"({"temperature": 2})") << "quiz[0].open.temperature"
                                                          << QStringList{"unknown key", "causal"};
    }

    void badInput()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, place);
        QFETCH(QStringList, reason);
        const ScenarioOrProblem r = scenarioFromJson(json);
        const auto *p = std::get_if<Problem>(&r);
        QVERIFY2(p, "the bad input loaded");
        QCOMPARE(QString::fromStdString(p->place), place);
        const QString message = QString::fromStdString(p->message);
        for (const QString &word : reason)
            QVERIFY2(message.contains(word), qPrintable(QStringLiteral("\"%1\" is not in \"%2\"").arg(word, message)));
        QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message)); // one line

        // A file says the same.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.json"));
        QVERIFY(writeFile(path, json));
        const ScenarioOrProblem fromFile = loadScenarioFile(path);
        QVERIFY(std::holds_alternative<Problem>(fromFile));
        QCOMPARE(QString::fromStdString(std::get<Problem>(fromFile).toString()), QString::fromStdString(p->toString()));
    }

    // Not JSON: the place is a line and a column, counted in characters.
    void notJsonLineAndColumn()
    {
        const ScenarioOrProblem r = scenarioFromJson("{\n  \"title\": \"t\",\n  \"inputs\": {\"Q\": [[1, 2]] \"K\": 1}}");
        const auto *p = std::get_if<Problem>(&r);
        QVERIFY(p);
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("^line (\\d+), column (\\d+)$")).match(QString::fromStdString(p->place));
        QVERIFY2(m.hasMatch(), p->place.c_str());
        QCOMPARE(m.captured(1).toInt(), 3);
        // The missing comma: "K" begins at column 28 (Qt stops one past it).
        const int column = m.captured(2).toInt();
        QVERIFY2(column >= 27 && column <= 29, qPrintable(QString::number(column)));

        // Three Chinese characters are three columns, not nine bytes.
        const ScenarioOrProblem chinese = scenarioFromJson(R"({"title": "我打你", x})");
        const ScenarioOrProblem ascii = scenarioFromJson(R"({"title": "abc", x})");
        QVERIFY(std::holds_alternative<Problem>(chinese) && std::holds_alternative<Problem>(ascii));
        QCOMPARE(QString::fromStdString(std::get<Problem>(chinese).place),
                 QString::fromStdString(std::get<Problem>(ascii).place));
    }

    // A JSON error after a NaN must be placed in the text as the user wrote
    // it: the same column as with a three-character number in its place.
    void notJsonColumnAfterNonFiniteNumber()
    {
        const ScenarioOrProblem withNaN = scenarioFromJson(R"({"inputs": {"Q": [[NaN]], "K": [[1]] "V": [[1]]}})");
        const ScenarioOrProblem withNumber = scenarioFromJson(R"({"inputs": {"Q": [[1.5]], "K": [[1]] "V": [[1]]}})");
        QVERIFY(std::holds_alternative<Problem>(withNaN) && std::holds_alternative<Problem>(withNumber));
        QCOMPARE(QString::fromStdString(std::get<Problem>(withNaN).place),
                 QString::fromStdString(std::get<Problem>(withNumber).place));
    }

    // A student pastes a matrix full of NaN: the first one is still named by
    // its place, however many there are (the reader gives up after 64).
    void manyNonFiniteNumbersNameTheFirst_data()
    {
        QTest::addColumn<int>("n");
        QTest::newRow("8 by 8 NaN") << 8;
        QTest::newRow("9 by 9 NaN") << 9;
    }

    void manyNonFiniteNumbersNameTheFirst()
    {
        QFETCH(int, n);
        QStringList rows;
        for (int i = 0; i < n; ++i) {
            QStringList row;
            for (int j = 0; j < n; ++j)
                row << QStringLiteral("NaN");
            rows << QLatin1Char('[') + row.join(QStringLiteral(", ")) + QLatin1Char(']');
        }
        const QString ones = QLatin1Char('[') + QStringList(n, QStringLiteral("1")).join(QStringLiteral(", ")) + QLatin1Char(']');
        const QByteArray json = QStringLiteral(R"({"inputs": {"Q": [%1], "K": [%2], "V": [[1]]}})")
                                    .arg(rows.join(QStringLiteral(", ")), ones).toUtf8();
        const ScenarioOrProblem r = scenarioFromJson(json);
        QVERIFY(std::holds_alternative<Problem>(r));
        QCOMPARE(QString::fromStdString(std::get<Problem>(r).place), QStringLiteral("inputs.Q[0][0]"));
        QVERIFY2(problemText(r).contains(QLatin1String("NaN")), qPrintable(problemText(r)));
    }

    // "+1" is finite; it is refused because JSON has no leading plus, and the
    // message must not say it is not a finite number.
    void leadingPlusIsNotCalledNonFinite()
    {
        const ScenarioOrProblem r = scenarioFromJson(
            R"({"inputs": {"Q": [[1, +1]], "K": [[1, 0]], "V": [[1]]}})");
        QVERIFY(std::holds_alternative<Problem>(r));
        const QString text = problemText(r);
        QVERIFY2(!text.contains(QLatin1String("not a finite number")), qPrintable(text));
    }

    // ---- keys this version does not read, duplicate keys, lone surrogates ----

    // A newer version's keys and a teacher's own come back from load and save
    // with their values, at the top level and inside inputs and mask.
    void unknownKeysAreWrittenBack()
    {
        const ScenarioOrProblem lesson = loadLesson(QStringLiteral("causal"));
        QVERIFY(std::holds_alternative<Scenario>(lesson));
        QJsonObject o = QJsonDocument::fromJson(scenarioToJson(std::get<Scenario>(lesson))).object();
        QVERIFY(o.contains(QLatin1String("title_zh_CN"))); // the lesson's own unread key, kept already
        o.insert(QStringLiteral("title_fr"), QStringLiteral("Masque causal"));
        o.insert(QStringLiteral("future"),
                 QJsonObject{{QStringLiteral("layers"), QJsonArray{1, 2, QJsonObject{{QStringLiteral("deep"), QJsonArray{QStringLiteral("x"), true, QJsonValue()}}}}},
                             {QStringLiteral("note"), QStringLiteral("é\n\"q\"")}});
        QJsonObject inputs = o.value(QLatin1String("inputs")).toObject();
        inputs.insert(QStringLiteral("bias"), QJsonArray{QJsonArray{0.5, -1e-300}});
        o.insert(QStringLiteral("inputs"), inputs);
        QJsonObject mask = o.value(QLatin1String("mask")).toObject();
        mask.insert(QStringLiteral("stride"), 3);
        o.insert(QStringLiteral("mask"), mask);

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("teacher.json"));
        QVERIFY(writeFile(path, QJsonDocument(o).toJson(QJsonDocument::Indented)));
        const ScenarioOrProblem r = loadScenarioFile(path);
        QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(problemText(r)));
        QVERIFY(std::get<Scenario>(r) == std::get<Scenario>(lesson)); // nothing computed changes
        QCOMPARE(reasonOf(saveScenarioFile(path, std::get<Scenario>(r))), QString());
        const QByteArray saved = readFile(path);
        QJsonParseError error;
        const QJsonDocument back = QJsonDocument::fromJson(saved, &error);
        QVERIFY2(error.error == QJsonParseError::NoError, saved.constData());
        QCOMPARE(back.object(), o); // every key, read or not, with its value
        const ScenarioOrProblem again = scenarioFromJson(saved);
        QVERIFY(std::holds_alternative<Scenario>(again));
        QCOMPARE(scenarioToJson(std::get<Scenario>(again)), saved); // save, load, save: the same bytes
    }

    // A quiz question's "open" settings are read once into typed values;
    // the quiz's text stays as it was written, so saving writes it back.
    void quizSettingsAreTyped()
    {
        const QByteArray open = R"({"lesson": "causal", "view": "steps", "scale": "none", "positional_encoding": "rope",
                   "mask_stage": "after_softmax", "similarity": "cosine", "causal": false})";
        const QByteArray json = withSmallInputs(
            R"("quiz": [{"id": "a", "question": {"en": "q"}, "choices": [{"en": "a"}, {"en": "b"}], "answer": [1],
            "open": )" + open + R"(}, {"question": {"en": "r"}, "choices": [{"en": "c"}, {"en": "d"}], "answer": [0]}])");
        const ScenarioOrProblem r = scenarioFromJson(json);
        QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(problemText(r)));
        const Scenario s = std::get<Scenario>(r);
        QCOMPARE(int(s.quiz.size()), 2);
        const SettingsPatch &p = s.quiz[0].settings;
        QCOMPARE(s.quiz[0].lesson, std::string("causal"));
        QCOMPARE(s.quiz[0].view, std::string("steps"));
        QVERIFY(p.scale == Scale::None);
        QVERIFY(p.encoding == Encoding::Rope);
        QVERIFY(p.maskStage == MaskStage::AfterSoftmax);
        QVERIFY(p.similarity == Similarity::Cosine);
        QVERIFY(p.causal == false);
        QVERIFY(!p.empty());
        QVERIFY(s.quiz[1].settings.empty());
        // Applied over settings, it sets what it names and keeps the rest.
        Settings t;
        t.mask.causal = true;
        t.temperature = 0.5;
        t.seed = 99;
        p.applyTo(t);
        QVERIFY(t.scale == Scale::None && t.encoding == Encoding::Rope && t.maskStage == MaskStage::AfterSoftmax
                && t.similarity == Similarity::Cosine && !t.mask.causal);
        QCOMPARE(t.temperature, 0.5);
        QCOMPARE(t.seed, std::uint64_t(99));
        Settings u = t;
        s.quiz[1].settings.applyTo(u);
        QVERIFY(u == t);
        // Saved, the quiz is written back as it was, and reads the same.
        const QByteArray saved = scenarioToJson(s);
        QVERIFY2(saved.contains(open), saved.constData());
        const ScenarioOrProblem back = scenarioFromJson(saved);
        QVERIFY(std::holds_alternative<Scenario>(back));
        QVERIFY(std::get<Scenario>(back).quiz[0].settings == p);
        QCOMPARE(scenarioToJson(std::get<Scenario>(back)), saved);
    }

    // A lesson's misprints: read with their cells counted from 1, kept as
    // written when saved, and an edit that removes a cell drops only its own.
    void misprintsAreReadAndKept()
    {
        const QByteArray list = R"([{"stage": "weights", "row": 1, "col": 3, "printed": 0.0978},
            {"stage": "output", "head": 1, "row": 1, "col": 1, "printed": 0.8756}])";
        const ScenarioOrProblem r = scenarioFromJson(withSmallInputs(R"("misprints": )" + list));
        QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(problemText(r)));
        const Scenario s = std::get<Scenario>(r);
        const std::vector<Misprint> m = misprintsOf(s);
        QCOMPARE(int(m.size()), 2);
        QCOMPARE(m[0].stage, std::string("weights"));
        QCOMPARE(m[0].row, 0);
        QCOMPARE(m[0].col, 2);
        QCOMPARE(m[0].head, 0);
        QCOMPARE(m[0].printed, 0.0978);
        QCOMPARE(m[1].stage, std::string("output"));
        QCOMPARE(m[1].col, 0);
        QCOMPARE(m[1].printed, 0.8756);
        const QByteArray saved = scenarioToJson(s);
        QVERIFY2(saved.contains(list), saved.constData());
        // Key 3 removed: the weights' misprint at column 3 has no cell any more.
        Scenario fewer = s;
        fewer.K = s.K.topRows(2);
        fewer.V = s.V.topRows(2);
        const std::vector<Misprint> left = misprintsOf(fewer);
        QCOMPARE(int(left.size()), 1);
        QCOMPARE(left[0].stage, std::string("output"));
        QVERIFY(misprintsOf(std::get<Scenario>(scenarioFromJson(withSmallInputs("")))).empty());
    }

    // Kept as written: the order, the spelling of numbers and escapes, even a
    // NaN under a key this version ignores.
    void unknownKeysKeepTheirText()
    {
        const QByteArray file = R"({"zeta": 1.50, "inputs": {"Q": [[1, 0]], "bias": [[NaN]], "K": [[1, 0]], "V": [[1]]},
            "alpha": {"b": 1e999 , "c": [ ]}, "mask": {"stride": "3 \u00e9", "causal": false}, "title_zh_CN": "因果\u001b"})";
        const ScenarioOrProblem r = scenarioFromJson(file);
        QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(problemText(r)));
        const QByteArray saved = scenarioToJson(std::get<Scenario>(r));
        QVERIFY2(saved.endsWith("  \"seed\": 7,\n  \"zeta\": 1.50,\n  \"alpha\": {\"b\": 1e999 , \"c\": [ ]},\n"
                                "  \"title_zh_CN\": \"因果\\u001b\"\n}\n"), saved.constData());
        QVERIFY2(saved.contains("    \"V\": [[1]],\n    \"bias\": [[NaN]]\n  },\n"), saved.constData());
        QVERIFY2(saved.contains("\"mask\": {\"causal\": false, \"stride\": \"3 \\u00e9\"},\n"), saved.constData());
        const ScenarioOrProblem again = scenarioFromJson(saved);
        QVERIFY2(std::holds_alternative<Scenario>(again), qPrintable(problemText(again)));
        QCOMPARE(scenarioToJson(std::get<Scenario>(again)), saved);
        // A file with nothing unread keeps nothing, and writes as before.
        const ScenarioOrProblem plain = scenarioFromJson(withSmallInputs(R"("heads": 1)"));
        QVERIFY(std::holds_alternative<Scenario>(plain));
        QVERIFY(std::get<Scenario>(plain).extra.empty());
        QVERIFY(!std::get<Scenario>(r).extra.empty());
    }

    // A direct-mode file's unread "X" is kept, until the lesson turns
    // projected and writes its own X: never two keys of one name.
    void unreadInputsGiveWayToWrittenOnes()
    {
        const ScenarioOrProblem r =
            scenarioFromJson(R"({"inputs": {"Q": [[1, 0]], "K": [[1, 0]], "V": [[1]], "X": [[7, 7]], "note": "kept"}})");
        QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(problemText(r)));
        Scenario s = std::get<Scenario>(r);
        QVERIFY2(scenarioToJson(s).contains("\"X\": [[7, 7]]"), scenarioToJson(s).constData());
        s.mode = InputMode::Projected;
        s.Q = s.K = s.V = Matrix(); // a projected lesson has none of its own
        s.X = Matrix{{1, 2}};
        s.Wq = Matrix{{1}, {0}};
        s.Wk = Matrix{{1}, {0}};
        s.Wv = Matrix{{1}, {1}};
        const QByteArray saved = scenarioToJson(s);
        QCOMPARE(saved.count("\"X\""), 1);
        QVERIFY2(saved.contains("\"X\": [[1, 2]]") && saved.contains("\"note\": \"kept\""), saved.constData());
        const ScenarioOrProblem back = scenarioFromJson(saved);
        QVERIFY2(std::holds_alternative<Scenario>(back), qPrintable(problemText(back)));
        QVERIFY(std::get<Scenario>(back) == s);
    }

    // The last of two equal keys no longer wins silently: the file is refused
    // with the key's place.
    void duplicateKeysAreRefused_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("place");
        const QByteArray in = R"("inputs": {"Q": [[1, 0]], "K": [[1, 0]], "V": [[1]]})";
        QTest::newRow("top level") << "{\"heads\": 1, " + in + ", \"heads\": 2}" << "heads";
        QTest::newRow("spelt with an escape") << "{\"heads\": 1, " + in + ", \"h\\u0065ads\": 1}" << "heads";
        QTest::newRow("in mask") << "{\"mask\": {\"causal\": true, \"causal\": false}, " + in + "}" << "mask.causal";
        QTest::newRow("in inputs") << QByteArray(R"({"inputs": {"Q": [[1, 0]], "K": [[1, 0]], "V": [[1]], "Q": [[2, 0]]}})")
                                   << "inputs.Q";
        QTest::newRow("inputs twice") << "{" + in + ", " + in + "}" << "inputs";
        QTest::newRow("a teacher's key") << "{\"title_zh_CN\": \"a\", " + in + ", \"title_zh_CN\": \"b\"}" << "title_zh_CN";
        QTest::newRow("deep in an unread key") << "{\"future\": [{\"a\": 1}, {\"a\": 1, \"b\": {}, \"a\": 2}], " + in + "}"
                                               << "future[1].a";
    }

    void duplicateKeysAreRefused()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, place);
        const ScenarioOrProblem r = scenarioFromJson(json);
        const auto *p = std::get_if<Problem>(&r);
        QVERIFY2(p, "a file with a duplicate key loaded");
        QCOMPARE(QString::fromStdString(p->place), place);
        QVERIFY2(QString::fromStdString(p->message).contains(QLatin1String("twice")), p->message.c_str());
    }

    // Equal names in different objects are no duplicates.
    void sameKeyInDifferentObjectsLoads()
    {
        const ScenarioOrProblem r = scenarioFromJson(
            R"({"a": {"a": 1, "b": [{"a": 2}, {"a": 3}]}, "b": 1, "mask": {"causal": false}, "inputs": {"Q": [[1, 0]], "K": [[1, 0]], "V": [[1]], "mask": 1}})");
        QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(problemText(r)));
    }

    // "\ud800" alone is half a character: refused with its place, never "?".
    void loneSurrogatesAreRefused_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("place");
        QTest::addColumn<QString>("escape");
        const QByteArray in = R"("inputs": {"Q": [[1, 0]], "K": [[1, 0]], "V": [[1]]})";
        QTest::newRow("high alone in a label") << "{\"tokens\": [\"\\ud800\"], " + in + "}" << "tokens[0]" << "\\ud800";
        QTest::newRow("low alone in the title") << "{\"title\": \"x\\udc00y\", " + in + "}" << "title" << "\\udc00";
        QTest::newRow("high before a letter") << "{\"description\": \"\\ud83d\\u0041\", " + in + "}" << "description" << "\\ud83d";
        QTest::newRow("two highs") << "{\"source_tokens\": [\"a\", \"\\ud83d\\ud83d\"], " + in + "}" << "source_tokens[1]" << "\\ud83d";
        QTest::newRow("low before high") << "{\"title\": \"\\uDE00\\uD83D\", " + in + "}" << "title" << "\\uDE00";
        QTest::newRow("in an unread key") << "{\"future\": {\"note\": \"\\ud800\"}, " + in + "}" << "future.note" << "\\ud800";
        QTest::newRow("in a key") << "{\"mask\": {\"\\udfff\": 1}, " + in + "}" << "mask" << "\\udfff";
    }

    void loneSurrogatesAreRefused()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, place);
        QFETCH(QString, escape);
        const ScenarioOrProblem r = scenarioFromJson(json);
        const auto *p = std::get_if<Problem>(&r);
        QVERIFY2(p, "a lone surrogate loaded");
        QCOMPARE(QString::fromStdString(p->place), place);
        const QString message = QString::fromStdString(p->message);
        QVERIFY2(message.contains(QLatin1String("lone surrogate")) && message.contains(escape), qPrintable(message));
    }

    // A pair is one character, written back as itself.
    void surrogatePairsAreCharacters()
    {
        const ScenarioOrProblem r =
            scenarioFromJson(R"({"tokens": ["\ud83d\ude00", "\u6ce8\u610f"], "inputs": {"Q": [[1], [2]], "K": [[1]], "V": [[1]]}})");
        QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(problemText(r)));
        QCOMPARE(QString::fromStdString(std::get<Scenario>(r).tokens[0]), QStringLiteral("\U0001F600"));
        QCOMPARE(QString::fromStdString(std::get<Scenario>(r).tokens[1]), QStringLiteral("注意"));
    }

    // ---- files ----

    void emptyFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("empty.json"));
        QVERIFY(writeFile(path, QByteArray()));
        const ScenarioOrProblem r = loadScenarioFile(path);
        QVERIFY(std::holds_alternative<Problem>(r));
        QVERIFY2(problemText(r).contains(QLatin1String("not valid JSON")), qPrintable(problemText(r)));
    }

    void missingFile()
    {
        QTemporaryDir dir;
        const ScenarioOrProblem r = loadScenarioFile(dir.filePath(QStringLiteral("nosuch.json")));
        QVERIFY(std::holds_alternative<Problem>(r));
        QVERIFY2(problemText(r).contains(QLatin1String("cannot be read")), qPrintable(problemText(r)));
    }

    void directoryIsNotAFile()
    {
        QTemporaryDir dir;
        const ScenarioOrProblem r = loadScenarioFile(dir.path());
        QVERIFY(std::holds_alternative<Problem>(r));
        QVERIFY2(problemText(r).contains(QLatin1String("not a file")), qPrintable(problemText(r)));
    }

    // scenario_json.h: "a problem names the file in its message when it cannot be read".
    // The loader says why; its callers (the CLI, the window) name the file,
    // as tests/cli and tests/gui check.
    void unreadableFileProblemSaysWhy_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("reason");
        QTest::newRow("missing") << QStringLiteral("nosuch.json") << QStringLiteral("cannot be read");
        QTest::newRow("directory") << QStringLiteral("folder.json") << QStringLiteral("is not a file");
    }

    void unreadableFileProblemSaysWhy()
    {
        QFETCH(QString, name);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("folder.json")));
        const ScenarioOrProblem r = loadScenarioFile(dir.filePath(name));
        QVERIFY(std::holds_alternative<Problem>(r));
        QVERIFY2(problemText(r).contains(reason), qPrintable(QStringLiteral("\"%1\" does not say %2").arg(problemText(r), reason)));
    }

    void saveIntoMissingFolderWritesNothing()
    {
        QTemporaryDir dir;
        const ScenarioOrProblem r = loadLesson(QStringLiteral("seed000-basic"));
        QVERIFY(std::holds_alternative<Scenario>(r));
        const QString path = dir.filePath(QStringLiteral("no/such/folder/lesson.json"));
        const QString why = reasonOf(saveScenarioFile(path, std::get<Scenario>(r)));
        QVERIFY2(!why.isEmpty(), "saving into a missing folder reported success");
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("no"))));
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
    }

    // Saving over a file replaces it whole.
    void saveReplacesAnOldFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("lesson.json"));
        QVERIFY(writeFile(path, QByteArray(100000, 'x')));
        const ScenarioOrProblem r = loadLesson(QStringLiteral("causal"));
        QVERIFY(std::holds_alternative<Scenario>(r));
        QCOMPARE(reasonOf(saveScenarioFile(path, std::get<Scenario>(r))), QString());
        QCOMPARE(readFile(path), scenarioToJson(std::get<Scenario>(r)));
    }

    // ---- the trace as JSON ----

    void traceJsonOfSeed000()
    {
        const ScenarioOrProblem r = loadLesson(QStringLiteral("seed000-basic"));
        QVERIFY(std::holds_alternative<Scenario>(r));
        const Scenario &s = std::get<Scenario>(r);
        const QJsonObject o = traceToJson(s, compute(s));
        const QJsonObject head = o.value(QLatin1String("heads")).toArray().at(0).toObject();
        for (const char *key : {"Q", "K", "V", "scores", "scaled", "blocked", "weights", "output"})
            QVERIFY2(head.value(QLatin1String(key)).isArray(), key);
        const double r2 = std::sqrt(2.0), z = std::exp(4 / r2) + 1 + std::exp(2 / r2);
        const Matrix w = matrixFromJson(head.value(QLatin1String("weights")));
        ATTN_COMPARE_MATRIX(w, (Matrix{{std::exp(4 / r2) / z, 1 / z, std::exp(2 / r2) / z}}), 1e-15);
        ATTN_COMPARE_MATRIX(matrixFromJson(head.value(QLatin1String("scaled"))), (Matrix{{4 / r2, 0, 2 / r2}}), 1e-15);
        ATTN_COMPARE_MATRIX(matrixFromJson(o.value(QLatin1String("output"))), w, 1e-15);
        QCOMPARE(head.value(QLatin1String("blocked")).toArray().at(0).toArray().at(1).toBool(true), false);
        const QJsonObject row = o.value(QLatin1String("rows")).toArray().at(0).toArray().at(0).toObject();
        QCOMPARE(row.value(QLatin1String("argmax")).toInt(-1), 0);
        QCOMPARE(row.value(QLatin1String("fully_masked")).toBool(true), false);
        ATTN_COMPARE_NEAR(row.value(QLatin1String("max_weight")).toDouble(), std::exp(4 / r2) / z, 1e-15);
        ATTN_COMPARE_NEAR(row.value(QLatin1String("entropy")).toDouble(), 0.6564748462, 1e-10);
        QCOMPARE(o.value(QLatin1String("source_tokens")).toArray().at(2).toString(), QStringLiteral("k3"));
    }


    // The streamed JSON is the document's JSON, byte for byte, for
    // every lesson and random scenarios of both modes, every option and
    // awkward labels; traceJsonSize counts exactly those bytes.
    void streamedJsonIsTheDocumentsJson()
    {
        auto check = [](const Scenario &s, const QString &at) {
            const Trace t = compute(s);
            const QByteArray expected = QJsonDocument(traceToJson(s, t)).toJson(QJsonDocument::Indented);
            QByteArray streamed;
            int chunks = 0;
            QVERIFY(writeTraceJson(s, t, [&](const QByteArray &c) {
                streamed += c;
                ++chunks;
                return true;
            }));
            QVERIFY2(streamed == expected, qPrintable(at));
            QVERIFY(chunks >= 1);
            QCOMPARE(traceJsonSize(s, t), qint64(expected.size()));
            QCOMPARE(traceJsonBytes(s, t), expected);
        };
        for (const QString &name : lessonIndex()) {
            const auto r = loadLesson(name);
            QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(name));
            check(std::get<Scenario>(r), name);
        }
        test::RandomOptions o;
        o.labels = true;
        for (std::uint64_t seed = 1; seed <= 300; ++seed)
            check(test::randomScenario(seed, o), QStringLiteral("seed %1").arg(seed));
    }

    // A large trace comes in pieces of about 1 MB, and a sink that refuses
    // stops the writer at once.
    void streamedJsonComesInPiecesAndStops()
    {
        Scenario s;
        s.Q = Matrix::Constant(300, 2, 0.25);
        s.K = Matrix::Constant(300, 2, -0.5);
        s.V = Matrix::Constant(300, 2, 1.0 / 3);
        const Trace t = compute(s);
        qsizetype largest = 0, total = 0;
        int chunks = 0;
        QVERIFY(writeTraceJson(s, t, [&](const QByteArray &c) {
            largest = std::max(largest, c.size());
            total += c.size();
            ++chunks;
            return true;
        }));
        // 4 maps of 300 x 300 numbers, each on a line of at least 25 bytes.
        QVERIFY2(total > 4 * 300 * 300 * 25, qPrintable(QString::number(total)));
        QVERIFY2(chunks >= total / (2 << 20), qPrintable(QString::number(chunks)));
        QVERIFY2(largest < 2 * 1024 * 1024, qPrintable(QString::number(largest)));
        int calls = 0;
        QVERIFY(!writeTraceJson(s, t, [&](const QByteArray &) { return ++calls < 2; }));
        QCOMPARE(calls, 2);
    }

    // JSON shown on a terminal: DEL, C1, the separators and bidi controls
    // escaped; the parsed strings are the same.
    void escapeTerminalControlsEscapesAndParsesBack_data()
    {
        QTest::addColumn<QString>("label");
        QTest::addColumn<QByteArray>("escaped");
        QTest::newRow("DEL") << QStringLiteral("a\x7f" "b") << QByteArray("a\\u007fb");
        QTest::newRow("C1 CSI") << QStringLiteral("\u009b" "2J") << QByteArray("\\u009b2J");
        QTest::newRow("bidi override") << QStringLiteral("abc\u202e" "def") << QByteArray("abc\\u202edef");
        QTest::newRow("isolate") << QStringLiteral("x\u2066y") << QByteArray("x\\u2066y");
        QTest::newRow("line separator") << QStringLiteral("a\u2028" "b") << QByteArray("a\\u2028b");
        QTest::newRow("Chinese unchanged") << QStringLiteral("注意力 é") << QByteArray("注意力 é");
    }

    void escapeTerminalControlsEscapesAndParsesBack()
    {
        QFETCH(QString, label);
        QFETCH(QByteArray, escaped);
        const QByteArray json = QJsonDocument(QJsonArray{label}).toJson(QJsonDocument::Compact);
        const QByteArray safe = escapeTerminalControls(json);
        QCOMPARE(safe, "[\"" + escaped + "\"]");
        QCOMPARE(QJsonDocument::fromJson(safe).array().at(0).toString(), label);
    }

    // The cost budget, worked from the formula: one head of n by n with
    // d_k = d_v = 1 holds 3n^2 (scores, scaled, weights) + n^2 (the mask)
    // + 9n (the head's Q, K, V, output; the layer's Q, K, V, concat, output).
    void traceBudgetRefusesBeforeComputing_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<bool>("accepted");
        QTest::addColumn<QString>("said"); // 4n^2 + 9n, by hand
        QTest::newRow("n = 2895, just under") << 2895 << true << "33 550 155";
        QTest::newRow("n = 2896, just over") << 2896 << false << "33 573 328";
        QTest::newRow("n = 4096, the audit's file") << 4096 << false << "67 145 728";
    }

    void traceBudgetRefusesBeforeComputing()
    {
        QFETCH(int, n);
        QFETCH(bool, accepted);
        QFETCH(QString, said);
        Scenario s;
        s.Q = Matrix::Zero(n, 1);
        s.K = Matrix::Zero(n, 1);
        s.V = Matrix::Zero(n, 1);
        const double cells = 4.0 * n * n + 9.0 * n;
        QCOMPARE(traceCells(s), cells);
        QCOMPARE(QString::number(qlonglong(cells)), QString(said).remove(QLatin1Char(' ')));
        QCOMPARE(kMaxTraceCells, 33554432.0);
        const auto p = validate(s);
        QCOMPARE(!p.has_value(), accepted);
        if (p) {
            QCOMPARE(QString::fromStdString(p->place), QStringLiteral("inputs"));
            const QString m = QString::fromStdString(p->message);
            QVERIFY2(m.contains(QStringLiteral("would hold %1 numbers").arg(said)) && m.contains(QStringLiteral("limit of 33 554 432")),
                     qPrintable(m));
        }
        // Eight heads of n = 1024 (the benchmarks' largest) fit: 25 n^2 + 9n*8.
        Scenario eight;
        eight.heads = 8;
        eight.Q = Matrix::Zero(1024, 8);
        eight.K = Matrix::Zero(1024, 8);
        eight.V = Matrix::Zero(1024, 8);
        QCOMPARE(traceCells(eight), 25.0 * 1024 * 1024 + 9.0 * 1024 * 8);
        QVERIFY(!validate(eight));
    }

    // Labels and titles: characters, not bytes, are counted.
    void longLabelsAreRefusedAtLoad_data()
    {
        QTest::addColumn<QByteArray>("settings");
        QTest::addColumn<QString>("mentions"); // empty: loads
        const QByteArray zh64 = QString(64, QChar(0x6CE8)).toUtf8(), zh65 = QString(65, QChar(0x6CE8)).toUtf8();
        QTest::newRow("64 Chinese characters") << "\"tokens\": [\"" + zh64 + "\"]" << QString();
        QTest::newRow("65 Chinese characters") << "\"tokens\": [\"" + zh65 + "\"]"
                                               << "tokens[0]: a token name can have at most 64 characters (this one has 65)";
        // The teacher's case, read as a teacher reads it, with the place the command line needs.
        QTest::newRow("93 characters") << "\"tokens\": [\"" + QByteArray(93, 'w') + "\"]"
                                       << "tokens[0]: a token name can have at most 64 characters (this one has 93)";
        QTest::newRow("source label of 10000") << "\"source_tokens\": [\"a\", \"b\", \"" + QByteArray(10000, 'x') + "\"]"
                                               << "source_tokens[2]: a token name can have at most 64 characters (this one has 10000)";
        QTest::newRow("title of 200") << "\"title\": \"" + QByteArray(200, 't') + "\"" << QString();
        QTest::newRow("title of 201") << "\"title\": \"" + QByteArray(201, 't') + "\""
                                      << "title: a title can have at most 200 characters (this one has 201)";
    }

    void longLabelsAreRefusedAtLoad()
    {
        QFETCH(QByteArray, settings);
        QFETCH(QString, mentions);
        const ScenarioOrProblem r = scenarioFromJson(withSmallInputs(settings));
        if (mentions.isEmpty())
            QVERIFY2(std::holds_alternative<Scenario>(r), qPrintable(problemText(r)));
        else
            QVERIFY2(problemText(r).contains(mentions), qPrintable(problemText(r)));
    }

    // The file size is checked before a byte is parsed: exactly the limit
    // loads (spaces after the object), one byte more is refused naming both.
    void fileSizeIsBoundedBeforeParsing()
    {
        QTemporaryDir dir;
        const QByteArray body = withSmallInputs({});
        QCOMPARE(kMaxScenarioFileBytes, qint64(16 * 1024 * 1024));
        const QString at = dir.filePath(QStringLiteral("at.json")), over = dir.filePath(QStringLiteral("over.json"));
        QVERIFY(writeFile(at, body + QByteArray(kMaxScenarioFileBytes - body.size(), ' ')));
        QVERIFY(writeFile(over, body + QByteArray(kMaxScenarioFileBytes - body.size() + 1, ' ')));
        QVERIFY2(std::holds_alternative<Scenario>(loadScenarioFile(at)), qPrintable(problemText(loadScenarioFile(at))));
        QCOMPARE(problemText(loadScenarioFile(over)), QStringLiteral("is 16777217 bytes, more than the limit of 16777216 (16 MiB)"));
    }

    // A scenario whose file Open would refuse is not saved: nothing unreadable is written.
    void saveRefusesAFileTooLargeToOpen()
    {
        QTemporaryDir dir;
        Scenario s;
        test::TestRng rng(5);
        s.Q = test::randomMatrix(rng, 1000, 1000, 1.0); // about 19 bytes a number: 19 MB
        s.K = s.Q;
        s.V = s.Q;
        const QString path = dir.filePath(QStringLiteral("big.json"));
        const auto p = saveScenarioFile(path, s);
        QVERIFY(p.has_value());
        QVERIFY2(QString::fromStdString(p->message).contains(QStringLiteral("more than the limit of 16777216")),
                 qPrintable(QString::fromStdString(p->toString())));
        QVERIFY(!QFileInfo::exists(path));
    }

    // Over random scenarios: the JSON holds the trace's numbers, all finite;
    // a fully masked row has argmax null and the flag.
    void traceJsonMatchesTrace()
    {
        int fullyMasked = 0;
        for (std::uint64_t seed = 1; seed <= 200; ++seed) {
            const Scenario s = test::randomScenario(seed);
            const Trace t = compute(s);
            const QJsonObject o = traceToJson(s, t);
            const QString at = QStringLiteral("seed %1").arg(seed);
            ATTN_VERIFY_NO_MISMATCH(nonFiniteIn(o, QStringLiteral("trace")), at);
            const QJsonArray heads = o.value(QLatin1String("heads")).toArray();
            const QJsonArray rows = o.value(QLatin1String("rows")).toArray();
            QCOMPARE(heads.size(), qsizetype(s.heads));
            QCOMPARE(rows.size(), qsizetype(s.heads));
            for (int h = 0; h < s.heads; ++h) {
                const HeadTrace &ht = t.heads[std::size_t(h)];
                const QJsonObject head = heads.at(h).toObject();
                ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(matrixFromJson(head.value(QLatin1String("Q"))), ht.Q, 0, 0), at + " Q");
                ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(matrixFromJson(head.value(QLatin1String("scaled"))), ht.scaled, 0, 0), at + " scaled");
                ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(matrixFromJson(head.value(QLatin1String("weights"))), ht.weights, 0, 0), at + " weights");
                ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(matrixFromJson(head.value(QLatin1String("output"))), ht.output, 0, 0), at + " output");
                const QJsonArray headRows = rows.at(h).toArray();
                QCOMPARE(headRows.size(), qsizetype(ht.rows.size()));
                for (qsizetype i = 0; i < headRows.size(); ++i) {
                    const QJsonObject row = headRows.at(i).toObject();
                    const RowStats &rs = ht.rows[std::size_t(i)];
                    QCOMPARE(row.value(QLatin1String("fully_masked")).toBool(), rs.fullyMasked);
                    if (rs.fullyMasked) {
                        ++fullyMasked;
                        QVERIFY(row.value(QLatin1String("argmax")).isNull());
                    } else {
                        QCOMPARE(row.value(QLatin1String("argmax")).toInt(-1), rs.argmax);
                    }
                    QCOMPARE(row.value(QLatin1String("entropy")).toDouble(), rs.entropy);
                }
            }
            ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(matrixFromJson(o.value(QLatin1String("output"))), t.output, 0, 0), at + " output");
        }
        QVERIFY(fullyMasked > 5);
    }

    // ---- names the program makes, and what it finds at them ----

    void derivedNamesAreCleaned_data()
    {
        QTest::addColumn<QString>("raw");
        QTest::addColumn<QString>("clean");
        QTest::newRow("plain") << QStringLiteral("causal") << QStringLiteral("causal");
        QTest::newRow("Chinese") << QStringLiteral("我打你") << QStringLiteral("我打你");
        QTest::newRow("escape") << QStringLiteral("bad\x1b[31mname") << QStringLiteral("bad_[31mname");
        QTest::newRow("newline, tab, DEL") << QStringLiteral("a\nb\tc\x7f") << QStringLiteral("a_b_c_");
        QTest::newRow("C1 control") << QString::fromUtf8("a\xc2\x9b" "b") << QStringLiteral("a_b");
        QTest::newRow("right-to-left override") << QString::fromUtf8("x\xe2\x80\xae" "gnp") << QStringLiteral("x_gnp");
        QTest::newRow("leading dot") << QStringLiteral(".hidden") << QStringLiteral("_hidden");
        QTest::newRow("dot alone") << QStringLiteral(".") << QStringLiteral("_");
        QTest::newRow("slashes") << QStringLiteral("a/b\\c") << QStringLiteral("a_b_c");
        QTest::newRow("inner dots stay") << QStringLiteral("v1.2") << QStringLiteral("v1.2");
        QTest::newRow("empty") << QString() << QString();
    }

    void derivedNamesAreCleaned()
    {
        QFETCH(QString, raw);
        QFETCH(QString, clean);
        QCOMPARE(cleanDerivedName(raw), clean);
    }

    void folderNamesComeFromTheWholePath()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("gpt2")));
        const QString gpt2 = dir.filePath(QStringLiteral("gpt2"));
        QCOMPARE(cleanFolderName(gpt2 + QStringLiteral("/."), QStringLiteral("model")), QStringLiteral("gpt2"));
        QCOMPARE(cleanFolderName(gpt2 + QStringLiteral("/"), QStringLiteral("model")), QStringLiteral("gpt2"));
        QCOMPARE(cleanFolderName(gpt2 + QStringLiteral("/sub/.."), QStringLiteral("model")), QStringLiteral("gpt2"));
        QCOMPARE(cleanFolderName(QStringLiteral("/"), QStringLiteral("model")), QStringLiteral("model"));
        QCOMPARE(cleanFolderName(QStringLiteral(":/models/tiny-bilingual"), QStringLiteral("model")), QStringLiteral("tiny-bilingual"));
        QCOMPARE(cleanFolderName(dir.filePath(QStringLiteral(".cache")), QStringLiteral("model")), QStringLiteral("_cache"));
    }

    void givenStemsThatNameAFolderAreRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("parent") << QStringLiteral("../../x") << QStringLiteral("'/'");
        QTest::newRow("absolute") << QStringLiteral("/tmp/x") << QStringLiteral("'/'");
        QTest::newRow("backslash") << QStringLiteral("a\\b") << QStringLiteral("'\\'");
        QTest::newRow("dot dot") << QStringLiteral("..") << QStringLiteral("\"..\"");
        QTest::newRow("escape") << QStringLiteral("a\x1b") << QStringLiteral("U+001B");
        QTest::newRow("hidden") << QStringLiteral(".x") << QStringLiteral("hidden");
        QTest::newRow("empty") << QString() << QStringLiteral("empty");
    }

    void givenStemsThatNameAFolderAreRefused()
    {
        QFETCH(QString, name);
        QFETCH(QString, mentions);
        const auto problem = whyNotAFileStem(name);
        QVERIFY(problem);
        const QString why = QString::fromStdString(problem->message);
        QVERIFY2(why.contains(mentions), qPrintable(why));
        QVERIFY(!why.contains(QLatin1Char('\n')));
    }

    void givenStemsThatAreNamesAreTaken()
    {
        for (const QString &name : {QStringLiteral("gpt2"), QStringLiteral("worksheet 3"), QStringLiteral("v1.2"), QStringLiteral("我打你")})
            QVERIFY(!whyNotAFileStem(name));
    }

    // A name the program made with a link at it (out/x.png -> ../vd/victim.txt):
    // the link is replaced by the new file and the file it named is untouched,
    // its bytes and its 0600 both; a dangling link's target is not created.
    void linksAtMadeNamesAreReplaced()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("vd")) && QDir(dir.path()).mkdir(QStringLiteral("out")));
        const QString victim = dir.filePath(QStringLiteral("vd/victim.txt"));
        QVERIFY(writeFile(victim, "secret"));
        QVERIFY(QFile::setPermissions(victim, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        const QString link = dir.filePath(QStringLiteral("out/ok_weights.png"));
        QCOMPARE(::symlink("../vd/victim.txt", QFile::encodeName(link).constData()), 0);
        const QString dangling = dir.filePath(QStringLiteral("out/ok_masked.png"));
        QCOMPARE(::symlink("../vd/missing.txt", QFile::encodeName(dangling).constData()), 0);

        QString replaced = QStringLiteral("stale");
        QCOMPARE(reasonOf(writeFileAtomically(link, "new figure", {.replaceLink = true, .replacedLink = &replaced})), QString());
        QCOMPARE(replaced, QStringLiteral("../vd/victim.txt"));
        QCOMPARE(reasonOf(writeFileAtomically(dangling, "new figure", {.replaceLink = true, .replacedLink = &replaced})), QString());
        QCOMPARE(replaced, QStringLiteral("../vd/missing.txt"));

        QCOMPARE(readFile(victim), QByteArray("secret"));
        QCOMPARE(QFile::permissions(victim), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser);
        QCOMPARE(entriesOf(dir.filePath(QStringLiteral("vd"))), QStringList{QStringLiteral("victim.txt")});
        for (const QString &path : {link, dangling}) {
            QVERIFY2(!QFileInfo(path).isSymLink(), qPrintable(path));
            QCOMPARE(readFile(path), QByteArray("new figure"));
        }
        QCOMPARE(entriesOf(dir.filePath(QStringLiteral("out"))), (QStringList{QStringLiteral("ok_masked.png"), QStringLiteral("ok_weights.png")}));
        // No link: nothing is said to have been replaced.
        QCOMPARE(reasonOf(writeFileAtomically(link, "again", {.replaceLink = true, .replacedLink = &replaced})), QString());
        QCOMPARE(replaced, QString());
        QCOMPARE(replacedLinkNote(link, QStringLiteral("../vd/victim.txt")),
                 link + QStringLiteral(": replaced a symbolic link to ../vd/victim.txt (../vd/victim.txt itself was not touched)"));
    }

    // The hidden kinds at an output path, made here: a FIFO is refused at
    // once (no hang waiting for a reader), a link to a device is replaced
    // when the program made the name and refused when the user named a file
    // to be written through it; a folder is refused either way.
    void specialFilesAtOutputs()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("fifo.png"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        for (bool replace : {false, true})
            QCOMPARE(reasonOf(writeFileAtomically(fifo, "x", {.replaceLink = replace})), QStringLiteral("it is not a regular file"));
        QVERIFY(QFileInfo(fifo).exists() && !QFileInfo(fifo).isFile());

        const QString device = dir.filePath(QStringLiteral("null.png"));
        QCOMPARE(::symlink("/dev/null", QFile::encodeName(device).constData()), 0);
        QCOMPARE(reasonOf(writeFileAtomically(device, "x")), QStringLiteral("it is not a regular file"));
        QVERIFY(QFileInfo(device).isSymLink());
        QString replaced;
        QCOMPARE(reasonOf(writeFileAtomically(device, "x", {.replaceLink = true, .replacedLink = &replaced})), QString());
        QCOMPARE(replaced, QStringLiteral("/dev/null"));
        QVERIFY(!QFileInfo(device).isSymLink() && QFileInfo(device).isFile());
        QVERIFY(QFileInfo(QStringLiteral("/dev/null")).exists());

        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("folder.png")));
        QCOMPARE(reasonOf(writeFileAtomically(dir.filePath(QStringLiteral("folder.png")), "x", {.replaceLink = true})),
                 QStringLiteral("it is a folder"));
        // A link to a folder at a made name is replaced too; the folder stays as it was.
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("elsewhere")));
        const QString toFolder = dir.filePath(QStringLiteral("dir.png"));
        QCOMPARE(::symlink("elsewhere", QFile::encodeName(toFolder).constData()), 0);
        QCOMPARE(reasonOf(writeFileAtomically(toFolder, "x", {.replaceLink = true})), QString());
        QVERIFY(QFileInfo(toFolder).isFile() && !QFileInfo(toFolder).isSymLink());
        QCOMPARE(entriesOf(dir.filePath(QStringLiteral("elsewhere"))), QStringList());
    }

    // A recovery file is its owner's alone, whatever the umask.
    void ownerOnlyFilesAre0600()
    {
        QTemporaryDir dir;
        const mode_t before = ::umask(0022);
        const QString path = dir.filePath(QStringLiteral("private.json"));
        QVERIFY(writeFile(path, "old"));
        QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther | QFileDevice::ReadGroup));
        const auto p = writeFileAtomically(path, "new", {.ownerOnly = true});
        const auto plain = writeFileAtomically(dir.filePath(QStringLiteral("plain.json")), "x");
        ::umask(before);
        QCOMPARE(reasonOf(p), QString());
        QCOMPARE(reasonOf(plain), QString());
        struct stat st;
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0600));
        QCOMPARE(::stat(QFile::encodeName(dir.filePath(QStringLiteral("plain.json"))).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0644));
    }

    // A writer killed before its rename leaves ".NAME.attnlab-PID-XXXXXX.tmp":
    // the next write into that folder removes every such file whose writer is
    // gone, whatever its name and age; a running writer's file stays, and so
    // does a file whose PID now belongs to a process that started after it.
    void leftoversOfGoneWritersAreRemovedAtOnce()
    {
        QTemporaryDir dir;
        const pid_t gone = pidOfAGoneProcess();
        QVERIFY(gone > 0 && ::kill(gone, 0) != 0);
        // A live child that started before its "leftover" was written.
        const pid_t child = ::fork();
        if (child == 0) {
            ::pause();
            ::_exit(0);
        }
        QVERIFY(child > 0);
        bool stopped = false;
        auto stopChild = [&] {
            if (!std::exchange(stopped, true)) {
                ::kill(child, SIGKILL);
                ::waitpid(child, nullptr, 0);
            }
        };
        const auto guard = qScopeGuard(stopChild);
        const QString goneSame = atomicTempName(QStringLiteral("lesson.json"), gone, QStringLiteral("aB3xYz"));
        const QString goneOther = atomicTempName(QStringLiteral("other.csv"), gone, QStringLiteral("Zz9900"));
        const QString neverRan = atomicTempName(QStringLiteral("x.png"), 0x7ffffff0, QStringLiteral("abcdef"));
        const QString childs = atomicTempName(QStringLiteral("lesson.json"), child, QStringLiteral("child1"));
        const QString ours = atomicTempName(QStringLiteral("lesson.json"), ::getpid(), QStringLiteral("ours12"));
        // Our own PID on a file written long before this process started:
        // an earlier process of the same PID (a container starts each run as the same PID).
        const QString reused = atomicTempName(QStringLiteral("lesson.json"), ::getpid(), QStringLiteral("reuse1"));
        for (const QString &name : {goneSame, goneOther, neverRan, childs, ours, reused})
            QVERIFY(writeFile(dir.filePath(name), "leftover"));
        QVERIFY(makeOlder(dir.filePath(reused), 1800)); // well within the hour
        const QStringList notOurs{QStringLiteral(".x.png.attnlab-12-abc.tmp"), QStringLiteral("x.png.attnlab-12-abcdef.tmp"),
                                  QStringLiteral(".x.png.attnlab-12-abcdef.tmp.bak")};
        for (const QString &name : notOurs)
            QVERIFY(writeFile(dir.filePath(name), "someone's"));

        const QString path = dir.filePath(QStringLiteral("lesson.json"));
        QCOMPARE(reasonOf(writeFileAtomically(path, "new")), QString());
        QCOMPARE(readFile(path), QByteArray("new"));
        QStringList expected = notOurs + QStringList{childs, ours, QStringLiteral("lesson.json")};
        expected.sort();
        QCOMPARE(entriesOf(dir.path()), expected);

        // The same without a write, as a start does; the child gone now, its file goes too.
        stopChild();
        removeAtomicLeftovers(dir.path());
        expected.removeOne(childs);
        QCOMPARE(entriesOf(dir.path()), expected);
    }
};

QTEST_GUILESS_MAIN(TestIo)
#include "test_io.moc"
