// Spreading (type 1), compiled once per instruction set: included only by isa_*.cpp, each
// of which defines NUFFTMP_CPU_ISA first (see kernel_eval.hpp for why).
#include <omp.h>

#include "cpu/spread_interp_isa.hpp"
#include "cpu/width_dispatch.hpp"

namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA {

namespace {

// Beyond this many threads a global lock on the add-back would serialize them; atomics on
// the box cells (not per point) are then cheaper.
constexpr int kMaxThreadsForLockedAdd = 4;

// Adds wr[r] * kc (W interleaved complex values) to each of R rows at base + roff[r]: one flat
// loop over the W^(D-1) rows, kc held in registers.
template <int R, int W, typename T>
inline void spread_rows(T* __restrict base, const std::int64_t* roff, const T* wr,
                        const T* __restrict kc) {
  for (int r = 0; r < R; ++r) {
    T* __restrict p = base + roff[r];
    const T w = wr[r];
    for (int i = 0; i < 2 * W; ++i) p[i] += w * kc[i];
  }
}

// Spreads the points of sp into box (interleaved re/im, nvec boxes of sp.cells() cells). cs
// receives the subproblem's strengths in sorted order first: c is in the user's order, and a
// tight gather loop keeps many cache misses in flight where the spreading loop would wait for
// each one (that alone was 40% of the time for uniform random points).
template <int D, int W, typename T>
void spread_box(const Subproblem& sp, const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,
                const std::complex<T>* c, int nvec, T* __restrict box, T* __restrict cs) {
  const std::int64_t e0 = sp.extent[0], e1 = sp.extent[1], cells = sp.cells();
  const std::int64_t M = pts.M, n = sp.end - sp.begin;
  const std::int64_t* perm = pts.perm.data() + sp.begin;
  constexpr std::int64_t kAhead = 32;  // prefetch distance of the random reads
  for (int v = 0; v < nvec; ++v)
    for (std::int64_t j = 0; j < n; ++j) {
      if (j + kAhead < n) __builtin_prefetch(c + v * M + perm[j + kAhead]);
      const std::complex<T> cv = c[v * M + perm[j]];
      cs[2 * (v * n + j)] = cv.real();
      cs[2 * (v * n + j) + 1] = cv.imag();
    }
  for (std::int64_t i = 0; i < 2 * cells * nvec; ++i) box[i] = T(0);
  constexpr int R = ipow(W, D - 1);  // x-rows a point touches
  alignas(64) T k[3][W];
  alignas(64) T kc[2 * W];
  alignas(64) T wr[R];
  std::int64_t roff[R];  // row offsets within one box, in T units, relative to the point's row
  for (int dz = 0; dz < (D == 3 ? W : 1); ++dz)
    for (int dy = 0; dy < (D >= 2 ? W : 1); ++dy) roff[dz * W + dy] = 2 * (dz * e1 + dy) * e0;
  for (std::int64_t j = sp.begin; j < sp.end; ++j) {
    std::int64_t off[3] = {0, 0, 0};
    for (int d = 0; d < D; ++d) {
      const double g = pts.g[d][j];
      const std::int64_t i0 = first_cell(g, W);
      kernel_values<W>(ker, static_cast<T>(static_cast<double>(i0) - g), k[d]);
      off[d] = i0 - sp.lo[d];
    }
    if constexpr (D == 1) {
      wr[0] = T(1);
    } else {
      for (int dz = 0; dz < (D == 3 ? W : 1); ++dz)
        for (int dy = 0; dy < W; ++dy) wr[dz * W + dy] = k[1][dy] * (D == 3 ? k[2][dz] : T(1));
    }
    const std::int64_t start = 2 * ((off[2] * e1 + off[1]) * e0 + off[0]);
    for (int v = 0; v < nvec; ++v) {
      const T cr = cs[2 * (v * n + j - sp.begin)], ci = cs[2 * (v * n + j - sp.begin) + 1];
      for (int i = 0; i < W; ++i) {
        kc[2 * i] = k[0][i] * cr;
        kc[2 * i + 1] = k[0][i] * ci;
      }
      spread_rows<R, W>(box + 2 * v * cells + start, roff, wr, kc);
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
        T* dst = grid + 2 * (v * total + (gz * nf[1] + gy) * shape.row + shape.pad);
        for (std::int64_t l = 0; l < sp.extent[0];) {
          const std::int64_t gx = wrap_index(sp.lo[0] + l, nf[0]);
          const std::int64_t run = (sp.extent[0] - l < nf[0] - gx ? sp.extent[0] - l : nf[0] - gx);
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
void spread_width(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,
                const GridShape<T>& shape, const std::complex<T>* c, int nvec, T* grid,
                int nthreads, std::vector<std::vector<T>>& scratch) {
  const auto nsub = static_cast<std::int64_t>(pts.subproblems.size());
  const bool atomic = nthreads > kMaxThreadsForLockedAdd;
#pragma omp parallel num_threads(nthreads)
  {
    T* box = scratch[omp_get_thread_num()].data();
    T* cs = box + 2 * pts.max_subproblem_cells * nvec;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t s = 0; s < nsub; ++s) {
      const Subproblem& sp = pts.subproblems[s];
      switch (shape.dim) {
        case 1: spread_box<1, W>(sp, pts, ker, c, nvec, box, cs); break;
        case 2: spread_box<2, W>(sp, pts, ker, c, nvec, box, cs); break;
        default: spread_box<3, W>(sp, pts, ker, c, nvec, box, cs); break;
      }
      if (atomic) {
        add_box(sp, box, nvec, shape, grid, true);
      } else {
#pragma omp critical(nufftmp_cpu_add_box)
        add_box(sp, box, nvec, shape, grid, false);
      }
    }
  }
}

}  // namespace

template <typename T>
void spread_boxes(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,
                  const GridShape<T>& shape, const std::complex<T>* c, int nvec, T* grid,
                  int nthreads, std::vector<std::vector<T>>& scratch) {
  with_width(ker.w, [&](auto width) {
    spread_width<decltype(width)::value>(pts, ker, shape, c, nvec, grid, nthreads, scratch);
  });
}

template void spread_boxes<float>(const SortedPoints<float>&, const KernelEvaluator<float>&,
                                  const GridShape<float>&, const std::complex<float>*, int,
                                  float*, int, std::vector<std::vector<float>>&);
template void spread_boxes<double>(const SortedPoints<double>&, const KernelEvaluator<double>&,
                                   const GridShape<double>&, const std::complex<double>*, int,
                                   double*, int, std::vector<std::vector<double>>&);

}  // namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA
