#include "gradcmd.h"

#include "gradlens.h"

#include "attention.h"
#include "backward.h"
#include "cliargs.h"
#include "json_stream.h"
#include "matrixio.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace attn {

using namespace cmdline;

namespace {

constexpr int kBadInput = 2;

struct LossRequest {
    Loss loss;
    QString description; // for the text's first line
};

// --loss attend:J | target:T.npy; a UsageError for anything else, and one
// line on err (nullopt) for a target file that cannot be read.
std::optional<LossRequest> lossOption(Options &o, QTextStream &err)
{
    const std::optional<QString> text = o.take(QStringLiteral("--loss"));
    if (!text)
        throw UsageError{QStringLiteral("--loss is required: attend:J (key J, from 1) or target:T.npy")};
    if (text->startsWith(QLatin1String("attend:"))) {
        bool ok = false;
        const int key = text->mid(7).toInt(&ok);
        if (!ok || key < 1)
            throw UsageError{QStringLiteral("--loss attend:J: J is a key number from 1 (got \"%1\")").arg(text->mid(7))};
        return LossRequest{AttendLoss{key - 1}, QStringLiteral("attend to key %1").arg(key)};
    }
    if (text->startsWith(QLatin1String("target:")) && text->size() > 7) {
        const QString path = text->mid(7);
        Result<Matrix> m = loadMatrixFile(path);
        if (const Problem *p = m.problem()) {
            err << "attention-lab-cli: " << problemLine(QStringLiteral("--loss target"), *p) << "\n";
            return std::nullopt;
        }
        return LossRequest{TargetLoss{std::move(m.value())}, QStringLiteral("target %1").arg(path)};
    }
    throw UsageError{QStringLiteral("--loss: \"%1\" is neither attend:J nor target:T.npy").arg(*text)};
}

void writeJson(const Gradients &g, QTextStream &out)
{
    const JsonStream::Sink sink = [&out](const QByteArray &chunk) { return writeChunk(out, chunk); };
    JsonStream o(sink); // holds a reference: sink outlives it
    o.raw("{\n");
    // Keys in QJsonObject's order, as every JSON of the CLI.
    o.openObject(1, "grad");
    std::vector<const NamedGradient *> inputs;
    for (const NamedGradient &n : g.inputs)
        inputs.push_back(&n);
    std::sort(inputs.begin(), inputs.end(), [](const NamedGradient *a, const NamedGradient *b) {
        return std::string(matrixName(a->id)) < std::string(matrixName(b->id));
    });
    for (std::size_t i = 0; i < inputs.size() && o.ok(); ++i)
        o.matrix(2, matrixName(inputs[i]->id), inputs[i]->grad, i + 1 == inputs.size());
    o.closeObject(1, false);
    o.openArray(1, "heads");
    for (std::size_t h = 0; h < g.heads.size() && o.ok(); ++h) {
        o.openObject(2);
        o.members(3, {{"head", h + 1}}, false);
        o.matrix(3, "scores", g.heads[h].scores, false);
        o.matrix(3, "weights", g.heads[h].weights, true);
        o.closeObject(2, h + 1 == g.heads.size());
    }
    o.closeArray(1, false);
    o.members(1, {{"loss", g.loss}}, true);
    o.raw("}\n");
    o.finish();
}

QString numberText(double v)
{
    return fixed(v, 6);
}

void writeMatrix(QTextStream &out, const QString &title, const Matrix &m)
{
    out << title << " (" << m.rows() << " by " << m.cols() << "):\n";
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        out << " ";
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            out << " " << numberText(m(i, j)).rightJustified(11);
        out << "\n";
    }
}

// One cell of ∂L/∂scores worked as a teacher writes it: the largest in head 1.
void writeHandCalculation(const Scenario &s, const Trace &t, const Gradients &g, QTextStream &out)
{
    const Matrix &ds = g.heads.front().scores;
    if (ds.size() == 0)
        return;
    Eigen::Index row = 0, col = 0;
    ds.cwiseAbs().maxCoeff(&row, &col);
    const bool after = s.maskStage == MaskStage::AfterSoftmax;
    // After the softmax, a blocked cell is the one worth working: its
    // gradient comes through the denominator alone.
    bool blockedCell = false;
    if (after && t.blocked.any()) {
        const Eigen::ArrayXXd blockedOnly = t.blocked.select(ds.cwiseAbs().array(), 0.0);
        Eigen::Index r = 0, c = 0;
        if (blockedOnly.maxCoeff(&r, &c) > 0) {
            row = r;
            col = c;
            blockedCell = true;
        }
    }
    const QString w = after ? QStringLiteral("p") : QStringLiteral("w");
    out << "\nBy hand: head 1, row " << row + 1 << ", key " << col + 1
        << (blockedCell ? " (blocked: the largest such |∂L/∂score|), mask " : " (the largest |∂L/∂score|), mask ")
        << (after ? "after" : "before") << " the softmax.\n";
    if (after)
        out << "  p is the softmax over the whole row, blocked keys included; their weights are then set to 0.\n";
    if (s.softmax == SoftmaxKind::PlusOne)
        out << "  softmax_1: " << w << " = e^x / (1 + sum e^x); the Jacobian keeps the form " << w << "_k (δ_kj − " << w
            << "_j), since the 1 does not move.\n";
    // The terms as the window's gradient lens writes them (core/gradlens), with the command line's minus.
    const ScoreGradientTerms r = scoreGradientTerms(s, t, g, 0, int(row), int(col), 6, Minus::Ascii);
    out << "  Σ_k g_k " << w << "_k over the open keys = " << QString::fromStdString(r.sum) << "   (g = ∂L/∂w)\n";
    out << "  ∂L/∂s = " << w << "_j (" << (after ? "[j open] g_j" : "g_j") << " − Σ) ÷ (c·τ) = "
        << QString::fromStdString(r.cell) << "   (the table above: " << fixed(ds(row, col)) << ")\n";
    if (r.blockedAfter)
        out << "  The key is blocked, so [j open] g_j = 0: its score moves the row's other weights through the\n"
               "  denominator alone. Before the softmax it would pass no gradient at all.\n";
}

void writeText(const Scenario &s, const Trace &t, const Gradients &g, const LossRequest &r, const QString &origin,
               QTextStream &out)
{
    out << "Gradients for " << safe(origin) << ", loss: " << safe(r.description) << "\n";
    if (std::holds_alternative<AttendLoss>(r.loss))
        out << "L = −(1/(h·n_q)) Σ_heads Σ_i log w(i, J) over the rows where key J is open = " << numberText(g.loss) << "\n";
    else
        out << "L = ½ Σ (Y − T)², Y the " << (s.mode == InputMode::Projected && s.Wo ? "output concat·W_O" : "concatenated output")
            << " = " << numberText(g.loss) << "\n";
    out << "\n";
    for (const NamedGradient &n : g.inputs)
        writeMatrix(out, QStringLiteral("∂L/∂%1").arg(QString::fromLatin1(matrixName(n.id))), n.grad);
    out << "∂L/∂τ = " << numberText(g.temperature) << "\n";
    if (s.encoding == Encoding::Sinusoidal || s.encoding == Encoding::Learned)
        out << "(The positional table is fixed" << (s.encoding == Encoding::Learned ? " by its seed" : "")
            << ": it passes the gradient on and gets none.)\n";
    for (std::size_t h = 0; h < g.heads.size(); ++h) {
        out << "\nHead " << h + 1 << "\n";
        writeMatrix(out, QStringLiteral("∂L/∂weights"), g.heads[h].weights);
        writeMatrix(out, QStringLiteral("∂L/∂scores, the raw similarities before ÷ c·τ = %1").arg(fixed(t.divisor)),
                    g.heads[h].scores);
    }
    writeHandCalculation(s, t, g, out);
}

} // namespace

int gradCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Options o = parseOptions(args, QStringList{QStringLiteral("--preset"), QStringLiteral("--format"), QStringLiteral("--loss")}
                                       + settingOptionNames());
    const QString format = formatOption(o);
    Source src = loadSource(o);
    applySettingOptions(o, src);
    const std::optional<LossRequest> loss = lossOption(o, err);
    if (!loss)
        return kBadInput;
    auto fail = [&](const Problem &p) {
        err << "attention-lab-cli: " << problemLine(src.origin, p) << "\n";
        return kBadInput;
    };
    if (const Problem *p = std::get_if<Problem>(&src.loaded))
        return fail(*p);
    const Scenario &s = std::get<Scenario>(src.loaded);
    Result<Trace> t = tryCompute(s);
    if (const Problem *p = t.problem())
        return fail(*p);
    Result<Gradients> g = backward(s, t.value(), loss->loss);
    if (const Problem *p = g.problem())
        return fail(*p);
    if (format == QLatin1String("json"))
        writeJson(g.value(), out);
    else
        writeText(s, t.value(), g.value(), *loss, src.origin, out);
    return 0;
}

} // namespace attn
