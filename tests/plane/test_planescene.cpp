// The plane's scene: makePlaneScene is a pure function of the
// scenario, its trace and the view's choices, so what the plane draws is
// checked here against numbers worked by hand, with no widget and no
// document.

#include "attn_test.h"

#include "planescene.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace attn;

namespace {

// Two tokens in d_k = 2, V in two dimensions: every number by hand.
//   q_a = (1, 0), q_b = (0, 1); k_a = (1, 0), k_b = (0, 2)
//   v_a = (1, 0), v_b = (0, 1)
Scenario small()
{
    Scenario s;
    s.tokens = {"a", "b"};
    s.Q = Matrix{{1, 0}, {0, 1}};
    s.K = Matrix{{1, 0}, {0, 2}};
    s.V = Matrix{{1, 0}, {0, 1}};
    return s;
}

// One query and three keys in d_k = 4.
Scenario fourDimensional()
{
    Scenario s;
    s.tokens = {"q"};
    s.sourceTokens = {"a", "b", "c"};
    s.Q = Matrix{{1, 0.5, 0.25, -0.75}};
    s.K = Matrix{{1, 0, 0, 0}, {0, 0, 1, 0}, {0.5, 1, 0.5, 1}};
    s.V = Matrix{{1, 0}, {0, 1}, {1, 1}};
    return s;
}

// Seed 001 (soft nearest neighbours): Q = K = V, six 2-D tokens.
Scenario seed001()
{
    Scenario s;
    s.tokens = {"t1", "t2", "t3", "t4", "t5", "t6"};
    s.Q = Matrix{{1, 0.2}, {0.8, 0.6}, {0.1, 1}, {-0.6, 0.7}, {-0.4, -0.9}, {-0.9, -0.3}};
    s.K = s.Q;
    s.V = s.Q;
    return s;
}

PlaneScene sceneOf(const Scenario &s, const PlaneSettings &settings = {})
{
    return makePlaneScene(s, compute(s), settings);
}

} // namespace

class TestPlaneScene : public QObject {
    Q_OBJECT

private slots:
    void pointsAndWeightsByHand_data();
    void pointsAndWeightsByHand();
    void sameArgumentsSameScene();
    void dimensionPairAndCorrection();
    void pcaPlaneIsKeptWhenGiven();
    void projectedModeNamesTheRows();
    void blockedKeysAndFullyMaskedRow();
    void headColumns();
    void pointerAndKeyboardState();
    void textForFigureAndScreen();
    void oneDimension();

    // A plane that tells the truth.
    void similarityGeometry();
    void spreadInViewByHand();
    void misleadingPictureIsWarned();
};

void TestPlaneScene::pointsAndWeightsByHand_data()
{
    QTest::addColumn<int>("query");
    QTest::addColumn<double>("w0"); // weight of key a
    // query a: scores (1, 0), scaled by sqrt(2): softmax(1/sqrt 2, 0)
    const double ea = std::exp(1 / std::sqrt(2.0));
    QTest::newRow("query a") << 0 << ea / (ea + 1);
    // query b: scores (0, 2), scaled: softmax(0, sqrt 2)
    const double eb = std::exp(std::sqrt(2.0));
    QTest::newRow("query b") << 1 << 1 / (1 + eb);
}

void TestPlaneScene::pointsAndWeightsByHand()
{
    QFETCH(int, query);
    QFETCH(double, w0);
    PlaneSettings settings;
    settings.query = query;
    const PlaneScene sc = sceneOf(small(), settings);
    QCOMPARE(sc.d, 2);
    QCOMPARE(sc.dv, 2);
    QCOMPARE(sc.query, query);
    QVERIFY(!sc.pca);
    QVERIFY(sc.basis.axisAligned());
    // d = 2: the vectors themselves.
    QCOMPARE(sc.queries, Matrix(Matrix{{1, 0}, {0, 1}}));
    QCOMPARE(sc.keys, Matrix(Matrix{{1, 0}, {0, 2}}));
    QCOMPARE(sc.values, Matrix(Matrix{{1, 0}, {0, 1}}));
    QCOMPARE(sc.weights.size(), Eigen::Index(2));
    ATTN_COMPARE_NEAR(sc.weights(0), w0, 1e-15);
    ATTN_COMPARE_NEAR(sc.weights(1), 1 - w0, 1e-15);
    // The output is the weighted average of the values: (w0, 1 - w0).
    QVERIFY(sc.output.has_value());
    ATTN_COMPARE_NEAR((*sc.output)(0), w0, 1e-15);
    ATTN_COMPARE_NEAR((*sc.output)(1), 1 - w0, 1e-15);
    QCOMPARE(sc.blocked, std::vector<bool>(2, false));
    QVERIFY(!sc.fullyMasked);
    QCOMPARE(sc.queryLabels, QStringList({QStringLiteral("a"), QStringLiteral("b")}));
    QCOMPARE(sc.keyLabels, QStringList({QStringLiteral("a"), QStringLiteral("b")}));
    QCOMPARE(sc.queryMatrix, MatrixId::Q);
    QCOMPARE(sc.keyMatrix, MatrixId::K);
    QCOMPARE(sc.columnOffset, 0);
    QCOMPARE(sc.title, QStringLiteral("Weights of query %1").arg(sc.queryLabels[query]));
    QCOMPARE(sc.note, QStringList{QStringLiteral("Q and K, drawn exactly.")});
    QCOMPARE(sc.horizontalTitle, QStringLiteral("q, k: dimension 1"));
    QCOMPARE(sc.verticalTitle, QStringLiteral("q, k: dimension 2"));
    QCOMPARE(sc.pointOf({PlaneRole::Key, 1}), Eigen::Vector2d(0, 2));
    QCOMPARE(sc.nameOf({PlaneRole::Key, 1}), QStringLiteral("key b"));
    QCOMPARE(sc.nameOf({PlaneRole::Query, 0}), QStringLiteral("query a"));
}

void TestPlaneScene::sameArgumentsSameScene()
{
    const Scenario s = fourDimensional();
    const Trace t = compute(s);
    PlaneSettings settings;
    settings.pca = true;
    const PlaneScene a = makePlaneScene(s, t, settings), b = makePlaneScene(s, t, settings);
    QCOMPARE(a.queries, b.queries);
    QCOMPARE(a.keys, b.keys);
    QCOMPARE(a.basis.U, b.basis.U);
    QCOMPARE(a.caption(), b.caption());
}

void TestPlaneScene::dimensionPairAndCorrection()
{
    PlaneSettings settings;
    settings.horizontal = 0;
    settings.vertical = 2;
    PlaneScene sc = sceneOf(fourDimensional(), settings);
    QCOMPARE(sc.d, 4);
    QCOMPARE(sc.queries, Matrix(Matrix{{1, 0.25}}));
    QCOMPARE(sc.keys, Matrix(Matrix{{1, 0}, {0, 1}, {0.5, 0.5}}));
    QVERIFY(sc.caption().contains(QStringLiteral("Dimensions 1 and 3 of d_k = 4; dragging keeps the others.")));
    QCOMPARE(sc.verticalTitle, QStringLiteral("q, k: dimension 3"));
    // d_v = 2: the values and the output are drawn.
    QCOMPARE(sc.values.rows(), Eigen::Index(3));
    QVERIFY(sc.output.has_value());

    // Equal or out-of-range choices fall back to dimensions 1 and 2.
    for (auto [h, v] : {std::pair{1, 1}, std::pair{0, 7}, std::pair{-1, 2}}) {
        settings.horizontal = h;
        settings.vertical = v;
        sc = sceneOf(fourDimensional(), settings);
        QCOMPARE(sc.horizontal, 0);
        QCOMPARE(sc.vertical, 1);
        QCOMPARE(sc.queries, Matrix(Matrix{{1, 0.5}}));
    }
}

void TestPlaneScene::pcaPlaneIsKeptWhenGiven()
{
    const Scenario s = fourDimensional();
    PlaneSettings settings;
    settings.pca = true;
    const PlaneScene fitted = sceneOf(s, settings);
    QVERIFY(fitted.pca);
    QVERIFY(!fitted.basis.axisAligned());
    ATTN_COMPARE_MATRIX(fitted.basis.U.transpose() * fitted.basis.U, Matrix(Matrix::Identity(2, 2)), 1e-12);
    ATTN_COMPARE_MATRIX(fitted.keys, s.K * fitted.basis.U, 1e-15);
    QVERIFY(fitted.caption().contains(QStringLiteral("PCA projection")));
    QCOMPARE(fitted.horizontalTitle, QStringLiteral("principal direction 1 (projection)"));

    // The query moved: given the old plane, the scene keeps it (the picture
    // does not turn); without it, the plane is fitted again.
    Scenario moved = s;
    moved.Q(0, 3) = 3.0;
    settings.basis = fitted.basis;
    const PlaneScene kept = sceneOf(moved, settings);
    QCOMPARE(kept.basis.U, fitted.basis.U);
    QCOMPARE(kept.keys, fitted.keys);
    ATTN_COMPARE_MATRIX(kept.queries, moved.Q * fitted.basis.U, 1e-15);
    settings.basis.reset();
    QVERIFY(sceneOf(moved, settings).basis.U != fitted.basis.U);
    // A kept plane of another width, or an axis plane, is not a PCA plane to keep.
    settings.basis = axisPlane(4, 0, 1);
    QVERIFY(!sceneOf(s, settings).basis.axisAligned());
}

void TestPlaneScene::projectedModeNamesTheRows()
{
    Scenario s;
    s.mode = InputMode::Projected;
    s.tokens = {"x1", "x2"};
    s.sourceTokens = {"s1", "s2", "s3"};
    s.X = Matrix{{1, 0}, {0, 1}};
    s.source = Matrix{{1, 1}, {2, 0}, {0, -1}};
    s.Wq = Matrix::Identity(2, 2);
    s.Wk = Matrix::Identity(2, 2);
    s.Wv = Matrix::Identity(2, 2);
    PlaneScene sc = sceneOf(s);
    QVERIFY(sc.projected);
    QVERIFY(!sc.selfAttention);
    QCOMPARE(sc.queryMatrix, MatrixId::X);
    QCOMPARE(sc.keyMatrix, MatrixId::Source);
    QCOMPARE(sc.queries, s.X);
    QCOMPARE(sc.keys, *s.source);
    QCOMPARE(sc.nameOf({PlaneRole::Query, 1}), QStringLiteral("embedding x2"));
    QCOMPARE(sc.nameOf({PlaneRole::Key, 2}), QStringLiteral("source s3"));
    QVERIFY(sc.caption().contains(QStringLiteral("Embeddings X (queries) and source S (keys)")));
    QCOMPARE(sc.horizontalTitle, QStringLiteral("x: dimension 1"));

    s.source.reset();
    s.sourceTokens.clear();
    sc = sceneOf(s);
    QVERIFY(sc.selfAttention);
    QCOMPARE(sc.keyMatrix, MatrixId::X);
    QCOMPARE(sc.keys, s.X);
    QCOMPARE(sc.nameOf({PlaneRole::Key, 0}), QStringLiteral("embedding x1"));
    QVERIFY(sc.caption().contains(QStringLiteral("each row of X is a query and a key")));
}

void TestPlaneScene::blockedKeysAndFullyMaskedRow()
{
    Scenario s = small();
    s.mask.causal = true;
    PlaneScene sc = sceneOf(s); // query a sees key a only
    QCOMPARE(sc.blocked, std::vector<bool>({false, true}));
    QCOMPARE(sc.weights(0), 1.0);
    QCOMPARE(sc.weights(1), 0.0);
    QCOMPARE(*sc.output, Eigen::Vector2d(1, 0));

    s.mask.causal = false;
    s.mask.keyPadding = BoolVector::Constant(2, true);
    sc = sceneOf(s);
    QVERIFY(sc.fullyMasked);
    QCOMPARE(sc.note.last(), QStringLiteral("Every key is blocked for this query: its weights and output are 0."));
    QCOMPARE(*sc.output, Eigen::Vector2d(0, 0));
}

void TestPlaneScene::headColumns()
{
    Scenario s;
    s.tokens = {"a", "b"};
    s.heads = 2;
    s.Q = Matrix{{1, 0, 0, 1}, {0, 1, 1, 0}};
    s.K = Matrix{{1, 1, 2, 0}, {0, 1, 0, 2}};
    s.V = Matrix{{1, 0, 1, 0}, {0, 1, 0, 1}};
    PlaneSettings settings;
    settings.head = 1;
    const PlaneScene sc = sceneOf(s, settings);
    QCOMPARE(sc.head, 1);
    QCOMPARE(sc.columnOffset, 2);
    QCOMPARE(sc.queries, Matrix(s.Q.rightCols(2)));
    QCOMPARE(sc.keys, Matrix(s.K.rightCols(2)));
    QCOMPARE(sc.weights, Eigen::VectorXd(compute(s).heads[1].weights.row(0).transpose()));
    QCOMPARE(sc.title, QStringLiteral("Weights of query a · head 2 of 2"));
    QCOMPARE(sc.note.first(), QStringLiteral("Head 2's columns of Q and K, drawn exactly."));
    // A head or query beyond the last is the last.
    settings.head = 9;
    settings.query = 9;
    QCOMPARE(sceneOf(s, settings).head, 1);
    QCOMPARE(sceneOf(s, settings).query, 1);
}

void TestPlaneScene::pointerAndKeyboardState()
{
    PlaneSettings settings;
    settings.hoveredKey = 1; // lit by the maps
    PlaneScene sc = sceneOf(small(), settings);
    QCOMPARE(sc.hoveredKey, 1);
    settings.hovered = {PlaneRole::Key, 0}; // the plane's own pointer wins
    QCOMPARE(sceneOf(small(), settings).hoveredKey, 0);
    settings.hovered = {PlaneRole::Query, 5}; // no such query
    QVERIFY(!sceneOf(small(), settings).hovered.isValid());
    // A selected key is shown only when keys can be dragged.
    settings.selectedKey = 1;
    QCOMPARE(sceneOf(small(), settings).selectedKey, -1);
    settings.keysDraggable = true;
    QCOMPARE(sceneOf(small(), settings).selectedKey, 1);
    settings.dragged = {PlaneRole::Query, 1};
    QCOMPARE(sceneOf(small(), settings).dragged, (PlaneTarget{PlaneRole::Query, 1}));
}

void TestPlaneScene::textForFigureAndScreen()
{
    Scenario s = small();
    s.encoding = Encoding::Sinusoidal;
    PlaneSettings settings;
    PlaneScene sc = sceneOf(s, settings);
    QCOMPARE(sc.queries, s.Q); // the raw inputs, not Q + P
    QVERIFY(sc.caption().contains(QStringLiteral("added after: the raw inputs are shown and dragged.")));
    settings.forFigure = true;
    sc = sceneOf(s, settings);
    QVERIFY(sc.forFigure);
    QVERIFY(sc.caption().contains(QStringLiteral("added after: the raw inputs are shown.")));
    s.encoding = Encoding::Rope;
    QVERIFY(sceneOf(s, settings).caption().contains(QStringLiteral("RoPE")));
}

void TestPlaneScene::oneDimension()
{
    Scenario s;
    s.tokens = {"a", "b"};
    s.Q = Matrix{{1}, {-0.5}};
    s.K = Matrix{{1}, {-1}};
    s.V = Matrix{{1, 0}, {0, 1}};
    const PlaneScene sc = sceneOf(s);
    QCOMPARE(sc.d, 1);
    QCOMPARE(sc.keys, Matrix(Matrix{{1, 0}, {-1, 0}}));
    QCOMPARE(sc.queries, Matrix(Matrix{{1, 0}, {-0.5, 0}}));
    QVERIFY(sc.caption().contains(QStringLiteral("line")));
    QCOMPARE(sc.verticalTitle, QStringLiteral("(none: one dimension)"));
}

void TestPlaneScene::similarityGeometry()
{
    // Seed 001, query t2 = (0.8, 0.6) (length 1), six keys.
    Scenario s = seed001();
    PlaneSettings settings;
    settings.query = 1;
    const Eigen::Vector2d q(0.8, 0.6);

    // Dot: each key's projection onto the query's direction: foot = (k·q̂) q̂.
    s.similarity = Similarity::Dot;
    PlaneScene sc = sceneOf(s, settings);
    QVERIFY(sc.queryDirection.has_value());
    ATTN_COMPARE_MATRIX(*sc.queryDirection, q, 1e-15);
    QCOMPARE(int(sc.projections.size()), 6);
    QVERIFY(sc.circles.empty() && sc.angles.empty());
    for (const PlaneProjection &p : sc.projections) {
        const Eigen::Vector2d k = s.K.row(p.key).transpose();
        ATTN_COMPARE_NEAR(p.length, k.dot(q), 1e-15);
        ATTN_COMPARE_MATRIX(p.foot, (k.dot(q) * q).eval(), 1e-15);
    }
    // k6 = (−0.9, −0.3): 0.8·(−0.9) + 0.6·(−0.3) = −0.9, behind the origin.
    const auto k6 = std::find_if(sc.projections.begin(), sc.projections.end(), [](const PlaneProjection &p) { return p.key == 5; });
    QVERIFY(k6 != sc.projections.end());
    ATTN_COMPARE_NEAR(k6->length, -0.9, 1e-15);
    // Heaviest first: k2 (the query's own key) leads.
    QCOMPARE(sc.projections.front().key, 1);

    // −‖q − k‖²: a circle around the query through each key.
    s.similarity = Similarity::NegSqDistance;
    sc = sceneOf(s, settings);
    QCOMPARE(int(sc.circles.size()), 6);
    QVERIFY(sc.projections.empty() && !sc.queryDirection);
    for (const PlaneCircle &c : sc.circles) {
        QVERIFY(c.key >= 0);
        ATTN_COMPARE_MATRIX(c.centre, q, 1e-15);
        ATTN_COMPARE_NEAR(c.radius, (s.K.row(c.key).transpose() - q).norm(), 1e-15);
    }
    // k1 = (1, 0.2): √(0.2² + 0.4²) = √0.2.
    const auto c1 = std::find_if(sc.circles.begin(), sc.circles.end(), [](const PlaneCircle &c) { return c.key == 0; });
    ATTN_COMPARE_NEAR(c1->radius, std::sqrt(0.2), 1e-15);

    // Cosine: the unit circle and each key's angle to the query.
    s.similarity = Similarity::Cosine;
    sc = sceneOf(s, settings);
    QCOMPARE(int(sc.circles.size()), 1);
    QCOMPARE(sc.circles.front().key, -1);
    QCOMPARE(sc.circles.front().radius, 1.0);
    ATTN_COMPARE_MATRIX(sc.circles.front().centre, Eigen::Vector2d::Zero(), 0);
    QCOMPARE(int(sc.angles.size()), 6);
    for (const PlaneAngle &a : sc.angles) {
        const Eigen::Vector2d k = s.K.row(a.key).transpose();
        ATTN_COMPARE_NEAR(a.degrees, std::acos(k.dot(q) / k.norm()) * 180 / M_PI, 1e-9);
        ATTN_COMPARE_NEAR(a.from, std::atan2(0.6, 0.8), 1e-15);
    }
    // The query's own key: 0°. k6 = (−0.9, −0.3): cos = −0.9/√0.9 → 161.57°.
    QCOMPARE(sc.angles.front().key, 1);
    ATTN_COMPARE_NEAR(sc.angles.front().degrees, 0.0, 1e-6);
    const auto a6 = std::find_if(sc.angles.begin(), sc.angles.end(), [](const PlaneAngle &a) { return a.key == 5; });
    ATTN_COMPARE_NEAR(a6->degrees, std::acos(-0.9 / std::sqrt(0.9)) * 180 / M_PI, 1e-9);

    // A blocked key has none; a fully masked query none at all.
    s.similarity = Similarity::NegSqDistance;
    s.mask.blocked = BoolMatrix::Constant(6, 6, false);
    s.mask.blocked(1, 0) = true;
    sc = sceneOf(s, settings);
    QCOMPARE(int(sc.circles.size()), 5);
    for (const PlaneCircle &c : sc.circles)
        QVERIFY(c.key != 0);
    s.mask.blocked.row(1).setConstant(true);
    QVERIFY(sceneOf(s, settings).circles.empty());
}

void TestPlaneScene::spreadInViewByHand()
{
    // Keys a = (2, 0, 0), b = (0, 1.5, 0), c = (0, 0, 1); the query 0.
    // Σ‖v‖² = 4 + 2.25 + 1 = 7.25; vᵀv summed is diag(4, 2.25, 1), so the
    // PCA plane is dimensions 1 and 2 and holds (4 + 2.25) / 7.25 of it.
    Scenario s;
    s.tokens = {"q"};
    s.sourceTokens = {"a", "b", "c"};
    s.Q = Matrix{{0, 0, 0}};
    s.K = Matrix{{2, 0, 0}, {0, 1.5, 0}, {0, 0, 1}};
    s.V = Matrix{{1, 0}, {0, 1}, {1, 1}};
    PlaneSettings settings;
    settings.pca = true;
    PlaneScene sc = sceneOf(s, settings);
    QVERIFY(sc.pca);
    ATTN_COMPARE_NEAR(sc.spreadShown, 6.25 / 7.25, 1e-12);
    ATTN_COMPARE_NEAR(sc.basis.explained(0) + sc.basis.explained(1), 6.25 / 7.25, 1e-12);
    QVERIFY2(sc.shownText.contains(QStringLiteral("86%")), qPrintable(sc.shownText));
    ATTN_COMPARE_MATRIX(sc.keyShown, (Eigen::Vector3d(1, 1, 0)), 1e-12);

    // Dimensions 1 and 3: each key's share of its own ‖k‖² in view.
    settings.pca = false;
    settings.horizontal = 0;
    settings.vertical = 2;
    sc = sceneOf(s, settings);
    ATTN_COMPARE_MATRIX(sc.keyShown, (Eigen::Vector3d(1, 0, 1)), 0);
    ATTN_COMPARE_NEAR(sc.spreadShown, 5.0 / 7.25, 1e-15);
    QCOMPARE(sc.shownText, QStringLiteral("In view, of each key's ‖k‖²: a 100% · b 0% · c 100%"));
    // A mixed key: (1, 1, 1) has 2/3 of its length² in dimensions 1 and 3.
    s.K.row(1) << 1, 1, 1;
    ATTN_COMPARE_NEAR(sceneOf(s, settings).keyShown(1), 2.0 / 3.0, 1e-15);

    // d = 2 shows everything and says nothing.
    const PlaneScene flat = sceneOf(small());
    QCOMPARE(flat.spreadShown, 1.0);
    QVERIFY(flat.shownText.isEmpty());
    QVERIFY(flat.warning.isEmpty());
}

void TestPlaneScene::misleadingPictureIsWarned()
{
    // q = (1, 0, 3); key a = (−0.5, 0, 3) scores 8.5, key b = (1, 0, 0) scores 1:
    // a has the largest weight, but on dimensions 1 and 2 it points away from q.
    Scenario s;
    s.tokens = {"q"};
    s.sourceTokens = {"a", "b"};
    s.Q = Matrix{{1, 0, 3}};
    s.K = Matrix{{-0.5, 0, 3}, {1, 0, 0}};
    s.V = Matrix{{1, 0}, {0, 1}};
    PlaneSettings settings;
    PlaneScene sc = sceneOf(s, settings);
    QCOMPARE(sc.horizontal, 0);
    QCOMPARE(sc.vertical, 1);
    QCOMPARE(compute(s).heads[0].rows[0].argmax, 0);
    QCOMPARE(sc.misleadingKey, 0);
    QVERIFY2(sc.warning.contains(QStringLiteral("a has the largest weight")) && sc.warning.contains(QStringLiteral("points away")),
             qPrintable(sc.warning));
    // Dimensions 1 and 3 show it as it is: no warning.
    settings.vertical = 2;
    sc = sceneOf(s, settings);
    QCOMPARE(sc.misleadingKey, -1);
    QVERIFY(sc.warning.isEmpty());

    // −‖q − k‖²: q = (0, 0, 2); a = (1, 0, 2) is nearest (1 against 4.04),
    // yet on dimensions 1 and 2 b = (0.2, 0, 0) looks nearer.
    s.similarity = Similarity::NegSqDistance;
    s.Q = Matrix{{0, 0, 2}};
    s.K = Matrix{{1, 0, 2}, {0.2, 0, 0}};
    settings.vertical = 1;
    sc = sceneOf(s, settings);
    QCOMPARE(sc.misleadingKey, 0);
    QVERIFY2(sc.warning.contains(QStringLiteral("b looks closer")), qPrintable(sc.warning));
}

QTEST_GUILESS_MAIN(TestPlaneScene)
#include "test_planescene.moc"
