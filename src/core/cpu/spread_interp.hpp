// The two halves of the CPU NUFFT that touch the nonuniform points: spreading strengths onto the
// fine grid (type 1) and interpolating the fine grid at the points (type 2). Both run over the
// bin-sorted points of SortedPoints; c is in the user's order (c[v * M + j], v < nvec), the
// fine grids are nvec contiguous arrays of prod(nf) cells. Each call picks the widest
// instruction set the CPU has (generic, AVX2+FMA, AVX-512; NUFFTMP_CPU_ISA=generic|avx2|avx512
// in the environment overrides it, for tests and comparisons).
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <vector>

#include "cpu/kernel_eval.hpp"
#include "cpu/sorted_points.hpp"

namespace nufftmp::detail::cpu {

// Layout of the fine grids in memory. Type 2 keeps `pad` ghost cells at both ends of every
// x-row (row = nf[0] + 2 pad, cell x stored at row position pad + x) so that interpolation never
// wraps in x, the contiguous axis; the ghosts are refreshed after each FFT (fill_x_ghosts).
// Type 1 uses pad = 0 (its boxes are wrapped when added back).
template <typename T>
struct GridShape {
  int dim = 1;
  std::array<std::int64_t, 3> nf{1, 1, 1};
  std::int64_t pad = 0;
  std::int64_t row = 1;  // nf[0] + 2 pad
  // Per-vector stride in cells (ghosts included).
  std::int64_t cells() const { return row * nf[1] * nf[2]; }
};

// Ghost cells (pad) a kernel of width w needs: first cells lie in [-w/2, nf + w/2).
inline std::int64_t x_ghosts_for_width(int w) { return w / 2 + 1; }

// Copies each row's periodic images into its ghost cells (type 2, after the FFT).
template <typename T>
void fill_x_ghosts(const GridShape<T>& shape, std::complex<T>* grid, int nvec, int nthreads);

// Copies nvec compact grids (x-rows of nf[0] cells, as a spread_interp_only plan's modes) into
// the layout above and fills the ghosts.
template <typename T>
void load_grid(const GridShape<T>& shape, const std::complex<T>* f, std::complex<T>* grid,
               int nvec, int nthreads);

// Spreading boxes: rows of whole 64-byte vectors (the loops of spread_impl.hpp store aligned
// vectors), box_row_cells(sp) cells per x-row; a box takes box_reals(pts) values per vector.
template <typename T>
inline std::int64_t box_row_cells(const Subproblem& sp) {
  constexpr std::int64_t c = 32 / sizeof(T);  // complex cells per 64 bytes
  return (sp.extent[0] + c - 1) / c * c;
}
template <typename T>
inline std::int64_t box_reals(const SortedPoints<T>& pts) {
  std::int64_t m = 0;
  for (const auto& sp : pts.subproblems) {
    const std::int64_t r = 2 * box_row_cells<T>(sp) * sp.extent[1] * sp.extent[2];
    m = r > m ? r : m;
  }
  return m;
}

// Zeroes the nvec grids and adds every point's kernel-weighted strength into them. Threads
// take whole subproblems, spread into a private box (scratch holds one box per thread and is
// grown as needed) and add the box back into the grid, periodically wrapped, without races.
template <typename T>
void spread(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker, const GridShape<T>& shape,
            const std::complex<T>* c, int nvec, std::complex<T>* grid, int nthreads,
            std::vector<std::vector<T>>& scratch);

// c[v * M + j] = sum over the w^d cells near point j of kernel * grid_v, for v < nvec. Threads
// take chunks of kInterpChunk sorted points (neighbours share grid cache lines); scratch holds
// one output buffer per thread.
template <typename T>
void interp(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker, const GridShape<T>& shape,
            const std::complex<T>* grid, int nvec, std::complex<T>* c, int nthreads,
            std::vector<std::vector<T>>& scratch);

constexpr std::int64_t kInterpChunk = 4096;

// The instruction set the calls above use ("generic", "avx2", "avx512").
const char* cpu_isa_name();

}  // namespace nufftmp::detail::cpu
