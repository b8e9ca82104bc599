#pragma once
// The command line called in-process (attn::runCli): its status and what it
// wrote on each stream, for the CLI tests.

#include "cli.h"

#include <QString>
#include <QStringList>
#include <QTextStream>

namespace attn::test {

struct CliRun {
    int code = -1;
    QString out, err;
};

inline CliRun runCliInProcess(const QStringList &args)
{
    CliRun r;
    QTextStream o(&r.out), e(&r.err);
    r.code = runCli(args, o, e);
    o.flush();
    e.flush();
    return r;
}

} // namespace attn::test
