// Truth-free convergence measures (convergence.hpp).
#include "nufftmp/mtip/convergence.hpp"

#include <algorithm>
#include <cmath>

#include "nufftmp/errors.hpp"

namespace nufftmp::mtip {

ShellCurve shell_correlation(const std::vector<double>& a, const std::vector<double>& b,
                             std::int64_t M, bool remove_shell_mean) {
  if (M < 1 || static_cast<std::int64_t>(a.size()) != M * M * M || a.size() != b.size())
    throw Error(ErrorCode::InvalidArgument,
                "shell_correlation: the two volumes must have M^3 = " + std::to_string(M) +
                    "^3 values (got " + std::to_string(a.size()) + " and " +
                    std::to_string(b.size()) + ")");
  const std::int64_t h = M / 2, ns = h + 1;
  std::vector<double> sa(ns, 0), sb(ns, 0), sab(ns, 0), saa(ns, 0), sbb(ns, 0);
  std::vector<std::int64_t> n(ns, 0);
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) {
        const double r = std::sqrt(double((i - h) * (i - h) + (j - h) * (j - h) + (k - h) * (k - h)));
        const auto s = static_cast<std::int64_t>(std::llround(r));
        if (s >= ns) continue;
        const double x = a[(k * M + j) * M + i], y = b[(k * M + j) * M + i];
        sa[s] += x, sb[s] += y, sab[s] += x * y, saa[s] += x * x, sbb[s] += y * y, ++n[s];
      }
  ShellCurve c;
  c.fsc.assign(ns, 0.0);
  c.points = n;
  for (std::int64_t s = 0; s < ns; ++s) {
    if (n[s] < 2) continue;
    double xy = sab[s], xx = saa[s], yy = sbb[s];
    if (remove_shell_mean) {
      const double m = static_cast<double>(n[s]);
      xy -= sa[s] * sb[s] / m;
      xx -= sa[s] * sa[s] / m;
      yy -= sb[s] * sb[s] / m;
    }
    // A shell of constant values (no spread once its mean is gone) has no correlation to speak
    // of; 1e-12 of the raw power keeps rounding from counting as spread.
    if (xx > 1e-12 * saa[s] && yy > 1e-12 * sbb[s]) c.fsc[s] = xy / std::sqrt(xx * yy);
  }
  return c;
}

double shell_crossing(const ShellCurve& c, double threshold) {
  const std::int64_t ns = static_cast<std::int64_t>(c.fsc.size());
  if (ns < 2) return 0;
  if (c.fsc[1] < threshold) return 0;
  for (std::int64_t s = 2; s < ns; ++s)
    if (c.fsc[s] < threshold) {
      const double f0 = c.fsc[s - 1], f1 = c.fsc[s];
      return static_cast<double>(s - 1) + (f0 - threshold) / (f0 - f1);
    }
  return static_cast<double>(ns - 1);
}

double shell_mean(const ShellCurve& c) {
  const std::size_t ns = c.fsc.size();
  if (ns < 2) return 0;
  double sum = 0;
  for (std::size_t s = 1; s < ns; ++s) sum += c.fsc[s];
  return sum / static_cast<double>(ns - 1);
}

double median_orientation_change(const std::vector<Quaternion>& before,
                                 const std::vector<Quaternion>& after) {
  if (before.size() != after.size())
    throw Error(ErrorCode::InvalidArgument,
                "median_orientation_change: " + std::to_string(before.size()) + " and " +
                    std::to_string(after.size()) + " orientations");
  if (before.empty()) return 0;
  std::vector<double> d(before.size());
  for (std::size_t i = 0; i < d.size(); ++i)
    d[i] = quat_angle(before[i], after[i]) * 57.29577951308232;
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  return d[d.size() / 2];
}

}  // namespace nufftmp::mtip
