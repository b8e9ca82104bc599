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

    // `head` of `heads` goes into the file name ("lesson_weights_head2.png"),
    // as the command line names it.
    ExportDialog(What what, const QString &folder, const QString &stem, int head = 0, int heads = 1,
                 QWidget *parent = nullptr);

    What what() const;
    FigureFormat format() const;
    FigureSize size() const;
    QString path() const;

    // Shows why the last try failed; the dialog stays open.
    void showError(const QString &message);

    static std::optional<Stage> stageOf(What what);
    static What whatOf(Stage stage);

    // Asks before a file that exists is replaced.
    void accept() override;

private:
    void updatePath();
    void updateLimits();
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
    int m_head;
    int m_heads;
    QString m_confirmed; // a path the file dialog already asked to replace
};

} // namespace attn
