#pragma once
// The path between two tokens, drawn for a sentence (seed 000's
// 关卡四): above the tokens a recurrent network's chain, where the first
// token reaches the last in n - 1 steps; below them attention, where every
// token reaches every other in one. Draws only the labels it is given.

#include <QStringList>
#include <QWidget>

namespace attn {

class PathDiagram : public QWidget {
    Q_OBJECT

public:
    explicit PathDiagram(QWidget *parent = nullptr);

    // The tokens in order; at most kShown are drawn (the first ones, an
    // ellipsis, and the last two), the step counts stay those of all of them.
    void setTokens(const QStringList &tokens);
    const QStringList &tokens() const { return m_tokens; }
    // The captions drawn above and below (translated by the caller).
    void setCaptions(const QString &recurrent, const QString &attention);

    QSize sizeHint() const override { return {420, 220}; }
    QSize minimumSizeHint() const override { return {200, 110}; }

    static constexpr int kShown = 9;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QStringList m_tokens;
    QString m_recurrent, m_attention;
};

} // namespace attn
