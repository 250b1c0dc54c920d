// Output-driven spreading: a block owns one bin's tile (subproblems of a bin when it is
// crowded). Points are staged np at a time: one thread per point evaluates its kernel values
// into shared memory, then the block works on (point, stencil row) items - many points in
// flight at once, no barrier between points - each item adding one x-row of w cells with
// shared atomics on separate real/imaginary planes (odd row stride: rows of one stencil hit
// different banks). Compared with one thread per whole stencil (SM), the work per thread is
// short and even, and compared with cuFINUFFT's output-driven method there is no barrier per
// point and no idle thread.
#include "cuda/tu_instance.hpp"
#include "cuda/launch_common.cuh"
#include "cuda/spread_output_rows.hpp"
#include "cuda/tile_common.cuh"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <int W, int D>
struct Rows {
  static constexpr int value = D == 1 ? 1 : (D == 2 ? W : W * W);
};

// Shared-memory accumulation (tile_common.cuh). Hopper has no shared-memory float or 64-bit
// atomic add (compare-and-swap loops), but 32-bit integer adds are native. Float therefore
// accumulates in 32-bit fixed point (Fixed32Planes); double either in a double tile with
// CAS-loop atomics (FloatPlanes<double>, the Tile variant) or in 64-bit fixed point made of
// two native 32-bit atomics per value (Fixed64Planes, the Fixed variant). Either fixed point
// is scaled per subproblem so that no cell can overflow: every cell's real (imaginary) part is
// bounded by sum_j |c_j| (kernel values <= 1), and that sum maps to the accumulator's full
// scale. In 3D with 4-wide bins, the default, double goes to the register-row kernel of
// spread_output_rows.cu instead.
template <typename T, typename Acc, int W, int D, typename P>
__global__ void __launch_bounds__(256) spread_output_kernel(P pts, GridView grid,
                                                            BinView bins, TileView tile,
                                                            KernelCoeffs<T> kc,
                                                            const Subproblem* subs, int np,
                                                            const cplx<T>* c, cplx<T>* fw) {
  using Word = typename Acc::Word;
  extern __shared__ unsigned char smem_raw[];
  const std::int64_t plane = std::int64_t(Acc::kWords) * tile.cells;  // words per plane
  Word* re = reinterpret_cast<Word*>(smem_raw);
  Word* im = re + plane;
  T* kval = reinterpret_cast<T*>(im + plane);          // [np][D][W]
  T* cval = kval + std::int64_t(np) * D * W;          // [np][2], pre-scaled for fixed point
  int* offs = reinterpret_cast<int*>(cval + 2 * np);  // [np][D]: tile offset per axis
  __shared__ T warp_sums[8];
  select_vector(c, pts.M, fw, grid.total);
  int origin[3];
  const Subproblem sub = block_subproblem<D>(subs, bins, tile, origin);
  tile_zero(re, im, plane);
  T scale = T(1);
  if constexpr (Acc::kFixed) {
    T sum = T(0);
    for (int p = threadIdx.x; p < sub.count; p += blockDim.x) {
      const cplx<T> cv = c[user_index<D>(pts, sub.start + p)];
      sum += fabs(cv.x) + fabs(cv.y);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sum;
    __syncthreads();
    T total = T(0);
    for (int k = 0; k < int(blockDim.x >> 5); ++k) total += warp_sums[k];
    scale = fixed_point_scale(total, Acc::kFullScale);
  }
  const int tstride[3] = {1, tile.stride0, tile.stride0 * tile.width[1]};
  constexpr int R = Rows<W, D>::value;
  for (int first = 0; first < sub.count; first += np) {
    const int n = min(np, sub.count - first);
    __syncthreads();  // tile zeroed / previous round's staging consumed
    // Staging: one task per (point, axis), so all threads evaluate kernel values.
    for (int task = threadIdx.x; task < n * D; task += blockDim.x) {
      const int p = task / D, d = task - p * D;
      const std::int64_t i = sub.start + first + p;
      const AxisAt<T> ax = point_axis<D>(pts, i, d);
      T k[W];
      eval_kernel<W>(kc, ax.s, k);
#pragma unroll
      for (int t = 0; t < W; ++t) kval[task * W + t] = k[t];
      offs[task] = (ax.i0 - origin[d]) * tstride[d];
      if (d == 0) {
        const cplx<T> cv = c[user_index<D>(pts, i)];
        cval[2 * p] = cv.x * scale;
        cval[2 * p + 1] = cv.y * scale;
      }
    }
    __syncthreads();
    const int items = n * R;
    for (int it = threadIdx.x; it < items; it += blockDim.x) {
      const int p = it / R;
      const int r = it - p * R;
      const T* kp = kval + p * D * W;
      T wgt = T(1);
      int off = offs[p * D];
      if constexpr (D == 2) {
        wgt = kp[W + r];
        off += offs[p * D + 1] + r * tile.stride0;
      } else if constexpr (D == 3) {
        const int dy = r % W, dz = r / W;
        wgt = kp[W + dy] * kp[2 * W + dz];
        off += offs[p * D + 1] + offs[p * D + 2] + tile.stride0 * (dy + tile.width[1] * dz);
      }
      const T cr = cval[2 * p] * wgt, ci = cval[2 * p + 1] * wgt;
#pragma unroll
      for (int dx = 0; dx < W; ++dx) {
        Acc::add(re, tile.cells, off + dx, cr * kp[dx]);
        Acc::add(im, tile.cells, off + dx, ci * kp[dx]);
      }
    }
  }
  __syncthreads();
  tile_flush_acc<Acc, T, D>(re, tile, origin, grid, fw, T(1) / scale);
}

}  // namespace

// The variant (heuristics.cpp) picks the kernel: Tile and (double) Fixed here, Rows
// (spread_output_rows.cu) or Sweep (spread_sweep.cu). The Tile and Fixed tiles take the same
// shared memory (16 B per cell for double).
template <typename T, int Dim>
void spread_output_dim(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.variant == KernelVariant::Sweep) {
    if constexpr (Dim <= 2) return spread_sweep_dim<T, Dim>(a, k);
    throw Error(ErrorCode::Internal, "the sweep spreader is built for 1D and 2D only");
  }
  if (a.pts.M == 0 || a.num_subs == 0) return;
  if constexpr (sizeof(T) == sizeof(double)) {
    if (a.variant == KernelVariant::Rows) {
      if constexpr (Dim >= 2) return spread_rows_dim<Dim>(a, k);
      throw Error(ErrorCode::Internal, "the register-row spreader is built for 2D and 3D only");
    }
  }
  const int np = a.points_per_batch > 0 ? a.points_per_batch : 64;
  const std::size_t shmem = spread_output_shared_bytes<T>(a.dim, a.w, a.bins, np);
  auto launch = [&](auto acc) {
    using Acc = decltype(acc);
    dispatch_kernel<T, Dim>(a.w, a.pts, [&](auto W, auto D, auto P) {
      launch_per_subproblem(spread_output_kernel<T, Acc, W.value, D.value, decltype(P)>,
                            "spread_output_kernel", a, k, shmem, np, as_const_cplx(a.c),
                            as_cplx(a.fw));
    });
  };
  if constexpr (sizeof(T) == sizeof(float)) {
    launch(Fixed32Planes{});
  } else {
    if (a.variant == KernelVariant::Fixed) launch(Fixed64Planes{});
    else launch(FloatPlanes<double>{});
  }
}

NUFFTMP_INSTANTIATE_LAUNCH(spread_output_dim);

}  // namespace nufftmp::detail
