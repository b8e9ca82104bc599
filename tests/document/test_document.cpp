// The document, its undo stack and the matrix model: every edit is one undo
// step, undo restores the exact previous scenario, bad input changes nothing.

#include "attn_test.h"
#include "lesson_test.h"
#include "random_scenario.h"

#include "document.h"
#include "edit.h"
#include "lessons.h"
#include "matrixmodel.h"
#include "settingedits.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <functional>

using namespace attn;
using attn::test::lesson;

class TestDocument : public QObject {
    Q_OBJECT

private slots:
    void modelTesterOverEveryMatrix_data();
    void modelTesterOverEveryMatrix();
    void typedNumberIsOneUndoStep();
    void badTextIsRefusedAndNothingChanges_data();
    void badTextIsRefusedAndNothingChanges();
    void invalidEditIsRefused();
    void liveGestureIsOneUndoStep();
    void cancelledGestureRestores();
    void undoInMidGesture();
    void tokenEditsUndoExactly();
    void renameThroughHeader();
    void modeSwitchKeepsWeights_data();
    void modeSwitchKeepsWeights();
    void changeFlags();
    void headAndQueryFollowShape();
    void commandsStoreOnlyWhatChanges();
    void dragBackToStartLeavesNoStep();
    void problemPlacesInWords();
    void everySettingIsSeen();
    void settingEditsAreOneSettingsStep();
    void ownStepInAGesture();
};

void TestDocument::modelTesterOverEveryMatrix_data()
{
    QTest::addColumn<QString>("name");
    for (const QString &name : lessonIndex())
        QTest::newRow(qPrintable(name)) << name;
}

void TestDocument::modelTesterOverEveryMatrix()
{
    QFETCH(QString, name);
    Document doc;
    doc.replace(lesson(name), QString(), name);
    std::vector<std::unique_ptr<MatrixModel>> models;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
    for (MatrixId id : {MatrixId::Q, MatrixId::K, MatrixId::V, MatrixId::X, MatrixId::Source, MatrixId::Wq,
                        MatrixId::Wk, MatrixId::Wv, MatrixId::Wo}) {
        models.push_back(std::make_unique<MatrixModel>(&doc, id));
        testers.push_back(std::make_unique<QAbstractItemModelTester>(
            models.back().get(), QAbstractItemModelTester::FailureReportingMode::QtTest));
    }
    // Edits of every kind while the testers watch.
    const Side side = Side::Query;
    QVERIFY(!doc.edit(insertToken(doc.scenario(), side, 0, "new"), "add"));
    QVERIFY(!doc.edit(moveToken(doc.scenario(), side, 0, 1), "move"));
    QVERIFY(!doc.edit(removeToken(doc.scenario(), side, 1), "remove"));
    QVERIFY(!doc.edit(setHeadDim(doc.scenario(), headDim(doc.scenario()) + 2), "d_k"));
    QVERIFY(!doc.edit(setHeadValueDim(doc.scenario(), headValueDim(doc.scenario()) + 1), "d_v"));
    if (doc.scenario().mode == InputMode::Direct)
        QVERIFY(!doc.edit(toProjected(doc.scenario()), "projected"));
    QVERIFY(!doc.edit(toDirect(doc.scenario()), "direct"));
    while (doc.undoStack()->canUndo())
        doc.undoStack()->undo();
    QCOMPARE(doc.scenario() == lesson(name), true);
    for (auto &m : models)
        if (m->isPresent())
            QCOMPARE(m->rowCount(), int(matrix(doc.scenario(), m->matrixId()).rows()));
}

void TestDocument::typedNumberIsOneUndoStep()
{
    Document doc;
    doc.replace(lesson("seed000-basic"), QString());
    const Scenario before = doc.scenario();
    MatrixModel q(&doc, MatrixId::Q);
    QSignalSpy changed(&doc, &Document::changed);
    QVERIFY(q.setData(q.index(0, 1), QStringLiteral("1.5")));
    QCOMPARE(doc.scenario().Q(0, 1), 1.5);
    QCOMPARE(q.data(q.index(0, 1)).toString(), QStringLiteral("1.5"));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(doc.undoStack()->count(), 1);
    // The trace follows: q = [2, 1.5] scores k2 with 2*0 + 1.5*2 = 3.
    ATTN_COMPARE_NEAR(doc.trace().heads[0].scores(0, 1), 3.0, 1e-15);
    QVERIFY(doc.isModified());
    doc.undoStack()->undo();
    QVERIFY(doc.scenario() == before);
    QCOMPARE(doc.trace().heads[0].scores(0, 1), 0.0);
    QVERIFY(!doc.isModified());
    // The minus sign a formula shows is read as a minus.
    QVERIFY(q.setData(q.index(0, 0), QStringLiteral("−2.25")));
    QCOMPARE(doc.scenario().Q(0, 0), -2.25);
}

void TestDocument::badTextIsRefusedAndNothingChanges_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("reason");
    QTest::newRow("letters") << "abc" << "not a number";
    QTest::newRow("empty") << "" << "a number is needed";
    QTest::newRow("nan") << "NaN" << "not a finite number";
    QTest::newRow("inf") << "inf" << "not a finite number";
    QTest::newRow("-Infinity") << "-Infinity" << "not a finite number";
    QTest::newRow("overflow") << "1e999" << "not a finite number";
    QTest::newRow("too large") << "1e13" << "limit";
    QTest::newRow("two numbers") << "1 2" << "not a number";
}

void TestDocument::badTextIsRefusedAndNothingChanges()
{
    QFETCH(QString, text);
    QFETCH(QString, reason);
    Document doc;
    doc.replace(lesson("causal"), QString());
    const Scenario before = doc.scenario();
    MatrixModel k(&doc, MatrixId::K);
    QSignalSpy refused(&k, &MatrixModel::refused);
    QSignalSpy changed(&doc, &Document::changed);
    QVERIFY(!k.setData(k.index(2, 1), text));
    QCOMPARE(refused.count(), 1);
    const QString message = refused.first().at(1).toString();
    ATTN_CHECK(message.contains(reason), message);
    ATTN_CHECK(message.contains(QStringLiteral("K row “学习”, column 2")), message); // names the place
    ATTN_CHECK(message.contains(QStringLiteral("stays 1")), message);           // and the value kept
    QCOMPARE(changed.count(), 0);
    QCOMPARE(doc.undoStack()->count(), 0);
    QVERIFY(doc.scenario() == before);
}

void TestDocument::invalidEditIsRefused()
{
    Document doc;
    doc.replace(lesson("seed000-basic"), QString()); // 1 query, 3 keys
    const Scenario before = doc.scenario();
    QSignalSpy problems(&doc, &Document::problemReported);
    Scenario causal = before;
    causal.mask.causal = true;
    auto p = doc.edit(causal, "causal");
    QVERIFY(p.has_value());
    QCOMPARE(QString::fromStdString(p->place), QStringLiteral("mask.causal"));
    QCOMPARE(problems.count(), 1);
    ATTN_CHECK(problems.first().first().toString().contains(QStringLiteral("as many queries as keys")),
               problems.first().first().toString());
    QVERIFY(doc.scenario() == before);
    QCOMPARE(doc.undoStack()->count(), 0);

    Scenario rope = before;
    rope.Q = Matrix{{2, 0, 1}};
    rope.K = Matrix::Ones(3, 3);
    rope.encoding = Encoding::Rope;
    QVERIFY(doc.edit(rope, "rope").has_value()); // odd d_k
    QVERIFY(doc.scenario() == before);
    // Within a gesture a setting is refused the same way and leaves no step.
    doc.beginGesture("drag");
    QVERIFY(doc.setSettings(settingsOf(causal), QString()).has_value());
    doc.endGesture();
    QVERIFY(!doc.inGesture());
    QCOMPARE(doc.undoStack()->count(), 0);
    // A row that is not finite is refused with its place.
    auto row = doc.setRow(MatrixId::Q, 0, Eigen::RowVectorXd::Constant(doc.scenario().Q.cols(), qQNaN()), "nan");
    QVERIFY(row.has_value());
    QCOMPARE(QString::fromStdString(row->place), QStringLiteral("inputs.Q[0][0]"));
    QVERIFY(doc.scenario() == before);
}

void TestDocument::liveGestureIsOneUndoStep()
{
    Document doc;
    doc.replace(lesson("seed001-soft-knn"), QString());
    const Scenario before = doc.scenario();
    QSignalSpy changed(&doc, &Document::changed);
    doc.beginGesture("drag q1");
    for (int step = 1; step <= 30; ++step) {
        Eigen::RowVectorXd row = doc.scenario().Q.row(0);
        row(0) = 1.0 + 0.05 * step;
        row(1) = 0.2 - 0.02 * step;
        QVERIFY(!doc.setRow(MatrixId::Q, 0, row, QString()));
        // Every step is computed at once: the trace never lags.
        ATTN_COMPARE_NEAR(doc.trace().heads[0].Q(0, 0), 1.0 + 0.05 * step, 1e-15);
        // Each step merges into the gesture's one command.
        QCOMPARE(doc.undoStack()->count(), 1);
        // A drag step says which matrix and row it changed.
        const auto what = changed.last().first().value<DocumentChange>();
        QVERIFY(what.isRowChange());
        QCOMPARE(what.firstRow, 0);
        QCOMPARE(*what.matrix, MatrixId::Q);
    }
    QCOMPARE(changed.count(), 30);
    doc.endGesture();
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("drag q1"));
    const Scenario after = doc.scenario();
    doc.undoStack()->undo();
    QVERIFY(doc.scenario() == before);
    doc.undoStack()->redo();
    QVERIFY(doc.scenario() == after);
}

void TestDocument::cancelledGestureRestores()
{
    Document doc;
    doc.replace(lesson("seed001-soft-knn"), QString());
    const Scenario before = doc.scenario();
    Scenario s = before;
    s.temperature = 0.1;
    doc.beginGesture("tau");
    QVERIFY(!doc.setSettings(settingsOf(s), QString()));
    QCOMPARE(doc.scenario().temperature, 0.1);
    doc.cancelGesture();
    QVERIFY(doc.scenario() == before);
    QCOMPARE(doc.undoStack()->count(), 0);
    QVERIFY(!doc.undoStack()->canRedo()); // a cancelled gesture cannot be redone
    // An ordinary edit in the middle of a gesture is a step of its own: two steps.
    doc.beginGesture("tau");
    QVERIFY(!doc.setSettings(settingsOf(s), QString()));
    Scenario t = doc.scenario();
    t.scale = Scale::None;
    QVERIFY(!doc.edit(t, "scale"));
    doc.endGesture();
    QCOMPARE(doc.undoStack()->count(), 2);
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QVERIFY(doc.scenario() == before);
}

// Undo in the middle of a gesture cancels it and leaves the history alone;
// redo does nothing until the gesture is over.
void TestDocument::undoInMidGesture()
{
    Document doc;
    doc.replace(lesson("seed001-soft-knn"), QString());
    const Scenario start = doc.scenario();
    Scenario scaled = start;
    scaled.scale = Scale::None;
    QVERIFY(!doc.edit(scaled, "scale"));
    doc.undo();
    QVERIFY(doc.scenario() == start);
    QVERIFY(doc.undoStack()->canRedo());

    Eigen::RowVectorXd dragged = start.Q.row(0);
    dragged(0) = -1.0;
    doc.beginGesture("drag");
    QVERIFY(!doc.setRow(MatrixId::Q, 0, dragged, QString()));
    doc.redo(); // in a gesture: the redo would land on top of the gesture's step
    QCOMPARE(doc.scenario().Q(0, 0), -1.0);
    QVERIFY(doc.inGesture());
    doc.undo();
    QVERIFY(!doc.inGesture());
    QVERIFY(doc.scenario() == start);
    doc.endGesture(); // a release after the cancel: nothing to commit
    // The gesture's first step was a new edit, so, as after any edit, the
    // undone "scale" can no longer be redone; the cancelled step is gone too.
    QCOMPARE(doc.undoStack()->count(), 0);
    QVERIFY(!doc.undoStack()->canRedo());
    doc.redo();
    QVERIFY(doc.scenario() == start);
}

void TestDocument::tokenEditsUndoExactly()
{
    test::TestRng rng(11);
    for (const QString &name : lessonIndex()) {
        Document doc;
        doc.replace(lesson(name), QString());
        std::vector<Scenario> history{doc.scenario()};
        for (int step = 0; step < 12; ++step) {
            const Scenario &s = doc.scenario();
            const Side side = rng.chance(0.5) ? Side::Query : Side::Key;
            const int n = side == Side::Query || sharesTokens(s) ? queryCount(s) : keyCount(s);
            Scenario next;
            switch (rng.integer(0, 2)) {
            case 0:
                next = insertToken(s, side, rng.integer(0, n), "x");
                break;
            case 1:
                if (n < 2)
                    continue;
                next = removeToken(s, side, rng.integer(0, n - 1));
                break;
            default:
                if (n < 2)
                    continue;
                next = moveToken(s, side, rng.integer(0, n - 1), rng.integer(0, n - 1));
                break;
            }
            const int steps = doc.undoStack()->count();
            if (!doc.edit(next, "token") && doc.undoStack()->count() == steps + 1)
                history.push_back(doc.scenario());
            // Every state the document takes computes without NaN.
            for (const HeadTrace &h : doc.trace().heads)
                ATTN_VERIFY_NO_MISMATCH(test::nonFinite(h.weights), name);
        }
        QCOMPARE(doc.undoStack()->count(), int(history.size()) - 1);
        for (int i = int(history.size()) - 1; i > 0; --i) {
            ATTN_CHECK(doc.scenario() == history[std::size_t(i)], name + QStringLiteral(" before undo %1").arg(i));
            doc.undoStack()->undo();
        }
        ATTN_CHECK(doc.scenario() == history.front(), name);
    }
}

void TestDocument::renameThroughHeader()
{
    Document doc;
    doc.replace(lesson("permutation"), QString());
    MatrixModel x(&doc, MatrixId::X);
    QSignalSpy headers(&x, &QAbstractItemModel::headerDataChanged);
    QVERIFY(x.setHeaderData(1, Qt::Vertical, QStringLiteral("踢")));
    QCOMPARE(x.headerData(1, Qt::Vertical).toString(), QStringLiteral("踢"));
    QCOMPARE(doc.scenario().tokens[1], std::string("踢"));
    QVERIFY(headers.count() >= 1);
    QSignalSpy refused(&x, &MatrixModel::refused);
    QVERIFY(!x.setHeaderData(1, Qt::Vertical, QStringLiteral("  ")));
    QCOMPARE(refused.count(), 1);
    QCOMPARE(doc.scenario().tokens[1], std::string("踢"));
    doc.undoStack()->undo();
    QCOMPARE(doc.scenario().tokens[1], std::string("打"));
}

void TestDocument::modeSwitchKeepsWeights_data()
{
    QTest::addColumn<QString>("name");
    for (const QString &name : lessonIndex())
        QTest::newRow(qPrintable(name)) << name;
}

void TestDocument::modeSwitchKeepsWeights()
{
    QFETCH(QString, name);
    const Scenario s = lesson(name);
    const Trace t = compute(s);
    // Projected to direct keeps the computed Q, K, V: the same weights and head outputs.
    const Scenario direct = toDirect(s);
    QCOMPARE(direct.mode, InputMode::Direct);
    const Trace td = compute(direct);
    // Direct to projected (one-hot X) is exact without an additive encoding.
    const Scenario projected = toProjected(direct);
    QCOMPARE(projected.mode, InputMode::Projected);
    const Trace tp = compute(projected);
    for (std::size_t h = 0; h < t.heads.size(); ++h) {
        ATTN_COMPARE_MATRIX(td.heads[h].weights, t.heads[h].weights, 1e-12);
        ATTN_COMPARE_MATRIX(td.heads[h].output, t.heads[h].output, 1e-12);
        ATTN_COMPARE_MATRIX(tp.heads[h].weights, t.heads[h].weights, 1e-12);
        ATTN_COMPARE_MATRIX(tp.heads[h].output, t.heads[h].output, 1e-12);
    }
    QCOMPARE(keyLabels(projected), keyLabels(s));
    QCOMPARE(queryLabels(projected), queryLabels(s));
}

void TestDocument::changeFlags()
{
    Document doc;
    doc.replace(lesson("causal"), QString());
    QSignalSpy changed(&doc, &Document::changed);
    auto last = [&] { return changed.last().first().value<DocumentChange>().kinds; };

    Scenario s = doc.scenario();
    s.Q(0, 0) = 7;
    doc.edit(s, "value");
    QCOMPARE(last(), ChangeKinds(ChangeKind::Values));
    // One entry changed: the change names its matrix and row.
    QCOMPARE(*changed.last().first().value<DocumentChange>().matrix, MatrixId::Q);

    s = doc.scenario();
    s.temperature = 2;
    doc.edit(s, "tau");
    QCOMPARE(last(), ChangeKinds(ChangeKind::Settings));

    doc.edit(renameToken(doc.scenario(), Side::Query, 0, "x"), "rename");
    QCOMPARE(last(), ChangeKinds(ChangeKind::Labels));

    doc.edit(insertToken(doc.scenario(), Side::Query, 0, "y"), "add");
    QVERIFY(last().testFlag(ChangeKind::Shape));
}

void TestDocument::headAndQueryFollowShape()
{
    Document doc;
    doc.replace(lesson("multihead"), QString());
    doc.setCurrentHead(1);
    doc.setCurrentQuery(3);
    QCOMPARE(doc.currentHead(), 1);
    QSignalSpy current(&doc, &Document::currentChanged);
    doc.edit(setHeads(doc.scenario(), 1), "one head");
    QCOMPARE(doc.currentHead(), 0);
    QCOMPARE(current.count(), 1);
    doc.edit(removeToken(doc.scenario(), Side::Query, 3), "remove");
    QCOMPARE(doc.currentQuery(), 2);
    doc.setCurrentHead(5); // clamped
    QCOMPARE(doc.currentHead(), 0);
}

// A row edit and a settings edit push the narrow commands, which undo and
// redo exactly; a shape edit keeps the whole scenario.
void TestDocument::commandsStoreOnlyWhatChanges()
{
    Document doc;
    doc.replace(lesson("causal"), QString());
    const Scenario start = doc.scenario();
    Scenario s = start;
    s.K(1, 0) = 3.5;
    QVERIFY(!doc.edit(s, "cell"));
    QVERIFY(dynamic_cast<const SetRowCommand *>(doc.undoStack()->command(0)));
    s.temperature = 0.5;
    QVERIFY(!doc.edit(s, "tau"));
    QVERIFY(dynamic_cast<const SetSettingsCommand *>(doc.undoStack()->command(1)));
    QVERIFY(!doc.edit(insertToken(s, Side::Query, 0, "t"), "add"));
    QVERIFY(dynamic_cast<const ScenarioCommand *>(doc.undoStack()->command(2)));
    const Scenario end = doc.scenario();
    doc.undoStack()->undo();
    QVERIFY(doc.scenario() == s);
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QVERIFY(doc.scenario() == start);
    doc.undoStack()->redo();
    doc.undoStack()->redo();
    doc.undoStack()->redo();
    QVERIFY(doc.scenario() == end);
    // Two gestures on the same row are two steps; two rows in one gesture too.
    doc.beginGesture("drag");
    Eigen::RowVectorXd r = doc.scenario().Q.row(0);
    r(0) += 1;
    QVERIFY(!doc.setRow(MatrixId::Q, 0, r, QString()));
    r(0) += 1;
    QVERIFY(!doc.setRow(MatrixId::Q, 0, r, QString()));
    Eigen::RowVectorXd r1 = doc.scenario().Q.row(1);
    r1(0) += 1;
    QVERIFY(!doc.setRow(MatrixId::Q, 1, r1, QString()));
    doc.endGesture();
    QCOMPARE(doc.undoStack()->count(), 5);
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("drag"));
}

// A drag that comes back to where it started leaves no undo step.
void TestDocument::dragBackToStartLeavesNoStep()
{
    Document doc;
    doc.replace(lesson("seed001-soft-knn"), QString());
    const Scenario start = doc.scenario();
    doc.beginGesture("drag");
    Eigen::RowVectorXd r = start.Q.row(0);
    r(1) += 0.5;
    QVERIFY(!doc.setRow(MatrixId::Q, 0, r, QString()));
    QVERIFY(!doc.setRow(MatrixId::Q, 0, start.Q.row(0), QString()));
    doc.endGesture();
    QVERIFY(doc.scenario() == start);
    QCOMPARE(doc.undoStack()->count(), 0);
    QVERIFY(!doc.isModified());
}

void TestDocument::problemPlacesInWords()
{
    QCOMPARE(problemText(Problem{"inputs.K[2][1]", "expected a number"}), QStringLiteral("K row 3, column 2: expected a number"));
    QCOMPARE(problemText(Problem{"heads", "3 heads do not divide"}), QStringLiteral("heads: 3 heads do not divide"));
    QCOMPARE(problemText(Problem{"", "cannot be read"}), QStringLiteral("cannot be read"));
}

namespace {

// The scenario's settings with each one changed alone, by name. The
// bindings name every member of Settings and of Mask: a member added there
// stops this compiling until a change of it is added here.
std::vector<std::pair<QString, Settings>> eachSettingChanged(const Scenario &base)
{
    [[maybe_unused]] const auto &[similarity, scale, temperature, mask, maskStage, softmax, encoding, seed] = settingsOf(base);
    [[maybe_unused]] const auto &[causal, window, dilation, block, global, keyPadding, blocked] = mask;
    std::vector<std::pair<QString, Settings>> out;
    auto with = [&](const char *name, auto change) {
        Settings s = settingsOf(base);
        change(s);
        out.emplace_back(QString::fromLatin1(name), s);
    };
    with("similarity", [](Settings &s) { s.similarity = Similarity::Cosine; });
    with("scale", [](Settings &s) { s.scale = Scale::None; });
    with("temperature", [](Settings &s) { s.temperature = 0.5; });
    with("mask.causal", [](Settings &s) { s.mask.causal = !s.mask.causal; });
    with("mask.window", [](Settings &s) { s.mask.window = 2; });
    with("mask.dilation", [](Settings &s) { s.mask.dilation = 2; });
    with("mask.block", [](Settings &s) { s.mask.block = 2; });
    with("mask.global", [](Settings &s) {
        s.mask.window = 1;
        s.mask.global = {0};
    });
    with("mask.key_padding", [&](Settings &s) { s.mask = setKeyPadding(base, 1, true).mask; });
    with("mask.key_padding, all open", [&](Settings &s) { s.mask.keyPadding = BoolVector::Constant(keyCount(base), false); });
    with("mask.blocked", [&](Settings &s) { s.mask = toggleBlocked(base, 1, 0).mask; });
    with("mask_stage", [](Settings &s) { s.maskStage = MaskStage::AfterSoftmax; });
    with("softmax", [](Settings &s) { s.softmax = SoftmaxKind::PlusOne; });
    with("positional_encoding", [](Settings &s) { s.encoding = Encoding::Sinusoidal; });
    with("seed", [](Settings &s) { s.seed += 1; });
    return out;
}

} // namespace

// One equality for the settings: each setting changed alone is a change to
// Settings, to Scenario and to the document, whose one undo step restores
// it; within a gesture a change that stays is not taken for "nothing
// changed" when the gesture's commands merge.
void TestDocument::everySettingIsSeen()
{
    const Scenario base = lesson("causal"); // n_q = n_k: every setting can change
    QVERIFY(base.mask.keyPadding.size() == 0 && base.mask.blocked.size() == 0 && base.encoding == Encoding::None);
    for (const auto &[name, changed] : eachSettingChanged(base)) {
        QVERIFY2(!(changed == settingsOf(base)), qPrintable(name));
        Scenario s = base;
        settingsOf(s) = changed;
        QVERIFY2(!(s == base), qPrintable(name));
        QVERIFY2(settingsOf(s) == changed, qPrintable(name));

        Document doc;
        doc.replace(base, QString());
        QSignalSpy changes(&doc, &Document::changed);
        QVERIFY2(!doc.setSettings(changed, name), qPrintable(name));
        QCOMPARE(doc.undoStack()->count(), 1);
        QVERIFY2(dynamic_cast<const SetSettingsCommand *>(doc.undoStack()->command(0)), qPrintable(name));
        QVERIFY2(doc.scenario() == s, qPrintable(name));
        QCOMPARE(changes.last().first().value<DocumentChange>().kinds, ChangeKinds(ChangeKind::Settings));
        doc.undo();
        QVERIFY2(doc.scenario() == base, qPrintable(name));
        doc.redo();
        QVERIFY2(doc.scenario() == s, qPrintable(name));
        doc.undo();

        // Merged: τ away and back, this setting changed on the way.
        doc.beginGesture(name);
        Settings away = settingsOf(base);
        away.temperature = 2;
        QVERIFY(!doc.setSettings(away, QString()));
        QVERIFY(!doc.setSettings(changed, QString()));
        doc.endGesture();
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.undoStack()->undoText(), name);
        doc.undo();
        QVERIFY2(doc.scenario() == base, qPrintable(name));
    }
}

// Each of SettingEdits is one settings command, a step of its own even in
// the middle of a drag, named for the undo history; undo gives back exactly
// the scenario before. The live temperature joins the slider's gesture.
void TestDocument::settingEditsAreOneSettingsStep()
{
    const Scenario base = lesson("causal");
    const std::vector<std::pair<QString, std::function<std::optional<Problem>(Document &)>>> edits{
        {QStringLiteral("Causal mask off"), [](Document &d) { return SettingEdits::setCausal(d, false); }},
        {QStringLiteral("Mask after softmax"), [](Document &d) { return SettingEdits::setMaskStage(d, MaskStage::AfterSoftmax); }},
        {QStringLiteral("Positional encoding: sinusoidal"), [](Document &d) { return SettingEdits::setEncoding(d, Encoding::Sinusoidal); }},
        {QStringLiteral("Scaling: ÷ d_k"), [](Document &d) { return SettingEdits::setScale(d, Scale::Dk); }},
        {QStringLiteral("Similarity: cosine"), [](Document &d) { return SettingEdits::setSimilarity(d, Similarity::Cosine); }},
        {QStringLiteral("Temperature 0.25"), [](Document &d) { return SettingEdits::setTemperature(d, 0.25); }},
    };
    QVERIFY(base.mask.causal);
    for (const auto &[text, edit] : edits) {
        Document doc;
        doc.replace(base, QString());
        doc.beginGesture("drag");
        Eigen::RowVectorXd r = base.Q.row(0);
        r(0) += 1;
        QVERIFY(!doc.setRow(MatrixId::Q, 0, r, QString()));
        const Scenario dragged = doc.scenario();
        QVERIFY2(!edit(doc), qPrintable(text));
        QCOMPARE(doc.undoStack()->count(), 2);
        QCOMPARE(doc.undoStack()->undoText(), text);
        QVERIFY2(dynamic_cast<const SetSettingsCommand *>(doc.undoStack()->command(1)), qPrintable(text));
        QVERIFY2(!(doc.scenario() == dragged), qPrintable(text));
        doc.endGesture();
        doc.undo();
        QVERIFY2(doc.scenario() == dragged, qPrintable(text));
        doc.undo();
        QVERIFY2(doc.scenario() == base, qPrintable(text));
        // The same value again is no step.
        doc.redo();
        doc.redo();
        QVERIFY2(!edit(doc), qPrintable(text));
        QCOMPARE(doc.undoStack()->count(), 2);
    }
    // Held, the slider's values are one step named for the last.
    Document doc;
    doc.replace(base, QString());
    doc.beginGesture();
    for (double tau : {0.5, 0.75, 2.0})
        QVERIFY(!SettingEdits::setTemperature(doc, tau, true));
    doc.endGesture();
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Temperature 2"));
    QCOMPARE(doc.scenario().temperature, 2.0);
    doc.undo();
    QVERIFY(doc.scenario() == base);
    // A refused setting leaves no step and names its place.
    Document one;
    one.replace(lesson("seed000-basic"), QString()); // 1 query, 3 keys
    QSignalSpy problems(&one, &Document::problemReported);
    const auto p = SettingEdits::setCausal(one, true);
    QVERIFY(p.has_value());
    QCOMPARE(QString::fromStdString(p->place), QStringLiteral("mask.causal"));
    QCOMPARE(problems.count(), 1);
    QCOMPARE(one.undoStack()->count(), 0);
    QVERIFY(one.scenario() == lesson("seed000-basic"));
}

// setSettings joins the open gesture's step unless asked for a step of its own.
void TestDocument::ownStepInAGesture()
{
    Document doc;
    doc.replace(lesson("seed001-soft-knn"), QString());
    const Scenario before = doc.scenario();
    Settings s = settingsOf(before);
    doc.beginGesture("tau");
    s.temperature = 0.5;
    QVERIFY(!doc.setSettings(s, QString()));
    s.temperature = 0.25;
    QVERIFY(!doc.setSettings(s, QString()));
    QCOMPARE(doc.undoStack()->count(), 1);
    s.scale = Scale::None;
    QVERIFY(!doc.setSettings(s, QStringLiteral("scale"), Document::Step::Own));
    QCOMPARE(doc.undoStack()->count(), 2);
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("scale"));
    doc.endGesture();
    doc.undo();
    QCOMPARE(doc.scenario().scale, before.scale);
    QCOMPARE(doc.scenario().temperature, 0.25);
    doc.undo();
    QVERIFY(doc.scenario() == before);
}

QTEST_GUILESS_MAIN(TestDocument)
#include "test_document.moc"
