// The window's side of slides and projector themes: the maps of
// one window write a number with one number of decimals; the Export dialog
// offers the slide preset and the themes, and its labels' "&" are
// shortcuts, not text; the command line's --figure-preset and --theme.

#include "attn_test.h"
#include "lesson_test.h"

#include "exportdialog.h"
#include "mainwindow.h"
#include "stagedata.h"
#include "stageviews.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFormLayout>
#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;

namespace {

void dumpImage(const QString &name, const QImage &image)
{
    const QString dir = qEnvironmentVariable("ATTN_EXPORT_DUMP");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    image.save(QDir(dir).filePath(name));
}

struct Run {
    int code = -1;
    QString out, err;
};

Run cli(const QStringList &args)
{
    QProcess p;
    p.start(test::binaryDir() + QStringLiteral("/bin/attention-lab-cli"), args);
    Run r;
    if (!p.waitForFinished(120000))
        return r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QString lessonFile(const QString &name)
{
    return test::sourceDir() + QStringLiteral("/resources/lessons/") + name + QStringLiteral(".json");
}

} // namespace

class TestExportWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void mapsOfOneWindowAgreeOnDecimals_data();
    void mapsOfOneWindowAgreeOnDecimals();
    void agreementFollowsWhatIsShown();
    void exportDialogOffersSlideAndThemes();
    void cliSlideAndThemes();
    void cliRefusesBadPresetAndTheme_data();
    void cliRefusesBadPresetAndTheme();

private:
    QTemporaryDir m_settings;
};

void TestExportWindow::initTestCase()
{
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
}

void TestExportWindow::mapsOfOneWindowAgreeOnDecimals_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1600x1000") << QSize(1600, 1000);
    QTest::newRow("1440x900") << QSize(1440, 900);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
}

void TestExportWindow::mapsOfOneWindowAgreeOnDecimals()
{
    QFETCH(QSize, size);
    MainWindow w;
    w.setInteractive(false);
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(!w.openLesson(QStringLiteral("seed000-basic")));
    QApplication::processEvents();
    StageView *weights = w.stageView(Stage::Weights);
    StageView *output = w.stageView(Stage::Output);
    // V = I in seed 000: the output row is the weights row, the same numbers.
    QCOMPARE(output->data().values(0, 0), weights->data().values(0, 0));
    ATTN_COMPARE_NEAR(weights->data().values(0, 0), 0.7679179361387025, 1e-12);
    QTRY_VERIFY(weights->drawnDecimals() >= 2 && output->drawnDecimals() >= 2);
    const QString where = QStringLiteral("%1x%2: weights fit %3, draw %4; output fit %5, draw %6")
                              .arg(size.width()).arg(size.height())
                              .arg(weights->decimalsThatFit()).arg(weights->drawnDecimals())
                              .arg(output->decimalsThatFit()).arg(output->drawnDecimals());
    qInfo("%s", qPrintable(where));
    ATTN_CHECK(weights->drawnDecimals() == output->drawnDecimals(), where);
    // The least that fits in any map shown, not fewer.
    int least = 4;
    for (Stage s : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output}) {
        StageView *v = w.stageView(s);
        if (v->isVisible() && v->decimalsThatFit() >= 0)
            least = std::min(least, v->decimalsThatFit());
    }
    ATTN_CHECK(weights->drawnDecimals() == least, where + QStringLiteral("; least that fits %1").arg(least));
    // So the same number reads the same: 0.7679 and 0.7679, or 0.768 and 0.768.
    QCOMPARE(HeatmapPlot::formatValue(output->data().values(0, 0), output->drawnDecimals()),
             HeatmapPlot::formatValue(weights->data().values(0, 0), weights->drawnDecimals()));
    dumpImage(QStringLiteral("window-decimals-%1x%2.png").arg(size.width()).arg(size.height()), w.grab().toImage());
}

// Agreement is settled again when the room changes, and a map that is not
// on screen has no say; the cap never reaches the layout (no loop: the
// window settles within one pass of events).
void TestExportWindow::agreementFollowsWhatIsShown()
{
    QWidget window;
    window.resize(1320, 500);
    auto *wide = new HeatmapPlot(&window);
    auto *narrow = new HeatmapPlot(&window);
    wide->setGeometry(0, 0, 900, 500);
    narrow->setGeometry(900, 0, 420, 500);
    const Scenario s = test::lesson(QStringLiteral("causal"));
    const Trace t = compute(s);
    wide->setData(stageData(s, t, Stage::Weights, StageOptions{}));
    narrow->setData(stageData(s, t, Stage::Scores, StageOptions{}));
    joinDecimalsAgreement(wide);
    joinDecimalsAgreement(narrow);
    int replots = 0;
    connect(wide, &QCustomPlot::afterReplot, this, [&] { ++replots; });
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_VERIFY(wide->decimalsThatFit() >= 2 && narrow->decimalsThatFit() >= 2);
    QApplication::processEvents();
    const int fitWide = wide->decimalsThatFit(), fitNarrow = narrow->decimalsThatFit();
    QVERIFY2(fitWide > fitNarrow && fitNarrow >= 2, qPrintable(QStringLiteral("%1 %2").arg(fitWide).arg(fitNarrow)));
    QCOMPARE(wide->drawnDecimals(), fitNarrow);
    QCOMPARE(narrow->drawnDecimals(), fitNarrow);
    // Settled: more turns of the event loop replot nothing (a loop would
    // replot within a turn or two; turns, not a time, so load cannot hide it).
    const int settled = replots;
    for (int turn = 0; turn < 20; ++turn) {
        QCoreApplication::sendPostedEvents();
        QApplication::processEvents();
    }
    QCOMPARE(replots, settled);
    // The narrow map hidden: the wide one writes all it can.
    narrow->hide();
    QApplication::processEvents();
    QCOMPARE(wide->drawnDecimals(), fitWide);
    narrow->show();
    QTRY_COMPARE(wide->drawnDecimals(), fitNarrow);
    // Room for everything: both at four.
    narrow->setGeometry(900, 0, 1200, 500);
    window.resize(2100, 500);
    QTRY_COMPARE(narrow->decimalsThatFit(), 4);
    QTRY_COMPARE(wide->drawnDecimals(), 4);
    QCOMPARE(narrow->drawnDecimals(), 4);
}

void TestExportWindow::exportDialogOffersSlideAndThemes()
{
    ExportDialog dialog(ExportDialog::What::Weights, QDir::tempPath(), QStringLiteral("seed000-basic"));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    // Every label with a shortcut has a buddy, so "&Size:" shows "Size:"
    // with S underlined, never the "&" itself.
    int shortcuts = 0;
    for (QLabel *label : dialog.findChildren<QLabel *>()) {
        if (!label->text().contains(QLatin1Char('&')))
            continue;
        ++shortcuts;
        QVERIFY2(label->buddy(), qPrintable(label->text()));
    }
    QVERIFY2(shortcuts >= 6, qPrintable(QString::number(shortcuts))); // figure, format, preset, theme, size, file
    auto *form = qobject_cast<QFormLayout *>(dialog.layout());
    QVERIFY(form);
    QStringList sizeAndFile;
    for (int row = 0; row < form->rowCount(); ++row)
        if (auto *item = form->itemAt(row, QFormLayout::LabelRole))
            if (auto *label = qobject_cast<QLabel *>(item->widget()))
                if (label->text() == QLatin1String("&Size:") || label->text() == QLatin1String("&File:")) {
                    sizeAndFile << label->text();
                    QVERIFY(label->buddy());
                }
    QCOMPARE(sizeAndFile, (QStringList{QStringLiteral("&Size:"), QStringLiteral("&File:")}));
    dumpImage(QStringLiteral("export-dialog.png"), dialog.grab().toImage());

    // Slide: 1600 x 900 at 2x; back to the default: the figure's own size at 1x.
    QCOMPARE(dialog.preset(), FigurePreset::Default);
    QCOMPARE(dialog.size().width, 1200);
    dialog.setPreset(FigurePreset::Slide);
    QCOMPARE(dialog.size().width, 1600);
    QCOMPARE(dialog.size().height, 900);
    QCOMPARE(dialog.size().scale, 2.0);
    dialog.setPreset(FigurePreset::Default);
    QCOMPARE(dialog.size().width, 1200);
    QCOMPARE(dialog.size().scale, 1.0);
    QCOMPARE(dialog.themeBox()->count(), 3);
    dialog.setTheme(FigureTheme::ContrastDark);
    QCOMPARE(dialog.theme(), FigureTheme::ContrastDark);
}

void TestExportWindow::cliSlideAndThemes()
{
    QTemporaryDir out;
    const Run r = cli({QStringLiteral("export"), lessonFile(QStringLiteral("seed000-basic")), QStringLiteral("--out"),
                       out.path(), QStringLiteral("--stages"), QStringLiteral("weights,plane"),
                       QStringLiteral("--figure-preset"), QStringLiteral("slide"), QStringLiteral("--theme"),
                       QStringLiteral("contrast-dark")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage weights(out.filePath(QStringLiteral("seed000-basic_weights.png")));
    QCOMPARE(weights.size(), QSize(3200, 1800));
    QCOMPARE(weights.pixelColor(3, 3), QColor(Qt::black));
    QImage plane(out.filePath(QStringLiteral("seed000-basic_plane.png")));
    QCOMPARE(plane.size(), QSize(3200, 1800));
    QCOMPARE(plane.pixelColor(3, 3), QColor(Qt::black));
    // --size and --scale still win over the preset's.
    const Run sized = cli({QStringLiteral("export"), lessonFile(QStringLiteral("seed000-basic")), QStringLiteral("--out"),
                           out.path(), QStringLiteral("--stages"), QStringLiteral("scores"), QStringLiteral("--figure-preset"),
                           QStringLiteral("slide"), QStringLiteral("--scale"), QStringLiteral("1"),
                           QStringLiteral("--theme"), QStringLiteral("contrast-light")});
    QVERIFY2(sized.code == 0, qPrintable(sized.err));
    QImage scores(out.filePath(QStringLiteral("seed000-basic_scores.png")));
    QCOMPARE(scores.size(), QSize(1600, 900));
    QCOMPARE(scores.pixelColor(3, 3), QColor(Qt::white));
    const Run help = cli({QStringLiteral("--help")});
    QCOMPARE(help.code, 0);
    QVERIFY(help.out.contains(QStringLiteral("--figure-preset default|slide")));
    QVERIFY(help.out.contains(QStringLiteral("--theme default|contrast-light|contrast-dark")));
}

void TestExportWindow::cliRefusesBadPresetAndTheme_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("named");
    QTest::newRow("--figure-preset poster") << QStringList{QStringLiteral("--figure-preset"), QStringLiteral("poster")}
                                            << QStringLiteral("--figure-preset: unknown preset \"poster\"");
    QTest::newRow("--theme neon") << QStringList{QStringLiteral("--theme"), QStringLiteral("neon")}
                                  << QStringLiteral("--theme: unknown theme \"neon\"");
    QTest::newRow("--preset slide with a file") << QStringList{QStringLiteral("--preset"), QStringLiteral("slide")}
                                                << QStringLiteral("--figure-preset slide");
}

void TestExportWindow::cliRefusesBadPresetAndTheme()
{
    QFETCH(QStringList, args);
    QFETCH(QString, named);
    QTemporaryDir out;
    const Run r = cli(QStringList{QStringLiteral("export"), lessonFile(QStringLiteral("seed000-basic")),
                                  QStringLiteral("--out"), out.path()}
                      + args);
    QCOMPARE(r.code, 2);
    QCOMPARE(r.out, QString());
    const QStringList lines = r.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.first().startsWith(QStringLiteral("attention-lab-cli: export: ")) && lines.first().contains(named),
             qPrintable(lines.first()));
    QCOMPARE(QDir(out.path()).entryList(QDir::Files), QStringList());
}

QTEST_MAIN(TestExportWindow)
#include "test_export_window.moc"
