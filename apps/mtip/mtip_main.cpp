// nufftmp-mtip: M-TIP reconstruction of a 3D density from diffraction images (issue 5).
//   mpirun -np 2 nufftmp-mtip --input data.h5 --output result.h5 --known-orientations
#include <getopt.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "nufftmp/mtip.hpp"
#include "nufftmp/plan.hpp"

using namespace nufftmp;
using namespace nufftmp::mtip;

namespace {
std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string::size_type a = 0;
  while (a <= s.size()) {
    const auto b = s.find(',', a);
    const std::string item = s.substr(a, b == std::string::npos ? std::string::npos : b - a);
    if (!item.empty()) out.push_back(item);
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return out;
}

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
      "  --cg-iter N, --cg-tol T conjugate gradients limits (default 200, 1e-6)\n"
      "  --cg-precondition       circulant (T. Chan) preconditioner: fewer CG steps\n"
      "  --no-cg-precondition    plain CG (default: preconditioned unless a beam stop\n"
      "                          leaves the centre unmeasured)\n"
      "  --phase-cycles N        HIO/ER/shrink-wrap cycles per generation (default 10)\n"
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
      "  --best-output FILE      the best generation by half-set FSC (default\n"
      "                          <output>.best.h5)\n"
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
      "  --quiet                 no progress lines\n");
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ReconstructOptions ro;
  static const option longopts[] = {
      {"input", required_argument, nullptr, 'i'},
      {"output", required_argument, nullptr, 'o'},
      {"known-orientations", no_argument, nullptr, 'k'},
      {"generations", required_argument, nullptr, 'g'},
      {"M", required_argument, nullptr, 'M'},
      {"lambda", required_argument, nullptr, 'l'},
      {"n-ref", required_argument, nullptr, 'r'},
      {"checkpoint", required_argument, nullptr, 'c'},
      {"resume", no_argument, nullptr, 'R'},
      {"cg-iter", required_argument, nullptr, 'I'},
      {"cg-tol", required_argument, nullptr, 'T'},
      {"phase-cycles", required_argument, nullptr, 'p'},
      {"double", no_argument, nullptr, 'D'},
      {"fit-scale", no_argument, nullptr, 'f'},
      {"match-batch", required_argument, nullptr, 'B'},
      {"poisson-weights", no_argument, nullptr, 'W'},
      {"cg-precondition", no_argument, nullptr, 'P'},
      {"soft-k", required_argument, nullptr, 'K'},
      {"soft-temp", required_argument, nullptr, 't'},
      {"q-ramp", required_argument, nullptr, 'Q'},
      {"n-ref-min", required_argument, nullptr, 'N'},
      {"match-iter", required_argument, nullptr, 'J'},
      {"match-phased", no_argument, nullptr, 'm'},
      {"cpu", no_argument, nullptr, 'C'},
      {"quaternion", required_argument, nullptr, 1001},
      {"no-convention-check", no_argument, nullptr, 1002},
      {"mask", required_argument, nullptr, 1003},
      {"no-mask", no_argument, nullptr, 1004},
      {"correction", required_argument, nullptr, 1005},
      {"no-correction", no_argument, nullptr, 1006},
      {"q-min", required_argument, nullptr, 1007},
      {"likelihood", required_argument, nullptr, 1008},
      {"poisson-floor", required_argument, nullptr, 1009},
      {"no-half-sets", no_argument, nullptr, 1010},
      {"best-output", required_argument, nullptr, 1011},
      {"no-cg-precondition", no_argument, nullptr, 1012},
      {"half-set-tol", required_argument, nullptr, 1013},
      {"free-fraction", required_argument, nullptr, 1014},
      {"seed", required_argument, nullptr, 'S'},
      {"quiet", no_argument, nullptr, 'q'},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0}};
  std::string quaternion, likelihood;
  int c;
  while ((c = getopt_long(argc, argv, "i:o:h", longopts, nullptr)) != -1) {
    switch (c) {
      case 'i': ro.input = optarg; break;
      case 'o': ro.output = optarg; break;
      case 'k': ro.known_orientations = true; break;
      case 'g': ro.generations = std::atoi(optarg); break;
      case 'M': ro.M = std::atoll(optarg); break;
      case 'l': ro.merge.lambda = std::atof(optarg); break;
      case 'r': ro.n_ref = std::atoll(optarg); break;
      case 'c': ro.checkpoint = optarg; break;
      case 'R': ro.resume = true; break;
      case 'I': ro.merge.max_iter = std::atoi(optarg); break;
      case 'T': ro.merge.tol = std::atof(optarg); break;
      case 'p': ro.phase.cycles = std::atoi(optarg); break;
      case 'D': ro.use_double = true; break;
      case 'f': ro.match.fit_scale = true; break;
      case 'B': ro.match.batch = std::atoll(optarg); break;
      case 'W': ro.match.poisson_weights = true; break;
      case 'P': ro.cg_precondition = true; break;
      case 'K': ro.soft_k = std::atoll(optarg); break;
      case 't': {
        char* end = nullptr;
        ro.soft_temp_start = std::strtod(optarg, &end);
        ro.soft_temp_end = (end && *end == ',') ? std::strtod(end + 1, nullptr) : ro.soft_temp_start;
        break;
      }
      case 'Q': {
        char* end = nullptr;
        ro.q_ramp_start = std::strtod(optarg, &end);
        ro.q_ramp_generations = (end && *end == ',') ? std::atoi(end + 1) : -1;
        break;
      }
      case 'N': ro.n_ref_min = std::atoll(optarg); break;
      case 'J': ro.match_iterations = std::atoi(optarg); break;
      case 'm': ro.match_phased = true; break;
      case 'C': ro.nufft.backend = Backend::Cpu; break;
      case 1001: quaternion = optarg; break;
      case 1002: ro.check_convention = false; break;
      case 1003: ro.corrections.mask = split_list(optarg); break;
      case 1004: ro.corrections.use_file_mask = false; break;
      case 1005: ro.corrections.correction = split_list(optarg); break;
      case 1006: ro.corrections.use_file_correction = false; break;
      case 1007: ro.corrections.q_min = std::atof(optarg); break;
      case 1008: likelihood = optarg; break;
      case 1009: ro.match.poisson_floor = std::atof(optarg); break;
      case 1010: ro.half_sets = false; break;
      case 1011: ro.best_output = optarg; break;
      case 1012: ro.cg_precondition = false; break;
      case 1013: ro.half_set_tol = std::atof(optarg); break;
      case 1014: ro.free_fraction = std::atof(optarg); break;
      case 'S': ro.seed = std::strtoull(optarg, nullptr, 10); break;
      case 'q': ro.verbose = false; break;
      case 'h': if (rank == 0) usage(); MPI_Finalize(); return 0;
      default: if (rank == 0) usage(); MPI_Finalize(); return 2;
    }
  }
  int rc = 0;
  try {
    if (ro.input.empty() || ro.output.empty())
      throw Error(ErrorCode::InvalidArgument, "--input and --output are required (see --help)");
    if (!quaternion.empty()) ro.quaternion = parse_convention(quaternion);
    if (likelihood == "poisson")
      ro.match.likelihood = MatchOptions::Likelihood::Poisson;
    else if (!likelihood.empty() && likelihood != "ls")
      throw Error(ErrorCode::InvalidArgument,
                  "--likelihood " + likelihood + " (ls or poisson)");
    // One GPU per rank of a node, round robin (several ranks may share one).
    if (ro.nufft.backend != Backend::Cpu && cuda_available()) {
      MPI_Comm node;
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
      int local = 0;
      MPI_Comm_rank(node, &local);
      MPI_Comm_free(&node);
      ro.nufft.gpu_device = local % cuda_device_count();
    }
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
  MPI_Finalize();
  return rc;
}
