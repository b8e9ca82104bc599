// Exported figures: each format loads back, holds what the screen shows
// (the colour of the max-weight cell, the Chinese labels), and a failed
// write leaves nothing half-written.

#include "attn_test.h"
#include "lesson_test.h"

#include "figureexport.h"
#include "atomicwrite.h"
#include "trace_csv.h"
#include "formula.h"
#include "lessons.h"

#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QImage>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

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
    void pngHasTheAskedSizeAndTheCellColour_data();
    void pngHasTheAskedSizeAndTheCellColour();
    void svgLoadsBackWithOutlinedText();
    void pdfHoldsOnePage();
    void sameInputSameBytes();
    void fileNamesSayWhatTheyAre();
    void failedWriteLeavesNothing();
    void csvHoldsEveryStage();
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

void TestExport::svgLoadsBackWithOutlinedText()
{
    const Scenario s = lesson(QStringLiteral("causal"));
    const QByteArray svg = renderStageFigure(s, compute(s), Stage::Weights, FigureStyle{}, FigureFormat::Svg,
                                             FigureSize{900, 700, 1.0});
    dump(QStringLiteral("causal-weights.svg"), svg);
    QVERIFY(svg.startsWith("<?xml"));
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QCOMPARE(renderer.viewBox(), QRect(0, 0, 900, 700));
    // Text is drawn as outlines: no <text> element that would need a CJK font.
    QVERIFY(!svg.contains("<text"));
    QVERIFY(svg.contains("<path"));
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

QTEST_MAIN(TestExport)
#include "test_export.moc"
