// The phasing stage of a generation (reconstruct_run.hpp). By default phase_starts fresh
// starts from the merged model and, after the first generation, one continuation from the
// previous density, shared out among the ranks (the engine's phase() on each); the lowest
// Fourier error wins - or, with phase_average, the mean of all of them, each aligned
// (translation, inversion) to the winner. All end with the same final shrink-wrap and ER, so
// their errors compare fairly. With phase_continue the later generations run the continuation
// alone (ReconstructOptions says why that is not the default).
#include <algorithm>
#include <cmath>
#include <limits>

#include "dist/partition.hpp"
#include "reconstruct_run.hpp"

namespace nufftmp::mtip::detail {

template <typename T>
void Run<T>::phase_stage(GenerationReport& g) {
  const auto t0 = Clock::now();
  const std::int64_t M = in_.M;
  // Candidates 0 .. fresh - 1 are fresh starts; candidate `fresh`, when there is a previous
  // density, continues from it. They are shared out among the ranks by the partition rule.
  const bool have_previous = !st_.density.empty();
  const bool only_continue = ro_.phase_continue && have_previous;
  const std::int64_t fresh = only_continue ? 0 : ro_.phase_starts;
  const std::int64_t starts = fresh + (have_previous ? 1 : 0);
  const std::int64_t first = dist::detail::share_offset(starts, size_, rank_);
  const std::int64_t count = dist::detail::share_count(starts, size_, rank_);
  std::vector<PhaseResult> mine;
  double err = std::numeric_limits<double>::infinity();
  std::int64_t best_local = -1;
  dist::detail::agreed(comm_, [&] {
    fault_point("phase", rank_);
    std::vector<std::uint64_t> seeds;
    for (std::int64_t s = first; s < std::min(first + count, fresh); ++s)
      seeds.push_back(ro_.phase.seed + 104729u * static_cast<std::uint64_t>(s));
    // One engine set-up for this rank's fresh starts and, where it holds it, the
    // continuation (the last candidate, so last in `mine` too).
    const bool continuation = have_previous && first + count == starts;
    if (!seeds.empty() || continuation)
      mine = engine_->phase(st_.ac, ro_.phase, seeds,
                            continuation ? st_.density : std::vector<double>());
    // The lowest error; a non-finite one counts as infinite (rank 0 always holds a candidate,
    // so some rank wins even then).
    for (std::size_t i = 0; i < mine.size(); ++i) {
      const double e = std::isfinite(mine[i].fourier_error)
                           ? mine[i].fourier_error
                           : std::numeric_limits<double>::infinity();
      if (best_local < 0 || e < err) {
        err = e;
        best_local = static_cast<std::int64_t>(i);
      }
    }
  });
  const dist::detail::RankValue best = dist::detail::min_with_rank(comm_, err);
  const bool winner = rank_ == best.rank;
  std::vector<double> ref = winner ? mine[best_local].density : std::vector<double>();
  dist::detail::bcast_vector(comm_, ref, best.rank);
  if (ro_.phase_average && starts > 1) {
    std::vector<double> sum(ref.size(), 0.0), aligned;
    dist::detail::agreed(comm_, [&] {
      for (const PhaseResult& r : mine) {
        aligned_correlation(r.density, ref, M, &aligned);
        for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += aligned[i];
      }
    });
    dist::detail::allreduce_sum(comm_, sum.data(), static_cast<std::int64_t>(sum.size()));
    for (auto& v : sum) v /= static_cast<double>(starts);
    st_.density = std::move(sum);
  } else {
    st_.density = std::move(ref);
  }
  std::vector<double> sup;
  if (winner) sup.assign(mine[best_local].support.begin(), mine[best_local].support.end());
  dist::detail::bcast_vector(comm_, sup, best.rank);
  st_.support.assign(sup.begin(), sup.end());
  g.fourier_error = best.value;
  g.phasing_ms = ms_since(t0);
}

template void Run<float>::phase_stage(GenerationReport&);
template void Run<double>::phase_stage(GenerationReport&);

}  // namespace nufftmp::mtip::detail
