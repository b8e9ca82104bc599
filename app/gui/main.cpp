// attention-lab: the window.
//   attention-lab [FILE.json] [--lesson NAME] [--zoom F] [--language en|zh_CN]
//                 [--maps-only] [--screenshot PNG [--size WxH] [--tab N]]
// --screenshot renders the window (offscreen works) to a PNG and exits: how
// the README's picture is made.

#include "lessons.h"
#include "mainwindow.h"
#include "preferences.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QLibraryInfo>
#include <QLocale>
#include <QTabWidget>
#include <QTimer>
#include <QTranslator>

#include <cstdio>

namespace {

void installTranslations(QApplication &app, const QString &language)
{
    const QLocale locale = language.isEmpty() ? QLocale() : QLocale(language);
    QLocale::setDefault(locale); // the lessons' titles follow the interface's language
    auto *ours = new QTranslator(&app);
    if (ours->load(locale, QStringLiteral("attention-lab"), QStringLiteral("_"), QStringLiteral(":/i18n")))
        app.installTranslator(ours);
    auto *qt = new QTranslator(&app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        app.installTranslator(qt);
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttentionLab"));
    QApplication::setApplicationName(QStringLiteral("Attention Lab"));
    QApplication::setApplicationVersion(QStringLiteral(ATTN_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/attention-lab.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Scaled dot-product attention, live, for the classroom."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A scenario file to open."), QStringLiteral("[FILE.json]"));
    const QCommandLineOption lesson(QStringLiteral("lesson"), QStringLiteral("Open a built-in lesson."), QStringLiteral("NAME"));
    const QCommandLineOption zoom(QStringLiteral("zoom"), QStringLiteral("Font zoom, 1 = normal."), QStringLiteral("F"));
    const QCommandLineOption language(QStringLiteral("language"), QStringLiteral("en or zh_CN."), QStringLiteral("CODE"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Save the window to a PNG and quit."),
                                        QStringLiteral("PNG"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot."), QStringLiteral("WxH"),
                                  QStringLiteral("1600x1000"));
    const QCommandLineOption tab(QStringLiteral("tab"), QStringLiteral("Side tab to show (0-based)."), QStringLiteral("N"));
    const QCommandLineOption mapsOnly(QStringLiteral("maps-only"), QStringLiteral("Start with the panels hidden (F9)."));
    parser.addOptions({lesson, zoom, language, screenshot, size, tab, mapsOnly});
    parser.process(app);

    const bool scripted = parser.isSet(screenshot);
    if (scripted) {
        // A screenshot must neither depend on nor change the user's settings.
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope,
                           QDir::tempPath() + QStringLiteral("/attention-lab-screenshot-%1").arg(QCoreApplication::applicationPid()));
    }
    installTranslations(app, parser.isSet(language) ? parser.value(language) : attn::prefs::language.get());

    attn::MainWindow window;
    window.setInteractive(!scripted);
    QString problem;
    if (!parser.positionalArguments().isEmpty())
        problem = window.openFile(parser.positionalArguments().first());
    else
        problem = window.openLesson(parser.isSet(lesson) ? parser.value(lesson) : attn::prefs::lastLesson.get());
    if (!problem.isEmpty()) {
        // Said on the terminal too: the window may not be looked at (a script).
        std::fprintf(stderr, "attention-lab: %s\n", qPrintable(problem));
        if (scripted)
            return 2; // a screenshot of something else would pass for the one asked
        if (window.document()->filePath().isEmpty() && !parser.positionalArguments().isEmpty())
            window.openLesson(QStringLiteral("seed000-basic"));
    }
    if (parser.isSet(zoom)) {
        bool ok = false;
        const double z = parser.value(zoom).toDouble(&ok);
        if (!ok || !(z >= 0.6 && z <= 3.0)) {
            std::fprintf(stderr, "attention-lab: --zoom: must be a number from 0.6 to 3 (got %s)\n", qPrintable(parser.value(zoom)));
            return 2;
        }
        window.setZoom(z, false);
    }
    if (parser.isSet(tab))
        window.sideTabs()->setCurrentIndex(parser.value(tab).toInt());
    if (parser.isSet(mapsOnly))
        window.setPanelsShown(false);

    if (scripted) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        window.resize(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1600, wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 1000);
        window.show();
        QTimer::singleShot(500, &window, [&window, path = parser.value(screenshot)] {
            const bool ok = window.grab().save(path);
            std::fprintf(ok ? stdout : stderr, ok ? "%s\n" : "attention-lab: cannot write %s\n", qPrintable(path));
            QApplication::exit(ok ? 0 : 1);
        });
        return app.exec();
    }
    window.show();
    return app.exec();
}
