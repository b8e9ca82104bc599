#pragma once
// Large matrix products for the training step and a big model's forward: the system's BLAS (dgemm)
// when one can be loaded at run time (libopenblas, or whatever libblas.so.3
// the system points at), Eigen's product otherwise. Eigen's kernels are
// compiled for the baseline x86-64 (SSE2: two doubles an instruction); an
// optimised BLAS picks AVX2 and FMA on the machine it runs on, several
// times the throughput for the products that are most of a step. Nothing is
// needed at build time, and a system without a BLAS trains the same way,
// slower. ATTN_NO_BLAS=1 in the environment keeps Eigen's products.
// OPENBLAS_CORETYPE, when unset, is set to the nearest kernel OpenBLAS has
// for this processor (blas.cpp says why).

#include "scenario.h"

namespace attn::blas {

// op(a) op(b), where op transposes when asked: m by k times k by n.
Matrix multiply(const Matrix &a, bool transposeA, const Matrix &b, bool transposeB);
// a (m by k) times b (k by n), or times b transposed (b n by k) when
// transposeB: float32 (a big model's weights, Precision::Single), through
// the BLAS's sgemm when there is one.
Eigen::MatrixXf multiplyFloat(const Eigen::MatrixXf &a, const FloatMatrix &b, bool transposeB);
// What multiply uses: "OpenBLAS (libopenblas.so.0, SkylakeX)" (its kernels),
// "BLAS (libblas.so.3, Haswell)", "BLAS (libblas.so.3)" or "Eigen".
const char *backend();
// True where multiplyFloat takes products of one to four rows through
// smallproduct.h's AVX2 and FMA loops: built in, this processor has both,
// and ATTN_NO_BLAS (Eigen's products throughout) is not set.
bool smallProducts();
// The threads the BLAS may use (OpenBLAS's own pool); Eigen's follow OpenMP.
void setThreads(int threads);

} // namespace attn::blas
