// The output of a generation (reconstruct_run.hpp): the result file and the checkpoint, each
// written by rank 0 atomically and durably (H5Writer) with the run's identity
// (checkpoint_identity.hpp), the best generation's result beside them, and the progress line.
#include <cmath>
#include <sstream>

#include "nufftmp/plan.hpp"
#include "reconstruct_run.hpp"

namespace nufftmp::mtip::detail {

namespace {
// The settings that shape a result, as one "key=value ..." line for people (the attribute
// settings_summary of every file; "settings" is the run's identity, checkpoint_identity.hpp).
std::string settings_line(const ReconstructOptions& ro, const RunInputs& in, bool precondition,
                          bool use_double) {
  std::ostringstream s;
  s << "layout=" << layout_name(in.info.layout) << " quaternion=" << convention_name(in.convention)
    << " M=" << in.M << " voxel_A=" << in.voxel << " pixels=" << in.npix
    << " known_orientations=" << ro.known_orientations << " generations=" << ro.generations
    << " n_ref=" << ro.n_ref << " n_ref_min=" << ro.n_ref_min << " q_ramp=" << ro.q_ramp_start
    << "," << ro.q_ramp_generations << " match_iterations=" << ro.match_iterations
    << " likelihood="
    << (ro.match.likelihood == MatchOptions::Likelihood::Poisson ? "poisson" : "least-squares")
    << " fit_scale=" << ro.match.fit_scale << " poisson_weights=" << ro.match.poisson_weights
    << " soft_k=" << ro.soft_k << " soft_temp=" << ro.soft_temp_start << "," << ro.soft_temp_end
    << " lambda=" << ro.merge.lambda << " cg_tol=" << ro.merge.tol
    << " cg_iter=" << ro.merge.max_iter << " cg_precondition=" << precondition
    << " phase_cycles=" << ro.phase.cycles << " half_sets=" << ro.half_sets
    << " half_set_tol=" << ro.half_set_tol << " free_fraction=" << ro.free_fraction
    << " precision=" << (use_double ? "double" : "float") << " seed=" << ro.seed;
  return s.str();
}

// One row of the per-generation history table (columns: kHistoryColumns).
constexpr const char* kHistoryColumns =
    "generation free_correlation free_sigma free_ceiling fsc_mean resolution_fsc05_A resolution_fsc0143_A "
    "orientation_change_deg "
    "correlation intensity_correlation anisotropic_correlation orientation_error_deg "
    "fourier_error cg_iterations cg_residual cg_capped";
constexpr int kHistoryWidth = 16;
void history_row(const GenerationReport& g, std::vector<double>& out) {
  out.insert(out.end(), {double(g.generation), g.free_correlation, g.free_sigma, g.free_ceiling, g.fsc_mean,
                         g.resolution_fsc05,
                         g.resolution_fsc0143, g.orientation_change_deg, g.correlation,
                         g.intensity_correlation, g.anisotropic_correlation,
                         g.orientation_error_deg, g.fourier_error, double(g.cg_iterations),
                         g.cg_residual, double(g.cg_capped)});
}

template <typename T>
void write_results(const std::string& path, const RunInputs& in, const RunState<T>& s,
                   const std::vector<double>& all_orient, const GenerationReport& g,
                   const std::vector<double>& aligned, const std::vector<double>& intensity,
                   const std::string& settings, const std::vector<double>& history,
                   const RunIdentity& id) {
  const std::int64_t M = in.M;
  H5Writer w(path);
  write_identity(w, id);
  const std::vector<std::int64_t> cube{M, M, M};
  w.write("density", cube, s.density.data());
  w.write("autocorrelation", cube, s.ac.data());
  w.write("intensity", cube, intensity.data());
  std::vector<float> sup(s.support.begin(), s.support.end());
  w.write("support", cube, sup.data());
  if (!in.truth.empty() && !aligned.empty()) {
    w.write("density_aligned", cube, aligned.data());
    w.write("volume_truth", cube, in.truth.data());
  }
  w.write("orientations", {static_cast<std::int64_t>(all_orient.size() / 4), 4},
          all_orient.data());
  if (!g.fsc.empty()) {
    const std::int64_t ns = static_cast<std::int64_t>(g.fsc.size());
    w.write("fsc_half_sets", {ns}, g.fsc.data());
    std::vector<double> res(g.fsc.size());
    for (std::int64_t k = 0; k < ns; ++k)
      res[k] = k > 0 ? static_cast<double>(M) * in.voxel / static_cast<double>(k)
                     : std::numeric_limits<double>::infinity();
    w.write("fsc_shell_resolution_angstrom", {ns}, res.data());
  }
  w.write("history", {static_cast<std::int64_t>(history.size() / kHistoryWidth), kHistoryWidth},
          history.data());
  w.write_attribute("history_columns", std::string(kHistoryColumns));
  w.write_attribute("generation", g.generation);
  w.write_attribute("M", static_cast<double>(M));
  w.write_attribute("voxel_angstrom", in.voxel);
  w.write_attribute("q_max_inv_angstrom", in.q_max);
  w.write_attribute("quaternion_convention", std::string("lattice"));
  w.write_attribute("orientations_note",
                    std::string("w, x, y, z; lattice convention: image j sees the model at "
                                "R(q_j) p; skopi's/spinifel's (particle) quaternion is the "
                                "conjugate"));
  w.write_attribute("detector", in.pixels.summary);
  w.write_attribute("settings_summary", settings);
  w.write_attribute("correlation", g.correlation);
  w.write_attribute("intensity_correlation", g.intensity_correlation);
  w.write_attribute("anisotropic_intensity_correlation", g.anisotropic_correlation);
  w.write_attribute("orientation_error_deg", g.orientation_error_deg);
  w.write_attribute("free_correlation", g.free_correlation);
  w.write_attribute("free_sigma", g.free_sigma);
  w.write_attribute("free_ceiling", g.free_ceiling);
  w.write_attribute("fsc_mean", g.fsc_mean);
  w.write_attribute("resolution_fsc05_angstrom", g.resolution_fsc05);
  w.write_attribute("resolution_fsc0143_angstrom", g.resolution_fsc0143);
  w.write_attribute("orientation_change_deg", g.orientation_change_deg);
  w.write_attribute("fourier_error", g.fourier_error);
  w.write_attribute("cg_residual", g.cg_residual);
  w.write_attribute("cg_capped", static_cast<double>(g.cg_capped));
  w.write_attribute("best_generation", static_cast<double>(s.best_generation));
  if (!in.truth_model.note.empty()) w.write_attribute("truth", in.truth_model.note);
  w.commit();
}
}  // namespace

template <typename T>
void Run<T>::write_stage(const GenerationReport& g, const std::vector<double>& all_orient,
                         const std::vector<double>& aligned) {
  // The best generation by the truth-free measure (rank-independent: every rank has g): the
  // free correlation, else the half-set FSC.
  const double score = g.free_correlation > -2 ? g.free_correlation : g.fsc_mean;
  const bool best = score > -2 && score > st_.best_fsc_mean;
  if (best) st_.best_fsc_mean = score, st_.best_generation = g.generation;
  history_row(g, history_);
  dist::detail::agreed(comm_, [&] {
    fault_point("write", rank_);
    if (rank_ != 0) return;
    const std::string settings =
        settings_line(ro_, in_, merge_opts_.precondition, sizeof(T) == 8);
    // The intensity once for the two or three files. The checkpoint after the results: it
    // never runs ahead of them.
    const std::vector<double> intensity = intensity_from_ac(st_.ac, in_.M);
    const auto write = [&](const std::string& path) {
      write_results(path, in_, st_, all_orient, g, aligned, intensity, settings, history_,
                    in_.identity);
    };
    write(ro_.output);
    write(in_.checkpoint);
    if (best) write(in_.best_output);
  });
}

template <typename T>
void Run<T>::report_line(const GenerationReport& g) const {
  say("gen %d/%d: slicing %.3f s, matching %.3f s, merging %.3f s (CG %d it, res %.1e), "
      "phasing %.3f s (Fourier err %.3f), total %.3f s on %s",
      g.generation, ro_.generations, g.slicing_ms / 1e3, g.matching_ms / 1e3,
      g.merging_ms / 1e3, g.cg_iterations, g.cg_residual, g.phasing_ms / 1e3, g.fourier_error,
      g.total_ms / 1e3, backend_name(g.engine));
  say(" (scores %.3f s, files %.3f s)", g.scoring_ms / 1e3, g.files_ms / 1e3);
  say(", NUFFTs %.3f s of %.3f s", g.nufft_ms / 1e3,
      (g.slicing_ms + g.matching_ms + g.merging_ms) / 1e3);
  if (g.n_ref > 0) say(", %lld refs, q cut %.2f", (long long)g.n_ref, g.q_cut);
  if (g.free_correlation > -2)
    say(", free corr %.4f (+-%.4f, ceiling %.3f)%s", g.free_correlation, g.free_sigma,
        g.free_ceiling, st_.best_generation == g.generation ? " best" : "");
  if (g.fsc_mean > -2)
    say(", half-set FSC %.3f (0.5 at %.3g A, 0.143 at %.3g A; %.2f s)%s", g.fsc_mean,
        g.resolution_fsc05, g.resolution_fsc0143, g.halfset_ms / 1e3,
        g.free_correlation <= -2 && st_.best_generation == g.generation ? " best" : "");
  if (g.orientation_change_deg >= 0) say(", orientations moved %.1f deg", g.orientation_change_deg);
  if (g.correlation > -2) say(", corr %.4f", g.correlation);
  if (g.intensity_correlation > -2)
    say(", intensity corr %.4f (anisotropic %.4f)", g.intensity_correlation,
        g.anisotropic_correlation);
  if (!ro_.known_orientations && g.orientation_error_deg >= 0)
    say(", orientation error %.1f deg", g.orientation_error_deg);
  say("\n");
}

#define NUFFTMP_RUN_OUTPUT(T)                                                                 \
  template void Run<T>::write_stage(const GenerationReport&, const std::vector<double>&,     \
                                    const std::vector<double>&);                             \
  template void Run<T>::report_line(const GenerationReport&) const;
NUFFTMP_RUN_OUTPUT(float)
NUFFTMP_RUN_OUTPUT(double)
#undef NUFFTMP_RUN_OUTPUT

}  // namespace nufftmp::mtip::detail
