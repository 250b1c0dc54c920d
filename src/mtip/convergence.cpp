// Truth-free convergence measures (convergence.hpp).
#include "nufftmp/mtip/convergence.hpp"

#include <algorithm>
#include <cmath>

#include "nufftmp/errors.hpp"
#include "nufftmp/mtip/volume.hpp"

namespace nufftmp::mtip {

ShellCurve shell_correlation(const std::vector<double>& a, const std::vector<double>& b,
                             std::int64_t M, bool remove_radial_profile) {
  if (M < 1 || static_cast<std::int64_t>(a.size()) != M * M * M || a.size() != b.size())
    throw Error(ErrorCode::InvalidArgument,
                "shell_correlation: the two volumes must have M^3 = " + std::to_string(M) +
                    "^3 values (got " + std::to_string(a.size()) + " and " +
                    std::to_string(b.size()) + ")");
  const std::int64_t h = M / 2, ns = h + 1;
  // Sums per exact radius (r^2 is an integer on the lattice): the radial profile is removed at
  // each point's own radius. A shell's mean alone would leave the profile's fall across the
  // shell's width, which two halves share whatever their orientations (0.4 for random ones).
  const std::int64_t ng = 3 * h * h + 1;
  std::vector<double> ga(ng, 0), gb(ng, 0), gab(ng, 0), gaa(ng, 0), gbb(ng, 0);
  std::vector<std::int64_t> gn(ng, 0);
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) {
        const std::int64_t r2 = (i - h) * (i - h) + (j - h) * (j - h) + (k - h) * (k - h);
        if (r2 >= ng) continue;
        const double x = a[(k * M + j) * M + i], y = b[(k * M + j) * M + i];
        ga[r2] += x, gb[r2] += y, gab[r2] += x * y, gaa[r2] += x * x, gbb[r2] += y * y, ++gn[r2];
      }
  std::vector<double> xy(ns, 0), xx(ns, 0), yy(ns, 0), raw_xx(ns, 0), raw_yy(ns, 0);
  ShellCurve c;
  c.fsc.assign(ns, 0.0);
  c.points.assign(ns, 0);
  for (std::int64_t r2 = 0; r2 < ng; ++r2) {
    if (gn[r2] == 0) continue;
    const auto s = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(r2))));
    if (s >= ns) continue;
    const double m = static_cast<double>(gn[r2]);
    const double sub = remove_radial_profile ? 1.0 : 0.0;
    xy[s] += gab[r2] - sub * ga[r2] * gb[r2] / m;
    xx[s] += gaa[r2] - sub * ga[r2] * ga[r2] / m;
    yy[s] += gbb[r2] - sub * gb[r2] * gb[r2] / m;
    raw_xx[s] += gaa[r2], raw_yy[s] += gbb[r2];
    c.points[s] += gn[r2];
  }
  for (std::int64_t s = 0; s < ns; ++s)
    // A shell with no spread once the profile is gone has no correlation to speak of; 1e-12 of
    // the raw power keeps rounding from counting as spread.
    if (xx[s] > 1e-12 * raw_xx[s] && yy[s] > 1e-12 * raw_yy[s])
      c.fsc[s] = xy[s] / std::sqrt(xx[s] * yy[s]);
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
                                 const std::vector<Quaternion>& after, bool remove_frame) {
  if (before.size() != after.size())
    throw Error(ErrorCode::InvalidArgument,
                "median_orientation_change: " + std::to_string(before.size()) + " and " +
                    std::to_string(after.size()) + " orientations");
  if (before.empty()) return 0;
  // Each image's orientation or its Friedel twin (turned 180 degrees about the beam: q z180),
  // whichever is nearer: slices of a flat Ewald sphere cannot tell the two apart (the
  // resolution ramp's low-q rounds are nearly flat), so a switch between them is no change of
  // the model. The frame is fitted, the twins chosen against it, and the frame fitted again.
  const Quaternion z180{0, 0, 0, 1};
  std::vector<Quaternion> b = before;
  Quaternion g;  // identity
  for (int pass = 0; pass < 2; ++pass) {
    if (remove_frame) {
      double m[16] = {0};
      accumulate_rotation_moments(after, b, m);
      g = mean_rotation_from_moments(m);
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
      const Quaternion twin = quat_multiply(before[i], z180);
      b[i] = quat_angle(quat_multiply(g, twin), after[i]) <
                     quat_angle(quat_multiply(g, before[i]), after[i])
                 ? twin
                 : before[i];
    }
  }
  std::vector<double> d(before.size());
  for (std::size_t i = 0; i < d.size(); ++i)
    d[i] = quat_angle(quat_multiply(g, b[i]), after[i]) * 57.29577951308232;
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  return d[d.size() / 2];
}

}  // namespace nufftmp::mtip
