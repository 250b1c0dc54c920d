// Interpolation (type 2), compiled once per instruction set: included only by isa_*.cpp, each
// of which defines NUFFTMP_CPU_ISA first (see kernel_eval.hpp for why).
#include <omp.h>

#include "cpu/point_reader.hpp"
#include "cpu/spread_interp_isa.hpp"
#include "cpu/vec.hpp"
#include "cpu/width_dispatch.hpp"

namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA {

namespace {

// sum over the W^(D-1) rows of ky[dy] kz[dz] * (row at base + off[dz * W + dy]: W complex
// cells), weighted by kx along x. The rows are summed as whole vectors (RowVec) into up to
// four accumulators per z-plane, taken in turn with dy, so that the multiply-adds form
// independent chains per vector instead of one of W^(D-1) steps, whose latency bound the
// old loop (as many as the registers hold: RowVec::accumulators).
template <int D, int W, typename T>
inline std::complex<T> interp_rows(const T* __restrict base, const std::int64_t* off,
                                   const T* kx, const T* ky, const T* kz) {
  using Row = RowVec<T, 2 * W>;
  constexpr int NA = Row::accumulators();
  Row acc;
  acc.zero();
  for (int dz = 0; dz < (D == 3 ? W : 1); ++dz) {
    Row a[NA];
    for (auto& x : a) x.zero();
    for (int dy = 0; dy < (D >= 2 ? W : 1); ++dy)
      a[dy % NA].fma_load(D >= 2 ? ky[dy] : T(1), base + off[dz * W + dy]);
    for (int i = 1; i < NA; ++i) a[0].add(a[i]);
    acc.fma(D == 3 ? kz[dz] : T(1), a[0]);
  }
  alignas(64) T s[2 * W];
  acc.store(s);
  T re = 0, im = 0;
  for (int i = 0; i < W; ++i) {
    re += kx[i] * s[2 * i];
    im += kx[i] * s[2 * i + 1];
  }
  return {re, im};
}

template <int D, int W, typename T>
void interp_range(std::int64_t j0, std::int64_t j1, const SortedPoints<T>& pts,
                  const KernelEvaluator<T>& ker, const GridShape<T>& shape, const T* grid,
                  int nvec, std::complex<T>* c, std::complex<T>* __restrict out) {
  constexpr int R = ipow(W, D - 1);  // x-rows a point touches
  const auto& nf = shape.nf;
  const std::int64_t total = shape.cells(), M = pts.M, n = j1 - j0;
  constexpr int G = kernel_group<D, W, T>();
  alignas(64) T k[G * D][KernelEvaluator<T>::padded_width(W)];
  std::int64_t i0g[G][3] = {};
  std::int64_t off[R];
  PointReader<T> points(pts);
  alignas(64) double gq[G * D];  // a group's coordinates decoded from the packed layout
  for (std::int64_t jg = j0; jg < j1; jg += G) {
    const int ng = static_cast<int>(j1 - jg < G ? j1 - jg : G);
    kernel_values_points<G, D, W>(ker, points.template read<D>(jg, ng, gq), ng, i0g, k);
    for (int q = 0; q < ng; ++q) {
      const std::int64_t j = jg + q;
      const std::int64_t* i0 = i0g[q];
      const auto* kq = k + q * D;
      // Row offsets (in T units, to the point's first cell in the row) and row weights. x
      // never wraps: the rows carry ghost cells (GridShape::pad).
      const std::int64_t x_start = 2 * (shape.pad + i0[0]);
      if constexpr (D == 1) {
        off[0] = x_start;
      } else {
        for (int dz = 0; dz < (D == 3 ? W : 1); ++dz) {
          const std::int64_t z = D == 3 ? wrap_near(i0[2] + dz, nf[2]) : 0;
          for (int dy = 0; dy < W; ++dy)
            off[dz * W + dy] =
                2 * (z * nf[1] + wrap_near(i0[1] + dy, nf[1])) * shape.row + x_start;
        }
      }
      for (int v = 0; v < nvec; ++v) {
        const std::complex<T> val = interp_rows<D, W>(grid + 2 * v * total, off, kq[0],
                                                      kq[D > 1 ? 1 : 0], kq[D - 1]);
        out[v * n + (j - j0)] = val;
      }
    }
  }
  // Scatter to the user's order in a tight loop (the stores' cache misses overlap).
  constexpr std::int64_t kAhead = 32;  // prefetch distance of the random writes
  pts.with_perm([&](auto perm) {  // a pointer, or the packed layout's StridedIndex
    for (int v = 0; v < nvec; ++v)
      for (std::int64_t j = j0; j < j1; ++j) {
        if (j + kAhead < j1) __builtin_prefetch(c + v * M + perm[j + kAhead], 1);
        c[v * M + perm[j]] = out[v * n + (j - j0)];
      }
  });
}

template <int W, typename T>
void interp_width(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,
                const GridShape<T>& shape, const T* grid, int nvec, std::complex<T>* c,
                int nthreads, std::vector<std::vector<T>>& scratch) {
  const std::int64_t M = pts.M;
  const std::int64_t nchunks = (M + kInterpChunk - 1) / kInterpChunk;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
  for (std::int64_t s = 0; s < nchunks; ++s) {
    auto* out = reinterpret_cast<std::complex<T>*>(scratch[omp_get_thread_num()].data());
    const std::int64_t j0 = s * kInterpChunk, j1 = (M < j0 + kInterpChunk ? M : j0 + kInterpChunk);
    switch (shape.dim) {
      case 1: interp_range<1, W>(j0, j1, pts, ker, shape, grid, nvec, c, out); break;
      case 2: interp_range<2, W>(j0, j1, pts, ker, shape, grid, nvec, c, out); break;
      default: interp_range<3, W>(j0, j1, pts, ker, shape, grid, nvec, c, out); break;
    }
  }
}

}  // namespace

template <typename T>
void interp_points(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,
                   const GridShape<T>& shape, const T* grid, int nvec, std::complex<T>* c,
                   int nthreads, std::vector<std::vector<T>>& scratch) {
  with_width(ker.w, [&](auto width) {
    interp_width<decltype(width)::value>(pts, ker, shape, grid, nvec, c, nthreads, scratch);
  });
}

template void interp_points<float>(const SortedPoints<float>&, const KernelEvaluator<float>&,
                                   const GridShape<float>&, const float*, int,
                                   std::complex<float>*, int,
                                   std::vector<std::vector<float>>&);
template void interp_points<double>(const SortedPoints<double>&, const KernelEvaluator<double>&,
                                    const GridShape<double>&, const double*, int,
                                    std::complex<double>*, int,
                                    std::vector<std::vector<double>>&);

}  // namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA
