// The model core: safetensors, the GPT-2 tokenizer, the forward
// against PyTorch's numbers, every bad folder, a head taken into the lab, and
// `attention-lab-cli model`.

#include "attention.h"
#include "attn_test.h"
#include "bpe.h"
#include "cli.h"
#include "gpt2.h"
#include "headgrid.h"
#include "headlabel.h"
#include "safetensors.h"
#include "scenario_json.h"
#include "sinks.h"
#include "takehead.h"
#include "modelcmd.h"
#include "modelfile.h"
#include "trace_json.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QTest>
#include <QXmlStreamReader>
#include <QImage>
#include <QLocale>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <ctime>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits>
#include <optional>
#include <random>
#include <set>

using namespace attn;

namespace {

// CPU time of the calling thread: unlike the wall clock, it does not count
// the time other processes hold the cores.
qint64 threadCpuNs()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return qint64(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

QString modelSourceDir()
{
    return test::sourceDir() + QStringLiteral("/resources/models/tiny-bilingual");
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

QJsonObject readJson(const QString &path)
{
    return QJsonDocument::fromJson(readFile(path)).object();
}

std::shared_ptr<const Gpt2Model> builtin()
{
    static std::shared_ptr<const Gpt2Model> m = [] {
        const ModelOrProblem r = loadBuiltinModel();
        if (const auto *p = std::get_if<Problem>(&r))
            qFatal("the built-in model does not load: %s", p->toString().c_str());
        return std::get<std::shared_ptr<const Gpt2Model>>(r);
    }();
    return m;
}

// The shipped model's tensors, to be written back changed.
std::vector<TensorToWrite> shippedTensors(DType dtype = DType::F32)
{
    const auto file = SafeTensors::open(modelSourceDir() + QStringLiteral("/model.safetensors"));
    const SafeTensors &st = std::get<SafeTensors>(file);
    std::vector<TensorToWrite> out;
    for (const TensorInfo &t : st.tensors())
        out.push_back({t.name, dtype, t.shape, st.values(t)});
    return out;
}

// A copy of the shipped folder in `dir`, with files replaced.
void copyModel(const QString &dir)
{
    for (const char *f : {"config.json", "model.safetensors", "vocab.json", "merges.txt"})
        QVERIFY(QFile::copy(modelSourceDir() + QLatin1Char('/') + QLatin1String(f), dir + QLatin1Char('/') + QLatin1String(f)));
}

Problem problemOf(const ModelOrProblem &r)
{
    if (const auto *p = std::get_if<Problem>(&r))
        return *p;
    return Problem{"", "(loaded)"};
}

QByteArray smallFile()
{
    return safetensorsBytes({{"a", DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}},
                             {"b", DType::F16, {4}, {0.5, -1, 2, 1024}},
                             {"c", DType::BF16, {1, 2}, {3, -0.25}}});
}

QByteArray withHeader(const QByteArray &header, const QByteArray &data)
{
    QByteArray out;
    const quint64 n = quint64(header.size());
    for (int i = 0; i < 8; ++i)
        out.append(char((n >> (8 * i)) & 0xff));
    return out + header + data;
}

// The problem a value-or-Problem holds, as text; empty when it holds a value.
// (QVERIFY2 evaluates its message whether or not the check fails.)
template <typename V>
std::string why(const V &v)
{
    if (const auto *p = std::get_if<Problem>(&v))
        return p->toString();
    return {};
}

std::string why(const std::optional<Problem> &p)
{
    return p ? p->toString() : std::string();
}

struct CliRun {
    int status = -1;
    QString out, err;
};

CliRun cli(const QStringList &args)
{
    QString o, e;
    QTextStream out(&o), err(&e);
    CliRun r;
    r.status = runCli(args, out, err);
    out.flush();
    err.flush();
    r.out = o;
    r.err = e;
    return r;
}

// A model folder of random weights (N(0, 0.02), F16) with the built-in
// tokenizer: `layers` × `heads`, n_embd `embd`, n_positions `positions`,
// MLP 4 embd. For the limits of a user's own, bigger model.
bool writeRandomModel(const QString &dir, int layers, int heads, int embd, int positions)
{
    const auto config = readJson(modelSourceDir() + QStringLiteral("/config.json"));
    const std::int64_t V = config.value(QLatin1String("vocab_size")).toInt(), d = embd, P = positions, I = 4 * embd;
    std::mt19937_64 rng(5);
    std::normal_distribution<double> normal(0, 0.02);
    std::vector<TensorToWrite> t;
    auto add = [&](const std::string &name, std::vector<std::int64_t> shape, double around = 0) {
        std::int64_t n = 1;
        for (auto s : shape)
            n *= s;
        std::vector<double> v(static_cast<std::size_t>(n));
        for (double &x : v)
            x = around + normal(rng);
        t.push_back({name, DType::F16, shape, std::move(v)});
    };
    add("wte.weight", {V, d});
    add("wpe.weight", {P, d});
    for (int l = 0; l < layers; ++l) {
        const std::string h = "h." + std::to_string(l) + ".";
        add(h + "ln_1.weight", {d}, 1);
        add(h + "ln_1.bias", {d});
        add(h + "attn.c_attn.weight", {d, 3 * d});
        add(h + "attn.c_attn.bias", {3 * d});
        add(h + "attn.c_proj.weight", {d, d});
        add(h + "attn.c_proj.bias", {d});
        add(h + "ln_2.weight", {d}, 1);
        add(h + "ln_2.bias", {d});
        add(h + "mlp.c_fc.weight", {d, I});
        add(h + "mlp.c_fc.bias", {I});
        add(h + "mlp.c_proj.weight", {I, d});
        add(h + "mlp.c_proj.bias", {d});
    }
    add("ln_f.weight", {d}, 1);
    add("ln_f.bias", {d});
    const QJsonObject c{{"n_layer", layers}, {"n_head", heads}, {"n_embd", embd}, {"n_positions", positions},
                        {"vocab_size", int(V)}, {"layer_norm_epsilon", 1e-5}, {"activation_function", "gelu_new"}};
    for (const char *f : {"vocab.json", "merges.txt"})
        if (!QFile::copy(modelSourceDir() + QLatin1Char('/') + QLatin1String(f), dir + QLatin1Char('/') + QLatin1String(f)))
            return false;
    return writeFile(dir + QStringLiteral("/model.safetensors"), safetensorsBytes(t))
        && writeFile(dir + QStringLiteral("/config.json"), QJsonDocument(c).toJson());
}

// Every number a trace holds, counted from its matrices.
double storedCells(const ModelTrace &t)
{
    double n = double(t.final.size());
    for (const LayerActivations &l : t.layers) {
        n += double(l.input.size() + l.normed.size());
        for (const HeadActivations &h : l.heads)
            n += double(h.q.size() + h.k.size() + h.v.size() + h.scores.size() + h.scaled.size() + h.weights.size() + h.output.size());
    }
    return n;
}

// `model trace --format json` as the command built it before it streamed:
// the whole tree, then QJsonDocument's indented text, terminal controls escaped.
QByteArray treeTraceJson(const ModelTrace &t, const QList<int> &layers, const QList<int> &heads)
{
    auto matrixJson = [](const Matrix &m) {
        QJsonArray rows;
        for (Eigen::Index i = 0; i < m.rows(); ++i) {
            QJsonArray row;
            for (Eigen::Index j = 0; j < m.cols(); ++j)
                row.append(m(i, j));
            rows.append(row);
        }
        return rows;
    };
    auto utf8 = [](const std::string &b) { return QString::fromUtf8(b.data(), qsizetype(b.size())); };
    QJsonArray tokens;
    for (std::size_t i = 0; i < t.ids.size(); ++i)
        tokens.append(QJsonObject{{QStringLiteral("id"), t.ids[i]}, {QStringLiteral("text"), utf8(t.texts[i])}});
    QJsonArray layerList;
    for (int l : layers) {
        QJsonArray headList;
        for (int h : heads) {
            const HeadActivations &a = t.layers[std::size_t(l)].heads[std::size_t(h)];
            const HeadScores hs = scoreHead(a.weights, t.ids);
            auto score = [](const HeadScore &s) {
                return s.defined() ? QJsonObject{{QStringLiteral("rows"), s.rows}, {QStringLiteral("score"), s.score},
                                                 {QStringLiteral("uniform"), s.uniform}}
                                   : QJsonObject{{QStringLiteral("rows"), 0}, {QStringLiteral("score"), QJsonValue::Null},
                                                 {QStringLiteral("uniform"), QJsonValue::Null}};
            };
            const QJsonObject scores{{QStringLiteral("kind"), QString::fromStdString(headKindName(hs.kind))},
                                     {QStringLiteral("spread"), hs.spread},
                                     {QStringLiteral("mean_entropy"), hs.meanEntropy},
                                     {QStringLiteral("previous_token"), score(hs.previousToken)},
                                     {QStringLiteral("first_token"), score(hs.firstToken)},
                                     {QStringLiteral("self"), score(hs.self)},
                                     {QStringLiteral("induction"), score(hs.induction)},
                                     {QStringLiteral("duplicate"), score(hs.duplicate)}};
            headList.append(QJsonObject{{QStringLiteral("head"), h + 1},
                                        {QStringLiteral("head_scores"), scores},
                                        {QStringLiteral("q"), matrixJson(a.q)},
                                        {QStringLiteral("k"), matrixJson(a.k)},
                                        {QStringLiteral("v"), matrixJson(a.v)},
                                        {QStringLiteral("scores"), matrixJson(a.scores)},
                                        {QStringLiteral("scaled"), matrixJson(a.scaled)},
                                        {QStringLiteral("weights"), matrixJson(a.weights)},
                                        {QStringLiteral("output"), matrixJson(a.output)}});
        }
        layerList.append(QJsonObject{{QStringLiteral("layer"), l + 1}, {QStringLiteral("heads"), headList}});
    }
    QJsonArray next;
    for (const Prediction &p : t.next)
        next.append(QJsonObject{{QStringLiteral("id"), p.id}, {QStringLiteral("text"), utf8(p.text)}, {QStringLiteral("p"), p.p}});
    return escapeTerminalControls(
        QJsonDocument(QJsonObject{{QStringLiteral("tokens"), tokens}, {QStringLiteral("layers"), layerList}, {QStringLiteral("next"), next}})
            .toJson(QJsonDocument::Indented));
}

QList<int> upTo(int n)
{
    QList<int> out;
    for (int i = 0; i < n; ++i)
        out << i;
    return out;
}

double maxAbsDiff(const Matrix &a, const QJsonArray &rows)
{
    double worst = 0;
    if (a.rows() != rows.size())
        return INFINITY;
    for (int i = 0; i < rows.size(); ++i) {
        const QJsonArray row = rows[i].toArray();
        if (a.cols() != row.size())
            return INFINITY;
        for (int j = 0; j < row.size(); ++j)
            worst = std::max(worst, std::abs(a(i, j) - row[j].toDouble()));
    }
    return worst;
}

// The built binary run on `args` as a user would, bounded: at most 2 GB of
// address space (a reader without a bound dies there instead of taking the
// machine) and 60 s (a reader blocked on a FIFO is killed). `hung` says
// whether it had to be killed.
struct BoundedRun {
    bool hung = false;
    int status = -1;
    QProcess::ExitStatus exit = QProcess::NormalExit;
    QString out, err;
};

BoundedRun runBoundedCli(const QStringList &args)
{
    BoundedRun r;
    QProcess p;
    p.setProcessEnvironment(test::offscreenEnvironment());
    p.setChildProcessModifier([] {
        const rlimit as{2'000'000'000, 2'000'000'000};
        setrlimit(RLIMIT_AS, &as);
    });
    p.start(test::binaryDir() + QStringLiteral("/bin/attention-lab-cli"), args);
    if (!p.waitForFinished(60000)) {
        r.hung = true;
        p.kill();
        p.waitForFinished(10000);
    }
    r.status = p.exitCode();
    r.exit = p.exitStatus();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// The shipped model with head `head` (0-based) of layer 0 made to overflow:
// its q and k columns of c_attn times `factor`, so q k^T leaves the doubles.
std::vector<TensorToWrite> overflowingTensors(int head, double factor)
{
    std::vector<TensorToWrite> t = shippedTensors(DType::F64);
    const QJsonObject config = readJson(modelSourceDir() + QStringLiteral("/config.json"));
    const int d = config.value(QLatin1String("n_embd")).toInt(), dh = d / config.value(QLatin1String("n_head")).toInt();
    for (auto &x : t)
        if (x.name == "h.0.attn.c_attn.weight")
            for (int r = 0; r < d; ++r)
                for (int c = 0; c < dh; ++c) {
                    x.values[std::size_t(r * 3 * d + head * dh + c)] *= factor;     // q
                    x.values[std::size_t(r * 3 * d + d + head * dh + c)] *= factor; // k
                }
    return t;
}

} // namespace

class TestModel : public QObject {
    Q_OBJECT

private slots:
    // A big vocabulary's long token still makes a label a scenario accepts
    // (at most kMaxLabelCharacters code points): its start and an ellipsis.
    void longTokenLabelsAreShortened()
    {
        ModelTrace t;
        t.texts = {std::string(100, 'a'), "short", std::string(30, 'x') + std::string(40, '\0') };
        std::string chinese;
        for (int i = 0; i < 70; ++i)
            chinese += "\u6211"; // 我, three bytes each
        t.texts.push_back(chinese);
        const std::vector<std::string> labels = tokenLabels(t);
        QCOMPARE(labels[0], std::string(63, 'a') + "\u2026");
        QCOMPARE(labels[1], tokenLabel("short"));
        for (const std::string &label : labels)
            QVERIFY(QString::fromStdString(label).toUcs4().size() <= kMaxLabelCharacters);
        QVERIFY(QString::fromStdString(labels[3]).startsWith(QStringLiteral("\u6211\u6211")));
        QVERIFY(QString::fromStdString(labels[3]).endsWith(QChar(0x2026)));
    }

    // --- safetensors -------------------------------------------------------

    void halfAndBfloat16EveryBitPattern()
    {
        for (int b = 0; b < 65536; ++b) {
            const auto bits = std::uint16_t(b);
            const double h = halfToDouble(bits);
            if (!std::isnan(h))
                QCOMPARE(doubleToHalf(h), bits);
            const double f = bfloat16ToDouble(bits);
            if (!std::isnan(f))
                QCOMPARE(doubleToBfloat16(f), bits);
        }
        QCOMPARE(halfToDouble(0x3c00), 1.0);
        QCOMPARE(halfToDouble(0x7bff), 65504.0);
        QCOMPARE(halfToDouble(0x0001), std::ldexp(1.0, -24));
        QCOMPARE(bfloat16ToDouble(0x3f80), 1.0);
        QCOMPARE(doubleToHalf(1.0 + std::ldexp(1.0, -11)), std::uint16_t(0x3c00)); // a tie goes to even
    }

    void dtypesAsNumpyWroteThem()
    {
        const QJsonObject expected = readJson(QFINDTESTDATA("dtypes.json"));
        QVERIFY(!expected.isEmpty());
        for (const char *dt : {"F32", "F16", "BF16"}) {
            const QString path = QFINDTESTDATA(QStringLiteral("dtype_%1.safetensors").arg(QString::fromLatin1(dt).toLower()));
            const auto r = SafeTensors::open(path, QStringLiteral("dtype.safetensors"));
            QVERIFY2(std::holds_alternative<SafeTensors>(r), why(r).c_str());
            const SafeTensors &st = std::get<SafeTensors>(r);
            const TensorInfo *x = st.find("x");
            QVERIFY(x);
            QCOMPARE(QString::fromLatin1(toString(x->dtype)), QString::fromLatin1(dt));
            QCOMPARE(x->shape, (std::vector<std::int64_t>{2, 5}));
            const std::vector<double> v = st.values(*x);
            const QJsonArray want = expected.value(QLatin1String(dt)).toArray();
            QCOMPARE(qsizetype(v.size()), want.size());
            for (std::size_t i = 0; i < v.size(); ++i)
                QVERIFY2(v[i] == want[qsizetype(i)].toDouble(), // -0.0 reads back from JSON as 0
                         qPrintable(QStringLiteral("%1[%2]: %3 vs %4").arg(QLatin1String(dt)).arg(i).arg(test::num(v[i]), test::num(want[qsizetype(i)].toDouble()))));
            const Matrix m = st.matrix(*x);
            QCOMPARE(m.rows(), 2);
            QCOMPARE(m(1, 0), v[5]);
        }
    }

    void roundTrip()
    {
        std::mt19937_64 rng(5);
        std::normal_distribution<double> normal;
        for (DType dt : {DType::F32, DType::F16, DType::BF16, DType::F64}) {
            std::vector<double> values(60);
            for (double &v : values)
                v = normal(rng);
            const QByteArray bytes = safetensorsBytes({{"w", dt, {3, 4, 5}, values}, {"empty", dt, {0, 7}, {}}}, {{"format", "pt"}});
            const auto r = SafeTensors::fromBytes(bytes, QStringLiteral("t.safetensors"));
            QVERIFY2(std::holds_alternative<SafeTensors>(r), why(r).c_str());
            const SafeTensors &st = std::get<SafeTensors>(r);
            QCOMPARE(st.metadata().at("format"), std::string("pt"));
            const std::vector<double> back = st.values(*st.find("w"));
            for (std::size_t i = 0; i < values.size(); ++i) {
                double expected = values[i];
                if (dt == DType::F32)
                    expected = double(float(values[i]));
                else if (dt == DType::F16)
                    expected = halfToDouble(doubleToHalf(values[i]));
                else if (dt == DType::BF16)
                    expected = bfloat16ToDouble(doubleToBfloat16(values[i]));
                QCOMPARE(back[i], expected);
            }
            QCOMPARE(st.find("empty")->count(), 0);
        }
    }

    void badFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("says");
        const QByteArray good = smallFile();
        const quint64 headerLength = quint64(quint8(good[0])) | (quint64(quint8(good[1])) << 8);
        const QByteArray header = good.mid(8, qsizetype(headerLength));
        const QByteArray data = good.mid(8 + qsizetype(headerLength));

        QTest::newRow("empty") << QByteArray() << "truncated: 0 bytes";
        QTest::newRow("five bytes") << QByteArray("\x01\x02\x03\x04\x05", 5) << "shorter than the 8-byte header length";
        QByteArray beyond = good;
        beyond[0] = char(0xff);
        beyond[1] = char(0xff);
        QTest::newRow("header length beyond the file") << beyond << "is beyond the end of the file";
        QByteArray huge = good;
        huge[7] = char(0x7f);
        QTest::newRow("header length 2^62") << huge << "is beyond the end of the file";
        QTest::newRow("not JSON") << withHeader("{\"a\": [", data) << "the header is not JSON";
        QTest::newRow("not an object") << withHeader("[1, 2]  ", data) << "not a JSON object";
        QTest::newRow("unknown dtype")
            << withHeader(R"({"a":{"dtype":"Q4","shape":[2],"data_offsets":[0,1]}})", data) << "tensor \"a\": unknown dtype \"Q4\"";
        QTest::newRow("I64 dtype")
            << withHeader(R"({"a":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", data) << "unknown dtype \"I64\"";
        QTest::newRow("shape and offsets disagree")
            << withHeader(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", data)
            << "tensor \"a\": shape [2, 3] of F32 needs 24 bytes, but data_offsets [0, 20] hold 20";
        QTest::newRow("negative dimension")
            << withHeader(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data) << "tensor \"a\": shape holds";
        QTest::newRow("a shape of 2^60 elements")
            << withHeader(R"({"a":{"dtype":"F32","shape":[1073741824,1073741824],"data_offsets":[0,8]}})", data)
            << "more bytes than any file holds";
        QTest::newRow("offsets backwards")
            << withHeader(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})", data) << "end before they begin";
        QTest::newRow("overlap")
            << withHeader(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", data)
            << "tensor \"b\": data_offsets [8, 16] overlap those of tensor \"a\" [0, 16]";
        QTest::newRow("overlap past an empty tensor")
            << withHeader(R"({"a":{"dtype":"F32","shape":[8],"data_offsets":[0,32]},"e":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[20,24]}})", data)
            << "overlap those of tensor \"a\"";
        QTest::newRow("out of range")
            << withHeader(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[1000,1008]}})", data)
            << "tensor \"a\": data_offsets [1000, 1008] are out of range";
        QTest::newRow("truncated") << good.left(good.size() - 3) << "truncated: the tensors need";
        QTest::newRow("no data_offsets")
            << withHeader(R"({"a":{"dtype":"F32","shape":[2]}})", data) << "data_offsets must be two whole numbers";
        QTest::newRow("bad metadata") << withHeader(R"({"__metadata__":{"x":1}})", data) << "__metadata__.x is not a string";
        Q_UNUSED(header);
    }

    void badFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, says);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("model.safetensors"));
        QVERIFY(writeFile(path, bytes));
        const auto r = SafeTensors::open(path, QStringLiteral("broken/model.safetensors"));
        QVERIFY(std::holds_alternative<Problem>(r));
        const Problem &p = std::get<Problem>(r);
        QCOMPARE(QString::fromStdString(p.place), QStringLiteral("broken/model.safetensors"));
        QVERIFY2(QString::fromStdString(p.message).contains(says), p.toString().c_str());
    }

    // Random changes to a good file's header and length: every one either
    // loads, with every tensor readable, or is refused with a Problem.
    void fuzzHeader()
    {
        const QByteArray good = smallFile();
        std::mt19937 rng(13);
        int refused = 0, loaded = 0;
        for (int round = 0; round < 3000; ++round) {
            QByteArray b = good;
            const int edits = 1 + int(rng() % 4);
            for (int e = 0; e < edits; ++e) {
                switch (rng() % 6) {
                case 0: // a byte of the header's JSON
                    b[8 + qsizetype(rng() % std::uint32_t(b.size() - 8))] = char(rng());
                    break;
                case 1: // a digit of the header for another digit
                {
                    const qsizetype at = 8 + qsizetype(rng() % std::uint32_t(b.size() - 8));
                    if (b[at] >= '0' && b[at] <= '9')
                        b[at] = char('0' + rng() % 10);
                    break;
                }
                case 2: // the header length
                    b[qsizetype(rng() % 8)] = char(rng());
                    break;
                case 3: // cut the file
                    b.truncate(qsizetype(rng() % std::uint32_t(b.size() + 1)));
                    break;
                case 4: // grow the data
                    b.append(QByteArray(int(rng() % 16), char(rng())));
                    break;
                default: // dtype names
                    b.replace("F16", rng() % 2 ? "F64" : "BF1");
                    break;
                }
                if (b.size() < 9)
                    break;
            }
            const auto r = SafeTensors::fromBytes(b, QStringLiteral("fuzz.safetensors"));
            if (const auto *st = std::get_if<SafeTensors>(&r)) {
                ++loaded;
                for (const TensorInfo &t : st->tensors()) {
                    QVERIFY(t.begin >= 0 && t.end >= t.begin);
                    QCOMPARE(qsizetype(st->values(t).size()), qsizetype(t.count()));
                }
            } else {
                ++refused;
                QVERIFY(!std::get<Problem>(r).message.empty());
            }
        }
        QVERIFY(refused > 100);
        QVERIFY(loaded > 10);
    }

    // --- the tokenizer -----------------------------------------------------

    void bytesToUnicodeIsGpt2s()
    {
        const auto &t = bytesToUnicode();
        QCOMPARE(t[' '], char32_t(0x120));   // 'Ġ'
        QCOMPARE(t['\n'], char32_t(0x10a));  // 'Ċ'
        QCOMPARE(t['A'], char32_t('A'));
        QCOMPARE(t[0], char32_t(0x100));
        QCOMPARE(t[0xad], char32_t(0x143));  // soft hyphen, the last one moved
        std::set<char32_t> distinct(t.begin(), t.end());
        QCOMPARE(int(distinct.size()), 256);
    }

    // The hand matcher against the regex module's own findall of GPT-2's
    // pattern (tests/model/pretokenize.json, written by scripts/train-model.py).
    void preTokenizeAsTheRegex()
    {
        const QJsonObject ref = readJson(QFINDTESTDATA("pretokenize.json"));
        const QJsonArray cases = ref.value(QLatin1String("cases")).toArray();
        QVERIFY(cases.size() > 10);
        for (const QJsonValue &c : cases) {
            const QString text = c.toObject().value(QLatin1String("text")).toString();
            QStringList expected;
            for (const QJsonValue &p : c.toObject().value(QLatin1String("pieces")).toArray())
                expected << p.toString();
            QStringList got;
            for (const QString &p : gpt2PreTokenize(text))
                got << p;
            QCOMPARE(got, expected);
        }
    }

    void gpt2RulesOnATinyVocabulary()
    {
        // All 256 byte symbols, then the merges that make "Hello" and "Ġworld".
        QJsonObject vocab;
        int id = 0;
        for (char32_t c : bytesToUnicode())
            vocab.insert(QString::fromUcs4(&c, 1), id++);
        const QStringList merges = {"H e", "He l", "Hel l", "Hell o", "Ġ w", "Ġw o", "Ġwo r", "Ġwor l", "Ġworl d", "' s"};
        for (const QString &m : merges)
            vocab.insert(QString(m).remove(QLatin1Char(' ')), id++);
        const auto r = BpeTokenizer::fromData(QJsonDocument(vocab).toJson(), ("#version: 0.2\n" + merges.join('\n') + "\n").toUtf8(),
                                              QStringLiteral("vocab.json"), QStringLiteral("merges.txt"));
        QVERIFY2(std::holds_alternative<BpeTokenizer>(r), why(r).c_str());
        const BpeTokenizer &tok = std::get<BpeTokenizer>(r);
        QCOMPARE(tok.mergeCount(), merges.size());
        auto pieces = [&](const QString &text) {
            QStringList out;
            for (const auto &t : tok.tokenize(text))
                out << QString::fromStdString(t.piece);
            return out;
        };
        QCOMPARE(pieces(QStringLiteral("Hello world")), (QStringList{"Hello", "Ġworld"}));
        QCOMPARE(pieces(QStringLiteral("Hello's world")), (QStringList{"Hello", "'s", "Ġworld"}));
        QCOMPARE(pieces(QStringLiteral("Hello  world")), (QStringList{"Hello", "Ġ", "Ġworld"}));
        QCOMPARE(pieces(QStringLiteral("Help")), (QStringList{"Hel", "p"}));
        QCOMPARE(pieces(QStringLiteral("world")), (QStringList{"w", "o", "r", "l", "d"})); // no Ġ: not the merged word
        QCOMPARE(pieces(QStringLiteral("\n")), (QStringList{"Ċ"}));
        QCOMPARE(pieces(QString::fromUtf8("我")), (QStringList{"æ", "Ī", "ĳ"})); // e6 88 91
        // U+FEFF inside a text is a character (ef bb bf), not a byte-order mark to drop.
        QCOMPARE(pieces(QString::fromUtf8("x\xef\xbb\xbfy")), (QStringList{"x", "ï", "»", "¿", "y"}));
        QCOMPARE(pieces(QString(QChar(0xfeff)) + QStringLiteral(" x")), (QStringList{"ï", "»", "¿", "Ġ", "x"})); // leading, too
        // Every code point is its UTF-8 bytes, as GPT-2's byte-level rules
        // have it: U+0000 (byte 00, shown as Ā), the noncharacter U+FFFE
        // (ef bf be); a lone surrogate, which no UTF-8 text can hold, is
        // U+FFFD (ef bf bd), as Python's errors="replace" writes it.
        QCOMPARE(pieces(QStringLiteral("a") + QChar(0) + QStringLiteral("b")), (QStringList{"a", "Ā", "b"}));
        QCOMPARE(pieces(QStringLiteral("x") + QChar(0xfffe) + QStringLiteral("y")), (QStringList{"x", "ï", "¿", "¾", "y"}));
        QCOMPARE(pieces(QStringLiteral("x") + QChar(0xd800) + QStringLiteral("y")), (QStringList{"x", "ï", "¿", "½", "y"}));
        QCOMPARE(pieces(QStringLiteral("x") + QChar(0xdc00) + QStringLiteral("y")), (QStringList{"x", "ï", "¿", "½", "y"}));
        // Invalid UTF-8 read from a file: each bad byte is U+FFFD, never dropped.
        QCOMPARE(pieces(QString::fromUtf8("x\xffy")), (QStringList{"x", "ï", "¿", "½", "y"}));
        QCOMPARE(tok.decode(tok.encode(QStringLiteral("Hello world"))), std::string("Hello world"));

        // Broken tokenizer files say which file and line.
        auto problem = [&](const QByteArray &v, const QByteArray &m) {
            const auto p = BpeTokenizer::fromData(v, m, QStringLiteral("vocab.json"), QStringLiteral("merges.txt"));
            return std::holds_alternative<Problem>(p) ? QString::fromStdString(std::get<Problem>(p).toString()) : QString();
        };
        const QByteArray v = QJsonDocument(vocab).toJson();
        QVERIFY(problem("{", "").startsWith(QLatin1String("vocab.json: not JSON")));
        QVERIFY(problem("{\"a\": 0}", "").contains(QLatin1String("no token for the byte")));
        QVERIFY(problem(v, "#version: 0.2\nH e\nx y z\n").contains(QLatin1String("merges.txt: line 3: expected two tokens")));
        QVERIFY(problem(v, "Q u\n").contains(QLatin1String("merges.txt: line 1: merging \"Q\" and \"u\" gives \"Qu\"")));
        QJsonObject twice = vocab;
        twice.insert(QStringLiteral("zz"), 0);
        QVERIFY(problem(QJsonDocument(twice).toJson(), "").contains(QLatin1String("is given to two tokens")));
    }

    void shippedTokenizer()
    {
        const auto m = builtin();
        const BpeTokenizer &tok = m->tokenizer;
        // Common words and characters are single tokens.
        QCOMPARE(int(tok.encode(QString::fromUtf8("我 打 你 。")).size()), 4);
        QCOMPARE(int(tok.encode(QStringLiteral("the cat sat on the mat .")).size()), 7);
        QCOMPARE(tokenLabel(tok.bytes(tok.encode(QStringLiteral(" cat")).at(0))), std::string("cat"));
        // Any text survives the round trip, whatever the vocabulary lacks.
        for (const char *s : {"the cat sat on the mat .", "小明 看见 了 小红 ， 他 很 高兴 。", "Zebra's 42 ½ emoji 🙂\n\ttabs  ",
                              "ÀÉÎ õ ü", "\x01\x7f", ""}) {
            const QString text = QString::fromUtf8(s);
            QCOMPARE(QString::fromStdString(tok.decode(tok.encode(text))), text);
        }
        // GPT-2's own ids for "x\ufeffy": x, the three bytes of U+FEFF, y.
        QCOMPARE(tok.encode(QString::fromUtf8("x\xef\xbb\xbfy")), (std::vector<int>{87, 171, 119, 123, 88}));
        QCOMPARE(tok.decode(tok.encode(QString::fromUtf8("x\xef\xbb\xbfy"))), std::string("x\xef\xbb\xbfy"));
        QCOMPARE(tokenLabel(" "), std::string("␣"));
        QCOMPARE(tokenLabel("\n"), std::string("↵"));
        QCOMPARE(displayText(std::string("\xe6\x88", 2)), std::string("\\xe6\\x88"));
    }

    // --- the forward against PyTorch ----------------------------------------

    void forwardMatchesPyTorch()
    {
        const auto m = builtin();
        const QJsonObject ref = readJson(QFINDTESTDATA("reference.json"));
        const QJsonArray sentences = ref.value(QLatin1String("sentences")).toArray();
        QVERIFY(sentences.size() >= 3);
        double worstWeights = 0, worstLogits = 0;
        for (const QJsonValue &sv : sentences) {
            const QJsonObject s = sv.toObject();
            const QString text = s.value(QLatin1String("text")).toString();
            std::vector<int> ids;
            for (const QJsonValue &v : s.value(QLatin1String("ids")).toArray())
                ids.push_back(v.toInt());
            QCOMPARE(m->tokenizer.encode(text), ids); // the C++ tokenizer as the Python one
            const auto r = runModel(*m, text);
            QVERIFY2(std::holds_alternative<ModelTrace>(r), why(r).c_str());
            const ModelTrace &t = std::get<ModelTrace>(r);
            const QJsonArray layers = s.value(QLatin1String("weights")).toArray();
            QCOMPARE(qsizetype(t.layers.size()), layers.size());
            for (int l = 0; l < layers.size(); ++l) {
                const QJsonArray heads = layers[l].toArray();
                QCOMPARE(qsizetype(t.layers[std::size_t(l)].heads.size()), heads.size());
                for (int h = 0; h < heads.size(); ++h) {
                    const double d = maxAbsDiff(t.layers[std::size_t(l)].heads[std::size_t(h)].weights, heads[h].toArray());
                    QVERIFY2(d <= 1e-4, qPrintable(QStringLiteral("%1: layer %2 head %3: %4").arg(text).arg(l + 1).arg(h + 1).arg(d)));
                    worstWeights = std::max(worstWeights, d);
                }
            }
            const QJsonArray logits = s.value(QLatin1String("last_logits")).toArray();
            QCOMPARE(qsizetype(t.logits.size()), logits.size());
            for (int i = 0; i < logits.size(); ++i)
                worstLogits = std::max(worstLogits, std::abs(t.logits(i) - logits[i].toDouble()));
            QVERIFY2(worstLogits <= 1e-3, qPrintable(QString::number(worstLogits)));
            const QJsonArray top = s.value(QLatin1String("top5")).toArray();
            QCOMPARE(int(t.next.size()), 5);
            QCOMPARE(t.next[0].id, top[0].toObject().value(QLatin1String("id")).toInt());
            QVERIFY(std::abs(t.next[0].p - top[0].toObject().value(QLatin1String("p")).toDouble()) < 1e-6);
        }
        qInfo("largest difference from PyTorch: weights %.3g, logits %.3g", worstWeights, worstLogits);
    }

    void forwardShapesAndRows()
    {
        const auto m = builtin();
        const auto r = runModel(*m, QString::fromUtf8("我 打 你 。 the cat sat on the mat ."));
        const ModelTrace &t = std::get<ModelTrace>(r);
        const int n = int(t.ids.size()), d = m->config.nEmbd, dh = m->config.headDim();
        QCOMPARE(int(t.layers.size()), m->config.nLayer);
        for (const LayerActivations &la : t.layers) {
            QCOMPARE(la.input.rows(), n);
            QCOMPARE(la.input.cols(), d);
            QCOMPARE(int(la.heads.size()), m->config.nHead);
            for (const HeadActivations &h : la.heads) {
                QCOMPARE(h.q.cols(), dh);
                QCOMPARE(h.weights.rows(), n);
                QCOMPARE(h.weights.cols(), n);
                for (int i = 0; i < n; ++i) {
                    QVERIFY(std::abs(h.weights.row(i).sum() - 1) < 1e-12);
                    for (int j = i + 1; j < n; ++j)
                        QCOMPARE(h.weights(i, j), 0.0);
                }
            }
        }
        double sum = 0;
        for (const Prediction &p : t.next)
            sum += p.p;
        QVERIFY(sum <= 1 + 1e-12);
        QVERIFY(t.next[0].p >= t.next[1].p);
    }

    void textTooLongOrEmpty()
    {
        const auto m = builtin();
        QString text;
        for (int i = 0; i < 70; ++i)
            text += QStringLiteral(" cat");
        const auto r = runModel(*m, text);
        QVERIFY(std::holds_alternative<Problem>(r));
        QVERIFY2(QString::fromStdString(std::get<Problem>(r).message).contains(QLatin1String("at most n_positions = 64")),
                 why(r).c_str());
        QVERIFY(std::holds_alternative<Problem>(runModel(*m, QString())));
        QVERIFY(std::holds_alternative<Problem>(runModelOnIds(*m, {1, 100000})));
    }

    // --- every bad folder ----------------------------------------------------

    void badFolders_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("place");
        QTest::addColumn<QString>("says");
        QJsonObject config = readJson(modelSourceDir() + QStringLiteral("/config.json"));
        auto configWith = [&](const char *key, const QJsonValue &v) {
            QJsonObject c = config;
            if (v.isUndefined())
                c.remove(QLatin1String(key));
            else
                c.insert(QLatin1String(key), v);
            return QJsonDocument(c).toJson();
        };
        const int nLayer = config.value(QLatin1String("n_layer")).toInt();
        const int nEmbd = config.value(QLatin1String("n_embd")).toInt();
        QTest::newRow("config: missing n_head") << "config.json" << configWith("n_head", QJsonValue::Undefined) << "config.json" << "n_head is missing";
        QTest::newRow("config: not JSON") << "config.json" << QByteArray("{") << "config.json" << "not JSON";
        QTest::newRow("config: n_embd not a multiple of n_head")
            << "config.json" << configWith("n_head", 5) << "config.json" << "is not a multiple of n_head 5";
        QTest::newRow("config: fewer layers than the tensors")
            << "config.json" << configWith("n_layer", nLayer - 1) << "model.safetensors"
            << QStringLiteral("belongs to layer %1, but config.json's n_layer is %1").arg(nLayer - 1);
        QTest::newRow("config: more layers than the tensors")
            << "config.json" << configWith("n_layer", nLayer + 1) << "model.safetensors"
            << QStringLiteral("tensor \"h.%1.ln_1.weight\" is missing").arg(nLayer);
        QTest::newRow("config: another width")
            << "config.json" << configWith("n_embd", nEmbd + 4) << "model.safetensors"
            << QStringLiteral("tensor \"wte.weight\" has shape");
        QTest::newRow("config: smaller vocabulary")
            << "config.json" << configWith("vocab_size", 300) << "model.safetensors" << "config.json's vocab_size 300";
        QTest::newRow("config: another activation")
            << "config.json" << configWith("activation_function", QStringLiteral("relu")) << "config.json" << "activation_function \"relu\"";

        std::vector<TensorToWrite> t = shippedTensors();
        std::vector<TensorToWrite> missing;
        for (const auto &x : t)
            if (x.name != "h.1.attn.c_proj.weight")
                missing.push_back(x);
        QTest::newRow("missing tensor") << "model.safetensors" << safetensorsBytes(missing) << "model.safetensors"
                                        << "tensor \"h.1.attn.c_proj.weight\" is missing";
        std::vector<TensorToWrite> wrong = t;
        for (auto &x : wrong)
            if (x.name == "h.0.attn.c_attn.weight") {
                x.shape = {x.shape[1], x.shape[0]}; // transposed, as nn.Linear would store it
            }
        QTest::newRow("wrong shape (transposed c_attn)")
            << "model.safetensors" << safetensorsBytes(wrong) << "model.safetensors"
            << QStringLiteral("tensor \"h.0.attn.c_attn.weight\" has shape [%1, %2], but config.json's n_embd %2 (q, k and v side by side) need [%2, %1]")
                   .arg(3 * nEmbd).arg(nEmbd);
        std::vector<TensorToWrite> nan = t;
        for (auto &x : nan)
            if (x.name == "ln_f.bias")
                x.values[3] = std::nan("");
        QTest::newRow("not a number") << "model.safetensors" << safetensorsBytes(nan) << "model.safetensors"
                                      << "tensor \"ln_f.bias\" holds a value that is not a finite number at [3]";
        const QByteArray shipped = readFile(modelSourceDir() + QStringLiteral("/model.safetensors"));
        QTest::newRow("truncated model") << "model.safetensors" << shipped.left(shipped.size() / 2) << "model.safetensors" << "truncated";
        QByteArray beyond = shipped;
        beyond[5] = char(0x10);
        QTest::newRow("header length beyond the file") << "model.safetensors" << beyond << "model.safetensors" << "beyond the end of the file";
        QByteArray dtype = shipped;
        dtype.replace("\"F32\"", "\"I32\"");
        QTest::newRow("unknown dtype") << "model.safetensors" << dtype << "model.safetensors" << "unknown dtype \"I32\"";
        QTest::newRow("vocab not JSON") << "vocab.json" << QByteArray("[") << "vocab.json" << "not JSON";
        QTest::newRow("merges: a merge of unknown tokens") << "merges.txt" << QByteArray("#version: 0.2\nqq zz\n") << "merges.txt"
                                                            << "line 2: \"qq\" is not a token of";
    }

    void badFolders()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, place);
        QFETCH(QString, says);
        QTemporaryDir dir;
        copyModel(dir.path());
        QVERIFY(writeFile(dir.filePath(file), bytes));
        const Problem p = problemOf(loadModel(dir.path()));
        QCOMPARE(QString::fromStdString(p.place), QDir::cleanPath(dir.path()) + QLatin1Char('/') + place);
        QVERIFY2(QString::fromStdString(p.message).contains(says), p.toString().c_str());
    }

    void missingFiles()
    {
        for (const char *f : {"config.json", "model.safetensors", "vocab.json", "merges.txt"}) {
            QTemporaryDir dir;
            copyModel(dir.path());
            QVERIFY(QFile::remove(dir.filePath(QLatin1String(f))));
            const Problem p = problemOf(loadModel(dir.path()));
            QVERIFY2(QString::fromStdString(p.place).endsWith(QLatin1String(f)), p.toString().c_str());
            QCOMPARE(p.message, std::string("the file is missing"));
        }
        const Problem p = problemOf(loadModel(QStringLiteral("/no/such/model")));
        QVERIFY(QString::fromStdString(p.message).contains(QLatin1String("not a folder")));
    }

    // GPT-2 small's layer shapes (n_embd 768, 12 heads, MLP 3072) with one
    // layer, random weights, the "transformer." prefix, F16, and the extra
    // tensors a real GPT-2 checkpoint holds (attn.bias, lm_head).
    void gpt2SmallShapes()
    {
        QTemporaryDir dir;
        copyModel(dir.path());
        const auto config = readJson(modelSourceDir() + QStringLiteral("/config.json"));
        const int V = config.value(QLatin1String("vocab_size")).toInt(), d = 768, P = 64, I = 3072;
        std::mt19937_64 rng(2);
        std::normal_distribution<double> normal(0, 0.02);
        auto rnd = [&](std::vector<std::int64_t> shape, double around = 0) {
            std::int64_t n = 1;
            for (auto s : shape)
                n *= s;
            std::vector<double> v(static_cast<std::size_t>(n));
            for (double &x : v)
                x = around + normal(rng);
            return v;
        };
        std::vector<TensorToWrite> t;
        auto add = [&](const std::string &name, std::vector<std::int64_t> shape, double around = 0) {
            t.push_back({"transformer." + name, DType::F16, shape, rnd(shape, around)});
        };
        add("wte.weight", {V, d});
        add("wpe.weight", {P, d});
        add("h.0.ln_1.weight", {d}, 1);
        add("h.0.ln_1.bias", {d});
        add("h.0.attn.c_attn.weight", {d, 3 * d});
        add("h.0.attn.c_attn.bias", {3 * d});
        add("h.0.attn.c_proj.weight", {d, d});
        add("h.0.attn.c_proj.bias", {d});
        add("h.0.ln_2.weight", {d}, 1);
        add("h.0.ln_2.bias", {d});
        add("h.0.mlp.c_fc.weight", {d, I});
        add("h.0.mlp.c_fc.bias", {I});
        add("h.0.mlp.c_proj.weight", {I, d});
        add("h.0.mlp.c_proj.bias", {d});
        add("ln_f.weight", {d}, 1);
        add("ln_f.bias", {d});
        t.push_back({"transformer.h.0.attn.bias", DType::F16, {1, 1, P, P}, std::vector<double>(std::size_t(P * P), 1.0)});
        t.push_back({"lm_head.weight", DType::F16, {V, d}, rnd({V, d})});
        QVERIFY(writeFile(dir.filePath(QStringLiteral("model.safetensors")), safetensorsBytes(t, {{"format", "pt"}})));
        QJsonObject c{{"n_layer", 1}, {"n_head", 12}, {"n_embd", d}, {"n_positions", P}, {"vocab_size", V},
                      {"layer_norm_epsilon", 1e-5}, {"activation_function", "gelu_new"}, {"n_inner", QJsonValue::Null}};
        QVERIFY(writeFile(dir.filePath(QStringLiteral("config.json")), QJsonDocument(c).toJson()));

        const ModelOrProblem r = loadModel(dir.path());
        QVERIFY2(std::holds_alternative<std::shared_ptr<const Gpt2Model>>(r), problemOf(r).toString().c_str());
        const Gpt2Model &m = *std::get<std::shared_ptr<const Gpt2Model>>(r);
        QCOMPARE(m.config.headDim(), 64);
        QCOMPARE(m.config.nInner, I);
        QCOMPARE(m.dtype, std::string("F16"));
        QCOMPARE(m.parameters, std::int64_t(V) * d + P * d + 12LL * d * d + 13LL * d + 2LL * d);
        const auto run = runModel(m, QStringLiteral("the cat sat on the mat ."));
        const ModelTrace &tr = std::get<ModelTrace>(run);
        QCOMPARE(int(tr.layers[0].heads.size()), 12);
        QCOMPARE(tr.layers[0].heads[11].q.cols(), 64);
        QVERIFY(tr.logits.allFinite());
        const Scenario s = std::get<Scenario>(headScenario(m, tr, 0, 11));
        QVERIFY(!validate(s));
        QVERIFY((compute(s).heads[0].weights - tr.layers[0].heads[11].weights).cwiseAbs().maxCoeff() <= 1e-12);
    }

    // The shipped model in F16 and BF16 gives nearly the same heads.
    void halfPrecisionCopies()
    {
        const auto m = builtin();
        const QString text = QString::fromUtf8("小明 看见 了 小红 ， 他 很 高兴 。");
        const ModelTrace ref = std::get<ModelTrace>(runModel(*m, text));
        for (DType dt : {DType::F16, DType::BF16}) {
            QTemporaryDir dir;
            copyModel(dir.path());
            QVERIFY(writeFile(dir.filePath(QStringLiteral("model.safetensors")), safetensorsBytes(shippedTensors(dt))));
            const ModelOrProblem r = loadModel(dir.path());
            QVERIFY2(std::holds_alternative<std::shared_ptr<const Gpt2Model>>(r), problemOf(r).toString().c_str());
            const auto &half = *std::get<std::shared_ptr<const Gpt2Model>>(r);
            QCOMPARE(half.dtype, std::string(toString(dt)));
            const ModelTrace t = std::get<ModelTrace>(runModel(half, text));
            double worst = 0;
            for (std::size_t l = 0; l < t.layers.size(); ++l)
                for (std::size_t h = 0; h < t.layers[l].heads.size(); ++h)
                    worst = std::max(worst, (t.layers[l].heads[h].weights - ref.layers[l].heads[h].weights).cwiseAbs().maxCoeff());
            QVERIFY2(worst < (dt == DType::F16 ? 0.02 : 0.1), qPrintable(QStringLiteral("%1: %2").arg(toString(dt)).arg(worst)));
        }
    }

    // --- into the lab -----------------------------------------------------

    void headIntoTheLab()
    {
        const auto m = builtin();
        const QString text = QStringLiteral("say cat red box . say cat red box .");
        const ModelTrace t = std::get<ModelTrace>(runModel(*m, text));
        for (int l = 0; l < m->config.nLayer; ++l)
            for (int h = 0; h < m->config.nHead; ++h) {
                const HeadActivations &a = t.layers[std::size_t(l)].heads[std::size_t(h)];
                for (HeadInput input : {HeadInput::Direct, HeadInput::Projected}) {
                    const auto r = headScenario(*m, t, l, h, input);
                    const Scenario &s = std::get<Scenario>(r);
                    QVERIFY2(!validate(s), why(validate(s)).c_str());
                    QVERIFY(s.mask.causal);
                    QCOMPARE(s.scale, Scale::SqrtDk);
                    QCOMPARE(int(s.tokens.size()), int(t.ids.size()));
                    const Trace tr = compute(s);
                    const double tol = input == HeadInput::Direct ? 1e-12 : 1e-10;
                    QVERIFY2((tr.heads[0].weights - a.weights).cwiseAbs().maxCoeff() <= tol, "weights");
                    QVERIFY((tr.heads[0].scores - a.scores).cwiseAbs().maxCoeff() <= tol * 100);
                    QVERIFY((tr.heads[0].output - a.output).cwiseAbs().maxCoeff() <= tol * 100);
                    if (input == HeadInput::Direct) {
                        QCOMPARE(tr.heads[0].weights, a.weights); // the same arithmetic: bit for bit
                        // The file keeps it.
                        const auto back = scenarioFromJson(scenarioToJson(s));
                        QVERIFY(std::holds_alternative<Scenario>(back));
                        QVERIFY((compute(std::get<Scenario>(back)).heads[0].weights - a.weights).cwiseAbs().maxCoeff() <= 1e-12);
                    }
                }
            }
        const Scenario s = std::get<Scenario>(headScenario(*m, t, 0, 0));
        QCOMPARE(s.tokens[0], std::string("say"));
        QCOMPARE(s.tokens[1], std::string("cat"));
        QVERIFY(QString::fromStdString(s.title).contains(QLatin1String("layer 1, head 1")));
        QVERIFY(std::holds_alternative<Problem>(headScenario(*m, t, m->config.nLayer, 0)));
        QVERIFY(std::holds_alternative<Problem>(headScenario(*m, t, 0, -1)));

        // Review D2: a long folder name is cut to the title limit, not refused
        // later by compute(); what the lab cannot take is a Problem here.
        Gpt2Model named = *m;
        named.name = QString(300, QLatin1Char('m'));
        const auto longName = headScenario(named, t, 0, 0);
        QVERIFY(std::holds_alternative<Scenario>(longName));
        const std::string &title = std::get<Scenario>(longName).title;
        QCOMPARE(QString::fromStdString(title).size(), qsizetype(kMaxTitleCharacters));
        QVERIFY(QString::fromStdString(title).endsWith(QChar(0x2026)));
        QVERIFY(!validate(std::get<Scenario>(longName)));
        ModelTrace huge = t;
        huge.layers[0].heads[0].q(0, 0) = 1e13;
        const auto refused = headScenario(*m, huge, 0, 0);
        QVERIFY(std::holds_alternative<Problem>(refused));
        QVERIFY2(std::get<Problem>(refused).message.find("cannot be taken into the lab") != std::string::npos,
                 std::get<Problem>(refused).message.c_str());
    }

    // Incremental: a forward that keeps the positions before the first
    // changed token gives what the full forward gives, for every stage.
    void incrementalForwardEqualsFull()
    {
        const auto m = builtin();
        // The largest difference over every matrix of two traces of the same ids.
        auto worst = [](const ModelTrace &a, const ModelTrace &b) {
            double w = (a.final - b.final).cwiseAbs().maxCoeff();
            w = std::max(w, (a.logits - b.logits).cwiseAbs().maxCoeff());
            for (std::size_t l = 0; l < a.layers.size(); ++l) {
                const LayerActivations &x = a.layers[l], &y = b.layers[l];
                w = std::max({w, (x.input - y.input).cwiseAbs().maxCoeff(), (x.normed - y.normed).cwiseAbs().maxCoeff()});
                for (std::size_t h = 0; h < x.heads.size(); ++h) {
                    const HeadActivations &u = x.heads[h], &v = y.heads[h];
                    for (const auto &[p, q] : {std::pair(&u.q, &v.q), std::pair(&u.k, &v.k), std::pair(&u.v, &v.v),
                                               std::pair(&u.scores, &v.scores), std::pair(&u.scaled, &v.scaled),
                                               std::pair(&u.weights, &v.weights), std::pair(&u.output, &v.output)}) {
                        if (p->rows() != q->rows() || p->cols() != q->cols())
                            return std::numeric_limits<double>::infinity();
                        w = std::max(w, (*p - *q).cwiseAbs().maxCoeff());
                    }
                }
            }
            return w;
        };
        auto same = [&](const ModelTrace &inc, const ModelTrace &full, const QString &what) {
            QCOMPARE(inc.ids, full.ids);
            QCOMPARE(inc.texts, full.texts);
            QCOMPARE(inc.layers.size(), full.layers.size());
            const double w = worst(inc, full);
            QVERIFY2(w <= 1e-12, qPrintable(QStringLiteral("%1: %2").arg(what).arg(w)));
            QCOMPARE(inc.next.size(), full.next.size());
            for (std::size_t i = 0; i < inc.next.size(); ++i) {
                QCOMPARE(inc.next[i].id, full.next[i].id);
                QVERIFY(std::abs(inc.next[i].p - full.next[i].p) <= 1e-12);
            }
        };

        // Typed character by character, each forward reusing the one before.
        const QString text = QStringLiteral("say cat red box . say cat red box . the girl sees the king . she is happy .");
        std::optional<ModelTrace> last;
        int keptSome = 0;
        for (qsizetype c = 1; c <= text.size(); ++c) {
            const QString prefix = text.left(c);
            const std::vector<int> ids = m->tokenizer.encode(prefix);
            if (ids.empty())
                continue;
            const int expectKeep = reusablePositions(*m, ids, last ? &*last : nullptr);
            // The common prefix of the two id lists, counted by hand.
            int common = 0;
            if (last)
                while (common < int(std::min(ids.size(), last->ids.size())) && ids[std::size_t(common)] == last->ids[std::size_t(common)])
                    ++common;
            QCOMPARE(expectKeep, common);
            auto inc = runModel(*m, prefix, 5, last ? &*last : nullptr);
            const ModelTrace full = std::get<ModelTrace>(runModel(*m, prefix));
            QVERIFY(std::holds_alternative<ModelTrace>(inc));
            QCOMPARE(std::get<ModelTrace>(inc).reused, common);
            QCOMPARE(full.reused, 0);
            same(std::get<ModelTrace>(inc), full, prefix);
            if (common > 0)
                ++keptSome;
            last = std::move(std::get<ModelTrace>(inc));
        }
        QVERIFY(keptSome > text.size() / 2);
        // Appending a whole word: every old position kept, one computed.
        {
            const ModelTrace a = std::get<ModelTrace>(runModel(*m, QStringLiteral("the cat sat on the")));
            const ModelTrace b = std::get<ModelTrace>(runModel(*m, QStringLiteral("the cat sat on the mat"), 5, &a));
            QCOMPARE(b.reused, int(a.ids.size()));
            QCOMPARE(b.ids.size(), a.ids.size() + 1);
            same(b, std::get<ModelTrace>(runModel(*m, QStringLiteral("the cat sat on the mat"))), QStringLiteral("append"));
            // The kept queries' rows are the old ones, bit for bit; the new keys are blocked for them.
            const Eigen::Index n0 = Eigen::Index(a.ids.size());
            for (std::size_t l = 0; l < a.layers.size(); ++l)
                for (std::size_t h = 0; h < a.layers[l].heads.size(); ++h) {
                    QCOMPARE(Matrix(b.layers[l].heads[h].weights.topLeftCorner(n0, n0)), a.layers[l].heads[h].weights);
                    QCOMPARE(b.layers[l].heads[h].weights.topRightCorner(n0, 1).cwiseAbs().maxCoeff(), 0.0);
                }
        }
        // Backspace over a token: every position kept, nothing computed.
        {
            const ModelTrace a = std::get<ModelTrace>(runModel(*m, QStringLiteral("the cat sat on the mat")));
            const ModelTrace b = std::get<ModelTrace>(runModel(*m, QStringLiteral("the cat sat on the"), 5, &a));
            QCOMPARE(b.reused, int(b.ids.size()));
            same(b, std::get<ModelTrace>(runModel(*m, QStringLiteral("the cat sat on the"))), QStringLiteral("shorter"));
        }
        // A word changed in the middle: the positions after it are computed again.
        {
            const ModelTrace a = std::get<ModelTrace>(runModel(*m, QStringLiteral("the cat sat on the mat")));
            const ModelTrace b = std::get<ModelTrace>(runModel(*m, QStringLiteral("the dog sat on the mat"), 5, &a));
            QCOMPARE(b.reused, 1);
            same(b, std::get<ModelTrace>(runModel(*m, QStringLiteral("the dog sat on the mat"))), QStringLiteral("middle"));
        }
        // Chinese, and a trace that is not whole (moved from): not reused.
        {
            ModelTrace a = std::get<ModelTrace>(runModel(*m, QString::fromUtf8("小明 看见 了 小红")));
            const QString longer = QString::fromUtf8("小明 看见 了 小红 ， 他 很 高兴 。");
            const ModelTrace b = std::get<ModelTrace>(runModel(*m, longer, 5, &a));
            QVERIFY(b.reused > 0);
            same(b, std::get<ModelTrace>(runModel(*m, longer)), longer);
            ModelTrace broken = a;
            broken.layers[1].heads[2].weights.resize(0, 0);
            QCOMPARE(reusablePositions(*m, b.ids, &broken), 0);
            QCOMPARE(reusablePositions(*m, b.ids, nullptr), 0);
            QCOMPARE(std::get<ModelTrace>(runModel(*m, longer, 5, &broken)).reused, 0);
        }
    }

    // Typing speed: a forward that extends the last one by a token costs a
    // fraction of the whole sentence's.
    void incrementalForwardTime()
    {
        const auto m = builtin();
        QString text;
        while (m->tokenizer.encode(text).size() < 32)
            text += QStringLiteral(" the cat");
        const std::vector<int> ids = m->tokenizer.encode(text);
        const std::vector<int> head(ids.begin(), ids.begin() + 31), all(ids.begin(), ids.begin() + 32);
        const ModelTrace before = std::get<ModelTrace>(runModelOnIds(*m, head));
        std::vector<qint64> full, inc; // the thread's CPU time, as forwardTime
        for (int i = 0; i < 30; ++i) {
            qint64 c0 = threadCpuNs();
            const auto a = runModelOnIds(*m, all, 5);
            full.push_back(threadCpuNs() - c0);
            c0 = threadCpuNs();
            const auto b = runModelOnIds(*m, all, 5, &before);
            inc.push_back(threadCpuNs() - c0);
            QCOMPARE(std::get<ModelTrace>(b).reused, 31);
        }
        std::sort(full.begin(), full.end());
        std::sort(inc.begin(), inc.end());
        qInfo("32 tokens, CPU time: full forward fastest %.3f ms, median %.3f ms; the 32nd added to 31: fastest %.3f ms, median %.3f ms",
              full.front() / 1e6, full[full.size() / 2] / 1e6, inc.front() / 1e6, inc[inc.size() / 2] / 1e6);
        // One position of 32 (plus copying the 31 kept): well under half the
        // work. A figure for bench_model (docs/performance.md), not asserted
        // here: a loaded machine's caches make CPU time vary too.
    }

    // Typing speed: the forward of a 32-token sentence, well under a frame.
    void forwardTime()
    {
        const auto m = builtin();
        QString text;
        while (m->tokenizer.encode(text).size() < 32)
            text += QStringLiteral(" the cat");
        while (m->tokenizer.encode(text).size() > 32)
            text.chop(1);
        QCOMPARE(int(m->tokenizer.encode(text).size()), 32);
        QElapsedTimer timer;
        std::vector<qint64> ns, cpu;
        for (int i = 0; i < 50; ++i) {
            timer.start();
            const qint64 c0 = threadCpuNs();
            const auto r = runModel(*m, text);
            cpu.push_back(threadCpuNs() - c0);
            ns.push_back(timer.nsecsElapsed());
            QVERIFY(std::holds_alternative<ModelTrace>(r));
        }
        std::sort(ns.begin(), ns.end());
        std::sort(cpu.begin(), cpu.end());
        qInfo("forward of 32 tokens (tokenizer included): fastest %.3f ms, median %.3f ms, slowest %.3f ms; "
              "CPU time of the thread: fastest %.3f ms, median %.3f ms",
              ns.front() / 1e6, ns[ns.size() / 2] / 1e6, ns.back() / 1e6, cpu.front() / 1e6, cpu[cpu.size() / 2] / 1e6);
        // The target (well under a 16 ms frame) is bench_model's to check
        // (docs/performance.md), not asserted here.
    }

    // --- the command line -----------------------------------------------------

    void cliTraceJson()
    {
        const CliRun r = cli({"model", "trace", "--model", "builtin", "--text", QString::fromUtf8("我 打 你 。"), "--format", "json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(j.keys(), (QStringList{"layers", "next", "tokens"}));
        const QJsonArray tokens = j.value(QLatin1String("tokens")).toArray();
        QCOMPARE(tokens.size(), 4);
        QCOMPARE(tokens[0].toObject().value(QLatin1String("text")).toString(), QString::fromUtf8("我"));
        QCOMPARE(tokens[1].toObject().value(QLatin1String("text")).toString(), QString::fromUtf8(" 打"));
        QVERIFY(tokens[0].toObject().value(QLatin1String("id")).isDouble());
        const QJsonArray layers = j.value(QLatin1String("layers")).toArray();
        QCOMPARE(layers.size(), builtin()->config.nLayer);
        for (int l = 0; l < layers.size(); ++l) {
            QCOMPARE(layers[l].toObject().value(QLatin1String("layer")).toInt(), l + 1);
            const QJsonArray heads = layers[l].toObject().value(QLatin1String("heads")).toArray();
            QCOMPARE(heads.size(), builtin()->config.nHead);
            for (int h = 0; h < heads.size(); ++h) {
                const QJsonObject o = heads[h].toObject();
                QCOMPARE(o.value(QLatin1String("head")).toInt(), h + 1);
                for (const char *k : {"q", "k", "v", "scores", "scaled", "weights", "output"})
                    QCOMPARE(o.value(QLatin1String(k)).toArray().size(), 4);
                QCOMPARE(o.value(QLatin1String("q")).toArray()[0].toArray().size(), builtin()->config.headDim());
                QCOMPARE(o.value(QLatin1String("weights")).toArray()[0].toArray().size(), 4);
            }
        }
        const QJsonArray next = j.value(QLatin1String("next")).toArray();
        QCOMPARE(next.size(), 5);
        QVERIFY(next[0].toObject().value(QLatin1String("p")).toDouble() > 0);

        const CliRun one = cli({"model", "trace", "--text", "the cat sat", "--layer", "2", "--head", "3", "--format", "json"});
        QCOMPARE(one.status, 0);
        const QJsonArray l1 = QJsonDocument::fromJson(one.out.toUtf8()).object().value(QLatin1String("layers")).toArray();
        QCOMPARE(l1.size(), 1);
        QCOMPARE(l1[0].toObject().value(QLatin1String("layer")).toInt(), 2);
        QCOMPARE(l1[0].toObject().value(QLatin1String("heads")).toArray()[0].toObject().value(QLatin1String("head")).toInt(), 3);
    }

    // Each head's scores in the JSON, counted again from the JSON's own
    // weights and token ids by plain loops: previous token, first token and
    // self over rows 1..n-1 against the mean of 1/(i+1); induction over the
    // rows whose token came before at p <= i-2, the weight on p+1.
    void cliTraceJsonHeadScores()
    {
        const CliRun r = cli({"model", "trace", "--text", "say cat red box . say cat red", "--format", "json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        std::vector<int> ids;
        for (const QJsonValue &t : j.value(QLatin1String("tokens")).toArray())
            ids.push_back(t.toObject().value(QLatin1String("id")).toInt());
        const int n = int(ids.size());
        QCOMPARE(n, 8);
        int inductionHeads = 0;
        for (const QJsonValue &layer : j.value(QLatin1String("layers")).toArray())
            for (const QJsonValue &head : layer.toObject().value(QLatin1String("heads")).toArray()) {
                const QJsonArray w = head.toObject().value(QLatin1String("weights")).toArray();
                const QJsonObject hs = head.toObject().value(QLatin1String("head_scores")).toObject();
                auto at = [&w](int i, int k) { return w[i].toArray()[k].toDouble(); };
                auto check = [&hs](const char *name, double score, double uniform, int rows) {
                    const QJsonObject o = hs.value(QLatin1String(name)).toObject();
                    QCOMPARE(o.value(QLatin1String("rows")).toInt(), rows);
                    ATTN_COMPARE_NEAR(o.value(QLatin1String("score")).toDouble(), score, 1e-12);
                    ATTN_COMPARE_NEAR(o.value(QLatin1String("uniform")).toDouble(), uniform, 1e-12);
                };
                double prev = 0, first = 0, self = 0, uniform = 0;
                for (int i = 1; i < n; ++i) {
                    prev += at(i, i - 1) / (n - 1);
                    first += at(i, 0) / (n - 1);
                    self += at(i, i) / (n - 1);
                    uniform += 1.0 / (i + 1) / (n - 1);
                }
                check("previous_token", prev, uniform, n - 1);
                check("first_token", first, uniform, n - 1);
                check("self", self, uniform, n - 1);
                double induction = 0, inductionUniform = 0;
                int rows = 0;
                for (int i = 0; i < n; ++i) {
                    double sum = 0;
                    int count = 0;
                    for (int p = 0; p + 2 <= i; ++p)
                        if (ids[std::size_t(p)] == ids[std::size_t(i)]) {
                            sum += at(i, p + 1);
                            ++count;
                        }
                    if (count) {
                        induction += sum;
                        inductionUniform += double(count) / (i + 1);
                        ++rows;
                    }
                }
                QCOMPARE(rows, 2); // " cat" and " red" come again
                check("induction", induction / rows, inductionUniform / rows, rows);
                const QString kind = hs.value(QLatin1String("kind")).toString();
                QVERIFY(!kind.isEmpty());
                inductionHeads += kind == QLatin1String("induction");
            }
        QVERIFY(inductionHeads >= 1);
    }

    // `model scores`: every head over the random-sequence probe, each score
    // beside its baseline, labelled by the rule from the means it prints.
    void cliModelScores()
    {
        const CliRun r = cli({"model", "scores", "--format", "json", "--seed", "5"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(j.value(QLatin1String("probe")).toObject().value(QLatin1String("seed")).toString(), QStringLiteral("5"));
        const QJsonArray heads = j.value(QLatin1String("heads")).toArray();
        QCOMPARE(heads.size(), builtin()->config.nLayer * builtin()->config.nHead);
        for (const QJsonValue &v : heads) {
            const QJsonObject h = v.toObject();
            // Every token of the second copies has its earlier occurrence.
            QVERIFY(h.value(QLatin1String("induction")).toObject().value(QLatin1String("rows")).toInt() >= 8 * 16);
            HeadScores s;
            auto read = [&h](const char *name) {
                const QJsonObject o = h.value(QLatin1String(name)).toObject();
                HeadScore out;
                out.rows = o.value(QLatin1String("rows")).toInt();
                out.score = o.value(QLatin1String("score")).toDouble();
                out.uniform = o.value(QLatin1String("uniform")).toDouble();
                return out;
            };
            s.previousToken = read("previous_token");
            s.firstToken = read("first_token");
            s.self = read("self");
            s.induction = read("induction");
            s.spread = h.value(QLatin1String("spread")).toDouble();
            for (const HeadScore *one : {&s.previousToken, &s.firstToken, &s.self, &s.induction})
                QVERIFY(one->score >= 0 && one->score <= 1 && one->uniform > 0 && one->uniform < 1);
            labelHead(s);
            QCOMPARE(h.value(QLatin1String("kind")).toString(), QString::fromStdString(headKindName(s.kind)));
        }
        // The same seed, the same table; text names the probe.
        QCOMPARE(cli({"model", "scores", "--format", "json", "--seed", "5"}).out, r.out);
        const CliRun text = cli({"model", "scores"});
        QCOMPARE(text.status, 0);
        QVERIFY(text.out.contains(QLatin1String("8 random token sequences of 16, each said twice (seed 1)")));
        QCOMPARE(text.out.count(QLatin1Char('\n')), 3 + builtin()->config.nLayer * builtin()->config.nHead);
        const CliRun bad = cli({"model", "scores", "--seed", "-1"});
        QCOMPARE(bad.status, 2);
        QCOMPARE(bad.err.count(QLatin1Char('\n')), 1);
    }

    void cliTextInfoAndErrors()
    {
        const CliRun info = cli({"model", "info"});
        QCOMPARE(info.status, 0);
        QVERIFY(info.out.contains(QLatin1String("layers: ")));
        QVERIFY(info.out.contains(QLatin1String("parameters: ")));
        const CliRun text = cli({"model", "trace", "--text", "the cat sat on the mat .", "--layer", "1", "--head", "1"});
        QCOMPARE(text.status, 0);
        QVERIFY(text.out.contains(QLatin1String("== layer 1, head 1")));
        QVERIFY(text.out.contains(QLatin1String("next token")));
        // Each head's line is the one labeller's (core/model/headlabel), as the window's grid.
        const CliRun every = cli({"model", "trace", "--text", "say cat red box . say cat red"});
        QCOMPARE(every.status, 0);
        const ModelTrace repeated = std::get<ModelTrace>(runModel(*builtin(), QStringLiteral("say cat red box . say cat red")));
        for (int l = 0; l < 3; ++l)
            for (int h = 0; h < 4; ++h) {
                const HeadScores sc = scoreHead(repeated.layers[std::size_t(l)].heads[std::size_t(h)].weights, repeated.ids);
                const QString lines = QStringLiteral("== layer %1, head %2: %3 ==\n  %4\n")
                                          .arg(l + 1)
                                          .arg(h + 1)
                                          .arg(QString::fromStdString(headKindName(sc.kind)), QString::fromStdString(headScoresText(sc)));
                QVERIFY2(every.out.contains(lines), qPrintable(lines));
            }
        QVERIFY(every.out.contains(QLatin1String("== layer 2, head 1: induction ==")));

        QString longText;
        for (int i = 0; i < 80; ++i)
            longText += QStringLiteral(" cat");
        const CliRun tooLong = cli({"model", "trace", "--text", longText});
        QCOMPARE(tooLong.status, 2);
        QVERIFY2(tooLong.err.contains(QLatin1String("at most n_positions = 64")), qPrintable(tooLong.err));
        QCOMPARE(tooLong.err.count(QLatin1Char('\n')), 1);
        const CliRun noModel = cli({"model", "info", "--model", "/no/such/folder"});
        QCOMPARE(noModel.status, 2);
        QVERIFY(noModel.err.contains(QLatin1String("/no/such/folder: not a folder")));
        QCOMPARE(cli({"model", "trace", "--text", "x", "--layer", "9"}).status, 2);
        QCOMPARE(cli({"model", "frobnicate"}).status, 2);
        QCOMPARE(cli({"model", "trace"}).status, 2);
    }

    void cliExport()
    {
        QTemporaryDir dir;
        const QString scenario = dir.filePath(QStringLiteral("head.json"));
        const CliRun r = cli({"model", "export", "--text", "say cat red box . say cat red box .", "--layer", "2", "--head", "1",
                              "--out", dir.path(), "--stages", "weights,overview", "--size", "600x500", "--scenario", scenario});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("tiny-bilingual_L2H1_weights.png"))));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("tiny-bilingual_overview.png"))));
        const ScenarioOrProblem s = loadScenarioFile(scenario);
        QVERIFY(std::holds_alternative<Scenario>(s));
        const auto m = builtin();
        const ModelTrace t = std::get<ModelTrace>(runModel(*m, QStringLiteral("say cat red box . say cat red box .")));
        QVERIFY((compute(std::get<Scenario>(s)).heads[0].weights - t.layers[1].heads[0].weights).cwiseAbs().maxCoeff() <= 1e-12);
    }

    // The overview grid (every layer × head) in the three formats, drawn by
    // the window's HeadGrid (renderHeadGrid).
    void cliExportOverview()
    {
        QTemporaryDir dir;
        const QString text = QStringLiteral("say cat red box . say cat red box .");
        const CliRun r = cli({"model", "export", "--model", "builtin", "--text", text, "--stages", "overview", "--out", dir.path(),
                              "--format", "png,svg,pdf", "--size", "640x520"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(r.out.count(QLatin1Char('\n')), 3); // one line per file written
        const QImage png(dir.filePath(QStringLiteral("tiny-bilingual_overview.png")));
        QCOMPARE(png.size(), QSize(640, 520));
        // The maps are coloured: viridis' many shades, not a blank page.
        std::set<QRgb> colours;
        for (int y = 0; y < png.height(); y += 2)
            for (int x = 0; x < png.width(); x += 2)
                colours.insert(png.pixel(x, y));
        QVERIFY2(colours.size() > 40, qPrintable(QString::number(colours.size())));
        const QByteArray svg = readFile(dir.filePath(QStringLiteral("tiny-bilingual_overview.svg")));
        QXmlStreamReader xml(svg);
        int paths = 0;
        QString desc, title;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                if (xml.name() == QLatin1String("text")) // editable text, not outlines
                    ++paths;
                else if (xml.name() == QLatin1String("desc"))
                    desc = xml.readElementText();
                else if (xml.name() == QLatin1String("title"))
                    title = xml.readElementText();
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(paths > 12);
        const ModelTrace t = std::get<ModelTrace>(runModel(*builtin(), text));
        for (int l = 0; l < 3; ++l)
            for (int h = 0; h < 4; ++h) {
                const HeadScores sum = scoreHead(t.layers[std::size_t(l)].heads[std::size_t(h)].weights, t.ids);
                const QString label = QStringLiteral("L%1 H%2: %3, H̄ %4 nats")
                                          .arg(l + 1)
                                          .arg(h + 1)
                                          .arg(QString::fromStdString(headKindName(sum.kind)))
                                          .arg(QString::number(sum.meanEntropy, 'f', 2));
                QVERIFY2(desc.contains(label), qPrintable(label + QStringLiteral(" not in ") + desc));
            }
        QVERIFY(title.contains(QLatin1String("tiny-bilingual")));
        QVERIFY(title.contains(QLatin1String("say cat red box")));
        const QByteArray pdf = readFile(dir.filePath(QStringLiteral("tiny-bilingual_overview.pdf")));
        QVERIFY(pdf.startsWith("%PDF-"));
        QVERIFY(pdf.size() > 2000);

        // A bad --stages: exit 2, one line naming the option and the stage, nothing written.
        QTemporaryDir none;
        const CliRun bad = cli({"model", "export", "--text", text, "--stages", "overview,heads", "--out", none.path()});
        QCOMPARE(bad.status, 2);
        QCOMPARE(bad.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(bad.err.contains(QLatin1String("--stages")) && bad.err.contains(QLatin1String("\"heads\"")), qPrintable(bad.err));
        QVERIFY(QDir(none.path()).entryList(QDir::Files).isEmpty());
        QVERIFY(bad.out.isEmpty());
    }


    // --- bounded work: the forward's cost is checked before it runs ------------

    // modelTraceCells counts exactly what a trace holds.
    void traceCellsCountWhatIsKept()
    {
        const auto m = builtin();
        for (const char *text : {"the cat", "say cat red box . say cat red box ."}) {
            const ModelTrace t = std::get<ModelTrace>(runModel(*m, QString::fromUtf8(text)));
            QCOMPARE(modelTraceCells(m->config, int(t.ids.size())), storedCells(t));
        }
        // 3 layers × 4 heads, d 128, d_h 32 at n = 64: 3·(2·64·128 + 4·(4·64·32 + 3·64²)) + 64·128.
        QCOMPARE(modelTraceCells(m->config, 64), 3.0 * (2 * 64 * 128 + 4 * (4 * 64 * 32 + 3 * 64 * 64)) + 64 * 128);
        QCOMPARE(maxTracedTokens(m->config), 64); // the built-in model: n_positions is the limit
        // GPT-2 small's shapes (12 × 12, d 768, 1024 positions): the largest n within 32 Mi.
        Gpt2Config c;
        c.nLayer = 12;
        c.nHead = 12;
        c.nEmbd = 768;
        c.nPositions = 1024;
        const int most = maxTracedTokens(c);
        QVERIFY(modelTraceCells(c, most) <= kMaxModelTraceCells);
        QVERIFY(modelTraceCells(c, most + 1) > kMaxModelTraceCells);
        // 12·(2·768 n + 12·(4·64 n + 3 n²)) + 768 n = 432 n² + 56064 n ≤ 33554432: n = 221.
        QCOMPARE(most, 221);
        QVERIFY(432.0 * 221 * 221 + 56064.0 * 221 <= 33554432.0 && 432.0 * 222 * 222 + 56064.0 * 222 > 33554432.0);
    }

    // A user's own model of many layers and heads and 1024 positions: a long
    // text is refused before the forward, in one line naming the number and
    // the limit; a text within the limit runs.
    void traceBudgetRefusesALongTextOfABigModel()
    {
        QTemporaryDir dir;
        QVERIFY(writeRandomModel(dir.path(), 24, 16, 64, 1024));
        const ModelOrProblem r = loadModel(dir.path());
        QVERIFY2(std::holds_alternative<std::shared_ptr<const Gpt2Model>>(r), problemOf(r).toString().c_str());
        const Gpt2Model &m = *std::get<std::shared_ptr<const Gpt2Model>>(r);
        const int most = maxTracedTokens(m.config);
        // 24·(2·64 n + 16·(4·4 n + 3 n²)) + 64 n = 1152 n² + 9280 n ≤ 33554432.
        int byHand = 0;
        while (1152.0 * (byHand + 1) * (byHand + 1) + 9280.0 * (byHand + 1) <= 33554432.0)
            ++byHand;
        QCOMPARE(most, byHand);
        QVERIFY(most > 32 && most < 1024);

        const int n = most + 1;
        const std::vector<int> ids(std::size_t(n), 17);
        const auto refused = runModelOnIds(m, ids);
        QVERIFY(std::holds_alternative<Problem>(refused));
        const Problem p = std::get<Problem>(refused);
        QCOMPARE(p.place, std::string("text"));
        const double cells = 1152.0 * n * n + 9280.0 * n;
        const QString message = QString::fromStdString(p.message);
        QString digits = QString::number(qlonglong(cells));
        for (int i = int(digits.size()) - 3; i > 0; i -= 3)
            digits.insert(i, QLatin1Char(','));
        QVERIFY2(message.contains(QStringLiteral("would hold %1 numbers").arg(digits)), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("33,554,432")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("traces at most %1 tokens").arg(most)), qPrintable(message));
        QVERIFY(message.contains(QStringLiteral("%1 tokens long").arg(n)));

        // Within the limit it runs (a shorter text).
        const auto ran = runModelOnIds(m, std::vector<int>(40, 17));
        QVERIFY2(std::holds_alternative<ModelTrace>(ran), why(ran).c_str());

        // The CLI: exit 2, one line, nothing on stdout.
        QString text;
        while (int(m.tokenizer.encode(text).size()) < n)
            text += QStringLiteral(" cat");
        QCOMPARE(int(m.tokenizer.encode(text).size()), n);
        const CliRun c = cli({"model", "trace", "--model", dir.path(), "--text", text, "--format", "json"});
        QCOMPARE(c.status, 2);
        QCOMPARE(c.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(c.err.startsWith(QLatin1String("attention-lab-cli: --text: the text is ")), qPrintable(c.err));
        QVERIFY2(c.err.contains(QLatin1String("more than the limit of 33,554,432")), qPrintable(c.err));
        QVERIFY(c.out.isEmpty());
    }

    // --- `model trace --format json`, streamed --------------------------------

    // The same bytes as the tree the command built before, for every layer
    // and head and for one; a token with terminal controls escaped alike.
    void streamedTraceJsonIsTheTreesBytes()
    {
        const auto m = builtin();
        const QStringList texts{QString::fromUtf8("我 打 你 。"), QStringLiteral("say cat red box . say cat red box ."),
                                QString::fromUtf8("a\u202e b\x7f \"q\" \\ tab\t é")};
        for (const QString &text : texts) {
            const ModelTrace t = std::get<ModelTrace>(runModel(*m, text));
            const QByteArray expected = treeTraceJson(t, upTo(m->config.nLayer), upTo(m->config.nHead));
            const CliRun r = cli({"model", "trace", "--text", text, "--format", "json"});
            QCOMPARE(r.status, 0);
            QVERIFY2(r.out.toUtf8() == expected, qPrintable(text));
            QByteArray streamed;
            QVERIFY(writeModelTraceJson(t, upTo(m->config.nLayer), upTo(m->config.nHead), [&](const QByteArray &c) {
                streamed += c;
                return true;
            }));
            QCOMPARE(streamed, expected);
            const CliRun one = cli({"model", "trace", "--text", text, "--layer", "2", "--head", "3", "--format", "json"});
            QCOMPARE(one.status, 0);
            QVERIFY(one.out.toUtf8() == treeTraceJson(t, {1}, {2}));
        }
        // A right-to-left override reaches the terminal only escaped.
        QVERIFY(!cli({"model", "trace", "--text", texts[2], "--format", "json"}).out.contains(QChar(0x202e)));
    }

    // A long trace goes out in chunks of about 1 MB, and stops at the first
    // chunk the reader refuses.
    void streamedTraceJsonStopsWhenRefused()
    {
        const auto m = builtin();
        QString text;
        while (int(m->tokenizer.encode(text).size()) < 64)
            text += QStringLiteral(" cat");
        const ModelTrace t = std::get<ModelTrace>(runModel(*m, text));
        int chunks = 0;
        qint64 bytes = 0, largest = 0;
        QVERIFY(writeModelTraceJson(t, upTo(3), upTo(4), [&](const QByteArray &c) {
            ++chunks;
            bytes += c.size();
            largest = std::max(largest, qint64(c.size()));
            return true;
        }));
        QVERIFY2(chunks > 3, qPrintable(QString::number(chunks)));
        QVERIFY(largest < 1024 * 1024 + 64 * 1024);
        QCOMPARE(bytes, qint64(treeTraceJson(t, upTo(3), upTo(4)).size()));
        int calls = 0;
        QVERIFY(!writeModelTraceJson(t, upTo(3), upTo(4), [&](const QByteArray &) {
            ++calls;
            return false;
        }));
        QCOMPARE(calls, 1);
    }

    // `model trace ... | head -c 100`: one line naming the broken pipe, exit 2.
    void traceJsonIntoAPipeClosedEarly()
    {
        QTemporaryDir dir;
        const QString codeFile = dir.filePath(QStringLiteral("code"));
        QString text;
        for (int i = 0; i < 60; ++i)
            text += QStringLiteral(" cat");
        QProcess p;
        p.start(QStringLiteral("/bin/sh"),
                {QStringLiteral("-c"),
                 QStringLiteral("{ \"$0\" model trace --text \"$1\" --format json; echo $? > \"$2\"; } | head -c 100 > /dev/null"),
                 test::binaryDir() + QStringLiteral("/bin/attention-lab-cli"), text, codeFile});
        QVERIFY(p.waitForFinished(120000));
        QFile code(codeFile);
        QVERIFY(code.open(QIODevice::ReadOnly));
        QCOMPARE(code.readAll().trimmed(), QByteArray("2"));
        QCOMPARE(QString::fromUtf8(p.readAllStandardError()),
                 QStringLiteral("attention-lab-cli: standard output: the reader went away (broken pipe)\n"));
    }

    // --- single precision: a big float model computed in float32 ------------------

    // The same random model (F16 in its file, so both precisions read the
    // same numbers) in double and in single precision: every stage agrees to
    // float32's rounding, the prediction is the same; typing a token more
    // through the cache equals the whole single-precision forward; a head
    // taken into the lab in projected mode still gives its weights again.
    void singlePrecisionAgreesWithDouble()
    {
        QTemporaryDir dir;
        QVERIFY(writeRandomModel(dir.path(), 2, 4, 64, 64));
        LoadControl asDouble, asSingle;
        asDouble.precision = Precision::Double;
        asSingle.precision = Precision::Single;
        const auto d = loadModel(dir.path(), asDouble), s = loadModel(dir.path(), asSingle);
        QVERIFY(d.ok() && s.ok());
        const Gpt2Model &md = *d.value(), &ms = *s.value();
        QVERIFY(!md.single && ms.single);
        // Single: the big matrices only in float32, none twice.
        QCOMPARE(ms.wte.size(), Eigen::Index(0));
        QCOMPARE(ms.layers[0].attnWeight.size(), Eigen::Index(0));
        QCOMPARE(ms.wteF.rows(), Eigen::Index(md.config.vocabSize));
        QCOMPARE(ms.floatLayers.size(), std::size_t(2));
        QCOMPARE(ms.parameters, md.parameters);
        // Auto: the small built-in model stays double; a small float file too.
        QVERIFY(!builtin()->single);
        QVERIFY(!std::get<std::shared_ptr<const Gpt2Model>>(loadModel(dir.path()))->single);

        const QString text = QStringLiteral("the cat sat on the mat . the cat");
        const auto td = runModel(md, text), ts = runModel(ms, text);
        QVERIFY(td.ok() && ts.ok());
        double weights = 0, outputs = 0;
        for (std::size_t l = 0; l < 2; ++l)
            for (std::size_t h = 0; h < 4; ++h) {
                const HeadActivations &a = td.value().layers[l].heads[h], &b = ts.value().layers[l].heads[h];
                weights = std::max(weights, (a.weights - b.weights).cwiseAbs().maxCoeff());
                outputs = std::max(outputs, (a.output - b.output).cwiseAbs().maxCoeff());
            }
        const double logits = (td.value().logits - ts.value().logits).cwiseAbs().maxCoeff();
        const double scale = td.value().logits.cwiseAbs().maxCoeff();
        // float32 keeps about 7 digits: products of 64 to 256 terms round at about 1e-6 of their size.
        QVERIFY2(weights < 1e-4 && outputs < 1e-4 && logits < 1e-4 * std::max(1.0, scale),
                 qPrintable(QStringLiteral("weights %1, outputs %2, logits %3 of %4").arg(weights).arg(outputs).arg(logits).arg(scale)));
        QVERIFY2(weights > 0, "the single-precision forward is not the double one");
        QCOMPARE(ts.value().next.front().id, td.value().next.front().id);

        // The file's pages released after a tensor is read come back, the same, when it is read again.
        {
            const auto file = SafeTensors::open(dir.filePath(QStringLiteral("model.safetensors")));
            QVERIFY(file.ok());
            const TensorInfo *t = file.value().find("h.1.mlp.c_fc.weight");
            QVERIFY(t);
            const FloatMatrix before = file.value().floatMatrix(*t);
            file.value().release(*t);
            QVERIFY(file.value().floatMatrix(*t) == before);
            QCOMPARE(before(3, 5), float(file.value().matrix(*t)(3, 5)));
        }

        // A key typed at the end: one fresh row through the cache.
        const QString more = text + QStringLiteral(" sat");
        const auto whole = runModel(ms, more), typed = runModel(ms, more, 5, &ts.value());
        QVERIFY(whole.ok() && typed.ok());
        QVERIFY(typed.value().reused > 0);
        double cached = 0;
        for (std::size_t l = 0; l < 2; ++l)
            for (std::size_t h = 0; h < 4; ++h)
                cached = std::max(cached, (typed.value().layers[l].heads[h].weights - whole.value().layers[l].heads[h].weights)
                                              .cwiseAbs()
                                              .maxCoeff());
        QVERIFY2(cached < 1e-6, qPrintable(QString::number(cached)));

        // The projected head: X W_Q is the head's q, in double from the float weights.
        const auto taken = headScenario(ms, ts.value(), 1, 2, HeadInput::Projected);
        QVERIFY(taken.ok());
        const Trace lab = compute(taken.value());
        const double head = (lab.heads[0].weights - ts.value().layers[1].heads[2].weights).cwiseAbs().maxCoeff();
        QVERIFY2(head < 1e-5, qPrintable(QString::number(head)));

        // The loss of every row (the sinks' experiment) in float32 too: as in double.
        const auto ld = nextTokenLoss(md, md.tokenizer.encode(text)), ls = nextTokenLoss(ms, ms.tokenizer.encode(text));
        QVERIFY(ld.ok() && ls.ok());
        QVERIFY2(std::fabs(ld.value() - ls.value()) < 1e-4, qPrintable(QStringLiteral("%1 %2").arg(ld.value()).arg(ls.value())));
    }

    // --- the overview figure's pixels are bounded --------------------------------

    void overviewFigureIsBounded()
    {
        // The built-in model: 900×800 by default, as before (tested in binaryModelExportOverview).
        QTemporaryDir dir;
        QVERIFY(writeRandomModel(dir.path(), 96, 32, 64, 64));
        QTemporaryDir out;
        // Too many heads for any figure within the limit: refused, nothing written.
        const CliRun huge = cli({"model", "export", "--model", dir.path(), "--text", "the cat", "--stages", "overview", "--out", out.path()});
        QCOMPARE(huge.status, 2);
        QCOMPARE(huge.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(huge.err.contains(QStringLiteral("96 layers × 32 heads need a figure of at least")), qPrintable(huge.err));
        QVERIFY2(huge.err.contains(QLatin1String("more than the limit of 16,777,216 pixels")), qPrintable(huge.err));
        QVERIFY(QDir(out.path()).entryList(QDir::Files).isEmpty());

        QTemporaryDir mid;
        QVERIFY(writeRandomModel(mid.path(), 24, 12, 48, 64));
        // A --size too small for 24 × 12 readable cells: refused with the size that fits.
        const HeadGridData shape{24, 12, {}, {}, {}, QStringLiteral("t")};
        const HeadGridFigureSizes need = headGridFigureSizes(shape);
        QVERIFY(need.minimum.width() > 300 && need.minimum.height() > 800);
        const CliRun small = cli({"model", "export", "--model", mid.path(), "--text", "the cat", "--stages", "overview", "--size",
                                  "900x800", "--out", out.path()});
        QCOMPARE(small.status, 2);
        QVERIFY2(small.err.contains(QStringLiteral("at least %1x%2").arg(need.minimum.width()).arg(need.minimum.height())),
                 qPrintable(small.err));
        QVERIFY(QDir(out.path()).entryList(QDir::Files).isEmpty());
        // Without --size: the grid's preferred size, within the limit.
        const CliRun fit = cli({"model", "export", "--model", mid.path(), "--text", "the cat", "--stages", "overview", "--out", out.path()});
        QVERIFY2(fit.status == 0, qPrintable(fit.err));
        const QImage png(QDir(out.path()).filePath(mid.path().section(QLatin1Char('/'), -1) + QStringLiteral("_overview.png")));
        QVERIFY(!png.isNull());
        QVERIFY(double(png.width()) * png.height() <= kMaxHeadGridFigurePixels);
        QVERIFY(png.width() >= need.minimum.width() && png.height() >= need.minimum.height());
        QCOMPARE(png.size(), QSize(std::max(900, need.preferred.width()), std::max(800, need.preferred.height())));
        // SVG: a rectangle per weight while the grid's maps hold at most
        // kMaxHeadGridVectorCells weights; images beyond, so the file stays small.
        QString longText;
        while (int(builtin()->tokenizer.encode(longText).size()) < 40)
            longText += QStringLiteral(" cat");
        QVERIFY(24.0 * 12 * 40 * 40 > kMaxHeadGridVectorCells);
        const CliRun svg = cli({"model", "export", "--model", mid.path(), "--text", longText, "--stages", "overview", "--format", "svg",
                                "--out", out.path(), "--name", "long"});
        QVERIFY2(svg.status == 0, qPrintable(svg.err));
        const QByteArray longSvg = readFile(QDir(out.path()).filePath(QStringLiteral("long_overview.svg")));
        QVERIFY(longSvg.contains("<image"));
        QVERIFY2(longSvg.size() < 8 * 1024 * 1024, qPrintable(QString::number(longSvg.size())));
        const CliRun small3 = cli({"model", "export", "--text", "the cat sat", "--stages", "overview", "--format", "svg", "--out", out.path(),
                                   "--name", "short"});
        QVERIFY2(small3.status == 0, qPrintable(small3.err));
        QVERIFY(!readFile(QDir(out.path()).filePath(QStringLiteral("short_overview.svg"))).contains("<image"));
        // A --size beyond the limit is refused for the overview.
        const CliRun big = cli({"model", "export", "--model", mid.path(), "--text", "the cat", "--stages", "overview", "--size",
                                "5000x4000", "--out", out.path()});
        QCOMPARE(big.status, 2);
        QVERIFY2(big.err.contains(QLatin1String("at most 16,777,216 pixels")), qPrintable(big.err));
    }

    // `model export` from the shell: the binary draws without a display.
    void binaryModelExportOverview()
    {
        QTemporaryDir dir;
        QProcess p;
        p.setProcessEnvironment(test::offscreenEnvironment());
        p.start(test::binaryDir() + QStringLiteral("/bin/attention-lab-cli"),
                {"model", "export", "--text", "the cat sat on the mat .", "--stages", "overview", "--out", dir.path(), "--format",
                 "svg,png", "--layer", "3", "--head", "1", "--name", "grid"});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QCOMPARE(QImage(dir.filePath(QStringLiteral("grid_overview.png"))).size(), QSize(900, 800));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("grid_overview.svg"))));
        QProcess bad;
        bad.setProcessEnvironment(test::offscreenEnvironment());
        bad.start(test::binaryDir() + QStringLiteral("/bin/attention-lab-cli"),
                  {"model", "export", "--text", "the cat", "--stages", "weights,nonsense", "--out", dir.path()});
        QVERIFY(bad.waitForFinished(60000));
        QCOMPARE(bad.exitCode(), 2);
        const QString err = QString::fromUtf8(bad.readAllStandardError());
        QCOMPARE(err.count(QLatin1Char('\n')), 1);
        QVERIFY(err.contains(QLatin1String("unknown stage \"nonsense\"")));
    }

    // The built binary, as a user runs it.
    void binaryModelTrace()
    {
        QProcess p;
        p.start(test::binaryDir() + QStringLiteral("/bin/attention-lab-cli"),
                {"model", "trace", "--text", QString::fromUtf8("小明 看见 了 小红 ， 他 很 高兴 。"), "--format", "json", "--layer", "1"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QJsonObject j = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        QCOMPARE(j.value(QLatin1String("layers")).toArray().size(), 1);
        QCOMPARE(j.value(QLatin1String("tokens")).toArray()[0].toObject().value(QLatin1String("text")).toString(), QString::fromUtf8("小明"));
    }

    // --- hostile folders: what a model file may be -------------------------

    // Each of the four files as a link to /dev/zero (read without end
    // before), a FIFO (an open that waited forever), a loop of links and a
    // link to nothing: refused in one line, at once, naming the file.
    void notRegularFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("says");
        for (const char *f : {"config.json", "model.safetensors", "vocab.json", "merges.txt"}) {
            const QString file = QLatin1String(f);
            QTest::newRow(qPrintable(file + QStringLiteral(" -> /dev/zero"))) << file << "zero" << "not a regular file (a character device)";
            QTest::newRow(qPrintable(file + QStringLiteral(" a FIFO"))) << file << "fifo" << "not a regular file (a FIFO)";
            QTest::newRow(qPrintable(file + QStringLiteral(" a loop of links"))) << file << "loop" << "a loop of symbolic links";
            QTest::newRow(qPrintable(file + QStringLiteral(" a link to nothing"))) << file << "dangling" << "a symbolic link to nothing";
            QTest::newRow(qPrintable(file + QStringLiteral(" a folder"))) << file << "folder" << "not a regular file (a folder)";
        }
    }

    void notRegularFiles()
    {
        QFETCH(QString, file);
        QFETCH(QString, kind);
        QFETCH(QString, says);
        QTemporaryDir dir;
        copyModel(dir.path());
        const QString path = dir.filePath(file);
        QVERIFY(QFile::remove(path));
        const QByteArray native = QFile::encodeName(path);
        if (kind == QLatin1String("zero")) {
            QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
        } else if (kind == QLatin1String("fifo")) {
            QCOMPARE(::mkfifo(native.constData(), 0600), 0);
        } else if (kind == QLatin1String("loop")) {
            const QString other = dir.filePath(QStringLiteral("other"));
            QVERIFY(QFile::link(other, path));
            QVERIFY(QFile::link(path, other));
        } else if (kind == QLatin1String("dangling")) {
            QVERIFY(QFile::link(dir.filePath(QStringLiteral("gone")), path));
        } else {
            QVERIFY(QDir().mkdir(path));
        }
        const QString place = QDir::cleanPath(dir.path()) + QLatin1Char('/') + file;
        // First the binary, bounded: the old reader grew without end here or waited forever.
        const BoundedRun r = runBoundedCli({"model", "info", "--model", dir.path()});
        QVERIFY2(!r.hung, "the CLI hung and was killed");
        QVERIFY2(r.exit == QProcess::NormalExit, qPrintable(QStringLiteral("the CLI crashed: ") + r.err));
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(place + QStringLiteral(": ") + says), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        // Then the core in this process, now that it is known not to block.
        const Problem p = problemOf(loadModel(dir.path()));
        QCOMPARE(QString::fromStdString(p.place), place);
        QVERIFY2(QString::fromStdString(p.message).startsWith(says), p.toString().c_str());
    }

    // SafeTensors::open on its own refuses a device and a FIFO too, and a
    // file over its limit is refused from its size before it is read.
    void safetensorsOpenRefusesWhatIsNotAFile()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("fifo.safetensors"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        // The open must not wait for a writer: run it where a hang is seen.
        std::optional<Problem> seen;
        QThread *t = QThread::create([&] {
            const auto r = SafeTensors::open(fifo, QStringLiteral("fifo.safetensors"));
            seen = r.ok() ? Problem{"", "(opened)"} : *r.problem();
        });
        t->start();
        if (!t->wait(30000)) {
            // Unblock the old reader (a writer opens and closes), then fail.
            const int fd = ::open(QFile::encodeName(fifo).constData(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0)
                ::close(fd);
            t->wait();
            delete t;
            QFAIL("SafeTensors::open blocked on a FIFO");
        }
        delete t;
        QVERIFY(seen);
        QCOMPARE(seen->message, std::string("not a regular file (a FIFO)"));
        const auto zero = SafeTensors::open(QStringLiteral("/dev/zero"), QStringLiteral("zero.safetensors"));
        QVERIFY(!zero.ok());
        QCOMPARE(zero.problem()->message, std::string("not a regular file (a character device)"));

        // A config over its limit: refused from the size, the file untouched.
        QTemporaryDir model;
        copyModel(model.path());
        QFile big(model.filePath(QStringLiteral("config.json")));
        QVERIFY(big.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QVERIFY(big.resize(kMaxConfigBytes + 1));
        big.close();
        const Problem p = problemOf(loadModel(model.path()));
        QVERIFY2(QString::fromStdString(p.message).startsWith(QLatin1String("the file is too big (1,048,577 bytes; the limit for config.json is 1,048,576)")),
                 p.toString().c_str());
    }

    // --- the model budget --------------------------------------------------

    void modelBudget_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("embd");
        QTest::addColumn<int>("positions");
        QTest::addColumn<int>("vocabulary");
        QTest::addColumn<double>("parameters"); // 0: within the budget
        // GPT-2 medium: 24 × (12 d² + 13 d) + (V + P) d + 2 d.
        QTest::newRow("GPT-2 medium") << 24 << 16 << 1024 << 1024 << 50257 << 354823168.0;
        // 2^20 tokens × 256: the embedding alone is 268 M.
        QTest::newRow("2^20-token vocabulary") << 1 << 4 << 256 << 64 << (1 << 20)
                                               << double((1 << 20) + 64) * 256 + 12.0 * 256 * 256 + 13 * 256 + 2 * 256;
        QTest::newRow("n_embd 16384") << 1 << 16 << 16384 << 64 << 300
                                      << double(300 + 64) * 16384 + 12.0 * 16384 * 16384 + 13.0 * 16384 + 2 * 16384;
        // GPT-2 small: 124 M parameters, 0.995 GB as doubles, fits.
        QTest::newRow("GPT-2 small") << 12 << 12 << 768 << 1024 << 50257 << 0.0;
    }

    void modelBudget()
    {
        QFETCH(int, layers);
        QFETCH(int, heads);
        QFETCH(int, embd);
        QFETCH(int, positions);
        QFETCH(int, vocabulary);
        QFETCH(double, parameters);
        const QJsonObject c{{"n_layer", layers}, {"n_head", heads}, {"n_embd", embd}, {"n_positions", positions},
                            {"vocab_size", vocabulary}, {"layer_norm_epsilon", 1e-5}, {"activation_function", "gelu_new"}};
        const auto config = gpt2ConfigFromJson(QJsonDocument(c).toJson(), QStringLiteral("config.json"));
        QVERIFY2(config.ok(), why(config).c_str());
        if (parameters == 0) {
            QCOMPARE(modelParameters(config.value()), 124439808.0);
            QVERIFY(!checkModelBudget(config.value(), "config.json"));
            return;
        }
        QCOMPARE(modelParameters(config.value()), parameters);
        // From the config alone, before model.safetensors is opened (the
        // shipped one, of other shapes, stays in the folder).
        QTemporaryDir dir;
        copyModel(dir.path());
        QVERIFY(writeFile(dir.filePath(QStringLiteral("config.json")), QJsonDocument(c).toJson()));
        const Problem p = problemOf(loadModel(dir.path()));
        QCOMPARE(QString::fromStdString(p.place), QDir::cleanPath(dir.path()) + QStringLiteral("/config.json"));
        const QString says = QStringLiteral("the model has %1 parameters, %2 bytes as the forward holds them (8 bytes each), "
                                            "more than the budget of 1,073,741,824 bytes (1 GiB) for a model")
                                 .arg(QString::fromStdString(groupedNumber(parameters)),
                                      QString::fromStdString(groupedNumber(parameters * 8)));
        QCOMPARE(QString::fromStdString(p.message), says);
        // And by the weights' reader alone, before a tensor is read.
        const auto file = SafeTensors::open(modelSourceDir() + QStringLiteral("/model.safetensors"), QStringLiteral("m.safetensors"));
        const auto weights = gpt2WeightsFromSafeTensors(file.value(), config.value());
        QVERIFY(!weights.ok());
        QCOMPARE(QString::fromStdString(weights.problem()->message), says);
    }

    // --- progress and cancel -----------------------------------------------

    void loadProgressAndCancel()
    {
        std::vector<double> seen;
        LoadControl control;
        control.progress = [&](double f) { seen.push_back(f); };
        const ModelOrProblem r = loadBuiltinModel(control);
        QVERIFY2(r.ok(), why(r).c_str());
        QVERIFY(seen.size() > std::size_t(builtin()->config.nLayer)); // one a tensor at least
        QCOMPARE(seen.front(), 0.0);
        QCOMPARE(seen.back(), 1.0);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));

        // Cancelled as the weights are being read: the load stops there.
        std::atomic<bool> cancel{false};
        std::vector<double> before;
        LoadControl stop;
        stop.cancel = &cancel;
        stop.progress = [&](double f) {
            before.push_back(f);
            if (f > 0.2)
                cancel = true;
        };
        const ModelOrProblem c = loadBuiltinModel(stop);
        QVERIFY(!c.ok());
        QCOMPARE(c.problem()->message, std::string(kLoadCancelled));
        QVERIFY(before.back() < 0.9); // the tokenizer was never reached
        // Cancelled before it began: nothing is read.
        const ModelOrProblem early = loadModel(modelSourceDir(), LoadControl{{}, &cancel});
        QCOMPARE(early.problem()->message, std::string(kLoadCancelled));
    }

    // --- names given twice ---------------------------------------------------

    void duplicateNames()
    {
        // A safetensors header naming a tensor twice (Qt's parser kept the last).
        const QByteArray entry = "{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}";
        const QByteArray twice = withHeader("{\"a\":" + entry + ",\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},"
                                            "\"\\u0061\":" + entry + "}", QByteArray(8, '\0'));
        const auto r = SafeTensors::fromBytes(twice, QStringLiteral("t.safetensors"));
        QVERIFY(!r.ok());
        QCOMPARE(r.problem()->message, std::string("tensor \"a\" is named twice in the header; each name is given once"));
        const auto meta = SafeTensors::fromBytes(
            withHeader("{\"__metadata__\":{\"format\":\"pt\",\"format\":\"np\"},\"a\":" + entry + "}", QByteArray(4, '\0')),
            QStringLiteral("t.safetensors"));
        QVERIFY(!meta.ok());
        QCOMPARE(meta.problem()->message, std::string("__metadata__.format is named twice in the header; each name is given once"));
        // The same names in different objects are not twice.
        QVERIFY(SafeTensors::fromBytes(withHeader("{\"__metadata__\":{\"a\":\"x\"},\"a\":" + entry + "}", QByteArray(4, '\0')),
                                       QStringLiteral("t.safetensors")).ok());

        // Through a folder: the shipped header with one tensor named again.
        {
            QTemporaryDir dir;
            copyModel(dir.path());
            const QByteArray shipped = readFile(modelSourceDir() + QStringLiteral("/model.safetensors"));
            quint64 n = 0;
            for (int i = 7; i >= 0; --i)
                n = (n << 8) | quint8(shipped[i]);
            const QByteArray header = shipped.mid(8, qsizetype(n));
            const QJsonObject o = QJsonDocument::fromJson(header).object();
            const QByteArray again = "{\"ln_f.bias\":" + QJsonDocument(o.value(QLatin1String("ln_f.bias")).toObject()).toJson(QJsonDocument::Compact)
                                     + "," + header.mid(header.indexOf('{') + 1);
            QVERIFY(writeFile(dir.filePath(QStringLiteral("model.safetensors")), withHeader(again, shipped.mid(8 + qsizetype(n)))));
            const Problem p = problemOf(loadModel(dir.path()));
            QCOMPARE(QString::fromStdString(p.place), QDir::cleanPath(dir.path()) + QStringLiteral("/model.safetensors"));
            QCOMPARE(p.message, std::string("tensor \"ln_f.bias\" is named twice in the header; each name is given once"));
        }
        // vocab.json giving a token twice (the first id was lost without a word).
        {
            QTemporaryDir dir;
            copyModel(dir.path());
            const QByteArray vocab = readFile(modelSourceDir() + QStringLiteral("/vocab.json"));
            const qsizetype open = vocab.indexOf('{');
            QVERIFY(writeFile(dir.filePath(QStringLiteral("vocab.json")), vocab.left(open + 1) + "\"a\": 7, " + vocab.mid(open + 1)));
            const Problem p = problemOf(loadModel(dir.path()));
            QCOMPARE(QString::fromStdString(p.place), QDir::cleanPath(dir.path()) + QStringLiteral("/vocab.json"));
            QCOMPARE(p.message, std::string("the token \"a\" is given twice; each token has one id"));
        }
    }

    // --- a forward that overflows -------------------------------------------

    // Finite weights whose forward leaves the doubles: refused where it
    // happens, in one line, by the core and by every CLI path (the window
    // calls the same runModel).
    void overflowingForwardIsRefused()
    {
        const QString text = QStringLiteral("the cat sat on the mat .");
        Gpt2Model m = *builtin();
        m.name = QStringLiteral("big");
        const int d = m.config.nEmbd, dh = m.config.headDim();
        m.layers[0].attnWeight.middleCols(dh, dh) *= 1e160;     // head 2's q
        m.layers[0].attnWeight.middleCols(d + dh, dh) *= 1e160; // and k
        const auto run = runModel(m, text);
        QVERIFY(!run.ok());
        QCOMPARE(run.problem()->place, std::string("big"));
        const QString message = QString::fromStdString(run.problem()->message);
        QVERIFY2(message.startsWith(QLatin1String("layer 1, head 2: the scores overflow (q and k reach ")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("e+")), qPrintable(message));
        // Incremental: a trace of the sound model to start from changes nothing.
        const ModelTrace sound = std::get<ModelTrace>(runModel(*builtin(), QStringLiteral("the cat")));
        QVERIFY(!runModel(m, text, 5, &sound).ok());
        // q itself overflowing is named as such.
        Gpt2Model q = *builtin();
        q.layers[1].attnWeight.middleCols(2 * dh, dh).setConstant(std::numeric_limits<double>::max());
        const auto qrun = runModel(q, text);
        QVERIFY(!qrun.ok());
        QVERIFY2(QString::fromStdString(qrun.problem()->message).startsWith(QLatin1String("layer 2, head 3: q overflows (c_attn's weights reach ")),
                 qrun.problem()->toString().c_str());
        // The logits: the unembedding (wte when tied, lm_head when not: the
        // built-in model has its own) large enough that LN_f(x) W^T overflows.
        Gpt2Model logits = *builtin();
        (logits.config.tiedEmbedding ? logits.wte : logits.lmHead) *= 1e10;
        logits.lnfWeight *= 1e300;
        const auto lrun = runModel(logits, text);
        QVERIFY(!lrun.ok());
        const QString reads = QLatin1String(logits.config.tiedEmbedding ? "wte" : "lm_head");
        QVERIFY2(QString::fromStdString(lrun.problem()->message)
                     .startsWith(QStringLiteral("the last position: the logits overflow (%1 reaches ").arg(reads)),
                 lrun.problem()->toString().c_str());
        // A residual stream too large to square still normalises (the layer
        // norm is scaled), so finite weights that only make it large are not refused.
        Gpt2Model wide = *builtin();
        wide.layers.back().mlpProjBias *= 1e200;
        const auto wrun = runModel(wide, text);
        QVERIFY2(wrun.ok(), why(wrun).c_str());
        QVERIFY(wrun.value().logits.allFinite());

        // The same model as a folder (F64, to hold the scaled weights), through the CLI.
        QTemporaryDir dir;
        copyModel(dir.path());
        QVERIFY(writeFile(dir.filePath(QStringLiteral("model.safetensors")), safetensorsBytes(overflowingTensors(1, 1e160))));
        for (const QStringList &args :
             {QStringList{"model", "trace", "--model", dir.path(), "--text", text, "--format", "json"},
              QStringList{"model", "trace", "--model", dir.path(), "--text", text},
              QStringList{"model", "export", "--model", dir.path(), "--text", text, "--out", dir.filePath(QStringLiteral("out")),
                          "--layer", "1", "--head", "2", "--stages", "weights,overview"}}) {
            const CliRun r = cli(args);
            QVERIFY2(r.status == 2, qPrintable(args.join(' ') + QStringLiteral(": ") + r.err + r.out.left(200)));
            QVERIFY2(r.err.contains(QLatin1String("layer 1, head 2: the scores overflow (q and k reach ")), qPrintable(r.err));
            QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
            QVERIFY2(r.out.isEmpty(), qPrintable(r.out.left(200)));
        }
        QVERIFY(!QDir(dir.filePath(QStringLiteral("out"))).exists() || QDir(dir.filePath(QStringLiteral("out"))).isEmpty());
    }
};

QTEST_MAIN(TestModel)
#include "test_model.moc"
