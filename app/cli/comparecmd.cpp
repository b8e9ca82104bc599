#include "comparecmd.h"

#include "cliargs.h"
#include "compare.h"
#include "lessons.h"
#include "scenario_json.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <optional>

namespace attn {

using namespace cmdline;

namespace {

constexpr int kBadInput = 2;

// A and B for compare: FILE or --preset NAME for A, FILE or --preset-b NAME
// for B; or one comparison lesson alone, whose "compare" object names A.
struct ComparePair {
    Source a, b;
    bool align = false; // the lesson's "align_by_token"
};

// A built-in comparison lesson names its A side in "compare": {"a": NAME,
// "align_by_token": BOOL} (docs/scenario-format.md, Comparisons).
struct LessonComparison {
    QString a;
    bool align = false;
};

std::optional<LessonComparison> lessonComparison(const Scenario &s)
{
    if (s.extra.empty())
        return std::nullopt;
    const QJsonObject c = QJsonDocument::fromJson(QByteArray::fromStdString(s.extra))
                              .object()
                              .value(QLatin1String("compare"))
                              .toObject();
    const QString a = c.value(QLatin1String("a")).toString();
    if (a.isEmpty())
        return std::nullopt;
    return LessonComparison{a, c.value(QLatin1String("align_by_token")).toBool()};
}

Source loadOne(Options &o, const std::optional<QString> &presetA, const std::optional<QString> &presetB)
{
    if (presetA)
        return {QStringLiteral("--preset %1").arg(*presetA), loadLesson(*presetA)};
    if (presetB)
        return {QStringLiteral("--preset-b %1").arg(*presetB), loadLesson(*presetB)};
    const QString file = o.positional.takeFirst();
    return {file, loadScenarioFile(file)};
}

ComparePair loadComparePair(Options &o)
{
    const auto presetA = o.take(QStringLiteral("--preset"));
    const auto presetB = o.take(QStringLiteral("--preset-b"));
    const qsizetype files = o.positional.size();
    const qsizetype given = files + (presetA ? 1 : 0) + (presetB ? 1 : 0);
    const QString both = QStringLiteral("name two scenarios, A and B: two files, or --preset A and a file or --preset-b B; "
                                        "or one comparison lesson (compare-*), which names its own A");
    ComparePair p;
    if (given == 1) {
        // One comparison lesson: it is B, and its "compare" object names A.
        p.b = loadOne(o, presetA, presetB);
        const auto *b = std::get_if<Scenario>(&p.b.loaded);
        if (!b) {
            p.a = p.b; // its problem, said once
            return p;
        }
        const auto c = lessonComparison(*b);
        if (!c)
            throw UsageError{QStringLiteral("%1 is not a comparison lesson: it has no \"compare\" object naming A; %2")
                                 .arg(p.b.origin, both)};
        p.a = {QStringLiteral("--preset %1 (named by %2)").arg(c->a, p.b.origin), loadLesson(c->a)};
        p.align = c->align;
        return p;
    }
    if (given != 2)
        throw UsageError{both};
    if (presetA)
        p.a = {QStringLiteral("--preset %1").arg(*presetA), loadLesson(*presetA)};
    else {
        const QString file = o.positional.takeFirst();
        p.a = {file, loadScenarioFile(file)};
    }
    if (presetB)
        p.b = {QStringLiteral("--preset-b %1").arg(*presetB), loadLesson(*presetB)};
    else {
        const QString file = o.positional.takeFirst();
        p.b = {file, loadScenarioFile(file)};
    }
    return p;
}

QString compareLabel(const Scenario &s, const StageDifference &d, bool row)
{
    const int i = row ? d.row : d.col;
    if (i < 0)
        return {};
    if (!row && (d.stage == CompareStage::Output || !isPerHead(d.stage)))
        return QStringLiteral("d%1").arg(i + 1);
    const auto labels = row ? queryLabels(s) : keyLabels(s);
    return i < int(labels.size()) ? QString::fromStdString(labels[std::size_t(i)]) : QString();
}

} // namespace

int compareCommand(const QStringList &givenArgs, QTextStream &out, QTextStream &err)
{
    QStringList args = givenArgs;
    const bool givenAlign = takeFlag(args, QStringLiteral("--align-by-token"));
    Options o = parseOptions(args, {QStringLiteral("--preset"), QStringLiteral("--preset-b"), QStringLiteral("--stage"),
                                    QStringLiteral("--format")});
    const QString format = formatOption(o);
    std::optional<CompareStage> only;
    if (const auto stage = o.take(QStringLiteral("--stage"))) {
        only = compareStageFromKey(stage->trimmed().toLower().toStdString());
        if (!only)
            throw UsageError{QStringLiteral("--stage: unknown stage \"%1\"; expected scores, scaled, masked, weights, "
                                            "output, concat or final_output").arg(*stage)};
    }
    ComparePair pair = loadComparePair(o);
    const bool align = givenAlign || pair.align;
    for (const Source *src : {&pair.a, &pair.b})
        if (const auto *p = std::get_if<Problem>(&src->loaded)) {
            err << "attention-lab-cli: " << problemLine(src->origin, *p) << "\n";
            return kBadInput;
        }
    const Scenario &a = std::get<Scenario>(pair.a.loaded);
    const Scenario &b = std::get<Scenario>(pair.b.loaded);
    std::string why;
    const bool alignable = tokenAlignment(a, b, &why).has_value();
    const Comparison c = compareScenarios(a, b, align, only);
    const bool comparable = c.anyComparable();
    const bool same = comparable && c.aligned && c.maxAbsDiff() < kSameNumbers;

    if (format == QLatin1String("json")) {
        QJsonArray stages;
        for (const StageDifference &d : c.stages) {
            QJsonObject s{{QStringLiteral("stage"), QString::fromLatin1(compareStageKey(d.stage))},
                          {QStringLiteral("head"), d.head >= 0 ? QJsonValue(d.head + 1) : QJsonValue()}};
            if (!d.comparable) {
                s.insert(QStringLiteral("max_abs_diff"), QJsonValue());
                s.insert(QStringLiteral("at"), QJsonValue());
                s.insert(QStringLiteral("why"), QString::fromStdString(d.why));
            } else {
                s.insert(QStringLiteral("max_abs_diff"), d.maxAbsDiff);
                s.insert(QStringLiteral("at"), d.row >= 0 ? QJsonValue(QJsonArray{d.row + 1, d.col + 1}) : QJsonValue());
                if (d.row >= 0)
                    s.insert(QStringLiteral("at_labels"), QJsonArray{compareLabel(a, d, true), compareLabel(a, d, false)});
                if (d.blockedInOne > 0)
                    s.insert(QStringLiteral("blocked_in_one"), d.blockedInOne);
            }
            stages.append(s);
        }
        QJsonObject root{{QStringLiteral("a"), pair.a.origin},
                         {QStringLiteral("b"), pair.b.origin},
                         {QStringLiteral("aligned"), c.aligned},
                         {QStringLiteral("indices"), QStringLiteral("1-based")},
                         {QStringLiteral("encoding"), c.encodingUsed},
                         {QStringLiteral("max_abs_diff"), comparable ? QJsonValue(c.maxAbsDiff()) : QJsonValue()},
                         {QStringLiteral("same_numbers_reordered"), same},
                         {QStringLiteral("stages"), stages}};
        if (c.aligned) {
            QJsonArray order;
            for (int i : c.order)
                order.append(i + 1);
            root.insert(QStringLiteral("order"), order);
        } else if (align) {
            root.insert(QStringLiteral("why_not_aligned"), QString::fromStdString(why));
        }
        out << terminalJson(root);
        return 0;
    }

    out << "A: " << safe(pair.a.origin) << "  " << safe(QString::fromStdString(a.title)) << "\n";
    out << "B: " << safe(pair.b.origin) << "  " << safe(QString::fromStdString(b.title)) << "\n";
    if (c.aligned)
        out << "Aligned by token: B's rows and columns put in A's token order.\n";
    else if (align)
        out << "Not aligned: " << safe(QString::fromStdString(why)) << "\n";
    else if (alignable && c.order.empty() && queryLabels(a) != queryLabels(b))
        out << "A and B hold the same tokens in another order: --align-by-token compares them token by token.\n";
    out << "Rows and columns 1-based, in A's order.\n\n";
    out << QStringLiteral("%1 %2 %3  %4\n")
               .arg(QStringLiteral("stage"), -13)
               .arg(QStringLiteral("head"), 4)
               .arg(QStringLiteral("max |B - A|"), 14)
               .arg(QStringLiteral("at (row, col)"));
    for (const StageDifference &d : c.stages) {
        QString value, at;
        if (!d.comparable) {
            value = QStringLiteral("-");
            at = safe(QString::fromStdString(d.why));
        } else {
            value = d.maxAbsDiff == 0 ? QStringLiteral("0")
                : d.maxAbsDiff < 5e-5 ? QString::number(d.maxAbsDiff, 'e', 2)
                                      : fixed(d.maxAbsDiff, 6);
            if (d.row >= 0)
                at = QStringLiteral("(%1, %2)  %3 → %4")
                         .arg(d.row + 1)
                         .arg(d.col + 1)
                         .arg(safe(compareLabel(a, d, true)), safe(compareLabel(a, d, false)));
            if (d.blockedInOne > 0)
                at += QStringLiteral("  (%1 cells blocked in one only)").arg(d.blockedInOne);
        }
        out << QStringLiteral("%1 %2 %3  %4\n")
                   .arg(QString::fromLatin1(compareStageKey(d.stage)), -13)
                   .arg(d.head >= 0 ? QString::number(d.head + 1) : QStringLiteral("-"), 4)
                   .arg(value, 14)
                   .arg(at);
    }
    out << "\n";
    if (!comparable)
        out << "Nothing to compare cell by cell: no stage has the same shape in A and B.\n";
    else if (same)
        out << "The same numbers, reordered: attention alone cannot see word order.\n";
    else if (c.aligned)
        out << "Not only reordered: the largest difference is " << QString::number(c.maxAbsDiff(), 'g', 6)
            << (c.encodingUsed ? " (a positional encoding tells the positions apart).\n" : ".\n");
    else
        out << "Largest difference over every stage: " << QString::number(c.maxAbsDiff(), 'g', 6) << "\n";
    return 0;
}

} // namespace attn
