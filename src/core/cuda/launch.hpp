// Host entry points of the spreading, interpolation and deconvolution kernels. Each takes the
// plain-data views of the plan and works on `nvec` vectors at once (grid dimension y).
#pragma once

#include <cuda_runtime_api.h>

#include <complex>
#include <cstddef>
#include <cstdint>

#include "cuda/device_views.hpp"

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
  int nvec;                    // vectors in this batch
  std::complex<T>* c;          // nvec * M, user order
  std::complex<T>* fw;         // nvec * grid.total
  cudaStream_t stream;
};

// Type 1 (c -> fw, fw accumulated: the caller zeroes it).
template <typename T> void spread_gm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k);
template <typename T> void spread_sm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k);
template <typename T> void spread_output(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k);
// Type 2 (fw -> c, c overwritten).
template <typename T> void interp_gm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k);
template <typename T> void interp_sm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k);

// Shared memory (bytes) each block of the tiled methods needs. SM spreading and SM
// interpolation hold the same tile: a real and an imaginary plane in precision T.
template <typename T>
std::size_t sm_tile_shared_bytes(int dim, int w, const BinView& bins) {
  return 2 * sizeof(T) * static_cast<std::size_t>(make_tile(dim, w, bins).cells);
}
template <typename T>
std::size_t spread_output_shared_bytes(int dim, int w, const BinView& bins, int np);

// Per-dim tables for the fused deconvolution: for output index i of axis d, the fine-grid
// index of its mode and 1 / phihat; for fine index l, the output index (or -1: zero padding).
template <typename T>
struct DeconvView {
  const std::int32_t* fine_of_out[3];
  const T* factor[3];
  const std::int32_t* out_of_fine[3];
  std::int64_t N[3];
  GridView grid;
};

// Type 1: f[v][k] = fw[v][fine(k)] * prod 1/phihat (one pass, modeord applied).
template <typename T>
void deconvolve_type1(const DeconvView<T>& v, const std::complex<T>* fw, std::complex<T>* f,
                      int nvec, cudaStream_t stream);
// Type 2: fw[v][l] = f[v][out(l)] * prod 1/phihat, zero where l holds no mode (one pass).
template <typename T>
void pad_deconvolve_type2(const DeconvView<T>& v, const std::complex<T>* f, std::complex<T>* fw,
                          int nvec, cudaStream_t stream);

}  // namespace nufftmp::detail
