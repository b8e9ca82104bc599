#pragma once
// The window's exports: a figure of any map, the plane or the dashboard
// (File ▸ Export figure, a map's context menu, Ctrl+Shift+C to the
// clipboard) and the numbers as CSV or JSON. The figures are drawn by
// widgets/figureexport.h from the document's scenario and trace with the
// window's look (FigureStyle) and plane (PlaneView), as the CLI draws them.

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

class WindowExport : public QObject {
    Q_OBJECT

public:
    // `window` parents the dialogs; `style` and `plane` say what the window shows now.
    WindowExport(Document *doc, QWidget *window, std::function<FigureStyle()> style,
                 std::function<PlaneView()> plane);

    // Writes a figure; nothing is left half-written on a problem.
    std::optional<Problem> exportFigure(ExportDialog::What what, FigureFormat format, const FigureSize &size,
                                        const QString &path);
    QImage figureImage(ExportDialog::What what) const;
    // The start of exported files' names: the lesson or file name.
    QString stem() const;

    // The figure the File menu's Export and Copy act on: the last one a
    // context menu was opened on.
    ExportDialog::What lastFigure() const { return m_lastFigure; }
    void addFigureMenu(QCustomPlot *plot, ExportDialog::What what);
    void showDialog(ExportDialog::What what);
    void copyFigure(ExportDialog::What what);
    void exportNumbersCsv();
    void exportNumbersJson();

signals:
    void done(const QString &message); // for the status bar
    void failed(const QString &message);

private:
    QByteArray render(ExportDialog::What what, FigureFormat format, const FigureSize &size) const;

    Document *m_doc;
    QWidget *m_window;
    std::function<FigureStyle()> m_style;
    std::function<PlaneView()> m_plane;
    ExportDialog::What m_lastFigure = ExportDialog::What::Weights;
};

} // namespace attn
