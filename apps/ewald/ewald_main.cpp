// nufftmp-ewald: periodic electrostatics by spectral Ewald summation on the distributed NUFFT
// (issue 16): Madelung constants of built-in crystals, energies and forces of systems read
// from files or drawn at random, and the time of one step split into its parts.
//   mpirun -np 2 nufftmp-ewald --crystal nacl --cells 4 --accuracy 1e-12
//   nufftmp-ewald --random 1e6 --accuracy 1e-6 --steps 3 --json
#include <getopt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "common/flags.hpp"
#include "fileio/durable_replace.hpp"
#include "dist/collectives.hpp"
#include "dist/mpi_session.hpp"
#include "nufftmp/ewald.hpp"

using namespace nufftmp;
using namespace nufftmp::ewald;
using apps::UsageError;

namespace {

void usage() {
  std::printf(
      "usage: mpirun -np P nufftmp-ewald (--crystal NAME | --input FILE | --random N) [options]\n"
      "system (one of):\n"
      "  --crystal NAME       nacl, cscl, zincblende or fluorite (nearest-neighbour distance 1)\n"
      "  --cells N            supercell of N^3 conventional cells (default 4)\n"
      "  --input FILE         .xyz (extended XYZ, Lattice=\"Lx 0 0 0 Ly 0 0 0 Lz\", lines\n"
      "                       'name x y z charge') or .h5 (/box, /positions N x 3, /charges)\n"
      "  --random N           N random ions (+1/-1, N even) in a cube of --density (default 1)\n"
      "  --seed S             seed of the random system (default 1)\n"
      "Ewald parameters (0 = chosen from the accuracy):\n"
      "  --accuracy A         RMS error of potentials and forces, relative to q/d and q^2/d^2\n"
      "                       (d: mean ion spacing), 1e-14 .. 1e-1 (default 1e-6)\n"
      "  --rcut R  --alpha A  --modes N1,N2,N3 (odd)  --nufft-tol T\n"
      "  --memory-budget B    bytes one rank may hold (device memory with the GPU; default\n"
      "                       80%% of the free GPU memory or 50%% of RAM, shared by the ranks\n"
      "                       on it); the modes are capped to fit (more real-space work)\n"
      "  --upsampfac S        NUFFT upsampling, 1.25 .. 2 (default: the plan's choice)\n"
      "  --maxbatch B         vectors the type 2 transforms at once (1 or 2; default 2 when\n"
      "                       it fits the budget)\n"
      "  --neutralize         allow a net charge: uniform neutralising background\n"
      "  --no-forces          potentials and energy only\n"
      "run:\n"
      "  --cpu                CPU engine (default: the GPU when every rank has one)\n"
      "  --host-real-space    with the GPU: the real-space part on the host\n"
      "  --steps K            evaluate K times (the plans are made once); report the fastest\n"
      "                       step after the first (default 1)\n"
      "  --reference          also solve at accuracy 1e-12 and print the errors against it\n"
      "  --check-madelung T   exit 1 unless the crystal's Madelung constant is within T\n"
      "                       (relative) of the literature value\n"
      "  --write FILE         write the system (.xyz or .h5) before solving\n"
      "  --json               one JSON line of results instead of the report\n"
      "  --verbose            also the memory estimate by component and the memory measured\n");
}

struct App {
  int crystal = -1;
  int cells = 4;
  std::string input, write;
  std::int64_t random = 0;
  double density = 1.0;
  std::int64_t seed = 1;
  ewald::Options ew;
  bool cpu = false, json = false, reference = false, verbose = false;
  int steps = 1;
  double check_madelung = 0;
};

App parse(int argc, char** argv) {
  using namespace apps;
  App a;
  enum {
    kCrystal = 1000, kCells, kInput, kRandom, kDensity, kSeed, kAccuracy, kRcut, kAlpha, kModes,
    kTol, kBudget, kUpsamp, kBatch, kNeutralize, kNoForces, kCpu, kHostReal, kSteps, kReference,
    kCheck, kWrite, kJson, kVerbose, kHelp
  };
  static const option longopts[] = {
      {"crystal", required_argument, nullptr, kCrystal},
      {"cells", required_argument, nullptr, kCells},
      {"input", required_argument, nullptr, kInput},
      {"random", required_argument, nullptr, kRandom},
      {"density", required_argument, nullptr, kDensity},
      {"seed", required_argument, nullptr, kSeed},
      {"accuracy", required_argument, nullptr, kAccuracy},
      {"rcut", required_argument, nullptr, kRcut},
      {"alpha", required_argument, nullptr, kAlpha},
      {"modes", required_argument, nullptr, kModes},
      {"nufft-tol", required_argument, nullptr, kTol},
      {"memory-budget", required_argument, nullptr, kBudget},
      {"upsampfac", required_argument, nullptr, kUpsamp},
      {"maxbatch", required_argument, nullptr, kBatch},
      {"neutralize", no_argument, nullptr, kNeutralize},
      {"no-forces", no_argument, nullptr, kNoForces},
      {"cpu", no_argument, nullptr, kCpu},
      {"host-real-space", no_argument, nullptr, kHostReal},
      {"steps", required_argument, nullptr, kSteps},
      {"reference", no_argument, nullptr, kReference},
      {"check-madelung", required_argument, nullptr, kCheck},
      {"write", required_argument, nullptr, kWrite},
      {"json", no_argument, nullptr, kJson},
      {"verbose", no_argument, nullptr, kVerbose},
      {"help", no_argument, nullptr, kHelp},
      {nullptr, 0, nullptr, 0}};
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":h", longopts, nullptr)) != -1) {
    switch (c) {
      case kCrystal:
        a.crystal = parse_choice("crystal", optarg, {"nacl", "cscl", "zincblende", "fluorite"});
        break;
      case kCells: a.cells = static_cast<int>(parse_integer("cells", optarg, 1, 10000)); break;
      case kInput: a.input = optarg; break;
      case kRandom: a.random = parse_integer("random", optarg, 2, std::int64_t(1) << 40); break;
      case kDensity: a.density = parse_real("density", optarg, Interval{0, 1e6, true, false}); break;
      case kSeed: a.seed = parse_integer("seed", optarg, 0, INT64_MAX); break;
      case kAccuracy: a.ew.accuracy = parse_real("accuracy", optarg, Interval{1e-14, 1e-1}); break;
      case kRcut: a.ew.rcut = parse_real("rcut", optarg, non_negative()); break;
      case kAlpha: a.ew.alpha = parse_real("alpha", optarg, non_negative()); break;
      case kModes: {
        const auto items = split_list("modes", optarg, 3);
        if (items.size() != 3) bad_value("modes", optarg, "needs 3 comma-separated whole numbers");
        for (int d = 0; d < 3; ++d)
          a.ew.modes[d] = parse_integer("modes", items[d].c_str(), 1, std::int64_t(1) << 24);
        break;
      }
      case kTol: a.ew.nufft_tol = parse_real("nufft-tol", optarg, Interval{1e-14, 1e-1}); break;
      case kBudget: a.ew.memory_budget_bytes = parse_real("memory-budget", optarg, Interval{0, 1e18}); break;
      case kUpsamp: a.ew.nufft.upsampfac = parse_real("upsampfac", optarg, Interval{1.25, 2.0}); break;
      case kBatch: a.ew.nufft.maxbatchsize = static_cast<int>(parse_integer("maxbatch", optarg, 1, 2)); break;
      case kNeutralize: a.ew.neutralize = true; break;
      case kNoForces: a.ew.forces = false; break;
      case kCpu: a.cpu = true; break;
      case kHostReal: a.ew.real_space_on_gpu = false; break;
      case kSteps: a.steps = static_cast<int>(parse_integer("steps", optarg, 1, 1000)); break;
      case kReference: a.reference = true; break;
      case kCheck: a.check_madelung = parse_real("check-madelung", optarg, Interval{0, 1, true, false}); break;
      case kWrite: a.write = optarg; break;
      case kJson: a.json = true; break;
      case kVerbose: a.verbose = true; break;
      case 'h':
      case kHelp: usage(); std::exit(0);
      default: getopt_failure(c, argv);
    }
  }
  reject_positionals(argc, argv);
  const int systems = (a.crystal >= 0) + !a.input.empty() + (a.random > 0);
  if (systems != 1)
    throw UsageError("give exactly one of --crystal, --input, --random (got " +
                     std::to_string(systems) + ")");
  if (a.random % 2 != 0) throw UsageError("--random must be even (half +1, half -1)");
  if (a.check_madelung > 0 && a.crystal < 0) throw UsageError("--check-madelung needs --crystal");
  if (!a.write.empty() && !a.input.empty() && fileio::same_file(a.input, a.write))
    throw UsageError("--write '" + a.write + "' is the input '" + a.input +
                     "' (the same file): refusing to overwrite the input");
  return a;
}

// Per-component maximum over the ranks: the slowest rank bounds each part.
Timings slowest(const dist::Context& ctx, const Timings& t) {
  double v[6] = {t.real_ms, t.nufft_ms, t.modes_ms, t.comm_ms, t.transfer_ms, t.total_ms};
  dist::detail::allreduce_max(ctx.comm(), v, 6);
  return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

// RMS differences over all ranks' ions: potentials (/ q_rms/d) and forces (/ q_rms^2/d^2).
std::pair<double, double> rms_errors(const dist::Context& ctx, const Result& r,
                                     const Result& ref) {
  double s[2] = {0, 0};
  for (std::size_t i = 0; i < r.potential.size(); ++i) {
    s[0] += std::pow(r.potential[i] - ref.potential[i], 2);
    if (!r.fx.empty())
      s[1] += std::pow(r.fx[i] - ref.fx[i], 2) + std::pow(r.fy[i] - ref.fy[i], 2) +
              std::pow(r.fz[i] - ref.fz[i], 2);
  }
  dist::detail::allreduce_sum(ctx.comm(), s, 2);
  const double N = double(r.n_total), q2 = r.sum_q2 / N, d = r.parameters.spacing;
  return {std::sqrt(s[0] / N) / (std::sqrt(q2) / d), std::sqrt(s[1] / N) / (q2 / (d * d))};
}

int run(const App& a, int rank, int size) {
  dist::ContextOptions co;
  co.backend = a.cpu ? Backend::Cpu : Backend::Auto;
  dist::Context ctx(MPI_COMM_WORLD, co);
  const auto crystal = static_cast<Crystal>(a.crystal);
  System sys = a.crystal >= 0 ? make_crystal(crystal, a.cells, rank, size)
               : !a.input.empty()
                   ? read_system(ctx, a.input)
                   : make_random_system(a.random, a.density, static_cast<std::uint64_t>(a.seed),
                                        rank, size);
  if (!a.write.empty()) write_system(ctx, a.write, sys);
  Solver solver(ctx, sys.box, a.ew);
  Result best;
  double first_ms = 0;
  for (int s = 0; s < a.steps; ++s) {
    Result r = solver.compute(sys.size(), sys.x.data(), sys.y.data(), sys.z.data(), sys.q.data());
    r.timings = slowest(ctx, r.timings);
    if (s == 0) first_ms = r.timings.total_ms;
    if (s <= 1 || r.timings.total_ms < best.timings.total_ms) best = std::move(r);
  }
  double err_p = -1, err_f = -1;
  if (a.reference) {
    ewald::Options tight = a.ew;
    tight.accuracy = 1e-12;
    tight.rcut = tight.alpha = tight.nufft_tol = 0;
    tight.modes = {0, 0, 0};
    Solver ref(ctx, sys.box, tight);
    const Result rr = ref.compute(sys.size(), sys.x.data(), sys.y.data(), sys.z.data(), sys.q.data());
    std::tie(err_p, err_f) = rms_errors(ctx, best, rr);
  }
  const Parameters& p = best.parameters;
  const Timings& t = best.timings;
  // The largest rank's measured memory: type 1 plan, type 2 plan, the solver's buffers.
  double mem[3] = {best.memory_type1_plan, best.memory_type2_plan, best.memory_solver_peak};
  dist::detail::allreduce_max(ctx.comm(), mem, 3);
  const double madelung = a.crystal >= 0 ? madelung_constant(crystal, a.cells, best.energy) : 0;
  const double lit = a.crystal >= 0 ? crystal_info(crystal).madelung_literature : 0;
  const char* engine = ctx.backend() == Backend::Cuda
                           ? (a.ew.real_space_on_gpu ? "cuda" : "cuda+host-real") : "cpu";
  if (rank == 0 && a.json) {
    std::printf(
        "{\"n\":%lld,\"ranks\":%d,\"engine\":\"%s\",\"accuracy\":%g,\"rcut\":%.6g,\"alpha\":%.6g,"
        "\"modes\":[%lld,%lld,%lld],\"nufft_tol\":%.3g,\"upsampfac\":%g,\"steps\":%d,"
        "\"first_ms\":%.3f,\"real_ms\":%.3f,\"nufft_ms\":%.3f,\"modes_ms\":%.3f,\"comm_ms\":%.3f,"
        "\"transfer_ms\":%.3f,\"total_ms\":%.3f,\"ns_per_ion\":%.3f,\"energy\":%.17g",
        static_cast<long long>(best.n_total), size, engine, a.ew.accuracy, p.rcut, p.alpha,
        static_cast<long long>(p.modes[0]), static_cast<long long>(p.modes[1]),
        static_cast<long long>(p.modes[2]), p.nufft_tol, a.ew.nufft.upsampfac, a.steps,
        first_ms, t.real_ms, t.nufft_ms, t.modes_ms, t.comm_ms, t.transfer_ms,
        t.total_ms, t.total_ms * 1e6 / double(best.n_total), best.energy);
    const MemoryEstimate& m = p.memory;
    std::printf(",\"upsampfac_used\":[%g,%g],\"type2_batch\":%d,\"phase_buffers\":%s,"
                "\"memory_capped\":%s,\"budget_gb\":%.3f,\"mem_est_gb\":%.3f,"
                "\"mem_est\":{\"grid1\":%.3f,\"grid2\":%.3f,\"fft_work\":%.3f,"
                "\"plan_points\":%.3f,\"modes\":%.3f,\"held\":%.3f,\"real_space\":%.3f,"
                "\"reciprocal\":%.3f},\"mem_plan1_gb\":%.3f,\"mem_plan2_gb\":%.3f,"
                "\"mem_plan1_est_gb\":%.3f,\"mem_plan2_est_gb\":%.3f,\"mem_solver_peak_gb\":%.3f",
                m.upsampfac_type1, m.upsampfac_type2, p.type2_batch,
                p.phase_buffers ? "true" : "false", p.memory_capped ? "true" : "false",
                p.memory_budget / 1e9, m.peak() / 1e9, m.grid_type1 / 1e9, m.grid_type2 / 1e9,
                m.fft_work / 1e9, m.plan_points / 1e9, m.modes / 1e9, m.held / 1e9,
                m.real_space / 1e9, m.reciprocal / 1e9, mem[0] / 1e9, mem[1] / 1e9,
                m.plan_type1 / 1e9, m.plan_type2 / 1e9, mem[2] / 1e9);
    if (a.reference) std::printf(",\"err_potential\":%.3g,\"err_force\":%.3g", err_p, err_f);
    if (a.crystal >= 0) std::printf(",\"madelung\":%.15g,\"madelung_rel_err\":%.3g", madelung,
                                    std::abs(madelung - lit) / lit);
    std::printf("}\n");
  } else if (rank == 0) {
    std::printf("system: %lld ions in %.6g x %.6g x %.6g, net charge %.3g, %d rank(s), engine %s\n",
                static_cast<long long>(best.n_total), sys.box.L[0], sys.box.L[1], sys.box.L[2],
                best.net_charge, size, engine);
    std::printf("parameters: %s\n", p.describe().c_str());
    if (a.verbose) {
      std::printf("memory estimate per rank (budget %.3g GB): %s\n", p.memory_budget / 1e9,
                  p.memory.describe().c_str());
      std::printf("memory measured (largest rank): type 1 plan %.3g GB, type 2 plan %.3g GB "
                  "(estimate %.3g, %.3g: grid, FFT work, points), solver buffers at most "
                  "%.3g GB%s\n",
                  mem[0] / 1e9, mem[1] / 1e9, p.memory.plan_type1 / 1e9,
                  p.memory.plan_type2 / 1e9,
                  mem[2] / 1e9, ctx.backend() == Backend::Cuda ? "" : " (not measured on the CPU)");
    }
    std::printf("energy %.15g = real %.15g + reciprocal %.15g + self %.15g + background %.3g\n",
                best.energy, best.energy_real, best.energy_recip, best.energy_self,
                best.energy_background);
    if (a.crystal >= 0)
      std::printf("Madelung constant (%s, %d^3 cells): %.13f, literature %.12f, relative "
                  "difference %.2e\n",
                  crystal_name(crystal), a.cells, madelung, lit, std::abs(madelung - lit) / lit);
    if (a.reference)
      std::printf("RMS error against accuracy 1e-12: potential %.2e, force %.2e (relative)\n",
                  err_p, err_f);
    std::printf("time of %s (ms, slowest rank per part): real %.2f, nufft %.2f, modes %.2f, "
                "comm %.2f, transfer %.2f, total %.2f (first step %.2f)\n",
                a.steps > 1 ? "the fastest step after the first" : "the step", t.real_ms,
                t.nufft_ms, t.modes_ms, t.comm_ms, t.transfer_ms, t.total_ms,
                first_ms);
  }
  if (a.check_madelung > 0 && !(std::abs(madelung - lit) <= a.check_madelung * lit)) {
    if (rank == 0)
      std::fprintf(stderr, "nufftmp-ewald: Madelung constant %.13f is not within %g of %.12f\n",
                   madelung, a.check_madelung, lit);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const dist::detail::MpiSession mpi("nufftmp-ewald", &argc, &argv);
  const int rank = mpi.rank(), size = mpi.size();
  int status = 0;
  try {
    const App a = parse(argc, argv);
    status = run(a, rank, size);
  } catch (const UsageError& e) {
    if (rank == 0) std::fprintf(stderr, "nufftmp-ewald: %s (see --help)\n", e.what());
    status = 2;
  } catch (const Error& e) {
    // Every rank holds the error (the library agrees on it); the root reports it.
    if (rank == 0)
      std::fprintf(stderr, "nufftmp-ewald: %s: %s\n", error_code_name(e.code()), e.what());
    status = 1;
  }
  return status;
}
