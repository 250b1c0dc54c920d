// The M-TIP loop: per generation, [slicing + orientation matching] -> merging -> phasing,
// then the results and a checkpoint written atomically by rank 0.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "checkpoint_identity.hpp"
#include "input_warnings.hpp"
#include "nufftmp/mtip.hpp"
#include "run_outputs.hpp"

namespace nufftmp::mtip {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void mpi_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(ErrorCode::MpiFailure, std::string(what) + " failed");
}

// A volume of M^3 doubles passes INT_MAX elements past M = 1290: broadcast it in pieces.
void bcast(MPI_Comm comm, std::vector<double>& v, int root) {
  std::int64_t n = static_cast<std::int64_t>(v.size());
  mpi_check(MPI_Bcast(&n, 1, MPI_INT64_T, root, comm), "MPI_Bcast of a volume's size");
  v.resize(static_cast<std::size_t>(n));
  constexpr std::int64_t kPiece = INT_MAX / 2;
  for (std::int64_t off = 0; off < n; off += kPiece) {
    const int cnt = static_cast<int>(std::min(kPiece, n - off));
    mpi_check(MPI_Bcast(v.data() + off, cnt, MPI_DOUBLE, root, comm), "MPI_Bcast of a volume");
  }
}

// All ranks' orientations, in image order, on rank 0.
std::vector<double> gather_orientations(MPI_Comm comm, const std::vector<Quaternion>& local) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<double> mine;
  for (const auto& q : local) mine.insert(mine.end(), {q.w, q.x, q.y, q.z});
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size);
  mpi_check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm),
            "MPI_Gather of orientation counts");
  int total = 0;
  for (int r = 0; r < size; ++r) displs[r] = total, total += counts[r];
  std::vector<double> all(rank == 0 ? total : 0);
  if (MPI_Gatherv(mine.data(), n, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                  MPI_DOUBLE, 0, comm) != MPI_SUCCESS)
    throw Error(ErrorCode::MpiFailure, "MPI_Gatherv of orientations failed");
  return all;
}

template <typename T>
struct State {
  int generation = 0;
  std::vector<double> ac, density;
  std::vector<char> support;
  std::vector<Quaternion> orientations;  // this rank's images (the best match of each)
  // Soft assignment (soft_k > 1, after a match): the n_soft references used by this rank's
  // images, each with its weight (sum of the images' weights there) and the weighted mean
  // image. soft = false: merge each image at its one orientation above, weight 1.
  bool soft = false;
  std::int64_t n_soft = 0;
  std::vector<Quaternion> soft_orient;
  std::vector<double> soft_weight;
  std::vector<T> soft_data;  // [n_soft, npix]
};

template <typename T>
void write_results(const std::string& path, std::int64_t M, const State<T>& s,
                   const std::vector<double>& all_orient, const GenerationReport& g,
                   const std::vector<double>& truth, const std::vector<double>& aligned,
                   const detail::RunIdentity& id) {
  H5Writer w(path);
  detail::write_identity(w, id);
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

template <typename T>
std::vector<GenerationReport> run(MPI_Comm comm, const ReconstructOptions& ro) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const auto say = [&](const char* fmt, auto... args) {
    if (ro.verbose && rank == 0) {
      std::printf(fmt, args...);
      std::fflush(stdout);
    }
  };

  const DataInfo info = probe_data(comm, ro.input);
  const std::int64_t M = ro.M > 0 ? ro.M : (info.has_volume ? info.volume_M : 33);
  collective(comm, [&] {
    if (ro.generations < 1)
      throw Error(ErrorCode::InvalidArgument, "generations = " + std::to_string(ro.generations));
    if (M < 5) throw Error(ErrorCode::InvalidArgument, "M = " + std::to_string(M) + " (>= 5)");
    if (!ro.known_orientations && ro.soft_k > 1 &&
        !(ro.soft_temp_start > 0 && ro.soft_temp_end > 0))
      throw Error(ErrorCode::InvalidArgument, "soft assignment temperatures must be > 0");
    if (!ro.known_orientations && ro.n_ref < 1)
      throw Error(ErrorCode::InvalidArgument, "n-ref = " + std::to_string(ro.n_ref));
    if (!ro.known_orientations && ro.n_ref_min < 1)
      throw Error(ErrorCode::InvalidArgument, "n-ref-min = " + std::to_string(ro.n_ref_min));
    if (!(ro.q_ramp_start > 0 && ro.q_ramp_start <= 1) || ro.q_ramp_generations < -1)
      throw Error(ErrorCode::InvalidArgument,
                  "q ramp start = " + std::to_string(ro.q_ramp_start) + " (in (0, 1]), over " +
                      std::to_string(ro.q_ramp_generations) + " generations (>= 0, -1: auto)");
    if (ro.match_iterations < 1)
      throw Error(ErrorCode::InvalidArgument,
                  "match iterations = " + std::to_string(ro.match_iterations) + " (>= 1)");
    if (ro.resume && ro.overwrite)
      throw Error(ErrorCode::InvalidArgument, "--resume and --overwrite exclude each other");
  });
  // Output and checkpoint checked and locked before any work (see run_outputs.hpp).
  const std::string ckpt = ro.checkpoint.empty() ? ro.output + ".ckpt.h5" : ro.checkpoint;
  detail::RunOutputs outputs;
  collective(comm, [&] {
    if (rank == 0) outputs = detail::RunOutputs(ro, ckpt);
  });
  // True orientations, when the file has them, also serve to judge a reconstruction from
  // unknown ones (its frame is arbitrary: see aligned density below).
  const LocalImages local =
      read_local_images(comm, ro.input, info, ro.known_orientations || info.has_orientations);
  std::vector<double> truth, truth_ac;
  if (info.has_volume && info.volume_M == M) {
    truth = read_volume(comm, ro.input);
    if (rank == 0) truth_ac = autocorrelation(truth, M);  // the scores are rank 0's work
  }
  const auto all_truth_orient = gather_orientations(comm, local.orientations);
  const double scale = reciprocal_scale(local.positions);
  const std::int64_t npix = info.nx * info.ny, nloc = local.share.count;
  detail::warn_negative_intensities(comm, ro.input, local, npix);
  detail::RunIdentity identity;  // rank 0's (the writer's)
  if (rank == 0) identity = detail::run_identity(ro, M, info, local);
  say("mtip: %lld images of %lld x %lld on %d ranks, M = %lld, %s orientations, %s precision\n",
      (long long)info.n_images, (long long)info.ny, (long long)info.nx, size, (long long)M,
      ro.known_orientations ? "known" : "unknown", sizeof(T) == 4 ? "float" : "double");
  // |q| of each pixel, as a fraction of the largest: the resolution ramp's mask.
  std::vector<double> qfrac(static_cast<std::size_t>(npix));
  {
    double qmax = 0;
    for (std::int64_t p = 0; p < npix; ++p) {
      const double* q = local.positions.data();
      qfrac[p] = std::sqrt(q[p] * q[p] + q[npix + p] * q[npix + p] +
                           q[2 * npix + p] * q[2 * npix + p]);
      qmax = std::max(qmax, qfrac[p]);
    }
    if (qmax > 0)  // (all pixels at q = 0 is a degenerate detector: every cut keeps them)
      for (auto& v : qfrac) v /= qmax;
  }

  State<T> st;
  if (ro.resume) {
    collective(comm, [&] {
      if (!std::ifstream(ckpt).good())
        throw Error(ErrorCode::IoFailure, "--resume: no checkpoint '" + ckpt + "'");
      if (rank == 0) detail::check_identity(ckpt, identity);
      st.generation = static_cast<int>(read_attribute(ckpt, "generation"));
      // Fewer generations than the checkpoint holds is a mistake (a typo, or the wrong
      // checkpoint); as many is a finished run resubmitted: nothing to do, said so.
      if (ro.generations < st.generation)
        throw Error(ErrorCode::InvalidArgument,
                    "--resume: checkpoint '" + ckpt + "' already holds generation " +
                        std::to_string(st.generation) + ", more than --generations " +
                        std::to_string(ro.generations) + " asks for (pass --generations " +
                        std::to_string(st.generation + 1) + " or more to continue)");
      std::vector<std::int64_t> d;
      st.ac = read_dataset(ckpt, "autocorrelation", &d);
      if (d != std::vector<std::int64_t>{M, M, M})
        throw Error(ErrorCode::IoFailure, "checkpoint '" + ckpt + "' is for another M");
      st.density = read_dataset(ckpt, "density");
      const auto sup = read_dataset(ckpt, "support");
      st.support.assign(sup.begin(), sup.end());
      const auto q = read_dataset(ckpt, "orientations", &d);
      if (d != std::vector<std::int64_t>{info.n_images, 4})
        throw Error(ErrorCode::IoFailure, "checkpoint '" + ckpt + "' is for another data set");
      for (std::int64_t i = 0; i < nloc; ++i) {
        const double* p = &q[4 * (local.share.first + i)];
        st.orientations.push_back({p[0], p[1], p[2], p[3]});
      }
    });
    if (st.generation == ro.generations) {
      if (rank == 0)
        std::printf("mtip: nothing to do: checkpoint %s already holds generation %d of %d\n",
                    ckpt.c_str(), st.generation, ro.generations);
      return {};
    }
    say("mtip: resuming after generation %d from %s\n", st.generation, ckpt.c_str());
  } else if (ro.known_orientations) {
    st.orientations = local.orientations;
  } else {
    // One global sequence, so the start does not depend on the number of ranks.
    std::mt19937_64 rng(ro.seed);
    for (std::int64_t i = 0; i < info.n_images; ++i) {
      const Quaternion q = random_quaternion(rng);
      if (i >= local.share.first && i < local.share.first + nloc) st.orientations.push_back(q);
    }
  }

  // One distributed-NUFFT context for the run (NCCL set-up is not free).
  dist::ContextOptions co;
  co.backend = ro.nufft.backend;
  co.device = ro.nufft.gpu_device;
  dist::Context ctx(comm, co);
  std::vector<Quaternion> refs;  // of the current generation's size (see the ramp)
  std::vector<T> data(local.intensities.begin(), local.intensities.end());
  std::vector<T> x(static_cast<std::size_t>(nloc * npix)), y(x.size()), z(x.size());
  std::vector<GenerationReport> reports;
  bool merged_known = false;
  MergeReport last_merge;
  double merge_nufft_ms = 0;  // NUFFT time of the merges since the generation began

  // One matching pass against `model` (sets st.orientations, or the soft assignment).
  const auto match_once = [&](const std::vector<double>& model, const MatchOptions& mopts,
                              MatchReport& mr, int gen) {
    // References split across the ranks (each slices its share; see matching.cpp).
    const TopMatches top =
        match_top_k<T>(comm, model, M, refs, local.positions, scale,
                       local.intensities.data(), nloc, std::max<std::int64_t>(1, ro.soft_k),
                       mopts, ro.nufft, &mr);
    for (std::int64_t i = 0; i < nloc; ++i) st.orientations[i] = refs[top.index[i * top.k]];
    st.soft = top.k > 1;
    if (st.soft) {
      // Annealed: geometric from soft_temp_start at generation 2 to soft_temp_end at the end.
      const double f =
          ro.generations > 2 ? static_cast<double>(gen - 2) / (ro.generations - 2) : 1.0;
      const double temp =
          ro.soft_temp_start * std::pow(ro.soft_temp_end / ro.soft_temp_start, f);
      // EM form: sum_i sum_j w_ij ||b_i - s(r_ij)||^2 = sum_r W_r ||bbar_r - s(r)||^2 + const
      // with W_r = sum of the weights at reference r and bbar_r the weighted mean of its
      // images, so the merge takes one slice per used reference, whatever k is.
      double spread[2] = {0, static_cast<double>(nloc)};
      for (std::int64_t i = 0; i < nloc; ++i)
        spread[0] += top.cost[i * top.k + top.k - 1] - top.cost[i * top.k];
      mpi_check(MPI_Allreduce(MPI_IN_PLACE, spread, 2, MPI_DOUBLE, MPI_SUM, comm),
                "MPI_Allreduce of the soft assignment's cost spread");
      const double unit = spread[1] > 0 && spread[0] > 0 ? spread[0] / spread[1] : 1.0;
      const std::vector<double> w = soft_weights(top, temp * unit);
      std::vector<double> wsum(refs.size(), 0.0), acc;
      std::vector<std::int64_t> slot(refs.size(), -1);
      st.soft_orient.clear();
      for (std::int64_t i = 0; i < nloc; ++i)
        for (std::int64_t j = 0; j < top.k; ++j) {
          const std::int64_t r = top.index[i * top.k + j];
          const double wij = w[i * top.k + j];
          if (!(wij > 1e-6)) continue;
          if (slot[r] < 0) {
            slot[r] = static_cast<std::int64_t>(st.soft_orient.size());
            st.soft_orient.push_back(refs[r]);
            acc.resize(acc.size() + npix, 0.0);
          }
          wsum[r] += wij;
          double* a = acc.data() + slot[r] * npix;
          const float* b = local.intensities.data() + i * npix;
          for (std::int64_t p = 0; p < npix; ++p) a[p] += wij * b[p];
        }
      st.soft_weight.assign(st.soft_orient.size(), 0.0);
      st.soft_data.resize(acc.size());
      for (std::size_t r = 0; r < refs.size(); ++r)
        if (slot[r] >= 0) {
          st.soft_weight[slot[r]] = wsum[r];
          for (std::int64_t p = 0; p < npix; ++p)
            st.soft_data[slot[r] * npix + p] = static_cast<T>(acc[slot[r] * npix + p] / wsum[r]);
        }
      st.n_soft = static_cast<std::int64_t>(st.soft_orient.size());
    }
  };
  // One merge of every rank's images at their current orientations into st.ac.
  const auto merge_now = [&] {
    Merger<T> merger(ctx, M, ro.merge, ro.nufft);
    std::vector<double> ac;
    if (st.soft) {
      // One slice per used reference, its pixels weighted by W_r (see the EM form above).
      const std::int64_t n = st.n_soft * npix;
      std::vector<T> xs(n), ys(n), zs(n), ws(n);
      slice_points(local.positions, st.soft_orient.data(), st.n_soft, scale, xs.data(),
                   ys.data(), zs.data());
      for (std::int64_t r = 0; r < st.n_soft; ++r)
        std::fill(ws.begin() + r * npix, ws.begin() + (r + 1) * npix,
                  static_cast<T>(st.soft_weight[r]));
      merger.set_points(n, xs.data(), ys.data(), zs.data(), ws.data());
      last_merge = merger.solve(st.soft_data.data(), ac);
    } else {
      slice_points(local.positions, st.orientations.data(), nloc, scale, x.data(), y.data(),
                   z.data());
      merger.set_points(nloc * npix, x.data(), y.data(), z.data(), nullptr);
      last_merge = merger.solve(data.data(), ac);
    }
    merge_nufft_ms += last_merge.nufft_ms;
    st.ac = std::move(ac);
  };

  for (int gen = st.generation + 1; gen <= ro.generations; ++gen) {
    GenerationReport g;
    g.generation = gen;
    merge_nufft_ms = 0;
    // 1-2. Orientation matching, from the second generation on (the first merges the random
    // start: about the spherical average of the images, whose phasing breaks the symmetry).
    if (!ro.known_orientations && !st.density.empty()) {
      const auto t0 = Clock::now();
      // Resolution ramp: low q first, where the landscape has few, wide minima and a coarse
      // reference set resolves them; the cut and the reference set grow together.
      const int step = gen - 2;  // 0 at the first match
      const int ramp = ro.q_ramp_generations >= 0
                           ? ro.q_ramp_generations
                           : std::max(1, (2 * (ro.generations - 1)) / 3);
      const double cut =
          ramp > 0 ? std::min(1.0, ro.q_ramp_start + (1.0 - ro.q_ramp_start) * step /
                                                         static_cast<double>(ramp))
                   : 1.0;
      const std::int64_t nref = std::max<std::int64_t>(
          std::min(ro.n_ref, ro.n_ref_min),
          static_cast<std::int64_t>(std::llround(ro.n_ref * cut * cut * cut)));
      if (static_cast<std::int64_t>(refs.size()) != nref) refs = reference_orientations(nref);
      MatchOptions mopts = ro.match;
      if (cut < 1.0) {
        mopts.pixel_weights.resize(static_cast<std::size_t>(npix), 1.0f);
        for (std::int64_t p = 0; p < npix; ++p)
          if (qfrac[p] > cut) mopts.pixel_weights[p] = 0.0f;
      }
      g.n_ref = nref;
      g.q_cut = cut;
      for (int it = 0; it < ro.match_iterations; ++it) {
        MatchReport mr;
        // The phased model (positive and supported) or the merge; later rounds of a
        // generation match against the round before's merge.
        if (it == 0 && ro.match_phased)
          match_once(autocorrelation(st.density, M), mopts, mr, gen);
        else
          match_once(st.ac, mopts, mr, gen);
        g.slicing_ms += mr.slicing_ms;
        if (it + 1 < ro.match_iterations) merge_now();
      }
      g.matching_ms = ms_since(t0) - g.slicing_ms;
    }
    // 3. Merging (once only when the orientations are known and fixed).
    if (!(ro.known_orientations && merged_known)) {
      const auto t0 = Clock::now();
      merge_now();
      g.merging_ms = ms_since(t0);
      merged_known = true;
    }
    g.nufft_ms = g.slicing_ms + merge_nufft_ms;
    g.cg_iterations = last_merge.iterations;  // of the merge this model comes from
    g.cg_residual = last_merge.residual;
    // 4. Phasing. A fresh start runs on every rank with its own random start and the lowest
    // Fourier error wins (HIO is chaotic: several starts make it robust at no extra wall
    // time); a continuation from the previous density runs on rank 0.
    const auto t0 = Clock::now();
    const bool fresh = st.density.empty();
    struct {
      double err;
      int rank;
    } mine{std::numeric_limits<double>::infinity(), rank}, best{0, 0};
    collective(comm, [&] {
      if (!fresh && rank != 0) return;
      PhaseOptions po = ro.phase;
      po.seed += 104729u * static_cast<std::uint64_t>(rank);
      PhaseResult pr = phase(st.ac, M, po, st.density);
      st.density = std::move(pr.density);
      st.support = std::move(pr.support);
      mine.err = pr.fourier_error;
    });
    MPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
    if (fresh && size > 1) {
      // The average of all starts, each aligned (translation, inversion) to the best one:
      // the independent errors of the starts average out.
      std::vector<double> ref = st.density;
      bcast(comm, ref, best.rank);
      std::vector<double> aligned;
      aligned_correlation(st.density, ref, M, &aligned);
      if (MPI_Allreduce(MPI_IN_PLACE, aligned.data(), static_cast<int>(aligned.size()),
                        MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS)
        throw Error(ErrorCode::MpiFailure, "MPI_Allreduce of phased densities failed");
      for (auto& v : aligned) v /= size;
      st.density = std::move(aligned);
    } else {
      bcast(comm, st.density, best.rank);
    }
    std::vector<double> sup(st.support.begin(), st.support.end());
    bcast(comm, sup, best.rank);
    st.support.assign(sup.begin(), sup.end());
    g.phasing_ms = ms_since(t0);

    // Comparison with the ground truth (rank 0). From unknown orientations the model lives in
    // a frame of its own: the global rotation g of the orientations against the true ones
    // (q_rec = g q_true for all images when matching has converged) is undone first.
    st.generation = gen;
    const auto all_orient = gather_orientations(comm, st.orientations);
    std::vector<double> aligned;
    double stats[5] = {best.err, -2, -2, -1, 0};
    collective(comm, [&] {
      if (rank != 0 || truth.empty()) return;
      Quaternion frame;  // identity
      if (!ro.known_orientations && all_truth_orient.size() == all_orient.size()) {
        const auto unpack = [](const std::vector<double>& v) {
          std::vector<Quaternion> q(v.size() / 4);
          for (std::size_t i = 0; i < q.size(); ++i)
            q[i] = {v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]};
          return q;
        };
        const auto rec = unpack(all_orient), tru = unpack(all_truth_orient);
        double mom[16] = {0};
        accumulate_rotation_moments(rec, tru, mom);
        frame = mean_rotation_from_moments(mom, &stats[4]);
        std::vector<double> err(rec.size());
        for (std::size_t i = 0; i < rec.size(); ++i)
          err[i] = quat_angle(rec[i], quat_multiply(frame, tru[i])) * 57.29577951308232;
        std::nth_element(err.begin(), err.begin() + err.size() / 2, err.end());
        stats[3] = err.empty() ? -1 : err[err.size() / 2];
        stats[1] = aligned_correlation(rotate_density(st.density, M, frame), truth, M, &aligned);
      } else {
        stats[1] = aligned_correlation(st.density, truth, M, &aligned);
        if (ro.known_orientations) stats[3] = 0, stats[4] = 1;
      }
      stats[2] = rotated_intensity_correlation(st.ac, truth_ac, M, frame, true);
    });
    mpi_check(MPI_Bcast(stats, 5, MPI_DOUBLE, 0, comm), "MPI_Bcast of the generation's scores");
    g.fourier_error = stats[0];
    g.correlation = stats[1];
    g.intensity_correlation = stats[2];
    g.orientation_error_deg = stats[3];
    g.frame_agreement = stats[4];

    // Results and checkpoint: gathered to rank 0, each file written atomically and durably
    // (H5Writer), the checkpoint last: it never runs ahead of the results.
    collective(comm, [&] {
      if (rank != 0) return;
      write_results(ro.output, M, st, all_orient, g, truth, aligned, identity);
      write_results(ckpt, M, st, all_orient, g, truth, aligned, identity);
    });
    say("gen %d/%d: slicing %.2f s, matching %.2f s, merging %.2f s (CG %d it, res %.1e), "
        "phasing %.2f s (Fourier err %.3f)",
        gen, ro.generations, g.slicing_ms / 1e3, g.matching_ms / 1e3, g.merging_ms / 1e3,
        g.cg_iterations, g.cg_residual, g.phasing_ms / 1e3, g.fourier_error);
    say(", NUFFTs %.2f s of %.2f s", g.nufft_ms / 1e3,
        (g.slicing_ms + g.matching_ms + g.merging_ms) / 1e3);
    if (g.n_ref > 0) say(", %lld refs, q cut %.2f", (long long)g.n_ref, g.q_cut);
    if (g.correlation > -2) say(", corr %.4f (intensity %.4f)", g.correlation, g.intensity_correlation);
    if (!ro.known_orientations && g.orientation_error_deg >= 0)
      say(", orientation error %.1f deg", g.orientation_error_deg);
    say("\n");
    reports.push_back(g);
  }
  return reports;
}
}  // namespace

std::vector<GenerationReport> reconstruct(MPI_Comm comm, const ReconstructOptions& ro) {
  return ro.use_double ? run<double>(comm, ro) : run<float>(comm, ro);
}

}  // namespace nufftmp::mtip
