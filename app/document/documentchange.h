#pragma once
// What one change of the document touched, so that each view redraws only
// for what it shows (as Tiled's ChangeEvent). The trace is already
// recomputed when a view hears of it.

#include "attention.h"
#include "edit.h"

#include <QFlags>
#include <QMetaType>

#include <optional>

namespace attn {

enum class ChangeKind {
    Values = 0x1,   // numbers in the matrices
    Shape = 0x2,    // sizes, heads or mode: models reset
    Labels = 0x4,   // token labels
    Settings = 0x8, // similarity, scale, temperature, mask, encoding, seed
    Text = 0x10,    // title, description
};
Q_DECLARE_FLAGS(ChangeKinds, ChangeKind)

} // namespace attn

Q_DECLARE_OPERATORS_FOR_FLAGS(attn::ChangeKinds)

namespace attn {

struct DocumentChange {
    DocumentChange() = default;
    DocumentChange(ChangeKinds k) : kinds(k) {} // NOLINT: a kind alone is a change
    DocumentChange(ChangeKinds k, MatrixId id, int first, int count)
        : kinds(k), matrix(id), firstRow(first), rowCount(count) {}

    ChangeKinds kinds;
    // A change of some rows of one matrix (a drag, a nudge, a cell edit):
    // that matrix and its rows [firstRow, firstRow + rowCount). Empty for
    // every other change, which may touch any number anywhere.
    std::optional<MatrixId> matrix;
    int firstRow = 0;
    int rowCount = 0;
    // Set when the trace was brought up to date for that row alone
    // (attn::updateRow): which rows and columns of which stages changed, so
    // that a view can redraw just those. Unset: any number may have changed.
    std::optional<TraceDelta> trace;
    // A settings change that left the trace's scores as they were
    // (attn::scoresSurvive: a mask, its stage, the softmax, the scale or
    // the temperature); `scaledKept`: the scaled stage too (the same c · τ).
    // The maps of those stages keep their cells.
    bool scoresKept = false;
    bool scaledKept = false;

    bool has(ChangeKind k) const { return kinds.testFlag(k); }
    bool any(ChangeKinds k) const { return (kinds & k) != ChangeKinds(); }
    // Numbers only, in the rows of one matrix.
    bool isRowChange() const { return matrix.has_value() && kinds == ChangeKinds(ChangeKind::Values); }

    static DocumentChange all()
    {
        return {ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings | ChangeKind::Text};
    }
    static DocumentChange rows(MatrixId id, int first, int count)
    {
        return {ChangeKind::Values, id, first, count};
    }
};

} // namespace attn

Q_DECLARE_METATYPE(attn::DocumentChange)
