#include "windowexport.h"
#include "filenames.h"

#include "atomicwrite.h"
#include "attention.h"
#include "comparefigure.h"
#include "compareview.h"
#include "lessons.h"
#include "preferences.h"
#include "quizhandout.h"
#include "trace_csv.h"
#include "trace_json.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLocale>
#include <QMenu>
#include <qcustomplot.h>

namespace attn {

WindowExport::WindowExport(Document *doc, QWidget *window, std::function<FigureStyle()> style,
                           std::function<PlaneView()> plane)
    : QObject(window), m_doc(doc), m_window(window), m_style(std::move(style)), m_plane(std::move(plane))
{
}

CompareView *WindowExport::pinnedComparison() const
{
    // The main window makes its A/B view on first use, as a child window of
    // its own; found here rather than handed over, so that it can come later.
    auto *view = m_window->findChild<CompareView *>(QString(), Qt::FindDirectChildrenOnly);
    return view && view->isPinned() ? view : nullptr;
}

FigureStyle WindowExport::windowStyle() const
{
    FigureStyle style = m_style();
    style.theme = HeatmapPlot::windowTheme();
    return style;
}

QByteArray WindowExport::render(ExportDialog::What what, FigureFormat format, const FigureSize &size,
                                const FigureStyle &style) const
{
    if (isComparison(what)) {
        // Made afresh from A and the document: the view may be hidden and waiting to redraw.
        const CompareView *view = pinnedComparison();
        const Scenario &a = *view->pinned();
        const Scenario &b = m_doc->scenario();
        const bool align = view->alignByToken() && tokenAlignment(a, b).has_value();
        const CompareMaps maps = compareMaps(a, compute(a), b, m_doc->trace(), view->stage(), m_doc->currentHead(), align);
        return what == ExportDialog::What::Compare ? renderCompareFigure(maps, style, format, size)
                                                   : renderDifferenceFigure(maps, style, format, size);
    }
    const PlaneView view = m_plane();
    if (const auto stage = ExportDialog::stageOf(what))
        return renderStageFigure(m_doc->scenario(), m_doc->trace(), *stage, style, format, size);
    if (what == ExportDialog::What::Plane)
        return renderPlaneFigure(m_doc->scenario(), view, style, format, size);
    return renderDashboard(m_doc->scenario(), m_doc->trace(), style, &view, format, size);
}

std::optional<Problem> WindowExport::exportFigure(ExportDialog::What what, FigureFormat format,
                                                  const FigureSize &size, const QString &path, FigurePreset preset,
                                                  std::optional<FigureTheme> theme)
{
    if (path.isEmpty())
        return Problem{"", tr("no file name was given").toStdString()};
    if (isComparison(what) && !pinnedComparison())
        return Problem{"", tr("nothing is pinned as A to compare with (Compare ▸ Pin as A)").toStdString()};
    FigureStyle style = windowStyle();
    style.preset = preset;
    if (theme)
        style.theme = *theme;
    auto p = writeFileAtomically(path, render(what, format, size, style));
    if (!p) {
        prefs::lastFolder.set(QFileInfo(path).absolutePath());
        emit done(tr("Exported %1").arg(QDir::toNativeSeparators(path)));
    }
    return p;
}

QImage WindowExport::figureImage(ExportDialog::What what) const
{
    if (isComparison(what) && !pinnedComparison())
        return QImage();
    return QImage::fromData(render(what, FigureFormat::Png, ExportDialog::defaultSize(what), windowStyle()), "PNG");
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
    const CompareView *compared = pinnedComparison();
    ExportDialog dialog(what, folder, stem(), m_doc->currentHead(), m_doc->scenario().heads,
                        compared ? std::optional<Stage>(compared->stage()) : std::nullopt, m_window);
    dialog.setTheme(HeatmapPlot::windowTheme());
    while (dialog.exec() == QDialog::Accepted) {
        const auto p = exportFigure(dialog.what(), dialog.format(), dialog.size(), dialog.path(), dialog.preset(),
                                    dialog.theme());
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
    return stem.isEmpty() ? tr("figure") : cleanDerivedName(stem);
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
    // Streamed into the file as the CLI's export does: no tree, no whole text held.
    const Scenario &s = m_doc->scenario();
    const Trace &t = m_doc->trace();
    if (const auto p = writeFileAtomically(path, [&s, &t](const ChunkWriter &write) { return writeTraceJson(s, t, write); })) {
        emit failed(tr("%1 was not written: %2").arg(QDir::toNativeSeparators(path), QString::fromStdString(p->message)));
        return;
    }
    prefs::lastFolder.set(QFileInfo(path).absolutePath());
    emit done(tr("Exported %1").arg(QDir::toNativeSeparators(path)));
}

std::optional<Problem> WindowExport::writeQuizHandout(const QString &path) const
{
    std::vector<QuizQuestion> questions;
    for (QuizItem &item : builtInQuiz())
        questions.push_back(std::move(item.question));
    return writeFileAtomically(path, QuizHandout(std::move(questions), QLocale().name(), QuizHandout::allLessons()).pdf());
}

void WindowExport::printQuizHandout()
{
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Print the quiz handout"),
                                                      QDir(prefs::lastFolder.get()).filePath(QStringLiteral("quiz-handout.pdf")),
                                                      tr("PDF files (*.pdf)"));
    if (path.isEmpty())
        return;
    if (const auto p = writeQuizHandout(path)) {
        emit failed(tr("%1 was not written: %2").arg(QDir::toNativeSeparators(path), QString::fromStdString(p->message)));
        return;
    }
    prefs::lastFolder.set(QFileInfo(path).absolutePath());
    emit done(tr("Wrote the quiz handout to %1").arg(QDir::toNativeSeparators(path)));
}

} // namespace attn
