#include "lattice_series.hpp"

#include "nufftmp/plan.hpp"

namespace nufftmp::mtip::detail {

std::vector<std::complex<double>> lattice_series(std::int64_t M, int isign,
                                                 std::vector<std::complex<double>>& f,
                                                 const std::vector<double>& x,
                                                 const std::vector<double>& y,
                                                 const std::vector<double>& z) {
  Options o;
  o.backend = Backend::Cpu;
  o.modeord = 0;
  // The plan's cost model does not know the points when the plan is made and assumes 8 per
  // mode (sigma 2 for 81^3 modes); the scores have at most a quarter of one per mode (half of
  // the inscribed ball), where sigma 1.5 (w 9) took 54 ms against sigma 2's 120 ms and 1.25's
  // 95 ms (139000 points, 81^3, 1e-6, one core's CPU time; docs/performance.md).
  o.upsampfac = 1.5;
  // 1e-6: a correlation moves by its samples' errors to first order only where it is far
  // from 1, and then by ~1e-8 (test_mtip_scores against direct sums); at M = 81 the scores
  // agreed with 1e-9's to 2e-12. 1e-9 took 1.7 times as long.
  Plan<double> plan(2, {M, M, M}, isign, 1, 1e-6, o);
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  plan.set_points_host(n, x.data(), y.data(), z.data());
  std::vector<std::complex<double>> values(x.size());
  plan.execute_host(values.data(), f.data());
  return values;
}

}  // namespace nufftmp::mtip::detail
