#pragma once
// The training lab as a mode of the window (View ▸ Training lab): the
// TrainingLabView in place of the lab's maps. What it does with a trained
// model goes through the model mode: a head taken into the lab is the model
// mode's one undoable edit of the document, and "Open in model mode" shows
// the trained model there.

#include "mode.h"
#include "result.h"

class QAction;

namespace attn {

class ModelMode;
class TrainingLabView;

class TrainingMode : public Mode {
    Q_OBJECT

public:
    TrainingMode(ModeHost &host, ModelMode &model);

    QString name() const override { return QStringLiteral("training"); }
    QWidget *centralWidget() const override;
    void activate() override;
    void deactivate() override;

    TrainingLabView *view() const { return m_view; }
    QAction *action() const { return m_action; }
    // Trains the form's settings to the end, waiting in a local event loop
    // (the window keeps drawing): for `--show` pictures. The Problem when
    // the training was refused or stopped.
    std::optional<Problem> trainToEnd();
    std::optional<Problem> raceToEnd(Scale against);
    std::optional<Problem> saveModel(int checkpoint, const QString &folder);

private:
    void askAndSave(int checkpoint);

    ModelMode &m_model;
    TrainingLabView *m_view = nullptr;
    QAction *m_action = nullptr;
};

} // namespace attn
