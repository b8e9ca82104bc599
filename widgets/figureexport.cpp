#include "figureexport.h"

#include "formula.h"
#include "planeplot.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <qcustomplot.h>

#include <functional>

namespace attn {

namespace {

constexpr int kExportDpi = 96; // font points to pixels as on a usual screen

// Translation context for the names (free functions have no tr()).
class FigureText {
    Q_DECLARE_TR_FUNCTIONS(attn::FigureExport)
};

} // namespace

std::optional<FigureFormat> figureFormatFromName(const QString &name)
{
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("png"))
        return FigureFormat::Png;
    if (n == QLatin1String("svg"))
        return FigureFormat::Svg;
    if (n == QLatin1String("pdf"))
        return FigureFormat::Pdf;
    return std::nullopt;
}

QString figureSuffix(FigureFormat format)
{
    switch (format) {
    case FigureFormat::Png:
        return QStringLiteral("png");
    case FigureFormat::Svg:
        return QStringLiteral("svg");
    case FigureFormat::Pdf:
        return QStringLiteral("pdf");
    }
    return {};
}

QFont figureFont()
{
    return figureFont(FigurePreset::Default);
}

QFont figureFont(FigurePreset preset, bool dashboard)
{
    QFont f(QStringLiteral("Noto Sans CJK SC"));
    f.setStyleHint(QFont::SansSerif);
    f.setPointSizeF(preset == FigurePreset::Slide ? (dashboard ? 13 : 22) : 10);
    return f;
}

QList<FigurePreset> allFigurePresets()
{
    return {FigurePreset::Default, FigurePreset::Slide};
}

QString displayName(FigurePreset preset)
{
    switch (preset) {
    case FigurePreset::Default: return FigureText::tr("Default");
    case FigurePreset::Slide: return FigureText::tr("Slide (16:9, large type)");
    }
    return QString();
}

QString settingsKey(FigurePreset preset)
{
    switch (preset) {
    case FigurePreset::Default: return QStringLiteral("default");
    case FigurePreset::Slide: return QStringLiteral("slide");
    }
    return QString();
}

std::optional<FigurePreset> figurePresetFromKey(const QString &key)
{
    const QString k = key.trimmed().toLower();
    for (FigurePreset p : allFigurePresets())
        if (settingsKey(p) == k)
            return p;
    return std::nullopt;
}

FigureSize presetSize(FigurePreset preset, const FigureSize &fallback)
{
    return preset == FigurePreset::Slide ? FigureSize{1600, 900, 2.0} : fallback;
}

void styleFigurePlot(HeatmapPlot *plot, const FigureStyle &style, bool dashboard)
{
    plot->setAttribute(Qt::WA_DontShowOnScreen);
    plot->setFont(figureFont(style.preset, dashboard));
    plot->setTheme(plotTheme(style.theme));
    plot->setSequentialGradient(sequentialGradient(style.sequential));
    plot->setDivergingGradient(divergingGradient(style.diverging));
    plot->setCellText(style.cellText);
}

QByteArray paintFigure(FigureFormat format, const FigureSize &size, const std::function<void(QCPPainter *)> &paint,
                       const QColor &background)
{
    const int w = std::max(1, size.width), h = std::max(1, size.height);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    switch (format) {
    case FigureFormat::Png: {
        const double scale = std::clamp(size.scale, 0.1, 8.0);
        QImage image(QSize(int(std::lround(w * scale)), int(std::lround(h * scale))), QImage::Format_ARGB32_Premultiplied);
        // Fonts are laid out at kExportDpi in logical pixels and the painter
        // scales them: the image must not scale them again while painted
        // (a 2x PNG drew its text at 4x, over the layout). The file then says
        // its true resolution, so it prints at the logical size.
        image.setDotsPerMeterX(int(std::lround(kExportDpi / 0.0254)));
        image.setDotsPerMeterY(int(std::lround(kExportDpi / 0.0254)));
        image.fill(background);
        QCPPainter painter(&image);
        painter.scale(scale, scale);
        paint(&painter);
        painter.end();
        image.setDotsPerMeterX(int(std::lround(kExportDpi * scale / 0.0254)));
        image.setDotsPerMeterY(int(std::lround(kExportDpi * scale / 0.0254)));
        image.save(&buffer, "PNG");
        break;
    }
    case FigureFormat::Svg: {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(w, h));
        svg.setViewBox(QRect(0, 0, w, h));
        svg.setResolution(kExportDpi);
        svg.setTitle(QStringLiteral("Attention Lab"));
        // Straight onto the generator: its text stays <text> with the font
        // named (a slide tool can edit it; 我 打 你 stays characters), where
        // glyph outlines would be uneditable paths.
        QCPPainter painter(&svg);
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        paint(&painter);
        painter.end();
        break;
    }
    case FigureFormat::Pdf: {
        QPdfWriter pdf(&buffer);
        pdf.setResolution(kExportDpi);
        pdf.setCreator(QStringLiteral("Attention Lab"));
        pdf.setPageLayout(QPageLayout(QPageSize(QSizeF(w * 72.0 / kExportDpi, h * 72.0 / kExportDpi), QPageSize::Point,
                                                QString(), QPageSize::ExactMatch),
                                      QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
        QCPPainter painter(&pdf);
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        paint(&painter);
        painter.end();
        break;
    }
    }
    return bytes;
}

QByteArray renderFigure(QCustomPlot *plot, FigureFormat format, const FigureSize &size)
{
    const int w = std::max(1, size.width), h = std::max(1, size.height);
    QColor background(Qt::white);
    if (auto *heatmap = qobject_cast<HeatmapPlot *>(plot))
        background = heatmap->theme().background;
    const QByteArray bytes =
        paintFigure(format, size, [&](QCPPainter *painter) { plot->toPainter(painter, w, h); }, background);
    // A heatmap lays itself out for the size it draws at; put back the
    // widget's own layout for the mouse.
    if (auto *heatmap = qobject_cast<HeatmapPlot *>(plot))
        heatmap->renderImage(0, 0, 1.0);
    else
        plot->replot();
    return bytes;
}

namespace {

// A plot of its own drawing the scene of the scenario, so nothing on screen
// (pan, zoom, font, hover) reaches the figure.
struct OffscreenPlane {
    std::unique_ptr<PlanePlot> plane;

    OffscreenPlane(const Scenario &s, const Trace &t, const PlaneView &view, int width, int height,
                   const QFont &font = figureFont(), FigureTheme theme = FigureTheme::Default)
    {
        PlaneSettings settings;
        settings.head = view.head;
        settings.query = view.query;
        settings.horizontal = view.horizontal;
        settings.vertical = view.vertical;
        settings.pca = view.pca;
        settings.forFigure = true;
        plane = std::make_unique<PlanePlot>();
        plane->setAttribute(Qt::WA_DontShowOnScreen);
        plane->setFont(font);
        plane->setTheme(plotTheme(theme));
        plane->setScene(makePlaneScene(s, t, settings));
        plane->resize(width, height);
        plane->fit();
    }
};

} // namespace

QByteArray renderPlaneFigure(const Scenario &s, const PlaneView &view, FigureFormat format, const FigureSize &size)
{
    return renderPlaneFigure(s, view, FigureStyle{}, format, size);
}

QByteArray renderPlaneFigure(const Scenario &s, const PlaneView &view, const FigureStyle &style, FigureFormat format,
                             const FigureSize &size)
{
    const int w = std::max(1, size.width), h = std::max(1, size.height);
    OffscreenPlane p(s, compute(s), view, w, h, figureFont(style.preset), style.theme);
    const QByteArray bytes = paintFigure(
        format, size, [&](QCPPainter *painter) { p.plane->toPainter(painter, w, h); }, plotTheme(style.theme).background);
    return bytes;
}

QByteArray renderDashboard(const Scenario &s, const Trace &t, const FigureStyle &style, const PlaneView *planeView,
                           FigureFormat format, const FigureSize &size)
{
    const int w = std::max(kMinDashboardWidth, size.width), h = std::max(kMinDashboardHeight, size.height);
    const Stage stages[] = {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output};
    std::vector<std::unique_ptr<HeatmapPlot>> plots;
    for (Stage stage : stages) {
        auto plot = makeStagePlot(s, t, stage, style);
        plot->setFont(figureFont(style.preset, true));
        plots.push_back(std::move(plot));
    }
    const PlotTheme theme = plotTheme(style.theme);

    QFont title = figureFont(style.preset, true);
    title.setPointSizeF(style.preset == FigurePreset::Slide ? 20 : 16);
    const int header = QFontMetrics(title).height() * 2;
    const int cols = 3, rows = 2;
    const int cellW = w / cols, cellH = (h - header) / rows;
    std::optional<OffscreenPlane> planeFigure;
    if (planeView)
        planeFigure.emplace(s, t, *planeView, cellW, cellH, figureFont(style.preset, true), style.theme);
    QCustomPlot *plane = planeFigure ? planeFigure->plane.get() : nullptr;
    const Formula f = formula(s);
    QString heading = QString::fromStdString(s.title);
    heading += (heading.isEmpty() ? QString() : QStringLiteral("   ")) + QString::fromStdString(f.attention);

    FigureSize sized = size;
    sized.width = w;
    sized.height = h;
    const QByteArray bytes = paintFigure(format, sized, [&](QCPPainter *painter) {
        painter->save();
        painter->fillRect(QRect(0, 0, w, h), theme.background);
        painter->setFont(title);
        painter->setPen(theme.ink);
        painter->drawText(QRect(0, 0, w, header), Qt::AlignCenter, heading);
        painter->restore();
        for (int i = 0; i < 6; ++i) {
            QCustomPlot *plot = i < 5 ? static_cast<QCustomPlot *>(plots[std::size_t(i)].get()) : plane;
            if (!plot)
                continue;
            painter->save();
            painter->translate((i % cols) * cellW, header + (i / cols) * cellH);
            plot->toPainter(painter, cellW, cellH);
            painter->restore();
        }
    }, theme.background);
    return bytes;
}

std::unique_ptr<HeatmapPlot> makeStagePlot(const Scenario &s, const Trace &t, Stage stage, const FigureStyle &style)
{
    auto plot = std::make_unique<HeatmapPlot>();
    styleFigurePlot(plot.get(), style);
    plot->setData(stageData(s, t, stage, style.stage));
    return plot;
}

QByteArray renderStageFigure(const Scenario &s, const Trace &t, Stage stage, const FigureStyle &style,
                             FigureFormat format, const FigureSize &size)
{
    auto plot = makeStagePlot(s, t, stage, style);
    plot->resize(size.width, size.height);
    return renderFigure(plot.get(), format, size);
}

QString figureFileName(const QString &what, int head, int heads, FigureFormat format)
{
    QString name = what;
    if (heads > 1)
        name += QStringLiteral("_head%1").arg(head + 1);
    return name + QLatin1Char('.') + figureSuffix(format);
}

} // namespace attn
