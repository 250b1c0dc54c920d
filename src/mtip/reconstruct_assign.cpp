// The assignment stages of a generation (reconstruct_run.hpp): orientation matching against
// the current model with the resolution ramp (low q first, the reference set growing with the
// cut), hard or soft assignment, and the merge of every rank's images at their orientations.
#include <algorithm>
#include <cmath>

#include "reconstruct_run.hpp"

namespace nufftmp::mtip::detail {

template <typename T>
void Run<T>::match_stage(int gen, GenerationReport& g) {
  const auto t0 = Clock::now();
  const std::int64_t npix = in_.npix;
  // Resolution ramp: low q first, where the landscape has few, wide minima and a coarse
  // reference set resolves them; the cut and the reference set grow together.
  const int step = gen - 2;  // 0 at the first match
  const int ramp = ro_.q_ramp_generations >= 0 ? ro_.q_ramp_generations
                                               : std::max(1, (2 * (ro_.generations - 1)) / 3);
  const double cut =
      ramp > 0 ? std::min(1.0, ro_.q_ramp_start +
                                   (1.0 - ro_.q_ramp_start) * step / static_cast<double>(ramp))
               : 1.0;
  const std::int64_t nref = std::max<std::int64_t>(
      std::min(ro_.n_ref, ro_.n_ref_min),
      static_cast<std::int64_t>(std::llround(ro_.n_ref * cut * cut * cut)));
  if (static_cast<std::int64_t>(refs_.size()) != nref) refs_ = reference_orientations(nref);
  MatchOptions mopts = ro_.match;
  // The detector's correction C_p weights least squares and is the Poisson exposure
  // (corrections.hpp); the user's own pixel weights multiply it.
  if (!in_.correction.empty()) {
    mopts.pixel_weights.resize(static_cast<std::size_t>(npix), 1.0f);
    for (std::int64_t p = 0; p < npix; ++p)
      mopts.pixel_weights[p] = static_cast<float>(mopts.pixel_weights[p] * in_.correction[p]);
  }
  if (cut < 1.0) {
    mopts.pixel_weights.resize(static_cast<std::size_t>(npix), 1.0f);
    for (std::int64_t p = 0; p < npix; ++p)
      if (in_.qfrac[p] > cut) mopts.pixel_weights[p] = 0.0f;
  }
  g.n_ref = nref;
  g.q_cut = cut;
  for (int it = 0; it < ro_.match_iterations; ++it) {
    MatchReport mr;
    // The phased model (positive and supported) or the merge; later rounds of a generation
    // match against the round before's merge.
    if (it == 0 && ro_.match_phased)
      match_once(autocorrelation(st_.density, in_.M), mopts, mr, gen);
    else
      match_once(st_.ac, mopts, mr, gen);
    g.slicing_ms += mr.slicing_ms;
    if (it + 1 < ro_.match_iterations) merge_now();
  }
  g.matching_ms = ms_since(t0) - g.slicing_ms;
}

// One matching pass against `model` (sets st_.orientations, or the soft assignment).
template <typename T>
void Run<T>::match_once(const std::vector<double>& model, const MatchOptions& mopts,
                        MatchReport& mr, int gen) {
  // The engine reads the counts as they are for the Poisson likelihood, the corrected data for
  // least squares.
  const TopMatches top =
      engine_->match(model, refs_, std::max<std::int64_t>(1, ro_.soft_k), mopts, mr);
  for (std::int64_t i = 0; i < in_.nloc; ++i) st_.orientations[i] = refs_[top.index[i * top.k]];
  st_.soft = top.k > 1;
  if (st_.soft) soft_assignment(top, gen);
}

// EM form: sum_i sum_j w_ij ||b_i - s(r_ij)||^2 = sum_r W_r ||bbar_r - s(r)||^2 + const with
// W_r = sum of the weights at reference r and bbar_r the weighted mean of its images, so the
// merge takes one slice per used reference, whatever k is. With the Poisson likelihood this is
// EMC's update: the weighted mean of b / C_p with weights w_ij C_p is the maximum-likelihood
// intensity sum w b / sum w C of the (reference, pixel), the merge's least squares fit the
// model through those where slices cross. Sums are kept per half set, for the half merges.
template <typename T>
void Run<T>::soft_assignment(const TopMatches& top, int gen) {
  const std::int64_t nloc = in_.nloc, npix = in_.npix;
  // Annealed: geometric from soft_temp_start at generation 2 to soft_temp_end at the end.
  const double f =
      ro_.generations > 2 ? static_cast<double>(gen - 2) / (ro_.generations - 2) : 1.0;
  const double temp = ro_.soft_temp_start * std::pow(ro_.soft_temp_end / ro_.soft_temp_start, f);
  double unit = 1.0;  // Poisson: the costs are nats, the temperature absolute
  if (ro_.match.likelihood != MatchOptions::Likelihood::Poisson) {
    double spread[2] = {0, static_cast<double>(nloc)};
    for (std::int64_t i = 0; i < nloc; ++i)
      spread[0] += top.cost[i * top.k + top.k - 1] - top.cost[i * top.k];
    dist::detail::allreduce_sum(comm_, spread, 2);
    unit = spread[1] > 0 && spread[0] > 0 ? spread[0] / spread[1] : 1.0;
  }
  const std::vector<double> w = soft_weights(top, temp * unit);
  const float* data = in_.ls_images();
  // The used references in order of first use (serial, cheap), then the weighted sums grouped
  // by reference and accumulated in parallel over references (no two threads share one).
  std::vector<std::int64_t> slot(refs_.size(), -1), count;
  st_.soft_orient.clear();
  for (std::int64_t i = 0; i < nloc * top.k; ++i) {
    const std::int64_t r = top.index[i];
    if (!(w[i] > 1e-6)) continue;
    if (slot[r] < 0) {
      slot[r] = static_cast<std::int64_t>(st_.soft_orient.size());
      st_.soft_orient.push_back(refs_[r]);
      count.push_back(0);
    }
    ++count[slot[r]];
  }
  const std::int64_t ns = static_cast<std::int64_t>(st_.soft_orient.size());
  std::vector<std::int64_t> start(ns + 1, 0), pairs;  // pairs: flat (image, j) per slot
  for (std::int64_t r = 0; r < ns; ++r) start[r + 1] = start[r] + count[r];
  pairs.resize(static_cast<std::size_t>(start[ns]));
  std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
  for (std::int64_t i = 0; i < nloc * top.k; ++i)
    if (w[i] > 1e-6) pairs[fill[slot[top.index[i]]]++] = i;
  for (int h = 0; h < 2; ++h) {
    st_.soft_weight[h].assign(static_cast<std::size_t>(ns), 0.0);
    st_.soft_sum[h].assign(static_cast<std::size_t>(ns * npix), 0.0);
  }
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t r = 0; r < ns; ++r)
    for (std::int64_t q = start[r]; q < start[r + 1]; ++q) {
      const std::int64_t i = pairs[q] / top.k;
      const int half = static_cast<int>((in_.local.share.first + i) % 2);
      const double wij = w[pairs[q]];
      st_.soft_weight[half][r] += wij;
      double* a = st_.soft_sum[half].data() + r * npix;
      const float* b = data + i * npix;
      for (std::int64_t p = 0; p < npix; ++p) a[p] += wij * b[p];
    }
  st_.n_soft = static_cast<std::int64_t>(st_.soft_orient.size());
}

template <typename T>
void Run<T>::merge_stage(GenerationReport& g) {
  if (!(ro_.known_orientations && merged_known_)) {
    const auto t0 = Clock::now();
    merge_now();
    g.merging_ms = ms_since(t0);
    merged_known_ = true;
  }
  g.nufft_ms = g.slicing_ms + merge_nufft_ms_;
  g.cg_iterations = last_merge_.iterations;  // of the merge this model comes from
  g.cg_residual = last_merge_.residual;
}

// One merge of every rank's images at their current orientations into st_.ac (from zero).
template <typename T>
void Run<T>::merge_now() {
  std::vector<double> ac;
  last_merge_ = merge_images(ImageSet::All, ac);
  merge_nufft_ms_ += last_merge_.nufft_ms;
  st_.ac = std::move(ac);
}

// On the run's engine, whose merges weigh every pixel by C_p (generation_engine.hpp).
template <typename T>
MergeReport Run<T>::merge_images(ImageSet which, std::vector<double>& ac) {
  const std::int64_t npix = in_.npix;
  const double tol =
      which == ImageSet::All ? merge_opts_.tol : std::max(merge_opts_.tol, ro_.half_set_tol);
  MergeReport rep;
  if (st_.soft) {
    // One slice per used reference, its pixels weighted by W_r C_p (see the EM form above).
    std::vector<std::int64_t> used;
    std::vector<double> W;
    for (std::int64_t r = 0; r < st_.n_soft; ++r) {
      double w = which == ImageSet::HalfB ? 0.0 : st_.soft_weight[0][r];
      if (which != ImageSet::HalfA) w += st_.soft_weight[1][r];
      if (w > 0) used.push_back(r), W.push_back(w);
    }
    const std::int64_t nu = static_cast<std::int64_t>(used.size());
    std::vector<Quaternion> orient(static_cast<std::size_t>(nu));
    std::vector<T> ds(static_cast<std::size_t>(nu * npix));
    for (std::int64_t u = 0; u < nu; ++u) {
      const std::int64_t r = used[u];
      orient[u] = st_.soft_orient[r];
      const double* a = st_.soft_sum[0].data() + r * npix;
      const double* b = st_.soft_sum[1].data() + r * npix;
      for (std::int64_t p = 0; p < npix; ++p) {
        const double sum = (which == ImageSet::HalfB ? 0.0 : a[p]) +
                           (which == ImageSet::HalfA ? 0.0 : b[p]);
        ds[u * npix + p] = static_cast<T>(sum / W[u]);
      }
    }
    rep = engine_->merge(orient.data(), nu, W, ds.data(), tol, ac);
  } else if (which == ImageSet::All) {
    rep = engine_->merge(st_.orientations.data(), in_.nloc, {}, nullptr, tol, ac);
  } else {
    const auto& sel = half_[which == ImageSet::HalfA ? 0 : 1];
    const std::int64_t ns = static_cast<std::int64_t>(sel.size());
    const float* data = in_.ls_images();
    std::vector<Quaternion> orient(static_cast<std::size_t>(ns));
    std::vector<T> ds(static_cast<std::size_t>(ns * npix));
    for (std::int64_t u = 0; u < ns; ++u) {
      orient[u] = st_.orientations[sel[u]];
      for (std::int64_t p = 0; p < npix; ++p) ds[u * npix + p] = data[sel[u] * npix + p];
    }
    rep = engine_->merge(orient.data(), ns, {}, ds.data(), tol, ac);
  }
  ++merges_;
  if (rep.iterations >= merge_opts_.max_iter && rep.residual > tol) {
    ++capped_;
    capped_residual_ = std::max(capped_residual_, rep.residual);
  }
  return rep;
}

#define NUFFTMP_RUN_ASSIGN(T)                                                                \
  template void Run<T>::match_stage(int, GenerationReport&);                                \
  template void Run<T>::match_once(const std::vector<double>&, const MatchOptions&,         \
                                   MatchReport&, int);                                       \
  template void Run<T>::soft_assignment(const TopMatches&, int);                            \
  template void Run<T>::merge_stage(GenerationReport&);                                     \
  template void Run<T>::merge_now();                                                          \
  template MergeReport Run<T>::merge_images(ImageSet, std::vector<double>&);
NUFFTMP_RUN_ASSIGN(float)
NUFFTMP_RUN_ASSIGN(double)
#undef NUFFTMP_RUN_ASSIGN

}  // namespace nufftmp::mtip::detail
