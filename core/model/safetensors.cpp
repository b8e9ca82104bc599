#include "safetensors.h"

#include "modelfile.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <bit>
#include <sys/mman.h>
#include <unistd.h>
#include <cstring>
#include <limits>

namespace attn {

namespace {

std::uint16_t load16(const unsigned char *p)
{
    return std::uint16_t(p[0] | (p[1] << 8));
}

std::uint32_t load32(const unsigned char *p)
{
    return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) | (std::uint32_t(p[3]) << 24);
}

std::uint64_t load64(const unsigned char *p)
{
    return std::uint64_t(load32(p)) | (std::uint64_t(load32(p + 4)) << 32);
}

Problem fileProblem(const QString &name, const std::string &message)
{
    return {name.toStdString(), message};
}

std::string quoted(const std::string &s)
{
    return "\"" + s + "\"";
}

std::optional<DType> dtypeFromString(const QString &s)
{
    if (s == QLatin1String("F32"))
        return DType::F32;
    if (s == QLatin1String("F16"))
        return DType::F16;
    if (s == QLatin1String("BF16"))
        return DType::BF16;
    if (s == QLatin1String("F64"))
        return DType::F64;
    return std::nullopt;
}

// A JSON number that is a whole number from 0 to 2^53.
std::optional<std::int64_t> wholeNumber(const QJsonValue &v)
{
    if (!v.isDouble())
        return std::nullopt;
    const double d = v.toDouble();
    if (!(d >= 0 && d <= 9007199254740992.0) || std::floor(d) != d)
        return std::nullopt;
    return std::int64_t(d);
}

} // namespace

const char *toString(DType t)
{
    switch (t) {
    case DType::F32:
        return "F32";
    case DType::F16:
        return "F16";
    case DType::BF16:
        return "BF16";
    case DType::F64:
        return "F64";
    }
    return "?";
}

int dtypeSize(DType t)
{
    switch (t) {
    case DType::F32:
        return 4;
    case DType::F16:
    case DType::BF16:
        return 2;
    case DType::F64:
        return 8;
    }
    return 1;
}

double halfToDouble(std::uint16_t bits)
{
    const bool negative = bits & 0x8000;
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    double v;
    if (exponent == 0)
        v = std::ldexp(double(mantissa), -24);                 // subnormal (or zero)
    else if (exponent == 31)
        v = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else
        v = std::ldexp(double(mantissa | 0x400), exponent - 25); // 1.m × 2^(e-15)
    return negative ? -v : v;
}

double bfloat16ToDouble(std::uint16_t bits)
{
    const std::uint32_t f = std::uint32_t(bits) << 16;
    float v;
    std::memcpy(&v, &f, 4);
    return double(v);
}

std::uint16_t doubleToHalf(double v)
{
    const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
    const double a = std::fabs(v);
    if (std::isnan(v))
        return 0x7e00;
    if (a >= 65520.0) // rounds to infinity
        return sign | 0x7c00;
    if (a < std::ldexp(1.0, -14)) {
        // subnormal: units of 2^-24, ties to even
        const double units = std::nearbyint(std::ldexp(a, 24));
        return sign | std::uint16_t(units);
    }
    int e;
    const double m = std::frexp(a, &e); // a = m 2^e, m in [0.5, 1)
    // 11 significant bits: units of 2^(e-11)
    double units = std::nearbyint(std::ldexp(m, 11));
    if (units == 2048) {
        units = 1024;
        ++e;
    }
    const int exponent = e - 1 + 15;
    if (exponent >= 31)
        return sign | 0x7c00;
    return sign | std::uint16_t(exponent << 10) | std::uint16_t(int(units) - 1024);
}

std::uint16_t doubleToBfloat16(double v)
{
    const float f = float(v);
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (std::isnan(f))
        return std::uint16_t((bits >> 16) | 0x40);
    bits += 0x7fff + ((bits >> 16) & 1);
    return std::uint16_t(bits >> 16);
}

std::int64_t TensorInfo::count() const
{
    std::int64_t n = 1;
    for (std::int64_t d : shape)
        n *= d;
    return n;
}

std::string TensorInfo::shapeText() const
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

struct SafeTensors::Storage {
    QFile file;
    uchar *mapped = nullptr;
    QByteArray copy;
    const unsigned char *data = nullptr;
    std::int64_t size = 0;

    ~Storage()
    {
        if (mapped)
            file.unmap(mapped);
    }
};

Result<SafeTensors> SafeTensors::open(const QString &path, const QString &displayName)
{
    const QString name = displayName.isEmpty() ? path : displayName;
    auto storage = std::make_shared<Storage>();
    if (auto p = openRegularFile(storage->file, path, name.toStdString(), kMaxSafetensorsFileBytes, "model.safetensors"))
        return *p;
    const std::int64_t size = storage->file.size();
    if (size > 0)
        storage->mapped = storage->file.map(0, size);
    if (storage->mapped) {
        storage->data = storage->mapped;
        storage->size = size;
    } else {
        // The size the file system gave, bounded above; at most one byte
        // more is asked for, so a file that grows is seen, not followed.
        storage->copy = storage->file.read(size + 1);
        if (storage->copy.size() != size)
            return fileProblem(name, storage->copy.size() > size ? std::string("the file changed while it was read")
                                                                 : "cannot be read: " + storage->file.errorString().toStdString());
        storage->data = reinterpret_cast<const unsigned char *>(storage->copy.constData());
        storage->size = storage->copy.size();
    }
    return parse(std::move(storage), name);
}

Result<SafeTensors> SafeTensors::fromBytes(const QByteArray &bytes, const QString &displayName)
{
    auto storage = std::make_shared<Storage>();
    storage->copy = bytes;
    storage->data = reinterpret_cast<const unsigned char *>(storage->copy.constData());
    storage->size = storage->copy.size();
    return parse(std::move(storage), displayName);
}

Result<SafeTensors> SafeTensors::parse(std::shared_ptr<const Storage> storage, const QString &name)
{
    const std::int64_t fileSize = storage->size;
    if (fileSize < 8)
        return fileProblem(name, "truncated: " + std::to_string(fileSize)
                                     + " bytes, shorter than the 8-byte header length that starts a safetensors file");
    const std::uint64_t headerLength = load64(storage->data);
    if (headerLength > std::uint64_t(fileSize - 8))
        return fileProblem(name, "the header length " + std::to_string(headerLength) + " is beyond the end of the file ("
                                     + std::to_string(fileSize) + " bytes)");
    if (headerLength > std::uint64_t(kMaxSafetensorsHeader))
        return fileProblem(name, "the header length " + std::to_string(headerLength) + " is more than the limit of "
                                     + std::to_string(kMaxSafetensorsHeader) + " bytes");
    if (headerLength < 2)
        return fileProblem(name, "the header is empty (length " + std::to_string(headerLength) + ")");

    const QByteArray headerText = QByteArray::fromRawData(reinterpret_cast<const char *>(storage->data + 8),
                                                          qsizetype(headerLength));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(headerText, &error);
    if (error.error != QJsonParseError::NoError)
        return fileProblem(name, "the header is not JSON: " + error.errorString().toStdString() + " at byte "
                                     + std::to_string(8 + error.offset));
    if (!doc.isObject())
        return fileProblem(name, "the header is not a JSON object");
    // Qt keeps the last of two equal keys: two tensors of one name would be
    // one, silently.
    if (const auto twice = firstDuplicateKey(headerText))
        return fileProblem(name, (twice->rfind("__metadata__.", 0) == 0 ? *twice : "tensor " + quoted(*twice))
                                     + " is named twice in the header; each name is given once");

    SafeTensors st;
    st.m_storage = storage;
    st.m_name = name;
    st.m_data = storage->data + 8 + headerLength;
    st.m_dataSize = fileSize - 8 - std::int64_t(headerLength);

    const QJsonObject header = doc.object();
    for (auto it = header.begin(); it != header.end(); ++it) {
        const std::string key = it.key().toStdString();
        if (key == "__metadata__") {
            if (!it.value().isObject())
                return fileProblem(name, "__metadata__ is not an object");
            const QJsonObject meta = it.value().toObject();
            for (auto m = meta.begin(); m != meta.end(); ++m) {
                if (!m.value().isString())
                    return fileProblem(name, "__metadata__." + m.key().toStdString() + " is not a string");
                st.m_metadata[m.key().toStdString()] = m.value().toString().toStdString();
            }
            continue;
        }
        const std::string where = "tensor " + quoted(key);
        if (!it.value().isObject())
            return fileProblem(name, where + ": not an object with dtype, shape and data_offsets");
        const QJsonObject o = it.value().toObject();
        TensorInfo t;
        t.name = key;

        const QJsonValue dtype = o.value(QLatin1String("dtype"));
        if (!dtype.isString())
            return fileProblem(name, where + ": dtype is missing or not a string");
        const auto dt = dtypeFromString(dtype.toString());
        if (!dt)
            return fileProblem(name, where + ": unknown dtype " + quoted(dtype.toString().toStdString())
                                         + "; expected F32, F16, BF16 or F64");
        t.dtype = *dt;

        const QJsonValue shape = o.value(QLatin1String("shape"));
        if (!shape.isArray())
            return fileProblem(name, where + ": shape is missing or not a list");
        const QJsonArray dims = shape.toArray();
        if (dims.size() > kMaxTensorRank)
            return fileProblem(name, where + ": shape has " + std::to_string(dims.size()) + " dimensions, more than "
                                         + std::to_string(kMaxTensorRank));
        // The product is bounded by the data there is, so it cannot overflow.
        std::int64_t count = 1;
        bool tooMany = false;
        for (const QJsonValue &d : dims) {
            const auto n = wholeNumber(d);
            if (!n)
                return fileProblem(name, where + ": shape holds something that is not a whole number from 0");
            t.shape.push_back(*n);
            if (*n == 0)
                count = 0;
            else if (!tooMany && count > 0) {
                if (count > (std::int64_t(1) << 53) / *n)
                    tooMany = true;
                else
                    count *= *n;
            }
        }
        if (count == 0)
            tooMany = false;

        const QJsonValue offsets = o.value(QLatin1String("data_offsets"));
        const QJsonArray pair = offsets.toArray();
        std::int64_t begin = 0, end = 0;
        {
            const auto b = pair.size() == 2 ? wholeNumber(pair[0]) : std::nullopt;
            const auto e = pair.size() == 2 ? wholeNumber(pair[1]) : std::nullopt;
            if (!offsets.isArray() || !b || !e)
                return fileProblem(name, where + ": data_offsets must be two whole numbers [begin, end]");
            begin = *b;
            end = *e;
        }
        if (begin > end)
            return fileProblem(name, where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end)
                                         + "] end before they begin");
        t.begin = begin;
        t.end = end;
        const std::int64_t bytes = end - begin;
        if (tooMany || count * dtypeSize(t.dtype) != bytes)
            return fileProblem(name, where + ": shape " + t.shapeText() + " of " + toString(t.dtype) + " needs "
                                         + (tooMany ? std::string("more bytes than any file holds")
                                                    : std::to_string(count * dtypeSize(t.dtype)) + " bytes")
                                         + ", but data_offsets [" + std::to_string(begin) + ", " + std::to_string(end)
                                         + "] hold " + std::to_string(bytes));
        st.m_tensors.push_back(std::move(t));
    }

    std::sort(st.m_tensors.begin(), st.m_tensors.end(), [](const TensorInfo &a, const TensorInfo &b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    // Do the tensors tile the data from 0 without gaps? Then data that ends
    // too soon is a truncated file rather than wrong offsets.
    std::int64_t reach = 0;
    std::size_t reacher = 0; // the tensor that ends at `reach`
    bool contiguous = true;
    for (std::size_t i = 0; i < st.m_tensors.size(); ++i) {
        const TensorInfo &t = st.m_tensors[i];
        if (t.begin != reach)
            contiguous = false;
        if (t.begin < reach && t.end > t.begin) {
            const TensorInfo &o = st.m_tensors[reacher];
            return fileProblem(name, "tensor " + quoted(t.name) + ": data_offsets [" + std::to_string(t.begin) + ", "
                                         + std::to_string(t.end) + "] overlap those of tensor " + quoted(o.name) + " ["
                                         + std::to_string(o.begin) + ", " + std::to_string(o.end) + "]");
        }
        if (t.end > reach) {
            reach = t.end;
            reacher = i;
        }
    }
    for (const TensorInfo &t : st.m_tensors)
        if (t.end > st.m_dataSize) {
            if (contiguous)
                return fileProblem(name, "truncated: the tensors need " + std::to_string(reach) + " bytes of data after the header, "
                                             "the file holds " + std::to_string(st.m_dataSize) + " (tensor " + quoted(t.name)
                                             + " is cut off)");
            return fileProblem(name, "tensor " + quoted(t.name) + ": data_offsets [" + std::to_string(t.begin) + ", "
                                         + std::to_string(t.end) + "] are out of range: the data after the header holds "
                                         + std::to_string(st.m_dataSize) + " bytes");
        }
    for (std::size_t i = 0; i < st.m_tensors.size(); ++i)
        st.m_index[st.m_tensors[i].name] = i;
    return st;
}

const TensorInfo *SafeTensors::find(const std::string &name) const
{
    const auto it = m_index.find(name);
    return it == m_index.end() ? nullptr : &m_tensors[it->second];
}

std::vector<double> SafeTensors::values(const TensorInfo &t) const
{
    const std::int64_t n = t.count();
    std::vector<double> out(std::size_t(std::max<std::int64_t>(n, 0)));
    // parse() checked that [begin, end) lies within the data.
    const unsigned char *p = m_data + t.begin;
    switch (t.dtype) {
    case DType::F32:
        for (std::int64_t i = 0; i < n; ++i) {
            const std::uint32_t bits = load32(p + 4 * i);
            float f;
            std::memcpy(&f, &bits, 4);
            out[std::size_t(i)] = f;
        }
        break;
    case DType::F16:
        for (std::int64_t i = 0; i < n; ++i)
            out[std::size_t(i)] = halfToDouble(load16(p + 2 * i));
        break;
    case DType::BF16:
        for (std::int64_t i = 0; i < n; ++i)
            out[std::size_t(i)] = bfloat16ToDouble(load16(p + 2 * i));
        break;
    case DType::F64:
        for (std::int64_t i = 0; i < n; ++i) {
            const std::uint64_t bits = load64(p + 8 * i);
            double d;
            std::memcpy(&d, &bits, 8);
            out[std::size_t(i)] = d;
        }
        break;
    }
    return out;
}

Matrix SafeTensors::matrix(const TensorInfo &t) const
{
    // Straight from the file's bytes into the matrix: a weight matrix is
    // never held twice (values() and then the matrix) while it is read.
    const Eigen::Index rows = t.shape.empty() ? 1 : Eigen::Index(t.shape[0]);
    const Eigen::Index cols = t.shape.size() >= 2 ? Eigen::Index(t.count() / std::max<std::int64_t>(t.shape[0], 1)) : 1;
    Matrix m(rows, cols);
    const unsigned char *p = m_data + t.begin;
    auto fill = [&](auto valueAt) {
        for (Eigen::Index r = 0; r < rows; ++r)
            for (Eigen::Index c = 0; c < cols; ++c)
                m(r, c) = valueAt(std::int64_t(r * cols + c));
    };
    switch (t.dtype) {
    case DType::F32:
        fill([p](std::int64_t i) {
            const std::uint32_t bits = load32(p + 4 * i);
            float f;
            std::memcpy(&f, &bits, 4);
            return double(f);
        });
        break;
    case DType::F16:
        fill([p](std::int64_t i) { return halfToDouble(load16(p + 2 * i)); });
        break;
    case DType::BF16:
        fill([p](std::int64_t i) { return bfloat16ToDouble(load16(p + 2 * i)); });
        break;
    case DType::F64:
        fill([p](std::int64_t i) {
            const std::uint64_t bits = load64(p + 8 * i);
            double d;
            std::memcpy(&d, &bits, 8);
            return d;
        });
        break;
    }
    return m;
}

void SafeTensors::release(const TensorInfo &t) const
{
    // Only a file's own mapping: a Qt resource's bytes may be memory of the
    // program's, where MADV_DONTNEED would zero them instead of dropping them.
    if (!m_storage || !m_storage->mapped || m_storage->file.fileName().startsWith(QLatin1Char(':')))
        return;
    const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const std::uintptr_t begin = (std::uintptr_t(m_data + t.begin) + page - 1) / page * page; // whole pages only
    const std::uintptr_t end = std::uintptr_t(m_data + t.end) / page * page;
    if (end > begin)
        madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}

FloatMatrix SafeTensors::floatMatrix(const TensorInfo &t) const
{
    const Eigen::Index rows = t.shape.empty() ? 1 : Eigen::Index(t.shape[0]);
    const Eigen::Index cols = t.shape.size() >= 2 ? Eigen::Index(t.count() / std::max<std::int64_t>(t.shape[0], 1)) : 1;
    FloatMatrix m(rows, cols);
    const unsigned char *p = m_data + t.begin;
    float *out = m.data(); // row-major: the file's order
    const std::int64_t n = std::int64_t(rows) * cols;
    switch (t.dtype) {
    case DType::F32:
        if constexpr (std::endian::native == std::endian::little) {
            std::memcpy(out, p, std::size_t(n) * 4); // the file's bytes are the floats
        } else {
            for (std::int64_t i = 0; i < n; ++i) {
                const std::uint32_t bits = load32(p + 4 * i);
                std::memcpy(out + i, &bits, 4);
            }
        }
        break;
    case DType::F16:
        for (std::int64_t i = 0; i < n; ++i)
            out[i] = float(halfToDouble(load16(p + 2 * i)));
        break;
    case DType::BF16:
        for (std::int64_t i = 0; i < n; ++i)
            out[i] = float(bfloat16ToDouble(load16(p + 2 * i)));
        break;
    case DType::F64:
        for (std::int64_t i = 0; i < n; ++i) {
            const std::uint64_t bits = load64(p + 8 * i);
            double d;
            std::memcpy(&d, &bits, 8);
            out[i] = float(d);
        }
        break;
    }
    return m;
}

QByteArray safetensorsBytes(const std::vector<TensorToWrite> &tensors, const std::map<std::string, std::string> &metadata)
{
    QJsonObject header;
    QByteArray data;
    for (const TensorToWrite &t : tensors) {
        QJsonObject o;
        o.insert(QStringLiteral("dtype"), QLatin1String(toString(t.dtype)));
        QJsonArray shape;
        for (std::int64_t d : t.shape)
            shape.append(double(d));
        o.insert(QStringLiteral("shape"), shape);
        const qsizetype begin = data.size();
        for (double v : t.values) {
            unsigned char b[8];
            int n = dtypeSize(t.dtype);
            std::uint64_t bits = 0;
            if (t.dtype == DType::F32) {
                const float f = float(v);
                std::uint32_t u;
                std::memcpy(&u, &f, 4);
                bits = u;
            } else if (t.dtype == DType::F16) {
                bits = doubleToHalf(v);
            } else if (t.dtype == DType::BF16) {
                bits = doubleToBfloat16(v);
            } else {
                std::memcpy(&bits, &v, 8);
            }
            for (int i = 0; i < n; ++i)
                b[i] = (unsigned char)(bits >> (8 * i));
            data.append(reinterpret_cast<const char *>(b), n);
        }
        o.insert(QStringLiteral("data_offsets"), QJsonArray{double(begin), double(data.size())});
        header.insert(QString::fromStdString(t.name), o);
    }
    if (!metadata.empty()) {
        QJsonObject meta;
        for (const auto &[k, v] : metadata)
            meta.insert(QString::fromStdString(k), QString::fromStdString(v));
        header.insert(QStringLiteral("__metadata__"), meta);
    }
    QByteArray text = QJsonDocument(header).toJson(QJsonDocument::Compact);
    while (text.size() % 8)
        text.append(' ');
    QByteArray out;
    const std::uint64_t n = std::uint64_t(text.size());
    for (int i = 0; i < 8; ++i)
        out.append(char((n >> (8 * i)) & 0xff));
    return out + text + data;
}

} // namespace attn
