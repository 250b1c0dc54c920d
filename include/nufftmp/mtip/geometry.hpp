// M-TIP geometry: quaternions, reference orientation sets, the detector's reciprocal pixel
// positions and the NUFFT coordinates of slices (geometry.cpp). Conventions: nufftmp/mtip.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace nufftmp::mtip {

using Vec3 = std::array<double, 3>;

struct Quaternion {
  double w = 1, x = 0, y = 0, z = 0;
};

Quaternion quat_multiply(const Quaternion& a, const Quaternion& b);
Quaternion quat_conjugate(const Quaternion& q);
Quaternion quat_normalized(const Quaternion& q);
Vec3 quat_rotate(const Quaternion& q, const Vec3& v);
// Row-major 3x3 rotation matrix of a unit quaternion.
std::array<double, 9> quat_to_matrix(const Quaternion& q);
// Angle (radians, in [0, pi]) of the rotation taking a to b; q and -q are the same rotation.
double quat_angle(const Quaternion& a, const Quaternion& b);
// Uniform on SO(3) (Shoemake's subgroup algorithm).
Quaternion random_quaternion(std::mt19937_64& rng);
// A deterministic near-uniform set of n orientations (super-Fibonacci spiral on S^3).
std::vector<Quaternion> reference_orientations(std::int64_t n);
// Largest angle from a random orientation to its nearest member of refs, estimated from
// `probes` random orientations: the covering radius of the set ("grid spacing").
double covering_angle(const std::vector<Quaternion>& refs, int probes, std::uint64_t seed);

// A flat detector normal to the beam (beam along +z), centred on it.
struct Detector {
  std::int64_t nx = 64, ny = 64;
  double pixel_size = 1e-4;  // metres
  double distance = 0.1;     // metres, sample to detector
  double wavelength = 2.0;   // Angstrom
};
// Reciprocal positions q = k_out - k_in (1/Angstrom) on the Ewald sphere, layout [3, ny, nx].
std::vector<double> pixel_positions_reciprocal(const Detector& det);
// The detector's per-pixel factors of the expected signal, layout [ny, nx]: the polarization
// factor 1 - (d.e)^2 of a beam polarized along x (d: the pixel's unit direction from the
// sample; skopi's |d x e|^2) and the solid angle area cos / r^2 = area D / r^3 (steradian).
struct DetectorFactors {
  std::vector<double> polarization, solid_angle;
};
DetectorFactors detector_factors(const Detector& det);
// The scale taking reciprocal positions (layout [3, npix]) into (-pi, pi)^3 for any rotation.
double reciprocal_scale(const std::vector<double>& positions);
// NUFFT coordinates of n_orient slices: x[o*npix + p] = scale * (R(orient[o]) p)_x, etc.
// positions: layout [3, npix].
template <typename T>
void slice_points(const std::vector<double>& positions, const Quaternion* orient,
                  std::int64_t n_orient, double scale, T* x, T* y, T* z);

}  // namespace nufftmp::mtip
