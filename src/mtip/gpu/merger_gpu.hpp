// Merging on a GPU, device-resident (the CUDA engine's Merger, merging.cpp): both type 1
// plans (the Toeplitz kernel on the L^3 lattice and A^H D b), the cuFFT convolution and the
// preconditioner are made once and kept across set_points calls; the points, weights and
// data live on the device; the whole CG runs there (vectors on the device, two or three dots
// per step read back as scalars: no volume crosses PCIe per step). The same arithmetic as the
// host path, to the FFTs' rounding. No CUDA types here (merging.cpp includes it with the host
// compiler); builds without CUDA link gpu_absent.cpp.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "nufftmp/dist.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip::detail {

class DeviceImages;

template <typename T>
class GpuMerger {
 public:
  // Collective. On the context's GPU and stream (ctx runs the CUDA engine). tol: the NUFFTs'.
  GpuMerger(dist::Context& ctx, std::int64_t M, const MergeOptions& mopts, const Options& opts,
            double tol);
  ~GpuMerger();
  GpuMerger(const GpuMerger&) = delete;
  GpuMerger& operator=(const GpuMerger&) = delete;

  // Collective. Host points; weights may be null (ones).
  void set_points_host(std::int64_t n, const T* x, const T* y, const T* z, const T* w);
  // Collective. The points of n_orient slices of img's detector at `orient`, computed on the
  // device (as slice_points()); pixel p of slice o weighted by slice_weight[o] (empty: ones)
  // times pixel_weight[p] (img.npix() values, host; empty: ones).
  void set_orientations(const DeviceImages& img, double scale, const Quaternion* orient,
                        std::int64_t n_orient, const std::vector<double>& slice_weight,
                        const std::vector<double>& pixel_weight = {});
  // The CG's relative residual for the next solves (MergeOptions::tol until set).
  void set_cg_tol(double tol);
  // Collective. data: one value per point, host memory (T) or device memory (double).
  // ac: in = start (empty: zero), out = solution (real).
  MergeReport solve_host(const T* data, std::vector<double>& ac);
  MergeReport solve_device(const double* data, std::vector<double>& ac);
  // The pieces, for tests: A^H D b (collective) and the Toeplitz operator (local), host memory.
  void adjoint_host(const T* data, std::vector<std::complex<double>>& out);
  void apply_normal_host(const std::vector<std::complex<double>>& in,
                         std::vector<std::complex<double>>& out);
  double weight_sum() const;
  std::int64_t num_points() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nufftmp::mtip::detail
