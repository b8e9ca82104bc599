#pragma once
// Typing a sentence, under the input matrices: "我 打 你" or
// "the cat sat" becomes one token per word with seeded vectors (the same
// word, the same vector), and "Randomise" fills the matrix shown from a seed.

#include "document.h"
#include "edit.h"

#include <QWidget>

#include <functional>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace attn {

class SentencePanel : public QWidget {
    Q_OBJECT

public:
    // `currentMatrix` answers the matrix the inputs panel shows (for Randomise).
    SentencePanel(Document *doc, std::function<MatrixId()> currentMatrix, QWidget *parent = nullptr);

    QLineEdit *sentenceField() const { return m_sentence; }
    void setSplitMode(int mode); // SplitMode as int
    void setSeed(int seed);
    // One edit: the tokens of the field, with their vectors.
    bool fillFromSentence();
    // One edit: the matrix shown, drawn from the seed.
    bool randomiseMatrix();

private:
    Document *m_doc;
    std::function<MatrixId()> m_current;
    QLineEdit *m_sentence;
    QComboBox *m_split;
    QSpinBox *m_seed;
};

} // namespace attn
