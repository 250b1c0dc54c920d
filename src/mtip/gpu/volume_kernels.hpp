// Element-wise passes and reductions over device arrays shared by the merge (its CG vectors)
// and phasing (its iterates), behind launchers the host compiler can call. Complex arrays are
// cuDoubleComplex (the layout of std::complex<double>). All are ordered on `stream` and return
// without synchronising.
#pragma once

#include <cuComplex.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace nufftmp::mtip::detail {

// out[i] = (in[i], 0).
void launch_real_to_complex(const double* in, std::int64_t n, cuDoubleComplex* out,
                            cudaStream_t stream);
// out[i] = scale * Re(in[i]).
void launch_real_part(const cuDoubleComplex* in, std::int64_t n, double scale, double* out,
                      cudaStream_t stream);
// y += a x and y = x + b y over n doubles.
void launch_axpy(double a, const double* x, std::int64_t n, double* y, cudaStream_t stream);
void launch_xpby(const double* x, double b, std::int64_t n, double* y, cudaStream_t stream);

// Device reductions of n doubles into *out (device memory), through CUB with the caller's
// temporary storage of at least reduce_temp_bytes(n) bytes.
std::size_t reduce_temp_bytes(std::int64_t n);
void launch_sum(void* temp, std::size_t temp_bytes, const double* in, std::int64_t n, double* out,
                cudaStream_t stream);
void launch_max(void* temp, std::size_t temp_bytes, const double* in, std::int64_t n, double* out,
                cudaStream_t stream);

}  // namespace nufftmp::mtip::detail
