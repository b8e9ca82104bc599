#pragma once
// The safetensors file (Hugging Face's weights format): an 8-byte
// little-endian header length N, N bytes of JSON naming each tensor's dtype,
// shape and data_offsets [begin, end) within the data that follows, then the
// raw little-endian tensor data.
//
// The reader trusts nothing in the file: the header length is checked
// against the file and a limit before anything is read, every tensor's
// offsets against its shape and dtype and against the data that is there,
// two tensors may not share bytes, and no read ever leaves the file. The
// file is memory-mapped where it can be (QFile::map) and read whole
// otherwise; nothing is allocated from a size the file claims before it is
// checked against the file's real size. Only a regular file is opened (a
// device or a FIFO is refused before it is read: modelfile.h), and a name
// given twice in the header is refused, not overwritten. Every failure is one Problem whose
// place names the file and whose message names the tensor.

#include "scenario.h"
#include "result.h"
#include "validate.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace attn {

enum class DType { F32, F16, BF16, F64 };

const char *toString(DType t);   // "F32", ...
int dtypeSize(DType t);          // bytes per value

// Half precision (IEEE binary16) and bfloat16 to double, exactly.
double halfToDouble(std::uint16_t bits);
double bfloat16ToDouble(std::uint16_t bits);
// The nearest binary16 / bfloat16 (ties to even); out of range gives ±inf.
std::uint16_t doubleToHalf(double v);
std::uint16_t doubleToBfloat16(double v);

// The largest model.safetensors opened: twice the model budget (gpt2.h), room
// for checkpoints that hold tensors the forward does not use (lm_head, the
// attention masks), and a bound on what is read when the file cannot be
// mapped. Checked from the file system's size before the file is read.
inline constexpr std::int64_t kMaxSafetensorsFileBytes = std::int64_t(2) * 1024 * 1024 * 1024;
// The safetensors reference implementation's limit on the header.
inline constexpr std::int64_t kMaxSafetensorsHeader = 100'000'000;
inline constexpr int kMaxTensorRank = 8;

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;   // empty: a scalar
    std::int64_t begin = 0, end = 0;   // byte offsets within the data section

    std::int64_t count() const;        // product of the shape
    std::string shapeText() const;     // "[768, 2304]"
};

class SafeTensors {
public:
    // `displayName` names the file in messages ("model.safetensors"); empty:
    // the path.
    static Result<SafeTensors> open(const QString &path, const QString &displayName = {});
    static Result<SafeTensors> fromBytes(const QByteArray &bytes, const QString &displayName);

    const QString &displayName() const { return m_name; }
    const TensorInfo *find(const std::string &name) const;  // null when absent
    const std::vector<TensorInfo> &tensors() const { return m_tensors; } // in data order
    const std::map<std::string, std::string> &metadata() const { return m_metadata; }

    // Every value of the tensor as doubles, in the file's (row-major) order.
    // Values that are not finite numbers come back as they are (see finite()).
    std::vector<double> values(const TensorInfo &t) const;
    // A tensor of rank 2 as rows by cols; of rank 1 as n by 1.
    Matrix matrix(const TensorInfo &t) const;
    // The same in float32, row-major as the file (a big model's weights: F32
    // copied as they are, F16 and BF16 exactly, F64 rounded; a value too big
    // for float becomes ±inf, for the caller's finite check).
    FloatMatrix floatMatrix(const TensorInfo &t) const;
    // The tensor has been read: its mapped pages leave this process's
    // resident memory (the file stays in the page cache), so that a big
    // model read into its own matrices does not hold the file twice. A read
    // of it afterwards maps the pages again. Nothing when the file was read whole.
    void release(const TensorInfo &t) const;

private:
    struct Storage;
    static Result<SafeTensors> parse(std::shared_ptr<const Storage> storage, const QString &name);

    std::shared_ptr<const Storage> m_storage;
    const unsigned char *m_data = nullptr;  // start of the data section
    std::int64_t m_dataSize = 0;
    QString m_name;
    std::vector<TensorInfo> m_tensors;
    std::map<std::string, std::size_t> m_index;
    std::map<std::string, std::string> m_metadata;
};

// A safetensors file's bytes, for tests and conversions: the tensors one after
// another in the given order, each converted to its dtype.
struct TensorToWrite {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
    std::vector<double> values;  // row-major, product of shape
};
QByteArray safetensorsBytes(const std::vector<TensorToWrite> &tensors,
                            const std::map<std::string, std::string> &metadata = {});

} // namespace attn
