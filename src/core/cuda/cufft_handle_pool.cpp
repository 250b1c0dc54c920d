#include "cuda/cufft_handle_pool.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <string>

#include "common/idle_cache.hpp"

namespace nufftmp::detail {

namespace {

// The driver's cuCtxGetId through the runtime (no link to libcuda: the library loads on
// machines without a driver, where the CPU engine runs).
using CtxGetId = CUresult (*)(CUcontext, unsigned long long*);
CtxGetId ctx_get_id() {
  static const CtxGetId fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuCtxGetId", &p, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      p = nullptr;
    }
    return reinterpret_cast<CtxGetId>(p);
  }();
  return fn;
}

std::optional<unsigned long long> current_context_id() {
  const CtxGetId fn = ctx_get_id();
  unsigned long long id = 0;
  if (fn == nullptr || fn(nullptr, &id) != CUDA_SUCCESS) return std::nullopt;
  return id;
}

bool pool_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("NUFFTMP_CUDA_FFT_POOL");
    return !(v && std::string(v) == "0");
  }();
  return on;
}

// Never destroyed: handles left at exit go with the process (cuFFT and the CUDA runtime may
// be torn down before a static destructor would run).
IdleCache<CufftPoolKey, PooledCufft>& pool() {
  static auto* p = new IdleCache<CufftPoolKey, PooledCufft>(kCufftPoolSize);
  return *p;
}

void destroy(const CufftPoolKey& key, const PooledCufft& h) noexcept {
  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess) return;
  if (prev != key.device && cudaSetDevice(key.device) != cudaSuccess) return;
  // A handle of a context that is gone (cudaDeviceReset) is left alone.
  const auto id = current_context_id();
  if (id && *id == key.context) cufftDestroy(h.handle);
  if (prev != key.device) cudaSetDevice(prev);
}

}  // namespace

bool CufftPoolKey::operator==(const CufftPoolKey& o) const {
  const CufftLayout &a = layout, &b = o.layout;
  return device == o.device && context == o.context && type == o.type && a.rank == b.rank &&
         a.n[0] == b.n[0] && a.n[1] == b.n[1] && a.n[2] == b.n[2] && a.stride == b.stride &&
         a.dist == b.dist && a.batch == b.batch;
}

std::optional<CufftPoolKey> cufft_pool_key(int device, cufftType type, const CufftLayout& layout) {
  if (!pool_enabled()) return std::nullopt;
  const auto id = current_context_id();
  if (!id) return std::nullopt;
  CufftPoolKey k;
  k.device = device;
  k.context = *id;
  k.type = type;
  k.layout = layout;
  return k;
}

std::optional<PooledCufft> take_cufft_handle(const CufftPoolKey& key) { return pool().take(key); }

void give_cufft_handle(const CufftPoolKey& key, PooledCufft h) noexcept {
  try {
    if (auto old = pool().give(key, h)) destroy(old->first, old->second);
  } catch (...) {  // no room to keep it
    destroy(key, h);
  }
}

std::size_t idle_cufft_handles() noexcept { return pool().size(); }

}  // namespace nufftmp::detail
