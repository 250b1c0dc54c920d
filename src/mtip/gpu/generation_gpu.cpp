// The GPU engine of a generation (generation_engine.hpp): everything on the context's GPU and
// stream, kept for the run. This rank's images are uploaded once (as double: the DGEMM's
// operand and the merge's data); per match round only the model (M^3), the references'
// rotations and the pixel weights go down and the k best of each image come back; per merge
// the images' rotations go down and the model comes back; phasing keeps its iterate on the
// device. Nothing here communicates but the merge's two all-reduced type 1 transforms, the
// weight sum and the Poisson weights' mean image: no gather, nothing that grows with the ranks.
#include <algorithm>

#include "cuda/device_guard.hpp"
#include "device_images.hpp"
#include "dist/agree.hpp"
#include "fault_injection.hpp"
#include "generation_engine.hpp"
#include "match_setup.hpp"
#include "nufft_tolerance.hpp"
#include "matcher_gpu.hpp"
#include "merger_gpu.hpp"
#include "phasing_schedule.hpp"

namespace nufftmp::mtip::detail {

using dist::detail::agreed;

namespace {

template <typename T>
class GpuGenerationEngine final : public GenerationEngine<T> {
 public:
  GpuGenerationEngine(dist::Context& ctx, const GenerationInputs& in)
      : ctx_(ctx), in_(in), stream_(static_cast<cudaStream_t>(ctx.stream())) {
    // The merger's plans are collective; the images and the matcher are local, agreed.
    merger_ = std::make_unique<GpuMerger<T>>(
        ctx, in.M, *in.merge, in.ro->nufft, nufft_tolerance(in.merge->nufft_tol, sizeof(T) == 4));
    agreed(ctx.comm(), [&] {
      nufftmp::detail::DeviceGuard guard(ctx.device());
      images_ = std::make_unique<DeviceImages>(ctx.device(), stream_, in.images, in.n_images,
                                               *in.positions);
      matcher_ = std::make_unique<GpuMatcher<T>>(
          in.M, nufft_tolerance(in.ro->match.nufft_tol, sizeof(T) == 4), in.ro->nufft,
          ctx.device(), stream_);
    });
  }

  Backend backend() const override { return Backend::Cuda; }

  TopMatches match(const std::vector<double>& model, const std::vector<Quaternion>& refs,
                   std::int64_t k, const MatchOptions& mopts, MatchReport& rep) override {
    MPI_Comm comm = ctx_.comm();
    // The Poisson cost's product takes log s: matching.cpp's host path (its slices on this
    // GPU), with the counts as read.
    if (mopts.likelihood == MatchOptions::Likelihood::Poisson)
      return match_top_k<T>(comm, model, in_.M, refs, *in_.positions, in_.scale, in_.counts,
                            in_.n_images, k, mopts, in_.ro->nufft, &rep);
    agreed(comm, [&] {
      check_match_args(refs, *in_.positions, mopts);
      if (k < 1) throw Error(ErrorCode::InvalidArgument, "matching k = " + std::to_string(k));
    });
    const std::int64_t npix = images_->npix();
    const std::vector<float> w =
        match_pixel_weights(&comm, mopts, in_.images, in_.n_images, npix);
    TopMatches top;
    agreed(comm, [&] {
      fault_point("match", ctx_.rank());
      top = matcher_->match(*images_, in_.scale, model, refs,
                            std::min<std::int64_t>(k, static_cast<std::int64_t>(refs.size())),
                            w, mopts.batch, mopts.fit_scale, &rep);
    });
    return top;
  }

  MergeReport merge(const Quaternion* orient, std::int64_t n_orient,
                    const std::vector<double>& slice_weight, const T* data, double cg_tol,
                    std::vector<double>& ac) override {
    merger_->set_orientations(*images_, in_.scale, orient, n_orient, slice_weight,
                              *in_.pixel_weights);
    merger_->set_cg_tol(cg_tol);
    return data ? merger_->solve_host(data, ac) : merger_->solve_device(images_->images(), ac);
  }

  std::vector<PhaseResult> phase(const std::vector<double>& ac, const PhaseOptions& po,
                                 const std::vector<std::uint64_t>& seeds,
                                 const std::vector<double>& start) override {
    return phase_runs_on_gpu(ac, in_.M, po, seeds, start, ctx_.device(), ctx_.stream());
  }

 private:
  dist::Context& ctx_;
  GenerationInputs in_;
  cudaStream_t stream_;
  // Destroyed in reverse order, all before the context's stream (the context outlives us).
  std::unique_ptr<GpuMerger<T>> merger_;
  std::unique_ptr<DeviceImages> images_;
  std::unique_ptr<GpuMatcher<T>> matcher_;
};

}  // namespace

template <typename T>
std::unique_ptr<GenerationEngine<T>> make_gpu_generation_engine(dist::Context& ctx,
                                                                const GenerationInputs& in) {
  return std::make_unique<GpuGenerationEngine<T>>(ctx, in);
}

template std::unique_ptr<GenerationEngine<float>> make_gpu_generation_engine<float>(
    dist::Context&, const GenerationInputs&);
template std::unique_ptr<GenerationEngine<double>> make_gpu_generation_engine<double>(
    dist::Context&, const GenerationInputs&);

}  // namespace nufftmp::mtip::detail
