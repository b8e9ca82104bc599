#include "sessionquestions.h"

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

std::string token(const std::vector<std::string> &tokens, int i, const char *prefix)
{
    return i < int(tokens.size()) && !tokens[std::size_t(i)].empty() ? tokens[std::size_t(i)] : prefix + std::to_string(i + 1);
}

std::string queryName(const Scenario &s, int i) { return token(s.tokens, i, "q"); }

std::string keyName(const Scenario &s, int j)
{
    return token(s.sourceTokens.empty() ? s.tokens : s.sourceTokens, j, "k");
}

// " (head 2)" and "（头 2）" when the lesson has several heads.
std::pair<std::string, std::string> headNote(const Trace &t, int head)
{
    if (t.heads.size() < 2)
        return {};
    return {" (head " + std::to_string(head + 1) + ")", "（头 " + std::to_string(head + 1) + "）"};
}

std::optional<Problem> checkHead(const Trace &t, int head)
{
    if (head < 0 || head >= int(t.heads.size()))
        return Problem{"head", "there is no head " + std::to_string(head + 1)};
    return std::nullopt;
}

} // namespace

Result<SessionQuestion> winnerQuestion(const Scenario &s, const Trace &t, int head, int query)
{
    if (auto p = checkHead(t, head))
        return *p;
    const HeadTrace &h = t.heads[std::size_t(head)];
    if (query < 0 || query >= h.weights.rows())
        return Problem{"query", "there is no query " + std::to_string(query + 1)};
    SessionQuestion q;
    q.id = "winner-h" + std::to_string(head + 1) + "-q" + std::to_string(query + 1);
    const auto [en, zh] = headNote(t, head);
    const std::string name = queryName(s, query);
    q.text = {{"en", "Which key gets the largest weight for “" + name + "”?" + en},
              {"zh_CN", "查询“" + name + "”把最大的权重给了哪个键？" + zh}};
    double best = -1;
    std::vector<int> open;
    for (Eigen::Index j = 0; j < h.weights.cols(); ++j)
        if (!t.blocked.size() || !t.blocked(query, j)) {
            open.push_back(int(j));
            best = std::max(best, h.weights(query, j));
        }
    if (open.empty())
        return Problem{"query " + name, "every key is blocked, so no key gets any weight"};
    for (std::size_t c = 0; c < open.size(); ++c) {
        const std::string k = keyName(s, open[c]);
        q.choices.push_back({{"en", k}, {"zh_CN", k}});
        // Ties count: softmax gives equal scores the same weight to the last bit.
        if (h.weights(query, open[c]) >= best - 1e-12)
            q.answer.push_back(int(c));
    }
    if (q.choices.size() < 2)
        return Problem{"query " + name, "only one key is open, so it gets all the weight"};
    q.image = true;
    return q;
}

Result<SessionQuestion> rowSumQuestion(const Scenario &s, const Trace &t, int head)
{
    if (auto p = checkHead(t, head))
        return *p;
    const HeadTrace &h = t.heads[std::size_t(head)];
    SessionQuestion q;
    q.id = "rowsum-h" + std::to_string(head + 1);
    const auto [en, zh] = headNote(t, head);
    q.text = {{"en", "Which row's weights sum to less than 1?" + en}, {"zh_CN", "哪一行的权重之和小于 1？" + zh}};
    for (Eigen::Index i = 0; i < h.weights.rows(); ++i) {
        const std::string name = queryName(s, int(i));
        q.choices.push_back({{"en", name}, {"zh_CN", name}});
        if (h.weights.row(i).sum() < 1 - 1e-9)
            q.answer.push_back(int(i));
    }
    q.choices.push_back({{"en", "None: every row sums to 1"}, {"zh_CN", "没有：每一行的和都是 1"}});
    if (q.answer.empty())
        q.answer.push_back(int(q.choices.size()) - 1);
    q.image = true;
    return q;
}

Result<SessionQuestion> weightQuestion(const Scenario &s, const Trace &t, int head, int query, int key)
{
    if (auto p = checkHead(t, head))
        return *p;
    const HeadTrace &h = t.heads[std::size_t(head)];
    if (query < 0 || query >= h.weights.rows())
        return Problem{"query", "there is no query " + std::to_string(query + 1)};
    if (key < 0 || key >= h.weights.cols())
        return Problem{"key", "there is no key " + std::to_string(key + 1)};
    const std::string qn = queryName(s, query), kn = keyName(s, key);
    if (t.blocked.size() && t.blocked(query, key))
        return Problem{"key " + kn, "it is blocked for “" + qn + "”: its weight is 0 by the mask"};
    SessionQuestion q;
    q.id = "weight-h" + std::to_string(head + 1) + "-q" + std::to_string(query + 1) + "-k" + std::to_string(key + 1);
    q.kind = SessionQuestion::Kind::Number;
    const auto [en, zh] = headNote(t, head);
    q.text = {{"en", "The weight “" + qn + "” gives “" + kn + "”, to two decimals" + en},
              {"zh_CN", "“" + qn + "”给“" + kn + "”的权重是多少？（保留两位小数）" + zh}};
    q.number = h.weights(query, key);
    q.decimals = 2;
    // Half of the last decimal, and a hair more, so that a correctly rounded
    // answer is right even where the weight sits on a rounding edge.
    q.tolerance = 0.005 + 1e-9;
    q.image = true;
    return q;
}

SessionQuestion quizQuestion(const QuizQuestion &quiz)
{
    SessionQuestion q;
    q.id = quiz.id;
    q.text = quiz.question;
    q.choices = quiz.choices;
    q.answer = quiz.answer;
    return q;
}

} // namespace attn
