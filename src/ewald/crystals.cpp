// Built-in crystals (conventional cubic cells, nearest-neighbour distance r0 = 1) and the
// random test system. Positions in units of the cell edge a:
//   NaCl         a = 2:        Na at fcc, Cl at fcc + (1/2, 0, 0)
//   CsCl         a = 2/sqrt3:  Cs at (0, 0, 0), Cl at (1/2, 1/2, 1/2)
//   zinc blende  a = 4/sqrt3:  Zn at fcc, S at fcc + (1/4, 1/4, 1/4)
//   fluorite     a = 4/sqrt3:  Ca (+2) at fcc, F (-1) at fcc + (1/4, 1/4, 1/4) and
//                              fcc + (3/4, 3/4, 3/4)
// with fcc = {(0,0,0), (0,1/2,1/2), (1/2,0,1/2), (1/2,1/2,0)}. Literature values of the
// Madelung constants (normalisation in ewald.hpp): NaCl 1.747564594633, CsCl 1.762674773070,
// zinc blende 1.638055053388, fluorite 2.51939.
#include <cmath>
#include <cstdint>
#include <vector>

#include "nufftmp/errors.hpp"
#include "nufftmp/ewald.hpp"
#include "dist/partition.hpp"

namespace nufftmp::ewald {

namespace {

struct Site {
  double u, v, w, q;
};

const double kFcc[4][3] = {{0, 0, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}};

std::vector<Site> basis(Crystal c) {
  std::vector<Site> b;
  auto fcc = [&](double du, double dv, double dw, double q) {
    for (const auto& f : kFcc) b.push_back({f[0] + du, f[1] + dv, f[2] + dw, q});
  };
  switch (c) {
    case Crystal::NaCl: fcc(0, 0, 0, +1); fcc(0.5, 0, 0, -1); break;
    case Crystal::CsCl: b = {{0, 0, 0, +1}, {0.5, 0.5, 0.5, -1}}; break;
    case Crystal::ZincBlende: fcc(0, 0, 0, +1); fcc(0.25, 0.25, 0.25, -1); break;
    case Crystal::Fluorite:
      fcc(0, 0, 0, +2);
      fcc(0.25, 0.25, 0.25, -1);
      fcc(0.75, 0.75, 0.75, -1);
      break;
  }
  for (auto& s : b) {  // into [0, 1)
    s.u -= std::floor(s.u);
    s.v -= std::floor(s.v);
    s.w -= std::floor(s.w);
  }
  return b;
}

// splitmix64: a counter-based generator, so ion i's position does not depend on the ranks.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double uniform01(std::uint64_t seed, std::uint64_t i, int axis) {
  return static_cast<double>(mix(seed ^ mix(3 * i + axis)) >> 11) * 0x1.0p-53;
}

}  // namespace

const char* crystal_name(Crystal c) noexcept {
  switch (c) {
    case Crystal::NaCl: return "nacl";
    case Crystal::CsCl: return "cscl";
    case Crystal::ZincBlende: return "zincblende";
    case Crystal::Fluorite: return "fluorite";
  }
  return "unknown";
}

CrystalInfo crystal_info(Crystal c) {
  const double s3 = std::sqrt(3.0);
  switch (c) {
    case Crystal::NaCl: return {"nacl", 8, 4, 2.0, 1, -1, 1.747564594633};
    case Crystal::CsCl: return {"cscl", 2, 1, 2.0 / s3, 1, -1, 1.762674773070};
    case Crystal::ZincBlende: return {"zincblende", 8, 4, 4.0 / s3, 1, -1, 1.638055053388};
    case Crystal::Fluorite: return {"fluorite", 12, 4, 4.0 / s3, 2, -1, 2.51939};
  }
  throw Error(ErrorCode::InvalidArgument, "ewald: unknown crystal");
}

System make_crystal(Crystal c, int n, int rank, int size) {
  if (n < 1 || n > 10000)
    throw Error(ErrorCode::InvalidArgument,
                "ewald: crystal cells per edge n = " + std::to_string(n) + " (must be in [1, 10000])");
  if (size < 1 || rank < 0 || rank >= size)
    throw Error(ErrorCode::InvalidArgument, "ewald: rank " + std::to_string(rank) + " of " +
                                                std::to_string(size));
  const CrystalInfo info = crystal_info(c);
  const auto b = basis(c);
  const double a = info.cell_edge;
  System s;
  s.box.L = {n * a, n * a, n * a};
  const std::int64_t cells = std::int64_t(n) * n * n;
  const std::int64_t first = dist::detail::share_offset(cells, size, rank);
  const std::int64_t count = dist::detail::share_count(cells, size, rank);
  const auto ions = static_cast<std::size_t>(count) * b.size();
  s.x.reserve(ions);
  s.y.reserve(ions);
  s.z.reserve(ions);
  s.q.reserve(ions);
  for (std::int64_t cell = first; cell < first + count; ++cell) {
    const std::int64_t ix = cell % n, iy = (cell / n) % n, iz = cell / (std::int64_t(n) * n);
    for (const Site& st : b) {
      s.x.push_back((ix + st.u) * a);
      s.y.push_back((iy + st.v) * a);
      s.z.push_back((iz + st.w) * a);
      s.q.push_back(st.q);
    }
  }
  return s;
}

double madelung_constant(Crystal c, int n, double energy) {
  const CrystalInfo info = crystal_info(c);
  const double units = double(n) * n * n * info.formula_units_per_cell;
  return -energy / (units * info.z_cation * std::abs(info.z_anion));
}

System make_random_system(std::int64_t n_total, double density, std::uint64_t seed, int rank,
                          int size) {
  if (n_total < 2 || n_total % 2 != 0)
    throw Error(ErrorCode::InvalidArgument, "ewald: random system of n = " +
                                                std::to_string(n_total) +
                                                " ions (must be even and >= 2: half +1, half -1)");
  if (!(std::isfinite(density) && density > 0))
    throw Error(ErrorCode::InvalidArgument,
                "ewald: density = " + std::to_string(density) + " (must be > 0)");
  if (size < 1 || rank < 0 || rank >= size)
    throw Error(ErrorCode::InvalidArgument, "ewald: rank " + std::to_string(rank) + " of " +
                                                std::to_string(size));
  const double L = std::cbrt(double(n_total) / density);
  System s;
  s.box.L = {L, L, L};
  const std::int64_t first = dist::detail::share_offset(n_total, size, rank);
  const std::int64_t count = dist::detail::share_count(n_total, size, rank);
  s.x.resize(count);
  s.y.resize(count);
  s.z.resize(count);
  s.q.resize(count);
  // x, y uniform; z stratified (ion i in the i-th of n_total layers), so that a contiguous
  // range of ions is a z-slab: every rank's share is (nearly) its own slab of the solver.
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < count; ++k) {
    const auto i = static_cast<std::uint64_t>(first + k);
    s.x[k] = L * uniform01(seed, i, 0);
    s.y[k] = L * uniform01(seed, i, 1);
    s.z[k] = L * (double(i) + uniform01(seed, i, 2)) / double(n_total);
    s.q[k] = (i % 2 == 0) ? 1.0 : -1.0;
  }
  return s;
}

}  // namespace nufftmp::ewald
