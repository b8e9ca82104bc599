#pragma once
// The tool panel that stays in view: mask, heads, positional encoding,
// scaling, temperature and similarity. Each control asks the document for
// an edit; the temperature slider is a live gesture (one undo step a drag).

#include "document.h"

#include <QWidget>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSlider;
class QSpinBox;

namespace attn {

class TogglePanel : public QWidget {
    Q_OBJECT

public:
    explicit TogglePanel(Document *doc, QWidget *parent = nullptr);

    // Slider position (0..kSliderSteps) for a temperature, and back; log scale.
    static int sliderPosition(double temperature);
    static double temperatureAt(int position);
    static constexpr double kMinTemperature = 0.05;
    static constexpr double kMaxTemperature = 10.0;
    static constexpr int kSliderSteps = 1000;

    QSlider *temperatureSlider() const { return m_tau; }

private:
    void sync();
    void setTemperature(double tau, bool live);

    Document *m_doc;
    QCheckBox *m_causal;
    QListWidget *m_padding;
    QPushButton *m_clearMask;
    QButtonGroup *m_stage;
    QLabel *m_rowSums;
    QButtonGroup *m_heads;
    QComboBox *m_head;
    QButtonGroup *m_encoding;
    QSpinBox *m_seed;
    QButtonGroup *m_scale;
    QSlider *m_tau;
    QDoubleSpinBox *m_tauBox;
    QButtonGroup *m_similarity;
};

} // namespace attn
