#include "exportdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>

#include <cmath>

namespace attn {

namespace {

const char *const kKeys[] = {"scores", "scaled", "masked", "weights", "output", "plane", "dashboard", "compare", "diff"};

} // namespace

std::optional<Stage> ExportDialog::stageOf(What what)
{
    switch (what) {
    case What::Scores: return Stage::Scores;
    case What::Scaled: return Stage::Scaled;
    case What::Masked: return Stage::Masked;
    case What::Weights: return Stage::Weights;
    case What::Output: return Stage::Output;
    case What::Plane:
    case What::Dashboard:
    case What::Compare:
    case What::Difference:
        break;
    }
    return std::nullopt;
}

FigureSize ExportDialog::defaultSize(What what)
{
    switch (what) {
    case What::Dashboard: return FigureSize{2400, 1500, 1.0};
    case What::Compare: return FigureSize{1800, 700, 1.0}; // three maps in a row
    default: return FigureSize{};
    }
}

ExportDialog::What ExportDialog::whatOf(Stage stage)
{
    return What(int(stage));
}

ExportDialog::ExportDialog(What what, const QString &folder, const QString &stem, int head, int heads,
                           std::optional<Stage> compared, QWidget *parent)
    : QDialog(parent), m_folder(folder), m_stem(stem), m_head(head), m_heads(heads), m_compared(compared)
{
    setWindowTitle(tr("Export a figure"));
    auto *form = new QFormLayout(this);

    m_what = new QComboBox(this);
    for (Stage s : {Stage::Scores, Stage::Scaled, Stage::Masked, Stage::Weights, Stage::Output})
        m_what->addItem(stageName(s));
    m_what->addItem(tr("Vector plane"));
    m_what->addItem(tr("Dashboard (every map and the plane)"));
    if (m_compared) {
        m_what->addItem(tr("A/B: A, B and B − A (%1)").arg(stageName(*m_compared)));
        m_what->addItem(tr("Difference map B − A (%1)").arg(stageName(*m_compared)));
    }
    if (int(what) < m_what->count())
        m_what->setCurrentIndex(int(what));
    form->addRow(tr("&Figure:"), m_what);

    m_format = new QComboBox(this);
    m_format->addItem(tr("PNG image"), int(FigureFormat::Png));
    m_format->addItem(tr("SVG vector drawing"), int(FigureFormat::Svg));
    m_format->addItem(tr("PDF document"), int(FigureFormat::Pdf));
    form->addRow(tr("F&ormat:"), m_format);

    m_preset = new QComboBox(this);
    for (FigurePreset p : allFigurePresets())
        m_preset->addItem(displayName(p), int(p));
    m_preset->setToolTip(tr("Slide: 1600 × 900 at 2×, with numbers large enough to read from the back of a room"));
    form->addRow(tr("&Preset:"), m_preset);

    m_theme = new QComboBox(this);
    for (FigureTheme t : allFigureThemes())
        m_theme->addItem(displayName(t), int(t));
    m_theme->setToolTip(tr("High contrast for projectors; the colour maps stay colour-blind safe"));
    form->addRow(tr("&Theme:"), m_theme);

    auto *sizeRow = new QHBoxLayout;
    m_width = new QSpinBox(this);
    m_width->setRange(200, 8000);
    m_width->setSuffix(tr(" px"));
    m_height = new QSpinBox(this);
    m_height->setRange(200, 8000);
    m_height->setSuffix(tr(" px"));
    updateSize();
    m_scale = new QComboBox(this);
    for (int s = 1; s <= 4; ++s)
        m_scale->addItem(QStringLiteral("%1×").arg(s), s);
    m_scale->setToolTip(tr("PNG only: pixels per point, for sharp slides on large screens"));
    sizeRow->addWidget(m_width);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(m_height);
    sizeRow->addSpacing(12);
    //: Pixels per point of a PNG (1×, 2×, ...).
    sizeRow->addWidget(new QLabel(tr("scale"), this));
    sizeRow->addWidget(m_scale);
    // A row that is a layout gets no buddy from QFormLayout, and its label
    // would show the "&" itself: these two labels are made here.
    auto *sizeLabel = new QLabel(tr("&Size:"), this);
    sizeLabel->setBuddy(m_width);
    form->addRow(sizeLabel, sizeRow);

    auto *pathRow = new QHBoxLayout;
    m_path = new QLineEdit(this);
    auto *browse = new QPushButton(tr("&Browse…"), this);
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);
    auto *fileLabel = new QLabel(tr("&File:"), this);
    fileLabel->setBuddy(m_path);
    form->addRow(fileLabel, pathRow);

    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_error->hide();
    form->addRow(m_error);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    form->addRow(buttons);

    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(m_what, &QComboBox::currentIndexChanged, this, [this] {
        updateLimits();
        if (!m_sizeChosen)
            updateSize();
        updatePath();
    });
    for (QSpinBox *box : {m_width, m_height})
        connect(box, &QSpinBox::valueChanged, this, [this] {
            if (!m_settingSize)
                m_sizeChosen = true;
        });
    connect(m_preset, &QComboBox::currentIndexChanged, this, [this] {
        // A preset is a size to start from: it replaces the size even if one was typed.
        m_sizeChosen = false;
        updateSize();
    });
    connect(m_format, &QComboBox::currentIndexChanged, this, [this] {
        m_scale->setEnabled(format() == FigureFormat::Png);
        updatePath();
    });
    updateLimits();
    updatePath();
}

void ExportDialog::updateLimits()
{
    // Six plots on one page need room to stay readable.
    const bool dashboard = what() == What::Dashboard;
    m_width->setMinimum(dashboard ? kMinDashboardWidth : 200);
    m_height->setMinimum(dashboard ? kMinDashboardHeight : 200);
}

void ExportDialog::updateSize()
{
    const FigureSize size = presetSize(preset(), defaultSize(what()));
    m_settingSize = true;
    m_width->setValue(size.width);
    m_height->setValue(size.height);
    if (m_scale)
        m_scale->setCurrentIndex(std::max(0, m_scale->findData(int(std::lround(size.scale)))));
    m_settingSize = false;
}

FigurePreset ExportDialog::preset() const
{
    return m_preset ? FigurePreset(m_preset->currentData().toInt()) : FigurePreset::Default;
}

void ExportDialog::setPreset(FigurePreset preset)
{
    m_preset->setCurrentIndex(std::max(0, m_preset->findData(int(preset))));
}

FigureTheme ExportDialog::theme() const
{
    return FigureTheme(m_theme->currentData().toInt());
}

void ExportDialog::setTheme(FigureTheme theme)
{
    m_theme->setCurrentIndex(std::max(0, m_theme->findData(int(theme))));
}

void ExportDialog::accept()
{
    const QString file = path();
    if (!file.isEmpty() && file != m_confirmed && QFileInfo::exists(file)
        && QMessageBox::question(this, tr("Replace the file?"),
                                 tr("%1 already exists. Replace it?").arg(QDir::toNativeSeparators(file)))
               != QMessageBox::Yes)
        return;
    QDialog::accept();
}

ExportDialog::What ExportDialog::what() const
{
    return What(m_what->currentIndex());
}

FigureFormat ExportDialog::format() const
{
    return FigureFormat(m_format->currentData().toInt());
}

FigureSize ExportDialog::size() const
{
    return FigureSize{m_width->value(), m_height->value(), format() == FigureFormat::Png ? m_scale->currentData().toDouble() : 1.0};
}

QString ExportDialog::path() const
{
    return m_path->text().trimmed();
}

void ExportDialog::showError(const QString &message)
{
    m_error->setText(message);
    m_error->setVisible(!message.isEmpty());
}

void ExportDialog::updatePath()
{
    // Keep a folder the user chose; rename the file after what and format.
    const QString folder = m_path->text().isEmpty() ? m_folder : QFileInfo(m_path->text()).absolutePath();
    const QString name = m_stem + QLatin1Char('_') + figureFileName(fileKey(), m_head, m_heads, format());
    m_path->setText(QDir(folder).filePath(name));
}

// As the command line names them: "weights", "compare_weights", "diff_weights".
QString ExportDialog::fileKey() const
{
    QString key = QLatin1String(kKeys[m_what->currentIndex()]);
    if ((what() == What::Compare || what() == What::Difference) && m_compared)
        key += QLatin1Char('_') + stageKey(*m_compared);
    return key;
}

void ExportDialog::browse()
{
    const QString suffix = figureSuffix(format());
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export to"), path(),
                                                        tr("%1 files (*.%2)").arg(suffix.toUpper(), suffix));
    if (chosen.isEmpty())
        return;
    m_path->setText(QFileInfo(chosen).suffix().isEmpty() ? chosen + QLatin1Char('.') + suffix : chosen);
    m_confirmed = chosen; // the file dialog has asked already

}

} // namespace attn
