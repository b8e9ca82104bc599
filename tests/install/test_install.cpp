// A real install: `cmake --install` of this very build tree into a
// temporary prefix puts every file in its standard place, the desktop file
// and the AppStream metainfo pass their validators, the installed programs
// run (the app's --help, --version and a wrong option without a display),
// and `cpack -G DEB` makes a .deb that declares its Debian dependencies.
// A missing validator or dpkg tool skips its test and says which package
// brings it.

#include "attn_test.h"
#include "version.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTranslator>
#include <QXmlStreamReader>

namespace {

const QString kAppId = QStringLiteral("io.github.attentionlab.AttentionLab");

struct Run {
    int code = -1;
    QString out, err;
    bool crashed = false;
};

// Runs a program to its end. `env` replaces the environment when given.
Run run(const QString &program, const QStringList &args, const std::optional<QProcessEnvironment> &env = std::nullopt,
        int timeoutMs = 300000)
{
    QProcess p;
    if (env)
        p.setProcessEnvironment(*env);
    p.start(program, args);
    Run r;
    if (!p.waitForStarted(30000)) {
        r.err = QStringLiteral("%1 did not start: %2").arg(program, p.errorString());
        return r;
    }
    if (!p.waitForFinished(timeoutMs)) {
        // A hang is a failure, not the exit code 0 QProcess reports for it.
        p.kill();
        p.waitForFinished(5000);
        r.crashed = true;
        r.code = -1;
        r.err = QStringLiteral("%1 did not finish within %2 s\n").arg(program).arg(timeoutMs / 1000);
        r.err += QString::fromUtf8(p.readAllStandardError());
        return r;
    }
    r.crashed = p.exitStatus() != QProcess::NormalExit;
    r.code = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QString describe(const Run &r)
{
    return QStringLiteral("exit %1%2\nstdout: %3\nstderr: %4")
        .arg(r.code)
        .arg(r.crashed ? QStringLiteral(" (crashed)") : QString())
        .arg(r.out, r.err);
}

// No display at all, as over ssh or in a build chroot: the platform plugin
// would abort the app if it were loaded.
QProcessEnvironment headless()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XDG_SESSION_TYPE"})
        env.remove(QString::fromLatin1(name));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QString()); // set but empty: Qt's default, as `QT_QPA_PLATFORM=` does
    return env;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestInstall : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void filesInTheirPlaces();
    void desktopFileAndMetainfoAgree();
    void desktopFileValidates();
    void metainfoValidates();
    void installedTranslationLoads();
    void installedCliRuns();
    void installedAppWithoutDisplay_data();
    void installedAppWithoutDisplay();
    void installedAppOpensAFile();
    void debianPackage();

private:
    QString installed(const QString &relative) const { return QDir(m_prefix.path()).filePath(relative); }
    QString desktopFile() const { return installed(QStringLiteral("share/applications/%1.desktop").arg(kAppId)); }
    QString metainfoFile() const { return installed(QStringLiteral("share/metainfo/%1.metainfo.xml").arg(kAppId)); }

    QTemporaryDir m_prefix;
};

void TestInstall::initTestCase()
{
    QVERIFY(m_prefix.isValid());
    const Run r = run(QStringLiteral(ATTN_CMAKE_COMMAND),
                      {QStringLiteral("--install"), attn::test::binaryDir(), QStringLiteral("--prefix"), m_prefix.path()});
    QVERIFY2(r.code == 0 && !r.crashed, qPrintable(describe(r)));
}

void TestInstall::filesInTheirPlaces()
{
    for (const QString &program : {QStringLiteral("bin/attention-lab"), QStringLiteral("bin/attention-lab-cli")}) {
        const QFileInfo info(installed(program));
        QVERIFY2(info.isFile(), qPrintable(program));
        QVERIFY2(info.isExecutable(), qPrintable(program));
    }
    QVERIFY(QFileInfo(desktopFile()).isFile());
    QVERIFY(QFileInfo(metainfoFile()).isFile());
    // The icon is the app's own, under the application id.
    const QString icon = installed(QStringLiteral("share/icons/hicolor/scalable/apps/%1.svg").arg(kAppId));
    QVERIFY(QFileInfo(icon).isFile());
    QCOMPARE(readAll(icon), readAll(attn::test::sourceDir() + QStringLiteral("/resources/icons/attention-lab.svg")));
    QVERIFY(QFileInfo(installed(QStringLiteral("share/attention-lab/translations/attention-lab_zh_CN.qm"))).isFile());

    // Nothing else: every installed file is one of these.
    QStringList all;
    QDirIterator it(m_prefix.path(), QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        all << QDir(m_prefix.path()).relativeFilePath(it.next());
    all.sort();
    const QStringList expected = {
        QStringLiteral("bin/attention-lab"),
        QStringLiteral("bin/attention-lab-cli"),
        QStringLiteral("share/applications/%1.desktop").arg(kAppId),
        QStringLiteral("share/attention-lab/translations/attention-lab_zh_CN.qm"),
        QStringLiteral("share/icons/hicolor/scalable/apps/%1.svg").arg(kAppId),
        QStringLiteral("share/metainfo/%1.metainfo.xml").arg(kAppId),
    };
    QCOMPARE(all, expected);
}

// The menu entry starts the installed binary with the installed icon, and
// the metainfo names that entry, this version and real screenshots.
void TestInstall::desktopFileAndMetainfoAgree()
{
    QSettings desktop(desktopFile(), QSettings::IniFormat);
    desktop.beginGroup(QStringLiteral("Desktop Entry"));
    QCOMPARE(desktop.value(QStringLiteral("Type")).toString(), QStringLiteral("Application"));
    QCOMPARE(desktop.value(QStringLiteral("Icon")).toString(), kAppId);
    const QString exec = desktop.value(QStringLiteral("Exec")).toString().section(QLatin1Char(' '), 0, 0);
    QVERIFY2(QFileInfo(installed(QStringLiteral("bin/") + exec)).isExecutable(), qPrintable(exec));

    QFile file(metainfoFile());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&file);
    QString id, launchable, release;
    QStringList screenshots;
    QStringList binaries;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        if (xml.name() == QLatin1String("id"))
            id = xml.readElementText();
        else if (xml.name() == QLatin1String("launchable"))
            launchable = xml.readElementText();
        else if (xml.name() == QLatin1String("release") && release.isEmpty())
            release = xml.attributes().value(QLatin1String("version")).toString();
        else if (xml.name() == QLatin1String("image"))
            screenshots << xml.readElementText();
        else if (xml.name() == QLatin1String("binary"))
            binaries << xml.readElementText();
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(id, kAppId);
    QCOMPARE(launchable, kAppId + QStringLiteral(".desktop"));
    QCOMPARE(release, QStringLiteral(ATTN_VERSION));
    QCOMPARE(binaries, (QStringList{QStringLiteral("attention-lab"), QStringLiteral("attention-lab-cli")}));
    // Each screenshot is a picture the repository has (docs/images), at its published address.
    QVERIFY(!screenshots.isEmpty());
    for (const QString &url : screenshots) {
        QVERIFY2(url.startsWith(QLatin1String("https://")), qPrintable(url));
        const QString local = attn::test::sourceDir() + QStringLiteral("/docs/images/") + url.section(QLatin1Char('/'), -1);
        QVERIFY2(QFileInfo(local).isFile(), qPrintable(local));
    }
}

void TestInstall::desktopFileValidates()
{
    const QString validator = QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate"));
    if (validator.isEmpty())
        QSKIP("desktop-file-validate is not installed (Debian package desktop-file-utils)");
    const Run r = run(validator, {desktopFile()});
    // It prints nothing for a file without errors, warnings or hints.
    QVERIFY2(r.code == 0 && r.out.trimmed().isEmpty() && r.err.trimmed().isEmpty(), qPrintable(describe(r)));
}

void TestInstall::metainfoValidates()
{
    const QString validator = QStandardPaths::findExecutable(QStringLiteral("appstreamcli"));
    if (validator.isEmpty())
        QSKIP("appstreamcli is not installed (Debian package appstream)");
    const Run r = run(validator, {QStringLiteral("validate"), QStringLiteral("--no-net"), QStringLiteral("--no-color"), metainfoFile()});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    // No errors, warnings or infos; only pedantic remarks would be allowed.
    static const QRegularExpression issue(QStringLiteral("^[EWI]: "), QRegularExpression::MultilineOption);
    QVERIFY2(!issue.match(r.out + r.err).hasMatch(), qPrintable(describe(r)));
}

// The installed .qm, which the app loads before its compiled-in copy, is a
// real translation.
void TestInstall::installedTranslationLoads()
{
    QTranslator translator;
    QVERIFY(translator.load(installed(QStringLiteral("share/attention-lab/translations/attention-lab_zh_CN.qm"))));
    QCOMPARE(translator.translate("attn::MainWindow", "A/B — Attention Lab"), QStringLiteral("A/B — 注意力实验室"));
}

void TestInstall::installedCliRuns()
{
    const Run r = run(installed(QStringLiteral("bin/attention-lab-cli")), {QStringLiteral("--version")}, headless());
    QVERIFY2(r.code == 0 && !r.crashed, qPrintable(describe(r)));
    QCOMPARE(r.out.trimmed(), QStringLiteral("attention-lab-cli " ATTN_VERSION));
    // And real work without a display: the hand calculation of a built-in lesson.
    const Run trace = run(installed(QStringLiteral("bin/attention-lab-cli")),
                          {QStringLiteral("trace"), QStringLiteral("--preset"), QStringLiteral("seed000-basic")}, headless());
    QVERIFY2(trace.code == 0 && !trace.crashed && !trace.out.isEmpty(), qPrintable(describe(trace)));
}

void TestInstall::installedAppWithoutDisplay_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("out"); // what stdout holds (exit 0) or the one stderr line (exit 2)
    QTest::newRow("--help") << QStringList{"--help"} << 0 << "--screenshot <PNG>";
    QTest::newRow("-h") << QStringList{"-h"} << 0 << "--lesson <NAME>";
    QTest::newRow("--version") << QStringList{"--version"} << 0 << "attention-lab " ATTN_VERSION;
    QTest::newRow("a Qt option and --version") << QStringList{"-style", "fusion", "--version"} << 0 << "attention-lab " ATTN_VERSION;
    QTest::newRow("unknown option") << QStringList{"--no-such-option"} << 2 << "attention-lab: Unknown option 'no-such-option'";
    QTest::newRow("missing value") << QStringList{"--lesson"} << 2 << "attention-lab: Missing value after '--lesson'";
    QTest::newRow("bad zoom") << QStringList{"--zoom", "9"} << 2 << "attention-lab: --zoom";
    QTest::newRow("two files") << QStringList{"a.json", "b.json"} << 2 << "attention-lab: one scenario file at a time";
    // Everything right but no screen: said in one line, not Qt's abort.
    QTest::newRow("no display") << QStringList{"--lesson", "causal"} << 2 << "attention-lab: no display";
}

void TestInstall::installedAppWithoutDisplay()
{
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, out);
    const Run r = run(installed(QStringLiteral("bin/attention-lab")), args, headless(), 60000);
    QVERIFY2(!r.crashed && r.code == code, qPrintable(describe(r)));
    if (code == 0) {
        QVERIFY2(r.out.contains(out), qPrintable(describe(r)));
        QVERIFY2(r.err.isEmpty(), qPrintable(describe(r)));
    } else {
        const QStringList lines = r.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().startsWith(out), qPrintable(describe(r)));
        QVERIFY(r.out.isEmpty());
    }
}

// `attention-lab FILE.json` opens the file: its screenshot is the same
// picture as the built-in lesson the file was copied from, except the title.
// A Qt option on the command line (-platform) goes to Qt.
void TestInstall::installedAppOpensAFile()
{
    QTemporaryDir dir;
    const QString lesson = dir.filePath(QStringLiteral("my lesson.json"));
    QVERIFY(QFile::copy(attn::test::sourceDir() + QStringLiteral("/resources/lessons/seed001-soft-knn.json"), lesson));
    const QString shot = dir.filePath(QStringLiteral("shot.png"));
    QProcessEnvironment env = headless();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
    const Run r = run(installed(QStringLiteral("bin/attention-lab")),
                      {QStringLiteral("-platform"), QStringLiteral("offscreen"), lesson, QStringLiteral("--screenshot"), shot,
                       QStringLiteral("--size"), QStringLiteral("1400x900")},
                      env, 120000);
    QVERIFY2(r.code == 0 && !r.crashed, qPrintable(describe(r)));
    QImage image(shot);
    QCOMPARE(image.size(), QSize(1400, 900));

    // A file that is not a lesson: one line naming it and why, and no picture.
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"tokens\": [");
    f.close();
    QFile::remove(shot);
    const Run refused = run(installed(QStringLiteral("bin/attention-lab")),
                            {QStringLiteral("-platform"), QStringLiteral("offscreen"), bad, QStringLiteral("--screenshot"), shot},
                            env, 120000);
    QVERIFY2(refused.code == 2 && !refused.crashed, qPrintable(describe(refused)));
    QStringList ours;
    for (const QString &line : refused.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (line.startsWith(QLatin1String("attention-lab:")))
            ours << line;
    QCOMPARE(ours.size(), 1);
    QVERIFY2(ours.first().contains(QLatin1String("bad.json")), qPrintable(ours.first()));
    QVERIFY(!QFile::exists(shot));
}

// cpack -G DEB: the package holds the installed tree under /usr, declares
// the shared libraries' packages (dpkg-shlibdeps) and the fonts, and its
// programs run from the unpacked tree.
void TestInstall::debianPackage()
{
    const QString cpack = QStringLiteral(ATTN_CPACK_COMMAND);
    const QString dpkgDeb = QStandardPaths::findExecutable(QStringLiteral("dpkg-deb"));
    const QString shlibdeps = QStandardPaths::findExecutable(QStringLiteral("dpkg-shlibdeps"));
    if (dpkgDeb.isEmpty() || shlibdeps.isEmpty())
        QSKIP("dpkg-deb or dpkg-shlibdeps is not installed (Debian package dpkg-dev)");
    QTemporaryDir out;
    const Run made = run(cpack, {QStringLiteral("-G"), QStringLiteral("DEB"), QStringLiteral("--config"),
                                 attn::test::binaryDir() + QStringLiteral("/CPackConfig.cmake"), QStringLiteral("-B"), out.path()});
    QVERIFY2(made.code == 0 && !made.crashed, qPrintable(describe(made)));
    const QStringList debs = QDir(out.path()).entryList({QStringLiteral("*.deb")}, QDir::Files);
    QCOMPARE(debs.size(), 1);
    const QString deb = out.filePath(debs.first());
    QVERIFY2(debs.first().startsWith(QStringLiteral("attention-lab_" ATTN_VERSION "_")), qPrintable(debs.first()));

    const Run depends = run(dpkgDeb, {QStringLiteral("--field"), deb, QStringLiteral("Depends")});
    QVERIFY2(depends.code == 0, qPrintable(describe(depends)));
    for (const char *package : {"libqt6widgets6", "libqt6svg6", "libqcustomplot", "libgomp1", "libc6",
                                "fonts-noto-cjk"})
        QVERIFY2(depends.out.contains(QLatin1String(package)), qPrintable(QStringLiteral("%1 not in Depends: %2").arg(package, depends.out)));

    const Run contents = run(dpkgDeb, {QStringLiteral("--contents"), deb});
    QVERIFY2(contents.code == 0, qPrintable(describe(contents)));
    for (const QString &path : {QStringLiteral("./usr/bin/attention-lab"), QStringLiteral("./usr/bin/attention-lab-cli"),
                                QStringLiteral("./usr/share/applications/%1.desktop").arg(kAppId),
                                QStringLiteral("./usr/share/metainfo/%1.metainfo.xml").arg(kAppId),
                                QStringLiteral("./usr/share/icons/hicolor/scalable/apps/%1.svg").arg(kAppId)})
        QVERIFY2(contents.out.contains(path + QLatin1Char('\n')), qPrintable(path));

    const QString root = out.filePath(QStringLiteral("root"));
    const Run unpacked = run(dpkgDeb, {QStringLiteral("-x"), deb, root});
    QVERIFY2(unpacked.code == 0, qPrintable(describe(unpacked)));
    const Run version = run(root + QStringLiteral("/usr/bin/attention-lab"), {QStringLiteral("--version")}, headless());
    QVERIFY2(version.code == 0 && version.out.trimmed() == QStringLiteral("attention-lab " ATTN_VERSION), qPrintable(describe(version)));
    const Run cli = run(root + QStringLiteral("/usr/bin/attention-lab-cli"), {QStringLiteral("presets")}, headless());
    QVERIFY2(cli.code == 0 && cli.out.contains(QLatin1String("causal")), qPrintable(describe(cli)));
}

QTEST_GUILESS_MAIN(TestInstall)
#include "test_install.moc"
