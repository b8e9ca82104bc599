#include "gpt2_ops.h"

#include "fastexp.h"

#include <cmath>

namespace attn::gpt2ops {

Matrix layerNorm(const Matrix &x, const Eigen::RowVectorXd &g, const Eigen::RowVectorXd &b, double eps,
                 Matrix *normalized, Eigen::VectorXd *rstd)
{
    Matrix out(x.rows(), x.cols());
    if (normalized)
        normalized->resize(x.rows(), x.cols());
    if (rstd)
        rstd->resize(x.rows());
    const double d = double(x.cols());
    // Column by column (the matrix is column-major, so a row is strided): the
    // rows' means, centred entries and variances for all rows at once; a row
    // whose variance is not finite takes the careful path below.
    const Eigen::VectorXd means = x.rowwise().sum() / d;                       // rows
    Matrix centred = x.colwise() - means;                                       // rows by d
    const Eigen::VectorXd vars = centred.array().square().rowwise().sum() / d;  // rows
    const Eigen::VectorXd sd = (vars.array() + eps).sqrt();
    const bool allFinite = means.allFinite() && vars.allFinite();
    if (allFinite) {
        centred.array().colwise() /= sd.array();
        out = (centred.array().rowwise() * g.array()).rowwise() + b.array();
        if (rstd)
            *rstd = sd.cwiseInverse();
        if (normalized)
            *normalized = std::move(centred);
        return out;
    }
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const double mean = x.row(i).sum() / d;
        const Eigen::RowVectorXd centred = x.row(i).array() - mean;
        const double var = centred.squaredNorm() / d;
        if (std::isfinite(mean) && std::isfinite(var)) {
            const double s = std::sqrt(var + eps);
            const Eigen::RowVectorXd n = centred / s;
            out.row(i) = n.cwiseProduct(g) + b;
            if (normalized)
                normalized->row(i) = n;
            if (rstd)
                (*rstd)(i) = 1.0 / s;
            continue;
        }
        // A finite row too large to sum or square (entries above ~1e154):
        // the same formula on the row divided by its largest entry.
        const double s = x.row(i).cwiseAbs().maxCoeff();
        const Eigen::RowVectorXd y = x.row(i) / s;
        const Eigen::RowVectorXd cy = y.array() - y.sum() / d;
        const double vy = cy.squaredNorm() / d + eps / (s * s);
        const Eigen::RowVectorXd n = vy > 0 ? Eigen::RowVectorXd(cy / std::sqrt(vy))
                                            : Eigen::RowVectorXd::Zero(x.cols()); // every entry the same: centred, it is 0
        out.row(i) = vy > 0 ? Eigen::RowVectorXd(n.cwiseProduct(g) + b) : Eigen::RowVectorXd(b);
        if (normalized)
            normalized->row(i) = n;
        if (rstd)
            (*rstd)(i) = vy > 0 ? 1.0 / (s * std::sqrt(vy)) : 0.0;
    }
    return out;
}

// Small products (a short sentence through a small model) are summed
// directly: Eigen's blocked product would pack b, a whole weight matrix,
// into a fresh buffer on every call, which costs more than the product
// itself when a has a few dozen rows.
Matrix product(const Matrix &a, const Matrix &b)
{
    if (double(a.rows()) * double(a.cols()) * double(b.cols()) <= 4e6) {
        // Rows of a against columns of b: both contiguous, so each entry is
        // one vectorised dot product.
        const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = a;
        return rows.lazyProduct(b);
    }
    return a * b;
}

Matrix gelu(const Matrix &x, bool tanhApprox, Matrix *inner)
{
    if (tanhApprox && inner) {
        const double c = std::sqrt(2.0 / M_PI);
        // tanh(u) = 1 - 2 / (exp(2u) + 1): fastExp is several times faster than
        // std::tanh, and the result is within a few 1e-16 of it (absolute;
        // 1 + t and 1 - t² are all GELU uses), exp(2u) = inf giving 1.
        *inner = x.unaryExpr([c](double v) { return 1.0 - 2.0 / (fastExp(2.0 * c * (v + 0.044715 * v * v * v)) + 1.0); });
        return x.binaryExpr(*inner, [](double v, double t) { return 0.5 * v * (1.0 + t); });
    }
    if (tanhApprox) {
        const double c = std::sqrt(2.0 / M_PI);
        return x.unaryExpr([c](double v) { return 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v))); });
    }
    return x.unaryExpr([](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); });
}

Matrix geluDerivative(const Matrix &x, bool tanhApprox, const Matrix *inner)
{
    if (tanhApprox && inner) {
        const double c = std::sqrt(2.0 / M_PI);
        return x.binaryExpr(*inner, [c](double v, double t) {
            return 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * c * (1.0 + 3 * 0.044715 * v * v);
        });
    }
    if (tanhApprox) {
        const double c = std::sqrt(2.0 / M_PI);
        return x.unaryExpr([c](double v) {
            const double t = std::tanh(c * (v + 0.044715 * v * v * v));
            return 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * c * (1.0 + 3 * 0.044715 * v * v);
        });
    }
    return x.unaryExpr([](double v) {
        return 0.5 * (1.0 + std::erf(v / std::sqrt(2.0))) + v * std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI);
    });
}

} // namespace attn::gpt2ops
