// The real-space sum at one target ion over its cell-list neighbours: potential
//   phi_t = sum' q_j erfc(alpha r)/r
// and force / q_t
//   sum' q_j [erfc(alpha r)/r + 2 alpha/sqrt(pi) exp(-alpha^2 r^2)] (r_t - r_j - s)/r^2
// over every ion j and image shift s with r = |r_t - r_j - s| < rcut except the target itself
// at s = 0 (its images lie at |s| >= L >= 2 rcut). One source for the host loop
// (real_space_host.cpp) and the CUDA kernel (gpu/real_space_kernels.cu).
//
// Neighbour cells are visited as unwrapped cell coordinates u = c - reach .. c + reach per
// axis, each with its own shift floor(u / n) L: distinct unwrapped cells are distinct image
// regions, so every (ion, image) pair within rcut is met exactly once, however few cells the
// box has. Cells whose nearest point lies beyond rcut of the target are skipped.
#pragma once

#include <cmath>
#include <cstdint>

#include "cell_grid.hpp"
#include "host_device.hpp"

namespace nufftmp::ewald::detail {

// An ion as the pair loops read it: 32 bytes, one aligned load pair on the GPU.
struct alignas(32) Ion {
  double x, y, z, q;
};

struct PairParams {
  double alpha = 1, rc2 = 1, rmin2 = 0;
};

struct PairSums {
  double phi = 0, fx = 0, fy = 0, fz = 0;
  bool too_close = false;  // a neighbour other than the target itself closer than rmin
};

constexpr double kTwoOverSqrtPi = 1.1283791670955126;

// Gap between coordinate p and the unwrapped cell [u h, (u + 1) h) along one axis.
EWALD_HD inline double cell_gap(double p, int u, double h) {
  const double lo = u * h - p, hi = p - (u + 1) * h;
  return lo > 0 ? lo : (hi > 0 ? hi : 0.0);
}

// Unwrapped cell coordinate u -> wrapped cell w in [0, n) and the image shift.
EWALD_HD inline int wrap_cell(int u, int n, double L, double& shift) {
  int w = u % n;
  if (w < 0) w += n;
  shift = static_cast<double>((u - w) / n) * L;
  return w;
}

// ions: sorted by cell; cell_start: n_cells + 1 offsets into them (CSR); t: the target's
// position in the sorted order.
template <bool Forces, typename Index>
EWALD_HD inline PairSums sum_neighbours(Index t, const Ion* ions, const Index* cell_start,
                                        const CellGrid& g, const PairParams& p) {
  PairSums s;
  const Ion me = ions[t];
  const int cx = cell_coord(me.x, 0, g), cy = cell_coord(me.y, 1, g), cz = cell_coord(me.z, 2, g);
  const int R = g.reach;
  for (int oz = -R; oz <= R; ++oz) {
    const double gz = cell_gap(me.z, cz + oz, g.h[2]);
    const double gz2 = gz * gz;
    if (gz2 >= p.rc2) continue;
    double sz;
    const int wz = wrap_cell(cz + oz, g.n[2], g.L[2], sz);
    for (int oy = -R; oy <= R; ++oy) {
      const double gy = cell_gap(me.y, cy + oy, g.h[1]);
      const double gzy2 = gz2 + gy * gy;
      if (gzy2 >= p.rc2) continue;
      double sy;
      const int wy = wrap_cell(cy + oy, g.n[1], g.L[1], sy);
      for (int ox = -R; ox <= R; ++ox) {
        const double gx = cell_gap(me.x, cx + ox, g.h[0]);
        if (gzy2 + gx * gx >= p.rc2) continue;
        double sx;
        const int wx = wrap_cell(cx + ox, g.n[0], g.L[0], sx);
        const bool unshifted = sx == 0.0 && sy == 0.0 && sz == 0.0;
        // The target seen from the image: r_t - (r_j + s) = (r_t - s) - r_j.
        const double px = me.x - sx, py = me.y - sy, pz = me.z - sz;
        const std::int64_t cell = cell_index(wx, wy, wz, g);
        const Index end = cell_start[cell + 1];
        for (Index j = cell_start[cell]; j < end; ++j) {
          const Ion o = ions[j];
          const double rx = px - o.x, ry = py - o.y, rz = pz - o.z;
          const double r2 = rx * rx + ry * ry + rz * rz;
          if (r2 >= p.rc2) continue;
          if (r2 < p.rmin2) {
            if (!(unshifted && j == t)) s.too_close = true;
            continue;
          }
          const double r = sqrt(r2), ar = p.alpha * r;
          const double e = erfc(ar) / r;
          s.phi += o.q * e;
          if (Forces) {
            const double f = o.q * (e + kTwoOverSqrtPi * p.alpha * exp(-ar * ar)) / r2;
            s.fx += f * rx;
            s.fy += f * ry;
            s.fz += f * rz;
          }
        }
      }
    }
  }
  return s;
}

}  // namespace nufftmp::ewald::detail
