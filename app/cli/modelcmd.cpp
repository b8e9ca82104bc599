#include "modelcmd.h"

#include "cliargs.h"
#include "atomicwrite.h"
#include "attention.h"
#include "figureexport.h"
#include "filenames.h"
#include "generate.h"
#include "numbers.h"
#include "probe.h"
#include "random.h"
#include "bart.h"
#include "bert.h"
#include "gpt2.h"
#include "gradients.h"
#include "headgrid.h"
#include "headlabel.h"
#include "scenario_json.h"
#include "sinks.h"
#include "stagedata.h"
#include "takehead.h"
#include "trace_json.h"
#include "trace_text.h"
#include "validate.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <cmath>
#include <functional>
#include <optional>

namespace attn {

using namespace cmdline;

namespace {

constexpr int kBadInput = 2;

// The model commands take no plain arguments: the sentence is --text.
Options parseModelOptions(const QStringList &args, const QStringList &known)
{
    Options o = parseOptions(args, known);
    if (!o.positional.isEmpty())
        throw UsageError{QStringLiteral("unexpected argument \"%1\"").arg(o.positional.first())};
    return o;
}

QString problemText(const Problem &p)
{
    return safe(QString::fromStdString(p.toString()));
}

// Why a write failed, or empty: writeFileAtomically and saveScenarioFile
// answer with a reason (QString) or a Problem.
[[maybe_unused]] QString failure(const QString &why)
{
    return why;
}

QString failure(const std::optional<Problem> &p)
{
    return p ? QString::fromStdString(p->place.empty() || p->message.empty() ? p->toString() : p->message) : QString();
}

std::shared_ptr<const Gpt2Model> takeModel(Options &o, QTextStream &err, bool *failed)
{
    const QString which = o.take(QStringLiteral("--model")).value_or(QStringLiteral("builtin"));
    const ModelOrProblem m = which == QLatin1String("builtin") ? loadBuiltinModel() : loadModel(which);
    if (const auto *p = std::get_if<Problem>(&m)) {
        err << "attention-lab-cli: " << problemText(*p) << "\n";
        *failed = true;
        return nullptr;
    }
    return std::get<std::shared_ptr<const Gpt2Model>>(m);
}

// The sentence, bounded before it is tokenized: its length is the cost.
QString modelText(Options &o)
{
    const auto text = o.take(QStringLiteral("--text"));
    if (!text)
        throw UsageError{QStringLiteral("--text \"...\" is needed: the sentence the model reads")};
    const qsizetype n = text->toUcs4().size();
    if (n > kMaxModelTextCharacters)
        throw UsageError{QStringLiteral("--text: %1 characters is more than the limit of %2").arg(n).arg(kMaxModelTextCharacters)};
    return *text;
}

// A token as the terminal shows it: displayText escapes C0, DEL and C1;
// escapeControls adds the line separators and bidirectional controls.
QString shownToken(const std::string &bytes)
{
    return QString::fromStdString(escapeControls(displayText(bytes)));
}

// --layer / --head: one (1-based on the command line, 0-based here) or all.
QList<int> pick(Options &o, const QString &option, int count)
{
    QList<int> out;
    const auto text = o.take(option);
    if (!text || *text == QLatin1String("all")) {
        for (int i = 0; i < count; ++i)
            out << i;
        return out;
    }
    bool ok = false;
    const int v = text->toInt(&ok);
    if (!ok || v < 1 || v > count)
        throw UsageError{QStringLiteral("%1: must be all or a number from 1 to %2 (got %3)").arg(option).arg(count).arg(*text)};
    out << v - 1;
    return out;
}

QString utf8(const std::string &bytes)
{
    return QString::fromUtf8(bytes.data(), qsizetype(bytes.size()));
}

} // namespace

bool writeModelTraceJson(const ModelTrace &t, const QList<int> &layers, const QList<int> &heads,
                         const std::function<bool(const QByteArray &)> &sink, const QByteArray &ablation)
{
    JsonStream o(sink);
    // `"name": [rows of numbers]`: a -0 stays "-0", as QJsonDocument wrote it.
    auto matrix = [&o](int level, const char *name, const Matrix &m, bool last) {
        o.key(level, name);
        o.grid(level, m, [&o](double v) { o.number(v); });
        o.next(last);
    };
    o.raw("{\n");
    if (!ablation.isEmpty()) { // one level in: QJsonDocument's 4 spaces before each inner line
        QByteArray inner = ablation.trimmed();
        inner.replace("\n", "\n    ");
        o.raw((QByteArray("    \"ablation\": ") + inner + ",\n").constData());
    }
    o.openArray(1, "layers");
    for (qsizetype li = 0; li < layers.size() && o.ok(); ++li) {
        const int l = layers[li];
        o.openObject(2);
        o.openArray(3, "heads");
        for (qsizetype hi = 0; hi < heads.size() && o.ok(); ++hi) {
            const int h = heads[hi];
            const HeadActivations &a = t.layers[std::size_t(l)].heads[std::size_t(h)];
            o.openObject(4);
            o.members(5, {{"head", h + 1}}, false);
            // The head's scores (headlabel.h), each beside its uniform
            // baseline; a score with no rows to count (no repeat) is null.
            const HeadScores hs = scoreHead(a.weights, t.ids);
            o.openObject(5, "head_scores");
            auto score = [&o](const char *name, const HeadScore &s, bool last) {
                if (s.defined())
                    o.object(6, name, {{"rows", s.rows}, {"score", s.score}, {"uniform", s.uniform}}, last);
                else
                    o.object(6, name, {{"rows", 0}, {"score", nullptr}, {"uniform", nullptr}}, last);
            };
            score("duplicate", hs.duplicate, false);
            score("first_token", hs.firstToken, false);
            score("induction", hs.induction, false);
            o.members(6, {{"kind", headKindName(hs.kind)}, {"mean_entropy", hs.meanEntropy}}, false);
            score("previous_token", hs.previousToken, false);
            score("self", hs.self, false);
            o.members(6, {{"spread", hs.spread}}, true);
            o.closeObject(5, false);
            const std::pair<const char *, const Matrix *> stages[] = {
                {"k", &a.k}, {"output", &a.output}, {"q", &a.q}, {"scaled", &a.scaled},
                {"scores", &a.scores}, {"v", &a.v}, {"weights", &a.weights}};
            for (const auto &[name, m] : stages)
                matrix(5, name, *m, m == &a.weights);
            o.closeObject(4, hi + 1 == heads.size());
        }
        o.closeArray(3, false);
        o.members(3, {{"layer", l + 1}}, true);
        o.closeObject(2, li + 1 == layers.size());
    }
    o.closeArray(1, false);
    o.openArray(1, "next");
    for (std::size_t i = 0; i < t.next.size(); ++i) {
        const Prediction &p = t.next[i];
        o.object(2, {{"id", p.id}, {"p", p.p}, {"text", p.text}}, i + 1 == t.next.size());
    }
    o.closeArray(1, false);
    o.openArray(1, "tokens");
    for (std::size_t i = 0; i < t.ids.size(); ++i)
        o.object(2, {{"id", t.ids[i]}, {"text", t.texts[i]}}, i + 1 == t.ids.size());
    o.closeArray(1, true);
    o.raw("}\n");
    return o.flush();
}

namespace {

int info(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseModelOptions(args, {QStringLiteral("--model"), QStringLiteral("--format")});
    const QString format = formatOption(o);
    bool failed = false;
    const auto m = takeModel(o, err, &failed);
    if (failed)
        return kBadInput;
    const Gpt2Config &c = m->config;
    if (format == QLatin1String("json")) {
        QJsonObject j{{QStringLiteral("name"), m->name},
                      {QStringLiteral("folder"), m->folder},
                      {QStringLiteral("n_layer"), c.nLayer},
                      {QStringLiteral("n_head"), c.nHead},
                      {QStringLiteral("n_embd"), c.nEmbd},
                      {QStringLiteral("d_head"), c.headDim()},
                      {QStringLiteral("n_inner"), c.nInner},
                      {QStringLiteral("n_positions"), c.nPositions},
                      {QStringLiteral("vocab_size"), c.vocabSize},
                      {QStringLiteral("merges"), m->tokenizer.mergeCount()},
                      {QStringLiteral("parameters"), double(m->parameters)},
                      {QStringLiteral("dtype"), QString::fromStdString(m->dtype)}};
        out << escapeTerminalControls(QJsonDocument(j).toJson(QJsonDocument::Indented));
        return 0;
    }
    out << "model: " << safe(m->name) << " (" << safe(m->folder) << ")\n"
        << "layers: " << c.nLayer << ", heads: " << c.nHead << " per layer, n_embd: " << c.nEmbd << " (d_head "
        << c.headDim() << "), MLP width: " << c.nInner << "\n"
        << "positions: at most " << c.nPositions << " tokens\n"
        << "vocabulary: " << c.vocabSize << " tokens (byte-level BPE, " << m->tokenizer.mergeCount() << " merges)\n"
        << "parameters: " << m->parameters << " (" << safe(QString::fromStdString(m->dtype)) << " in the file, double in memory)\n"
        << "layer norm epsilon: " << c.epsilon << ", activation: " << (c.geluTanh ? "GELU (tanh)" : "GELU (erf)") << "\n";
    return 0;
}

// --ablate L.H[,L.H…] (1-based) and --ablate-with zero|mean; --seed the probe's.
struct AblateRequest {
    std::vector<HeadAblation> heads;
    bool mean = false;
    std::uint64_t seed = 1;
};

std::optional<AblateRequest> ablateOption(Options &o, const Gpt2Config &c)
{
    const auto list = o.take(QStringLiteral("--ablate"));
    const auto with = o.take(QStringLiteral("--ablate-with"));
    const auto seedText = o.take(QStringLiteral("--seed"));
    if (!list) {
        if (with || seedText)
            throw UsageError{QStringLiteral("%1 needs --ablate L.H").arg(with ? QStringLiteral("--ablate-with") : QStringLiteral("--seed"))};
        return std::nullopt;
    }
    AblateRequest r;
    if (with && *with != QLatin1String("zero") && *with != QLatin1String("mean"))
        throw UsageError{QStringLiteral("--ablate-with: \"%1\" is neither zero nor mean").arg(*with)};
    r.mean = with && *with == QLatin1String("mean");
    if (seedText) {
        bool ok = false;
        r.seed = seedText->toULongLong(&ok);
        if (!ok)
            throw UsageError{QStringLiteral("--seed: \"%1\" is not a whole number of 0 or more").arg(*seedText)};
    }
    for (const QString &item : list->split(QLatin1Char(','))) {
        const QStringList lh = item.trimmed().split(QLatin1Char('.'));
        bool okL = false, okH = false;
        const int l = lh.value(0).toInt(&okL), h = lh.value(1).toInt(&okH);
        if (lh.size() != 2 || !okL || !okH)
            throw UsageError{QStringLiteral("--ablate: \"%1\" is not LAYER.HEAD, such as 3.1").arg(item)};
        if (l < 1 || l > c.nLayer || h < 1 || h > c.nHead)
            throw UsageError{QStringLiteral("--ablate: %1 is not a head of the model (layers 1 to %2, heads 1 to %3)")
                                 .arg(item)
                                 .arg(c.nLayer)
                                 .arg(c.nHead)};
        if (std::none_of(r.heads.begin(), r.heads.end(), [&](const HeadAblation &a) { return a.layer == l - 1 && a.head == h - 1; }))
            r.heads.push_back({l - 1, h - 1, {}});
    }
    return r;
}

QString headName(int l, int h)
{
    return QStringLiteral("layer %1, head %2").arg(l + 1).arg(h + 1);
}

QString ablatedNames(const std::vector<HeadAblation> &heads)
{
    QStringList names;
    for (const HeadAblation &a : heads)
        names << headName(a.layer, a.head);
    return names.join(QStringLiteral("; "));
}

QJsonObject scoreJson(const HeadScore &s)
{
    return s.defined() ? QJsonObject{{QStringLiteral("rows"), s.rows}, {QStringLiteral("score"), s.score}, {QStringLiteral("uniform"), s.uniform}}
                       : QJsonObject{{QStringLiteral("rows"), 0}, {QStringLiteral("score"), QJsonValue()}, {QStringLiteral("uniform"), QJsonValue()}};
}

QJsonObject scoresJson(const HeadScores &s)
{
    return QJsonObject{{QStringLiteral("kind"), QString::fromStdString(headKindName(s.kind))},
                       {QStringLiteral("spread"), s.spread},
                       {QStringLiteral("previous_token"), scoreJson(s.previousToken)},
                       {QStringLiteral("first_token"), scoreJson(s.firstToken)},
                       {QStringLiteral("self"), scoreJson(s.self)},
                       {QStringLiteral("induction"), scoreJson(s.induction)},
                       {QStringLiteral("duplicate"), scoreJson(s.duplicate)}};
}

int trace(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseModelOptions(args, {QStringLiteral("--model"), QStringLiteral("--text"), QStringLiteral("--layer"),
                                    QStringLiteral("--head"), QStringLiteral("--format"), QStringLiteral("--ablate"),
                                    QStringLiteral("--ablate-with"), QStringLiteral("--seed")});
    const QString format = formatOption(o);
    const QString text = modelText(o);
    bool failed = false;
    const auto m = takeModel(o, err, &failed);
    if (failed)
        return kBadInput;
    const QList<int> layers = pick(o, QStringLiteral("--layer"), m->config.nLayer);
    const QList<int> heads = pick(o, QStringLiteral("--head"), m->config.nHead);
    std::optional<AblateRequest> ablate = ablateOption(o, m->config);
    const std::vector<std::vector<int>> probe = ablate ? repeatedProbe(m->config.vocabSize, ablate->seed) : std::vector<std::vector<int>>();
    if (ablate && ablate->mean) {
        const auto means = meanHeadOutputs(*m, probe);
        if (const Problem *p = means.problem()) {
            err << "attention-lab-cli: " << safe(problemText(*p)) << "\n";
            return kBadInput;
        }
        for (HeadAblation &a : ablate->heads)
            a.mean = means.value()[std::size_t(a.layer)][std::size_t(a.head)];
    }
    std::vector<int> ids;
    {
        const auto run = runModel(*m, text, 0);
        if (const auto *p = std::get_if<Problem>(&run)) {
            err << "attention-lab-cli: --text: " << safe(QString::fromStdString(p->message)) << "\n";
            return kBadInput;
        }
        ids = std::get<ModelTrace>(run).ids;
    }
    // With --ablate, the maps are those of the model with the heads knocked out.
    const auto run = ablate ? runModelOnIdsAblated(*m, ids, 5, ablate->heads) : runModelOnIds(*m, ids, 5);
    if (const auto *p = std::get_if<Problem>(&run)) {
        err << "attention-lab-cli: --text: " << safe(QString::fromStdString(p->message)) << "\n";
        return kBadInput;
    }
    const ModelTrace &t = std::get<ModelTrace>(run);
    std::optional<AblationReport> report;
    if (ablate) {
        auto r = ablationReport(*m, ids, probe, ablate->heads);
        if (const Problem *p = r.problem()) {
            err << "attention-lab-cli: " << safe(problemText(*p)) << "\n";
            return kBadInput;
        }
        report = std::move(r.value());
    }

    if (format == QLatin1String("json")) {
        QByteArray ablation;
        if (report) {
            auto next = [](const std::vector<Prediction> &list) {
                QJsonArray a;
                for (const Prediction &p : list)
                    a.append(QJsonObject{{QStringLiteral("id"), p.id}, {QStringLiteral("p"), p.p}, {QStringLiteral("text"), utf8(p.text)}});
                return a;
            };
            QJsonArray knocked, scores;
            for (const HeadAblation &a : ablate->heads)
                knocked.append(QJsonObject{{QStringLiteral("layer"), a.layer + 1}, {QStringLiteral("head"), a.head + 1}});
            for (int l = 0; l < m->config.nLayer; ++l)
                for (int h = 0; h < m->config.nHead; ++h) {
                    const std::size_t i = std::size_t(l * m->config.nHead + h);
                    scores.append(QJsonObject{{QStringLiteral("layer"), l + 1},
                                              {QStringLiteral("head"), h + 1},
                                              {QStringLiteral("before"), scoresJson(report->scoresBefore[i])},
                                              {QStringLiteral("after"), scoresJson(report->scoresAfter[i])}});
                }
            const QJsonObject j{{QStringLiteral("heads"), knocked},
                                {QStringLiteral("with"), ablate->mean ? QStringLiteral("mean") : QStringLiteral("zero")},
                                {QStringLiteral("probe"), QJsonObject{{QStringLiteral("sequences"), kProbeSequences},
                                                                      {QStringLiteral("length"), kProbeLength},
                                                                      {QStringLiteral("seed"), QString::number(ablate->seed)}}},
                                {QStringLiteral("repeat_loss"), QJsonObject{{QStringLiteral("before"), report->lossBefore},
                                                                            {QStringLiteral("after"), report->lossAfter}}},
                                {QStringLiteral("next"), QJsonObject{{QStringLiteral("before"), next(report->nextBefore)},
                                                                     {QStringLiteral("after"), next(report->nextAfter)}}},
                                {QStringLiteral("head_scores"), scores}};
            ablation = escapeTerminalControls(QJsonDocument(j).toJson(QJsonDocument::Indented));
        }
        // Streamed: every layer and head of a long sentence is written as it
        // is formatted, and formatting stops once stdout has failed (runCli
        // says why, once).
        writeModelTraceJson(t, layers, heads, [&out](const QByteArray &chunk) { return writeChunk(out, chunk); }, ablation);
        return 0;
    }

    out << "model " << safe(m->name) << ": " << t.ids.size() << " tokens (at most " << m->config.nPositions << ")\n";
    if (ablate)
        out << "knocked out (" << (ablate->mean ? "output replaced by its mean over the probe" : "output replaced by zeros")
            << "): " << ablatedNames(ablate->heads) << "; the maps below are the model's without them\n";
    for (std::size_t i = 0; i < t.ids.size(); ++i)
        out << QStringLiteral("  %1  id %2  %3\n")
                   .arg(i + 1, 3)
                   .arg(t.ids[i], 6)
                   .arg(QLatin1Char('"') + shownToken(t.texts[i]) + QLatin1Char('"'));
    for (int l : layers)
        for (int h : heads) {
            const auto s = headScenario(*m, t, l, h);
            if (const auto *p = std::get_if<Problem>(&s)) {
                err << "attention-lab-cli: layer " << l + 1 << ", head " << h + 1 << ": " << safe(problemText(*p)) << "\n";
                return kBadInput;
            }
            const Scenario &sc = std::get<Scenario>(s);
            const HeadScores scores = scoreHead(t.layers[std::size_t(l)].heads[std::size_t(h)].weights, t.ids);
            out << "\n== layer " << l + 1 << ", head " << h + 1 << ": " << QString::fromStdString(headKindName(scores.kind))
                << " ==\n  " << QString::fromStdString(headScoresText(scores)) << "\n";
            const Result<Trace> traced = tryCompute(sc);
            if (const Problem *p = traced.problem()) {
                err << "attention-lab-cli: " << problemText(*p) << "\n";
                return kBadInput;
            }
            const bool ok = writeTraceText(sc, traced.value(), [&out](const std::string &chunk) {
                out << QString::fromStdString(chunk);
                return out.status() == QTextStream::Ok;
            });
            if (!ok)
                return 0; // stdout failed: runCli says why, once
        }
    out << "\nnext token after the last position:\n";
    for (const Prediction &p : t.next)
        out << QStringLiteral("  %1  %2  (id %3)\n")
                   .arg(QLatin1Char('"') + shownToken(p.text) + QLatin1Char('"'), -12)
                   .arg(fixed(p.p))
                   .arg(p.id);
    if (!report)
        return 0;
    out << "\n== knocking out " << ablatedNames(ablate->heads) << " ("
        << (ablate->mean ? "its output replaced by its mean over the probe" : "its output replaced by zeros") << ") ==\n"
        << "probe: " << kProbeSequences << " random token sequences of " << kProbeLength << ", each said twice (seed "
        << ablate->seed << ")\n"
        << "loss on the second copies (what the first copy gives away): " << fixed(report->lossBefore) << " nats with the head"
        << (ablate->heads.size() > 1 ? "s" : "") << ", " << fixed(report->lossAfter) << " without\n"
        << "next token after the last position, with → without:\n";
    for (std::size_t i = 0; i < std::max(report->nextBefore.size(), report->nextAfter.size()); ++i) {
        auto cell = [&](const std::vector<Prediction> &list) {
            return i < list.size() ? QStringLiteral("%1 %2").arg(QLatin1Char('"') + shownToken(list[i].text) + QLatin1Char('"'), -12).arg(fixed(list[i].p))
                                   : QString();
        };
        out << "  " << i + 1 << ". " << cell(report->nextBefore).leftJustified(22) << " → " << cell(report->nextAfter) << "\n";
    }
    out << "every head's scores over the probe, with → without (uniform in brackets):\n";
    for (int l = 0; l < m->config.nLayer; ++l)
        for (int h = 0; h < m->config.nHead; ++h) {
            const std::size_t i = std::size_t(l * m->config.nHead + h);
            const HeadScores &b = report->scoresBefore[i], &a = report->scoresAfter[i];
            const bool knocked = std::any_of(ablate->heads.begin(), ablate->heads.end(),
                                             [&](const HeadAblation &x) { return x.layer == l && x.head == h; });
            auto pair = [](const char *name, const HeadScore &x, const HeadScore &y) {
                return QStringLiteral("%1 %2 → %3 (%4)").arg(QLatin1String(name), fixed(x.score, 2), fixed(y.score, 2), fixed(x.uniform, 2));
            };
            out << "  " << headName(l, h) << (knocked ? " (knocked out)" : "") << ": "
                << QString::fromStdString(headKindName(b.kind)) << " → " << QString::fromStdString(headKindName(a.kind)) << "; "
                << pair("previous token", b.previousToken, a.previousToken) << ", " << pair("first token", b.firstToken, a.firstToken)
                << ", " << pair("self", b.self, a.self) << ", " << pair("induction", b.induction, a.induction) << ", "
                << pair("duplicate", b.duplicate, a.duplicate) << "\n";
        }
    return 0;
}

// Every layer by head as a small weights map: the window's overview
// (ModelView::overviewData, HeadGrid), in English, with the sentence as title.
HeadGridData overviewData(const Gpt2Model &m, const ModelTrace &t)
{
    HeadGridWords words;
    words.describe = [&t](int, int, const Matrix &w, HeadGridCell &cell) {
        const HeadScores s = scoreHead(w, t.ids);
        cell.caption << QString::fromStdString(headKindName(s.kind)) << QStringLiteral("H̄ %1 nats").arg(fixed(s.meanEntropy, 2));
    };
    std::string text;
    for (const std::string &s : t.texts)
        text += s;
    words.title = QStringLiteral("%1: every head's softmax weights for “%2”").arg(m.name, utf8(displayText(text)).trimmed());
    return headGridData(int(t.layers.size()), t.layers.empty() ? 0 : int(t.layers[0].heads.size()),
                        [&t](int l, int h) -> const Matrix & { return t.layers[std::size_t(l)].heads[std::size_t(h)].weights; },
                        words);
}

// 16777216 → "16,777,216".
QString grouped(double v)
{
    QString digits = QString::number(qlonglong(std::llround(v)));
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, QLatin1Char(','));
    return digits;
}

// The overview figure's size: every head keeps a readable map and caption
// (headGridFigureSizes' minimum), and the image at most
// kMaxHeadGridFigurePixels. Without --size, the larger of 900×800 and the
// grid's preferred size, shrunk to the limit; a --size too small for the
// grid or beyond the limit, or a grid whose smallest figure is beyond it,
// is refused in one line.
FigureSize overviewFigureSize(int layers, int heads, FigureSize size, bool given)
{
    HeadGridData shape;
    shape.rows = layers;
    shape.cols = heads;
    shape.title = QStringLiteral("title");
    const HeadGridFigureSizes need = headGridFigureSizes(shape);
    const QString grid = QStringLiteral("%1 layers × %2 heads").arg(layers).arg(heads);
    const QString limit = QStringLiteral("%1 pixels (%2 × %2)").arg(grouped(kMaxHeadGridFigurePixels)).arg(qlonglong(std::llround(std::sqrt(kMaxHeadGridFigurePixels))));
    const double least = double(need.minimum.width()) * need.minimum.height();
    if (least > kMaxHeadGridFigurePixels)
        throw UsageError{QStringLiteral("--stages overview: %1 need a figure of at least %2 × %3 pixels to show each head's map "
                                             "and caption (%4 pixels), more than the limit of %5; export single heads with --layer and --head")
                                  .arg(grid, grouped(need.minimum.width()), grouped(need.minimum.height()), grouped(least), limit)};
    if (given) {
        if (size.width < need.minimum.width() || size.height < need.minimum.height())
            throw UsageError{QStringLiteral("--size %1x%2 is too small for the overview of %3: each head's map and caption need "
                                                 "at least %4x%5")
                                      .arg(size.width)
                                      .arg(size.height)
                                      .arg(grid)
                                      .arg(need.minimum.width())
                                      .arg(need.minimum.height())};
        if (double(size.width) * size.height > kMaxHeadGridFigurePixels)
            throw UsageError{QStringLiteral("--size %1x%2: an overview figure has at most %3")
                                      .arg(size.width)
                                      .arg(size.height)
                                      .arg(limit)};
        return size;
    }
    size.width = std::max(size.width, need.preferred.width());
    size.height = std::max(size.height, need.preferred.height());
    const double pixels = double(size.width) * size.height;
    if (pixels > kMaxHeadGridFigurePixels) {
        // Smaller cells, the same proportions, never below the minimum.
        const double k = std::sqrt(kMaxHeadGridFigurePixels / pixels);
        size.width = std::max(need.minimum.width(), int(std::floor(size.width * k)));
        size.height = std::max(need.minimum.height(), int(std::floor(size.height * k)));
        if (double(size.width) * size.height > kMaxHeadGridFigurePixels) {
            size.width = need.minimum.width();
            size.height = need.minimum.height();
        }
    }
    return size;
}

int exportModel(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseModelOptions(args, {QStringLiteral("--model"), QStringLiteral("--text"), QStringLiteral("--layer"),
                                    QStringLiteral("--head"), QStringLiteral("--out"), QStringLiteral("--stages"),
                                    QStringLiteral("--format"), QStringLiteral("--size"), QStringLiteral("--scenario"),
                                    QStringLiteral("--input"), QStringLiteral("--name")});
    const QString text = modelText(o);
    const auto outDir = o.take(QStringLiteral("--out"));
    const auto scenarioFile = o.take(QStringLiteral("--scenario"));
    if (!outDir && !scenarioFile)
        throw UsageError{QStringLiteral("--out DIR (figures) or --scenario FILE (the head as a scenario) is needed")};
    const QString input = o.take(QStringLiteral("--input")).value_or(QStringLiteral("direct"));
    if (input != QLatin1String("direct") && input != QLatin1String("projected"))
        throw UsageError{QStringLiteral("--input: unknown value \"%1\"; expected direct or projected").arg(input)};
    const QStringList stages = splitList(o.take(QStringLiteral("--stages")).value_or(QStringLiteral("scores,scaled,masked,weights,output")));
    for (const QString &st : stages)
        if (st != QLatin1String("overview") && !stageFromKey(st))
            throw UsageError{QStringLiteral("--stages: unknown stage \"%1\"; expected scores, scaled, masked, weights, output or overview").arg(st)};
    const QList<FigureFormat> formats = figureFormats(o);
    FigureSize size;
    size.width = 900;
    size.height = 800;
    const auto sizeText = o.take(QStringLiteral("--size"));
    if (const auto &s = sizeText) {
        const QStringList wh = s->toLower().split(QLatin1Char('x'));
        bool okW = false, okH = false;
        const int w = wh.value(0).toInt(&okW), h = wh.value(1).toInt(&okH);
        if (wh.size() != 2 || !okW || !okH || w < 100 || h < 100 || w > 8000 || h > 8000)
            throw UsageError{QStringLiteral("--size: \"%1\" is not WIDTHxHEIGHT with sides from 100 to 8000, e.g. 900x800").arg(*s)};
        size.width = w;
        size.height = h;
    }
    const auto stemOption = o.take(QStringLiteral("--name"));
    if (stemOption)
        if (const auto why = whyNotAFileStem(*stemOption))
            throw UsageError{QStringLiteral("--name: %1").arg(QString::fromStdString(why->message))};
    bool failed = false;
    const auto m = takeModel(o, err, &failed);
    if (failed)
        return kBadInput;
    const auto layerGiven = o.take(QStringLiteral("--layer")), headGiven = o.take(QStringLiteral("--head"));
    const bool headChosen = layerGiven || headGiven;
    const QString layerText = layerGiven.value_or(QStringLiteral("1"));
    const QString headText = headGiven.value_or(QStringLiteral("1"));
    bool okL = false, okH = false;
    const int layer = layerText.toInt(&okL) - 1, head = headText.toInt(&okH) - 1;
    if (!okL || layer < 0 || layer >= m->config.nLayer)
        throw UsageError{QStringLiteral("--layer: must be a layer from 1 to %1 (got %2)").arg(m->config.nLayer).arg(layerText)};
    if (!okH || head < 0 || head >= m->config.nHead)
        throw UsageError{QStringLiteral("--head: must be a head from 1 to %1 (got %2)").arg(m->config.nHead).arg(headText)};
    if (outDir && !qobject_cast<QApplication *>(QCoreApplication::instance()))
        throw UsageError{QStringLiteral("drawing figures needs a QApplication")};

    // The overview's pixels, decided from the grid's shape before the
    // forward and before any file is written.
    FigureSize overviewSize = size;
    if (outDir && stages.contains(QLatin1String("overview")))
        overviewSize = overviewFigureSize(m->config.nLayer, m->config.nHead, size, sizeText.has_value());

    const auto run = runModel(*m, text);
    if (const auto *p = std::get_if<Problem>(&run)) {
        err << "attention-lab-cli: --text: " << safe(QString::fromStdString(p->message)) << "\n";
        return kBadInput;
    }
    const ModelTrace &t = std::get<ModelTrace>(run);
    const auto taken = headScenario(*m, t, layer, head, input == QLatin1String("projected") ? HeadInput::Projected : HeadInput::Direct);
    if (const auto *p = std::get_if<Problem>(&taken)) {
        err << "attention-lab-cli: " << problemText(*p) << "\n";
        return kBadInput;
    }
    const Scenario &s = std::get<Scenario>(taken);

    if (scenarioFile) {
        const QString why = failure(saveScenarioFile(*scenarioFile, s));
        if (!why.isEmpty()) {
            err << "attention-lab-cli: " << safe(QDir::toNativeSeparators(*scenarioFile)) << ": " << safe(why) << "\n";
            return kBadInput;
        }
        out << safe(QDir::toNativeSeparators(*scenarioFile)) << "\n";
    }
    if (!outDir)
        return 0;
    if (!QDir().mkpath(*outDir)) {
        err << "attention-lab-cli: --out " << safe(*outDir) << ": the folder cannot be created\n";
        return kBadInput;
    }
    // The folder's name cleaned ("DIR/." is DIR's; no control character, no leading dot).
    const QString stem = stemOption.value_or(cleanFolderName(m->folder, QStringLiteral("model")));
    auto write = [&](const QString &name, const QByteArray &bytes) {
        const QString path = QDir(*outDir).filePath(name);
        // Names the program made: a link at one is replaced, never followed.
        QString link;
        const QString why = failure(writeFileAtomically(path, bytes, {.replaceLink = true, .replacedLink = &link}));
        if (!why.isEmpty()) {
            err << "attention-lab-cli: " << safe(QDir::toNativeSeparators(path)) << ": " << safe(why) << "\n";
            return false;
        }
        if (!link.isEmpty())
            err << "attention-lab-cli: " << safe(replacedLinkNote(path, link)) << "\n";
        out << safe(QDir::toNativeSeparators(path)) << "\n";
        return true;
    };
    const Result<Trace> traced = tryCompute(s);
    if (const Problem *p = traced.problem()) {
        err << "attention-lab-cli: " << problemText(*p) << "\n";
        return kBadInput;
    }
    const Trace &tr = traced.value();
    FigureStyle style;
    const QString where = QStringLiteral("L%1H%2").arg(layer + 1).arg(head + 1);
    for (const QString &st : stages) {
        if (st == QLatin1String("overview")) {
            // The head named by --layer or --head is framed, as the window frames the selected one.
            const int row = headChosen ? layer : -1, col = headChosen ? head : -1;
            const HeadGridData grid = overviewData(*m, t);
            for (FigureFormat f : formats)
                if (!write(QStringLiteral("%1_overview.%2").arg(stem, figureSuffix(f)),
                           renderHeadGrid(grid, sequentialGradient(style.sequential), row, col, f, overviewSize)))
                    return kBadInput;
            continue;
        }
        auto plot = makeStagePlot(s, tr, *stageFromKey(st), style);
        HeatmapData d = plot->data();
        d.title = QStringLiteral("%1 · %2, layer %3, head %4").arg(d.title.section(QLatin1Char('\n'), 0, 0), m->name).arg(layer + 1).arg(head + 1)
            + (d.title.contains(QLatin1Char('\n')) ? QLatin1Char('\n') + d.title.section(QLatin1Char('\n'), 1) : QString());
        plot->setData(d);
        for (FigureFormat f : formats)
            if (!write(QStringLiteral("%1_%2_%3.%4").arg(stem, where, st, figureSuffix(f)), renderFigure(plot.get(), f, size)))
                return kBadInput;
    }
    return 0;
}

// A real number option, or a UsageError naming it.
std::optional<double> realOption(Options &o, const QString &option)
{
    const auto text = o.take(option);
    if (!text)
        return std::nullopt;
    bool ok = false;
    const double v = text->toDouble(&ok);
    if (!ok || !std::isfinite(v))
        throw UsageError{QStringLiteral("%1: \"%2\" is not a number").arg(option, *text)};
    return v;
}

QString sampling(const SamplingSettings &s)
{
    if (s.temperature == 0)
        return QStringLiteral("greedy (temperature 0)");
    return QStringLiteral("temperature %1, top-k %2, top-p %3, seed %4")
        .arg(QString::fromStdString(shortest(s.temperature)), s.topK ? QString::number(s.topK) : QStringLiteral("all"),
             QString::fromStdString(shortest(s.topP)))
        .arg(s.seed);
}

// --steps, --temperature, --top-k, --top-p and --seed over `defaults`,
// checked as validateSampling says.
SamplingSettings samplingOptions(Options &o, SamplingSettings s)
{
    if (const auto v = o.take(QStringLiteral("--steps")))
        s.steps = wholeNumberOption(QStringLiteral("--steps"), *v, kMaxGenerationSteps);
    if (const auto v = realOption(o, QStringLiteral("--temperature")))
        s.temperature = *v;
    if (const auto v = o.take(QStringLiteral("--top-k")))
        s.topK = *v == QLatin1String("0") ? 0 : wholeNumberOption(QStringLiteral("--top-k"), *v, kMaxVocabulary);
    if (const auto v = realOption(o, QStringLiteral("--top-p")))
        s.topP = *v;
    if (const auto v = o.take(QStringLiteral("--seed"))) {
        bool ok = false;
        s.seed = v->toULongLong(&ok);
        if (!ok)
            throw UsageError{QStringLiteral("--seed: \"%1\" is not a whole number of 0 or more").arg(*v)};
    }
    if (const auto p = validateSampling(s))
        throw UsageError{QStringLiteral("--%1: %2").arg(QString::fromStdString(p->place), QString::fromStdString(p->message))};
    return s;
}

int generateCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseModelOptions(args, {QStringLiteral("--model"), QStringLiteral("--text"), QStringLiteral("--steps"),
                                         QStringLiteral("--temperature"), QStringLiteral("--top-k"), QStringLiteral("--top-p"),
                                         QStringLiteral("--seed"), QStringLiteral("--format")});
    const QString format = formatOption(o);
    const QString text = modelText(o);
    const SamplingSettings s = samplingOptions(o, SamplingSettings{});
    bool failed = false;
    const auto m = takeModel(o, err, &failed);
    if (failed)
        return kBadInput;
    const auto r = generate(*m, m->tokenizer.encode(text), s);
    if (const auto *p = std::get_if<Problem>(&r)) {
        err << "attention-lab-cli: " << problemText(*p) << "\n";
        return kBadInput;
    }
    const Generation &g = std::get<Generation>(r);
    std::vector<int> all = g.prompt;
    for (const GenerationStep &st : g.steps)
        all.push_back(st.id);
    const QString whole = utf8(m->tokenizer.decode(all));
    if (format == QLatin1String("json")) {
        auto tokens = [&](auto begin, auto end, auto id) {
            QJsonArray a;
            for (auto it = begin; it != end; ++it)
                a.append(QJsonObject{{QStringLiteral("id"), id(*it)}, {QStringLiteral("text"), utf8(m->tokenizer.bytes(id(*it)))}});
            return a;
        };
        QJsonArray steps;
        for (const GenerationStep &st : g.steps) {
            QJsonArray top;
            for (const Candidate &c : st.top)
                top.append(QJsonObject{{QStringLiteral("id"), c.id}, {QStringLiteral("text"), utf8(m->tokenizer.bytes(c.id))},
                                       {QStringLiteral("p"), c.p}, {QStringLiteral("p_raw"), c.raw}});
            steps.append(QJsonObject{{QStringLiteral("position"), st.position + 1},
                                     {QStringLiteral("id"), st.id},
                                     {QStringLiteral("text"), utf8(st.text)},
                                     {QStringLiteral("p"), st.p},
                                     {QStringLiteral("u"), st.u},
                                     {QStringLiteral("cached_positions"), st.reused},
                                     {QStringLiteral("cells_with_cache"), double(st.cachedCells)},
                                     {QStringLiteral("cells_without_cache"), double(st.uncachedCells)},
                                     {QStringLiteral("top"), top}});
        }
        QJsonObject j{{QStringLiteral("model"), m->name},
                      {QStringLiteral("prompt"), tokens(g.prompt.begin(), g.prompt.end(), [](int id) { return id; })},
                      {QStringLiteral("steps"), steps},
                      {QStringLiteral("text"), whole},
                      {QStringLiteral("settings"),
                       QJsonObject{{QStringLiteral("steps"), s.steps},
                                   {QStringLiteral("temperature"), s.temperature},
                                   {QStringLiteral("top_k"), s.topK},
                                   {QStringLiteral("top_p"), s.topP},
                                   // a number while a double holds it exactly
                                   {QStringLiteral("seed"), s.seed <= (std::uint64_t(1) << 53) ? QJsonValue(double(s.seed))
                                                                                               : QJsonValue(QString::number(s.seed))}}}};
        if (!g.stopped.empty())
            j.insert(QStringLiteral("stopped"), QString::fromStdString(g.stopped));
        out << terminalJson(j);
        return 0;
    }
    out << "model: " << safe(m->name) << "; " << sampling(s) << "\n"
        << "prompt: " << g.prompt.size() << " tokens:";
    for (int id : g.prompt)
        out << " [" << shownToken(m->tokenizer.bytes(id)) << "]";
    out << "\n";
    std::int64_t with = 0, without = 0;
    for (const GenerationStep &st : g.steps) {
        out << "step " << (&st - g.steps.data()) + 1 << ", position " << st.position + 1 << ": [" << shownToken(st.text)
            << "] p " << fixed(st.p) << (s.temperature == 0 ? QString() : QStringLiteral(" (u %1)").arg(fixed(st.u)))
            << "; top 5, softmax → after the cuts:";
        for (const Candidate &c : st.top)
            out << " [" << shownToken(m->tokenizer.bytes(c.id)) << "] " << fixed(c.raw) << " → " << fixed(c.p);
        out << "; score entries per head: " << st.cachedCells << " with the cache, " << st.uncachedCells << " without\n";
        with += st.cachedCells;
        without += st.uncachedCells;
    }
    if (!g.stopped.empty())
        out << "stopped: " << safe(QString::fromStdString(g.stopped)) << "\n";
    out << "score entries per head in all: " << with << " with the cache, " << without << " without\n"
        << "text: " << safe(whole) << "\n";
    return 0;
}

// `model scores`: every head's scores over the standard probe of Olsson et
// al. 2022 (random token sequences said twice): the position scores over
// all rows, induction (prefix matching) over the second copy; each beside
// its uniform baseline, and the label the rule gives the means.
constexpr int kProbeSequences = 8;
constexpr int kProbeLength = 16;

int scoresCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseModelOptions(args, {QStringLiteral("--model"), QStringLiteral("--seed"), QStringLiteral("--format")});
    const QString format = formatOption(o);
    std::uint64_t seed = 1;
    if (const auto v = o.take(QStringLiteral("--seed"))) {
        bool ok = false;
        seed = v->toULongLong(&ok);
        if (!ok)
            throw UsageError{QStringLiteral("--seed: \"%1\" is not a whole number of 0 or more").arg(*v)};
    }
    bool failed = false;
    const auto m = takeModel(o, err, &failed);
    if (failed)
        return kBadInput;
    const int layers = m->config.nLayer, heads = m->config.nHead;
    const auto scored = probeScores(*m, repeatedProbe(m->config.vocabSize, seed));
    if (const Problem *p = scored.problem()) {
        err << "attention-lab-cli: " << problemText(*p) << "\n";
        return kBadInput;
    }
    const std::vector<HeadScores> &all = scored.value();
    const QString probe = QStringLiteral("%1 random token sequences of %2, each said twice (seed %3)")
                              .arg(kProbeSequences)
                              .arg(kProbeLength)
                              .arg(seed);
    if (format == QLatin1String("json")) {
        auto score = [](const HeadScore &s) {
            return QJsonObject{{QStringLiteral("rows"), s.rows}, {QStringLiteral("score"), s.score}, {QStringLiteral("uniform"), s.uniform}};
        };
        QJsonArray list;
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h) {
                const HeadScores &s = all[std::size_t(l * heads + h)];
                list.append(QJsonObject{{QStringLiteral("layer"), l + 1},
                                        {QStringLiteral("head"), h + 1},
                                        {QStringLiteral("kind"), QString::fromStdString(headKindName(s.kind))},
                                        {QStringLiteral("spread"), s.spread},
                                        {QStringLiteral("previous_token"), score(s.previousToken)},
                                        {QStringLiteral("first_token"), score(s.firstToken)},
                                        {QStringLiteral("self"), score(s.self)},
                                        {QStringLiteral("induction"), score(s.induction)},
                                        {QStringLiteral("duplicate"), score(s.duplicate)}});
            }
        out << terminalJson(QJsonObject{{QStringLiteral("model"), m->name},
                                        {QStringLiteral("probe"),
                                         QJsonObject{{QStringLiteral("sequences"), kProbeSequences},
                                                     {QStringLiteral("length"), kProbeLength},
                                                     {QStringLiteral("seed"), QString::number(seed)}}},
                                        {QStringLiteral("heads"), list}});
        return 0;
    }
    out << "model: " << safe(m->name) << "; probe: " << probe << "\n"
        << "each score is a mean weight, with the uniform baseline in brackets\n"
        << "layer  head  previous token   first token      self             induction        duplicate        label\n";
    auto cell = [](const HeadScore &s) { return QStringLiteral("%1 (%2)").arg(fixed(s.score, 2), fixed(s.uniform, 2)).leftJustified(17); };
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h) {
            const HeadScores &s = all[std::size_t(l * heads + h)];
            out << QString::number(l + 1).leftJustified(7) << QString::number(h + 1).leftJustified(6) << cell(s.previousToken)
                << cell(s.firstToken) << cell(s.self) << cell(s.induction) << cell(s.duplicate)
                << QString::fromStdString(headKindName(s.kind)) << "\n";
        }
    return 0;
}

// `model sinks`: StreamingLLM's comparison on the model (core/model/sinks.h):
// the loss with full attention, a window of w keys, and s sinks + the
// window, on a text the model writes itself (or --text); beside it the
// paper's figure, and each head's weight on the first token.
int sinksCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseModelOptions(args, {QStringLiteral("--model"), QStringLiteral("--text"), QStringLiteral("--generate"),
                                         QStringLiteral("--seed"), QStringLiteral("--window"), QStringLiteral("--sinks"),
                                         QStringLiteral("--format")});
    const QString format = formatOption(o);
    const auto textOption = o.take(QStringLiteral("--text"));
    const auto generateOption = o.take(QStringLiteral("--generate"));
    const auto seedText = o.take(QStringLiteral("--seed"));
    if (textOption && generateOption)
        throw UsageError{QStringLiteral("give --text or --generate, not both")};
    if (textOption && seedText)
        throw UsageError{QStringLiteral("--seed: only for the model's own text (--generate), not with --text")};
    std::uint64_t seed = kSinkTextSeed;
    if (seedText) {
        bool ok = false;
        seed = seedText->toULongLong(&ok);
        if (!ok)
            throw UsageError{QStringLiteral("--seed: \"%1\" is not a whole number of 0 or more").arg(*seedText)};
    }
    // Any whole number here; sinkExperiment says what the text allows.
    auto whole = [&o](const QString &option, int fallback) {
        const auto v = o.take(option);
        if (!v)
            return fallback;
        bool ok = false;
        const int n = v->trimmed().toInt(&ok);
        if (!ok)
            throw UsageError{QStringLiteral("%1: \"%2\" is not a whole number").arg(option, *v)};
        return n;
    };
    const int window = whole(QStringLiteral("--window"), 8);
    const int sinks = whole(QStringLiteral("--sinks"), 4);
    bool failed = false;
    const auto m = takeModel(o, err, &failed);
    if (failed)
        return kBadInput;
    const int longest = std::min(m->config.nPositions, maxTracedTokens(m->config));
    std::vector<int> ids;
    QString source;
    if (textOption) {
        const qsizetype chars = textOption->toUcs4().size();
        if (chars > kMaxModelTextCharacters)
            throw UsageError{QStringLiteral("--text: %1 characters is more than the limit of %2").arg(chars).arg(kMaxModelTextCharacters)};
        ids = m->tokenizer.encode(*textOption);
        if (int(ids.size()) > longest)
            throw UsageError{QStringLiteral("--text: %1 tokens is more than the %2 the model reads").arg(ids.size()).arg(longest)};
        source = QStringLiteral("the text given");
    } else {
        const int tokens = generateOption ? wholeNumberOption(QStringLiteral("--generate"), *generateOption, longest) : longest;
        auto written = sinkText(*m, tokens, seed);
        if (const Problem *p = written.problem()) {
            err << "attention-lab-cli: " << problemText(*p) << "\n";
            return kBadInput;
        }
        ids = std::move(written.value());
        source = QStringLiteral("the model's own, from \"the cat\" at temperature 1, seed %1").arg(seed);
    }
    const QString textName = textOption ? QStringLiteral("--text") : QStringLiteral("--generate");
    if (ids.size() < 3)
        throw UsageError{QStringLiteral("%1: the text has %2; the experiment needs at least 3")
                             .arg(textName, ids.size() == 1 ? QStringLiteral("1 token") : QStringLiteral("%1 tokens").arg(ids.size()))};
    const auto r = sinkExperiment(*m, ids, window, sinks);
    if (const Problem *p = r.problem()) {
        if (p->place == "window" || p->place == "sinks")
            throw UsageError{QStringLiteral("--%1: %2").arg(QString::fromStdString(p->place), QString::fromStdString(p->message))};
        if (p->place == "text")
            throw UsageError{QStringLiteral("%1: %2").arg(textName, QString::fromStdString(p->message))};
        err << "attention-lab-cli: " << problemText(*p) << "\n";
        return kBadInput;
    }
    const SinkReport &rep = r.value();
    const int n = int(ids.size());
    const int heads = m->config.nHead;
    const double uniform = uniformFirstTokenWeight(n);
    if (format == QLatin1String("json")) {
        QJsonArray rows, list;
        for (const SinkRow &row : rep.rows)
            rows.append(QJsonObject{{QStringLiteral("name"), QString::fromStdString(row.name)},
                                    {QStringLiteral("window"), row.window},
                                    {QStringLiteral("sinks"), row.sinks},
                                    {QStringLiteral("loss"), row.loss},
                                    {QStringLiteral("perplexity"), row.perplexity}});
        for (int l = 0; l < m->config.nLayer; ++l)
            for (int h = 0; h < heads; ++h) {
                QJsonArray by;
                for (Eigen::Index i = 0; i < rep.byPosition.cols(); ++i)
                    by.append(rep.byPosition(l * heads + h, i));
                list.append(QJsonObject{{QStringLiteral("layer"), l + 1},
                                        {QStringLiteral("head"), h + 1},
                                        {QStringLiteral("first_token_weight"), rep.firstTokenWeight[std::size_t(l)][std::size_t(h)]},
                                        {QStringLiteral("by_position"), by}});
            }
        out << terminalJson(QJsonObject{{QStringLiteral("tokens"), n},
                                        {QStringLiteral("window"), window},
                                        {QStringLiteral("sinks"), sinks},
                                        {QStringLiteral("rows"), rows},
                                        {QStringLiteral("heads"), list},
                                        {QStringLiteral("uniform"), uniform}});
        return 0;
    }
    out << "model: " << safe(m->name) << "; text: " << n << " tokens, " << source << "\n"
        << "text: " << safe(utf8(m->tokenizer.decode(ids))) << "\n\n";
    int width = 10;
    for (const SinkRow &row : rep.rows)
        width = std::max(width, int(row.name.size()) + 2);
    out << QStringLiteral("attention").leftJustified(width) << "loss (nats/token)  perplexity\n";
    for (const SinkRow &row : rep.rows)
        out << QString::fromStdString(row.name).leftJustified(width) << fixed(row.loss).leftJustified(19) << fixed(row.perplexity, 3)
            << "\n";
    const double cost = rep.windowCostPercent();
    out << "\nthe paper (Xiao et al. 2023, StreamingLLM; Llama-2-13B on 65K tokens): window attention perplexity "
        << fixed(kPaperWindowPerplexity, 0) << ", 4 sinks + window " << fixed(kPaperSinksPerplexity, 2) << "\n"
        << "this model: the window alone changes the loss by " << (cost >= 0 ? "+" : "") << fixed(cost, 2) << " %";
    if (const auto back = rep.sinksRecoverPercent())
        out << "; the " << sinks << " sinks bring back " << fixed(*back, 1) << " % of that\n";
    else
        out << " (it costs nothing here); with " << sinks << " sinks: "
            << (rep.rows[2].loss >= rep.rows[0].loss ? "+" : "")
            << fixed((rep.rows[2].loss - rep.rows[0].loss) / rep.rows[0].loss * 100, 2) << " %\n";
    out << "\nmean weight on the first token over positions 2 to " << n << " (full attention); uniform causal rows: "
        << fixed(uniform, 3) << "\n"
        << "layer  head  weight  against uniform\n";
    for (int l = 0; l < m->config.nLayer; ++l)
        for (int h = 0; h < heads; ++h) {
            const double w = rep.firstTokenWeight[std::size_t(l)][std::size_t(h)];
            out << QString::number(l + 1).leftJustified(7) << QString::number(h + 1).leftJustified(6)
                << fixed(w, 3).leftJustified(8) << QStringLiteral("%1x").arg(fixed(uniform > 0 ? w / uniform : 0, 2)) << "\n";
        }
    return 0;
}

// `model fill`: the encoder (BERT) reads the text both ways and fills each
// [MASK] (core/model/bert.h); the chosen heads' weights beside it.
int fillCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseModelOptions(args, {QStringLiteral("--model"), QStringLiteral("--text"), QStringLiteral("--layer"),
                                         QStringLiteral("--head"), QStringLiteral("--top"), QStringLiteral("--format")});
    const QString format = formatOption(o);
    const QString text = modelText(o);
    int top = 5;
    if (const auto v = o.take(QStringLiteral("--top"))) {
        bool ok = false;
        top = v->toInt(&ok);
        if (!ok || top < 1 || top > 100)
            throw UsageError{QStringLiteral("--top: must be a whole number from 1 to 100 (got %1)").arg(*v)};
    }
    const QString which = o.take(QStringLiteral("--model")).value_or(QStringLiteral("encoder"));
    const EncoderOrProblem loaded = which == QLatin1String("encoder") ? loadBuiltinEncoder() : loadEncoder(which);
    if (const Problem *p = loaded.problem()) {
        err << "attention-lab-cli: " << problemText(*p) << "\n";
        return kBadInput;
    }
    const BertModel &m = *loaded.value();
    auto given = [&o](const char *name) {
        for (const auto &[key, value] : o.named)
            if (key == QLatin1String(name))
                return true;
        return false;
    };
    const bool layerGiven = given("--layer"), headGiven = given("--head");
    const QList<int> layers = pick(o, QStringLiteral("--layer"), m.config.nLayer);
    const QList<int> heads = pick(o, QStringLiteral("--head"), m.config.nHead);
    const auto traced = runEncoder(m, text, top);
    if (const Problem *p = traced.problem()) {
        err << "attention-lab-cli: " << problemText(*p) << "\n";
        return kBadInput;
    }
    const EncoderTrace &t = traced.value();
    const bool showHeads = layerGiven || headGiven;
    if (format == QLatin1String("json")) {
        QJsonArray tokens;
        for (std::size_t i = 0; i < t.ids.size(); ++i)
            tokens.append(QJsonObject{{QStringLiteral("id"), t.ids[i]}, {QStringLiteral("piece"), utf8(t.pieces[i])}});
        QJsonArray fills;
        for (const MaskFill &f : t.fills) {
            QJsonArray list;
            for (const Prediction &p : f.top)
                list.append(QJsonObject{{QStringLiteral("id"), p.id}, {QStringLiteral("token"), utf8(p.text)},
                                        {QStringLiteral("p"), p.p}});
            fills.append(QJsonObject{{QStringLiteral("position"), f.position + 1}, {QStringLiteral("top"), list}});
        }
        QJsonArray headList;
        if (showHeads)
            for (int l : layers)
                for (int h : heads) {
                    const Matrix &w = t.layers[std::size_t(l)].heads[std::size_t(h)].weights;
                    QJsonArray rows;
                    for (Eigen::Index i = 0; i < w.rows(); ++i) {
                        QJsonArray row;
                        for (Eigen::Index j = 0; j < w.cols(); ++j)
                            row.append(w(i, j));
                        rows.append(row);
                    }
                    headList.append(QJsonObject{{QStringLiteral("layer"), l + 1}, {QStringLiteral("head"), h + 1},
                                                {QStringLiteral("weights"), rows}});
                }
        QJsonObject doc{{QStringLiteral("model"), m.name}, {QStringLiteral("kind"), QStringLiteral("encoder")},
                        {QStringLiteral("tokens"), tokens}, {QStringLiteral("fills"), fills}};
        if (showHeads)
            doc.insert(QStringLiteral("heads"), headList);
        out << terminalJson(doc);
        return 0;
    }
    out << "model: " << safe(m.name) << " (an encoder: every token reads every other, no causal mask)\n";
    out << "tokens:";
    for (const std::string &piece : t.pieces)
        out << " " << shownToken(piece);
    out << "\n";
    if (!m.hasMaskedLm)
        out << "this model has no masked-word head (cls.predictions): nothing to fill\n";
    else if (t.fills.empty())
        out << "no [MASK] in the text: write [MASK] where the model should guess a word\n";
    for (const MaskFill &f : t.fills) {
        out << "[MASK] at position " << f.position + 1 << ":";
        for (const Prediction &p : f.top)
            out << "  " << shownToken(p.text) << " " << fixed(p.p, 4);
        out << "\n";
    }
    if (showHeads)
        for (int l : layers)
            for (int h : heads) {
                const Matrix &w = t.layers[std::size_t(l)].heads[std::size_t(h)].weights;
                out << "\nlayer " << l + 1 << ", head " << h + 1 << ": weights (rows: queries, columns: keys; each row sums to 1)\n";
                for (Eigen::Index i = 0; i < w.rows(); ++i) {
                    out << shownToken(t.pieces[std::size_t(i)]).leftJustified(8);
                    for (Eigen::Index j = 0; j < w.cols(); ++j)
                        out << " " << fixed(w(i, j), 3);
                    out << "\n";
                }
            }
    return 0;
}

// `model translate`: the encoder-decoder (BART) writes the translation token
// by token; the cross-attention as an alignment (target rows, source columns).
int translateCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseModelOptions(args, {QStringLiteral("--model"), QStringLiteral("--text"), QStringLiteral("--steps"),
                                         QStringLiteral("--temperature"), QStringLiteral("--top-k"), QStringLiteral("--top-p"),
                                         QStringLiteral("--seed"), QStringLiteral("--format")});
    const QString format = formatOption(o);
    const QString text = modelText(o);
    SamplingSettings greedy;
    greedy.steps = 30;
    greedy.temperature = 0;
    const SamplingSettings s = samplingOptions(o, greedy);
    const QString which = o.take(QStringLiteral("--model")).value_or(QStringLiteral("translator"));
    const Seq2SeqOrProblem loaded = which == QLatin1String("translator") ? loadBuiltinSeq2Seq() : loadSeq2Seq(which);
    if (const Problem *p = loaded.problem()) {
        err << "attention-lab-cli: " << problemText(*p) << "\n";
        return kBadInput;
    }
    const BartModel &m = *loaded.value();
    // Written token by token through the KV cache (greedy: translate()'s
    // ids); the maps are of the forward that read every token written.
    const auto generated = generateSeq2Seq(m, text, s);
    if (const Problem *p = generated.problem()) {
        err << "attention-lab-cli: " << problemText(*p) << "\n";
        return kBadInput;
    }
    const Seq2SeqGeneration &g = generated.value();
    Translation done;
    for (const GenerationStep &st : g.steps)
        done.ids.push_back(st.id);
    done.finished = g.finished;
    done.trace = g.trace;
    if (!g.steps.empty() && int(g.trace.targetIds.size()) < m.config.maxPositions) {
        auto last = extendSeq2Seq(m, g.trace, g.steps.back().id);
        if (const Problem *p = last.problem()) {
            err << "attention-lab-cli: " << problemText(*p) << "\n";
            return kBadInput;
        }
        done.trace = std::move(last.value());
    }
    const Translation &tr = done;
    const Seq2SeqTrace &t = tr.trace;
    QStringList source, target;
    for (int id : t.sourceIds)
        source << shownToken(m.tokenizer.bytes(id));
    for (int id : t.targetIds)
        target << shownToken(m.tokenizer.bytes(id));
    const int L = int(t.cross.size()) - 1;
    Matrix mean = Matrix::Zero(Eigen::Index(t.targetIds.size()), Eigen::Index(t.sourceIds.size()));
    for (const HeadActivations &h : t.cross[std::size_t(L)].heads)
        mean += h.weights;
    mean /= double(t.cross[std::size_t(L)].heads.size());
    const QString translation = utf8(seq2seqText(m, tr.ids));
    if (format == QLatin1String("json")) {
        auto list = [](const QStringList &l) { return QJsonArray::fromStringList(l); };
        auto matrix = [](const Matrix &w) {
            QJsonArray rows;
            for (Eigen::Index i = 0; i < w.rows(); ++i) {
                QJsonArray row;
                for (Eigen::Index j = 0; j < w.cols(); ++j)
                    row.append(w(i, j));
                rows.append(row);
            }
            return rows;
        };
        auto kind = [&](const std::vector<LayerActivations> &layers) {
            QJsonArray a;
            for (std::size_t l = 0; l < layers.size(); ++l)
                for (std::size_t h = 0; h < layers[l].heads.size(); ++h)
                    a.append(QJsonObject{{QStringLiteral("layer"), int(l) + 1}, {QStringLiteral("head"), int(h) + 1},
                                         {QStringLiteral("weights"), matrix(layers[l].heads[h].weights)}});
            return a;
        };
        QJsonArray ids;
        for (int id : tr.ids)
            ids.append(id);
        QJsonArray steps;
        for (const GenerationStep &st : g.steps)
            steps.append(QJsonObject{{QStringLiteral("id"), st.id},
                                     {QStringLiteral("text"), utf8(st.text)},
                                     {QStringLiteral("p"), st.p},
                                     {QStringLiteral("u"), st.u},
                                     {QStringLiteral("cached_positions"), st.reused},
                                     {QStringLiteral("cells_with_cache"), double(st.cachedCells)},
                                     {QStringLiteral("cells_without_cache"), double(st.uncachedCells)}});
        out << terminalJson(QJsonObject{{QStringLiteral("model"), m.name},
                                        {QStringLiteral("kind"), QStringLiteral("encoder-decoder")},
                                        {QStringLiteral("source"), list(source)},
                                        {QStringLiteral("decoder_input"), list(target)},
                                        {QStringLiteral("generated_ids"), ids},
                                        {QStringLiteral("steps"), steps},
                                        {QStringLiteral("translation"), translation},
                                        {QStringLiteral("finished"), tr.finished},
                                        {QStringLiteral("encoder_self"), kind(t.encoder)},
                                        {QStringLiteral("decoder_self"), kind(t.decoderSelf)},
                                        {QStringLiteral("cross"), kind(t.cross)},
                                        {QStringLiteral("alignment"), matrix(mean)}});
        return 0;
    }
    out << "model: " << safe(m.name) << " (an encoder-decoder: the encoder reads the source both ways, the decoder "
                                        "writes left to right and reads the source through cross-attention)\n";
    out << "source: " << source.join(QLatin1Char(' ')) << "\n";
    out << "translation: " << safe(translation) << (tr.finished ? "" : "  (cut: no </s> within the steps)") << "\n";
    std::int64_t with = 0, without = 0;
    out << "written " << sampling(s) << ", token by token through the KV cache:";
    for (const GenerationStep &st : g.steps) {
        out << " [" << shownToken(st.text) << "] " << fixed(st.p);
        with += st.cachedCells;
        without += st.uncachedCells;
    }
    out << "\nscore entries per head, all steps: " << with << " with the cache, " << without << " without\n";
    out << "\ncross-attention of decoder layer " << L + 1
        << ", the heads averaged (rows: each decoder input and the token it writes; columns: the source)\n";
    out << QStringLiteral("in→writes").leftJustified(16);
    for (const QString &s : source)
        out << s.left(7).rightJustified(8);
    out << "   most read\n";
    for (Eigen::Index i = 0; i < mean.rows(); ++i) {
        // Row i reads the source to write token i + 1: labelled by both.
        const QString produces = i + 1 < mean.rows() ? target[int(i + 1)].trimmed() : QStringLiteral("·");
        out << (target[int(i)].trimmed() + QStringLiteral("→") + produces).left(15).leftJustified(16);
        Eigen::Index best = 0;
        mean.row(i).maxCoeff(&best);
        for (Eigen::Index j = 0; j < mean.cols(); ++j)
            out << fixed(mean(i, j), 3).rightJustified(8);
        out << "   " << source[int(best)] << "\n";
    }
    return 0;
}

} // namespace

int modelCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const QString sub = args.value(0);
    try {
        if (sub == QLatin1String("info"))
            return info(args.mid(1), out, err);
        if (sub == QLatin1String("trace"))
            return trace(args.mid(1), out, err);
        if (sub == QLatin1String("export"))
            return exportModel(args.mid(1), out, err);
        if (sub == QLatin1String("generate"))
            return generateCommand(args.mid(1), out, err);
        if (sub == QLatin1String("scores"))
            return scoresCommand(args.mid(1), out, err);
        if (sub == QLatin1String("sinks"))
            return sinksCommand(args.mid(1), out, err);
        if (sub == QLatin1String("fill"))
            return fillCommand(args.mid(1), out, err);
        if (sub == QLatin1String("translate"))
            return translateCommand(args.mid(1), out, err);
        throw UsageError{sub.isEmpty() ? QStringLiteral("name what to do: info, trace, export, generate, scores, sinks, fill or translate")
                                            : QStringLiteral("unknown model command \"%1\"; expected info, trace, export, generate, scores, sinks, fill or translate").arg(sub)};
    } catch (const UsageError &e) {
        err << "attention-lab-cli: model" << (sub.isEmpty() ? QString() : QLatin1Char(' ') + safe(sub)) << ": " << safe(e.message)
            << "\n";
        return kBadInput;
    }
}

} // namespace attn
