// The .npy matrix reader (core/io/matrixio). Oracle: what reads writes back
// as a .npy file that reads as the same doubles.

#include "fuzz_common.h"

#include "matrixio.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const attn::Result<attn::Matrix> m = attn::matrixFromNpy(bytes);
    if (!m.ok())
        return 0;
    FUZZ_CHECK(m.value().size() > 0 && m.value().allFinite(), "an empty or non-finite matrix was read");
    const attn::Result<attn::Matrix> again = attn::matrixFromNpy(attn::matrixToNpy(m.value()));
    FUZZ_CHECK(again.ok(), "a written .npy does not read");
    FUZZ_CHECK(again.value() == m.value(), ".npy read, write, read changes a value");
    return 0;
}
