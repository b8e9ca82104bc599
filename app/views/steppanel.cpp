#include "steppanel.h"

#include "viewbinding.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace attn {

namespace {

constexpr char kClassroomProperty[] = "attn.classroom";

} // namespace

Classroom::Classroom(Document *doc, QObject *parent) : QObject(parent), m_doc(doc)
{
    doc->setProperty(kClassroomProperty, QVariant::fromValue(static_cast<QObject *>(this)));
    connect(doc, &QObject::destroyed, this, [this] { m_doc = nullptr; });
    // The number of steps follows the heads (and W_O): keep the step in range.
    connect(doc, &Document::changed, this, [this](const DocumentChange &what) {
        if (what.any(ChangeKind::Shape | ChangeKind::Settings) && m_step >= stepCount()) {
            m_step = stepCount() - 1;
            emit changed();
        }
    });
}

Classroom::~Classroom()
{
    if (m_doc && of(m_doc) == this)
        m_doc->setProperty(kClassroomProperty, QVariant());
}

Classroom *Classroom::of(const Document *doc)
{
    return doc ? qobject_cast<Classroom *>(doc->property(kClassroomProperty).value<QObject *>()) : nullptr;
}

void Classroom::setStepMode(bool on)
{
    if (on == m_stepMode)
        return;
    m_stepMode = on;
    emit changed();
}

std::vector<StepKind> Classroom::steps() const
{
    return stepsFor(m_doc->scenario());
}

int Classroom::step() const
{
    return std::clamp(m_step, 0, stepCount() - 1);
}

StepKind Classroom::currentStep() const
{
    return steps()[std::size_t(step())];
}

void Classroom::setStep(int index)
{
    index = std::clamp(index, 0, stepCount() - 1);
    if (index == m_step)
        return;
    m_step = index;
    emit changed();
}

bool Classroom::reached(Stage stage) const
{
    if (!m_stepMode)
        return true;
    for (int i = 0; i <= step(); ++i)
        if (stageOfStep(steps()[std::size_t(i)]) == stage)
            return true;
    return false;
}

Classroom::Shows Classroom::shows(Stage stage) const
{
    if (!reached(stage))
        return Shows::Nothing;
    if (m_stepMode && stage == Stage::Weights && currentStep() == StepKind::Exp)
        return Shows::Exponentials;
    return Shows::Values;
}

void Classroom::setHidden(bool on)
{
    if (on == m_hidden)
        return;
    m_hidden = on;
    emit changed();
}

void Classroom::setHideScaled(bool on)
{
    if (on == m_hideScaled)
        return;
    m_hideScaled = on;
    emit changed();
}

bool Classroom::stageHidden(Stage stage) const
{
    if (!m_hidden)
        return false;
    switch (stage) {
    case Stage::Weights:
    case Stage::Output:
        return true;
    case Stage::Scaled:
    case Stage::Masked:
        return m_hideScaled;
    case Stage::Scores:
        return false;
    }
    return false;
}

// ---------------------------------------------------------------------------

StepPanel::StepPanel(Document *doc, Classroom *classroom, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_classroom(classroom)
{
    setObjectName(QStringLiteral("steps"));
    auto *layout = new QVBoxLayout(this);
    auto *nav = new QHBoxLayout;
    auto button = [this, nav](const QString &text, const QString &tip, auto slot) {
        auto *b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        connect(b, &QToolButton::clicked, m_classroom, slot);
        nav->addWidget(b);
        return b;
    };
    m_first = button(QStringLiteral("|◀"), tr("First step (Home)"), &Classroom::first);
    m_prev = button(QStringLiteral("◀"), tr("Previous step (Left, Page Up)"), &Classroom::previous);
    m_heading = new QLabel(this);
    m_heading->setObjectName(QStringLiteral("stepHeading"));
    m_heading->setWordWrap(true);
    nav->addWidget(m_heading, 1);
    m_next = button(QStringLiteral("▶"), tr("Next step (Right, Page Down)"), &Classroom::next);
    m_last = button(QStringLiteral("▶|"), tr("Last step (End)"), &Classroom::last);
    layout->addLayout(nav);
    m_explain = new QLabel(this);
    m_explain->setWordWrap(true);
    layout->addWidget(m_explain);
    m_lines = new QLabel(this);
    m_lines->setObjectName(QStringLiteral("stepArithmetic"));
    m_lines->setTextFormat(Qt::RichText);
    m_lines->setWordWrap(true);
    m_lines->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_lines->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(m_lines);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    layout->addWidget(scroll, 1);
    connect(classroom, &Classroom::changed, this, &StepPanel::refresh);
    new ViewBinding(this, doc, ChangeKind::Values | ChangeKind::Shape | ChangeKind::Labels | ChangeKind::Settings,
                    [this] { refresh(); });
    refresh();
}

QString StepPanel::stepName(StepKind step)
{
    switch (step) {
    case StepKind::Scores: return tr("Scores: compare the query with every key");
    case StepKind::Scaled: return tr("Scale: divide by √d_k (and τ)");
    case StepKind::Mask: return tr("Mask: add 0 or −∞");
    case StepKind::Exp: return tr("Softmax, part 1: exponentials");
    case StepKind::Normalise: return tr("Softmax, part 2: divide by the sum");
    case StepKind::WeightedSum: return tr("Weighted sum of the values");
    case StepKind::Concat: return tr("Concatenate the heads (and W_O)");
    }
    return QString();
}

QString StepPanel::stepExplanation(StepKind step, const Scenario &s)
{
    switch (step) {
    case StepKind::Scores:
        return s.similarity == Similarity::Dot ? tr("Each score is the dot product of the query with one key: multiply "
                                                    "matching entries and add.")
               : s.similarity == Similarity::Cosine ? tr("Each score is the cosine of the angle between the query and one key.")
                                                    : tr("Each score is minus the squared distance between the query and one key.");
    case StepKind::Scaled:
        return tr("Every score is divided by the same number, so that large d_k does not push the softmax into "
                  "saturation.");
    case StepKind::Mask:
        return s.maskStage == MaskStage::BeforeSoftmax
                   ? tr("A blocked key gets −∞, so that e^−∞ = 0 removes it from the softmax; an open key gets 0.")
                   : tr("Here the mask acts after the softmax (the misconception): the row is normalised with every "
                        "key, then the blocked weights are set to 0.");
    case StepKind::Exp:
        return tr("e to the power of each score. Subtracting the row's maximum first gives the same weights and "
                  "never overflows: both are written out.");
    case StepKind::Normalise:
        return s.softmax == SoftmaxKind::PlusOne
                   ? tr("softmax₁: each exponential divided by 1 + their sum (the sink's e^0 = 1): the weights are "
                        "positive and add up to less than 1; the rest attends to nothing.")
                   : tr("Each exponential divided by their sum: the weights are positive and add up to 1.");
    case StepKind::WeightedSum:
        return tr("The output is the average of the value vectors, weighted by the weights.");
    case StepKind::Concat:
        return tr("The heads' outputs side by side, then multiplied by W_O when there is one.");
    }
    return QString();
}

QString StepPanel::typeset(const std::string &line)
{
    const QString in = QString::fromStdString(line);
    QString out;
    for (int i = 0; i < in.size(); ++i) {
        if ((in[i] == QLatin1Char('_') || in[i] == QLatin1Char('^')) && i + 1 < in.size() && in[i + 1] == QLatin1Char('{')) {
            int depth = 0, j = i + 1;
            for (; j < in.size(); ++j) {
                if (in[j] == QLatin1Char('{'))
                    ++depth;
                else if (in[j] == QLatin1Char('}') && --depth == 0)
                    break;
            }
            const QString inner = typeset(in.mid(i + 2, j - i - 2).toStdString()); // e^{m_{old} − m}
            const bool sup = in[i] == QLatin1Char('^');
            out += sup ? QStringLiteral("<sup>%1</sup>").arg(inner) : QStringLiteral("<sub>%1</sub>").arg(inner);
            i = j;
            continue;
        }
        out += QString(in[i]).toHtmlEscaped();
    }
    return out;
}

void StepPanel::refresh()
{
    const Scenario &s = m_doc->scenario();
    const int index = m_classroom->step(), count = m_classroom->stepCount();
    const StepKind step = m_classroom->currentStep();
    const auto ql = queryLabels(s);
    const int row = std::clamp(m_doc->currentQuery(), 0, std::max(0, int(ql.size()) - 1));
    //: %1 and %2 count the steps, %3 names the step, %4 the selected query.
    m_heading->setText(tr("<b>Step %1 of %2:</b> %3 &nbsp; <span style='color:#666'>(query %4)</span>")
                           .arg(index + 1)
                           .arg(count)
                           .arg(stepName(step).toHtmlEscaped(), QString::fromStdString(ql.empty() ? "" : ql[std::size_t(row)]).toHtmlEscaped()));
    m_explain->setText(stepExplanation(step, s));
    m_first->setEnabled(index > 0);
    m_prev->setEnabled(index > 0);
    m_next->setEnabled(index + 1 < count);
    m_last->setEnabled(index + 1 < count);

    const int base = font().pointSize() > 0 ? font().pointSize() : 10;
    QString html = QStringLiteral("<div style='font-size:%1pt; font-family:serif; line-height:140%;'>")
                       .arg(int(std::lround(base * 1.5)));
    m_plain.clear();
    if (m_classroom->stageHidden(stageOfStep(step))) {
        html += tr("Hidden: predict it, then reveal.").toHtmlEscaped();
    } else {
        for (const std::string &line : stepLines(s, m_doc->trace(), step, m_doc->currentHead(), row)) {
            html += typeset(line) + QStringLiteral("<br>");
            QString plain = QString::fromStdString(line);
            plain.replace(QStringLiteral("^{"), QStringLiteral("^")).remove(QStringLiteral("_{")).remove(QLatin1Char('}'));
            m_plain += plain + QLatin1Char('\n');
        }
    }
    html += QStringLiteral("</div>");
    m_lines->setText(html);
}

QString StepPanel::heading() const
{
    return m_heading->text();
}

QString StepPanel::explanation() const
{
    return m_explain->text();
}

QString StepPanel::arithmeticHtml() const
{
    return m_lines->text();
}

QString StepPanel::arithmeticText() const
{
    return m_plain;
}

void StepPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        refresh();
}

} // namespace attn
