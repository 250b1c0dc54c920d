// nufftmp-mtip: M-TIP reconstruction of a 3D density from diffraction images (issue 5).
//   mpirun -np 2 nufftmp-mtip --input data.h5 --output result.h5 --known-orientations
#include <getopt.h>

#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "common/flags.hpp"
#include "dist/mpi_session.hpp"
#include "dist/node_rank.hpp"
#include "nufftmp/mtip.hpp"
#include "nufftmp/plan.hpp"

using namespace nufftmp;
using namespace nufftmp::mtip;

namespace {
void usage() {
  std::printf(
      "usage: mpirun -np P nufftmp-mtip --input FILE --output FILE [options]\n"
      "  --input FILE            data set (intensities, pixel_position_reciprocal, ...)\n"
      "  --output FILE           results (density, autocorrelation, intensity, orientations)\n"
      "  --known-orientations    use the file's orientations: merge + phase only\n"
      "  --quaternion C          the file's quaternions: lattice (nufftmp: image j sees the\n"
      "                          model at R(q_j) p) or particle (skopi/spinifel: the\n"
      "                          particle's rotation, the conjugate); default: the layout's\n"
      "  --no-convention-check   warn only when the other convention fits the data better\n"
      "  --mask LIST             mask data sets NAME or FILE:NAME (nonzero = good), comma-\n"
      "                          separated (default: the file's mask or pixel_mask)\n"
      "  --no-mask               ignore the file's own mask\n"
      "  --correction LIST       per-pixel correction data sets, multiplied (default: the\n"
      "                          file's correction, else polarization x solid_angle)\n"
      "  --no-correction         ignore the file's own correction\n"
      "  --q-min F               also mask |q| < F q_max (beam stop)\n"
      "  --generations N         M-TIP generations (default 5)\n"
      "  --M N                   lattice side (default: the file's volume, else 33)\n"
      "  --lambda L              merging regularisation, relative (default 1e-3)\n"
      "  --n-ref N               reference orientations for matching (default 20000)\n"
      "  --checkpoint FILE       checkpoint path (default <output>.ckpt.h5)\n"
      "  --resume                continue from the checkpoint's last generation\n"
      "  --overwrite             replace an existing output, checkpoint and best-generation\n"
      "                          file (fresh run)\n"
      "  --cg-iter N, --cg-tol T conjugate gradients limits (default 200, 1e-6)\n"
      "  --cg-precondition       circulant (T. Chan) preconditioner: fewer CG steps\n"
      "  --no-cg-precondition    plain CG (default: preconditioned unless a beam stop\n"
      "                          leaves the centre unmeasured)\n"
      "  --phase-cycles N        HIO/ER/shrink-wrap cycles per generation (default 10)\n"
      "  --phase-starts N        fresh phasing starts per generation, over all ranks (and the\n"
      "                          continuation); the lowest Fourier error wins (default 4)\n"
      "  --phase-average         the mean of all starts aligned to the winner instead\n"
      "  --phase-continue        later generations continue from the previous density only\n"
      "  --fit-scale             matching with a fitted scale per image (robust to model scale)\n"
      "  --poisson-weights       matching weights pixels by 1 / mean intensity (all shells count)\n"
      "  --likelihood L          matching cost: ls (least squares, default) or poisson\n"
      "                          (photon counts; EMC's log-likelihood; host GEMM)\n"
      "  --poisson-floor F       Poisson: model floor, fraction of the mean (default 1e-3)\n"
      "  --soft-k K              merge each image at its K best orientations, weighted\n"
      "                          (default 1: hard best match)\n"
      "  --soft-temp A,B         soft weights' temperature, annealed from A to B (default\n"
      "                          1,0.2; with --likelihood poisson in nats: 1 = posterior)\n"
      "  --no-half-sets          no half-set FSC (two extra merges per generation)\n"
      "  --half-set-tol T        the half merges' CG tolerance (default 1e-4)\n"
      "  --free-fraction F       pixels held out for the free correlation (default 0.05; 0 off)\n"
      "  --best-output FILE      the best generation by the free correlation, else the\n"
      "                          half-set FSC (default <output without .h5>.best.h5)\n"
      "  --q-ramp F[,G]          resolution ramp: the first match uses pixels up to F * q_max,\n"
      "                          rising to q_max over G generations (default 0.3, G: two\n"
      "                          thirds of the matching generations; 1: no ramp)\n"
      "  --n-ref-min N           fewest references while the ramp cuts q (default 500)\n"
      "  --match-iter N          match + merge rounds per generation (default 3)\n"
      "  --match-phased          match against the phased model, not the merged one\n"
      "  --match-batch N         reference slices per rank and matching step (default 256)\n"
      "  --double                double precision NUFFTs (default float)\n"
      "  --cpu                   force the CPU engine (default: GPU when present)\n"
      "  --seed N                seed of the random start orientations\n"
      "  --quiet                 no progress lines\n"
      "Numbers are read whole (2e4 is 20000; 12abc, 1.5 for a count, nan are refused).\n"
      "Exit status: 0 ok, 1 run failed (message names the cause), 2 bad flags.\n");
}

// Every flag parsed strictly (apps/common/flags.hpp): a bad value is a UsageError naming the
// flag and the value (exit status 2), never a silent default.
ReconstructOptions parse_options(int argc, char** argv, bool& help) {
  using apps::Interval;
  using apps::parse_int;
  using apps::parse_choice;
  using apps::parse_integer;
  using apps::parse_real;
  enum {
    kInput = 256, kOutput, kKnown, kGenerations, kM, kLambda, kNref, kCheckpoint, kResume,
    kOverwrite, kCgIter, kCgTol, kPhaseCycles, kPhaseStarts, kPhaseAverage, kPhaseContinue,
    kDouble, kFitScale, kMatchBatch, kPoisson,
    kPrecondition, kSoftK, kSoftTemp, kQRamp, kNrefMin, kMatchIter, kMatchPhased, kCpu, kSeed,
    kQuiet, kHelp, kQuaternion, kNoConventionCheck, kMask, kNoMask, kCorrection, kNoCorrection,
    kQMin, kLikelihood, kPoissonFloor, kNoHalfSets, kBestOutput, kNoPrecondition, kHalfSetTol,
    kFreeFraction
  };
  static const option longopts[] = {
      {"input", required_argument, nullptr, kInput},
      {"output", required_argument, nullptr, kOutput},
      {"known-orientations", no_argument, nullptr, kKnown},
      {"generations", required_argument, nullptr, kGenerations},
      {"M", required_argument, nullptr, kM},
      {"lambda", required_argument, nullptr, kLambda},
      {"n-ref", required_argument, nullptr, kNref},
      {"checkpoint", required_argument, nullptr, kCheckpoint},
      {"resume", no_argument, nullptr, kResume},
      {"overwrite", no_argument, nullptr, kOverwrite},
      {"cg-iter", required_argument, nullptr, kCgIter},
      {"cg-tol", required_argument, nullptr, kCgTol},
      {"phase-cycles", required_argument, nullptr, kPhaseCycles},
      {"phase-starts", required_argument, nullptr, kPhaseStarts},
      {"phase-average", no_argument, nullptr, kPhaseAverage},
      {"phase-continue", no_argument, nullptr, kPhaseContinue},
      {"double", no_argument, nullptr, kDouble},
      {"fit-scale", no_argument, nullptr, kFitScale},
      {"match-batch", required_argument, nullptr, kMatchBatch},
      {"poisson-weights", no_argument, nullptr, kPoisson},
      {"cg-precondition", no_argument, nullptr, kPrecondition},
      {"soft-k", required_argument, nullptr, kSoftK},
      {"soft-temp", required_argument, nullptr, kSoftTemp},
      {"q-ramp", required_argument, nullptr, kQRamp},
      {"n-ref-min", required_argument, nullptr, kNrefMin},
      {"match-iter", required_argument, nullptr, kMatchIter},
      {"match-phased", no_argument, nullptr, kMatchPhased},
      {"cpu", no_argument, nullptr, kCpu},
      {"seed", required_argument, nullptr, kSeed},
      {"quiet", no_argument, nullptr, kQuiet},
      {"help", no_argument, nullptr, kHelp},
      {"quaternion", required_argument, nullptr, kQuaternion},
      {"no-convention-check", no_argument, nullptr, kNoConventionCheck},
      {"mask", required_argument, nullptr, kMask},
      {"no-mask", no_argument, nullptr, kNoMask},
      {"correction", required_argument, nullptr, kCorrection},
      {"no-correction", no_argument, nullptr, kNoCorrection},
      {"q-min", required_argument, nullptr, kQMin},
      {"likelihood", required_argument, nullptr, kLikelihood},
      {"poisson-floor", required_argument, nullptr, kPoissonFloor},
      {"no-half-sets", no_argument, nullptr, kNoHalfSets},
      {"best-output", required_argument, nullptr, kBestOutput},
      {"no-cg-precondition", no_argument, nullptr, kNoPrecondition},
      {"half-set-tol", required_argument, nullptr, kHalfSetTol},
      {"free-fraction", required_argument, nullptr, kFreeFraction},
      {nullptr, 0, nullptr, 0}};
  constexpr std::size_t kMaxDataSets = 64;  // --mask / --correction lists
  constexpr std::int64_t kMaxCount = std::int64_t(1) << 40;
  const auto path = [](const char* flag, const char* v) {
    if (!*v) apps::bad_value(flag, v, "expects a file name");
    return std::string(v);
  };
  ReconstructOptions ro;
  help = false;
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":h", longopts, nullptr)) != -1) {
    switch (c) {
      case kInput: ro.input = path("input", optarg); break;
      case kOutput: ro.output = path("output", optarg); break;
      case kKnown: ro.known_orientations = true; break;
      case kGenerations: ro.generations = parse_int("generations", optarg, 1, 1000000); break;
      case kM: ro.M = parse_integer("M", optarg, 5, 1 << 16); break;
      case kLambda: ro.merge.lambda = parse_real("lambda", optarg, apps::non_negative()); break;
      case kNref: ro.n_ref = parse_integer("n-ref", optarg, 1, kMaxCount); break;
      case kCheckpoint: ro.checkpoint = path("checkpoint", optarg); break;
      case kResume: ro.resume = true; break;
      case kOverwrite: ro.overwrite = true; break;
      case kCgIter: ro.merge.max_iter = parse_int("cg-iter", optarg, 1, 1000000); break;
      case kCgTol:
        ro.merge.tol = parse_real("cg-tol", optarg, Interval{0.0, 1.0, true, true});
        break;
      case kPhaseCycles: ro.phase.cycles = parse_int("phase-cycles", optarg, 1, 1000000); break;
      case kPhaseStarts: ro.phase_starts = parse_int("phase-starts", optarg, 1, 1000000); break;
      case kPhaseAverage: ro.phase_average = true; break;
      case kPhaseContinue: ro.phase_continue = true; break;
      case kDouble: ro.use_double = true; break;
      case kFitScale: ro.match.fit_scale = true; break;
      case kMatchBatch: ro.match.batch = parse_integer("match-batch", optarg, 1, 1 << 30); break;
      case kPoisson: ro.match.poisson_weights = true; break;
      case kPrecondition: ro.cg_precondition = true; break;
      case kNoPrecondition: ro.cg_precondition = false; break;
      case kSoftK: ro.soft_k = parse_integer("soft-k", optarg, 1, 1 << 20); break;
      case kSoftTemp: {
        const auto v = apps::split_list("soft-temp", optarg, 2);
        ro.soft_temp_start = parse_real("soft-temp", v[0].c_str(), apps::positive());
        ro.soft_temp_end = v.size() > 1 ? parse_real("soft-temp", v[1].c_str(), apps::positive())
                                        : ro.soft_temp_start;
        break;
      }
      case kQRamp: {
        const auto v = apps::split_list("q-ramp", optarg, 2);
        ro.q_ramp_start = parse_real("q-ramp", v[0].c_str(), Interval{0.0, 1.0, true, false});
        ro.q_ramp_generations =
            v.size() > 1 ? parse_int("q-ramp", v[1].c_str(), 0, 1000000) : -1;
        break;
      }
      case kNrefMin: ro.n_ref_min = parse_integer("n-ref-min", optarg, 1, kMaxCount); break;
      case kMatchIter: ro.match_iterations = parse_int("match-iter", optarg, 1, 1000000); break;
      case kMatchPhased: ro.match_phased = true; break;
      case kCpu: ro.nufft.backend = Backend::Cpu; break;
      case kSeed:
        ro.seed = static_cast<std::uint64_t>(
            parse_integer("seed", optarg, 0, std::numeric_limits<std::int64_t>::max()));
        break;
      case kQuiet: ro.verbose = false; break;
      case kQuaternion:
        ro.quaternion = parse_choice("quaternion", optarg, {"lattice", "particle"}) == 0
                            ? QuaternionConvention::Lattice
                            : QuaternionConvention::Particle;
        break;
      case kNoConventionCheck: ro.check_convention = false; break;
      case kMask: ro.corrections.mask = apps::split_list("mask", optarg, kMaxDataSets); break;
      case kNoMask: ro.corrections.use_file_mask = false; break;
      case kCorrection:
        ro.corrections.correction = apps::split_list("correction", optarg, kMaxDataSets);
        break;
      case kNoCorrection: ro.corrections.use_file_correction = false; break;
      case kQMin:
        ro.corrections.q_min = parse_real("q-min", optarg, Interval{0.0, 1.0, false, true});
        break;
      case kLikelihood:
        ro.match.likelihood = parse_choice("likelihood", optarg, {"ls", "poisson"}) == 0
                                  ? MatchOptions::Likelihood::LeastSquares
                                  : MatchOptions::Likelihood::Poisson;
        break;
      case kPoissonFloor:
        ro.match.poisson_floor = parse_real("poisson-floor", optarg, apps::positive());
        break;
      case kNoHalfSets: ro.half_sets = false; break;
      case kBestOutput: ro.best_output = path("best-output", optarg); break;
      case kHalfSetTol:
        ro.half_set_tol = parse_real("half-set-tol", optarg, Interval{0.0, 1.0, true, false});
        break;
      case kFreeFraction:
        ro.free_fraction = parse_real("free-fraction", optarg, Interval{0.0, 0.5, false, true});
        break;
      case 'h':
      case kHelp: help = true; return ro;
      default: apps::getopt_failure(c, argv);
    }
  }
  apps::reject_positionals(argc, argv);
  if (ro.input.empty() || ro.output.empty())
    throw apps::UsageError("--input and --output are required (see --help)");
  if (ro.resume && ro.overwrite)
    throw apps::UsageError("--resume and --overwrite exclude each other");
  return ro;
}
}  // namespace

int main(int argc, char** argv) {
  const dist::detail::MpiSession mpi("nufftmp-mtip", &argc, &argv);
  const int rank = mpi.rank();
  ReconstructOptions ro;
  const auto parse = [&](bool& help) { return parse_options(argc, argv, help); };
  const int status = apps::parse_command_line("nufftmp-mtip", rank == 0, parse, usage, ro);
  if (status >= 0) return status;
  int rc = 0;
  try {
    // One GPU per rank of a node, round robin (several ranks may share one).
    if (ro.nufft.backend != Backend::Cpu && cuda_available())
      ro.nufft.gpu_device = dist::detail::round_robin_device(
          dist::detail::node_rank(MPI_COMM_WORLD), cuda_device_count());
    const auto reports = reconstruct(MPI_COMM_WORLD, ro);
    if (rank == 0 && !reports.empty()) {
      const auto& g = reports.back();
      if (g.correlation > -2) {
        std::printf("final correlation with the ground truth: %.4f (density), %.4f (intensity)",
                    g.correlation, g.intensity_correlation);
        if (!ro.known_orientations && g.orientation_error_deg >= 0)
          std::printf(", median orientation error %.1f deg", g.orientation_error_deg);
        std::printf("\n");
      }
      if (g.free_correlation > -2)
        std::printf("free correlation %.4f (+-%.4f; a perfect model: %.3f)\n", g.free_correlation,
                    g.free_sigma, g.free_ceiling);
      if (g.fsc_mean > -2)
        std::printf("half-set FSC %.3f (0.5 at %.3g A, 0.143 at %.3g A)\n", g.fsc_mean,
                    g.resolution_fsc05, g.resolution_fsc0143);
      int best = 0;
      double best_score = -2;
      for (const auto& r : reports) {
        const double v = r.free_correlation > -2 ? r.free_correlation : r.fsc_mean;
        if (v > best_score) best_score = v, best = r.generation;
      }
      if (best > 0) std::printf("best generation %d (%.4f)\n", best, best_score);
      std::printf("results: %s\n", ro.output.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nufftmp-mtip (rank %d): error: %s\n", rank, e.what());
    rc = 1;
  }
  return rc;
}
