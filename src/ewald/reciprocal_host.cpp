#include "reciprocal_host.hpp"

#include <vector>

namespace nufftmp::ewald::detail {

double apply_green_host(const ModeGrid& m, const std::complex<double>* S,
                        std::complex<double>* f, bool forces) {
  const std::int64_t plane = m.N[0] * m.N[1], nz = m.N[2], block = m.count();
  const double* s = reinterpret_cast<const double*>(S);
  double* out = reinterpret_cast<double*>(f);
  std::vector<double> per_plane(static_cast<std::size_t>(nz), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int64_t iz = 0; iz < nz; ++iz) {
    double e = 0;
    for (std::int64_t idx = iz * plane; idx < (iz + 1) * plane; ++idx)
      e += forces ? apply_green<true>(idx, m, s, out, block)
                  : apply_green<false>(idx, m, s, out, block);
    per_plane[iz] = e;
  }
  double total = 0;
  for (double e : per_plane) total += e;
  return total;
}

}  // namespace nufftmp::ewald::detail
