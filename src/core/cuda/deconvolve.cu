// Deconvolution fused with the mode reordering (type 1) and with the zero-padding (type 2):
// one pass over the data per direction, through small per-axis tables built once per plan.
#include "cuda/cuda_check.hpp"
#include "cuda/kernel_common.cuh"
#include "cuda/launch.hpp"

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

template <typename T>
__global__ void deconvolve_type1_kernel(DeconvView<T> v, const cplx<T>* fw, cplx<T>* f,
                                        std::int64_t rows) {
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const RowCoords r = row_coords(row, v.N[1], v.N[2]);
    const std::int64_t fine_row =
        r.b * v.grid.total +
        std::int64_t(v.grid.nf[0]) *
            (v.fine_of_out[1][r.i1] + std::int64_t(v.grid.nf[1]) * v.fine_of_out[2][r.i2]);
    const T fac12 = v.factor[1][r.i1] * v.factor[2][r.i2];
    for (std::int64_t i0 = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i0 < v.N[0];
         i0 += std::int64_t(gridDim.x) * blockDim.x) {
      const T fac = v.factor[0][i0] * fac12;
      const cplx<T> g = fw[fine_row + v.fine_of_out[0][i0]];
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
    const int o1 = v.out_of_fine[1][r.i1], o2 = v.out_of_fine[2][r.i2];
    const bool row_has_modes = o1 >= 0 && o2 >= 0;
    const T fac12 = row_has_modes ? v.factor[1][o1] * v.factor[2][o2] : T(0);
    const cplx<T>* frow =
        row_has_modes ? f + r.b * v.N[0] * v.N[1] * v.N[2] + v.N[0] * (o1 + v.N[1] * o2) : f;
    for (std::int64_t l0 = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; l0 < nf0;
         l0 += std::int64_t(gridDim.x) * blockDim.x) {
      const int o0 = v.out_of_fine[0][l0];
      cplx<T> out;
      out.x = T(0);
      out.y = T(0);
      if (row_has_modes && o0 >= 0) {
        const T fac = v.factor[0][o0] * fac12;
        const cplx<T> g = frow[o0];
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
