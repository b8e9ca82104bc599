#include "cli.h"

#include "cliargs.h"
#include "atomicwrite.h"
#include "attention.h"
#include "filenames.h"
#include "compare.h"
#include "comparefigure.h"
#include "version.h"
#include "experiment.h"
#include "figureexport.h"
#include "trace_csv.h"
#include "lessons.h"
#include "comparecmd.h"
#include "gradcmd.h"
#include "modelcmd.h"
#include "quizcmd.h"
#include "traincmd.h"
#include "scenario_json.h"
#include "trace_json.h"
#include "trace_text.h"
#include "online_softmax.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <algorithm>
#include <cmath>
#include <optional>

namespace attn {

using namespace cmdline;

namespace {

constexpr int kBadInput = 2;
constexpr int kCannotWrite = 2; // a file or stdout could not be written: also one line, also 2
constexpr double kMaxExperimentDraws = 2e8; // q and k entries drawn by one experiment

const char *const kUsage = R"(Usage:
  attention-lab-cli trace FILE.json|--preset NAME [--format text|json] [MASK] [--softmax S] [--online-softmax B]
      The whole attention chain: scores, scaled, mask, weights, output.
      --online-softmax B: the weights again as FlashAttention computes them,
      keys in tiles of B with a running maximum m, sum l and output o (JSON:
      "online": [{"head", "rows": [{"tiles": [{"keys", "l", "m", "o"}]}]}]).
      MASK, over the scenario's own (trace and export): --mask PRESET[:W], the
      settings bar's presets (full, window, dilated, block, global-window; W
      the window's or the block's width), then --window W (key j open
      for query i when |i - j| < W), --dilation D (and i - j a multiple of D),
      --block B (i and j in the same block of B), --global I[,J...] (tokens,
      from 1, that see and are seen by all), --causal (and j <= i).
      --softmax standard|plus_one (trace, export and grad): the ordinary
      softmax, or softmax_1, w_i = e^x_i / (1 + sum_j e^x_j), whose rows may
      sum below 1 (the rest: attending to nothing).
  attention-lab-cli grad FILE.json|--preset NAME --loss attend:J|target:T.npy [--format text|json] [--softmax S]
      Exact gradients (double precision) of a loss through the whole chain.
      attend:J (key J, from 1): L = -(1/(h*n_q)) sum over heads and the rows
      where key J is open of log w(i, J). target:T.npy (or .csv): L = 1/2
      sum (Y - T)^2, Y the final output. JSON: {"loss", "grad": {the
      scenario's matrices by their file names}, "heads": [{"head", "scores",
      "weights"}]} (dL/d the raw scores and dL/d the weights); text adds one
      cell worked by hand. The positional tables are fixed: no gradient.
  attention-lab-cli presets
      The built-in lessons, one line each.
  attention-lab-cli softmax --scores S1,S2,... [--format text|json]
      Why the softmax subtracts the maximum: one row of scores through
      e^s / sum e^s as written and with each score shifted by the row's
      maximum first. A score past 709.78 overflows e^s in double: inf, and
      inf / inf is NaN; shifted, the weights are finite. JSON: {"scores",
      "max", "exponentials", "naive", "shifted", "weights", "naive_finite"},
      where a number that is not finite is the string "inf", "-inf" or "NaN".
  attention-lab-cli experiment scaling [--dk N[,N...]] [--seed S] [--trials T] [--keys N]
                    [--format text|json] [--python-draw] [--gradients]
      Why divide by sqrt(d_k): raw against scaled scores of random q, k.
      Several d_k (e.g. --dk 1,4,16,64,256,1024), --keys or --format json: the
      lab's numbers per d_k for raw q.k, q.k/sqrt(d_k) and q.k/d_k: mean,
      variance, and over a row of n = --keys random keys (default 8) the mean
      max weight, mean entropy (nats) and the saturated fraction (max weight
      > 0.99); "three_way" the same for softmax([s, 0, 0]); the histograms.
      JSON: {"experiments": [{"dk", "trials", "keys", "raw", "sqrt_dk", "by_dk",
      "histogram": {"raw", "sqrt_dk", "by_dk"}}]} ("dk" is d_k; "by_dk" is q.k/d_k).
      --python-draw: the single draw of seed 000's own Python code for --seed
      and each --dk (CPython's random.seed and random.gauss): raw, scaled,
      max weight and entropy of softmax([s, 0, 0]).
      --gradients: does the gradient vanish? For rows of --keys random keys,
      the mean norm of the softmax's Jacobian diag(w) - w w^T and of dw_1/dq
      (the first key's weight against the query), per d_k and scaling; and
      the same for seed 000's own draw. JSON: "gradients" and
      "python_draw_gradients" in each experiment, {"raw", "sqrt_dk",
      "by_dk"} of {"jacobian_norm", "query_gradient_norm"} (means) and the
      same with "_median".
  attention-lab-cli compare A.json|--preset A  B.json|--preset-b B
                    [--align-by-token] [--stage STAGE] [--format text|json]
      The largest |B - A| per stage and head: scores, scaled, masked,
      weights, output, concat, final_output. Heads, rows and columns are
      1-based (as --head and --query); "at" is [row, col] in A's order, null
      when every cell agrees. --align-by-token: B holds A's tokens in another
      order; its rows and columns are put in A's order first.
      One comparison lesson alone (compare --preset compare-word-order): it
      is B, and its "compare" object names A and whether to align by token.
  attention-lab-cli export FILE.json|--preset NAME --out DIR [--format png,svg,pdf]
                    [--size WxH] [--scale S] [--stages scores,scaled,masked,weights,output,plane,dashboard]
                    [--head H|all] [--values auto|always|never] [--gradient viridis|cividis|magma]
                    [--diverging blue-red|purple-orange] [--numbers csv,json]
                    [--query N] [--plane-axes I,J|pca]
                    [--figure-preset default|slide] [--theme default|contrast-light|contrast-dark]
                    [--compare B.json|--compare-preset B [--align-by-token]] [MASK]
      Figures for slides, one file per stage and format, without a display.
      --figure-preset slide: a 16:9 slide, 1600x900 at --scale 2 unless --size
      or --scale say otherwise, in type read from the back of a room (a map's
      numbers at least 3% of the figure's height). --theme contrast-light or
      contrast-dark: high contrast for projectors (text at least 7:1 on the
      background; on dark, scores in blue-black-orange); the colour maps
      stay colour-blind safe. (--preset NAME is the lesson, as for trace.)
      With --compare: for each map stage, the A/B figure (A | B | B - A,
      NAME_compare_STAGE.png) and the difference map (NAME_diff_STAGE.png).
  attention-lab-cli model info|trace|export [--model DIR|builtin] [--text "..."] [--layer L --head H]
      A GPT-2 model's every layer and head (docs/model.md); export: --out DIR or --scenario FILE.
  attention-lab-cli model sinks [--model DIR|builtin] [--text "..."|--generate N] [--seed S] [--window W]
                    [--sinks S] [--format text|json]
      StreamingLLM's comparison: the loss with full attention, a window of W
      keys, and S sinks + the window, on the model's own text (seed 2026) or
      --text; the paper's figure beside it; each head's weight on the first
      token against uniform causal rows.
  attention-lab-cli model scores [--model DIR|builtin] [--seed S] [--format text|json]
      Every head's previous-token, first-token, self and induction (prefix
      matching) scores, each beside its uniform baseline, over 8 random token
      sequences of 16 said twice (Olsson et al. 2022's probe), and its label.
  attention-lab-cli quiz [--lesson NAME] [--format text|json|pdf] [--language en|zh_CN] [--out FILE]
      The questions the quiz window asks (every built-in lesson's, each once,
      or one lesson's), in --language (default en). JSON: {"questions": [{"id",
      "question", "choices", "answer" (0-based), "explanation"}]}. pdf: the
      handout (the questions, then the answer key on a page of its own) into
      --out FILE; text and json go to stdout unless --out names a file.
  attention-lab-cli train --task induction|previous|copy|reverse|grammar --layers L --heads H --d-model D [--mlp]
        --steps N --seed S --scale sqrt|none|dk --out DIR [--log-every K] [--format text|json]
      Trains a small GPT-2 from random weights; prints the loss and every head's scores, saves the model folder.
      JSON lines: {"step", "loss", "heads": [{"layer", "head", "prefix_matching", "previous_token", "prefix_gap",
      "prefix_no_repeat"}]}: prefix matching on held-out repeated sequences, on repeats after a gap and on
      sequences with no repeat. Only heads of layer 2 on count as induction heads.
  attention-lab-cli --help | --version
)";

long long parseInteger(const QString &option, const QString &text, long long lo, long long hi)
{
    bool ok = false;
    const long long v = text.toLongLong(&ok);
    if (!ok) {
        // Digits too many for a long long are out of range, not "not a number".
        const QString digits = text.startsWith(QLatin1Char('-')) || text.startsWith(QLatin1Char('+')) ? text.mid(1) : text;
        const bool integer = !digits.isEmpty() && std::all_of(digits.begin(), digits.end(), [](QChar c) { return c >= u'0' && c <= u'9'; });
        if (integer)
            throw UsageError{QStringLiteral("%1: must be between %2 and %3 (got %4)").arg(option).arg(lo).arg(hi).arg(text)};
        throw UsageError{QStringLiteral("%1: \"%2\" is not a whole number from %3 to %4").arg(option, text).arg(lo).arg(hi)};
    }
    if (v < lo || v > hi)
        throw UsageError{QStringLiteral("%1: must be between %2 and %3 (got %4)").arg(option).arg(lo).arg(hi).arg(v)};
    return v;
}

// The trace of the source's scenario; on a problem (the file's, or one that
// validation finds), one line on err and nothing.
std::optional<Trace> traceOf(const Source &src, QTextStream &err)
{
    const Problem *bad = std::get_if<Problem>(&src.loaded);
    Result<Trace> traced = bad ? Result<Trace>(*bad) : tryCompute(std::get<Scenario>(src.loaded));
    if (const Problem *p = traced.problem()) {
        err << "attention-lab-cli: " << problemLine(src.origin, *p) << "\n";
        return std::nullopt;
    }
    return std::move(traced.value());
}

int trace(const QStringList &givenArgs, QTextStream &out, QTextStream &err)
{
    QStringList args = givenArgs;
    const bool causal = takeFlag(args, QStringLiteral("--causal"));
    Options o = parseOptions(args, QStringList{QStringLiteral("--preset"), QStringLiteral("--format"),
                                               QStringLiteral("--online-softmax")} + maskOptionNames() + settingOptionNames());
    const QString format = formatOption(o);
    const auto tileText = o.take(QStringLiteral("--online-softmax"));
    const int tile = tileText ? wholeNumberOption(QStringLiteral("--online-softmax"), *tileText, kMaxTokens) : 0;
    Source src = loadSource(o);
    applyMaskOptions(o, causal, src);
    applySettingOptions(o, src);
    const std::optional<Trace> traced = traceOf(src, err);
    if (!traced)
        return kBadInput;
    const Scenario &s = std::get<Scenario>(src.loaded);
    const Trace &t = *traced;
    std::vector<OnlineHead> online;
    if (tile) {
        if (const auto p = onlineTooLarge(t, tile)) {
            err << "attention-lab-cli: " << problemLine(QStringLiteral("--online-softmax"), *p) << "\n";
            return kBadInput;
        }
        online = std::move(onlineSoftmax(s, t, tile).value());
    }
    const auto sink = [&out](const QByteArray &chunk) { return writeChunk(out, chunk); };
    // Streamed: a large trace is written as it is formatted, never held
    // whole, and formatting stops once stdout has failed (runCli says why).
    if (format == QLatin1String("json")) {
        if (tile)
            writeTraceJson(s, t, online, sink);
        else
            writeTraceJson(s, t, sink);
        return 0;
    }
    if (writeTraceText(s, t, [&out](const std::string &chunk) { return writeChunk(out, QByteArray::fromStdString(chunk)); }) && tile)
        writeChunk(out, QByteArray::fromStdString(onlineText(s, online, tile)));
    return 0;
}

int presets(const QStringList &args, QTextStream &out)
{
    Options o = parseOptions(args, {});
    if (!o.positional.isEmpty())
        throw UsageError{QStringLiteral("presets takes no arguments")};
    const QList<LessonInfo> lessons = builtInLessons();
    qsizetype width = 0;
    for (const LessonInfo &l : lessons)
        width = std::max(width, l.name.size());
    for (const LessonInfo &l : lessons)
        out << safe(l.name.leftJustified(width + 2)) << safe(l.title) << "\n"
            << QString(width + 2, QLatin1Char(' ')) << safe(l.description) << "\n";
    return 0;
}


// Text for a number that may be inf or NaN; JSON has no such numbers, so
// they are strings there.
QJsonValue maybeFinite(double v)
{
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return v;
}

int softmaxCommand(const QStringList &args, QTextStream &out)
{
    constexpr int kMaxScores = 4096;
    Options o = parseOptions(args, {QStringLiteral("--scores"), QStringLiteral("--format")});
    const QString format = formatOption(o);
    if (!o.positional.isEmpty())
        throw UsageError{QStringLiteral("unexpected argument \"%1\"; give the row as --scores S1,S2,...").arg(o.positional.first())};
    const auto list = o.take(QStringLiteral("--scores"));
    if (!list)
        throw UsageError{QStringLiteral("--scores: give the row, e.g. --scores 800,799,795")};
    const QStringList parts = splitList(*list);
    if (parts.isEmpty())
        throw UsageError{QStringLiteral("--scores: no score given")};
    if (parts.size() > kMaxScores)
        throw UsageError{QStringLiteral("--scores: %1 scores, more than the limit of %2").arg(parts.size()).arg(kMaxScores)};
    Eigen::RowVectorXd scores(parts.size());
    for (int j = 0; j < parts.size(); ++j) {
        bool ok = false;
        const double v = parts[j].toDouble(&ok);
        if (!ok || !std::isfinite(v))
            throw UsageError{QStringLiteral("--scores: score %1 (\"%2\") is not a finite number").arg(j + 1).arg(parts[j])};
        scores(j) = v;
    }
    const OverflowRow r = overflowRow(scores);
    if (format == QLatin1String("json")) {
        const auto array = [](const Eigen::RowVectorXd &v) {
            QJsonArray a;
            for (Eigen::Index j = 0; j < v.size(); ++j)
                a.append(maybeFinite(v(j)));
            return a;
        };
        out << terminalJson(QJsonObject{{QStringLiteral("scores"), array(scores)},
                                        {QStringLiteral("max"), r.maximum},
                                        {QStringLiteral("exponentials"), array(r.exponentials)},
                                        {QStringLiteral("naive"), array(r.naive)},
                                        {QStringLiteral("shifted"), array(r.shifted)},
                                        {QStringLiteral("weights"), array(r.safe)},
                                        {QStringLiteral("naive_finite"), r.naive.allFinite()}});
        return 0;
    }
    out << "One row through the softmax, as written and shifted by its maximum " << fixed(r.maximum)
        << "\n(e^x overflows a double past x = 709.78)\n\n";
    const QStringList head = {QStringLiteral("key"), QStringLiteral("s"), QStringLiteral("e^s"),
                              QStringLiteral("e^s / sum"), QStringLiteral("s - max"), QStringLiteral("e^(s - max)"),
                              QStringLiteral("weight")};
    const auto row = [&out](const QStringList &cells) {
        out << "  " << cells[0].leftJustified(5);
        for (int c = 1; c < cells.size(); ++c)
            out << ' ' << cells[c].rightJustified(c == 3 || c == 5 ? 12 : 10); // a space even past the width
        out << "\n";
    };
    row(head);
    for (Eigen::Index j = 0; j < scores.size(); ++j)
        row({QString::number(j + 1), fixed(scores(j)), fixed(r.exponentials(j)),
             fixed(r.naive(j)), fixed(scores(j) - r.maximum), fixed(r.shifted(j)),
             fixed(r.safe(j))});
    row({QStringLiteral("sum"), QString(), fixed(r.exponentials.sum()), fixed(r.naive.sum()), QString(),
         fixed(r.shifted.sum()), fixed(r.safe.sum())});
    out << "\n"
        << (r.naive.allFinite()
                ? "Nothing overflows here: both ways give the same weights. A score past 709.78 would overflow e^s.\n"
                : "As written the row is lost: e^s overflows to inf, and inf / inf is NaN. Shifted by the maximum, "
                  "the largest exponential is e^0 = 1, nothing overflows, and the weights are the same as the "
                  "unshifted formula's wherever it is finite.\n");
    return 0;
}

QJsonObject softmaxJson(const SoftmaxSummary &s)
{
    return QJsonObject{{QStringLiteral("max_weight"), s.meanMaxWeight},
                       {QStringLiteral("entropy"), s.meanEntropy},
                       {QStringLiteral("saturated"), s.saturatedFraction}};
}

QJsonObject seriesJson(const ScalingSeries &s)
{
    QJsonObject o = softmaxJson(s.keys);
    o.insert(QStringLiteral("divisor"), s.divisor);
    o.insert(QStringLiteral("mean"), s.mean);
    o.insert(QStringLiteral("variance"), s.variance);
    o.insert(QStringLiteral("theory_variance"), s.theoryVariance);
    o.insert(QStringLiteral("three_way"), softmaxJson(s.threeWay));
    return o;
}

QJsonObject histogramJson(const ScoreHistogram &h)
{
    QJsonArray counts, theory;
    for (int c : h.counts)
        counts.append(c);
    for (double c : h.theoryCount)
        theory.append(c);
    return QJsonObject{{QStringLiteral("lo"), h.lo},         {QStringLiteral("hi"), h.hi},
                       {QStringLiteral("bin_width"), h.binWidth()}, {QStringLiteral("counts"), counts},
                       {QStringLiteral("below"), h.below},   {QStringLiteral("above"), h.above},
                       {QStringLiteral("theory_counts"), theory}};
}

QJsonObject handoutJson(const HandoutDraw &d)
{
    return QJsonObject{{QStringLiteral("seed"), QString::number(d.seed).toDouble()},
                       {QStringLiteral("dk"), d.dk},
                       {QStringLiteral("raw"), d.raw},
                       {QStringLiteral("scaled"), d.scaled},
                       {QStringLiteral("raw_max_weight"), d.rawMaxWeight},
                       {QStringLiteral("raw_entropy"), d.rawEntropy},
                       {QStringLiteral("scaled_max_weight"), d.scaledMaxWeight},
                       {QStringLiteral("scaled_entropy"), d.scaledEntropy}};
}

// {"raw": {"jacobian_norm", "query_gradient_norm"}, "sqrt_dk": ..., "by_dk": ...}
QJsonObject gradientsJson(const std::array<GradientSummary, 3> &series)
{
    QJsonObject o;
    for (ScoreScaling sc : kAllScoreScalings) {
        const GradientSummary &g = series[std::size_t(sc)];
        o.insert(sc == ScoreScaling::Dk ? QStringLiteral("by_dk") : QString::fromLatin1(scalingKey(sc)),
                 QJsonObject{{QStringLiteral("jacobian_norm"), g.jacobianNorm},
                             {QStringLiteral("query_gradient_norm"), g.queryGradientNorm},
                             {QStringLiteral("jacobian_norm_median"), g.medianJacobianNorm},
                             {QStringLiteral("query_gradient_norm_median"), g.medianQueryGradientNorm}});
    }
    return o;
}

// The gradient table's lines for one d_k (or the handout's draw).
void writeGradientLines(QTextStream &out, const QString &first, const std::array<GradientSummary, 3> &series,
                        bool medians)
{
    for (ScoreScaling sc : kAllScoreScalings) {
        const GradientSummary &g = series[std::size_t(sc)];
        const QString name = sc == ScoreScaling::Raw ? QStringLiteral("q·k")
            : sc == ScoreScaling::SqrtDk             ? QStringLiteral("q·k/√d_k")
                                                     : QStringLiteral("q·k/d_k");
        out << QStringLiteral("%1 %2 %3 %4")
                   .arg(sc == ScoreScaling::Raw ? first : QString(), 8)
                   .arg(name, -10)
                   .arg(QString::number(g.jacobianNorm, 'g', 4), 12)
                   .arg(QString::number(g.queryGradientNorm, 'g', 4), 12);
        if (medians)
            out << QStringLiteral(" %1 %2")
                       .arg(QString::number(g.medianJacobianNorm, 'g', 4), 14)
                       .arg(QString::number(g.medianQueryGradientNorm, 'g', 4), 14);
        out << "\n";
    }
}

// The value of a core call whose inputs the options have checked; a Problem
// it should have all the same is said as the option's.
template <typename T>
T checked(Result<T> r, const QString &option)
{
    if (const Problem *p = r.problem())
        throw UsageError{QStringLiteral("%1: %2").arg(option, QString::fromStdString(p->message))};
    return std::move(r.value());
}

int experiment(const QStringList &givenArgs, QTextStream &out)
{
    QStringList args = givenArgs;
    const bool pythonDraw = takeFlag(args, QStringLiteral("--python-draw"));
    const bool withGradients = takeFlag(args, QStringLiteral("--gradients"));
    Options o = parseOptions(args, {QStringLiteral("--dk"), QStringLiteral("--seed"), QStringLiteral("--trials"),
                                    QStringLiteral("--keys"), QStringLiteral("--format")});
    if (o.positional.size() != 1 || o.positional.first() != QLatin1String("scaling"))
        throw UsageError{QStringLiteral("the experiment there is: experiment scaling [--dk N[,N...]] [--seed S] [--trials T] "
                                        "[--keys N] [--format text|json] [--python-draw] [--gradients]")};
    const QString format = formatOption(o);
    const std::optional<QString> keysText = o.take(QStringLiteral("--keys"));
    QList<int> dks;
    const QString dkText = o.take(QStringLiteral("--dk")).value_or(QStringLiteral("64"));
    for (const QString &part : dkText.split(QLatin1Char(','))) {
        const int dk = int(parseInteger(QStringLiteral("--dk"), part.trimmed(), 1, kMaxExperimentDk));
        if (!dks.contains(dk))
            dks << dk;
    }
    const auto seed = std::uint64_t(parseInteger(QStringLiteral("--seed"),
                                                 o.take(QStringLiteral("--seed")).value_or(QStringLiteral("7")), 0,
                                                 std::numeric_limits<long long>::max()));
    const bool lab = dks.size() > 1 || keysText || format == QLatin1String("json") || withGradients;
    const int trials = int(parseInteger(QStringLiteral("--trials"),
                                        o.take(QStringLiteral("--trials")).value_or(lab ? QStringLiteral("20000")
                                                                                        : QStringLiteral("10000")),
                                        2, kMaxExperimentTrials));
    const int keys = keysText ? int(parseInteger(QStringLiteral("--keys"), *keysText, kMinLabKeys, kMaxLabKeys)) : 8;

    // --python-draw: seed 000's single draw, nothing else.
    if (pythonDraw) {
        QJsonArray draws;
        for (int dk : dks) {
            const HandoutDraw d = checked(handoutDraw(seed, dk), QStringLiteral("--dk %1").arg(dk));
            if (format == QLatin1String("json")) {
                QJsonObject j = handoutJson(d);
                if (withGradients)
                    j.insert(QStringLiteral("gradients"), gradientsJson(handoutGradients(d)));
                draws.append(j);
                continue;
            }
            out << "Seed 000's code: random.seed(" << seed << "), q and k of " << dk
                << " random.gauss(0, 1) each (CPython's generator)\n";
            out << QStringLiteral("%1 %2 %3 %4\n")
                       .arg(QString(), -16)
                       .arg(QStringLiteral("score"), 12)
                       .arg(QStringLiteral("max weight"), 12)
                       .arg(QStringLiteral("entropy"), 10);
            out << QStringLiteral("%1 %2 %3 %4\n")
                       .arg(QStringLiteral("raw q·k"), -16)
                       .arg(fixed(d.raw), 12)
                       .arg(fixed(d.rawMaxWeight), 12)
                       .arg(fixed(d.rawEntropy), 10);
            out << QStringLiteral("%1 %2 %3 %4\n")
                       .arg(QStringLiteral("scaled q·k/√d_k"), -16)
                       .arg(fixed(d.scaled), 12)
                       .arg(fixed(d.scaledMaxWeight), 12)
                       .arg(fixed(d.scaledEntropy), 10);
            if (seed == 7 && dk == 64)
                out << "The handout prints " << fixed(kHandoutPrintedRaw, 2) << " and " << fixed(kHandoutPrintedScaled, 2)
                    << ": numbers its own code does not produce (see docs/lessons.md).\n";
            out << "max weight and entropy (nats) of softmax([score, 0, 0]), entropy as the code writes it: -Σ p ln(p + 1e-12).\n";
            if (withGradients) {
                out << QStringLiteral("\n%1 %2 %3 %4\n").arg(QString(), 8).arg(QString(), -10)
                           .arg(QStringLiteral("‖∂w/∂x‖"), 12).arg(QStringLiteral("‖∂w_1/∂q‖"), 12);
                writeGradientLines(out, QString(), handoutGradients(d), false);
                out << "The softmax's Jacobian diag(w) − w wᵀ (Frobenius norm) and the gradient of the weight w_1 on the key\n"
                       "with respect to q, for softmax([q·k / c, 0, 0]).\n";
            }
        }
        if (format == QLatin1String("json"))
            out << QJsonDocument(QJsonObject{{QStringLiteral("python_draw"), draws}}).toJson(QJsonDocument::Indented);
        return 0;
    }

    if (!lab) {
        const int dk = dks.first();
        if (double(dk) * trials > kMaxExperimentDraws)
            throw UsageError{QStringLiteral("--dk × --trials = %1 is more than the limit of %2 (about a minute of work)")
                                 .arg(double(dk) * trials, 0, 'g', 6)
                                 .arg(kMaxExperimentDraws, 0, 'g', 6)};
        const ScalingExperiment e = checked(runScalingExperiment(dk, seed, trials), QStringLiteral("--dk %1").arg(dk));

        out << "Scaling experiment: q, k ~ N(0, I) in d_k = " << dk << " dimensions, " << trials
            << " trials, seed " << seed << "\n";
        out << "Theory: Var(q·k) = d_k = " << dk << "; Var(q·k / √d_k) = 1. Softmax of [score, 0, 0]: max entropy ln 3 = "
            << fixed(std::log(3.0)) << "\n\n";
        out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                   .arg(QString(), -16)
                   .arg(QStringLiteral("mean"), 10)
                   .arg(QStringLiteral("variance"), 12)
                   .arg(QStringLiteral("max weight"), 12)
                   .arg(QStringLiteral("entropy"), 10)
                   .arg(QStringLiteral("saturated"), 11);
        auto line = [&out](const QString &name, const ScoreSummary &s) {
            out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                       .arg(name, -16)
                       .arg(fixed(s.mean), 10)
                       .arg(fixed(s.variance), 12)
                       .arg(fixed(s.meanMaxWeight), 12)
                       .arg(fixed(s.meanEntropy), 10)
                       .arg(fixed(100 * s.saturatedFraction, 1) + QStringLiteral("%"), 11);
        };
        line(QStringLiteral("raw q·k"), e.raw);
        line(QStringLiteral("scaled q·k/√d_k"), e.scaled);
        out << "\nmax weight and entropy are means over the trials of softmax([score, 0, 0]);\n"
               "saturated: trials whose max weight exceeds 0.99 (softmax is nearly one-hot, its gradient nearly 0).\n";
        return 0;
    }

    // The lab's numbers for each d_k; every run checked before any starts.
    std::vector<ScalingLabParams> runs;
    for (int dk : dks) {
        ScalingLabParams p;
        p.dk = dk;
        p.seed = seed;
        p.trials = trials;
        p.keys = keys;
        if (const auto why = checkScalingLab(p))
            throw UsageError{QStringLiteral("--dk %1: %2").arg(dk).arg(QString::fromStdString(why->message))};
        if (withGradients && scalingGradientDraws(p) > kMaxScalingDraws)
            throw UsageError{QStringLiteral("--dk %1 --gradients: trials × (keys + 1) × d_k = %2 random numbers is more than the limit of %3; use fewer --trials")
                                 .arg(dk).arg(scalingGradientDraws(p), 0, 'g', 3).arg(kMaxScalingDraws, 0, 'g', 3)};
        runs.push_back(p);
    }
    QJsonArray experiments;
    if (format == QLatin1String("text")) {
        out << "Scaling lab: q, k ~ N(0, I), " << trials << " trials, seed " << seed << ", rows of " << keys
            << " random keys\n\n";
        out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8\n")
                   .arg(QStringLiteral("d_k"), 6)
                   .arg(QStringLiteral("score"), -10)
                   .arg(QStringLiteral("mean"), 10)
                   .arg(QStringLiteral("variance"), 12)
                   .arg(QStringLiteral("theory"), 12)
                   .arg(QStringLiteral("max weight"), 11)
                   .arg(QStringLiteral("entropy"), 9)
                   .arg(QStringLiteral("saturated"), 10);
    }
    for (const ScalingLabParams &p : runs) {
        const ScalingLab r = checked(runScalingLab(p), QStringLiteral("--dk %1").arg(p.dk));
        if (format == QLatin1String("json")) {
            QJsonObject e{{QStringLiteral("dk"), p.dk},
                          {QStringLiteral("trials"), p.trials},
                          {QStringLiteral("keys"), p.keys},
                          {QStringLiteral("seed"), QString::number(p.seed).toDouble()}};
            // "dk" is d_k itself, so the ÷d_k series is "by_dk".
            QJsonObject histograms;
            for (ScoreScaling sc : kAllScoreScalings) {
                const QString key = sc == ScoreScaling::Dk ? QStringLiteral("by_dk") : QString::fromLatin1(scalingKey(sc));
                e.insert(key, seriesJson(r.of(sc)));
                histograms.insert(key, histogramJson(r.of(sc).histogram));
            }
            e.insert(QStringLiteral("histogram"), histograms);
            if (withGradients) {
                const GradientPoint g = checked(scalingGradients(p), QStringLiteral("--dk %1").arg(p.dk));
                e.insert(QStringLiteral("gradients"), gradientsJson(g.series));
                if (const Result<HandoutDraw> d = handoutDraw(p.seed, p.dk); d.ok())
                    e.insert(QStringLiteral("python_draw_gradients"), gradientsJson(handoutGradients(d.value())));
            }
            experiments.append(e);
            continue;
        }
        for (ScoreScaling sc : kAllScoreScalings) {
            const ScalingSeries &s = r.of(sc);
            const QString name = sc == ScoreScaling::Raw ? QStringLiteral("q·k")
                : sc == ScoreScaling::SqrtDk             ? QStringLiteral("q·k/√d_k")
                                                         : QStringLiteral("q·k/d_k");
            out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8\n")
                       .arg(sc == ScoreScaling::Raw ? QString::number(p.dk) : QString(), 6)
                       .arg(name, -10)
                       .arg(fixed(s.mean), 10)
                       .arg(fixed(s.variance), 12)
                       .arg(QString::number(s.theoryVariance, 'g', 6), 12)
                       .arg(fixed(s.keys.meanMaxWeight), 11)
                       .arg(fixed(s.keys.meanEntropy), 9)
                       .arg(fixed(100 * s.keys.saturatedFraction, 1) + QStringLiteral("%"), 10);
        }
    }
    if (format == QLatin1String("text") && withGradients) {
        out << "\nThe gradient: rows of " << keys << " random keys, L = w_1 (the weight on the first key)\n";
        out << QStringLiteral("%1 %2 %3 %4 %5 %6\n").arg(QStringLiteral("d_k"), 8).arg(QStringLiteral("score"), -10)
                   .arg(QStringLiteral("‖∂w/∂x‖"), 12).arg(QStringLiteral("‖∂w_1/∂q‖"), 12)
                   .arg(QStringLiteral("median ‖∂w/∂x‖"), 14).arg(QStringLiteral("median ‖∂w_1/∂q‖"), 14);
        for (const ScalingLabParams &p : runs)
            writeGradientLines(out, QString::number(p.dk), checked(scalingGradients(p), QStringLiteral("--dk %1").arg(p.dk)).series, true);
        for (const ScalingLabParams &p : runs)
            if (const Result<HandoutDraw> d = handoutDraw(p.seed, p.dk); d.ok()) {
                out << "\nSeed 000's own draw (random.seed(" << p.seed << "), d_k = " << p.dk << "), softmax([q·k / c, 0, 0]):\n";
                writeGradientLines(out, QString(), handoutGradients(d.value()), false);
            }
        out << "‖∂w/∂x‖: the softmax's Jacobian diag(w) − w wᵀ (Frobenius norm), mean and median over the trials;\n"
               "‖∂w_1/∂q‖: how far a step on q moves the weight w_1. Near 0: the gradient has vanished. Where most\n"
               "rows saturate, the rare rows near a tie carry the mean; the median is the typical row.\n";
    }
    if (format == QLatin1String("json")) {
        out << QJsonDocument(QJsonObject{{QStringLiteral("experiments"), experiments}}).toJson(QJsonDocument::Indented);
    } else {
        out << "\nmax weight and entropy (nats): means over the trials of the softmax of a row of " << keys
            << " scores q·k_j;\nsaturated: rows whose max weight exceeds 0.99. JSON (--format json) adds softmax([s, 0, 0]) "
               "and the histograms.\n";
    }
    return 0;
}

// ---- export: figures and numbers, one function a purpose ----

// The largest PNG export draws: 8000 x 8000 pixels (256 MB in memory),
// whatever --size and --scale ask for together.
constexpr double kMaxFigurePixels = 8000.0 * 8000.0;

// What the export command line asks for, read and checked before any file
// is read (bad options are refused first, in the order given here).
struct ExportRequest {
    QString outDir;
    QList<FigureFormat> formats;
    FigureSize size;
    FigureStyle style;
    QStringList stageNames;
    QStringList numbers;
    QString headText;
    std::optional<QString> queryText, axesText;
    std::optional<QString> compareFile, comparePreset;
    bool alignCompare = false;
    bool comparing() const { return compareFile || comparePreset; }
};

FigureSize exportSize(Options &o, const QList<FigureFormat> &formats, FigurePreset preset)
{
    FigureSize size = presetSize(preset);
    if (const auto text = o.take(QStringLiteral("--size"))) {
        const QStringList wh = text->toLower().split(QLatin1Char('x'));
        bool okW = false, okH = false;
        const int w = wh.value(0).toInt(&okW), h = wh.value(1).toInt(&okH);
        if (wh.size() != 2 || !okW || !okH)
            throw UsageError{QStringLiteral("--size: \"%1\" is not WIDTHxHEIGHT, e.g. 1200x900").arg(*text)};
        if (w < 100 || h < 100 || w > 8000 || h > 8000)
            throw UsageError{QStringLiteral("--size: each side must be between 100 and 8000 pixels (got %1)").arg(*text)};
        size.width = w;
        size.height = h;
    }
    if (const auto text = o.take(QStringLiteral("--scale"))) {
        bool ok = false;
        size.scale = text->toDouble(&ok);
        if (!ok || !(size.scale >= 1 && size.scale <= 4))
            throw UsageError{QStringLiteral("--scale: must be a number from 1 to 4 (got %1)").arg(*text)};
    }
    // The image is drawn whole in memory: its pixels are the cost.
    const double w = std::round(size.width * size.scale), h = std::round(size.height * size.scale);
    if (formats.contains(FigureFormat::Png) && w * h > kMaxFigurePixels)
        throw UsageError{QStringLiteral("--size %1x%2 at --scale %3 is a PNG of %4x%5 = %6 pixels, more than the limit of "
                                        "%7 (8000x8000)")
                             .arg(size.width)
                             .arg(size.height)
                             .arg(size.scale)
                             .arg(w)
                             .arg(h)
                             .arg(w * h, 0, 'f', 0)
                             .arg(kMaxFigurePixels, 0, 'f', 0)};
    return size;
}

// --stages, checked against --compare (maps only) and the stages there are.
QStringList exportStages(Options &o, bool comparing)
{
    const QStringList stageNames = splitList(o.take(QStringLiteral("--stages"))
                                                 .value_or(comparing ? QStringLiteral("scores,scaled,masked,weights,output")
                                                                     : QStringLiteral("scores,scaled,masked,weights,output,plane")));
    if (comparing)
        for (const QString &name : stageNames)
            if (!stageFromKey(name))
                throw UsageError{QStringLiteral("--stages: with --compare, the stages are maps: scores, scaled, masked, "
                                                "weights or output (not \"%1\")").arg(name)};
    for (const QString &name : stageNames)
        if (name != QLatin1String("plane") && name != QLatin1String("dashboard") && !stageFromKey(name))
            throw UsageError{QStringLiteral("--stages: unknown stage \"%1\"; expected scores, scaled, masked, weights, "
                                            "output, plane or dashboard").arg(name)};
    return stageNames;
}

// --figure-preset, read before --size and --scale, whose defaults it sets.
FigurePreset exportPreset(Options &o)
{
    const auto text = o.take(QStringLiteral("--figure-preset"));
    if (!text)
        return FigurePreset::Default;
    const auto preset = figurePresetFromKey(*text);
    if (!preset)
        throw UsageError{QStringLiteral("--figure-preset: unknown preset \"%1\"; expected default or slide").arg(*text)};
    return *preset;
}

FigureStyle exportStyle(Options &o)
{
    FigureStyle style;
    if (const auto t = o.take(QStringLiteral("--theme"))) {
        const auto theme = figureThemeFromKey(*t);
        if (!theme)
            throw UsageError{QStringLiteral("--theme: unknown theme \"%1\"; expected default, contrast-light or "
                                            "contrast-dark").arg(*t)};
        style.theme = *theme;
    }
    const QString values = o.take(QStringLiteral("--values")).value_or(QStringLiteral("auto"));
    if (values == QLatin1String("auto"))
        style.cellText = CellTextMode::Auto;
    else if (values == QLatin1String("always"))
        style.cellText = CellTextMode::Always;
    else if (values == QLatin1String("never"))
        style.cellText = CellTextMode::Never;
    else
        throw UsageError{QStringLiteral("--values: unknown value \"%1\"; expected auto, always or never").arg(values)};
    if (const auto g = o.take(QStringLiteral("--gradient"))) {
        const auto v = sequentialGradientFromKey(*g);
        if (!v)
            throw UsageError{QStringLiteral("--gradient: unknown gradient \"%1\"; expected viridis, cividis or magma").arg(*g)};
        style.sequential = *v;
    }
    if (const auto g = o.take(QStringLiteral("--diverging"))) {
        const auto v = divergingGradientFromKey(*g);
        if (!v)
            throw UsageError{QStringLiteral("--diverging: unknown gradient \"%1\"; expected blue-red or purple-orange").arg(*g)};
        style.diverging = *v;
    }
    return style;
}

ExportRequest exportRequest(Options &o, bool alignCompare)
{
    ExportRequest r;
    r.alignCompare = alignCompare;
    const auto outDir = o.take(QStringLiteral("--out"));
    if (!outDir || outDir->isEmpty())
        throw UsageError{QStringLiteral("--out DIR is needed: the folder the figures go into")};
    r.outDir = *outDir;
    r.formats = figureFormats(o);
    const FigurePreset preset = exportPreset(o);
    r.size = exportSize(o, r.formats, preset);

    // --compare B: the A/B figures of the map stages instead of A's own.
    r.compareFile = o.take(QStringLiteral("--compare"));
    r.comparePreset = o.take(QStringLiteral("--compare-preset"));
    if (r.compareFile && r.comparePreset)
        throw UsageError{QStringLiteral("give --compare FILE or --compare-preset NAME, not both")};
    if (r.alignCompare && !r.comparing())
        throw UsageError{QStringLiteral("--align-by-token goes with --compare B.json")};
    r.stageNames = exportStages(o, r.comparing());
    r.style = exportStyle(o);
    r.style.preset = preset;

    r.numbers = splitList(o.take(QStringLiteral("--numbers")).value_or(QString()));
    for (const QString &n : r.numbers)
        if (n != QLatin1String("csv") && n != QLatin1String("json"))
            throw UsageError{QStringLiteral("--numbers: unknown kind \"%1\"; expected csv or json").arg(n)};
    r.headText = o.take(QStringLiteral("--head")).value_or(QStringLiteral("1"));
    r.queryText = o.take(QStringLiteral("--query"));
    r.axesText = o.take(QStringLiteral("--plane-axes"));
    const bool plane = r.stageNames.contains(QLatin1String("plane")) || r.stageNames.contains(QLatin1String("dashboard"));
    if ((r.queryText || r.axesText) && !plane)
        throw UsageError{QStringLiteral("%1 sets up the plane; add plane or dashboard to --stages")
                             .arg(r.queryText ? QStringLiteral("--query") : QStringLiteral("--plane-axes"))};
    if (r.stageNames.contains(QLatin1String("dashboard"))
        && (r.size.width < kMinDashboardWidth || r.size.height < kMinDashboardHeight))
        throw UsageError{QStringLiteral("--size: the dashboard needs at least %1x%2 pixels (got %3x%4)")
                             .arg(kMinDashboardWidth)
                             .arg(kMinDashboardHeight)
                             .arg(r.size.width)
                             .arg(r.size.height)};
    return r;
}

// The plane's query and axes, as the window's plane panel chooses them.
PlaneView exportPlaneView(const ExportRequest &r, const Scenario &s)
{
    PlaneView planeView;
    if (r.queryText) {
        bool ok = false;
        const int q = r.queryText->toInt(&ok);
        if (!ok || q < 1 || q > queryCount(s))
            throw UsageError{QStringLiteral("--query: must be a query from 1 to %1 (got %2)").arg(queryCount(s)).arg(*r.queryText)};
        planeView.query = q - 1;
    }
    if (r.axesText) {
        const QString &axesText = *r.axesText;
        const int d = s.mode == InputMode::Direct ? headDim(s) : modelWidth(s);
        const QStringList pair = axesText.split(QLatin1Char(','));
        bool okX = false, okY = false;
        const int x = pair.value(0).toInt(&okX), y = pair.value(1).toInt(&okY);
        if (axesText == QLatin1String("pca")) {
            if (d <= 2)
                throw UsageError{QStringLiteral("--plane-axes: pca needs more than two dimensions (the vectors have %1)").arg(d)};
            planeView.pca = true;
        } else if (pair.size() != 2 || !okX || !okY || x < 1 || y < 1 || x > d || y > d || x == y) {
            throw UsageError{QStringLiteral("--plane-axes: must be pca or two different dimensions from 1 to %1, "
                                            "e.g. 1,2 (got %2)").arg(d).arg(axesText)};
        } else {
            planeView.horizontal = x - 1;
            planeView.vertical = y - 1;
        }
    }
    return planeView;
}

// --head H or all, 0-based.
QList<int> exportHeads(const QString &headText, const Scenario &s)
{
    QList<int> heads;
    if (headText == QLatin1String("all")) {
        for (int h = 0; h < s.heads; ++h)
            heads << h;
        return heads;
    }
    bool ok = false;
    const int h = headText.toInt(&ok);
    if (!ok || h < 1 || h > s.heads)
        throw UsageError{QStringLiteral("--head: must be all or a head from 1 to %1 (got %2)").arg(s.heads).arg(headText)};
    heads << h - 1;
    return heads;
}

// Writes each file whole or not at all into the --out folder, and lists it
// on stdout; a failure is said once on stderr.
struct ExportWriter {
    QString outDir;
    QTextStream &out;
    QTextStream &err;

    bool write(const QString &name, const QByteArray &bytes) const
    {
        return write(name, [&bytes](const ChunkWriter &chunk) { return chunk(bytes); });
    }
    // The same for bytes made as they are written (a large JSON trace).
    bool write(const QString &name, const ChunkProducer &produce) const
    {
        const QString path = QDir(outDir).filePath(name);
        // Names the program made: a link at one is replaced, never followed.
        QString link;
        if (const auto p = writeFileAtomically(path, produce, {.replaceLink = true, .replacedLink = &link})) {
            err << "attention-lab-cli: " << safe(problemLine(p)) << "\n";
            return false;
        }
        if (!link.isEmpty())
            err << "attention-lab-cli: " << safe(replacedLinkNote(path, link)) << "\n";
        out << safe(QDir::toNativeSeparators(path)) << "\n";
        return true;
    }
};

// One stage's figure of one head: a map, the plane or the dashboard.
QByteArray stageFigure(const Scenario &s, const Trace &t, const QString &name, const FigureStyle &style,
                       const PlaneView &planeView, FigureFormat format, const FigureSize &size)
{
    if (name == QLatin1String("plane"))
        return renderPlaneFigure(s, planeView, style, format, size);
    if (name == QLatin1String("dashboard"))
        return renderDashboard(s, t, style, &planeView, format, size);
    return renderStageFigure(s, t, *stageFromKey(name), style, format, size);
}

bool writeStageFigures(const ExportRequest &r, const Scenario &s, const Trace &t, const QList<int> &heads,
                       PlaneView planeView, const QString &stem, const ExportWriter &w)
{
    FigureStyle style = r.style;
    for (int head : heads) {
        style.stage.head = head;
        planeView.head = head;
        for (const QString &name : r.stageNames)
            for (FigureFormat format : r.formats)
                if (!w.write(stem + QLatin1Char('_') + figureFileName(name, head, s.heads, format),
                             stageFigure(s, t, name, style, planeView, format, r.size)))
                    return false;
    }
    return true;
}

// With --compare: the A/B figure and the difference map of each map stage.
bool writeCompareFigures(const ExportRequest &r, const Scenario &a, const Trace &ta, const Scenario &b,
                         const QList<int> &heads, const QString &stem, const ExportWriter &w)
{
    // A head B does not have would be drawn as B's last one under A's name.
    for (int head : heads)
        if (head >= b.heads) {
            w.err << "attention-lab-cli: --head: B has " << b.heads << (b.heads == 1 ? " head" : " heads")
                  << ", so A's head " << head + 1 << " has nothing to be compared with; give --head 1"
                  << (b.heads > 1 ? QStringLiteral(" to %1").arg(b.heads) : QString()) << "\n";
            return false;
        }
    const Result<Trace> traced = tryCompute(b);
    if (const Problem *p = traced.problem()) {
        w.err << "attention-lab-cli: " << safe(problemLine(*p)) << "\n";
        return false;
    }
    const Trace &tb = traced.value();
    for (int head : heads)
        for (const QString &name : r.stageNames) {
            const CompareMaps maps = compareMaps(a, ta, b, tb, *stageFromKey(name), head, r.alignCompare);
            for (FigureFormat format : r.formats)
                if (!w.write(stem + QStringLiteral("_compare_") + figureFileName(name, head, a.heads, format),
                             renderCompareFigure(maps, r.style, format, r.size))
                    || !w.write(stem + QStringLiteral("_diff_") + figureFileName(name, head, a.heads, format),
                                renderDifferenceFigure(maps, r.style, format, r.size)))
                    return false;
        }
    return true;
}

// --numbers json and csv: the trace's numbers, a file at a time.
bool writeNumbers(const ExportRequest &r, const Scenario &s, const Trace &t, const QString &stem, const ExportWriter &w)
{
    // The bytes of the window's export, streamed into the file as they are
    // made: no tree and no whole text is held, whatever the trace's size.
    if (r.numbers.contains(QLatin1String("json"))) {
        const auto produce = [&s, &t](const ChunkWriter &write) { return writeTraceJson(s, t, write); };
        if (!w.write(stem + QStringLiteral("_trace.json"), produce))
            return false;
    }
    if (r.numbers.contains(QLatin1String("csv"))) {
        QStringList notes;
        const Result<QStringList> written = writeTraceCsv(s, t, r.outDir, stem, &notes);
        for (const QString &note : notes)
            w.err << "attention-lab-cli: " << safe(note) << "\n";
        if (const Problem *p = written.problem()) {
            w.err << "attention-lab-cli: " << safe(problemLine(*p)) << "\n";
            return false;
        }
        for (const QString &path : written.value())
            w.out << safe(QDir::toNativeSeparators(path)) << "\n";
    }
    return true;
}

int exportFigures(const QStringList &givenArgs, QTextStream &out, QTextStream &err)
{
    QStringList args = givenArgs;
    const bool alignCompare = takeFlag(args, QStringLiteral("--align-by-token"));
    const bool causal = takeFlag(args, QStringLiteral("--causal"));
    Options o = parseOptions(args, maskOptionNames() + settingOptionNames() + QStringList{QStringLiteral("--compare"), QStringLiteral("--compare-preset"),
                                    QStringLiteral("--preset"), QStringLiteral("--out"), QStringLiteral("--format"),
                                    QStringLiteral("--size"), QStringLiteral("--scale"), QStringLiteral("--stages"),
                                    QStringLiteral("--head"), QStringLiteral("--values"), QStringLiteral("--gradient"),
                                    QStringLiteral("--diverging"), QStringLiteral("--numbers"), QStringLiteral("--query"),
                                    QStringLiteral("--plane-axes"), QStringLiteral("--figure-preset"),
                                    QStringLiteral("--theme")});
    if (!qobject_cast<QApplication *>(QCoreApplication::instance()))
        throw UsageError{QStringLiteral("drawing figures needs a QApplication")};
    const ExportRequest r = exportRequest(o, alignCompare);

    Source src = loadSource(o);
    applyMaskOptions(o, causal, src);
    applySettingOptions(o, src);
    const bool preset = src.origin.startsWith(QLatin1String("--preset "));
    const std::optional<Trace> traced = traceOf(src, err);
    if (!traced)
        return kBadInput;
    const Scenario &s = std::get<Scenario>(src.loaded);
    const Trace &t = *traced;
    std::optional<Scenario> compareB;
    if (r.comparing()) {
        const Source b = r.compareFile ? Source{*r.compareFile, loadScenarioFile(*r.compareFile)}
                                       : Source{QStringLiteral("--compare-preset %1").arg(*r.comparePreset),
                                                loadLesson(*r.comparePreset)};
        if (const auto *p = std::get_if<Problem>(&b.loaded)) {
            err << "attention-lab-cli: " << problemLine(b.origin, *p) << "\n";
            return kBadInput;
        }
        compareB = std::get<Scenario>(b.loaded);
    }
    const PlaneView planeView = exportPlaneView(r, s);
    const QList<int> heads = exportHeads(r.headText, s);

    if (!QDir().mkpath(r.outDir)) {
        err << "attention-lab-cli: --out " << safe(r.outDir) << ": the folder cannot be created\n";
        return kBadInput;
    }
    const QString stem = cleanDerivedName(preset ? src.origin.section(QLatin1Char(' '), 1) : QFileInfo(src.origin).completeBaseName());
    const ExportWriter w{r.outDir, out, err};
    if (compareB)
        return writeCompareFigures(r, s, t, *compareB, heads, stem, w) ? 0 : kBadInput;
    if (!writeStageFigures(r, s, t, heads, planeView, stem, w) || !writeNumbers(r, s, t, stem, w))
        return kBadInput;
    return 0;
}

int runCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    if (args.isEmpty() || args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")
        || args.first() == QLatin1String("help")) {
        (args.isEmpty() ? err : out) << kUsage;
        return args.isEmpty() ? kBadInput : 0;
    }
    if (args.first() == QLatin1String("--version")) {
        out << "attention-lab-cli " << ATTN_VERSION << "\n";
        return 0;
    }
    const QString command = args.first();
    const QStringList rest = args.mid(1);
    if (rest.contains(QLatin1String("--help")) || rest.contains(QLatin1String("-h"))) {
        out << kUsage; // one page covers every command
        return 0;
    }
    try {
        if (command == QLatin1String("trace"))
            return trace(rest, out, err);
        if (command == QLatin1String("presets"))
            return presets(rest, out);
        if (command == QLatin1String("softmax"))
            return softmaxCommand(rest, out);
        if (command == QLatin1String("experiment"))
            return experiment(rest, out);
        if (command == QLatin1String("export"))
            return exportFigures(rest, out, err);
        if (command == QLatin1String("model"))
            return modelCommand(rest, out, err);
        if (command == QLatin1String("compare"))
            return compareCommand(rest, out, err);
        if (command == QLatin1String("quiz"))
            return quizCommand(rest, out, err);
        if (command == QLatin1String("grad"))
            return gradCommand(rest, out, err);
        if (command == QLatin1String("train"))
            return trainCommand(rest, out, err);
        throw UsageError{QStringLiteral("unknown command \"%1\"; the commands are trace, grad, softmax, presets, experiment, export, compare, model, quiz, train (see --help)")
                             .arg(command)};
    } catch (const UsageError &e) {
        err << "attention-lab-cli: " << safe(command) << ": " << safe(e.message) << "\n";
        return kBadInput;
    }
}

} // namespace

int runCli(const QStringList &args, QTextStream &out, QTextStream &err)
{
    int status = runCommand(args, out, err);
    // Output that did not arrive is a failure, said once: a full disk, a
    // closed stdout, a file size limit. The device says why (main.cpp's does).
    out.flush();
    if (out.status() != QTextStream::Ok) {
        if (status == 0) {
            const QString why = out.device() && !out.device()->errorString().isEmpty()
                ? out.device()->errorString()
                : QStringLiteral("the output could not be written");
            err << "attention-lab-cli: standard output: " << safe(why) << "\n";
        }
        status = status == 0 ? kCannotWrite : status;
    }
    err.flush();
    return status;
}

} // namespace attn
