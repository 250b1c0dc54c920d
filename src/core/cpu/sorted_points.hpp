// Points as the CPU engine keeps them after set_points: folded into fine-grid units, bin-sorted
// (counting sort, OpenMP) with the permutation back to the user's order, and cut into
// subproblems (runs of consecutive sorted points) whose bounding boxes are known up front.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace nufftmp::detail::cpu {

struct Subproblem {
  std::int64_t begin = 0, end = 0;      // sorted point range
  std::array<std::int64_t, 3> lo{};     // first fine cell touched (may be < 0: wraps)
  std::array<std::int64_t, 3> extent{};  // cells covered per dim (box + kernel width)
  std::int64_t cells() const { return extent[0] * extent[1] * extent[2]; }
};

template <typename T>
struct SortedPoints {
  std::int64_t M = 0;
  // Coordinates in fine-grid units [0, nf), sorted order. Double for either precision: a float
  // holds 24 bits, so on a grid of 2^20 cells only 4 would be left for the position within a
  // cell (errors grew like nf * eps); the kernel argument i0 - g is formed in double, then cast.
  std::array<std::vector<double>, 3> g;
  std::vector<std::int64_t> perm;   // sorted position -> user index
  std::vector<Subproblem> subproblems;
  std::int64_t max_subproblem_cells = 0;
  std::int64_t max_subproblem_points = 0;

  std::size_t bytes() const {
    return (g[0].capacity() + g[1].capacity() + g[2].capacity()) * sizeof(double) +
           perm.capacity() * sizeof(std::int64_t) + subproblems.capacity() * sizeof(Subproblem);
  }
};

// Folds and rescales x/y/z (already checked), sorts them into bins (when sort is true; else
// keeps the user order; bin shapes and the subproblem size are constants of sorted_points.cpp)
// and builds the subproblems for kernel width w and nthreads threads. Throws
// Error(OutOfMemory) when the arrays cannot be allocated.
template <typename T>
void sort_points(int dim, std::int64_t M, const T* x, const T* y, const T* z,
                 const std::array<std::int64_t, 3>& nf, int w, bool sort, int nthreads,
                 SortedPoints<T>& out);

}  // namespace nufftmp::detail::cpu
