// Where the window opens: the last session's place and size only where they
// fit the screen it opens on. Run on an offscreen screen of 1600x1000
// (screen-1600x1000.json, see tests/CMakeLists.txt).

#include "mainwindow.h"
#include "preferences.h"

#include <QApplication>
#include <QScreen>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace attn;

namespace {

// The window's zero-delay timers (the projector fit) idle for a few turns of the loop.
bool settled(QWidget &w)
{
    int idle = 0;
    return QTest::qWaitFor([&] {
        bool busy = false;
        for (const QTimer *t : w.findChildren<QTimer *>())
            busy = busy || (t->isActive() && t->interval() == 0);
        idle = busy ? 0 : idle + 1;
        return idle >= 3;
    }, 30000);
}

QString describe(const QRect &r)
{
    return QStringLiteral("%1,%2 %3x%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

} // namespace

class TestGeometry : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
        QCOMPARE(QGuiApplication::primaryScreen()->geometry().size(), QSize(1600, 1000)); // the screen this test is about
    }

    // A session on a 1920x1080 projector at zoom 2, then a start on a
    // 1600x1000 screen: the window opens on the screen, whole.
    void largerSessionOpensOnTheScreen()
    {
        {
            MainWindow projector;
            projector.setGeometry(QRect(150, 60, 1920, 1080));
            prefs::windowGeometry.set(projector.saveGeometry());
            prefs::zoom.set(2.0);
        }
        const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
        MainWindow w;
        w.setInteractive(false);
        QVERIFY2(screen.contains(w.geometry()), qPrintable(describe(w.geometry()) + QStringLiteral(" on ") + describe(screen)));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(settled(w));
        // Frame and all.
        QVERIFY2(screen.contains(w.frameGeometry()), qPrintable(describe(w.frameGeometry()) + QStringLiteral(" on ") + describe(screen)));
        QCOMPARE(w.zoom(), 2.0); // the zoom is the teacher's; only the place and size had to give
    }

    // One that fits comes back as it was.
    void fittingSessionComesBack()
    {
        QRect was;
        {
            MainWindow desk;
            desk.setGeometry(QRect(40, 30, 1400, 900));
            was = desk.geometry();
            prefs::windowGeometry.set(desk.saveGeometry());
            prefs::zoom.set(1.0);
        }
        MainWindow w;
        QCOMPARE(w.geometry(), was);
    }

private:
    QTemporaryDir m_settings;
};

QTEST_MAIN(TestGeometry)
#include "test_geometry.moc"
