// The type 3 plan: sources -> pre-phase -> a spread-only type 1 plan onto the grid the points
// need -> a type 2 plan of that grid at the rescaled targets -> phase and deconvolution
// (common/type3_geometry.hpp has the algebra). Both inner plans are ordinary Plans of the
// engine the type 3 plan runs on, made in set_points (the grid depends on the points) and kept
// while the grid stays the same; the steps between them are Type3Ops of that engine.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>

#include "engine.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::detail {

template <typename T>
class Type3Engine : public Engine<T> {
 public:
  // Type 3: sources x[0..dim), targets s[0..dim); host = pointers in host memory (else the
  // plan's). bounds: see Plan::set_points.
  virtual void set_points_type3(std::int64_t M, const T* const* x, std::int64_t N,
                                const T* const* s, const Type3Bounds* bounds, bool host) = 0;
  virtual Type3Bounds bounds(std::int64_t M, const T* const* x, std::int64_t N,
                             const T* const* s, bool host) = 0;
  virtual std::int64_t num_targets() const = 0;
  virtual std::array<std::int64_t, 3> fine_grid() const = 0;
  virtual std::string describe() const = 0;
};

// backend: Cpu or Cuda (resolved).
template <typename T>
std::unique_ptr<Type3Engine<T>> make_type3_engine(const PlanConfig& cfg, Backend backend);

}  // namespace nufftmp::detail
