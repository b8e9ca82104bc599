#pragma once
// Reading a model's tensors out of a safetensors file, each checked against
// the shape its config implies: written once for every layout (GPT-2, BERT).
// A missing tensor, a wrong shape or a value that is not finite is one
// Problem naming the file and the tensor; after the first, every read
// returns nothing, so a loader reads on and checks `problem` once.

#include "gpt2.h"
#include "safetensors.h"

#include <QJsonObject>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace attn {

std::string quotedName(const std::string &s);   // "\"name\""
std::string shapeText(const std::vector<std::int64_t> &shape); // "[768, 2304]"

struct TensorReader {
    const SafeTensors &file;
    std::string fileName;
    // Tried in turn before each name: "" and "transformer." for GPT-2,
    // "bert." and "" for BERT (BertForMaskedLM against BertModel).
    std::vector<std::string> prefixes{"", "transformer."};
    std::set<std::string> dtypes{};      // of the tensors read
    std::int64_t parameters = 0;         // values read
    std::optional<Problem> problem{};
    const LoadControl *control = nullptr;
    double total = 1;                    // the parameters to read, for the progress

    // The tensor `name` under the first prefix that has it; nullptr when none.
    const TensorInfo *find(const std::string &name) const;
    // The tensor `name` with the shape `expected` (rank 1: n by 1); `why`
    // says where the expected shape comes from.
    std::optional<Matrix> get(const std::string &name, const std::vector<std::int64_t> &expected, const std::string &why);
    // The same, kept in float32 (a big model's weights; the file's rows and columns).
    std::optional<FloatMatrix> getFloat(const std::string &name, const std::vector<std::int64_t> &expected,
                                        const std::string &why);
    std::optional<Eigen::RowVectorXd> vec(const std::string &name, std::int64_t n, const std::string &why);
    // The tensor, checked as get() checks it before reading; nullptr (and
    // `problem` set) when it is missing or of another shape.
    const TensorInfo *checked(const std::string &name, const std::vector<std::int64_t> &expected, const std::string &why);
    void counted(const TensorInfo &t); // its dtype, its values, the progress

    // A layer index beyond `layers` under "<layerPrefix>N.": the first such
    // tensor as a Problem ("belongs to layer 5, but config.json's n_layer is 3").
    std::optional<Problem> checkLayerIndices(const std::string &layerPrefix, int layers, const std::string &configKey) const;
};

// A model's config.json, its keys read with their bounds: the first key
// missing or out of bounds is the one Problem, named at the file.
struct ConfigReader {
    QJsonObject object;
    std::string file;
    std::optional<Problem> problem{};

    // "not JSON: ... at byte N", "not a JSON object".
    static Result<ConfigReader> parse(const QByteArray &json, const QString &fileName);
    // A whole number in [lo, hi]; absent or null: `fallback`, or "KEY is
    // missing"; `alias` is read when `key` is absent (GPT-2's n_ctx).
    int integer(const char *key, int lo, int hi, std::optional<int> fallback = std::nullopt, const char *alias = nullptr);
    // A number strictly between 0 and 1 (layer norm's epsilon); absent: fallback.
    double epsilon(const char *key, double fallback);
    bool boolean(const char *key, bool fallback);
    // The MLP's activation: true for GPT-2's tanh form (gelu_new,
    // gelu_pytorch_tanh, gelu_fast), false for the exact gelu; absent: fallback.
    bool geluTanh(const char *key, bool fallback);
    // A string among `allowed`; absent: fallback.
    QString oneOf(const char *key, const QStringList &allowed, const QString &fallback);
};

} // namespace attn
