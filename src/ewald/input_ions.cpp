#include "input_ions.hpp"

#include <cmath>
#include <sstream>
#include <string>

#include "nufftmp/errors.hpp"
#include "number_text.hpp"

namespace nufftmp::ewald::detail {

namespace {


// Into [0, L): the cell list and the slabs need it; the NUFFT takes 2 pi x / L.
double wrap(double x, double L) {
  double w = x - L * std::floor(x / L);
  if (w >= L) w -= L;
  return w < 0 ? 0.0 : w;
}

}  // namespace

InputIons input_ions(std::int64_t n, const double* x, const double* y, const double* z,
                     const double* q, const Box& box, int rank) {
  const std::string where = " on rank " + std::to_string(rank);
  if (n < 0) throw Error(ErrorCode::InvalidArgument, "ewald: n_local = " + std::to_string(n) + where);
  if (n > 0 && !(x && y && z && q))
    throw Error(ErrorCode::InvalidArgument, "ewald: a null position or charge array with " +
                                                std::to_string(n) + " ions" + where);
  InputIons in;
  in.ions.resize(static_cast<std::size_t>(n));
  // One parallel pass (wrap, sums, a count of bad values); the first bad value is looked up
  // only when there is one. The sums' order varies with the threads: they feed the neutrality
  // test (relative 1e-8), the self energy and sum_q2, where rounding at 1e-16 is harmless.
  std::int64_t bad = 0;
  double s1 = 0, s2 = 0, s3 = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad, s1, s2, s3)
  for (std::int64_t i = 0; i < n; ++i) {
    bad += !(std::isfinite(x[i]) && std::isfinite(y[i]) && std::isfinite(z[i]) &&
             std::isfinite(q[i]));
    in.ions[i] = {wrap(x[i], box.L[0]), wrap(y[i], box.L[1]), wrap(z[i], box.L[2]), q[i]};
    s1 += q[i];
    s2 += q[i] * q[i];
    s3 += std::abs(q[i]);
  }
  const double* c[3] = {x, y, z};
  for (std::int64_t i = 0; bad > 0 && i < n; ++i) {
    for (int d = 0; d < 3; ++d)
      if (!std::isfinite(c[d][i]))
        throw Error(ErrorCode::BadPoints, "ewald: ion " + std::to_string(i) + " of rank " +
                                              std::to_string(rank) + ": " + "xyz"[d] + " = " +
                                              num(c[d][i]) + " is not a finite position");
    if (!std::isfinite(q[i]))
      throw Error(ErrorCode::InvalidArgument, "ewald: ion " + std::to_string(i) + " of rank " +
                                                  std::to_string(rank) + ": charge = " +
                                                  num(q[i]) + " is not finite");
  }
  in.sum_q = s1;
  in.sum_q2 = s2;
  in.sum_abs_q = s3;
  return in;
}

}  // namespace nufftmp::ewald::detail
