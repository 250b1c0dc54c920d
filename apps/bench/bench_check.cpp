#include "bench_check.hpp"

#include <algorithm>

#include "nufftmp/reference.hpp"

namespace nufftmp::bench {

std::int64_t default_check_samples(const BenchOptions& o, std::int64_t M) {
  if (o.check_samples > 0) return o.check_samples;
  // Each sampled output is one direct sum over M points (type 1) or prod(N) modes (type 2).
  const double terms = static_cast<double>(o.type != 2 ? M : o.num_modes());
  const double n = terms > 0 ? 1e9 / terms : 1000.0;
  return static_cast<std::int64_t>(std::clamp(n, 100.0, 1000.0));
}

template <typename T>
double check_error(const BenchOptions& o, const BenchData<T>& d, int t, std::int64_t nsamples) {
  const std::int64_t N[3] = {o.N[0], o.N[1], o.N[2]};
  const int dim = o.dim();
  const T* y = dim > 1 ? d.y.data() : nullptr;
  const T* z = dim > 2 ? d.z.data() : nullptr;
  const std::int64_t nmodes = o.num_modes();
  if (o.type == 3) {
    const auto idx = sample_indices(nmodes, nsamples, o.seed);
    const auto exact = reference::type3<T>(dim, d.M, d.x.data(), y, z, d.c.data() + t * d.M,
                                           o.isign, d.s.data(), dim > 1 ? d.t.data() : nullptr,
                                           dim > 2 ? d.u.data() : nullptr, idx);
    return reference::rel_l2_error<T>(exact, d.f.data() + t * nmodes, idx);
  }
  if (o.type == 1) {
    const auto idx = sample_indices(nmodes, nsamples, o.seed);
    const auto exact = reference::type1<T>(dim, d.M, d.x.data(), y, z, d.c.data() + t * d.M,
                                           o.isign, N, o.modeord, idx);
    return reference::rel_l2_error<T>(exact, d.f.data() + t * nmodes, idx);
  }
  const auto idx = sample_indices(d.M, nsamples, o.seed);
  const auto exact = reference::type2<T>(dim, d.x.data(), y, z, d.f.data() + t * nmodes,
                                         o.isign, N, o.modeord, idx);
  return reference::rel_l2_error<T>(exact, d.c.data() + t * d.M, idx);
}

template double check_error<float>(const BenchOptions&, const BenchData<float>&, int,
                                   std::int64_t);
template double check_error<double>(const BenchOptions&, const BenchData<double>&, int,
                                    std::int64_t);

}  // namespace nufftmp::bench
