// The deconvolution factors 1 / phihat(2 pi k / nf) of every used axis, computed on the device
// from the kernel's Fourier quadrature (common/kernel_ft.hpp): one thread per frequency, the
// nodes and weights in the kernel's parameters. A 1D plan of 1e7 modes needs 5e6 frequencies x
// (2w + 16) cosines: a fraction of a millisecond here, where the host loop and the copies of
// its tables took ~165 ms (PERFORMANCE.md).
#include "cuda/cuda_check.hpp"
#include "cuda/launch.hpp"

namespace nufftmp::detail {

namespace {

constexpr int kThreads = 256;

template <typename T>
struct FactorJob {
  T* out[3];
  std::int64_t count[3];
  double scale[3];  // 2 / nf: cos(2 pi k t / nf) = cospi(k * scale * t)
};

// Block row y is axis y. In double throughout: phihat at the edge of the mode box is a
// fraction of phihat(0), and the factor is formed before rounding to T.
template <typename T>
__global__ void deconv_factors_kernel(FtQuadratureView q, FactorJob<T> job) {
  const int d = blockIdx.y;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < job.count[d];
       k += std::int64_t(gridDim.x) * blockDim.x) {
    const double a = static_cast<double>(k) * job.scale[d];
    double sum = 0;
    for (int i = 0; i < q.n; ++i) sum = fma(q.weight[i], cospi(a * q.node[i]), sum);
    job.out[d][k] = static_cast<T>(1.0 / sum);
  }
}

}  // namespace

template <typename T>
void compute_deconv_factors(const FtQuadratureView& q, int dim, T* const out[3],
                            const std::int64_t count[3], const std::int64_t nf[3],
                            cudaStream_t stream) {
  FactorJob<T> job{};
  std::int64_t most = 0;
  for (int d = 0; d < dim; ++d) {
    job.out[d] = out[d];
    job.count[d] = count[d];
    job.scale[d] = 2.0 / static_cast<double>(nf[d]);
    most = count[d] > most ? count[d] : most;
  }
  if (most == 0) return;
  const std::int64_t blocks = (most + kThreads - 1) / kThreads;
  const dim3 grid(static_cast<unsigned>(blocks < 65536 ? blocks : 65536),
                  static_cast<unsigned>(dim));
  deconv_factors_kernel<T><<<grid, kThreads, 0, stream>>>(q, job);
  NUFFTMP_CUDA_CHECK_LAUNCH("deconv_factors_kernel");
}

template void compute_deconv_factors<float>(const FtQuadratureView&, int, float* const[3],
                                            const std::int64_t[3], const std::int64_t[3],
                                            cudaStream_t);
template void compute_deconv_factors<double>(const FtQuadratureView&, int, double* const[3],
                                             const std::int64_t[3], const std::int64_t[3],
                                             cudaStream_t);

}  // namespace nufftmp::detail
