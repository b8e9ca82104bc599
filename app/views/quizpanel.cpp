#include "quizpanel.h"

#include "lessons.h"
#include "notespanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace attn {

namespace {

// A choice as a button whose text wraps: a QPushButton asks for its whole
// text on one line, so a long choice would widen the window from one
// question to the next. The text is a word-wrapped label inside it, and the
// button takes the label's size, its height for the width it is given.
class ChoiceButton : public QPushButton {
public:
    ChoiceButton(const QString &text, QWidget *parent) : QPushButton(parent)
    {
        auto *layout = new QVBoxLayout(this);
        layout->setContentsMargins(8, 6, 8, 6);
        m_label = new QLabel(text, this);
        m_label->setWordWrap(true);
        m_label->setTextFormat(Qt::PlainText);
        m_label->setAttribute(Qt::WA_TransparentForMouseEvents);
        layout->addWidget(m_label);
        setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
        setAccessibleName(text);
    }
    QString choiceText() const { return m_label->text(); }
    QSize sizeHint() const override { return layout()->sizeHint(); }
    QSize minimumSizeHint() const override { return layout()->minimumSize(); }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return layout()->totalHeightForWidth(width); }

private:
    QLabel *m_label;
};

} // namespace

QuizPanel::QuizPanel(QWidget *parent) : QWidget(parent), m_entries(builtInQuestions())
{
    setObjectName(QStringLiteral("quiz"));
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_progress = new QLabel(this);
    m_score = new QLabel(this);
    m_score->setObjectName(QStringLiteral("quizScore"));
    top->addWidget(m_progress, 1);
    top->addWidget(m_score);
    layout->addLayout(top);
    m_question = new QLabel(this);
    m_question->setWordWrap(true);
    m_question->setTextFormat(Qt::RichText);
    layout->addWidget(m_question);
    m_choiceBox = new QWidget(this);
    m_choices = new QVBoxLayout(m_choiceBox);
    m_choices->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_choiceBox);
    m_check = new QPushButton(tr("&Check the answer"), this);
    layout->addWidget(m_check, 0, Qt::AlignLeft);
    m_feedback = new QLabel(this);
    m_feedback->setWordWrap(true);
    m_feedback->setTextFormat(Qt::RichText);
    layout->addWidget(m_feedback);
    layout->addStretch(1);
    auto *nav = new QHBoxLayout;
    m_prev = new QPushButton(tr("◀ &Previous"), this);
    m_open = new QPushButton(tr("&Show it live"), this);
    m_open->setToolTip(tr("Open the lesson (and the setting) that shows this question live"));
    m_next = new QPushButton(tr("&Next ▶"), this);
    m_prev->setObjectName(QStringLiteral("quizPrevious"));
    m_next->setObjectName(QStringLiteral("quizNext"));
    nav->addWidget(m_prev);
    nav->addStretch(1);
    nav->addWidget(m_open);
    nav->addStretch(1);
    nav->addWidget(m_next);
    layout->addLayout(nav);
    connect(m_prev, &QPushButton::clicked, this, [this] { showQuestion(m_current - 1); });
    connect(m_next, &QPushButton::clicked, this, [this] { showQuestion(m_current + 1); });
    connect(m_check, &QPushButton::clicked, this, [this] {
        std::vector<int> chosen;
        for (std::size_t c = 0; c < m_choiceButtons.size(); ++c)
            if (m_choiceButtons[c]->isChecked())
                chosen.push_back(int(c));
        answer(chosen);
    });
    connect(m_open, &QPushButton::clicked, this, [this] {
        if (m_entries.empty())
            return;
        const QuizQuestion &q = m_entries[std::size_t(m_current)].question;
        emit openRequested(QString::fromStdString(q.lesson), QString::fromStdString(q.view), q.settings);
    });
    showQuestion(0);
}

std::vector<QuizPanel::Entry> QuizPanel::builtInQuestions()
{
    std::vector<Entry> out;
    for (QuizItem &item : builtInQuiz())
        out.push_back({QString::fromStdString(item.lesson), std::move(item.question)});
    return out;
}

void QuizPanel::showQuestion(int index)
{
    if (m_entries.empty()) {
        m_question->setText(tr("No lesson has quiz questions."));
        m_check->hide();
        m_open->hide();
        return;
    }
    m_current = std::clamp(index, 0, questionCount() - 1);
    rebuild();
}

void QuizPanel::rebuild()
{
    const QString lang = QLocale().name();
    const QuizQuestion &q = m_entries[std::size_t(m_current)].question;
    const bool multi = q.answer.size() > 1;
    m_progress->setText(tr("Question %1 of %2").arg(m_current + 1).arg(questionCount()));
    const int base = font().pointSize() > 0 ? font().pointSize() : 10;
    m_question->setText(QStringLiteral("<div style='font-size:%1pt'>%2</div>%3")
                            .arg(int(base * 1.3))
                            .arg(NotesPanel::localText(q.question, lang).toHtmlEscaped(),
                                 multi ? QStringLiteral("<i>%1</i>").arg(tr("More than one choice is right: pick every "
                                                                            "right one, then check."))
                                       : QString()));
    // This runs inside a choice's own clicked(): the old buttons go later,
    // out of the layout and out of the panel's children at once.
    for (QPushButton *b : m_choiceButtons) {
        b->hide();
        m_choices->removeWidget(b);
        b->setParent(nullptr);
        b->deleteLater();
    }
    m_choiceButtons.clear();
    const auto given = m_given.find(m_current);
    for (std::size_t c = 0; c < q.choices.size(); ++c) {
        auto *b = new ChoiceButton(QStringLiteral("%1.  %2").arg(QChar('A' + int(c))).arg(NotesPanel::localText(q.choices[c], lang)),
                                   m_choiceBox);
        b->setObjectName(QStringLiteral("choice-%1").arg(c));
        b->setCheckable(multi);
        if (given != m_given.end()) {
            const bool right = std::count(q.answer.begin(), q.answer.end(), int(c)) > 0;
            const bool chosen = std::count(given->second.begin(), given->second.end(), int(c)) > 0;
            b->setChecked(chosen && multi);
            if (right || chosen)
                b->setStyleSheet(right ? QStringLiteral("background: #c8e6c9;") : QStringLiteral("background: #ffcdd2;"));
        }
        if (!multi)
            connect(b, &QPushButton::clicked, this, [this, c] { answer({int(c)}); });
        m_choices->addWidget(b);
        m_choiceButtons.push_back(b);
    }
    m_check->setVisible(multi);
    m_check->setEnabled(given == m_given.end());
    if (given != m_given.end()) {
        const bool right = m_results[m_current];
        QStringList letters;
        for (int a : q.answer)
            letters << QString(QChar('A' + a));
        m_feedback->setText(QStringLiteral("<p><b style='color:%1'>%2</b></p><p>%3</p>")
                                .arg(right ? QStringLiteral("#1b5e20") : QStringLiteral("#b00020"),
                                     (right ? tr("Right!") : tr("Not quite: the answer is %1.").arg(letters.join(QStringLiteral(", "))))
                                         .toHtmlEscaped(),
                                     NotesPanel::localText(q.explanation, lang).toHtmlEscaped()));
    } else {
        m_feedback->clear();
    }
    m_open->setVisible(!q.lesson.empty() || !q.view.empty());
    m_prev->setEnabled(m_current > 0);
    m_next->setEnabled(m_current + 1 < questionCount());
    updateScore();
}

bool QuizPanel::answer(const std::vector<int> &choices)
{
    if (m_entries.empty())
        return false;
    const QuizQuestion &q = m_entries[std::size_t(m_current)].question;
    std::vector<int> a = q.answer, c = choices;
    std::sort(a.begin(), a.end());
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    const bool right = a == c;
    if (!m_results.count(m_current)) {
        m_results[m_current] = right;
        m_given[m_current] = c;
    }
    rebuild();
    return right;
}

int QuizPanel::score() const
{
    return int(std::count_if(m_results.begin(), m_results.end(), [](const auto &r) { return r.second; }));
}

void QuizPanel::updateScore()
{
    //: The quiz's score for this session: right answers of questions answered.
    m_score->setText(tr("Score: %1 of %2 answered").arg(score()).arg(answeredCount()));
}

QString QuizPanel::questionText() const
{
    return m_question->text();
}

QString QuizPanel::feedbackText() const
{
    return m_feedback->text();
}

} // namespace attn
