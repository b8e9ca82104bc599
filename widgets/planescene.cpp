#include "planescene.h"

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

QStringList toLabels(const std::vector<std::string> &labels)
{
    QStringList out;
    out.reserve(qsizetype(labels.size()));
    for (const std::string &l : labels)
        out << QString::fromStdString(l);
    return out;
}

// The plane for vectors of width sc.d: exact for d <= 2, else the chosen
// dimensions (corrected when out of range or equal) or the PCA plane of
// every key and query (kept from `settings` when it still fits).
void choosePlane(PlaneScene &sc, const PlaneSettings &settings, const Eigen::Ref<const Matrix> &q,
                 const Eigen::Ref<const Matrix> &k)
{
    sc.horizontal = settings.horizontal;
    sc.vertical = settings.vertical;
    if (sc.d <= 2) {
        sc.basis = axisPlane(sc.d, 0, 1);
    } else if (!settings.pca) {
        if (sc.horizontal < 0 || sc.vertical < 0 || sc.horizontal >= sc.d || sc.vertical >= sc.d
            || sc.horizontal == sc.vertical) {
            sc.horizontal = 0;
            sc.vertical = 1;
        }
        sc.basis = axisPlane(sc.d, sc.horizontal, sc.vertical);
    } else if (settings.basis && !settings.basis->axisAligned() && settings.basis->dimension() == sc.d) {
        sc.basis = *settings.basis;
    } else {
        Matrix all(q.rows() + k.rows(), sc.d);
        all << k, q;
        sc.basis = principalPlane(all);
    }
    sc.pca = settings.pca && sc.d > 2;
}

QString noteOnPlane(const PlaneScene &sc)
{
    const QString width = sc.projected ? PlaneScene::tr("d_model") : PlaneScene::tr("d_k");
    if (sc.d == 1) {
        return (sc.forFigure ? PlaneScene::tr("%1 = 1: the vectors lie on a line (two dimensions are needed for a plane).")
                             : PlaneScene::tr("%1 = 1: the vectors lie on a line (two dimensions are needed for a plane); "
                                              "drag along it."))
            .arg(width);
    }
    if (sc.d == 2) {
        if (sc.projected)
            return QString();
        return sc.heads > 1 ? PlaneScene::tr("Head %1's columns of Q and K, drawn exactly.").arg(sc.head + 1)
                            : PlaneScene::tr("Q and K, drawn exactly.");
    }
    if (sc.pca) {
        return (sc.forFigure ? PlaneScene::tr("PCA projection of keys and queries (%1 = %2; the plane holds %3% of their "
                                              "length²).")
                             : PlaneScene::tr("PCA projection of keys and queries (%1 = %2; the plane holds %3% of their "
                                              "length²); dragging keeps the hidden part."))
            .arg(width)
            .arg(sc.d)
            .arg(std::lround(100.0 * (sc.basis.explained(0) + sc.basis.explained(1))));
    }
    return (sc.forFigure ? PlaneScene::tr("Dimensions %1 and %2 of %3 = %4.")
                         : PlaneScene::tr("Dimensions %1 and %2 of %3 = %4; dragging keeps the others."))
        .arg(sc.horizontal + 1)
        .arg(sc.vertical + 1)
        .arg(width)
        .arg(sc.d);
}

void writeText(PlaneScene &sc, const Scenario &s)
{
    const QString query = sc.queryLabels.value(sc.query);
    sc.title = sc.heads > 1 ? PlaneScene::tr("Weights of query %1 · head %2 of %3").arg(query).arg(sc.head + 1).arg(sc.heads)
                            : PlaneScene::tr("Weights of query %1").arg(query);
    QStringList note;
    if (sc.projected) {
        note << (sc.selfAttention ? PlaneScene::tr("Embeddings X; Q = X·W_Q, K = X·W_K: each row of X is a query and a key.")
                                  : PlaneScene::tr("Embeddings X (queries) and source S (keys); Q = X·W_Q, K = S·W_K."));
    }
    const QString plane = noteOnPlane(sc);
    if (!plane.isEmpty())
        note << plane;
    if (s.encoding == Encoding::Rope)
        note << (sc.forFigure ? PlaneScene::tr("RoPE rotates q and k after this: the raw vectors are shown.")
                              : PlaneScene::tr("RoPE rotates q and k after this: the raw vectors are shown and dragged."));
    else if (s.encoding != Encoding::None)
        note << (sc.forFigure ? PlaneScene::tr("The positional encoding is added after: the raw inputs are shown.")
                              : PlaneScene::tr("The positional encoding is added after: the raw inputs are shown and dragged."));
    if (sc.fullyMasked)
        note << PlaneScene::tr("Every key is blocked for this query: its weights and output are 0.");
    sc.note = note;

    if (sc.d == 0)
        return;
    auto axisTitle = [&](int dim) {
        return sc.projected ? PlaneScene::tr("x: dimension %1").arg(dim) : PlaneScene::tr("q, k: dimension %1").arg(dim);
    };
    if (sc.pca) {
        sc.horizontalTitle = PlaneScene::tr("principal direction 1 (projection)");
        sc.verticalTitle = PlaneScene::tr("principal direction 2 (projection)");
        return;
    }
    sc.horizontalTitle = axisTitle(sc.basis.axisAligned() ? sc.basis.first + 1 : 1);
    sc.verticalTitle = sc.d == 1 ? PlaneScene::tr("(none: one dimension)")
                                 : axisTitle(sc.basis.axisAligned() ? sc.basis.second + 1 : 2);
}

constexpr int kGuideKeys = 8; // circles, angles and projections for at most this many keys, the heaviest
constexpr int kNamedShares = 6; // more keys: the range of their shares in view, not each

QString percent(double share)
{
    return QString::number(std::lround(100.0 * std::clamp(share, 0.0, 1.0)));
}

// The open keys of the selected query, heaviest first (at most kGuideKeys).
std::vector<int> guideKeys(const PlaneScene &sc, const Eigen::VectorXd &weights)
{
    std::vector<int> keys;
    for (int j = 0; j < int(sc.keys.rows()); ++j)
        if (!sc.blocked[std::size_t(j)])
            keys.push_back(j);
    std::stable_sort(keys.begin(), keys.end(), [&](int a, int b) { return weights(a) > weights(b); });
    if (keys.size() > std::size_t(kGuideKeys))
        keys.resize(std::size_t(kGuideKeys));
    return keys;
}

// What the similarity compares, in the picture.
void addGeometry(PlaneScene &sc, const Eigen::VectorXd &weights)
{
    if (sc.fullyMasked || sc.query >= sc.queries.rows())
        return;
    const Eigen::Vector2d q = sc.queries.row(sc.query).transpose();
    const double qn = q.norm();
    const std::vector<int> keys = guideKeys(sc, weights);
    switch (sc.similarity) {
    case Similarity::NegSqDistance:
        for (int j : keys)
            sc.circles.push_back({q, (sc.keys.row(j).transpose() - q).norm(), j});
        break;
    case Similarity::Cosine:
        sc.circles.push_back({Eigen::Vector2d::Zero(), 1.0, -1});
        if (qn > 0) {
            for (int j : keys) {
                const Eigen::Vector2d k = sc.keys.row(j).transpose();
                if (k.norm() == 0)
                    continue;
                const double c = std::clamp(q.dot(k) / (qn * k.norm()), -1.0, 1.0);
                sc.angles.push_back({j, std::atan2(q(1), q(0)), std::atan2(k(1), k(0)), std::acos(c) * 180.0 / M_PI});
            }
        }
        break;
    case Similarity::Dot:
        if (qn > 0) {
            const Eigen::Vector2d dir = q / qn;
            sc.queryDirection = dir;
            for (int j : keys) {
                const double length = sc.keys.row(j).dot(dir);
                sc.projections.push_back({j, dir * length, length});
            }
        }
        break;
    }
}

// How much of the vectors the plane shows, and whether the picture can mislead.
void measureView(PlaneScene &sc, const Eigen::Ref<const Matrix> &q, const Eigen::Ref<const Matrix> &k, const HeadTrace &ht)
{
    const int nk = int(k.rows());
    sc.keyShown = Eigen::VectorXd::Ones(nk);
    if (sc.d <= 2)
        return;
    double total = 0, shown = 0;
    for (int j = 0; j < nk; ++j) {
        const double all = k.row(j).squaredNorm(), in = sc.keys.row(j).squaredNorm();
        sc.keyShown(j) = all > 0 ? std::min(1.0, in / all) : 1.0;
        total += all;
        shown += in;
    }
    for (Eigen::Index i = 0; i < q.rows(); ++i) {
        total += q.row(i).squaredNorm();
        shown += sc.queries.row(i).squaredNorm();
    }
    sc.spreadShown = total > 0 ? std::min(1.0, shown / total) : 1.0;
    if (sc.pca) {
        sc.shownText = PlaneScene::tr("In view: %1% of the spread (Σ‖v‖²) of keys and queries").arg(percent(sc.spreadShown));
    } else if (nk <= kNamedShares) {
        QStringList parts;
        for (int j = 0; j < nk; ++j)
            parts << QStringLiteral("%1 %2%").arg(sc.keyLabels.value(j), percent(sc.keyShown(j)));
        sc.shownText = PlaneScene::tr("In view, of each key's ‖k‖²: %1").arg(parts.join(QStringLiteral(" · ")));
    } else {
        sc.shownText = PlaneScene::tr("In view: %1%–%2% of each key's ‖k‖²")
                           .arg(percent(sc.keyShown.minCoeff()), percent(sc.keyShown.maxCoeff()));
    }

    // The key with the largest weight, as the picture shows it.
    if (sc.fullyMasked || std::size_t(sc.query) >= ht.rows.size())
        return;
    const int top = ht.rows[std::size_t(sc.query)].argmax;
    if (top < 0 || top >= nk || sc.blocked[std::size_t(top)])
        return;
    const Eigen::Vector2d qp = sc.queries.row(sc.query).transpose();
    auto pictureScore = [&](int j) {
        const Eigen::Vector2d kp = sc.keys.row(j).transpose();
        switch (sc.similarity) {
        case Similarity::Dot:
            return qp.dot(kp);
        case Similarity::Cosine:
            return qp.norm() > 0 && kp.norm() > 0 ? qp.dot(kp) / (qp.norm() * kp.norm()) : 0.0;
        case Similarity::NegSqDistance:
            return -(qp - kp).squaredNorm();
        }
        return 0.0;
    };
    const Eigen::Vector2d kTop = sc.keys.row(top).transpose();
    const double tiny = 1e-9 * std::max(1.0, qp.squaredNorm() + kTop.squaredNorm());
    const QString name = sc.keyLabels.value(top);
    if (sc.similarity != Similarity::NegSqDistance && qp.dot(kTop) < -tiny) {
        sc.misleadingKey = top;
        sc.warning = PlaneScene::tr("Careful: %1 has the largest weight, yet in this picture it points away from the "
                                    "query; the dimensions not shown decide.")
                         .arg(name);
        return;
    }
    int best = top;
    for (int j = 0; j < nk; ++j)
        if (!sc.blocked[std::size_t(j)] && pictureScore(j) > pictureScore(best) + tiny)
            best = j;
    if (best != top) {
        sc.misleadingKey = top;
        sc.warning = PlaneScene::tr("Careful: %1 has the largest weight, yet %2 looks closer to the query in this "
                                    "picture; the dimensions not shown decide.")
                         .arg(name, sc.keyLabels.value(best));
    }
}

// A 1-2-5 number near x > 0.
double roundFactor(double x)
{
    const double decade = std::pow(10.0, std::floor(std::log10(x)));
    const double m = x / decade;
    return decade * (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0);
}

// −∂L/∂v at the selected query (and at each key when keys can be dragged),
// projected with the scene's basis; drawn at 1, or scaled by a round factor
// when the longest would be lost beside the vectors or run off them.
void addArrows(PlaneScene &sc, const PlaneSettings &settings)
{
    const PlaneSettings::Gradient &g = *settings.gradient;
    auto add = [&](PlaneRole role, const Matrix &grad, int index) {
        if (index < 0 || index >= grad.rows() || grad.cols() < sc.columnOffset + sc.d)
            return;
        const Eigen::VectorXd v = -grad.row(index).segment(sc.columnOffset, sc.d).transpose();
        sc.arrows.push_back({PlaneTarget{role, index}, sc.basis.U.transpose() * v, v.norm()});
    };
    add(PlaneRole::Query, g.queries, sc.query);
    if (settings.keysDraggable)
        for (int j = 0; j < int(sc.keys.rows()); ++j)
            add(PlaneRole::Key, g.keys, j);
    double extent = 0, longest = 0;
    for (Eigen::Index r = 0; r < sc.queries.rows(); ++r)
        extent = std::max(extent, sc.queries.row(r).norm());
    for (Eigen::Index r = 0; r < sc.keys.rows(); ++r)
        extent = std::max(extent, sc.keys.row(r).norm());
    for (const PlaneArrow &a : sc.arrows)
        longest = std::max(longest, a.step.norm());
    if (longest > 0 && extent > 0 && (longest < 0.15 * extent || longest > 0.8 * extent))
        sc.arrowScale = roundFactor(0.4 * extent / longest);
}

} // namespace

PlaneScene makePlaneScene(const Scenario &s, const Trace &t, const PlaneSettings &settings)
{
    PlaneScene sc;
    sc.projected = s.mode == InputMode::Projected;
    sc.selfAttention = sc.projected && !s.source;
    sc.heads = s.heads;
    sc.head = std::clamp(settings.head, 0, std::max(0, int(t.heads.size()) - 1));
    sc.query = std::clamp(settings.query, 0, std::max(0, queryCount(s) - 1));
    sc.d = sc.projected ? modelWidth(s) : headDim(s);
    sc.dv = t.dv;
    sc.queryMatrix = sc.projected ? MatrixId::X : MatrixId::Q;
    sc.keyMatrix = sc.projected ? (s.source ? MatrixId::Source : MatrixId::X) : MatrixId::K;
    sc.columnOffset = sc.projected ? 0 : sc.head * sc.d;
    sc.forFigure = settings.forFigure;
    sc.keysDraggable = settings.keysDraggable;
    sc.horizontal = settings.horizontal;
    sc.vertical = settings.vertical;

    if (sc.d > 0 && !t.heads.empty()) {
        const Matrix &qm = matrix(s, sc.queryMatrix), &km = matrix(s, sc.keyMatrix);
        const auto q = qm.middleCols(sc.columnOffset, sc.d), k = km.middleCols(sc.columnOffset, sc.d);
        choosePlane(sc, settings, q, k);
        sc.queries = projectRows(sc.basis, q);
        sc.keys = projectRows(sc.basis, k);

        const HeadTrace &ht = t.heads[std::size_t(sc.head)];
        sc.weights = ht.weights.row(sc.query).transpose();
        sc.blocked.assign(std::size_t(k.rows()), false);
        if (t.blocked.rows() > sc.query)
            for (Eigen::Index j = 0; j < k.rows() && j < t.blocked.cols(); ++j)
                sc.blocked[std::size_t(j)] = t.blocked(sc.query, j);
        sc.fullyMasked = std::size_t(sc.query) < ht.rows.size() && ht.rows[std::size_t(sc.query)].fullyMasked;
        if (sc.dv == 2) {
            sc.values = ht.V;
            sc.output = ht.output.row(sc.query).transpose();
        }
    }
    if (settings.hideWeights)
        hideSceneWeights(sc);
    sc.queryLabels = toLabels(queryLabels(s));
    sc.keyLabels = toLabels(keyLabels(s));
    writeText(sc, s);
    sc.similarity = s.similarity;
    if (sc.d > 0 && !t.heads.empty()) {
        const Matrix &qm = matrix(s, sc.queryMatrix), &km = matrix(s, sc.keyMatrix);
        const HeadTrace &ht = t.heads[std::size_t(sc.head)];
        addGeometry(sc, ht.weights.row(sc.query).transpose());
        measureView(sc, qm.middleCols(sc.columnOffset, sc.d), km.middleCols(sc.columnOffset, sc.d), ht);
    }

    const int nq = int(sc.queries.rows()), nk = int(sc.keys.rows());
    auto inRange = [&](const PlaneTarget &target) {
        return target.isValid() && target.index < (target.role == PlaneRole::Query ? nq : nk);
    };
    sc.hovered = inRange(settings.hovered) ? settings.hovered : PlaneTarget{};
    sc.dragged = inRange(settings.dragged) ? settings.dragged : PlaneTarget{};
    sc.hoveredKey = sc.hovered.isValid() && sc.hovered.role == PlaneRole::Key ? sc.hovered.index : settings.hoveredKey;
    if (sc.hoveredKey >= nk)
        sc.hoveredKey = -1;
    sc.selectedKey = settings.keysDraggable && settings.selectedKey < nk ? settings.selectedKey : -1;
    if (settings.gradient && sc.d > 0 && !t.heads.empty())
        addArrows(sc, settings);
    return sc;
}

QString PlaneScene::caption() const
{
    return title + QLatin1Char('\n') + note.join(QLatin1Char(' '));
}

Eigen::Vector2d PlaneScene::pointOf(const PlaneTarget &t) const
{
    const Matrix &m = t.role == PlaneRole::Query ? queries : keys;
    return m.row(t.index).transpose();
}

QString PlaneScene::nameOf(const PlaneTarget &t) const
{
    if (t.role == PlaneRole::Query)
        return (projected ? tr("embedding %1") : tr("query %1")).arg(queryLabels.value(t.index));
    return (projected ? (selfAttention ? tr("embedding %1") : tr("source %1")) : tr("key %1")).arg(keyLabels.value(t.index));
}

void hideSceneWeights(PlaneScene &sc)
{
    sc.hideWeights = true;
    sc.weights.setZero();
    sc.output.reset();
}

} // namespace attn
