// The phasing stage of a generation (reconstruct_run.hpp). A fresh start runs on every rank
// with its own random start and the densities, each aligned (translation, inversion) to the
// one of lowest Fourier error, are averaged: HIO is chaotic, and the independent errors of the
// starts average out at no extra wall time. A continuation from the previous density runs on
// rank 0 and is broadcast.
#include <limits>

#include "reconstruct_run.hpp"

namespace nufftmp::mtip::detail {

template <typename T>
void Run<T>::phase_stage(GenerationReport& g) {
  const auto t0 = Clock::now();
  const std::int64_t M = in_.M;
  const bool fresh = st_.density.empty();
  double err = std::numeric_limits<double>::infinity();
  dist::detail::agreed(comm_, [&] {
    if (!fresh && rank_ != 0) return;
    // phase()'s attempts (seeds seed + 7919 a) from this rank's seed.
    const PhaseOptions& po = ro_.phase;
    const std::uint64_t seed = po.seed + 104729u * static_cast<std::uint64_t>(rank_);
    std::vector<std::uint64_t> seeds;
    for (int a = 0; a < std::max(po.attempts, 1); ++a)
      seeds.push_back(seed + 7919u * static_cast<std::uint64_t>(a));
    std::vector<PhaseResult> runs = engine_->phase(st_.ac, po, seeds, st_.density);
    std::size_t best = 0;
    for (std::size_t a = 0; a < runs.size(); ++a)
      if (runs[a].fourier_error < runs[best].fourier_error) best = a;
    st_.density = std::move(runs[best].density);
    st_.support = std::move(runs[best].support);
    err = runs[best].fourier_error;
  });
  const dist::detail::RankValue best = dist::detail::min_with_rank(comm_, err);
  if (fresh && size_ > 1) {
    std::vector<double> ref = st_.density;
    dist::detail::bcast_vector(comm_, ref, best.rank);
    std::vector<double> aligned;
    aligned_correlation(st_.density, ref, M, &aligned);
    dist::detail::allreduce_sum(comm_, aligned.data(), static_cast<std::int64_t>(aligned.size()));
    for (auto& v : aligned) v /= size_;
    st_.density = std::move(aligned);
  } else {
    dist::detail::bcast_vector(comm_, st_.density, best.rank);
  }
  std::vector<double> sup(st_.support.begin(), st_.support.end());
  dist::detail::bcast_vector(comm_, sup, best.rank);
  st_.support.assign(sup.begin(), sup.end());
  g.fourier_error = best.value;
  g.phasing_ms = ms_since(t0);
}

template void Run<float>::phase_stage(GenerationReport&);
template void Run<double>::phase_stage(GenerationReport&);

}  // namespace nufftmp::mtip::detail
