// attention-lab-cli, run as a user runs it (the built binary under QProcess)
// and called in-process through attn::runCli. Bad input of any kind must end
// with status 2 and one line on stderr, never a crash.

#include "attention.h"
#include "compare.h"
#include "attn_test.h"
#include "json_test.h"
#include "cli.h"
#include "cliargs.h"
#include "lessons.h"
#include "trace_text.h"
#include "random_scenario.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <csignal>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace attn;
using attn::test::num;
using attn::test::matrixFromJson;
using attn::test::nonFiniteIn;

namespace {

struct Run {
    bool finished = false;
    QProcess::ExitStatus status = QProcess::CrashExit;
    int code = -1;
    QString out, err;

    QString describe() const
    {
        return QStringLiteral("finished %1, %2, exit %3\nstdout: %4\nstderr: %5")
            .arg(finished).arg(status == QProcess::NormalExit ? "normal" : "crash").arg(code)
            .arg(out.left(2000), err.left(2000));
    }
};

QString cliBinary()
{
    return test::binaryDir() + QStringLiteral("/bin/attention-lab-cli");
}

Run runBinary(const QStringList &args)
{
    QProcess p;
    // As in CI and over SSH: no runtime folder given, which Qt warns about.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("XDG_RUNTIME_DIR"));
    p.setProcessEnvironment(env);
    p.start(cliBinary(), args);
    Run r;
    if (!p.waitForStarted(10000))
        return r;
    r.finished = p.waitForFinished(120000);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
        return r;
    }
    r.status = p.exitStatus();
    r.code = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// The binary run as a user runs it into a file or a shell redirection:
// stdout into `stdoutFile` (unless empty), under a file size limit of
// `fileLimit` bytes (unless negative; writes past it fail with EFBIG, as on
// a full disk), or through /bin/sh with `shellSuffix` after the command.
Run runBinaryWith(const QStringList &args, const QString &stdoutFile, long long fileLimit, const QString &shellSuffix = {})
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("XDG_RUNTIME_DIR"));
    p.setProcessEnvironment(env);
    if (!stdoutFile.isEmpty())
        p.setStandardOutputFile(stdoutFile, QIODevice::Truncate);
    if (fileLimit >= 0)
        p.setChildProcessModifier([fileLimit] {
            std::signal(SIGXFSZ, SIG_IGN);
            const rlimit r{rlim_t(fileLimit), rlim_t(fileLimit)};
            ::setrlimit(RLIMIT_FSIZE, &r);
        });
    if (shellSuffix.isEmpty())
        p.start(cliBinary(), args);
    else
        p.start(QStringLiteral("/bin/sh"), QStringList{QStringLiteral("-c"), QStringLiteral("exec \"$0\" \"$@\" ") + shellSuffix, cliBinary()} + args);
    Run r;
    if (!p.waitForStarted(10000))
        return r;
    r.finished = p.waitForFinished(120000);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
        return r;
    }
    r.status = p.exitStatus();
    r.code = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// A failed write: status 2 and exactly one line on stderr that says `reason`.
std::optional<QString> writeFailureProblem(const Run &r, const QString &reason)
{
    if (!r.finished || r.status != QProcess::NormalExit)
        return QStringLiteral("did not exit normally: ") + r.describe();
    if (r.code != 2)
        return QStringLiteral("exit status %1, expected 2: ").arg(r.code) + r.describe();
    if (!r.err.endsWith(QLatin1Char('\n')) || r.err.count(QLatin1Char('\n')) != 1)
        return QStringLiteral("stderr is not one line: \"%1\"").arg(r.err);
    if (!r.err.startsWith(QLatin1String("attention-lab-cli: ")) || !r.err.contains(reason))
        return QStringLiteral("stderr does not say \"%1\": \"%2\"").arg(reason, r.err);
    return std::nullopt;
}

QByteArray readBytes(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(cannot be read)");
}

Run runInProcess(const QStringList &args)
{
    QString out, err;
    Run r;
    {
        QTextStream o(&out), e(&err);
        r.code = runCli(args, o, e);
    }
    r.finished = true;
    r.status = QProcess::NormalExit;
    r.out = out;
    r.err = err;
    return r;
}

// Status 2, nothing on stdout, exactly one non-empty line on stderr.
std::optional<QString> badInputProblem(const Run &r)
{
    if (!r.finished || r.status != QProcess::NormalExit)
        return QStringLiteral("did not exit normally: ") + r.describe();
    if (r.code != 2)
        return QStringLiteral("exit status %1, expected 2: ").arg(r.code) + r.describe();
    if (!r.err.endsWith(QLatin1Char('\n')) || r.err.count(QLatin1Char('\n')) != 1 || r.err.trimmed().isEmpty())
        return QStringLiteral("stderr is not one line: \"%1\"").arg(r.err);
    if (!r.out.isEmpty())
        return QStringLiteral("stdout is not empty: \"%1\"").arg(r.out.left(500));
    return std::nullopt;
}

// The lesson names as index.json in the source tree gives them.
QStringList indexedLessons()
{
    QFile f(test::sourceDir() + QStringLiteral("/resources/lessons/index.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QStringList names;
    for (const QJsonValue &v : QJsonDocument::fromJson(f.readAll()).object().value(QLatin1String("lessons")).toArray())
        names << v.toString();
    return names;
}

struct ExperimentLine {
    double mean = 0, variance = 0, maxWeight = 0, entropy = 0, saturated = 0;
};

// "raw q·k   0.0378   64.2636   0.6872   0.5284   25.6%"
std::optional<ExperimentLine> experimentLine(const QString &out, const QString &label)
{
    const QRegularExpression re(QStringLiteral("^%1\\s+(-?[0-9.]+)\\s+(-?[0-9.]+)\\s+(-?[0-9.]+)\\s+(-?[0-9.]+)\\s+(-?[0-9.]+)%$")
                                    .arg(QRegularExpression::escape(label)),
                                QRegularExpression::MultilineOption);
    const QRegularExpressionMatch m = re.match(out);
    if (!m.hasMatch())
        return std::nullopt;
    return ExperimentLine{m.captured(1).toDouble(), m.captured(2).toDouble(), m.captured(3).toDouble(),
                          m.captured(4).toDouble(), m.captured(5).toDouble()};
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(cliBinary()).isExecutable(), qPrintable(cliBinary() + QStringLiteral(" is not there")));
        QVERIFY2(!indexedLessons().isEmpty(), qPrintable(test::sourceDir()));
    }

    // The hand calculation of seed 000, four decimals: the formula's weights, not the seed's printout.
    void traceTextSeed000()
    {
        const Run r = runBinary({QStringLiteral("trace"), QStringLiteral("--preset"), QStringLiteral("seed000-basic")});
        QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        for (const char *figure : {"0.7679", "0.0454", "0.1867", "2.8284", "1.4142", "4.0000"})
            QVERIFY2(r.out.contains(QLatin1String(figure)), qPrintable(QStringLiteral("%1 missing in\n%2").arg(figure, r.out)));
        QVERIFY2(!r.out.contains(QLatin1String("0.8756")), qPrintable(r.out));
        // Entropy of the row, by hand 0.656474846.
        QVERIFY2(r.out.contains(QLatin1String("0.6565")), qPrintable(r.out));
    }

    void traceJsonSeed000()
    {
        const Run r = runBinary({QStringLiteral("trace"), QStringLiteral("--preset"), QStringLiteral("seed000-basic"),
                                 QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.code == 0, qPrintable(r.describe()));
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const QJsonObject o = doc.object();
        ATTN_VERIFY_NO_MISMATCH(nonFiniteIn(o, QStringLiteral("trace")), QStringLiteral("seed000-basic"));
        const QJsonObject head = o.value(QLatin1String("heads")).toArray().at(0).toObject();
        const double r2 = std::sqrt(2.0), z = std::exp(4 / r2) + 1 + std::exp(2 / r2);
        const Matrix weights{{std::exp(4 / r2) / z, 1 / z, std::exp(2 / r2) / z}};
        ATTN_COMPARE_MATRIX(matrixFromJson(head.value(QLatin1String("Q"))), (Matrix{{2, 0}}), 0.0);
        ATTN_COMPARE_MATRIX(matrixFromJson(head.value(QLatin1String("K"))), (Matrix{{2, 0}, {0, 2}, {1, 1}}), 0.0);
        ATTN_COMPARE_MATRIX(matrixFromJson(head.value(QLatin1String("V"))), Matrix(Matrix::Identity(3, 3)), 0.0);
        ATTN_COMPARE_MATRIX(matrixFromJson(head.value(QLatin1String("scores"))), (Matrix{{4, 0, 2}}), 0.0);
        ATTN_COMPARE_MATRIX(matrixFromJson(head.value(QLatin1String("scaled"))), (Matrix{{4 / r2, 0, 2 / r2}}), 1e-15);
        ATTN_COMPARE_MATRIX(matrixFromJson(head.value(QLatin1String("weights"))), weights, 1e-15);
        ATTN_COMPARE_MATRIX(matrixFromJson(head.value(QLatin1String("output"))), weights, 1e-15);
        ATTN_COMPARE_MATRIX(matrixFromJson(o.value(QLatin1String("concat"))), weights, 1e-15);
        ATTN_COMPARE_MATRIX(matrixFromJson(o.value(QLatin1String("output"))), weights, 1e-15);
        const QJsonArray blocked = head.value(QLatin1String("blocked")).toArray().at(0).toArray();
        QCOMPARE(blocked.size(), qsizetype(3));
        for (const QJsonValue &b : blocked)
            QVERIFY(b.isBool() && !b.toBool());
        const QJsonObject row = o.value(QLatin1String("rows")).toArray().at(0).toArray().at(0).toObject();
        QCOMPARE(row.value(QLatin1String("argmax")).toInt(-1), 0);
        QCOMPARE(row.value(QLatin1String("fully_masked")).toBool(true), false);
        ATTN_COMPARE_NEAR(row.value(QLatin1String("sum")).toDouble(), 1.0, 1e-15);
        ATTN_COMPARE_NEAR(row.value(QLatin1String("max_weight")).toDouble(), std::exp(4 / r2) / z, 1e-15);
        ATTN_COMPARE_NEAR(row.value(QLatin1String("entropy")).toDouble(), 0.6564748462, 1e-10);
    }

    // Every lesson traces in both formats; the JSON holds what the core computes.
    void traceEveryLesson_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &name : indexedLessons())
            QTest::newRow(qPrintable(name)) << name;
    }

    void traceEveryLesson()
    {
        QFETCH(QString, name);
        const Run text = runBinary({QStringLiteral("trace"), QStringLiteral("--preset"), name});
        QVERIFY2(text.finished && text.status == QProcess::NormalExit && text.code == 0 && !text.out.isEmpty(),
                 qPrintable(text.describe()));
        QVERIFY2(!text.out.contains(QLatin1String("nan"), Qt::CaseInsensitive)
                     && !text.out.contains(QLatin1String("inf"), Qt::CaseInsensitive),
                 qPrintable(text.out));

        const Run json = runBinary({QStringLiteral("trace"), QStringLiteral("--preset"), name,
                                    QStringLiteral("--format=json")});
        QVERIFY2(json.finished && json.status == QProcess::NormalExit && json.code == 0, qPrintable(json.describe()));
        QJsonParseError error;
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        ATTN_VERIFY_NO_MISMATCH(nonFiniteIn(o, QStringLiteral("trace")), name);

        const ScenarioOrProblem loaded = loadLesson(name);
        QVERIFY(std::holds_alternative<Scenario>(loaded));
        const Trace t = compute(std::get<Scenario>(loaded));
        const QJsonArray heads = o.value(QLatin1String("heads")).toArray();
        QCOMPARE(heads.size(), qsizetype(t.heads.size()));
        for (std::size_t h = 0; h < t.heads.size(); ++h) {
            const QJsonObject head = heads.at(qsizetype(h)).toObject();
            ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(matrixFromJson(head.value(QLatin1String("weights"))),
                                                         t.heads[h].weights, 0, 1e-15),
                                    name + QStringLiteral(" weights"));
            ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(matrixFromJson(head.value(QLatin1String("output"))),
                                                         t.heads[h].output, 0, 1e-15),
                                    name + QStringLiteral(" output"));
            const QJsonArray rows = o.value(QLatin1String("rows")).toArray().at(qsizetype(h)).toArray();
            for (qsizetype i = 0; i < rows.size(); ++i)
                QCOMPARE(rows.at(i).toObject().value(QLatin1String("argmax")).toInt(-1), t.heads[h].rows[std::size_t(i)].argmax);
        }
        ATTN_VERIFY_NO_MISMATCH(test::matrixMismatch(matrixFromJson(o.value(QLatin1String("output"))), t.output, 0, 1e-15),
                                name + QStringLiteral(" output"));
    }

    void presetsListsEveryLesson()
    {
        const Run r = runBinary({QStringLiteral("presets")});
        QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.code == 0, qPrintable(r.describe()));
        const QStringList lines = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QStringList names = indexedLessons();
        QCOMPARE(lines.size(), 2 * names.size()); // a name line and a description line each
        for (qsizetype i = 0; i < names.size(); ++i) {
            QVERIFY2(lines[2 * i].startsWith(names[i] + QLatin1Char(' ')), qPrintable(lines[2 * i]));
            QVERIFY2(!lines[2 * i + 1].trimmed().isEmpty(), qPrintable(names[i]));
        }
    }

    // Seed 000's experiment: Var(q·k) ≈ d_k raw, ≈ 1 scaled; the same output every run.
    void experimentScaling()
    {
        const QStringList args{QStringLiteral("experiment"), QStringLiteral("scaling"), QStringLiteral("--dk"),
                               QStringLiteral("64"), QStringLiteral("--seed"), QStringLiteral("7"),
                               QStringLiteral("--trials"), QStringLiteral("20000")};
        const Run a = runBinary(args), b = runBinary(args);
        QVERIFY2(a.finished && a.status == QProcess::NormalExit && a.code == 0, qPrintable(a.describe()));
        QCOMPARE(b.out, a.out);
        const auto raw = experimentLine(a.out, QStringLiteral("raw q·k"));
        const auto scaled = experimentLine(a.out, QStringLiteral("scaled q·k/√d_k"));
        QVERIFY2(raw && scaled, qPrintable(a.out));
        // 20000 trials: the sample variance is within about 1% (one standard deviation) of the truth.
        ATTN_COMPARE_NEAR(raw->variance, 64.0, 64 * 0.05);
        ATTN_COMPARE_NEAR(scaled->variance, 1.0, 0.05);
        ATTN_COMPARE_NEAR(raw->variance / 64, scaled->variance, 1e-3); // the same draws, divided by √64
        ATTN_COMPARE_NEAR(raw->mean, 0.0, 6 * std::sqrt(64.0 / 20000));
        QVERIFY2(raw->maxWeight > scaled->maxWeight, qPrintable(a.out));
        QVERIFY2(raw->entropy < scaled->entropy, qPrintable(a.out));
        QVERIFY2(raw->saturated > 15 && scaled->saturated < 1, qPrintable(a.out));

        QStringList other = args;
        other[5] = QStringLiteral("8");
        const Run c = runBinary(other);
        QVERIFY2(c.code == 0 && c.out != a.out, qPrintable(c.describe()));
    }

    // Bad scenario files: status 2 and one line naming the file and the place.
    void badFile_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QByteArray>("content"); // empty name: no file; "dir": a folder
        QTest::addColumn<QStringList>("mentions");
        const QByteArray K3 = "[[1, 0], [0, 1], [1, 1]]", V3 = "[[1], [2], [3]]";
        const auto direct = [](const QByteArray &q, const QByteArray &k, const QByteArray &v, const QByteArray &extra = {}) {
            return QByteArray("{") + extra + R"("inputs": {"Q": )" + q + R"(, "K": )" + k + R"(, "V": )" + v + "}}";
        };
        QTest::newRow("not JSON") << "broken.json" << QByteArray("{\"inputs\": {\n  \"Q\": [[1, 2]\n") << QStringList{"line ", "column ", "not valid JSON"};
        QTest::newRow("empty file") << "empty.json" << QByteArray("") << QStringList{"line 1, column 1", "not valid JSON"};
        QTest::newRow("top level array") << "array.json" << QByteArray("[]") << QStringList{"top level"};
        QTest::newRow("ragged") << "ragged.json" << direct("[[1, 0]]", "[[1, 0], [0], [1, 1]]", V3) << QStringList{"inputs.K[1]"};
        QTest::newRow("non-number") << "abc.json" << direct("[[1, 0]]", R"([[1, 0], [0, 1], [1, "abc"]])", V3)
                                    << QStringList{"inputs.K[2][1]", "abc"};
        QTest::newRow("NaN") << "nan.json" << direct("[[1, NaN]]", K3, V3) << QStringList{"inputs.Q[0][1]", "NaN"};
        QTest::newRow("Infinity") << "inf.json" << direct("[[1, 0]]", K3, "[[1], [Infinity], [3]]") << QStringList{"inputs.V[1][0]", "Infinity"};
        QTest::newRow("-Infinity") << "ninf.json" << direct("[[-Infinity, 0]]", K3, V3) << QStringList{"inputs.Q[0][0]", "-Infinity"};
        QTest::newRow("1e999") << "big.json" << direct("[[1, 0]]", "[[1, 0], [0, 1e999], [1, 1]]", V3) << QStringList{"inputs.K[1][1]", "1e999"};
        QTest::newRow("heads do not divide") << "heads.json" << direct("[[1, 0]]", K3, V3, R"("heads": 2, )")
                                             << QStringList{"heads", "do not divide"};
        QTest::newRow("temperature 0") << "tau.json" << direct("[[1, 0]]", K3, V3, R"("temperature": 0, )")
                                       << QStringList{"temperature", "greater than 0"};
        QTest::newRow("temperature negative") << "tau2.json" << direct("[[1, 0]]", K3, V3, R"("temperature": -2, )")
                                              << QStringList{"temperature", "greater than 0"};
        QTest::newRow("causal, n_q != n_k") << "causal.json" << direct("[[1, 0]]", K3, V3, R"("mask": {"causal": true}, )")
                                            << QStringList{"mask.causal", "n_q = 1, n_k = 3"};
        QTest::newRow("RoPE, odd d_k") << "rope.json" << direct("[[1, 0, 1]]", "[[1, 0, 1]]", "[[1]]", R"("positional_encoding": "rope", )")
                                       << QStringList{"positional_encoding", "even"};
        QTest::newRow("unknown enum") << "enum.json" << direct("[[1, 0]]", K3, V3, R"("scale": "sqrt", )")
                                      << QStringList{"scale", "\"sqrt\"", "sqrt_dk, none, dk"};
        QTest::newRow("Chinese file name") << "坏的课.json" << direct("[[1, NaN]]", K3, V3) << QStringList{"inputs.Q[0][1]"};
        QTest::newRow("missing file") << "" << QByteArray() << QStringList{"cannot be read"};
        QTest::newRow("directory") << "dir" << QByteArray() << QStringList{"not a file"};
    }

    void badFile()
    {
        QFETCH(QString, fileName);
        QFETCH(QByteArray, content);
        QFETCH(QStringList, mentions);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString path;
        if (fileName.isEmpty()) {
            path = dir.filePath(QStringLiteral("nosuch.json"));
        } else if (fileName == QLatin1String("dir")) {
            path = dir.filePath(QStringLiteral("folder.json"));
            QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("folder.json")));
        } else {
            path = dir.filePath(fileName);
            QVERIFY(writeFile(path, content));
        }
        for (const Run &r : {runBinary({QStringLiteral("trace"), path}), runInProcess({QStringLiteral("trace"), path}),
                             runBinary({QStringLiteral("trace"), path, QStringLiteral("--format"), QStringLiteral("json")})}) {
            ATTN_VERIFY_NO_MISMATCH(badInputProblem(r), path);
            QVERIFY2(r.err.contains(path), qPrintable(QStringLiteral("\"%1\" does not name %2").arg(r.err, path)));
            for (const QString &m : mentions)
                QVERIFY2(r.err.contains(m), qPrintable(QStringLiteral("\"%1\" is not in \"%2\"").arg(m, r.err)));
        }
    }

    // Bad command lines: status 2 and one line that names what is wrong.
    void badInvocation_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown command") << QStringList{"explain"} << "explain";
        QTest::newRow("unknown option") << QStringList{"trace", "--preset", "seed000-basic", "--colour", "red"} << "--colour";
        QTest::newRow("unknown option of presets") << QStringList{"presets", "--all", "yes"} << "--all";
        QTest::newRow("unknown option, last") << QStringList{"presets", "--bogus"} << "unknown option --bogus";
        QTest::newRow("misspelt option without a value") << QStringList{"trace", "--preset", "causal", "--fromat"}
                                                         << "unknown option --fromat";
        QTest::newRow("option twice") << QStringList{"trace", "--preset", "causal", "--preset", "padding"}
                                      << "--preset is given twice";
        QTest::newRow("option twice with =") << QStringList{"trace", "--preset", "causal", "--format=json", "--format=text"}
                                             << "--format is given twice";
        QTest::newRow("--format xml") << QStringList{"trace", "--preset", "seed000-basic", "--format", "xml"} << "xml";
        QTest::newRow("--preset nosuch") << QStringList{"trace", "--preset", "nosuch"} << "nosuch";
        QTest::newRow("trace without a file") << QStringList{"trace"} << "--preset";
        QTest::newRow("--preset without a value") << QStringList{"trace", "--preset"} << "--preset";
        QTest::newRow("--format without a value") << QStringList{"trace", "--preset", "causal", "--format"} << "--format";
        QTest::newRow("two files") << QStringList{"trace", "a.json", "b.json"} << "one scenario file";
        QTest::newRow("file and preset") << QStringList{"trace", "a.json", "--preset", "causal"} << "--preset";
        QTest::newRow("presets with an argument") << QStringList{"presets", "all"} << "presets";
        QTest::newRow("experiment without a name") << QStringList{"experiment"} << "scaling";
        QTest::newRow("unknown experiment") << QStringList{"experiment", "tuning"} << "scaling";
        QTest::newRow("--dk not a number") << QStringList{"experiment", "scaling", "--dk", "abc"} << "--dk";
        QTest::newRow("--dk 0") << QStringList{"experiment", "scaling", "--dk", "0"} << "--dk";
        QTest::newRow("--dk negative") << QStringList{"experiment", "scaling", "--dk", "-4"} << "--dk";
        QTest::newRow("--trials 1") << QStringList{"experiment", "scaling", "--trials", "1"} << "--trials";
        QTest::newRow("--trials too many") << QStringList{"experiment", "scaling", "--trials", "99999999999"} << "--trials";
        QTest::newRow("--seed not a number") << QStringList{"experiment", "scaling", "--seed", "x"} << "--seed";
        QTest::newRow("--seed beyond 64 bits") << QStringList{"experiment", "scaling", "--seed", "99999999999999999999999"} << "--seed";
        // One past the range is out of range (the range said), not "not a whole number".
        QTest::newRow("--seed 2^63") << QStringList{"experiment", "scaling", "--seed", "9223372036854775808"}
                                     << "--seed: must be between 0 and 9223372036854775807 (got 9223372036854775808)";
        QTest::newRow("--seed 2^63 as text") << QStringList{"experiment", "scaling", "--seed", "2^63"}
                                             << "\"2^63\" is not a whole number from 0 to 9223372036854775807";
    }

    void badInvocation()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        for (const Run &r : {runBinary(args), runInProcess(args)}) {
            ATTN_VERIFY_NO_MISMATCH(badInputProblem(r), args.join(QLatin1Char(' ')));
            QVERIFY2(r.err.contains(mentions), qPrintable(QStringLiteral("\"%1\" is not in \"%2\"").arg(mentions, r.err)));
        }
    }

    // With no arguments at all it prints its usage to stderr and exits 2.
    void noArguments()
    {
        const Run r = runBinary({});
        QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.code == 2, qPrintable(r.describe()));
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains(QLatin1String("Usage")), qPrintable(r.err));
        const Run help = runBinary({QStringLiteral("--help")});
        QVERIFY2(help.code == 0 && help.out.contains(QLatin1String("Usage")) && help.err.isEmpty(), qPrintable(help.describe()));
        // --help after a command prints the same page.
        for (const char *command : {"trace", "export", "experiment", "presets"}) {
            const Run sub = runBinary({QString::fromLatin1(command), QStringLiteral("--help")});
            QVERIFY2(sub.code == 0 && sub.out.contains(QLatin1String("Usage")) && sub.err.isEmpty(), qPrintable(sub.describe()));
        }
        const Run version = runBinary({QStringLiteral("--version")});
        QVERIFY2(version.code == 0 && version.out.startsWith(QLatin1String("attention-lab-cli ")), qPrintable(version.describe()));
    }

    // Whatever the arguments, it ends normally with 0 or 2.
    void neverCrashes()
    {
        const std::vector<QString> words{"trace", "presets", "experiment", "scaling", "--preset", "causal", "--format",
                                "json", "text", "--dk", "--seed", "--trials", "3", "-1", "", "--", "-", "=",
                                "--format=json", "--preset=", "nosuch.json", "/", "--help", "multihead"};
        test::TestRng rng(4242);
        for (int k = 0; k < 40; ++k) {
            QStringList args;
            const int n = rng.integer(0, 5);
            for (int i = 0; i < n; ++i)
                args << rng.pick(words);
            const Run r = runBinary(args);
            const QString what = QStringLiteral("[%1]: ").arg(args.join(QStringLiteral(", "))) + r.describe();
            ATTN_CHECK(r.finished && r.status == QProcess::NormalExit && (r.code == 0 || r.code == 2), what);
            if (r.code == 2 && !args.isEmpty())
                ATTN_VERIFY_NO_MISMATCH(badInputProblem(r), what);
        }
    }

    // Every prefix of a lesson file (a save cut short) and every single-byte
    // corruption of one: status 0 or 2, one line when 2; in-process, so many are cheap.
    void damagedFilesNeverCrash()
    {
        QFile lesson(lessonResourcePath(QStringLiteral("multihead")));
        QVERIFY(lesson.open(QIODevice::ReadOnly));
        const QByteArray good = lesson.readAll();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("damaged.json"));
        int refused = 0;
        test::TestRng rng(99);
        for (int k = 0; k < 600; ++k) {
            QByteArray bytes = good;
            if (k < 300) {
                bytes.truncate(qsizetype(rng.integer(0, int(good.size()) - 1)));
            } else {
                const char junk[] = {'"', ',', ']', '[', '{', '}', 'x', '9', '-', 'e', '.', '\0', '\n', char(0xE6)};
                bytes[rng.integer(0, int(bytes.size()) - 1)] = junk[rng.integer(0, int(sizeof junk) - 1)];
            }
            QVERIFY(writeFile(path, bytes));
            const Run r = runInProcess({QStringLiteral("trace"), path, QStringLiteral("--format"), QStringLiteral("json")});
            if (r.code != 0) {
                ++refused;
                ATTN_VERIFY_NO_MISMATCH(badInputProblem(r), QStringLiteral("damaged file %1:\n%2").arg(k).arg(QString::fromUtf8(bytes)));
            } else {
                ATTN_CHECK(QJsonDocument::fromJson(r.out.toUtf8()).isObject(), QStringLiteral("damaged file %1").arg(k));
            }
        }
        QVERIFY(refused > 300);
    }

    // In-process: runCli's json output and status, and the same output as the binary.
    void runCliDirectly()
    {
        const Run json = runInProcess({QStringLiteral("trace"), QStringLiteral("--preset"), QStringLiteral("causal"),
                                       QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(json.code, 0);
        QVERIFY(json.err.isEmpty());
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        const Matrix w = matrixFromJson(o.value(QLatin1String("heads")).toArray().at(0).toObject().value(QLatin1String("weights")));
        QCOMPARE(w.rows(), Eigen::Index(5));
        QCOMPARE(w(0, 0), 1.0); // causal: the first token sees only itself
        for (Eigen::Index i = 0; i < 5; ++i)
            for (Eigen::Index j = i + 1; j < 5; ++j)
                QCOMPARE(w(i, j), 0.0);

        const QStringList experiment{QStringLiteral("experiment"), QStringLiteral("scaling"), QStringLiteral("--dk"),
                                     QStringLiteral("16"), QStringLiteral("--trials"), QStringLiteral("500")};
        const Run inside = runInProcess(experiment), outside = runBinary(experiment);
        QCOMPARE(inside.code, 0);
        QCOMPARE(inside.out, outside.out);

        const Run presets = runInProcess({QStringLiteral("presets")});
        QCOMPARE(presets.code, 0);
        QVERIFY(presets.out.contains(QLatin1String("cross-attention")));
    }

    // Every command writes its numbers as numbers.h does: a value that rounds
    // to zero is "0.0000", never "-0.0000" (the model commands once wrote
    // the minus of a tiny negative), and a real negative keeps its '-'.
    void numbersNeverNegativeZero()
    {
        QCOMPARE(cmdline::fixed(-0.00001), QStringLiteral("0.0000"));
        QCOMPARE(cmdline::fixed(-0.0), QStringLiteral("0.0000"));
        QCOMPARE(cmdline::fixed(-1e-9, 2), QStringLiteral("0.00"));
        QCOMPARE(cmdline::fixed(-0.004, 2), QStringLiteral("0.00"));
        QCOMPARE(cmdline::fixed(-0.005001, 2), QStringLiteral("-0.01"));
        QCOMPARE(cmdline::fixed(-7.01933), QStringLiteral("-7.0193"));
        QCOMPARE(cmdline::fixed(2.82842712, 4), QStringLiteral("2.8284"));
    }

    // export: one file per stage, head and format, named for what it is,
    // listed on stdout; each loads back. No display is needed.
    void exportWritesEveryStageAndFormat()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("figures")); // made if missing
        const Run r = runBinary({QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("multihead"),
                                 QStringLiteral("--out"), out, QStringLiteral("--format"), QStringLiteral("png,svg,pdf"),
                                 QStringLiteral("--stages"), QStringLiteral("weights,plane,dashboard"),
                                 QStringLiteral("--head"), QStringLiteral("all"), QStringLiteral("--size"),
                                 QStringLiteral("600x400"), QStringLiteral("--scale"), QStringLiteral("2"),
                                 QStringLiteral("--numbers"), QStringLiteral("json")});
        QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.code == 0, qPrintable(r.describe()));
        const QStringList files = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(files.size(), 2 * 3 * 3 + 1); // heads x stages x formats, and the trace
        QVERIFY(files.contains(QDir(out).filePath(QStringLiteral("multihead_weights_head2.svg"))));
        QVERIFY(files.contains(QDir(out).filePath(QStringLiteral("multihead_trace.json"))));
        for (const QString &f : files) {
            QFile file(f);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(f));
            const QByteArray bytes = file.readAll();
            if (f.endsWith(QLatin1String(".png")))
                QCOMPARE(QImage::fromData(bytes, "PNG").size(), QSize(1200, 800));
            else if (f.endsWith(QLatin1String(".pdf")))
                QVERIFY2(bytes.startsWith("%PDF"), qPrintable(f));
            else if (f.endsWith(QLatin1String(".svg")))
                QVERIFY2(bytes.contains("<svg") && bytes.contains("<text"), qPrintable(f));
            else
                QVERIFY2(QJsonDocument::fromJson(bytes).isObject(), qPrintable(f));
        }
    }

    void exportRefusesBadOptions_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        const QStringList base{QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("causal")};
        QTest::newRow("no --out") << base << QStringLiteral("--out DIR is needed");
        QTest::newRow("format") << (base + QStringList{QStringLiteral("--out"), QStringLiteral("x"), QStringLiteral("--format"), QStringLiteral("jpg")})
                                << QStringLiteral("unknown format \"jpg\"");
        QTest::newRow("size") << (base + QStringList{QStringLiteral("--out"), QStringLiteral("x"), QStringLiteral("--size"), QStringLiteral("12")})
                              << QStringLiteral("is not WIDTHxHEIGHT");
        QTest::newRow("scale") << (base + QStringList{QStringLiteral("--out"), QStringLiteral("x"), QStringLiteral("--scale"), QStringLiteral("9")})
                               << QStringLiteral("from 1 to 4");
        QTest::newRow("stage") << (base + QStringList{QStringLiteral("--out"), QStringLiteral("x"), QStringLiteral("--stages"), QStringLiteral("softmax")})
                               << QStringLiteral("unknown stage \"softmax\"");
        QTest::newRow("head") << (base + QStringList{QStringLiteral("--out"), QStringLiteral("x"), QStringLiteral("--head"), QStringLiteral("2")})
                              << QStringLiteral("a head from 1 to 1");
        QTest::newRow("query without a plane") << (base + QStringList{QStringLiteral("--out"), QStringLiteral("x"), QStringLiteral("--stages"), QStringLiteral("weights"), QStringLiteral("--query"), QStringLiteral("2")})
                                               << QStringLiteral("add plane or dashboard to --stages");
        QTest::newRow("query") << (base + QStringList{QStringLiteral("--out"), QStringLiteral("x"), QStringLiteral("--query"), QStringLiteral("7")})
                               << QStringLiteral("a query from 1 to 5");
        QTest::newRow("axes equal") << (base + QStringList{QStringLiteral("--out"), QStringLiteral("x"), QStringLiteral("--plane-axes"), QStringLiteral("1,1")})
                                    << QStringLiteral("two different dimensions from 1 to");
        QTest::newRow("axes word") << (base + QStringList{QStringLiteral("--out"), QStringLiteral("x"), QStringLiteral("--plane-axes"), QStringLiteral("pc")})
                                   << QStringLiteral("must be pca or");
        QTest::newRow("pca in two dimensions") << (base + QStringList{QStringLiteral("--out"), QStringLiteral("x"), QStringLiteral("--plane-axes"), QStringLiteral("pca")})
                                               << QStringLiteral("pca needs more than two dimensions");
        QTest::newRow("small dashboard") << (base + QStringList{QStringLiteral("--out"), QStringLiteral("x"), QStringLiteral("--stages"), QStringLiteral("dashboard"), QStringLiteral("--size"), QStringLiteral("400x300")})
                                         << QStringLiteral("the dashboard needs at least 600x400 pixels");
        QTest::newRow("preset") << QStringList{QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("nosuch"), QStringLiteral("--out"), QStringLiteral("x")}
                                << QStringLiteral("no built-in lesson");
    }

    void exportRefusesBadOptions()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        for (QString &a : args)
            if (a == QLatin1String("x"))
                a = dir.filePath(QStringLiteral("x"));
        const Run r = runBinary(args);
        QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.code == 2, qPrintable(r.describe()));
        // One line, and nothing from Qt before it (no XDG_RUNTIME_DIR is set in CI).
        const QStringList lines = r.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().startsWith(QLatin1String("attention-lab-cli: ")), qPrintable(lines.first()));
        QVERIFY2(lines.first().contains(reason), qPrintable(lines.first()));
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("x"))) || QDir(dir.filePath(QStringLiteral("x"))).isEmpty());
    }


    // ---- nothing lost: output that does not arrive is a failure ----
    void traceIntoDevFull();

    void traceIntoClosedStdout();
    void traceIntoAPipeClosedEarly();
    void compareRefusesAHeadBHasNot();

    // A closed stdout must not become the first file export opens.
    void exportWithClosedStdoutWritesNoFileOntoIt();

    // Onto a full disk (a file size limit): the trace is cut short, which is
    // said in one line with status 2, not passed over with status 0.
    void traceOntoFullDisk();

    // export --numbers csv onto a full disk: exit 2 naming the file and the
    // reason; no 0-byte file, no good file clobbered, no temporary file left.
    void exportCsvOntoFullDisk();

    // ---- text that reaches a terminal shows control characters escaped ----
    void refusalsNameTheNumberAndTheLimit_data();
    void refusalsNameTheNumberAndTheLimit();
    void justAcceptedLargeTraceStreams();
    void comparisonLessonAlone();
    void modelTraceEscapesControls();
    void jsonOnTheTerminalEscapesControls();
    void escapeControlsWritesEscapes_data();

    void escapeControlsWritesEscapes();

    void traceTextEscapesLabels();

    void errorMessagesEscapeControls();

    // ---- the names export makes, and what it finds at them ----
    void exportReplacesLinksAtItsNames();
    void exportRefusesFifosAtItsNames();
    void modelExportReplacesLinksAtItsNames();
    void modelExportNameCannotLeaveTheFolder_data();
    void modelExportNameCannotLeaveTheFolder();
    void modelFolderNamesAreCleanedInFileNames();
};

// Defined out of the class: moc need not read them.

void TestCli::traceIntoDevFull()
{
    for (const QString &format : {QStringLiteral("text"), QStringLiteral("json")}) {
        const Run r = runBinaryWith({QStringLiteral("trace"), QStringLiteral("--preset"), QStringLiteral("causal"),
                                     QStringLiteral("--format"), format},
                                    QStringLiteral("/dev/full"), -1);
        ATTN_VERIFY_NO_MISMATCH(writeFailureProblem(r, QStringLiteral("standard output: no space left on the device")), format);
    }
}

void TestCli::traceIntoClosedStdout()
{
    const Run r = runBinaryWith({QStringLiteral("trace"), QStringLiteral("--preset"), QStringLiteral("seed000-basic")},
                                QString(), -1, QStringLiteral(">&-"));
    ATTN_VERIFY_NO_MISMATCH(writeFailureProblem(r, QStringLiteral("standard output: it is closed")), r.describe());
    // The same command with its stdout open succeeds: the shell is no part of the failure.
    const Run open = runBinaryWith({QStringLiteral("trace"), QStringLiteral("--preset"), QStringLiteral("seed000-basic")},
                                   QString(), -1, QStringLiteral("2>&2"));
    QVERIFY2(open.code == 0 && open.out.startsWith(QLatin1String("Seed 000")), qPrintable(open.describe()));
}

void TestCli::exportWithClosedStdoutWritesNoFileOntoIt()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out"));
    const Run r = runBinaryWith({QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("causal"),
                                 QStringLiteral("--out"), out, QStringLiteral("--stages"), QString(),
                                 QStringLiteral("--numbers"), QStringLiteral("csv")},
                                QString(), -1, QStringLiteral(">&-"));
    ATTN_VERIFY_NO_MISMATCH(writeFailureProblem(r, QStringLiteral("standard output: it is closed")), r.describe());
    const QByteArray scores = readBytes(QDir(out).filePath(QStringLiteral("causal_scores.csv")));
    QVERIFY2(scores.contains("\"我\"") || scores.contains("我"), scores.constData());
    QVERIFY2(!scores.contains(QDir(out).filePath(QStringLiteral("causal_scaled.csv")).toUtf8()), scores.constData());
}

void TestCli::traceOntoFullDisk()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("trace.txt"));
    const Run r = runBinaryWith({QStringLiteral("trace"), QStringLiteral("--preset"), QStringLiteral("causal")}, file, 1000);
    ATTN_VERIFY_NO_MISMATCH(writeFailureProblem(r, QStringLiteral("standard output: the file is too large")), r.describe());
    QCOMPARE(QFileInfo(file).size(), qint64(1000));
    // Without the limit the same command writes it all.
    const Run whole = runBinaryWith({QStringLiteral("trace"), QStringLiteral("--preset"), QStringLiteral("causal")}, file, -1);
    QCOMPARE(whole.code, 0);
    QVERIFY2(QFileInfo(file).size() > 3000, qPrintable(QString::number(QFileInfo(file).size())));
}

void TestCli::exportCsvOntoFullDisk()
{
    QTemporaryDir dir;
    const QString good = dir.filePath(QStringLiteral("good")), full = dir.filePath(QStringLiteral("full"));
    const QStringList args{QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("causal"),
                           QStringLiteral("--stages"), QString(), QStringLiteral("--numbers"), QStringLiteral("csv"),
                           QStringLiteral("--out")};
    const Run reference = runBinaryWith(args + QStringList{good}, QString(), -1);
    QVERIFY2(reference.code == 0, qPrintable(reference.describe()));
    const QStringList names = QDir(good).entryList(QDir::Files, QDir::Name);
    QCOMPARE(names.size(), 5);
    QVERIFY(QDir().mkpath(full));
    for (const QString &name : names)
        QVERIFY(writeFile(QDir(full).filePath(name), "good,old\n"));

    const Run r = runBinaryWith(args + QStringList{full}, QString(), 300);
    ATTN_VERIFY_NO_MISMATCH(writeFailureProblem(r, QStringLiteral(".csv: the file is too large")), r.describe());
    QCOMPARE(QDir(full).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name), names);
    int kept = 0;
    for (const QString &name : names) {
        const QByteArray now = readBytes(QDir(full).filePath(name));
        const bool old = now == "good,old\n";
        kept += old;
        QVERIFY2(old || now == readBytes(QDir(good).filePath(name)), qPrintable(name + QStringLiteral(": ") + QString::fromUtf8(now)));
        if (r.err.contains(name))
            QVERIFY2(old, qPrintable(name)); // the file named is the one left as it was
    }
    QVERIFY(kept >= 1);
    // The files listed on stdout are the ones written whole.
    for (const QString &line : r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        QCOMPARE(readBytes(line), readBytes(QDir(good).filePath(QFileInfo(line).fileName())));
}


namespace {

// A direct-mode file of n tokens, d = 1, and `extra` members.
QByteArray directFile(int n, const QByteArray &extra = {})
{
    QByteArray column = "[";
    for (int i = 0; i < n; ++i)
        column += (i ? ",[" : "[") + QByteArray::number((i % 7) * 0.25 - 0.75) + "]";
    column += "]";
    return "{" + extra + "\"inputs\": {\"Q\": " + column + ", \"K\": " + column + ", \"V\": " + column + "}}";
}

} // namespace

// Each refusal of too much work is status 2 and one line that
// names the number and the limit; nothing is computed or written first.
void TestCli::refusalsNameTheNumberAndTheLimit_data()
{
    QTest::addColumn<QByteArray>("file"); // written to big.json and given as FILE, unless empty
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("mentions");
    // One head of n by n, d = 1: 3n^2 (scores, scaled, weights) + n^2 (mask) + 9n.
    const double cells = 4.0 * 2896 * 2896 + 9.0 * 2896; // 33 573 328
    QCOMPARE(cells, 33573328.0);
    QTest::newRow("trace over the budget") << directFile(2896) << QStringList{"trace"}
                                           << QStringList{"inputs: the trace would hold 33 573 328 numbers", "limit of 33 554 432"};
    QTest::newRow("trace json over the budget") << directFile(2896) << QStringList{"trace", "--format", "json"}
                                                << QStringList{"33 573 328", "33 554 432"};
    QTest::newRow("the audit's 4096 tokens") << directFile(4096) << QStringList{"trace", "--format", "json"}
                                             << QStringList{"67 145 728", "33 554 432"};
    QTest::newRow("export over the budget") << directFile(2896) << QStringList{"export", "--out", "figs"}
                                            << QStringList{"33 573 328", "33 554 432"};
    QTest::newRow("compare over the budget") << directFile(2896) << QStringList{"compare", "--preset", "causal"}
                                             << QStringList{"33 573 328", "33 554 432"};
    const QByteArray big = directFile(2) + QByteArray(16 * 1024 * 1024, ' ');
    QTest::newRow("file over 16 MiB") << big << QStringList{"trace"}
                                      << QStringList{QStringLiteral("is %1 bytes, more than the limit of 16777216").arg(big.size())};
    QTest::newRow("label of 10000 characters") << directFile(2, "\"tokens\": [\"a\", \"" + QByteArray(10000, 'x') + "\"], ")
                                               << QStringList{"export", "--stages", "plane", "--format", "svg", "--out", "figs"}
                                               << QStringList{"tokens[1]: a token name can have at most 64 characters (this one has 10000)"};
    QTest::newRow("title of 201 characters") << directFile(2, "\"title\": \"" + QByteArray(201, 'T') + "\", ")
                                             << QStringList{"trace"} << QStringList{"title: a title can have at most 200 characters (this one has 201)"};
    QTest::newRow("PNG of 16000 x 16000") << QByteArray() << QStringList{"export", "--preset", "causal", "--out", "figs", "--size", "8000x8000", "--scale", "2"}
                                          << QStringList{"16000x16000 = 256000000 pixels", "limit of 64000000"};
    QTest::newRow("model text of 16385 characters") << QByteArray()
                                                    << QStringList{"model", "trace", "--text", QString(16385, QLatin1Char('a'))}
                                                    << QStringList{"--text: 16385 characters is more than the limit of 16384"};
}

void TestCli::refusalsNameTheNumberAndTheLimit()
{
    QFETCH(QByteArray, file);
    QFETCH(QStringList, args);
    QFETCH(QStringList, mentions);
    QTemporaryDir dir;
    QStringList full;
    for (const QString &a : args)
        full << (a == QLatin1String("figs") ? dir.filePath(a) : a);
    if (!file.isEmpty()) {
        const QString path = dir.filePath(QStringLiteral("big.json"));
        QVERIFY(writeFile(path, file));
        full.insert(1, path);
    }
    const Run r = runBinary(full);
    ATTN_VERIFY_NO_MISMATCH(badInputProblem(r), r.describe().left(3000));
    for (const QString &m : mentions)
        QVERIFY2(r.err.contains(m), qPrintable(QStringLiteral("\"%1\" is not in \"%2\"").arg(m, r.err.left(1000))));
    QVERIFY2(!QFileInfo::exists(dir.filePath(QStringLiteral("figs"))), "a refused export made its folder");
}

// The largest trace the budget accepts (n = 2895, one head: 33 550 155
// numbers) is written whole, streamed: a gigabyte of JSON in well under
// 2 GB of memory. Its end holds the last query's row statistics.
void TestCli::justAcceptedLargeTraceStreams()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("n2895.json")), json = dir.filePath(QStringLiteral("trace.json"));
    QVERIFY(writeFile(path, directFile(2895)));
    const Run r = runBinaryWith({QStringLiteral("trace"), path, QStringLiteral("--format"), QStringLiteral("json")}, json, -1);
    QVERIFY2(r.finished && r.code == 0 && r.err.isEmpty(), qPrintable(r.describe()));
    rusage usage{};
    QCOMPARE(::getrusage(RUSAGE_CHILDREN, &usage), 0);
    QVERIFY2(usage.ru_maxrss < 2L * 1024 * 1024, qPrintable(QStringLiteral("peak %1 KB").arg(usage.ru_maxrss))); // KB
    // Four maps of 2895^2 numbers, each on its own line of at least 22 bytes.
    const qint64 size = QFileInfo(json).size();
    QVERIFY2(size > 4LL * 2895 * 2895 * 22, qPrintable(QString::number(size)));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.seek(size - 200));
    const QByteArray tail = f.readAll();
    QVERIFY2(tail.endsWith("    \"version\": 1\n}\n"), tail.constData());
    QVERIFY(f.seek(0));
    QVERIFY(f.read(16) == "{\n    \"concat\": ");
    f.close();

    // export --numbers json writes the same bytes into its file as it makes
    // them (it was refused over 1 GiB, being held whole).
    const QString out = dir.filePath(QStringLiteral("out"));
    const Run e = runBinary({QStringLiteral("export"), path, QStringLiteral("--out"), out, QStringLiteral("--stages"),
                             QString(), QStringLiteral("--numbers"), QStringLiteral("json")});
    QVERIFY2(e.finished && e.code == 0 && e.err.isEmpty(), qPrintable(e.describe()));
    QCOMPARE(::getrusage(RUSAGE_CHILDREN, &usage), 0);
    QVERIFY2(usage.ru_maxrss < 2L * 1024 * 1024, qPrintable(QStringLiteral("peak %1 KB").arg(usage.ru_maxrss)));
    const QString exported = QDir(out).filePath(QStringLiteral("n2895_trace.json"));
    QCOMPARE(e.out.trimmed(), QDir::toNativeSeparators(exported));
    QCOMPARE(QFileInfo(exported).size(), size);
    QFile a(json), b(exported);
    QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    for (qint64 at = 0; at < size; at += 1 << 24)
        QVERIFY2(a.read(1 << 24) == b.read(1 << 24), qPrintable(QStringLiteral("bytes differ after %1").arg(at)));
    QVERIFY(QDir(out).entryList(QDir::Files | QDir::Hidden).size() == 1); // no temporary file left
}

// `trace ... | head -c 100`: the reader goes away mid-trace. One line
// naming the broken pipe and exit 2, not a silent death by SIGPIPE (141).
void TestCli::traceIntoAPipeClosedEarly()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("n400.json"));
    QVERIFY(writeFile(path, directFile(400)));
    // As a shell runs it; the program's own exit code goes to a file.
    const QString codeFile = dir.filePath(QStringLiteral("code"));
    QProcess p;
    p.start(QStringLiteral("/bin/sh"),
            {QStringLiteral("-c"), QStringLiteral("{ \"$0\" trace \"$1\" --format json; echo $? > \"$2\"; } | head -c 100 > /dev/null"),
             cliBinary(), path, codeFile});
    QVERIFY(p.waitForStarted(10000));
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QFile code(codeFile);
    QVERIFY(code.open(QIODevice::ReadOnly));
    QCOMPARE(code.readAll().trimmed(), QByteArray("2"));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(err, QStringLiteral("attention-lab-cli: standard output: the reader went away (broken pipe)\n"));
}

// Review D4: A's head 2 against a B of one head was drawn as B's head 1
// under a head-2 name. Refused, in one line, before any A/B file is written.
void TestCli::compareRefusesAHeadBHasNot()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("figs"));
    const Run r = runBinary({QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("multihead"),
                             QStringLiteral("--head"), QStringLiteral("all"), QStringLiteral("--compare-preset"),
                             QStringLiteral("cross-attention"), QStringLiteral("--stages"), QStringLiteral("weights"),
                             QStringLiteral("--out"), out});
    QVERIFY2(r.finished && r.code == 2, qPrintable(r.describe()));
    QCOMPARE(r.err, QStringLiteral("attention-lab-cli: --head: B has 1 head, so A's head 1 has nothing to be compared with; "
                                   "give --head 1\n")
                        .replace(QStringLiteral("A's head 1"), QStringLiteral("A's head 2")));
    const QStringList written = QDir(out).entryList({QStringLiteral("*_compare_*"), QStringLiteral("*_diff_*")}, QDir::Files);
    QVERIFY2(written.isEmpty(), qPrintable(written.join(QLatin1Char(' '))));
}

// A comparison lesson alone names its A ("compare": {"a": ...,
// "align_by_token": true}); the numbers are the core's for that pair.
void TestCli::comparisonLessonAlone()
{
    const Run j = runBinary({QStringLiteral("compare"), QStringLiteral("--preset"), QStringLiteral("compare-word-order"),
                             QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(j.code == 0, qPrintable(j.describe()));
    const QJsonObject o = QJsonDocument::fromJson(j.out.toUtf8()).object();
    QVERIFY2(o.value(QLatin1String("a")).toString().startsWith(QLatin1String("--preset permutation")), qPrintable(j.out));
    QCOMPARE(o.value(QLatin1String("b")).toString(), QStringLiteral("--preset compare-word-order"));
    QCOMPARE(o.value(QLatin1String("aligned")).toBool(), true);
    const auto a = loadLesson(QStringLiteral("permutation")), b = loadLesson(QStringLiteral("compare-word-order"));
    QVERIFY(std::holds_alternative<Scenario>(a) && std::holds_alternative<Scenario>(b));
    const Comparison c = compareScenarios(std::get<Scenario>(a), std::get<Scenario>(b), true);
    QVERIFY(c.aligned && c.maxAbsDiff() < 1e-12);
    QCOMPARE(o.value(QLatin1String("max_abs_diff")).toDouble(), c.maxAbsDiff());
    QCOMPARE(o.value(QLatin1String("same_numbers_reordered")).toBool(), true);
    const QJsonArray stages = o.value(QLatin1String("stages")).toArray();
    QCOMPARE(stages.size(), qsizetype(c.stages.size()));
    for (qsizetype i = 0; i < stages.size(); ++i)
        QCOMPARE(stages.at(i).toObject().value(QLatin1String("max_abs_diff")).toDouble(), c.stages[std::size_t(i)].maxAbsDiff);

    // Text, and the lesson as a file: the same pair.
    const Run t = runBinary({QStringLiteral("compare"), test::sourceDir() + QStringLiteral("/resources/lessons/compare-word-order.json")});
    QVERIFY2(t.code == 0, qPrintable(t.describe()));
    QVERIFY2(t.out.startsWith(QLatin1String("A: --preset permutation")), qPrintable(t.out));
    QVERIFY2(t.out.contains(QLatin1String("The same numbers, reordered")), qPrintable(t.out));

    // A lesson that is not a comparison: one line saying so.
    const Run bad = runBinary({QStringLiteral("compare"), QStringLiteral("--preset"), QStringLiteral("causal")});
    ATTN_VERIFY_NO_MISMATCH(badInputProblem(bad), bad.describe());
    QVERIFY2(bad.err.contains(QLatin1String("--preset causal is not a comparison lesson")), qPrintable(bad.err));
}

// Model trace shows the tokens of a sentence with terminal
// controls escaped, in the token list, the maps' labels and as JSON.
void TestCli::modelTraceEscapesControls()
{
    const QString text = QStringLiteral("a\x1b[31mb \u202e c\u009b");
    for (const QString &format : {QStringLiteral("text"), QStringLiteral("json")}) {
        const Run r = runBinary({QStringLiteral("model"), QStringLiteral("trace"), QStringLiteral("--text"), text,
                                 QStringLiteral("--layer"), QStringLiteral("1"), QStringLiteral("--head"), QStringLiteral("1"),
                                 QStringLiteral("--format"), format});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        for (QChar c : r.out)
            QVERIFY2(c == QLatin1Char('\n') || (c.unicode() >= 0x20 && c.unicode() != 0x7f && !(c.unicode() >= 0x80 && c.unicode() < 0xa0)
                                                && c.unicode() != 0x202e),
                     qPrintable(format + QStringLiteral(": U+") + QString::number(c.unicode(), 16)));
        if (format == QLatin1String("json"))
            QVERIFY2(QJsonDocument::fromJson(r.out.toUtf8()).object().value(QLatin1String("tokens")).toArray().size() > 3, qPrintable(r.out.left(500)));
        else
            QVERIFY2(r.out.contains(QLatin1String("\\x1b")) || r.out.contains(QLatin1String("\\u{1b}")), qPrintable(r.out.left(800)));
    }
}

// trace --format json and compare --format json: labels with C1 or bidi
// controls arrive escaped and parse back to themselves.
void TestCli::jsonOnTheTerminalEscapesControls()
{
    QTemporaryDir dir;
    const QString a = dir.filePath(QStringLiteral("a.json")), b = dir.filePath(QStringLiteral("b.json"));
    const QByteArray inputs = R"("inputs": {"Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]], "V": [[1], [2]]})";
    QVERIFY(writeFile(a, "{\"tokens\": [\"x\\u009b2J\", \"y\\u202e\\u007f\"], " + inputs + "}"));
    QVERIFY(writeFile(b, "{\"tokens\": [\"y\\u202e\\u007f\", \"x\\u009b2J\"], " + inputs + "}"));
    const Run t = runBinary({QStringLiteral("trace"), a, QStringLiteral("--format"), QStringLiteral("json")});
    const Run c = runBinary({QStringLiteral("compare"), a, b, QStringLiteral("--align-by-token"), QStringLiteral("--format"), QStringLiteral("json")});
    const Run ct = runBinary({QStringLiteral("compare"), a, b});
    for (const Run *r : {&t, &c, &ct}) {
        QVERIFY2(r->code == 0, qPrintable(r->describe()));
        QVERIFY2(!r->out.contains(QChar(0x9b)) && !r->out.contains(QChar(0x202e)) && !r->out.contains(QChar(0x7f)), qPrintable(r->out.left(500)));
    }
    QVERIFY2(t.out.contains(QLatin1String("\"x\\u009b2J\"")) && t.out.contains(QLatin1String("\"y\\u202e\\u007f\"")), qPrintable(t.out.left(800)));
    const QJsonArray tokens = QJsonDocument::fromJson(t.out.toUtf8()).object().value(QLatin1String("tokens")).toArray();
    QCOMPARE(tokens.at(0).toString(), QStringLiteral("x\u009b2J"));
    QCOMPARE(tokens.at(1).toString(), QStringLiteral("y\u202e\x7f"));
}

void TestCli::escapeControlsWritesEscapes_data()
{
    QTest::addColumn<QByteArray>("in");
    QTest::addColumn<QByteArray>("out");
    QTest::newRow("escape") << QByteArray("a\x1b[31mred") << QByteArray("a\\x1b[31mred");
    QTest::newRow("newline, tab, CR") << QByteArray("a\nb\tc\rd") << QByteArray("a\\nb\\tc\\rd");
    QTest::newRow("NUL and DEL") << QByteArray("x\0y\x7f", 4) << QByteArray("x\\x00y\\x7f");
    QTest::newRow("C1 CSI") << QByteArray("\xc2\x9b" "2J") << QByteArray("\\u009b2J");
    QTest::newRow("bidi override") << QByteArray("abc\xe2\x80\xae" "def") << QByteArray("abc\\u202edef");
    QTest::newRow("line separator") << QByteArray("a\xe2\x80\xa8" "b") << QByteArray("a\\u2028b");
    QTest::newRow("not UTF-8") << QByteArray("a\xff\xe6\x88") << QByteArray("a\\xff\\xe6\\x88");
    QTest::newRow("Chinese and emoji unchanged") << QByteArray("注意力 \xf0\x9f\x98\x80 é") << QByteArray("注意力 \xf0\x9f\x98\x80 é");
    QTest::newRow("backslash and quote unchanged") << QByteArray("a\\n\"") << QByteArray("a\\n\"");
}

void TestCli::escapeControlsWritesEscapes()
{
    QFETCH(QByteArray, in);
    QFETCH(QByteArray, out);
    QCOMPARE(QByteArray::fromStdString(escapeControls(in.toStdString())), out);
}

void TestCli::traceTextEscapesLabels()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("labels.json"));
    QVERIFY(writeFile(path, R"({"title": "Bell\u0007 \u001b]0;owned\u0007", "tokens": ["a\u001b[31m", "new\nline"],
                               "inputs": {"Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]], "V": [[1], [2]]}})"));
    for (const Run &r : {runBinary({QStringLiteral("trace"), path}), runInProcess({QStringLiteral("trace"), path})}) {
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.startsWith(QLatin1String("Bell\\x07 \\x1b]0;owned\\x07\n")), qPrintable(r.out.left(200)));
        QVERIFY2(r.out.contains(QLatin1String("query 1 \"a\\x1b[31m\"")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QLatin1String("query 2 \"new\\nline\"")), qPrintable(r.out));
        for (QChar c : r.out)
            QVERIFY2(c == QLatin1Char('\n') || (c.unicode() >= 0x20 && c.unicode() != 0x7f), qPrintable(QString::number(c.unicode(), 16)));
    }
}

void TestCli::errorMessagesEscapeControls()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.json"));
    QVERIFY(writeFile(path, R"({"scale": "\u001b[2J\nx", "inputs": {"Q": [[1]], "K": [[1]], "V": [[1]]}})"));
    for (const Run &r : {runBinary({QStringLiteral("trace"), path}), runInProcess({QStringLiteral("trace"), path})}) {
        ATTN_VERIFY_NO_MISMATCH(badInputProblem(r), r.describe());
        QVERIFY2(r.err.contains(QLatin1String("scale: unknown value \"\\x1b[2J\\nx\"")), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QChar(0x1b)), qPrintable(r.err));
    }
    // The command line is no safer than a file.
    const Run option = runInProcess({QStringLiteral("trace"), QStringLiteral("--preset"), QStringLiteral("x\x1b[2J")});
    ATTN_VERIFY_NO_MISMATCH(badInputProblem(option), option.describe());
    QVERIFY2(option.err.contains(QLatin1String("x\\x1b[2J")) && !option.err.contains(QChar(0x1b)), qPrintable(option.err));
}


namespace {

// A copy of the built-in model's folder under `name` in `parent`.
QString copyModel(const QString &parent, const QString &name)
{
    const QString from = test::sourceDir() + QStringLiteral("/resources/models/tiny-bilingual");
    const QString to = QDir(parent).filePath(name);
    if (!QDir().mkpath(to))
        return QString();
    for (const char *f : {"config.json", "model.safetensors", "vocab.json", "merges.txt"})
        if (!QFile::copy(QDir(from).filePath(QLatin1String(f)), QDir(to).filePath(QLatin1String(f))))
            return QString();
    return to;
}

bool makeLink(const QString &target, const QString &at)
{
    return ::symlink(QFile::encodeName(target).constData(), QFile::encodeName(at).constData()) == 0;
}

// out/ and vd/victim.txt (0600, "secret") side by side in `root`.
QString makeVictim(const QString &root)
{
    QDir(root).mkpath(QStringLiteral("vd"));
    QDir(root).mkpath(QStringLiteral("out"));
    const QString victim = QDir(root).filePath(QStringLiteral("vd/victim.txt"));
    QFile f(victim);
    if (!f.open(QIODevice::WriteOnly) || f.write("secret") != 6)
        return QString();
    f.close();
    QFile::setPermissions(victim, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return victim;
}

QByteArray contentOf(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

// A link named like a figure (out/causal_weights.png -> ../vd/victim.txt) made
// the export write through it into another folder's 0600 file, and a
// dangling link made its target. The link is replaced now, the file it
// named untouched, and stderr says what was replaced.
void TestCli::exportReplacesLinksAtItsNames()
{
    QTemporaryDir dir;
    const QString victim = makeVictim(dir.path());
    QVERIFY(!victim.isEmpty());
    const QString out = dir.filePath(QStringLiteral("out"));
    QVERIFY(makeLink(QStringLiteral("../vd/victim.txt"), QDir(out).filePath(QStringLiteral("causal_weights.png"))));
    QVERIFY(makeLink(QStringLiteral("../vd/missing.txt"), QDir(out).filePath(QStringLiteral("causal_masked.png"))));
    QVERIFY(makeLink(QStringLiteral("../vd/victim.txt"), QDir(out).filePath(QStringLiteral("causal_weights.csv"))));
    QVERIFY(makeLink(QStringLiteral("../vd/victim.txt"), QDir(out).filePath(QStringLiteral("causal_trace.json"))));
    const Run r = runBinary({QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("causal"),
                             QStringLiteral("--out"), out, QStringLiteral("--stages"), QStringLiteral("masked,weights"),
                             QStringLiteral("--format"), QStringLiteral("png"), QStringLiteral("--numbers"), QStringLiteral("csv,json")});
    QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.code == 0, qPrintable(r.describe()));
    QCOMPARE(contentOf(victim), QByteArray("secret"));
    QCOMPARE(QFile::permissions(victim), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser);
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("vd/missing.txt"))));
    for (const char *name : {"causal_weights.png", "causal_masked.png", "causal_weights.csv", "causal_trace.json"}) {
        const QFileInfo f(QDir(out).filePath(QLatin1String(name)));
        QVERIFY2(f.isFile() && !f.isSymLink(), name);
    }
    QVERIFY(contentOf(QDir(out).filePath(QStringLiteral("causal_weights.png"))).startsWith("\x89PNG"));
    const QString weights = QDir::toNativeSeparators(QDir(out).filePath(QStringLiteral("causal_weights.png")));
    QVERIFY2(r.err.contains(weights + QStringLiteral(": replaced a symbolic link to ../vd/victim.txt")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("causal_masked.png: replaced a symbolic link to ../vd/missing.txt")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("causal_weights.csv: replaced a symbolic link")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("causal_trace.json: replaced a symbolic link")), qPrintable(r.err));
    QCOMPARE(r.err.count(QLatin1Char('\n')), 4);
}

// A FIFO at a figure's name is refused at once (a write would wait for a
// reader for ever), in one line, and nothing is written in its place.
void TestCli::exportRefusesFifosAtItsNames()
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("causal_weights.png"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const Run r = runBinary({QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("causal"),
                             QStringLiteral("--out"), dir.path(), QStringLiteral("--stages"), QStringLiteral("weights"),
                             QStringLiteral("--format"), QStringLiteral("png")});
    ATTN_VERIFY_NO_MISMATCH(badInputProblem(r), r.describe());
    QVERIFY2(r.err.contains(QStringLiteral("causal_weights.png: it is not a regular file")), qPrintable(r.err));
    QVERIFY(!QFileInfo(fifo).isFile());
}

void TestCli::modelExportReplacesLinksAtItsNames()
{
    QTemporaryDir dir;
    const QString victim = makeVictim(dir.path());
    QVERIFY(!victim.isEmpty());
    const QString out = dir.filePath(QStringLiteral("out"));
    QVERIFY(makeLink(QStringLiteral("../vd/victim.txt"), QDir(out).filePath(QStringLiteral("tiny-bilingual_L1H1_weights.png"))));
    QVERIFY(makeLink(QStringLiteral("/dev/null"), QDir(out).filePath(QStringLiteral("tiny-bilingual_overview.png"))));
    const Run r = runBinary({QStringLiteral("model"), QStringLiteral("export"), QStringLiteral("--text"), QStringLiteral("the cat"),
                             QStringLiteral("--out"), out, QStringLiteral("--stages"), QStringLiteral("weights,overview")});
    QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.code == 0, qPrintable(r.describe()));
    QCOMPARE(contentOf(victim), QByteArray("secret"));
    for (const char *name : {"tiny-bilingual_L1H1_weights.png", "tiny-bilingual_overview.png"}) {
        const QFileInfo f(QDir(out).filePath(QLatin1String(name)));
        QVERIFY2(f.isFile() && !f.isSymLink(), name);
        QVERIFY(contentOf(f.filePath()).startsWith("\x89PNG"));
    }
    QVERIFY2(r.err.contains(QStringLiteral("tiny-bilingual_L1H1_weights.png: replaced a symbolic link to ../vd/victim.txt")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("tiny-bilingual_overview.png: replaced a symbolic link to /dev/null")), qPrintable(r.err));
}

void TestCli::modelExportNameCannotLeaveTheFolder_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("parent") << QStringLiteral("../../x");
    QTest::newRow("absolute") << QStringLiteral("/tmp/attn-x");
    QTest::newRow("dot dot") << QStringLiteral("..");
    QTest::newRow("hidden") << QStringLiteral(".x");
    QTest::newRow("escape") << QStringLiteral("x\x1b[31m");
}

// --name ../../x wrote ../../x_L1H1_weights.png, outside --out.
void TestCli::modelExportNameCannotLeaveTheFolder()
{
    QFETCH(QString, name);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("a/b/out"));
    const Run r = runBinary({QStringLiteral("model"), QStringLiteral("export"), QStringLiteral("--text"), QStringLiteral("the cat"),
                             QStringLiteral("--out"), out, QStringLiteral("--stages"), QStringLiteral("weights"),
                             QStringLiteral("--name"), name});
    ATTN_VERIFY_NO_MISMATCH(badInputProblem(r), r.describe());
    QVERIFY2(r.err.startsWith(QStringLiteral("attention-lab-cli: model export: --name: ")), qPrintable(r.err));
    QVERIFY2(!r.err.contains(QLatin1Char('\x1b')), qPrintable(r.err));
    QStringList made;
    for (QDirIterator it(dir.path(), QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories); it.hasNext();)
        made << it.next();
    QCOMPARE(made, QStringList());
    QVERIFY(!QFileInfo::exists(QStringLiteral("/tmp/attn-x_L1H1_weights.png")));
}

// A model folder named with an escape and a newline put them into the file
// names, and --model DIR/. gave the hidden "._L1H1_weights.png".
void TestCli::modelFolderNamesAreCleanedInFileNames()
{
    QTemporaryDir dir;
    const QString bad = copyModel(dir.path(), QStringLiteral("bad\x1b[31m\nname"));
    const QString plain = copyModel(dir.path(), QStringLiteral("gpt2"));
    QVERIFY(!bad.isEmpty() && !plain.isEmpty());
    const struct {
        QString model, file;
    } cases[] = {{bad, QStringLiteral("bad_[31m_name_L1H1_weights.png")},
                 {plain + QStringLiteral("/."), QStringLiteral("gpt2_L1H1_weights.png")},
                 {plain + QStringLiteral("/"), QStringLiteral("gpt2_L1H1_weights.png")}};
    for (const auto &c : cases) {
        QTemporaryDir out;
        const Run r = runBinary({QStringLiteral("model"), QStringLiteral("export"), QStringLiteral("--model"), c.model,
                                 QStringLiteral("--text"), QStringLiteral("the cat"), QStringLiteral("--out"), out.path(),
                                 QStringLiteral("--stages"), QStringLiteral("weights")});
        QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.code == 0, qPrintable(r.describe()));
        QCOMPARE(QDir(out.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{c.file});
        QCOMPARE(r.out, QDir::toNativeSeparators(QDir(out.path()).filePath(c.file)) + QLatin1Char('\n'));
    }
}

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
