#pragma once
// Huge pages for the large stages. An n x n stage is 8 MB a head at
// n = 1024, and the passes write a band of rows of it, 512 bytes a column:
// on 4 KB pages every column is a page of its own, so a band touches a
// thousand pages of each stage, more than the TLB holds. Debian's kernel
// hands out 2 MB pages only on request (transparent huge pages in "madvise"
// mode), as NumPy requests them for its large arrays.

#include <cstddef>

namespace attn {

// Asks the kernel to back the 2 MB-aligned part of [data, data + bytes)
// with huge pages when it is first touched. Nothing below 4 MB, on a system
// without transparent huge pages, or where the kernel refuses: a hint, with
// the same results either way.
void adviseHugePages(void *data, std::size_t bytes);

} // namespace attn
