// Orientation matching: for each image b_i the reference orientation r minimising
// ||b_i - s_r||^2 = ||b_i||^2 - 2 b_i.s_r + ||s_r||^2 over the model slices s_r. The cross
// term for a batch of references is a matrix product B S^T (images x pixels times pixels x
// references), computed by the register-blocked kernel of match_kernel.cpp (10x the plain
// blocked dot-product loop it replaces: 13 -> 130 GFLOP/s on 2 cores, 51 -> 540-610 GFLOP/s on
// 16 cores of the H200 host, where 2000 images x 1e4 references x 128^2 now take 1.1-1.2 s
// of products and 4.8 s of CPU slicing at M = 81); slices come from one
// type 2 NUFFT per batch. Pixel weights (a mask) enter as ||W^1/2 (b - s)||^2: the slices
// are weighted once per batch, so the product itself is unchanged.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "dist/partition.hpp"
#include "gpu/match_gpu.hpp"
#include "fault_injection.hpp"
#include "match_kernel.hpp"
#include "match_setup.hpp"
#include "nufftmp/mtip.hpp"
#include "nufft_tolerance.hpp"
#include "stopwatch.hpp"

namespace nufftmp::mtip {

using dist::detail::agreed;

namespace detail {
void check_match_args(const std::vector<Quaternion>& refs, const std::vector<double>& positions,
                      const MatchOptions& mopts) {
  if (refs.empty()) throw Error(ErrorCode::InvalidArgument, "matching: no reference orientations");
  if (mopts.batch < 1)
    throw Error(ErrorCode::InvalidArgument, "matching batch = " + std::to_string(mopts.batch));
  const std::size_t npix = positions.size() / 3;
  const std::vector<float>& w = mopts.pixel_weights;
  if (!w.empty() && w.size() != npix)
    throw Error(ErrorCode::InvalidArgument,
                "matching: pixel_weights has " + std::to_string(w.size()) + " values, expected " +
                    std::to_string(npix) + " (one per pixel)");
  for (float v : w)
    if (!(v >= 0) || !std::isfinite(v))
      throw Error(ErrorCode::InvalidArgument, "matching: pixel_weights must be finite and >= 0");
  if (mopts.likelihood == MatchOptions::Likelihood::Poisson && !(mopts.poisson_floor > 0))
    throw Error(ErrorCode::InvalidArgument,
                "matching: poisson_floor = " + std::to_string(mopts.poisson_floor) + " (> 0)");
}

// Pixels darker than 1e-3 of the brightest mean are clamped there, so empty pixels do not
// dominate the Poisson weights.
std::vector<float> match_pixel_weights(const MPI_Comm* comm, const MatchOptions& mopts,
                                       const float* images, std::int64_t n_images,
                                       std::int64_t npix) {
  if (!mopts.poisson_weights) return mopts.pixel_weights;
  std::vector<double> sum(static_cast<std::size_t>(npix + 1), 0.0);
  for (std::int64_t i = 0; i < n_images; ++i)
    for (std::int64_t p = 0; p < npix; ++p) sum[p] += images[i * npix + p];
  sum[npix] = static_cast<double>(n_images);
  if (comm) dist::detail::allreduce_sum(*comm, sum.data(), npix + 1);
  const double n = std::max(sum[npix], 1.0);
  double top = 0;
  for (std::int64_t p = 0; p < npix; ++p) top = std::max(top, sum[p] / n);
  std::vector<float> w(static_cast<std::size_t>(npix));
  for (std::int64_t p = 0; p < npix; ++p) {
    const double mean = std::max(sum[p] / n, 1e-3 * top);
    const double user = mopts.pixel_weights.empty() ? 1.0 : mopts.pixel_weights[p];
    w[p] = static_cast<float>(top > 0 ? user * top / mean : user);  // brightest pixel: weight 1
  }
  return w;
}

}  // namespace detail

using detail::check_match_args;
using detail::Clock;
using detail::match_pixel_weights;
using detail::ms_since;

namespace {

// What the Poisson cost needs besides the slices: the photons of each image on its exposed
// pixels (for the fitted scale) and the slices' floor, poisson_floor times the data's mean
// intensity (photons over exposure, all ranks).
struct PoissonTerms {
  std::vector<double> photons;
  double floor = 0;
};
PoissonTerms poisson_terms(const MPI_Comm* comm, const MatchOptions& mopts, const float* images,
                           std::int64_t n_images, std::int64_t npix) {
  const std::vector<float>& e = mopts.pixel_weights;
  PoissonTerms t;
  t.photons.assign(static_cast<std::size_t>(n_images), 0.0);
  double tot[3] = {0, static_cast<double>(n_images), 0};  // photons, images, exposure per image
  for (std::int64_t p = 0; p < npix; ++p) tot[2] += e.empty() ? 1.0 : e[p];
  for (std::int64_t i = 0; i < n_images; ++i) {
    double sum = 0;
    for (std::int64_t p = 0; p < npix; ++p)
      if (e.empty() || e[p] > 0) sum += images[i * npix + p];
    t.photons[i] = sum;
    tot[0] += sum;
  }
  if (comm) dist::detail::allreduce_sum(*comm, tot, 2);
  const double mean = tot[1] > 0 && tot[2] > 0 ? tot[0] / (tot[1] * tot[2]) : 0.0;
  // (All-zero data: any positive floor keeps the logarithm finite.)
  t.floor = mean > 0 ? mopts.poisson_floor * mean : 1e-30;
  return t;
}

// The matching loop. comm == nullptr: this rank slices every reference. Otherwise the
// references are split across the ranks of *comm (contiguous shares) and every batch step
// all-gathers the ranks' weighted float slices, so each rank matches its own images against
// every reference while slicing only its share.
//
// Why move slices and not images: slicing is the redundant part (every rank slicing all
// references costs nref * npix type 2 points per rank: about 30 s on 16 CPU cores at 5e6
// points/s for 1e4 x 128^2; on GPUs, ~0.05 s, every rank slices every reference instead:
// gpu/matcher_gpu.hpp), while the all-gather moves nref * npix * 4
// bytes into each rank (655 MB for 1e4 x 128^2: ~0.1 s over shared memory at 5-10 GB/s).
// Circulating the images instead would move ni_total * npix (less when images are fewer than
// references, as in this test case) but needs every rank to keep all its reference slices
// (or reslice them per ring step); real data sets have far more images than references, where
// slices are the smaller payload anyway. Measured on 2 shared cores, 2 ranks x 1 thread, 400
// images of 32^2, 2000 references, M = 33: matching 0.53-0.65 s with every rank slicing all
// references, 0.42 s split (slicing 0.42-0.62 -> 0.29-0.36 s, all-gather 0.02-0.10 s).
// Keeps the k lowest costs of each image, sorted (best first); of equal costs the lower
// reference index ranks first, so the answer does not depend on the number of ranks.
template <typename T>
TopMatches match_impl(const MPI_Comm* comm, const std::vector<double>& model, std::int64_t M,
                      const std::vector<Quaternion>& refs, const std::vector<double>& positions,
                      double scale, const float* images, std::int64_t n_images, std::int64_t k,
                      const MatchOptions& mopts, const Options& opts, MatchReport* report) {
  const int size = comm ? dist::detail::comm_size(*comm) : 1;
  const int rank = comm ? dist::detail::comm_rank(*comm) : 0;
  const std::int64_t npix = static_cast<std::int64_t>(positions.size() / 3);
  const std::int64_t nref = static_cast<std::int64_t>(refs.size());
  // On the CUDA engine the slices stay on the device and the product is a cuBLAS GEMM
  // (gpu/match_gpu.cpp): same options, same answers to rounding.
  const bool poisson = mopts.likelihood == MatchOptions::Likelihood::Poisson;
  if (!poisson && detail::match_on_gpu(comm, opts))
    return detail::match_top_k_gpu<T>(
        comm, model, M, refs, positions, scale, images, n_images, std::min(k, nref),
        match_pixel_weights(comm, mopts, images, n_images, npix), mopts, opts, report);
  const double tol = detail::nufft_tolerance(mopts.nufft_tol, sizeof(T) == 4);
  std::unique_ptr<Slicer<T>> slicer;
  const auto make_slicer = [&] { slicer = std::make_unique<Slicer<T>>(M, tol, opts); };
  if (comm) agreed(*comm, make_slicer);
  else make_slicer();
  // The references' split: the distributed layer's partition rule (rank 0's share is the
  // largest, so it sets the number of steps).
  const std::int64_t mine_first = dist::detail::share_offset(nref, size, rank);
  const std::int64_t mine_count = dist::detail::share_count(nref, size, rank);
  const std::int64_t steps =
      (dist::detail::share_count(nref, size, 0) + mopts.batch - 1) / mopts.batch;
  k = std::min(k, nref);
  TopMatches top;
  top.k = k;
  top.index.assign(static_cast<std::size_t>(n_images * k), -1);
  top.cost.assign(static_cast<std::size_t>(n_images * k), std::numeric_limits<double>::infinity());
  const std::vector<float> w =
      poisson ? mopts.pixel_weights : match_pixel_weights(comm, mopts, images, n_images, npix);
  const PoissonTerms pt = poisson ? poisson_terms(comm, mopts, images, n_images, npix)
                                  : PoissonTerms{};
  std::vector<T> x, y, z, S;
  std::vector<float> Sw, Sall;  // weighted slices (float: the product's input), own / all
  std::vector<double> snorm, snorm_all, cross;
  std::vector<std::int64_t> gidx;  // global reference index of each gathered slice
  MatchReport rep;
  for (std::int64_t step = 0; step < steps; ++step) {
    const std::int64_t r0 = mine_first + step * mopts.batch;
    const std::int64_t nb = std::max<std::int64_t>(
        0, std::min(mopts.batch, mine_first + mine_count - r0));
    // Everything of the batch that can fail locally (the slices' NUFFT, every allocation) runs
    // as one step under an agreement on status when there are several ranks, so a failure on
    // one rank (out of memory, say) stops every rank here rather than leaving the others in
    // the all-gather below. What follows the gather cannot throw.
    std::int64_t nall = nb;
    double slicing_ms = 0, local_ms = 0;
    const auto local_batch = [&] {
      detail::fault_point("match", rank);
      auto t = Clock::now();
      if (nb > 0) {
        x.resize(static_cast<std::size_t>(nb * npix));
        y.resize(x.size());
        z.resize(x.size());
        slice_points(positions, refs.data() + r0, nb, scale, x.data(), y.data(), z.data());
        slicer->set_points(nb * npix, x.data(), y.data(), z.data());
        slicer->slice_real(model, S);
      }
      slicing_ms = ms_since(t);
      t = Clock::now();
      snorm.assign(static_cast<std::size_t>(nb), 0.0);
      Sw.resize(static_cast<std::size_t>(nb * npix));
#pragma omp parallel for schedule(static)
      for (std::int64_t r = 0; r < nb; ++r) {
        double n = 0;
        if (poisson) {
          // The product takes log s on exposed pixels; the norm is the expected photons.
          for (std::int64_t p = 0; p < npix; ++p) {
            const double s = std::max<double>(S[r * npix + p], pt.floor);
            const double e = w.empty() ? 1.0 : w[p];
            Sw[r * npix + p] = e > 0 ? static_cast<float>(std::log(s)) : 0.0f;
            n += e * s;
          }
        } else {
          for (std::int64_t p = 0; p < npix; ++p) {
            const double s = S[r * npix + p], ws = w.empty() ? s : w[p] * s;
            Sw[r * npix + p] = static_cast<float>(ws);
            n += ws * s;
          }
        }
        snorm[r] = n;
      }
      gidx.resize(static_cast<std::size_t>(nb));
      for (std::int64_t r = 0; r < nb; ++r) gidx[r] = r0 + r;
      if (size > 1) {
        // The gather's layout: every rank's batch in rank order.
        nall = 0;
        gidx.clear();
        for (int q = 0; q < size; ++q) {
          const std::int64_t first = dist::detail::share_offset(nref, size, q);
          const std::int64_t q0 = first + step * mopts.batch;
          const std::int64_t nq = std::max<std::int64_t>(
              0, std::min(mopts.batch, first + dist::detail::share_count(nref, size, q) - q0));
          for (std::int64_t r = 0; r < nq; ++r) gidx.push_back(q0 + r);
          nall += nq;
        }
        Sall.resize(static_cast<std::size_t>(nall * npix));
        snorm_all.resize(static_cast<std::size_t>(nall));
      }
      cross.resize(static_cast<std::size_t>(n_images * nall));
      local_ms = ms_since(t);
    };
    if (size > 1) agreed(*comm, local_batch);
    else local_batch();
    rep.slicing_ms += slicing_ms;
    auto t0 = Clock::now();
    const float* Suse = Sw.data();
    const double* nuse = snorm.data();
    if (size > 1) {
      dist::detail::allgather(*comm, Sw.data(), nb * npix, Sall.data());
      dist::detail::allgather(*comm, snorm.data(), nb, snorm_all.data());
      Suse = Sall.data();
      nuse = snorm_all.data();
      rep.exchange_ms += ms_since(t0);
    }
    rep.gemm_ms += local_ms;  // the weighted slices and buffers count with the products
    t0 = Clock::now();
    detail::cross_products(images, n_images, Suse, nall, npix, cross.data());
    // cost = ||s||^2 - 2 b.s, or with a fitted scale -(b.s)_+ / ||s|| (the square root of
    // (b.s)^2 / ||s||^2: same order); of equal costs the lowest reference index wins, so the
    // answer does not depend on the number of ranks.
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n_images; ++i) {
      const double* c = cross.data() + i * nall;
      for (std::int64_t r = 0; r < nall; ++r) {
        const double cost =
            poisson ? (mopts.fit_scale ? pt.photons[i] * std::log(nuse[r]) - c[r] : nuse[r] - c[r])
            : mopts.fit_scale ? -std::max(0.0, c[r]) / std::sqrt(std::max(nuse[r], 1e-300))
                              : nuse[r] - 2.0 * c[r];
        std::int64_t* bi = top.index.data() + i * k;
        double* bc = top.cost.data() + i * k;
        const auto before = [&](std::int64_t j) {  // (cost, gidx[r]) ranks before slot j
          return cost < bc[j] || (cost == bc[j] && (bi[j] < 0 || gidx[r] < bi[j]));
        };
        if (!before(k - 1)) continue;
        std::int64_t j = k - 1;
        for (; j > 0 && before(j - 1); --j) {
          bc[j] = bc[j - 1];
          bi[j] = bi[j - 1];
        }
        bc[j] = cost;
        bi[j] = gidx[r];
      }
    }
    rep.gemm_ms += ms_since(t0);
  }
  if (report) *report = rep;
  return top;
}

std::vector<std::int64_t> best_only(const TopMatches& t) {
  std::vector<std::int64_t> best;
  for (std::size_t i = 0; i < t.index.size(); i += static_cast<std::size_t>(t.k))
    best.push_back(t.index[i]);
  return best;
}
}  // namespace

template <typename T>
std::vector<std::int64_t> match_orientations(const std::vector<double>& model, std::int64_t M,
                                             const std::vector<Quaternion>& refs,
                                             const std::vector<double>& positions, double scale,
                                             const float* images, std::int64_t n_images,
                                             const MatchOptions& mopts, const Options& opts,
                                             MatchReport* report) {
  check_match_args(refs, positions, mopts);
  return best_only(match_impl<T>(nullptr, model, M, refs, positions, scale, images, n_images, 1,
                                 mopts, opts, report));
}

template <typename T>
std::vector<std::int64_t> match_orientations(MPI_Comm comm, const std::vector<double>& model,
                                             std::int64_t M, const std::vector<Quaternion>& refs,
                                             const std::vector<double>& positions, double scale,
                                             const float* images, std::int64_t n_images,
                                             const MatchOptions& mopts, const Options& opts,
                                             MatchReport* report) {
  agreed(comm, [&] { check_match_args(refs, positions, mopts); });
  return best_only(match_impl<T>(&comm, model, M, refs, positions, scale, images, n_images, 1,
                                 mopts, opts, report));
}

std::vector<double> soft_weights(const TopMatches& m, double temperature) {
  if (!(temperature > 0))
    throw Error(ErrorCode::InvalidArgument,
                "soft assignment temperature = " + std::to_string(temperature) + " (> 0)");
  std::vector<double> w(m.cost.size(), 0.0);
  const std::int64_t k = m.k, n = k > 0 ? static_cast<std::int64_t>(m.cost.size()) / k : 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double* c = m.cost.data() + i * k;
    double* wi = w.data() + i * k;
    double sum = 0;
    for (std::int64_t j = 0; j < k; ++j) {
      wi[j] = std::exp(-(c[j] - c[0]) / temperature);
      sum += wi[j];
    }
    for (std::int64_t j = 0; j < k; ++j) wi[j] /= sum;
  }
  return w;
}

template <typename T>
TopMatches match_top_k(MPI_Comm comm, const std::vector<double>& model, std::int64_t M,
                       const std::vector<Quaternion>& refs, const std::vector<double>& positions,
                       double scale, const float* images, std::int64_t n_images, std::int64_t k,
                       const MatchOptions& mopts, const Options& opts, MatchReport* report) {
  agreed(comm, [&] {
    check_match_args(refs, positions, mopts);
    if (k < 1) throw Error(ErrorCode::InvalidArgument, "matching k = " + std::to_string(k));
  });
  return match_impl<T>(&comm, model, M, refs, positions, scale, images, n_images, k, mopts, opts,
                       report);
}
template TopMatches match_top_k<float>(MPI_Comm, const std::vector<double>&, std::int64_t,
                                       const std::vector<Quaternion>&, const std::vector<double>&,
                                       double, const float*, std::int64_t, std::int64_t,
                                       const MatchOptions&, const Options&, MatchReport*);
template TopMatches match_top_k<double>(MPI_Comm, const std::vector<double>&, std::int64_t,
                                        const std::vector<Quaternion>&, const std::vector<double>&,
                                        double, const float*, std::int64_t, std::int64_t,
                                        const MatchOptions&, const Options&, MatchReport*);

template std::vector<std::int64_t> match_orientations<float>(
    const std::vector<double>&, std::int64_t, const std::vector<Quaternion>&,
    const std::vector<double>&, double, const float*, std::int64_t, const MatchOptions&,
    const Options&, MatchReport*);
template std::vector<std::int64_t> match_orientations<double>(
    const std::vector<double>&, std::int64_t, const std::vector<Quaternion>&,
    const std::vector<double>&, double, const float*, std::int64_t, const MatchOptions&,
    const Options&, MatchReport*);
template std::vector<std::int64_t> match_orientations<float>(
    MPI_Comm, const std::vector<double>&, std::int64_t, const std::vector<Quaternion>&,
    const std::vector<double>&, double, const float*, std::int64_t, const MatchOptions&,
    const Options&, MatchReport*);
template std::vector<std::int64_t> match_orientations<double>(
    MPI_Comm, const std::vector<double>&, std::int64_t, const std::vector<Quaternion>&,
    const std::vector<double>&, double, const float*, std::int64_t, const MatchOptions&,
    const Options&, MatchReport*);

}  // namespace nufftmp::mtip
