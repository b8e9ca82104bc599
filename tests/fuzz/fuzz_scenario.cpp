// The scenario file (core/io/scenario_json). Oracle: a scenario that loads
// computes a forward whose weights are probabilities and whose outputs are
// finite, and saving it, loading that and saving again gives an equal
// scenario and the same bytes.

#include "fuzz_common.h"

#include "attention.h"
#include "scenario_json.h"

#include <QByteArray>

#include <cmath>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray text(reinterpret_cast<const char *>(data), qsizetype(size));
    const attn::ScenarioOrProblem loaded = attn::scenarioFromJson(text);
    if (!loaded.ok()) {
        FUZZ_CHECK(!loaded.problem()->message.empty(), "a refusal without a reason");
        return 0;
    }
    const attn::Scenario &s = loaded.value();

    const attn::Trace t = attn::compute(s);
    for (const attn::HeadTrace &h : t.heads) {
        for (Eigen::Index i = 0; i < h.weights.rows(); ++i) {
            double sum = 0;
            for (Eigen::Index j = 0; j < h.weights.cols(); ++j) {
                const double w = h.weights(i, j);
                FUZZ_CHECK(std::isfinite(w) && w >= 0 && w <= 1 + 1e-12, "a weight that is not a probability");
                sum += w;
            }
            FUZZ_CHECK(sum <= 1 + 1e-9, "a row of weights that sums past 1");
        }
        FUZZ_CHECK(h.output.allFinite(), "an output that is not finite");
    }

    const QByteArray saved = attn::scenarioToJson(s);
    const attn::ScenarioOrProblem again = attn::scenarioFromJson(saved);
    FUZZ_CHECK(again.ok(), "a saved scenario does not load");
    FUZZ_CHECK(again.value() == s, "a saved scenario loads different");
    FUZZ_CHECK(attn::scenarioToJson(again.value()) == saved, "save, load, save changes the bytes");
    return 0;
}
