// The safetensors reader (core/model/safetensors). Oracle: every tensor of a
// file that opens can be read, and the same tensors written again open with
// the same names, dtypes, shapes and values.

#include "fuzz_common.h"

#include "safetensors.h"

#include <cmath>

namespace {

bool same(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    auto opened = attn::SafeTensors::fromBytes(bytes, QStringLiteral("fuzz.safetensors"));
    auto *st = std::get_if<attn::SafeTensors>(&opened);
    if (!st)
        return 0;
    std::vector<attn::TensorToWrite> tensors;
    for (const attn::TensorInfo &t : st->tensors()) {
        std::vector<double> v = st->values(t);
        FUZZ_CHECK(std::int64_t(v.size()) == t.count(), "a tensor's values disagree with its shape");
        if (t.shape.size() <= 2 && t.count() > 0) {
            const attn::Matrix m = st->matrix(t);
            FUZZ_CHECK(m.size() == t.count(), "a tensor's matrix disagrees with its shape");
        }
        tensors.push_back({t.name, t.dtype, t.shape, std::move(v)});
    }
    auto again = attn::SafeTensors::fromBytes(attn::safetensorsBytes(tensors, st->metadata()), QStringLiteral("again"));
    auto *st2 = std::get_if<attn::SafeTensors>(&again);
    FUZZ_CHECK(st2, "tensors written again do not open");
    FUZZ_CHECK(st2->tensors().size() == tensors.size(), "tensors written again are a different number");
    FUZZ_CHECK(st2->metadata() == st->metadata(), "metadata written again differs");
    for (const attn::TensorToWrite &w : tensors) {
        const attn::TensorInfo *t = st2->find(w.name);
        FUZZ_CHECK(t && t->dtype == w.dtype && t->shape == w.shape, "a tensor written again has another name, dtype or shape");
        const std::vector<double> v = st2->values(*t);
        for (std::size_t i = 0; i < v.size(); ++i)
            FUZZ_CHECK(same(v[i], w.values[i]), "a value written again differs");
    }
    return 0;
}
