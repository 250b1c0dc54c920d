// A small simulated data set shared by the M-TIP tests: a clustered molecule (no symmetry)
// on an M^3 lattice, a wide-angle detector (strong Ewald curvature) and noiseless or Poisson
// images.
#pragma once

#include <vector>

#include "nufftmp/mtip.hpp"

namespace mtip_test {

struct SimData {
  std::int64_t M = 0, npix = 0, n_images = 0;
  std::vector<double> density, ac, positions;
  double scale = 0;
  std::vector<nufftmp::mtip::Quaternion> orient;
  std::vector<float> images;  // [n_images, npix]
};

inline SimData simulate(std::int64_t M, std::int64_t n_images, std::int64_t nside,
                        double fluence = 0, std::uint64_t seed = 3, std::int64_t atoms = 25,
                        const std::vector<nufftmp::mtip::Quaternion>* orientations = nullptr) {
  using namespace nufftmp::mtip;
  SimData s;
  s.M = M;
  s.n_images = n_images;
  Detector det;
  det.nx = det.ny = nside;
  det.pixel_size = 2e-3;
  det.distance = 0.06 * nside / 32.0;  // same angles as the app's default
  s.positions = pixel_positions_reciprocal(det);
  s.npix = nside * nside;
  s.scale = reciprocal_scale(s.positions);
  s.density = density_on_grid(clustered_molecule(atoms, M, 0.6, seed), M);
  s.ac = autocorrelation(s.density, M);
  std::mt19937_64 rng(seed + 1);
  for (std::int64_t i = 0; i < n_images; ++i)
    s.orient.push_back(orientations ? (*orientations)[i] : random_quaternion(rng));
  std::vector<double> x(n_images * s.npix), y(x.size()), z(x.size());
  slice_points(s.positions, s.orient.data(), n_images, s.scale, x.data(), y.data(), z.data());
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  const auto I = diffraction_intensities<double>(s.density, M, static_cast<std::int64_t>(x.size()),
                                                 x.data(), y.data(), z.data(), 1e-10, opts);
  s.images.assign(I.begin(), I.end());
  if (fluence > 0) {
    double mean = 0;
    for (float v : s.images) mean += v;
    mean /= s.images.size();
    for (auto& v : s.images) v = static_cast<float>(v * fluence / mean);
    add_poisson_noise(s.images, rng);
  }
  return s;
}

}  // namespace mtip_test
