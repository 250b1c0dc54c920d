#include "cuda/device_pool.hpp"

#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "cuda/cuda_check.hpp"
#include "cuda/pool_policy.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

namespace {

constexpr int kMaxDevices = 64;

struct PoolSlot {
  std::once_flag once;
  cudaMemPool_t pool = nullptr;  // nullptr: no pool support (cudaMalloc/cudaFree)
};

std::array<PoolSlot, kMaxDevices>& slots() {
  static std::array<PoolSlot, kMaxDevices> s;  // never destroyed before the pools' users
  return s;
}

std::atomic<std::uint64_t> g_allocations{0};

// Created once per device, never destroyed: pools live as long as the process (destroying one
// at exit could race with the driver's own shutdown).
cudaMemPool_t pool_of(int device) {
  if (device < 0 || device >= kMaxDevices) return nullptr;
  PoolSlot& slot = slots()[static_cast<std::size_t>(device)];
  std::call_once(slot.once, [&] {
    int supported = 0;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) !=
            cudaSuccess ||
        !supported) {
      (void)cudaGetLastError();
      return;
    }
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
      (void)cudaGetLastError();
      return;
    }
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
      (void)cudaGetLastError();
      total_b = 0;
    }
    std::uint64_t threshold =
        pool_release_threshold(total_b, std::getenv("NUFFTMP_CUDA_POOL_RETAIN"));
    (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
    (void)cudaGetLastError();
    slot.pool = pool;
  });
  return slot.pool;
}

cudaError_t try_allocate(void** p, std::size_t bytes, cudaMemPool_t pool, cudaStream_t stream) {
  return pool ? cudaMallocFromPoolAsync(p, bytes, pool, stream) : cudaMalloc(p, bytes);
}

}  // namespace

void* pool_allocate(std::size_t bytes, int device, cudaStream_t stream, const char* what) {
  if (bytes == 0) return nullptr;
  cudaMemPool_t pool = pool_of(device);
  void* p = nullptr;
  cudaError_t st = try_allocate(&p, bytes, pool, stream);
  if (st == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    // Buffers freed in stream order become reusable once their stream reaches the free, and
    // cached memory may be in pieces too small for this request: wait, give it all back, retry.
    (void)cudaDeviceSynchronize();
    if (pool) (void)cudaMemPoolTrimTo(pool, 0);
    (void)cudaGetLastError();
    st = try_allocate(&p, bytes, pool, stream);
  }
  if (st == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    (void)cudaGetLastError();
    throw Error(ErrorCode::OutOfMemory,
                std::string("device ") + std::to_string(device) + " cannot hold " + what + ": " +
                    format_bytes(bytes) + " requested, " + format_bytes(free_b) + " free of " +
                    format_bytes(total_b));
  }
  if (st != cudaSuccess)
    throw_cuda_error(st, pool ? "cudaMallocFromPoolAsync" : "cudaMalloc", __FILE__, __LINE__);
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return p;
}

void pool_free(void* p, int device, cudaStream_t stream) noexcept {
  if (p == nullptr) return;
  if (pool_of(device) != nullptr) cudaFreeAsync(p, stream);
  else cudaFree(p);
}

std::uint64_t pool_allocation_count() noexcept {
  return g_allocations.load(std::memory_order_relaxed);
}

}  // namespace nufftmp::detail
