#include "tensorreader.h"

#include <QJsonDocument>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace attn {

std::string quotedName(const std::string &s)
{
    return "\"" + s + "\"";
}

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    TensorInfo t;
    t.shape = shape;
    return t.shapeText();
}

const TensorInfo *TensorReader::find(const std::string &name) const
{
    for (const std::string &p : prefixes)
        if (const TensorInfo *t = file.find(p + name))
            return t;
    return nullptr;
}

const TensorInfo *TensorReader::checked(const std::string &name, const std::vector<std::int64_t> &expected,
                                        const std::string &why)
{
    if (problem)
        return nullptr;
    if (control && control->cancelled()) {
        problem = Problem{fileName, kLoadCancelled};
        return nullptr;
    }
    const TensorInfo *t = find(name);
    if (!t) {
        std::string looked;
        for (const std::string &p : prefixes)
            if (!p.empty())
                looked += (looked.empty() ? "" : ", ") + quotedName(p);
        problem = Problem{fileName, "tensor " + quotedName(name) + " is missing"
                                        + (looked.empty() ? std::string()
                                                          : " (looked for it with and without the " + looked + " prefix)")};
        return nullptr;
    }
    if (t->shape != expected) {
        problem = Problem{fileName, "tensor " + quotedName(t->name) + " has shape " + t->shapeText() + ", but " + why
                                        + " need " + shapeText(expected)};
        return nullptr;
    }
    return t;
}

void TensorReader::counted(const TensorInfo &t)
{
    dtypes.insert(toString(t.dtype));
    parameters += t.count();
    if (control)
        control->report(std::min(1.0, double(parameters) / total));
}

std::optional<FloatMatrix> TensorReader::getFloat(const std::string &name, const std::vector<std::int64_t> &expected,
                                                  const std::string &why)
{
    const TensorInfo *t = checked(name, expected, why);
    if (!t)
        return std::nullopt;
    FloatMatrix m = file.floatMatrix(*t);
    file.release(*t); // a big model's file is not held twice while it is read
    if (!m.allFinite()) {
        Eigen::Index at = 0;
        for (; at < m.size(); ++at)
            if (!std::isfinite(m.data()[at]))
                break;
        const Eigen::Index r = at / m.cols(), c = at % m.cols(); // row-major
        problem = Problem{fileName, "tensor " + quotedName(t->name) + " holds a value that is not a finite number in float32 at ["
                                        + std::to_string(r) + (expected.size() > 1 ? ", " + std::to_string(c) : "") + "]"};
        return std::nullopt;
    }
    counted(*t);
    return m;
}

std::optional<Matrix> TensorReader::get(const std::string &name, const std::vector<std::int64_t> &expected,
                                        const std::string &why)
{
    const TensorInfo *t = checked(name, expected, why);
    if (!t)
        return std::nullopt;
    Matrix m = file.matrix(*t);
    file.release(*t);
    if (!m.allFinite()) {
        Eigen::Index at = 0;
        for (; at < m.size(); ++at)
            if (!std::isfinite(m.data()[at]))
                break;
        const Eigen::Index r = at % m.rows(), c = at / m.rows();
        problem = Problem{fileName, "tensor " + quotedName(t->name) + " holds a value that is not a finite number at ["
                                        + std::to_string(r) + (expected.size() > 1 ? ", " + std::to_string(c) : "") + "]"};
        return std::nullopt;
    }
    counted(*t);
    return m;
}

std::optional<Eigen::RowVectorXd> TensorReader::vec(const std::string &name, std::int64_t n, const std::string &why)
{
    const auto m = get(name, {n}, why);
    if (!m)
        return std::nullopt;
    return Eigen::RowVectorXd(m->col(0).transpose());
}

std::optional<Problem> TensorReader::checkLayerIndices(const std::string &layerPrefix, int layers,
                                                       const std::string &configKey) const
{
    for (const TensorInfo &t : file.tensors()) {
        std::string n = t.name;
        for (const std::string &p : prefixes)
            if (!p.empty() && n.rfind(p, 0) == 0) {
                n = n.substr(p.size());
                break;
            }
        if (n.rfind(layerPrefix, 0) != 0)
            continue;
        const std::size_t from = layerPrefix.size(), dot = n.find('.', from);
        const std::string index = n.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
        if (!index.empty() && index.size() < 7 && std::all_of(index.begin(), index.end(), ::isdigit)
            && std::stoi(index) >= layers)
            return Problem{fileName, "tensor " + quotedName(t.name) + " belongs to layer " + index + ", but config.json's "
                                         + configKey + " is " + std::to_string(layers) + " (layers 0 to "
                                         + std::to_string(layers - 1) + ")"};
    }
    return std::nullopt;
}

Result<ConfigReader> ConfigReader::parse(const QByteArray &json, const QString &fileName)
{
    const std::string file = fileName.toStdString();
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return Problem{file, "not JSON: " + error.errorString().toStdString() + " at byte " + std::to_string(error.offset)};
    if (!doc.isObject())
        return Problem{file, "not a JSON object"};
    return ConfigReader{doc.object(), file, std::nullopt};
}

int ConfigReader::integer(const char *key, int lo, int hi, std::optional<int> fallback, const char *alias)
{
    if (problem)
        return 0;
    QJsonValue v = object.value(QLatin1String(key));
    if (v.isUndefined() && alias)
        v = object.value(QLatin1String(alias));
    if (v.isUndefined() || v.isNull()) {
        if (fallback)
            return *fallback;
        problem = Problem{file, std::string(key) + " is missing"};
        return 0;
    }
    const double d = v.toDouble(std::nan(""));
    if (!v.isDouble() || std::floor(d) != d || d < lo || d > hi) {
        problem = Problem{file, std::string(key) + " must be a whole number from " + std::to_string(lo) + " to "
                                    + std::to_string(hi)};
        return 0;
    }
    return int(d);
}

double ConfigReader::epsilon(const char *key, double fallback)
{
    const QJsonValue v = object.value(QLatin1String(key));
    if (problem || v.isUndefined())
        return fallback;
    const double e = v.toDouble(-1);
    if (!v.isDouble() || !(e > 0 && e < 1)) {
        problem = Problem{file, std::string(key) + " must be a number between 0 and 1"};
        return fallback;
    }
    return e;
}

bool ConfigReader::boolean(const char *key, bool fallback)
{
    const QJsonValue v = object.value(QLatin1String(key));
    if (problem || v.isUndefined())
        return fallback;
    if (!v.isBool()) {
        problem = Problem{file, std::string(key) + " must be true or false"};
        return fallback;
    }
    return v.toBool();
}

bool ConfigReader::geluTanh(const char *key, bool fallback)
{
    const QJsonValue v = object.value(QLatin1String(key));
    if (problem || v.isUndefined())
        return fallback;
    const QString a = v.toString();
    if (a == QLatin1String("gelu_new") || a == QLatin1String("gelu_pytorch_tanh") || a == QLatin1String("gelu_fast"))
        return true;
    if (a == QLatin1String("gelu"))
        return false;
    problem = Problem{file, std::string(key) + " " + quotedName(a.toStdString())
                                + " is not one this reader knows; expected gelu_new (GPT-2's) or gelu"};
    return fallback;
}

QString ConfigReader::oneOf(const char *key, const QStringList &allowed, const QString &fallback)
{
    const QJsonValue v = object.value(QLatin1String(key));
    if (problem || v.isUndefined())
        return fallback;
    if (!v.isString() || !allowed.contains(v.toString())) {
        problem = Problem{file, std::string(key) + " must be " + quotedName(allowed.join(QStringLiteral("\" or \"")).toStdString())};
        return fallback;
    }
    return v.toString();
}

} // namespace attn
