// Slicing (slicing.cpp): the model's Fourier series at the slice points, a 3D type 2 NUFFT.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "nufftmp/options.hpp"

namespace nufftmp::mtip {

// Evaluates a model (M^3 modes, centred order) at slice points: a 3D type 2 NUFFT batched
// over the points of all orientations of this rank (isign +1).
template <typename T>
class Slicer {
 public:
  Slicer(std::int64_t M, double tol, const Options& opts = Options());
  ~Slicer();
  Slicer(Slicer&&) noexcept;
  void set_points(std::int64_t n_points, const T* x, const T* y, const T* z);
  void slice(const std::complex<T>* model, std::complex<T>* values);
  // Real model in, real part of the slices out (ac is real and even).
  void slice_real(const std::vector<double>& model, std::vector<T>& values);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nufftmp::mtip
