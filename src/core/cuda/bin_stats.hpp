// What the sorted points' subproblem list says about how the points fill the bins (the input
// of set_points' method refinement, heuristics.hpp): bins that hold points, the fullest bin,
// the points in crowded bins. One small kernel over the list and one 24-byte copy back.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/device_views.hpp"
#include "cuda/heuristics.hpp"

namespace nufftmp::detail {

constexpr int kBinStatsWords = 3;  // device result: nonempty bins, max count, crowded points

// subs: the n subproblems of set_points (bin_sort.hpp), in bin order with a bin's subproblems
// consecutive and its first one starting at the bin's first sorted point. out: kBinStatsWords
// device words (zeroed here). Synchronises the stream (the copy back).
BinStats measure_bins(const Subproblem* subs, std::int64_t n, std::int64_t M, const BinView& bins,
                      std::int64_t crowded_from, unsigned long long* out, cudaStream_t stream);
// Loads the kernel (a plan that may refine loads it when it is made).
void load_bin_stats_kernel();

}  // namespace nufftmp::detail
