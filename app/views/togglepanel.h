#pragma once
// The tool panel that stays in view: mask, heads, positional encoding,
// scaling, temperature and similarity. Each control asks the document for
// an edit; the temperature slider is a live gesture (one undo step a drag).

#include "document.h"
#include "edit.h"
#include "settingsactions.h"

#include <QDoubleSpinBox>
#include <QWidget>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSlider;
class QSpinBox;

namespace attn {

// τ in significant digits ("1e-06", "0.005", "1000"), not a fixed number
// of decimals that would show a small τ as 0.01 or 0; typed values in the
// same form, over the range core accepts (kMinTemperature to
// kMaxTemperature, validate.h). The arrows step along the slider's log
// scale. A typed text that is no τ is refused with one message (refused)
// and the box shows the document's τ again.
class TemperatureBox : public QDoubleSpinBox {
    Q_OBJECT

public:
    explicit TemperatureBox(QWidget *parent = nullptr);
    // The shortest text that reads back as the same double, so Enter on an
    // unchanged box changes nothing.
    QString textFromValue(double v) const override;
    double valueFromText(const QString &text) const override;
    QValidator::State validate(QString &text, int &pos) const override;
    void fixup(QString &input) const override;
    void stepBy(int steps) override;

signals:
    void refused(const QString &message);

private:
    QLocale numberLocale() const;
    mutable QString m_lastRefused;
};

class TogglePanel : public QWidget {
    Q_OBJECT

public:
    // The mask, heads, encoding, scale and similarity buttons show and
    // trigger `actions` (the Attention menu's own).
    TogglePanel(Document *doc, SettingsActions *actions, QWidget *parent = nullptr);

    // Slider position (0..kSliderSteps) for a temperature, and back; log
    // scale over the range a lesson needs. The spin box beside it takes any
    // τ the core accepts (kMinTemperature to kMaxTemperature in validate.h).
    static int sliderPosition(double temperature);
    static double temperatureAt(int position);
    static constexpr double kSliderMinTemperature = 0.05;
    static constexpr double kSliderMaxTemperature = 10.0;
    static constexpr int kSliderSteps = 1000;

    // τ rounded to two significant digits (core's roundTemperature, edit.h).
    static double roundTemperature(double tau) { return attn::roundTemperature(tau); }

    QSlider *temperatureSlider() const { return m_tau; }
    QDoubleSpinBox *temperatureBox() const { return m_tauBox; }
    QLineEdit *seedEdit() const { return m_seed; }

private:
    QGroupBox *createMaskGroup();
    QGroupBox *createHeadsGroup();
    QGroupBox *createEncodingGroup();
    QGroupBox *createScalingGroup();
    void sync();
    void syncRowSums();
    void bindActions(SettingsActions *actions);
    void setTemperature(double tau, bool live);
    void commitSeed();

    Document *m_doc;
    QCheckBox *m_causal;
    QListWidget *m_padding;
    QPushButton *m_clearMask;
    QButtonGroup *m_stage;
    QCheckBox *m_plusOne;
    QLabel *m_rowSums;
    QButtonGroup *m_heads;
    QComboBox *m_head;
    QButtonGroup *m_encoding;
    QLineEdit *m_seed;
    QButtonGroup *m_scale;
    QSlider *m_tau;
    TemperatureBox *m_tauBox;
    bool m_tauCancelled = false; // the slider's gesture was undone while still held
    QButtonGroup *m_similarity;
};

} // namespace attn
