// Orientation matching: for each image b_i the reference orientation r minimising
// ||b_i - s_r||^2 = ||b_i||^2 - 2 b_i.s_r + ||s_r||^2 over the model slices s_r. The cross
// term for a batch of references is a matrix product B S^T (images x pixels times pixels x
// references), computed here by a blocked CPU loop; slices come from one type 2 NUFFT per
// batch.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// cost[i * nr + r] = ||s_r||^2 - 2 b_i.s_r, blocked so a tile of images and of references
// stays in cache while the pixel loop streams.
template <typename T>
void least_squares_costs(const float* B, std::int64_t ni, const T* S, std::int64_t nr,
                         std::int64_t npix, const std::vector<double>& snorm, bool fit_scale,
                         std::vector<double>& cost) {
  constexpr std::int64_t bi = 8, br = 8;
  cost.assign(static_cast<std::size_t>(ni * nr), 0.0);
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (std::int64_t i0 = 0; i0 < ni; i0 += bi)
    for (std::int64_t r0 = 0; r0 < nr; r0 += br) {
      const std::int64_t i1 = std::min(ni, i0 + bi), r1 = std::min(nr, r0 + br);
      double acc[bi][br] = {};
      for (std::int64_t i = i0; i < i1; ++i) {
        const float* b = B + i * npix;
        for (std::int64_t r = r0; r < r1; ++r) {
          const T* s = S + r * npix;
          double d = 0;
#pragma omp simd reduction(+ : d)
          for (std::int64_t p = 0; p < npix; ++p) d += static_cast<double>(b[p]) * s[p];
          acc[i - i0][r - r0] = d;
        }
      }
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t r = r0; r < r1; ++r)
          cost[i * nr + r] = fit_scale ? -std::max(0.0, acc[i - i0][r - r0]) /
                                             std::sqrt(std::max(snorm[r], 1e-300))
                                       : snorm[r] - 2.0 * acc[i - i0][r - r0];
    }
}
}  // namespace

template <typename T>
std::vector<std::int64_t> match_orientations(const std::vector<double>& model, std::int64_t M,
                                             const std::vector<Quaternion>& refs,
                                             const std::vector<double>& positions, double scale,
                                             const float* images, std::int64_t n_images,
                                             const MatchOptions& mopts, const Options& opts,
                                             MatchReport* report) {
  if (refs.empty()) throw Error(ErrorCode::InvalidArgument, "matching: no reference orientations");
  if (mopts.batch < 1)
    throw Error(ErrorCode::InvalidArgument, "matching batch = " + std::to_string(mopts.batch));
  const std::int64_t npix = static_cast<std::int64_t>(positions.size() / 3);
  const std::int64_t nref = static_cast<std::int64_t>(refs.size());
  const double tol = mopts.nufft_tol > 0 ? mopts.nufft_tol : (sizeof(T) == 4 ? 1e-5 : 1e-9);
  Slicer<T> slicer(M, tol, opts);
  std::vector<std::int64_t> best(static_cast<std::size_t>(n_images), 0);
  std::vector<double> best_cost(static_cast<std::size_t>(n_images),
                                std::numeric_limits<double>::infinity());
  std::vector<T> x, y, z, S;
  std::vector<double> snorm, cost;
  MatchReport rep;
  for (std::int64_t r0 = 0; r0 < nref; r0 += mopts.batch) {
    const std::int64_t nb = std::min(mopts.batch, nref - r0);
    auto t0 = Clock::now();
    x.resize(static_cast<std::size_t>(nb * npix));
    y.resize(x.size());
    z.resize(x.size());
    slice_points(positions, refs.data() + r0, nb, scale, x.data(), y.data(), z.data());
    slicer.set_points(nb * npix, x.data(), y.data(), z.data());
    slicer.slice_real(model, S);
    snorm.assign(static_cast<std::size_t>(nb), 0.0);
    for (std::int64_t r = 0; r < nb; ++r)
      for (std::int64_t p = 0; p < npix; ++p)
        snorm[r] += static_cast<double>(S[r * npix + p]) * S[r * npix + p];
    rep.slicing_ms += ms_since(t0);
    t0 = Clock::now();
    least_squares_costs(images, n_images, S.data(), nb, npix, snorm, mopts.fit_scale, cost);
    for (std::int64_t i = 0; i < n_images; ++i)
      for (std::int64_t r = 0; r < nb; ++r)
        if (cost[i * nb + r] < best_cost[i]) {
          best_cost[i] = cost[i * nb + r];
          best[i] = r0 + r;
        }
    rep.gemm_ms += ms_since(t0);
  }
  if (report) *report = rep;
  return best;
}

template std::vector<std::int64_t> match_orientations<float>(
    const std::vector<double>&, std::int64_t, const std::vector<Quaternion>&,
    const std::vector<double>&, double, const float*, std::int64_t, const MatchOptions&,
    const Options&, MatchReport*);
template std::vector<std::int64_t> match_orientations<double>(
    const std::vector<double>&, std::int64_t, const std::vector<Quaternion>&,
    const std::vector<double>&, double, const float*, std::int64_t, const MatchOptions&,
    const Options&, MatchReport*);

}  // namespace nufftmp::mtip
