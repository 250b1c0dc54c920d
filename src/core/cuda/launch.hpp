// Host entry points of the spreading, interpolation and deconvolution kernels. Each takes the
// plain-data views of the plan and works on `nvec` vectors at once (grid dimension y).
#pragma once

#include <cuda_runtime_api.h>

#include <complex>
#include <cstddef>
#include <cstdint>

#include "cuda/device_views.hpp"
#include "cuda/kernel_variant.hpp"

namespace nufftmp::detail {

template <typename T>
struct SpreadLaunch {
  int dim;
  int w;
  PointsView<T> pts;
  GridView grid;
  BinView bins;
  const Subproblem* subs;      // SM / Output
  std::int64_t num_subs;
  int points_per_batch;        // Output: points staged per round
  int threads;                 // threads per block (0 = default)
  int maxsub;                  // subproblem size bound (sizes the kernels' sort arrays)
  KernelVariant variant;       // resolved by the heuristics (never Auto here)
  int nvec;                    // vectors in this batch
  std::complex<T>* c;          // nvec * M, user order
  std::complex<T>* fw;         // nvec * grid.total
  cudaStream_t stream;
  // Load the kernel this launch would run (cudaFuncGetAttributes), run nothing: a plan loads
  // its kernels when it is made, so the first execute does not pay CUDA's lazy loading.
  bool load_only;
};

// Type 1 (c -> fw, fw accumulated: the caller zeroes it), for a.dim (launch_dims.cpp).
template <typename T> void spread_gm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k);
template <typename T> void spread_sm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k);
template <typename T> void spread_output(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k);
// Type 2 (fw -> c, c overwritten).
template <typename T> void interp_gm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k);
template <typename T> void interp_sm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k);

// The same for one dimension D = a.dim, each in its file's translation unit of (T, D)
// (tu_instance.hpp); spread_output's Sweep variant (1D/2D; spread_sweep.cu) and interp_sm's
// Sweep (1D/2D; interp_sweep.cu) and Dealt (interp_dealt.cu) variants exist only here.
template <typename T, int D> void spread_gm_dim(const SpreadLaunch<T>&, const KernelCoeffs<T>&);
template <typename T, int D> void spread_sm_dim(const SpreadLaunch<T>&, const KernelCoeffs<T>&);
template <typename T, int D>
void spread_output_dim(const SpreadLaunch<T>&, const KernelCoeffs<T>&);
template <typename T, int D> void spread_sweep_dim(const SpreadLaunch<T>&, const KernelCoeffs<T>&);
template <typename T, int D> void interp_gm_dim(const SpreadLaunch<T>&, const KernelCoeffs<T>&);
template <typename T, int D> void interp_sm_dim(const SpreadLaunch<T>&, const KernelCoeffs<T>&);
template <typename T, int D> void interp_sweep_dim(const SpreadLaunch<T>&, const KernelCoeffs<T>&);
template <typename T, int D> void interp_dealt_dim(const SpreadLaunch<T>&, const KernelCoeffs<T>&);

// Shared memory (bytes) each block of the tiled methods needs. SM spreading and SM
// interpolation hold the same tile: a real and an imaginary plane in precision T.
template <typename T>
std::size_t sm_tile_shared_bytes(int dim, int w, const BinView& bins) {
  return 2 * sizeof(T) * static_cast<std::size_t>(make_tile(dim, w, bins).cells);
}
// The Output method's Tile variant (Rows: spread_rows_shared_bytes, Sweep: sweep_launch).
template <typename T>
std::size_t spread_output_shared_bytes(int dim, int w, const BinView& bins, int np) {
  return sm_tile_shared_bytes<T>(dim, w, bins) +
         std::size_t(np) * (std::size_t(dim) * w * sizeof(T) + 2 * sizeof(T) +
                            std::size_t(dim) * sizeof(int));
}

// The fused deconvolution: per axis d, factor[d][|k|] = 1 / phihat(2 pi k / nf_d) for the N_d/2 + 1
// frequencies |k| (nullptr for an unused axis: factor 1); which fine-grid index holds which
// mode, and in which output slot, is arithmetic (common/grid.hpp), not a table.
template <typename T>
struct DeconvView {
  const T* factor[3];
  std::int64_t N[3];
  int modeord;
  GridView grid;
  // Type 2 with the pruned FFT (fft_pruning.hpp): band_rows > 0 and the pad writes rows of
  // bands not set in `whole_bands` only in the two runs of `run` x-columns that the FFT's
  // pass along y reads (the rest of such a row is never read). band_rows = 0: every row whole.
  std::int64_t band_rows = 0;
  std::uint64_t whole_bands = ~std::uint64_t(0);
  std::int64_t run = 0;
};

// The quadrature of the kernel's Fourier transform (common/kernel_ft.hpp) as a kernel
// parameter: phihat(xi) = sum_q weight[q] cos(xi node[q]).
constexpr int kMaxFtNodes = 96;
struct FtQuadratureView {
  double node[kMaxFtNodes];
  double weight[kMaxFtNodes];
  int n;
};

// Fills the factor tables of a DeconvView on the device: out[d][k] = 1 / phihat(2 pi k / nf[d])
// for k = 0 .. count[d] - 1 (count[d] = N_d / 2 + 1), every used axis in one launch.
template <typename T>
void compute_deconv_factors(const FtQuadratureView& q, int dim, T* const out[3],
                            const std::int64_t count[3], const std::int64_t nf[3],
                            cudaStream_t stream);

// Loads the deconvolution kernel of `type` (see SpreadLaunch::load_only).
template <typename T>
void load_deconvolve_kernel(int type);

// Type 1: f[v][i] = fw[v][fine(mode(i))] * prod 1/phihat (one pass, modeord applied).
template <typename T>
void deconvolve_type1(const DeconvView<T>& v, const std::complex<T>* fw, std::complex<T>* f,
                      int nvec, cudaStream_t stream);
// Type 2: fw[v][l] = f[v][out(mode(l))] * prod 1/phihat, zero where l holds no mode (one pass).
template <typename T>
void pad_deconvolve_type2(const DeconvView<T>& v, const std::complex<T>* f, std::complex<T>* fw,
                          int nvec, cudaStream_t stream);

}  // namespace nufftmp::detail
