#pragma once
// File ▸ Export figure: which picture, which format, how big, where.

#include "figureexport.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace attn {

class ExportDialog : public QDialog {
    Q_OBJECT

public:
    // What can be exported, in the order of the "Figure" list.
    enum class What { Scores, Scaled, Masked, Weights, Output, Plane, Dashboard };

    ExportDialog(What what, const QString &folder, const QString &stem, QWidget *parent = nullptr);

    What what() const;
    FigureFormat format() const;
    FigureSize size() const;
    QString path() const;

    // Shows why the last try failed; the dialog stays open.
    void showError(const QString &message);

    static std::optional<Stage> stageOf(What what);
    static What whatOf(Stage stage);

private:
    void updatePath();
    void browse();

    QComboBox *m_what;
    QComboBox *m_format;
    QSpinBox *m_width;
    QSpinBox *m_height;
    QComboBox *m_scale;
    QLineEdit *m_path;
    QLabel *m_error;
    QString m_folder;
    QString m_stem;
};

} // namespace attn
