// Run-time choice of the instruction-set variant, and the work that does not depend on it
// (zeroing the grids, sizing the per-thread boxes).
#include "cpu/spread_interp.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <string>

#include "cpu/isa.hpp"
#include "cpu/spread_interp_isa.hpp"
#include "cpu/threads.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail::cpu {

namespace {

// Grows scratch to nthreads buffers of at least need values (never shrinks: reused by every
// execute); reports a failed allocation as OutOfMemory naming the size.
template <typename T>
void reserve_scratch(std::vector<std::vector<T>>& scratch, int nthreads, std::int64_t need,
                     const char* what) {
  try {
    if (static_cast<int>(scratch.size()) < nthreads) scratch.resize(nthreads);
    for (auto& s : scratch)
      if (static_cast<std::int64_t>(s.size()) < need) s.resize(static_cast<size_t>(need));
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, std::string(what) + ": cannot allocate " +
                                            std::to_string(nthreads) + " buffers of " +
                                            std::to_string(need * sizeof(T) / 1e6) + " MB");
  }
}

// Multiply-adds of spreading or interpolating M points.
double point_work(std::int64_t M, int w, int dim, int nvec) {
  return static_cast<double>(M) * std::pow(static_cast<double>(w), dim) * nvec;
}

}  // namespace

template <typename T>
void spread(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker, const GridShape<T>& shape,
            const std::complex<T>* c, int nvec, std::complex<T>* grid, int nthreads,
            std::vector<std::vector<T>>& scratch) {
  const std::int64_t nreal = 2 * shape.cells() * nvec;
  T* g = reinterpret_cast<T*>(grid);
#pragma omp parallel for num_threads(threads_for(nreal, nthreads)) schedule(static)
  for (std::int64_t i = 0; i < nreal; ++i) g[i] = T(0);
  if (pts.M == 0) return;
  nthreads = threads_for(point_work(pts.M, ker.w, shape.dim, nvec), nthreads);
  // Buffers are sized here, outside the parallel region, so that a failed allocation is
  // reported and not thrown inside a thread: one box and one strength gather per thread.
  // The boxes start on a 64-byte boundary: up to 64 bytes more per buffer.
  const std::int64_t box = box_reals(pts);
  reserve_scratch(scratch, nthreads,
                  (box + 2 * pts.max_subproblem_points) * nvec + 64 / sizeof(T),
                  "spread (subproblem boxes)");
  NUFFTMP_CPU_DISPATCH(spread_boxes, pts, ker, shape, c, nvec, g, box, nthreads, scratch);
}

template <typename T>
void interp(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker, const GridShape<T>& shape,
            const std::complex<T>* grid, int nvec, std::complex<T>* c, int nthreads,
            std::vector<std::vector<T>>& scratch) {
  if (pts.M == 0) return;
  nthreads = threads_for(point_work(pts.M, ker.w, shape.dim, nvec), nthreads);
  reserve_scratch(scratch, nthreads, 2 * kInterpChunk * nvec, "interp (output buffers)");
  const T* g = reinterpret_cast<const T*>(grid);
  NUFFTMP_CPU_DISPATCH(interp_points, pts, ker, shape, g, nvec, c, nthreads, scratch);
}

template <typename T>
void fill_x_ghosts(const GridShape<T>& shape, std::complex<T>* grid, int nvec, int nthreads) {
  const std::int64_t rows = shape.nf[1] * shape.nf[2] * nvec, n0 = shape.nf[0], p = shape.pad;
  if (p == 0) return;
#pragma omp parallel for num_threads(threads_for(rows * p, nthreads)) schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    std::complex<T>* x0 = grid + r * shape.row + p;  // cell x = 0 of this row
    for (std::int64_t q = 1; q <= p; ++q) {
      // x = -q is x = n0 - q; x = n0 - 1 + q is x = q - 1 (periodic; p <= n0 as nf >= 2w).
      x0[-q] = x0[n0 - q];
      x0[n0 - 1 + q] = x0[q - 1];
    }
  }
}

template <typename T>
void load_grid(const GridShape<T>& shape, const std::complex<T>* f, std::complex<T>* grid,
               int nvec, int nthreads) {
  const std::int64_t rows = shape.nf[1] * shape.nf[2] * nvec, n0 = shape.nf[0];
#pragma omp parallel for num_threads(threads_for(rows * n0, nthreads)) schedule(static)
  for (std::int64_t r = 0; r < rows; ++r)
    std::copy(f + r * n0, f + (r + 1) * n0, grid + r * shape.row + shape.pad);
  fill_x_ghosts(shape, grid, nvec, nthreads);
}

template void load_grid<float>(const GridShape<float>&, const std::complex<float>*,
                               std::complex<float>*, int, int);
template void load_grid<double>(const GridShape<double>&, const std::complex<double>*,
                                std::complex<double>*, int, int);
template void fill_x_ghosts<float>(const GridShape<float>&, std::complex<float>*, int, int);
template void fill_x_ghosts<double>(const GridShape<double>&, std::complex<double>*, int, int);
template void spread<float>(const SortedPoints<float>&, const KernelEvaluator<float>&,
                            const GridShape<float>&, const std::complex<float>*, int,
                            std::complex<float>*, int, std::vector<std::vector<float>>&);
template void spread<double>(const SortedPoints<double>&, const KernelEvaluator<double>&,
                             const GridShape<double>&, const std::complex<double>*, int,
                             std::complex<double>*, int, std::vector<std::vector<double>>&);
template void interp<float>(const SortedPoints<float>&, const KernelEvaluator<float>&,
                            const GridShape<float>&, const std::complex<float>*, int,
                            std::complex<float>*, int, std::vector<std::vector<float>>&);
template void interp<double>(const SortedPoints<double>&, const KernelEvaluator<double>&,
                             const GridShape<double>&, const std::complex<double>*, int,
                             std::complex<double>*, int, std::vector<std::vector<double>>&);

}  // namespace nufftmp::detail::cpu
