// Host side of the spreading/interpolation launches: the two launch shapes every method uses
// (one thread per point; one block per subproblem with a dynamic shared-memory tile), each
// checked, and the cast of the plan's std::complex arrays to the kernels' float2/double2.
#pragma once

#include <complex>
#include <cstddef>
#include <string>

#include "cuda/cuda_check.hpp"
#include "cuda/kernel_common.cuh"
#include "cuda/launch.hpp"
#include "cuda/point_grid.hpp"

namespace nufftmp::detail {

template <typename T>
cplx<T>* as_cplx(std::complex<T>* p) {
  return reinterpret_cast<cplx<T>*>(p);
}
template <typename T>
const cplx<T>* as_const_cplx(const std::complex<T>* p) {
  return reinterpret_cast<const cplx<T>*>(p);
}

// After a launch: a configuration error (too much shared memory, bad grid) as a CudaError
// naming the kernel.
inline void check_launch(const char* kernel_name) {
  const cudaError_t st = cudaGetLastError();
  if (st != cudaSuccess)
    throw_cuda_error(st, (std::string("launch of ") + kernel_name).c_str(), __FILE__, __LINE__);
}

// Loads a kernel's code on the current device (CUDA loads each kernel at its first use).
template <typename... P>
void load_kernel(void (*kernel)(P...), const char* kernel_name) {
  cudaFuncAttributes attr{};
  const cudaError_t st = cudaFuncGetAttributes(&attr, kernel);
  if (st != cudaSuccess)
    throw_cuda_error(st, (std::string("loading ") + kernel_name).c_str(), __FILE__, __LINE__);
}

// Grid: enough blocks of 256 threads for the points (grid-stride beyond), one row per vector.
template <typename T, typename... P, typename... Args>
void launch_per_point(void (*kernel)(P...), const char* name, const SpreadLaunch<T>& a,
                      Args... args) {
  if (a.load_only) return load_kernel(kernel, name);
  kernel<<<point_grid(a.pts.M, a.nvec, 256), 256, 0, a.stream>>>(args...);
  check_launch(name);
}

// Grid: one block per subproblem, one row per vector; `shmem` bytes of dynamic shared memory
// (past 48 KB a kernel must opt in, so the attribute is set before every launch). The kernels
// of this shape take (points, grid, bins, tile, kernel coefficients, subproblems, rest...).
template <typename T, typename... P, typename... Rest>
void launch_per_subproblem(void (*kernel)(P...), const char* name, const SpreadLaunch<T>& a,
                           const KernelCoeffs<T>& k, std::size_t shmem, Rest... rest) {
  NUFFTMP_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(shmem)));
  if (a.load_only) return;  // setting the attribute loaded the kernel
  const int threads = a.threads > 0 ? a.threads : 256;
  kernel<<<dim3(static_cast<unsigned>(a.num_subs), a.nvec), threads, shmem, a.stream>>>(
      a.pts, a.grid, a.bins, make_tile(a.dim, a.w, a.bins), k, a.subs, rest...);
  check_launch(name);
}

}  // namespace nufftmp::detail
