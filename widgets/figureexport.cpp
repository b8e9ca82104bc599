#include "figureexport.h"

#include "formula.h"
#include "outlinedevice.h"
#include "vectorplane.h"

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

// A label as a CSV field: quoted when it must be, and a leading = + - @
// made text with an apostrophe, so a spreadsheet never runs it as a formula.
QString csvField(QString s)
{
    if (!s.isEmpty() && QStringLiteral("=+-@\t\r").contains(s.front()))
        s.prepend(QLatin1Char('\''));
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n'))
        || s.contains(QLatin1Char('\r')))
        return QLatin1Char('"') + QString(s).replace(QLatin1Char('"'), QLatin1String("\"\"")) + QLatin1Char('"');
    return s;
}

QString exactNumber(double v)
{
    return QString::fromStdString(shortest(v));
}

QByteArray csv(const Matrix &m, const QStringList &rows, const QStringList &cols, const BoolMatrix *blocked = nullptr)
{
    QString out = QStringLiteral("\"\"");
    for (const QString &c : cols)
        out += QLatin1Char(',') + csvField(c);
    out += QLatin1Char('\n');
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        out += csvField(rows.value(int(i)));
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            out += QLatin1Char(',') + (blocked && (*blocked)(i, j) ? QStringLiteral("-inf") : exactNumber(m(i, j)));
        out += QLatin1Char('\n');
    }
    // The byte order mark tells Excel the file is UTF-8 (Chinese labels).
    return QByteArrayLiteral("\xEF\xBB\xBF") + out.toUtf8();
}

QStringList numbered(const QString &prefix, Eigen::Index n)
{
    QStringList out;
    for (Eigen::Index i = 0; i < n; ++i)
        out << prefix + QString::number(i + 1);
    return out;
}

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

// A plane of its own on a copy of the scenario, so nothing on screen (pan,
// zoom, font, hover) reaches the figure.
struct OffscreenPlane {
    Document doc;
    std::unique_ptr<VectorPlane> plane;

    OffscreenPlane(const Scenario &s, const PlaneView &view, int width, int height)
    {
        doc.replace(s, QString());
        doc.setCurrentHead(view.head);
        doc.setCurrentQuery(view.query);
        plane = std::make_unique<VectorPlane>(&doc);
        plane->setAttribute(Qt::WA_DontShowOnScreen);
        plane->setFont(figureFont());
        plane->setForFigure(true);
        plane->setDimensions(view.horizontal, view.vertical);
        plane->setPrincipalProjection(view.pca);
        plane->resize(width, height);
        plane->fit();
    }
};

} // namespace

QByteArray renderPlaneFigure(const Scenario &s, const PlaneView &view, FigureFormat format, const FigureSize &size)
{
    const int w = std::max(1, size.width), h = std::max(1, size.height);
    OffscreenPlane p(s, view, w, h);
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
        planeFigure.emplace(s, *planeView, cellW, cellH);
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

QStringList writeTraceCsv(const Scenario &s, const Trace &t, const QString &folder, const QString &stem, QString *error)
{
    const QStringList rows = toQStringList(queryLabels(s)), keys = toQStringList(keyLabels(s));
    const int h = int(t.heads.size());
    QStringList written;
    auto write = [&](const QString &name, const QByteArray &bytes) {
        if (!error->isEmpty())
            return;
        const QString path = QDir(folder).filePath(name);
        const QString why = writeFileAtomically(path, bytes);
        if (!why.isEmpty())
            *error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), why);
        else
            written << path;
    };
    error->clear();
    for (int i = 0; i < h; ++i) {
        const HeadTrace &ht = t.heads[std::size_t(i)];
        const QString suffix = h > 1 ? QStringLiteral("_head%1.csv").arg(i + 1) : QStringLiteral(".csv");
        write(stem + QStringLiteral("_scores") + suffix, csv(ht.scores, rows, keys));
        write(stem + QStringLiteral("_scaled") + suffix, csv(ht.scaled, rows, keys));
        // As the map shows it: blocked entries -inf, or, when the mask acts
        // after the softmax, the scores untouched (the mistake's point).
        const bool before = s.maskStage == MaskStage::BeforeSoftmax;
        write(stem + QStringLiteral("_masked") + suffix, csv(ht.scaled, rows, keys, before ? &t.blocked : nullptr));
        write(stem + QStringLiteral("_weights") + suffix, csv(ht.weights, rows, keys));
        write(stem + QStringLiteral("_output") + suffix, csv(ht.output, rows, numbered(QStringLiteral("d"), ht.output.cols())));
    }
    if (h > 1)
        write(stem + QStringLiteral("_concat.csv"), csv(t.concat, rows, numbered(QStringLiteral("c"), t.concat.cols())));
    if (h > 1 || t.output.cols() != t.concat.cols() || !(t.output == t.concat))
        write(stem + QStringLiteral("_final_output.csv"), csv(t.output, rows, numbered(QStringLiteral("o"), t.output.cols())));
    return written;
}

} // namespace attn
