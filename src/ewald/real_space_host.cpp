#include "real_space_host.hpp"

#include <omp.h>

#include <algorithm>

namespace nufftmp::ewald::detail {

namespace {

struct SortedIons {
  std::vector<Ion> ions;                  // by cell
  std::vector<std::int64_t> original;     // sorted position -> given position
  std::vector<std::int64_t> cell_start;   // n_cells + 1
};

SortedIons sort_into_cells(const Ion* ions, std::int64_t n, const CellGrid& g) {
  SortedIons s;
  const std::int64_t nc = g.count();
  std::vector<std::int64_t> cell(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    cell[i] = cell_index(cell_coord(ions[i].x, 0, g), cell_coord(ions[i].y, 1, g),
                         cell_coord(ions[i].z, 2, g), g);
  s.cell_start.assign(static_cast<std::size_t>(nc + 1), 0);
  for (std::int64_t i = 0; i < n; ++i) ++s.cell_start[cell[i] + 1];
  for (std::int64_t c = 0; c < nc; ++c) s.cell_start[c + 1] += s.cell_start[c];
  std::vector<std::int64_t> next(s.cell_start.begin(), s.cell_start.end() - 1);
  s.ions.resize(static_cast<std::size_t>(n));
  s.original.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t at = next[cell[i]]++;
    s.ions[at] = ions[i];
    s.original[at] = i;
  }
  return s;
}

template <bool Forces>
void sum_all(const SortedIons& s, std::int64_t n_owned, const CellGrid& g, const PairParams& p,
             RealSpaceResult& out) {
  const std::int64_t n = static_cast<std::int64_t>(s.ions.size());
  std::int64_t close = n_owned;  // the smallest owned index with a too-close neighbour
#pragma omp parallel for schedule(dynamic, 256) reduction(min : close)
  for (std::int64_t t = 0; t < n; ++t) {
    const std::int64_t i = s.original[t];
    if (i >= n_owned) continue;  // a halo ion: a source only
    const PairSums r = sum_neighbours<Forces>(t, s.ions.data(), s.cell_start.data(), g, p);
    if (r.too_close) close = std::min(close, i);
    out.phi[i] = r.phi;
    if (Forces) {
      const double q = s.ions[t].q;
      out.fx[i] = q * r.fx;
      out.fy[i] = q * r.fy;
      out.fz[i] = q * r.fz;
    }
  }
  out.too_close = close < n_owned ? close : -1;
}

}  // namespace

RealSpaceResult real_space_host(const Ion* ions, std::int64_t n_all, std::int64_t n_owned,
                                const CellGrid& g, const PairParams& p, bool forces) {
  RealSpaceResult out;
  out.phi.assign(static_cast<std::size_t>(n_owned), 0.0);
  if (forces) {
    out.fx.assign(static_cast<std::size_t>(n_owned), 0.0);
    out.fy.assign(static_cast<std::size_t>(n_owned), 0.0);
    out.fz.assign(static_cast<std::size_t>(n_owned), 0.0);
  }
  if (n_owned == 0) return out;
  const SortedIons s = sort_into_cells(ions, n_all, g);
  if (forces)
    sum_all<true>(s, n_owned, g, p, out);
  else
    sum_all<false>(s, n_owned, g, p, out);
  return out;
}

}  // namespace nufftmp::ewald::detail
