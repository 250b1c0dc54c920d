#include <algorithm>

#include "cpu/spread_interp.hpp"
#include "cpu/width_dispatch.hpp"

namespace nufftmp::detail::cpu {

namespace {

// Sorted points per scheduling chunk: neighbours in the sort share grid cache lines.
constexpr std::int64_t kInterpChunk = 4096;

template <int D, int W, typename T>
void interp_range(std::int64_t j0, std::int64_t j1, const SortedPoints<T>& pts,
                  const KernelEvaluator<T>& ker, const GridShape<T>& shape, const T* grid,
                  int nvec, std::complex<T>* c) {
  const auto& nf = shape.nf;
  const std::int64_t total = shape.cells(), M = pts.M;
  alignas(64) T k[3][W];
  alignas(64) T acc[2 * W];
  alignas(64) T tmp[2 * W];
  std::int64_t idx[3][W] = {};  // wrapped cell indices for y and z (and x when it wraps)
  for (std::int64_t j = j0; j < j1; ++j) {
    std::int64_t i0[3] = {0, 0, 0};
    for (int d = 0; d < D; ++d) {
      const T g = pts.g[d][j];
      i0[d] = first_cell(g, W);
      ker.template eval<W>(static_cast<T>(i0[d]) - g, k[d]);
    }
    const bool x_wraps = i0[0] < 0 || i0[0] + W > nf[0];
    if (x_wraps)
      for (int i = 0; i < W; ++i) idx[0][i] = wrap_index(i0[0] + i, nf[0]);
    for (int d = 1; d < D; ++d)
      for (int i = 0; i < W; ++i) idx[d][i] = wrap_index(i0[d] + i, nf[d]);
    // Pointer to the W cells of the x-row starting at row_start (a gather only when it wraps).
    auto row_at = [&](const T* row_start) -> const T* {
      if (!x_wraps) return row_start + 2 * i0[0];
      for (int i = 0; i < W; ++i) {
        tmp[2 * i] = row_start[2 * idx[0][i]];
        tmp[2 * i + 1] = row_start[2 * idx[0][i] + 1];
      }
      return tmp;
    };
    const std::int64_t dst = pts.perm[j];
    for (int v = 0; v < nvec; ++v) {
      const T* gv = grid + 2 * v * total;
      if constexpr (D == 1) {
        const T* r = row_at(gv);
        for (int i = 0; i < 2 * W; ++i) acc[i] = r[i];
      } else {
        for (int i = 0; i < 2 * W; ++i) acc[i] = T(0);
        for (int dz = 0; dz < (D == 3 ? W : 1); ++dz) {
          const std::int64_t zrow = D == 3 ? idx[2][dz] * nf[1] : 0;
          const T kz = D == 3 ? k[2][dz] : T(1);
          for (int dy = 0; dy < W; ++dy) {
            const T* r = row_at(gv + 2 * (zrow + idx[1][dy]) * nf[0]);
            const T kyz = k[1][dy] * kz;
            for (int i = 0; i < 2 * W; ++i) acc[i] += kyz * r[i];
          }
        }
      }
      T re = 0, im = 0;
      for (int i = 0; i < W; ++i) {
        re += k[0][i] * acc[2 * i];
        im += k[0][i] * acc[2 * i + 1];
      }
      c[v * M + dst] = {re, im};
    }
  }
}

template <int W, typename T>
void interp_all(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,
                const GridShape<T>& shape, const T* grid, int nvec, std::complex<T>* c,
                int nthreads) {
  const std::int64_t M = pts.M;
  const std::int64_t nchunks = (M + kInterpChunk - 1) / kInterpChunk;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
  for (std::int64_t s = 0; s < nchunks; ++s) {
    const std::int64_t j0 = s * kInterpChunk, j1 = std::min(M, j0 + kInterpChunk);
    switch (shape.dim) {
      case 1: interp_range<1, W>(j0, j1, pts, ker, shape, grid, nvec, c); break;
      case 2: interp_range<2, W>(j0, j1, pts, ker, shape, grid, nvec, c); break;
      default: interp_range<3, W>(j0, j1, pts, ker, shape, grid, nvec, c); break;
    }
  }
}

}  // namespace

template <typename T>
void interp(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker, const GridShape<T>& shape,
            const std::complex<T>* grid, int nvec, std::complex<T>* c, int nthreads) {
  if (pts.M == 0) return;
  with_width(ker.w, [&](auto width) {
    interp_all<decltype(width)::value>(pts, ker, shape, reinterpret_cast<const T*>(grid), nvec,
                                       c, nthreads);
  });
}

template void interp<float>(const SortedPoints<float>&, const KernelEvaluator<float>&,
                            const GridShape<float>&, const std::complex<float>*, int,
                            std::complex<float>*, int);
template void interp<double>(const SortedPoints<double>&, const KernelEvaluator<double>&,
                             const GridShape<double>&, const std::complex<double>*, int,
                             std::complex<double>*, int);

}  // namespace nufftmp::detail::cpu
