// Runs a plan on given points and data and measures its relative l2 error against the direct
// sum (nufftmp::reference) on a sample of outputs. Engine-agnostic: uses only the host API.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

#include "common/test_data.hpp"
#include "nufftmp/plan.hpp"
#include "nufftmp/reference.hpp"

namespace nufftmp::test {

template <typename T>
struct CheckResult {
  double rel_err = 0;
  std::vector<std::complex<T>> c, f;  // the inputs and outputs of the (single) transform
};

// Sets the points on plan (ntransf must be 1), draws random input, executes, and returns the
// error against the direct sum at up to max_outputs sampled outputs. modeord must be the one
// the plan was made with (Plan does not report it).
template <typename T>
CheckResult<T> check_transform(Plan<T>& plan, int modeord, const Points<T>& pts,
                               std::mt19937_64& rng, std::int64_t max_outputs = 2000) {
  CheckResult<T> r;
  const std::int64_t M = pts.M, nmodes = plan.num_modes();
  const auto N = plan.modes();
  plan.set_points_host(M, pts.x(), pts.y(), pts.z());
  if (plan.type() == 1) {
    r.c = random_complex<T>(M, rng);
    r.f.assign(static_cast<size_t>(nmodes), std::complex<T>(7, 7));  // must be overwritten
    plan.execute_host(r.c.data(), r.f.data());
    const auto idx = sample_indices(nmodes, max_outputs, rng);
    const auto exact = reference::type1<T>(plan.dim(), M, pts.x(), pts.y(), pts.z(), r.c.data(),
                                           plan.isign(), N.data(), modeord, idx);
    r.rel_err = reference::rel_l2_error<T>(exact, r.f.data(), idx);
  } else {
    r.f = random_complex<T>(nmodes, rng);
    r.c.assign(static_cast<size_t>(M), std::complex<T>(7, 7));
    plan.execute_host(r.c.data(), r.f.data());
    const auto idx = sample_indices(M, max_outputs, rng);
    const auto exact = reference::type2<T>(plan.dim(), pts.x(), pts.y(), pts.z(), r.f.data(),
                                           plan.isign(), N.data(), modeord, idx);
    r.rel_err = reference::rel_l2_error<T>(exact, r.c.data(), idx);
  }
  return r;
}

// Type 3: sets the sources and targets on plan (ntransf must be 1; host arrays), draws random
// strengths, executes, and returns the error against the direct sum at up to max_outputs
// sampled targets.
template <typename T>
CheckResult<T> check_type3(Plan<T>& plan, const Points<T>& src, const Points<T>& tgt,
                           std::mt19937_64& rng, std::int64_t max_outputs = 2000) {
  CheckResult<T> r;
  const std::int64_t M = src.M, N = tgt.M;
  plan.set_points_host(M, src.x(), src.y(), src.z(), N, tgt.x(), tgt.y(), tgt.z());
  r.c = random_complex<T>(M, rng);
  r.f.assign(static_cast<size_t>(N), std::complex<T>(7, 7));  // must be overwritten
  plan.execute_host(r.c.data(), r.f.data());
  const auto idx = sample_indices(N, max_outputs, rng);
  const auto exact = reference::type3<T>(plan.dim(), M, src.x(), src.y(), src.z(), r.c.data(),
                                         plan.isign(), tgt.x(), tgt.y(), tgt.z(), idx);
  r.rel_err = reference::rel_l2_error<T>(exact, r.f.data(), idx);
  return r;
}

}  // namespace nufftmp::test
