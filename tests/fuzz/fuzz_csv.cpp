// The CSV matrix reader (core/io/matrixio). Oracle: what reads writes back
// as text that reads as the same doubles.

#include "fuzz_common.h"

#include "matrixio.h"

#include <cmath>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const attn::Result<attn::Matrix> m = attn::matrixFromCsv(bytes);
    if (!m.ok())
        return 0;
    FUZZ_CHECK(m.value().size() > 0 && m.value().allFinite(), "an empty or non-finite matrix was read");
    const attn::Result<attn::Matrix> again = attn::matrixFromCsv(attn::matrixToCsv(m.value()));
    FUZZ_CHECK(again.ok(), "written CSV does not read");
    FUZZ_CHECK(again.value() == m.value(), "CSV read, write, read changes a value");
    return 0;
}
