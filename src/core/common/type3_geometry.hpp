// The geometry of a type 3 transform, decided in set_points from the ranges of the sources and
// the targets: pure functions, shared by both engines and unit-tested on their own.
//
// Per axis, with sources x in C +- X and targets s in D +- S, write x = C + gamma x' and
// s = D + s~. Then exp(i s x) = exp(i D x) exp(i s~ C) exp(i (h gamma s~) (x' / h)), so
//   f(s) = exp(isign i s~ C) / phihat(t) * sum_l b_l exp(isign i t l),   t = h gamma s~,
// where b is the spread (type 1, no FFT) of the pre-phased strengths c_j exp(isign i D x_j) at
// x' = (x - C) / gamma onto a fine grid of nf cells of width h = 2 pi / nf, and the sum over the
// grid cells l (in FFT order) is a type 2 at the "points" t. The scale gamma puts the sources
// in [-pi + (w + 1) h / 2, pi - (w + 1) h / 2], so no kernel footprint wraps around the grid,
// and the frequencies t in [-pi / sigma, pi / sigma], where phihat is well away from zero.
#pragma once

#include <array>
#include <cstdint>

#include "nufftmp/plan.hpp"

namespace nufftmp::detail {

// Centre and half-width of [lo, hi] (lo > hi: no points, centre 0 and half-width 0). A range
// that nearly straddles 0 (|centre| < 0.1 half-width) keeps centre 0 and grows its half-width
// to hold the range: the phase factors are then skipped for a grid a little larger.
struct CentreWidth {
  double centre = 0;
  double half_width = 0;
};
CentreWidth centre_and_half_width(double lo, double hi);

struct Type3Axis {
  double C = 0, X = 0;  // source centre and half-width
  double D = 0, S = 0;  // target centre and half-width
  std::int64_t nf = 1;  // spreading grid cells
  double h = 0;         // 2 pi / nf
  double gamma = 1;     // x' = (x - C) / gamma
  double source_scale() const { return 1.0 / gamma; }  // x' = (x - C) * source_scale
  // t = (s - D) * target_scale: the inner type 2's coordinate and phihat's argument (radians
  // per grid cell).
  double target_scale() const { return h * gamma; }
};

// The grid of one axis for source half-width X and target half-width S (either may be 0) at
// upsampling factor sigma and kernel width w: nf = the smallest FFT-friendly even size
// >= max(2 w, 2 sigma X S / pi + w + 1). A zero X or S is taken as the smallest that gives
// X S >= 1, so the grid stays well defined. Throws Error(OutOfMemory) when nf would exceed
// kMaxModesPerDim.
Type3Axis type3_axis(CentreWidth sources, CentreWidth targets, double upsampfac, int w);

struct Type3Geometry {
  int dim = 1;
  std::array<Type3Axis, 3> axis{};  // unused axes: nf = 1
  bool prephase = false;   // some D != 0: the strengths are multiplied by exp(isign i D.x)
  bool postphase = false;  // some C != 0: the values get exp(isign i (s - D).C)
  std::array<std::int64_t, 3> fine_grid() const {
    return {axis[0].nf, axis[1].nf, axis[2].nf};
  }
  std::int64_t fine_total() const { return axis[0].nf * axis[1].nf * axis[2].nf; }
};

// The geometry for the given ranges. Throws Error(OutOfMemory) naming the grid when it has
// more than kMaxFineTotal cells.
Type3Geometry type3_geometry(int dim, const Type3Bounds& b, double upsampfac, int w);

// The bounds of nothing (lo = +inf, hi = -inf): the identity of merge_bounds.
Type3Bounds empty_bounds();
// The smallest ranges holding both a and b.
Type3Bounds merge_bounds(const Type3Bounds& a, const Type3Bounds& b);
// Whether inner lies within outer on the first dim axes (empty ranges lie within anything).
bool bounds_contain(int dim, const Type3Bounds& outer, const Type3Bounds& inner);

// Vectors per pass through the inner plans: the largest divisor of ntransf that is at most
// maxbatchsize (> 0), or else at most what keeps the grids of one pass within 1 GiB. A divisor,
// so that one pair of inner plans serves every pass.
int type3_batch(int ntransf, int maxbatchsize, double bytes_per_vector);

}  // namespace nufftmp::detail
