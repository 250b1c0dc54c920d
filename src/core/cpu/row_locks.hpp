// Locks for adding subproblem boxes into a shared fine grid from many threads
// (spread_impl.hpp): one OpenMP lock per (grid row, run of kChunk cells), hashed into a fixed,
// process-wide table. A box's rows are added one lock at a time (no thread holds two, so no
// order is needed), with plain vectorised adds inside.
//
// Why not atomics: past a few threads the add-back used `omp atomic` on every real of every
// box cell, a compare-and-swap loop per float on x86. On the GPU machine's 16-core Xeon
// (docs/performance.md section 15) 3D float type 1 ran 3.4x faster on 16 threads than on one
// (FINUFFT 6.2x) while type 2, which adds nothing back, ran 10.7x faster. A global critical
// section (what up to kMaxThreadsForLockedAdd threads use) would serialise 16.
#pragma once

#include <omp.h>

#include <cstdint>

namespace nufftmp::detail::cpu {

class RowLocks {
 public:
  static constexpr int kLocks = 4096;
  static constexpr std::int64_t kChunk = 1024;  // cells of a row under one lock

  RowLocks() {
    for (auto& l : locks_) omp_init_lock(&l);
  }
  ~RowLocks() {
    for (auto& l : locks_) omp_destroy_lock(&l);
  }
  RowLocks(const RowLocks&) = delete;
  RowLocks& operator=(const RowLocks&) = delete;

  // The lock of cells [chunk kChunk, (chunk + 1) kChunk) of row `row` (rows of different
  // vectors are different rows). Neighbouring rows get neighbouring locks.
  omp_lock_t* of(std::int64_t row, std::int64_t chunk) {
    const auto h = static_cast<std::uint64_t>(row) * 7u + static_cast<std::uint64_t>(chunk) * 131u;
    return &locks_[h % kLocks];
  }

 private:
  omp_lock_t locks_[kLocks];
};

// The process's table (made at first use; several plans share it: a shared lock only adds
// waiting, never a wrong sum).
inline RowLocks& row_locks() {
  static RowLocks locks;
  return locks;
}

}  // namespace nufftmp::detail::cpu
