// Host entry points of the type 3 device kernels (type3_kernels.cu), on the plan's stream.
#pragma once

#include <cuda_runtime_api.h>

#include <complex>
#include <cstdint>

#include "type3/type3_ops.hpp"

namespace nufftmp::detail {

// What the factor kernels read, passed by value (the quadrature of phihat included: at most
// kMaxNodes nodes, a few hundred bytes of kernel parameters).
struct Type3FactorView {
  static constexpr int kMaxNodes = 64;
  double node[kMaxNodes];
  double weight[kMaxNodes];
  int nq = 0;
  int dim = 1;
  int isign = 1;
  double C[3] = {0, 0, 0}, D[3] = {0, 0, 0};
  double target_scale[3] = {0, 0, 0};
};

template <typename T>
struct Coords3 {
  const T* p[3];
};

// min, max and first non-finite index of a[0..n) (CUB reduction); blocks for the result.
template <typename T>
ValueRange device_value_range(const T* a, std::int64_t n, int device, cudaStream_t stream);
// out[j] = (in[j] - centre) * scale, formed in double.
template <typename T>
void rescale_device(const T* in, std::int64_t n, double centre, double scale, T* out,
                    cudaStream_t stream);
// pre[j] = exp(isign i sum_d D_d x_d[j]).
template <typename T>
void prephase_factors_device(const Type3FactorView& v, Coords3<T> x, std::int64_t M,
                             std::complex<T>* pre, cudaStream_t stream);
// post[k] = exp(isign i sum_d (s_d[k] - D_d) C_d) / prod_d phihat((s_d[k] - D_d) target_scale_d).
template <typename T>
void post_factors_device(const Type3FactorView& v, Coords3<T> s, std::int64_t N,
                         std::complex<T>* post, cudaStream_t stream);
// out[v * n + i] = in[v * n + i] * factor[i] for v < nvec (out may be in).
template <typename T>
void multiply_by_factors_device(const std::complex<T>* in, const std::complex<T>* factor,
                                std::complex<T>* out, std::int64_t n, int nvec,
                                cudaStream_t stream);

}  // namespace nufftmp::detail
