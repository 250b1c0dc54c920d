// The library's device memory: one CUDA memory pool per device, created on first use, with a
// release threshold (pool_policy.hpp) so that freed buffers stay in the pool across
// synchronisations instead of going back to the driver. Every DeviceBuffer allocates here,
// in stream order (cudaMallocFromPoolAsync / cudaFreeAsync).
//
// Out of memory: the allocator waits for the device (so buffers freed in stream order become
// reusable), gives the pool's cached memory back to the driver (cudaMemPoolTrimTo), and tries
// once more; only then does it throw Error(OutOfMemory) naming the buffer, its size and the
// free memory. Devices without memory-pool support fall back to cudaMalloc/cudaFree.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace nufftmp::detail {

// `bytes` > 0 on `device` (must be current), ordered on `stream`. `what` names the buffer in
// the out-of-memory message.
void* pool_allocate(std::size_t bytes, int device, cudaStream_t stream, const char* what);
// Frees p (from pool_allocate on `device`) in stream order; never throws.
void pool_free(void* p, int device, cudaStream_t stream) noexcept;

// Allocations pool_allocate has made in this process (a test hook: a second set_points on the
// same plan with no more points must not allocate).
std::uint64_t pool_allocation_count() noexcept;

}  // namespace nufftmp::detail
