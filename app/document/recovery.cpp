#include "recovery.h"

#include "atomicwrite.h"
#include "scenario_json.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <algorithm>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <csignal>
#endif

namespace attn {

namespace {

constexpr const char *kFormat = "attention-lab/recovery";
constexpr qint64 kMaxRecoveryBytes = 2 * kMaxScenarioFileBytes;

// The app's own folder for recovery files (not one named by the environment).
QString standardFolder()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("recovery"));
}

// A recovery file holds the document as it stands, which may be private:
// its folder is the owner's alone when the program made it (or it is the
// app's own folder); a folder named by the environment that exists already
// is left as it is, and the files in it are 0600 anyway.
void makeFolder(const QString &folder)
{
    const bool made = !QFileInfo::exists(folder) && QDir().mkpath(folder);
    if (made || QFileInfo(folder).absoluteFilePath() == QFileInfo(standardFolder()).absoluteFilePath())
        QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
}

QString fileNameFor(qint64 pid)
{
    return QStringLiteral("recovery-%1.json").arg(pid);
}

bool processRunning(qint64 pid)
{
    if (pid == QCoreApplication::applicationPid())
        return true;
#ifdef Q_OS_UNIX
    return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM);
#else
    Q_UNUSED(pid);
    return false;
#endif
}

std::optional<RecoveredWork> readRecovery(const QString &path)
{
    QFile f(path);
    if (f.size() > kMaxRecoveryBytes || !f.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    if (o.value(QLatin1String("format")).toString() != QLatin1String(kFormat))
        return std::nullopt;
    const auto base = scenarioFromJson(QJsonDocument(o.value(QLatin1String("base")).toObject()).toJson());
    const auto current = scenarioFromJson(QJsonDocument(o.value(QLatin1String("current")).toObject()).toJson());
    if (!base.ok() || !current.ok())
        return std::nullopt;
    RecoveredWork w;
    w.recoveryFile = path;
    w.filePath = o.value(QLatin1String("file")).toString();
    w.lessonName = o.value(QLatin1String("lesson")).toString();
    w.changedAt = QDateTime::fromString(o.value(QLatin1String("changed_at")).toString(), Qt::ISODateWithMs);
    w.base = base.value();
    w.current = current.value();
    return w;
}

} // namespace

Recovery::Recovery(Document *doc, const QString &folder, QObject *parent)
    : QObject(parent), m_doc(doc), m_file(QDir(folder).filePath(fileNameFor(QCoreApplication::applicationPid()))),
      m_base(doc->scenario())
{
    makeFolder(folder);
    // What a write killed before its rename left here (a recovery file's
    // temporary copy) goes at start, whatever its age.
    removeAtomicLeftovers(folder);
    m_timer.setSingleShot(true);
    m_timer.setInterval(3000);
    connect(&m_timer, &QTimer::timeout, this, [this] { autosave(); });
    // The stack's index, not Document::changed: a command's redo() announces
    // the change before the stack counts it, when the document still looks clean.
    connect(doc->undoStack(), &QUndoStack::indexChanged, this, &Recovery::onChanged);
    connect(doc, &Document::fileStateChanged, this, &Recovery::onFileState);
}

Recovery::~Recovery()
{
    QFile::remove(m_file);
}

QString Recovery::defaultFolder()
{
    const QString env = qEnvironmentVariable("ATTENTION_LAB_RECOVERY_DIR");
    if (!env.isEmpty())
        return env;
    return standardFolder();
}

void Recovery::onChanged()
{
    if (!m_doc->isModified()) {
        // Back at the saved state (undo to it, or a new lesson): nothing to lose.
        m_pending = false;
        m_timer.stop();
        QFile::remove(m_file);
        return;
    }
    m_changedAt = QDateTime::currentDateTime();
    m_pending = true;
    m_timer.start();
}

void Recovery::onFileState()
{
    if (!m_doc->isModified()) {
        // Saved, or a new file or lesson: this is the new start.
        m_base = m_doc->scenario();
        m_pending = false;
        m_timer.stop();
        QFile::remove(m_file);
        // A save of this document killed before its rename left a hidden
        // full copy beside it: it goes when the document is opened or saved.
        if (!m_doc->filePath().isEmpty())
            removeAtomicLeftovers(QFileInfo(m_doc->filePath()).absolutePath());
    }
}

std::optional<Problem> Recovery::flush()
{
    if (!m_pending)
        return std::nullopt;
    QJsonObject o;
    o.insert(QLatin1String("format"), QLatin1String(kFormat));
    o.insert(QLatin1String("version"), 1);
    o.insert(QLatin1String("file"), m_doc->filePath());
    o.insert(QLatin1String("lesson"), m_doc->lessonName());
    o.insert(QLatin1String("changed_at"), m_changedAt.toString(Qt::ISODateWithMs));
    o.insert(QLatin1String("base"), QJsonDocument::fromJson(scenarioToJson(m_base)).object());
    o.insert(QLatin1String("current"), QJsonDocument::fromJson(scenarioToJson(m_doc->scenario())).object());
    const QByteArray bytes = QJsonDocument(o).toJson(QJsonDocument::Compact);
    // A file the next start would not read is no protection: say so instead.
    if (bytes.size() > kMaxRecoveryBytes)
        return Problem{QDir::toNativeSeparators(m_file).toStdString(),
                       tr("the document is too large for a recovery file (%1 MB, the limit is %2 MB); save it to keep it")
                           .arg((bytes.size() + (1 << 20) - 1) >> 20)
                           .arg(kMaxRecoveryBytes >> 20)
                           .toStdString()};
    WriteOptions options;
    options.ownerOnly = true;
    auto p = writeFileAtomically(m_file, bytes, options);
    if (!p) {
        m_pending = false;
        emit written();
    }
    return p;
}

void Recovery::autosave()
{
    const std::optional<Problem> p = flush();
    if (!p) {
        if (m_failures > 0)
            m_timer.setInterval(m_delay);
        m_failures = 0;
        return;
    }
    // Said once (not every few seconds while the disk stays full), and tried
    // again later, waiting longer each time, until a write goes through.
    const QString line = tr("Autosave failed: %1").arg(problemText(*p));
    if (m_failures == 0 || line != m_lastFailure)
        emit failed(line);
    m_lastFailure = line;
    ++m_failures;
    m_timer.setInterval(std::min(m_delay << std::min(m_failures, 5), 60000));
    m_timer.start();
}

std::vector<RecoveredWork> Recovery::leftovers(const QString &folder)
{
    std::vector<RecoveredWork> found;
    const QStringList names = QDir(folder).entryList({QStringLiteral("recovery-*.json")}, QDir::Files);
    for (const QString &name : names) {
        bool ok = false;
        const qint64 pid = name.mid(9, name.size() - 9 - 5).toLongLong(&ok);
        if (!ok || processRunning(pid))
            continue; // another window's own, still open
        if (auto w = readRecovery(QDir(folder).filePath(name)))
            found.push_back(std::move(*w));
    }
    std::sort(found.begin(), found.end(), [](const auto &a, const auto &b) { return a.changedAt > b.changedAt; });
    return found;
}

std::optional<Problem> Recovery::restore(Document &doc, const RecoveredWork &work)
{
    if (auto p = doc.replace(work.base, work.filePath, work.lessonName))
        return p;
    if (auto p = doc.edit(work.current, QCoreApplication::translate("attn::Recovery", "Recovered changes")))
        return p;
    discard(work);
    return std::nullopt;
}

void Recovery::discard(const RecoveredWork &work)
{
    QFile::remove(work.recoveryFile);
}

} // namespace attn
