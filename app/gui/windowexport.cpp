#include "windowexport.h"

#include "atomicwrite.h"
#include "preferences.h"
#include "trace_csv.h"
#include "trace_json.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMenu>
#include <qcustomplot.h>

namespace attn {

WindowExport::WindowExport(Document *doc, QWidget *window, std::function<FigureStyle()> style,
                           std::function<PlaneView()> plane)
    : QObject(window), m_doc(doc), m_window(window), m_style(std::move(style)), m_plane(std::move(plane))
{
}

QByteArray WindowExport::render(ExportDialog::What what, FigureFormat format, const FigureSize &size) const
{
    const PlaneView view = m_plane();
    if (const auto stage = ExportDialog::stageOf(what))
        return renderStageFigure(m_doc->scenario(), m_doc->trace(), *stage, m_style(), format, size);
    if (what == ExportDialog::What::Plane)
        return renderPlaneFigure(m_doc->scenario(), view, format, size);
    return renderDashboard(m_doc->scenario(), m_doc->trace(), m_style(), &view, format, size);
}

std::optional<Problem> WindowExport::exportFigure(ExportDialog::What what, FigureFormat format,
                                                  const FigureSize &size, const QString &path)
{
    if (path.isEmpty())
        return Problem{"", tr("no file name was given").toStdString()};
    auto p = writeFileAtomically(path, render(what, format, size));
    if (!p) {
        prefs::lastFolder.set(QFileInfo(path).absolutePath());
        emit done(tr("Exported %1").arg(QDir::toNativeSeparators(path)));
    }
    return p;
}

QImage WindowExport::figureImage(ExportDialog::What what) const
{
    const bool dashboard = what == ExportDialog::What::Dashboard;
    const FigureSize size{dashboard ? 2400 : 1200, dashboard ? 1500 : 900, 1.0};
    return QImage::fromData(render(what, FigureFormat::Png, size), "PNG");
}

void WindowExport::copyFigure(ExportDialog::What what)
{
    QApplication::clipboard()->setImage(figureImage(what));
    emit done(tr("The figure is on the clipboard"));
}

void WindowExport::addFigureMenu(QCustomPlot *plot, ExportDialog::What what)
{
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(plot, &QWidget::customContextMenuRequested, this, [this, plot, what](const QPoint &at) {
        m_lastFigure = what;
        QMenu menu(m_window);
        menu.addAction(tr("&Export this figure…"), this, [this, what] { showDialog(what); });
        menu.addAction(tr("&Copy as image"), this, [this, what] { copyFigure(what); });
        menu.addSeparator();
        menu.addAction(tr("Export the &dashboard…"), this, [this] { showDialog(ExportDialog::What::Dashboard); });
        menu.exec(plot->mapToGlobal(at));
    });
}

void WindowExport::showDialog(ExportDialog::What what)
{
    QString folder = prefs::lastFolder.get();
    if (folder.isEmpty())
        folder = QDir::homePath();
    ExportDialog dialog(what, folder, stem(), m_doc->currentHead(), m_doc->scenario().heads, m_window);
    while (dialog.exec() == QDialog::Accepted) {
        const auto p = exportFigure(dialog.what(), dialog.format(), dialog.size(), dialog.path());
        if (!p)
            return;
        dialog.showError(tr("%1 was not written: %2")
                             .arg(QDir::toNativeSeparators(dialog.path()), QString::fromStdString(p->message)));
    }
}

QString WindowExport::stem() const
{
    const QString stem = m_doc->lessonName().isEmpty() ? QFileInfo(m_doc->displayName()).completeBaseName()
                                                       : m_doc->lessonName();
    //: The start of an exported file's name; use letters a file name may hold.
    return stem.isEmpty() ? tr("figure") : stem;
}

void WindowExport::exportNumbersCsv()
{
    const QString folder = QFileDialog::getExistingDirectory(m_window, tr("Folder for the CSV files"), prefs::lastFolder.get());
    if (folder.isEmpty())
        return;
    const Result<QStringList> files = writeTraceCsv(m_doc->scenario(), m_doc->trace(), folder, stem());
    if (const Problem *p = files.problem()) {
        emit failed(tr("The numbers were not all written: %1").arg(problemLine(*p)));
        return;
    }
    prefs::lastFolder.set(folder);
    emit done(tr("Wrote %n CSV file(s) to %1", nullptr, int(files.value().size())).arg(QDir::toNativeSeparators(folder)));
}

void WindowExport::exportNumbersJson()
{
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export the trace"),
                                                      QDir(prefs::lastFolder.get()).filePath(stem() + QStringLiteral("_trace.json")),
                                                      tr("JSON files (*.json)"));
    if (path.isEmpty())
        return;
    const QByteArray json = QJsonDocument(traceToJson(m_doc->scenario(), m_doc->trace())).toJson(QJsonDocument::Indented);
    if (const auto p = writeFileAtomically(path, json)) {
        emit failed(tr("%1 was not written: %2").arg(QDir::toNativeSeparators(path), QString::fromStdString(p->message)));
        return;
    }
    prefs::lastFolder.set(QFileInfo(path).absolutePath());
    emit done(tr("Exported %1").arg(QDir::toNativeSeparators(path)));
}

} // namespace attn
