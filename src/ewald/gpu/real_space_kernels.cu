// The cell list and the real-space sums on the GPU: cell keys, a CUB radix sort by cell, the
// CSR cell offsets, the ions gathered in cell order (32-byte loads), and one thread per
// owned target running sum_neighbours (real_space_pairs.hpp, shared with the host loop).
// Threads of a warp take consecutive ions of the sorted order, i.e. of the same or adjacent
// cells, so they read the same neighbour cells (L1/L2 hits) and loop over similar counts.
#include <cub/device/device_radix_sort.cuh>

#include "cuda/cuda_check.hpp"
#include "kernels.hpp"

namespace nufftmp::ewald::detail {

namespace {

constexpr int kThreads = 256;
constexpr int kRealThreads = 128;

__global__ void cell_keys_kernel(const Ion* ions, int n, CellGrid g, int* keys, int* order) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const Ion a = ions[i];
    keys[i] = static_cast<int>(
        cell_index(cell_coord(a.x, 0, g), cell_coord(a.y, 1, g), cell_coord(a.z, 2, g), g));
    order[i] = i;
  }
}

// Thread t fills the offsets of the cells between the keys at t - 1 and t (the empty cells
// included): every entry of start is written once.
__global__ void cell_starts_kernel(const int* keys, int n, int n_cells, int* start) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t <= n; t += gridDim.x * blockDim.x) {
    const int prev = t == 0 ? -1 : keys[t - 1];
    const int cur = t == n ? n_cells : keys[t];
    for (int c = prev + 1; c <= cur; ++c) start[c] = t;
  }
}

__global__ void gather_kernel(const Ion* ions, const int* order, int n, Ion* sorted) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t += gridDim.x * blockDim.x)
    sorted[t] = ions[order[t]];
}

template <bool Forces>
__global__ void __launch_bounds__(kRealThreads)
    real_space_kernel(const Ion* sorted, const int* order, const int* start, int n, int n_owned,
                      CellGrid g, PairParams p, double* out, unsigned long long* first_bad) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t += gridDim.x * blockDim.x) {
    const int i = order[t];
    if (i >= n_owned) continue;  // a halo ion: a source only
    const PairSums s = sum_neighbours<Forces, int>(t, sorted, start, g, p);
    out[i] = s.phi;
    if (Forces) {
      const double q = sorted[t].q;
      out[std::int64_t(n_owned) + i] = q * s.fx;
      out[2 * std::int64_t(n_owned) + i] = q * s.fy;
      out[3 * std::int64_t(n_owned) + i] = q * s.fz;
    }
    if (s.too_close) atomicMin(first_bad, static_cast<unsigned long long>(i));
  }
}

}  // namespace

void cell_keys(const Ion* ions, int n, const CellGrid& g, int* keys, int* order,
               cudaStream_t stream) {
  if (n == 0) return;
  cell_keys_kernel<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(ions, n, g, keys, order);
  NUFFTMP_CUDA_CHECK_LAUNCH("ewald cell_keys_kernel");
}

std::size_t sort_by_cell_temp_bytes(int n, int key_bits) {
  std::size_t bytes = 0;
  NUFFTMP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const int*>(nullptr),
                                                   static_cast<int*>(nullptr),
                                                   static_cast<const int*>(nullptr),
                                                   static_cast<int*>(nullptr), n, 0, key_bits));
  return bytes;
}

void sort_by_cell(void* temp, std::size_t temp_bytes, const int* keys, int* keys_sorted,
                  const int* order_in, int* order, int n, int key_bits, cudaStream_t stream) {
  if (n == 0) return;
  NUFFTMP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, keys_sorted, order_in,
                                                   order, n, 0, key_bits, stream));
}

void cell_starts(const int* keys_sorted, int n, int n_cells, int* start, cudaStream_t stream) {
  cell_starts_kernel<<<blocks_for(std::int64_t(n) + 1, kThreads), kThreads, 0, stream>>>(
      keys_sorted, n, n_cells, start);
  NUFFTMP_CUDA_CHECK_LAUNCH("ewald cell_starts_kernel");
}

void gather_sorted(const Ion* ions, const int* order, int n, Ion* sorted, cudaStream_t stream) {
  if (n == 0) return;
  gather_kernel<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(ions, order, n, sorted);
  NUFFTMP_CUDA_CHECK_LAUNCH("ewald gather_kernel");
}

void real_space_sums(const Ion* sorted, const int* order, const int* start, int n, int n_owned,
                     const CellGrid& g, const PairParams& p, bool forces, double* out,
                     unsigned long long* first_bad, cudaStream_t stream) {
  if (n == 0 || n_owned == 0) return;
  const int blocks = blocks_for(n, kRealThreads);
  if (forces)
    real_space_kernel<true><<<blocks, kRealThreads, 0, stream>>>(sorted, order, start, n, n_owned,
                                                                 g, p, out, first_bad);
  else
    real_space_kernel<false><<<blocks, kRealThreads, 0, stream>>>(sorted, order, start, n,
                                                                  n_owned, g, p, out, first_bad);
  NUFFTMP_CUDA_CHECK_LAUNCH("ewald real_space_kernel");
}

}  // namespace nufftmp::ewald::detail
