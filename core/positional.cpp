#include "positional.h"

#include "random.h"

#include <cmath>

namespace attn {

Matrix sinusoidalTable(int n, int w)
{
    Matrix pe(n, w);
    for (int c = 0; c < w; ++c) {
        const int i = c / 2;
        const double frequency = std::pow(10000.0, -2.0 * i / w);
        for (int p = 0; p < n; ++p) {
            const double angle = p * frequency;
            pe(p, c) = (c % 2 == 0) ? std::sin(angle) : std::cos(angle);
        }
    }
    return pe;
}

Matrix learnedTable(int n, int w, std::uint64_t seed)
{
    Matrix pe(n, w);
    const std::uint64_t base = splitmix64(seed);
    for (int p = 0; p < n; ++p)
        for (int c = 0; c < w; ++c) {
            const std::uint64_t bits = splitmix64(base ^ splitmix64((std::uint64_t(p) << 32) | std::uint32_t(c)));
            pe(p, c) = 2.0 * unitFromBits(bits) - 1.0;
        }
    return pe;
}

Matrix additiveTable(Encoding e, int n, int w, std::uint64_t seed)
{
    switch (e) {
    case Encoding::Sinusoidal:
        return sinusoidalTable(n, w);
    case Encoding::Learned:
        return learnedTable(n, w, seed);
    case Encoding::None:
    case Encoding::Rope:
        break;
    }
    return Matrix();
}

Matrix ropeAngles(int n, int d)
{
    Matrix theta(n, d / 2);
    for (int i = 0; i < d / 2; ++i) {
        const double frequency = std::pow(10000.0, -2.0 * i / d);
        for (int p = 0; p < n; ++p)
            theta(p, i) = p * frequency;
    }
    return theta;
}

Matrix applyRope(const Eigen::Ref<const Matrix> &x, const Eigen::Ref<const Matrix> &angles)
{
    Matrix out(x.rows(), x.cols());
    for (Eigen::Index p = 0; p < x.rows(); ++p)
        for (Eigen::Index i = 0; i < angles.cols(); ++i) {
            const double c = std::cos(angles(p, i)), s = std::sin(angles(p, i));
            const double a = x(p, 2 * i), b = x(p, 2 * i + 1);
            out(p, 2 * i) = a * c - b * s;
            out(p, 2 * i + 1) = a * s + b * c;
        }
    return out;
}

} // namespace attn
