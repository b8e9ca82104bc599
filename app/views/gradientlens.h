#pragma once
// The gradient lens's choice of loss, shared by the lens panel (its maps)
// and the vector plane (its arrows): both compute the gradients from the
// document as it is when they draw, so they agree and follow every edit and
// drag in the same frame. Small matrices: backward() costs microseconds.

#include "backward.h"
#include "document.h"
#include "planescene.h"

#include <QObject>

#include <optional>

namespace attn {

class GradientLens : public QObject {
    Q_OBJECT

public:
    enum class Kind {
        Attend,        // "make every query attend to key J"
        TowardsValue,  // "move the query's output towards token J's value"
        TowardsVector, // "move the query's output towards a typed vector"
    };

    explicit GradientLens(Document *doc, QObject *parent = nullptr);

    Kind kind() const { return m_kind; }
    void setKind(Kind kind);
    // The key (Attend) or token (TowardsValue), 0-based; clamped to the keys there are.
    int token() const { return m_token; }
    void setToken(int token);
    const Eigen::RowVectorXd &typedVector() const { return m_vector; }
    void setTypedVector(const Eigen::RowVectorXd &v);
    // The arrows on the plane; off until the lens is first shown.
    bool arrowsShown() const { return m_arrows; }
    void setArrowsShown(bool on);

    struct State {
        std::optional<Loss> loss;       // none with a problem in the loss itself
        std::optional<Problem> problem; // the loss cannot be made, or its gradient is undefined
        std::optional<Gradients> grad;  // when defined
        double value = 0;               // the loss, when there is one
    };
    // The loss and its gradients for the document now (query: the document's).
    State compute() const;
    // The loss alone (for a descent's curve); nullopt with a problem.
    std::optional<double> lossNow() const;
    // The same loss (the document's query) for another scenario of the
    // same shape: a step tried before it is taken.
    std::optional<double> lossOf(const Scenario &s) const;
    // What the plane draws arrows from: dL/d of its query and key matrices.
    std::optional<PlaneSettings::Gradient> planeGradient(MatrixId queries, MatrixId keys) const;

signals:
    void changed();

private:
    Result<Loss> makeLoss(const Scenario &s, const Trace &t) const;

    Document *m_doc;
    Kind m_kind = Kind::Attend;
    int m_token = 0;
    Eigen::RowVectorXd m_vector;
    bool m_arrows = false;
};

} // namespace attn
