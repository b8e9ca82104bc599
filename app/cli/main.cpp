#include "cli.h"
#include "runtimedir.h"

#include <QApplication>

#include <cstdio>
#include <memory>

int main(int argc, char *argv[])
{
    attn::prepareRuntimeDir();
    // Only export draws; it draws off screen, so it needs no display.
    const bool draws = argc > 1 && qstrcmp(argv[1], "export") == 0;
    if (draws && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    std::unique_ptr<QCoreApplication> app(draws ? new QApplication(argc, argv) : new QCoreApplication(argc, argv));
    QCoreApplication::setApplicationName(QStringLiteral("attention-lab-cli"));
    QTextStream out(stdout), err(stderr);
    QStringList args = QCoreApplication::arguments();
    args.removeFirst();
    const int status = attn::runCli(args, out, err);
    out.flush();
    err.flush();
    return status;
}
