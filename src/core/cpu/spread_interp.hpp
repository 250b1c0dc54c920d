// The two halves of the CPU NUFFT that touch the nonuniform points: spreading strengths onto the
// fine grid (type 1) and interpolating the fine grid at the points (type 2). Both run over the
// bin-sorted points of SortedPoints; c is in the user's order (c[v * M + j], v < nvec), the
// fine grids are nvec contiguous arrays of prod(nf) cells.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <vector>

#include "cpu/kernel_eval.hpp"
#include "cpu/sorted_points.hpp"

namespace nufftmp::detail::cpu {

template <typename T>
struct GridShape {
  int dim = 1;
  std::array<std::int64_t, 3> nf{1, 1, 1};
  std::int64_t cells() const { return nf[0] * nf[1] * nf[2]; }
};

// Zeroes the nvec grids and adds every point's kernel-weighted strength into them. Threads
// take whole subproblems, spread into a private box (scratch holds one box per thread and is
// grown as needed) and add the box back into the grid, periodically wrapped, without races.
template <typename T>
void spread(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker, const GridShape<T>& shape,
            const std::complex<T>* c, int nvec, std::complex<T>* grid, int nthreads,
            std::vector<std::vector<T>>& scratch);

// c[v * M + j] = sum over the w^d cells near point j of kernel * grid_v, for v < nvec.
template <typename T>
void interp(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker, const GridShape<T>& shape,
            const std::complex<T>* grid, int nvec, std::complex<T>* c, int nthreads);

// i mod n in [0, n) for any sign of i.
inline std::int64_t wrap_index(std::int64_t i, std::int64_t n) {
  const std::int64_t r = i % n;
  return r < 0 ? r + n : r;
}

}  // namespace nufftmp::detail::cpu
