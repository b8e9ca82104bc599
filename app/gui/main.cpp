// attention-lab: the window.
//   attention-lab [FILE.json] [--lesson NAME] [--zoom F] [--language en|zh_CN]
//                 [--maps-only | --panels] [--screenshot PNG [--size WxH] [--tab N]]
// --screenshot renders the window (offscreen works) to a PNG and exits, once
// the views have drawn their background work: how the README's picture is made.
//
// The command line is read before QApplication exists: --help, --version
// and a wrong option print and exit (0, 0, 2) without a display, instead of
// aborting in Qt's platform plugin.

#include "atomicwrite.h"
#include "lessons.h"
#include "classroommode.h"
#include "mainwindow.h"
#include "sessionpanel.h"
#include "steppanel.h"
#include "recovery.h"
#include "version.h"
#include "preferences.h"
#include "runtimedir.h"

#include <QApplication>
#include <QBuffer>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QLibraryInfo>
#include <QLocale>
#include <QMessageBox>
#include <QTabWidget>
#include <QElapsedTimer>
#include <QTimer>
#include <QTranslator>

#include <algorithm>
#include <csignal>
#include <cstdio>

namespace {

void installTranslations(QApplication &app, const QString &language)
{
    const QLocale locale = language.isEmpty() ? QLocale() : QLocale(language);
    QLocale::setDefault(locale); // the lessons' titles follow the interface's language
    // An installed .qm (PREFIX/share/attention-lab/translations, see
    // cmake/Install.cmake) first, so a corrected one needs no rebuild; then
    // the copy compiled in.
    const QString installed = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/attention-lab/translations"));
    auto *ours = new QTranslator(&app);
    if (ours->load(locale, QStringLiteral("attention-lab"), QStringLiteral("_"), installed)
        || ours->load(locale, QStringLiteral("attention-lab"), QStringLiteral("_"), QStringLiteral(":/i18n")))
        app.installTranslator(ours);
    auto *qt = new QTranslator(&app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        app.installTranslator(qt);
}

// The arguments QGuiApplication and QApplication take for themselves
// (-platform offscreen, -style=fusion, --reverse, ...): left out of our own
// parse, which runs before QApplication has removed them.
QStringList withoutQtOptions(const QStringList &args)
{
    static const QStringList withValue = {
        QStringLiteral("platform"),   QStringLiteral("platformpluginpath"), QStringLiteral("platformtheme"),
        QStringLiteral("plugin"),     QStringLiteral("qwindowgeometry"),    QStringLiteral("geometry"),
        QStringLiteral("qwindowtitle"), QStringLiteral("title"),            QStringLiteral("qwindowicon"),
        QStringLiteral("icon"),       QStringLiteral("session"),            QStringLiteral("display"),
        QStringLiteral("name"),       QStringLiteral("style"),              QStringLiteral("stylesheet"),
        QStringLiteral("visual"),     QStringLiteral("qmljsdebugger")};
    static const QStringList flags = {QStringLiteral("reverse"), QStringLiteral("widgetcount"), QStringLiteral("testability"),
                                      QStringLiteral("nograb"), QStringLiteral("dograb"), QStringLiteral("sync")};
    QStringList kept;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (a == QLatin1String("--")) { // everything after it is a file name
            kept << args.mid(i);
            break;
        }
        if (i == 0 || !a.startsWith(QLatin1Char('-')) || a == QLatin1String("-")) {
            kept << a;
            continue;
        }
        QString name = a.mid(a.startsWith(QLatin1String("--")) ? 2 : 1);
        const bool inlineValue = name.contains(QLatin1Char('='));
        name = name.section(QLatin1Char('='), 0, 0);
        if (flags.contains(name))
            continue;
        if (withValue.contains(name)) {
            if (!inlineValue)
                ++i; // and its value
            continue;
        }
        kept << a;
    }
    return kept;
}

// Whether Qt would find a screen: a display, or a platform named by hand.
// Without one Qt aborts (SIGABRT, exit 134) with a message about plugins.
bool displayAvailable(const QStringList &args)
{
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
    if (!qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") || !qEnvironmentVariableIsEmpty("DISPLAY")
        || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") || qgetenv("XDG_SESSION_TYPE") == "wayland")
        return true;
    for (const QString &a : args)
        if (a == QLatin1String("-platform") || a == QLatin1String("--platform") || a.startsWith(QLatin1String("-platform="))
            || a.startsWith(QLatin1String("--platform=")))
            return true;
    return false;
#else
    Q_UNUSED(args);
    return true;
#endif
}

} // namespace

int main(int argc, char *argv[])
{
#ifdef SIGXFSZ
    // A file size limit fails the write (and the window says so) instead of killing the app.
    std::signal(SIGXFSZ, SIG_IGN);
#endif
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionLab"));
    QCoreApplication::setApplicationName(QStringLiteral("Attention Lab"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ATTN_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Scaled dot-product attention, live, for the classroom."));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A scenario file to open."), QStringLiteral("[FILE.json]"));
    const QCommandLineOption lesson(QStringLiteral("lesson"), QStringLiteral("Open a built-in lesson."), QStringLiteral("NAME"));
    const QCommandLineOption zoom(QStringLiteral("zoom"), QStringLiteral("Font zoom, 1 = normal."), QStringLiteral("F"));
    const QCommandLineOption language(QStringLiteral("language"), QStringLiteral("en or zh_CN."), QStringLiteral("CODE"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Save the window to a PNG and quit."),
                                        QStringLiteral("PNG"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size (for --screenshot, or to open the window at that size)."), QStringLiteral("WxH"),
                                  QStringLiteral("1600x1000"));
    const QCommandLineOption tab(QStringLiteral("tab"), QStringLiteral("Side tab to show (0-based)."), QStringLiteral("N"));
    const QCommandLineOption mapsOnly(QStringLiteral("maps-only"), QStringLiteral("Start with the panels hidden (F9)."));
    const QCommandLineOption show(QStringLiteral("show"),
                                  QStringLiteral("Open a view by name (lab, ...) and, with --screenshot, save that view."),
                                  QStringLiteral("NAME"));
    const QCommandLineOption panels(QStringLiteral("panels"),
                                    QStringLiteral("Start with the panels shown, also at a projector's zoom (as F9 brings them back)."));
    parser.addOptions({lesson, zoom, language, screenshot, size, tab, mapsOnly, panels, show});
    // Start in step mode at step N (1-based), or with the answers hidden.
    const QCommandLineOption stepOption(QStringLiteral("step"), QStringLiteral("Start in step mode at step N (1 = scores)."),
                                        QStringLiteral("N"));
    const QCommandLineOption hideOption(QStringLiteral("hide"), QStringLiteral("Start with the answers hidden (predict, then reveal)."));
    parser.addOptions({stepOption, hideOption});
    // A class session from the start: a teacher's launcher, and the tests.
    const QCommandLineOption sessionOption(QStringLiteral("class-session"),
                                           QStringLiteral("Start a class session: students answer from their phones."));
    const QCommandLineOption portOption(QStringLiteral("port"),
                                        QStringLiteral("The class session's port (default 8642, else the next free; given: that port or an error)."), QStringLiteral("P"));
    const QCommandLineOption codeOption(QStringLiteral("join-code"),
                                        QStringLiteral("The class session's join code: 4 to 8 of A-Z and 2-9 without I, L, O."),
                                        QStringLiteral("CODE"));
    parser.addOptions({sessionOption, portOption, codeOption});

    // Every option is checked before anything opens: a wrong one says so in
    // one line and exits 2, never a window that silently ignored it. Like
    // the CLI's, these lines stay English: they are for scripts and logs.
    auto refuse = [](const QString &message) {
        std::fprintf(stderr, "attention-lab: %s\n", qPrintable(message));
        return 2;
    };
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    if (!parser.parse(withoutQtOptions(args)))
        return refuse(parser.errorText() + QStringLiteral(" (attention-lab --help lists the options)"));
    if (parser.isSet(help) || parser.isSet(QStringLiteral("help-all"))) {
        const QCoreApplication core(argc, argv); // the usage line names the program; no display needed
        std::fputs(qPrintable(parser.helpText()), stdout);
        return 0;
    }
    if (parser.isSet(version)) {
        std::printf("attention-lab %s\n", ATTN_VERSION);
        return 0;
    }
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1)
        return refuse(QStringLiteral("one scenario file at a time (got %1)").arg(files.size()));
    if (!files.isEmpty() && parser.isSet(lesson))
        return refuse(QStringLiteral("give a file or --lesson, not both"));
    double zoomFactor = 0;
    if (parser.isSet(zoom)) {
        bool ok = false;
        zoomFactor = parser.value(zoom).toDouble(&ok);
        if (!ok || !(zoomFactor >= 0.6 && zoomFactor <= 3.0))
            return refuse(QStringLiteral("--zoom: must be a number from 0.6 to 3 (got %1)").arg(parser.value(zoom)));
    }
    if (parser.isSet(language) && parser.value(language) != QLatin1String("en")
        && parser.value(language) != QLatin1String("zh_CN"))
        return refuse(QStringLiteral("--language: en or zh_CN (got %1)").arg(parser.value(language)));
    QSize windowSize;
    {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        windowSize = QSize(wh.value(0).toInt(&okW), wh.value(1).toInt(&okH));
        if (wh.size() != 2 || !okW || !okH || windowSize.width() < 1 || windowSize.height() < 1 || windowSize.width() > 8000
            || windowSize.height() > 8000)
            return refuse(QStringLiteral("--size: \"%1\" is not WIDTHxHEIGHT from 1x1 up to 8000x8000, e.g. 1600x1000").arg(parser.value(size)));
    }

    if (!displayAvailable(args))
        return refuse(QStringLiteral("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set); "
                                     "without one, --screenshot works with QT_QPA_PLATFORM=offscreen"));

    attn::prepareRuntimeDir();
    QApplication app(argc, argv);
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/attention-lab.svg")));
    // Menus and docks (Wayland, GNOME) match the installed .desktop file.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.attentionlab.AttentionLab"));

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
    if (parser.isSet(tab)) {
        bool ok = false;
        const int index = parser.value(tab).toInt(&ok);
        if (!ok || index < 0 || index >= window.sideTabs()->count())
            return refuse(QStringLiteral("--tab: a side tab from 0 to %1 (got %2)")
                              .arg(window.sideTabs()->count() - 1)
                              .arg(parser.value(tab)));
        window.sideTabs()->setCurrentIndex(index);
    }
    window.setInteractive(false); // no message box before the window is up: it comes after show() below
    const std::optional<attn::Problem> opened = !files.isEmpty()
        ? window.openFile(files.first())
        : window.openLesson(parser.isSet(lesson) ? parser.value(lesson) : attn::prefs::lastLesson.get());
    window.setInteractive(!scripted);
    if (opened) {
        const QString problem = attn::problemText(*opened);
        // Said on the terminal too: the window may not be looked at (a script).
        std::fprintf(stderr, "attention-lab: %s\n", qPrintable(problem));
        if (scripted)
            return 2; // a screenshot of something else would pass for the one asked
        // The window starts anyway, on the first lesson, and says why over it.
        window.openLesson(QStringLiteral("seed000-basic"));
        // (A remembered lesson that has gone is not worth a dialog.)
        if (!files.isEmpty() || parser.isSet(lesson)) {
            const QString what = files.isEmpty() ? parser.value(lesson) : QFileInfo(files.first()).fileName();
            QTimer::singleShot(0, &window, [&window, problem, what] {
                QMessageBox::warning(&window, QCoreApplication::translate("attn::MainWindow", "Cannot open %1").arg(what),
                                     problem);
            });
        }
    }
    if (zoomFactor > 0)
        window.setZoom(zoomFactor, false);
    if (parser.isSet(mapsOnly) && parser.isSet(panels))
        return refuse(QStringLiteral("give --maps-only or --panels, not both"));
    if (parser.isSet(mapsOnly))
        window.setPanelsShown(false);
    if (parser.isSet(panels))
        window.setPanelsShownByUser(true);
    if (parser.isSet(hideOption))
        window.setAnswersHidden(true);
    if ((parser.isSet(portOption) || parser.isSet(codeOption)) && !parser.isSet(sessionOption))
        return refuse(QStringLiteral("--port and --join-code go with --class-session"));
    if (parser.isSet(sessionOption)) {
        bool ok = true;
        const int port = parser.isSet(portOption) ? parser.value(portOption).toInt(&ok) : 8642;
        if (!ok || port < 0 || port > 65535)
            return refuse(QStringLiteral("--port: a port from 1 to 65535, or 0 for any free one (got %1)").arg(parser.value(portOption)));
        // A port asked for is that port or an error: the launcher printed its address.
        if (const auto p = window.classroomMode()->startClassSession(quint16(port), parser.isSet(portOption),
                                                                    parser.value(codeOption)))
            return refuse(QStringLiteral("--class-session: ") + QString::fromStdString(p->toString()));
        const attn::SessionPanel *session = window.classroomMode()->sessionPanel();
        if (!parser.isSet(portOption) && session->server()->port() != port)
            std::fprintf(stderr, "attention-lab: port %d is in use: the class session takes %d\n", port, session->server()->port());
        std::fprintf(stderr, "attention-lab: class session at %s\n", qPrintable(session->studentUrl()));
    }
    if (parser.isSet(stepOption)) {
        bool ok = false;
        const int n = parser.value(stepOption).toInt(&ok);
        const int count = window.classroom()->stepCount();
        if (!ok || n < 1 || n > count)
            return refuse(QStringLiteral("--step: a step from 1 to %1 for this lesson (got %2)").arg(count).arg(parser.value(stepOption)));
        window.setStepMode(true);
        window.classroom()->setStep(n - 1);
    }
    if (!scripted)
        window.startRecovery(attn::Recovery::defaultFolder()); // after a crash: offers the lost work back
    QWidget *target = &window; // what --screenshot grabs
    if (parser.isSet(show)) {
        window.resize(windowSize);
        window.show();
        target = window.showView(parser.value(show));
        if (!target)
            return refuse(QStringLiteral("--show: one of %1 (got %2)")
                              .arg(window.viewNames().join(QStringLiteral(", ")), parser.value(show)));
        if (target != &window)
            target->resize(windowSize);
    }

    if (scripted) {
        // Sized before it is shown, so the panels take their share of the
        // width asked for. The smallest window depends on the zoom and on the
        // panels; one that could not take the size says so and writes nothing.
        window.resize(windowSize);
        window.show();
        // Grabbed once the layout has settled and no background work is
        // left that a view would still draw (the √d_k lab's measurements):
        // a slide made from it never shows a plot still "measuring".
        QTimer settle;
        settle.setInterval(50);
        QElapsedTimer waited;
        waited.start();
        auto grab = [&window, target, windowSize, path = parser.value(screenshot)] {
            if (window.size() != windowSize) {
                std::fprintf(stderr, "attention-lab: --size: the window needs at least %dx%d here (got %dx%d)\n",
                             std::max(window.width(), windowSize.width()), std::max(window.height(), windowSize.height()),
                             windowSize.width(), windowSize.height());
                QApplication::exit(2);
                return;
            }
            // Whole or not at all, as every other write: a full disk keeps the old picture.
            QByteArray png;
            QBuffer buffer(&png);
            const bool encoded = buffer.open(QIODevice::WriteOnly) && target->grab().save(&buffer, "PNG");
            const auto p = encoded ? attn::writeFileAtomically(path, png)
                                   : std::optional<attn::Problem>(attn::Problem{path.toStdString(), "the picture could not be made"});
            if (p)
                std::fprintf(stderr, "attention-lab: %s\n", qPrintable(attn::problemLine(p)));
            else
                std::fprintf(stdout, "%s\n", qPrintable(path));
            QApplication::exit(p ? 2 : 0);
        };
        constexpr qint64 kSettleMs = 500, kWorkLimitMs = 600000;
        int idleTicks = 0; // two in a row: the replots the last result queued have run
        QObject::connect(&settle, &QTimer::timeout, &window, [&] {
            idleTicks = window.isWorking() ? 0 : idleTicks + 1;
            if (waited.elapsed() < kSettleMs)
                return;
            if (idleTicks < 2 && waited.elapsed() < kWorkLimitMs)
                return;
            settle.stop();
            if (window.isWorking()) {
                std::fprintf(stderr, "attention-lab: --screenshot: the view was still computing after %lld s; nothing written\n",
                             kWorkLimitMs / 1000);
                QApplication::exit(2);
                return;
            }
            grab();
        });
        settle.start();
        return app.exec();
    }
    // --size opens the window at that size (to rehearse a projector's
    // resolution), over the size the last session left; never ignored.
    if (parser.isSet(size))
        window.resize(windowSize);
    window.show();
    return app.exec();
}
