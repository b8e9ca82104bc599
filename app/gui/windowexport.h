#pragma once
// The window's exports: a figure of any map, the plane or the dashboard
// (File ▸ Export figure, a map's context menu, Ctrl+Shift+C to the
// clipboard), while a comparison is pinned its A/B figure and difference
// map, the numbers as CSV or JSON, and the quiz as a printed handout. The figures are drawn by
// widgets/figureexport.h and comparefigure.h from the document's scenario
// and trace with the window's look (FigureStyle) and plane (PlaneView), as
// the CLI draws them.

#include "document.h"
#include "exportdialog.h"
#include "figureexport.h"

#include <QImage>
#include <QObject>

#include <functional>
#include <optional>

class QCustomPlot;
class QWidget;

namespace attn {

class CompareView;

class WindowExport : public QObject {
    Q_OBJECT

public:
    // `window` parents the dialogs; `style` and `plane` say what the window shows now.
    WindowExport(Document *doc, QWidget *window, std::function<FigureStyle()> style,
                 std::function<PlaneView()> plane);

    // Writes a figure; nothing is left half-written on a problem. `preset`
    // sets the type size; `theme`, when given, replaces the window's.
    std::optional<Problem> exportFigure(ExportDialog::What what, FigureFormat format, const FigureSize &size,
                                        const QString &path, FigurePreset preset = FigurePreset::Default,
                                        std::optional<FigureTheme> theme = std::nullopt);
    QImage figureImage(ExportDialog::What what) const;
    // The start of exported files' names: the lesson or file name.
    QString stem() const;
    // The window's A/B view when a comparison is pinned (null otherwise):
    // what the Compare and Difference figures draw, at its stage.
    CompareView *pinnedComparison() const;

    // The figure the File menu's Export and Copy act on: the last one a
    // context menu was opened on.
    ExportDialog::What lastFigure() const { return m_lastFigure; }
    void addFigureMenu(QCustomPlot *plot, ExportDialog::What what);
    void showDialog(ExportDialog::What what);
    void copyFigure(ExportDialog::What what);
    void exportNumbersCsv();
    void exportNumbersJson();
    // File ▸ Print quiz handout: the questions the quiz window asks, then
    // the answer key, as a PDF in the window's language (widgets/quizhandout.h).
    void printQuizHandout();
    std::optional<Problem> writeQuizHandout(const QString &path) const;

signals:
    void done(const QString &message); // for the status bar
    void failed(const QString &message);

private:
    QByteArray render(ExportDialog::What what, FigureFormat format, const FigureSize &size,
                      const FigureStyle &style) const;
    // The window's look: its gradients, and its theme (View ▸ Theme).
    FigureStyle windowStyle() const;
    static bool isComparison(ExportDialog::What what)
    {
        return what == ExportDialog::What::Compare || what == ExportDialog::What::Difference;
    }

    Document *m_doc;
    QWidget *m_window;
    std::function<FigureStyle()> m_style;
    std::function<PlaneView()> m_plane;
    ExportDialog::What m_lastFigure = ExportDialog::What::Weights;
};

} // namespace attn
