// The memory one rank of the solver holds, estimated before anything is allocated, so that
// choose_parameters can pick parameters that fit a budget (Options::memory_budget_bytes) and
// the output can show the estimate next to what was measured. Pure logic (no MPI, no device).
//
// The components (bytes; n_own / n_all: this rank's owned ions and owned + halo; nm: modes;
// nf1, nf2: the two plans' fine grids, exactly as their PlanConfig makes them; nt = 2 type 2
// vectors with forces, 1 without, mode_array.hpp; b2: the type 2 batch):
//   fine grids   16 nf1 + 16 b2 nf2                     (complex double, one per batch vector)
//   FFT work     CUDA: the same again (cuFFT's work area of a large 3D transform is modelled
//                as one fine grid per batch vector; the device run compares it with the
//                plans' measured memory_bytes); CPU: 0 (FFTW in place)
//   plan points  2 plans x n_own x (CUDA 76: i0 3 x 4, s 3 x 8, permutation 4, ranks 4, packed
//                records 32, src/core/cuda/bin_sort.hpp; CPU 32: coordinates 3 x 8,
//                permutation 8, src/core/cpu/sorted_points.hpp)
//   modes        nt x 16 nm (S in block 0, mode_array.hpp) + 8 nm (GPU: per-mode energies)
//   held         ions 32 n_all, real-space sums 32 n_own (CPU: + 16 n_all, the ions' origin)
//   real space   the phase's buffers: GPU sorted ions 32, 4 index arrays 16, CUB radix sort
//                temp 8 (x n_all), cell offsets 4 x cells; CPU cell offsets only
//   reciprocal   the phase's buffers: NUFFT coordinates 24 and charges 16, type 2 values
//                16 nt, energies 8 (x n_own); CPU also the 4 result vectors 32 n_own
// Kept between steps, everything adds up; phased (the CUDA engine under a tight budget, see
// Parameters::phase_buffers) the two phases' buffers (and the modes, which only the
// reciprocal phase uses) take turns in the pool:
//   kept    = grids + work + points + modes + held + real space + reciprocal
//   phased  = grids + work + points + held + max(real space, reciprocal + modes)
#pragma once

#include <array>
#include <cstdint>

#include "nufftmp/ewald.hpp"

namespace nufftmp::ewald::detail {

struct MemoryQuery {
  bool cuda = false;
  std::array<std::int64_t, 3> modes{1, 1, 1};
  double nufft_tol = 1e-6;
  std::int64_t n_owned = 0, n_all = 0;  // this rank's (the largest rank's)
  std::int64_t cells = 1;               // the real-space cell list's
  bool forces = true;
  int type2_batch = 1;
  bool phased = false;
  nufftmp::Options nufft;  // the plans' options (upsampfac; the rest as the solver sets them)
  // The plans' fine-grid points and upsampling factors if known (0: from their PlanConfig).
  double nf1 = 0, nf2 = 0, sigma1 = 0, sigma2 = 0;
};

// Sets q's nf1, nf2, sigma1, sigma2 for its modes, tolerance and options.
void fine_grids_of(MemoryQuery& q);

MemoryEstimate estimate_memory(const MemoryQuery& q);

// The owned and owned + halo ions of the largest rank for n_total ions in z-slabs over
// `ranks` (slab_layout.hpp: a halo of rcut on either side; 2% for the imbalance of a random
// draw).
void ions_per_rank(std::int64_t n_total, int ranks, double Lz, double rcut, std::int64_t& n_owned,
                   std::int64_t& n_all);

}  // namespace nufftmp::ewald::detail
