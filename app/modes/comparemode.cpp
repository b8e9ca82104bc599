#include "comparemode.h"
#include "preferences.h"

#include "atomicwrite.h"
#include "comparefigure.h"
#include "compareview.h"
#include "document.h"
#include "lessons.h"
#include "stagedata.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QToolBar>

namespace attn {

namespace {

// A built-in comparison: the lesson file's "compare" object.
struct ComparisonSpec {
    QString a;          // the lesson pinned as A
    bool align = false; // align by token
    QString stage;      // "weights", ...
};

std::optional<ComparisonSpec> comparisonOf(const Scenario &s)
{
    if (s.extra.empty())
        return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(s.extra)).object();
    const QJsonObject c = o.value(QLatin1String("compare")).toObject();
    if (c.value(QLatin1String("a")).toString().isEmpty())
        return std::nullopt;
    return ComparisonSpec{c.value(QLatin1String("a")).toString(), c.value(QLatin1String("align_by_token")).toBool(),
                          c.value(QLatin1String("stage")).toString()};
}

std::optional<ComparisonSpec> comparisonOf(const QString &lesson)
{
    const ScenarioOrProblem r = loadLesson(lesson);
    if (const auto *s = std::get_if<Scenario>(&r))
        return comparisonOf(*s);
    return std::nullopt;
}

} // namespace

CompareMode::CompareMode(ModeHost &host) : Mode(host, host.mainWindow())
{
    createMenu();
    // `--show compare`: A/B of the lesson open.
    m_host.registerView(QStringLiteral("compare"), [this] { return showForScript(); });
}

QList<QMenu *> CompareMode::menus() const
{
    return {m_menu};
}

CompareView *CompareMode::compareView()
{
    if (!m_compare) {
        m_compare = new CompareView(m_host.document(), m_host.mainWindow());
        m_compare->setWindowFlag(Qt::Window);
        // The titles of the app's windows are one family, translated in the main window's context.
        m_compare->setWindowTitle(QCoreApplication::translate("attn::MainWindow", "A/B — Attention Lab"));
        connect(m_compare, &CompareView::message, this, [this](const QString &text) { m_host.showMessage(text, 5000); });
        // Right-click any of the three maps: the A/B figure or the difference map, PNG, SVG or PDF.
        for (HeatmapPlot *plot : {m_compare->figure()->plotA(), m_compare->figure()->plotB(), m_compare->figure()->plotDiff()})
            addExportMenu(plot);
        connect(m_compare, &CompareView::pinnedChanged, this, [this](bool pinned) {
            if (m_unpinAction)
                m_unpinAction->setEnabled(pinned);
            if (!pinned && m_compare)
                m_compare->hide();
        });
    }
    return m_compare;
}

void CompareMode::addExportMenu(HeatmapPlot *plot)
{
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(plot, &QWidget::customContextMenuRequested, this, [this, plot](const QPoint &pos) {
        QMenu menu;
        menu.addAction(tr("Export the A/B figure…"), this, [this] { exportFigure(false); });
        menu.addAction(tr("Export the difference map…"), this, [this] { exportFigure(true); });
        menu.exec(plot->mapToGlobal(pos));
    });
}

void CompareMode::exportFigure(bool difference)
{
    const QString stem = m_host.exportStem() + (difference ? QStringLiteral("_diff_") : QStringLiteral("_compare_"))
        + stageKey(m_compare->stage());
    const QString path = QFileDialog::getSaveFileName(
        m_host.mainWindow(), difference ? tr("Export the difference map") : tr("Export the A/B figure"),
        QDir(prefs::lastFolder.get()).filePath(stem + QStringLiteral(".png")),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    const FigureFormat format = figureFormatFromName(QFileInfo(path).suffix()).value_or(FigureFormat::Png);
    FigureSize size;
    if (!difference)
        size.width = 1800, size.height = 700;
    const FigureStyle style = m_host.figureStyle();
    const QByteArray bytes = difference ? renderDifferenceFigure(m_compare->maps(), style, format, size)
                                        : renderCompareFigure(m_compare->maps(), style, format, size);
    if (const auto p = writeFileAtomically(path, bytes))
        m_host.exportFailed(problemText(*p));
    else
        m_host.showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 4000);
}

CompareView *CompareMode::showCompare()
{
    CompareView *view = compareView();
    QMainWindow *window = m_host.mainWindow();
    if (!view->isVisible()) {
        const QRect screen = window->screen() ? window->screen()->availableGeometry() : QRect(0, 0, 1600, 1000);
        view->resize(std::min(std::max(window->width(), 1000), screen.width()),
                     std::min(std::max(window->height() * 3 / 4, 600), screen.height()));
    }
    view->show();
    view->raise();
    view->activateWindow();
    return view;
}

void CompareMode::pinAsA()
{
    compareView()->pinCurrent();
    showCompare();
}

bool CompareMode::openComparison(const QString &lessonName)
{
    const auto spec = comparisonOf(lessonName);
    if (!spec)
        return false;
    const ScenarioOrProblem loaded = loadLesson(spec->a);
    const auto *a = std::get_if<Scenario>(&loaded);
    if (!a)
        return false;
    Scenario pinned = *a;
    const LessonInfo local = lessonInfo(spec->a, QLocale().name());
    pinned.title = local.title.toStdString();
    CompareView *view = compareView();
    view->pin(pinned, local.title);
    view->setAlignByToken(spec->align);
    if (const auto stage = stageFromKey(spec->stage))
        view->setStage(*stage);
    showCompare();
    return true;
}

bool CompareMode::maybeSwitch()
{
    Document *doc = m_host.document();
    // A document with a file: the usual question.
    if (!doc->filePath().isEmpty())
        return m_host.maybeSave();
    if (!doc->isModified() || !m_host.interactive())
        return true;
    // A built-in lesson (or a new document) is not a file: nothing to save
    // into. Offer to keep it as A beside the next one instead.
    QMessageBox box(QMessageBox::Question, tr("Changed lesson"),
                    tr("%1 has changes. Keep it as A, to compare with the lesson you open?").arg(doc->displayName()),
                    QMessageBox::NoButton, m_host.mainWindow());
    QPushButton *keep = box.addButton(tr("Keep as A"), QMessageBox::AcceptRole);
    QPushButton *drop = box.addButton(tr("Just switch"), QMessageBox::DestructiveRole);
    QPushButton *saveCopy = box.addButton(tr("Save a copy…"), QMessageBox::ActionRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(keep);
    box.exec();
    if (box.clickedButton() == keep) {
        compareView()->pinCurrent();
        showCompare();
        return true;
    }
    if (box.clickedButton() == saveCopy)
        return m_host.saveAs();
    return box.clickedButton() == drop;
}

void CompareMode::createMenu()
{
    QMainWindow *window = m_host.mainWindow();
    QMenu *menu = m_menu = window->menuBar()->addMenu(tr("&Compare"));
    menu->setToolTipsVisible(true);
    QAction *pin = menu->addAction(tr("&Pin as A"), this, &CompareMode::pinAsA);
    pin->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+P")));
    pin->setToolTip(tr("Pin the current state as A; keep changing the document (B) and compare them side by side"));
    pin->setObjectName(QStringLiteral("pinAsA"));
    m_unpinAction = menu->addAction(tr("&Unpin (back to A)"), this, [this] { compareView()->unpin(); });
    m_unpinAction->setEnabled(false);
    m_unpinAction->setObjectName(QStringLiteral("unpinA"));
    menu->addAction(tr("Show A/B"), this, &CompareMode::showCompare);
    menu->addSeparator();
    for (const LessonInfo &l : builtInLessons(QLocale().name())) {
        if (!comparisonOf(l.name))
            continue;
        QAction *a = menu->addAction(l.title);
        a->setToolTip(l.description);
        a->setStatusTip(l.description);
        connect(a, &QAction::triggered, this, [this, name = l.name] {
            if (maybeSwitch())
                m_host.openLesson(name);
        });
    }
    // The Attention menu's and the toolbar's way in.
    if (QMenu *attention = m_host.menu(QStringLiteral("attentionMenu"))) {
        attention->addSeparator();
        attention->addAction(pin);
    }
    // On the Animate toolbar (the other experiments), not a toolbar of its
    // own: one more toolbar wraps to a second row on a projector and takes
    // height from the maps.
    QToolBar *bar = window->findChild<QToolBar *>(QStringLiteral("animateToolBar"));
    if (!bar) {
        bar = window->addToolBar(tr("A/B"));
        bar->setObjectName(QStringLiteral("compareToolBar"));
    }
    bar->addSeparator();
    bar->addAction(pin);
    bar->addAction(m_unpinAction);
    pin->setProperty("shortText", tr("Pin A"));
    m_unpinAction->setProperty("shortText", tr("Unpin"));
    m_host.fitToolBarTexts();
}

QWidget *CompareMode::showForScript()
{
    // Nothing pinned yet: the built-in comparison whose A is this lesson
    // (permutation: 你打我 aligned by token), or the current state pinned.
    if (!compareView()->isPinned()) {
        QString partner;
        for (const QString &name : lessonIndex())
            if (const auto spec = comparisonOf(name); spec && spec->a == m_host.document()->lessonName()) {
                partner = name;
                break;
            }
        if (!partner.isEmpty())
            m_host.openLesson(partner);
        else
            compareView()->pinCurrent();
    }
    return showCompare();
}

} // namespace attn
