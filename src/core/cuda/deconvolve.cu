// Deconvolution fused with the mode reordering (type 1) and with the zero-padding (type 2):
// one pass over the data per direction. Per axis only the N/2 + 1 factors 1/phihat(|k|) are
// tables (deconv_factors.cu fills them on the device); where a mode lives on the fine grid and
// in the output is arithmetic (common/grid.hpp), a few integer operations per element.
#include "common/grid.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/kernel_common.cuh"
#include "cuda/launch.hpp"
#include "cuda/launch_common.cuh"

namespace nufftmp::detail {

namespace {

constexpr int kThreads = 256;

// Both kernels walk their output as x-rows: grid.y strides over rows (vector, z, y), grid.x
// and the threads over the x cells of a row. A row's coordinates cost two 64-bit divisions
// per row instead of five per element (a 64-bit division is a long instruction sequence on
// the GPU); the per-axis table reads of y and z are made once per row too.
struct RowCoords {
  std::int64_t b;  // vector
  std::int64_t i1, i2;
};
__device__ __forceinline__ RowCoords row_coords(std::int64_t row, std::int64_t n1,
                                                std::int64_t n2) {
  RowCoords r;
  const std::int64_t t = row / n1;
  r.i1 = row - t * n1;
  r.b = t / n2;
  r.i2 = t - r.b * n2;
  return r;
}

// 1 / phihat of mode k on axis d (factor 1 on an unused axis).
template <typename T>
__device__ __forceinline__ T factor_of(const DeconvView<T>& v, int d, std::int64_t k) {
  return v.factor[d] ? v.factor[d][k < 0 ? -k : k] : T(1);
}

template <typename T>
__global__ void deconvolve_type1_kernel(DeconvView<T> v, const cplx<T>* fw, cplx<T>* f,
                                        std::int64_t rows) {
  const std::int64_t nf0 = v.grid.nf[0], nf1 = v.grid.nf[1], nf2 = v.grid.nf[2];
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const RowCoords r = row_coords(row, v.N[1], v.N[2]);
    const std::int64_t k1 = mode_of_output_index(r.i1, v.N[1], v.modeord);
    const std::int64_t k2 = mode_of_output_index(r.i2, v.N[2], v.modeord);
    const std::int64_t fine_row =
        r.b * v.grid.total +
        nf0 * (fine_index_of_mode(k1, nf1) + nf1 * fine_index_of_mode(k2, nf2));
    const T fac12 = factor_of(v, 1, k1) * factor_of(v, 2, k2);
    for (std::int64_t i0 = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i0 < v.N[0];
         i0 += std::int64_t(gridDim.x) * blockDim.x) {
      const std::int64_t k0 = mode_of_output_index(i0, v.N[0], v.modeord);
      const T fac = factor_of(v, 0, k0) * fac12;
      const cplx<T> g = fw[fine_row + fine_index_of_mode(k0, nf0)];
      cplx<T> out;
      out.x = g.x * fac;
      out.y = g.y * fac;
      f[row * v.N[0] + i0] = out;
    }
  }
}

template <typename T>
__global__ void pad_deconvolve_type2_kernel(DeconvView<T> v, const cplx<T>* f, cplx<T>* fw,
                                            std::int64_t rows) {
  const std::int64_t nf0 = v.grid.nf[0];
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const RowCoords r = row_coords(row, v.grid.nf[1], v.grid.nf[2]);
    const std::int64_t k1 = mode_of_fine_index(r.i1, v.N[1], v.grid.nf[1]);
    const std::int64_t k2 = mode_of_fine_index(r.i2, v.N[2], v.grid.nf[2]);
    const bool row_has_modes = k1 != kNoMode && k2 != kNoMode;
    const T fac12 = row_has_modes ? factor_of(v, 1, k1) * factor_of(v, 2, k2) : T(0);
    const cplx<T>* frow =
        row_has_modes ? f + r.b * v.N[0] * v.N[1] * v.N[2] +
                            v.N[0] * (output_index_of_mode(k1, v.N[1], v.modeord) +
                                      v.N[1] * output_index_of_mode(k2, v.N[2], v.modeord))
                      : f;
    for (std::int64_t l0 = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; l0 < nf0;
         l0 += std::int64_t(gridDim.x) * blockDim.x) {
      const std::int64_t k0 = row_has_modes ? mode_of_fine_index(l0, v.N[0], nf0) : kNoMode;
      cplx<T> out;
      out.x = T(0);
      out.y = T(0);
      if (k0 != kNoMode) {
        const T fac = factor_of(v, 0, k0) * fac12;
        const cplx<T> g = frow[output_index_of_mode(k0, v.N[0], v.modeord)];
        out.x = g.x * fac;
        out.y = g.y * fac;
      }
      fw[row * nf0 + l0] = out;
    }
  }
}

// Blocks over x (enough for one row, at most 2^16) times rows (at most 65535: grid.y's limit).
dim3 row_grid(std::int64_t rows, std::int64_t n0) {
  const std::int64_t bx = (n0 + kThreads - 1) / kThreads;
  const std::int64_t by = rows < 65535 ? rows : 65535;
  return dim3(static_cast<unsigned>(bx < 1 ? 1 : (bx < 65536 ? bx : 65536)),
              static_cast<unsigned>(by < 1 ? 1 : by));
}

}  // namespace

template <typename T>
void deconvolve_type1(const DeconvView<T>& v, const std::complex<T>* fw, std::complex<T>* f,
                      int nvec, cudaStream_t stream) {
  const std::int64_t rows = std::int64_t(nvec) * v.N[1] * v.N[2];
  deconvolve_type1_kernel<T><<<row_grid(rows, v.N[0]), kThreads, 0, stream>>>(
      v, reinterpret_cast<const cplx<T>*>(fw), reinterpret_cast<cplx<T>*>(f), rows);
  NUFFTMP_CUDA_CHECK_LAUNCH("deconvolve_type1_kernel");
}

template <typename T>
void pad_deconvolve_type2(const DeconvView<T>& v, const std::complex<T>* f, std::complex<T>* fw,
                          int nvec, cudaStream_t stream) {
  const std::int64_t rows = std::int64_t(nvec) * v.grid.nf[1] * v.grid.nf[2];
  pad_deconvolve_type2_kernel<T><<<row_grid(rows, v.grid.nf[0]), kThreads, 0, stream>>>(
      v, reinterpret_cast<const cplx<T>*>(f), reinterpret_cast<cplx<T>*>(fw), rows);
  NUFFTMP_CUDA_CHECK_LAUNCH("pad_deconvolve_type2_kernel");
}

template <typename T>
void load_deconvolve_kernel(int type) {
  if (type == 1) load_kernel(deconvolve_type1_kernel<T>, "deconvolve_type1_kernel");
  else load_kernel(pad_deconvolve_type2_kernel<T>, "pad_deconvolve_type2_kernel");
}

template void load_deconvolve_kernel<float>(int);
template void load_deconvolve_kernel<double>(int);
template void deconvolve_type1<float>(const DeconvView<float>&, const std::complex<float>*,
                                      std::complex<float>*, int, cudaStream_t);
template void deconvolve_type1<double>(const DeconvView<double>&, const std::complex<double>*,
                                       std::complex<double>*, int, cudaStream_t);
template void pad_deconvolve_type2<float>(const DeconvView<float>&, const std::complex<float>*,
                                          std::complex<float>*, int, cudaStream_t);
template void pad_deconvolve_type2<double>(const DeconvView<double>&,
                                           const std::complex<double>*, std::complex<double>*,
                                           int, cudaStream_t);

}  // namespace nufftmp::detail
