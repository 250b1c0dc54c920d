#include "common/type3_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "common/grid.hpp"
#include "common/plan_config.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

namespace {

constexpr double kPi = 3.14159265358979323846;
// Below this |centre| / half-width a range is treated as centred at 0.
constexpr double kCentreFraction = 0.1;

[[noreturn]] void too_large(const std::string& grid, const std::string& why) {
  throw Error(ErrorCode::OutOfMemory,
              "type 3: the space-bandwidth product of these sources and targets needs a fine "
              "grid of " + grid + ", beyond any memory (" + why + ")");
}

}  // namespace

CentreWidth centre_and_half_width(double lo, double hi) {
  CentreWidth r;
  if (!(lo <= hi)) return r;
  r.centre = 0.5 * (lo + hi);
  r.half_width = 0.5 * (hi - lo);
  if (std::abs(r.centre) < kCentreFraction * r.half_width) {
    r.half_width += std::abs(r.centre);
    r.centre = 0;
  }
  return r;
}

Type3Axis type3_axis(CentreWidth sources, CentreWidth targets, double upsampfac, int w) {
  Type3Axis a;
  a.C = sources.centre;
  a.X = sources.half_width;
  a.D = targets.centre;
  a.S = targets.half_width;
  double X = a.X, S = a.S;
  if (X == 0 && S == 0) {
    X = S = 1;
  } else if (X == 0) {
    X = 1 / S;
  } else {
    S = std::max(S, 1 / X);
  }
  // (w + 1) cells of margin: half a kernel on each side plus rounding room.
  const double n = 2.0 * upsampfac * X * S / kPi + w + 1;
  if (!(n <= static_cast<double>(kMaxModesPerDim))) {
    std::ostringstream grid, why;
    grid << n << " cells along one axis";
    why << "source half-width X = " << a.X << ", target half-width S = " << a.S;
    too_large(grid.str(), why.str());
  }
  a.nf = next_smooth_even(std::max<std::int64_t>(2 * w, static_cast<std::int64_t>(std::ceil(n))));
  a.h = 2 * kPi / static_cast<double>(a.nf);
  a.gamma = static_cast<double>(a.nf) / (2.0 * upsampfac * S);
  return a;
}

Type3Geometry type3_geometry(int dim, const Type3Bounds& b, double upsampfac, int w) {
  Type3Geometry g;
  g.dim = dim;
  double total = 1;
  std::ostringstream grid;
  for (int d = 0; d < dim; ++d) {
    g.axis[d] = type3_axis(centre_and_half_width(b.source_lo[d], b.source_hi[d]),
                           centre_and_half_width(b.target_lo[d], b.target_hi[d]), upsampfac, w);
    g.prephase = g.prephase || g.axis[d].D != 0;
    g.postphase = g.postphase || g.axis[d].C != 0;
    total *= static_cast<double>(g.axis[d].nf);
    grid << (d ? " x " : "") << g.axis[d].nf;
  }
  if (total > static_cast<double>(kMaxFineTotal)) {
    std::ostringstream why;
    why << total << " cells";
    too_large(grid.str() + " cells", why.str());
  }
  return g;
}

Type3Bounds empty_bounds() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  Type3Bounds b;
  b.source_lo.fill(inf);
  b.target_lo.fill(inf);
  b.source_hi.fill(-inf);
  b.target_hi.fill(-inf);
  return b;
}

Type3Bounds merge_bounds(const Type3Bounds& a, const Type3Bounds& b) {
  Type3Bounds m;
  for (int d = 0; d < 3; ++d) {
    m.source_lo[d] = std::min(a.source_lo[d], b.source_lo[d]);
    m.source_hi[d] = std::max(a.source_hi[d], b.source_hi[d]);
    m.target_lo[d] = std::min(a.target_lo[d], b.target_lo[d]);
    m.target_hi[d] = std::max(a.target_hi[d], b.target_hi[d]);
  }
  return m;
}

bool bounds_contain(int dim, const Type3Bounds& outer, const Type3Bounds& inner) {
  auto within = [](double olo, double ohi, double ilo, double ihi) {
    return ilo > ihi || (olo <= ilo && ihi <= ohi);
  };
  for (int d = 0; d < dim; ++d) {
    if (!within(outer.source_lo[d], outer.source_hi[d], inner.source_lo[d], inner.source_hi[d]))
      return false;
    if (!within(outer.target_lo[d], outer.target_hi[d], inner.target_lo[d], inner.target_hi[d]))
      return false;
  }
  return true;
}

int type3_batch(int ntransf, int maxbatchsize, double bytes_per_vector) {
  constexpr double kAutoBytes = 1 << 30;
  int limit = maxbatchsize;
  if (limit <= 0) limit = static_cast<int>(std::clamp(kAutoBytes / bytes_per_vector, 1.0, 1e9));
  for (int b = std::min(limit, ntransf); b > 1; --b)
    if (ntransf % b == 0) return b;
  return 1;
}

}  // namespace nufftmp::detail
