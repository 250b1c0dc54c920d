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
  const TopMatches top =
      engine_->match(model, refs_, std::max<std::int64_t>(1, ro_.soft_k), mopts, mr);
  for (std::int64_t i = 0; i < in_.nloc; ++i) st_.orientations[i] = refs_[top.index[i * top.k]];
  st_.soft = top.k > 1;
  if (st_.soft) soft_assignment(top, gen);
}

// EM form: sum_i sum_j w_ij ||b_i - s(r_ij)||^2 = sum_r W_r ||bbar_r - s(r)||^2 + const with
// W_r = sum of the weights at reference r and bbar_r the weighted mean of its images, so the
// merge takes one slice per used reference, whatever k is.
template <typename T>
void Run<T>::soft_assignment(const TopMatches& top, int gen) {
  const std::int64_t nloc = in_.nloc, npix = in_.npix;
  // Annealed: geometric from soft_temp_start at generation 2 to soft_temp_end at the end.
  const double f =
      ro_.generations > 2 ? static_cast<double>(gen - 2) / (ro_.generations - 2) : 1.0;
  const double temp = ro_.soft_temp_start * std::pow(ro_.soft_temp_end / ro_.soft_temp_start, f);
  double spread[2] = {0, static_cast<double>(nloc)};
  for (std::int64_t i = 0; i < nloc; ++i)
    spread[0] += top.cost[i * top.k + top.k - 1] - top.cost[i * top.k];
  dist::detail::allreduce_sum(comm_, spread, 2);
  const double unit = spread[1] > 0 && spread[0] > 0 ? spread[0] / spread[1] : 1.0;
  const std::vector<double> w = soft_weights(top, temp * unit);
  std::vector<double> wsum(refs_.size(), 0.0), acc;
  std::vector<std::int64_t> slot(refs_.size(), -1);
  st_.soft_orient.clear();
  for (std::int64_t i = 0; i < nloc; ++i)
    for (std::int64_t j = 0; j < top.k; ++j) {
      const std::int64_t r = top.index[i * top.k + j];
      const double wij = w[i * top.k + j];
      if (!(wij > 1e-6)) continue;
      if (slot[r] < 0) {
        slot[r] = static_cast<std::int64_t>(st_.soft_orient.size());
        st_.soft_orient.push_back(refs_[r]);
        acc.resize(acc.size() + npix, 0.0);
      }
      wsum[r] += wij;
      double* a = acc.data() + slot[r] * npix;
      const float* b = in_.local.intensities.data() + i * npix;
      for (std::int64_t p = 0; p < npix; ++p) a[p] += wij * b[p];
    }
  st_.soft_weight.assign(st_.soft_orient.size(), 0.0);
  st_.soft_data.resize(acc.size());
  for (std::size_t r = 0; r < refs_.size(); ++r)
    if (slot[r] >= 0) {
      st_.soft_weight[slot[r]] = wsum[r];
      for (std::int64_t p = 0; p < npix; ++p)
        st_.soft_data[slot[r] * npix + p] = static_cast<T>(acc[slot[r] * npix + p] / wsum[r]);
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
  if (st_.soft)  // one slice per used reference, its pixels weighted by W_r (the EM form)
    last_merge_ = engine_->merge(st_.soft_orient.data(), st_.n_soft, st_.soft_weight,
                                 st_.soft_data.data(), ac);
  else
    last_merge_ = engine_->merge(st_.orientations.data(), in_.nloc, {}, nullptr, ac);
  merge_nufft_ms_ += last_merge_.nufft_ms;
  st_.ac = std::move(ac);
}

#define NUFFTMP_RUN_ASSIGN(T)                                                                \
  template void Run<T>::match_stage(int, GenerationReport&);                                \
  template void Run<T>::match_once(const std::vector<double>&, const MatchOptions&,         \
                                   MatchReport&, int);                                       \
  template void Run<T>::soft_assignment(const TopMatches&, int);                            \
  template void Run<T>::merge_stage(GenerationReport&);                                     \
  template void Run<T>::merge_now();
NUFFTMP_RUN_ASSIGN(float)
NUFFTMP_RUN_ASSIGN(double)
#undef NUFFTMP_RUN_ASSIGN

}  // namespace nufftmp::mtip::detail
