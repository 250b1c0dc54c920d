// The type 3 steps around its two inner plans, on the device: coordinate ranges (a CUB
// transform-reduce), rescaling, the pre-phase and post-phase/deconvolution factors (phases and
// phihat in double) and the per-vector products with them.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <cfloat>
#include <climits>
#include <cmath>

#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "cuda/kernel_common.cuh"
#include "type3/type3_kernels.hpp"

namespace nufftmp::detail {

namespace {

constexpr int kThreads = 256;
#define NUFFTMP_INF static_cast<double>(INFINITY)

unsigned blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b < 65535 * 16 ? b : 65535 * 16));
}

// Range of finite values and the first non-finite index, as one reduction value.
struct RangeAcc {
  double lo, hi;
  long long bad;  // LLONG_MAX: none
};

template <typename T>
struct RangeOf {
  const T* a;
  __device__ RangeAcc operator()(long long j) const {
    const double v = static_cast<double>(a[j]);
    if (fabs(v) <= DBL_MAX) return RangeAcc{v, v, LLONG_MAX};
    return RangeAcc{NUFFTMP_INF, -NUFFTMP_INF, j};  // the identities of min and max
  }
};

struct MergeRange {
  __device__ RangeAcc operator()(const RangeAcc& x, const RangeAcc& y) const {
    return RangeAcc{fmin(x.lo, y.lo), fmax(x.hi, y.hi), x.bad < y.bad ? x.bad : y.bad};
  }
};

template <typename T>
__global__ void rescale_kernel(const T* in, std::int64_t n, double centre, double scale, T* out) {
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x)
    out[j] = static_cast<T>((static_cast<double>(in[j]) - centre) * scale);
}

template <typename T>
__global__ void prephase_kernel(Type3FactorView v, Coords3<T> x, std::int64_t M, cplx<T>* pre) {
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < M;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    double ph = 0;
    for (int d = 0; d < v.dim; ++d) ph += v.D[d] * static_cast<double>(x.p[d][j]);
    double sn, cs;
    sincos(v.isign * ph, &sn, &cs);
    cplx<T> out;
    out.x = static_cast<T>(cs);
    out.y = static_cast<T>(sn);
    pre[j] = out;
  }
}

template <typename T>
__global__ void post_factor_kernel(Type3FactorView v, Coords3<T> s, std::int64_t N,
                                   cplx<T>* post) {
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < N;
       k += std::int64_t(gridDim.x) * blockDim.x) {
    double ph = 0, phihat = 1;
    for (int d = 0; d < v.dim; ++d) {
      const double sk = static_cast<double>(s.p[d][k]) - v.D[d];
      ph += sk * v.C[d];
      const double t = sk * v.target_scale[d];
      double sum = 0;  // the same rule as the host's kernel_ft
      for (int q = 0; q < v.nq; ++q) sum += v.weight[q] * cos(t * v.node[q]);
      phihat *= sum;
    }
    double sn, cs;
    sincos(v.isign * ph, &sn, &cs);
    cplx<T> out;
    out.x = static_cast<T>(cs / phihat);
    out.y = static_cast<T>(sn / phihat);
    post[k] = out;
  }
}

// Rows of n values on grid y (vectors), the values of a row on grid x.
template <typename T>
__global__ void multiply_kernel(const cplx<T>* in, const cplx<T>* fac, cplx<T>* out,
                                std::int64_t n, int nvec) {
  for (std::int64_t v = blockIdx.y; v < nvec; v += gridDim.y)
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
      const cplx<T> a = in[v * n + i], b = fac[i];
      cplx<T> r;
      r.x = a.x * b.x - a.y * b.y;
      r.y = a.x * b.y + a.y * b.x;
      out[v * n + i] = r;
    }
}

}  // namespace

template <typename T>
ValueRange device_value_range(const T* a, std::int64_t n, int device, cudaStream_t stream) {
  ValueRange r;
  if (n <= 0) {
    r.lo = NUFFTMP_INF;
    r.hi = -NUFFTMP_INF;
    return r;
  }
  DeviceGuard guard(device);
  const thrust::counting_iterator<long long> first(0);
  const RangeAcc init{NUFFTMP_INF, -NUFFTMP_INF, LLONG_MAX};
  DeviceBuffer<RangeAcc> out(1, device, stream, "a coordinate range");
  std::size_t temp_bytes = 0;
  NUFFTMP_CUDA_TRY(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, first, out.get(), n,
                                                      MergeRange{}, RangeOf<T>{a}, init, stream));
  // At least one byte: a null temp pointer would make the second call a size query again.
  temp_bytes = temp_bytes > 0 ? temp_bytes : 1;
  DeviceBuffer<unsigned char> temp(temp_bytes, device, stream, "a coordinate range (CUB)");
  NUFFTMP_CUDA_TRY(cub::DeviceReduce::TransformReduce(temp.get(), temp_bytes, first, out.get(),
                                                      n, MergeRange{}, RangeOf<T>{a}, init,
                                                      stream));
  RangeAcc h{};
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(&h, out.get(), sizeof h, cudaMemcpyDeviceToHost, stream));
  NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream));
  r.lo = h.lo;
  r.hi = h.hi;
  if (h.bad != LLONG_MAX) {
    r.bad = static_cast<std::int64_t>(h.bad);
    T v{};
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(&v, a + h.bad, sizeof v, cudaMemcpyDeviceToHost, stream));
    NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream));
    r.bad_value = static_cast<double>(v);
  }
  return r;
}

template <typename T>
void rescale_device(const T* in, std::int64_t n, double centre, double scale, T* out,
                    cudaStream_t stream) {
  if (n <= 0) return;
  rescale_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(in, n, centre, scale, out);
  NUFFTMP_CUDA_CHECK_LAUNCH("rescale_kernel");
}

template <typename T>
void prephase_factors_device(const Type3FactorView& v, Coords3<T> x, std::int64_t M,
                             std::complex<T>* pre, cudaStream_t stream) {
  if (M <= 0) return;
  prephase_kernel<T><<<blocks_for(M), kThreads, 0, stream>>>(v, x, M,
                                                             reinterpret_cast<cplx<T>*>(pre));
  NUFFTMP_CUDA_CHECK_LAUNCH("prephase_kernel");
}

template <typename T>
void post_factors_device(const Type3FactorView& v, Coords3<T> s, std::int64_t N,
                         std::complex<T>* post, cudaStream_t stream) {
  if (N <= 0) return;
  post_factor_kernel<T><<<blocks_for(N), kThreads, 0, stream>>>(
      v, s, N, reinterpret_cast<cplx<T>*>(post));
  NUFFTMP_CUDA_CHECK_LAUNCH("post_factor_kernel");
}

template <typename T>
void multiply_by_factors_device(const std::complex<T>* in, const std::complex<T>* factor,
                                std::complex<T>* out, std::int64_t n, int nvec,
                                cudaStream_t stream) {
  if (n <= 0 || nvec <= 0) return;
  const std::int64_t bx = (n + kThreads - 1) / kThreads;
  const dim3 grid(static_cast<unsigned>(bx < 65536 ? bx : 65536),
                  static_cast<unsigned>(nvec < 65535 ? nvec : 65535));
  multiply_kernel<T><<<grid, kThreads, 0, stream>>>(
      reinterpret_cast<const cplx<T>*>(in), reinterpret_cast<const cplx<T>*>(factor),
      reinterpret_cast<cplx<T>*>(out), n, nvec);
  NUFFTMP_CUDA_CHECK_LAUNCH("multiply_kernel");
}

#define NUFFTMP_TYPE3_KERNELS(T)                                                              \
  template ValueRange device_value_range<T>(const T*, std::int64_t, int, cudaStream_t);       \
  template void rescale_device<T>(const T*, std::int64_t, double, double, T*, cudaStream_t);  \
  template void prephase_factors_device<T>(const Type3FactorView&, Coords3<T>, std::int64_t,  \
                                           std::complex<T>*, cudaStream_t);                   \
  template void post_factors_device<T>(const Type3FactorView&, Coords3<T>, std::int64_t,      \
                                       std::complex<T>*, cudaStream_t);                       \
  template void multiply_by_factors_device<T>(const std::complex<T>*, const std::complex<T>*, \
                                              std::complex<T>*, std::int64_t, int,            \
                                              cudaStream_t);
NUFFTMP_TYPE3_KERNELS(float)
NUFFTMP_TYPE3_KERNELS(double)
#undef NUFFTMP_TYPE3_KERNELS
#undef NUFFTMP_INF

}  // namespace nufftmp::detail
