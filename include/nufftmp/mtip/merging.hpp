// Merging (merging.cpp): the model that best explains every rank's images at their slice
// points, by CG on the Toeplitz normal equations.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "nufftmp/dist.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp::mtip {

struct MergeOptions {
  double lambda = 1e-3;   // Tikhonov weight, relative to the mean diagonal of A^H D A
  int max_iter = 200;
  // Relative residual of the normal equations. The fine detail that phasing needs converges
  // last: on the demo data the phased density's correlation with the truth is 0.947 at 1e-4,
  // 0.951 at 1e-5 and 0.976 at 1e-6 (the autocorrelation's own correlation is > 0.999 at all).
  double tol = 1e-6;
  double nufft_tol = 0;   // 0: 1e-5 (float) / 1e-9 (double)
  // CG preconditioned by T. Chan's circulant approximation of A^H D A (two M^3 FFTs per
  // step): at tol 1e-6 about half the iterations (demo: 109 instead of 203), but it also
  // converges the noise-dominated directions sooner, which plain CG leaves damped (a small
  // data set phased to 0.89 instead of 0.94 correlation). Off by default.
  bool precondition = false;
};
struct MergeReport {
  int iterations = 0;
  double residual = 0;      // final relative residual
  double kernel_ms = 0;     // Toeplitz kernel (type 1 of the weights + FFT)
  double rhs_ms = 0;        // A^H D b
  double cg_ms = 0;
  // Of kernel_ms + rhs_ms, the time in the two type 1 NUFFTs (set_points and execute; the
  // plans are made once per Merger): the weights' transform onto the 2M lattice and A^H D b.
  // kernel_ms and the kernel's part of nufft_ms belong to set_points: every solve after it
  // reports them again.
  double nufft_ms = 0;
  Backend engine = Backend::Cpu;  // the engine that ran: Cpu, or Cuda (everything on the GPU)
};
// Solves (A^H D A + lambda_abs I) ac = A^H D b, A the slicing operator of every rank's points;
// each rank passes its own points, weights and data; the result is the same on every rank.
// A^H D A is a convolution with the type 1 transform of the weights on the 2M lattice
// (Toeplitz embedding), applied with FFTs. Both type 1 transforms are distributed NUFFTs
// (dist::DistPlan, all-reduce), so every rank's images count on every rank. On a context of
// the CUDA engine everything runs on its GPU: plans, convolution and the CG's vectors
// (src/mtip/gpu/merger_gpu.hpp); set_points and solve then copy their host arrays once.
template <typename T>
class Merger {
 public:
  // Collective. The engine and device come from the context (opts: tolerance-free options).
  Merger(dist::Context& ctx, std::int64_t M, const MergeOptions& mopts,
         const Options& opts = Options());
  // Collective. Makes its own context over comm (engine: opts.backend, device: opts.gpu_device).
  Merger(MPI_Comm comm, std::int64_t M, const MergeOptions& mopts, const Options& opts = Options());
  ~Merger();
  Merger(Merger&&) noexcept;
  // Collective. weights may be null (all ones).
  void set_points(std::int64_t n_points, const T* x, const T* y, const T* z, const T* weights);
  // Collective. data: n_points values. ac: in = start (empty: zero), out = solution (real).
  MergeReport solve(const T* data, std::vector<double>& ac);
  // The CG's relative-residual tolerance of the later solves (MergeOptions::tol; not a plan
  // parameter, so one Merger serves merges of several tolerances).
  void set_cg_tol(double tol);
  // The pieces, for tests: A^H D b (collective) and the Toeplitz normal operator (local).
  void adjoint(const T* data, std::vector<std::complex<double>>& out);
  void apply_normal(const std::vector<std::complex<double>>& in,
                    std::vector<std::complex<double>>& out);
  double weight_sum() const;  // sum of all ranks' weights

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nufftmp::mtip
