// Output-driven spreading for double precision in 2D and 3D, without atomics in shared memory:
// each thread owns one x-row of the bin's tile and keeps it in registers; the block walks the
// subproblem's points (staged np at a time) and every thread adds each point's contribution to
// its own row when the point's y (and z) stencil covers the row. Hopper has no shared-memory atomic
// add for 64-bit values (double and 64-bit integer adds both compile to a compare-and-swap
// loop, ATOMS.CAST.SPIN.64: seen in the SASS), which made the shared-atomic tile of
// spread_output.cu cost 8.4 ms on P5. Here a point costs, per covered row, RX fused
// multiply-adds per plane (RX = bin + halo: the x kernel values are staged zero-padded to the
// row, so the loop has no bounds), all on registers; only the flush uses (global) atomics.
// Bins are 4 cells wide in x so a row (4 + 2 ceil(w/2) <= 20 complex cells) fits registers; in
// 2D they are tall (up to 256 rows: one thread each) so a subproblem holds enough points.
#include "cuda/tu_instance.hpp"
#include "cuda/launch_common.cuh"
#include "cuda/spread_output_rows.hpp"
#include "cuda/tile_common.cuh"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <int W>
constexpr int row_len() {
  return kRowsBinX + 2 * ((W + 1) / 2);
}

// Launch bounds by width. At w = 7 and 8 the 3D tiles have 192 rows (default 4 x 4 x 8 bins)
// and shared memory allows three blocks an SM, but under the plain bound of 256 threads the
// records layout compiled to 124 registers (split: 96), room for two (ncu, H200, S31d-6: 18.75%
// achieved occupancy against 28%, execute 6.03 ms against 4.79). A bound of three 192-thread
// blocks caps both at 113 (ptxas: 96, no spill). Elsewhere the plain bound (min blocks 0 is
// "none given": an explicit 1 let ptxas take ~20 more registers at w >= 9, one block fewer).
// The launch clamps its threads to the bound (more rows take several passes). 2D tiles are
// tall (up to 256 rows) and keep the plain bound.
constexpr bool rows_three_blocks(int w, int dim) { return dim == 3 && (w == 7 || w == 8); }
constexpr int rows_max_threads(int w, int dim) { return rows_three_blocks(w, dim) ? 192 : 256; }
constexpr int rows_min_blocks(int w, int dim) { return rows_three_blocks(w, dim) ? 3 : 0; }

template <int W, int D, typename P>
__global__ void __launch_bounds__(rows_max_threads(W, D), rows_min_blocks(W, D))
    spread_rows_kernel(P pts, GridView grid, BinView bins, TileView tile, KernelCoeffs<double> kc,
                       const Subproblem* subs, int np, const double2* c, double2* fw) {
  constexpr int RX = row_len<W>();
  constexpr int NR = D - 1;  // row axes: y (and z)
  extern __shared__ unsigned char smem_raw[];
  double* re = reinterpret_cast<double*>(smem_raw);  // the tile, written once at the end
  double* im = re + tile.cells;
  double* kx = im + tile.cells;                      // [np][RX]: x values placed in the row
  double* kyz = kx + std::int64_t(np) * RX;          // [np][NR][W]
  double2* cv = reinterpret_cast<double2*>(kyz + std::int64_t(np) * NR * W);  // [np]
  int* oyz = reinterpret_cast<int*>(cv + np);        // [np][NR]: tile row of the stencil's start
  select_vector(c, pts.M, fw, grid.total);
  int origin[3];
  const Subproblem sub = block_subproblem<D>(subs, bins, tile, origin);
  const int wy = tile.width[1];
  const int rows = wy * tile.width[2];
  for (int row0 = 0; row0 < rows; row0 += blockDim.x) {
    const int row = row0 + threadIdx.x;
    const bool mine = row < rows;
    const int ty = row % wy, tz = row / wy;
    double ar[RX], ai[RX];
#pragma unroll
    for (int x = 0; x < RX; ++x) ar[x] = ai[x] = 0.0;
    for (int first = 0; first < sub.count; first += np) {
      const int n = min(np, sub.count - first);
      __syncthreads();  // the previous round's staging is consumed
      for (int task = threadIdx.x; task < n * D; task += blockDim.x) {
        const int p = task / D, d = task - D * p;
        const std::int64_t i = sub.start + first + p;
        const AxisAt<double> ax = point_axis<D>(pts, i, d);
        double k[W];
        eval_kernel<W>(kc, ax.s, k);
        const int off = ax.i0 - origin[d];
        if (d == 0) {
#pragma unroll
          for (int x = 0; x < RX; ++x) {
            double v = 0.0;
#pragma unroll
            for (int t = 0; t < W; ++t) v = (x - off == t) ? k[t] : v;
            kx[p * RX + x] = v;
          }
          cv[p] = c[user_index<D>(pts, i)];
        } else {
#pragma unroll
          for (int t = 0; t < W; ++t) kyz[(NR * p + d - 1) * W + t] = k[t];
          oyz[NR * p + d - 1] = off;
        }
      }
      __syncthreads();
      if (!mine) continue;
      for (int p = 0; p < n; ++p) {
        const int dy = ty - oyz[NR * p];
        const int dz = D == 3 ? tz - oyz[NR * p + NR - 1] : 0;
        if (unsigned(dy) >= unsigned(W) || unsigned(dz) >= unsigned(W)) continue;
        double wgt = kyz[NR * p * W + dy];
        if constexpr (D == 3) wgt *= kyz[(NR * p + 1) * W + dz];
        const double2 cp = cv[p];
        const double cr = cp.x * wgt, ci = cp.y * wgt;
        const double2* kp = reinterpret_cast<const double2*>(kx + p * RX);
#pragma unroll
        for (int x = 0; x < RX / 2; ++x) {
          const double2 k2 = kp[x];
          ar[2 * x] = fma(cr, k2.x, ar[2 * x]);
          ai[2 * x] = fma(ci, k2.x, ai[2 * x]);
          ar[2 * x + 1] = fma(cr, k2.y, ar[2 * x + 1]);
          ai[2 * x + 1] = fma(ci, k2.y, ai[2 * x + 1]);
        }
      }
    }
    if (mine) {
      const int s = tile.stride0 * row;
#pragma unroll
      for (int x = 0; x < RX; ++x) {
        re[s + x] = ar[x];
        im[s + x] = ai[x];
      }
    }
  }
  __syncthreads();
  tile_flush<double, D>(re, im, tile, origin, grid, fw);
}

}  // namespace

// Every width a double plan reaches has its register row.
static_assert(row_len<kMaxWidth>() <= kRowsMaxLen, "register row longer than kRowsMaxLen");

template <int Dim>
void spread_rows_dim(const SpreadLaunch<double>& a, const KernelCoeffs<double>& k) {
  static_assert(Dim >= 2, "the register-row spreader is built for 2D and 3D only");
  if (a.pts.M == 0 || a.num_subs == 0) return;
  const int np = a.points_per_batch > 0 ? a.points_per_batch : 32;
  // One thread per tile row when they fit a block (3D, w = 10, 4 x 4 x 8 bins: 14 x 18 = 252
  // rows, 8 warps); more rows take several passes over the points.
  const TileView tile = make_tile(a.dim, a.w, a.bins);
  SpreadLaunch<double> l = a;
  const int rows = tile.width[1] * tile.width[2];
  const int max_threads = rows_max_threads(a.w, a.dim);
  l.threads = rows < max_threads ? (rows + 31) / 32 * 32 : max_threads;
  const std::size_t shmem = spread_rows_shared_bytes(a.dim, a.w, a.bins, np);
  dispatch_kernel<double, Dim>(a.w, a.pts, [&](auto W, auto D, auto P) {
    launch_per_subproblem(spread_rows_kernel<W.value, D.value, decltype(P)>, "spread_rows_kernel",
                          l, k, shmem, np, as_const_cplx(a.c), as_cplx(a.fw));
  });
}

static_assert(std::is_same_v<NUFFTMP_TU_REAL, double>, "the register-row spreader is double only");
template void spread_rows_dim<NUFFTMP_TU_DIM>(const SpreadLaunch<double>&,
                                              const KernelCoeffs<double>&);

}  // namespace nufftmp::detail
