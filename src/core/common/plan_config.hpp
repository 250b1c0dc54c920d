// Everything a plan decides once, before any engine exists: validated parameters, kernel and
// fine grid. Pure C++ (no CUDA, no MPI); both engines read it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/kernel.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp::detail {

struct PlanConfig {
  int type = 1;
  int dim = 1;
  int isign = 1;
  int ntransf = 1;
  double tol_requested = 0;
  double tol = 0;  // effective
  std::array<std::int64_t, 3> N{1, 1, 1};
  std::array<std::int64_t, 3> nf{1, 1, 1};
  Options opts;
  KernelSpec kernel;
  std::string warning;  // non-empty when a parameter was adjusted (e.g. tolerance clamped)

  std::int64_t num_modes() const { return N[0] * N[1] * N[2]; }
  std::int64_t num_fine() const { return nf[0] * nf[1] * nf[2]; }
};

// Largest single-axis mode count and fine grid we accept: keeps every product in int64 and
// every per-axis index in the range the engines address.
constexpr std::int64_t kMaxModesPerDim = std::int64_t(1) << 40;
constexpr std::int64_t kMaxFineTotal = std::int64_t(1) << 46;

// Smallest tolerance the precision can reach (below it the tolerance is clamped, with a warning).
template <typename T> double precision_floor();

// Validates every parameter (throws Error naming the parameter and its value) and computes
// the kernel and fine grid. The deconvolution factors (common/kernel_ft.hpp) are each engine's to
// compute where it needs them: the CUDA engine on the device, the CPU engine on the host.
template <typename T>
PlanConfig make_plan_config(int type, const std::vector<std::int64_t>& modes, int isign,
                            int ntransf, double tol, const Options& opts);

// Type 3: the same validation and kernel choice as types 1/2, for dimension dim; N and nf stay
// 1 x 1 x 1 (the grids follow from the points, in set_points: common/type3_geometry.hpp).
template <typename T>
PlanConfig make_type3_plan_config(int dim, int isign, int ntransf, double tol,
                                  const Options& opts);

}  // namespace nufftmp::detail
