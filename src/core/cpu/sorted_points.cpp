#include "cpu/sorted_points.hpp"

#include <omp.h>

#include <algorithm>
#include <new>
#include <string>

#include "cpu/kernel_eval.hpp"
#include "cpu/threads.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail::cpu {

namespace {

// Bin shapes in fine cells, as powers of two (log2 here): long in x (the contiguous axis) so
// that a subproblem's box is a few cache lines wide; small in y/z so that consecutive bins stay
// close in space.
constexpr int kLogBinSize[3][3] = {{8, 0, 0}, {5, 3, 0}, {4, 2, 2}};
// Points per subproblem: enough to amortize zeroing and adding back its box, few enough to
// keep the box in cache and give every thread several subproblems.
constexpr std::int64_t kMaxSubproblemPoints = 10000;

// fold_rescale (common/grid.hpp) without its branches, which mispredict half the time on
// random points and made folding the largest cost of set_points. In double, so that a float x
// scaled to a large grid keeps its cell fraction. t = x / 2pi lies in [-1.5, 1.5): removing its
// integer part is exact, and only x < 0 rounds (adding 1 to t in (-1, 0), an error of at most
// 2pi 2^-54 in x). (Adding 2 before the cast, t in [0.5, 3.5), rounded every point to
// 2pi 2^-52: a 2e-13 error floor for 1D double with 1000 modes, where FINUFFT reaches 7e-14.)
template <typename T>
inline double fold_to_grid(T x, std::int64_t nf) {
  constexpr double inv_two_pi = 0.159154943091895335768883763372514;
  double t = static_cast<double>(x) * inv_two_pi;
  t -= static_cast<double>(static_cast<std::int64_t>(t));  // (-1, 1), exact
  t += t < 0.0 ? 1.0 : 0.0;
  const double g = t * static_cast<double>(nf);
  return g < static_cast<double>(nf) ? g : 0.0;  // rounding landed on nf: the same point as 0
}

}  // namespace

template <typename T>
void sort_points(int dim, std::int64_t M, const T* x, const T* y, const T* z,
                 const std::array<std::int64_t, 3>& nf, int w, bool sort, int nthreads,
                 SortedPoints<T>& out) {
  const T* in[3] = {x, y, z};
  out.M = 0;
  out.subproblems.clear();
  out.max_subproblem_cells = 0;
  out.max_subproblem_points = 0;
  try {
    // Reuse the arrays of the previous points when they are large enough (no page faults on
    // re-set), but give back memory when the new set is much smaller.
    auto fit = [](auto& v, std::int64_t n) {
      if (v.capacity() > 2 * static_cast<size_t>(n) + 1024) {
        v.clear();
        v.shrink_to_fit();
      }
      v.resize(static_cast<size_t>(n));
    };
    for (int d = 0; d < 3; ++d) fit(out.g[d], d < dim ? M : 0);
    fit(out.perm, M);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory,
                "set_points: cannot allocate sorted copies of " + std::to_string(M) + " points (" +
                    std::to_string(M * (dim * sizeof(double) + sizeof(std::int64_t)) / 1e9) + " GB)");
  }
  if (M == 0) return;
  // The subproblems are cut for the engine's threads; the sort itself may use fewer.
  const int sort_threads = threads_for(20.0 * M, nthreads);

  const int* lbs = kLogBinSize[dim - 1];
  std::int64_t nbins[3] = {1, 1, 1};
  for (int d = 0; d < dim; ++d) nbins[d] = ((nf[d] - 1) >> lbs[d]) + 1;
  const std::int64_t total_bins = nbins[0] * nbins[1] * nbins[2];

  if (!sort) {
#pragma omp parallel for num_threads(sort_threads) schedule(static)
    for (std::int64_t j = 0; j < M; ++j) {
      out.perm[j] = j;
      for (int d = 0; d < dim; ++d) out.g[d][j] = fold_to_grid(in[d][j], nf[d]);
    }
  } else {
    std::vector<std::int64_t> bin, counts;
    try {
      bin.resize(static_cast<size_t>(M));
      counts.assign(static_cast<size_t>(total_bins * sort_threads), 0);
    } catch (const std::bad_alloc&) {
      throw Error(ErrorCode::OutOfMemory, "set_points: cannot allocate the bin sort's " +
                                              std::to_string(total_bins) + " bins x " +
                                              std::to_string(sort_threads) + " threads");
    }
    // One parallel region: the same static split of the points in both passes, so each
    // thread's private counters become its private write offsets (a stable sort, no atomics,
    // however the points cluster).
#pragma omp parallel num_threads(sort_threads)
    {
      const int nt = omp_get_num_threads();
      const int t = omp_get_thread_num();
      const std::int64_t j0 = M * t / nt, j1 = M * (t + 1) / nt;
      std::int64_t* cnt = counts.data() + t * total_bins;
      for (std::int64_t j = j0; j < j1; ++j) {
        std::int64_t b = 0;
        for (int d = dim - 1; d >= 0; --d) {
          const double g = fold_to_grid(in[d][j], nf[d]);
          const std::int64_t bd = std::min(static_cast<std::int64_t>(g) >> lbs[d], nbins[d] - 1);
          b = b * nbins[d] + bd;
        }
        bin[j] = b;
        ++cnt[b];
      }
#pragma omp barrier
#pragma omp single
      {
        std::int64_t offset = 0;
        for (std::int64_t b = 0; b < total_bins; ++b)
          for (int tt = 0; tt < nt; ++tt) {
            const std::int64_t c = counts[tt * total_bins + b];
            counts[tt * total_bins + b] = offset;
            offset += c;
          }
      }  // implicit barrier
      for (std::int64_t j = j0; j < j1; ++j) out.perm[cnt[bin[j]]++] = j;
#pragma omp barrier
      // The coordinates follow the permutation in a separate pass: sequential writes and
      // independent random reads, where scattering them with perm (one write stream per bin
      // and axis) took 1.4x as long.
      // Prefetching a few dozen points ahead keeps more of the random reads in flight than
      // the out-of-order window alone.
      constexpr std::int64_t kAhead = 32;
#pragma omp for schedule(static)
      for (std::int64_t pos = 0; pos < M; ++pos) {
        if (pos + kAhead < M) {
          const std::int64_t ja = out.perm[pos + kAhead];
          for (int d = 0; d < dim; ++d) __builtin_prefetch(in[d] + ja);
        }
        const std::int64_t j = out.perm[pos];
        for (int d = 0; d < dim; ++d) out.g[d][pos] = fold_to_grid(in[d][j], nf[d]);
      }
    }
  }

  // Subproblems: runs of consecutive sorted points, each with its bounding box of cells.
  // Unsorted points spread over the whole grid whatever the run length, so each box is about
  // the grid: then one run per thread, not one per kMaxSubproblemPoints.
  const std::int64_t per = std::max<std::int64_t>(
      1, sort ? std::min<std::int64_t>(kMaxSubproblemPoints, (M + nthreads - 1) / nthreads)
              : (M + nthreads - 1) / nthreads);
  const std::int64_t nsub = (M + per - 1) / per;
  try {
    out.subproblems.resize(static_cast<size_t>(nsub));
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory,
                "set_points: cannot allocate " + std::to_string(nsub) + " subproblems");
  }
  std::int64_t max_cells = 0;
#pragma omp parallel for num_threads(sort_threads) schedule(static) reduction(max : max_cells)
  for (std::int64_t s = 0; s < nsub; ++s) {
    Subproblem& sp = out.subproblems[s];
    sp.begin = s * per;
    sp.end = std::min(M, sp.begin + per);
    for (int d = 0; d < 3; ++d) {
      if (d >= dim) {
        sp.lo[d] = 0;
        sp.extent[d] = 1;
        continue;
      }
      // first_cell is nondecreasing in g: the box follows from the extreme coordinates
      // (a min/max loop that vectorizes).
      const double* g = out.g[d].data();
      double gmin = g[sp.begin], gmax = gmin;
      for (std::int64_t j = sp.begin + 1; j < sp.end; ++j) {
        gmin = g[j] < gmin ? g[j] : gmin;
        gmax = g[j] > gmax ? g[j] : gmax;
      }
      const std::int64_t lo = generic::first_cell(gmin, w), hi = generic::first_cell(gmax, w);
      sp.lo[d] = lo;
      sp.extent[d] = hi - lo + w;
    }
    max_cells = std::max(max_cells, sp.cells());
  }
  out.max_subproblem_cells = max_cells;
  out.max_subproblem_points = per;
  out.M = M;  // only now: a failure above leaves no half-sorted points behind
}

template void sort_points<float>(int, std::int64_t, const float*, const float*, const float*,
                                 const std::array<std::int64_t, 3>&, int, bool, int,
                                 SortedPoints<float>&);
template void sort_points<double>(int, std::int64_t, const double*, const double*,
                                  const double*, const std::array<std::int64_t, 3>&, int, bool,
                                  int, SortedPoints<double>&);

}  // namespace nufftmp::detail::cpu
