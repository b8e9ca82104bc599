#include "blas.h"
#include "smallproduct.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#if defined(__linux__)
#include <dlfcn.h>
#define ATTN_HAVE_DLOPEN 1
#endif

namespace attn::blas {

namespace {

using Dgemm = void (*)(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
                       const int *, const double *, const int *, const double *, double *, const int *);
using Sgemm = void (*)(const char *, const char *, const int *, const int *, const int *, const float *, const float *,
                       const int *, const float *, const int *, const float *, float *, const int *);
using SetThreads = void (*)(int);

struct Library {
    Dgemm dgemm = nullptr;
    Sgemm sgemm = nullptr; // OpenBLAS's only: the reference BLAS's is slower than Eigen's float kernels
    SetThreads setThreads = nullptr;
    std::string name = "Eigen";
};

const Library &library()
{
    static const Library lib = [] {
        Library l;
#ifdef ATTN_HAVE_DLOPEN
        const char *off = std::getenv("ATTN_NO_BLAS");
        if (off && *off && *off != '0')
            return l;
#if defined(__x86_64__) && defined(__GNUC__)
        // OpenBLAS 0.3.21 does not know recent Xeons (Sapphire Rapids) and
        // falls back to its Prescott (SSE3) kernels, at about half the
        // speed: name the nearest kernel it has, unless the user chose one.
        // Read once, when the library loads.
        if (!std::getenv("OPENBLAS_CORETYPE")) {
            __builtin_cpu_init();
            if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")
                && __builtin_cpu_supports("avx512vl"))
                setenv("OPENBLAS_CORETYPE", "SkylakeX", 0);
            else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
                setenv("OPENBLAS_CORETYPE", "Haswell", 0);
        }
#endif
        struct Candidate {
            const char *file, *name;
        };
        for (const Candidate c : {Candidate{"libopenblas.so.0", "OpenBLAS (libopenblas.so.0)"},
                                  Candidate{"libblas.so.3", "BLAS (libblas.so.3)"}}) {
            void *h = dlopen(c.file, RTLD_NOW | RTLD_LOCAL);
            if (!h)
                continue;
            l.dgemm = reinterpret_cast<Dgemm>(dlsym(h, "dgemm_"));
            if (dlsym(h, "openblas_get_corename"))
                l.sgemm = reinterpret_cast<Sgemm>(dlsym(h, "sgemm_"));
            l.setThreads = reinterpret_cast<SetThreads>(dlsym(h, "openblas_set_num_threads"));
            if (l.dgemm) {
                l.name = c.name;
                // OpenBLAS names the kernels it picked: "OpenBLAS (libopenblas.so.0, SkylakeX)".
                using CoreName = char *(*)();
                if (auto core = reinterpret_cast<CoreName>(dlsym(h, "openblas_get_corename")); core && core())
                    l.name.insert(l.name.size() - 1, std::string(", ") + core());
                break;
            }
            dlclose(h);
        }
#endif
        return l;
    }();
    return lib;
}

} // namespace

Matrix multiply(const Matrix &a, bool ta, const Matrix &b, bool tb)
{
    const Eigen::Index m = ta ? a.cols() : a.rows(), k = ta ? a.rows() : a.cols();
    const Eigen::Index n = tb ? b.rows() : b.cols();
    const Library &lib = library();
    // Small products and sizes past int: Eigen's.
    if (!lib.dgemm || double(m) * double(n) * double(k) < 1e5 || m > 1 << 30 || n > 1 << 30 || k > 1 << 30) {
        if (ta && tb)
            return a.transpose() * b.transpose();
        if (ta)
            return a.transpose() * b;
        if (tb)
            return a * b.transpose();
        return a * b;
    }
    Matrix c(m, n);
    if (m == 0 || n == 0)
        return c;
    if (k == 0)
        return Matrix::Zero(m, n);
    const int M = int(m), N = int(n), K = int(k), lda = int(std::max<Eigen::Index>(1, a.rows())),
              ldb = int(std::max<Eigen::Index>(1, b.rows())), ldc = M;
    const double one = 1, zero = 0;
    lib.dgemm(ta ? "T" : "N", tb ? "T" : "N", &M, &N, &K, &one, a.data(), &lda, b.data(), &ldb, &zero, c.data(), &ldc);
    return c;
}

const char *backend()
{
    return library().name.c_str();
}

void setThreads(int threads)
{
    if (const Library &lib = library(); lib.setThreads)
        lib.setThreads(threads);
}

bool smallProducts()
{
#if defined(ATTN_HAVE_SMALL_PRODUCT_AVX2)
    static const bool available = [] {
        const char *off = std::getenv("ATTN_NO_BLAS");
        if (off && *off && *off != '0')
            return false;
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }();
    return available;
#else
    return false;
#endif
}

namespace {

// Below this many rows of b (twice over), a product is not split in halves.
constexpr int kMinHalfRows = 64;

// a (m <= 4 rows) times b through smallProductAvx2, shared out among the
// threads OpenMP allows here.
Eigen::MatrixXf smallProduct(const Eigen::MatrixXf &a, const FloatMatrix &b, bool tb)
{
    const Eigen::Index m = a.rows(), n = tb ? b.rows() : b.cols();
    const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> x = a;
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> y(m, n);
    detail::SmallProduct p;
    p.m = int(m);
    p.k = int(a.cols());
    p.n = int(n);
    p.x = x.data();
    p.ldx = p.k;
    p.b = b.data();
    p.transposeB = tb;
    p.y = y.data();
    p.ldy = p.n;
    int threads = 1;
#if defined(_OPENMP)
    threads = omp_in_parallel() ? 1 : std::max(1, omp_get_max_threads());
#endif
    // b's rows in two halves, each summed on its own and the two added:
    // each thread then streams its own contiguous half of the weights
    // (two cores read them half as fast again as when both share every row).
    // Always two, whatever the threads, so the bits do not depend on them.
    // With b transposed each output is one row's dot product: no halves.
    const int halves = !tb && p.k >= 2 * kMinHalfRows ? 2 : 1;
    const int runs = (p.n + 7) / 8; // columns in runs of 8 (one AVX register), split evenly
    const int parts = std::max(1, std::min((threads + halves - 1) / halves, runs));
    std::vector<float> second; // the second half's sums, m by n
    if (halves == 2)
        second.assign(std::size_t(m) * std::size_t(p.n), 0.0f);
    auto work = [&](int w) {
        const int half = w / parts, part = w % parts;
        auto start = [&](int q) { return int(std::min<long long>(p.n, 8LL * (1LL * runs * q / parts))); };
        const int n0 = start(part), n1 = start(part + 1);
        if (n0 >= n1)
            return;
        detail::SmallProduct h = p;
        if (halves == 2) {
            const int k0 = half == 0 ? 0 : p.k / 2, k1 = half == 0 ? p.k / 2 : p.k;
            h.k = k1 - k0;
            h.x = p.x + k0;
            h.b = p.b + std::size_t(k0) * std::size_t(p.n);
            if (half == 1)
                h.y = second.data();
        }
        detail::smallProductAvx2(h, n0, n1);
    };
    const int items = halves * parts;
#if defined(_OPENMP)
#pragma omp parallel for num_threads(std::min(threads, items)) schedule(static, 1)
#endif
    for (int w = 0; w < items; ++w)
        work(w);
    if (halves == 2)
        for (Eigen::Index i = 0; i < y.size(); ++i)
            y.data()[i] += second[std::size_t(i)];
    return y;
}

} // namespace

Eigen::MatrixXf multiplyFloat(const Eigen::MatrixXf &a, const FloatMatrix &b, bool tb)
{
    const Eigen::Index m = a.rows(), k = a.cols(), n = tb ? b.rows() : b.cols();
    // A key's new positions: the weights streamed once (smallproduct.h).
    if (m >= 1 && m <= detail::kSmallProductRows && double(n) * double(k) >= 1e5 && n < (1 << 30) && k < (1 << 30)
        && smallProducts())
        return smallProduct(a, b, tb);
    const Library &lib = library();
    if (!lib.sgemm || double(m) * double(n) * double(k) < 1e5 || m > 1 << 30 || n > 1 << 30 || k > 1 << 30)
        return tb ? Eigen::MatrixXf(a * b.transpose()) : Eigen::MatrixXf(a * b);
    Eigen::MatrixXf c(m, n);
    if (m == 0 || n == 0)
        return c;
    if (k == 0)
        return Eigen::MatrixXf::Zero(m, n);
    // b's row-major data read column-major is b transposed: k by n row-major
    // is n by k, used transposed ("T", ldb n); n by k row-major is k by n,
    // b transposed as it stands ("N", ldb k).
    const int M = int(m), N = int(n), K = int(k), lda = int(std::max<Eigen::Index>(1, m)), ldb = tb ? K : N, ldc = M;
    const float one = 1, zero = 0;
    lib.sgemm("N", tb ? "N" : "T", &M, &N, &K, &one, a.data(), &lda, b.data(), &ldb, &zero, c.data(), &ldc);
    return c;
}

} // namespace attn::blas
