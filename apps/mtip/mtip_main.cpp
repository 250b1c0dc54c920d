// nufftmp-mtip: M-TIP reconstruction of a 3D density from diffraction images (issue 5).
//   mpirun -np 2 nufftmp-mtip --input data.h5 --output result.h5 --known-orientations
#include <getopt.h>

#include <cstdio>
#include <cstdlib>
#include <string>

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
      "  --generations N         M-TIP generations (default 5)\n"
      "  --M N                   lattice side (default: the file's volume, else 33)\n"
      "  --lambda L              merging regularisation, relative (default 1e-3)\n"
      "  --n-ref N               reference orientations for matching (default 20000)\n"
      "  --checkpoint FILE       checkpoint path (default <output>.ckpt.h5)\n"
      "  --resume                continue from the checkpoint's last generation\n"
      "  --cg-iter N, --cg-tol T conjugate gradients limits (default 200, 1e-6)\n"
      "  --cg-precondition       circulant (T. Chan) preconditioner: fewer CG steps\n"
      "  --phase-cycles N        HIO/ER/shrink-wrap cycles per generation (default 10)\n"
      "  --phase-starts N        fresh phasing starts per generation, over all ranks; the\n"
      "                          lowest Fourier error wins (default 4)\n"
      "  --phase-average         the mean of all starts aligned to the winner instead\n"
      "  --phase-continue        later generations continue from the previous density\n"
      "  --fit-scale             matching with a fitted scale per image (robust to model scale)\n"
      "  --poisson-weights       matching weights pixels by 1 / mean intensity (all shells count)\n"
      "  --soft-k K              merge each image at its K best orientations, weighted\n"
      "                          (default 1: hard best match)\n"
      "  --soft-temp A,B         soft weights' temperature, annealed from A to B (default 1,0.2)\n"
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
      {"phase-starts", required_argument, nullptr, 'n'},
      {"phase-average", no_argument, nullptr, 'A'},
      {"phase-continue", no_argument, nullptr, 'Y'},
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
      {"seed", required_argument, nullptr, 'S'},
      {"quiet", no_argument, nullptr, 'q'},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0}};
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
      case 'n': ro.phase_starts = std::atoi(optarg); break;
      case 'A': ro.phase_average = true; break;
      case 'Y': ro.phase_continue = true; break;
      case 'D': ro.use_double = true; break;
      case 'f': ro.match.fit_scale = true; break;
      case 'B': ro.match.batch = std::atoll(optarg); break;
      case 'W': ro.match.poisson_weights = true; break;
      case 'P': ro.merge.precondition = true; break;
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
      std::printf("results: %s\n", ro.output.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nufftmp-mtip (rank %d): error: %s\n", rank, e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
