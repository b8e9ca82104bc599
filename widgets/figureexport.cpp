#include "figureexport.h"

#include "formula.h"
#include "outlinedevice.h"
#include "planeplot.h"

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <qcustomplot.h>

#include <functional>

namespace attn {

namespace {

constexpr int kExportDpi = 96; // font points to pixels as on a usual screen

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
    QFont f(QStringLiteral("Noto Sans CJK SC"));
    f.setStyleHint(QFont::SansSerif);
    f.setPointSizeF(10);
    return f;
}

QByteArray paintFigure(FigureFormat format, const FigureSize &size, const std::function<void(QCPPainter *)> &paint)
{
    const int w = std::max(1, size.width), h = std::max(1, size.height);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    switch (format) {
    case FigureFormat::Png: {
        const double scale = std::clamp(size.scale, 0.1, 8.0);
        QImage image(QSize(int(std::lround(w * scale)), int(std::lround(h * scale))), QImage::Format_ARGB32_Premultiplied);
        image.setDotsPerMeterX(int(std::lround(kExportDpi * scale / 0.0254)));
        image.setDotsPerMeterY(int(std::lround(kExportDpi * scale / 0.0254)));
        image.fill(Qt::white);
        QCPPainter painter(&image);
        painter.scale(scale, scale);
        paint(&painter);
        painter.end();
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
        QPainter target(&svg);
        OutlineDevice outline(&target, QSize(w, h), kExportDpi);
        QCPPainter painter(&outline);
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        paint(&painter);
        painter.end();
        target.end();
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
    const QByteArray bytes = paintFigure(format, size, [&](QCPPainter *painter) { plot->toPainter(painter, w, h); });
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

    OffscreenPlane(const Scenario &s, const Trace &t, const PlaneView &view, int width, int height)
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
        plane->setFont(figureFont());
        plane->setScene(makePlaneScene(s, t, settings));
        plane->resize(width, height);
        plane->fit();
    }
};

} // namespace

QByteArray renderPlaneFigure(const Scenario &s, const PlaneView &view, FigureFormat format, const FigureSize &size)
{
    const int w = std::max(1, size.width), h = std::max(1, size.height);
    OffscreenPlane p(s, compute(s), view, w, h);
    return renderFigure(p.plane.get(), format, size);
}

QByteArray renderDashboard(const Scenario &s, const Trace &t, const FigureStyle &style, const PlaneView *planeView,
                           FigureFormat format, const FigureSize &size)
{
    const int w = std::max(kMinDashboardWidth, size.width), h = std::max(kMinDashboardHeight, size.height);
    const Stage stages[] = {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output};
    std::vector<std::unique_ptr<HeatmapPlot>> plots;
    for (Stage stage : stages)
        plots.push_back(makeStagePlot(s, t, stage, style));

    QFont title = figureFont();
    title.setPointSizeF(16);
    const int header = QFontMetrics(title).height() * 2;
    const int cols = 3, rows = 2;
    const int cellW = w / cols, cellH = (h - header) / rows;
    std::optional<OffscreenPlane> planeFigure;
    if (planeView)
        planeFigure.emplace(s, t, *planeView, cellW, cellH);
    QCustomPlot *plane = planeFigure ? planeFigure->plane.get() : nullptr;
    const Formula f = formula(s);
    QString heading = QString::fromStdString(s.title);
    heading += (heading.isEmpty() ? QString() : QStringLiteral("   ")) + QString::fromStdString(f.attention);

    FigureSize sized = size;
    sized.width = w;
    sized.height = h;
    const QByteArray bytes = paintFigure(format, sized, [&](QCPPainter *painter) {
        painter->save();
        painter->fillRect(QRect(0, 0, w, h), Qt::white);
        painter->setFont(title);
        painter->setPen(Qt::black);
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
    });
    return bytes;
}

std::unique_ptr<HeatmapPlot> makeStagePlot(const Scenario &s, const Trace &t, Stage stage, const FigureStyle &style)
{
    auto plot = std::make_unique<HeatmapPlot>();
    plot->setAttribute(Qt::WA_DontShowOnScreen);
    plot->setFont(figureFont());
    plot->setSequentialGradient(sequentialGradient(style.sequential));
    plot->setDivergingGradient(divergingGradient(style.diverging));
    plot->setCellText(style.cellText);
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
