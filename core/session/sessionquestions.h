#pragma once
// The questions a teacher asks the class, made from the open lesson: the
// phones get them in English and Chinese whatever the window's language,
// so their text is written here in both, beside the answer worked from the
// trace. Keys and queries are named by the lesson's tokens.

#include "attention.h"
#include "classsession.h"
#include "result.h"
#include "scenario.h"

namespace attn {

// "Which key gets the largest weight for <query>?": the open keys of the
// row as choices (blocked keys get no weight, whatever one guesses), the
// largest weight's keys as the answer (ties all count). Refused for a row
// with no open key. Shows a map (the masked scaled scores of the row).
Result<SessionQuestion> winnerQuestion(const Scenario &s, const Trace &t, int head, int query);
// "Which rows' weights sum to less than 1?": every query and "none" as
// choices; the rows whose sum is below 1 (a fully masked row, a mask
// after the softmax, softmax_1), or "none", as the answer.
Result<SessionQuestion> rowSumQuestion(const Scenario &s, const Trace &t, int head);
// "The weight of <key> for <query>, to two decimals": right within half
// of the last decimal. Refused for a blocked key (its weight is 0 by rule,
// not by computing). Shows a map (the row's masked scaled scores).
Result<SessionQuestion> weightQuestion(const Scenario &s, const Trace &t, int head, int query, int key);
// A question of the lesson's quiz, as it is.
SessionQuestion quizQuestion(const QuizQuestion &q);

} // namespace attn
