// The device side of the solver with the CUDA engine: this rank's ions on the GPU, the cell
// list and real-space sum there (cell_grid.hpp, real_space_pairs.hpp), the NUFFT inputs
// (coordinates scaled to [0, 2 pi), charges as complex values), the mode-array step
// (mode_array.hpp) and the final assembly of potentials and forces, so that only the ions go
// up and only the results come down. Every call is ordered on the context's stream and
// returns when its work is done (the solver times each stage). Host compiler readable; the
// kernels are in real_space_kernels.cu and mode_kernels.cu; gpu_absent.cpp stands in when
// the CUDA engine is not built (nothing constructs it then: the context is never CUDA).
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <memory>

#include "../cell_grid.hpp"
#include "../mode_array.hpp"
#include "../real_space_pairs.hpp"

namespace nufftmp::ewald::detail {

class GpuEwald {
 public:
  GpuEwald(int device, void* stream);
  ~GpuEwald();
  GpuEwald(const GpuEwald&) = delete;
  GpuEwald& operator=(const GpuEwald&) = delete;

  // Free memory of the device, bytes.
  static double free_memory(int device);

  // Phased (Parameters::phase_buffers): each phase's buffers are freed after it (to the pool,
  // for the next phase), instead of being kept for the next step.
  void set_phased(bool phased);
  // Bytes the solver's buffers hold now, and the most they held at once (sampled at the end
  // of each phase).
  double held_bytes() const;
  double peak_bytes() const;

  // ions[0, n_all): owned first, then the halo, wrapped into the box. Makes the owned ions'
  // NUFFT coordinates 2 pi x / L and complex charges on the device.
  void upload(const Ion* ions, std::int64_t n_all, std::int64_t n_owned, const double L[3]);
  const double* nufft_x() const;
  const double* nufft_y() const;
  const double* nufft_z() const;
  std::complex<double>* charges();

  // The real-space sum at the owned ions, on the device. Returns an owned ion with a
  // neighbour closer than sqrt(p.rmin2), or -1.
  std::int64_t real_space(const CellGrid& g, const PairParams& p, bool forces);
  // Or the host's real-space results (per owned ion, forces with the charge) to the device.
  void upload_real_space(const double* phi, const double* fx, const double* fy,
                         const double* fz, bool forces);

  // The mode array: S (type 1 output) in block 0, then the type 2 input in place
  // (mode_array.hpp); count = type2_vectors x m.count().
  std::complex<double>* modes(std::int64_t count);
  // The type 2 input from S; returns sum_k g |S|^2 (a deterministic device reduction).
  double apply_green(const ModeGrid& m, bool forces);
  // Phased: the NUFFT coordinates and charges (after both set_points and the type 1), the
  // mode array (after the type 2) go back to the pool. No-ops when not phased.
  void release_nufft_inputs();
  void release_modes();

  // Type 2 output: nt vectors of n_owned values.
  std::complex<double>* values(std::int64_t count);

  // phi_i = phi_real + phi_recip + self * q_i + background; F_d = F_real,d + q_i F_recip,d / q
  // (recip_values of mode_array.hpp, inv_s = 1 / ModeGrid::grad_scale), in place of the
  // real-space sums; the results to the host (phi and, with forces, fx, fy, fz: n_owned
  // each). Returns sum_i q_i phi_real,i over the owned ions.
  double assemble(double self, double background, double inv_s, bool forces, double* phi,
                  double* fx, double* fy, double* fz);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nufftmp::ewald::detail
