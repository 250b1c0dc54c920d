// One type 3 accuracy case, engine-agnostic (host API): fresh sources and targets of the given
// distributions, off-centre (the phase factors) or centred (none), checked against the direct
// sum. The CPU and the CUDA tests run their tables through it.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <sstream>
#include <string>

#include "common/accuracy_case.hpp"

namespace nufftmp::test {

struct Type3Case {
  int dim;
  Prec prec;
  double tol;
  Dist sources, targets;
  bool centred;  // sources and targets about 0: no pre- or post-phase
  int isign;
};

inline std::string type3_case_name(const Type3Case& c) {
  std::ostringstream os;
  os << c.dim << "d_" << prec_name(c.prec) << "_tol" << static_cast<int>(-std::log10(c.tol) + 0.5)
     << "_src" << dist_name(c.sources) << "_tgt" << dist_name(c.targets)
     << (c.centred ? "_centred" : "") << (c.isign > 0 ? "_pos" : "_neg");
  return os.str();
}

// Moderate space-bandwidth products (grids of a few hundred cells in 1D, tens per axis in 3D)
// so that the direct sums and the plans stay quick.
struct Type3Sizes {
  std::int64_t M, N;
  double X, S;  // half-widths of sources and targets, per axis
};
inline Type3Sizes type3_sizes(int dim) {
  if (dim == 1) return {500, 400, 10.0, 40.0};
  if (dim == 2) return {800, 600, 3.0, 15.0};
  return {1000, 800, 2.0, 8.0};
}

template <typename T>
struct Type3Run {
  Points<T> src, tgt;
  CheckResult<T> result;
  double bound = 0;
};

// Runs the case on a plan made with opts (ntransf 1) and expects its relative l2 error within
// factor x max(tol, the plan's effective tolerance), and above zero.
template <typename T>
Type3Run<T> run_type3_case(const Type3Case& c, const Options& opts, double factor = 10.0) {
  const std::string name = type3_case_name(c);
  auto rng = make_rng(salt_of(name + backend_name(opts.backend)));
  const Type3Sizes z = type3_sizes(c.dim);
  const std::array<double, 3> C = c.centred ? std::array<double, 3>{0, 0, 0}
                                            : std::array<double, 3>{1.3, -2.1, 0.6};
  const std::array<double, 3> D = c.centred ? std::array<double, 3>{0, 0, 0}
                                            : std::array<double, 3>{-25.0, 11.0, 30.0};
  const std::array<double, 3> X{z.X, z.X, z.X}, S{z.S, z.S, z.S};
  Type3Run<T> run;
  run.src = type3_points<T>(c.sources, c.dim, z.M, C, X, rng);
  run.tgt = type3_points<T>(c.targets, c.dim, z.N, D, S, rng);
  Plan<T> plan(3, c.dim, c.isign, 1, c.tol, opts);
  run.result = check_type3(plan, run.src, run.tgt, rng, 1000);
  run.bound = factor * std::max(c.tol, plan.tolerance());
  expect_accuracy(name, run.result.rel_err, run.bound, plan.describe());
  return run;
}

// Every dim x precision x tolerance x source and target distribution, isign alternating, plus
// centred sets; tolerances from 1e-2 to 1e-12 (float down to 1e-6).
inline std::vector<Type3Case> type3_cases(const std::vector<double>& float_tols,
                                          const std::vector<double>& double_tols) {
  std::vector<Type3Case> cases;
  int n = 0;
  for (int dim : {1, 2, 3})
    for (Prec prec : {Prec::Float, Prec::Double})
      for (double tol : prec == Prec::Float ? float_tols : double_tols)
        for (Dist src : {Dist::Uniform, Dist::Clustered})
          for (Dist tgt : {Dist::Uniform, Dist::Clustered}) {
            const bool centred = src == Dist::Uniform && tgt == Dist::Clustered && tol < 1e-3;
            cases.push_back({dim, prec, tol, src, tgt, centred, (n++ % 2) ? -1 : 1});
          }
  return cases;
}

}  // namespace nufftmp::test
