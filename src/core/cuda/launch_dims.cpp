// The run-time dimension of the execute and set_points entry points: each forwards to the
// instance of its dimension, compiled in its own translation unit (tu_instance.hpp). Host code
// that sees only the instances' declarations, so that it instantiates no kernel itself.
#include <type_traits>

#include "cuda/bin_sort.hpp"
#include "cuda/launch.hpp"

namespace nufftmp::detail {

namespace {

// f(integral_constant<int, D>) for D = dim (1, 2 or 3; anything else is taken as 3, as the
// plan's configuration has checked it).
template <typename F>
decltype(auto) by_dim(int dim, F&& f) {
  switch (dim) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    default: return f(std::integral_constant<int, 3>{});
  }
}

}  // namespace

#define NUFFTMP_BY_DIM(fn)                                                          \
  template <typename T>                                                             \
  void fn(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {                     \
    by_dim(a.dim, [&](auto D) { fn##_dim<T, D.value>(a, k); });                     \
  }                                                                                 \
  template void fn<float>(const SpreadLaunch<float>&, const KernelCoeffs<float>&);  \
  template void fn<double>(const SpreadLaunch<double>&, const KernelCoeffs<double>&);
NUFFTMP_BY_DIM(spread_gm)
NUFFTMP_BY_DIM(spread_sm)
NUFFTMP_BY_DIM(spread_output)
NUFFTMP_BY_DIM(interp_gm)
NUFFTMP_BY_DIM(interp_sm)
#undef NUFFTMP_BY_DIM

template <typename T>
std::int64_t prepare_points(const PointPrepRequest& req, std::int64_t M, const T* x, const T* y,
                            const T* z, SortedPoints<T>& out) {
  return by_dim(req.dim,
                [&](auto D) { return prepare_points_dim<T, D.value>(req, M, x, y, z, out); });
}
template <typename T>
void load_point_kernels(const PointPrepRequest& req) {
  by_dim(req.dim, [&](auto D) { load_point_kernels_dim<T, D.value>(req); });
}
template std::int64_t prepare_points<float>(const PointPrepRequest&, std::int64_t, const float*,
                                            const float*, const float*, SortedPoints<float>&);
template std::int64_t prepare_points<double>(const PointPrepRequest&, std::int64_t,
                                             const double*, const double*, const double*,
                                             SortedPoints<double>&);
template void load_point_kernels<float>(const PointPrepRequest&);
template void load_point_kernels<double>(const PointPrepRequest&);

}  // namespace nufftmp::detail
