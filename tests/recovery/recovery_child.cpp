// A window that makes one unsaved change, waits until it is autosaved, says
// "ready" and then either waits to be killed (`crash`) or quits (`exit`).
// Run by test_recovery.

#include "mainwindow.h"
#include "matrixmodel.h"
#include "matrixpanel.h"
#include "recovery.h"

#include <QApplication>
#include <QTimer>

#include <cstdio>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    if (argc != 3)
        return 2;
    const QString mode = QString::fromLocal8Bit(argv[1]), folder = QString::fromLocal8Bit(argv[2]);
    attn::MainWindow w;
    w.setInteractive(false);
    if (w.openLesson(QStringLiteral("causal")))
        return 2;
    w.startRecovery(folder);
    auto *recovery = w.findChild<attn::Recovery *>();
    if (!recovery)
        return 2;
    recovery->setDelay(50);
    QObject::connect(recovery, &attn::Recovery::written, &app, [&] {
        std::printf("ready\n");
        std::fflush(stdout);
        if (mode == QLatin1String("exit"))
            QTimer::singleShot(0, &app, &QApplication::quit);
    });
    attn::MatrixModel *q = w.matrixPanel()->model(attn::MatrixId::Q);
    if (!q->setData(q->index(0, 0), QStringLiteral("9")))
        return 2;
    return app.exec();
}
