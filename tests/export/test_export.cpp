// Exported figures: each format loads back, holds what the screen shows
// (the colour of the max-weight cell, the Chinese labels), and a failed
// write leaves nothing half-written.

#include "attn_test.h"
#include "lesson_test.h"

#include "figureexport.h"
#include "atomicwrite.h"
#include "trace_csv.h"
#include "formula.h"
#include "numbers.h"
#include "lessons.h"

#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QFontInfo>
#include <QImage>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace attn;
using attn::test::lesson;

namespace {

// Set ATTN_EXPORT_DUMP=/some/folder to keep the files for a look.
void dump(const QString &name, const QByteArray &bytes)
{
    const QString dir = qEnvironmentVariable("ATTN_EXPORT_DUMP");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    QFile f(QDir(dir).filePath(name));
    if (f.open(QIODevice::WriteOnly))
        f.write(bytes);
}

int colourDistance(QColor a, QColor b)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT

private slots:
    void twiceTheScaleIsTheSamePicture();
    void pngHasTheAskedSizeAndTheCellColour_data();
    void pngHasTheAskedSizeAndTheCellColour();
    void svgLoadsBack();
    void svgKeepsEditableText();
    void pdfHoldsOnePage();
    void sameInputSameBytes();
    void fileNamesSayWhatTheyAre();
    void failedWriteLeavesNothing();
    void csvHoldsEveryStage();
    // Slides, projector themes, one number of decimals, the row notes' legend.
    void slidePresetWritesLargeNumbers_data();
    void slidePresetWritesLargeNumbers();
    void slidePresetReachesDashboardAndPlane();
    void themesHaveContrast();
    void darkDivergingMapRisesFromItsCentre();
    void contrastDarkFigureIsDark();
    void decimalsCapLeavesTheFitAlone();
    void rowNotesHaveAHeaderAndALegend_data();
    void rowNotesHaveAHeaderAndALegend();
};

void TestExport::pngHasTheAskedSizeAndTheCellColour_data()
{
    QTest::addColumn<double>("scale");
    QTest::newRow("1x") << 1.0;
    QTest::newRow("2x") << 2.0;
    QTest::newRow("4x") << 4.0;
}

void TestExport::pngHasTheAskedSizeAndTheCellColour()
{
    QFETCH(double, scale);
    const Scenario s = lesson(QStringLiteral("seed000-basic"));
    const Trace t = compute(s);
    FigureStyle style;
    style.cellText = CellTextMode::Never; // the centre pixel is the cell's colour, not its text
    const FigureSize size{640, 480, scale};
    const QByteArray png = renderStageFigure(s, t, Stage::Weights, style, FigureFormat::Png, size);
    dump(QStringLiteral("weights-%1x.png").arg(scale), png);
    QImage image;
    QVERIFY(image.loadFromData(png, "PNG"));
    QCOMPARE(image.width(), int(640 * scale));
    QCOMPARE(image.height(), int(480 * scale));

    // Where the max-weight cell (q, k1) is in a plot laid out at that size.
    auto plot = makeStagePlot(s, t, Stage::Weights, style);
    plot->resize(640, 480);
    plot->renderImage(640, 480, 1.0);
    const QPointF centre = plot->cellCenter(0, 0) * scale;
    const QColor expected = plot->activeGradient().color(t.heads[0].weights(0, 0), QCPRange(0, 1));
    const QColor got = image.pixelColor(centre.toPoint());
    ATTN_CHECK(colourDistance(got, expected) <= 6,
               QStringLiteral("pixel %1 at (%2, %3), expected %4").arg(got.name()).arg(centre.x()).arg(centre.y()).arg(expected.name()));
}

void TestExport::svgLoadsBack()
{
    const Scenario s = lesson(QStringLiteral("causal"));
    const QByteArray svg = renderStageFigure(s, compute(s), Stage::Weights, FigureStyle{}, FigureFormat::Svg,
                                             FigureSize{900, 700, 1.0});
    dump(QStringLiteral("causal-weights.svg"), svg);
    QVERIFY(svg.startsWith("<?xml"));
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QCOMPARE(renderer.viewBox(), QRect(0, 0, 900, 700));
    // Rendered back, it is a picture: the colour bar's yellow end (viridis 1.0) is there.
    QImage image(900, 700, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    renderer.render(&p);
    p.end();
    dump(QStringLiteral("causal-weights-svg-rendered.png"), [&] {
        QByteArray b;
        QBuffer buf(&b);
        buf.open(QIODevice::WriteOnly);
        image.save(&buf, "PNG");
        return b;
    }());
    bool yellow = false;
    for (int y = 0; y < image.height() && !yellow; y += 2)
        for (int x = 0; x < image.width() && !yellow; x += 2)
            yellow = colourDistance(image.pixelColor(x, y), QColor(0xfd, 0xe7, 0x25)) < 30;
    QVERIFY2(yellow, "no viridis yellow in the rendered SVG");
}

// A slide tool edits an SVG's words only if they are <text>: every label
// of the map is one, in the figure's font, with 我 打 你 as characters.
void TestExport::svgKeepsEditableText()
{
    const Scenario s = lesson(QStringLiteral("permutation"));
    const Trace t = compute(s);
    const QByteArray svg = renderStageFigure(s, t, Stage::Weights, FigureStyle{}, FigureFormat::Svg, FigureSize{900, 700, 1.0});
    dump(QStringLiteral("permutation-weights.svg"), svg);
    QXmlStreamReader xml(svg);
    QStringList texts;
    QSet<QString> families;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement || xml.name() != QLatin1String("text"))
            continue;
        families << xml.attributes().value(QLatin1String("font-family")).toString();
        texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    // Each token labels a row and a column.
    for (const std::string &token : s.tokens)
        QVERIFY2(texts.count(QString::fromStdString(token)) >= 2, qPrintable(texts.join(QLatin1Char('|'))));
    // Every cell's value, as the map writes it.
    for (Eigen::Index i = 0; i < t.heads[0].weights.rows(); ++i)
        for (Eigen::Index j = 0; j < t.heads[0].weights.cols(); ++j) {
            const QString v = QString::fromStdString(formatFixed(t.heads[0].weights(i, j), 4, Minus::Typographic));
            QVERIFY2(texts.contains(v), qPrintable(v + QStringLiteral(" not in ") + texts.join(QLatin1Char('|'))));
        }
    QCOMPARE(families, QSet<QString>{figureFont().family()});
    // The file is UTF-8 with the characters themselves, not entities.
    QVERIFY(svg.contains(QStringLiteral("我").toUtf8()));
}

void TestExport::pdfHoldsOnePage()
{
    const Scenario s = lesson(QStringLiteral("multihead"));
    FigureStyle style;
    style.stage.head = 1;
    const QByteArray pdf = renderStageFigure(s, compute(s), Stage::Weights, style, FigureFormat::Pdf, FigureSize{1000, 800, 1.0});
    dump(QStringLiteral("multihead-weights-head2.pdf"), pdf);
    QVERIFY(pdf.startsWith("%PDF"));
    QCOMPARE(pdf.count("/Type /Page\n") + pdf.count("/Type /Page "), 1);
    QVERIFY(pdf.contains("/MediaBox"));
    QVERIFY(pdf.trimmed().endsWith("%%EOF"));
}

void TestExport::sameInputSameBytes()
{
    const Scenario s = lesson(QStringLiteral("padding"));
    const Trace t = compute(s);
    for (FigureFormat f : {FigureFormat::Png, FigureFormat::Svg}) {
        const QByteArray a = renderStageFigure(s, t, Stage::Masked, FigureStyle{}, f, FigureSize{});
        const QByteArray b = renderStageFigure(s, t, Stage::Masked, FigureStyle{}, f, FigureSize{});
        QVERIFY(!a.isEmpty());
        QCOMPARE(a, b);
    }
}

void TestExport::fileNamesSayWhatTheyAre()
{
    QCOMPARE(figureFileName(QStringLiteral("weights"), 0, 1, FigureFormat::Png), QStringLiteral("weights.png"));
    QCOMPARE(figureFileName(QStringLiteral("scores"), 1, 4, FigureFormat::Svg), QStringLiteral("scores_head2.svg"));
    QCOMPARE(figureFormatFromName(QStringLiteral(" PDF ")), std::optional(FigureFormat::Pdf));
    QVERIFY(!figureFormatFromName(QStringLiteral("jpg")));
}

void TestExport::failedWriteLeavesNothing()
{
    QTemporaryDir dir;
    const QString missing = dir.filePath(QStringLiteral("no/such/folder/x.png"));
    const QString why = reasonOf(writeFileAtomically(missing, "data"));
    ATTN_CHECK(why.contains(QStringLiteral("does not exist")), why);
    QVERIFY(!QFile::exists(missing));

    // A file in place is replaced whole or not at all.
    const QString path = dir.filePath(QStringLiteral("x.png"));
    QVERIFY(reasonOf(writeFileAtomically(path, "old")).isEmpty());
    QVERIFY(reasonOf(writeFileAtomically(path, "new contents")).isEmpty());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("new contents"));
    f.close();

    // No permission: a read-only folder (root ignores permissions, so only check when they hold).
    const QString locked = dir.filePath(QStringLiteral("locked"));
    QVERIFY(QDir().mkpath(locked));
    QFile::setPermissions(locked, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
    QFile probe(QDir(locked).filePath(QStringLiteral("probe")));
    const bool permissionsHold = !probe.open(QIODevice::WriteOnly);
    probe.close();
    if (permissionsHold) {
        const QString target = QDir(locked).filePath(QStringLiteral("y.svg"));
        QVERIFY(!reasonOf(writeFileAtomically(target, "data")).isEmpty());
        QCOMPARE(QDir(locked).entryList(QDir::Files | QDir::Hidden), QStringList());
    }
    QFile::setPermissions(locked, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QVERIFY(!reasonOf(writeFileAtomically(path, QByteArray())).isEmpty()); // nothing drawn is an error, not an empty file
}

// writeTraceCsv as the assertions below read it: the files written, and
// the problem as one line "path: reason" in *error.
static QStringList writeCsv(const Scenario &s, const Trace &t, const QString &folder, const QString &stem, QString *error)
{
    const Result<QStringList> r = writeTraceCsv(s, t, folder, stem);
    *error = r.problem() ? problemLine(*r.problem()) : QString();
    return r.ok() ? r.value() : QStringList();
}

void TestExport::csvHoldsEveryStage()
{
    const Scenario s = lesson(QStringLiteral("multihead"));
    const Trace t = compute(s);
    QTemporaryDir dir;
    QString error;
    const QStringList files = writeCsv(s, t, dir.path(), QStringLiteral("mh"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(files.size(), 2 * 5 + 2); // five stages a head, the concatenation, the final output
    QFile weights(dir.filePath(QStringLiteral("mh_weights_head2.csv")));
    QVERIFY(weights.open(QIODevice::ReadOnly));
    QByteArray bytes = weights.readAll();
    QVERIFY(bytes.startsWith("\xEF\xBB\xBF")); // UTF-8 as Excel recognises it
    bytes.remove(0, 3);
    const QStringList lines = QString::fromUtf8(bytes).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);
    QCOMPARE(lines[0], QStringLiteral("\"\",猫,追,小,老鼠"));
    const QStringList row = lines[2].split(QLatin1Char(','));
    QCOMPARE(row[0], QStringLiteral("追"));
    ATTN_COMPARE_NEAR(row[1].toDouble(), t.heads[1].weights(1, 0), 0.0); // shortest exact form reads back exactly
    // A folder that does not exist: the error names the file, nothing written.
    const QStringList none = writeCsv(s, t, dir.filePath(QStringLiteral("missing")), QStringLiteral("mh"), &error);
    QVERIFY(none.isEmpty());
    ATTN_CHECK(error.contains(QStringLiteral("mh_scores_head1.csv")), error);

    // A token that a spreadsheet would run as a formula is written as text.
    {
        Scenario risky = lesson(QStringLiteral("seed000-basic"));
        risky.tokens = {"=1+1"};
        risky.sourceTokens = {"@a", "-b", "c,d"};
        QTemporaryDir out;
        writeCsv(risky, compute(risky), out.path(), QStringLiteral("r"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QFile scores(out.filePath(QStringLiteral("r_scores.csv")));
        QVERIFY(scores.open(QIODevice::ReadOnly));
        const QStringList rows = QString::fromUtf8(scores.readAll().mid(3)).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(rows.value(0), QStringLiteral("\"\",'@a,'-b,\"c,d\""));
        QVERIFY2(rows.value(1).startsWith(QStringLiteral("'=1+1,4,")), qPrintable(rows.value(1)));
    }

    // The masked scores as the map shows them: -inf where blocked before the
    // softmax; the scores untouched when the mask acts after it.
    for (MaskStage stage : {MaskStage::BeforeSoftmax, MaskStage::AfterSoftmax}) {
        Scenario causal = lesson(QStringLiteral("causal"));
        causal.maskStage = stage;
        QTemporaryDir out;
        const QStringList written = writeCsv(causal, compute(causal), out.path(), QStringLiteral("c"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(written.size(), 5);
        QFile masked(out.filePath(QStringLiteral("c_masked.csv")));
        QVERIFY(masked.open(QIODevice::ReadOnly));
        const QStringList first = QString::fromUtf8(masked.readAll().mid(3)).split(QLatin1Char('\n')).value(1).split(QLatin1Char(','));
        const bool before = stage == MaskStage::BeforeSoftmax;
        QCOMPARE(first.value(2), before ? QStringLiteral("-inf") : QString::fromStdString(shortest(compute(causal).heads[0].scaled(0, 1))));
    }
}

// A plot that is never shown gets its resize event only on show: lay it
// out for its new size by hand, as the widget would be.
static void layOut(HeatmapPlot *plot, int width, int height)
{
    plot->resize(width, height);
    plot->setViewport(QRect(0, 0, width, height));
    plot->renderImage(0, 0, 1.0);
}

// Rows of `image` (a 1x figure) inside `rect` that hold a pixel far from
// `background`: the height of what is drawn there, in pixels.
static int inkHeight(const QImage &image, const QRect &rect, const QColor &background)
{
    int first = -1, last = -1;
    for (int y = std::max(0, rect.top()); y <= std::min(image.height() - 1, rect.bottom()); ++y)
        for (int x = std::max(0, rect.left()); x <= std::min(image.width() - 1, rect.right()); ++x)
            if (colourDistance(image.pixelColor(x, y), background) > 200) {
                if (first < 0)
                    first = y;
                last = y;
                break;
            }
    return first < 0 ? 0 : last - first + 1;
}

void TestExport::slidePresetWritesLargeNumbers_data()
{
    QTest::addColumn<QString>("lessonName");
    QTest::addColumn<int>("tokens");
    QTest::newRow("seed000-basic, 3 keys") << QStringLiteral("seed000-basic") << 3;
    QTest::newRow("permutation, 3 tokens") << QStringLiteral("permutation") << 3;
    QTest::newRow("causal, 5 tokens") << QStringLiteral("causal") << 5;
}

void TestExport::slidePresetWritesLargeNumbers()
{
    QFETCH(QString, lessonName);
    QFETCH(int, tokens);
    const Scenario s = lesson(lessonName);
    QCOMPARE(keyCount(s), tokens);
    const Trace t = compute(s);
    FigureStyle style;
    style.preset = FigurePreset::Slide;
    const FigureSize size = presetSize(FigurePreset::Slide);
    QCOMPARE(size.width, 1600);
    QCOMPARE(size.height, 900); // 16:9
    QCOMPARE(size.scale, 2.0);
    for (Stage stage : {Stage::Scores, Stage::Weights, Stage::Output}) {
        const QString what = lessonName + QLatin1Char(' ') + stageKey(stage);
        auto plot = makeStagePlot(s, t, stage, style);
        layOut(plot.get(), size.width, size.height);
        const QImage one = plot->renderImage(size.width, size.height, 1.0);
        // Every cell value is written, in the plot's own font, not the smaller one.
        ATTN_CHECK(plot->drawnDecimals() >= 2, what + QStringLiteral(": no numbers drawn"));
        const QFont font = plot->drawnCellFont();
        QCOMPARE(font.pointSizeF(), figureFont(FigurePreset::Slide).pointSizeF());
        // The font's pixel height (em at 96 dpi) against the figure's height.
        const double em = QFontInfo(font).pixelSize();
        ATTN_CHECK(em / size.height >= 0.03, what + QStringLiteral(": cell font %1 px is %2 % of %3")
                                                     .arg(em).arg(100 * em / size.height).arg(size.height));
        // And as drawn: the digits' ink in the first cell, at least 0.7 em
        // (a digit's height in Noto Sans is 0.71 em), so >= 2.1 % of the height.
        const QRect cell = plot->cellRect(0, 0).toAlignedRect().adjusted(2, 2, -2, -2);
        const QColor fill = plot->activeGradient().color(plot->data().values(0, 0), plot->dataRange());
        const int ink = inkHeight(one, cell, fill);
        ATTN_CHECK(ink >= 0.7 * em - 1 && ink <= 1.2 * em,
                   what + QStringLiteral(": digits %1 px high in the cell, font %2 px").arg(ink).arg(em));
        ATTN_CHECK(double(ink) / size.height >= 0.021, what + QStringLiteral(": digits %1 px of %2").arg(ink).arg(size.height));
        const QByteArray png = renderStageFigure(s, t, stage, style, FigureFormat::Png, size);
        dump(QStringLiteral("slide-%1-%2.png").arg(lessonName, stageKey(stage)), png);
        QImage image;
        QVERIFY(image.loadFromData(png, "PNG"));
        QCOMPARE(image.size(), QSize(3200, 1800));
    }
    // The default preset's type, for comparison: 10 pt, 13 px, 1.5 % of 900.
    QCOMPARE(QFontInfo(figureFont()).pixelSize(), 13);
}

void TestExport::slidePresetReachesDashboardAndPlane()
{
    const Scenario s = lesson(QStringLiteral("causal"));
    const Trace t = compute(s);
    FigureStyle slide;
    slide.preset = FigurePreset::Slide;
    const FigureSize size = presetSize(FigurePreset::Slide);
    const QByteArray plain = renderPlaneFigure(s, PlaneView{}, FigureFormat::Png, FigureSize{1600, 900, 1.0});
    const QByteArray big = renderPlaneFigure(s, PlaneView{}, slide, FigureFormat::Png, FigureSize{1600, 900, 1.0});
    dump(QStringLiteral("slide-plane.png"), big);
    QVERIFY(plain != big); // larger type, another picture
    QImage planeImage;
    QVERIFY(planeImage.loadFromData(big, "PNG"));
    QCOMPARE(planeImage.size(), QSize(1600, 900));
    const QByteArray dash = renderDashboard(s, t, slide, nullptr, FigureFormat::Png, size);
    dump(QStringLiteral("slide-dashboard.png"), dash);
    QImage dashImage;
    QVERIFY(dashImage.loadFromData(dash, "PNG"));
    QCOMPARE(dashImage.size(), QSize(3200, 1800));
    // Six plots share the slide: 13 pt (17 px), more than the default 10 pt.
    QCOMPARE(figureFont(FigurePreset::Slide, true).pointSizeF(), 13.0);
    QVERIFY(QFontInfo(figureFont(FigurePreset::Slide, true)).pixelSize() > QFontInfo(figureFont()).pixelSize());

    QCOMPARE(figurePresetFromKey(QStringLiteral(" Slide ")), std::optional(FigurePreset::Slide));
    QCOMPARE(settingsKey(FigurePreset::Default), QStringLiteral("default"));
    QVERIFY(!figurePresetFromKey(QStringLiteral("poster")));
}

void TestExport::themesHaveContrast()
{
    // The WCAG formula against its own fixed points: black on white is 21:1,
    // a colour on itself 1:1, and #767676 the lightest grey at 4.5:1 on white.
    ATTN_COMPARE_NEAR(contrastRatio(Qt::black, Qt::white), 21.0, 1e-12);
    ATTN_COMPARE_NEAR(contrastRatio(QColor(0x80, 0x30, 0x10), QColor(0x80, 0x30, 0x10)), 1.0, 1e-12);
    ATTN_COMPARE_NEAR(contrastRatio(QColor(0x76, 0x76, 0x76), Qt::white), 4.54, 0.01);
    QCOMPARE(allFigureThemes().size(), 3);
    for (FigureTheme id : allFigureThemes()) {
        const PlotTheme t = plotTheme(id);
        const QString name = settingsKey(id);
        QCOMPARE(figureThemeFromKey(name), std::optional(id));
        QVERIFY(!displayName(id).isEmpty());
        const double text = contrastRatio(t.ink, t.background);
        const double notes = contrastRatio(t.noteInk, t.background);
        const double blocked = contrastRatio(t.blockedText, t.blockedFill);
        // Text: AAA (7:1) in the contrast themes; AA (4.5:1) at least in the default.
        const double need = id == FigureTheme::Default ? 4.5 : 7.0;
        ATTN_CHECK(text >= need, QStringLiteral("%1: text %2:1").arg(name).arg(text));
        ATTN_CHECK(notes >= need, QStringLiteral("%1: notes %2:1").arg(name).arg(notes));
        ATTN_CHECK(blocked >= need, QStringLiteral("%1: blocked-cell text %2:1").arg(name).arg(blocked));
        if (id == FigureTheme::Default)
            continue;
        // Lines and the hatching: at least 4.5:1 against what they sit on.
        ATTN_CHECK(contrastRatio(t.frame, t.background) >= 7.0, name + QStringLiteral(": frame"));
        ATTN_CHECK(contrastRatio(t.blockedHatch, t.blockedFill) >= 7.0, name + QStringLiteral(": hatching"));
        ATTN_CHECK(contrastRatio(t.grid, t.background) >= 4.5,
                   QStringLiteral("%1: grid %2:1").arg(name).arg(contrastRatio(t.grid, t.background)));
        ATTN_CHECK(contrastRatio(t.axis, t.background) >= 7.0, name + QStringLiteral(": axes"));
        QCOMPARE(t.separatorWidth, 2.0);
        QCOMPARE(t.dark, id == FigureTheme::ContrastDark);
    }
    QCOMPARE(themedDiverging(FigureTheme::ContrastDark, DivergingGradient::BlueRed), DivergingGradient::BlueBlackOrange);
    QCOMPARE(themedDiverging(FigureTheme::ContrastLight, DivergingGradient::PurpleOrange), DivergingGradient::PurpleOrange);
}

void TestExport::darkDivergingMapRisesFromItsCentre()
{
    // On a dark figure the centre (0) is near black and |s| gets lighter both
    // ways, equally: the same luminance at -x and +x within a small margin,
    // rising monotonically; blue on the negative side, orange on the positive.
    QCPColorGradient g = divergingGradient(DivergingGradient::BlueBlackOrange);
    auto at = [&](double x) { return QColor(g.color(x, QCPRange(-1, 1))); };
    ATTN_CHECK(relativeLuminance(at(0)) < 0.02, QStringLiteral("centre %1").arg(at(0).name()));
    double last = relativeLuminance(at(0));
    for (int k = 1; k <= 20; ++k) {
        const double x = k / 20.0;
        const double neg = relativeLuminance(at(-x)), pos = relativeLuminance(at(x));
        ATTN_CHECK(neg > last - 1e-9 && pos > last - 1e-9, QStringLiteral("not rising at %1").arg(x));
        ATTN_CHECK(std::abs(neg - pos) <= 0.35 * std::max(neg, pos) + 0.01,
                   QStringLiteral("±%1: luminance %2 against %3").arg(x).arg(neg).arg(pos));
        last = std::min(neg, pos);
    }
    QVERIFY(at(-1).blue() > at(-1).red());
    QVERIFY(at(1).red() > at(1).blue());
    // The lightest ends stand out against the black background.
    QVERIFY(contrastRatio(at(-1), Qt::black) > 7 && contrastRatio(at(1), Qt::black) > 7);
}

void TestExport::contrastDarkFigureIsDark()
{
    const Scenario s = lesson(QStringLiteral("seed000-basic"));
    const Trace t = compute(s);
    FigureStyle style;
    style.theme = FigureTheme::ContrastDark;
    const FigureSize size{1200, 900, 1.0};
    auto plot = makeStagePlot(s, t, Stage::Scores, style);
    layOut(plot.get(), size.width, size.height);
    const QPointF centre = plot->cellCenter(0, 0);
    const QRectF title = plot->titleElement()->outerRect();
    const QByteArray png = renderStageFigure(s, t, Stage::Scores, style, FigureFormat::Png, size);
    dump(QStringLiteral("contrast-dark-scores.png"), png);
    QImage image;
    QVERIFY(image.loadFromData(png, "PNG"));
    QCOMPARE(image.pixelColor(2, 2), QColor(Qt::black));
    QCOMPARE(image.pixelColor(size.width - 3, size.height - 3), QColor(Qt::black));
    // The title is white on black.
    bool white = false;
    for (int y = int(title.top()); y < int(title.bottom()) && !white; ++y)
        for (int x = int(title.left()); x < int(title.right()) && !white; ++x)
            white = image.pixelColor(x, y) == QColor(Qt::white);
    QVERIFY2(white, "no white text in the title");
    // The scores are drawn in the dark map, whatever diverging gradient was asked for.
    const QColor expected = divergingGradient(DivergingGradient::BlueBlackOrange)
                                .color(t.heads[0].scores(0, 0), plot->dataRange());
    const QColor corner = image.pixelColor(plot->cellRect(0, 0).toAlignedRect().topLeft() + QPoint(4, 4));
    ATTN_CHECK(colourDistance(corner, expected) <= 6, QStringLiteral("%1, expected %2").arg(corner.name(), expected.name()));
    Q_UNUSED(centre);
}

void TestExport::decimalsCapLeavesTheFitAlone()
{
    const Scenario s = lesson(QStringLiteral("seed000-basic"));
    const Trace t = compute(s);
    auto plot = makeStagePlot(s, t, Stage::Weights, FigureStyle{});
    layOut(plot.get(), 900, 500);
    QCOMPARE(plot->decimalsThatFit(), 4);
    QCOMPARE(plot->drawnDecimals(), 4);
    plot->setDecimalsCap(3);
    QCOMPARE(plot->decimalsCap(), 3);
    QCOMPARE(plot->drawnDecimals(), 3);
    QCOMPARE(plot->decimalsThatFit(), 4); // the room has not changed
    plot->setDecimalsCap(1);               // below 2 is 2
    QCOMPARE(plot->drawnDecimals(), 2);
    plot->setDecimalsCap(9);
    QCOMPARE(plot->drawnDecimals(), 4);
    // Too narrow for 4: the fit says so, and the cap cannot add decimals.
    layOut(plot.get(), 260, 500);
    QVERIFY2(plot->decimalsThatFit() < 4 && plot->decimalsThatFit() >= 2, qPrintable(QString::number(plot->decimalsThatFit())));
    QCOMPARE(plot->drawnDecimals(), plot->decimalsThatFit());
}

void TestExport::rowNotesHaveAHeaderAndALegend_data()
{
    QTest::addColumn<bool>("slide");
    QTest::newRow("default 1200x900") << false;
    QTest::newRow("slide 1600x900") << true;
}

void TestExport::rowNotesHaveAHeaderAndALegend()
{
    QFETCH(bool, slide);
    const Scenario s = lesson(QStringLiteral("causal"));
    const Trace t = compute(s);
    FigureStyle style;
    style.preset = slide ? FigurePreset::Slide : FigurePreset::Default;
    const FigureSize size = slide ? presetSize(FigurePreset::Slide) : FigureSize{};
    auto plot = makeStagePlot(s, t, Stage::Weights, style);
    layOut(plot.get(), size.width, size.height);
    const QImage image = plot->renderImage(size.width, size.height, 1.0);
    dump(QStringLiteral("notes-legend-%1.png").arg(slide ? "slide" : "default"), [&] {
        QByteArray b;
        QBuffer buf(&b);
        buf.open(QIODevice::WriteOnly);
        image.save(&buf, "PNG");
        return b;
    }());
    // The notes are there, with a header above them and the legend under the map.
    QVERIFY(plot->yAxis2->visible());
    QCOMPARE(plot->data().rowNotesLabel, QStringLiteral("max · H"));
    QVERIFY(plot->data().rowNotesLegend.contains(QStringLiteral("entropy in nats")));
    QCOMPARE(plot->rowNotesLegendShown(), plot->data().rowNotesLegend);
    const QRectF header = plot->rowNotesHeaderRect();
    const QRectF legend = plot->rowNotesLegendRect();
    const QRectF figure(0, 0, size.width, size.height);
    const QRectF map = plot->cellRect(0, 0).united(plot->cellRect(plot->rowCount() - 1, plot->columnCount() - 1));
    QVERIFY(!header.isEmpty() && !legend.isEmpty());
    ATTN_CHECK(figure.contains(header) && figure.contains(legend),
               QStringLiteral("header %1,%2 %3x%4, legend %5,%6 %7x%8")
                   .arg(header.x()).arg(header.y()).arg(header.width()).arg(header.height())
                   .arg(legend.x()).arg(legend.y()).arg(legend.width()).arg(legend.height()));
    // The header sits above the notes column, right of the map; the legend under the map.
    QVERIFY(header.left() > map.right() && header.bottom() <= map.top() + 1);
    QVERIFY(legend.top() >= map.bottom());
    // Its text fits: the header is whole, and the legend needs at most two lines.
    QFont bold = plot->yAxis2->tickLabelFont();
    bold.setBold(true);
    QVERIFY(header.width() >= QFontMetricsF(bold).horizontalAdvance(plot->data().rowNotesLabel));
    QVERIFY(legend.height() <= 2.2 * QFontMetricsF(plot->yAxis2->tickLabelFont()).height());
    // Nothing of the colour bar is under the header.
    QVERIFY(!header.intersects(QRectF(plot->colorScale()->axis()->axisRect()->rect())));
    // And both are drawn: dark ink on the white figure where they are.
    QVERIFY(inkHeight(image, header.toAlignedRect(), Qt::white) >= QFontMetricsF(bold).ascent() * 0.6);
    QVERIFY(inkHeight(image, legend.toAlignedRect(), Qt::white) >= QFontMetricsF(plot->yAxis2->tickLabelFont()).ascent() * 0.6);
    // Readable on a slide: the notes' type at least 2 % of the figure's height there.
    if (slide)
        QVERIFY(QFontInfo(plot->yAxis2->tickLabelFont()).pixelSize() >= 0.02 * size.height);
}

// A 2x PNG is the 1x picture with twice the pixels: the image's own
// resolution must not scale the fonts a second time (the text of a 2x or
// slide PNG was drawn at 4x, its title cut off at the top).
void TestExport::twiceTheScaleIsTheSamePicture()
{
    const Scenario s = test::lesson(QStringLiteral("causal"));
    const Trace t = compute(s);
    const QImage one = QImage::fromData(renderStageFigure(s, t, Stage::Weights, FigureStyle{}, FigureFormat::Png, FigureSize{800, 600, 1.0}), "PNG");
    const QImage two = QImage::fromData(renderStageFigure(s, t, Stage::Weights, FigureStyle{}, FigureFormat::Png, FigureSize{800, 600, 2.0}), "PNG");
    QCOMPARE(two.size(), QSize(1600, 1200));
    const QImage down = two.scaled(one.size(), Qt::IgnoreAspectRatio, Qt::SmoothTransformation).convertToFormat(one.format());
    // The first row that is not white (the title's top) is in the same place.
    auto firstInked = [](const QImage &img) {
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                if (qGray(img.pixel(x, y)) < 200)
                    return y;
        return -1;
    };
    const int a = firstInked(one), b = firstInked(down);
    QVERIFY2(a > 2 && std::abs(a - b) <= 2, qPrintable(QStringLiteral("1x title at %1, 2x at %2").arg(a).arg(b)));
    // And the whole picture agrees, pixel by pixel on average.
    double diff = 0;
    for (int y = 0; y < one.height(); ++y)
        for (int x = 0; x < one.width(); ++x)
            diff += std::abs(qGray(one.pixel(x, y)) - qGray(down.pixel(x, y)));
    diff /= double(one.width()) * one.height();
    QVERIFY2(diff < 6.0, qPrintable(QString::number(diff)));
    QCOMPARE(qRound(two.dotsPerMeterX() * 0.0254), 192); // the file says its resolution
}

QTEST_MAIN(TestExport)
#include "test_export.moc"
