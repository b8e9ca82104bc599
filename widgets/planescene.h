#pragma once
// What the vector plane draws, made by a pure function from the scenario,
// its trace and the view's choices: the
// plot (PlanePlot) draws a PlaneScene it is given and the document-bound
// panel and drag tool (app/views) make one whenever the document changes.
// Nothing here knows a widget or the document, so it is tested alone.
//
// What is shown. Direct mode: the head's columns of Q and K (d = d_k).
// Projected mode: the embeddings, rows of X as queries and rows of the
// source (or X again, in self-attention) as keys (d = d_model). With a
// positional encoding the raw inputs are shown; the note says the encoding
// is added after. d = 2 is drawn exactly; for d > 2 two chosen dimensions or
// the PCA plane of all keys and queries (see projection.h).

#include "attention.h"
#include "edit.h"
#include "projection.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace attn {

enum class PlaneRole { Query, Key };

// One vector of the plane: query row `index` or key row `index`.
struct PlaneTarget {
    PlaneRole role = PlaneRole::Query;
    int index = -1;
    bool isValid() const { return index >= 0; }
    bool operator==(const PlaneTarget &) const = default;
};

// The view's choices: which head and query, which plane, and what the
// pointer and the keyboard single out. Out-of-range choices are corrected
// in the scene (the scene says what it used).
struct PlaneSettings {
    int head = 0;
    int query = 0;
    int horizontal = 0; // 0-based dimensions when d > 2 and not PCA
    int vertical = 1;
    bool pca = false;   // the PCA plane when d > 2
    // A PCA plane to keep (the one the last scene used), so the picture does
    // not turn under a drag or a nudge. Empty, axis-aligned or of another
    // width: the plane is fitted to the vectors as they are.
    std::optional<PlaneBasis> basis;
    bool forFigure = false;     // a picture for a slide: no "drag it" in the legend or note
    bool keysDraggable = false; // the tooltips say keys can be dragged
    PlaneTarget hovered;        // the vector under the pointer (a ring)
    int hoveredKey = -1;        // a key lit elsewhere (the maps) for the selected query
    int selectedKey = -1;       // the key the arrow keys move (a dashed ring), or -1
    PlaneTarget dragged;        // the vector being dragged, if any
    bool hideWeights = false;   // predict, then reveal: no weights, discs or output shown
    // The gradient lens (app/views/gradientlens): dL/d of the matrices whose
    // rows are drawn, full width (queryMatrix, keyMatrix). An arrow −∂L/∂v
    // is drawn at the selected query, and at each key when keys can be
    // dragged. None: no arrows.
    struct Gradient {
        Matrix queries; // the shape of the query matrix
        Matrix keys;    // the shape of the key matrix
    };
    std::optional<Gradient> gradient;
};

// The direction gradient descent would move a vector: −∂L/∂v, drawn from
// the vector's point in the plane's frame.
struct PlaneArrow {
    PlaneTarget target;
    Eigen::Vector2d step = Eigen::Vector2d::Zero(); // −∂L/∂v projected onto the plane (U^T)
    double length = 0;                              // ‖∂L/∂v‖ over the columns shown (all of d)
};

// The geometry the similarity compares (the "plane that tells the
// truth"), in plane coordinates.
struct PlaneCircle {
    Eigen::Vector2d centre = Eigen::Vector2d::Zero();
    double radius = 0;
    int key = -1; // the key the circle passes through; -1: the unit circle
};
struct PlaneProjection {
    int key = -1;
    Eigen::Vector2d foot = Eigen::Vector2d::Zero(); // the key's foot on the query's line
    double length = 0;                             // signed: k·q/|q| in the plane
};
struct PlaneAngle {
    int key = -1;
    double from = 0, to = 0; // radians: the query's direction, the key's
    double degrees = 0;      // the angle between them, 0 … 180
};

struct PlaneScene {
    Q_DECLARE_TR_FUNCTIONS(attn::PlaneScene)

public:
    int d = 0;     // width of the vectors shown (d_k, or d_model when projected); 0: nothing to draw
    int dv = 0;    // d_v of the head
    int head = 0;  // 0-based, clamped to the heads there are
    int heads = 1;
    int query = 0; // the selected query, clamped
    bool projected = false;
    bool selfAttention = false; // projected: the keys are the rows of X

    // The rows drawn: queries are rows of queryMatrix, keys of keyMatrix
    // (Q, K; or X, source; X, X in self-attention), columns
    // [columnOffset, columnOffset + d).
    MatrixId queryMatrix = MatrixId::Q;
    MatrixId keyMatrix = MatrixId::K;
    int columnOffset = 0;

    PlaneBasis basis;   // the plane: d by 2
    bool pca = false;   // the basis is a PCA projection (d > 2)
    int horizontal = 0; // the dimensions shown when axis-aligned (corrected)
    int vertical = 1;

    // Plane coordinates: rows are vectors, columns (x, y).
    Matrix queries;                        // n_q by 2
    Matrix keys;                           // n_k by 2
    Matrix values;                         // n_k by 2 when d_v = 2, else empty
    std::optional<Eigen::Vector2d> output; // the selected query's output (d_v = 2)
    Eigen::VectorXd weights;               // n_k: the selected query's weights
    std::vector<bool> blocked;             // n_k: blocked for the selected query
    bool fullyMasked = false;              // every key blocked for the selected query
    QStringList queryLabels, keyLabels;

    // Text: the title, the note (sentences, the first the most important),
    // the axis titles.
    QString title;
    QStringList note;
    QString horizontalTitle, verticalTitle;

    bool forFigure = false;
    bool keysDraggable = false;
    bool hideWeights = false; // the weights are hidden: equal discs, no numbers, no output
    PlaneTarget hovered;
    int hoveredKey = -1; // the key ringed as hovered (the plane's own hover or the maps')
    int selectedKey = -1;
    PlaneTarget dragged;

    // What the similarity compares, drawn for the selected query and its
    // open keys (none when the query is fully masked or has length 0):
    //   distance (−‖q − k‖²): a circle around the query through each key;
    //   cosine: the unit circle (key −1) and each key's angle to the query;
    //   dot: each key's projection onto the query's direction.
    Similarity similarity = Similarity::Dot;
    std::vector<PlaneCircle> circles;
    std::vector<PlaneAngle> angles;
    std::vector<PlaneProjection> projections;
    std::optional<Eigen::Vector2d> queryDirection; // dot: the unit direction of the query's line

    // How much the plane shows when d > 2 (1 when it shows everything):
    // spreadShown, the share of Σ‖v‖² of the keys and queries drawn that
    // lies in the plane (PCA: explained(0) + explained(1)); keyShown, each
    // key's share of its own ‖k‖² in the plane (1 for a zero key).
    double spreadShown = 1.0;
    Eigen::VectorXd keyShown; // n_k
    QString shownText;        // "In view: 83% of the spread", "In view: a 100% · b 0% …"; empty when d <= 2
    // The picture can mislead: the key with the largest weight points away
    // from the query in the picture, or another key looks more similar
    // there. The key, and a sentence saying so; -1 and empty otherwise.
    int misleadingKey = -1;
    QString warning;

    // The gradient lens's arrows (PlaneSettings::gradient), and the factor
    // they are drawn at: 1, or a round factor that makes the longest of them
    // readable beside the vectors (arrowScale × step is drawn).
    std::vector<PlaneArrow> arrows;
    double arrowScale = 1.0;

    bool isEmpty() const { return d == 0; }
    // The title and the whole note, as one text.
    QString caption() const;
    // Plane coordinates of a vector drawn (a valid target).
    Eigen::Vector2d pointOf(const PlaneTarget &t) const;
    // "query q1", "key k2", "embedding 我", "source 猫".
    QString nameOf(const PlaneTarget &t) const;
    // The matrix whose rows are the queries or the keys.
    MatrixId matrixOf(PlaneRole role) const { return role == PlaneRole::Query ? queryMatrix : keyMatrix; }
};

// The scene of `s` (with its trace `t`) as `settings` choose to show it.
// Pure: the same arguments give the same scene.
PlaneScene makePlaneScene(const Scenario &s, const Trace &t, const PlaneSettings &settings);

// What PlaneSettings::hideWeights does to a scene: zero weights (equal
// discs), no output, hideWeights set (no numbers in labels or tooltips).
void hideSceneWeights(PlaneScene &sc);

} // namespace attn
