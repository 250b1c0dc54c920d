// Launchers of the CUDA kernels of the Ewald solver (host-compiler readable declarations).
// Each is asynchronous on `stream` and checks its launch. Sizes: per-rank ion counts and cell
// counts are int on the device (checked by the caller against INT_MAX); mode counts 64-bit.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "../cell_grid.hpp"
#include "../mode_array.hpp"
#include "../real_space_pairs.hpp"

namespace nufftmp::ewald::detail {

// real_space_kernels.cu: the cell list and the pair sums.
// keys[i] = cell of ions[i], order[i] = i.
void cell_keys(const Ion* ions, int n, const CellGrid& g, int* keys, int* order,
               cudaStream_t stream);
// CUB radix sort of (keys, order) by key; temp of sort_by_cell_temp_bytes bytes.
std::size_t sort_by_cell_temp_bytes(int n, int key_bits);
void sort_by_cell(void* temp, std::size_t temp_bytes, const int* keys, int* keys_sorted,
                  const int* order_in, int* order, int n, int key_bits, cudaStream_t stream);
// start[c] = first sorted position of cell c, start[n_cells] = n (CSR offsets).
void cell_starts(const int* keys_sorted, int n, int n_cells, int* start, cudaStream_t stream);
// sorted[t] = ions[order[t]].
void gather_sorted(const Ion* ions, const int* order, int n, Ion* sorted, cudaStream_t stream);
// The sums at every owned ion (order[t] < n_owned), written at its given index into
// out[0 .. n_owned) (potential) and, with forces, out[n_owned ..), out[2 n_owned ..),
// out[3 n_owned ..) (force, the charge included). first_bad: atomic minimum of the owned
// indices with a too-close neighbour (left as it was when there is none).
void real_space_sums(const Ion* sorted, const int* order, const int* start, int n, int n_owned,
                     const CellGrid& g, const PairParams& p, bool forces, double* out,
                     unsigned long long* first_bad, cudaStream_t stream);

// mode_kernels.cu: the mode array and reductions.
// f from S (mode_array.hpp; complex as interleaved doubles; S may be f), e[k] = g |S|^2.
void green_modes(const ModeGrid& m, const double* S, double* f, double* e, bool forces,
                 cudaStream_t stream);
std::size_t sum_temp_bytes(std::int64_t n);
// *out = sum of in[0, n) (CUB DeviceReduce: the same bits on every run).
void device_sum(void* temp, std::size_t temp_bytes, const double* in, double* out,
                std::int64_t n, cudaStream_t stream);

// ion_kernels.cu: NUFFT inputs and the assembly of the results.
// x = s0 * ions.x, ... and c = (q, 0) (interleaved) for the first n ions.
void nufft_inputs(const Ion* ions, std::int64_t n, double s0, double s1, double s2, double* x,
                  double* y, double* z, double* c, cudaStream_t stream);
// out[v * n + i] from real[v * n + i] (v = 0: potential; 1..3 forces) and the type 2 values
// (complex interleaved, type2_vectors blocks of n: recip_values of mode_array.hpp); qphi[i] =
// q_i * real[i]. out may be real (each element is read before it is written).
void assemble_results(const Ion* ions, std::int64_t n, const double* real, const double* values,
                      double self, double background, double inv_s, bool forces, double* out,
                      double* qphi, cudaStream_t stream);

// A grid of blocks for n items (grid-stride loops; capped at 32 blocks per SM).
int blocks_for(std::int64_t n, int threads);

}  // namespace nufftmp::ewald::detail
