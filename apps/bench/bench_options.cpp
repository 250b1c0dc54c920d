// getopt_long parsing of the bench flags through the apps' shared parser (common/flags.hpp):
// every value is validated here so that a typo gives a message naming the flag, not a library
// error later.
#include "bench_options.hpp"

#include <getopt.h>

#include <limits>
#include <sstream>

namespace nufftmp::bench {

namespace {

enum OptId {
  kPrec = 256, kType, kN1, kN2, kN3, kM, kNtransf, kTol, kIsign, kMethod, kNruns, kPlanRuns,
  kSort,
  kBackend, kDist, kCheck, kCheckSamples, kJson, kUpsampfac, kModeord, kSeed, kNthreads,
  kMaxbatch, kDebug, kScaling, kHelp
};

using apps::bad_value;
using apps::Interval;
using apps::parse_int;
using apps::parse_integer;
using apps::parse_real;

Method to_method(const char* s) {
  const std::string v = s;
  if (v == "auto" || v == "0") return Method::Auto;
  if (v == "gm" || v == "1") return Method::GM;
  if (v == "gm-sort" || v == "gmsort" || v == "2") return Method::GMSort;
  if (v == "sm" || v == "3") return Method::SM;
  if (v == "output" || v == "4") return Method::Output;
  bad_value("method", v, "must be auto/0, gm/1, gm-sort/2, sm/3 or output/4");
}

}  // namespace

std::int64_t BenchOptions::num_points() const {
  if (M > 0) return M;
  std::int64_t m = 1;
  for (int d = 0; d < dim(); ++d) m *= 2 * N[d];
  return m;
}

Options BenchOptions::plan_options() const {
  Options o;
  o.backend = backend;
  o.method = method;
  o.modeord = modeord;
  o.upsampfac = upsampfac;
  o.nthreads = nthreads;
  o.maxbatchsize = maxbatchsize;
  o.sort = sort;
  o.debug = debug;
  return o;
}

const char* dist_name(PointDist d) noexcept {
  return d == PointDist::Cluster ? "cluster" : "uniform";
}

const char* scaling_name(Scaling s) noexcept {
  switch (s) {
    case Scaling::None: return "none";
    case Scaling::Weak: return "weak";
    case Scaling::Strong: return "strong";
  }
  return "unknown";
}

std::string usage_text(const char* prog) {
  std::ostringstream os;
  os << "usage: " << prog << " [flags]\n"
     << "Times one NUFFT configuration: the first plan and its set_points, execute\n"
     << "(warm-up + n_runs), set_points again (n_runs), fresh plans with their set_points\n"
     << "(plan_runs), and the host-array path on one more fresh plan.\n\n"
     << "  --prec f|d            precision (default f)\n"
     << "  --type 1|2|3          transform type (default 1)\n"
     << "  --N1 --N2 --N3 N      modes per dimension; dim = last N_i > 1 (default 1e6 1 1).\n"
     << "                        Type 3: N1*N2*N3 targets at s_i = (N_i/2)(u + a_i), u in\n"
     << "                        [-1, 1), a = (1.7, -0.5, 0.9): frequencies in the range of a\n"
     << "                        type 1 of that size, off centre (cuperftest --type 3's)\n"
     << "  --M M                 number of points (default prod(2 N_i): density 1)\n"
     << "  --ntransf n           vectors per execute (default 1)\n"
     << "  --tol t               requested accuracy (default 1e-5)\n"
     << "  --isign +1|-1         sign of the exponent (default +1)\n"
     << "  --method m            auto/0, gm/1, gm-sort/2, sm/3, output/4 (default auto;\n"
     << "                        numbers are nufftmp::Method, not cuFINUFFT's)\n"
     << "  --n_runs n            timed executes after one warm-up, and repeated set_points\n"
     << "                        on that plan (default 10)\n"
     << "  --plan_runs n         fresh plans (each with its set_points) timed after the\n"
     << "                        first plan (default: n_runs)\n"
     << "  --sort 0|1            bin-sort points in set_points (default 1)\n"
     << "  --backend b           cpu, cuda or auto (default auto: cuda when a GPU is seen)\n"
     << "  --dist d              uniform: [-pi,pi)^d; cluster: [0, 8h)^d, h = 2pi/(2N_i)\n"
     << "  --check               relative l2 error against the direct sum on sampled outputs\n"
     << "  --check_samples n     outputs sampled by --check (default 100..1000 by M)\n"
     << "  --json                print one JSON object per line instead of the table\n"
     << "  --upsampfac s         upsampling factor sigma in [1.25, 2] (default 2)\n"
     << "  --modeord 0|1         0: increasing modes, 1: FFT order (default 0)\n"
     << "  --seed s              random seed for points and strengths (default 42)\n"
     << "  --nthreads n          CPU engine threads, 0 = all (default 0)\n"
     << "  --maxbatchsize n      vectors transformed together, 0 = choose (default 0)\n"
     << "  --scaling s           none, weak or strong: distributed run under MPI\n"
     << "                        (weak: sizes are per rank; strong: sizes are totals)\n"
     << "  --debug n             library debug level (default 0)\n"
     << "  --help                this text\n"
     << "Sizes accept 1e6 notation. Exit status: 0 ok, 1 library error, 2 bad flags.\n";
  return os.str();
}

BenchOptions parse_bench_options(int argc, char** argv, bool& help) {
  static const option longopts[] = {
      {"prec", required_argument, nullptr, kPrec},
      {"type", required_argument, nullptr, kType},
      {"N1", required_argument, nullptr, kN1},
      {"N2", required_argument, nullptr, kN2},
      {"N3", required_argument, nullptr, kN3},
      {"M", required_argument, nullptr, kM},
      {"ntransf", required_argument, nullptr, kNtransf},
      {"tol", required_argument, nullptr, kTol},
      {"isign", required_argument, nullptr, kIsign},
      {"method", required_argument, nullptr, kMethod},
      {"n_runs", required_argument, nullptr, kNruns},
      {"plan_runs", required_argument, nullptr, kPlanRuns},
      {"sort", required_argument, nullptr, kSort},
      {"backend", required_argument, nullptr, kBackend},
      {"dist", required_argument, nullptr, kDist},
      {"check", no_argument, nullptr, kCheck},
      {"check_samples", required_argument, nullptr, kCheckSamples},
      {"json", no_argument, nullptr, kJson},
      {"upsampfac", required_argument, nullptr, kUpsampfac},
      {"modeord", required_argument, nullptr, kModeord},
      {"seed", required_argument, nullptr, kSeed},
      {"nthreads", required_argument, nullptr, kNthreads},
      {"maxbatchsize", required_argument, nullptr, kMaxbatch},
      {"scaling", required_argument, nullptr, kScaling},
      {"debug", required_argument, nullptr, kDebug},
      {"help", no_argument, nullptr, kHelp},
      {nullptr, 0, nullptr, 0}};

  constexpr std::int64_t kMaxSize = std::int64_t(1) << 50;
  BenchOptions o;
  help = false;
  opterr = 0;  // we print our own messages
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":h", longopts, nullptr)) != -1) {
    const std::string v = optarg ? optarg : "";
    switch (c) {
      case kPrec:
        if (v != "f" && v != "d" && v != "float" && v != "double")
          bad_value("prec", v, "must be f or d");
        o.prec = v[0];
        break;
      case kType: o.type = parse_int("type", optarg, 1, 3); break;
      case kN1: o.N[0] = parse_integer("N1", optarg, 1, kMaxSize); break;
      case kN2: o.N[1] = parse_integer("N2", optarg, 1, kMaxSize); break;
      case kN3: o.N[2] = parse_integer("N3", optarg, 1, kMaxSize); break;
      case kM: o.M = parse_integer("M", optarg, 1, kMaxSize); break;
      case kNtransf: o.ntransf = parse_int("ntransf", optarg, 1, 1 << 20); break;
      case kTol:
        o.tol = parse_real("tol", optarg, Interval{0.0, 1.0, true, true});
        break;
      case kIsign: {
        const int s = parse_int("isign", optarg, -1, 1);
        if (s == 0) bad_value("isign", v, "must be +1 or -1");
        o.isign = s;
        break;
      }
      case kMethod: o.method = to_method(optarg); break;
      case kNruns: o.n_runs = parse_int("n_runs", optarg, 1, 1000000); break;
      case kPlanRuns: o.plan_runs = parse_int("plan_runs", optarg, 1, 1000000); break;
      case kSort: o.sort = parse_int("sort", optarg, 0, 1) == 1; break;
      case kBackend:
        if (v == "cpu") o.backend = Backend::Cpu;
        else if (v == "cuda" || v == "gpu") o.backend = Backend::Cuda;
        else if (v == "auto") o.backend = Backend::Auto;
        else bad_value("backend", v, "must be cpu, cuda or auto");
        break;
      case kDist:
        if (v == "uniform") o.dist = PointDist::Uniform;
        else if (v == "cluster") o.dist = PointDist::Cluster;
        else bad_value("dist", v, "must be uniform or cluster");
        break;
      case kCheck: o.check = true; break;
      case kCheckSamples: o.check_samples = parse_integer("check_samples", optarg, 1, kMaxSize); break;
      case kJson: o.json = true; break;
      case kUpsampfac:
        o.upsampfac = parse_real("upsampfac", optarg, Interval{1.25, 2.0});
        break;
      case kModeord: o.modeord = parse_int("modeord", optarg, 0, 1); break;
      case kSeed:
        o.seed = static_cast<std::uint64_t>(
            parse_integer("seed", optarg, 0, std::numeric_limits<std::int64_t>::max() / 2));
        break;
      case kNthreads: o.nthreads = parse_int("nthreads", optarg, 0, 1 << 16); break;
      case kMaxbatch: o.maxbatchsize = parse_int("maxbatchsize", optarg, 0, 1 << 20); break;
      case kScaling:
        if (v == "none") o.scaling = Scaling::None;
        else if (v == "weak") o.scaling = Scaling::Weak;
        else if (v == "strong") o.scaling = Scaling::Strong;
        else bad_value("scaling", v, "must be none, weak or strong");
        break;
      case kDebug: o.debug = parse_int("debug", optarg, 0, 10); break;
      case 'h':
      case kHelp: help = true; return o;
      default: apps::getopt_failure(c, argv);
    }
  }
  apps::reject_positionals(argc, argv);
  return o;
}

}  // namespace nufftmp::bench
