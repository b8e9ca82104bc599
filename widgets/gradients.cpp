#include "gradients.h"

#include <QCoreApplication>

#include <cmath>

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
// For dark figures: lightness rises from a near-black centre to light ends,
// blue for negative and orange for positive (the hues of ColorBrewer's
// RdBu/PuOr ends, which colour-blind viewers tell apart), symmetric in
// lightness so that equal |s| look equally strong.
constexpr QRgb kBlueBlackOrange[] = {
    0xd6ecff, 0x9fd0f5, 0x5fa8df, 0x2f79b8, 0x1d4a75, 0x1c1c1c,
    0x74421a, 0xb8661d, 0xe79137, 0xf8c07a, 0xffe6c4,
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
    case DivergingGradient::BlueBlackOrange: return fromBrewer(kBlueBlackOrange);
    }
    return fromBrewer(kBlueRed);
}

QList<SequentialGradient> allSequentialGradients()
{
    return {SequentialGradient::Viridis, SequentialGradient::Cividis, SequentialGradient::Magma};
}

QList<DivergingGradient> allDivergingGradients()
{
    // BlueBlackOrange is the dark theme's own, not a menu choice.
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
    case DivergingGradient::BlueBlackOrange: return GradientText::tr("Blue–black–orange (dark figures)");
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
    case DivergingGradient::BlueBlackOrange: return QStringLiteral("blue-black-orange");
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

// --- themes ---------------------------------------------------------------

PlotTheme plotTheme(FigureTheme theme)
{
    PlotTheme t;
    t.id = theme;
    switch (theme) {
    case FigureTheme::Default:
        t.background = QColor(Qt::white);
        t.ink = QColor(0x1a, 0x1a, 0x1a);
        t.noteInk = QColor(0x4d, 0x4d, 0x4d);
        t.frame = QColor(0x40, 0x40, 0x40);
        t.separator = QColor(Qt::white);
        t.blockedFill = QColor(0xd4, 0xd4, 0xd4);
        t.blockedHatch = QColor(0x8c, 0x8c, 0x8c);
        t.blockedText = QColor(0x26, 0x26, 0x26);
        t.hiddenFill = QColor(0xe8, 0xe4, 0xdc);
        t.grid = QColor(0xe2, 0xe2, 0xe2);
        t.axis = QColor(0x5a, 0x5a, 0x5a);
        break;
    case FigureTheme::ContrastLight:
        // Black on white; blocked cells white with black hatching, so that
        // no grey sits next to the colours; borders twice as wide.
        t.background = QColor(Qt::white);
        t.ink = QColor(Qt::black);
        t.noteInk = QColor(Qt::black);
        t.frame = QColor(Qt::black);
        t.separator = QColor(Qt::white);
        t.separatorWidth = 2.0;
        t.blockedFill = QColor(Qt::white);
        t.blockedHatch = QColor(Qt::black);
        t.blockedText = QColor(Qt::black);
        t.hiddenFill = QColor(0xe0, 0xe0, 0xe0);
        t.grid = QColor(0x76, 0x76, 0x76); // 4.5:1 on white: visible from the back
        t.axis = QColor(Qt::black);
        break;
    case FigureTheme::ContrastDark:
        t.dark = true;
        t.background = QColor(Qt::black);
        t.ink = QColor(Qt::white);
        t.noteInk = QColor(Qt::white);
        t.frame = QColor(Qt::white);
        t.separator = QColor(Qt::black);
        t.separatorWidth = 2.0;
        t.blockedFill = QColor(Qt::black);
        t.blockedHatch = QColor(Qt::white);
        t.blockedText = QColor(Qt::white);
        t.hiddenFill = QColor(0x33, 0x33, 0x33);
        t.grid = QColor(0x8a, 0x8a, 0x8a); // 6.5:1 on black
        t.axis = QColor(Qt::white);
        break;
    }
    return t;
}

DivergingGradient themedDiverging(FigureTheme theme, DivergingGradient chosen)
{
    return plotTheme(theme).dark ? DivergingGradient::BlueBlackOrange : chosen;
}

QList<FigureTheme> allFigureThemes()
{
    return {FigureTheme::Default, FigureTheme::ContrastLight, FigureTheme::ContrastDark};
}

QString displayName(FigureTheme theme)
{
    switch (theme) {
    case FigureTheme::Default: return GradientText::tr("Default");
    case FigureTheme::ContrastLight: return GradientText::tr("High contrast, light (projector)");
    case FigureTheme::ContrastDark: return GradientText::tr("High contrast, dark (projector)");
    }
    return QString();
}

QString settingsKey(FigureTheme theme)
{
    switch (theme) {
    case FigureTheme::Default: return QStringLiteral("default");
    case FigureTheme::ContrastLight: return QStringLiteral("contrast-light");
    case FigureTheme::ContrastDark: return QStringLiteral("contrast-dark");
    }
    return QString();
}

std::optional<FigureTheme> figureThemeFromKey(const QString &key)
{
    const QString k = key.trimmed().toLower();
    for (FigureTheme t : allFigureThemes())
        if (settingsKey(t) == k)
            return t;
    return std::nullopt;
}

double relativeLuminance(const QColor &c)
{
    auto lin = [](double s) { return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4); };
    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
}

double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace attn
