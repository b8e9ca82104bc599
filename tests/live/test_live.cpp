// Live at n = 1024: updateRow() (core/attention.h) brings a trace
// up to date after one changed row, and must give what compute() gives, to
// 1e-12, for every matrix a row of which can change, every setting (masks at
// either stage, heads, encodings, similarities, scales, temperatures), and
// runs of edits (a drag). Then the same through the document and the views:
// after a row edit at n = 1024 every stage map holds what a fresh
// stageData() gives, and a view that is not shown does no work.

#include "attention.h"
#include "attn_test.h"
#include "document.h"
#include "edit.h"
#include "random_scenario.h"
#include "stagedata.h"
#include "stageviews.h"

#include <QObject>
#include <QTest>
#include <QVBoxLayout>

#include <cmath>

using namespace attn;
using attn::test::num;

namespace {

constexpr double kTol = 1e-12;

// The first difference between two traces beyond kTol (relative to the
// larger magnitude, and absolute near 0), in words; empty when they agree.
QString traceMismatch(const Trace &a, const Trace &b)
{
    auto cmp = [](const char *name, const Matrix &x, const Matrix &y) -> QString {
        if (auto m = attn::test::matrixMismatch(x, y, kTol, kTol))
            return QString::fromLatin1(name) + QStringLiteral(": ") + *m;
        return {};
    };
    QString why;
    auto check = [&](const QString &m) {
        if (why.isEmpty() && !m.isEmpty())
            why = m;
    };
    check(cmp("Q", a.Q, b.Q));
    check(cmp("K", a.K, b.K));
    check(cmp("V", a.V, b.V));
    check(cmp("encodedX", a.encodedX, b.encodedX));
    check(cmp("encodedSource", a.encodedSource, b.encodedSource));
    check(cmp("concat", a.concat, b.concat));
    check(cmp("output", a.output, b.output));
    if (a.heads.size() != b.heads.size())
        return QStringLiteral("head count");
    for (std::size_t i = 0; i < a.heads.size() && why.isEmpty(); ++i) {
        const HeadTrace &x = a.heads[i], &y = b.heads[i];
        const QString head = QStringLiteral(" (head %1)").arg(i + 1);
        for (auto [name, mx, my] : {std::tuple{"head Q", &x.Q, &y.Q}, {"head K", &x.K, &y.K}, {"head V", &x.V, &y.V},
                                    {"scores", &x.scores, &y.scores}, {"weights", &x.weights, &y.weights},
                                    {"head output", &x.output, &y.output}}) {
            const QString m = cmp(name, *mx, *my);
            check(m.isEmpty() ? m : m + head);
        }
        // The document's trace may not store the scaled stage: compare it as it is read.
        if (why.isEmpty()) {
            const QString m = cmp("scaled", x.scaledMatrix(), y.scaledMatrix());
            check(m.isEmpty() ? m : m + head);
        }
        for (std::size_t r = 0; r < x.rows.size() && why.isEmpty(); ++r) {
            const RowStats &p = x.rows[r], &q = y.rows[r];
            if (p.fullyMasked != q.fullyMasked || !attn::test::close(p.sum, q.sum, kTol, kTol)
                || !attn::test::close(p.entropy, q.entropy, kTol, kTol)
                || !attn::test::close(p.maxWeight, q.maxWeight, kTol, kTol))
                why = QStringLiteral("row %1 statistics%2: sum %3/%4, entropy %5/%6, max %7/%8")
                          .arg(r)
                          .arg(head, num(p.sum), num(q.sum), num(p.entropy), num(q.entropy), num(p.maxWeight),
                               num(q.maxWeight));
            // The argmax may differ only between weights equal to rounding.
            else if (p.argmax != q.argmax
                     && (p.argmax < 0 || q.argmax < 0
                         || !attn::test::close(y.weights(Eigen::Index(r), p.argmax), q.maxWeight, kTol, kTol)))
                why = QStringLiteral("row %1 argmax%2: %3, expected %4").arg(r).arg(head).arg(p.argmax).arg(q.argmax);
        }
    }
    return why;
}

bool sameMask(const BoolMatrix &a, const BoolMatrix &b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && (a == b).all();
}

// The matrices of `s` a row of which an edit can change.
std::vector<MatrixId> editable(const Scenario &s)
{
    std::vector<MatrixId> out;
    for (MatrixId id : matrixIds(s))
        out.push_back(id);
    return out;
}

// Projected self-attention, X ~ N(0, 1) as the benchmarks (uniform here).
Scenario large(int n, int dModel, int heads, std::uint64_t seed)
{
    attn::test::TestRng rng(seed);
    Scenario s;
    s.mode = InputMode::Projected;
    s.heads = heads;
    const double sd = 1.0 / std::sqrt(double(dModel));
    s.X = attn::test::randomMatrix(rng, n, dModel, 1.7);
    s.Wq = attn::test::randomMatrix(rng, dModel, dModel, 1.7 * sd);
    s.Wk = attn::test::randomMatrix(rng, dModel, dModel, 1.7 * sd);
    s.Wv = attn::test::randomMatrix(rng, dModel, dModel, 1.7 * sd);
    return s;
}

} // namespace

class TestLive : public QObject {
    Q_OBJECT

private slots:
    // One row of any matrix, on many random scenarios with every setting.
    void incrementalEqualsFull()
    {
        int updated = 0, refused = 0;
        for (std::uint64_t seed = 1; seed <= 3000; ++seed) {
            attn::test::RandomOptions o;
            o.magnitude = seed % 3 == 0 ? 3.0 : 1.0;
            const Scenario before = attn::test::randomScenario(seed, o);
            attn::test::TestRng rng(seed * 77 + 5);
            const auto ids = editable(before);
            const MatrixId id = rng.pick(ids);
            Scenario after = before;
            Matrix &m = matrix(after, id);
            const int row = rng.integer(0, int(m.rows()) - 1);
            for (Eigen::Index c = 0; c < m.cols(); ++c)
                m(row, c) = rng.uniform(-2, 2);
            if (validate(after))
                continue; // a RoPE or cosine row that became invalid: the document refuses it before
            // Half with scaled stored, half without (ComputeOptions::keepScaled).
            const ComputeOptions opts{.keepScaled = seed % 2 == 0};
            Trace t = compute(before, opts);
            TraceDelta d;
            const bool ok = updateRow(after, t, id, row, &d);
            const bool reachesAll = id == MatrixId::Wq || id == MatrixId::Wk || id == MatrixId::Wv;
            QVERIFY2(ok != reachesAll, qPrintable(QStringLiteral("seed %1, %2: updateRow answered %3")
                                                      .arg(seed).arg(matrixName(id)).arg(ok)));
            if (!ok) {
                ++refused;
                continue;
            }
            ++updated;
            QCOMPARE(t.heads[0].scaled.size() == 0, !opts.keepScaled);
            const Trace full = compute(after, opts);
            const QString why = traceMismatch(t, full);
            QVERIFY2(why.isEmpty(), qPrintable(QStringLiteral("seed %1, row %2 of %3: %4")
                                                   .arg(seed).arg(row).arg(matrixName(id), why)));
            // A row is projected in the whole product's order: Q, K and V to the bit.
            QVERIFY2(attn::test::sameBits(t.Q, full.Q) && attn::test::sameBits(t.K, full.K)
                         && attn::test::sameBits(t.V, full.V),
                     qPrintable(QStringLiteral("seed %1, row %2 of %3: Q, K or V not to the bit")
                                    .arg(seed).arg(row).arg(matrixName(id))));
        }
        QVERIFY(updated > 1500);
        QVERIFY(refused > 100);
    }

    // A drag: forty moves of one row in a row, each applied to the trace the
    // previous one left; the last must still equal a full forward.
    void runOfEditsStaysExact()
    {
        for (std::uint64_t seed = 1; seed <= 200; ++seed) {
            Scenario s = attn::test::randomScenario(seed + 10000);
            attn::test::TestRng rng(seed);
            std::vector<MatrixId> ids;
            for (MatrixId id : matrixIds(s))
                if (id != MatrixId::Wq && id != MatrixId::Wk && id != MatrixId::Wv)
                    ids.push_back(id);
            const MatrixId id = rng.pick(ids);
            const int row = rng.integer(0, int(matrix(s, id).rows()) - 1);
            const ComputeOptions opts{.keepScaled = seed % 2 == 1};
            Trace t = compute(s, opts);
            for (int move = 0; move < 40; ++move) {
                Scenario next = s;
                matrix(next, id).row(row).array() += rng.uniform(-0.3, 0.3);
                if (validate(next))
                    continue;
                s = next;
                QVERIFY(updateRow(s, t, id, row));
            }
            const QString why = traceMismatch(t, compute(s, opts));
            QVERIFY2(why.isEmpty(), qPrintable(QStringLiteral("seed %1, %2 row %3: %4").arg(seed).arg(matrixName(id)).arg(row).arg(why)));
        }
    }

    // What the delta names is what changed, and nothing else did.
    void deltaNamesWhatChanged()
    {
        Scenario s = large(48, 8, 2, 7);
        s.mask.causal = true;
        const Trace before = compute(s);
        // X of self-attention at row 20: query row 20, key column 20; under
        // the causal mask only rows 20.. see key 20.
        Scenario after = s;
        after.X.row(20).array() += 0.5;
        Trace t = before;
        TraceDelta d;
        QVERIFY(updateRow(after, t, MatrixId::X, 20, &d));
        QCOMPARE(d.scoreRow, 20);
        QCOMPARE(d.scoreColumn, 20);
        QCOMPARE(d.weightFirst, 20);
        QCOMPARE(d.weightCount, 48 - 20);
        QCOMPARE(d.outputFirst, 20);
        QCOMPARE(d.outputCount, 48 - 20);
        for (std::size_t h = 0; h < t.heads.size(); ++h) {
            QCOMPARE(t.heads[h].weights.topRows(20), before.heads[h].weights.topRows(20));
            QCOMPARE(t.heads[h].output.topRows(20), before.heads[h].output.topRows(20));
            // Rows other than 20 keep their scores but for column 20.
            for (int r = 0; r < 48; ++r)
                for (int c = 0; c < 48; ++c)
                    if (r != 20 && c != 20)
                        QCOMPARE(t.heads[h].scores(r, c), before.heads[h].scores(r, c));
        }
        QVERIFY(traceMismatch(t, compute(after)).isEmpty());

        // Direct mode, a query row: that row of every stage.
        Scenario direct = toDirect(s);
        direct.mask.causal = false;
        Trace td = compute(direct);
        Scenario moved = direct;
        moved.Q.row(5).array() -= 0.25;
        QVERIFY(updateRow(moved, td, MatrixId::Q, 5, &d));
        QCOMPARE(d.scoreRow, 5);
        QCOMPARE(d.scoreColumn, -1);
        QCOMPARE(d.weightFirst, 5);
        QCOMPARE(d.weightCount, 1);
        QCOMPARE(d.outputCount, 1);
        // A value row: weights unchanged, every output row that weighs it.
        moved.V.row(3).array() += 1.0;
        QVERIFY(updateRow(moved, td, MatrixId::V, 3, &d));
        QCOMPARE(d.scoreRow, -1);
        QCOMPARE(d.scoreColumn, -1);
        QCOMPARE(d.weightCount, 0);
        QCOMPARE(d.outputCount, 48);
        QVERIFY(traceMismatch(td, compute(moved)).isEmpty());

        // A weight matrix reaches everything: refused, trace untouched.
        Scenario w = s;
        w.Wq(0, 0) += 1;
        Trace tw = before;
        QVERIFY(!updateRow(w, tw, MatrixId::Wq, 0));
        QCOMPARE(tw.heads[0].scores, before.heads[0].scores);
        // A trace of another shape: refused.
        Trace small = compute(large(8, 8, 2, 1));
        QVERIFY(!updateRow(after, small, MatrixId::X, 3));
    }

    // The window's path at n = 1024, h = 8: a typed cell and a drag's move
    // through the document; every stage map then shows a fresh stageData's
    // numbers, masks, notes, flags and colour range.
    void documentRowEditAtLarge()
    {
        QWidget window;
        auto *layout = new QVBoxLayout(&window);
        Document doc;
        std::vector<StageView *> views;
        for (Stage st : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output}) {
            views.push_back(new StageView(&doc, st, &window));
            layout->addWidget(views.back());
        }
        auto *heads = new AllHeadsView(&doc, &window);
        heads->hide(); // a tab in the background
        layout->addWidget(heads);
        window.resize(1200, 1600);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        Scenario s = large(1024, 64, 8, 11);
        s.mask.causal = true;
        QVERIFY(!doc.replace(s, QString()));
        const Matrix headsBefore = heads->plots().empty() ? Matrix() : heads->plots()[0]->data().values;

        auto checkViews = [&](const char *what) {
            for (StageView *v : views) {
                StageOptions o;
                o.head = doc.currentHead();
                const HeatmapData fresh = stageData(doc.scenario(), doc.trace(), v->stage(), o);
                const HeatmapData &shown = v->data();
                const QString place = QStringLiteral("%1, %2").arg(QLatin1String(what), stageKey(v->stage()));
                QVERIFY2(shown.values == fresh.values, qPrintable(place + QStringLiteral(": values")));
                QVERIFY2(sameMask(shown.blocked, fresh.blocked), qPrintable(place + QStringLiteral(": blocked")));
                QVERIFY2(sameMask(shown.outlined, fresh.outlined), qPrintable(place + QStringLiteral(": outlined")));
                QVERIFY2(shown.rowNotes == fresh.rowNotes, qPrintable(place + QStringLiteral(": notes")));
                QVERIFY2(shown.rowFlagged == fresh.rowFlagged, qPrintable(place + QStringLiteral(": flags")));
                QVERIFY2(shown.title == fresh.title, qPrintable(place + QStringLiteral(": title")));
                HeatmapPlot check;
                check.setData(fresh);
                QVERIFY2(v->dataRange() == check.dataRange(), qPrintable(place + QStringLiteral(": colour range")));
                // The colour map's cells hold the values (hidden cells aside).
                QCPColorMapData *cells = v->colorMap()->data();
                for (int r : {0, 511, 1023})
                    for (int c = 0; c < int(fresh.values.cols()); c += 97)
                        if (std::isfinite(fresh.values(r, c)) && !(fresh.blocked.size() && fresh.blocked(r, c)))
                            QVERIFY2(cells->cell(c, r) == fresh.values(r, c), qPrintable(place + QStringLiteral(": map cell")));
            }
        };
        checkViews("opened");

        // A typed cell of X, row 600.
        Eigen::RowVectorXd row = doc.scenario().X.row(600);
        row(3) += 2.5;
        QVERIFY(!doc.setRow(MatrixId::X, 600, row, QStringLiteral("edit")));
        checkViews("cell edit");
        QVERIFY(traceMismatch(doc.trace(), compute(doc.scenario())).isEmpty());

        // A drag of row 5 (a gesture), with the head switched in between.
        doc.beginGesture();
        for (int move = 0; move < 6; ++move) {
            Eigen::RowVectorXd r = doc.scenario().X.row(5);
            r.array() += 0.1 * (move + 1);
            QVERIFY(!doc.setRow(MatrixId::X, 5, r, QString()));
            if (move == 3)
                doc.setCurrentHead(2);
        }
        doc.endGesture();
        checkViews("drag");
        // Undo: the row swaps back through the same path.
        doc.undo();
        checkViews("undo");
        QVERIFY(traceMismatch(doc.trace(), compute(doc.scenario())).isEmpty());

        // Settings that keep the scores (DocumentChange::scoresKept): the
        // causal mask off and on, the temperature, the scale, the mask stage.
        // The maps show what a fresh stageData gives; the score map keeps
        // its matrix, never copied again.
        const double *scoreCells = views[0]->data().values.data();
        const auto change = [&](const char *what, auto edit) {
            Settings st = settingsOf(doc.scenario());
            edit(st);
            QVERIFY(!doc.setSettings(st, QStringLiteral("bench"), Document::Step::Own));
            checkViews(what);
            QVERIFY2(traceMismatch(doc.trace(), compute(doc.scenario())).isEmpty(), what);
            QCOMPARE(views[0]->data().values.data(), scoreCells);
        };
        change("causal off", [](Settings &st) { st.mask.causal = false; });
        change("causal on", [](Settings &st) { st.mask.causal = true; });
        change("temperature", [](Settings &st) { st.temperature = 0.5; });
        change("scale", [](Settings &st) { st.scale = Scale::None; });
        change("after softmax", [](Settings &st) { st.maskStage = MaskStage::AfterSoftmax; });
        change("softmax one", [](Settings &st) { st.softmax = SoftmaxKind::PlusOne; });
        doc.undo();
        checkViews("undo of a setting");

        // The hidden tab did nothing; shown, it catches up.
        if (!heads->plots().empty())
            QCOMPARE(heads->plots()[0]->data().values, headsBefore);
        heads->show();
        QCOMPARE(heads->plots()[0]->data().values, doc.trace().heads[0].weights);
    }
};

QTEST_MAIN(TestLive)
#include "test_live.moc"
