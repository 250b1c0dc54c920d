// Per-ion kernels of the GPU solver: the NUFFT inputs of the owned ions, and the assembly of
// potentials and forces from the real-space sums and the type 2 values.
#include "cuda/cuda_check.hpp"
#include "kernels.hpp"

namespace nufftmp::ewald::detail {

namespace {

constexpr int kThreads = 256;

__global__ void nufft_inputs_kernel(const Ion* ions, std::int64_t n, double s0, double s1,
                                    double s2, double* x, double* y, double* z, double* c) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const Ion a = ions[i];
    x[i] = s0 * a.x;
    y[i] = s1 * a.y;
    z[i] = s2 * a.z;
    c[2 * i] = a.q;
    c[2 * i + 1] = 0.0;
  }
}

// out may be real: every element is read before it is written, by the same thread.
template <bool Forces>
__global__ void assemble_kernel(const Ion* ions, std::int64_t n, const double* real,
                                const double* values, double self, double background,
                                double inv_s, double* out, double* qphi) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const double q = ions[i].q;
    double r[4];
    recip_values<Forces>(values, n, i, inv_s, r);
    const double phi_real = real[i];
    qphi[i] = q * phi_real;
    out[i] = phi_real + r[0] + self * q + background;
    if (Forces)
      for (int d = 1; d <= 3; ++d) out[d * n + i] = real[d * n + i] + q * r[d];
  }
}

}  // namespace

void nufft_inputs(const Ion* ions, std::int64_t n, double s0, double s1, double s2, double* x,
                  double* y, double* z, double* c, cudaStream_t stream) {
  if (n == 0) return;
  nufft_inputs_kernel<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(ions, n, s0, s1, s2, x, y,
                                                                        z, c);
  NUFFTMP_CUDA_CHECK_LAUNCH("ewald nufft_inputs_kernel");
}

void assemble_results(const Ion* ions, std::int64_t n, const double* real, const double* values,
                      double self, double background, double inv_s, bool forces, double* out,
                      double* qphi, cudaStream_t stream) {
  if (n == 0) return;
  const int blocks = blocks_for(n, kThreads);
  if (forces)
    assemble_kernel<true><<<blocks, kThreads, 0, stream>>>(ions, n, real, values, self,
                                                           background, inv_s, out, qphi);
  else
    assemble_kernel<false><<<blocks, kThreads, 0, stream>>>(ions, n, real, values, self,
                                                            background, inv_s, out, qphi);
  NUFFTMP_CUDA_CHECK_LAUNCH("ewald assemble_kernel");
}

}  // namespace nufftmp::ewald::detail
