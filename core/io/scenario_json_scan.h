#pragma once
// The scenario file's pre-scan, apart from its reader (scenario_json.cpp).
//
// QJsonDocument lets the last of two equal keys win and turns a lone
// surrogate ("\ud800") into a replacement character. A scan of the text
// (which Qt's parser accepted, apart from the non-finite numbers the reader
// marks) refuses both with their place, and notes where each member of the
// top-level object and of "inputs" and "mask" begins and ends, so that keys
// this version does not read can be written back as they were. It keeps a
// stack of open objects and arrays, not the call stack, so any depth is safe.

#include "validate.h"

#include <QByteArray>

#include <optional>
#include <string>
#include <vector>

namespace attn::scenario_scan {

struct RawMember {
    std::string key;   // decoded, UTF-8
    QByteArray rawKey; // as in the file, quotes and escapes included
    qsizetype valueBegin = 0, valueEnd = 0;
};

struct RawObjects {
    std::vector<RawMember> top, inputs, mask;
    bool topIsObject = false, inputsIsObject = false, maskIsObject = false;
};


// A duplicate key or a lone surrogate, with its place; `found` (if given)
// receives the members of the top-level object, "inputs" and "mask".
std::optional<Problem> scanProblem(const QByteArray &text, RawObjects *found);

} // namespace attn::scenario_scan
