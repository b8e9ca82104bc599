// A/B: the core comparison, the window's pin / change / unpin and
// its compare view (what it draws), the ready-made comparisons, and the
// command line's compare, export --compare and experiment scaling as processes.

#include "attn_test.h"
#include "compare.h"
#include "comparefigure.h"
#include "compareview.h"
#include "edit.h"
#include "experiment.h"
#include "lessons.h"
#include "mainwindow.h"

#include <QCheckBox>
#include <QDir>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace attn;

namespace {

Scenario lesson(const QString &name)
{
    const ScenarioOrProblem r = loadLesson(name);
    if (const auto *s = std::get_if<Scenario>(&r))
        return *s;
    qFatal("lesson %s does not load", qPrintable(name));
}

struct Run {
    int code = -1;
    QString out, err;
    QString describe() const { return QStringLiteral("exit %1\nstdout: %2\nstderr: %3").arg(code).arg(out.left(3000), err.left(2000)); }
};

Run cli(const QStringList &args)
{
    QProcess p;
    p.start(test::binaryDir() + QStringLiteral("/bin/attention-lab-cli"), args);
    Run r;
    if (!p.waitForStarted(10000) || !p.waitForFinished(120000))
        return r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QJsonObject json(const Run &r)
{
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

Scenario withEncoding(Scenario s, Encoding e)
{
    s.encoding = e;
    return s;
}

double distanceFromWhite(QRgb c)
{
    return std::abs(255 - qRed(c)) + std::abs(255 - qGreen(c)) + std::abs(255 - qBlue(c));
}

} // namespace

Q_DECLARE_METATYPE(attn::Encoding)

class TestCompare : public QObject {
    Q_OBJECT

private slots:
    // 我打你 against 你打我 aligned by token: without an encoding the same
    // numbers at every stage (< 1e-12); with each encoding not (> 1e-3).
    void alignedWordOrder_data()
    {
        QTest::addColumn<Encoding>("encoding");
        QTest::addColumn<bool>("same");
        QTest::newRow("none") << Encoding::None << true;
        QTest::newRow("sinusoidal") << Encoding::Sinusoidal << false;
        QTest::newRow("learned") << Encoding::Learned << false;
        QTest::newRow("rope") << Encoding::Rope << false;
    }

    void alignedWordOrder()
    {
        QFETCH(Encoding, encoding);
        QFETCH(bool, same);
        const Scenario a = withEncoding(lesson(QStringLiteral("permutation")), encoding);
        const Scenario b = withEncoding(lesson(QStringLiteral("permutation-swapped")), encoding);
        const auto order = tokenAlignment(a, b);
        QVERIFY(order);
        QCOMPARE(*order, (std::vector<int>{2, 1, 0})); // 我 is B's third token, 打 its second, 你 its first
        const Comparison c = compareScenarios(a, b, true);
        QVERIFY(c.aligned);
        QCOMPARE(int(c.stages.size()), 5 * a.heads + 2);
        for (const StageDifference &d : c.stages) {
            QVERIFY2(d.comparable, d.why.c_str());
            if (same)
                QVERIFY2(d.maxAbsDiff < 1e-12, qPrintable(QStringLiteral("%1: %2").arg(compareStageKey(d.stage)).arg(test::num(d.maxAbsDiff))));
        }
        const StageDifference *w = c.find(CompareStage::Weights, 0);
        QVERIFY(w);
        if (!same) {
            QVERIFY2(w->maxAbsDiff > 1e-3, qPrintable(test::num(w->maxAbsDiff)));
            QVERIFY(w->row >= 0 && w->col >= 0);
            // The reported cell holds the largest difference, recomputed here.
            const Trace ta = compute(a), tb = alignTrace(compute(b), *order);
            const Matrix diff = tb.heads[0].weights - ta.heads[0].weights;
            QCOMPARE(w->maxAbsDiff, diff.cwiseAbs().maxCoeff());
            QCOMPARE(std::abs(diff(w->row, w->col)), w->maxAbsDiff);
        }
        // Aligning the trace is the same as reordering B's tokens and computing again.
        const Trace permuted = compute(permuteTokens(b, *order));
        const Trace aligned = alignTrace(compute(b), *order);
        if (encoding == Encoding::None)
            ATTN_COMPARE_MATRIX(aligned.heads[0].weights, permuted.heads[0].weights, 1e-12);
        // Not aligned, the two orders differ cell by cell.
        QVERIFY(compareScenarios(a, b, false).maxAbsDiff() > 1e-3);
    }

    // Seed 000's example ÷√2 against ÷1: the weights by hand.
    void scalingDifferenceByHand()
    {
        const Scenario a = lesson(QStringLiteral("seed000-basic"));
        Scenario b = a;
        b.scale = Scale::None;
        const Comparison c = compareScenarios(a, b, false, CompareStage::Weights);
        QCOMPARE(int(c.stages.size()), 1);
        const StageDifference &d = c.stages[0];
        const double r2 = std::sqrt(2.0);
        const double za = std::exp(4 / r2) + 1 + std::exp(2 / r2), zb = std::exp(4.0) + 1 + std::exp(2.0);
        const double diffs[3] = {std::exp(4.0) / zb - std::exp(4 / r2) / za, 1 / zb - 1 / za, std::exp(2.0) / zb - std::exp(2 / r2) / za};
        int at = 0;
        for (int j = 1; j < 3; ++j)
            if (std::abs(diffs[j]) > std::abs(diffs[at]))
                at = j;
        ATTN_COMPARE_NEAR(d.maxAbsDiff, std::abs(diffs[at]), 1e-14);
        QCOMPARE(d.row, 0);
        QCOMPARE(d.col, at);
        ATTN_COMPARE_NEAR(d.difference(0, 0), diffs[0], 1e-14);
        ATTN_COMPARE_NEAR(d.difference(0, 1), diffs[1], 1e-14);
        // Scores do not depend on the scaling.
        QCOMPARE(compareScenarios(a, b, false, CompareStage::Scores).stages[0].maxAbsDiff, 0.0);
        // Different token counts cannot be compared cell by cell; they say so.
        const Comparison other = compareScenarios(a, lesson(QStringLiteral("causal")), false, CompareStage::Weights);
        QVERIFY(!other.stages[0].comparable && !other.stages[0].why.empty());
    }

    // Mask before against after: the masked stage has −∞ in A only.
    void maskStage()
    {
        const Comparison c = compareScenarios(lesson(QStringLiteral("causal")), lesson(QStringLiteral("compare-mask-stage")), false);
        const StageDifference *m = c.find(CompareStage::Masked, 0);
        QVERIFY(m && m->comparable);
        QCOMPARE(m->blockedInOne, 10); // 5 tokens: 4 + 3 + 2 + 1 blocked above the diagonal
        QCOMPARE(m->maxAbsDiff, 0.0);
        const StageDifference *w = c.find(CompareStage::Weights, 0);
        QVERIFY(w->maxAbsDiff > 0.1);
        QCOMPARE(c.find(CompareStage::Scaled, 0)->maxAbsDiff, 0.0);
    }

    // The built-in comparisons: each B loads, names its A, and differs from it.
    void readyMadeLessons_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("a");
        QTest::newRow("scaling none") << "compare-scaling-none" << "seed000-basic";
        QTest::newRow("scaling dk") << "compare-scaling-dk" << "seed000-basic";
        QTest::newRow("mask stage") << "compare-mask-stage" << "causal";
        QTest::newRow("encoding") << "compare-encoding" << "permutation";
        QTest::newRow("word order") << "compare-word-order" << "permutation";
    }

    void readyMadeLessons()
    {
        QFETCH(QString, name);
        QFETCH(QString, a);
        QVERIFY(lessonIndex().contains(name));
        const Scenario b = lesson(name);
        const QJsonObject extra = QJsonDocument::fromJson(QByteArray::fromStdString(b.extra)).object();
        QCOMPARE(extra.value(QLatin1String("compare")).toObject().value(QLatin1String("a")).toString(), a);
        const bool align = extra.value(QLatin1String("compare")).toObject().value(QLatin1String("align_by_token")).toBool();
        const Comparison c = compareScenarios(lesson(a), b, align);
        if (name == QLatin1String("compare-word-order"))
            QVERIFY(c.aligned && c.maxAbsDiff() < 1e-12);
        else
            QVERIFY2(c.find(CompareStage::Weights, 0)->maxAbsDiff > 1e-3, qPrintable(name));
    }

    // Pin, change, unpin: the document is the original again.
    void pinChangeUnpin()
    {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.openLesson(QStringLiteral("permutation")));
        const Scenario original = w.document()->scenario();
        w.pinAsA();
        CompareView *view = w.compareView();
        QVERIFY(view->isPinned());
        // Unchanged: B − A is zero everywhere.
        QCOMPARE(view->maps().difference.maxAbsDiff, 0.0);
        QCOMPARE(view->maps().stage, Stage::Weights);
        view->setSettingsToBoth(false); // A stays as pinned: B − A is the encoding's effect
        Scenario changed = original;
        changed.encoding = Encoding::Sinusoidal;
        QVERIFY(!w.document()->edit(changed, QStringLiteral("encoding")));
        const Comparison expected = compareScenarios(original, changed, false);
        QCOMPARE(view->maps().difference.maxAbsDiff, expected.find(CompareStage::Weights, 0)->maxAbsDiff);
        QVERIFY(view->maps().difference.maxAbsDiff > 1e-3);
        // Any stage can be chosen.
        view->setStage(Stage::Output);
        QCOMPARE(view->maps().difference.maxAbsDiff, expected.find(CompareStage::Output, 0)->maxAbsDiff);
        view->unpin();
        QVERIFY(!view->isPinned());
        QVERIFY(w.document()->scenario() == original);
        QCOMPARE(w.document()->scenario().encoding, Encoding::None);
        // Unpinning is one undo step: B comes back with Ctrl+Z.
        w.document()->undo();
        QCOMPARE(w.document()->scenario().encoding, Encoding::Sinusoidal);
    }

    // A built-in comparison opens A pinned and B live; 我打你/你打我 aligned says so.
    void wordOrderInTheWindow()
    {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.openLesson(QStringLiteral("compare-word-order")));
        CompareView *view = w.compareView();
        QVERIFY(view->isPinned());
        QVERIFY(view->alignBox()->isChecked() && view->alignBox()->isEnabled());
        const CompareMaps &m = view->maps();
        QVERIFY(m.aligned && m.sameNumbers);
        QVERIFY(m.overallMax < 1e-12);
        QVERIFY2(view->figure()->summaryLabel()->text().contains(
                     QLatin1String("the same numbers, reordered: attention alone cannot see word order")),
                 qPrintable(view->figure()->summaryLabel()->text()));
        QVERIFY(m.diff.values.cwiseAbs().maxCoeff() < 1e-12);
        QCOMPARE(m.b.rowLabels, (QStringList{QStringLiteral("我"), QStringLiteral("打"), QStringLiteral("你")}));
        // Turn on RoPE in B: no longer the same numbers, and the largest difference is named.
        Scenario b = w.document()->scenario();
        b.encoding = Encoding::Rope;
        QVERIFY(view->bothBox()->isChecked()); // pinned with B's settings: a setting goes to both
        QVERIFY(!w.document()->edit(b, QStringLiteral("rope")));
        // A got RoPE too: B − A is word order under RoPE, not word order and RoPE mixed.
        QCOMPARE(view->pinned()->encoding, Encoding::Rope);
        {
            const Comparison c = compareScenarios(*view->pinned(), w.document()->scenario(), true);
            QVERIFY(attn::test::close(view->maps().overallMax, c.maxAbsDiff(), 1e-12, 1e-12));
        }
        QVERIFY(!view->findChild<QLabel *>()->text().contains(QLatin1String("settings differ")));
        QVERIFY(!view->maps().sameNumbers);
        QVERIFY(view->maps().overallMax > 1e-3);
        QVERIFY2(view->maps().verdict.contains(QLatin1String("largest difference")), qPrintable(view->maps().verdict));
        // Unaligned, the checkbox off: the raw orders differ.
        view->setAlignByToken(false);
        QVERIFY(!view->maps().aligned);
        // The head follows the document's current head (one head here: 0).
        QCOMPARE(view->maps().head, 0);
    }

    // Settings to both off: a setting changed in B stays in B, and the
    // header says which side has what.
    void settingsChangedOnOneSide()
    {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.openLesson(QStringLiteral("compare-word-order")));
        CompareView *view = w.compareView();
        view->setSettingsToBoth(false);
        Scenario b = w.document()->scenario();
        b.encoding = Encoding::Sinusoidal;
        QVERIFY(!w.document()->edit(b, QStringLiteral("sinusoidal")));
        QCOMPARE(view->pinned()->encoding, Encoding::None);
        const QString header = view->findChild<QLabel *>()->text();
        QVERIFY2(header.contains(QStringLiteral("Their settings differ, so B − A shows that as well: A has the defaults; B has sinusoidal PE.")),
                 qPrintable(header));
        // Pinned with other settings on purpose (the encoding A/B): off, and said.
        QVERIFY(!w.openLesson(QStringLiteral("compare-encoding")));
        QVERIFY(!view->bothBox()->isChecked());
        QVERIFY(view->findChild<QLabel *>()->text().contains(QLatin1String("B has sinusoidal PE")));
        // On by hand: τ changed in B goes to A, the encoding each was pinned with stays.
        view->setSettingsToBoth(true);
        Scenario hot = w.document()->scenario();
        hot.temperature = 0.5;
        QVERIFY(!w.document()->edit(hot, QStringLiteral("tau")));
        QCOMPARE(view->pinned()->temperature, 0.5);
        QCOMPARE(view->pinned()->encoding, Encoding::None);
        QCOMPARE(w.document()->scenario().encoding, Encoding::Sinusoidal);
    }

    // The compare view as a screenshot: what the difference map draws.
    void screenshotDrawsTheDifference()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(!w.openLesson(QStringLiteral("permutation")));
        QWidget *target = w.showView(QStringLiteral("compare"));
        QVERIFY(target);
        CompareView *view = w.compareView();
        QVERIFY(view->isPinned()); // permutation's partner: 你打我, aligned
        QCOMPARE(w.document()->lessonName(), QStringLiteral("compare-word-order"));
        // B with sinusoidal encoding: differences to draw.
        Scenario b = w.document()->scenario();
        b.encoding = Encoding::Sinusoidal;
        QVERIFY(!w.document()->edit(b, QStringLiteral("sinusoidal")));
        target->resize(1600, 1000); // as `--show compare --size 1600x1000` does
        QVERIFY(QTest::qWaitForWindowExposed(target));
        QApplication::processEvents();
        const CompareMaps &m = view->maps();
        const Comparison expected = compareScenarios(*view->pinned(), b, true);
        const StageDifference *w8 = expected.find(CompareStage::Weights, 0);
        // The map's data are the core's B − A, cell by cell.
        ATTN_COMPARE_MATRIX(view->figure()->plotDiff()->data().values, w8->difference, 0.0);
        const QString text = view->figure()->summaryLabel()->text();
        const QStringList labels{QStringLiteral("我"), QStringLiteral("打"), QStringLiteral("你")};
        const QString maxText = QStringLiteral("max |B − A| = %1 at (%2, %3)")
                                    .arg(diffNumber(w8->maxAbsDiff), labels[w8->row], labels[w8->col]);
        QVERIFY2(text.contains(maxText.toHtmlEscaped()), qPrintable(text + QStringLiteral(" / ") + maxText));
        QCOMPARE(m.maxText, maxText);
        // Drawn: the cell of the largest difference is strongly coloured, the
        // smallest nearly white.
        HeatmapPlot *diff = view->figure()->plotDiff();
        const QImage image = target->grab().toImage();
        QVERIFY(!image.isNull() && image.width() >= 1000);
        const QPoint origin = diff->mapTo(target, QPoint(0, 0));
        const QPointF centre = diff->cellCenter(w8->row, w8->col) + origin;
        const double strong = distanceFromWhite(image.pixel(centre.toPoint()));
        int minRow = 0, minCol = 0;
        w8->difference.cwiseAbs().minCoeff(&minRow, &minCol);
        const QRectF weakCell = diff->cellRect(minRow, minCol).translated(origin);
        // A corner of the weakest cell (away from its text).
        const double weak = distanceFromWhite(image.pixel((weakCell.topLeft() + QPointF(3, 3)).toPoint()));
        QVERIFY2(strong > 150, qPrintable(QString::number(strong)));
        QVERIFY2(weak < strong / 2, qPrintable(QStringLiteral("%1 %2").arg(weak).arg(strong)));
        // A and B side by side: three plots, each at least 300 pixels wide at 1600 × 1000.
        QVERIFY(view->figure()->plotA()->width() >= 300 && diff->width() >= 300);
    }

    // attention-lab-cli compare, text and JSON.
    void cliCompare()
    {
        const QString dir = test::sourceDir() + QStringLiteral("/resources/lessons/");
        const Run j = cli({QStringLiteral("compare"), dir + QStringLiteral("permutation.json"),
                           dir + QStringLiteral("permutation-swapped.json"), QStringLiteral("--align-by-token"),
                           QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(j.code == 0, qPrintable(j.describe()));
        const QJsonObject o = json(j);
        QCOMPARE(o.value(QLatin1String("aligned")).toBool(), true);
        const QJsonArray stages = o.value(QLatin1String("stages")).toArray();
        QCOMPARE(stages.size(), 7);
        for (const QJsonValue &v : stages) {
            const QJsonObject s = v.toObject();
            QVERIFY2(s.value(QLatin1String("max_abs_diff")).toDouble(1) < 1e-12, qPrintable(j.out));
        }
        QCOMPARE(stages.at(3).toObject().value(QLatin1String("stage")).toString(), QStringLiteral("weights"));
        QCOMPARE(stages.at(3).toObject().value(QLatin1String("head")).toInt(), 1);

        // A preset for A and B, one stage: the numbers of the core, "at" 1-based.
        const Run e = cli({QStringLiteral("compare"), QStringLiteral("--preset"), QStringLiteral("permutation"),
                           QStringLiteral("--preset-b"), QStringLiteral("compare-encoding"), QStringLiteral("--stage"),
                           QStringLiteral("weights"), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(e.code == 0, qPrintable(e.describe()));
        const QJsonArray one = json(e).value(QLatin1String("stages")).toArray();
        QCOMPARE(one.size(), 1);
        const StageDifference expected = compareScenarios(lesson(QStringLiteral("permutation")),
                                                          lesson(QStringLiteral("compare-encoding")), false,
                                                          CompareStage::Weights).stages[0];
        QCOMPARE(one.at(0).toObject().value(QLatin1String("max_abs_diff")).toDouble(), expected.maxAbsDiff);
        const QJsonArray at = one.at(0).toObject().value(QLatin1String("at")).toArray();
        QCOMPARE(at.at(0).toInt(), expected.row + 1);
        QCOMPARE(at.at(1).toInt(), expected.col + 1);

        // Text: every stage, and the verdict.
        const Run t = cli({QStringLiteral("compare"), QStringLiteral("--preset"), QStringLiteral("permutation"),
                           QStringLiteral("--preset-b"), QStringLiteral("permutation-swapped"), QStringLiteral("--align-by-token")});
        QVERIFY2(t.code == 0, qPrintable(t.describe()));
        for (const char *stage : {"scores", "scaled", "masked", "weights", "output", "concat", "final_output"})
            QVERIFY2(t.out.contains(QLatin1String(stage)), qPrintable(t.out));
        QVERIFY2(t.out.contains(QLatin1String("The same numbers, reordered: attention alone cannot see word order.")), qPrintable(t.out));
        // Bad input: status 2.
        QCOMPARE(cli({QStringLiteral("compare"), QStringLiteral("--preset"), QStringLiteral("permutation")}).code, 2);
        QCOMPARE(cli({QStringLiteral("compare"), QStringLiteral("--preset"), QStringLiteral("permutation"),
                      QStringLiteral("--preset-b"), QStringLiteral("causal"), QStringLiteral("--stage"), QStringLiteral("nosuch")}).code, 2);
    }

    // Nothing comparable is said as such, never as a difference of 0; a head
    // one side lacks is named, never "0 by 0".
    void nothingComparable()
    {
        const Scenario a = lesson(QStringLiteral("multihead")), b = lesson(QStringLiteral("cross-attention"));
        QVERIFY(a.heads > b.heads);
        const Comparison c = compareScenarios(a, b, false);
        QVERIFY(!c.anyComparable());
        const StageDifference *missing = c.find(CompareStage::Weights, 1);
        QVERIFY(missing && !missing->comparable);
        QVERIFY2(QString::fromStdString(missing->why).startsWith(QStringLiteral("B has no head 2")),
                 missing->why.c_str());
        for (const StageDifference &d : c.stages)
            QVERIFY2(d.why.find("0 by 0") == std::string::npos, d.why.c_str());

        const Run j = cli({QStringLiteral("compare"), QStringLiteral("--preset"), QStringLiteral("multihead"),
                           QStringLiteral("--preset-b"), QStringLiteral("cross-attention"), QStringLiteral("--format"),
                           QStringLiteral("json")});
        QVERIFY2(j.code == 0, qPrintable(j.describe()));
        QVERIFY2(json(j).value(QLatin1String("max_abs_diff")).isNull(), qPrintable(j.out));
        QCOMPARE(json(j).value(QLatin1String("same_numbers_reordered")).toBool(true), false);
        const Run t = cli({QStringLiteral("compare"), QStringLiteral("--preset"), QStringLiteral("multihead"),
                           QStringLiteral("--preset-b"), QStringLiteral("cross-attention")});
        QVERIFY2(t.code == 0, qPrintable(t.describe()));
        QVERIFY2(t.out.contains(QLatin1String("Nothing to compare cell by cell")), qPrintable(t.out));
        QVERIFY2(!t.out.contains(QLatin1String("Largest difference")), qPrintable(t.out));
        QVERIFY2(t.out.contains(QLatin1String("B has no head 2")), qPrintable(t.out));
    }

    // attention-lab-cli export --compare: the A/B figure and the difference map.
    void cliExportCompare()
    {
        QTemporaryDir out;
        QVERIFY(out.isValid());
        const QString b = test::sourceDir() + QStringLiteral("/resources/lessons/compare-encoding.json");
        const Run r = cli({QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("permutation"),
                           QStringLiteral("--compare"), b, QStringLiteral("--stages"), QStringLiteral("weights,output"),
                           QStringLiteral("--format"), QStringLiteral("png,svg,pdf"), QStringLiteral("--out"), out.path(),
                           QStringLiteral("--size"), QStringLiteral("1500x600")});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        for (const char *stage : {"weights", "output"})
            for (const char *kind : {"compare", "diff"})
                for (const char *suffix : {"png", "svg", "pdf"}) {
                    const QString path = out.filePath(QStringLiteral("permutation_%1_%2.%3").arg(kind, stage, suffix));
                    QVERIFY2(QFileInfo(path).size() > 1000, qPrintable(path + QStringLiteral("\n") + r.out));
                }
        const QImage png(out.filePath(QStringLiteral("permutation_compare_weights.png")));
        QCOMPARE(png.size(), QSize(1500, 600));
        // The figure is drawn: far from a blank page.
        int coloured = 0;
        for (int y = 0; y < png.height(); y += 4)
            for (int x = 0; x < png.width(); x += 4)
                coloured += distanceFromWhite(png.pixel(x, y)) > 100;
        QVERIFY2(coloured > 2000, qPrintable(QString::number(coloured)));
        // --align-by-token without --compare is refused.
        QCOMPARE(cli({QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("permutation"),
                      QStringLiteral("--align-by-token"), QStringLiteral("--out"), out.path()}).code, 2);
    }

    // experiment scaling: the lab's numbers for several d_k, equal to the core's.
    void experimentJson()
    {
        const Run r = cli({QStringLiteral("experiment"), QStringLiteral("scaling"), QStringLiteral("--dk"),
                           QStringLiteral("1,16,256"), QStringLiteral("--trials"), QStringLiteral("3000"),
                           QStringLiteral("--seed"), QStringLiteral("5"), QStringLiteral("--keys"), QStringLiteral("6"),
                           QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const QJsonArray ex = json(r).value(QLatin1String("experiments")).toArray();
        QCOMPARE(ex.size(), 3);
        const int dks[] = {1, 16, 256};
        for (int i = 0; i < 3; ++i) {
            const QJsonObject e = ex.at(i).toObject();
            QCOMPARE(e.value(QLatin1String("dk")).toInt(), dks[i]);
            QCOMPARE(e.value(QLatin1String("trials")).toInt(), 3000);
            ScalingLabParams p;
            p.dk = dks[i];
            p.seed = 5;
            p.trials = 3000;
            p.keys = 6;
            const ScalingLab lab = runScalingLab(p).value();
            for (ScoreScaling sc : kAllScoreScalings) {
                const QString key = sc == ScoreScaling::Dk ? QStringLiteral("by_dk") : QString::fromLatin1(scalingKey(sc));
                const QJsonObject s = e.value(key).toObject();
                const ScalingSeries &series = lab.of(sc);
                QCOMPARE(s.value(QLatin1String("mean")).toDouble(), series.mean);
                QCOMPARE(s.value(QLatin1String("variance")).toDouble(), series.variance);
                QCOMPARE(s.value(QLatin1String("max_weight")).toDouble(), series.keys.meanMaxWeight);
                QCOMPARE(s.value(QLatin1String("entropy")).toDouble(), series.keys.meanEntropy);
                QCOMPARE(s.value(QLatin1String("saturated")).toDouble(), series.keys.saturatedFraction);
                const double sat = s.value(QLatin1String("saturated")).toDouble();
                QVERIFY(sat >= 0 && sat <= 1);
                QVERIFY(s.value(QLatin1String("entropy")).toDouble() <= std::log(6.0) + 1e-12);
                const QJsonObject h = e.value(QLatin1String("histogram")).toObject().value(key).toObject();
                int total = h.value(QLatin1String("below")).toInt() + h.value(QLatin1String("above")).toInt();
                for (const QJsonValue &c : h.value(QLatin1String("counts")).toArray())
                    total += c.toInt();
                QCOMPARE(total, 3000);
            }
            // The variances near the theory: d_k, 1, 1/d_k (3000 trials: within 15 %).
            const double raw = e.value(QLatin1String("raw")).toObject().value(QLatin1String("variance")).toDouble();
            ATTN_COMPARE_NEAR(raw / dks[i], 1.0, 0.15);
        }
        // Saturation rises with d_k for raw scores.
        auto saturated = [&](int i, const char *key) {
            return ex.at(i).toObject().value(QLatin1String(key)).toObject().value(QLatin1String("saturated")).toDouble();
        };
        QVERIFY(saturated(2, "raw") > saturated(0, "raw") + 0.3);
        QVERIFY(saturated(2, "sqrt_dk") < 0.1);
        // Text for several d_k: one block a d_k.
        const Run t = cli({QStringLiteral("experiment"), QStringLiteral("scaling"), QStringLiteral("--dk"),
                           QStringLiteral("1,4"), QStringLiteral("--trials"), QStringLiteral("500")});
        QVERIFY2(t.code == 0 && t.out.contains(QStringLiteral("q·k/d_k")), qPrintable(t.describe()));
    }

    // --python-draw: seed 000's own draw, the core's numbers (and Python's).
    void pythonDraw()
    {
        const Run r = cli({QStringLiteral("experiment"), QStringLiteral("scaling"), QStringLiteral("--python-draw"),
                           QStringLiteral("--seed"), QStringLiteral("7"), QStringLiteral("--dk"), QStringLiteral("64,16"),
                           QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const QJsonArray draws = json(r).value(QLatin1String("python_draw")).toArray();
        QCOMPARE(draws.size(), 2);
        const HandoutDraw d = handoutDraw(7, 64).value();
        const QJsonObject o = draws.at(0).toObject();
        QCOMPARE(o.value(QLatin1String("raw")).toDouble(), d.raw);
        QCOMPARE(o.value(QLatin1String("scaled")).toDouble(), d.scaled);
        QCOMPARE(o.value(QLatin1String("raw_max_weight")).toDouble(), d.rawMaxWeight);
        QCOMPARE(o.value(QLatin1String("scaled_entropy")).toDouble(), d.scaledEntropy);
        // Python 3.11's own numbers for random.seed(7), d_k 64.
        ATTN_COMPARE_NEAR(d.raw, -7.0193, 5e-5);
        ATTN_COMPARE_NEAR(d.scaled, -0.8774, 5e-5);
        QCOMPARE(draws.at(1).toObject().value(QLatin1String("raw")).toDouble(), handoutDraw(7, 16).value().raw);
        const Run t = cli({QStringLiteral("experiment"), QStringLiteral("scaling"), QStringLiteral("--python-draw")});
        QVERIFY2(t.code == 0 && t.out.contains(QLatin1String("-7.0193")) && t.out.contains(QLatin1String("-0.8774"))
                     && t.out.contains(QLatin1String("0.4998")),
                 qPrintable(t.describe()));
    }
};

QTEST_MAIN(TestCompare)
#include "test_compare.moc"
