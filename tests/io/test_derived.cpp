// The scaled stage derived instead of stored
// (ComputeOptions::keepScaled = false, what the window's document uses)
// changes nothing anyone sees: the trace's JSON (streamed and as a tree)
// and CSV files are the same bytes, and every stage map (values, colour
// range, tooltips, and the cells updated after a row edit) the same, over
// every lesson and each again with the mask after the softmax, τ ≠ 1 and
// each scaling; random scenarios of every setting; and a multi-head
// scenario large enough for the forward's fused paths (d_k = 8 and 16).

#include "attention.h"
#include "attn_test.h"
#include "edit.h"
#include "lessons.h"
#include "random_scenario.h"
#include "stagedata.h"
#include "trace_csv.h"
#include "trace_json.h"
#include "validate.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;

namespace {

struct Case {
    QString name;
    Scenario s;
};

// A projected scenario of n tokens, d_model = 64 and h heads (d_k = 64 / h).
Scenario projected(int n, int h, std::uint64_t seed)
{
    test::TestRng rng(seed);
    Scenario s;
    s.mode = InputMode::Projected;
    s.heads = h;
    s.X = test::randomMatrix(rng, n, 64, 1.0);
    s.Wq = test::randomMatrix(rng, 64, 64, 0.3);
    s.Wk = test::randomMatrix(rng, 64, 64, 0.3);
    s.Wv = test::randomMatrix(rng, 64, 64, 0.3);
    s.Wo = test::randomMatrix(rng, 64, 8, 0.3);
    s.mask.causal = true;
    return s;
}

std::vector<Case> cases()
{
    std::vector<Case> out;
    auto add = [&out](const QString &name, const Scenario &s) {
        const std::optional<Problem> p = validate(s);
        QVERIFY2(!p, qPrintable(name + QStringLiteral(": ") + QString::fromStdString(p ? p->toString() : std::string())));
        out.push_back({name, s});
    };
    for (const QString &name : lessonIndex()) {
        const ScenarioOrProblem r = loadLesson(name);
        if (!std::holds_alternative<Scenario>(r)) {
            QTest::qFail(qPrintable(name + QStringLiteral(" does not load")), __FILE__, __LINE__);
            return {};
        }
        const Scenario base = std::get<Scenario>(r);
        add(name, base);
        Scenario v = base;
        v.maskStage = MaskStage::AfterSoftmax;
        v.mask.causal = v.mask.causal || queryCount(v) == keyCount(v); // something to mask
        add(name + QStringLiteral(" after softmax"), v);
        v = base;
        v.temperature = 0.7; // c τ not a power of two for any d_k
        add(name + QStringLiteral(" τ 0.7"), v);
        for (Scale scale : {Scale::None, Scale::SqrtDk, Scale::Dk}) {
            v = base;
            v.scale = scale;
            v.temperature = 1.3;
            add(name + QStringLiteral(" scale %1 τ 1.3").arg(QString::fromStdString(toString(scale))), v);
        }
    }
    test::RandomOptions o;
    o.labels = true;
    for (std::uint64_t seed = 1; seed <= 150; ++seed)
        add(QStringLiteral("random %1").arg(seed), test::randomScenario(seed, o));
    for (int h : {4, 8}) {
        Scenario s = projected(40, h, 90 + std::uint64_t(h));
        add(QStringLiteral("projected n 40 h %1").arg(h), s);
        s.maskStage = MaskStage::AfterSoftmax;
        s.temperature = 0.45;
        add(QStringLiteral("projected n 40 h %1 after softmax τ 0.45").arg(h), s);
    }
    return out;
}

QByteArray streamed(const Scenario &s, const Trace &t)
{
    QByteArray out;
    if (!writeTraceJson(s, t, [&out](const QByteArray &c) {
            out += c;
            return true;
        }))
        return QByteArrayLiteral("(the writer failed)");
    return out;
}

// Every file writeTraceCsv wrote, by name.
QMap<QString, QByteArray> csvFiles(const Scenario &s, const Trace &t, const QString &folder)
{
    QMap<QString, QByteArray> out;
    const Result<QStringList> r = writeTraceCsv(s, t, folder, QStringLiteral("t"));
    if (const auto *p = std::get_if<Problem>(&r)) {
        out.insert(QStringLiteral("(failed)"), QByteArray::fromStdString(p->toString()));
        return out;
    }
    for (const QString &path : std::get<QStringList>(r)) {
        QFile f(path);
        out.insert(QFileInfo(path).fileName(), f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(unreadable)"));
    }
    return out;
}

bool sameMatrix(const Matrix &a, const Matrix &b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && a == b;
}

bool sameMask(const BoolMatrix &a, const BoolMatrix &b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.size() == 0 || (a == b).all());
}

// The same picture: values to the bit, range, masks, title and notes.
QString stageDifference(const HeatmapData &a, const HeatmapData &b)
{
    if (!sameMatrix(a.values, b.values))
        return QStringLiteral("values");
    if (a.range != b.range)
        return QStringLiteral("range %1 against %2").arg(test::num(a.range), test::num(b.range));
    if (!sameMask(a.blocked, b.blocked) || !sameMask(a.outlined, b.outlined))
        return QStringLiteral("masks");
    if (a.title != b.title || a.colorBarLabel != b.colorBarLabel || a.rowNotes != b.rowNotes || a.rowFlagged != b.rowFlagged)
        return QStringLiteral("text");
    return {};
}

const Stage kStages[] = {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output};

} // namespace

class TestDerived : public QObject {
    Q_OBJECT

private slots:
    // The trace itself: the same numbers to the bit; only the stored matrix
    // is gone. (The softmax of a derived trace takes the same bits of
    // scores / (c τ), so the weights do not move by even an ulp.)
    void sameTrace()
    {
        for (const Case &c : cases()) {
            const Trace a = compute(c.s), b = compute(c.s, ComputeOptions{.keepScaled = false});
            QCOMPARE(b.heads.size(), a.heads.size());
            for (std::size_t h = 0; h < a.heads.size(); ++h) {
                const HeadTrace &x = a.heads[h], &y = b.heads[h];
                const QString at = c.name + QStringLiteral(" head %1").arg(h + 1);
                QVERIFY2(x.scaled.size() == x.scores.size() && y.scaled.size() == 0, qPrintable(at));
                QVERIFY2(sameMatrix(y.scaledMatrix(), x.scaled), qPrintable(at + QStringLiteral(": scaled")));
                QVERIFY2(sameMatrix(y.weights, x.weights), qPrintable(at + QStringLiteral(": weights")));
                QVERIFY2(sameMatrix(y.output, x.output), qPrintable(at + QStringLiteral(": output")));
                QCOMPARE(y.scaledMaxAbs(), x.scaled.cwiseAbs().maxCoeff());
                QCOMPARE(x.scaledMaxAbs(), x.scaled.cwiseAbs().maxCoeff());
                for (std::size_t r = 0; r < x.rows.size(); ++r) {
                    const RowStats &p = x.rows[r], &q = y.rows[r];
                    QVERIFY2(p.sum == q.sum && p.entropy == q.entropy && p.maxWeight == q.maxWeight && p.argmax == q.argmax
                                 && p.fullyMasked == q.fullyMasked,
                             qPrintable(at + QStringLiteral(": row %1").arg(r + 1)));
                }
            }
            QVERIFY2(sameMatrix(b.output, a.output), qPrintable(c.name));
        }
    }

    void sameJson()
    {
        for (const Case &c : cases()) {
            const Trace a = compute(c.s), b = compute(c.s, ComputeOptions{.keepScaled = false});
            const QByteArray sa = streamed(c.s, a), sb = streamed(c.s, b);
            QVERIFY2(sa.contains("\"scaled\""), qPrintable(c.name));
            QVERIFY2(sa == sb, qPrintable(c.name + QStringLiteral(": streamed JSON")));
            QVERIFY2(QJsonDocument(traceToJson(c.s, b)).toJson() == QJsonDocument(traceToJson(c.s, a)).toJson(),
                     qPrintable(c.name + QStringLiteral(": JSON tree")));
            QCOMPARE(traceJsonSize(c.s, b), qint64(sa.size()));
        }
    }

    // Every seventh case (each file is written and synced to disk, slow on
    // a loaded machine), which still takes every variant of the lessons,
    // and the large multi-head ones.
    void sameCsv()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        int index = 0;
        const std::vector<Case> all = cases();
        for (std::size_t k = 0; k < all.size(); ++k) {
            const Case &c = all[k];
            if (k % 7 != 0 && !c.name.startsWith(QLatin1String("projected")))
                continue;
            const Trace a = compute(c.s), b = compute(c.s, ComputeOptions{.keepScaled = false});
            const QString fa = dir.filePath(QStringLiteral("a%1").arg(index)), fb = dir.filePath(QStringLiteral("b%1").arg(index));
            ++index;
            QVERIFY(QDir().mkpath(fa) && QDir().mkpath(fb));
            const QMap<QString, QByteArray> ca = csvFiles(c.s, a, fa), cb = csvFiles(c.s, b, fb);
            QVERIFY2(!ca.contains(QStringLiteral("(failed)")), qPrintable(c.name));
            QCOMPARE(cb.keys(), ca.keys());
            const QString scaledName = c.s.heads > 1 ? QStringLiteral("t_scaled_head1.csv") : QStringLiteral("t_scaled.csv");
            QVERIFY2(ca.contains(scaledName) && ca.contains(QString(scaledName).replace(QLatin1String("scaled"), QLatin1String("masked"))),
                     qPrintable(c.name));
            for (auto it = ca.cbegin(); it != ca.cend(); ++it)
                QVERIFY2(cb.value(it.key()) == it.value(), qPrintable(c.name + QStringLiteral(": ") + it.key()));
        }
    }

    // Every stage map of every head, with the colour range shared and not,
    // and every cell's tooltip of the smaller scenarios.
    void sameStageData()
    {
        for (const Case &c : cases()) {
            const Trace a = compute(c.s), b = compute(c.s, ComputeOptions{.keepScaled = false});
            for (int head = 0; head < c.s.heads; ++head)
                for (bool shared : {true, false})
                    for (Stage stage : kStages) {
                        StageOptions o;
                        o.head = head;
                        o.sharedScoreRange = shared;
                        const QString why = stageDifference(stageData(c.s, b, stage, o), stageData(c.s, a, stage, o));
                        QVERIFY2(why.isEmpty(), qPrintable(c.name + QStringLiteral(" head %1 %2 shared %3: ")
                                                                         .arg(head + 1)
                                                                         .arg(stageKey(stage))
                                                                         .arg(shared)
                                                           + why));
                    }
            const HeadTrace &h = a.heads[0];
            if (h.scores.size() > 100)
                continue;
            for (Stage stage : {Stage::Scaled, Stage::Masked, Stage::Weights})
                for (int i = 0; i < h.scores.rows(); ++i)
                    for (int j = 0; j < h.scores.cols(); ++j)
                        QVERIFY2(cellToolTip(c.s, b, stage, 0, i, j) == cellToolTip(c.s, a, stage, 0, i, j),
                                 qPrintable(c.name + QStringLiteral(": tooltip %1 (%2, %3)").arg(stageKey(stage)).arg(i).arg(j)));
        }
    }

    // After a row edit (updateRow), the maps updated in place from a derived
    // trace are those of a stored one, and those of a fresh stageData.
    void sameUpdatedStageData()
    {
        int updated = 0;
        for (const Case &c : cases()) {
            for (MatrixId id : {MatrixId::Q, MatrixId::K, MatrixId::X}) {
                if (!matrixPresent(c.s, id))
                    continue;
                Scenario s = c.s;
                Matrix &m = matrix(s, id);
                const int row = int(m.rows()) - 1;
                m.row(row) = m.row(row).reverse() * -0.75;
                if (validate(s))
                    continue;
                Trace a = compute(c.s), b = compute(c.s, ComputeOptions{.keepScaled = false});
                StageOptions o;
                o.head = c.s.heads - 1;
                std::vector<HeatmapData> da, db;
                for (Stage stage : kStages) {
                    da.push_back(stageData(c.s, a, stage, o));
                    db.push_back(stageData(c.s, b, stage, o));
                }
                TraceDelta ta, tb;
                if (!updateRow(s, a, id, row, &ta))
                    continue;
                QVERIFY(updateRow(s, b, id, row, &tb));
                QCOMPARE(tb.scoreRow, ta.scoreRow);
                QCOMPARE(tb.scoreColumn, ta.scoreColumn);
                ++updated;
                for (std::size_t k = 0; k < std::size(kStages); ++k) {
                    const Stage stage = kStages[k];
                    updateStageData(da[k], a, stage, o, ta);
                    updateStageData(db[k], b, stage, o, tb);
                    const QString at = c.name + QStringLiteral(" %1 row %2, %3").arg(matrixName(id)).arg(row + 1).arg(stageKey(stage));
                    QString why = stageDifference(db[k], da[k]);
                    QVERIFY2(why.isEmpty(), qPrintable(at + QStringLiteral(": derived against stored: ") + why));
                    // updateRow equals compute to rounding, not to the bit
                    // (see attention.h): the fresh map is compared to the
                    // trace it was updated from.
                    why = stageDifference(db[k], stageData(s, b, stage, o));
                    QVERIFY2(why.isEmpty(), qPrintable(at + QStringLiteral(": updated against fresh: ") + why));
                }
            }
        }
        QVERIFY(updated > 100);
    }
};

QTEST_GUILESS_MAIN(TestDerived)
#include "test_derived.moc"
