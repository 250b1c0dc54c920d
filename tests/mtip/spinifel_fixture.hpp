// Files in spinifel's / skopi's layout made in the tests (no download): the layout of skopi's
// sim_spinifel.py - intensities [n, panels, ny, nx], s-vectors [panels, ny, nx, 3] in 1/m,
// the particle's quaternions [n, 1, 4], the complex diffraction field on skopi's mesh as
// volume, polarization and solid_angle - written from a simulated data set.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "nufftmp/mtip.hpp"
#include "sim_fixture.hpp"

namespace mtip_test {

struct SpinifelFile {
  int panels = 2;
  bool orientations = true;
  bool complex_volume = true;  // false: the real density (nufftmp's kind of truth)
  std::vector<double> polarization, solid_angle, mask;  // [npix] each; empty: not written
};

// Writes s (nside x nside pixels) to path in skopi's layout (single process).
inline void write_spinifel(const std::string& path, const SimData& s, std::int64_t nside,
                           const SpinifelFile& f) {
  using namespace nufftmp::mtip;
  const std::int64_t npix = s.npix, P = f.panels, py = nside / P, M = s.M;
  H5Writer w(path);
  w.write("intensities", {s.n_images, P, py, nside}, s.images.data());
  std::vector<double> pl(static_cast<std::size_t>(3 * npix));
  double qmax = 0;
  for (std::int64_t p = 0; p < npix; ++p) {
    double r2 = 0;
    for (int c = 0; c < 3; ++c) {
      pl[3 * p + c] = s.positions[c * npix + p] * 1e10;  // 1/Angstrom -> 1/m
      r2 += pl[3 * p + c] * pl[3 * p + c];
    }
    qmax = std::max(qmax, std::sqrt(r2));
  }
  w.write("pixel_position_reciprocal", {P, py, nside, 3}, pl.data());
  if (f.orientations) {
    std::vector<double> q;
    for (const auto& o : s.orient) q.insert(q.end(), {o.w, -o.x, -o.y, -o.z});  // particle's
    w.write("orientations", {s.n_images, 1, 4}, q.data());
  }
  if (f.complex_volume) {
    std::vector<double> x, y, z;
    for (std::int64_t a = 0; a < M; ++a)
      for (std::int64_t b = 0; b < M; ++b)
        for (std::int64_t c = 0; c < M; ++c)
          for (auto [v, i] : {std::pair{&x, a}, std::pair{&y, b}, std::pair{&z, c}})
            v->push_back((-1 + 2.0 * i / (M - 1)) * qmax * 1e-10 * s.scale);
    nufftmp::Options o;
    o.backend = nufftmp::Backend::Cpu;
    const auto field =
        diffraction_field<double>(s.density, M, M * M * M, x.data(), y.data(), z.data(), 1e-9, o);
    w.write("volume", {M, M, M}, field.data());
    w.write_attribute("reciprocal_extent", qmax);
  } else {
    w.write("volume", {M, M, M}, s.density.data());
  }
  if (!f.polarization.empty()) w.write("polarization", {P, py, nside}, f.polarization.data());
  if (!f.solid_angle.empty()) w.write("solid_angle", {P, py, nside}, f.solid_angle.data());
  if (!f.mask.empty()) w.write("mask", {P, py, nside}, f.mask.data());
  w.commit();
}

// Writes s in nufftmp's own layout (the reference the readers must reproduce).
inline void write_nufftmp(const std::string& path, const SimData& s, std::int64_t nside,
                          const std::vector<double>* volume = nullptr) {
  using namespace nufftmp::mtip;
  H5Writer w(path);
  w.write("intensities", {s.n_images, nside, nside}, s.images.data());
  w.write("pixel_position_reciprocal", {3, nside, nside}, s.positions.data());
  std::vector<double> q;
  for (const auto& o : s.orient) q.insert(q.end(), {o.w, o.x, o.y, o.z});
  w.write("orientations", {s.n_images, 4}, q.data());
  const std::vector<double>& v = volume ? *volume : s.density;
  const auto N = static_cast<std::int64_t>(std::llround(std::cbrt(static_cast<double>(v.size()))));
  w.write("volume", {N, N, N}, v.data());
  w.commit();
}

}  // namespace mtip_test
