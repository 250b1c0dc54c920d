// How much device memory the library's memory pool may keep across synchronisations (its CUDA
// release threshold). Pure host logic, no CUDA: unit-tested on any machine.
//
// Why a threshold at all: CUDA's default pool has threshold 0, so every buffer freed before a
// synchronisation goes back to the driver, and the next plan (or set_points) maps it again: on
// an H200 that re-mapping was most of set_points (PERFORMANCE.md). Keeping freed memory makes
// the next allocation of similar size a pointer hand-out. The pool keeps at most `threshold`
// bytes reserved (in use plus cached) across a synchronisation; above it, cached memory is
// given back. The library's allocator (device_pool.hpp) also gives all cached memory back and
// retries before it reports an out-of-memory error, so the cache never makes one of our own
// allocations fail; allocators outside the library (cudaMalloc in the caller's code) see the
// cached memory as used until then.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace nufftmp::detail {

// The default: an eighth of the device's memory (17.6 GB on an H200). Enough for the working
// set of the benchmark cases many times over; small enough that a few processes sharing a GPU
// (several ranks per device) cannot starve each other with memory cached for plans long gone:
// one process's trim-and-retry frees only its own pool.
inline std::uint64_t default_pool_threshold(std::size_t total_bytes) {
  return static_cast<std::uint64_t>(total_bytes) / 8;
}

// NUFFTMP_CUDA_POOL_RETAIN overrides the default: "<n>" bytes, "<n>K", "<n>M", "<n>G" (binary
// units), or "<p>%" of the device's memory (0 <= p <= 100). "0" gives every freed buffer back at
// the next synchronisation (CUDA's default behaviour). An empty, unparsable or out-of-range value
// keeps the default. Returns the threshold in bytes.
inline std::uint64_t pool_release_threshold(std::size_t total_bytes, const char* env_value) {
  const std::uint64_t fallback = default_pool_threshold(total_bytes);
  if (env_value == nullptr || *env_value == '\0') return fallback;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(env_value, &end);
  if (end == env_value || errno == ERANGE || !(v >= 0)) return fallback;
  const std::string unit(end);
  double bytes = 0;
  if (unit.empty()) bytes = v;
  else if (unit == "K" || unit == "k") bytes = v * 1024.0;
  else if (unit == "M" || unit == "m") bytes = v * 1024.0 * 1024.0;
  else if (unit == "G" || unit == "g") bytes = v * 1024.0 * 1024.0 * 1024.0;
  else if (unit == "%") {
    if (v > 100) return fallback;
    bytes = static_cast<double>(total_bytes) * v / 100.0;
  } else {
    return fallback;
  }
  if (bytes >= 1.8e19) return UINT64_MAX;  // "keep everything"
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace nufftmp::detail
