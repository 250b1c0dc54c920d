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
  // the inscribed ball), where sigma 1.5 (w 12) took 150 ms against sigma 2's 200-240 ms and
  // 1.25's 250-300 ms (139000 points, 81^3, 1e-9, one core; docs/performance.md).
  o.upsampfac = 1.5;
  Plan<double> plan(2, {M, M, M}, isign, 1, 1e-9, o);
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  plan.set_points_host(n, x.data(), y.data(), z.data());
  std::vector<std::complex<double>> values(x.size());
  plan.execute_host(values.data(), f.data());
  return values;
}

}  // namespace nufftmp::mtip::detail
