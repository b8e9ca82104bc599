#pragma once
// File ▸ Export figure: which picture, which format, how big, where.

#include "figureexport.h"

#include <QDialog>

#include <optional>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace attn {

class ExportDialog : public QDialog {
    Q_OBJECT

public:
    // What can be exported, in the order of the "Figure" list. Compare (A,
    // B and B − A) and Difference (B − A alone) are listed only while a
    // comparison is pinned, for the compare view's stage.
    enum class What { Scores, Scaled, Masked, Weights, Output, Plane, Dashboard, Compare, Difference };

    // `head` of `heads` goes into the file name ("lesson_weights_head2.png"),
    // as the command line names it. `compared`: the stage of the pinned
    // comparison, which adds its two figures to the list
    // ("lesson_compare_weights.png", "lesson_diff_weights.png").
    ExportDialog(What what, const QString &folder, const QString &stem, int head = 0, int heads = 1,
                 std::optional<Stage> compared = std::nullopt, QWidget *parent = nullptr);

    What what() const;
    FigureFormat format() const;
    FigureSize size() const;
    QString path() const;
    // Slide: 1600 x 900 at 2x in large type; the size stays editable.
    FigurePreset preset() const;
    void setPreset(FigurePreset preset);
    // First the window's theme (View ▸ Theme); the figure may differ.
    FigureTheme theme() const;
    void setTheme(FigureTheme theme);

    // Shows why the last try failed; the dialog stays open.
    void showError(const QString &message);

    static std::optional<Stage> stageOf(What what);
    static What whatOf(Stage stage);
    // The size a figure is first offered at.
    static FigureSize defaultSize(What what);

    // The "Figure" list and its labels, for the tests.
    QComboBox *figureBox() const { return m_what; }
    QComboBox *presetBox() const { return m_preset; }
    QComboBox *themeBox() const { return m_theme; }

    // Asks before a file that exists is replaced.
    void accept() override;

private:
    void updatePath();
    void updateLimits();
    void updateSize();
    void browse();
    QString fileKey() const;

    QComboBox *m_what;
    QComboBox *m_format;
    QComboBox *m_preset = nullptr;
    QComboBox *m_theme = nullptr;
    QSpinBox *m_width;
    QSpinBox *m_height;
    QComboBox *m_scale = nullptr;
    QLineEdit *m_path;
    QLabel *m_error;
    QString m_folder;
    QString m_stem;
    int m_head;
    int m_heads;
    std::optional<Stage> m_compared;
    bool m_sizeChosen = false; // the user set the size: a new figure keeps it
    bool m_settingSize = false;
    QString m_confirmed; // a path the file dialog already asked to replace
};

} // namespace attn
