#pragma once
// Before a Q(Core)Application: without XDG_RUNTIME_DIR (a CI job, an SSH
// session, a container) Qt warns on stderr, which would put a second line
// before the one error line the programs promise. Point it at a private
// folder of our own instead, as Qt itself would.

namespace attn {

void prepareRuntimeDir();

} // namespace attn
