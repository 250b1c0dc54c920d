// Quaternions, the Ewald-sphere detector geometry and slice coordinates.
#include <algorithm>
#include <cmath>

#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip {

namespace {
constexpr double kPi = 3.14159265358979323846;
}

Quaternion quat_multiply(const Quaternion& a, const Quaternion& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
          a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

Quaternion quat_conjugate(const Quaternion& q) { return {q.w, -q.x, -q.y, -q.z}; }

Quaternion quat_normalized(const Quaternion& q) {
  const double n = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  if (!(n > 0) || !std::isfinite(n))
    throw Error(ErrorCode::InvalidArgument, "quaternion: norm is zero or not finite");
  return {q.w / n, q.x / n, q.y / n, q.z / n};
}

std::array<double, 9> quat_to_matrix(const Quaternion& q) {
  const double w = q.w, x = q.x, y = q.y, z = q.z;
  return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
          2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
          2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}

Vec3 quat_rotate(const Quaternion& q, const Vec3& v) {
  const auto m = quat_to_matrix(q);
  return {m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
          m[6] * v[0] + m[7] * v[1] + m[8] * v[2]};
}

double quat_angle(const Quaternion& a, const Quaternion& b) {
  const double d = std::fabs(a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z);
  return 2.0 * std::acos(std::min(1.0, d));
}

Quaternion random_quaternion(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double u1 = u(rng), u2 = u(rng), u3 = u(rng);
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  return {a * std::sin(2 * kPi * u2), a * std::cos(2 * kPi * u2), b * std::sin(2 * kPi * u3),
          b * std::cos(2 * kPi * u3)};
}

// Super-Fibonacci spiral (Alexa, CVPR 2022): two incommensurate angular speeds on the two
// circles of the Hopf-like parametrisation of S^3 give a low-discrepancy, deterministic set.
std::vector<Quaternion> reference_orientations(std::int64_t n) {
  if (n < 1) throw Error(ErrorCode::InvalidArgument, "n_ref = " + std::to_string(n) + " (>= 1)");
  const double phi = std::sqrt(2.0), psi = 1.533751168755204288118041;
  std::vector<Quaternion> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double s = i + 0.5, t = s / static_cast<double>(n);
    const double r = std::sqrt(t), R = std::sqrt(1 - t);
    const double alpha = 2 * kPi * s / phi, beta = 2 * kPi * s / psi;
    out[i] = {r * std::sin(alpha), r * std::cos(alpha), R * std::sin(beta), R * std::cos(beta)};
  }
  return out;
}

double covering_angle(const std::vector<Quaternion>& refs, int probes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  double worst = 0;
  for (int p = 0; p < probes; ++p) {
    const Quaternion q = random_quaternion(rng);
    double best = 0;
    for (const auto& r : refs)
      best = std::max(best, std::fabs(q.w * r.w + q.x * r.x + q.y * r.y + q.z * r.z));
    worst = std::max(worst, 2.0 * std::acos(std::min(1.0, best)));
  }
  return worst;
}

namespace {
// Each pixel of a flat detector centred on the beam: its index (row-major, x fastest), its
// position on the detector plane and its distance from the sample.
template <typename F>
void for_each_pixel(const Detector& det, F&& f) {
  for (std::int64_t iy = 0; iy < det.ny; ++iy)
    for (std::int64_t ix = 0; ix < det.nx; ++ix) {
      const double px = (ix - 0.5 * (det.nx - 1)) * det.pixel_size;
      const double py = (iy - 0.5 * (det.ny - 1)) * det.pixel_size;
      f(iy * det.nx + ix, px, py, std::sqrt(px * px + py * py + det.distance * det.distance));
    }
}
}  // namespace

std::vector<double> pixel_positions_reciprocal(const Detector& det) {
  if (det.nx < 1 || det.ny < 1)
    throw Error(ErrorCode::InvalidArgument, "detector size nx = " + std::to_string(det.nx) +
                                                ", ny = " + std::to_string(det.ny) + " (>= 1)");
  if (!(det.pixel_size > 0) || !(det.distance > 0) || !(det.wavelength > 0))
    throw Error(ErrorCode::InvalidArgument,
                "detector pixel_size, distance and wavelength must be > 0 (got " +
                    std::to_string(det.pixel_size) + ", " + std::to_string(det.distance) + ", " +
                    std::to_string(det.wavelength) + ")");
  const std::int64_t npix = det.nx * det.ny;
  std::vector<double> pos(static_cast<std::size_t>(3 * npix));
  const double k = 1.0 / det.wavelength;
  for_each_pixel(det, [&](std::int64_t p, double px, double py, double norm) {
    // q = k_out - k_in with k_in = (0, 0, k): the Ewald sphere through the origin.
    pos[p] = k * px / norm;
    pos[npix + p] = k * py / norm;
    pos[2 * npix + p] = k * det.distance / norm - k;
  });
  return pos;
}

DetectorFactors detector_factors(const Detector& det) {
  pixel_positions_reciprocal(det);  // the same checks of the geometry
  const std::int64_t npix = det.nx * det.ny;
  DetectorFactors f;
  f.polarization.resize(static_cast<std::size_t>(npix));
  f.solid_angle.resize(static_cast<std::size_t>(npix));
  for_each_pixel(det, [&](std::int64_t p, double px, double, double r) {
    f.polarization[p] = 1 - (px / r) * (px / r);
    f.solid_angle[p] = det.pixel_size * det.pixel_size * det.distance / (r * r * r);
  });
  return f;
}

double reciprocal_scale(const std::vector<double>& positions) {
  const std::int64_t npix = static_cast<std::int64_t>(positions.size() / 3);
  double qmax = 0;
  for (std::int64_t p = 0; p < npix; ++p) {
    const double a = positions[p], b = positions[npix + p], c = positions[2 * npix + p];
    qmax = std::max(qmax, std::sqrt(a * a + b * b + c * c));
  }
  if (!(qmax > 0) || !std::isfinite(qmax))
    throw Error(ErrorCode::InvalidArgument, "pixel_position_reciprocal: all zero or not finite");
  // Any rotation keeps |Rq| = |q| <= qmax, so each component stays strictly inside (-pi, pi).
  return kPi * (1 - 1e-6) / qmax;
}

template <typename T>
void slice_points(const std::vector<double>& positions, const Quaternion* orient,
                  std::int64_t n_orient, double scale, T* x, T* y, T* z) {
  const std::int64_t npix = static_cast<std::int64_t>(positions.size() / 3);
  const double* px = positions.data();
  const double* py = px + npix;
  const double* pz = py + npix;
#pragma omp parallel for schedule(static)
  for (std::int64_t o = 0; o < n_orient; ++o) {
    const auto m = quat_to_matrix(orient[o]);
    for (std::int64_t p = 0; p < npix; ++p) {
      const std::int64_t j = o * npix + p;
      x[j] = static_cast<T>(scale * (m[0] * px[p] + m[1] * py[p] + m[2] * pz[p]));
      y[j] = static_cast<T>(scale * (m[3] * px[p] + m[4] * py[p] + m[5] * pz[p]));
      z[j] = static_cast<T>(scale * (m[6] * px[p] + m[7] * py[p] + m[8] * pz[p]));
    }
  }
}

template void slice_points<float>(const std::vector<double>&, const Quaternion*, std::int64_t,
                                  double, float*, float*, float*);
template void slice_points<double>(const std::vector<double>&, const Quaternion*, std::int64_t,
                                   double, double*, double*, double*);

}  // namespace nufftmp::mtip
