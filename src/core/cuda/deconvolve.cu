// Deconvolution fused with the mode reordering (type 1) and with the zero-padding (type 2):
// one pass over the data per direction, through small per-axis tables built once per plan.
#include "cuda/cuda_check.hpp"
#include "cuda/kernel_common.cuh"
#include "cuda/launch.hpp"

namespace nufftmp::detail {

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void deconvolve_type1_kernel(DeconvView<T> v, const cplx<T>* fw, cplx<T>* f,
                                        std::int64_t total) {
  const std::int64_t nm = v.N[0] * v.N[1] * v.N[2];
  for (std::int64_t q = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; q < total;
       q += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t b = q / nm;
    std::int64_t r = q - b * nm;
    const std::int64_t i0 = r % v.N[0];
    r /= v.N[0];
    const std::int64_t i1 = r % v.N[1];
    const std::int64_t i2 = r / v.N[1];
    const std::int64_t fine = v.fine_of_out[0][i0] +
                              std::int64_t(v.grid.nf[0]) *
                                  (v.fine_of_out[1][i1] +
                                   std::int64_t(v.grid.nf[1]) * v.fine_of_out[2][i2]);
    const T fac = v.factor[0][i0] * v.factor[1][i1] * v.factor[2][i2];
    const cplx<T> g = fw[b * v.grid.total + fine];
    cplx<T> out;
    out.x = g.x * fac;
    out.y = g.y * fac;
    f[q] = out;
  }
}

template <typename T>
__global__ void pad_deconvolve_type2_kernel(DeconvView<T> v, const cplx<T>* f, cplx<T>* fw,
                                            std::int64_t total) {
  const std::int64_t nm = v.N[0] * v.N[1] * v.N[2];
  const std::int64_t nf0 = v.grid.nf[0], nf1 = v.grid.nf[1];
  for (std::int64_t q = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; q < total;
       q += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t b = q / v.grid.total;
    std::int64_t r = q - b * v.grid.total;
    const std::int64_t l0 = r % nf0;
    r /= nf0;
    const std::int64_t l1 = r % nf1;
    const std::int64_t l2 = r / nf1;
    const int o0 = v.out_of_fine[0][l0], o1 = v.out_of_fine[1][l1], o2 = v.out_of_fine[2][l2];
    cplx<T> out;
    out.x = T(0);
    out.y = T(0);
    if (o0 >= 0 && o1 >= 0 && o2 >= 0) {
      const T fac = v.factor[0][o0] * v.factor[1][o1] * v.factor[2][o2];
      const cplx<T> g = f[b * nm + o0 + v.N[0] * (o1 + v.N[1] * o2)];
      out.x = g.x * fac;
      out.y = g.y * fac;
    }
    fw[q] = out;
  }
}

int blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  const std::int64_t cap = std::int64_t(1) << 20;
  return static_cast<int>(b < 1 ? 1 : (b < cap ? b : cap));
}

}  // namespace

template <typename T>
void deconvolve_type1(const DeconvView<T>& v, const std::complex<T>* fw, std::complex<T>* f,
                      int nvec, cudaStream_t stream) {
  const std::int64_t total = std::int64_t(nvec) * v.N[0] * v.N[1] * v.N[2];
  deconvolve_type1_kernel<T><<<blocks_for(total), kThreads, 0, stream>>>(
      v, reinterpret_cast<const cplx<T>*>(fw), reinterpret_cast<cplx<T>*>(f), total);
  NUFFTMP_CUDA_CHECK_LAUNCH("deconvolve_type1_kernel");
}

template <typename T>
void pad_deconvolve_type2(const DeconvView<T>& v, const std::complex<T>* f, std::complex<T>* fw,
                          int nvec, cudaStream_t stream) {
  const std::int64_t total = std::int64_t(nvec) * v.grid.total;
  pad_deconvolve_type2_kernel<T><<<blocks_for(total), kThreads, 0, stream>>>(
      v, reinterpret_cast<const cplx<T>*>(f), reinterpret_cast<cplx<T>*>(fw), total);
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
