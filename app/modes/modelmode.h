#pragma once
// The model mode: a real GPT-2-shaped model reading a sentence (ModelView),
// in place of the lab's maps and panels. openModel reads a Hugging Face
// GPT-2 folder; on a problem the message is shown (and returned), and the
// model, the mode and the document stay as they were. Taking a head into
// the lab is one undoable edit of the document and leaves the mode.

#include "mode.h"
#include "result.h"

#include <memory>

class QAction;
class QDockWidget;

namespace attn {

class GenerationPanel;
class ModelView;
struct Scenario;
struct Gpt2Model;
enum class ModelFigure;

class ModelMode : public Mode {
    Q_OBJECT

public:
    explicit ModelMode(ModeHost &host);

    QString name() const override { return QStringLiteral("model"); }
    QWidget *centralWidget() const override;
    void activate() override;
    void deactivate() override;

    ModelView *modelView() const { return m_view; }
    // Generation token by token, in a dock beside the model's maps
    // (View ▸ Generate token by token); shown only when asked for.
    GenerationPanel *generationPanel() const { return m_generation; }
    QDockWidget *generationDock() const { return m_generationDock; }
    std::optional<Problem> showGeneration();
    std::optional<Problem> openModel(const QString &folder);
    std::optional<Problem> openBuiltinModel();
    // A model already in memory (the training lab's), reading `text`, in view.
    void showModel(std::shared_ptr<const Gpt2Model> model, const QString &text);
    std::optional<Problem> takeHeadIntoLab(const Scenario &head, const QString &description);

private:
    void createAction();
    void exportFigure(ModelFigure what);
    Result<std::shared_ptr<const Gpt2Model>> load(const QString &folder, const QString &name);

    void createGeneration();

    ModelView *m_view = nullptr;
    QAction *m_action = nullptr;
    GenerationPanel *m_generation = nullptr;
    QDockWidget *m_generationDock = nullptr;
    QAction *m_generationAction = nullptr;
    bool m_loading = false; // a load's local event loop is running
};

} // namespace attn
