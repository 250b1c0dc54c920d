// The M-TIP loop: per generation, [slicing + orientation matching] -> merging -> phasing,
// then the scores against the truth, the results and a checkpoint written atomically by
// rank 0. The stages are members of Run (reconstruct_run.hpp), one file each.
#include "reconstruct_run.hpp"

namespace nufftmp::mtip {

namespace detail {

template <typename T>
Run<T>::Run(MPI_Comm comm, const ReconstructOptions& ro)
    : comm_(comm),
      ro_(ro),
      rank_(dist::detail::comm_rank(comm)),
      size_(dist::detail::comm_size(comm)) {}

template <typename T>
std::vector<GenerationReport> Run<T>::generations() {
  dist::ContextOptions co;
  co.backend = ro_.nufft.backend;
  co.device = ro_.nufft.gpu_device;
  ctx_ = std::make_unique<dist::Context>(comm_, co);
  read_inputs();
  if (!start_state()) return {};
  GenerationInputs gi;
  gi.M = in_.M;
  gi.images = in_.ls_images();
  gi.counts = in_.local.intensities.data();
  gi.n_images = in_.nloc;
  gi.positions = &in_.local.positions;
  gi.pixel_weights = &in_.correction;
  gi.scale = in_.scale;
  gi.ro = &ro_;
  gi.merge = &merge_opts_;
  engine_ = ctx_->backend() == Backend::Cuda ? make_gpu_generation_engine<T>(*ctx_, gi)
                                             : make_host_generation_engine<T>(*ctx_, gi);
  // The convention check merges on the engine (half sets at the orientations as read and
  // conjugated).
  if (ro_.known_orientations) check_convention();

  std::vector<GenerationReport> reports;
  for (int gen = st_.generation + 1; gen <= ro_.generations; ++gen) {
    const auto t0 = Clock::now();
    set_fault_generation(gen);
    GenerationReport g;
    g.generation = gen;
    g.engine = engine_->backend();
    merge_nufft_ms_ = 0;
    capped_ = merges_ = 0;
    capped_residual_ = 0;
    // 1-2. Orientation matching, from the second generation on (the first merges the random
    // start: about the spherical average of the images, whose phasing breaks the symmetry).
    if (!ro_.known_orientations && !st_.density.empty()) match_stage(gen, g);
    // 3. Merging (once only when the orientations are known and fixed).
    merge_stage(g);
    // 4. Phasing.
    phase_stage(g);
    st_.generation = gen;
    // 5b. Scores against the truth (rank 0 holds every orientation), 6. files, progress line.
    std::vector<double> mine;
    for (const auto& q : st_.orientations) mine.insert(mine.end(), {q.w, q.x, q.y, q.z});
    const auto all_orient =
        dist::gather_to_root(*ctx_, mine.data(), static_cast<std::int64_t>(mine.size()));
    // 5a. Truth-free measures: half-set shell correlation, orientations' change.
    const auto t_score = Clock::now();
    convergence_stage(g, all_orient);
    g.cg_capped = capped_;
    if (capped_ > 0)
      warn("generation %d: %d of %d merges stopped at the CG's cap of %d iterations with "
           "relative residual up to %.1e (tol %.0e): the model is not converged (raise "
           "--cg-iter, or --cg-precondition)\n",
           gen, capped_, merges_, merge_opts_.max_iter, capped_residual_, merge_opts_.tol);
    std::vector<double> aligned;
    score_stage(g, all_orient, aligned);
    // The half-set merges are timed on their own (halfset_ms).
    g.scoring_ms = ms_since(t_score) - g.halfset_ms;
    const auto t_files = Clock::now();
    write_stage(g, all_orient, aligned);
    g.files_ms = ms_since(t_files);
    g.total_ms = ms_since(t0);
    report_line(g);
    reports.push_back(g);
  }
  return reports;
}

}  // namespace detail

std::vector<GenerationReport> reconstruct(MPI_Comm comm, const ReconstructOptions& ro) {
  if (ro.use_double) return detail::Run<double>(comm, ro).generations();
  return detail::Run<float>(comm, ro).generations();
}

}  // namespace nufftmp::mtip
