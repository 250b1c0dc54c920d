#include <omp.h>

#include <algorithm>
#include <new>
#include <string>

#include "cpu/spread_interp.hpp"
#include "cpu/width_dispatch.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail::cpu {

namespace {

// Beyond this many threads a global lock on the add-back would serialize them; atomics on
// the box cells (not per point) are then cheaper.
constexpr int kMaxThreadsForLockedAdd = 4;

// Spreads the points of sp into box (interleaved re/im, nvec boxes of sp.cells() cells).
template <int D, int W, typename T>
void spread_box(const Subproblem& sp, const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,
                const std::complex<T>* c, int nvec, T* __restrict box) {
  const std::int64_t e0 = sp.extent[0], e1 = sp.extent[1], cells = sp.cells();
  const std::int64_t M = pts.M;
  std::fill(box, box + 2 * cells * nvec, T(0));
  alignas(64) T k[3][W];
  alignas(64) T kc[2 * W];
  for (std::int64_t j = sp.begin; j < sp.end; ++j) {
    std::int64_t off[3] = {0, 0, 0};
    for (int d = 0; d < D; ++d) {
      const T g = pts.g[d][j];
      const std::int64_t i0 = first_cell(g, W);
      ker.template eval<W>(static_cast<T>(i0) - g, k[d]);
      off[d] = i0 - sp.lo[d];
    }
    const std::int64_t src = pts.perm[j];
    for (int v = 0; v < nvec; ++v) {
      const std::complex<T> cv = c[v * M + src];
      const T cr = cv.real(), ci = cv.imag();
      for (int i = 0; i < W; ++i) {
        kc[2 * i] = k[0][i] * cr;
        kc[2 * i + 1] = k[0][i] * ci;
      }
      T* __restrict b = box + 2 * (v * cells + off[0]);
      if constexpr (D == 1) {
        for (int i = 0; i < 2 * W; ++i) b[i] += kc[i];
      } else if constexpr (D == 2) {
        for (int dy = 0; dy < W; ++dy) {
          T* __restrict row = b + 2 * (off[1] + dy) * e0;
          const T ky = k[1][dy];
          for (int i = 0; i < 2 * W; ++i) row[i] += ky * kc[i];
        }
      } else {
        for (int dz = 0; dz < W; ++dz)
          for (int dy = 0; dy < W; ++dy) {
            T* __restrict row = b + 2 * ((off[2] + dz) * e1 + off[1] + dy) * e0;
            const T kyz = k[1][dy] * k[2][dz];
            for (int i = 0; i < 2 * W; ++i) row[i] += kyz * kc[i];
          }
      }
    }
  }
}

// Adds the nvec boxes of sp into the grids, wrapping periodically; x runs are cut where they
// wrap so that the inner loop stays contiguous.
template <typename T>
void add_box(const Subproblem& sp, const T* box, int nvec, const GridShape<T>& shape, T* grid,
             bool atomic) {
  const auto& nf = shape.nf;
  const std::int64_t total = shape.cells();
  for (int v = 0; v < nvec; ++v)
    for (std::int64_t z = 0; z < sp.extent[2]; ++z) {
      const std::int64_t gz = wrap_index(sp.lo[2] + z, nf[2]);
      for (std::int64_t y = 0; y < sp.extent[1]; ++y) {
        const std::int64_t gy = wrap_index(sp.lo[1] + y, nf[1]);
        const T* src = box + 2 * (((v * sp.extent[2] + z) * sp.extent[1] + y) * sp.extent[0]);
        T* dst = grid + 2 * (v * total + (gz * nf[1] + gy) * nf[0]);
        for (std::int64_t l = 0; l < sp.extent[0];) {
          const std::int64_t gx = wrap_index(sp.lo[0] + l, nf[0]);
          const std::int64_t run = std::min(sp.extent[0] - l, nf[0] - gx);
          const T* s = src + 2 * l;
          T* d = dst + 2 * gx;
          if (atomic) {
            for (std::int64_t i = 0; i < 2 * run; ++i) {
#pragma omp atomic
              d[i] += s[i];
            }
          } else {
            for (std::int64_t i = 0; i < 2 * run; ++i) d[i] += s[i];
          }
          l += run;
        }
      }
    }
}

template <int W, typename T>
void spread_all(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,
                const GridShape<T>& shape, const std::complex<T>* c, int nvec, T* grid,
                int nthreads, std::vector<std::vector<T>>& scratch) {
  const auto nsub = static_cast<std::int64_t>(pts.subproblems.size());
  const bool atomic = nthreads > kMaxThreadsForLockedAdd;
#pragma omp parallel num_threads(nthreads)
  {
    std::vector<T>& box = scratch[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t s = 0; s < nsub; ++s) {
      const Subproblem& sp = pts.subproblems[s];
      switch (shape.dim) {
        case 1: spread_box<1, W>(sp, pts, ker, c, nvec, box.data()); break;
        case 2: spread_box<2, W>(sp, pts, ker, c, nvec, box.data()); break;
        default: spread_box<3, W>(sp, pts, ker, c, nvec, box.data()); break;
      }
      if (atomic) {
        add_box(sp, box.data(), nvec, shape, grid, true);
      } else {
#pragma omp critical(nufftmp_cpu_add_box)
        add_box(sp, box.data(), nvec, shape, grid, false);
      }
    }
  }
}

}  // namespace

template <typename T>
void spread(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker, const GridShape<T>& shape,
            const std::complex<T>* c, int nvec, std::complex<T>* grid, int nthreads,
            std::vector<std::vector<T>>& scratch) {
  const std::int64_t total = shape.cells() * nvec;
  T* g = reinterpret_cast<T*>(grid);
#pragma omp parallel for num_threads(nthreads) schedule(static)
  for (std::int64_t i = 0; i < 2 * total; ++i) g[i] = T(0);
  if (pts.M == 0) return;
  // Boxes are sized once per set of points (grown, never shrunk) outside the parallel region,
  // so that a failed allocation is reported here and not inside a thread.
  const std::int64_t need = 2 * pts.max_subproblem_cells * nvec;
  try {
    if (static_cast<int>(scratch.size()) < nthreads) scratch.resize(nthreads);
    for (auto& s : scratch)
      if (static_cast<std::int64_t>(s.size()) < need) s.resize(static_cast<size_t>(need));
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory,
                "spread: cannot allocate " + std::to_string(nthreads) + " subproblem boxes of " +
                    std::to_string(need * sizeof(T) / 1e6) + " MB");
  }
  with_width(ker.w, [&](auto width) {
    spread_all<decltype(width)::value>(pts, ker, shape, c, nvec, g, nthreads, scratch);
  });
}

template void spread<float>(const SortedPoints<float>&, const KernelEvaluator<float>&,
                            const GridShape<float>&, const std::complex<float>*, int,
                            std::complex<float>*, int, std::vector<std::vector<float>>&);
template void spread<double>(const SortedPoints<double>&, const KernelEvaluator<double>&,
                             const GridShape<double>&, const std::complex<double>*, int,
                             std::complex<double>*, int, std::vector<std::vector<double>>&);

}  // namespace nufftmp::detail::cpu
