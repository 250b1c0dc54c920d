// cuFFT plans outlive the nufftmp plans that made them: when a plan ends, its cuFFT handles
// (those with an external work area: they hold no work memory) wait here for the next plan of
// the same layout on the same device and context, so re-planning a shape - a fresh plan per
// generation or per call, as cuFINUFFT users do - does not pay cufftMakePlanMany again (H200:
// 0.3-1.4 ms of a steady plan's ~1.5 ms in 2D, docs/performance.md). Bounded (kCufftPoolSize
// handles, least recently returned destroyed first); NUFFTMP_CUDA_FFT_POOL=0 turns it off
// (A/B runs, tests). Keyed by the CUDA context's unique id, so a handle made before a
// cudaDeviceReset is never handed to a plan after it.
#pragma once

#include <cufft.h>

#include <cstddef>
#include <optional>

#include "cuda/cufft_layout.hpp"

namespace nufftmp::detail {

constexpr std::size_t kCufftPoolSize = 16;

struct CufftPoolKey {
  int device = 0;
  unsigned long long context = 0;  // cuCtxGetId of the device's current context
  cufftType type = CUFFT_C2C;
  CufftLayout layout;
  bool operator==(const CufftPoolKey& o) const;
};

struct PooledCufft {
  cufftHandle handle = 0;
  std::size_t work_bytes = 0;
};

// The key for `layout` on `device` (which must be current), or none when the pool is off or
// the context's id cannot be read (the plan is then made and destroyed as before).
std::optional<CufftPoolKey> cufft_pool_key(int device, cufftType type, const CufftLayout& layout);
// An idle handle of that key, or none.
std::optional<PooledCufft> take_cufft_handle(const CufftPoolKey& key);
// Keeps h for a later plan; destroys what the pool evicts. Never throws.
void give_cufft_handle(const CufftPoolKey& key, PooledCufft h) noexcept;
// Idle handles held now (tests).
std::size_t idle_cufft_handles() noexcept;

}  // namespace nufftmp::detail
