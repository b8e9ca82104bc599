#include "sentencepanel.h"

#include "sentence.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace attn {

SentencePanel::SentencePanel(Document *doc, std::function<MatrixId()> currentMatrix, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_current(std::move(currentMatrix))
{
    setObjectName(QStringLiteral("sentence"));
    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(0, 4, 0, 0);
    m_sentence = new QLineEdit(this);
    m_sentence->setObjectName(QStringLiteral("sentenceField"));
    m_sentence->setPlaceholderText(tr("Type a sentence: 我 打 你, the cat sat"));
    m_sentence->setClearButtonEnabled(true);
    auto *make = new QPushButton(tr("&Fill from sentence"), this);
    make->setToolTip(tr("One token per word, each with its own seeded vector: the same word always gets the same "
                        "vector, so 我打你 and 你打我 share their embeddings"));
    m_split = new QComboBox(this);
    m_split->addItem(tr("words or characters"), int(SplitMode::Auto));
    m_split->addItem(tr("split on spaces"), int(SplitMode::Words));
    m_split->addItem(tr("one per character"), int(SplitMode::Characters));
    m_split->setToolTip(tr("Automatic: on spaces when there are any, else one token per character (Chinese)"));
    m_seed = new QSpinBox(this);
    m_seed->setRange(0, 999999);
    m_seed->setValue(7);
    m_seed->setPrefix(tr("seed "));
    auto *random = new QPushButton(tr("Randomi&se matrix"), this);
    random->setToolTip(tr("Fill the matrix shown above with numbers drawn from the seed"));
    grid->addWidget(new QLabel(tr("Sentence:"), this), 0, 0);
    grid->addWidget(m_sentence, 0, 1, 1, 2);
    grid->addWidget(make, 0, 3);
    grid->addWidget(m_split, 1, 1);
    grid->addWidget(m_seed, 1, 2);
    grid->addWidget(random, 1, 3);
    grid->setColumnStretch(1, 1);
    connect(make, &QPushButton::clicked, this, &SentencePanel::fillFromSentence);
    connect(m_sentence, &QLineEdit::returnPressed, this, &SentencePanel::fillFromSentence);
    connect(random, &QPushButton::clicked, this, &SentencePanel::randomiseMatrix);
}

void SentencePanel::setSplitMode(int mode)
{
    m_split->setCurrentIndex(std::max(0, m_split->findData(mode)));
}

void SentencePanel::setSeed(int seed)
{
    m_seed->setValue(seed);
}

bool SentencePanel::fillFromSentence()
{
    const auto words = splitSentence(m_sentence->text().toStdString(), SplitMode(m_split->currentData().toInt()));
    if (words.empty()) {
        m_doc->report(tr("Type a sentence first"));
        return false;
    }
    const Scenario next = scenarioFromSentence(m_doc->scenario(), words, std::uint64_t(m_seed->value()));
    //: An undo step: the tokens made from a typed sentence.
    return !m_doc->edit(next, tr("Sentence “%1”").arg(m_sentence->text().trimmed())).has_value();
}

bool SentencePanel::randomiseMatrix()
{
    const MatrixId id = m_current ? m_current() : MatrixId::Q;
    Scenario next = m_doc->scenario();
    if (!matrixPresent(next, id))
        return false;
    Matrix &m = matrix(next, id);
    m = randomMatrix(int(m.rows()), int(m.cols()), std::uint64_t(m_seed->value()), matrixName(id));
    //: An undo step: a matrix filled with random numbers; %1 names it.
    return !m_doc->edit(next, tr("Randomise %1").arg(QString::fromLatin1(matrixName(id)))).has_value();
}

} // namespace attn
