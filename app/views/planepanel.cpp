#include "planepanel.h"

#include "viewbinding.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace attn {

PlanePanel::PlanePanel(Document *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("vectorPlanePanel"));
    m_plane = new PlanePlot(this);
    m_plane->setObjectName(QStringLiteral("vectorPlane"));
    m_tool = new PlaneDragTool(doc, m_plane, this);

    m_dimsLabel = new QLabel(tr("Axes:"), this);
    m_dimsLabel->setToolTip(tr("The vectors have more than two dimensions: choose two to show, or PCA"));
    m_dimXBox = new QComboBox(this);
    m_dimXBox->setObjectName(QStringLiteral("planeHorizontal"));
    m_dimXBox->setToolTip(tr("The dimension on the horizontal axis"));
    m_dimYBox = new QComboBox(this);
    m_dimYBox->setObjectName(QStringLiteral("planeVertical"));
    m_dimYBox->setToolTip(tr("The dimension on the vertical axis"));
    m_pcaButton = new QToolButton(this);
    m_pcaButton->setObjectName(QStringLiteral("planePca"));
    m_pcaButton->setText(tr("PCA"));
    m_pcaButton->setCheckable(true);
    m_pcaButton->setToolTip(tr("Project every key and query onto their two principal directions "
                         "(for more than two dimensions); dragging moves within that plane"));

    auto *snapLabel = new QLabel(tr("Snap:"), this);
    m_snapBox = new QComboBox(this);
    m_snapBox->setObjectName(QStringLiteral("planeSnap"));
    m_snapBox->setToolTip(tr("Dragged and nudged vectors land on this grid, for numbers you can check by hand"));
    for (double step : snapSteps())
        //: Snapping to a grid is off.
        m_snapBox->addItem(step == 0 ? tr("off") : QString::number(step), step);
    snapLabel->setBuddy(m_snapBox);
    m_dragKeys = new QToolButton(this);
    m_dragKeys->setObjectName(QStringLiteral("planeDragKeys"));
    m_dragKeys->setText(tr("Drag keys"));
    m_dragKeys->setCheckable(true);
    m_dragKeys->setToolTip(tr("Let the keys be dragged too (Shift picks a key over a query on the same spot)"));
    m_fit = new QToolButton(this);
    m_fit->setObjectName(QStringLiteral("planeFit"));
    //: A button: zoom the plane so that every vector is in view.
    m_fit->setText(tr("Fit"));
    m_fit->setToolTip(tr("Frame every vector (F)"));

    m_window = new QToolButton(this);
    m_window->setObjectName(QStringLiteral("planeWindow"));
    //: A button: open the plane in a window of its own.
    m_window->setText(tr("Window"));
    m_window->setToolTip(tr("Open the plane in a window of its own, to make it large on the projector"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto *row1 = new QHBoxLayout;
    row1->addWidget(snapLabel);
    row1->addWidget(m_snapBox);
    row1->addWidget(m_dragKeys);
    row1->addStretch(1);
    row1->addWidget(m_fit);
    row1->addWidget(m_window);
    // The dimension choice, shown only when there is one to make (d > 2).
    m_dimsRow = new QWidget(this);
    auto *row2 = new QHBoxLayout(m_dimsRow);
    row2->setContentsMargins(0, 0, 0, 0);
    row2->addWidget(m_dimsLabel);
    row2->addWidget(m_dimXBox);
    row2->addWidget(m_dimYBox);
    row2->addWidget(m_pcaButton);
    row2->addStretch(1);
    layout->addLayout(row1);
    layout->addWidget(m_dimsRow);
    layout->addWidget(m_plane, 1);
    setFocusProxy(m_plane);

    connect(m_dimXBox, &QComboBox::activated, this, [this](int i) {
        setDimensions(i, i == m_dimY ? m_dimX : m_dimY); // picking the other axis swaps them
    });
    connect(m_dimYBox, &QComboBox::activated, this, [this](int i) { setDimensions(i == m_dimX ? m_dimY : m_dimX, i); });
    connect(m_pcaButton, &QToolButton::toggled, this, [this](bool on) {
        if (!m_syncing)
            setPrincipalProjection(on);
    });
    connect(m_snapBox, &QComboBox::activated, this, [this](int i) { setSnapStep(m_snapBox->itemData(i).toDouble()); });
    connect(m_dragKeys, &QToolButton::toggled, this, [this](bool on) {
        if (!m_syncing)
            setKeysDraggable(on);
    });
    connect(m_fit, &QToolButton::clicked, m_plane, &PlanePlot::fit);
    connect(m_window, &QToolButton::clicked, this, &PlanePanel::openWindow);
    connect(this, &PlanePanel::viewChanged, this, &PlanePanel::sync);
    connect(m_tool, &PlaneDragTool::settingsChanged, this, &PlanePanel::viewChanged);

    // What the scene shows: the document (its numbers, selection and
    // hover), the view's choices and the tool's state. The bookkeeping of
    // a change runs before the binding redraws for it.
    connect(doc, &Document::changed, this, &PlanePanel::onDocumentChanged);
    m_binding = new ViewBinding(this, doc, ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings,
                                [this] { refresh(); });
    connect(doc, &Document::hoverChanged, m_binding, &ViewBinding::request);
    connect(m_tool, &PlaneDragTool::stateChanged, m_binding, &ViewBinding::request);
    connect(m_plane, &PlanePlot::fitRequested, this, [this] {
        m_pcaBasis.reset(); // a PCA plane is fitted again to the vectors as they are now
        m_binding->request();
    });
    refresh(); // the scene now; the plot draws it once shown
    sync();
}

PlanePanel::~PlanePanel()
{
    // The tool first, while the panel can still hear what it does (it
    // cancels a drag in flight).
    delete m_tool;
    m_tool = nullptr;
}

const PlaneScene &PlanePanel::scene()
{
    if (m_binding->isStale())
        refresh();
    return m_plane->scene();
}

PlaneSettings PlanePanel::settings() const
{
    const Scenario &s = m_doc->scenario();
    PlaneSettings p;
    p.head = m_doc->currentHead();
    p.query = std::clamp(m_doc->currentQuery(), 0, std::max(0, queryCount(s) - 1));
    p.horizontal = m_dimX;
    p.vertical = m_dimY;
    p.pca = m_pca;
    if (m_basisHead == p.head)
        p.basis = m_pcaBasis;
    p.keysDraggable = m_tool->keysDraggable();
    p.hovered = m_tool->hovered();
    p.hoveredKey = m_doc->hoveredRow() == p.query ? m_doc->hoveredColumn() : -1;
    p.selectedKey = m_tool->selectedKey();
    p.dragged = m_tool->dragged();
    if (m_gradient) {
        const bool projected = s.mode == InputMode::Projected;
        p.gradient = m_gradient(projected ? MatrixId::X : MatrixId::Q,
                                projected ? (s.source ? MatrixId::Source : MatrixId::X) : MatrixId::K);
    }
    return p;
}

void PlanePanel::refresh()
{
    if (!m_tool)
        return; // going
    const int oldD = m_plane->scene().d;
    const PlaneScene scene = makePlaneScene(m_doc->scenario(), m_doc->trace(), settings());
    if (scene.pca) {
        m_pcaBasis = scene.basis;
        m_basisHead = scene.head;
    }
    const bool corrected = scene.horizontal != m_dimX || scene.vertical != m_dimY;
    m_dimX = scene.horizontal;
    m_dimY = scene.vertical;
    m_plane->setScene(scene);
    if (corrected || oldD != scene.d)
        emit viewChanged();
}

void PlanePanel::onDocumentChanged(const DocumentChange &change)
{
    if (!change.isRowChange())
        m_pcaBasis.reset(); // the vectors changed otherwise than by rows: fit the PCA plane again
    if (change.has(ChangeKind::Shape))
        m_plane->fit(); // and frame them again, on resizes too
}

void PlanePanel::setDimensions(int horizontal, int vertical)
{
    const int d = std::max(spaceDimension(), 2);
    horizontal = std::clamp(horizontal, 0, d - 1);
    vertical = std::clamp(vertical, 0, d - 1);
    if (horizontal == vertical)
        vertical = horizontal == 0 ? 1 : 0;
    if (horizontal == m_dimX && vertical == m_dimY)
        return;
    m_dimX = horizontal;
    m_dimY = vertical;
    m_plane->fitOnce();
    m_binding->request();
    emit viewChanged();
}

void PlanePanel::setPrincipalProjection(bool on)
{
    if (on == m_pca)
        return;
    m_pca = on;
    m_pcaBasis.reset();
    m_plane->fitOnce();
    m_binding->request();
    emit viewChanged();
}

QAbstractButton *PlanePanel::pcaButton() const
{
    return m_pcaButton;
}

QAbstractButton *PlanePanel::dragKeysButton() const
{
    return m_dragKeys;
}

QAbstractButton *PlanePanel::fitButton() const
{
    return m_fit;
}

void PlanePanel::setGradientSource(GradientSource source)
{
    m_gradient = std::move(source);
    m_binding->request();
}

std::vector<double> PlanePanel::snapSteps()
{
    return {0.0, 0.1, 0.5, 1.0};
}

QAbstractButton *PlanePanel::windowButton() const
{
    return m_window;
}

PlanePanel *PlanePanel::openWindow()
{
    // A second panel on the same document, with the same view settings; it
    // belongs to this panel (and so to the main window) and goes when closed.
    auto *panel = new PlanePanel(m_doc, this);
    panel->setWindowFlag(Qt::Window);
    panel->setAttribute(Qt::WA_DeleteOnClose);
    panel->setWindowTitle(tr("Vector plane — Attention Lab"));
    panel->m_window->hide();
    panel->setDimensions(m_dimX, m_dimY);
    panel->setPrincipalProjection(m_pca);
    panel->setSnapStep(snapStep());
    panel->setKeysDraggable(keysDraggable());
    panel->setGradientSource(m_gradient);
    panel->resize(900, 800);
    panel->show();
    return panel;
}

void PlanePanel::sync()
{
    m_syncing = true;
    const int d = spaceDimension();
    if (m_dimXBox->count() != d) {
        m_dimXBox->clear();
        m_dimYBox->clear();
        for (int i = 0; i < d; ++i) {
            m_dimXBox->addItem(tr("d%1").arg(i + 1));
            m_dimYBox->addItem(tr("d%1").arg(i + 1));
        }
    }
    const bool choose = d > 2;
    m_dimXBox->setCurrentIndex(std::min(m_dimX, d - 1));
    m_dimYBox->setCurrentIndex(d >= 2 ? std::min(m_dimY, d - 1) : -1);
    m_dimXBox->setEnabled(choose && !m_pca);
    m_dimYBox->setEnabled(choose && !m_pca);
    m_pcaButton->setEnabled(choose);
    m_dimsRow->setVisible(choose);
    m_pcaButton->setChecked(m_pca);
    const std::vector<double> steps = snapSteps();
    for (int i = 0; i < int(steps.size()); ++i)
        if (steps[std::size_t(i)] == snapStep())
            m_snapBox->setCurrentIndex(i);
    m_dragKeys->setChecked(keysDraggable());
    m_syncing = false;
}

} // namespace attn
