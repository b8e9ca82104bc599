#pragma once
// A built-in lesson's scenario for a test; a lesson that does not load stops
// the suite with its problem (the lessons suite tests the loading itself).

#include "lessons.h"

#include <QtGlobal>

namespace attn::test {

inline Scenario lesson(const QString &name)
{
    auto loaded = loadLesson(name);
    if (auto *p = std::get_if<Problem>(&loaded))
        qFatal("lesson %s: %s", qPrintable(name), p->toString().c_str());
    return std::get<Scenario>(loaded);
}

} // namespace attn::test
