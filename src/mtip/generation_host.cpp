// The host engine of a generation (generation_engine.hpp): matching.cpp's host path, one
// Merger on the context (CPU engine) kept for the run, phase() on FFTW.
#include <algorithm>
#include <memory>
#include <utility>

#include "generation_engine.hpp"
#include "phasing_schedule.hpp"

namespace nufftmp::mtip::detail {

namespace {

template <typename T>
class HostGenerationEngine final : public GenerationEngine<T> {
 public:
  HostGenerationEngine(dist::Context& ctx, const GenerationInputs& in)
      : ctx_(ctx),
        in_(in),
        merger_(ctx, in.M, *in.merge, in.ro->nufft),  // collective: made here, every rank is
        images_(in.images, in.images + in.n_images * npix()) {}

  Backend backend() const override { return Backend::Cpu; }

  TopMatches match(const std::vector<double>& model, const std::vector<Quaternion>& refs,
                   std::int64_t k, const MatchOptions& mopts, MatchReport& rep) override {
    // References split across the ranks (each slices its share; see matching.cpp).
    const bool poisson = mopts.likelihood == MatchOptions::Likelihood::Poisson;
    return match_top_k<T>(ctx_.comm(), model, in_.M, refs, *in_.positions, in_.scale,
                          poisson ? in_.counts : in_.images, in_.n_images, k, mopts,
                          in_.ro->nufft, &rep);
  }

  MergeReport merge(const Quaternion* orient, std::int64_t n_orient,
                    const std::vector<double>& slice_weight, const T* data, double cg_tol,
                    std::vector<double>& ac) override {
    const std::int64_t npx = npix(), n = n_orient * npx;
    x_.resize(static_cast<std::size_t>(n)), y_.resize(x_.size()), z_.resize(x_.size());
    slice_points(*in_.positions, orient, n_orient, in_.scale, x_.data(), y_.data(), z_.data());
    const std::vector<double>& pw = *in_.pixel_weights;
    const T* w = nullptr;
    if (!slice_weight.empty() || !pw.empty()) {
      w_.resize(x_.size());
      for (std::int64_t o = 0; o < n_orient; ++o) {
        const double so = slice_weight.empty() ? 1.0 : slice_weight[o];
        for (std::int64_t p = 0; p < npx; ++p)
          w_[o * npx + p] = static_cast<T>(pw.empty() ? so : so * pw[p]);
      }
      w = w_.data();
    }
    merger_.set_cg_tol(cg_tol);
    merger_.set_points(n, x_.data(), y_.data(), z_.data(), w);
    return merger_.solve(data ? data : images_.data(), ac);
  }

  std::vector<PhaseResult> phase(const std::vector<double>& ac, const PhaseOptions& po,
                                 const std::vector<std::uint64_t>& seeds,
                                 const std::vector<double>& start) override {
    return phase_runs_on_host(ac, in_.M, po, seeds, start);
  }

 private:
  std::int64_t npix() const { return static_cast<std::int64_t>(in_.positions->size() / 3); }

  dist::Context& ctx_;
  GenerationInputs in_;
  // Kept for the run; the CG tolerance is set per merge (the run's, or the half-set merges'
  // looser one).
  Merger<T> merger_;
  std::vector<T> images_;  // this rank's images in the merge's precision
  std::vector<T> x_, y_, z_, w_;
};

}  // namespace

template <typename T>
std::unique_ptr<GenerationEngine<T>> make_host_generation_engine(dist::Context& ctx,
                                                                 const GenerationInputs& in) {
  return std::make_unique<HostGenerationEngine<T>>(ctx, in);
}

template std::unique_ptr<GenerationEngine<float>> make_host_generation_engine<float>(
    dist::Context&, const GenerationInputs&);
template std::unique_ptr<GenerationEngine<double>> make_host_generation_engine<double>(
    dist::Context&, const GenerationInputs&);

}  // namespace nufftmp::mtip::detail
