// The Export dialog: its labels' mnemonics work (no "&"
// shown), and while a comparison is pinned its A/B figure and difference
// map are in the list of figures, named and sized as the command line's,
// and the files the window writes are the command line's (PNG byte for
// byte, SVG to a twentieth of a pixel).

#include "attn_test.h"
#include "compareview.h"
#include "exportdialog.h"
#include "mainwindow.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>

using namespace attn;

namespace {

QString reasonOf(const std::optional<Problem> &p)
{
    return p ? QString::fromStdString(p->message) : QString();
}

// Two SVG files that are the same drawing: the same text between the
// numbers, and every coordinate within 0.05 px. (Glyph outlines can move by
// a hundredth of a pixel with the font engines a process has cached; the
// PNGs are compared byte for byte.)
QString svgMismatch(const QByteArray &a, const QByteArray &b)
{
    static const QRegularExpression number(QStringLiteral("-?[0-9]*\\.?[0-9]+"));
    const QString sa = QString::fromUtf8(a), sb = QString::fromUtf8(b);
    QRegularExpressionMatchIterator ia = number.globalMatch(sa), ib = number.globalMatch(sb);
    qsizetype endA = 0, endB = 0;
    int count = 0;
    while (ia.hasNext() && ib.hasNext()) {
        const QRegularExpressionMatch ma = ia.next(), mb = ib.next();
        if (sa.mid(endA, ma.capturedStart() - endA) != sb.mid(endB, mb.capturedStart() - endB))
            return QStringLiteral("the text differs near number %1: \"%2\" against \"%3\"")
                .arg(count).arg(sa.mid(endA, 40), sb.mid(endB, 40));
        const double x = ma.captured().toDouble(), y = mb.captured().toDouble();
        if (std::abs(x - y) > 0.05)
            return QStringLiteral("number %1 is %2 against %3").arg(count).arg(x).arg(y);
        endA = ma.capturedEnd();
        endB = mb.capturedEnd();
        ++count;
    }
    if (ia.hasNext() || ib.hasNext() || sa.mid(endA) != sb.mid(endB))
        return QStringLiteral("one has more after number %1").arg(count);
    return count > 100 ? QString() : QStringLiteral("only %1 numbers: not a drawing").arg(count);
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestExportDialog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // The tests must not read or write the user's settings.
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
    }

    // Every label with a mnemonic has a buddy, so Qt draws "Size" with S
    // underlined instead of a literal "&Size:".
    void labelsHaveBuddies()
    {
        ExportDialog dialog(ExportDialog::What::Weights, QDir::tempPath(), QStringLiteral("lesson"));
        int withMnemonic = 0;
        for (QLabel *label : dialog.findChildren<QLabel *>()) {
            const QString text = label->text();
            if (!text.contains(QLatin1Char('&')) || text.contains(QLatin1String("&&")))
                continue;
            ++withMnemonic;
            QVERIFY2(label->buddy(), qPrintable(text));
        }
        QCOMPARE(withMnemonic, 6); // Figure, Format, Preset, Theme, Size, File
        const auto buddyOf = [&dialog](const QString &text) -> QWidget * {
            for (QLabel *label : dialog.findChildren<QLabel *>())
                if (label->text() == text)
                    return label->buddy();
            return nullptr;
        };
        QVERIFY(qobject_cast<QSpinBox *>(buddyOf(QStringLiteral("&Size:"))));
        QVERIFY(qobject_cast<QLineEdit *>(buddyOf(QStringLiteral("&File:"))));
    }

    // Without a comparison: the seven figures of before. With one: two
    // more, for the compare view's stage, with the command line's names.
    void comparisonFiguresListed()
    {
        {
            ExportDialog dialog(ExportDialog::What::Weights, QDir::tempPath(), QStringLiteral("lesson"));
            QCOMPARE(dialog.figureBox()->count(), 7);
        }
        ExportDialog dialog(ExportDialog::What::Compare, QStringLiteral("/tmp/figures"), QStringLiteral("lesson"), 1, 2,
                            Stage::Output);
        QCOMPARE(dialog.figureBox()->count(), 9);
        QCOMPARE(dialog.what(), ExportDialog::What::Compare);
        QVERIFY(dialog.figureBox()->itemText(7).contains(stageName(Stage::Output)));
        QVERIFY(dialog.figureBox()->itemText(8).contains(stageName(Stage::Output)));
        // As `attention-lab-cli export --compare` names them (head 2 of 2).
        QCOMPARE(dialog.path(), QStringLiteral("/tmp/figures/lesson_compare_output_head2.png"));
        // Three maps in a row: a wide figure.
        QCOMPARE(dialog.size().width, 1800);
        QCOMPARE(dialog.size().height, 700);
        dialog.figureBox()->setCurrentIndex(int(ExportDialog::What::Difference));
        QCOMPARE(dialog.path(), QStringLiteral("/tmp/figures/lesson_diff_output_head2.png"));
        QCOMPARE(dialog.size().width, 1200);
        // A size the user typed stays when the figure changes.
        dialog.findChildren<QSpinBox *>().first()->setValue(1000);
        dialog.figureBox()->setCurrentIndex(int(ExportDialog::What::Compare));
        QCOMPARE(dialog.size().width, 1000);
        dialog.figureBox()->setCurrentIndex(int(ExportDialog::What::Weights));
        QCOMPARE(dialog.path(), QStringLiteral("/tmp/figures/lesson_weights_head2.png"));
    }

    // The window's A/B exports are the command line's files at the compare
    // view's stage; without a pinned A they are refused.
    void windowComparisonMatchesCommandLine()
    {
        MainWindow w;
        w.setInteractive(false);
        QTemporaryDir dir;
        QVERIFY(!w.openLesson(QStringLiteral("causal")));
        const QString refused = dir.filePath(QStringLiteral("refused.svg"));
        const QString why = reasonOf(w.exportFigure(ExportDialog::What::Compare, FigureFormat::Svg, FigureSize{}, refused));
        QVERIFY2(why.contains(QLatin1String("nothing is pinned")), qPrintable(why));
        QVERIFY(!QFile::exists(refused));
        QVERIFY(w.figureImage(ExportDialog::What::Difference).isNull());

        // compare-encoding: A = permutation pinned, B = the lesson, live.
        QVERIFY(!w.openLesson(QStringLiteral("compare-encoding")));
        QVERIFY(w.compareView()->isPinned());
        w.compareView()->setStage(Stage::Output);
        const FigureSize size{1500, 600, 1.0};
        for (const auto &[what, kind] : {std::pair{ExportDialog::What::Compare, QStringLiteral("compare")},
                                         std::pair{ExportDialog::What::Difference, QStringLiteral("diff")}})
            for (FigureFormat format : {FigureFormat::Png, FigureFormat::Svg}) {
                const QString path = dir.filePath(QStringLiteral("window_%1.%2").arg(kind, figureSuffix(format)));
                const QString problem = reasonOf(w.exportFigure(what, format, size, path));
                QVERIFY2(problem.isEmpty(), qPrintable(problem));
            }
        QProcess cli;
        cli.start(test::binaryDir() + QStringLiteral("/bin/attention-lab-cli"),
                  {QStringLiteral("export"), QStringLiteral("--preset"), QStringLiteral("permutation"),
                   QStringLiteral("--compare-preset"), QStringLiteral("compare-encoding"), QStringLiteral("--stages"),
                   QStringLiteral("output"), QStringLiteral("--format"), QStringLiteral("png,svg"), QStringLiteral("--size"),
                   QStringLiteral("1500x600"), QStringLiteral("--out"), dir.path()});
        QVERIFY(cli.waitForFinished(60000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        for (const QString &kind : {QStringLiteral("compare"), QStringLiteral("diff")})
            for (const QString &suffix : {QStringLiteral("png"), QStringLiteral("svg")}) {
                const QByteArray window = readAll(dir.filePath(QStringLiteral("window_%1.%2").arg(kind, suffix)));
                const QByteArray line = readAll(dir.filePath(QStringLiteral("permutation_%1_output.%2").arg(kind, suffix)));
                QVERIFY(window.size() > 1000);
                if (suffix == QLatin1String("png")) {
                    ATTN_CHECK(window == line, QStringLiteral("%1.png: %2 against %3 bytes").arg(kind).arg(window.size()).arg(line.size()));
                } else {
                    const QString why = svgMismatch(window, line);
                    ATTN_CHECK(why.isEmpty(), QStringLiteral("%1.svg: %2").arg(kind, why));
                }
            }
        // The clipboard's picture is the default size of each.
        QCOMPARE(w.figureImage(ExportDialog::What::Compare).size(), QSize(1800, 700));
        QCOMPARE(w.figureImage(ExportDialog::What::Difference).size(), QSize(1200, 900));
    }

private:
    QTemporaryDir m_settings;
};

QTEST_MAIN(TestExportDialog)
#include "test_exportdialog.moc"
