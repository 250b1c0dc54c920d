// The output of a generation (reconstruct_run.hpp): the result file and the checkpoint, each
// written by rank 0 atomically and durably (H5Writer) with the run's identity
// (checkpoint_identity.hpp), and the progress line.
#include "nufftmp/plan.hpp"
#include "reconstruct_run.hpp"

namespace nufftmp::mtip::detail {

namespace {
template <typename T>
void write_results(const std::string& path, std::int64_t M, const RunState<T>& s,
                   const std::vector<double>& all_orient, const GenerationReport& g,
                   const std::vector<double>& truth, const std::vector<double>& aligned,
                   const RunIdentity& id) {
  H5Writer w(path);
  write_identity(w, id);
  const std::vector<std::int64_t> cube{M, M, M};
  w.write("density", cube, s.density.data());
  w.write("autocorrelation", cube, s.ac.data());
  const auto intensity = intensity_from_ac(s.ac, M);
  w.write("intensity", cube, intensity.data());
  std::vector<float> sup(s.support.begin(), s.support.end());
  w.write("support", cube, sup.data());
  if (!truth.empty() && !aligned.empty()) {
    w.write("density_aligned", cube, aligned.data());
    w.write("volume_truth", cube, truth.data());
  }
  w.write("orientations", {static_cast<std::int64_t>(all_orient.size() / 4), 4},
          all_orient.data());
  w.write_attribute("generation", g.generation);
  w.write_attribute("M", static_cast<double>(M));
  w.write_attribute("correlation", g.correlation);
  w.write_attribute("intensity_correlation", g.intensity_correlation);
  w.write_attribute("orientation_error_deg", g.orientation_error_deg);
  w.write_attribute("fourier_error", g.fourier_error);
  w.write_attribute("cg_residual", g.cg_residual);
  w.commit();
}
}  // namespace

template <typename T>
void Run<T>::write_stage(const GenerationReport& g, const std::vector<double>& all_orient,
                         const std::vector<double>& aligned) const {
  dist::detail::agreed(comm_, [&] {
    fault_point("write", rank_);
    if (rank_ != 0) return;
    // The checkpoint last: it never runs ahead of the results.
    write_results(ro_.output, in_.M, st_, all_orient, g, in_.truth, aligned, in_.identity);
    write_results(in_.checkpoint, in_.M, st_, all_orient, g, in_.truth, aligned, in_.identity);
  });
}

template <typename T>
void Run<T>::report_line(const GenerationReport& g) const {
  say("gen %d/%d: slicing %.3f s, matching %.3f s, merging %.3f s (CG %d it, res %.1e), "
      "phasing %.3f s (Fourier err %.3f), total %.3f s on %s",
      g.generation, ro_.generations, g.slicing_ms / 1e3, g.matching_ms / 1e3,
      g.merging_ms / 1e3, g.cg_iterations, g.cg_residual, g.phasing_ms / 1e3, g.fourier_error,
      g.total_ms / 1e3, backend_name(g.engine));
  say(", NUFFTs %.3f s of %.3f s", g.nufft_ms / 1e3,
      (g.slicing_ms + g.matching_ms + g.merging_ms) / 1e3);
  if (g.n_ref > 0) say(", %lld refs, q cut %.2f", (long long)g.n_ref, g.q_cut);
  if (g.correlation > -2)
    say(", corr %.4f (intensity %.4f)", g.correlation, g.intensity_correlation);
  if (!ro_.known_orientations && g.orientation_error_deg >= 0)
    say(", orientation error %.1f deg", g.orientation_error_deg);
  say("\n");
}

#define NUFFTMP_RUN_OUTPUT(T)                                                                 \
  template void Run<T>::write_stage(const GenerationReport&, const std::vector<double>&,     \
                                    const std::vector<double>&) const;                       \
  template void Run<T>::report_line(const GenerationReport&) const;
NUFFTMP_RUN_OUTPUT(float)
NUFFTMP_RUN_OUTPUT(double)
#undef NUFFTMP_RUN_OUTPUT

}  // namespace nufftmp::mtip::detail
