#include "gradients.h"

#include <QCoreApplication>

namespace attn {

namespace {

// Translation context for the names (free functions have no tr()).
class GradientText {
    Q_DECLARE_TR_FUNCTIONS(attn::Gradients)
};

struct Stop {
    int index;       // entry of the published 256-entry table
    double r, g, b;  // 0..1
};

// Every 16th entry (and the last) of matplotlib's 256-entry tables, so the
// linear RGB interpolation between stops stays within a unit of the original.
constexpr Stop kViridis[] = {
    {0, 0.267004, 0.004874, 0.329415},   {16, 0.282327, 0.094955, 0.417331},
    {32, 0.278826, 0.175490, 0.483397},  {48, 0.258965, 0.251537, 0.524736},
    {64, 0.229739, 0.322361, 0.545706},  {80, 0.199430, 0.387607, 0.554642},
    {96, 0.172719, 0.448791, 0.557885},  {112, 0.149039, 0.508051, 0.557250},
    {128, 0.127568, 0.566949, 0.550556}, {144, 0.120638, 0.625828, 0.533488},
    {160, 0.157851, 0.683765, 0.501686}, {176, 0.246070, 0.738910, 0.452024},
    {192, 0.369214, 0.788888, 0.382914}, {208, 0.515992, 0.831158, 0.294279},
    {224, 0.678489, 0.863742, 0.189503}, {240, 0.845561, 0.887322, 0.099702},
    {255, 0.993248, 0.906157, 0.143936},
};

constexpr Stop kCividis[] = {
    {0, 0.000000, 0.135112, 0.304751},   {16, 0.000000, 0.178802, 0.414764},
    {32, 0.103401, 0.220406, 0.435790},  {48, 0.195057, 0.264372, 0.425924},
    {64, 0.263738, 0.307831, 0.422789},  {80, 0.324250, 0.351289, 0.426250},
    {96, 0.380830, 0.395164, 0.435653},  {112, 0.435168, 0.439763, 0.451134},
    {128, 0.488697, 0.485318, 0.471008}, {144, 0.547840, 0.531895, 0.471704},
    {160, 0.609105, 0.579816, 0.463638}, {176, 0.671991, 0.629316, 0.448018},
    {192, 0.736488, 0.680629, 0.424028}, {208, 0.802667, 0.733978, 0.390153},
    {224, 0.870717, 0.789572, 0.343333}, {240, 0.941147, 0.847530, 0.275815},
    {255, 0.995737, 0.909344, 0.217772},
};

constexpr Stop kMagma[] = {
    {0, 0.001462, 0.000466, 0.013866},   {16, 0.039608, 0.031090, 0.133515},
    {32, 0.113094, 0.065492, 0.276784},  {48, 0.211718, 0.061992, 0.418647},
    {64, 0.316654, 0.071690, 0.485380},  {80, 0.414709, 0.110431, 0.504662},
    {96, 0.512831, 0.148179, 0.507648},  {112, 0.613617, 0.181811, 0.498536},
    {128, 0.716387, 0.214982, 0.475290}, {144, 0.816914, 0.255895, 0.436461},
    {160, 0.904281, 0.319610, 0.388137}, {176, 0.960949, 0.418323, 0.359630},
    {192, 0.986700, 0.535582, 0.382210}, {208, 0.996096, 0.653659, 0.446213},
    {224, 0.996898, 0.769591, 0.534892}, {240, 0.992440, 0.884330, 0.640099},
    {255, 0.987053, 0.991438, 0.749504},
};

// ColorBrewer 11-class schemes, listed from the negative end: RdBu and PuOr
// reversed, so negative is blue (purple) and positive red (orange).
constexpr QRgb kBlueRed[] = {
    0x053061, 0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7,
    0xfddbc7, 0xf4a582, 0xd6604d, 0xb2182b, 0x67001f,
};
constexpr QRgb kPurpleOrange[] = {
    0x2d004b, 0x542788, 0x8073ac, 0xb2abd2, 0xd8daeb, 0xf7f7f7,
    0xfee0b6, 0xfdb863, 0xe08214, 0xb35806, 0x7f3b08,
};

// Odd, so that position 0.5 is a level of its own.
constexpr int kLevelCount = 511;

QCPColorGradient baseGradient()
{
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(kLevelCount);
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(gradientNanColor());
    return g;
}

template <std::size_t N>
QCPColorGradient fromTable(const Stop (&stops)[N])
{
    QCPColorGradient g = baseGradient();
    for (const Stop &s : stops)
        g.setColorStopAt(s.index / 255.0, QColor::fromRgbF(float(s.r), float(s.g), float(s.b)));
    return g;
}

template <std::size_t N>
QCPColorGradient fromBrewer(const QRgb (&colors)[N])
{
    QCPColorGradient g = baseGradient();
    for (std::size_t i = 0; i < N; ++i)
        g.setColorStopAt(double(i) / double(N - 1), QColor(colors[i]));
    return g;
}

} // namespace

QColor gradientNanColor()
{
    return QColor(128, 128, 128);
}

QCPColorGradient sequentialGradient(SequentialGradient g)
{
    switch (g) {
    case SequentialGradient::Viridis: return fromTable(kViridis);
    case SequentialGradient::Cividis: return fromTable(kCividis);
    case SequentialGradient::Magma: return fromTable(kMagma);
    }
    return fromTable(kViridis);
}

QCPColorGradient divergingGradient(DivergingGradient g)
{
    switch (g) {
    case DivergingGradient::BlueRed: return fromBrewer(kBlueRed);
    case DivergingGradient::PurpleOrange: return fromBrewer(kPurpleOrange);
    }
    return fromBrewer(kBlueRed);
}

QList<SequentialGradient> allSequentialGradients()
{
    return {SequentialGradient::Viridis, SequentialGradient::Cividis, SequentialGradient::Magma};
}

QList<DivergingGradient> allDivergingGradients()
{
    return {DivergingGradient::BlueRed, DivergingGradient::PurpleOrange};
}

QString displayName(SequentialGradient g)
{
    switch (g) {
    case SequentialGradient::Viridis: return GradientText::tr("Viridis");
    case SequentialGradient::Cividis: return GradientText::tr("Cividis");
    case SequentialGradient::Magma: return GradientText::tr("Magma");
    }
    return QString();
}

QString displayName(DivergingGradient g)
{
    switch (g) {
    case DivergingGradient::BlueRed: return GradientText::tr("Blue–white–red");
    case DivergingGradient::PurpleOrange: return GradientText::tr("Purple–white–orange");
    }
    return QString();
}

QString settingsKey(SequentialGradient g)
{
    switch (g) {
    case SequentialGradient::Viridis: return QStringLiteral("viridis");
    case SequentialGradient::Cividis: return QStringLiteral("cividis");
    case SequentialGradient::Magma: return QStringLiteral("magma");
    }
    return QString();
}

QString settingsKey(DivergingGradient g)
{
    switch (g) {
    case DivergingGradient::BlueRed: return QStringLiteral("blue-red");
    case DivergingGradient::PurpleOrange: return QStringLiteral("purple-orange");
    }
    return QString();
}

std::optional<SequentialGradient> sequentialGradientFromKey(const QString &key)
{
    const QString k = key.trimmed().toLower();
    for (SequentialGradient g : allSequentialGradients())
        if (settingsKey(g) == k)
            return g;
    return std::nullopt;
}

std::optional<DivergingGradient> divergingGradientFromKey(const QString &key)
{
    const QString k = key.trimmed().toLower();
    for (DivergingGradient g : allDivergingGradients())
        if (settingsKey(g) == k)
            return g;
    return std::nullopt;
}

} // namespace attn
