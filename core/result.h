#pragma once
// The one way the code reports a failure: a Problem (validate.h: the place,
// in the file's own names, and the reason in words). A function that can
// fail returns std::optional<Problem> when it has nothing else to return,
// and Result<T>, a value or the Problem that kept it from being made, when
// it has. No out-parameters, no empty strings meaning success, and no
// exception crosses a library boundary (compute() throws only for a
// scenario that skipped validate(), a programming error). The window shows
// a Problem once, as problemText() words it.

#include "validate.h"

#include <variant>

namespace attn {

template <typename T>
class Result : public std::variant<T, Problem> {
public:
    using std::variant<T, Problem>::variant;

    bool ok() const { return this->index() == 0; }
    const T &value() const { return std::get<0>(*this); }
    T &value() { return std::get<0>(*this); }
    // Null when ok().
    const Problem *problem() const { return std::get_if<1>(this); }
};

} // namespace attn
