// Deconvolution fused with the mode reordering (type 1) and with the zero-padding (type 2):
// one pass over the data per direction. Per axis only the N/2 + 1 factors 1/phihat(|k|) are
// tables (deconv_factors.cu fills them on the device); where a mode lives on the fine grid and
// in the output is arithmetic (common/grid.hpp), a few integer operations per element.
#include <cstdlib>
#include <cstring>
#include <limits>

#include "common/grid.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/kernel_common.cuh"
#include "cuda/launch.hpp"
#include "cuda/launch_common.cuh"

namespace nufftmp::detail {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
// Work unit: one warp, kSpan consecutive x cells of one row (kSpan / 32 per lane, adjacent
// lanes on adjacent cells). The row's setup (its coordinates: divisions, and the y/z factors)
// is paid once per unit. With one cell per thread (the first version) the setup was most of
// the work: the type 2 pad of a 4096^2 fine grid took 0.26 ms on the H200 (0.6 TB/s for the
// 134 MB it writes), more than its FFT (0.21).
constexpr int kSpan = 256;

// Quotient and remainder, in 32 bits when both fit (a 64-bit division is a long instruction
// sequence on the GPU).
__device__ __forceinline__ std::int64_t divide(std::int64_t a, std::int64_t b,
                                               std::int64_t& rem) {
  if (a < (std::int64_t(1) << 32) && b < (std::int64_t(1) << 32)) {
    const auto ua = static_cast<std::uint32_t>(a), ub = static_cast<std::uint32_t>(b);
    const std::uint32_t q = ua / ub;
    rem = ua - q * ub;
    return q;
  }
  const std::int64_t q = a / b;
  rem = a - q * b;
  return q;
}

// Unit u of rows x spans: its row (vector b, i1, i2 of the row's y and z) and first x cell.
struct RowUnit {
  std::int64_t row, b, i1, i2, x0;
};
__device__ __forceinline__ RowUnit row_unit(std::int64_t u, std::int64_t spans, std::int64_t n1,
                                            std::int64_t n2) {
  RowUnit r;
  std::int64_t span = 0;
  r.row = divide(u, spans, span);
  r.x0 = span * kSpan;
  const std::int64_t t = divide(r.row, n1, r.i1);
  r.b = divide(t, n2, r.i2);
  return r;
}

// f(unit row, lane's x cell i0) for every x cell i0 < n0 of every unit of `rows` rows of n0
// cells (n1, n2: the rows' y and z extents), each warp taking units grid-stride.
template <typename F>
__device__ __forceinline__ void for_each_unit_cell(std::int64_t rows, std::int64_t n0,
                                                   std::int64_t n1, std::int64_t n2, F&& f) {
  const std::int64_t spans = (n0 + kSpan - 1) / kSpan, units = rows * spans;
  const int lane = threadIdx.x & 31;
  for (std::int64_t u = std::int64_t(blockIdx.x) * kWarps + threadIdx.x / 32; u < units;
       u += std::int64_t(gridDim.x) * kWarps) {
    const RowUnit r = row_unit(u, spans, n1, n2);
    const std::int64_t stop = min(n0, r.x0 + kSpan);
    auto cell = f(r);  // the row's setup, once per unit; then its cells
#pragma unroll
    for (int k = 0; k < kSpan / 32; ++k) {
      const std::int64_t i0 = r.x0 + k * 32 + lane;
      if (i0 < stop) cell(i0);
    }
  }
}

// 1 / phihat of mode k on axis d (factor 1 on an unused axis).
template <typename T>
__device__ __forceinline__ T factor_of(const DeconvView<T>& v, int d, std::int64_t k) {
  return v.factor[d] ? v.factor[d][k < 0 ? -k : k] : T(1);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    deconvolve_type1_kernel(DeconvView<T> v, const cplx<T>* fw, cplx<T>* f, std::int64_t rows) {
  const std::int64_t nf0 = v.grid.nf[0], nf1 = v.grid.nf[1], nf2 = v.grid.nf[2];
  for_each_unit_cell(rows, v.N[0], v.N[1], v.N[2], [&](const RowUnit& r) {
    const std::int64_t k1 = mode_of_output_index(r.i1, v.N[1], v.modeord);
    const std::int64_t k2 = mode_of_output_index(r.i2, v.N[2], v.modeord);
    const cplx<T>* const src =
        fw + r.b * v.grid.total +
        nf0 * (fine_index_of_mode(k1, nf1) + nf1 * fine_index_of_mode(k2, nf2));
    cplx<T>* const dst = f + r.row * v.N[0];
    const T fac12 = factor_of(v, 1, k1) * factor_of(v, 2, k2);
    return [=, &v](std::int64_t i0) {
      const std::int64_t k0 = mode_of_output_index(i0, v.N[0], v.modeord);
      const T fac = factor_of(v, 0, k0) * fac12;
      const cplx<T> g = src[fine_index_of_mode(k0, nf0)];
      cplx<T> out;
      out.x = g.x * fac;
      out.y = g.y * fac;
      dst[i0] = out;
    };
  });
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    pad_deconvolve_type2_kernel(DeconvView<T> v, const cplx<T>* f, cplx<T>* fw,
                                std::int64_t rows) {
  const std::int64_t nf0 = v.grid.nf[0];
  for_each_unit_cell(rows, nf0, v.grid.nf[1], v.grid.nf[2], [&](const RowUnit& r) {
    // A row the FFT reads only in the column runs (pruned, untouched band): a span wholly
    // between the runs is skipped before the setup's loads (on the H200 the pad is bound by
    // those loads' latency, one unit per warp, more than by its stores).
    const bool whole = v.band_rows == 0 || ((v.whole_bands >> (r.i1 / v.band_rows)) & 1u);
    const bool skip = !whole && r.x0 >= v.run && r.x0 + kSpan <= nf0 - v.run;
    const std::int64_t k1 = skip ? kNoMode : mode_of_fine_index(r.i1, v.N[1], v.grid.nf[1]);
    const std::int64_t k2 = skip ? kNoMode : mode_of_fine_index(r.i2, v.N[2], v.grid.nf[2]);
    const bool row_has_modes = k1 != kNoMode && k2 != kNoMode;
    const T fac12 = row_has_modes ? factor_of(v, 1, k1) * factor_of(v, 2, k2) : T(0);
    const cplx<T>* const frow =
        row_has_modes ? f + r.b * v.N[0] * v.N[1] * v.N[2] +
                            v.N[0] * (output_index_of_mode(k1, v.N[1], v.modeord) +
                                      v.N[1] * output_index_of_mode(k2, v.N[2], v.modeord))
                      : f;
    cplx<T>* const dst = fw + r.row * nf0;
    return [=, &v](std::int64_t l0) {
      if (!whole && l0 >= v.run && l0 < nf0 - v.run) return;  // a row the FFT reads in runs
      const std::int64_t k0 = row_has_modes ? mode_of_fine_index(l0, v.N[0], nf0) : kNoMode;
      cplx<T> out;
      out.x = T(0);
      out.y = T(0);
      if (k0 != kNoMode) {
        const T fac = factor_of(v, 0, k0) * fac12;
        const cplx<T> g = frow[output_index_of_mode(k0, v.N[0], v.modeord)];
        out.x = g.x * fac;
        out.y = g.y * fac;
      }
      dst[l0] = out;
    };
  });
}

// The type 2 pad with each lane's loads in flight together (`pad_batched`, by default on 1D
// and 2D grids; the kernel above is `pad_unit`). The H200 ran the one above at 0.061 ms on
// Q4's 4096^2 grid (clustered, pruned rows: ~67 MB written, 34 MB read): a store between two
// cells' loads keeps the compiler from hoisting the next loads (the output might alias the
// input), so a unit of modes waits out one memory latency per cell. Here the pointers are
// __restrict__, a lane's 8 cells are loaded before any is stored, and only mode cells load (a
// first try that loaded every cell, mode 0 for padding, was slower: 005e160). Where a cell's
// mode lives is linear along a row: the left run of modes l0 < N0 - N0/2 reads output index
// l0 + off_left and factor l0, the right run l0 >= nf0 - N0/2 reads l0 + off_right and factor
// nf0 - l0; within a row all of it is 32-bit (nf0 < 2^31, GridView). Measured (H200, pad ms,
// unit -> batched): Q4 0.057 -> 0.043, P4 0.068 -> 0.057, P8 (1D) 0.102 -> 0.084, S22d-12
// 0.036 -> 0.033; in 3D it lost in one call and won in the next (P2 0.052 -> 0.062, Q2 0.051
// -> 0.053, then Q2 0.058 -> 0.052: rows of 256 cells, most of them zero rows that the unit
// kernel already writes at ~2.9 TB/s), so 3D grids keep the unit kernel. Float runs at 5
// blocks of 256 per SM (48 registers, 16 bytes spilled) rather than the 4 that its 64
// registers allow: the 2D pads 12% faster (Q4 0.051 -> 0.045, P4 0.067 -> 0.060), the 1D ones
// 3% slower (P8 0.091 -> 0.095); 6 blocks (40 registers, 64 bytes spilled) slower everywhere
// (Q4 0.053, P8 0.112). Double keeps its 80 registers (capped it spills 140 bytes or more).
// docs/performance.md section 17, docs/data/pad_h200_2026-12-02.txt.
template <typename T>
constexpr int kPadMinBlocks = sizeof(T) == 4 ? 5 : 0;  // 0: no minimum (as without it)

template <typename T>
__global__ void __launch_bounds__(kThreads, kPadMinBlocks<T>)
    pad_batched_type2_kernel(DeconvView<T> v, const cplx<T>* __restrict__ f,
                             cplx<T>* __restrict__ fw, std::int64_t rows) {
  constexpr int kCells = kSpan / 32;
  const std::int32_t nf0 = v.grid.nf[0], N0 = static_cast<std::int32_t>(v.N[0]);
  const std::int32_t run = static_cast<std::int32_t>(v.run);
  const std::int64_t spans = (nf0 + kSpan - 1) / kSpan, units = rows * spans;
  const std::int32_t hi_left = N0 - N0 / 2, lo_right = nf0 - N0 / 2;
  const std::int32_t off_left = v.modeord == 0 ? N0 / 2 : 0;
  const std::int32_t off_right = (v.modeord == 0 ? N0 / 2 : N0) - nf0;
  const T* __restrict__ fac0 = v.factor[0];  // axis 0 always has factors
  const int lane = threadIdx.x & 31;
  for (std::int64_t u = std::int64_t(blockIdx.x) * kWarps + threadIdx.x / 32; u < units;
       u += std::int64_t(gridDim.x) * kWarps) {
    const RowUnit r = row_unit(u, spans, v.grid.nf[1], v.grid.nf[2]);
    const std::int32_t x0 = static_cast<std::int32_t>(r.x0);
    const bool whole = v.band_rows == 0 || ((v.whole_bands >> (r.i1 / v.band_rows)) & 1u);
    if (!whole && x0 >= run && x0 + kSpan <= nf0 - run) continue;  // never read
    const std::int64_t k1 = mode_of_fine_index(r.i1, v.N[1], v.grid.nf[1]);
    const std::int64_t k2 = mode_of_fine_index(r.i2, v.N[2], v.grid.nf[2]);
    const bool row_has_modes = k1 != kNoMode && k2 != kNoMode;
    const T fac12 = row_has_modes ? factor_of(v, 1, k1) * factor_of(v, 2, k2) : T(0);
    const cplx<T>* __restrict__ frow =
        f + (row_has_modes ? r.b * N0 * v.N[1] * v.N[2] +
                                 N0 * (output_index_of_mode(k1, v.N[1], v.modeord) +
                                       v.N[1] * output_index_of_mode(k2, v.N[2], v.modeord))
                           : 0);
    cplx<T>* __restrict__ dst = fw + r.row * nf0;
    cplx<T> g[kCells];
    T fac[kCells];
#pragma unroll
    for (int k = 0; k < kCells; ++k) {
      const std::int32_t l0 = x0 + k * 32 + lane;
      const bool left = row_has_modes && l0 < hi_left;
      const bool right = row_has_modes && l0 >= lo_right && l0 < nf0;
      g[k].x = T(0);
      g[k].y = T(0);
      fac[k] = T(0);
      if (left || right) {
        g[k] = frow[left ? l0 + off_left : l0 + off_right];
        fac[k] = fac0[left ? l0 : nf0 - l0];
      }
    }
#pragma unroll
    for (int k = 0; k < kCells; ++k) {
      const std::int32_t l0 = x0 + k * 32 + lane;
      if (l0 < nf0 && (whole || l0 < run || l0 >= nf0 - run)) {
        const T s = fac[k] * fac12;
        cplx<T> out;
        out.x = g[k].x * s;
        out.y = g[k].y * s;
        dst[l0] = out;
      }
    }
  }
}

// The pad kernel: batched on 1D/2D grids, unit in 3D (above); NUFFTMP_CUDA_PAD=unit|batched
// forces one (A/B runs, the tests). Rows within a unit of 2^31 cells stay unit: the batched
// kernel's cell index is 32-bit up to a unit past the row's end.
template <typename T>
bool pad_batched(const DeconvView<T>& v) {
  if (v.grid.nf[0] > std::numeric_limits<std::int32_t>::max() - kSpan) return false;
  static const int forced = [] {
    const char* e = std::getenv("NUFFTMP_CUDA_PAD");
    if (e == nullptr) return -1;
    if (std::strcmp(e, "unit") == 0) return 0;
    if (std::strcmp(e, "batched") == 0) return 1;
    return -1;
  }();
  return forced >= 0 ? forced == 1 : v.grid.nf[2] == 1;
}

// One warp per unit of rows x spans, grid-stride beyond 2^20 blocks.
unsigned unit_blocks(std::int64_t rows, std::int64_t n0) {
  const std::int64_t units = rows * ((n0 + kSpan - 1) / kSpan);
  const std::int64_t b = (units + kWarps - 1) / kWarps;
  return static_cast<unsigned>(b < 1 ? 1 : (b < (std::int64_t(1) << 20) ? b : (1 << 20)));
}

}  // namespace

template <typename T>
void deconvolve_type1(const DeconvView<T>& v, const std::complex<T>* fw, std::complex<T>* f,
                      int nvec, cudaStream_t stream) {
  const std::int64_t rows = std::int64_t(nvec) * v.N[1] * v.N[2];
  deconvolve_type1_kernel<T><<<unit_blocks(rows, v.N[0]), kThreads, 0, stream>>>(
      v, reinterpret_cast<const cplx<T>*>(fw), reinterpret_cast<cplx<T>*>(f), rows);
  NUFFTMP_CUDA_CHECK_LAUNCH("deconvolve_type1_kernel");
}

template <typename T>
void pad_deconvolve_type2(const DeconvView<T>& v, const std::complex<T>* f, std::complex<T>* fw,
                          int nvec, cudaStream_t stream) {
  const std::int64_t rows = std::int64_t(nvec) * v.grid.nf[1] * v.grid.nf[2];
  const unsigned blocks = unit_blocks(rows, v.grid.nf[0]);
  const auto* in = reinterpret_cast<const cplx<T>*>(f);
  auto* out = reinterpret_cast<cplx<T>*>(fw);
  if (pad_batched(v))
    pad_batched_type2_kernel<T><<<blocks, kThreads, 0, stream>>>(v, in, out, rows);
  else
    pad_deconvolve_type2_kernel<T><<<blocks, kThreads, 0, stream>>>(v, in, out, rows);
  NUFFTMP_CUDA_CHECK_LAUNCH("pad_deconvolve_type2_kernel");
}

template <typename T>
void load_deconvolve_kernel(int type) {
  if (type == 1) load_kernel(deconvolve_type1_kernel<T>, "deconvolve_type1_kernel");
  else {  // both: the plan does not hold the view (which one runs depends on the grid)
    load_kernel(pad_deconvolve_type2_kernel<T>, "pad_deconvolve_type2_kernel");
    load_kernel(pad_batched_type2_kernel<T>, "pad_batched_type2_kernel");
  }
}

template void load_deconvolve_kernel<float>(int);
template void load_deconvolve_kernel<double>(int);
template void deconvolve_type1<float>(const DeconvView<float>&, const std::complex<float>*,
                                      std::complex<float>*, int, cudaStream_t);
template void deconvolve_type1<double>(const DeconvView<double>&, const std::complex<double>*,
                                       std::complex<double>*, int, cudaStream_t);
template void pad_deconvolve_type2<float>(const DeconvView<float>&, const std::complex<float>*,
                                          std::complex<float>*, int, cudaStream_t);
template void pad_deconvolve_type2<double>(const DeconvView<double>&,
                                           const std::complex<double>*, std::complex<double>*,
                                           int, cudaStream_t);

}  // namespace nufftmp::detail
