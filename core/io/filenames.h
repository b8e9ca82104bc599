#pragma once
// Names of files the program makes itself (an export's figures and numbers,
// a model export's files): cleaned from whatever they were derived from, so
// that a lesson or model folder named with a newline, an escape or a
// leading dot gives a plain, visible file in the folder it was asked for.

#include "validate.h"

#include <QString>

#include <optional>

namespace attn {

// `raw` (a file's base name, a model folder's name) as the first part of a
// file name the program makes: C0 and C1 control characters, DEL, the
// bidirectional overrides (which can disguise a suffix), '/' and '\' become
// '_', and so does a leading '.' (a hidden file). Empty stays empty.
QString cleanDerivedName(const QString &raw);

// The name of a folder as cleanDerivedName makes it, from its path taken
// whole: "models/gpt2/." and "models/gpt2/" are "gpt2"; a root or an empty
// path gives `fallback`.
QString cleanFolderName(const QString &folder, const QString &fallback);

// Why `name`, given by the user as the first part of the files' names
// (--name), cannot be one: it holds '/', '\', "..", a control character, is
// empty or starts with '.'. Nothing when it can.
std::optional<Problem> whyNotAFileStem(const QString &name);

} // namespace attn
