// A test molecule of Gaussian atoms, its density on the lattice, and its diffraction.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "nufftmp/mtip.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::mtip {

namespace {
// Atoms are cut at this many sigma so the support, and with it the autocorrelation, is finite.
constexpr double kCut = 3.0;

// The largest molecule radius (atom centres) whose autocorrelation stays inside the lattice:
// density support radius (M-1)/4 -> autocorrelation radius (M-1)/2.
double max_centre_radius(std::int64_t M, double sigma) { return (M - 1) / 4.0 - kCut * sigma; }

// The same for the molecule generators, which throw when sigma is not positive or M leaves no
// room for an atom.
double checked_centre_radius(std::int64_t M, double sigma) {
  if (!(sigma > 0)) throw Error(ErrorCode::InvalidArgument, "sigma = " + std::to_string(sigma));
  const double R = max_centre_radius(M, sigma);
  if (R <= 0)
    throw Error(ErrorCode::InvalidArgument,
                "M = " + std::to_string(M) + " is too small for atoms of sigma " +
                    std::to_string(sigma) + " (need M > " + std::to_string(12 * sigma + 1) + ")");
  return R;
}

double element_weight(const std::string& element) {
  if (element == "H") return 1;
  if (element == "C") return 6;
  if (element == "N") return 7;
  if (element == "O") return 8;
  if (element == "P") return 15;
  if (element == "S") return 16;
  return 6;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(' ');
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(' ') - a + 1);
}
}  // namespace

Molecule random_molecule(std::int64_t n_atoms, std::int64_t M, double sigma, std::uint64_t seed) {
  if (n_atoms < 1) throw Error(ErrorCode::InvalidArgument, "atoms = " + std::to_string(n_atoms));
  const double R = checked_centre_radius(M, sigma);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-R, R), w(0.5, 1.5);
  Molecule mol;
  mol.sigma = sigma;
  while (static_cast<std::int64_t>(mol.atoms.size()) < n_atoms) {
    const Vec3 a{u(rng), u(rng), u(rng)};
    if (a[0] * a[0] + a[1] * a[1] + a[2] * a[2] > R * R) continue;
    mol.atoms.push_back(a);
    mol.weight.push_back(w(rng));
  }
  return mol;
}

Molecule clustered_molecule(std::int64_t n_atoms, std::int64_t M, double sigma,
                            std::uint64_t seed) {
  if (n_atoms < 4) throw Error(ErrorCode::InvalidArgument, "atoms = " + std::to_string(n_atoms) + " (>= 4)");
  const double R = checked_centre_radius(M, sigma);
  // Cluster centres and radii (in units of R) keep every atom inside the ball of radius R.
  const double centre[4][3] = {{0.6, 0.1, 0.0}, {-0.35, 0.5, 0.1}, {-0.2, -0.35, 0.5},
                               {0.1, -0.2, -0.6}};
  const double share[4] = {0.4, 0.3, 0.2, 0.1};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1), w(0.5, 1.5);
  Molecule mol;
  mol.sigma = sigma;
  for (int c = 0; c < 4; ++c) {
    const std::int64_t n = c < 3 ? std::max<std::int64_t>(1, std::llround(share[c] * n_atoms))
                                 : std::max<std::int64_t>(1, n_atoms - static_cast<std::int64_t>(mol.atoms.size()));
    for (std::int64_t i = 0; i < n;) {
      const double a = u(rng), b = u(rng), d = u(rng);
      if (a * a + b * b + d * d > 1) continue;
      mol.atoms.push_back({R * (centre[c][0] + 0.3 * a), R * (centre[c][1] + 0.3 * b),
                           R * (centre[c][2] + 0.3 * d)});
      mol.weight.push_back(w(rng));
      ++i;
    }
  }
  return mol;
}

Molecule pdb_molecule(const std::string& path, double dx, std::int64_t M, double sigma) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::IoFailure, "cannot open PDB file '" + path + "'");
  Molecule mol;
  mol.sigma = sigma;
  std::string line;
  std::int64_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.rfind("ATOM  ", 0) != 0 && line.rfind("HETATM", 0) != 0) continue;
    if (line.size() < 54)
      throw Error(ErrorCode::IoFailure, "'" + path + "' line " + std::to_string(lineno) +
                                            ": ATOM record shorter than 54 columns");
    Vec3 a;
    try {
      for (int d = 0; d < 3; ++d) a[d] = std::stod(line.substr(30 + 8 * d, 8));
    } catch (const std::exception&) {
      throw Error(ErrorCode::IoFailure, "'" + path + "' line " + std::to_string(lineno) +
                                            ": unreadable coordinates");
    }
    std::string element = line.size() >= 78 ? trim(line.substr(76, 2)) : "";
    if (element.empty()) element = trim(line.substr(12, 2)).substr(0, 1);
    mol.atoms.push_back(a);
    mol.weight.push_back(element_weight(element));
  }
  if (mol.atoms.empty()) throw Error(ErrorCode::IoFailure, "'" + path + "': no ATOM records");
  Vec3 c{0, 0, 0};
  for (const auto& a : mol.atoms)
    for (int d = 0; d < 3; ++d) c[d] += a[d] / mol.atoms.size();
  double rmax = 0;
  for (auto& a : mol.atoms) {
    for (int d = 0; d < 3; ++d) a[d] = (a[d] - c[d]) / dx;
    rmax = std::max(rmax, std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]));
  }
  if (rmax > max_centre_radius(M, sigma))
    throw Error(ErrorCode::InvalidArgument,
                "'" + path + "': molecule radius " + std::to_string(rmax * dx) +
                    " A does not fit M = " + std::to_string(M) + " at voxel " +
                    std::to_string(dx) + " A (needs M >= " +
                    std::to_string(static_cast<std::int64_t>(std::ceil(4 * (rmax + kCut * sigma) + 1))) +
                    ", or a larger voxel: a detector of lower resolution)");
  return mol;
}

std::vector<double> density_on_grid(const Molecule& mol, std::int64_t M) {
  std::vector<double> rho(static_cast<std::size_t>(M * M * M), 0.0);
  const std::int64_t h = M / 2;
  const double s = mol.sigma, cut = kCut * s;
  for (std::size_t a = 0; a < mol.atoms.size(); ++a) {
    const Vec3& p = mol.atoms[a];
    const double w = mol.weight.empty() ? 1.0 : mol.weight[a];
    std::int64_t lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(p[d] - cut)) + h);
      hi[d] = std::min<std::int64_t>(M - 1, static_cast<std::int64_t>(std::floor(p[d] + cut)) + h);
    }
    for (std::int64_t k = lo[2]; k <= hi[2]; ++k)
      for (std::int64_t j = lo[1]; j <= hi[1]; ++j)
        for (std::int64_t i = lo[0]; i <= hi[0]; ++i) {
          const double dx = i - h - p[0], dy = j - h - p[1], dz = k - h - p[2];
          const double r2 = dx * dx + dy * dy + dz * dz;
          if (r2 <= cut * cut) rho[(k * M + j) * M + i] += w * std::exp(-r2 / (2 * s * s));
        }
  }
  return rho;
}

template <typename T>
std::vector<std::complex<double>> diffraction_field(const std::vector<double>& density,
                                                    std::int64_t M, std::int64_t n_points,
                                                    const T* x, const T* y, const T* z,
                                                    double tol, const Options& opts) {
  if (static_cast<std::int64_t>(density.size()) != M * M * M)
    throw Error(ErrorCode::InvalidArgument, "density size is not M^3");
  Options o = opts;
  o.modeord = 0;
  // F(x) = sum_n rho_n exp(-i n.x): the density's lattice sites are the "modes".
  Plan<T> plan(2, {M, M, M}, -1, 1, tol, o);
  plan.set_points_host(n_points, x, y, z);
  std::vector<std::complex<T>> f(density.begin(), density.end()), c(n_points);
  plan.execute_host(c.data(), f.data());
  return std::vector<std::complex<double>>(c.begin(), c.end());
}

template <typename T>
std::vector<double> diffraction_intensities(const std::vector<double>& density, std::int64_t M,
                                            std::int64_t n_points, const T* x, const T* y,
                                            const T* z, double tol, const Options& opts) {
  const auto c = diffraction_field<T>(density, M, n_points, x, y, z, tol, opts);
  std::vector<double> out(static_cast<std::size_t>(n_points));
  for (std::int64_t j = 0; j < n_points; ++j) out[j] = std::norm(c[j]);
  return out;
}

template std::vector<std::complex<double>> diffraction_field<float>(
    const std::vector<double>&, std::int64_t, std::int64_t, const float*, const float*,
    const float*, double, const Options&);
template std::vector<std::complex<double>> diffraction_field<double>(
    const std::vector<double>&, std::int64_t, std::int64_t, const double*, const double*,
    const double*, double, const Options&);
template std::vector<double> diffraction_intensities<float>(const std::vector<double>&,
                                                            std::int64_t, std::int64_t,
                                                            const float*, const float*,
                                                            const float*, double, const Options&);
template std::vector<double> diffraction_intensities<double>(const std::vector<double>&,
                                                             std::int64_t, std::int64_t,
                                                             const double*, const double*,
                                                             const double*, double,
                                                             const Options&);

void add_poisson_noise(std::vector<float>& values, std::mt19937_64& rng) {
  for (auto& v : values) {
    if (!(v > 0)) {
      v = 0;
      continue;
    }
    std::poisson_distribution<long long> p(static_cast<double>(v));
    v = static_cast<float>(p(rng));
  }
}

}  // namespace nufftmp::mtip
